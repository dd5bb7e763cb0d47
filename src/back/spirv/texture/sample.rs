//! `sample*`, `gather4*` (and their `_s` forms) and `lod`.
//!
//! Contract (`sample`/`sample_b`/`sample_l`/`sample_d`/`sample_c`/`sample_c_lz`/`gather4*`/`lod`
//! pages of the `sm4 - asm`/`sm5 - asm` reference):
//! - Operands, after the destinations: address, [`gather4_po*`: offset,] resource, sampler,
//!   then bias / LOD / gradients / reference value, then the `_cl` clamp.
//! - The address holds the coordinates (array layer last; D3D and Vulkan both round it to the
//!   nearest layer and clamp it). `sample_l` takes the LOD, `sample_d` gradients, `sample_b`
//!   a bias; the comparisons (`_c`) a reference value (`Dref`), `_lz` LOD 0. `_cl` clamps the
//!   LOD from below (`MinLod`; outside pixel shaders the explicit LOD becomes
//!   `max(0, clamp)`). For implicit LOD outside pixel shaders see the module docs.
//! - A comparison returns one value, written to every destination component. Other results
//!   have four components and are reordered by the resource swizzle.
//! - `gather4` returns the channel the sampler operand's swizzle selects (`s0.y` → green);
//!   `gather4_c` compares the red channel. `gather4_po` takes a per-pixel offset: the low six
//!   bits of each component as a signed value (D3D's range −32..31), passed as `Offset`
//!   (`ImageGatherExtended`); the device's `minTexelGatherOffset`/`maxTexelGatherOffset`
//!   bound what it honours.
//! - `lod` writes (clamped LOD, unclamped LOD, 0, 0) through the resource swizzle
//!   (`OpImageQueryLod`); pixel shaders only.
//! - Sampling a multisampled view, comparisons on integer or 3-D views, gathers on other than
//!   2-D and cube views and `gather4_po` on cubes are invalid, as in D3D.

use spirv::{Capability, GlslStd450Op, ImageOperands, Op as SpvOp};

use super::{first, Texture};
use crate::back::spirv::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{Dimension, Inst, Op, OpKind, Payload, Role, SparseOp, Stage};
use crate::spv::Id;

/// How an operation gets its level of detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LodMode {
    /// From derivatives (`sample`, `sample_c`; gathers, which read level 0).
    Implicit,
    /// From derivatives plus the bias in source `i`.
    Bias(usize),
    /// The LOD in source `i`.
    Explicit(usize),
    /// Level 0 (`_lz`).
    Zero,
    /// Gradients in sources `i` and `j`.
    Grad(usize, usize),
}

/// The operand layout of one sampling or gather operation.
#[derive(Clone, Copy, Debug)]
struct Form {
    /// Source of the programmable offset (`gather4_po*`).
    offset: Option<usize>,
    /// Source of the resource.
    res: usize,
    /// LOD selection.
    lod: LodMode,
    /// Source of the reference value.
    dref: Option<usize>,
    /// Source of the LOD clamp.
    clamp: Option<usize>,
    /// A gather.
    gather: bool,
    /// Writes a status to destination 1.
    sparse: bool,
}

