//! Pipeline-state keys: what a runtime knows of the pipeline a shader goes into and the
//! translation depends on ([`PipelineState`]), and the one type for a value that is either
//! known at translation or only at pipeline creation ([`SpecValue`]).
//!
//! Contract: the default [`PipelineState`] changes nothing: every module is the same bytes as
//! without it. Each key is applied where its output is produced (render targets at the pixel
//! shader's copy-out in `io/targets.rs`, sample counts and multisample demotion in
//! `texture/`, the tessellation-factor limit in `io/patch.rs`, forced sample-rate shading in
//! `io/`); a runtime puts the whole struct in its shader-cache key.

use spirv::Decoration;

use super::context::{Emitter, Scalar};
use crate::bindings::ResourceKind;
use crate::ir::{Dimension, ResourceDecl, ResourceShape};
use crate::spv::Id;

/// A value fixed at translation, or a specialization constant the pipeline sets
/// (`VkSpecializationInfo`), for pipeline state a runtime knows only when it creates the
/// pipeline (or wants one module for many pipelines).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpecValue<T> {
    /// This value, as an `OpConstant`.
    Fixed(T),
    /// An `OpSpecConstant` decorated `SpecId id`, holding `default` unless the pipeline
    /// specializes it.
    Spec {
        /// The `SpecId` (`VkSpecializationMapEntry::constantID`).
        id: u32,
        /// The value when the pipeline does not specialize the constant.
        default: T,
    },
}

/// Where a component of a render-target write comes from ([`PipelineState::target_swizzles`]),
/// as in `VkComponentSwizzle`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TargetComponent {
    /// The shader's `x` (red).
    #[default]
    X,
    /// The shader's `y` (green).
    Y,
    /// The shader's `z` (blue).
    Z,
    /// The shader's `w` (alpha).
    W,
    /// 0.
    Zero,
    /// 1 (`1.0` for a float target, `1` for an integer one).
    One,
}

impl TargetComponent {
    /// Parses one letter: `x`/`r`, `y`/`g`, `z`/`b`, `w`/`a`, `0`, `1`.
    pub fn from_letter(c: char) -> Option<TargetComponent> {
        Some(match c {
            'x' | 'r' => TargetComponent::X,
            'y' | 'g' => TargetComponent::Y,
            'z' | 'b' => TargetComponent::Z,
            'w' | 'a' => TargetComponent::W,
            '0' => TargetComponent::Zero,
            '1' => TargetComponent::One,
            _ => return None,
        })
    }
}

/// A render-target swizzle: component `c` of what is written to the target is
/// `swizzle[c]` of what the shader wrote to `o#`.
pub type TargetSwizzle = [TargetComponent; 4];

/// The identity swizzle (`xyzw`).
pub const IDENTITY_SWIZZLE: TargetSwizzle = [
    TargetComponent::X,
    TargetComponent::Y,
    TargetComponent::Z,
    TargetComponent::W,
];

/// Parses a four-letter swizzle such as `bgra`, `aaaa` or `r001` ([`TargetComponent::from_letter`]).
pub fn parse_swizzle(text: &str) -> Option<TargetSwizzle> {
    let mut out = IDENTITY_SWIZZLE;
    let mut chars = text.chars();
    for slot in &mut out {
        *slot = TargetComponent::from_letter(chars.next()?.to_ascii_lowercase())?;
    }
    chars.next().is_none().then_some(out)
}

/// The pipeline state a translation depends on. The default changes nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipelineState {
    /// Pixel shaders: per `SV_Target` index (0–7), the swizzle applied when the target is
    /// written, for a runtime that emulates a format with another (A8 as R8: `aaaa`; a BGRA
    /// view of an RGBA image: `bgra`). A swizzled target is written as a whole `vec4`.
    /// Default: identity everywhere.
    pub target_swizzles: [TargetSwizzle; 8],
    /// Pixel shaders: bit `n` set: `SV_Target<n>` is not written and its output variable is
    /// not declared (D3D writes nothing to a slot without a render-target view; the location
    /// stays free). Default 0.
    pub dropped_targets: u8,
    /// Pixel shaders: dual-source blending. `o0` is location 0 index 0 and `o1` location 0
    /// index 1 (`VK_BLEND_FACTOR_SRC1_*` read it); D3D allows no other target then, so a
    /// shader that declares one fails with an `Invalid` error. Default off.
    pub dual_source_blending: bool,
    /// The rasterizer's sample count, for `sampleinfo`/`samplepos` on `rasterizer`
    /// (`GetRenderTargetSampleCount`, `GetRenderTargetSamplePosition`). Default
    /// `Spec { id: 0, default: 1 }`.
    pub sample_count: SpecValue<u32>,
    /// Pixel shaders: every interpolated input is read per sample (`Sample`) and the shader
    /// runs once per sample, as when D3D runs it at sample frequency. Default off.
    pub force_sample_rate: bool,
    /// Bit `n` set: the runtime bound a single-sampled view at `t<n>` (register space 0) where
    /// the shader declares a multisampled texture (`Texture2DMS[Array]`): the texture is
    /// declared single-sampled, `ldms` reads mip 0 (sample 0 only; other samples read 0) and
    /// `sampleinfo` returns 1. Default 0.
    pub single_sampled_srvs: u128,
    /// Hull shaders: a further limit on the tessellation factors, below
    /// `min(dcl_hs_maxtessfactor, 64)`. Default `None`.
    pub max_tess_factor: Option<SpecValue<f32>>,
}

