//! The `Input`, `Output` and `Patch Constant signature` tables of fxc's comment header.
//!
//! Contract: [`parse_signature`] reads a signature section's lines (collected by
//! [`super::parse_header`]) into [`SignatureEntry`] rows, as printed: masks from the per-component
//! columns (`N/A` and register-less rows get `x`), system values by fxc's names, min-precision
//! formats with their storage type, and `m<stream>:` name prefixes split off. `no Input`-style
//! rows are skipped; a malformed row is an [`crate::text::dxbc::asm::AsmError`] at its field.

use super::{number, table_rows, Field, Line};
use crate::front::dxbc::signature::{ComponentType, MinPrecision, SystemValue};
use crate::text::dxbc::asm::error::Result;

/// One signature table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureTable {
    /// 1-based line of its title.
    pub line: u32,
    /// The rows, in listing (= chunk) order.
    pub elements: Vec<SignatureEntry>,
}

/// One row of a signature table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureEntry {
    /// 1-based line of the row.
    pub line: u32,
    /// Output stream: the `m<stream>:` name prefix fxc prints for geometry shaders with
    /// streams, else 0.
    pub stream: u32,
    /// Semantic name.
    pub name: String,
    /// Semantic index.
    pub semantic_index: u32,
    /// Components the element occupies (bit 0 = x). A row without a register prints `N/A`;
    /// fxc stores `x` for those single-component elements, and so is this.
    pub mask: u8,
    /// Register number; `None` for `N/A`, `oDepth`, `oMask`, ... (no register).
    pub register: Option<u32>,
    /// The `SysValue` column: what reflection reports (`TARGET` for `SV_Target`).
    pub system_value: SystemValue,
    /// Component type (for min-precision formats, the type they are stored with).
    pub component_type: ComponentType,
    /// Minimum precision of min-precision formats (`min16f`, ...), else `Default`.
    pub min_precision: MinPrecision,
    /// The `Used` column: components read (inputs) or written (outputs). `YES` is `mask`,
    /// `NO` is 0.
    pub used: u8,
}

/// A signature table's rows.
pub(super) fn parse_signature(lines: &[Line<'_>]) -> Result<Vec<SignatureEntry>> {
    let Some((_, rows)) = table_rows(lines) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let t = row.text.trim();
        if t.starts_with("no ") {
            continue; // `no Input`, `no Output`, `no Patch Constant`
        }
        out.push(parse_signature_row(row)?);
    }
    Ok(out)
}

fn parse_signature_row(row: &Line<'_>) -> Result<SignatureEntry> {
    let f = row.fields();
    let mut it = f.iter().copied().peekable();
    let missing = |what: &str| row.error(row.end(), format!("expected {what}, found end of line"));
    let name_field = it.next().ok_or_else(|| missing("semantic name"))?;
    let (stream, name) = split_stream(name_field.text);
    let index_field = it.next().ok_or_else(|| missing("semantic index"))?;
    let semantic_index = number(row, index_field, "semantic index")?;
    // The mask prints one column per component (`xy  `, `  zw`, `x z `), or `N/A`.
    let mut mask = 0u8;
    let mut no_mask = false;
    while let Some(m) = it.peek().copied() {
        if m.text == "N/A" {
            no_mask = true;
            it.next();
            break;
        }
        match component_bits(m.text) {
            Some(bits) => {
                mask |= bits;
                it.next();
            }
            None => break,
        }
    }
    let reg = it.next().ok_or_else(|| missing("register"))?;
    let register = if reg.text.bytes().all(|b| b.is_ascii_digit()) {
        Some(number(row, reg, "register")?)
    } else if reg.text == "N/A" || reg.text.starts_with('o') || reg.text.starts_with('v') {
        None
    } else {
        return Err(row.error(
            reg.column,
            format!("expected register, found '{}'", reg.text),
        ));
    };
    if register.is_none() || no_mask {
        mask = 1;
    }
    let sv = it.next().ok_or_else(|| missing("system value"))?;
    let system_value = system_value(row, sv)?;
    let fmt = it.next().ok_or_else(|| missing("format"))?;
    let (component_type, min_precision) = format(row, fmt)?;
    let mut used = 0u8;
    for u in it {
        used |= match (u.text, register) {
            ("YES", None) => mask,
            ("NO", None) => 0,
            (t, Some(_)) => component_bits(t).ok_or_else(|| {
                row.error(u.column, format!("expected used components, found '{t}'"))
            })?,
            (t, None) => {
                return Err(row.error(u.column, format!("expected YES or NO, found '{t}'")))
            }
        };
    }
    Ok(SignatureEntry {
        line: row.number,
        stream,
        name: name.to_string(),
        semantic_index,
        mask,
        register,
        system_value,
        component_type,
        min_precision,
        used,
    })
}

/// `m1:POSITION` → (1, `POSITION`); other names → (0, name).
fn split_stream(name: &str) -> (u32, &str) {
    if let Some((prefix, rest)) = name.split_once(':') {
        if let Some(n) = prefix.strip_prefix('m').and_then(|d| d.parse().ok()) {
            return (n, rest);
        }
    }
    (0, name)
}

/// The bits of a run of component letters in `xyzw` order (`xy`, `zw`, `x`), if it is one.
fn component_bits(text: &str) -> Option<u8> {
    let mut bits = 0u8;
    let mut last = None;
    for c in text.chars() {
        let i = "xyzw".find(c)?;
        if last.is_some_and(|l| i <= l) {
            return None;
        }
        last = Some(i);
        bits |= 1 << i;
    }
    (!text.is_empty()).then_some(bits)
}

fn system_value(row: &Line<'_>, f: Field<'_>) -> Result<SystemValue> {
    (0..=255)
        .map(SystemValue::from_raw)
        .find(|v| v.fxc_name() == Some(f.text))
        .or_else(|| f.text.parse().ok().map(SystemValue::from_raw))
        .ok_or_else(|| row.error(f.column, format!("unknown system value '{}'", f.text)))
}

/// The `Format` column: a component type, or a minimum precision with its storage type.
fn format(row: &Line<'_>, f: Field<'_>) -> Result<(ComponentType, MinPrecision)> {
    if let Some(ty) = (0..4)
        .map(ComponentType::from_raw)
        .find(|t| t.fxc_name() == Some(f.text))
    {
        return Ok((ty, MinPrecision::Default));
    }
    let min = [1, 2, 4, 5, 0xf0, 0xf1]
        .into_iter()
        .map(MinPrecision::from_raw)
        .find(|m| m.fxc_name() == Some(f.text));
    if let Some(min) = min {
        let ty = match min {
            MinPrecision::Sint16 => ComponentType::Sint32,
            MinPrecision::Uint16 => ComponentType::Uint32,
            MinPrecision::Any16 | MinPrecision::Any10 => ComponentType::Untyped,
            _ => ComponentType::Float32,
        };
        return Ok((ty, min));
    }
    match f.text.parse() {
        Ok(raw) => Ok((ComponentType::from_raw(raw), MinPrecision::Default)),
        Err(_) => Err(row.error(f.column, format!("unknown format '{}'", f.text))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_runs() {
        assert_eq!(component_bits("xyzw"), Some(15));
        assert_eq!(component_bits("zw"), Some(12));
        assert_eq!(component_bits("yx"), None);
        assert_eq!(component_bits("NONE"), None);
        assert_eq!(component_bits(""), None);
    }
}
