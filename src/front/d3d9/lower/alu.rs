//! D3D9 arithmetic → IR: the legacy-float operations (`ir::LegacyOp`) where D3D9's rules
//! differ from IEEE (`mul`, `mad`, dot products, `pow`, `log`, `rsq`, ...), plain IR operations
//! where they agree, and short sequences for the macros (`m4x4`, `crs`, `lrp`, `sgn`, `cmp`,
//! `cnd`, `slt`, `sge`, address loads).

use crate::error::Error;
use crate::front::d3d9::opcodes::Opcode;
use crate::front::d3d9::program::{Instruction, RegisterType};
use crate::ir::{self, Op, Reg};

use super::operand::{imm_f, imm_u, inst, negate, reswizzle, temp, temp_d};
use super::Lowering;

/// `1.0f` as bits (`slt`/`sge` results).
const ONE: u32 = 0x3f80_0000;

impl Lowering<'_, '_> {
    /// The first `N` sources of `i`, converted (no allocation: this runs per instruction).
    fn sources<const N: usize>(&mut self, i: &Instruction) -> Result<[ir::Src; N], Error> {
        let srcs = i.sources();
        let mut out = [ir::Src::default(); N];
        for (k, slot) in out.iter_mut().enumerate() {
            let s = srcs
                .get(k)
                .ok_or_else(|| Error::internal(i.offset, "too few sources"))?;
            *slot = self.source(s)?;
        }
        Ok(out)
    }

