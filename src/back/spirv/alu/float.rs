//! 32-bit float instructions (D3D11.3 functional spec §22.10).
//!
//! Contract (beyond the ALU rules in `alu.rs`): `min`/`max` return the non-NaN operand
//! (`NMin`/`NMax`); `eq`/`lt`/`ge` are ordered and `ne` unordered, writing 0xffffffff/0;
//! `exp`/`log` are base 2; `rcp` is `1.0 / x`; `frc` is `x - floor(x)`; `dp#` is the sum of
//! products (`OpDot`, or an in-order multiply/add chain when `[precise]`); `ftoi`/`ftou` round
//! toward zero, saturate, and map NaN to 0; `f32tof16` follows D3D's float-to-float conversion
//! rules (round toward zero, finite overflow to the largest half, infinity and NaN kept);
//! `f16tof32` converts the low 16 bits exactly.

use spirv::{GlslStd450Op as G, Op as SpvOp};

use super::super::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{FloatOp, Inst};

const F: Scalar = Scalar::F32;

/// 2^31 and 2^32 as f32 bits, and the largest floats below them.
const TWO_31: u32 = 0x4f00_0000;
const BELOW_TWO_31: u32 = 0x4eff_ffff;
const TWO_32: u32 = 0x4f80_0000;
const BELOW_TWO_32: u32 = 0x4f7f_ffff;
const MINUS_TWO_31: u32 = 0xcf00_0000;

