//! Executable instructions → [`ir::Inst`]: the opcode, its controls and its operands.
//!
//! Contract:
//! - Every executable DXBC opcode maps to the [`ir::Op`] with the same mnemonic
//!   ([`executable_op`], a lookup by opcode number built from the two tables); operands keep
//!   DXBC's order. The one reordering is the
//!   `imm_atomic_*` family, whose DXBC destination list holds the UAV or `g#` after the result:
//!   in the IR the result is the only destination and the memory operand is the first source,
//!   as [`ir::Op`]'s operand convention requires.
//! - Controls: `_sat` (not on `sync`, whose flag bits overlap it), the `[precise]` mask, the
//!   `_z`/`_nz` test of conditionals, the `sync` flags (bit 0 `_t`, 1 `_g`, 2 `_ugroup`,
//!   3 `_uglobal`, as in the token). [`ir::Inst::payload`] holds the texel offsets of texture
//!   operations and the return type of `resinfo` and `sampleinfo`; `switch` gets its table in
//!   `control_flow.rs`, `emit`/`cut` their stream. Resource-dimension and return-type extended
//!   tokens repeat the declaration and are not kept.
//! - The tiled-resource (`_s`) opcodes and `check_access_fully_mapped` map to their own
//!   operations; their status operand is the second destination, as in DXBC.
//! - Opcodes with no IR operation are [`Error::Unsupported`] naming the feature: geometry
//!   streams, `abort` and `debug_break`. `fcall` is lowered by `class_linkage.rs`, an SM5.0
//!   operand with a dynamic register number (`t[r0.x + 0]`) by `dynamic_register.rs`.

use super::Error;
use super::Lowerer;
use crate::front::dxbc::opcodes::{Class, Opcode, Slot};
use crate::front::dxbc::operand::RegisterType;
use crate::front::dxbc::Instruction;
use crate::ir::{self, Op};

/// One past the largest opcode number.
const OPCODE_LIMIT: usize = match Opcode::ALL.last() {
    Some(last) => *last as usize + 1,
    None => 0,
};

/// The IR operation of each DXBC opcode, by opcode number: the [`ir::Op`] with the opcode's
/// mnemonic, found in the IR's operation table when this constant is built.
static IR_OPS: [Option<Op>; OPCODE_LIMIT] = {
    let mut table = [None; OPCODE_LIMIT];
    let mut i = 0;
    while i < Opcode::ALL.len() {
        let opcode = Opcode::ALL[i];
        table[opcode as usize] = Op::from_name(opcode.name());
        i += 1;
    }
    table
};

/// The IR operation of an executable opcode, `None` for declarations, `label`, `customdata`
/// and the opcodes without one.
#[inline]
pub(super) fn executable_op(opcode: Opcode) -> Option<Op> {
    IR_OPS.get(opcode as usize).copied().flatten()
}

/// The feature an executable opcode without an IR operation needs.
fn unsupported_feature(opcode: Opcode) -> String {
    match opcode {
        Opcode::Abort => "abort".into(),
        Opcode::DebugBreak => "debug_break".into(),
        other => other.name().into(),
    }
}

/// True for the operations whose DXBC form writes a result and then names the memory it
/// works on as a second destination.
fn returns_and_names_memory(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        ImmAtomicIadd
            | ImmAtomicAnd
            | ImmAtomicOr
            | ImmAtomicXor
            | ImmAtomicExch
            | ImmAtomicCmpExch
            | ImmAtomicImax
            | ImmAtomicImin
            | ImmAtomicUmax
            | ImmAtomicUmin
    )
}

/// The controls of `inst` as the IR keeps them.
fn flags(inst: &Instruction<'_>, op: Op) -> ir::InstFlags {
    let token = inst.token;
    let conditional = matches!(
        op,
        Op::If | Op::Breakc | Op::Continuec | Op::Retc | Op::Callc | Op::Discard
    );
    ir::InstFlags {
        saturate: op != Op::Sync && token.saturate(),
        precise: token.precise_mask() as u8,
        test: if !conditional || token.test_nonzero() {
            ir::Test::NonZero
        } else {
            ir::Test::Zero
        },
        sync: if op == Op::Sync {
            token.sync_flags() as u8
        } else {
            0
        },
    }
}

/// The operation-specific [`ir::Payload`] (the switch table is set elsewhere).
fn payload(inst: &Instruction<'_>, op: Op) -> ir::Payload {
    let return_type = inst.token.return_type();
    match op {
        Op::Resinfo => ir::Payload::Resinfo(match return_type {
            0 => ir::ResinfoReturn::Float,
            1 => ir::ResinfoReturn::RcpFloat,
            2 => ir::ResinfoReturn::Uint,
            _ => ir::ResinfoReturn::Reserved,
        }),
        Op::SampleInfo => ir::Payload::Sampleinfo(if return_type == 1 {
            ir::SampleinfoReturn::Uint
        } else {
            ir::SampleinfoReturn::Float
        }),
        // Each offset is a sign-extended 4-bit field. The (rare) extended token is looked at
        // before the opcode's class.
        _ => match inst.texel_offsets() {
            Some([u, v, w]) if inst.opcode.class() == Class::Texture => {
                ir::Payload::TexelOffsets([u as i8, v as i8, w as i8])
            }
            _ => ir::Payload::None,
        },
    }
}

