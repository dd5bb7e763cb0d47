//! Labels, calls and switches: the parts of control flow that need more than one instruction.
//!
//! Contract:
//! - `label l#` (and `label fb#`, a class-linkage function body) closes the current function
//!   and starts a new [`ir::Function`]; function 0 is the main body up to the first label. A
//!   label defined twice is [`Error::Invalid`]; `l#` and `fb#` are separate namespaces.
//! - `call l#` / `callc l#` name their target as [`ir::Reg::Function`] with the position of the
//!   function the label starts. Labels may be defined after their first call, so targets are
//!   recorded here and resolved when lowering finishes; a label never defined is
//!   [`Error::Invalid`] at the call. A label operand anywhere else is invalid.
//! - Each `switch` gets a fresh, empty [`ir::SwitchTable`] whose position is its
//!   [`ir::Inst::aux`]; the `collect_switch_cases` pass fills it.
//!
//! - `if`, `loop` and `switch` blocks nest at most [`MAX_NESTING_DEPTH`] deep in one function
//!   (each label and hull-shader phase starts again at 0); the block that would be one deeper
//!   is [`Error::Invalid`] at its opening instruction. Balance of the constructs is checked by
//!   [`ir::validate`].

use super::Error;
use super::{insts_len, CallFixup, LabelKind, Lowerer, MAX_NESTING_DEPTH};
use crate::front::dxbc::operand::{Operand, RegisterType};
use crate::front::dxbc::Instruction;
use crate::ir::{self, Op};

impl Lowerer {
    /// Counts the blocks `op` opens or closes; fails when one more would be open than
    /// [`MAX_NESTING_DEPTH`] allows.
    pub(super) fn track_nesting(&mut self, op: Op, at: u32) -> Result<(), Error> {
        match op {
            Op::If | Op::Loop | Op::Switch => {
                self.nesting_depth += 1;
                if self.nesting_depth > MAX_NESTING_DEPTH {
                    return Err(Error::invalid(
                        at,
                        format!(
                            "{} nested if/loop/switch blocks exceeds the limit \
                             {MAX_NESTING_DEPTH}",
                            self.nesting_depth
                        ),
                    ));
                }
            }
            // An unbalanced closer is left to `ir::validate`.
            Op::EndIf | Op::EndLoop | Op::EndSwitch => {
                self.nesting_depth = self.nesting_depth.saturating_sub(1)
            }
            _ => {}
        }
        Ok(())
    }

    /// `label l#`: starts a function.
    pub(super) fn label(&mut self, inst: &Instruction<'_>) -> Result<(), Error> {
        let at = inst.offset;
        let op = inst
            .operands()
            .first()
            .ok_or_else(|| Error::invalid(at, "label without an operand"))?;
        let (label, kind) = if op.ty == RegisterType::FunctionBody {
            (self.function_body_number(op, at)?, LabelKind::FunctionBody)
        } else {
            (self.label_number(op, at)?, LabelKind::Label)
        };
        let start = insts_len(&self.module)?;
        if let Some(current) = self.module.functions.last_mut() {
            current.body.end = start;
        }
        let position = u32::try_from(self.module.functions.len())
            .map_err(|_| Error::invalid(at, "too many functions"))?;
        let (lookup, prefix) = match kind {
            LabelKind::Label => (&mut self.lookup_label, "l"),
            LabelKind::FunctionBody => (&mut self.lookup_body, "fb"),
        };
        if lookup.insert(label, position).is_some() {
            return Err(Error::invalid(
                at,
                format!("label {prefix}{label} is defined twice"),
            ));
        }
        self.module.functions.push(ir::Function {
            label: Some(label),
            body: start..start,
            span: at,
        });
        self.nesting_depth = 0;
        Ok(())
    }

    /// The number of an `fb#` operand (`label fb#`).
    fn function_body_number(&self, op: &Operand, at: u32) -> Result<u32, Error> {
        match op.indices() {
            [index] if index.rel.is_none() => u32::try_from(index.imm)
                .map_err(|_| Error::invalid(at, "function body number over 32 bits")),
            _ => Err(Error::invalid(
                at,
                "function body operand without one immediate index",
            )),
        }
    }

    /// The number of an `l#` operand.
    pub(super) fn label_number(&self, op: &Operand, at: u32) -> Result<u32, Error> {
        if op.ty != RegisterType::Label {
            return Err(Error::invalid(
                at,
                format!("{} operand where a label is required", op.ty.prefix()),
            ));
        }
        match op.indices() {
            [index] if index.rel.is_none() => u32::try_from(index.imm)
                .map_err(|_| Error::invalid(at, "label number over 32 bits")),
            _ => Err(Error::invalid(
                at,
                "label operand without one immediate index",
            )),
        }
    }

    /// Records that source `src` of the instruction about to be appended at `position` calls
    /// `label`.
    pub(super) fn call_target(
        &mut self,
        position: usize,
        src: usize,
        label: u32,
        at: u32,
        op: Op,
    ) -> Result<(), Error> {
        if !matches!(op, Op::Call | Op::Callc) {
            return Err(Error::invalid(
                at,
                format!("label operand in {}", op.name()),
            ));
        }
        self.call_fixups.push(CallFixup {
            inst: position,
            src,
            label,
            kind: LabelKind::Label,
            offset: at,
        });
        Ok(())
    }

    /// A new, empty switch table; returns its position.
    pub(super) fn new_switch_table(&mut self) -> Result<ir::SwitchId, Error> {
        let position = u32::try_from(self.module.switches.len())
            .map_err(|_| Error::invalid(0, "too many switches"))?;
        self.module.switches.push(ir::SwitchTable::default());
        Ok(ir::SwitchId::new(position))
    }
}
