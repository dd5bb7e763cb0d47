//! Declarations of texture SRVs and UAVs (`OpTypeImage` variables) and of samplers
//! (`OpTypeSampler` variables), with the capabilities their dimensions need.
//!
//! Contract: [`Emitter::declare_texture`] returns the [`ResourceVars`] of one texture
//! declaration (`var`, `image_type`, `texel`, `r32`); [`Emitter::declare_samplers`] fills
//! `TextureState::samplers` in declaration order. Both bind through [`binding_of`], so
//! descriptor arrays and push constants stay refused there.
//!
//! - SRVs: `Sampled 1`, format `Unknown`, depth 2 ("unknown": D3D views are not typed as
//!   depth, and one view may be read with and without comparison). `Sampled1D` for 1-D
//!   dimensions, `SampledCubeArray` for cube arrays.
//! - UAVs (`RWTexture1D/2D/3D` and arrays): `Sampled 2`, depth 0, format `Unknown` or
//!   `R32ui`/`R32i` when atomics use the view (Vulkan requires a declared format there, and
//!   D3D an R32 view), or the one `EmitOptions::typed_uav_formats` gives a read UAV
//!   (`Emitter::typed_format`); `Image1D` for 1-D dimensions; `_glc` → `Coherent`. D3D has no
//!   multisampled or cube UAVs: those are invalid.
//! - A multisampled SRV the runtime bound a single-sampled view for
//!   (`PipelineState::single_sampled_srvs`) is declared single-sampled.

use spirv::{Capability, StorageClass};

use super::shape;
use crate::back::spirv::context::{Emitter, ResourceVars};
use crate::back::spirv::descriptors::binding_of;
use crate::back::spirv::resources::texel_scalar;
use crate::back::spirv::Error;
use crate::bindings::ResourceKind;
use crate::ir::{Dimension, ResourceDecl, ResourceShape};
use crate::spv::ImageType;

impl Emitter<'_> {
    /// Declares the image variable of a texture SRV or UAV; `r32` when atomics use the UAV.
    pub(in crate::back::spirv) fn declare_texture(
        &mut self,
        decl: &ResourceDecl,
        r32: bool,
    ) -> Result<ResourceVars, Error> {
        let uav = decl.range.kind == ResourceKind::UnorderedAccess;
        let ResourceShape::Typed { dim, ret, .. } = decl.shape else {
            return Err(Error::invalid(decl.span, "a texture that is not typed"));
        };
        let shape = shape(dim)
            .ok_or_else(|| Error::invalid(decl.span, "a typed buffer declared as a texture"))?;
        let scalar = texel_scalar(ret[0]).ok_or_else(|| {
            Error::unsupported(
                decl.span,
                format!("texture of return type {}", ret[0].name()),
            )
        })?;
        if uav && (shape.ms || matches!(shape.dim, spirv::Dim::DimCube)) {
            return Err(Error::invalid(
                decl.span,
                "a typed UAV cannot be multisampled or a cube",
            ));
        }
        let binding = binding_of(decl.binding, &decl.range, decl.span, "texture")?;
        let format = self.typed_format(decl, scalar, r32)?;
        let one_d = matches!(dim, Dimension::Texture1D | Dimension::Texture1DArray);
        if one_d {
            self.m.capability(if uav {
                Capability::Image1D
            } else {
                Capability::Sampled1D
            });
        }
        if dim == Dimension::TextureCubeArray {
            self.m.capability(Capability::SampledCubeArray);
        }
        let sampled_type = self.ty(scalar, 1);
        let (var, image) = self.image_variable(
            decl,
            binding,
            ImageType {
                sampled_type,
                dim: shape.dim,
                depth: if uav { 0 } else { 2 },
                arrayed: shape.arrayed,
                multisampled: shape.ms && !self.options.pipeline_state.single_sampled(decl),
                sampled: if uav { 2 } else { 1 },
                format,
                access: None,
            },
        );
        Ok(ResourceVars {
            var: Some(var),
            image_type: Some(image),
            texel: Some(scalar),
            r32: format != spirv::ImageFormat::Unknown,
            array: binding.array,
            ..ResourceVars::default()
        })
    }

    /// Declares every `s#` as an `OpTypeSampler` variable.
    pub(in crate::back::spirv) fn declare_samplers(&mut self) -> Result<(), Error> {
        let ir = self.ir;
        for s in &ir.samplers {
            let binding = binding_of(s.binding, &s.range, s.span, "sampler")?;
            let ty = self.m.type_sampler();
            let var_ty = self.descriptor_variable_type(ty, binding.array);
            let var = self
                .m
                .global_variable(StorageClass::UniformConstant, var_ty, None);
            self.m.decorate_binding(var, binding.set, binding.binding);
            self.name_indexed(var, "s", s.id);
            self.textures.samplers.push((var, binding.array));
        }
        Ok(())
    }
}
