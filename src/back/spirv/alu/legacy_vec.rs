//! The Direct3D 9 operations whose destination components differ: `nrm`, `lit`, `dst` and the
//! vs_1_x `expp`/`logp` (the rules in `docs/d3d9.md`, "Float rules"; strict and fast variants
//! as in `legacy.rs`).
//!
//! Contract: each computes only what its destination mask writes, reads only the source
//! components those need, and stores one value per written component (`_sat` applied by
//! [`Emitter::store_dst`]).

use spirv::{GlslStd450Op as G, Op as SpvOp};

use super::super::context::{Emitter, Scalar, Value};
use super::legacy::{Known, F, MINUS_FLT_MAX, ONE};
use crate::back::spirv::Error;
use crate::ir::Inst;
use crate::spv::Id;

/// `lit`'s power limit, `127.9961f` (D3D9 `lit` reference: the power fits 8.8 fixed point).
const LIT_MAX_POWER: u32 = 0x42ff_fe01;
/// `-LIT_MAX_POWER`.
const LIT_MIN_POWER: u32 = 0xc2ff_fe01;

impl Emitter<'_> {
    /// `nrm`: every written component of the source scaled by `rsq(x·x + y·y + z·z)` (the
    /// source's first three swizzled components). Strict: the scale is a legacy multiply,
    /// so `nrm(0) = 0 × inf = 0`; fast: the scale is clamped to `FLT_MAX`, `0 × FLT_MAX = 0`.
    pub(super) fn legacy_nrm(&mut self, inst: &Inst) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let xyz = self.load_src(inst, 0, 0x7, F)?;
        // `x × x` is zero only when `x` is: the legacy multiply changes nothing here.
        let dot = if inst.flags.precise == 0 {
            self.op(SpvOp::Dot, F, 1, &[xyz.id, xyz.id])
        } else {
            let sq = self.fop(inst, SpvOp::FMul, F, 3, &[xyz.id, xyz.id]);
            let mut acc = self.extract(sq, 0);
            for c in 1..3 {
                let t = self.extract(sq, c);
                acc = self.fop(inst, SpvOp::FAdd, F, 1, &[acc.id, t.id]);
            }
            acc
        };
        let scale = self.rsq_abs(inst, dot);
        let v = self.load_src(inst, 0, mask, F)?;
        let scale = self.broadcast(scale, v.n);
        let out = self.legacy_mul(inst, v, scale, [Known::Unknown, Known::Unknown]);
        self.store_dst(inst, 0, out)
    }

    /// `lit` (D3D9 `lit - vs` reference): from `(x, y, _, w)`, `(1, x > 0 ? x : 0,
    /// x > 0 && y > 0 ? pow(y, p) : 0, 1)` with the power `p = w` limited to ±127.9961
    /// (a NaN `w` passes through, as in the reference code).
    pub(super) fn legacy_lit(&mut self, inst: &Inst) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let want_y = mask & 0x2 != 0;
        let want_z = mask & 0x4 != 0;
        let mut y_out = None;
        let mut z_out = None;
        if want_y || want_z {
            let zero = self.k(F, 1, 0);
            let x = self.load_src(inst, 0, 0x1, F)?;
            let x_pos = self
                .op(SpvOp::FOrdGreaterThan, Scalar::Bool, 1, &[x.id, zero])
                .id;
            if want_y {
                y_out = Some(self.op(SpvOp::Select, F, 1, &[x_pos, x.id, zero]).id);
            }
            if want_z {
                let yw = self.load_src(inst, 0, 0xa, F)?;
                let y = self.extract(yw, 0);
                let w = self.extract(yw, 1);
                let y_pos = self
                    .op(SpvOp::FOrdGreaterThan, Scalar::Bool, 1, &[y.id, zero])
                    .id;
                let lo = self.k(F, 1, LIT_MIN_POWER);
                let hi = self.k(F, 1, LIT_MAX_POWER);
                let below = self
                    .op(SpvOp::FOrdLessThan, Scalar::Bool, 1, &[w.id, lo])
                    .id;
                let above = self
                    .op(SpvOp::FOrdGreaterThan, Scalar::Bool, 1, &[w.id, hi])
                    .id;
                let p = self.op(SpvOp::Select, F, 1, &[above, hi, w.id]);
                let p = self.op(SpvOp::Select, F, 1, &[below, lo, p.id]);
                // `y > 0` wherever the power is used: `log2 y` needs no `|y|` nor zero case.
                let log = self.fext(inst, G::Log2, F, 1, &[y.id]);
                let pow = self.legacy_pow(inst, log, p, [Known::Unknown, Known::Unknown]);
                let both = self
                    .op(SpvOp::LogicalAnd, Scalar::Bool, 1, &[x_pos, y_pos])
                    .id;
                z_out = Some(self.op(SpvOp::Select, F, 1, &[both, pow.id, zero]).id);
            }
        }
        let one = self.k(F, 1, ONE);
        let parts = [Some(one), y_out, z_out, Some(one)];
        self.store_parts(inst, mask, parts)
    }

    /// `dst`: `(1, a.y × b.y, a.z, b.w)` with the legacy multiply.
    pub(super) fn legacy_dst(&mut self, inst: &Inst) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let mut parts = [None; 4];
        parts[0] = Some(self.k(F, 1, ONE));
        if mask & 0x2 != 0 {
            let known = [
                Self::known_nonzero(inst, 0, 0x2),
                Self::known_nonzero(inst, 1, 0x2),
            ];
            let ay = self.load_src(inst, 0, 0x2, F)?;
            let by = self.load_src(inst, 1, 0x2, F)?;
            parts[1] = Some(self.legacy_mul(inst, ay, by, known).id);
        }
        if mask & 0x4 != 0 {
            parts[2] = Some(self.load_src(inst, 0, 0x4, F)?.id);
        }
        if mask & 0x8 != 0 {
            parts[3] = Some(self.load_src(inst, 1, 0x8, F)?.id);
        }
        self.store_parts(inst, mask, parts)
    }

    /// vs_1_x `expp` of the scalar `v` (the first swizzled source component):
    /// `(2^floor(v), v − floor(v), 2^v, 1)` (full precision; fast: the powers clamped to
    /// `FLT_MAX`).
    pub(super) fn legacy_expp_sm1(&mut self, inst: &Inst) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let mut parts = [None; 4];
        if mask & 0x7 != 0 {
            let v = self.load_src(inst, 0, 0x1, F)?;
            if mask & 0x3 != 0 {
                let floor = self.fext(inst, G::Floor, F, 1, &[v.id]);
                if mask & 0x1 != 0 {
                    parts[0] = Some(self.legacy_exp2(inst, floor).id);
                }
                if mask & 0x2 != 0 {
                    parts[1] = Some(self.fop(inst, SpvOp::FSub, F, 1, &[v.id, floor.id]).id);
                }
            }
            if mask & 0x4 != 0 {
                parts[2] = Some(self.legacy_exp2(inst, v).id);
            }
        }
        parts[3] = Some(self.k(F, 1, ONE));
        self.store_parts(inst, mask, parts)
    }

    /// vs_1_x `logp` of the scalar `v` (the first swizzled source component), from the bits
    /// of `|v|` (DirectX 8 `logp` reference): `(exponent − 127, mantissa with exponent 0 (in
    /// [1, 2)), log2|v|, 1)`; `v = 0` gives `(-FLT_MAX, 1, -FLT_MAX, 1)`.
    pub(super) fn legacy_logp_sm1(&mut self, inst: &Inst) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let mut parts = [None; 4];
        if mask & 0x7 != 0 {
            let v = self.load_src(inst, 0, 0x1, F)?;
            let abs = self.abs_bits(v);
            let u = Scalar::U32;
            let bits = self.bitcast(abs, u);
            if mask & 0x1 != 0 {
                let k23 = self.k(u, 1, 23);
                let biased = self.op(SpvOp::ShiftRightLogical, u, 1, &[bits.id, k23]);
                let biased = self.bitcast(biased, Scalar::I32);
                let k127 = self.k(Scalar::I32, 1, 127);
                let e = self.op(SpvOp::ISub, Scalar::I32, 1, &[biased.id, k127]);
                let e = self.op(SpvOp::ConvertSToF, F, 1, &[e.id]);
                let zero = self.k(F, 1, 0);
                let is_zero = self
                    .op(SpvOp::FOrdEqual, Scalar::Bool, 1, &[abs.id, zero])
                    .id;
                parts[0] = Some(self.select_const(is_zero, MINUS_FLT_MAX, e).id);
            }
            if mask & 0x2 != 0 {
                // Zero has no mantissa bits: it gives exactly 1.0, as the reference asks.
                let keep = self.k(u, 1, 0x007f_ffff);
                let m = self.op(SpvOp::BitwiseAnd, u, 1, &[bits.id, keep]);
                let one = self.k(u, 1, ONE);
                let m = self.op(SpvOp::BitwiseOr, u, 1, &[m.id, one]);
                parts[1] = Some(self.bitcast(m, F).id);
            }
            if mask & 0x4 != 0 {
                parts[2] = Some(self.log_abs(inst, abs).id);
            }
        }
        parts[3] = Some(self.k(F, 1, ONE));
        self.store_parts(inst, mask, parts)
    }

    /// A scalar repeated `n` times (the value itself when `n == 1`).
    fn broadcast(&mut self, v: Value, n: u8) -> Value {
        if n <= 1 {
            return v;
        }
        let ty = self.ty(F, n);
        let parts = vec![v.id; n as usize];
        Value {
            id: self.m.composite_construct(ty, &parts),
            scalar: F,
            n,
        }
    }

    /// Stores the float scalars `parts[c]` of the components `mask` writes.
    fn store_parts(&mut self, inst: &Inst, mask: u8, parts: [Option<Id>; 4]) -> Result<(), Error> {
        let mut ids = Vec::with_capacity(4);
        for c in Self::mask_components(mask) {
            let id =
                parts.get(c as usize).copied().flatten().ok_or_else(|| {
                    Error::internal(inst.span, "a written component not computed")
                })?;
            ids.push(id);
        }
        let v = self.compose(F, &ids);
        self.store_dst(inst, 0, v)
    }
}
