//! Double-precision instructions (`dadd` … `utod`): each double occupies a pair of 32-bit
//! components, low dword first (`xy` is double 0, `zw` double 1).
//!
//! Contract: by the D3D11.3 functional specification's double rules — denormals are kept (no
//! flushing), `dmin`/`dmax` return the other operand when one is NaN, comparisons write D3D
//! booleans into 32-bit components, conversions to integers saturate with NaN → 0, and `dfma`
//! is fused. A double source's modifier applies to the double (its sign bit in the high dword).
//! Results that are 32-bit per double (`dtof`, `deq`, `dtoi`, …) go to the destination's enabled
//! components in order, one per double; doubles made from 32-bit sources take source component
//! `k` for the `k`-th enabled pair.

use dxbc2spv::front::dxbc::operand::Modifier;
use dxbc2spv::front::dxbc::{Instruction, Opcode, Operand};

use super::alu::{bool_bits, fin, fout};
use super::exec::{Machine, Thread};
use super::program::mask;
use super::Fault;

fn join(lo: u32, hi: u32) -> f64 {
    f64::from_bits(u64::from(lo) | (u64::from(hi) << 32))
}

fn split(d: f64) -> [u32; 2] {
    let b = d.to_bits();
    [b as u32, (b >> 32) as u32]
}

fn dminmax(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if (a >= b) == max {
        a
    } else {
        b
    }
}

impl Machine<'_, '_> {
    /// The two doubles of a source operand (swizzled pairs), modifier applied.
    fn src_d(&self, t: &Thread, op: Option<&Operand>) -> Result<[f64; 2], Fault> {
        let o = op.ok_or_else(|| Fault::Invalid("missing operand".into()))?;
        let mut plain = *o;
        plain.modifier = Modifier::None;
        let v = self.src(t, Some(&plain), false)?;
        Ok(
            [join(v[0], v[1]), join(v[2], v[3])].map(|d| match o.modifier {
                Modifier::None => d,
                Modifier::Neg => -d,
                Modifier::Abs => d.abs(),
                Modifier::AbsNeg => -d.abs(),
            }),
        )
    }

    /// Writes doubles: pair `p` (xy, zw) gets `d[p]`, where the mask enables it.
    fn dst_d(&self, t: &mut Thread, op: Option<&Operand>, d: [f64; 2]) -> Result<(), Fault> {
        let [a, b] = split(d[0]);
        let [c, e] = split(d[1]);
        self.dst(t, op, [a, b, c, e])
    }

    /// Writes one 32-bit value per double into the enabled components, in order.
    fn dst_per_double(
        &self,
        t: &mut Thread,
        op: Option<&Operand>,
        v: [u32; 2],
    ) -> Result<(), Fault> {
        let m = op.map(|o| mask(o.components)).unwrap_or(0);
        let mut out = [0u32; 4];
        let mut j = 0;
        for (c, slot) in out.iter_mut().enumerate() {
            if m & (1 << c) != 0 {
                *slot = v.get(j).copied().unwrap_or(0);
                j += 1;
            }
        }
        self.dst(t, op, out)
    }

    /// Executes a double instruction; `Ok(false)` when `inst` is not one.
    pub fn execute_double(
        &mut self,
        t: &mut Thread,
        inst: &Instruction<'_>,
    ) -> Result<bool, Fault> {
        let ops = inst.operands();
        let d = |m: &Self, t: &Thread, k: usize| m.src_d(t, ops.get(k));
        match inst.opcode {
            Opcode::Dadd | Opcode::Dmul | Opcode::Ddiv | Opcode::Dmin | Opcode::Dmax => {
                let (a, b) = (d(self, t, 1)?, d(self, t, 2)?);
                let f = |x: f64, y: f64| match inst.opcode {
                    Opcode::Dadd => x + y,
                    Opcode::Dmul => x * y,
                    Opcode::Ddiv => x / y,
                    Opcode::Dmin => dminmax(x, y, false),
                    _ => dminmax(x, y, true),
                };
                self.dst_d(t, ops.first(), [f(a[0], b[0]), f(a[1], b[1])])?;
            }
            Opcode::Dfma => {
                let (a, b, c) = (d(self, t, 1)?, d(self, t, 2)?, d(self, t, 3)?);
                let v = [a[0].mul_add(b[0], c[0]), a[1].mul_add(b[1], c[1])];
                self.dst_d(t, ops.first(), v)?;
            }
            Opcode::Drcp => {
                let a = d(self, t, 1)?;
                self.dst_d(t, ops.first(), [1.0 / a[0], 1.0 / a[1]])?;
            }
            Opcode::Dmov => {
                let a = d(self, t, 1)?;
                self.dst_d(t, ops.first(), a)?;
            }
            Opcode::Dmovc => {
                let c = self.src(t, ops.get(1), false)?;
                let (a, b) = (d(self, t, 2)?, d(self, t, 3)?);
                // One condition component per double: x for the first, y for the second.
                let v = [
                    if c[0] != 0 { a[0] } else { b[0] },
                    if c[1] != 0 { a[1] } else { b[1] },
                ];
                self.dst_d(t, ops.first(), v)?;
            }
            Opcode::Deq | Opcode::Dne | Opcode::Dlt | Opcode::Dge => {
                let (a, b) = (d(self, t, 1)?, d(self, t, 2)?);
                let f = |x: f64, y: f64| {
                    bool_bits(match inst.opcode {
                        Opcode::Deq => x == y,
                        Opcode::Dne => x != y,
                        Opcode::Dlt => x < y,
                        _ => x >= y,
                    })
                };
                self.dst_per_double(t, ops.first(), [f(a[0], b[0]), f(a[1], b[1])])?;
            }
            Opcode::Dtof | Opcode::Dtoi | Opcode::Dtou => {
                let a = d(self, t, 1)?;
                let f = |x: f64| match inst.opcode {
                    Opcode::Dtof => fout(x as f32),
                    Opcode::Dtoi => x as i32 as u32,
                    _ => x as u32,
                };
                self.dst_per_double(t, ops.first(), [f(a[0]), f(a[1])])?;
            }
            Opcode::Ftod | Opcode::Itod | Opcode::Utod => {
                let float = inst.opcode == Opcode::Ftod;
                let s = self.src(t, ops.get(1), float)?;
                let f = |x: u32| match inst.opcode {
                    Opcode::Ftod => f64::from(fin(x)),
                    Opcode::Itod => f64::from(x as i32),
                    _ => f64::from(x),
                };
                let m = ops.first().map(|o| mask(o.components)).unwrap_or(0);
                let mut v = [0.0; 2];
                let mut j = 0;
                for (p, slot) in v.iter_mut().enumerate() {
                    if m & (0b11 << (2 * p)) != 0 {
                        *slot = f(s[j]);
                        j += 1;
                    }
                }
                self.dst_d(t, ops.first(), v)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
