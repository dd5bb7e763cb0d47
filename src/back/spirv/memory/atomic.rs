//! Atomics on `u#` (raw, structured, typed R32 buffers and textures) and `g#`, and the UAV
//! counter operations `imm_atomic_alloc`/`imm_atomic_consume`.
//!
//! Contract (`atomic_*`/`imm_atomic_* (sm5 - asm)`):
//! - operands: `atomic_op u#/g#, address, value` (resource as destination),
//!   `imm_atomic_op dst, u#/g#, address, value`; `*cmp*` take the comparison value before the
//!   new value; the address has 1 component (raw byte offset, typed buffer texel index), 2
//!   (structured: index, byte offset) or, on typed UAV textures, the texel coordinates
//!   (`typed.rs`), read through its swizzle;
//! - `imm_*` write the value memory held before the operation to every destination component;
//! - out of bounds (same rules as loads and stores, typed UAVs against their size)
//!   the operation does nothing and `imm_*` return 0;
//! - scope Device on UAVs, Workgroup on `g#`; relaxed semantics;
//! - `imm_atomic_alloc` increments the hidden counter and returns its old value,
//!   `imm_atomic_consume` decrements it and returns the new value (old − 1, wrapping).

use spirv::{Op as SpvOp, Scope};

use super::typed::TexelBuffer;
use super::{Loc, Target};
use crate::back::spirv::context::{Emitter, Scalar, Value};
use crate::back::spirv::descriptors::DescriptorKind;
use crate::back::spirv::Error;
use crate::ir::{AtomicOp, Inst, Op, Reg, ResourceShape};
use crate::spv::Id;

/// Where an atomic operation works.
#[derive(Clone, Copy, Debug)]
enum Place {
    /// Word memory (raw/structured buffer or `g#`) at a located access.
    Words(Target, Loc),
    /// A texel of a typed buffer.
    Texel(TexelBuffer, Id),
}

