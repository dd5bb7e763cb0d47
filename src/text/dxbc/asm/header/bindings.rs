//! The `Resource Bindings` table of fxc's comment header.
//!
//! Contract: [`parse_bindings`] reads the section's lines into [`BindingDef`] rows decoded into
//! `RDEF` binding fields, and tells the column layout ([`BindingLayout`]) from the column header.
//! Columns are read from the right, so a name with spaces is kept whole. A malformed row is an
//! [`crate::text::dxbc::asm::AsmError`] at its field.

use super::{number, table_rows, Field, Line};
use crate::text::dxbc::asm::error::Result;

/// The column layout of a `Resource Bindings` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingLayout {
    /// fxc before 10: `Slot Elements`.
    Slot,
    /// fxc 10: `HLSL Bind Count`.
    HlslBind,
    /// fxc 10, Shader Model 5.1: `ID HLSL Bind Count`.
    WithId,
    /// The Shader Model 5.1 preview compiler (Microsoft's SM5.1 documentation):
    /// `Space Slot Elements`; range IDs follow declaration order per register class.
    SpaceSlot,
}

/// One `Resource Bindings` row, decoded into `RDEF` binding fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingDef {
    /// 1-based line of the row.
    pub line: u32,
    /// Name.
    pub name: String,
    /// `D3D_SHADER_INPUT_TYPE`.
    pub input_type: u32,
    /// `D3D_RESOURCE_RETURN_TYPE` (0 where the `Format` column has none).
    pub return_type: u32,
    /// `D3D_SRV_DIMENSION`.
    pub dimension: u32,
    /// Components of the `Format` column (`float4` → 4; 1 otherwise).
    pub components: u32,
    /// `sampler_c`: a comparison sampler.
    pub comparison: bool,
    /// First register.
    pub bind_point: u32,
    /// Number of registers; 0 for `unbounded`.
    pub bind_count: u32,
    /// Register space (`,spaceN`; 0 when not printed).
    pub space: u32,
    /// Range ID of the `ID` column (`T3` → 3), SM5.1 tables only.
    pub id: Option<u32>,
}