    /// Lowers an arithmetic instruction.
    pub(super) fn alu(&mut self, i: &Instruction) -> Result<(), Error> {
        let vs1 = !self.pixel && self.version.major < 2;
        match i.opcode {
            Opcode::Mov | Opcode::Mova if i.dst.is_some_and(|d| d.reg == RegisterType::Address) => {
                // vs_1_1 `mov a0` floors; `mova` rounds to nearest.
                let s = self.sources::<1>(i)?;
                let round = if i.opcode == Opcode::Mova {
                    Op::RoundNe
                } else {
                    Op::RoundNi
                };
                let t = self.temps.scratch();
                let d = i.dst.map_or(0xf, |d| d.mask);
                self.push(inst(round, i.offset, &[temp_d(t, d)], &s));
                self.emit(i, Op::Ftoi, &[temp(t)])
            }
            Opcode::Mov => {
                let s = self.sources::<1>(i)?;
                self.emit(i, Op::Mov, &s)
            }
            Opcode::Abs => {
                let mut s = self.sources::<1>(i)?;
                if let Some(s) = s.first_mut() {
                    s.modifier = ir::Modifier::Abs;
                }
                self.emit(i, Op::Mov, &s)
            }
            Opcode::Add => self.simple::<2>(i, Op::Add),
            Opcode::Sub => {
                let mut s = self.sources::<2>(i)?;
                s[1] = negate(s[1]);
                self.emit(i, Op::Add, &s)
            }
            Opcode::Mul => self.simple::<2>(i, Op::MulLegacy),
            Opcode::Mad => self.simple::<3>(i, Op::MadLegacy),
            Opcode::Dp3 => self.simple::<2>(i, Op::Dp3Legacy),
            Opcode::Dp4 => self.simple::<2>(i, Op::Dp4Legacy),
            Opcode::Dp2add => self.simple::<3>(i, Op::Dp2AddLegacy),
            Opcode::Min => self.simple::<2>(i, Op::Min),
            Opcode::Max => self.simple::<2>(i, Op::Max),
            Opcode::Frc => self.simple::<1>(i, Op::Frc),
            Opcode::Rcp => self.scalar(i, Op::RcpLegacy),
            Opcode::Rsq => self.scalar(i, Op::RsqLegacy),
            Opcode::Exp => self.scalar(i, Op::ExpLegacy),
            Opcode::Log => self.scalar(i, Op::LogLegacy),
            Opcode::Expp if vs1 => self.scalar(i, Op::ExppSm1),
            Opcode::Logp if vs1 => self.scalar(i, Op::LogpSm1),
            Opcode::Expp => self.scalar(i, Op::ExpLegacy),
            Opcode::Logp => self.scalar(i, Op::LogLegacy),
            Opcode::Lit => self.simple::<1>(i, Op::Lit),
            Opcode::Dst => self.simple::<2>(i, Op::DistVec),
            Opcode::Nrm => self.simple::<1>(i, Op::NrmLegacy),
            Opcode::Pow => {
                let s = self.sources::<2>(i)?;
                let s = [first(s[0]), first(s[1])];
                self.emit(i, Op::PowLegacy, &s)
            }
            Opcode::Slt | Opcode::Sge => {
                let s = self.sources::<2>(i)?;
                let op = if i.opcode == Opcode::Slt {
                    Op::Lt
                } else {
                    Op::Ge
                };
                let t = self.temps.scratch();
                self.push(inst(op, i.offset, &[temp_d(t, 0xf)], &s));
                self.push(inst(
                    Op::And,
                    i.offset,
                    &[temp_d(t, 0xf)],
                    &[temp(t), imm_u(ONE)],
                ));
                self.emit(i, Op::Mov, &[temp(t)])
            }
            Opcode::Sgn => {
                // (x > 0) − (x < 0).
                let s = self.sources::<1>(i)?;
                let (a, b) = (self.temps.scratch(), self.temps.scratch());
                self.push(inst(
                    Op::Lt,
                    i.offset,
                    &[temp_d(a, 0xf)],
                    &[imm_f(0.0), s[0]],
                ));
                self.push(inst(
                    Op::Lt,
                    i.offset,
                    &[temp_d(b, 0xf)],
                    &[s[0], imm_f(0.0)],
                ));
                self.push(inst(
                    Op::And,
                    i.offset,
                    &[temp_d(a, 0xf)],
                    &[temp(a), imm_u(ONE)],
                ));
                self.push(inst(
                    Op::And,
                    i.offset,
                    &[temp_d(b, 0xf)],
                    &[temp(b), imm_u(ONE)],
                ));
                self.emit(i, Op::Add, &[temp(a), negate(temp(b))])
            }
            Opcode::Lrp => {
                // src0 × (src1 − src2) + src2.
                let s = self.sources::<3>(i)?;
                let t = self.temps.scratch();
                self.push(inst(
                    Op::Add,
                    i.offset,
                    &[temp_d(t, 0xf)],
                    &[s[1], negate(s[2])],
                ));
                self.emit(i, Op::MadLegacy, &[s[0], temp(t), s[2]])
            }
            Opcode::Crs => {
                // a.yzx × b.zxy − a.zxy × b.yzx, written to x, y and z only (D3D9 refuses
                // a w in crs's mask; a w there is left unwritten).
                let s = self.sources::<2>(i)?;
                let Some(d) = i.dst else {
                    return Err(Error::internal(i.offset, "crs without destination"));
                };
                let t = self.temps.scratch();
                self.push(inst(
                    Op::MulLegacy,
                    i.offset,
                    &[temp_d(t, 0x7)],
                    &[reswizzle(s[0], [2, 0, 1, 1]), reswizzle(s[1], [1, 2, 0, 0])],
                ));
                self.push(inst(
                    Op::MadLegacy,
                    i.offset,
                    &[temp_d(t, 0x7)],
                    &[
                        reswizzle(s[0], [1, 2, 0, 0]),
                        reswizzle(s[1], [2, 0, 1, 1]),
                        negate(temp(t)),
                    ],
                ));
                self.finish_masked(i, d, 0x7, t)
            }
            Opcode::Cmp => {
                // src0 >= 0 ? src1 : src2.
                let s = self.sources::<3>(i)?;
                let t = self.temps.scratch();
                self.push(inst(
                    Op::Ge,
                    i.offset,
                    &[temp_d(t, 0xf)],
                    &[s[0], imm_f(0.0)],
                ));
                self.emit(i, Op::Movc, &[temp(t), s[1], s[2]])
            }
            Opcode::Cnd => {
                // src0 > 0.5 ? src1 : src2 (before ps_1_4 src0 is r0.a).
                let s = self.sources::<3>(i)?;
                let cond = if self.key < 0x0104 {
                    first_w(s[0])
                } else {
                    s[0]
                };
                let t = self.temps.scratch();
                self.push(inst(
                    Op::Lt,
                    i.offset,
                    &[temp_d(t, 0xf)],
                    &[imm_f(0.5), cond],
                ));
                self.emit(i, Op::Movc, &[temp(t), s[1], s[2]])
            }
            Opcode::Sincos => {
                // .x = cos, .y = sin of the scalar source; other components unchanged.
                let s = self.sources::<1>(i)?;
                let src = first(s[0]);
                let Some(d) = i.dst else {
                    return Err(Error::internal(i.offset, "sincos without destination"));
                };
                let t = self.temps.scratch();
                let sin = temp_d(t, d.mask & 0x2);
                let cos = temp_d(t, d.mask & 0x1);
                let sin = if sin.mask == 0 { null() } else { sin };
                let cos = if cos.mask == 0 { null() } else { cos };
                self.push(inst(Op::Sincos, i.offset, &[sin, cos], &[src]));
                self.finish_masked(i, d, 0x3, t)
            }
            Opcode::M4x4 | Opcode::M4x3 | Opcode::M3x4 | Opcode::M3x3 | Opcode::M3x2 => {
                self.matrix(i)
            }
            Opcode::Dsx => self.simple::<1>(i, Op::DerivRtx),
            Opcode::Dsy => self.simple::<1>(i, Op::DerivRty),
            _ => Err(self.unsupported(i, "not an arithmetic instruction")),
        }
    }

