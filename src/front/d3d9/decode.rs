//! The decoder: D3D9 token-stream bytes → [`Program`], driven by the opcode table.
//!
//! Contract: reads little-endian dwords from the version token to the end token (bytes after
//! the end token are not read); SM2+ instructions are checked against their length field,
//! SM1.x instructions take the operand count of their table layout; every failure is a
//! [`DecodeError`] at the absolute offset of the token at fault (`base_offset` + position).
//! Allocation is bounded by the input's size; nothing panics on input.

use super::error::{DecodeError, DecodeErrorKind};
use super::opcodes::{Opcode, Slot, COMMENT, END};
use super::program::{
    Comment, DclToken, Dst, Instruction, Payload, Program, RegisterType, Relative, Src,
    SrcModifier, Version, DST_RESERVED_BITS, MAX_SOURCES, SRC_RESERVED_BITS, USAGE_NAMES,
};

/// Whether `bytes` start with a D3D9 version token (`0xFFFE` vertex or `0xFFFF` pixel in the
/// high half of the first little-endian dword), of any version: how the tools tell a D3D9
/// token stream from a DXBC container (which starts `DXBC`) whatever the file's extension.
pub fn is_token_stream(bytes: &[u8]) -> bool {
    bytes
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
        .and_then(Version::from_token)
        .is_some()
}

/// Decodes a token stream whose first byte sits at `base_offset` in the caller's input (0 for
/// a standalone stream; the program's offset inside a container's level-9 chunk otherwise).
pub fn decode(bytes: &[u8], base_offset: u32) -> Result<Program<'_>, DecodeError> {
    if bytes.len() % 4 != 0 {
        return Err(DecodeError::new(
            base_offset,
            DecodeErrorKind::UnalignedSize(bytes.len()),
        ));
    }
    let mut cursor = Cursor {
        bytes,
        pos: 0,
        base: base_offset,
    };
    let token = cursor.next("the version token")?;
    let version = Version::from_token(token)
        .ok_or_else(|| DecodeError::new(base_offset, DecodeErrorKind::NotAVersionToken(token)))?;
    if !version.is_known() {
        return Err(DecodeError::new(
            base_offset,
            DecodeErrorKind::UnknownVersion(token),
        ));
    }
    let mut program = Program {
        version,
        instructions: Vec::with_capacity(count_instructions(bytes, version)),
        comments: Vec::new(),
        end_offset: 0,
        base_offset,
    };
    loop {
        let offset = cursor.offset();
        if cursor.at_end() {
            return Err(DecodeError::new(offset, DecodeErrorKind::MissingEnd));
        }
        let token = cursor.next("an instruction")?;
        let opcode = token as u16;
        if opcode == END {
            if token != 0x0000_ffff {
                return Err(DecodeError::new(
                    offset,
                    DecodeErrorKind::MalformedEnd(token),
                ));
            }
            program.end_offset = offset;
            return Ok(program);
        }
        if opcode == COMMENT {
            let dwords = (token >> 16) & 0x7fff;
            let data = cursor
                .take(dwords as usize * 4)
                .ok_or_else(|| DecodeError::new(offset, DecodeErrorKind::CommentPastEnd(dwords)))?;
            program.comments.push(Comment {
                offset,
                position: program.instructions.len() as u32,
                data,
            });
            continue;
        }
        if token & 0x8000_0000 != 0 {
            return Err(DecodeError::new(
                offset,
                DecodeErrorKind::ParameterWhereInstructionExpected(token),
            ));
        }
        let op = Opcode::from_u16(opcode)
            .ok_or_else(|| DecodeError::new(offset, DecodeErrorKind::UnknownOpcode(opcode)))?;
        // Decoded in place: the instruction is not built elsewhere and copied in.
        program.instructions.push(Instruction {
            offset,
            opcode: op,
            controls: (token >> 16) as u8,
            predicated: token & (1 << 28) != 0,
            coissue: token & (1 << 30) != 0,
            dst: None,
            predicate: None,
            srcs: [Src::default(); MAX_SOURCES],
            src_count: 0,
            payload: Payload::None,
            dwords: 1,
            length_field: ((token >> 24) & 0xf) as u8,
        });
        let decoded = match program.instructions.last_mut() {
            Some(inst) => decode_operands(&mut cursor, version, inst),
            None => Ok(()),
        };
        decoded.map_err(|e| {
            // fxc's spelling for the version (`tex` in ps_1_1, `texcrd` in ps_1_4).
            let spelling = op.spelling(version.is_pixel(), version.key(), (token >> 16) as u8);
            e.with_context(spelling.map_or(op.name(), |s| s.base))
        })?;
    }
}

