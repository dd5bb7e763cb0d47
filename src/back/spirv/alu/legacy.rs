//! Direct3D 9's float arithmetic ([`LegacyOp`]): the legacy multiply, `log`/`rsq` of `|x|`,
//! `pow`, `rcp`, `exp`, `nrm`, `lit`, `dst` and the SM1 `expp`/`logp` (the rules in
//! `docs/d3d9.md`, "Float rules").
//!
//! Contract (beyond the ALU rules in `alu.rs`): every operation of the family is emitted in the
//! variant [`EmitOptions::float_emulation`](crate::back::spirv::EmitOptions) chooses.
//! - [`FloatEmulation::Strict`]: the legacy multiply `a × b` is `+0` when `a` or `b` is `±0`
//!   (so `0 × inf = 0 × NaN = 0`), else the IEEE product: a `Select` on `a == 0 || b == 0`
//!   around `OpFMul` (a source that is an immediate with no zero or denormal component needs
//!   no test; when its components are also finite, the product is the plain `OpFMul`: the other
//!   operand's infinities and NaNs meet no zero, and only a zero result's sign can differ,
//!   IEEE's instead of `+0`). `mad`, the dot products, `pow`, `lit`'s power and `dst` use it;
//!   `rcp(0) = +inf`, `rsq(0) = +inf`; `rcp(1)` and `rsq(±1)` are exactly 1.
//! - [`FloatEmulation::Fast`]: the IEEE multiply, and the results of `rcp`, `rsq`, `exp`,
//!   `pow`, `nrm`'s scale and `expp`'s powers clamped to `±FLT_MAX` (`NMin`/`NClamp`, so a NaN
//!   result becomes finite too), so that no infinity reaches a later multiply: `nrm(0) =
//!   0 × FLT_MAX = 0`. `pow` takes its `log2|a|` clamped the same way (`pow(0, 0) = 1`).
//! - Both: `log(x) = log2|x|` with `log(0) = -FLT_MAX`; `rsq(x) = 1/sqrt|x|`; `rcp(x) = 1/x`;
//!   `pow(a, b) = exp2(b × log2|a|)`. The scalar source of `dp2add` (its third operand),
//!   `expp_sm1` and `logp_sm1` is the component the swizzle selects first.
//!
//! Files: this one (the per-component operations and the dot products), `legacy_vec.rs`
//! (`nrm`, `lit`, `dst`, `expp_sm1`, `logp_sm1`), `legacy_tests.rs`.

use spirv::{GlslStd450Op as G, Op as SpvOp};

use super::super::context::{Emitter, Scalar, Value};
use crate::back::spirv::{Error, FloatEmulation};
use crate::ir::{Inst, LegacyOp};

pub(super) const F: Scalar = Scalar::F32;
/// The largest finite float, and its negation (bits).
pub(super) const FLT_MAX: u32 = 0x7f7f_ffff;
pub(super) const MINUS_FLT_MAX: u32 = 0xff7f_ffff;
/// 1.0 (bits).
pub(super) const ONE: u32 = 0x3f80_0000;

/// What is known at translation time of a legacy multiply's operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Known {
    /// Nothing: it may be zero.
    Unknown,
    /// An immediate with no zero or denormal component (infinities or NaNs possible).
    NonZero,
    /// An immediate whose every component is finite, non-zero and not a denormal.
    Finite,
}