impl Emitter<'_> {
    /// Any `atomic_*` or `imm_atomic_*` other than alloc/consume.
    pub(super) fn atomic(&mut self, inst: &Inst, op: AtomicOp) -> Result<(), Error> {
        use AtomicOp::*;
        // (SPIR-V operation, `imm_*` form, compares): every atomic operation has its arm.
        let (op, imm, compare) = match op {
            AtomicAnd => (SpvOp::AtomicAnd, false, false),
            AtomicOr => (SpvOp::AtomicOr, false, false),
            AtomicXor => (SpvOp::AtomicXor, false, false),
            AtomicCmpStore => (SpvOp::AtomicCompareExchange, false, true),
            AtomicIadd => (SpvOp::AtomicIAdd, false, false),
            AtomicImax => (SpvOp::AtomicSMax, false, false),
            AtomicImin => (SpvOp::AtomicSMin, false, false),
            AtomicUmax => (SpvOp::AtomicUMax, false, false),
            AtomicUmin => (SpvOp::AtomicUMin, false, false),
            ImmAtomicIadd => (SpvOp::AtomicIAdd, true, false),
            ImmAtomicAnd => (SpvOp::AtomicAnd, true, false),
            ImmAtomicOr => (SpvOp::AtomicOr, true, false),
            ImmAtomicXor => (SpvOp::AtomicXor, true, false),
            ImmAtomicExch => (SpvOp::AtomicExchange, true, false),
            ImmAtomicCmpExch => (SpvOp::AtomicCompareExchange, true, true),
            ImmAtomicImax => (SpvOp::AtomicSMax, true, false),
            ImmAtomicImin => (SpvOp::AtomicSMin, true, false),
            ImmAtomicUmax => (SpvOp::AtomicUMax, true, false),
            ImmAtomicUmin => (SpvOp::AtomicUMin, true, false),
            ImmAtomicAlloc | ImmAtomicConsume => {
                return Err(Error::unsupported(
                    inst.span,
                    format!("`{}`", inst.op.name()),
                ))
            }
        };
        let resource = if imm {
            inst.src().first().map(|s| s.reg)
        } else {
            inst.dst().first().map(|d| d.reg)
        }
        .ok_or_else(|| Error::internal(inst.span, "missing resource operand"))?;
        // Source positions: address, then [comparison,] value.
        let addr_i = usize::from(imm);
        let value_i = addr_i + 1 + usize::from(compare);
        let (place, ok, scope) = match resource {
            Reg::Uav { decl, element } => {
                let shape = self
                    .ir
                    .resources
                    .get(decl.index())
                    .ok_or_else(|| Error::internal(inst.span, "atomic on an undeclared UAV"))?
                    .shape;
                if let ResourceShape::Typed { .. } = shape {
                    let tb = self.texel_buffer(inst.span, decl, &element)?;
                    if tb.scalar == Scalar::F32 {
                        return Err(Error::invalid(inst.span, "atomic on a float typed UAV"));
                    }
                    let (coord, ok) = self.typed_address_checked(inst, addr_i, &tb)?;
                    (Place::Texel(tb, coord), ok, Scope::Device)
                } else {
                    let (place, ok) = self.word_place(inst, &resource, addr_i)?;
                    (place, ok, Scope::Device)
                }
            }
            Reg::Tgsm(_) => {
                let (place, ok) = self.word_place(inst, &resource, addr_i)?;
                (place, ok, Scope::Workgroup)
            }
            _ => {
                return Err(Error::invalid(
                    inst.span,
                    "atomic on something other than a u# or g#",
                ))
            }
        };
        let scalar = match place {
            Place::Texel(tb, _) => tb.scalar,
            Place::Words(..) => Scalar::U32,
        };
        let value = self.load_src(inst, value_i, 1, scalar)?.id;
        let comparator = if compare {
            Some(self.load_src(inst, value_i - 1, 1, scalar)?.id)
        } else {
            None
        };
        let ty = self.ty(scalar, 1);
        let scope = self.u32_const(scope as u32);
        let relaxed = self.u32_const(0);
        let body = move |e: &mut Self| -> Result<Id, Error> {
            let ptr = match place {
                Place::Words(target, loc) => e.word_ptr(&target, loc.base),
                Place::Texel(tb, coord) => e.texel_pointer(&tb, coord),
            };
            Ok(match comparator {
                Some(cmp) => {
                    e.m.emit(op, ty, &[ptr, scope, relaxed, relaxed, value, cmp])
                }
                None => e.m.emit(op, ty, &[ptr, scope, relaxed, value]),
            })
        };
        if !imm {
            return self.guarded(ok, |e| body(e).map(|_| ()));
        }
        let zero = self.splat_bits(scalar, 1, 0);
        let old = self.guarded_value(ok, ty, zero, body)?;
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        self.store_dst(
            inst,
            0,
            Value {
                id: old,
                scalar,
                n: 1,
            },
        )
    }

    /// Locates the word an atomic on a raw/structured buffer or `g#` works on, and whether it
    /// is in bounds.
    fn word_place(
        &mut self,
        inst: &Inst,
        resource: &Reg,
        addr_i: usize,
    ) -> Result<(Place, Id), Error> {
        let target = self.target(inst.span, resource)?;
        let stride = match target {
            Target::Buffer { stride, uav, .. }
            | Target::Texels { stride, uav, .. }
            | Target::Address { stride, uav, .. } => {
                if !uav {
                    return Err(Error::invalid(
                        inst.span,
                        "atomic on a shader resource view",
                    ));
                }
                stride
            }
            Target::Shared { stride, .. } => stride,
        };
        let loc = if stride == 0 {
            let offset = self.load_src(inst, addr_i, 1, Scalar::U32)?.id;
            self.locate(inst.span, &target, offset, None, [None; 2])?
        } else {
            let addr = self.load_src(inst, addr_i, 0b11, Scalar::U32)?;
            let index = self.extract(addr, 0).id;
            let offset = self.extract(addr, 1).id;
            self.locate(inst.span, &target, index, Some(offset), [None; 2])?
        };
        let (_, ok) = self.word_at(&loc, 0);
        Ok((Place::Words(target, loc), ok))
    }

    /// `imm_atomic_alloc dst, u#` and `imm_atomic_consume dst, u#` on the UAV's counter.
    pub(super) fn counter(&mut self, inst: &Inst) -> Result<(), Error> {
        let res = inst
            .src()
            .first()
            .map(|s| s.reg)
            .ok_or_else(|| Error::internal(inst.span, "missing resource operand"))?;
        let Reg::Uav { decl, element } = res else {
            return Err(Error::invalid(
                inst.span,
                "counter operation on something other than a u#",
            ));
        };
        let vars = self.resource_vars(inst.span, decl)?;
        let (Some(counter), Some(block)) = (vars.counter, vars.counter_block) else {
            return Err(Error::internal(
                inst.span,
                "counter operation on a UAV without a counter",
            ));
        };
        let storage = self.buffer_storage();
        let d = self.descriptor_element(
            inst.span,
            counter,
            vars.counter_array,
            &element,
            storage,
            block,
            DescriptorKind::StorageBuffer,
        )?;
        let u = self.ty(Scalar::U32, 1);
        let ptr_ty = self.m.type_pointer(storage, u);
        let zero = self.u32_const(0);
        let ptr = self.m.access_chain(ptr_ty, d.ptr, &[zero]);
        if d.nonuniform {
            self.non_uniform(ptr);
        }
        let scope = self.u32_const(Scope::Device as u32);
        let relaxed = self.u32_const(0);
        let result = if inst.op == Op::ImmAtomicAlloc {
            self.m
                .emit(SpvOp::AtomicIIncrement, u, &[ptr, scope, relaxed])
        } else {
            let old = self
                .m
                .emit(SpvOp::AtomicIDecrement, u, &[ptr, scope, relaxed]);
            let one = self.u32_const(1);
            self.m.i_sub(u, old, one)
        };
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        self.store_dst(
            inst,
            0,
            Value {
                id: result,
                scalar: Scalar::U32,
                n: 1,
            },
        )
    }
}
