//! Tiled resources: the status of the `_s` operations and `check_access_fully_mapped`, and
//! the `_s` forms of the buffer loads.
//!
//! Contract (`check_access_fully_mapped (sm5 - asm)` and the `_s` instruction pages):
//! - Every `_s` operation writes, besides its result, a status word to its second
//!   destination; `check_access_fully_mapped dst, status` writes `0xffffffff` to `dst` when
//!   the access was fully mapped and 0 when it touched a texel that is not resident.
//! - The status word is `0xffffffff` (fully mapped) or 0 (not), already decoded. With
//!   `EmitOptions::sparse_residency` the texture forms use `OpImageSparse*` (capability
//!   `SparseResidency`) and decode their residency code with `OpImageSparseTexelsResident`
//!   on the spot; `check_access_fully_mapped` then tests the word for non-zero. Decoding
//!   at the access rather than at the check means every status has one meaning, whatever
//!   produced it: buffer loads (`ld_raw_s`, `ld_structured_s`, `ld_s`/`ld_uav_typed_s` on
//!   typed buffers) have no residency query in Vulkan and always report fully mapped.
//! - Without `sparse_residency` the `_s` operations are the ordinary ones and their status is
//!   always "fully mapped": a resource that is not tiled is always fully mapped, and a
//!   device or runtime without sparse residency cannot bind tiled resources at all.
//! - The `_cl` clamp of `sample_*_cl_s` is the `MinLod` image operand (`sample.rs`).

use spirv::Op as SpvOp;

use crate::back::spirv::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{Inst, Op, Reg, ResourceShape, Role, SparseOp};
use crate::spv::Id;

/// The status word of a fully mapped access.
const FULLY_MAPPED: u32 = 0xffff_ffff;

/// The ordinary operation of a buffer load's `_s` form; `None` for the texture forms and
/// `check_access_fully_mapped` (every sparse operation has its arm: no catch-all).
fn plain_op(op: SparseOp) -> Option<Op> {
    use SparseOp::*;
    match op {
        LdS => Some(Op::Ld),
        LdUavTypedS => Some(Op::LdUavTyped),
        LdRawS => Some(Op::LdRaw),
        LdStructuredS => Some(Op::LdStructured),
        SampleLS
        | SampleCLzS
        | SampleClS
        | SampleBClS
        | SampleDClS
        | SampleCClS
        | LdMsS
        | Gather4S
        | Gather4CS
        | Gather4PoS
        | Gather4PoCS
        | CheckAccessFullyMapped => None,
    }
}