impl Emitter<'_> {
    /// Emits one operation of the legacy (D3D9) float family.
    pub(super) fn legacy_alu(&mut self, inst: &Inst, op: LegacyOp) -> Result<(), Error> {
        match op {
            LegacyOp::MulLegacy => {
                self.legacy_binary(inst, |e, a, b, known| e.legacy_mul(inst, a, b, known))
            }
            LegacyOp::MadLegacy => self.legacy_mad(inst),
            LegacyOp::Dp2AddLegacy => self.legacy_dot(inst, 2, true),
            LegacyOp::Dp3Legacy => self.legacy_dot(inst, 3, false),
            LegacyOp::Dp4Legacy => self.legacy_dot(inst, 4, false),
            LegacyOp::PowLegacy => self.legacy_binary(inst, |e, a, b, known| {
                let abs = e.abs_bits(a);
                let log = e.fext(inst, G::Log2, F, a.n, &[abs.id]);
                e.legacy_pow(inst, log, b, [Known::Unknown, known[1]])
            }),
            LegacyOp::ExpLegacy => self.unary(inst, F, |e, x| e.legacy_exp2(inst, x)),
            LegacyOp::LogLegacy => self.unary(inst, F, |e, x| {
                let abs = e.abs_bits(x);
                e.log_abs(inst, abs)
            }),
            LegacyOp::RcpLegacy => self.unary(inst, F, |e, x| e.legacy_rcp(inst, x)),
            LegacyOp::RsqLegacy => self.unary(inst, F, |e, x| {
                let abs = e.abs_bits(x);
                e.rsq_abs(inst, abs)
            }),
            LegacyOp::NrmLegacy => self.legacy_nrm(inst),
            LegacyOp::Lit => self.legacy_lit(inst),
            LegacyOp::DistVec => self.legacy_dst(inst),
            LegacyOp::ExppSm1 => self.legacy_expp_sm1(inst),
            LegacyOp::LogpSm1 => self.legacy_logp_sm1(inst),
        }
    }

    /// Whether the strict variant is asked for.
    pub(super) fn strict_floats(&self) -> bool {
        self.options.float_emulation == FloatEmulation::Strict
    }

    /// What is known of source `i`, read for `mask`: an immediate none of whose components is
    /// zero or a denormal (which the device may flush to zero) needs no zero test
    /// ([`Known::NonZero`]); when every component is also finite ([`Known::Finite`]), the
    /// legacy multiply by it is the IEEE product.
    pub(super) fn known_nonzero(inst: &Inst, i: usize, mask: u8) -> Known {
        let Some((v, n)) = Self::imm_values(inst, i, mask) else {
            return Known::Unknown;
        };
        let v = v.get(..n as usize).unwrap_or(&[]);
        if !v.iter().all(|x| x & 0x7f80_0000 != 0) {
            Known::Unknown
        } else if v.iter().all(|x| x & 0x7f80_0000 != 0x7f80_0000) {
            Known::Finite
        } else {
            Known::NonZero
        }
    }

    /// Two sources, one destination, with what is known of each source.
    fn legacy_binary(
        &mut self,
        inst: &Inst,
        f: impl FnOnce(&mut Self, Value, Value, [Known; 2]) -> Value,
    ) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let known = [
            Self::known_nonzero(inst, 0, mask),
            Self::known_nonzero(inst, 1, mask),
        ];
        let [a, b] = self.load_srcs(inst, mask, F)?;
        let v = f(self, a, b, known);
        self.store_dst(inst, 0, v)
    }

    /// The legacy multiply `a × b` (same widths); `known[i]`: what is known of operand `i`.
    /// Strict: `+0` where either operand is `±0`; fast: the IEEE product. Either variant, an
    /// operand known finite and non-zero makes it the IEEE product: the other operand's
    /// infinities and NaNs meet no zero (a zero result keeps the IEEE sign).
    pub(super) fn legacy_mul(
        &mut self,
        inst: &Inst,
        a: Value,
        b: Value,
        known: [Known; 2],
    ) -> Value {
        let n = a.n;
        let product = self.fop(inst, SpvOp::FMul, F, n, &[a.id, b.id]);
        if !self.strict_floats() || known.contains(&Known::Finite) {
            return product;
        }
        let zero = self.k(F, n, 0);
        let mut cond: Option<crate::spv::Id> = None;
        for (v, known) in [(a, known[0]), (b, known[1])] {
            if known != Known::Unknown {
                continue;
            }
            let is_zero = self.op(SpvOp::FOrdEqual, Scalar::Bool, n, &[v.id, zero]).id;
            cond = Some(match cond {
                None => is_zero,
                Some(c) => self.op(SpvOp::LogicalOr, Scalar::Bool, n, &[c, is_zero]).id,
            });
        }
        match cond {
            None => product,
            Some(c) => self.select_const(c, 0, product),
        }
    }

    /// `mad_legacy`: the legacy multiply, then an add.
    fn legacy_mad(&mut self, inst: &Inst) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let known = [
            Self::known_nonzero(inst, 0, mask),
            Self::known_nonzero(inst, 1, mask),
        ];
        let [a, b, c] = self.load_srcs(inst, mask, F)?;
        let p = self.legacy_mul(inst, a, b, known);
        let v = self.fop(inst, SpvOp::FAdd, F, p.n, &[p.id, c.id]);
        self.store_dst(inst, 0, v)
    }

    /// `dp2add`/`dp3`/`dp4` with the legacy multiply per term: the first `n` source
    /// components (after the swizzle), summed (`dp2add` then adds the first component its
    /// third operand's swizzle selects); the sum written to every destination component. Not
    /// `[precise]`: one `OpDot`, of the operands zero-masked (`zero_masked`) when strict;
    /// `[precise]`: the legacy products summed in order.
    fn legacy_dot(&mut self, inst: &Inst, n: u8, add: bool) -> Result<(), Error> {
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        let mask = (1u8 << n) - 1;
        let known = [
            Self::known_nonzero(inst, 0, mask),
            Self::known_nonzero(inst, 1, mask),
        ];
        let [a, b] = self.load_srcs(inst, mask, F)?;
        let mut sum = if inst.flags.precise == 0 {
            let (a, b) = if self.strict_floats() {
                self.zero_masked(a, b, known)
            } else {
                (a, b)
            };
            self.op(SpvOp::Dot, F, 1, &[a.id, b.id])
        } else {
            let p = self.legacy_mul(inst, a, b, known);
            let mut acc = self.extract(p, 0);
            for c in 1..n {
                let t = self.extract(p, c);
                acc = self.fop(inst, SpvOp::FAdd, F, 1, &[acc.id, t.id]);
            }
            acc
        };
        if add {
            let c = self.load_src(inst, 2, 0x1, F)?;
            sum = self.fop(inst, SpvOp::FAdd, F, 1, &[sum.id, c.id]);
        }
        self.store_dst(inst, 0, sum)
    }

    /// `(a', b')` whose IEEE products are `a`'s and `b`'s legacy products, component by
    /// component: `a' = b == 0 ? 0 : a`, `b' = a == 0 ? 0 : b` (a zero on either side makes
    /// both factors zero, so an infinity or NaN on the other side never meets it). A side is
    /// left as it is when `known` shows the test cannot matter: no zero in the other operand,
    /// or only finite values in this one.
    fn zero_masked(&mut self, a: Value, b: Value, known: [Known; 2]) -> (Value, Value) {
        let zero = self.k(F, a.n, 0);
        let mask = |e: &mut Self, v: Value, other: Value, v_known: Known, other_known| {
            if other_known != Known::Unknown || v_known == Known::Finite {
                return v;
            }
            let other_zero = e
                .op(SpvOp::FOrdEqual, Scalar::Bool, other.n, &[other.id, zero])
                .id;
            e.select_const(other_zero, 0, v)
        };
        let a2 = mask(self, a, b, known[0], known[1]);
        let b2 = mask(self, b, a, known[1], known[0]);
        (a2, b2)
    }

    /// `exp2(b × log)` for `log = log2|a|` (`pow`): strict, the legacy multiply; fast, `log`
    /// clamped to `±FLT_MAX` first, the IEEE multiply, the power clamped to `FLT_MAX`.
    /// `known[1]`: what is known of `b`.
    pub(super) fn legacy_pow(
        &mut self,
        inst: &Inst,
        log: Value,
        b: Value,
        known: [Known; 2],
    ) -> Value {
        let n = log.n;
        let product = if self.strict_floats() {
            self.legacy_mul(inst, b, log, [known[1], known[0]])
        } else {
            let lo = self.k(F, n, MINUS_FLT_MAX);
            let hi = self.k(F, n, FLT_MAX);
            let log = self.fext(inst, G::NClamp, F, n, &[log.id, lo, hi]);
            self.fop(inst, SpvOp::FMul, F, n, &[b.id, log.id])
        };
        self.legacy_exp2(inst, product)
    }

    /// `2^x`; fast: clamped to `FLT_MAX`.
    pub(super) fn legacy_exp2(&mut self, inst: &Inst, x: Value) -> Value {
        let v = self.fext(inst, G::Exp2, F, x.n, &[x.id]);
        self.clamp_positive(inst, v)
    }

    /// Fast only: `NMin(v, FLT_MAX)` (results that are never negative).
    pub(super) fn clamp_positive(&mut self, inst: &Inst, v: Value) -> Value {
        if self.strict_floats() {
            return v;
        }
        let hi = self.k(F, v.n, FLT_MAX);
        self.fext(inst, G::NMin, F, v.n, &[v.id, hi])
    }

    /// `log2(abs)` of a value already made non-negative, with `log(0) = -FLT_MAX`.
    pub(super) fn log_abs(&mut self, inst: &Inst, abs: Value) -> Value {
        let n = abs.n;
        let log = self.fext(inst, G::Log2, F, n, &[abs.id]);
        let zero = self.k(F, n, 0);
        let is_zero = self
            .op(SpvOp::FOrdEqual, Scalar::Bool, n, &[abs.id, zero])
            .id;
        self.select_const(is_zero, MINUS_FLT_MAX, log)
    }

    /// `1 / sqrt(abs)` of a value already made non-negative: strict, `rsq(0) = +inf` and
    /// `rsq(1) = 1` exactly; fast, clamped to `FLT_MAX`.
    pub(super) fn rsq_abs(&mut self, inst: &Inst, abs: Value) -> Value {
        let v = self.fext(inst, G::InverseSqrt, F, abs.n, &[abs.id]);
        if !self.strict_floats() {
            return self.clamp_positive(inst, v);
        }
        self.exactly_one(abs, v)
    }

    /// `1 / x`: strict, `rcp(1) = 1` exactly (IEEE elsewhere: `rcp(±0) = ±inf`); fast,
    /// clamped to `±FLT_MAX`.
    fn legacy_rcp(&mut self, inst: &Inst, x: Value) -> Value {
        let n = x.n;
        let one = self.k(F, n, ONE);
        let v = self.fop(inst, SpvOp::FDiv, F, n, &[one, x.id]);
        if self.strict_floats() {
            return self.exactly_one(x, v);
        }
        let lo = self.k(F, n, MINUS_FLT_MAX);
        let hi = self.k(F, n, FLT_MAX);
        self.fext(inst, G::NClamp, F, n, &[v.id, lo, hi])
    }

    /// `|x|` by clearing the sign bit: exact for every input (`|-0| = +0`, NaNs kept), whatever
    /// the device's `FAbs` does with signed zeros.
    pub(super) fn abs_bits(&mut self, x: Value) -> Value {
        let u = self.bitcast(x, Scalar::U32);
        let k = self.k(Scalar::U32, x.n, 0x7fff_ffff);
        let abs = self.op(SpvOp::BitwiseAnd, Scalar::U32, x.n, &[u.id, k]);
        self.bitcast(abs, F)
    }

    /// `x == 1 ? 1 : v` (D3D9: `rcp` and `rsq` of exactly 1 are exactly 1).
    fn exactly_one(&mut self, x: Value, v: Value) -> Value {
        let one = self.k(F, x.n, ONE);
        let is_one = self
            .op(SpvOp::FOrdEqual, Scalar::Bool, x.n, &[x.id, one])
            .id;
        self.select_const(is_one, ONE, v)
    }
}
