//! Instructions back into tokens, walking [`Opcode::slots`] exactly as the decoder does.
//!
//! Layout written: opcode token (the stored control bits, a recomputed length), the extended
//! opcode tokens chained by bit 31, one value per slot of the opcode's table row, then the
//! instruction's padding dwords. Two irregular forms: `customdata` (class in bits 11–31, length
//! in the next dword) and the variable-length interface declarations (`dcl_function_body`,
//! `dcl_function_table`, `dcl_interface`, `fcall`), whose long form sets bit 31 and stores the
//! length in the second dword; it is used when the decoded token had it or the length needs it.

use super::token::{custom_data_token, opcode_token, EXTENDED};
use super::{encode_operand, length_dword, EncodeError, Result};
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::opcodes::{Opcode, Slot};
use crate::front::dxbc::operand::Operand;
use crate::front::dxbc::token::ExtOpcodeToken;

/// The longest instruction the 7-bit length field can describe.
const MAX_SHORT_LENGTH: usize = 127;

/// Everything an instruction's tokens are built from, borrowed from an [`Instruction`] or from
/// the [`ProgramBuilder`](super::ProgramBuilder)'s pending instruction.
#[derive(Clone, Copy, Debug)]
pub(super) struct Parts<'p> {
    /// The opcode.
    pub opcode: Opcode,
    /// Control bits 11–23 of the opcode token, shifted down to bit 0.
    pub controls: u32,
    /// For the variable-length declarations: use the long form even when the length fits.
    pub long_form: bool,
    /// Extended opcode tokens (their bit 31 is rewritten to chain them).
    pub ext: &'p [ExtOpcodeToken],
    /// Dst/Src operands, in slot order.
    pub operands: &'p [Operand],
    /// Imm/Float dwords, in slot order.
    pub imms: &'p [u32],
    /// ReturnType slot value.
    pub return_type: Option<u32>,
    /// Name slot value.
    pub name: Option<u32>,
    /// CbSize slot value (SM5.1).
    pub cb_size: Option<u32>,
    /// Space slot value (SM5.1).
    pub space: Option<u32>,
    /// Custom-data class (`customdata` only).
    pub custom_class: u32,
    /// List dwords or custom-data payload, little-endian.
    pub data: &'p [u8],
    /// Dwords after the last slot, little-endian.
    pub padding: &'p [u8],
}

impl<'p> Parts<'p> {
    /// The parts of a decoded instruction.
    pub fn of(inst: &'p Instruction<'_>) -> Self {
        Parts {
            opcode: inst.opcode,
            controls: inst.token.controls(),
            long_form: is_variable_length(inst.opcode) && inst.token.extended(),
            ext: inst.extended(),
            operands: inst.operands(),
            imms: inst.imms(),
            return_type: inst.return_type,
            name: inst.name,
            cb_size: inst.cb_size,
            space: inst.space,
            custom_class: inst.custom_class,
            data: inst.data_bytes(),
            padding: inst.padding,
        }
    }
}

/// Appends the tokens of `inst`. The opcode token keeps the control bits of
/// [`Instruction::token`]; its length is recomputed ([`Instruction::length`] is ignored).
/// Values must match the opcode's table row: each slot needs a value (SM5.1 slots only when
/// set), and no operand, immediate or list may be left over.
pub fn encode_instruction(inst: &Instruction<'_>, out: &mut Vec<u32>) -> Result<()> {
    encode_parts(&Parts::of(inst), out)
}

/// True for the declarations whose long form stores the length in the second dword.
pub(super) fn is_variable_length(opcode: Opcode) -> bool {
    matches!(
        opcode,
        Opcode::DclFunctionBody
            | Opcode::DclFunctionTable
            | Opcode::DclInterface
            | Opcode::InterfaceCall
    )
}