/// An upper bound of the number of instructions in a stream of `version` (its version token
/// first), to size the instruction list once: comments are skipped; from SM2 on each
/// instruction's length field is followed; before, every dword without bit 31 counts (an
/// instruction token has it clear, most parameters set). Never more than the dword count.
fn count_instructions(bytes: &[u8], version: Version) -> usize {
    let words = bytes.len() / 4;
    let word = |i: usize| {
        bytes
            .get(i * 4..i * 4 + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_le_bytes)
    };
    let mut count = 0usize;
    let mut i = 1usize;
    while i < words {
        let token = word(i);
        i += 1;
        if token as u16 == COMMENT {
            i += ((token >> 16) & 0x7fff) as usize;
        } else if token as u16 == END {
            break;
        } else if version.has_length() {
            count += 1;
            i += ((token >> 24) & 0xf) as usize;
        } else if token & 0x8000_0000 == 0 {
            count += 1;
        }
    }
    count
}

/// Decodes the operands of `inst`, whose token has been read and whose header fields are set.
fn decode_operands(
    cursor: &mut Cursor<'_>,
    version: Version,
    inst: &mut Instruction,
) -> Result<(), DecodeError> {
    let opcode = inst.opcode;
    let controls = inst.controls;
    let predicated = inst.predicated;
    let offset = inst.offset;
    let length_field = inst.length_field;
    if opcode.has_comparison() && super::opcodes::Comparison::from_controls(controls).is_none() {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::BadComparison(controls),
        ));
    }
    let start = cursor.pos;
    let layout = opcode.layout(version.is_pixel(), version.key());
    // The predicate source follows the destination, or comes first when there is none.
    if predicated && layout.first() != Some(&Slot::Dst) {
        inst.predicate = Some(read_src(cursor, version)?);
    }
    for slot in layout {
        match slot {
            Slot::Dst => {
                inst.dst = Some(read_dst(cursor, version)?);
                if predicated {
                    inst.predicate = Some(read_src(cursor, version)?);
                }
            }
            Slot::Src => {
                let src = read_src(cursor, version)?;
                let index = usize::from(inst.src_count);
                if let Some(slot) = inst.srcs.get_mut(index) {
                    *slot = src;
                    inst.src_count += 1;
                }
            }
            Slot::Dcl => inst.payload = Payload::Dcl(DclToken(cursor.next("a dcl token")?)),
            Slot::Float4 | Slot::Int4 => {
                let mut words = [0u32; 4];
                for w in &mut words {
                    *w = cursor.next("a constant definition")?;
                }
                inst.payload = if *slot == Slot::Float4 {
                    Payload::Float4(words)
                } else {
                    Payload::Int4(words.map(|w| w as i32))
                };
            }
            Slot::Bool => inst.payload = Payload::Bool(cursor.next("a constant definition")?),
        }
    }
    if let (Payload::Dcl(dcl), Some(dst)) = (inst.payload, inst.dst) {
        check_dcl(dcl, dst.reg, offset)?;
    }
    let operands = ((cursor.pos - start) / 4) as u32;
    inst.dwords = operands + 1;
    if version.has_length() && u32::from(length_field) != operands {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::LengthMismatch {
                field: length_field.into(),
                operands,
            },
        ));
    }
    Ok(())
}

/// Checks a `dcl` token (at `offset`, the instruction's) against the register it declares: a
/// sampler's texture type is 2D, cube or volume; other registers' usage is one D3D9 defines.
fn check_dcl(dcl: DclToken, reg: RegisterType, offset: u32) -> Result<(), DecodeError> {
    if reg == RegisterType::Sampler {
        if !matches!(dcl.texture_type(), 2..=4) {
            return Err(DecodeError::new(
                offset,
                DecodeErrorKind::UnknownTextureType(dcl.texture_type()),
            ));
        }
    } else if usize::try_from(dcl.usage()).map_or(true, |u| u >= USAGE_NAMES.len()) {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::UnknownUsage(dcl.usage()),
        ));
    }
    Ok(())
}

/// Shader model 1 has no length field: a parameter the layout expects must have bit 31, or the
/// walk would take the next instruction for an operand.
fn check_parameter_bit(token: u32, version: Version, offset: u32) -> Result<(), DecodeError> {
    if !version.has_length() && token & 0x8000_0000 == 0 {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::ParameterExpected(token),
        ));
    }
    Ok(())
}

/// The register type split over a parameter token's bits 28–30 and 11–12.
fn register_type(token: u32, version: Version, offset: u32) -> Result<RegisterType, DecodeError> {
    let raw = ((token >> 28) & 7) | ((token >> 8) & 0x18);
    RegisterType::from_raw(raw, version)
        .ok_or_else(|| DecodeError::new(offset, DecodeErrorKind::UnknownRegisterType(raw)))
}

/// Whether a parameter with the relative bit has a relative-address token after it: sources
/// from SM2 on, destinations in SM3.
fn has_relative_token(version: Version, dst: bool) -> bool {
    if dst {
        version.major >= 3
    } else {
        version.major >= 2
    }
}

