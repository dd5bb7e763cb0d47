//! 32-bit integer arithmetic, logic and comparisons (D3D11.3 functional spec §22.10, the
//! `(sm4 - asm)`/`(sm5 - asm)` pages).
//!
//! Contract (beyond the ALU rules in `alu.rs`): arithmetic wraps modulo 2^32; a `-` source
//! modifier is an integer negate; shift amounts use their low five bits; `udiv` by 0 gives
//! 0xffffffff for both quotient and remainder; `imul`/`umul` write the high half to the first
//! destination and the low half to the second; `uaddc`/`usubb` write the carry/borrow (0 or 1)
//! to the second destination; comparisons write 0xffffffff/0.

use spirv::{GlslStd450Op as G, Op as SpvOp};

use super::super::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{Inst, IntegerOp};
use crate::spv::Id;

const I: Scalar = Scalar::I32;
const U: Scalar = Scalar::U32;

impl Emitter<'_> {
    /// Emits an integer instruction.
    pub(super) fn int_alu(&mut self, inst: &Inst, op: IntegerOp) -> Result<(), Error> {
        match op {
            IntegerOp::Iadd => self.binary_op(inst, I, SpvOp::IAdd),
            IntegerOp::Ineg => self.unary(inst, I, |e, x| e.op(SpvOp::SNegate, I, x.n, &[x.id])),
            IntegerOp::Imad => self.ternary(inst, I, |e, [a, b, c]| e.mad(I, a, b, c)),
            IntegerOp::Umad => self.ternary(inst, U, |e, [a, b, c]| e.mad(U, a, b, c)),
            IntegerOp::Imul => self.mul_extended(inst, true),
            IntegerOp::Umul => self.mul_extended(inst, false),
            IntegerOp::Udiv => self.udiv(inst),
            IntegerOp::Ishl => self.shift(inst, U, SpvOp::ShiftLeftLogical),
            IntegerOp::Ishr => self.shift(inst, I, SpvOp::ShiftRightArithmetic),
            IntegerOp::Ushr => self.shift(inst, U, SpvOp::ShiftRightLogical),
            IntegerOp::And => self.binary_op(inst, U, SpvOp::BitwiseAnd),
            IntegerOp::Or => self.binary_op(inst, U, SpvOp::BitwiseOr),
            IntegerOp::Xor => self.binary_op(inst, U, SpvOp::BitwiseXor),
            IntegerOp::Not => self.unary(inst, U, |e, x| e.op(SpvOp::Not, U, x.n, &[x.id])),
            IntegerOp::Imin => self.binary_ext(inst, I, G::SMin),
            IntegerOp::Imax => self.binary_ext(inst, I, G::SMax),
            IntegerOp::Umin => self.binary_ext(inst, U, G::UMin),
            IntegerOp::Umax => self.binary_ext(inst, U, G::UMax),
            IntegerOp::Ieq => self.compare_op(inst, I, SpvOp::IEqual),
            IntegerOp::Ine => self.compare_op(inst, I, SpvOp::INotEqual),
            IntegerOp::Ilt => self.compare_op(inst, I, SpvOp::SLessThan),
            IntegerOp::Ige => self.compare_op(inst, I, SpvOp::SGreaterThanEqual),
            IntegerOp::Ult => self.compare_op(inst, U, SpvOp::ULessThan),
            IntegerOp::Uge => self.compare_op(inst, U, SpvOp::UGreaterThanEqual),
            IntegerOp::Uaddc => self.carry(inst, false),
            IntegerOp::Usubb => self.carry(inst, true),
        }
    }

    /// `a * b + c`, low 32 bits.
    fn mad(&mut self, ty: Scalar, a: Value, b: Value, c: Value) -> Value {
        let p = self.op(SpvOp::IMul, ty, a.n, &[a.id, b.id]);
        self.op(SpvOp::IAdd, ty, a.n, &[p.id, c.id])
    }

    /// A shift whose amount (source 1) uses its low five bits.
    fn shift(&mut self, inst: &Inst, ty: Scalar, op: SpvOp) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let a = self.load_src(inst, 0, mask, ty)?;
        let s = self.low5(inst, 1, mask)?;
        let v = self.op(op, ty, a.n, &[a.id, s.id]);
        self.store_dst(inst, 0, v)
    }

    /// `imul`/`umul hi, lo, a, b`: the 64-bit product's high word (OpS/UMulExtended) and low
    /// word (OpIMul, or the same extended multiply when both masks agree).
    fn mul_extended(&mut self, inst: &Inst, signed: bool) -> Result<(), Error> {
        let (ty, ext) = if signed {
            (I, SpvOp::SMulExtended)
        } else {
            (U, SpvOp::UMulExtended)
        };
        let (m_hi, m_lo) = (Self::dst_mask(inst, 0), Self::dst_mask(inst, 1));
        let mut out = [None, None];
        if m_hi != 0 {
            let [a, b] = self.load_srcs(inst, m_hi, ty)?;
            let st = self.pair_struct(ty, a.n);
            let r = self.m.emit(ext, st, &[a.id, b.id]);
            out[0] = Some(self.member(r, 1, ty, a.n));
            if m_lo == m_hi {
                out[1] = Some(self.member(r, 0, ty, a.n));
            }
        }
        if m_lo != 0 && out[1].is_none() {
            let [a, b] = self.load_srcs(inst, m_lo, ty)?;
            out[1] = Some(self.op(SpvOp::IMul, ty, a.n, &[a.id, b.id]));
        }
        self.store_pair(inst, out)
    }

    /// `udiv q, r, a, b`: unsigned quotient and remainder; both 0xffffffff when `b == 0`
    /// (the division itself runs on a divisor of 1 then, so it is never undefined).
    fn udiv(&mut self, inst: &Inst) -> Result<(), Error> {
        let mut shared: Option<(u8, Value, Id, Value)> = None;
        let mut out = [None, None];
        for (d, slot) in out.iter_mut().enumerate() {
            let mask = Self::dst_mask(inst, d);
            if mask == 0 {
                continue;
            }
            let (a, zero, safe) = match shared {
                Some((m, a, zero, safe)) if m == mask => (a, zero, safe),
                _ => {
                    let [a, b] = self.load_srcs(inst, mask, U)?;
                    let k0 = self.k(U, a.n, 0);
                    let zero = self.op(SpvOp::IEqual, Scalar::Bool, a.n, &[b.id, k0]).id;
                    let safe = self.select_const(zero, 1, b);
                    shared = Some((mask, a, zero, safe));
                    (a, zero, safe)
                }
            };
            let op = if d == 0 { SpvOp::UDiv } else { SpvOp::UMod };
            let v = self.op(op, U, a.n, &[a.id, safe.id]);
            *slot = Some(self.select_const(zero, !0, v));
        }
        self.store_pair(inst, out)
    }

    /// `uaddc sum, carry, a, b` / `usubb diff, borrow, a, b`: the wrapped result, and 1 where
    /// the addition carried out (`a + b < a`) or the subtraction borrowed (`a < b`), else 0.
    fn carry(&mut self, inst: &Inst, subtract: bool) -> Result<(), Error> {
        let mut shared: Option<(u8, Value, Value, Value)> = None;
        let mut out = [None, None];
        for (d, slot) in out.iter_mut().enumerate() {
            let mask = Self::dst_mask(inst, d);
            if mask == 0 {
                continue;
            }
            let (a, b, r) = match shared {
                Some((m, a, b, r)) if m == mask => (a, b, r),
                _ => {
                    let [a, b] = self.load_srcs(inst, mask, U)?;
                    let op = if subtract { SpvOp::ISub } else { SpvOp::IAdd };
                    let r = self.op(op, U, a.n, &[a.id, b.id]);
                    shared = Some((mask, a, b, r));
                    (a, b, r)
                }
            };
            *slot = Some(if d == 0 {
                r
            } else {
                let c = if subtract {
                    self.op(SpvOp::ULessThan, Scalar::Bool, a.n, &[a.id, b.id])
                } else {
                    self.op(SpvOp::ULessThan, Scalar::Bool, a.n, &[r.id, a.id])
                };
                let one = self.k(U, a.n, 1);
                let zero = self.k(U, a.n, 0);
                self.op(SpvOp::Select, U, a.n, &[c.id, one, zero])
            });
        }
        self.store_pair(inst, out)
    }
}
