//! A case's pipeline-state keys for the translator (`[pipeline_state]`, turned into a
//! `dxbc2spv::PipelineState`) and the specialization constants its pipeline is created with
//! (`[[specialization]]`). See `docs/conformance.md`, "Pipeline-state keys".

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use dxbc2spv::{parse_swizzle, PipelineState, SpecValue};

/// `[pipeline_state]`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct PipelineStateToml {
    /// `{ 0 = "bgra", 1 = "aaaa" }`: render target → swizzle.
    #[serde(default)]
    target_swizzle: BTreeMap<String, String>,
    /// Render targets not written.
    #[serde(default)]
    dropped_targets: Vec<u32>,
    #[serde(default)]
    dual_source: bool,
    /// The rasterizer's sample count as a constant.
    sample_count: Option<u32>,
    /// The rasterizer's sample count as the specialization constant of this id.
    sample_count_spec_id: Option<u32>,
    /// Its default (1).
    sample_count_default: Option<u32>,
    #[serde(default)]
    force_sample_rate: bool,
    /// `t#` registers (space 0) bound single-sampled.
    #[serde(default)]
    single_sampled_srvs: Vec<u32>,
    /// The tessellation-factor limit as a constant.
    max_tess_factor: Option<f32>,
    /// The tessellation-factor limit as the specialization constant of this id.
    max_tess_factor_spec_id: Option<u32>,
    /// Its default (64).
    max_tess_factor_default: Option<f32>,
}

/// `[[specialization]]`: `id = 5` and `value = 4` (an integer: a `u32`, a float: an `f32`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SpecializationToml {
    id: u32,
    value: toml::Value,
}

/// A specialization constant the pipeline sets: its id and its 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Specialization {
    /// `constantID`.
    pub id: u32,
    /// The value's bits.
    pub bits: u32,
}

/// The translator's pipeline state from `[pipeline_state]`.
pub(super) fn pipeline_state(t: PipelineStateToml) -> Result<PipelineState> {
    let mut s = PipelineState::default();
    for (target, swizzle) in &t.target_swizzle {
        let n: u32 =
            target.parse().ok().filter(|n| *n < 8).ok_or_else(|| {
                anyhow!("target_swizzle: {target:?} is not a render target 0 to 7")
            })?;
        let sw = parse_swizzle(swizzle).ok_or_else(|| {
            anyhow!("target_swizzle {target}: {swizzle:?} is not four of r, g, b, a, 0, 1")
        })?;
        s = s.with_target_swizzle(n, sw);
    }
    for &n in &t.dropped_targets {
        if n > 7 {
            bail!("dropped_targets: {n} is not a render target 0 to 7");
        }
        s.dropped_targets |= 1 << n;
    }
    for &n in &t.single_sampled_srvs {
        if n > 127 {
            bail!("single_sampled_srvs: t{n} is past t127");
        }
        s.single_sampled_srvs |= 1u128 << n;
    }
    s.dual_source_blending = t.dual_source;
    s.force_sample_rate = t.force_sample_rate;
    s.sample_count = match (t.sample_count, t.sample_count_spec_id) {
        (Some(_), Some(_)) => bail!("sample_count and sample_count_spec_id exclude each other"),
        (Some(n), None) => SpecValue::Fixed(n),
        (None, Some(id)) => SpecValue::Spec {
            id,
            default: t.sample_count_default.unwrap_or(1),
        },
        (None, None) => s.sample_count,
    };
    s.max_tess_factor = match (t.max_tess_factor, t.max_tess_factor_spec_id) {
        (Some(_), Some(_)) => {
            bail!("max_tess_factor and max_tess_factor_spec_id exclude each other")
        }
        (Some(f), None) => Some(SpecValue::Fixed(f)),
        (None, Some(id)) => Some(SpecValue::Spec {
            id,
            default: t.max_tess_factor_default.unwrap_or(64.0),
        }),
        (None, None) => None,
    };
    Ok(s)
}

/// The specialization constants of `[[specialization]]`, each id once.
pub(super) fn specializations(rows: Vec<SpecializationToml>) -> Result<Vec<Specialization>> {
    let mut out: Vec<Specialization> = Vec::new();
    for r in rows {
        if out.iter().any(|s| s.id == r.id) {
            bail!("specialization id {} is given twice", r.id);
        }
        let bits = match &r.value {
            toml::Value::Integer(i) => u32::try_from(*i)
                .or_else(|_| i32::try_from(*i).map(|v| v as u32))
                .with_context(|| format!("specialization {}: {i} is not 32-bit", r.id))?,
            toml::Value::Float(f) => (*f as f32).to_bits(),
            toml::Value::Boolean(b) => u32::from(*b),
            other => bail!(
                "specialization {}: value {other:?} is not an integer, float or boolean",
                r.id
            ),
        };
        out.push(Specialization { id: r.id, bits });
    }
    Ok(out)
}

