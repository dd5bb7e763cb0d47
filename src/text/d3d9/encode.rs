//! The encoder: [`Program`] → Direct3D 9 token stream, driven by the same opcode table as the
//! decoder.
//!
//! Contract: writes the version token, every instruction (its token with controls, the length
//! field from SM2 on, the predicated and co-issue bits; then its operands in the order of its
//! table layout: destination, predicate, sources, relative-address tokens, the `dcl` token and
//! `def*` literals), every comment block before the instruction it preceded, and the end
//! token. For any stream `x` the decoder accepts, `encode(decode(x))` gives back `x`'s dwords up
//! to the end token (the reserved bits of parameter tokens included); only reserved bits the model
//! does not keep (bit 29 of an instruction token, those of a relative-address token) are lost.
//! An instruction whose operands do not fit its layout is an [`EncodeError`], never a panic.

use std::fmt;

use crate::front::d3d9::opcodes::Slot;
use crate::front::d3d9::program::{
    Dst, Instruction, Payload, Program, RegisterType, Relative, Src, Version, DST_RESERVED_BITS,
    SRC_RESERVED_BITS,
};

/// The comment token's opcode (`0xFFFE`).
const COMMENT_TOKEN: u32 = 0xfffe;
/// The end token.
pub const END_TOKEN: u32 = 0x0000_ffff;

/// An instruction that cannot be written: its operands do not match its layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    /// Index of the instruction in the program.
    pub index: usize,
    /// The instruction's mnemonic.
    pub mnemonic: &'static str,
    /// What does not fit.
    pub message: String,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "instruction {} ({}): {}",
            self.index, self.mnemonic, self.message
        )
    }
}

impl std::error::Error for EncodeError {}

/// Encodes a program as dwords, from the version token to the end token inclusive.
pub fn encode(program: &Program<'_>) -> Result<Vec<u32>, EncodeError> {
    let version = program.version;
    let mut out = vec![version.token()];
    let mut comments = program.comments.iter().peekable();
    for (index, inst) in program.instructions.iter().enumerate() {
        while let Some(c) = comments.next_if(|c| c.position as usize <= index) {
            push_comment(&mut out, c.data);
        }
        encode_instruction(&mut out, version, inst).map_err(|message| EncodeError {
            index,
            mnemonic: inst.opcode.name(),
            message,
        })?;
    }
    for c in comments {
        push_comment(&mut out, c.data);
    }
    out.push(END_TOKEN);
    Ok(out)
}

/// Encodes a program as little-endian bytes.
pub fn encode_bytes(program: &Program<'_>) -> Result<Vec<u8>, EncodeError> {
    Ok(encode(program)?
        .into_iter()
        .flat_map(u32::to_le_bytes)
        .collect())
}

/// A comment block: the `0xFFFE` token with its dword count, then the data padded to dwords.
fn push_comment(out: &mut Vec<u32>, data: &[u8]) {
    let dwords = data.len().div_ceil(4);
    out.push(COMMENT_TOKEN | ((dwords as u32 & 0x7fff) << 16));
    for chunk in data.chunks(4) {
        let mut word = [0u8; 4];
        for (w, b) in word.iter_mut().zip(chunk) {
            *w = *b;
        }
        out.push(u32::from_le_bytes(word));
    }
}

/// How many dwords an instruction occupies in a program of `version`, its token included
/// (`None` when its operands do not match its layout).
pub fn instruction_dwords(version: Version, inst: &Instruction) -> Option<u32> {
    let mut scratch = Vec::new();
    encode_instruction(&mut scratch, version, inst).ok()?;
    u32::try_from(scratch.len()).ok()
}

