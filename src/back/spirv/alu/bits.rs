//! Bit counts, bit scans, bit fields and `msad` (D3D11.3 functional spec §22.10, the
//! `(sm5 - asm)` pages).
//!
//! Contract (beyond the ALU rules in `alu.rs`):
//! - `firstbit_hi`/`firstbit_shi` count from the MSB (`31 - FindUMsb`/`31 - FindSMsb`), and
//!   `firstbit_lo` from the LSB (`FindILsb`); all give 0xffffffff when no bit qualifies.
//! - `ubfe`/`ibfe`/`bfi` take width and offset modulo 32; a field that runs past bit 31 ends
//!   there; width 0 extracts 0 and inserts nothing. They are computed with whole-vector shifts
//!   and masks (SPIR-V's `OpBitField*` takes scalar offsets and is undefined past bit 31), every
//!   shift amount in 0..=31; immediate widths and offsets fold into constants.
//! - `msad`: for each byte whose reference byte is nonzero, `|ref - src|`, summed onto the
//!   accumulator.

use spirv::{GlslStd450Op as G, Op as SpvOp};

use super::super::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{BitsOp, Inst};

const I: Scalar = Scalar::I32;
const U: Scalar = Scalar::U32;
const B: Scalar = Scalar::Bool;

impl Emitter<'_> {
    /// Emits a bit-manipulation instruction.
    pub(super) fn bits_alu(&mut self, inst: &Inst, op: BitsOp) -> Result<(), Error> {
        match op {
            BitsOp::Countbits => self.unary(inst, U, |e, x| e.op(SpvOp::BitCount, U, x.n, &[x.id])),
            BitsOp::Bfrev => self.unary(inst, U, |e, x| e.op(SpvOp::BitReverse, U, x.n, &[x.id])),
            BitsOp::FirstbitLo => self.unary(inst, U, |e, x| e.ext(G::FindILsb, U, x.n, &[x.id])),
            BitsOp::FirstbitHi => self.unary(inst, U, |e, x| e.msb_distance(G::FindUMsb, x)),
            BitsOp::FirstbitShi => self.unary(inst, I, |e, x| e.msb_distance(G::FindSMsb, x)),
            BitsOp::Ubfe => self.bit_extract(inst, false),
            BitsOp::Ibfe => self.bit_extract(inst, true),
            BitsOp::Bfi => self.bit_insert(inst),
            BitsOp::Msad => self.ternary(inst, I, |e, [r, s, acc]| e.msad(r, s, acc)),
        }
    }

    /// `31 - msb(x)`, or 0xffffffff when `msb` finds no bit (returns -1).
    fn msb_distance(&mut self, op: G, x: Value) -> Value {
        let n = x.n;
        let msb = self.ext(op, x.scalar, n, &[x.id]);
        let none_k = self.k(x.scalar, n, !0);
        let none = self.op(SpvOp::IEqual, B, n, &[msb.id, none_k]);
        let k31 = self.k(x.scalar, n, 31);
        let r = self.op(SpvOp::ISub, x.scalar, n, &[k31, msb.id]);
        self.select_const(none.id, !0, r)
    }

    /// `(1 << w) - 1` for the low-five-bit width source 0 (folded for immediates).
    fn width_mask(&mut self, inst: &Inst, mask: u8) -> Result<Value, Error> {
        if let Some(v) = self.imm_src(inst, 0, mask, |w| (1u32 << (w & 31)).wrapping_sub(1)) {
            return Ok(v);
        }
        let w = self.low5(inst, 0, mask)?;
        let one = self.k(U, w.n, 1);
        let bit = self.op(SpvOp::ShiftLeftLogical, U, w.n, &[one, w.id]);
        Ok(self.op(SpvOp::ISub, U, w.n, &[bit.id, one]))
    }

    /// `ubfe`/`ibfe dst, width, offset, value`.
    fn bit_extract(&mut self, inst: &Inst, signed: bool) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let v = if signed {
            self.ibfe(inst, mask)?
        } else {
            // (x >> o) & ((1 << w) - 1): a field past bit 31 only has zeros above it.
            let x = self.load_src(inst, 2, mask, U)?;
            let o = self.low5(inst, 1, mask)?;
            let shifted = self.op(SpvOp::ShiftRightLogical, U, x.n, &[x.id, o.id]);
            let m = self.width_mask(inst, mask)?;
            self.op(SpvOp::BitwiseAnd, U, x.n, &[shifted.id, m.id])
        };
        self.store_dst(inst, 0, v)
    }

    /// `ibfe`: `t = x >>a o` puts the field at bit 0; sign-extending it from its top bit is
    /// `(t << k) >>a k` with `k = max(32 - w, o)` (`k = o` when the field reaches bit 31, where
    /// `t` is already sign-extended); width 0 gives 0.
    fn ibfe(&mut self, inst: &Inst, mask: u8) -> Result<Value, Error> {
        let x = self.load_src(inst, 2, mask, I)?;
        let n = x.n;
        let o = self.low5(inst, 1, mask)?;
        let t = self.op(SpvOp::ShiftRightArithmetic, I, n, &[x.id, o.id]);
        let widths = Self::imm_values(inst, 0, mask);
        let offsets = Self::imm_values(inst, 1, mask);
        let nonzero_widths =
            matches!(widths, Some((w, _)) if w[..n as usize].iter().all(|w| w & 31 != 0));
        let w = match (widths, offsets) {
            (Some(_), Some(_)) if nonzero_widths => None,
            _ => Some(self.low5(inst, 0, mask)?),
        };
        let k = match (widths, offsets, w) {
            (Some((wv, _)), Some((off, _)), _) => {
                let mut k = [0u32; 4];
                for c in 0..n as usize {
                    let (wc, oc) = (wv[c] & 31, off[c] & 31);
                    k[c] = if wc == 0 { 0 } else { (32 - wc).max(oc) };
                }
                self.const_vec(&k, n)
            }
            (_, _, Some(w)) => {
                // (32 - w) & 31 == (-w) & 31: 0 instead of an out-of-range 32 for width 0.
                let neg = self.op(SpvOp::SNegate, U, n, &[w.id]);
                let k31 = self.k(U, n, 31);
                let up = self.op(SpvOp::BitwiseAnd, U, n, &[neg.id, k31]);
                self.ext(G::UMax, U, n, &[up.id, o.id])
            }
            _ => return Err(Error::internal(inst.span, "ibfe width not loaded")),
        };
        let l = self.op(SpvOp::ShiftLeftLogical, I, n, &[t.id, k.id]);
        let r = self.op(SpvOp::ShiftRightArithmetic, I, n, &[l.id, k.id]);
        match w {
            Some(w) if !nonzero_widths => {
                let k0 = self.k(U, n, 0);
                let zero = self.op(SpvOp::IEqual, B, n, &[w.id, k0]);
                Ok(self.select_const(zero.id, 0, r))
            }
            _ => Ok(r),
        }
    }

    /// `bfi dst, width, offset, insert, base`: with `m = ((1 << w) - 1) << o`,
    /// `((insert << o) & m) | (base & ~m)`.
    fn bit_insert(&mut self, inst: &Inst) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let ins = self.load_src(inst, 2, mask, U)?;
        let base = self.load_src(inst, 3, mask, U)?;
        let n = ins.n;
        let o = self.low5(inst, 1, mask)?;
        let (m, not_m) = match (
            Self::imm_values(inst, 0, mask),
            Self::imm_values(inst, 1, mask),
        ) {
            (Some((w, _)), Some((off, _))) => {
                let mut m = [0u32; 4];
                let mut not_m = [0u32; 4];
                for c in 0..n as usize {
                    m[c] = (1u32 << (w[c] & 31)).wrapping_sub(1) << (off[c] & 31);
                    not_m[c] = !m[c];
                }
                (self.const_vec(&m, n), self.const_vec(&not_m, n))
            }
            _ => {
                let wm = self.width_mask(inst, mask)?;
                let m = self.op(SpvOp::ShiftLeftLogical, U, n, &[wm.id, o.id]);
                let not_m = self.op(SpvOp::Not, U, n, &[m.id]);
                (m, not_m)
            }
        };
        let shifted = self.op(SpvOp::ShiftLeftLogical, U, n, &[ins.id, o.id]);
        let field = self.op(SpvOp::BitwiseAnd, U, n, &[shifted.id, m.id]);
        let kept = self.op(SpvOp::BitwiseAnd, U, n, &[base.id, not_m.id]);
        let v = self.op(SpvOp::BitwiseOr, U, n, &[field.id, kept.id]);
        self.store_dst(inst, 0, v)
    }

    /// `msad`: `acc + Σ_bytes (ref_byte != 0 ? |ref_byte - src_byte| : 0)`.
    fn msad(&mut self, r: Value, s: Value, acc: Value) -> Value {
        let n = r.n;
        let eight = self.k(I, 1, 8);
        let zero = self.k(I, n, 0);
        let mut acc = acc;
        for byte in 0..4u32 {
            let at = self.k(I, 1, 8 * byte);
            let rb = self.op(SpvOp::BitFieldUExtract, I, n, &[r.id, at, eight]);
            let sb = self.op(SpvOp::BitFieldUExtract, I, n, &[s.id, at, eight]);
            let diff = self.op(SpvOp::ISub, I, n, &[rb.id, sb.id]);
            let abs = self.ext(G::SAbs, I, n, &[diff.id]);
            let used = self.op(SpvOp::INotEqual, B, n, &[rb.id, zero]);
            let term = self.op(SpvOp::Select, I, n, &[used.id, abs.id, zero]);
            acc = self.op(SpvOp::IAdd, I, n, &[acc.id, term.id]);
        }
        acc
    }
}
