//! The back end's warnings: where the module it writes does not do exactly what the shader
//! asked ([`crate::warning`]).
//!
//! Contract: warnings never change the module. [`Emitter::warn`] records one per kind and
//! offset. [`Emitter::program_warnings`] looks at the IR and the options once, before the
//! functions are emitted (the conditions about the program as a whole), and walks the
//! instructions only when one of them can fire; a constant-buffer read past the declared size
//! warns where the operand is loaded ([`Emitter::cbuffer_read`]), the typed-UAV format choice
//! where it is made (`resources.rs`). With nothing to report nothing is allocated.

use super::context::Emitter;
use super::UavFormat;
use crate::ir::{self, GlobalFlags, Index, Op};
use crate::warning::{Warning, WarningKind};

impl Emitter<'_> {
    /// Records a warning of `kind` at `offset` (`message` is called only for a new one), once
    /// per kind and offset.
    pub(super) fn warn(
        &mut self,
        kind: WarningKind,
        offset: Option<u32>,
        message: impl FnOnce() -> String,
    ) {
        if !self
            .warnings
            .iter()
            .any(|w| w.kind == kind && w.offset == offset)
        {
            self.warnings.push(Warning::new(kind, offset, message()));
        }
    }

    /// The warnings about the program as a whole and its operands: minimum precision,
    /// `refactoringAllowed` missing, `discard` as `OpKill`, constant-buffer reads past the
    /// declared size.
    pub(super) fn program_warnings(&mut self) {
        let ir = self.ir;
        if ir.global_flags.contains(GlobalFlags::MINIMUM_PRECISION) {
            self.warn(WarningKind::MinimumPrecisionAt32Bits, None, || {
                "enableMinimumPrecision: minimum-precision values are computed at 32 bits"
                    .to_string()
            });
        }
        let strict = !ir.global_flags.contains(GlobalFlags::REFACTORING_ALLOWED);
        let demote = self.options.demote_to_helper;
        if !strict && demote {
            // Nothing below can warn: no pass over the instructions.
            return;
        }
        let mut seen_strict = !strict;
        let mut seen_discard = demote;
        for inst in &ir.insts {
            if !seen_strict && contractible(inst) {
                seen_strict = true;
                self.warn(
                    WarningKind::StrictFloatOrderNotKept,
                    Some(inst.span),
                    || {
                        "the program does not declare refactoringAllowed, but float operations \
                     outside [precise] instructions are not decorated NoContraction: the \
                     driver may fuse multiplies and adds"
                            .to_string()
                    },
                );
            }
            if !seen_discard && inst.op == Op::Discard {
                seen_discard = true;
                self.warn(WarningKind::DiscardEndsInvocation, Some(inst.span), || {
                    "discard is OpKill (demote to helper is off): the discarded invocation ends, \
                     so derivatives its quad takes afterwards are undefined"
                        .to_string()
                });
            }
            if seen_strict && seen_discard {
                break;
            }
        }
    }

    /// A read of constant buffer `cb` at `slot` (by descriptor or push constants; buffers
    /// bound by device address have no size to check), from the emitter's constant-buffer
    /// operand loads: a constant slot past the declared size reads 0.
    pub(super) fn cbuffer_read(&mut self, span: u32, cb: &ir::CbDecl, slot: &Index) {
        if slot.is_relative() || slot.imm < cb.size.max(1) {
            return;
        }
        let (id, size, imm) = (cb.id, cb.size, slot.imm);
        self.warn(WarningKind::ConstantBufferReadPastSize, Some(span), || {
            format!("cb{id}[{imm}] is past the {size} vectors the buffer declares: it reads 0")
        });
    }
}

fn contractible(inst: &ir::Inst) -> bool {
    matches!(inst.op, Op::Mad | Op::Dp2 | Op::Dp3 | Op::Dp4) && inst.flags.precise == 0
}

impl Emitter<'_> {
    /// Warns that the typed UAV `decl`, read without a listed format, is declared with the R32
    /// format of its return type, `format`.
    pub(super) fn format_assumed(&mut self, decl: &ir::ResourceDecl, format: UavFormat) {
        let (reg, space) = (decl.range.first, decl.range.space);
        self.warn(WarningKind::TypedUavFormatAssumed, Some(decl.span), || {
            format!(
                "typed UAV u{reg} (space {space}) is read but has no listed format: declared \
                 {}, the R32 format of its return type; a view of another format reads wrong \
                 values",
                format.name()
            )
        });
    }
}
