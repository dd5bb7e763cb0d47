//! 64-bit float instructions: SM5.0 doubles and the D3D11.1 double extensions (`ddiv`, `drcp`,
//! `dfma`, `dtoi`, `dtou`, `itod`, `utod`), per the `(sm5 - asm)` instruction pages.
//!
//! Register layout: a double occupies two 32-bit components, low word first: `.xy` is the first
//! double, `.zw` the second. Three mask conventions exist, and each instruction uses one:
//! - double → double (`dadd`, `dmov`, ...): the destination mask is `.xy`, `.zw` or `.xyzw`;
//!   each double reads the source's double at the same position (swizzle pair).
//! - double → 32-bit (`dtof`, `dtoi`, `dtou`, `deq`, ...): one or two destination components;
//!   the k-th written component takes the k-th double of the source (post-swizzle).
//! - 32-bit → double (`ftod`, `itod`, `utod`, and the `dmovc` condition): `.xy` takes the
//!   source's first component (post-swizzle), `.zw` its second.
//!
//! Numeric rules: `dmin`/`dmax` return the non-NaN operand; `deq`/`dlt`/`dge` are ordered and
//! `dne` unordered; `drcp` is `1.0 / x`; `dtoi`/`dtou` round toward zero, saturate and map NaN
//! to 0 (like `ftoi`/`ftou`); fp64 denormals are kept. `Float64` is declared with the type.

use spirv::{GlslStd450Op as G, Op as SpvOp};

use super::super::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{DoubleOp, Inst, Modifier};

const D: Scalar = Scalar::F64;