    /// `op` on the first `N` sources.
    fn simple<const N: usize>(&mut self, i: &Instruction, op: Op) -> Result<(), Error> {
        let s = self.sources::<N>(i)?;
        self.emit(i, op, &s)
    }

    /// `op` on the scalar source: the first component of its (replicate) swizzle.
    fn scalar(&mut self, i: &Instruction, op: Op) -> Result<(), Error> {
        let s = self.sources::<1>(i)?;
        self.emit(i, op, &[first(s[0])])
    }

    /// `m4x4`, `m4x3`, `m3x4`, `m3x3`, `m3x2`: one dot product per row, rows in consecutive
    /// registers from the second source.
    fn matrix(&mut self, i: &Instruction) -> Result<(), Error> {
        let (columns, rows) = match i.opcode {
            Opcode::M4x4 => (4, 4),
            Opcode::M4x3 => (4, 3),
            Opcode::M3x4 => (3, 4),
            Opcode::M3x3 => (3, 3),
            _ => (3, 2),
        };
        let op = if columns == 4 {
            Op::Dp4Legacy
        } else {
            Op::Dp3Legacy
        };
        let (Some(d), Some(v), Some(m)) = (i.dst, i.srcs.first(), i.srcs.get(1)) else {
            return Err(Error::internal(
                i.offset,
                "matrix instruction without operands",
            ));
        };
        let v = self.source(v)?;
        let t = self.temps.scratch();
        for row in 0..rows {
            let mut m = *m;
            m.num += row;
            let m = self.source(&m)?;
            self.push(inst(op, i.offset, &[temp_d(t, 1 << row)], &[v, m]));
        }
        self.finish_masked(i, d, (1u8 << rows) - 1, t)
    }

    /// Moves the result computed into temp `t` to the destination `d`, only the components of
    /// `limit` of its mask (the others the instruction leaves unwritten).
    fn finish_masked(
        &mut self,
        i: &Instruction,
        d: crate::front::d3d9::program::Dst,
        limit: u8,
        t: u32,
    ) -> Result<(), Error> {
        let mask = d.mask & limit;
        if mask == 0 {
            return Ok(());
        }
        let dst = self.destination(&d)?;
        let d = crate::front::d3d9::program::Dst { mask, ..d };
        self.finish(i, &d, ir::Dst { mask, ..dst }, t)
    }
}

/// The source's first swizzle component, replicated.
fn first(s: ir::Src) -> ir::Src {
    reswizzle(s, [0; 4])
}

/// The source's w, replicated.
fn first_w(s: ir::Src) -> ir::Src {
    reswizzle(s, [3; 4])
}

/// The null destination.
fn null() -> ir::Dst {
    ir::Dst {
        reg: Reg::Null,
        mask: 0,
    }
}
