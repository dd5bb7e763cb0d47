//! Pixel-shader render targets and sample rate under the pipeline state
//! ([`PipelineState`](crate::back::spirv::PipelineState)).
//!
//! Contract:
//! - A target in `dropped_targets` has no output variable (its location stays free); the
//!   shader's writes to its register stay in the output file.
//! - A target with a swizzle other than the identity is one `vec4` variable at its location;
//!   copy-out writes component `c` from the register's component `swizzle[c]` (or 0, or 1 of
//!   the target's type).
//! - With `dual_source_blending`, `o0` is location 0 index 0 and `o1` location 0 index 1
//!   (`Index`); D3D allows no other target then, and one is an [`Error::Invalid`] at its
//!   declaration.
//! - With `force_sample_rate`, interpolated inputs are decorated `Sample` (not `Centroid`) by
//!   the input declarations, and the module declares a `SampleId` input, so the shader runs
//!   once per sample even when no input is interpolated (Vulkan enables sample shading for a
//!   fragment shader whose interface has `SampleId`).

use spirv::{BuiltIn, Capability, Decoration, StorageClass};

use super::Stage;
use crate::back::spirv::context::{Emitter, Scalar};
use crate::back::spirv::{Error, TargetComponent, IDENTITY_SWIZZLE};
use crate::ir::SystemValue;
use crate::spv::Id;

/// Where a pixel-shader output register goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TargetPlace {
    /// `Location`.
    pub location: u32,
    /// `Index` (dual-source blending).
    pub index: Option<u32>,
    /// Declared as a whole `vec4` (the target is swizzled).
    pub whole: bool,
}

impl Emitter<'_> {
    /// Where pixel-shader output `o<register>` goes; `None`: the target is dropped.
    pub(super) fn target_place(&self, register: u32) -> Result<Option<TargetPlace>, Error> {
        let state = &self.options.pipeline_state;
        if register < 8 && state.dropped_targets & (1 << register) != 0 {
            return Ok(None);
        }
        let whole = state
            .target_swizzles
            .get(register as usize)
            .is_some_and(|s| *s != IDENTITY_SWIZZLE);
        let (location, index) = if state.dual_source_blending {
            if register > 1 {
                let span = self
                    .ir
                    .outputs
                    .iter()
                    .find(|d| d.register == register)
                    .map_or(self.ir.program_span, |d| d.span);
                return Err(Error::invalid(
                    span,
                    format!(
                        "dual-source blending writes only o0 and o1 (sources 0 and 1 of \
                         target 0); the shader declares o{register}"
                    ),
                ));
            }
            (0, Some(register))
        } else {
            (register, None)
        };
        Ok(Some(TargetPlace {
            location,
            index,
            whole,
        }))
    }

    /// The register words (`uvec4`) of `o<register>` as render target `register`'s swizzle
    /// writes them; `vec` itself for the identity (and every stage but the pixel shader's).
    pub(super) fn swizzle_target(&mut self, register: u32, vec: Id, scalar: Scalar) -> Id {
        if self.ir.stage != Stage::Pixel {
            return vec;
        }
        let Some(&swizzle) = self
            .options
            .pipeline_state
            .target_swizzles
            .get(register as usize)
        else {
            return vec;
        };
        if swizzle == IDENTITY_SWIZZLE {
            return vec;
        }
        let u = self.ty(Scalar::U32, 1);
        let one = if scalar == Scalar::F32 {
            1f32.to_bits()
        } else {
            1
        };
        let mut parts = [vec; 4];
        for (part, c) in parts.iter_mut().zip(swizzle) {
            *part = match c {
                TargetComponent::X => self.m.composite_extract(u, vec, &[0]),
                TargetComponent::Y => self.m.composite_extract(u, vec, &[1]),
                TargetComponent::Z => self.m.composite_extract(u, vec, &[2]),
                TargetComponent::W => self.m.composite_extract(u, vec, &[3]),
                TargetComponent::Zero => self.u32_const(0),
                TargetComponent::One => self.u32_const(one),
            };
        }
        self.compose(Scalar::U32, &parts).id
    }

    /// Pixel shaders under `force_sample_rate`: declares a `SampleId` input (unless the shader
    /// reads `SV_SampleIndex`, which declares one), so the shader runs per sample.
    pub(super) fn declare_forced_sample_rate(&mut self) {
        if self.ir.stage != Stage::Pixel || !self.options.pipeline_state.force_sample_rate {
            return;
        }
        self.m.capability(Capability::SampleRateShading);
        let reads_index = self
            .ir
            .inputs
            .iter()
            .any(|d| d.system_value == SystemValue::SampleIndex);
        if reads_index {
            return;
        }
        let i = self.ty(Scalar::I32, 1);
        let var = self.builtin_var(StorageClass::Input, i, BuiltIn::SampleId);
        self.m.decorate(var, Decoration::Flat, &[]);
        self.m.name(var, "forced_sample_id");
    }

    /// Whether pixel-shader inputs are interpolated per sample whatever they declare.
    pub(super) fn forced_sample_rate(&self) -> bool {
        self.ir.stage == Stage::Pixel && self.options.pipeline_state.force_sample_rate
    }
}