impl Emitter<'_> {
    /// The status constant of a fully mapped access.
    pub(super) fn fully_mapped(&mut self) -> Id {
        self.u32_const(FULLY_MAPPED)
    }

    /// The residency struct `{ uint, texel_ty }` an `OpImageSparse*` returns (declares
    /// `SparseResidency`).
    pub(super) fn residency_type(&mut self, texel_ty: Id) -> Id {
        self.m.capability(spirv::Capability::SparseResidency);
        if let Some(&(_, t)) = self
            .textures
            .residency_types
            .iter()
            .find(|(k, _)| *k == texel_ty)
        {
            return t;
        }
        let u = self.ty(Scalar::U32, 1);
        let t = self.m.type_struct(&[u, texel_ty]);
        self.textures.residency_types.push((texel_ty, t));
        t
    }

    /// Splits a residency struct into the texel and the status word.
    pub(super) fn split_residency(&mut self, result: Id, texel_ty: Id) -> (Id, Id) {
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let code = self.m.composite_extract(u, result, &[0]);
        let texel = self.m.composite_extract(texel_ty, result, &[1]);
        let resident = self.m.emit(SpvOp::ImageSparseTexelsResident, b, &[code]);
        let mapped = self.fully_mapped();
        let zero = self.u32_const(0);
        (texel, self.m.select(u, resident, mapped, zero))
    }

    /// Writes `status` to destination 1 (every component its mask selects).
    pub(super) fn store_status(&mut self, inst: &Inst, status: Id) -> Result<(), Error> {
        let v = Value {
            id: status,
            scalar: Scalar::U32,
            n: 1,
        };
        self.store_dst(inst, 1, v)
    }

    /// `ld_raw_s`, `ld_structured_s`, `ld_uav_typed_s`, and `ld_s` on a typed buffer: the
    /// ordinary load, then the status.
    pub(super) fn buffer_load_with_status(
        &mut self,
        inst: &Inst,
        op: SparseOp,
    ) -> Result<(), Error> {
        let op = plain_op(op)
            .ok_or_else(|| Error::unsupported(inst.span, format!("`{}`", inst.op.name())))?;
        if op == Op::LdUavTyped && self.textures.sparse && self.uav_is_texture(inst) {
            return self.ld_uav_typed_sparse(inst);
        }
        let mut plain = Inst::new(op, inst.span);
        plain.flags = inst.flags;
        plain.payload = inst.payload;
        let dst = inst
            .dst()
            .first()
            .copied()
            .ok_or_else(|| Error::internal(inst.span, "missing destination operand"))?;
        let mut fits = plain.push_dst(dst);
        for s in inst.src() {
            fits &= plain.push_src(*s);
        }
        if !fits {
            return Err(Error::internal(inst.span, "too many operands"));
        }
        self.memory(&plain)?;
        let status = self.fully_mapped();
        self.store_status(inst, status)
    }

    /// Whether the `u#` of an `ld_uav_typed_s` is a texture (not a typed buffer).
    fn uav_is_texture(&self, inst: &Inst) -> bool {
        let resource = inst
            .op
            .source(Role::Resource)
            .and_then(|i| inst.src().get(i));
        let Some(Reg::Uav { decl, .. }) = resource.map(|s| s.reg) else {
            return false;
        };
        matches!(
            self.ir.resources.get(decl.index()).map(|r| r.shape),
            Some(ResourceShape::Typed { dim, .. }) if dim != crate::ir::Dimension::Buffer
        )
    }

    /// `ld_uav_typed_s` on a storage image with sparse residency: `OpImageSparseRead` at the
    /// address clamped into the image, the default texel when it was out of bounds.
    fn ld_uav_typed_sparse(&mut self, inst: &Inst) -> Result<(), Error> {
        let at = inst
            .op
            .source(Role::Resource)
            .ok_or_else(|| Error::internal(inst.span, "missing source operand"))?;
        let res = Self::operand(inst, at)?;
        let tb = self.typed_uav_operand(inst.span, &res.reg)?;
        if Self::dst_mask(inst, 0) == 0 && Self::dst_mask(inst, 1) == 0 {
            return Ok(());
        }
        let (coord, size) = self.typed_address(inst, 0, &tb)?;
        let ok = self.all_less_than(coord, size, tb.coords);
        let at = self.clamp_below(coord, size, tb.coords);
        let texel_ty = self.ty(tb.scalar, 4);
        let ty = self.residency_type(texel_ty);
        let result = self.m.image_op(
            SpvOp::ImageSparseRead,
            ty,
            tb.image,
            at,
            None,
            spirv::ImageOperands::NONE,
            &[],
        );
        let (texel, status) = self.split_residency(result, texel_ty);
        let default = self.typed_default(tb.scalar);
        let b4 = self.ty(Scalar::Bool, 4);
        let ok4 = self.m.composite_construct(b4, &[ok; 4]);
        let texel = self.m.select(texel_ty, ok4, texel, default);
        let texel = Value {
            id: texel,
            scalar: tb.scalar,
            n: 4,
        };
        self.store_swizzled(inst, texel, res.swizzle)?;
        self.store_status(inst, status)
    }

    /// `check_access_fully_mapped dst, status`: `~0` when the status says fully mapped.
    pub(super) fn check_access_fully_mapped(&mut self, inst: &Inst) -> Result<(), Error> {
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        let status = self.load_src(inst, 0, 1, Scalar::U32)?.id;
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let zero = self.u32_const(0);
        let mapped = self.m.i_not_equal(b, status, zero);
        let all = self.fully_mapped();
        let v = Value {
            id: self.m.select(u, mapped, all, zero),
            scalar: Scalar::U32,
            n: 1,
        };
        self.store_dst(inst, 0, v)
    }
}
