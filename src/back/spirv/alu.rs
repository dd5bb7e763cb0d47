//! Arithmetic, logic, comparison, conversion and move instructions with D3D's numeric rules
//! (IEEE infinities, NaNs and signed zeros, fp32 denormals flushed; D3D11.3 functional spec
//! §22.10 and the `(sm4 - asm)`/`(sm5 - asm)` instruction pages).
//!
//! Contract:
//! - Every operation of the move, float, integer, bit, double and legacy families is emitted or
//!   answered with an error; none is skipped. The dispatch matches every [`OpKind`] and, in
//!   each family, every operation (no catch-all), so an operation added to the IR's op table
//!   does not compile until it has its arm here.
//! - An operation reads each source for exactly the components its destination writes (one
//!   vector per source, through the swizzle, as the type it computes in, with the source modifier
//!   applied by [`Emitter::load_src`]) and computes with one SPIR-V instruction per step over the
//!   whole vector. A `null` destination (or an empty mask) computes nothing.
//! - Two-destination operations (`sincos`, `udiv`, `imul`, `umul`, `uaddc`, `usubb`, `swapc`)
//!   compute each destination for its own mask, and compute both before storing either (a
//!   destination may also be a source).
//! - Float results are decorated `NoContraction` when the instruction is `[precise]`; `_sat`
//!   is applied by [`Emitter::store_dst`].
//! - Moves (`mov`, `movc`, `swapc`, `dmov`) copy bits unchanged unless a modifier or `_sat`
//!   makes them float operations.
//!
//! Files: `alu/float.rs` (32-bit float), `alu/int.rs` (integer arithmetic, logic, compares),
//! `alu/bits.rs` (bit fields, bit scans, `msad`), `alu/double.rs` (64-bit float),
//! `alu/legacy.rs` and `alu/legacy_vec.rs` (Direct3D 9's float rules), `alu/tests.rs` (every
//! family through `spirv-val`).

mod bits;
mod double;
mod float;
mod int;
mod legacy;
#[cfg(test)]
mod legacy_tests;
mod legacy_vec;
#[cfg(test)]
mod tests;

use spirv::{GlslStd450Op, Op as SpvOp};

use super::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{Inst, Modifier, MoveOp, OpKind, Reg};
use crate::spv::Id;

