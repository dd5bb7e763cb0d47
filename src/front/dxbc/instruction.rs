//! One decoded instruction: opcode, controls, extended opcode tokens, operands and the extra
//! dwords its table row names. The generic decode loop is driven by [`Opcode::slots`].
//!
//! Spec: "Opcode Format", "Extended Opcode Format" and the declaration layouts of the D3D
//! tokenized program format; SM5.1 resource declarations ("Bytecode changes in SM 5.1").

use super::error::{DecodeError, DecodeErrorKind, Result};
use super::opcodes::{Opcode, Slot, MAX_OPERANDS};
use super::operand::Operand;
use super::program::ShaderVersion;
use super::reader::Reader;
use super::token::{ext_opcode, ExtOpcodeToken, OpcodeToken};

/// The most extended opcode tokens kept per instruction (the format defines three kinds).
pub const MAX_EXTENDED: usize = 3;

/// A decoded instruction, borrowing list and custom data from the input.
#[derive(Clone, Copy, Debug)]
pub struct Instruction<'a> {
    /// The opcode.
    pub opcode: Opcode,
    /// Byte offset of the opcode token in the input.
    pub offset: u32,
    /// The opcode token as stored.
    pub token: OpcodeToken,
    /// Length in dwords, all tokens included.
    pub length: u32,
    /// Extended opcode tokens, in order.
    ext: [ExtOpcodeToken; MAX_EXTENDED],
    ext_count: u8,
    /// Operands (Dst/Src slots), in order.
    operands: [Operand; MAX_OPERANDS],
    operand_count: u8,
    /// Plain immediate dwords (Imm/Float slots), in order.
    imms: [u32; 4],
    imm_count: u8,
    /// Resource return type token, when the layout has one.
    pub return_type: Option<u32>,
    /// System value name token, when the layout has one.
    pub name: Option<u32>,
    /// SM5.1 register space.
    pub space: Option<u32>,
    /// SM5.1 constant buffer size in vec4s.
    pub cb_size: Option<u32>,
    /// Custom-data class (for `customdata`).
    pub custom_class: u32,
    /// `List` slot dwords, or the payload of a custom-data block.
    data: &'a [u8],
    /// Dwords inside the instruction's length after its last operand. fxc pads a few
    /// instructions (`samplepos`, some extended `ld`) with a zero dword; kept for re-encoding.
    pub padding: &'a [u8],
}

impl<'a> Instruction<'a> {
    /// The extended opcode tokens.
    pub fn extended(&self) -> &[ExtOpcodeToken] {
        &self.ext[..self.ext_count as usize]
    }

    /// The operands in token order.
    pub fn operands(&self) -> &[Operand] {
        &self.operands[..self.operand_count as usize]
    }

    /// The immediate dwords (Imm and Float slots) in token order.
    pub fn imms(&self) -> &[u32] {
        &self.imms[..self.imm_count as usize]
    }

