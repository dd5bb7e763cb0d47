//! DXBC's structured control flow → SPIR-V structured control flow (SPIR-V spec §2.11).
//!
//! - `if`: `OpSelectionMerge`, a then block, an else block (always emitted, so the false edge
//!   never targets the merge directly), and the merge block.
//! - `loop`: a header with `OpLoopMerge`, the body, a continue block that only branches back to
//!   the header, and the merge block; `break`/`continue` branch to merge/continue.
//! - `switch`: `OpSelectionMerge` + `OpSwitch` with one label per run of case labels (tables
//!   from the `collect_switch_cases` pass); a block that ends without `break` falls through
//!   into the next case block.
//! - Conditional forms (`breakc`, `continuec`, `retc`, `callc`) become a small selection.
//! - After a terminator, emission continues lazily: the next instruction opens a fresh
//!   (unreachable) block, and closing a construct branches only from an open block.

use spirv::{LoopControl, SelectionControl};

use super::context::{Emitter, Frame, Scalar};
use crate::back::spirv::Error;
use crate::ir::{ControlFlowOp, Inst, Op, OpKind, Test};
use crate::spv::Id;

/// The start of a selection's one part: its block and the register writes recorded before it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Part {
    serial: u32,
    writes: u32,
}

impl Emitter<'_> {
    /// Opens a new (unreachable) block when the previous one was terminated.
    pub fn ensure_block(&mut self) {
        if !self.m.in_block() {
            self.m.new_block();
        }
    }

    /// Returns from the function being emitted. Register writes are stored first when the
    /// registers outlive it (Private variables that other functions read), and dropped when
    /// they are its own variables.
    pub fn end_with_return(&mut self) -> Result<(), Error> {
        if self.temps_are_local() {
            self.forget_temp_writes();
        } else {
            self.flush_temps()?;
        }
        self.m.ret();
        Ok(())
    }

    /// Branches to `target` when a block is open.
    fn close_to(&mut self, target: Id) {
        if self.m.in_block() {
            self.m.branch(target);
        }
    }

    /// The condition of a conditional instruction: source `i`'s first component tested by
    /// the instruction's `_z`/`_nz`.
    pub fn condition(&mut self, inst: &Inst, i: usize) -> Result<Id, Error> {
        let v = self.load_src(inst, i, 1, Scalar::U32)?;
        let b = self.ty(Scalar::Bool, 1);
        let zero = self.u32_const(0);
        Ok(match inst.flags.test {
            Test::NonZero => self.m.i_not_equal(b, v.id, zero),
            Test::Zero => self.m.i_equal(b, v.id, zero),
        })
    }

    /// Emits `if (cond) { body }` around `body`, continuing in the merge block.
    pub fn guarded(
        &mut self,
        cond: Id,
        body: impl FnOnce(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let then = self.m.alloc_id();
        let merge = self.m.alloc_id();
        self.flush_temps()?;
        self.m.selection_merge(merge, SelectionControl::NONE);
        self.m.branch_conditional(cond, then, merge);
        let part = self.enter_part(then);
        body(self)?;
        if self.m.in_block() {
            self.flush_temps()?;
        }
        let unchanged = self.part_unchanged(part);
        self.close_to(merge);
        self.m.label(merge);
        self.pass_on_if(unchanged, part);
        Ok(())
    }

    /// Starts block `label`, the one part of a small selection (see [`Emitter::enter_dominated`]).
    pub(super) fn enter_part(&mut self, label: Id) -> Part {
        Part {
            serial: self.enter_dominated(label),
            writes: self.temp_values.writes(),
        }
    }

    /// Whether `part` stayed in its one block and wrote no register: then the selection's
    /// merge, reached from the header or that block, sees the registers as the header left
    /// them.
    pub(super) fn part_unchanged(&self, part: Part) -> bool {
        self.m.block_serial() == part.serial && self.temp_values.writes() == part.writes
    }

    /// In the merge block just started: sees what the header saw, when `unchanged` (from
    /// [`Emitter::part_unchanged`]).
    pub(super) fn pass_on_if(&mut self, unchanged: bool, part: Part) {
        if unchanged {
            self.temp_values.pass_on(part.serial, self.m.block_serial());
        }
    }

    /// At a `loop` (the instruction at [`Emitter::position`]): forgets the records of the
    /// registers the loop writes, and returns whether the others hold what they hold now all
    /// through the loop: `false` when it calls a subroutine (which may write any), or its end
    /// is missing.
    fn forget_loop_writes(&mut self) -> bool {
        let rest = self.flow.body.get(self.flow.position + 1..).unwrap_or(&[]);
        let mut depth = 0usize;
        for inst in rest {
            match inst.op {
                Op::Loop => depth += 1,
                Op::EndLoop if depth == 0 => return true,
                Op::EndLoop => depth -= 1,
                Op::Call | Op::Callc => return false,
                _ => {}
            }
            for d in inst.dst() {
                if let crate::ir::Reg::Temp(n) = d.reg {
                    self.temp_values.forget(n);
                }
            }
        }
        false
    }

    /// Starts block `label`, which the current block dominates with nothing between them (the
    /// first block of a selection): it knows the registers as the current block left them.
    /// Returns the new block's serial.
    pub(super) fn enter_dominated(&mut self, label: Id) -> u32 {
        let parent = self.m.block_serial();
        self.m.label(label);
        let child = self.m.block_serial();
        self.temp_values.inherit(parent, child);
        child
    }

    /// The merge block a `break` goes to, now marked reached.
    fn innermost_break(&mut self, span: u32) -> Result<Id, Error> {
        self.flow
            .frames
            .iter_mut()
            .rev()
            .find_map(|f| match f {
                Frame::Loop { merge, reached, .. } => {
                    *reached = true;
                    Some(*merge)
                }
                Frame::Switch { merge, .. } => Some(*merge),
                Frame::If { .. } => None,
            })
            .ok_or_else(|| Error::internal(span, "break outside a loop or switch"))
    }

    /// Places the merge block `merge` of a construct; when no branch reaches it (both parts of
    /// an `if` left, a loop without a `break`), the block is unreachable: it ends at once, so
    /// the code after the construct up to the enclosing construct's next part is skipped as
    /// after any terminator (structured control flow wants no branch out of unreachable code
    /// into the enclosing constructs).
    fn place_merge(&mut self, merge: Id, reached: bool) {
        self.m.label(merge);
        if !reached {
            self.m.unreachable();
        }
    }

    fn innermost_continue(&self, span: u32) -> Result<Id, Error> {
        self.flow
            .frames
            .iter()
            .rev()
            .find_map(|f| match f {
                Frame::Loop {
                    continue_target, ..
                } => Some(*continue_target),
                _ => None,
            })
            .ok_or_else(|| Error::internal(span, "continue outside a loop"))
    }

    /// Emits one control-flow instruction.
    pub fn control_flow(&mut self, inst: &Inst) -> Result<(), Error> {
        let is_case = matches!(inst.op, Op::Case | Op::Default);
        let after_case = std::mem::replace(&mut self.flow.after_case, is_case);
        if !matches!(inst.op, Op::Nop | Op::Ret) {
            // Each of these ends the block, or may (conditionally, or by a call).
            self.flush_temps()?;
        }
        let OpKind::ControlFlow(op) = inst.op.kind() else {
            return Err(Error::unsupported(
                inst.span,
                format!("`{}`", inst.op.name()),
            ));
        };
        // Every control-flow operation has its arm (no catch-all).
        match op {
            ControlFlowOp::If => {
                self.ensure_block();
                let cond = self.condition(inst, 0)?;
                let then = self.m.alloc_id();
                let else_label = self.m.alloc_id();
                let merge = self.m.alloc_id();
                let lineage = self.temp_values.lineage(self.m.block_serial());
                let calls = self.temp_values.calls();
                self.m.selection_merge(merge, SelectionControl::NONE);
                self.m.branch_conditional(cond, then, else_label);
                self.enter_dominated(then);
                self.flow.frames.push(Frame::If {
                    else_label,
                    merge,
                    has_else: false,
                    reached: false,
                    lineage,
                    calls,
                });
            }
            ControlFlowOp::Else => {
                let in_block = self.m.in_block();
                let Some(Frame::If {
                    else_label,
                    merge,
                    has_else,
                    reached,
                    lineage,
                    ..
                }) = self.flow.frames.last_mut()
                else {
                    return Err(Error::internal(inst.span, "else without if"));
                };
                *has_else = true;
                *reached |= in_block;
                let (else_label, merge, lineage) = (*else_label, *merge, *lineage);
                self.close_to(merge);
                // Reached from the block before the `if` alone: what the first part did is in
                // records made its blocks', which this one does not see.
                self.m.label(else_label);
                self.temp_values.adopt(&lineage, self.m.block_serial());
            }
            ControlFlowOp::EndIf => {
                let Some(Frame::If {
                    else_label,
                    merge,
                    has_else,
                    reached,
                    lineage,
                    calls,
                }) = self.flow.frames.pop()
                else {
                    return Err(Error::internal(inst.span, "endif without if"));
                };
                // Without `else`, the false branch goes to the merge.
                let reached = reached || self.m.in_block() || !has_else;
                self.close_to(merge);
                if !has_else {
                    self.m.label(else_label);
                    self.m.branch(merge);
                }
                self.place_merge(merge, reached);
                // The block before the `if` dominates the merge; a register either part wrote
                // (or read) has a record of that part's blocks, which the merge does not see.
                // A call in a part may have written any register: then nothing carries.
                if self.temp_values.calls() == calls {
                    self.temp_values.adopt(&lineage, self.m.block_serial());
                }
            }
            ControlFlowOp::Loop => {
                let header = self.m.alloc_id();
                let body = self.m.alloc_id();
                let continue_target = self.m.alloc_id();
                let merge = self.m.alloc_id();
                // The registers the loop does not write hold, all through it and after it,
                // what they held before it: the header (and so the body and the merge) starts
                // from that, the records of the others forgotten.
                let lineage = if self.forget_loop_writes() {
                    Some(self.temp_values.lineage(self.m.block_serial()))
                } else {
                    None
                };
                self.close_to(header);
                self.m.label(header);
                if let Some(lineage) = &lineage {
                    self.temp_values.adopt(lineage, self.m.block_serial());
                }
                self.m.loop_merge(merge, continue_target, LoopControl::NONE);
                self.m.branch(body);
                self.enter_dominated(body);
                self.flow.frames.push(Frame::Loop {
                    header,
                    continue_target,
                    merge,
                    reached: false,
                    lineage,
                });
            }
            ControlFlowOp::EndLoop => {
                let Some(Frame::Loop {
                    header,
                    continue_target,
                    merge,
                    reached,
                    lineage,
                }) = self.flow.frames.pop()
                else {
                    return Err(Error::internal(inst.span, "endloop without loop"));
                };
                self.close_to(continue_target);
                self.m.label(continue_target);
                self.m.branch(header);
                self.place_merge(merge, reached);
                if let Some(lineage) = &lineage {
                    self.temp_values.adopt(lineage, self.m.block_serial());
                }
            }
            ControlFlowOp::Break => {
                let target = self.innermost_break(inst.span)?;
                self.close_to(target);
            }
            ControlFlowOp::Continue => {
                let target = self.innermost_continue(inst.span)?;
                self.close_to(target);
            }
            ControlFlowOp::Breakc | ControlFlowOp::Continuec => {
                let target = if inst.op == Op::Breakc {
                    self.innermost_break(inst.span)?
                } else {
                    self.innermost_continue(inst.span)?
                };
                self.ensure_block();
                let cond = self.condition(inst, 0)?;
                self.guarded(cond, |e| {
                    e.m.branch(target);
                    Ok(())
                })?;
            }
            ControlFlowOp::Ret => {
                if self.m.in_block() {
                    self.end_with_return()?;
                }
            }
            ControlFlowOp::Retc => {
                self.ensure_block();
                let cond = self.condition(inst, 0)?;
                self.guarded(cond, |e| {
                    e.m.ret();
                    Ok(())
                })?;
            }
            ControlFlowOp::Call => {
                self.ensure_block();
                self.call(inst, 0)?;
            }
            ControlFlowOp::Callc => {
                self.ensure_block();
                let cond = self.condition(inst, 0)?;
                self.guarded(cond, |e| e.call(inst, 1))?;
            }
            ControlFlowOp::Switch => self.switch(inst)?,
            ControlFlowOp::Case | ControlFlowOp::Default => {
                if !after_case {
                    let Some(Frame::Switch { blocks, next, .. }) = self.flow.frames.last_mut()
                    else {
                        return Err(Error::internal(inst.span, "case outside a switch"));
                    };
                    let label = *blocks.get(*next).ok_or_else(|| {
                        Error::internal(inst.span, "more case blocks than counted")
                    })?;
                    *next += 1;
                    // Fall-through from the previous case block.
                    self.close_to(label);
                    self.m.label(label);
                }
            }
            ControlFlowOp::EndSwitch => {
                let Some(Frame::Switch { merge, .. }) = self.flow.frames.pop() else {
                    return Err(Error::internal(inst.span, "endswitch without switch"));
                };
                self.close_to(merge);
                self.m.label(merge);
            }
            ControlFlowOp::Nop => {}
        }
        Ok(())
    }

    fn call(&mut self, inst: &Inst, i: usize) -> Result<(), Error> {
        let target = inst.src().get(i).map(|s| s.reg);
        let Some(crate::ir::Reg::Function(f)) = target else {
            return Err(Error::internal(inst.span, "call without a label"));
        };
        let id = self.function_id(inst.span, f)?;
        let void = self.m.type_void();
        self.temp_values.note_call();
        self.m.function_call(void, id, &[]);
        Ok(())
    }

    fn switch(&mut self, inst: &Inst) -> Result<(), Error> {
        self.ensure_block();
        let selector = self.load_src(inst, 0, 1, Scalar::U32)?;
        let table = inst
            .payload
            .switch()
            .and_then(|id| self.ir.switches.get(id.index()))
            .ok_or_else(|| Error::internal(inst.span, "switch without a case table"))?;
        let blocks: Vec<Id> = (0..table.blocks).map(|_| self.m.alloc_id()).collect();
        let merge = self.m.alloc_id();
        let label_of = |b: u32| blocks.get(b as usize).copied();
        let default = match table.default {
            Some(b) => {
                label_of(b).ok_or_else(|| Error::internal(inst.span, "bad default block"))?
            }
            None => merge,
        };
        let mut cases: Vec<(u32, Id)> = Vec::with_capacity(table.cases.len());
        for &(value, b) in &table.cases {
            let label = label_of(b).ok_or_else(|| Error::internal(inst.span, "bad case block"))?;
            if cases.iter().any(|&(v, _)| v == value) {
                return Err(Error::internal(
                    inst.span,
                    format!("duplicate case {value}"),
                ));
            }
            cases.push((value, label));
        }
        self.m.selection_merge(merge, SelectionControl::NONE);
        self.m.switch(selector.id, default, &cases);
        self.flow.frames.push(Frame::Switch {
            merge,
            blocks,
            next: 0,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::spv::tests::tools;
    use crate::{translate, Options, Target};

    /// Code after `ret`, `break` or `continue` (unreachable, nested constructs included) is not
    /// emitted: an unreachable block branching to a loop's continue target or a merge would
    /// break SPIR-V's structured-control-flow rules (found by the translate smoke run).
    #[test]
    fn unreachable_code_after_terminators_is_skipped() {
        let body = "cs_5_0\ndcl_uav_raw u0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n\
            mov r0.x, l(0)\n\
            loop\n  breakc_nz r0.x\n  ret\n  mov r1.x, l(1)\n  if_nz r1.x\n    mov r1.y, l(2)\n  \
            else\n    mov r1.y, l(3)\n  endif\n  store_raw u0.x, l(0), r1.y\nendloop\n\
            loop\n  iadd r0.x, r0.x, l(1)\n  uge r1.x, r0.x, l(4)\n  if_nz r1.x\n    break\n    \
            mov r1.z, l(5)\n  endif\n  switch r0.x\n    case l(1)\n      continue\n      \
            mov r1.w, l(6)\n    default\n      break\n      loop\n        mov r1.w, l(7)\n      \
            endloop\n  endswitch\nendloop\n\
            store_raw u0.x, l(0), r0.x\nret\nmov r0.y, l(9)\n";
        let bytes = crate::test_support::assemble(body);
        for target in [Target::Vulkan1_0, Target::Vulkan1_3] {
            let options = Options {
                target,
                ..Options::default()
            };
            let t = translate(&bytes, &options).unwrap_or_else(|e| panic!("{e}"));
            tools::validate(&t.spirv, target.name());
            let text = tools::disassemble(&t.spirv).unwrap_or_default();
            // The constants 2, 3, 5, 6, 7 and 9 only appear in unreachable code.
            if !text.is_empty() {
                assert!(!text.contains("%uint_9"), "{text}");
                assert!(!text.contains("%uint_7"), "{text}");
            }
        }
    }

    /// A construct whose merge no branch reaches (an `if` whose parts both leave, a loop
    /// without `break`) makes the code after it unreachable; emitted, a `switch` there whose
    /// case continues the enclosing loop was invalid SPIR-V (found by the generated-program
    /// smoke run). The merge block now ends at once and that code is skipped.
    #[test]
    fn code_after_a_construct_with_an_unreachable_merge_is_skipped() {
        let tails = "switch r0.y\n  case l(1)\n    continuec_nz r0.z\n    mov r0.w, l(7)\n    \
                     break\nendswitch\nbreakc_nz r0.w\n";
        // The unreachable tail after an `if` whose parts both leave, and after a loop that
        // only returns (inside an `if`, so the code after that `if` is reachable again).
        let bodies = [
            format!("if_nz r0.x\n  continue\nelse\n  ret\nendif\n{tails}"),
            format!("if_nz r0.x\n  loop\n    ret\n  endloop\n{tails}endif\nbreak\n"),
        ];
        for head in bodies {
            let body = format!("vs_5_0\ndcl_temps 1\nloop\n{head}endloop\nmov r0.x, l(9)\nret\n");
            let bytes = crate::test_support::assemble(&body);
            let t = translate(&bytes, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
            tools::validate(&t.spirv, Target::Vulkan1_1.name());
            let text = tools::disassemble(&t.spirv).unwrap_or_default();
            if !text.is_empty() {
                // 7 is written only after the unreachable merge.
                assert!(!text.contains("%uint_7"), "{head}: {text}");
            }
        }
    }
}
