//! `translate`'s pipeline-state flags (`--dual-source`, `--sample-count`, …): the keys of
//! `dxbc2spv::PipelineState` for a user who translates offline for a known pipeline.

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use dxbc2spv::{parse_swizzle, PipelineState, SpecValue};

/// Pipeline-state options of `translate` (`docs/runtime.md`, "Pipeline-state keys").
#[derive(Debug, Default, Args)]
pub struct PipelineStateArgs {
    /// Pixel shaders: write render target N through a swizzle, `N=SWIZZLE` with four of
    /// `r g b a 0 1` (e.g. `0=bgra`, `1=aaaa`); repeatable.
    #[arg(long = "target-swizzle", value_name = "N=SWIZZLE")]
    pub target_swizzles: Vec<String>,
    /// Pixel shaders: do not write (nor declare) render target N; repeatable.
    #[arg(long = "drop-target", value_name = "N")]
    pub drop_targets: Vec<u32>,
    /// Pixel shaders: dual-source blending (o0 and o1 are sources 0 and 1 of target 0).
    #[arg(long)]
    pub dual_source: bool,
    /// The rasterizer's sample count as a constant (`sampleinfo`/`samplepos` on `rasterizer`).
    #[arg(long, value_name = "N", conflicts_with = "sample_count_spec_id")]
    pub sample_count: Option<u32>,
    /// The `SpecId` of the rasterizer's sample count (default 0).
    #[arg(long, value_name = "ID")]
    pub sample_count_spec_id: Option<u32>,
    /// Pixel shaders: run per sample, every interpolated input read per sample.
    #[arg(long)]
    pub force_sample_rate: bool,
    /// Read the multisampled texture t<N> (space 0) as single-sampled; repeatable.
    #[arg(long = "single-sampled-srv", value_name = "N")]
    pub single_sampled_srvs: Vec<u32>,
    /// Hull shaders: limit the tessellation factors to this value (1 to 64), as a constant.
    #[arg(long, value_name = "F", conflicts_with = "max_tess_factor_spec_id")]
    pub max_tess_factor: Option<f32>,
    /// Hull shaders: limit the tessellation factors by the specialization constant of this
    /// `SpecId` (default value 64).
    #[arg(long, value_name = "ID")]
    pub max_tess_factor_spec_id: Option<u32>,
}

impl PipelineStateArgs {
    /// The library's pipeline state.
    pub fn state(&self) -> Result<PipelineState> {
        let mut state = PipelineState::default();
        for s in &self.target_swizzles {
            let (n, swizzle) = s
                .split_once('=')
                .ok_or_else(|| anyhow!("--target-swizzle {s:?}: use N=SWIZZLE, e.g. 0=bgra"))?;
            let n: u32 = n
                .parse()
                .with_context(|| format!("--target-swizzle {s:?}: target number"))?;
            if n > 7 {
                bail!("--target-swizzle {s:?}: render targets are 0 to 7");
            }
            let swizzle = parse_swizzle(swizzle).ok_or_else(|| {
                anyhow!("--target-swizzle {s:?}: four of r, g, b, a, 0, 1 (or x, y, z, w)")
            })?;
            state = state.with_target_swizzle(n, swizzle);
        }
        for &n in &self.drop_targets {
            if n > 7 {
                bail!("--drop-target {n}: render targets are 0 to 7");
            }
            state.dropped_targets |= 1 << n;
        }
        for &n in &self.single_sampled_srvs {
            if n > 127 {
                bail!("--single-sampled-srv {n}: texture registers are 0 to 127");
            }
            state.single_sampled_srvs |= 1u128 << n;
        }
        state.dual_source_blending = self.dual_source;
        state.force_sample_rate = self.force_sample_rate;
        if let Some(n) = self.sample_count {
            state.sample_count = SpecValue::Fixed(n);
        } else if let Some(id) = self.sample_count_spec_id {
            state.sample_count = SpecValue::Spec { id, default: 1 };
        }
        if let Some(f) = self.max_tess_factor {
            if !(1.0..=64.0).contains(&f) {
                bail!("--max-tess-factor {f}: tessellation factors are 1 to 64");
            }
            state.max_tess_factor = Some(SpecValue::Fixed(f));
        } else if let Some(id) = self.max_tess_factor_spec_id {
            state.max_tess_factor = Some(SpecValue::Spec { id, default: 64.0 });
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dxbc2spv::TargetComponent::*;

    #[test]
    fn flags_make_the_pipeline_state() {
        let args = PipelineStateArgs {
            target_swizzles: vec!["1=bgra".into()],
            drop_targets: vec![2, 5],
            dual_source: true,
            sample_count_spec_id: Some(9),
            single_sampled_srvs: vec![0, 127],
            max_tess_factor: Some(16.0),
            ..PipelineStateArgs::default()
        };
        let s = args.state().expect("valid");
        assert_eq!(s.target_swizzles[1], [Z, Y, X, W]);
        assert_eq!(s.target_swizzles[0], dxbc2spv::IDENTITY_SWIZZLE);
        assert_eq!(s.dropped_targets, 0b10_0100);
        assert!(s.dual_source_blending);
        assert_eq!(s.sample_count, SpecValue::Spec { id: 9, default: 1 });
        assert_eq!(s.single_sampled_srvs, 1 | 1 << 127);
        assert_eq!(s.max_tess_factor, Some(SpecValue::Fixed(16.0)));
        assert_eq!(
            PipelineStateArgs::default().state().expect("empty"),
            PipelineState::default()
        );
        for bad in [
            PipelineStateArgs {
                target_swizzles: vec!["8=rgba".into()],
                ..PipelineStateArgs::default()
            },
            PipelineStateArgs {
                target_swizzles: vec!["0=rgbq".into()],
                ..PipelineStateArgs::default()
            },
            PipelineStateArgs {
                max_tess_factor: Some(65.0),
                ..PipelineStateArgs::default()
            },
        ] {
            assert!(bad.state().is_err(), "{bad:?}");
        }
    }
}
