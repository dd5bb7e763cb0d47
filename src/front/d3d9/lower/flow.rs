//! D3D9 control flow → IR structured control flow: `if b#`, `if_comp`, `if p0`, `rep`,
//! `loop aL, i#`, `break*`, `call*`, `ret`, and `setp`.
//!
//! Contract: `rep i#` and `loop aL, i#` run `i#.x` iterations (none when it is ≤ 0) with
//! their own counter, so a step of 0 still ends; `loop` sets `aL = i#.y` and adds `i#.z`
//! after each iteration, and restores the outer loop's `aL` when it exits (each nesting depth
//! keeps the outer value in its own temp). Comparisons are D3D9's float comparisons.

use crate::error::Error;
use crate::front::d3d9::opcodes::{Comparison, Opcode};
use crate::front::d3d9::program::{Instruction, RegisterType, Src, SrcModifier};
use crate::ir::{self, Op, Reg, Test};

use super::operand::{imm_u, inst, reswizzle, temp, temp_c, temp_d};
use super::Lowering;

impl Lowering<'_, '_> {
    /// Lowers a control-flow instruction.
    pub(super) fn flow(&mut self, i: &Instruction) -> Result<(), Error> {
        let span = i.offset;
        match i.opcode {
            Opcode::If => {
                let (cond, test) = self.boolean(i, 0)?;
                self.nesting += 1;
                self.conditional(Op::If, span, cond, test);
                Ok(())
            }
            Opcode::Ifc => {
                let cond = self.compare(i)?;
                self.nesting += 1;
                self.conditional(Op::If, span, cond, Test::NonZero);
                Ok(())
            }
            Opcode::Else => {
                self.push(ir::Inst::new(Op::Else, span));
                Ok(())
            }
            Opcode::Endif => {
                self.close(i)?;
                self.push(ir::Inst::new(Op::EndIf, span));
                Ok(())
            }
            Opcode::Break => {
                self.push(ir::Inst::new(Op::Break, span));
                Ok(())
            }
            Opcode::Breakc => {
                let cond = self.compare(i)?;
                self.conditional(Op::Breakc, span, cond, Test::NonZero);
                Ok(())
            }
            Opcode::Breakp => {
                let (cond, test) = self.boolean(i, 0)?;
                self.conditional(Op::Breakc, span, cond, test);
                Ok(())
            }
            Opcode::Rep | Opcode::Loop => self.open_loop(i),
            Opcode::Endrep | Opcode::Endloop => self.close_loop(i),
            Opcode::Call => {
                let f = self.function(i, 0)?;
                self.push(inst(Op::Call, span, &[], &[f]));
                Ok(())
            }
            Opcode::Callnz => {
                let f = self.function(i, 0)?;
                let (cond, test) = self.boolean(i, 1)?;
                let mut x = inst(Op::Callc, span, &[], &[cond, f]);
                x.flags.test = test;
                self.push(x);
                Ok(())
            }
            Opcode::Ret => {
                if self.in_main {
                    // A return from inside main's flow control would skip the epilogue.
                    return Err(
                        self.unsupported(i, "`ret` inside flow control of the main program")
                    );
                }
                self.push(ir::Inst::new(Op::Ret, span));
                Ok(())
            }
            Opcode::Setp => {
                let op = self.comparison(i)?;
                let Some(d) = i.dst else {
                    return Err(Error::internal(span, "setp without destination"));
                };
                let s = [self.source(&i.srcs[0])?, self.source(&i.srcs[1])?];
                let (a, b, op) = op.operands(s[0], s[1]);
                let p0 = self
                    .temps
                    .p0
                    .ok_or_else(|| Error::internal(span, "p0 without temp"))?;
                if i.predicated {
                    let t = self.temps.scratch();
                    self.push(inst(op, span, &[temp_d(t, d.mask)], &[a, b]));
                    return self.finish(i, &d, temp_d(p0, d.mask), t);
                }
                self.push(inst(op, span, &[temp_d(p0, d.mask)], &[a, b]));
                Ok(())
            }
            Opcode::Label => Err(Error::internal(span, "label inside a function")),
            _ => Err(self.unsupported(i, "not a control-flow instruction")),
        }
    }

    /// Pushes `op` (`if`, `breakc`) on component x of `cond`.
    fn conditional(&mut self, op: Op, span: u32, cond: ir::Src, test: Test) {
        let mut x = inst(op, span, &[], &[cond]);
        x.flags.test = test;
        self.push(x);
    }

    /// Leaves one level of nesting.
    fn close(&mut self, i: &Instruction) -> Result<(), Error> {
        self.nesting = self
            .nesting
            .checked_sub(1)
            .ok_or_else(|| Error::invalid(i.offset, "closes a construct that is not open"))?;
        Ok(())
    }

    /// A bool operand (`b#`, `p0.c`, `!p0.c`) as a condition and the test that takes it.
    fn boolean(&mut self, i: &Instruction, n: usize) -> Result<(ir::Src, Test), Error> {
        let Some(s) = i.sources().get(n) else {
            return Err(Error::internal(i.offset, "missing condition"));
        };
        let test = if s.modifier == SrcModifier::Not {
            Test::Zero
        } else {
            Test::NonZero
        };
        let src = match s.reg {
            RegisterType::ConstBool => temp_c(self.bool_constant(s.num, s.offset)?, 0),
            RegisterType::Predicate => {
                let plain = Src {
                    modifier: SrcModifier::None,
                    ..*s
                };
                let p = self.source(&plain)?;
                reswizzle(p, [0; 4])
            }
            _ => {
                return Err(Error::invalid(
                    s.offset,
                    "a condition that is not a bool constant or p0",
                ))
            }
        };
        Ok((src, test))
    }