/// The `Resource Bindings` table: its layout (from the column header) and rows.
pub(super) fn parse_bindings(
    lines: &[Line<'_>],
) -> Result<(Option<BindingLayout>, Vec<BindingDef>)> {
    let Some((header, rows)) = table_rows(lines) else {
        return Ok((None, Vec::new()));
    };
    let columns: Vec<&str> = header.fields().iter().map(|f| f.text).collect();
    let layout = if columns.contains(&"Space") && columns.contains(&"Slot") {
        BindingLayout::SpaceSlot
    } else if columns.contains(&"Slot") {
        BindingLayout::Slot
    } else if columns.contains(&"ID") {
        BindingLayout::WithId
    } else {
        BindingLayout::HlslBind
    };
    let mut rows: Vec<BindingDef> = rows
        .iter()
        .map(|r| parse_binding_row(r, layout))
        .collect::<Result<_>>()?;
    if layout == BindingLayout::SpaceSlot {
        // Range IDs are not printed: they number each register class in table order.
        let mut next = [0u32; 4];
        for row in &mut rows {
            let class = match row.input_type {
                0 => 0,
                3 => 1,
                1 | 2 | 5 | 7 => 2,
                _ => 3,
            };
            row.id = Some(next[class]);
            next[class] += 1;
        }
    }
    Ok((Some(layout), rows))
}

fn parse_binding_row(row: &Line<'_>, layout: BindingLayout) -> Result<BindingDef> {
    let f = row.fields();
    // Name Type Format Dim [ID] Bind Count: read from the right, so that a name is never split.
    let tail = if matches!(layout, BindingLayout::WithId | BindingLayout::SpaceSlot) {
        6
    } else {
        5
    };
    if f.len() < tail + 1 {
        return Err(row.error(
            row.end(),
            format!(
                "expected {} columns in a resource binding row, found {}",
                tail + 1,
                f.len()
            ),
        ));
    }
    let split = f.len() - tail;
    let name_end = f[split - 1];
    let name_start = f[0].column as usize - row.column as usize;
    let name_len = name_end.column as usize - row.column as usize + name_end.text.len();
    let name = row
        .text
        .get(name_start..name_len)
        .unwrap_or(name_end.text)
        .to_string();
    let (ty, fmt, dim) = (f[split], f[split + 1], f[split + 2]);
    let (id_field, bind, count) = match layout {
        BindingLayout::WithId => (Some(f[split + 3]), f[split + 4], f[split + 5]),
        BindingLayout::SpaceSlot => (None, f[split + 4], f[split + 5]),
        _ => (None, f[split + 3], f[split + 4]),
    };
    let (format_type, components) = binding_format(row, fmt)?;
    let (input_type, comparison) = binding_input_type(row, ty, fmt, dim)?;
    let uses_format = matches!(input_type, 2 | 4);
    let dimension = match input_type {
        0 | 1 | 3 => 0,
        5..=11 => 1,
        _ => binding_dimension(row, dim)?,
    };
    let return_type = match input_type {
        2 | 4 => format_type,
        5..=11 => 6,
        _ => 0,
    };
    let (bind_point, space) = match layout {
        BindingLayout::Slot => (number(row, bind, "slot")?, 0),
        BindingLayout::SpaceSlot => (
            number(row, bind, "slot")?,
            number(row, f[split + 3], "space")?,
        ),
        _ => parse_bind(row, bind)?,
    };
    let bind_count = if count.text == "unbounded" {
        0
    } else {
        number(row, count, "bind count")?
    };
    let id = match id_field {
        Some(f) => {
            let digits = f.text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            Some(digits.parse().map_err(|_| {
                row.error(f.column, format!("expected range ID, found '{}'", f.text))
            })?)
        }
        None => None,
    };
    Ok(BindingDef {
        line: row.number,
        name,
        input_type,
        return_type,
        dimension,
        components: if uses_format { components } else { 1 },
        comparison,
        bind_point,
        bind_count,
        space,
        id,
    })
}

/// The `Type` column (with `Format` and `Dim`, which tell structured, raw and append/consume
/// buffers apart) → (`D3D_SHADER_INPUT_TYPE`, comparison sampler).
fn binding_input_type(
    row: &Line<'_>,
    ty: Field<'_>,
    fmt: Field<'_>,
    dim: Field<'_>,
) -> Result<(u32, bool)> {
    let t = match (ty.text, fmt.text, dim.text) {
        ("cbuffer", ..) => 0,
        ("tbuffer", ..) => 1,
        ("texture", "struct", _) => 5,
        ("texture", "byte", _) => 7,
        ("texture", ..) => 2,
        ("sampler", ..) => 3,
        ("sampler_c", ..) => return Ok((3, true)),
        ("UAV", _, "append") => 9,
        ("UAV", _, "consume") => 10,
        ("UAV", _, "r/w+cnt") => 11,
        ("UAV", "struct", _) => 6,
        ("UAV", "byte", _) => 8,
        ("UAV", ..) => 4,
        ("rtaccel", ..) => 12,
        (other, ..) => {
            return Err(row.error(ty.column, format!("unknown binding type '{other}'")));
        }
    };
    Ok((t, false))
}

/// The `Format` column → (return type, component count); `NA`, `struct`, `byte` → (0, 1).
fn binding_format(row: &Line<'_>, f: Field<'_>) -> Result<(u32, u32)> {
    if matches!(f.text, "NA" | "struct" | "byte") {
        return Ok((0, 1));
    }
    let base = f.text.trim_end_matches(|c: char| c.is_ascii_digit());
    let components = match &f.text[base.len()..] {
        "" => 1,
        n => n.parse().unwrap_or(0),
    };
    let ret = match base {
        "unorm" => 1,
        "snorm" => 2,
        "sint" => 3,
        "uint" => 4,
        "float" => 5,
        "mixed" => 6,
        "double" => 7,
        "cont" => 8,
        _ => 0,
    };
    if ret == 0 || !(1..=4).contains(&components) {
        return Err(row.error(f.column, format!("unknown resource format '{}'", f.text)));
    }
    Ok((ret, components))
}

/// The `Dim` column of textures and typed UAVs → `D3D_SRV_DIMENSION`.
fn binding_dimension(row: &Line<'_>, f: Field<'_>) -> Result<u32> {
    Ok(match f.text {
        "buf" => 1,
        "1d" => 2,
        "1darray" => 3,
        "2d" => 4,
        "2darray" => 5,
        "2dMS" => 6,
        "2dMSarray" => 7,
        "3d" => 8,
        "cube" => 9,
        "cubearray" => 10,
        "bufex" => 11,
        "NA" => 0,
        other => return Err(row.error(f.column, format!("unknown dimension '{other}'"))),
    })
}

/// The `HLSL Bind` column: `t3`, `cb0,space2` → (register, space).
fn parse_bind(row: &Line<'_>, f: Field<'_>) -> Result<(u32, u32)> {
    let bad = || {
        row.error(
            f.column,
            format!("expected a binding like t0, found '{}'", f.text),
        )
    };
    let (reg, space) = match f.text.split_once(',') {
        Some((r, s)) => (r, Some(s)),
        None => (f.text, None),
    };
    let digits = reg.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    if digits.len() == reg.len() {
        return Err(bad());
    }
    let point = digits.parse().map_err(|_| bad())?;
    let space = match space {
        Some(s) => s
            .strip_prefix("space")
            .and_then(|n| n.parse().ok())
            .ok_or_else(bad)?,
        None => 0,
    };
    Ok((point, space))
}
