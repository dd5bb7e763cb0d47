//! Texture operations on `t#`/`u#` images and `s#` samplers: sampling, gathers, texel loads,
//! queries and the tiled-resource (`_s`) forms (D3D11.3 functional spec, texture sections, and the
//! `sm4 - asm`/`sm5 - asm` instruction pages).
//!
//! Contract:
//! - Declarations (`declare.rs`): every texture dimension is an `OpTypeImage` of the
//!   declaration's return type (float/unorm/snorm → f32, uint → u32, sint → i32): SRVs
//!   `Sampled 1` (`VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`) with depth "unknown" (the same view may
//!   be sampled with and without comparison), UAVs `Sampled 2` (storage image, format
//!   `Unknown`, or `R32ui`/`R32i` when atomics use it). Samplers are `OpTypeSampler`
//!   variables (`VK_DESCRIPTOR_TYPE_SAMPLER`), combined with `OpSampledImage` at each use.
//! - Operands: the resource operand's swizzle reorders the 4-component result (`t0.yxzw`),
//!   the destination mask selects what is written (through `store_dst`, so `_sat` applies);
//!   the sampler operand's swizzle picks the channel `gather4` returns. Immediate texel
//!   offsets (`aoffimmi`) become `ConstOffset` (none on cubes, as in D3D); `ld`/`ldms` add
//!   them to the integer address before the bounds check instead.
//! - Level of detail: `sample`, `sample_b`, `sample_c` and `lod` compute it from derivatives,
//!   which only pixel shaders have. In pixel shaders they use implicit-LOD instructions; in
//!   every other stage `sample`/`sample_b`/`sample_c` sample level 0 explicitly (D3D only
//!   allows them in pixel shaders; with no derivatives, level 0 — the clamp when one is given
//!   — is the most detailed level the computed LOD could select, and `sample_b`'s bias is
//!   dropped with the derivatives it would offset). `lod` outside a pixel shader is invalid.
//! - `ld`/`ldms` follow D3D's out-of-bounds rule explicitly (`load.rs`): the address, array
//!   index, mip level and sample index are checked against the view's queried size, levels
//!   and samples, the fetch is made at a clamped address, and the result is zero when any was
//!   out of range. Vulkan leaves out-of-bounds fetches undefined unless the device enables
//!   robust image access, which the translator does not assume.
//! - Queries (`query.rs`): `resinfo` (float, `_rcpFloat`, `_uint`; sizes of the given mip,
//!   zero past the last mip except the mip count), `sampleinfo`, `samplepos` (the D3D
//!   standard sample positions).
//! - Tiled resources (`sparse.rs`): the `_s` operations write a status word, `~0` when every
//!   texel the access touched is resident and 0 otherwise, which `check_access_fully_mapped`
//!   tests. See that file for the `EmitOptions::sparse_residency` choice.
//!
//! Files: this one (dispatch, operand resolution, shared helpers), `declare.rs`, `sample.rs`
//! (sample, gather, lod), `load.rs` (ld, ldms), `query.rs`, `sparse.rs`.

mod declare;
mod load;
mod query;
mod sample;
mod sparse;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_corpus;
#[cfg(test)]
mod tests_load;
#[cfg(test)]
mod tests_sample;

use spirv::{Capability, Dim, GlslStd450Op, StorageClass};

use super::context::{Emitter, Scalar, Value};
use super::descriptors::{Descriptor, DescriptorKind};
use super::values::LoadKey;
use crate::back::spirv::Error;
use crate::bindings::ResourceKind;
use crate::ir::{
    Dimension, Inst, OpKind, QueryOp, Reg, ResourceShape, SparseOp, Src, TextureLoadOp,
};
use crate::spv::Id;

/// Texture state shared by the whole module ([`Emitter::textures`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct TextureState {
    /// `OpTypeSampler` variables (or arrays of them), by sampler declaration position.
    samplers: Vec<(Id, Option<crate::back::spirv::descriptors::DescriptorArray>)>,
    /// Emit `OpImageSparse*` for the `_s` operations (`EmitOptions::sparse_residency`).
    sparse: bool,
    /// The Private table of standard sample positions, once `samplepos` needed it.
    sample_positions: Option<Id>,
    /// Residency result structs `{ uint, texel }`, by texel type.
    residency_types: Vec<(Id, Id)>,
    /// The rasterizer sample-count specialization constant, once declared.
    rasterizer_samples: Option<Id>,
}

impl TextureState {
    /// Empty state; `sparse` as in `EmitOptions::sparse_residency`.
    pub fn new(sparse: bool) -> TextureState {
        TextureState {
            sparse,
            ..TextureState::default()
        }
    }
}

