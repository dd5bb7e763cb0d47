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
    /// The sources of `i`, converted.
    fn sources(&mut self, i: &Instruction, n: usize) -> Result<Vec<ir::Src>, Error> {
        let srcs = i.sources();
        if srcs.len() < n {
            return Err(Error::internal(i.offset, "too few sources"));
        }
        srcs.iter().take(n).map(|s| self.source(s)).collect()
    }

    /// Lowers an arithmetic instruction.
    pub(super) fn alu(&mut self, i: &Instruction) -> Result<(), Error> {
        let vs1 = !self.pixel && self.version.major < 2;
        match i.opcode {
            Opcode::Mov | Opcode::Mova if i.dst.is_some_and(|d| d.reg == RegisterType::Address) => {
                // vs_1_1 `mov a0` floors; `mova` rounds to nearest.
                let s = self.sources(i, 1)?;
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
                let s = self.sources(i, 1)?;
                self.emit(i, Op::Mov, &s)
            }
            Opcode::Abs => {
                let mut s = self.sources(i, 1)?;
                if let Some(s) = s.first_mut() {
                    s.modifier = ir::Modifier::Abs;
                }
                self.emit(i, Op::Mov, &s)
            }
            Opcode::Add => self.simple(i, Op::Add, 2),
            Opcode::Sub => {
                let mut s = self.sources(i, 2)?;
                s[1] = negate(s[1]);
                self.emit(i, Op::Add, &s)
            }
            Opcode::Mul => self.simple(i, Op::MulLegacy, 2),
            Opcode::Mad => self.simple(i, Op::MadLegacy, 3),
            Opcode::Dp3 => self.simple(i, Op::Dp3Legacy, 2),
            Opcode::Dp4 => self.simple(i, Op::Dp4Legacy, 2),
            Opcode::Dp2add => self.simple(i, Op::Dp2AddLegacy, 3),
            Opcode::Min => self.simple(i, Op::Min, 2),
            Opcode::Max => self.simple(i, Op::Max, 2),
            Opcode::Frc => self.simple(i, Op::Frc, 1),
            Opcode::Rcp => self.scalar(i, Op::RcpLegacy),
            Opcode::Rsq => self.scalar(i, Op::RsqLegacy),
            Opcode::Exp => self.scalar(i, Op::ExpLegacy),
            Opcode::Log => self.scalar(i, Op::LogLegacy),
            Opcode::Expp if vs1 => self.scalar(i, Op::ExppSm1),
            Opcode::Logp if vs1 => self.scalar(i, Op::LogpSm1),
            Opcode::Expp => self.scalar(i, Op::ExpLegacy),
            Opcode::Logp => self.scalar(i, Op::LogLegacy),
            Opcode::Lit => self.simple(i, Op::Lit, 1),
            Opcode::Dst => self.simple(i, Op::DistVec, 2),
            Opcode::Nrm => self.simple(i, Op::NrmLegacy, 1),
            Opcode::Pow => {
                let s = self.sources(i, 2)?;
                let s = [first(s[0]), first(s[1])];
                self.emit(i, Op::PowLegacy, &s)
            }
            Opcode::Slt | Opcode::Sge => {
                let s = self.sources(i, 2)?;
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
                let s = self.sources(i, 1)?;
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
                let s = self.sources(i, 3)?;
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
                // a.yzx × b.zxy − a.zxy × b.yzx.
                let s = self.sources(i, 2)?;
                let t = self.temps.scratch();
                self.push(inst(
                    Op::MulLegacy,
                    i.offset,
                    &[temp_d(t, 0x7)],
                    &[reswizzle(s[0], [2, 0, 1, 1]), reswizzle(s[1], [1, 2, 0, 0])],
                ));
                self.emit(
                    i,
                    Op::MadLegacy,
                    &[
                        reswizzle(s[0], [1, 2, 0, 0]),
                        reswizzle(s[1], [2, 0, 1, 1]),
                        negate(temp(t)),
                    ],
                )
            }
            Opcode::Cmp => {
                // src0 >= 0 ? src1 : src2.
                let s = self.sources(i, 3)?;
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
                let s = self.sources(i, 3)?;
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
                let s = self.sources(i, 1)?;
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
                let dst = self.destination(&d)?;
                let d = crate::front::d3d9::program::Dst {
                    mask: d.mask & 0x3,
                    ..d
                };
                let dst = ir::Dst {
                    mask: dst.mask & 0x3,
                    ..dst
                };
                self.finish(i, &d, dst, t)
            }
            Opcode::M4x4 | Opcode::M4x3 | Opcode::M3x4 | Opcode::M3x3 | Opcode::M3x2 => {
                self.matrix(i)
            }
            Opcode::Dsx => self.simple(i, Op::DerivRtx, 1),
            Opcode::Dsy => self.simple(i, Op::DerivRty, 1),
            _ => Err(self.unsupported(i, "not an arithmetic instruction")),
        }
    }

    /// `op` on the first `n` sources.
    fn simple(&mut self, i: &Instruction, op: Op, n: usize) -> Result<(), Error> {
        let s = self.sources(i, n)?;
        self.emit(i, op, &s)
    }

    /// `op` on the scalar source: the first component of its (replicate) swizzle.
    fn scalar(&mut self, i: &Instruction, op: Op) -> Result<(), Error> {
        let s = self.sources(i, 1)?;
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
        let dst = self.destination(&d)?;
        let mask = d.mask & ((1u8 << rows) - 1);
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