impl Default for PipelineState {
    fn default() -> PipelineState {
        PipelineState {
            target_swizzles: [IDENTITY_SWIZZLE; 8],
            dropped_targets: 0,
            dual_source_blending: false,
            sample_count: SpecValue::Spec {
                id: super::RASTERIZER_SAMPLES_SPEC_ID,
                default: 1,
            },
            force_sample_rate: false,
            single_sampled_srvs: 0,
            max_tess_factor: None,
        }
    }
}

impl PipelineState {
    /// This state with `SV_Target<target>` written through `swizzle` (targets past 7 are
    /// ignored).
    #[must_use]
    pub fn with_target_swizzle(mut self, target: u32, swizzle: TargetSwizzle) -> PipelineState {
        if let Some(s) = self.target_swizzles.get_mut(target as usize) {
            *s = swizzle;
        }
        self
    }

    /// This state with the targets of mask `dropped` not written.
    #[must_use]
    pub fn with_dropped_targets(mut self, dropped: u8) -> PipelineState {
        self.dropped_targets = dropped;
        self
    }

    /// This state with dual-source blending on or off.
    #[must_use]
    pub fn with_dual_source_blending(mut self, on: bool) -> PipelineState {
        self.dual_source_blending = on;
        self
    }

    /// This state with the rasterizer sample count `count`.
    #[must_use]
    pub fn with_sample_count(mut self, count: SpecValue<u32>) -> PipelineState {
        self.sample_count = count;
        self
    }

    /// This state with sample-rate shading forced on or off.
    #[must_use]
    pub fn with_force_sample_rate(mut self, on: bool) -> PipelineState {
        self.force_sample_rate = on;
        self
    }

    /// This state with the `t#` registers of mask `srvs` read as single-sampled.
    #[must_use]
    pub fn with_single_sampled_srvs(mut self, srvs: u128) -> PipelineState {
        self.single_sampled_srvs = srvs;
        self
    }

    /// This state with the tessellation-factor limit `limit`.
    #[must_use]
    pub fn with_max_tess_factor(mut self, limit: Option<SpecValue<f32>>) -> PipelineState {
        self.max_tess_factor = limit;
        self
    }
}

impl PipelineState {
    /// Whether `decl` is a multisampled texture SRV the runtime bound a single-sampled view
    /// for ([`PipelineState::single_sampled_srvs`]): a register-space-0 `Texture2DMS[Array]`
    /// whose range holds a listed register.
    pub fn single_sampled(&self, decl: &ResourceDecl) -> bool {
        let ms = matches!(
            decl.shape,
            ResourceShape::Typed {
                dim: Dimension::Texture2DMS | Dimension::Texture2DMSArray,
                ..
            }
        );
        if !ms
            || self.single_sampled_srvs == 0
            || decl.range.kind != ResourceKind::ShaderResource
            || decl.range.space != 0
        {
            return false;
        }
        let first = decl.range.first;
        let end = match decl.range.count.bounded() {
            Some(n) => first.saturating_add(n),
            None => u32::MAX,
        };
        (first..end.min(128)).any(|r| self.single_sampled_srvs & (1u128 << r) != 0)
    }

    /// The shape the runtime binds for `decl`: [`single_sampled`](Self::single_sampled)
    /// textures as `Texture2D[Array]`, every other declaration as declared.
    pub fn bound_shape(&self, decl: &ResourceDecl) -> ResourceShape {
        match decl.shape {
            ResourceShape::Typed { dim, ret, .. } if self.single_sampled(decl) => {
                let dim = match dim {
                    Dimension::Texture2DMSArray => Dimension::Texture2DArray,
                    _ => Dimension::Texture2D,
                };
                ResourceShape::Typed {
                    dim,
                    ret,
                    samples: 0,
                }
            }
            shape => shape,
        }
    }
}

impl Emitter<'_> {
    /// A `u32` [`SpecValue`] as a constant or a specialization constant named `name`.
    pub(crate) fn spec_u32(&mut self, value: SpecValue<u32>, name: &str) -> Id {
        match value {
            SpecValue::Fixed(v) => self.u32_const(v),
            SpecValue::Spec { id, default } => {
                let u = self.ty(Scalar::U32, 1);
                self.spec_constant(u, default, id, name)
            }
        }
    }

    /// An `f32` [`SpecValue`] as a constant or a specialization constant named `name`.
    pub(crate) fn spec_f32(&mut self, value: SpecValue<f32>, name: &str) -> Id {
        let f = self.ty(Scalar::F32, 1);
        match value {
            SpecValue::Fixed(v) => self.m.constant_bits32(f, v.to_bits()),
            SpecValue::Spec { id, default } => self.spec_constant(f, default.to_bits(), id, name),
        }
    }

    /// `OpSpecConstant ty bits`, decorated `SpecId id`.
    fn spec_constant(&mut self, ty: Id, bits: u32, id: u32, name: &str) -> Id {
        let c = self.m.alloc_id();
        self.m
            .global_inst(spirv::Op::SpecConstant, Some(ty), Some(c), &[bits]);
        self.m.decorate(c, Decoration::SpecId, &[id]);
        self.m.name(c, name);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzles_parse_from_letters() {
        use TargetComponent::*;
        assert_eq!(parse_swizzle("bgra"), Some([Z, Y, X, W]));
        assert_eq!(parse_swizzle("AAAA"), Some([W; 4]));
        assert_eq!(parse_swizzle("r001"), Some([X, Zero, Zero, One]));
        assert_eq!(parse_swizzle("rgb"), None);
        assert_eq!(parse_swizzle("rgbaa"), None);
        assert_eq!(parse_swizzle("rgbq"), None);
    }
}