impl Emitter<'_> {
    /// Emits a 32-bit float instruction.
    pub(super) fn float_alu(&mut self, inst: &Inst, op: FloatOp) -> Result<(), Error> {
        match op {
            FloatOp::Add => self.binary_op(inst, F, SpvOp::FAdd),
            FloatOp::Mul => self.binary_op(inst, F, SpvOp::FMul),
            FloatOp::Div => self.binary_op(inst, F, SpvOp::FDiv),
            FloatOp::Min => self.binary_ext(inst, F, G::NMin),
            FloatOp::Max => self.binary_ext(inst, F, G::NMax),
            FloatOp::Mad => self.ternary(inst, F, |e, [a, b, c]| {
                let p = e.fop(inst, SpvOp::FMul, F, a.n, &[a.id, b.id]);
                e.fop(inst, SpvOp::FAdd, F, a.n, &[p.id, c.id])
            }),
            FloatOp::Dp2 => self.dot(inst, 2),
            FloatOp::Dp3 => self.dot(inst, 3),
            FloatOp::Dp4 => self.dot(inst, 4),
            FloatOp::Eq => self.compare_op(inst, F, SpvOp::FOrdEqual),
            FloatOp::Ne => self.compare_op(inst, F, SpvOp::FUnordNotEqual),
            FloatOp::Lt => self.compare_op(inst, F, SpvOp::FOrdLessThan),
            FloatOp::Ge => self.compare_op(inst, F, SpvOp::FOrdGreaterThanEqual),
            FloatOp::Exp => self.float_ext1(inst, G::Exp2),
            FloatOp::Log => self.float_ext1(inst, G::Log2),
            FloatOp::Frc => self.float_ext1(inst, G::Fract),
            FloatOp::Sqrt => self.float_ext1(inst, G::Sqrt),
            FloatOp::Rsq => self.float_ext1(inst, G::InverseSqrt),
            FloatOp::RoundNe => self.float_ext1(inst, G::RoundEven),
            FloatOp::RoundNi => self.float_ext1(inst, G::Floor),
            FloatOp::RoundPi => self.float_ext1(inst, G::Ceil),
            FloatOp::RoundZ => self.float_ext1(inst, G::Trunc),
            FloatOp::Rcp => self.unary(inst, F, |e, x| {
                let one = e.k(F, x.n, 1f32.to_bits());
                e.fop(inst, SpvOp::FDiv, F, x.n, &[one, x.id])
            }),
            FloatOp::Sincos => self.sincos(inst),
            FloatOp::Ftoi => self.unary(inst, F, |e, x| e.ftoi(x)),
            FloatOp::Ftou => self.unary(inst, F, |e, x| e.ftou(x)),
            FloatOp::Itof => self.unary(inst, Scalar::I32, |e, x| {
                e.op(SpvOp::ConvertSToF, F, x.n, &[x.id])
            }),
            FloatOp::Utof => self.unary(inst, Scalar::U32, |e, x| {
                e.op(SpvOp::ConvertUToF, F, x.n, &[x.id])
            }),
            FloatOp::F32tof16 => self.unary(inst, F, |e, x| e.f32_to_f16(x)),
            FloatOp::F16tof32 => self.unary(inst, Scalar::U32, |e, x| e.f16_to_f32(x)),
        }
    }

    /// A one-operand GLSL.std.450 float instruction.
    fn float_ext1(&mut self, inst: &Inst, op: G) -> Result<(), Error> {
        self.unary(inst, F, |e, x| e.fext(inst, op, F, x.n, &[x.id]))
    }

    /// `dp2`/`dp3`/`dp4`: the first `n` source components (after the swizzle), one scalar
    /// result written to every destination component.
    fn dot(&mut self, inst: &Inst, n: u8) -> Result<(), Error> {
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        let mask = (1u8 << n) - 1;
        let [a, b] = self.load_srcs(inst, mask, F)?;
        let v = if inst.flags.precise == 0 {
            self.op(SpvOp::Dot, F, 1, &[a.id, b.id])
        } else {
            let mut acc: Option<Value> = None;
            for c in 0..n {
                let x = self.extract(a, c);
                let y = self.extract(b, c);
                let p = self.fop(inst, SpvOp::FMul, F, 1, &[x.id, y.id]);
                acc = Some(match acc {
                    None => p,
                    Some(s) => self.fop(inst, SpvOp::FAdd, F, 1, &[s.id, p.id]),
                });
            }
            acc.ok_or_else(|| Error::internal(inst.span, "empty dot product"))?
        };
        self.store_dst(inst, 0, v)
    }

    /// `sincos dst_sin, dst_cos, src`: each destination (either may be `null`) for its own mask.
    fn sincos(&mut self, inst: &Inst) -> Result<(), Error> {
        let mut out = [None, None];
        for (d, slot) in out.iter_mut().enumerate() {
            let mask = Self::dst_mask(inst, d);
            if mask == 0 {
                continue;
            }
            let x = self.load_src(inst, 0, mask, F)?;
            let op = if d == 0 { G::Sin } else { G::Cos };
            *slot = Some(self.fext(inst, op, F, x.n, &[x.id]));
        }
        self.store_pair(inst, out)
    }

    /// `ftoi`: round toward zero, clamped to [-2^31, 2^31 - 1], NaN → 0.
    fn ftoi(&mut self, x: Value) -> Value {
        let n = x.n;
        let lo = self.k(F, n, MINUS_TWO_31);
        let hi = self.k(F, n, BELOW_TWO_31);
        let clamped = self.ext(G::NClamp, F, n, &[x.id, lo, hi]);
        let i = self.op(SpvOp::ConvertFToS, Scalar::I32, n, &[clamped.id]);
        let limit = self.k(F, n, TWO_31);
        let big = self.op(SpvOp::FOrdGreaterThanEqual, Scalar::Bool, n, &[x.id, limit]);
        let i = self.select_const(big.id, i32::MAX as u32, i);
        let nan = self.op(SpvOp::IsNan, Scalar::Bool, n, &[x.id]);
        self.select_const(nan.id, 0, i)
    }

    /// `ftou`: round toward zero, clamped to [0, 2^32 - 1], NaN → 0.
    fn ftou(&mut self, x: Value) -> Value {
        let n = x.n;
        let lo = self.k(F, n, 0);
        let hi = self.k(F, n, BELOW_TWO_32);
        let clamped = self.ext(G::NClamp, F, n, &[x.id, lo, hi]);
        let u = self.op(SpvOp::ConvertFToU, Scalar::U32, n, &[clamped.id]);
        let limit = self.k(F, n, TWO_32);
        let big = self.op(SpvOp::FOrdGreaterThanEqual, Scalar::Bool, n, &[x.id, limit]);
        let u = self.select_const(big.id, !0, u);
        let nan = self.op(SpvOp::IsNan, Scalar::Bool, n, &[x.id]);
        self.select_const(nan.id, 0, u)
    }

    /// `f32tof16` on the bits of `x`, D3D's float-to-float rules (Direct3D data conversion
    /// rules, "Floating Point Conversion"): round toward zero; a finite value too large becomes
    /// the largest half (0x7bff, signed); infinity stays infinity, NaN stays NaN (0x7e00);
    /// results too small for a half denormal become a signed zero. The half is in the low 16 bits.
    fn f32_to_f16(&mut self, x: Value) -> Value {
        let n = x.n;
        let u = Scalar::U32;
        let bits = self.bitcast(x, u);
        let k16 = self.k(u, n, 16);
        let hi = self.op(SpvOp::ShiftRightLogical, u, n, &[bits.id, k16]);
        let k8000 = self.k(u, n, 0x8000);
        let sign = self.op(SpvOp::BitwiseAnd, u, n, &[hi.id, k8000]);
        let kabs = self.k(u, n, 0x7fff_ffff);
        let abs = self.op(SpvOp::BitwiseAnd, u, n, &[bits.id, kabs]);
        // Normal halves: rebias the exponent (127 → 15) and drop 13 mantissa bits.
        let rebias = self.k(u, n, 0x3800_0000);
        let t = self.op(SpvOp::ISub, u, n, &[abs.id, rebias]);
        let k13 = self.k(u, n, 13);
        let normal = self.op(SpvOp::ShiftRightLogical, u, n, &[t.id, k13]);
        // Denormal halves: |x| * 2^24 truncated (exact scaling). |x| is first capped at the
        // smallest normal half so that the conversion stays in range for every input.
        let min_normal = self.k(u, n, 0x3880_0000);
        let capped = self.ext(G::UMin, u, n, &[abs.id, min_normal]);
        let fabs = self.bitcast(capped, F);
        let scale = self.k(F, n, 0x4b80_0000);
        let scaled = self.op(SpvOp::FMul, F, n, &[fabs.id, scale]);
        let denormal = self.op(SpvOp::ConvertFToU, u, n, &[scaled.id]);
        let small = self.op(SpvOp::ULessThan, Scalar::Bool, n, &[abs.id, min_normal]);
        let r = self.select(small.id, denormal, normal);
        // Overflow (2^16 and up, infinity and NaN included) → the largest half.
        let k_big = self.k(u, n, 0x4780_0000);
        let big = self.op(SpvOp::UGreaterThanEqual, Scalar::Bool, n, &[abs.id, k_big]);
        let r = self.select_const(big.id, 0x7bff, r);
        let kinf = self.k(u, n, 0x7f80_0000);
        let inf = self.op(SpvOp::IEqual, Scalar::Bool, n, &[abs.id, kinf]);
        let r = self.select_const(inf.id, 0x7c00, r);
        let nan = self.op(SpvOp::UGreaterThan, Scalar::Bool, n, &[abs.id, kinf]);
        let r = self.select_const(nan.id, 0x7e00, r);
        self.op(SpvOp::BitwiseOr, u, n, &[r.id, sign.id])
    }

    /// `f16tof32`: the half in the low 16 bits of each component, converted exactly.
    fn f16_to_f32(&mut self, x: Value) -> Value {
        let vec2 = self.ty(F, 2);
        let f = self.ty(F, 1);
        let mut parts = [x.id; 4];
        for c in 0..x.n {
            let w = self.extract(x, c);
            let pair = self.glsl(vec2, G::UnpackHalf2x16, &[w.id]);
            parts[c as usize] = self.m.composite_extract(f, pair, &[0]);
        }
        self.compose(F, &parts[..x.n as usize])
    }
}
