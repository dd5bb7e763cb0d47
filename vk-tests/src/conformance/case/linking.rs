//! `[linking.<stage>]` and `[workarounds]`: the translator's stage-linking options per stage
//! and its workaround switches for every shader of a case (`docs/conformance.md`, "Stage
//! linking and workarounds").

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use dxbc2spv::ir::{ComponentType, InputPrimitive};
use dxbc2spv::{ForcedBarriers, Semantic, StageLinking, Workarounds, WorkgroupZeroInit};

use super::super::shader::Stage;

/// `[linking.<stage>]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(in crate::conformance) struct StageLinkingToml {
    /// What the previous stage writes (the input layout for `vs`): `"TEXCOORD1 o2.xy"`.
    previous: Option<Vec<String>>,
    #[serde(default)]
    remap: bool,
    /// Locations to declare flat.
    #[serde(default)]
    flat: Vec<u32>,
    /// `"0:uint"`: the component type of the input at a location.
    #[serde(default)]
    input_types: Vec<String>,
    /// The draw's primitive for a geometry shader: `point`, `line`, `triangle`, `line_adj`,
    /// `triangle_adj`.
    geometry_input: Option<String>,
}

/// `[workarounds]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(in crate::conformance) struct WorkaroundsToml {
    /// `initializer` or `stores`.
    zero_workgroup: Option<String>,
    /// `tgsm` or `tgsm_and_uav`.
    forced_barriers: Option<String>,
    #[serde(default)]
    invariant_position: bool,
}

/// The translator options of a case's shaders.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaseLinking {
    /// Per stage (`[linking.<stage>]`).
    pub stages: Vec<(Stage, StageLinking)>,
    /// For every shader.
    pub workarounds: Workarounds,
}

impl CaseLinking {
    /// The linking options of `stage` (the default when the case has none).
    pub fn stage(&self, stage: Stage) -> StageLinking {
        self.stages
            .iter()
            .find(|(s, _)| *s == stage)
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    }
}

impl CaseLinking {
    /// Checks what the translated module of `stage` must contain for the case's switches:
    /// with `invariant_position`, a vertex, domain or geometry shader decorates its `Position`
    /// output `Invariant`.
    pub fn check_module(&self, stage: Stage, words: &[u32]) -> Result<()> {
        if !self.workarounds.invariant_position
            || !matches!(stage, Stage::Vertex | Stage::Domain | Stage::Geometry)
        {
            return Ok(());
        }
        const OP_DECORATE: u32 = 71;
        const BUILT_IN: u32 = 11;
        const POSITION: u32 = 0;
        const INVARIANT: u32 = 18;
        let mut position = Vec::new();
        let mut invariant = Vec::new();
        let mut at = 5;
        while let Some(&first) = words.get(at) {
            let count = (first >> 16) as usize;
            let operands = words.get(at + 1..at + count.max(1)).unwrap_or(&[]);
            if first & 0xffff == OP_DECORATE {
                match operands {
                    [id, BUILT_IN, POSITION, ..] => position.push(*id),
                    [id, INVARIANT, ..] => invariant.push(*id),
                    _ => {}
                }
            }
            at += count.max(1);
        }
        if !position.iter().any(|p| invariant.contains(p)) {
            bail!("invariant_position: no Position output is decorated Invariant");
        }
        Ok(())
    }
}

/// Parses the tables.
pub(in crate::conformance) fn case_linking(
    linking: Option<std::collections::BTreeMap<String, StageLinkingToml>>,
    workarounds: Option<WorkaroundsToml>,
) -> Result<CaseLinking> {
    let mut out = CaseLinking::default();
    for (name, t) in linking.unwrap_or_default() {
        let stage = Stage::from_name(&name)
            .ok_or_else(|| anyhow!("[linking.{name}]: not a stage (vs, hs, ds, gs, ps)"))?;
        out.stages.push((
            stage,
            stage_linking(t).with_context(|| format!("[linking.{name}]"))?,
        ));
    }
    if let Some(w) = workarounds {
        out.workarounds = Workarounds {
            workgroup_zero_init: match w.zero_workgroup.as_deref() {
                None => WorkgroupZeroInit::Off,
                Some("initializer") => WorkgroupZeroInit::Initializer,
                Some("stores") => WorkgroupZeroInit::Stores,
                Some(o) => bail!("[workarounds] zero_workgroup {o:?}: initializer or stores"),
            },
            forced_barriers: match w.forced_barriers.as_deref() {
                None => ForcedBarriers::Off,
                Some("tgsm") => ForcedBarriers::Tgsm,
                Some("tgsm_and_uav") => ForcedBarriers::TgsmAndUav,
                Some(o) => bail!("[workarounds] forced_barriers {o:?}: tgsm or tgsm_and_uav"),
            },
            invariant_position: w.invariant_position,
        };
    }
    Ok(out)
}

