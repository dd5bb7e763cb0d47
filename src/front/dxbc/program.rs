//! SHDR/SHEX chunks: the version and length tokens, then a stream of instructions decoded lazily
//! and without heap allocation by [`Instructions`].
//!
//! Contract: the iterator always advances by the instruction's own length (opcode token bits
//! 24–30, or the dword after `customdata`), so a bad instruction never desynchronizes decoding;
//! after the first error it stops.

use super::error::{DecodeError, DecodeErrorKind, Result};
use super::instruction::Instruction;
use super::opcodes::Opcode;
use super::reader::Reader;
use super::token::VersionToken;

/// The pipeline stage a program is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Pixel shader (`ps_`).
    Pixel,
    /// Vertex shader (`vs_`).
    Vertex,
    /// Geometry shader (`gs_`).
    Geometry,
    /// Hull shader (`hs_`).
    Hull,
    /// Domain shader (`ds_`).
    Domain,
    /// Compute shader (`cs_`).
    Compute,
    /// Function-linking library (`lib_`, program type 0xfff0): decoded, never translated.
    Library,
}

impl Stage {
    /// fxc's two-letter prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Stage::Pixel => "ps",
            Stage::Vertex => "vs",
            Stage::Geometry => "gs",
            Stage::Hull => "hs",
            Stage::Domain => "ds",
            Stage::Compute => "cs",
            Stage::Library => "lib",
        }
    }

    fn from_program_type(value: u32) -> Option<Stage> {
        Some(match value {
            0 => Stage::Pixel,
            1 => Stage::Vertex,
            2 => Stage::Geometry,
            3 => Stage::Hull,
            4 => Stage::Domain,
            5 => Stage::Compute,
            0xfff0 => Stage::Library,
            _ => return None,
        })
    }
}

/// Stage and shader-model version of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderVersion {
    /// The stage.
    pub stage: Stage,
    /// Major version (4 or 5).
    pub major: u8,
    /// Minor version (0 or 1).
    pub minor: u8,
}

impl ShaderVersion {
    /// True for Shader Model 5.1 and later (resource ranges and spaces).
    pub fn is_sm51(self) -> bool {
        (self.major, self.minor) >= (5, 1)
    }
}

impl std::fmt::Display for ShaderVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_{}_{}", self.stage.prefix(), self.major, self.minor)
    }
}

/// A shader program: the contents of an SHDR or SHEX chunk.
#[derive(Clone, Copy, Debug)]
pub struct Program<'a> {
    /// Stage and version.
    pub version: ShaderVersion,
    /// The instruction dwords (after the version and length tokens), at their absolute offset.
    body: Reader<'a>,
}

impl<'a> Program<'a> {
    /// Parses the version and length tokens of a program chunk whose data starts at absolute
    /// offset `base`.
    pub fn parse(data: &'a [u8], base: u32) -> Result<Program<'a>> {
        let mut r = Reader::new(data, base);
        let version_offset = r.offset();
        let version = VersionToken(r.read_u32()?);
        let stage = Stage::from_program_type(version.program_type()).ok_or_else(|| {
            DecodeError::new(
                version_offset,
                DecodeErrorKind::InvalidValue {
                    what: "program type",
                    value: version.program_type(),
                },
            )
        })?;
        let (major, minor) = (version.major(), version.minor());
        if !(4..=5).contains(&major) || minor > 1 {
            return Err(DecodeError::new(
                version_offset,
                DecodeErrorKind::InvalidValue {
                    what: "shader model version",
                    value: version.0 & 0xff,
                },
            ));
        }
        let length_offset = r.offset();
        let length = r.read_u32()?;
        let available = data.len() / 4;
        if length < 2 || length as usize > available {
            return Err(DecodeError::new(
                length_offset,
                DecodeErrorKind::SizeMismatch {
                    what: "program length",
                    declared: length as u64 * 4,
                    actual: (available * 4) as u64,
                },
            ));
        }
        let body = r.sub_reader((length as usize - 2) * 4)?;
        Ok(Program {
            version: ShaderVersion {
                stage,
                major: major as u8,
                minor: minor as u8,
            },
            body,
        })
    }

    /// The instructions, decoded lazily.
    pub fn instructions(&self) -> Instructions<'a> {
        Instructions {
            r: self.body,
            version: self.version,
            failed: false,
        }
    }

    /// The instruction dwords as bytes (after the version and length tokens).
    pub fn body(&self) -> &'a [u8] {
        self.body.data()
    }

    /// Absolute offset of the first instruction.
    pub fn body_offset(&self) -> u32 {
        self.body.base()
    }
}

/// Iterator over the instructions of a [`Program`].
#[derive(Clone, Debug)]
pub struct Instructions<'a> {
    r: Reader<'a>,
    version: ShaderVersion,
    failed: bool,
}

impl<'a> Instructions<'a> {
    /// The next instruction decoded into `inst` (see [`Instruction::decode_into`]): the
    /// allocation- and copy-free form of [`Iterator::next`], for hot loops. `None` at the end and
    /// after an error, as `next`.
    pub fn next_into(&mut self, inst: &mut Instruction<'a>) -> Option<Result<()>> {
        if self.failed || self.r.is_empty() {
            return None;
        }
        let result = inst.decode_into(&mut self.r, self.version);
        if result.is_err() {
            self.failed = true;
        }
        Some(result)
    }

    /// How many instructions follow, counted by their length fields only (no operand is
    /// decoded); stops at the first length that cannot be right. For sizing buffers.
    pub fn count_by_length(&self) -> usize {
        let bytes = self.r.data();
        let mut at = self.r.position();
        let mut n = 0usize;
        while at + 4 <= bytes.len() {
            let token =
                u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            let dwords = if token & 0x7ff == Opcode::CustomData as u32 {
                match bytes.get(at + 4..at + 8) {
                    Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
                    None => break,
                }
            } else {
                ((token >> 24) & 0x7f) as usize
            };
            if dwords == 0 {
                break;
            }
            at = at.saturating_add(dwords.saturating_mul(4));
            n += 1;
        }
        n
    }
}

impl<'a> Iterator for Instructions<'a> {
    type Item = Result<Instruction<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.r.is_empty() {
            return None;
        }
        let result = Instruction::decode(&mut self.r, self.version);
        if result.is_err() {
            self.failed = true;
        }
        Some(result)
    }
}