/// Appends one instruction; the error says which operand is missing or extra.
fn encode_instruction(
    out: &mut Vec<u32>,
    version: Version,
    inst: &Instruction,
) -> Result<(), String> {
    let layout = inst.opcode.layout(version.is_pixel(), version.key());
    let start = out.len();
    out.push(0);
    let mut sources = inst.sources().iter();
    let predicate = |out: &mut Vec<u32>| -> Result<(), String> {
        if inst.predicated {
            let p = inst
                .predicate
                .as_ref()
                .ok_or("predicated without a predicate source")?;
            push_src(out, p);
        }
        Ok(())
    };
    if layout.first() != Some(&Slot::Dst) {
        predicate(out)?;
    }
    for slot in layout {
        match slot {
            Slot::Dst => {
                let dst = inst.dst.as_ref().ok_or("missing destination")?;
                push_dst(out, dst);
                predicate(out)?;
            }
            Slot::Src => {
                let src = sources.next().ok_or("missing source operand")?;
                push_src(out, src);
            }
            Slot::Dcl => match inst.payload {
                Payload::Dcl(token) => out.push(token.0),
                _ => return Err("missing dcl token".into()),
            },
            Slot::Float4 => match inst.payload {
                Payload::Float4(words) => out.extend_from_slice(&words),
                _ => return Err("missing four float literals".into()),
            },
            Slot::Int4 => match inst.payload {
                Payload::Int4(values) => out.extend(values.map(|v| v as u32)),
                _ => return Err("missing four integer literals".into()),
            },
            Slot::Bool => match inst.payload {
                Payload::Bool(word) => out.push(word),
                _ => return Err("missing a boolean literal".into()),
            },
        }
    }
    if sources.next().is_some() {
        return Err("more source operands than the instruction takes".into());
    }
    let operands = (out.len() - start - 1) as u32;
    let length = if version.has_length() {
        if operands > 0xf {
            return Err(format!(
                "{operands} operand dwords do not fit the length field"
            ));
        }
        operands
    } else {
        // SM1.x has no length field; keep whatever the stream wrote there.
        u32::from(inst.length_field & 0xf)
    };
    let token = u32::from(inst.opcode as u16)
        | u32::from(inst.controls) << 16
        | length << 24
        | u32::from(inst.predicated) << 28
        | u32::from(inst.coissue) << 30;
    if let Some(slot) = out.get_mut(start) {
        *slot = token;
    }
    Ok(())
}

/// The register-type bits of a parameter token (bits 28–30 and 11–12).
fn type_bits(reg: RegisterType) -> u32 {
    let raw = reg.raw();
    (raw & 7) << 28 | (raw & 0x18) << 8
}

/// The relative-address token, if the version writes one (vs_1_x's `a0.x` is implicit).
fn relative_token(rel: &Relative) -> Option<u32> {
    rel.token.then(|| {
        0x8000_0000 | type_bits(rel.reg) | (rel.num & 0x7ff) | u32::from(rel.swizzle) << 16
    })
}

fn push_dst(out: &mut Vec<u32>, dst: &Dst) {
    let token = 0x8000_0000
        | type_bits(dst.reg)
        | (dst.num & 0x7ff)
        | u32::from(dst.relative.is_some()) << 13
        | u32::from(dst.mask & 0xf) << 16
        | u32::from(dst.saturate) << 20
        | u32::from(dst.partial_precision) << 21
        | u32::from(dst.centroid) << 22
        | (dst.shift as u32 & 0xf) << 24
        | (dst.reserved & DST_RESERVED_BITS);
    out.push(token);
    if let Some(token) = dst.relative.as_ref().and_then(relative_token) {
        out.push(token);
    }
}

fn push_src(out: &mut Vec<u32>, src: &Src) {
    let token = 0x8000_0000
        | type_bits(src.reg)
        | (src.num & 0x7ff)
        | u32::from(src.relative.is_some()) << 13
        | u32::from(src.swizzle) << 16
        | (src.modifier.raw() & 0xf) << 24
        | (src.reserved & SRC_RESERVED_BITS);
    out.push(token);
    if let Some(token) = src.relative.as_ref().and_then(relative_token) {
        out.push(token);
    }
}