/// Appends the tokens described by `parts`; on error `out` is left as it was.
pub(super) fn encode_parts(parts: &Parts<'_>, out: &mut Vec<u32>) -> Result<()> {
    let start = out.len();
    let result = encode_unchecked(parts, out);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

fn encode_unchecked(p: &Parts<'_>, out: &mut Vec<u32>) -> Result<()> {
    let start = out.len();
    let opcode = p.opcode as u32;
    let name = p.opcode.name();
    if p.opcode == Opcode::CustomData {
        out.push(custom_data_token(opcode, p.custom_class)?);
        out.push(0);
        push_bytes(p.data, "custom data is not a whole number of dwords", out)?;
        out[start + 1] = length_dword(out.len() - start, "custom data length")?;
        return Ok(());
    }
    let variable = is_variable_length(p.opcode);
    if variable && !p.ext.is_empty() {
        return Err(EncodeError::Unused {
            opcode: name,
            what: "extended opcode token",
        });
    }
    out.push(0);
    if variable && p.long_form {
        out.push(0);
    }
    for (i, ext) in p.ext.iter().enumerate() {
        let chain = if i + 1 < p.ext.len() { EXTENDED } else { 0 };
        out.push((ext.0 & !EXTENDED) | chain);
    }
    encode_slots(p, out)?;
    push_bytes(p.padding, "padding is not a whole number of dwords", out)?;

    let mut long_form = variable && p.long_form;
    if variable && !long_form && out.len() - start > MAX_SHORT_LENGTH {
        out.insert(start + 1, 0);
        long_form = true;
    }
    let length = out.len() - start;
    out[start] = if long_form {
        out[start + 1] = length_dword(length, "instruction length")?;
        opcode_token(opcode, p.controls, 0, true)?
    } else {
        let short = u32::try_from(length).unwrap_or(u32::MAX);
        opcode_token(opcode, p.controls, short, !p.ext.is_empty())?
    };
    Ok(())
}

/// One value per slot of the opcode's table row; every given value must be consumed.
fn encode_slots(p: &Parts<'_>, out: &mut Vec<u32>) -> Result<()> {
    let name = p.opcode.name();
    let missing = |what| EncodeError::Missing { opcode: name, what };
    let mut operands = p.operands.iter();
    let mut imms = p.imms.iter();
    let mut list_used = false;
    for &slot in p.opcode.slots() {
        match slot {
            Slot::Dst | Slot::Src => {
                let op = operands.next().ok_or(missing("operand"))?;
                encode_operand(op, out)?;
            }
            Slot::Imm | Slot::Float => out.push(*imms.next().ok_or(missing("immediate"))?),
            Slot::ReturnType => out.push(p.return_type.ok_or(missing("return type"))?),
            Slot::Name => out.push(p.name.ok_or(missing("system value name"))?),
            Slot::CbSize => out.extend(p.cb_size),
            Slot::Space => out.extend(p.space),
            Slot::List => {
                push_bytes(p.data, "list is not a whole number of dwords", out)?;
                list_used = true;
            }
        }
    }
    let unused = |what| EncodeError::Unused { opcode: name, what };
    if operands.next().is_some() {
        return Err(unused("operand"));
    }
    if imms.next().is_some() {
        return Err(unused("immediate"));
    }
    if !list_used && !p.data.is_empty() {
        return Err(unused("list"));
    }
    let has = |s| p.opcode.slots().contains(&s);
    for (slot, value, what) in [
        (Slot::ReturnType, p.return_type, "return type"),
        (Slot::Name, p.name, "system value name"),
        (Slot::CbSize, p.cb_size, "constant buffer size"),
        (Slot::Space, p.space, "register space"),
    ] {
        if value.is_some() && !has(slot) {
            return Err(unused(what));
        }
    }
    Ok(())
}

/// Appends little-endian `bytes` as dwords; `partial` is the error when their length is not a
/// multiple of 4.
fn push_bytes(bytes: &[u8], partial: &'static str, out: &mut Vec<u32>) -> Result<()> {
    let words = bytes.chunks_exact(4);
    if !words.remainder().is_empty() {
        return Err(EncodeError::Unencodable(partial));
    }
    out.extend(words.map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    Ok(())
}