/// Checks what a pixel shader's module must declare for the case's pipeline state, where a
/// driver cannot tell (lavapipe ignores an output without an attachment and blends location 1
/// as source 1 without dual-source blending): with `dual_source_blending`, an output at
/// `Location 0` decorated `Index 1`; for each dropped target, no output at its location.
pub fn check_module(state: Option<&PipelineState>, words: &[u32]) -> Result<()> {
    let Some(state) = state else { return Ok(()) };
    if !state.dual_source_blending && state.dropped_targets == 0 {
        return Ok(());
    }
    const OP_VARIABLE: u32 = 59;
    const OP_DECORATE: u32 = 71;
    const OUTPUT: u32 = 3;
    const LOCATION: u32 = 30;
    const INDEX: u32 = 32;
    let mut outputs = Vec::new();
    let mut locations = Vec::new();
    let mut indices = Vec::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let count = ((first >> 16) as usize).max(1);
        let operands = words.get(at + 1..at + count).unwrap_or(&[]);
        match (first & 0xffff, operands) {
            (OP_VARIABLE, [_, id, OUTPUT, ..]) => outputs.push(*id),
            (OP_DECORATE, [id, LOCATION, n, ..]) => locations.push((*id, *n)),
            (OP_DECORATE, [id, INDEX, n, ..]) => indices.push((*id, *n)),
            _ => {}
        }
        at += count;
    }
    let output_locations: Vec<(u32, u32)> = locations
        .into_iter()
        .filter(|(id, _)| outputs.contains(id))
        .collect();
    if state.dual_source_blending
        && !output_locations
            .iter()
            .any(|&(id, n)| n == 0 && indices.contains(&(id, 1)))
    {
        bail!("dual_source: no output at Location 0 is decorated Index 1");
    }
    for target in 0..8u32 {
        if state.dropped_targets & (1 << target) != 0
            && output_locations.iter().any(|&(_, n)| n == target)
        {
            bail!("dropped_targets: target {target} still has an output variable");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<PipelineState> {
        pipeline_state(toml::from_str(text)?)
    }

    #[test]
    fn tables_become_the_pipeline_state() {
        let s = parse(
            "target_swizzle = { 1 = \"bgra\" }\ndropped_targets = [2]\ndual_source = true\n\
             sample_count_spec_id = 5\nsingle_sampled_srvs = [3]\nmax_tess_factor = 8.0\n",
        )
        .expect("valid");
        assert_eq!(
            s.target_swizzles[1],
            parse_swizzle("bgra").expect("swizzle")
        );
        assert_eq!(s.dropped_targets, 4);
        assert!(s.dual_source_blending);
        assert_eq!(s.sample_count, SpecValue::Spec { id: 5, default: 1 });
        assert_eq!(s.single_sampled_srvs, 8);
        assert_eq!(s.max_tess_factor, Some(SpecValue::Fixed(8.0)));
        assert_eq!(parse("").expect("empty"), PipelineState::default());
        assert!(parse("target_swizzle = { 8 = \"rgba\" }").is_err());
        assert!(parse("sample_count = 2\nsample_count_spec_id = 1").is_err());
        assert!(parse("unknown = 1").is_err());
    }

    #[test]
    fn specializations_take_integers_and_floats() {
        #[derive(Deserialize)]
        struct T {
            specialization: Vec<SpecializationToml>,
        }
        let t: T = toml::from_str(
            "[[specialization]]\nid = 5\nvalue = 4\n[[specialization]]\nid = 3\nvalue = 2.5\n",
        )
        .expect("toml");
        let s = specializations(t.specialization).expect("valid");
        assert_eq!(
            s,
            [
                Specialization { id: 5, bits: 4 },
                Specialization {
                    id: 3,
                    bits: 2.5f32.to_bits()
                }
            ]
        );
        let t: T = toml::from_str(
            "[[specialization]]\nid = 5\nvalue = 4\n[[specialization]]\nid = 5\nvalue = 1\n",
        )
        .expect("toml");
        assert!(specializations(t.specialization).is_err());
    }

    #[test]
    fn dual_source_and_dropped_targets_are_checked_in_the_module() {
        // Header; %5 = OpVariable %2 Output, %6 = OpVariable %2 Output; %5 Location 0, %6
        // Location 1 (the plain two-target interface).
        let header = [0x0723_0203, 0x0001_0000, 0, 8, 0];
        let vars = [(4 << 16) | 59, 2, 5, 3, (4 << 16) | 59, 2, 6, 3];
        let loc0 = [(4 << 16) | 71, 5, 30, 0];
        let loc1 = [(4 << 16) | 71, 6, 30, 1];
        let plain: Vec<u32> = [&header[..], &vars, &loc0, &loc1].concat();
        let dual = PipelineState {
            dual_source_blending: true,
            ..PipelineState::default()
        };
        assert!(check_module(Some(&dual), &plain).is_err());
        assert!(check_module(None, &plain).is_ok());
        // The dual-source interface: %6 at Location 0 Index 1.
        let loc0_index1 = [(4 << 16) | 71, 6, 30, 0, (4 << 16) | 71, 6, 32, 1];
        let with: Vec<u32> = [&header[..], &vars, &loc0, &loc0_index1].concat();
        assert!(check_module(Some(&dual), &with).is_ok());
        let dropped = PipelineState {
            dropped_targets: 2,
            ..PipelineState::default()
        };
        assert!(check_module(Some(&dropped), &plain).is_err());
        let one: Vec<u32> = [&header[..], &vars[..4], &loc0].concat();
        assert!(check_module(Some(&dropped), &one).is_ok());
    }
}