/// The operand layout of a sampling or gather operation, from the op table's source roles;
/// `None` for other operations.
fn form(op: Op) -> Option<Form> {
    use SparseOp::*;
    // Every family and every sparse operation has its arm (no catch-all).
    let gather = match op.kind() {
        OpKind::Gather(_) => true,
        OpKind::Sample(_) => false,
        OpKind::Sparse(op) => match op {
            Gather4S | Gather4CS | Gather4PoS | Gather4PoCS => true,
            SampleLS | SampleCLzS | SampleClS | SampleBClS | SampleDClS | SampleCClS => false,
            LdS | LdMsS | LdUavTypedS | LdRawS | LdStructuredS | CheckAccessFullyMapped => {
                return None
            }
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
        | OpKind::TextureLoad(_)
        | OpKind::Query(_)
        | OpKind::Interpolation(_)
        | OpKind::Geometry(_) => return None,
    };
    let at = |role| op.source(role);
    let lod = if let Some(i) = at(Role::Bias) {
        LodMode::Bias(i)
    } else if let Some(i) = at(Role::Lod) {
        LodMode::Explicit(i)
    } else if let (Some(i), Some(j)) = (at(Role::GradientX), at(Role::GradientY)) {
        LodMode::Grad(i, j)
    } else if matches!(op, Op::SampleCLz | Op::SampleCLzS) {
        LodMode::Zero
    } else {
        LodMode::Implicit
    };
    Some(Form {
        offset: at(Role::Offset),
        res: at(Role::Resource)?,
        lod,
        dref: at(Role::Reference),
        clamp: at(Role::Clamp),
        gather,
        sparse: op.arity().0 == 2,
    })
}

/// Image operands in the order SPIR-V requires (by mask bit).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Operands {
    /// `Bias`.
    pub bias: Option<Id>,
    /// `Lod`.
    pub lod: Option<Id>,
    /// `Grad` (x, y).
    pub grad: Option<(Id, Id)>,
    /// `ConstOffset`.
    pub const_offset: Option<Id>,
    /// `Offset`.
    pub offset: Option<Id>,
    /// `Sample`.
    pub sample: Option<Id>,
    /// `MinLod`.
    pub min_lod: Option<Id>,
}

impl Operands {
    /// The mask and the ids (the first `n` of the array; `fill` pads the rest).
    pub fn build(&self, fill: Id) -> (ImageOperands, [Id; 7], usize) {
        let mut ids = [fill; 7];
        let mut n = 0;
        let mut mask = ImageOperands::NONE;
        let mut push = |bit: ImageOperands, id: Option<Id>, mask: &mut ImageOperands| {
            if let Some(id) = id {
                *mask |= bit;
                ids[n] = id;
                n += 1;
            }
        };
        push(ImageOperands::BIAS, self.bias, &mut mask);
        push(ImageOperands::LOD, self.lod, &mut mask);
        if let Some((x, y)) = self.grad {
            push(ImageOperands::GRAD, Some(x), &mut mask);
            push(ImageOperands::GRAD, Some(y), &mut mask);
        }
        push(ImageOperands::CONST_OFFSET, self.const_offset, &mut mask);
        push(ImageOperands::OFFSET, self.offset, &mut mask);
        push(ImageOperands::SAMPLE, self.sample, &mut mask);
        push(ImageOperands::MIN_LOD, self.min_lod, &mut mask);
        (mask, ids, n)
    }
}

/// The immediate offset `k` (0 = u) of an instruction's payload (0 when it has none).
pub(super) fn immediate_offset(payload: Payload, k: u8) -> i32 {
    payload
        .texel_offsets()
        .get(usize::from(k))
        .map_or(0, |&o| i32::from(o))
}