/// What a texture dimension means to SPIR-V and to the addressing of its operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// The image's `Dim`.
    pub dim: Dim,
    /// Arrayed.
    pub arrayed: bool,
    /// Multisampled.
    pub ms: bool,
    /// Coordinate components, the array layer included (cube: 3 direction components).
    pub coords: u8,
    /// Components of texel offsets and of gradients without the array layer (0 for cubes,
    /// which take no offsets; their gradients have 3 components, see [`Shape::grads`]).
    pub offsets: u8,
    /// Components `OpImageQuerySize[Lod]` returns.
    pub size: u8,
}

impl Shape {
    /// Components of a gradient (`sample_d`) or of an `OpImageQueryLod` coordinate.
    pub fn grads(&self) -> u8 {
        self.coords - u8::from(self.arrayed)
    }
}

/// The shape of a texture dimension (`None` for buffers).
pub(super) fn shape(dim: Dimension) -> Option<Shape> {
    let s = |dim, arrayed, ms, coords, offsets, size| Shape {
        dim,
        arrayed,
        ms,
        coords,
        offsets,
        size,
    };
    Some(match dim {
        Dimension::Buffer => return None,
        Dimension::Texture1D => s(Dim::Dim1D, false, false, 1, 1, 1),
        Dimension::Texture1DArray => s(Dim::Dim1D, true, false, 2, 1, 2),
        Dimension::Texture2D => s(Dim::Dim2D, false, false, 2, 2, 2),
        Dimension::Texture2DArray => s(Dim::Dim2D, true, false, 3, 2, 3),
        Dimension::Texture2DMS => s(Dim::Dim2D, false, true, 2, 2, 2),
        Dimension::Texture2DMSArray => s(Dim::Dim2D, true, true, 3, 2, 3),
        Dimension::Texture3D => s(Dim::Dim3D, false, false, 3, 3, 3),
        Dimension::TextureCube => s(Dim::DimCube, false, false, 3, 0, 2),
        Dimension::TextureCubeArray => s(Dim::DimCube, true, false, 4, 0, 3),
    })
}

/// A resolved texture operand.
#[derive(Clone, Copy, Debug)]
pub(super) struct Texture {
    /// The declared dimension.
    pub dim: Dimension,
    /// Its shape.
    pub shape: Shape,
    /// Pointer to the image descriptor.
    pub var: Id,
    /// The descriptor is non-uniform (decorate what is loaded from it).
    pub nonuniform: bool,
    /// The image type.
    pub image_type: Id,
    /// Texel component type.
    pub scalar: Scalar,
    /// A `u#` (storage image) rather than a `t#`.
    pub uav: bool,
    /// The operand's swizzle (reorders the result).
    pub swizzle: [u8; 4],
    /// A multisampled declaration the runtime bound a single-sampled view for
    /// (`PipelineState::single_sampled_srvs`): the image is single-sampled, `shape.ms` stays
    /// the declaration's.
    pub demoted: bool,
}

/// The write mask reading the first `n` components (`.x`, `.xy`, ...).
pub(super) fn first(n: u8) -> u8 {
    (1u8 << n.min(4)) - 1
}