    /// The `List` dwords or custom-data payload as raw little-endian bytes.
    pub fn data_bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The `List` dwords or custom-data payload.
    pub fn data(&self) -> impl ExactSizeIterator<Item = u32> + 'a {
        self.data
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    }

    /// The extended token of the given kind, if present.
    pub fn extension(&self, kind: u32) -> Option<ExtOpcodeToken> {
        self.extended().iter().copied().find(|e| e.kind() == kind)
    }

    /// Immediate texel offsets (`_aoffimmi(u,v,w)`), if present.
    pub fn texel_offsets(&self) -> Option<[i32; 3]> {
        self.extension(ext_opcode::SAMPLE_CONTROLS)
            .map(|e| [e.offset(0), e.offset(1), e.offset(2)])
    }

    /// An empty instruction (`nop`, no operands): the buffer [`Instruction::decode_into`] fills.
    pub fn empty() -> Instruction<'a> {
        Instruction {
            opcode: Opcode::Nop,
            offset: 0,
            token: OpcodeToken(0),
            length: 0,
            ext: [ExtOpcodeToken(0); MAX_EXTENDED],
            ext_count: 0,
            operands: [Operand::default(); MAX_OPERANDS],
            operand_count: 0,
            imms: [0; 4],
            imm_count: 0,
            return_type: None,
            name: None,
            space: None,
            cb_size: None,
            custom_class: 0,
            data: &[],
            padding: &[],
        }
    }

    /// Decodes the instruction at the reader's position and advances past it.
    pub fn decode(r: &mut Reader<'a>, version: ShaderVersion) -> Result<Instruction<'a>> {
        let mut inst = Instruction::empty();
        inst.decode_into(r, version)?;
        Ok(inst)
    }

    /// [`Instruction::decode`] into `self`, overwriting it: the hot path decodes every
    /// instruction into one buffer, so that the 1.4 KB operand arrays are neither initialised
    /// nor moved per instruction. On error `self` holds a partly decoded instruction.
    pub fn decode_into(&mut self, r: &mut Reader<'a>, version: ShaderVersion) -> Result<()> {
        let offset = r.offset();
        let token = OpcodeToken(r.read_u32()?);
        let opcode = Opcode::from_u32(token.opcode()).ok_or_else(|| {
            DecodeError::new(offset, DecodeErrorKind::UnknownOpcode(token.opcode()))
        })?;
        let inst = self;
        inst.opcode = opcode;
        inst.offset = offset;
        inst.token = token;
        inst.length = 0;
        inst.ext_count = 0;
        inst.operand_count = 0;
        inst.imm_count = 0;
        inst.return_type = None;
        inst.name = None;
        inst.space = None;
        inst.cb_size = None;
        inst.custom_class = 0;
        inst.data = &[];
        inst.padding = &[];
        let ctx = |e: DecodeError| e.with_context(opcode.name());

        if opcode == Opcode::CustomData {
            inst.custom_class = token.custom_data_class();
            let length = r.read_u32().map_err(ctx)?;
            if length < 2 || (length as u64 - 2) * 4 > r.remaining() as u64 {
                return Err(ctx(DecodeError::new(
                    offset,
                    DecodeErrorKind::SizeMismatch {
                        what: "custom data block",
                        declared: length as u64 * 4,
                        actual: r.remaining() as u64 + 8,
                    },
                )));
            }
            inst.length = length;
            inst.data = r.read_bytes((length as usize - 2) * 4).map_err(ctx)?;
            return Ok(());
        }

        let mut length = token.length();
        let variable_length = matches!(
            opcode,
            Opcode::DclFunctionBody
                | Opcode::DclFunctionTable
                | Opcode::DclInterface
                | Opcode::InterfaceCall
        );
        let mut body_start = *r;
        if variable_length && token.extended() {
            // These declarations store their real length in the dword after the opcode token.
            length = r.read_u32().map_err(ctx)?;
            body_start = *r;
            if length < 2 {
                return Err(ctx(DecodeError::new(
                    offset,
                    DecodeErrorKind::Malformed("instruction length too small"),
                )));
            }
            length -= 1;
        }
        if length == 0 {
            return Err(ctx(DecodeError::new(
                offset,
                DecodeErrorKind::Malformed("instruction length is 0"),
            )));
        }
        let body_len = (length as usize - 1) * 4;
        if body_len > body_start.remaining() {
            return Err(ctx(DecodeError::new(
                offset,
                DecodeErrorKind::SizeMismatch {
                    what: "instruction",
                    declared: length as u64 * 4,
                    actual: body_start.remaining() as u64 + 4,
                },
            )));
        }
        *r = body_start;
        let mut ir = r.sub_reader(body_len).map_err(ctx)?;
        inst.length = if variable_length && token.extended() {
            length + 1
        } else {
            length
        };

        if token.extended() && !variable_length {
            loop {
                let ext_offset = ir.offset();
                let ext = ExtOpcodeToken(ir.read_u32().map_err(ctx)?);
                if (inst.ext_count as usize) < MAX_EXTENDED {
                    inst.ext[inst.ext_count as usize] = ext;
                    inst.ext_count += 1;
                } else {
                    return Err(ctx(DecodeError::new(
                        ext_offset,
                        DecodeErrorKind::LimitExceeded {
                            what: "extended opcode tokens",
                            value: MAX_EXTENDED as u64 + 1,
                            limit: MAX_EXTENDED as u64,
                        },
                    )));
                }
                if !ext.extended() {
                    break;
                }
            }
        }

        let sm51 = version.is_sm51();
        for &slot in opcode.slots() {
            match slot {
                Slot::Dst | Slot::Src => {
                    // The table guarantees operand_count stays within MAX_OPERANDS.
                    if let Some(entry) = inst.operands.get_mut(inst.operand_count as usize) {
                        entry.decode_into(&mut ir).map_err(ctx)?;
                        inst.operand_count += 1;
                    }
                }
                Slot::Imm | Slot::Float => {
                    let value = ir.read_u32().map_err(ctx)?;
                    if let Some(entry) = inst.imms.get_mut(inst.imm_count as usize) {
                        *entry = value;
                        inst.imm_count += 1;
                    }
                }
                Slot::ReturnType => inst.return_type = Some(ir.read_u32().map_err(ctx)?),
                Slot::Name => inst.name = Some(ir.read_u32().map_err(ctx)?),
                Slot::CbSize => {
                    if sm51 {
                        inst.cb_size = Some(ir.read_u32().map_err(ctx)?);
                    }
                }
                Slot::Space => {
                    if sm51 {
                        inst.space = Some(ir.read_u32().map_err(ctx)?);
                    }
                }
                Slot::List => {
                    let rest = ir.remaining();
                    inst.data = ir.read_bytes(rest).map_err(ctx)?;
                }
            }
        }
        let rest = ir.remaining();
        inst.padding = ir.read_bytes(rest).map_err(ctx)?;
        Ok(())
    }
}