#[cfg(test)]
thread_local! {
    /// Tests only: choose LODs as in a pixel shader whatever the module's stage, so that the
    /// implicit-LOD forms can be validated (the tests retarget the module to Fragment) while
    /// the back end emits compute shaders only.
    pub(super) static ASSUME_PIXEL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Emitter<'_> {
    /// Whether implicit-LOD instructions are available (pixel shaders).
    pub(super) fn has_derivatives(&self) -> bool {
        #[cfg(test)]
        if ASSUME_PIXEL.with(|a| a.get()) {
            return true;
        }
        self.ir.stage == Stage::Pixel
    }

    /// The `ConstOffset` of a texture operation on `tex`: an `int` (vector) constant of the
    /// immediate offsets, `None` when they are all zero or the dimension takes none.
    pub(super) fn const_offset(&mut self, payload: Payload, tex: &Texture) -> Option<Id> {
        let n = tex.shape.offsets;
        if n == 0 || (0..n).all(|k| immediate_offset(payload, k) == 0) {
            return None;
        }
        let i = self.ty(Scalar::I32, 1);
        let mut parts = [i; 3];
        for k in 0..n {
            parts[k as usize] = self.m.constant_i32(immediate_offset(payload, k));
        }
        if n == 1 {
            return Some(parts[0]);
        }
        let ty = self.ty(Scalar::I32, n);
        Some(self.m.constant_composite(ty, &parts[..n as usize]))
    }

    /// Any `sample*` or `gather4*` operation.
    pub(super) fn sample(&mut self, inst: &Inst) -> Result<(), Error> {
        let span = inst.span;
        let f = form(inst.op)
            .ok_or_else(|| Error::unsupported(span, format!("`{}`", inst.op.name())))?;
        let res = Self::operand(inst, f.res)?;
        let smp = Self::operand(inst, f.res + 1)?;
        let tex = self.texture_operand(span, &res, false)?;
        let sampler = self.sampler_operand(span, &smp)?;
        let shape = tex.shape;
        if shape.ms {
            return Err(Error::invalid(span, "sampling a multisampled texture"));
        }
        if f.dref.is_some() && (tex.scalar != Scalar::F32 || tex.dim == Dimension::Texture3D) {
            return Err(Error::invalid(
                span,
                "a comparison on an integer or 3-D texture",
            ));
        }
        if f.gather && !matches!(shape.dim, spirv::Dim::Dim2D | spirv::Dim::DimCube) {
            return Err(Error::invalid(span, "a gather on a 1-D or 3-D texture"));
        }
        if f.offset.is_some() && shape.offsets == 0 {
            return Err(Error::invalid(span, "a programmable offset on a cube"));
        }
        let status_mask = if f.sparse { Self::dst_mask(inst, 1) } else { 0 };
        if Self::dst_mask(inst, 0) == 0 && status_mask == 0 {
            return Ok(());
        }
        let coord = self.load_src(inst, 0, first(shape.coords), Scalar::F32)?.id;
        let mut ops = Operands::default();
        let pixel = self.has_derivatives();
        let clamp = match f.clamp {
            Some(i) => Some(self.load_src(inst, i, 1, Scalar::F32)?.id),
            None => None,
        };
        let f32_ty = self.ty(Scalar::F32, 1);
        let zero = self.splat_bits(Scalar::F32, 1, 0);
        let mut explicit = true;
        match f.lod {
            LodMode::Implicit | LodMode::Bias(_) if f.gather || pixel => {
                explicit = false;
                if let LodMode::Bias(i) = f.lod {
                    ops.bias = Some(self.load_src(inst, i, 1, Scalar::F32)?.id);
                }
                ops.min_lod = clamp;
            }
            LodMode::Implicit | LodMode::Bias(_) => {
                // No derivatives: level 0, or the clamp when it is above.
                ops.lod = Some(match clamp {
                    Some(c) => self.glsl(f32_ty, GlslStd450Op::NMax, &[zero, c]),
                    None => zero,
                });
            }
            LodMode::Explicit(i) => ops.lod = Some(self.load_src(inst, i, 1, Scalar::F32)?.id),
            LodMode::Zero => ops.lod = Some(zero),
            LodMode::Grad(i, j) => {
                let n = first(shape.grads());
                let dx = self.load_src(inst, i, n, Scalar::F32)?.id;
                let dy = self.load_src(inst, j, n, Scalar::F32)?.id;
                ops.grad = Some((dx, dy));
                ops.min_lod = clamp;
            }
        }
        if ops.min_lod.is_some() {
            self.m.capability(Capability::MinLod);
        }
        if let Some(i) = f.offset {
            ops.offset = Some(self.programmable_offset(inst, i, shape.offsets)?);
            self.m.capability(Capability::ImageGatherExtended);
        } else {
            ops.const_offset = self.const_offset(inst.payload, &tex);
        }
        let extra = match f.dref {
            Some(i) => Some(self.load_src(inst, i, 1, Scalar::F32)?.id),
            None if f.gather => Some(self.u32_const(u32::from(smp.swizzle[0] & 3))),
            None => None,
        };
        let scalar_result = f.dref.is_some() && !f.gather;
        let texel_ty = if scalar_result {
            f32_ty
        } else {
            self.ty(tex.scalar, 4)
        };
        let sparse = f.sparse && self.textures.sparse;
        let op = match (f.gather, f.dref.is_some(), explicit, sparse) {
            (true, false, _, false) => SpvOp::ImageGather,
            (true, true, _, false) => SpvOp::ImageDrefGather,
            (true, false, _, true) => SpvOp::ImageSparseGather,
            (true, true, _, true) => SpvOp::ImageSparseDrefGather,
            (false, false, false, false) => SpvOp::ImageSampleImplicitLod,
            (false, false, true, false) => SpvOp::ImageSampleExplicitLod,
            (false, true, false, false) => SpvOp::ImageSampleDrefImplicitLod,
            (false, true, true, false) => SpvOp::ImageSampleDrefExplicitLod,
            (false, false, false, true) => SpvOp::ImageSparseSampleImplicitLod,
            (false, false, true, true) => SpvOp::ImageSparseSampleExplicitLod,
            (false, true, false, true) => SpvOp::ImageSparseSampleDrefImplicitLod,
            (false, true, true, true) => SpvOp::ImageSparseSampleDrefExplicitLod,
        };
        let sampled = self.sampled_image(&tex, sampler);
        let result_ty = if sparse {
            self.residency_type(texel_ty)
        } else {
            texel_ty
        };
        let (mask, ids, n) = ops.build(coord);
        let result = self
            .m
            .image_op(op, result_ty, sampled, coord, extra, mask, &ids[..n]);
        let (texel, status) = if sparse {
            self.split_residency(result, texel_ty)
        } else {
            (result, self.fully_mapped())
        };
        if scalar_result {
            let v = Value {
                id: texel,
                scalar: Scalar::F32,
                n: 1,
            };
            self.store_dst(inst, 0, v)?;
        } else {
            let v = Value {
                id: texel,
                scalar: tex.scalar,
                n: 4,
            };
            self.store_swizzled(inst, v, tex.swizzle)?;
        }
        if f.sparse {
            self.store_status(inst, status)?;
        }
        Ok(())
    }

    /// The `gather4_po` offset in source `i`: the low six bits of its first `n` components,
    /// sign-extended.
    fn programmable_offset(&mut self, inst: &Inst, i: usize, n: u8) -> Result<Id, Error> {
        let v = self.load_src(inst, i, first(n), Scalar::I32)?;
        let ty = self.ty(Scalar::I32, n);
        let offset = self.u32_const(0);
        let count = self.u32_const(6);
        Ok(self.m.bit_field_s_extract(ty, v.id, offset, count))
    }

    /// `lod dst, address, t#, s#`.
    pub(super) fn lod(&mut self, inst: &Inst) -> Result<(), Error> {
        let span = inst.span;
        let res = Self::operand(inst, 1)?;
        let smp = Self::operand(inst, 2)?;
        let tex = self.texture_operand(span, &res, false)?;
        let sampler = self.sampler_operand(span, &smp)?;
        if !self.has_derivatives() {
            return Err(Error::invalid(span, "`lod` outside a pixel shader"));
        }
        if tex.shape.ms {
            return Err(Error::invalid(span, "`lod` on a multisampled texture"));
        }
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        let coord = self
            .load_src(inst, 0, first(tex.shape.grads()), Scalar::F32)?
            .id;
        self.image_query();
        let sampled = self.sampled_image(&tex, sampler);
        let vec2 = self.ty(Scalar::F32, 2);
        let lods = self.m.image_query_lod(vec2, sampled, coord);
        let f = self.ty(Scalar::F32, 1);
        let x = self.m.composite_extract(f, lods, &[0]);
        let y = self.m.composite_extract(f, lods, &[1]);
        let zero = self.splat_bits(Scalar::F32, 1, 0);
        let v = self.compose(Scalar::F32, &[x, y, zero, zero]);
        self.store_swizzled(inst, v, tex.swizzle)
    }
}

#[cfg(test)]
mod form_tests {
    use super::*;

    #[test]
    fn the_roles_give_the_operand_layouts() {
        let f = |op| format!("{:?}", form(op));
        let sd = "Some(Form { offset: None, res: 1, lod: Grad(3, 4), dref: None, clamp: Some(5), \
                  gather: false, sparse: true })";
        assert_eq!(f(Op::SampleDClS), sd);
        let g = "Some(Form { offset: Some(1), res: 2, lod: Implicit, dref: Some(4), clamp: None, \
                 gather: true, sparse: false })";
        assert_eq!(f(Op::Gather4PoC), g);
        let lz = "Some(Form { offset: None, res: 1, lod: Zero, dref: Some(3), clamp: None, \
                  gather: false, sparse: true })";
        assert_eq!(f(Op::SampleCLzS), lz);
        assert_eq!(f(Op::Lod), "None");
        assert_eq!(f(Op::LdS), "None");
    }
}