    /// The comparison of `if_comp`/`break_comp`/`setp_comp`.
    fn comparison(&self, i: &Instruction) -> Result<Cmp, Error> {
        Comparison::from_controls(i.controls)
            .map(Cmp)
            .ok_or_else(|| {
                Error::invalid(
                    i.offset,
                    format!("comparison {} is not defined", i.controls),
                )
            })
    }

    /// `if_comp`/`break_comp`: the comparison of the two scalar sources, `~0`/`0` in x.
    fn compare(&mut self, i: &Instruction) -> Result<ir::Src, Error> {
        let op = self.comparison(i)?;
        let s = [self.source(&i.srcs[0])?, self.source(&i.srcs[1])?];
        let (a, b, op) = op.operands(reswizzle(s[0], [0; 4]), reswizzle(s[1], [0; 4]));
        let t = self.temps.scratch();
        self.push(inst(op, i.offset, &[temp_d(t, 0x1)], &[a, b]));
        Ok(temp_c(t, 0))
    }

    /// The IR function of `call`'s label operand `n`.
    fn function(&self, i: &Instruction, n: usize) -> Result<ir::Src, Error> {
        let Some(l) = i.sources().get(n) else {
            return Err(Error::internal(i.offset, "call without label"));
        };
        let f = self
            .labels
            .iter()
            .find(|&&(num, _)| num == l.num)
            .map(|&(_, f)| f)
            .ok_or_else(|| {
                Error::invalid(
                    l.offset,
                    format!("call to l{}, which is not defined", l.num),
                )
            })?;
        Ok(ir::Src::new(Reg::Function(f)))
    }

    /// `rep i#` / `loop aL, i#`.
    fn open_loop(&mut self, i: &Instruction) -> Result<(), Error> {
        let span = i.offset;
        let Some(&(counter, saved)) = self.temps.loops.get(self.loop_depth) else {
            return Err(Error::internal(span, "loop deeper than counted"));
        };
        let is_loop = i.opcode == Opcode::Loop;
        let count_src = if is_loop {
            i.srcs.get(1)
        } else {
            i.srcs.first()
        };
        let Some(count_src) = count_src.copied() else {
            return Err(Error::internal(span, "loop without its constant"));
        };
        let c = self.source(&count_src)?;
        self.push(inst(
            Op::Mov,
            span,
            &[temp_d(counter, 0x1)],
            &[reswizzle(c, [0; 4])],
        ));
        if is_loop {
            let al = self
                .temps
                .al
                .ok_or_else(|| Error::internal(span, "aL without temp"))?;
            self.push(inst(Op::Mov, span, &[temp_d(saved, 0x1)], &[temp_c(al, 0)]));
            self.push(inst(
                Op::Mov,
                span,
                &[temp_d(al, 0x1)],
                &[reswizzle(c, [1; 4])],
            ));
        }
        self.push(ir::Inst::new(Op::Loop, span));
        // Leave when no iteration is left.
        let t = self.temps.scratch();
        self.push(inst(
            Op::Ige,
            span,
            &[temp_d(t, 0x1)],
            &[imm_u(0), temp_c(counter, 0)],
        ));
        self.conditional(Op::Breakc, span, temp_c(t, 0), Test::NonZero);
        self.loop_depth += 1;
        self.nesting += 1;
        self.loop_stack.push((is_loop, count_src));
        Ok(())
    }

    /// `endrep` / `endloop`.
    fn close_loop(&mut self, i: &Instruction) -> Result<(), Error> {
        let span = i.offset;
        let Some((is_loop, count_src)) = self.loop_stack.pop() else {
            return Err(Error::invalid(span, "end of a loop that is not open"));
        };
        self.close(i)?;
        self.loop_depth = self.loop_depth.saturating_sub(1);
        let Some(&(counter, saved)) = self.temps.loops.get(self.loop_depth) else {
            return Err(Error::internal(span, "loop deeper than counted"));
        };
        self.push(inst(
            Op::Iadd,
            span,
            &[temp_d(counter, 0x1)],
            &[temp_c(counter, 0), imm_u(!0)],
        ));
        if is_loop {
            let al = self
                .temps
                .al
                .ok_or_else(|| Error::internal(span, "aL without temp"))?;
            let c = self.source(&count_src)?;
            self.push(inst(
                Op::Iadd,
                span,
                &[temp_d(al, 0x1)],
                &[temp_c(al, 0), reswizzle(c, [2; 4])],
            ));
        }
        self.push(ir::Inst::new(Op::EndLoop, span));
        if is_loop {
            let al = self
                .temps
                .al
                .ok_or_else(|| Error::internal(span, "aL without temp"))?;
            self.push(inst(Op::Mov, span, &[temp_d(al, 0x1)], &[temp(saved)]));
        }
        Ok(())
    }
}

/// A D3D9 comparison as IR float comparison operands.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cmp(Comparison);

impl Cmp {
    /// `(a, b, op)` such that `op(a, b)` is the comparison of `x` with `y`.
    fn operands(self, x: ir::Src, y: ir::Src) -> (ir::Src, ir::Src, Op) {
        match self.0 {
            Comparison::Gt => (y, x, Op::Lt),
            Comparison::Eq => (x, y, Op::Eq),
            Comparison::Ge => (x, y, Op::Ge),
            Comparison::Lt => (x, y, Op::Lt),
            Comparison::Ne => (x, y, Op::Ne),
            Comparison::Le => (y, x, Op::Ge),
        }
    }
}