impl Emitter<'_> {
    /// One texture operation (or tiled-resource form of a buffer load). Every operation of
    /// the texture-load, sample, gather, query and sparse families has its arm (no catch-all).
    pub(super) fn texture(&mut self, inst: &Inst) -> Result<(), Error> {
        use SparseOp::*;
        match inst.op.kind() {
            OpKind::TextureLoad(TextureLoadOp::Ld) => self.ld(inst, false),
            OpKind::TextureLoad(TextureLoadOp::LdMs) => self.ldms(inst, false),
            OpKind::Sample(_) | OpKind::Gather(_) => self.sample(inst),
            OpKind::Query(op) => match op {
                QueryOp::Lod => self.lod(inst),
                QueryOp::Resinfo => self.resinfo(inst),
                QueryOp::SampleInfo => self.sampleinfo(inst),
                QueryOp::SamplePos => self.samplepos(inst),
            },
            OpKind::Sparse(op) => match op {
                LdS if self.is_typed_buffer_load(inst) => self.buffer_load_with_status(inst, op),
                LdUavTypedS | LdRawS | LdStructuredS => self.buffer_load_with_status(inst, op),
                LdS => self.ld(inst, true),
                LdMsS => self.ldms(inst, true),
                SampleLS | SampleCLzS | SampleClS | SampleBClS | SampleDClS | SampleCClS
                | Gather4S | Gather4CS | Gather4PoS | Gather4PoCS => self.sample(inst),
                CheckAccessFullyMapped => self.check_access_fully_mapped(inst),
            },
            OpKind::Move(_)
            | OpKind::Float(_)
            | OpKind::Legacy(_)
            | OpKind::Integer(_)
            | OpKind::Bits(_)
            | OpKind::Double(_)
            | OpKind::Derivative(_)
            | OpKind::ControlFlow(_)
            | OpKind::Discard(_)
            | OpKind::Buffer(_)
            | OpKind::Atomic(_)
            | OpKind::Sync(_)
            | OpKind::Interpolation(_)
            | OpKind::Geometry(_) => Err(Error::unsupported(
                inst.span,
                format!("`{}`", inst.op.name()),
            )),
        }
    }

    /// Source `i` of `inst`.
    pub(super) fn operand(inst: &Inst, i: usize) -> Result<Src, Error> {
        inst.src()
            .get(i)
            .copied()
            .ok_or_else(|| Error::internal(inst.span, "missing source operand"))
    }

    /// The texture a `t#` (or, with `allow_uav`, `u#`) operand names; buffers are refused.
    pub(super) fn texture_operand(
        &mut self,
        span: u32,
        src: &Src,
        allow_uav: bool,
    ) -> Result<Texture, Error> {
        let (decl, element, uav) = match src.reg {
            Reg::Resource { decl, element } => (decl, element, false),
            Reg::Uav { decl, element } if allow_uav => (decl, element, true),
            Reg::Uav { .. } => {
                return Err(Error::invalid(span, "a texture operation on a u# operand"))
            }
            _ => {
                return Err(Error::invalid(
                    span,
                    "a texture operand that is not a t# or u#",
                ))
            }
        };
        let d =
            self.ir.resources.get(decl.index()).ok_or_else(|| {
                Error::internal(span, format!("resource #{decl} is not declared"))
            })?;
        let kind = if uav {
            ResourceKind::UnorderedAccess
        } else {
            ResourceKind::ShaderResource
        };
        if d.range.kind != kind {
            return Err(Error::internal(
                span,
                "operand names a declaration of another kind",
            ));
        }
        let dim = match d.shape {
            ResourceShape::Typed { dim, .. } => dim,
            _ => {
                return Err(Error::invalid(
                    span,
                    "texture operation on a raw or structured buffer",
                ))
            }
        };
        let shape = shape(dim)
            .ok_or_else(|| Error::invalid(span, "texture operation on a typed buffer"))?;
        let demoted = self.options.pipeline_state.single_sampled(d);
        let vars = self.resource_vars(span, decl)?;
        let (Some(var), Some(image_type), Some(scalar)) = (vars.var, vars.image_type, vars.texel)
        else {
            return Err(Error::internal(span, "texture without an image"));
        };
        let descriptor_kind = if uav {
            DescriptorKind::StorageImage
        } else {
            DescriptorKind::SampledImage
        };
        let d = self.descriptor_element(
            span,
            var,
            vars.array,
            &element,
            StorageClass::UniformConstant,
            image_type,
            descriptor_kind,
        )?;
        Ok(Texture {
            dim,
            shape,
            var: d.ptr,
            nonuniform: d.nonuniform,
            image_type,
            scalar,
            uav,
            swizzle: src.swizzle,
            demoted,
        })
    }

    /// The sampler descriptor an `s#` operand names.
    pub(super) fn sampler_operand(&mut self, span: u32, src: &Src) -> Result<Descriptor, Error> {
        let Reg::Sampler { decl, element } = src.reg else {
            return Err(Error::invalid(span, "a sampler operand that is not an s#"));
        };
        let (var, array) = self
            .textures
            .samplers
            .get(decl.index())
            .copied()
            .ok_or_else(|| Error::internal(span, format!("sampler #{decl} is not declared")))?;
        let ty = self.m.type_sampler();
        self.descriptor_element(
            span,
            var,
            array,
            &element,
            StorageClass::UniformConstant,
            ty,
            DescriptorKind::SampledImage,
        )
    }

    /// Loads the image of `tex`.
    /// Handles cannot change: loaded again through the same pointer in a block, the first
    /// load's value.
    pub(super) fn load_image(&mut self, tex: &Texture) -> Id {
        let key = LoadKey::Handle(tex.var);
        if let Some(id) = self.remembered_load(key) {
            return id;
        }
        let image = self.m.load(tex.image_type, tex.var);
        if tex.nonuniform {
            self.non_uniform(image);
        }
        self.remember_load(key, image);
        image
    }

    /// `OpSampledImage` of `tex` and the sampler `sampler` (one per pair of pointers and
    /// block: SPIR-V wants it in the block that uses it, and handles do not change).
    pub(super) fn sampled_image(&mut self, tex: &Texture, sampler: Descriptor) -> Id {
        let key = LoadKey::Sampled(tex.var, sampler.ptr);
        if let Some(id) = self.remembered_load(key) {
            return id;
        }
        let image = self.load_image(tex);
        let sampler_key = LoadKey::Handle(sampler.ptr);
        let s = match self.remembered_load(sampler_key) {
            Some(s) => s,
            None => {
                let sampler_ty = self.m.type_sampler();
                let s = self.m.load(sampler_ty, sampler.ptr);
                if sampler.nonuniform {
                    self.non_uniform(s);
                }
                self.remember_load(sampler_key, s);
                s
            }
        };
        let ty = self.m.type_sampled_image(tex.image_type);
        let sampled = self.m.sampled_image(ty, image, s);
        if tex.nonuniform || sampler.nonuniform {
            self.non_uniform(sampled);
        }
        self.remember_load(key, sampled);
        sampled
    }

    /// Writes the 4-component `texel` to destination 0 through the resource `swizzle`:
    /// destination component `c` receives texel component `swizzle[c]`.
    pub(super) fn store_swizzled(
        &mut self,
        inst: &Inst,
        texel: Value,
        swizzle: [u8; 4],
    ) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let mut sel = [0u32; 4];
        let mut n = 0;
        for c in Self::mask_components(mask) {
            sel[n] = u32::from(swizzle[c as usize] & 3);
            n += 1;
        }
        let value = if n == 1 {
            self.extract(texel, sel[0] as u8)
        } else if n == 4 && sel == [0, 1, 2, 3] {
            texel
        } else {
            let ty = self.ty(texel.scalar, n as u8);
            Value {
                id: self.m.vector_shuffle(ty, texel.id, texel.id, &sel[..n]),
                scalar: texel.scalar,
                n: n as u8,
            }
        };
        self.store_dst(inst, 0, value)
    }

    /// Declares `ImageQuery` (size, levels, samples and LOD queries).
    pub(super) fn image_query(&mut self) {
        self.m.capability(Capability::ImageQuery);
    }

    /// `a < b` on `n`-component unsigned values, reduced with `all` to one bool.
    pub(super) fn all_less_than(&mut self, a: Id, b: Id, n: u8) -> Id {
        let b1 = self.ty(Scalar::Bool, 1);
        if n <= 1 {
            return self.m.u_less_than(b1, a, b);
        }
        let bn = self.ty(Scalar::Bool, n);
        let lt = self.m.u_less_than(bn, a, b);
        self.m.all(b1, lt)
    }

    /// The size of mip `lod` as `OpImageQuerySizeLod` gives it, computed from mip 0's size:
    /// `max(1, size0 >> lod)` for the dimensions, array sizes unchanged. D3D lets every
    /// invocation ask for its own mip; lavapipe 25 evaluates `OpImageQuerySizeLod` with one
    /// invocation's lod for the whole group, while a constant lod 0 is right everywhere.
    pub(super) fn mip_size(&mut self, tex: &Texture, image: Id, lod: Id) -> Id {
        let n = tex.shape.size;
        let ty = self.ty(Scalar::U32, n);
        let zero = self.u32_const(0);
        let size0 = self.m.image_query_size_lod(ty, image, zero);
        let dims = n - u8::from(tex.shape.arrayed);
        let one = self.u32_const(1);
        let mut shifts = [zero; 4];
        let mut floor = [zero; 4];
        for k in 0..dims as usize {
            shifts[k] = lod;
            floor[k] = one;
        }
        let shifts = self.compose(Scalar::U32, &shifts[..n as usize]).id;
        let floor = if n == 1 {
            one
        } else {
            self.m.constant_composite(ty, &floor[..n as usize])
        };
        let shifted = self.m.shift_right_logical(ty, size0, shifts);
        self.glsl(ty, GlslStd450Op::UMax, &[shifted, floor])
    }

    /// `min(v, limit - 1)` on `n`-component unsigned values (a clamped address; a zero limit
    /// wraps to the largest value and leaves `v` unchanged, for a check that fails anyway).
    pub(super) fn clamp_below(&mut self, v: Id, limit: Id, n: u8) -> Id {
        let ty = self.ty(Scalar::U32, n);
        let one = self.splat_bits(Scalar::U32, n, 1);
        let last = self.m.i_sub(ty, limit, one);
        self.glsl(ty, GlslStd450Op::UMin, &[v, last])
    }

    /// `ok ? v : 0` on a 4-component value (vector condition, for SPIR-V before 1.4).
    pub(super) fn zero_unless(&mut self, ok: Id, v: Value) -> Value {
        let ty = self.ty(v.scalar, v.n);
        let zero = self.splat_bits(v.scalar, v.n, 0);
        let cond = if v.n > 1 {
            let bn = self.ty(Scalar::Bool, v.n);
            self.m.composite_construct(bn, &[ok; 4][..v.n as usize])
        } else {
            ok
        };
        Value {
            id: self.m.select(ty, cond, v.id, zero),
            ..v
        }
    }
}