impl Lowerer {
    /// Lowers one executable instruction and appends it to the current function.
    pub(super) fn executable(&mut self, inst: &Instruction<'_>) -> Result<(), Error> {
        let at = inst.offset;
        let stream_op = match inst.opcode {
            Opcode::EmitStream => Some(Op::Emit),
            Opcode::CutStream => Some(Op::Cut),
            Opcode::EmitThenCutStream => Some(Op::EmitThenCut),
            _ => None,
        };
        if let Some(op) = stream_op {
            let mut out = ir::Inst::new(op, at);
            out.payload = ir::Payload::Stream(self.stream_operand(inst)?);
            self.module.insts.push(out);
            return Ok(());
        }
        if inst.opcode == Opcode::InterfaceCall {
            return self.interface_call(inst);
        }
        if !self.version.is_sm51() {
            if let Some(operand) = super::dynamic_register::dynamic_operand(inst) {
                return self.dynamic_register(inst, operand);
            }
        }
        self.executable_op(inst)
    }

    /// Lowers one executable instruction that maps to one [`ir::Op`] and appends it.
    pub(super) fn executable_op(&mut self, inst: &Instruction<'_>) -> Result<(), Error> {
        let at = inst.offset;
        let Some(op) = executable_op(inst.opcode) else {
            return Err(Error::unsupported(at, unsupported_feature(inst.opcode)));
        };
        self.track_nesting(op, at)?;
        let flags = flags(inst, op);
        // Thread-group barriers and shared-memory fences exist only in compute shaders.
        if op == Op::Sync && flags.sync & 0b111 != 0 && self.module.stage != ir::Stage::Compute {
            return Err(Error::invalid(
                at,
                format!(
                    "{} outside a compute shader (only sync_uglobal is allowed there)",
                    inst.opcode.name()
                ),
            ));
        }
        // Built in place at the end of the arena (an instruction is large: moving it costs more
        // than building it), and removed again if an operand is bad.
        let position = self.module.insts.len();
        let mut out = ir::Inst::new(op, at);
        out.flags = flags;
        out.payload = payload(inst, op);
        self.module.insts.push(out);
        let filled = self.operands(inst, op, at, position);
        if filled.is_err() {
            self.module.insts.truncate(position);
        }
        filled
    }

    /// Resolves the operands of `inst` into the instruction at `position` (the last one),
    /// each written in place.
    fn operands(
        &mut self,
        inst: &Instruction<'_>,
        op: Op,
        at: u32,
        position: usize,
    ) -> Result<(), Error> {
        // The arena is set aside while operands are resolved (resolution reads only the
        // declarations), so each operand is written straight into its slot.
        let mut insts = std::mem::take(&mut self.module.insts);
        let filled = match insts.get_mut(position) {
            Some(out) => self.fill(inst, op, at, out),
            None => Err(Error::invalid(
                at,
                "instruction under construction is missing",
            )),
        };
        self.module.insts = insts;
        let labels = filled?;
        if op == Op::Switch {
            let table = self.new_switch_table()?;
            if let Some(out) = self.module.insts.get_mut(position) {
                out.payload = ir::Payload::Switch(table);
            }
        }
        for (src, label) in labels.iter().enumerate() {
            if let Some(label) = label {
                self.call_target(position, src, *label, at, op)?;
            }
        }
        Ok(())
    }

    /// Writes the operands of `inst` into `out`; returns the label numbers of label sources
    /// (by source position).
    #[inline(always)]
    fn fill(
        &self,
        inst: &Instruction<'_>,
        op: Op,
        at: u32,
        out: &mut ir::Inst,
    ) -> Result<[Option<u32>; 2], Error> {
        let memory_first = returns_and_names_memory(op);
        let mut dsts = 0usize;
        let mut labels = [None; 2];
        let too_many =
            || Error::invalid(at, format!("{} has too many operands", inst.opcode.name()));
        let operand_slots = inst
            .opcode
            .slots()
            .iter()
            .filter(|s| matches!(s, Slot::Dst | Slot::Src));
        for (operand, slot) in inst.operands().iter().zip(operand_slots) {
            if *slot == Slot::Dst {
                dsts += 1;
                if !(memory_first && dsts == 2) {
                    let dst = out.next_dst().ok_or_else(too_many)?;
                    self.dst_into(operand, at, dst)?;
                    continue;
                }
            }
            let position = out.src().len();
            let src = out.next_src().ok_or_else(too_many)?;
            if *slot == Slot::Src && operand.ty == RegisterType::Label {
                let label = self.label_number(operand, at)?;
                if let Some(entry) = labels.get_mut(position) {
                    *entry = Some(label);
                }
                *src = ir::Src::new(ir::Reg::Function(ir::FunctionId::new(0)));
            } else {
                self.src_into(operand, at, src)?;
            }
        }
        Ok(labels)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir;

    #[test]
    fn every_executable_opcode_maps_to_the_op_of_the_same_name() {
        for &opcode in crate::front::dxbc::Opcode::ALL {
            if let Some(op) = super::executable_op(opcode) {
                assert_eq!(op.name(), opcode.name(), "{opcode:?}");
            }
        }
        // Every operation but Direct3D 9's legacy float family, which no DXBC opcode has.
        for &op in ir::Op::ALL
            .iter()
            .filter(|op| op.family() != ir::Family::Legacy)
        {
            let opcodes: Vec<_> = crate::front::dxbc::Opcode::ALL
                .iter()
                .filter(|&&opcode| super::executable_op(opcode) == Some(op))
                .collect();
            assert_eq!(
                opcodes.len(),
                1,
                "{op:?} has not one DXBC opcode: {opcodes:?}"
            );
            // The lookup by mnemonic pairs the variants of the same name.
            assert_eq!(format!("{:?}", opcodes[0]), format!("{op:?}"));
        }
    }
}