impl Emitter<'_> {
    /// Emits a double instruction.
    pub(super) fn double_alu(&mut self, inst: &Inst, op: DoubleOp) -> Result<(), Error> {
        match op {
            DoubleOp::Dadd => self.dbinary(inst, |e, a, b| {
                e.fop(inst, SpvOp::FAdd, D, a.n, &[a.id, b.id])
            }),
            DoubleOp::Dmul => self.dbinary(inst, |e, a, b| {
                e.fop(inst, SpvOp::FMul, D, a.n, &[a.id, b.id])
            }),
            DoubleOp::Ddiv => self.dbinary(inst, |e, a, b| {
                e.fop(inst, SpvOp::FDiv, D, a.n, &[a.id, b.id])
            }),
            DoubleOp::Dmin => {
                self.dbinary(inst, |e, a, b| e.fext(inst, G::NMin, D, a.n, &[a.id, b.id]))
            }
            DoubleOp::Dmax => {
                self.dbinary(inst, |e, a, b| e.fext(inst, G::NMax, D, a.n, &[a.id, b.id]))
            }
            DoubleOp::Dfma => {
                let Some(mask) = self.double_mask(inst)? else {
                    return Ok(());
                };
                let [a, b, c] = self.load_srcs(inst, mask, D)?;
                let v = self.fext(inst, G::Fma, D, a.n, &[a.id, b.id, c.id]);
                self.store_dst(inst, 0, v)
            }
            DoubleOp::Drcp => self.dunary(inst, |e, x| {
                let one = e.k64(x.n, 1.0);
                e.fop(inst, SpvOp::FDiv, D, x.n, &[one, x.id])
            }),
            DoubleOp::Dmov => self.dmov(inst),
            DoubleOp::Dmovc => self.dmovc(inst),
            DoubleOp::Deq => self.dcompare(inst, SpvOp::FOrdEqual),
            DoubleOp::Dne => self.dcompare(inst, SpvOp::FUnordNotEqual),
            DoubleOp::Dlt => self.dcompare(inst, SpvOp::FOrdLessThan),
            DoubleOp::Dge => self.dcompare(inst, SpvOp::FOrdGreaterThanEqual),
            DoubleOp::Dtof => self.double_to_32(inst, |e, x| {
                e.op(SpvOp::FConvert, Scalar::F32, x.n, &[x.id])
            }),
            DoubleOp::Dtoi => self.double_to_32(inst, |e, x| e.dtoi(x, true)),
            DoubleOp::Dtou => self.double_to_32(inst, |e, x| e.dtoi(x, false)),
            DoubleOp::Ftod => self.widen_to_double(inst, Scalar::F32, SpvOp::FConvert),
            DoubleOp::Itod => self.widen_to_double(inst, Scalar::I32, SpvOp::ConvertSToF),
            DoubleOp::Utod => self.widen_to_double(inst, Scalar::U32, SpvOp::ConvertUToF),
        }
    }

    /// The mask of a double destination (`None` for `null`); each pair of components must be
    /// written whole.
    fn double_mask(&self, inst: &Inst) -> Result<Option<u8>, Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(None);
        }
        let lo = mask & 0b0101;
        let hi = (mask >> 1) & 0b0101;
        if lo != hi {
            return Err(Error::invalid(
                inst.span,
                format!(
                    "`{}`: a double destination mask must be .xy, .zw or .xyzw",
                    inst.op.name()
                ),
            ));
        }
        Ok(Some(mask))
    }

    /// The 32-bit mask selecting, per double of a double destination, the source component
    /// that feeds it (`.xy` ← x, `.zw` ← y).
    fn pairs_to_components(mask: u8) -> u8 {
        (mask & 1) | ((mask >> 1) & 2)
    }

    /// The double mask reading one double per component of a 32-bit destination (one or two).
    fn components_to_pairs(&self, inst: &Inst) -> Result<Option<(u8, u8)>, Error> {
        let mask = Self::dst_mask(inst, 0);
        match mask.count_ones() {
            0 => Ok(None),
            1 => Ok(Some((mask, 0b0011))),
            2 => Ok(Some((mask, 0b1111))),
            _ => Err(Error::invalid(
                inst.span,
                format!("`{}` writes one or two components", inst.op.name()),
            )),
        }
    }

    /// One double source, double destination.
    fn dunary(
        &mut self,
        inst: &Inst,
        f: impl FnOnce(&mut Self, Value) -> Value,
    ) -> Result<(), Error> {
        let Some(mask) = self.double_mask(inst)? else {
            return Ok(());
        };
        let x = self.load_src(inst, 0, mask, D)?;
        let v = f(self, x);
        self.store_dst(inst, 0, v)
    }

    /// Two double sources, double destination.
    fn dbinary(
        &mut self,
        inst: &Inst,
        f: impl FnOnce(&mut Self, Value, Value) -> Value,
    ) -> Result<(), Error> {
        let Some(mask) = self.double_mask(inst)? else {
            return Ok(());
        };
        let [a, b] = self.load_srcs(inst, mask, D)?;
        let v = f(self, a, b);
        self.store_dst(inst, 0, v)
    }

    /// `dmov`: a bit copy of the words, or a double operation with a modifier or `_sat`.
    fn dmov(&mut self, inst: &Inst) -> Result<(), Error> {
        let modified = inst
            .src()
            .first()
            .is_some_and(|s| s.modifier != Modifier::None);
        let Some(mask) = self.double_mask(inst)? else {
            return Ok(());
        };
        let ty = if modified || inst.flags.saturate {
            D
        } else {
            Scalar::U32
        };
        let v = self.load_src(inst, 0, mask, ty)?;
        self.store_dst(inst, 0, v)
    }

    /// `dmovc dst, cond, a, b`: per double, the condition is the 32-bit component at the
    /// double's position (post-swizzle x for `.xy`, y for `.zw`).
    fn dmovc(&mut self, inst: &Inst) -> Result<(), Error> {
        let Some(mask) = self.double_mask(inst)? else {
            return Ok(());
        };
        let cond = self.load_src(inst, 0, Self::pairs_to_components(mask), Scalar::U32)?;
        let cond = self.nonzero(cond);
        let a = self.load_src(inst, 1, mask, D)?;
        let b = self.load_src(inst, 2, mask, D)?;
        let v = self.select(cond, a, b);
        self.store_dst(inst, 0, v)
    }

    /// `deq`/`dne`/`dlt`/`dge`: 32-bit booleans from pairs of doubles.
    fn dcompare(&mut self, inst: &Inst, op: SpvOp) -> Result<(), Error> {
        let Some((_, pairs)) = self.components_to_pairs(inst)? else {
            return Ok(());
        };
        let [a, b] = self.load_srcs(inst, pairs, D)?;
        let c = self.compare(op, a, b);
        let v = self.bool_mask(c, a.n);
        self.store_dst(inst, 0, v)
    }

    /// A double source converted to a 32-bit destination.
    fn double_to_32(
        &mut self,
        inst: &Inst,
        f: impl FnOnce(&mut Self, Value) -> Value,
    ) -> Result<(), Error> {
        let Some((_, pairs)) = self.components_to_pairs(inst)? else {
            return Ok(());
        };
        let x = self.load_src(inst, 0, pairs, D)?;
        let v = f(self, x);
        self.store_dst(inst, 0, v)
    }

    /// A 32-bit source (read as `ty`) converted to a double destination by `op`.
    fn widen_to_double(&mut self, inst: &Inst, ty: Scalar, op: SpvOp) -> Result<(), Error> {
        let Some(mask) = self.double_mask(inst)? else {
            return Ok(());
        };
        let x = self.load_src(inst, 0, Self::pairs_to_components(mask), ty)?;
        let v = self.op(op, D, x.n, &[x.id]);
        self.store_dst(inst, 0, v)
    }

    /// `dtoi`/`dtou`: round toward zero, clamped to the integer range (both ends are exact
    /// doubles), NaN → 0.
    fn dtoi(&mut self, x: Value, signed: bool) -> Value {
        let n = x.n;
        let (lo, hi, ty, op) = if signed {
            (-2147483648.0, 2147483647.0, Scalar::I32, SpvOp::ConvertFToS)
        } else {
            (0.0, 4294967295.0, Scalar::U32, SpvOp::ConvertFToU)
        };
        let lo = self.k64(n, lo);
        let hi = self.k64(n, hi);
        let clamped = self.ext(G::NClamp, D, n, &[x.id, lo, hi]);
        let i = self.op(op, ty, n, &[clamped.id]);
        let nan = self.op(SpvOp::IsNan, Scalar::Bool, n, &[x.id]);
        self.select_const(nan.id, 0, i)
    }
}
