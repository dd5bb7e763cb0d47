//! Register indices as the emitter evaluates them: a relative index's register read and
//! offset, the clamp into a register file's range with the in-range condition (D3D10+: a read
//! out of range gives zeros), and pointers into indexable temps.
//!
//! Contract: an index in range addresses the element it names; one out of range is clamped to
//! a valid element (never an out-of-bounds access) and reported by the condition, which the
//! caller applies (`zero_if_out_of_range`).

use spirv::GlslStd450Op;

use super::context::{Emitter, Scalar};
use crate::back::spirv::Error;
use crate::ir::{self, Index, Reg, RelFile};
use crate::spv::Id;

impl Emitter<'_> {
    /// Evaluates an index to a `u32` id.
    pub fn index_value(&mut self, span: u32, index: &Index) -> Result<Id, Error> {
        let Some(rel) = index.rel() else {
            return Ok(self.u32_const(index.imm));
        };
        let reg = match rel.file {
            RelFile::Temp => Reg::Temp(u32::from(rel.register)),
            RelFile::IndexableTemp => Reg::IndexableTemp {
                array: ir::IndexableId::new(u32::from(rel.register)),
                index: Index::imm(u32::from(rel.element)),
            },
            RelFile::Input => Reg::Input(Index::imm(u32::from(rel.register))),
        };
        let v = self.read_components(span, &reg, &[rel.component & 3], Scalar::U32)?;
        if index.imm == 0 {
            return Ok(v.id);
        }
        let u = self.ty(Scalar::U32, 1);
        let imm = self.u32_const(index.imm);
        Ok(self.m.i_add(u, v.id, imm))
    }

    /// An index clamped into `0..len`, and (for dynamic indices) a bool that says whether the
    /// original was in range.
    pub fn bounded_index(
        &mut self,
        span: u32,
        index: &Index,
        len: u32,
    ) -> Result<(Id, Option<Id>), Error> {
        if !index.is_relative() {
            if index.imm >= len {
                // A constant index past the end reads zeros (D3D10+ out-of-range rule).
                let last = self.u32_const(len.saturating_sub(1));
                let f = self.m.constant_bool(false);
                return Ok((last, Some(f)));
            }
            return Ok((self.u32_const(index.imm), None));
        }
        let idx = self.index_value(span, index)?;
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let len_c = self.u32_const(len);
        let ok = self.m.u_less_than(b, idx, len_c);
        let last = self.u32_const(len.saturating_sub(1));
        let clamped = self.glsl(u, GlslStd450Op::UMin, &[idx, last]);
        Ok((clamped, Some(ok)))
    }

    pub(crate) fn zero_if_out_of_range(&mut self, v: Id, in_range: Option<Id>) -> Id {
        let Some(ok) = in_range else { return v };
        let uvec4 = self.ty(Scalar::U32, 4);
        let bvec4 = self.ty(Scalar::Bool, 4);
        let zero = self.splat_bits(Scalar::U32, 4, 0);
        // Before SPIR-V 1.4 a vector OpSelect needs a vector condition.
        let ok4 = self.m.composite_construct(bvec4, &[ok, ok, ok, ok]);
        self.m.select(uvec4, ok4, v, zero)
    }

    /// Pointer to element `index` of indexable temp `array` (an out-of-range index points at
    /// the spare element past the end) and the in-range condition.
    pub(super) fn indexable_ptr(
        &mut self,
        span: u32,
        array: ir::IndexableId,
        index: &Index,
    ) -> Result<(Id, Option<Id>), Error> {
        let decl = self
            .ir
            .indexable_temps
            .get(array.index())
            .copied()
            .ok_or_else(|| Error::internal(span, "undeclared indexable temp"))?;
        let var = self
            .regs
            .indexable(array)
            .ok_or_else(|| Error::internal(span, "undeclared indexable temp"))?;
        let (idx, ok) = if !index.is_relative() && index.imm < decl.len {
            (self.u32_const(index.imm), None)
        } else {
            let raw = self.index_value(span, index)?;
            let u = self.ty(Scalar::U32, 1);
            let b = self.ty(Scalar::Bool, 1);
            let len = self.u32_const(decl.len);
            let ok = self.m.u_less_than(b, raw, len);
            (self.glsl(u, GlslStd450Op::UMin, &[raw, len]), Some(ok))
        };
        let uvec4 = self.ty(Scalar::U32, 4);
        let ptr_ty = self.m.type_pointer(var.storage, uvec4);
        Ok((self.m.access_chain(ptr_ty, var.id, &[idx]), ok))
    }
}