/// Reads the relative-address part of a parameter at `param_offset` with the relative bit set.
fn read_relative(
    cursor: &mut Cursor<'_>,
    version: Version,
    dst: bool,
    param_offset: u32,
) -> Result<Relative, DecodeError> {
    // Pixel shaders have no address register before ps_3_0 (no a0, no aL), and destinations
    // are addressed relatively only from shader model 3 on.
    if (dst || version.is_pixel()) && version.major < 3 {
        return Err(DecodeError::new(
            param_offset,
            DecodeErrorKind::RelativeNotAllowed {
                profile: version.profile(),
                what: if dst { "destinations" } else { "sources" },
            },
        ));
    }
    if !has_relative_token(version, dst) {
        // vs_1_x: the address is a0.x, without a token.
        return Ok(Relative {
            reg: RegisterType::Address,
            num: 0,
            swizzle: 0,
            token: false,
            offset: param_offset,
        });
    }
    let offset = cursor.offset();
    let token = cursor.next("a relative-address token")?;
    let reg = register_type(token, version, offset)?;
    if !matches!(reg, RegisterType::Address | RegisterType::Loop) {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::BadRelativeRegister(register_name(reg)),
        ));
    }
    Ok(Relative {
        reg,
        num: token & 0x7ff,
        swizzle: (token >> 16) as u8,
        token: true,
        offset,
    })
}

fn read_dst(cursor: &mut Cursor<'_>, version: Version) -> Result<Dst, DecodeError> {
    let offset = cursor.offset();
    let token = cursor.next("a destination parameter")?;
    check_parameter_bit(token, version, offset)?;
    let reg = register_type(token, version, offset)?;
    let relative = if token & (1 << 13) != 0 {
        Some(read_relative(cursor, version, true, offset)?)
    } else {
        None
    };
    let shift_raw = (token >> 24) & 0xf;
    if (4..=12).contains(&shift_raw) {
        return Err(DecodeError::new(
            offset,
            DecodeErrorKind::UnknownResultShift(shift_raw),
        ));
    }
    let shift = shift_raw as i8;
    Ok(Dst {
        reg,
        num: token & 0x7ff,
        mask: ((token >> 16) & 0xf) as u8,
        saturate: token & (1 << 20) != 0,
        partial_precision: token & (1 << 21) != 0,
        centroid: token & (1 << 22) != 0,
        // Four-bit two's complement: 0xF is −1, 0xD is −3.
        shift: if shift >= 8 { shift - 16 } else { shift },
        relative,
        reserved: token & DST_RESERVED_BITS,
        offset,
    })
}

fn read_src(cursor: &mut Cursor<'_>, version: Version) -> Result<Src, DecodeError> {
    let offset = cursor.offset();
    let token = cursor.next("a source parameter")?;
    check_parameter_bit(token, version, offset)?;
    let reg = register_type(token, version, offset)?;
    let modifier_raw = (token >> 24) & 0xf;
    let modifier = SrcModifier::from_raw(modifier_raw).ok_or_else(|| {
        DecodeError::new(offset, DecodeErrorKind::UnknownSourceModifier(modifier_raw))
    })?;
    let relative = if token & (1 << 13) != 0 {
        Some(read_relative(cursor, version, false, offset)?)
    } else {
        None
    };
    Ok(Src {
        reg,
        num: token & 0x7ff,
        swizzle: (token >> 16) as u8,
        modifier,
        relative,
        reserved: token & SRC_RESERVED_BITS,
        offset,
    })
}

/// A short name of a register file, for messages.
pub(crate) const fn register_name(reg: RegisterType) -> &'static str {
    match reg {
        RegisterType::Temp => "r#",
        RegisterType::Input => "v#",
        RegisterType::Const => "c#",
        RegisterType::Address => "a0",
        RegisterType::Texture => "t#",
        RegisterType::RastOut => "a rasterizer output",
        RegisterType::AttrOut => "oD#",
        RegisterType::TexCrdOut => "oT#",
        RegisterType::Output => "o#",
        RegisterType::ConstInt => "i#",
        RegisterType::ColorOut => "oC#",
        RegisterType::DepthOut => "oDepth",
        RegisterType::Sampler => "s#",
        RegisterType::Const2 | RegisterType::Const3 | RegisterType::Const4 => "c# (high bank)",
        RegisterType::ConstBool => "b#",
        RegisterType::Loop => "aL",
        RegisterType::TempFloat16 => "a half temporary",
        RegisterType::Misc => "vPos/vFace",
        RegisterType::Label => "l#",
        RegisterType::Predicate => "p0",
    }
}

/// Reads dwords and slices, naming what it was reading when the stream ends.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u32,
}

impl<'a> Cursor<'a> {
    #[inline]
    fn offset(&self) -> u32 {
        self.base.wrapping_add(self.pos as u32)
    }

    #[inline]
    fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    #[inline]
    fn next(&mut self, what: &'static str) -> Result<u32, DecodeError> {
        let word = self
            .bytes
            .get(self.pos..self.pos + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| DecodeError::new(self.offset(), DecodeErrorKind::Truncated(what)))?;
        self.pos += 4;
        Ok(word)
    }

    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(len)?;
        let out = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }
}