fn stage_linking(t: StageLinkingToml) -> Result<StageLinking> {
    let previous_outputs = match t.previous {
        None => None,
        Some(list) => Some(
            list.iter()
                .map(|s| semantic(s).with_context(|| format!("previous {s:?}")))
                .collect::<Result<Vec<_>>>()?,
        ),
    };
    let mut flat_locations = 0u32;
    for l in t.flat {
        flat_locations |= 1u32
            .checked_shl(l)
            .ok_or_else(|| anyhow!("flat location {l} (at most 31)"))?;
    }
    let input_types = t
        .input_types
        .iter()
        .map(|s| {
            let (l, ty) = s
                .split_once(':')
                .ok_or_else(|| anyhow!("input type {s:?}: write \"<location>:<type>\""))?;
            let ty = match ty {
                "float" => ComponentType::Float,
                "uint" => ComponentType::Uint,
                "sint" => ComponentType::Sint,
                _ => bail!("input type {s:?}: float, uint or sint"),
            };
            Ok((l.parse().context("location")?, ty))
        })
        .collect::<Result<Vec<_>>>()?;
    let geometry_input = match t.geometry_input.as_deref() {
        None => None,
        Some("point") => Some(InputPrimitive::Point),
        Some("line") => Some(InputPrimitive::Line),
        Some("triangle") => Some(InputPrimitive::Triangle),
        Some("line_adj") => Some(InputPrimitive::LineAdj),
        Some("triangle_adj") => Some(InputPrimitive::TriangleAdj),
        Some(o) => bail!("geometry_input {o:?}: point, line, triangle, line_adj, triangle_adj"),
    };
    Ok(StageLinking {
        previous_outputs,
        remap_by_semantic: t.remap,
        flat_locations,
        input_types,
        geometry_input,
    })
}

/// `"TEXCOORD1 o2.xy"`: semantic name, index (trailing digits, default 0), register, mask.
fn semantic(s: &str) -> Result<Semantic> {
    let (sem, reg) = s
        .split_once(' ')
        .ok_or_else(|| anyhow!("write \"<SEMANTIC><index> o<register>.<mask>\""))?;
    let digits = sem.len() - sem.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (name, index) = sem.split_at(sem.len() - digits);
    let index = if index.is_empty() { 0 } else { index.parse()? };
    let reg = reg.trim();
    let reg = reg
        .strip_prefix('o')
        .or_else(|| reg.strip_prefix('v'))
        .ok_or_else(|| anyhow!("register {reg:?}: o# or v#"))?;
    let (number, mask) = reg.split_once('.').unwrap_or((reg, "xyzw"));
    let mut bits = 0u8;
    for c in mask.chars() {
        bits |= match c {
            'x' => 1,
            'y' => 2,
            'z' => 4,
            'w' => 8,
            _ => bail!("mask {mask:?}: letters of xyzw"),
        };
    }
    Ok(Semantic {
        name: name.to_owned(),
        index,
        register: number.parse().context("register number")?,
        mask: bits,
        stream: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantics_parse() {
        let s = semantic("TEXCOORD12 o3.yz").expect("parses");
        assert_eq!(
            (s.name.as_str(), s.index, s.register, s.mask),
            ("TEXCOORD", 12, 3, 6)
        );
        let s = semantic("COLOR v0").expect("parses");
        assert_eq!(
            (s.name.as_str(), s.index, s.register, s.mask),
            ("COLOR", 0, 0, 15)
        );
        assert!(semantic("COLOR r0").is_err());
        assert!(semantic("COLOR o0.q").is_err());
    }

    #[test]
    fn invariant_position_is_checked_in_the_module() {
        let linking = CaseLinking {
            workarounds: Workarounds {
                invariant_position: true,
                ..Workarounds::default()
            },
            ..CaseLinking::default()
        };
        // Header, then OpDecorate %7 BuiltIn Position (and %7 Invariant).
        let header = [0x0723_0203, 0x0001_0000, 0, 8, 0];
        let builtin = [(4 << 16) | 71, 7, 11, 0];
        let invariant = [(3 << 16) | 71, 7, 18];
        let without: Vec<u32> = header.iter().chain(&builtin).copied().collect();
        assert!(linking.check_module(Stage::Vertex, &without).is_err());
        assert!(linking.check_module(Stage::Pixel, &without).is_ok());
        let with: Vec<u32> = without.iter().chain(&invariant).copied().collect();
        assert!(linking.check_module(Stage::Vertex, &with).is_ok());
    }
}
