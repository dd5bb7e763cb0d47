//! Mnemonics: fxc's instruction spellings (`texldp`, `texcrd`, `if_gt`, `setp_le`) and their
//! `_` suffixes (destination modifiers `_sat _pp _centroid _x2 … _d8`, `dcl` usages and sampler
//! types) back to an opcode, its controls and the destination flags.
//!
//! Contract: the spellings are the inverse of [`Opcode::spelling`]; every other base
//! mnemonic is an opcode's table name, so a new table row is assembled without a change here.

use crate::front::d3d9::opcodes::{Comparison, Opcode, TEXLD_BIAS, TEXLD_PROJECT};
use crate::front::d3d9::program::USAGE_NAMES;

/// A parsed mnemonic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Mnemonic {
    /// The opcode (`None` only while parsing).
    pub opcode: Option<Opcode>,
    /// The controls (comparison or texld mode).
    pub controls: u8,
    /// `_sat`.
    pub saturate: bool,
    /// `_pp`.
    pub partial_precision: bool,
    /// `_centroid`.
    pub centroid: bool,
    /// Result shift (`_x2` 1 … `_d8` −3).
    pub shift: i8,
    /// `dcl` usage and index.
    pub usage: Option<(u32, u32)>,
    /// `dcl` sampler texture type (`_2d` 2, `_cube` 3, `_volume` 4, `_1d` 1).
    pub texture_type: Option<u32>,
}

/// Parses a mnemonic word (`dcl_texcoord1_centroid`, `mad_sat`, `if_ge`); the error names the
/// part that is wrong.
pub(super) fn parse(word: &str) -> Result<Mnemonic, String> {
    let lower = word.to_ascii_lowercase();
    let mut parts = lower.split('_');
    let base = parts.next().unwrap_or("");
    let mut m = Mnemonic::default();
    let comparing = matches!(base, "if" | "break" | "setp");
    m.opcode = Some(match base {
        "tex" => Opcode::Tex,
        "texld" => Opcode::Tex,
        "texldp" => {
            m.controls = TEXLD_PROJECT;
            Opcode::Tex
        }
        "texldb" => {
            m.controls = TEXLD_BIAS;
            Opcode::Tex
        }
        "texcrd" | "texcoord" => Opcode::Texcoord,
        "if" => Opcode::If,
        "break" => Opcode::Break,
        "setp" => Opcode::Setp,
        _ => Opcode::ALL
            .iter()
            .copied()
            .find(|op| op.name() == base && !matches!(op, Opcode::Ifc | Opcode::Breakc))
            .ok_or_else(|| format!("unknown instruction '{word}'"))?,
    });
    let is_dcl = base == "dcl";
    for part in parts {
        if comparing {
            if let Some(c) = Comparison::ALL.iter().find(|c| c.suffix() == part) {
                m.controls = *c as u8;
                m.opcode = m.opcode.map(|op| match op {
                    Opcode::If => Opcode::Ifc,
                    Opcode::Break => Opcode::Breakc,
                    other => other,
                });
                continue;
            }
        }
        match part {
            "sat" => m.saturate = true,
            "pp" => m.partial_precision = true,
            "centroid" => m.centroid = true,
            "x2" => m.shift = 1,
            "x4" => m.shift = 2,
            "x8" => m.shift = 3,
            "d2" => m.shift = -1,
            "d4" => m.shift = -2,
            "d8" => m.shift = -3,
            "1d" if is_dcl => m.texture_type = Some(1),
            "2d" if is_dcl => m.texture_type = Some(2),
            "cube" if is_dcl => m.texture_type = Some(3),
            "volume" if is_dcl => m.texture_type = Some(4),
            _ if is_dcl && m.usage.is_none() => {
                m.usage = Some(usage(part).ok_or_else(|| {
                    format!("unknown dcl usage or modifier '_{part}' in '{word}'")
                })?);
            }
            _ => return Err(format!("unknown modifier '_{part}' in '{word}'")),
        }
    }
    if base == "setp" && m.opcode == Some(Opcode::Setp) && m.controls == 0 {
        return Err(format!(
            "'{word}' needs a comparison: setp_gt, _eq, _ge, _lt, _ne or _le"
        ));
    }
    Ok(m)
}

/// A usage name with an optional index: `texcoord3` → (5, 3).
fn usage(part: &str) -> Option<(u32, u32)> {
    let digits = part.len() - part.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (name, index) = part.split_at(part.len() - digits);
    let usage = USAGE_NAMES.iter().position(|u| *u == name)?;
    let index = if index.is_empty() {
        0
    } else {
        index.parse::<u32>().ok().filter(|i| *i < 16)?
    };
    Some((u32::try_from(usage).ok()?, index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_give_opcode_and_controls() {
        let op = |w| parse(w).map(|m| (m.opcode, m.controls));
        assert_eq!(op("texldp"), Ok((Some(Opcode::Tex), 1)));
        assert_eq!(op("texldb"), Ok((Some(Opcode::Tex), 2)));
        assert_eq!(op("texcrd"), Ok((Some(Opcode::Texcoord), 0)));
        assert_eq!(op("if_gt"), Ok((Some(Opcode::Ifc), 1)));
        assert_eq!(op("if"), Ok((Some(Opcode::If), 0)));
        assert_eq!(op("break_ne"), Ok((Some(Opcode::Breakc), 5)));
        assert_eq!(op("setp_le"), Ok((Some(Opcode::Setp), 6)));
        assert_eq!(op("breakp"), Ok((Some(Opcode::Breakp), 0)));
        assert_eq!(op("m3x2"), Ok((Some(Opcode::M3x2), 0)));
        assert!(op("setp").is_err());
        assert_eq!(op("movx"), Err("unknown instruction 'movx'".to_string()));
    }

    #[test]
    fn suffixes_set_modifiers_usages_and_sampler_types() {
        let m = parse("dcl_texcoord1_centroid").unwrap();
        assert_eq!((m.usage, m.centroid), (Some((5, 1)), true));
        assert_eq!(parse("dcl_positiont").unwrap().usage, Some((9, 0)));
        assert_eq!(parse("dcl_cube").unwrap().texture_type, Some(3));
        let m = parse("mul_x2_sat").unwrap();
        assert_eq!((m.shift, m.saturate), (1, true));
        assert_eq!(parse("mad_d8").unwrap().shift, -3);
        assert!(parse("mov_foo").is_err());
        assert!(parse("dcl_texcoord16").is_err());
    }
}