impl Emitter<'_> {
    /// Emits one ALU instruction (an operation of the move, float, integer, bit or double
    /// family).
    pub fn alu(&mut self, inst: &Inst) -> Result<(), Error> {
        // Every family, and every operation of the ALU families, has its arm (no catch-all):
        // an operation added to the table fails to compile until it is emitted.
        match inst.op.kind() {
            OpKind::Move(op) => match op {
                MoveOp::Mov => self.mov(inst),
                MoveOp::Movc => self.movc(inst),
                MoveOp::Swapc => self.swapc(inst),
            },
            OpKind::Float(op) => self.float_alu(inst, op),
            OpKind::Integer(op) => self.int_alu(inst, op),
            OpKind::Bits(op) => self.bits_alu(inst, op),
            OpKind::Double(op) => self.double_alu(inst, op),
            OpKind::Legacy(op) => self.legacy_alu(inst, op),
            OpKind::Derivative(_)
            | OpKind::ControlFlow(_)
            | OpKind::Discard(_)
            | OpKind::Buffer(_)
            | OpKind::Atomic(_)
            | OpKind::Sync(_)
            | OpKind::TextureLoad(_)
            | OpKind::Sample(_)
            | OpKind::Gather(_)
            | OpKind::Query(_)
            | OpKind::Interpolation(_)
            | OpKind::Sparse(_)
            | OpKind::Geometry(_) => Err(Self::not_arithmetic(inst)),
        }
    }

    /// The error for an operation the ALU does not emit.
    fn not_arithmetic(inst: &Inst) -> Error {
        Error::internal(
            inst.span,
            format!("`{}` is not an arithmetic instruction", inst.op.name()),
        )
    }

    // ---- Moves ----

    /// The type a move computes in: bits unchanged, unless a source modifier or `_sat` makes it
    /// a float operation (fxc's `mov r0, -r1` is a float negate).
    fn move_type(inst: &Inst, sources: std::ops::Range<usize>) -> Scalar {
        let modified = inst
            .src()
            .get(sources)
            .is_some_and(|s| s.iter().any(|s| s.modifier != Modifier::None));
        if modified || inst.flags.saturate {
            Scalar::F32
        } else {
            Scalar::U32
        }
    }

    fn mov(&mut self, inst: &Inst) -> Result<(), Error> {
        let ty = Self::move_type(inst, 0..1);
        self.unary(inst, ty, |_, v| v)
    }

    /// `movc dst, cond, a, b`: `cond != 0 ? a : b` per component.
    fn movc(&mut self, inst: &Inst) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let ty = Self::move_type(inst, 1..3);
        let cond = self.load_src(inst, 0, mask, Scalar::U32)?;
        let cond = self.nonzero(cond);
        let a = self.load_src(inst, 1, mask, ty)?;
        let b = self.load_src(inst, 2, mask, ty)?;
        let v = self.select(cond, a, b);
        self.store_dst(inst, 0, v)
    }

    /// `swapc d0, d1, cond, a, b`: `d0 = cond ? b : a`, `d1 = cond ? a : b` per component.
    fn swapc(&mut self, inst: &Inst) -> Result<(), Error> {
        let ty = Self::move_type(inst, 1..3);
        let mut out = [None, None];
        for (d, slot) in out.iter_mut().enumerate() {
            let mask = Self::dst_mask(inst, d);
            if mask == 0 {
                continue;
            }
            let cond = self.load_src(inst, 0, mask, Scalar::U32)?;
            let cond = self.nonzero(cond);
            let a = self.load_src(inst, 1, mask, ty)?;
            let b = self.load_src(inst, 2, mask, ty)?;
            *slot = Some(if d == 0 {
                self.select(cond, b, a)
            } else {
                self.select(cond, a, b)
            });
        }
        self.store_pair(inst, out)
    }

    // ---- Shared helpers of the ALU files ----

    /// `op` (a SPIR-V value instruction whose operands are all ids) with `n` components of
    /// `scalar` as its result type.
    fn op(&mut self, op: SpvOp, scalar: Scalar, n: u8, args: &[Id]) -> Value {
        let ty = self.ty(scalar, n);
        Value {
            id: self.m.emit(op, ty, args),
            scalar,
            n,
        }
    }

    /// A float `op` decorated `NoContraction` when the instruction is `[precise]`.
    fn fop(&mut self, inst: &Inst, op: SpvOp, scalar: Scalar, n: u8, args: &[Id]) -> Value {
        let v = self.op(op, scalar, n, args);
        self.precise(inst, v.id);
        v
    }

    /// A GLSL.std.450 instruction with `n` components of `scalar` as its result type.
    fn ext(&mut self, op: GlslStd450Op, scalar: Scalar, n: u8, args: &[Id]) -> Value {
        let ty = self.ty(scalar, n);
        Value {
            id: self.glsl(ty, op, args),
            scalar,
            n,
        }
    }

    /// [`Emitter::ext`] decorated `NoContraction` when the instruction is `[precise]`.
    fn fext(&mut self, inst: &Inst, op: GlslStd450Op, scalar: Scalar, n: u8, args: &[Id]) -> Value {
        let v = self.ext(op, scalar, n, args);
        self.precise(inst, v.id);
        v
    }

    /// A 32-bit constant of `n` components of `scalar` with the bit pattern `bits`.
    fn k(&mut self, scalar: Scalar, n: u8, bits: u32) -> Id {
        self.splat_bits(scalar, n, bits)
    }

    /// A `double` constant of `n` components.
    fn k64(&mut self, n: u8, value: f64) -> Id {
        let ty = self.ty(Scalar::F64, 1);
        let one = self.m.constant_bits64(ty, value.to_bits());
        self.splat(Scalar::F64, n, one)
    }

    /// A comparison `op` of `a` and `b` as booleans.
    fn compare(&mut self, op: SpvOp, a: Value, b: Value) -> Id {
        self.op(op, Scalar::Bool, a.n, &[a.id, b.id]).id
    }

    /// `v != 0` per component (`v` is 32-bit).
    fn nonzero(&mut self, v: Value) -> Id {
        let zero = self.k(v.scalar, v.n, 0);
        self.op(SpvOp::INotEqual, Scalar::Bool, v.n, &[v.id, zero])
            .id
    }

    /// `cond ? a : b` per component.
    fn select(&mut self, cond: Id, a: Value, b: Value) -> Value {
        self.op(SpvOp::Select, a.scalar, a.n, &[cond, a.id, b.id])
    }

    /// `cond ? 0xffffffff : 0` per component: D3D's boolean result.
    fn bool_mask(&mut self, cond: Id, n: u8) -> Value {
        let ones = self.k(Scalar::U32, n, !0);
        let zero = self.k(Scalar::U32, n, 0);
        self.op(SpvOp::Select, Scalar::U32, n, &[cond, ones, zero])
    }

    /// `cond ? bits : v` per component, with `bits` a constant of `v`'s type.
    fn select_const(&mut self, cond: Id, bits: u32, v: Value) -> Value {
        let c = self.k(v.scalar, v.n, bits);
        self.op(SpvOp::Select, v.scalar, v.n, &[cond, c, v.id])
    }

    /// Sources `0..N` of `inst` for destination mask `mask`, as `ty`.
    fn load_srcs<const N: usize>(
        &mut self,
        inst: &Inst,
        mask: u8,
        ty: Scalar,
    ) -> Result<[Value; N], Error> {
        let placeholder = self.u32_const(0);
        let mut out = [Value {
            id: placeholder,
            scalar: ty,
            n: 1,
        }; N];
        for (i, v) in out.iter_mut().enumerate() {
            *v = self.load_src(inst, i, mask, ty)?;
        }
        Ok(out)
    }

    /// The components source `i` reads for `mask` (in mask order) when it is an immediate
    /// without modifier: `(values, count)`.
    pub(super) fn imm_values(inst: &Inst, i: usize, mask: u8) -> Option<([u32; 4], u8)> {
        let src = inst.src().get(i)?;
        let Reg::Imm32(v) = src.reg else { return None };
        if src.modifier != Modifier::None {
            return None;
        }
        let mut out = [0u32; 4];
        let mut n = 0u8;
        for c in Self::mask_components(mask) {
            out[n as usize] = v[(src.swizzle[c as usize] & 3) as usize];
            n += 1;
        }
        (n > 0).then_some((out, n))
    }

    /// A `u32` constant of the first `n` of `values` (a scalar when `n == 1`).
    fn const_vec(&mut self, values: &[u32; 4], n: u8) -> Value {
        let mut parts = [self.u32_const(values[0]); 4];
        for k in 1..n as usize {
            parts[k] = self.u32_const(values[k]);
        }
        let id = if n <= 1 {
            parts[0]
        } else {
            let ty = self.ty(Scalar::U32, n);
            self.m.constant_composite(ty, &parts[..n as usize])
        };
        Value {
            id,
            scalar: Scalar::U32,
            n: n.max(1),
        }
    }

    /// Source `i` for `mask` as `u32` with `f` applied to each component, folded into a
    /// constant, when the source is an immediate without modifier (else `None`).
    fn imm_src(
        &mut self,
        inst: &Inst,
        i: usize,
        mask: u8,
        f: impl Fn(u32) -> u32,
    ) -> Option<Value> {
        let (mut v, n) = Self::imm_values(inst, i, mask)?;
        for x in &mut v[..n as usize] {
            *x = f(*x);
        }
        Some(self.const_vec(&v, n))
    }

    /// Source `i` for `mask` as `u32` with its low five bits kept (shift amounts, bit-field
    /// widths and offsets): folded for immediates, else one `& 31`.
    fn low5(&mut self, inst: &Inst, i: usize, mask: u8) -> Result<Value, Error> {
        if let Some(v) = self.imm_src(inst, i, mask, |x| x & 31) {
            return Ok(v);
        }
        let v = self.load_src(inst, i, mask, Scalar::U32)?;
        let k31 = self.k(Scalar::U32, v.n, 31);
        Ok(self.op(SpvOp::BitwiseAnd, Scalar::U32, v.n, &[v.id, k31]))
    }

    /// One source, one destination: `dst = f(src0)`, computed in `ty`.
    fn unary(
        &mut self,
        inst: &Inst,
        ty: Scalar,
        f: impl FnOnce(&mut Self, Value) -> Value,
    ) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let a = self.load_src(inst, 0, mask, ty)?;
        let v = f(self, a);
        self.store_dst(inst, 0, v)
    }

    /// Two sources, one destination: `dst = f(src0, src1)`, computed in `ty`.
    fn binary(
        &mut self,
        inst: &Inst,
        ty: Scalar,
        f: impl FnOnce(&mut Self, Value, Value) -> Value,
    ) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let [a, b] = self.load_srcs(inst, mask, ty)?;
        let v = f(self, a, b);
        self.store_dst(inst, 0, v)
    }

    /// Three sources, one destination: `dst = f(src0, src1, src2)`, computed in `ty`.
    fn ternary(
        &mut self,
        inst: &Inst,
        ty: Scalar,
        f: impl FnOnce(&mut Self, [Value; 3]) -> Value,
    ) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let srcs = self.load_srcs(inst, mask, ty)?;
        let v = f(self, srcs);
        self.store_dst(inst, 0, v)
    }

    /// A binary SPIR-V instruction over whole vectors.
    fn binary_op(&mut self, inst: &Inst, ty: Scalar, op: SpvOp) -> Result<(), Error> {
        let float = matches!(ty, Scalar::F32 | Scalar::F64);
        self.binary(inst, ty, |e, a, b| {
            if float {
                e.fop(inst, op, ty, a.n, &[a.id, b.id])
            } else {
                e.op(op, ty, a.n, &[a.id, b.id])
            }
        })
    }

    /// A binary GLSL.std.450 instruction over whole vectors.
    fn binary_ext(&mut self, inst: &Inst, ty: Scalar, op: GlslStd450Op) -> Result<(), Error> {
        self.binary(inst, ty, |e, a, b| e.fext(inst, op, ty, a.n, &[a.id, b.id]))
    }

    /// A comparison of two sources read as `ty`, written as D3D booleans.
    fn compare_op(&mut self, inst: &Inst, ty: Scalar, op: SpvOp) -> Result<(), Error> {
        self.binary(inst, ty, |e, a, b| {
            let c = e.compare(op, a, b);
            e.bool_mask(c, a.n)
        })
    }

    /// Stores the values of a two-destination instruction, after both were computed.
    fn store_pair(&mut self, inst: &Inst, out: [Option<Value>; 2]) -> Result<(), Error> {
        for (d, v) in out.into_iter().enumerate() {
            if let Some(v) = v {
                self.store_dst(inst, d, v)?;
            }
        }
        Ok(())
    }

    /// A two-member struct type of `n` components of `scalar` (result of the extended
    /// multiplies).
    fn pair_struct(&mut self, scalar: Scalar, n: u8) -> Id {
        let t = self.ty(scalar, n);
        self.m.type_struct(&[t, t])
    }

    /// Member `i` of a two-member struct value.
    fn member(&mut self, st: Id, i: u32, scalar: Scalar, n: u8) -> Value {
        let ty = self.ty(scalar, n);
        Value {
            id: self.m.composite_extract(ty, st, &[i]),
            scalar,
            n,
        }
    }
}
