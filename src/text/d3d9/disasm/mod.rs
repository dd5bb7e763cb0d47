//! Disassembler for Direct3D 9 token streams: the instruction part of fxc's listing.
//!
//! Contract: [`write_program`] appends exactly what fxc prints for a D3D9 program from its
//! version line on (`    vs_2_0`, then every instruction, four spaces in), one line per
//! instruction, spelled from the opcode table ([`crate::front::d3d9::opcodes`]); it prints no
//! comment header (the CTAB `// Parameters:` block is written separately and may precede it);
//! [`disassemble`] adds fxc's slot summary after an empty line where [`slot_summary`] knows
//! it. Checked against fxc's listings in the D3D9 corpus, standalone and in the level-9 part
//! of `4_0_level_9_x` containers. Nothing panics on any decoded program: a value with no fxc
//! spelling is a located [`DisasmError`].

mod instruction;
mod number;
mod operand;
mod slots;

pub use slots::{slot_summary, write_slot_summary, SlotSummary};

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod tests;

use crate::front::d3d9::program::{Instruction, Program, Version};
use crate::front::d3d9::{decode, DecodeError};

/// A program value that has no spelling in fxc's syntax, at the byte offset of its token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {offset:#x}: {kind}")]
pub struct DisasmError {
    /// Absolute byte offset of the token at fault.
    pub offset: u32,
    /// What cannot be spelled.
    pub kind: DisasmErrorKind,
}

/// What a [`DisasmError`] found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DisasmErrorKind {
    /// Controls that are not a comparison on `if`/`break`/`setp` with a comparison.
    #[error("controls {0} are not a comparison (1 gt … 6 le)")]
    BadComparison(u8),
    /// A `dcl` usage number beyond `sample` (13).
    #[error("dcl usage {0} is not defined")]
    UnknownUsage(u32),
    /// A sampler texture type beyond volume (4).
    #[error("sampler texture type {0} is not defined")]
    UnknownTextureType(u32),
    /// A register number its file does not have (`oPos`/`oFog`/`oPts`, `vPos`/`vFace`).
    #[error("{file} has no register {num}")]
    UndefinedRegister {
        /// The register file.
        file: &'static str,
        /// The number.
        num: u32,
    },
}

/// Why a byte stream could not be listed: it does not decode, or a value has no spelling.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The stream does not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The decoded program holds a value fxc cannot print.
    #[error(transparent)]
    Disasm(#[from] DisasmError),
}

/// Appends the version line and every instruction of `program`, as fxc lists them.
pub fn write_program(out: &mut String, program: &Program<'_>) -> Result<(), DisasmError> {
    write_version(out, program.version);
    for inst in &program.instructions {
        write_instruction_line(out, inst, program.version)?;
    }
    Ok(())
}

/// Appends fxc's version line: `    ps_2_x`.
pub fn write_version(out: &mut String, version: Version) {
    out.push_str("    ");
    out.push_str(&version.profile());
    out.push('\n');
}

/// Appends one instruction line (indented, with its line end) of a program of `version`.
pub fn write_instruction_line(
    out: &mut String,
    inst: &Instruction,
    version: Version,
) -> Result<(), DisasmError> {
    out.push_str("    ");
    instruction::write_instruction(out, inst, version)?;
    out.push('\n');
    Ok(())
}

/// Decodes a standalone token stream and lists it (version line and instructions).
pub fn disassemble(bytes: &[u8]) -> Result<String, Error> {
    let program = decode(bytes, 0)?;
    let mut out = String::new();
    write_program(&mut out, &program)?;
    if let Some(summary) = slot_summary(&program) {
        out.push('\n');
        write_slot_summary(&mut out, &summary);
    }
    Ok(out)
}

/// Whether `bytes` start with a D3D9 version token of a version the runtime defines (how the
/// command line tells a D3D9 stream from a DXBC container, whatever the file's extension).
pub fn is_d3d9_stream(bytes: &[u8]) -> bool {
    bytes
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
        .and_then(Version::from_token)
        .is_some_and(Version::is_known)
}
