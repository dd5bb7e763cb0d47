//! Encoder: decoded-instruction structures back into tokens, programs and containers.
//!
//! This is the back half of the fxc-syntax assembler and the source of synthetic test inputs
//! (dxbc-spirv's `Builder` idea). It is derived from the same opcode table as the decoder
//! ([`Opcode::slots`](crate::front::dxbc::Opcode::slots)); raw bit layouts live only in [`token`], which
//! mirrors [`crate::front::dxbc::token`] field for field.
//!
//! Contract:
//! - [`encode_operand`] and [`encode_instruction`] write exactly the dwords the decoder read:
//!   for every instruction of the real-shader corpus, `encode(decode(bytes)) == bytes`.
//! - The encoder takes trusted structures but never panics on them: a value that does not fit
//!   its bit field, a missing slot value or a leftover operand is an [`EncodeError`].
//! - Fields a decoded structure keeps only for reference (`offset`, `Operand::token`,
//!   `Instruction::length`) are ignored; tokens are rebuilt from the typed fields. Stored
//!   extension tokens (`Operand::ext`, the extended opcode tokens) are reproduced exactly.
//! - [`write_container`] lays chunks out back to back after the chunk table, as fxc does, and
//!   stores the checksum of [`crate::front::dxbc::checksum::compute`].
//!
//! Layouts: `docs/dxbc-format.md`; the D3D tokenized program format headers
//! (d3d11TokenizedProgramFormat.hpp, d3d12TokenizedProgramFormat.hpp).

mod builder;
mod container;
mod instruction;
mod operand;
mod rdef;
pub mod token;

#[cfg(test)]
pub(crate) mod samples;

pub use builder::ProgramBuilder;
pub use container::{write_container, write_signature};
pub use instruction::encode_instruction;
pub use operand::{encode_operand, imm32, imm64, reg, relative, OperandBuild};
pub use rdef::write_rdef;

use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::program::{ShaderVersion, Stage};

/// Why a structure could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// A value is too large for the bit field (or dword) that stores it.
    #[error("{what} {value:#x} does not fit in {bits} bits")]
    FieldOverflow {
        /// Which field.
        what: &'static str,
        /// The value given.
        value: u64,
        /// Width of the field.
        bits: u32,
    },
    /// The opcode's layout has a slot for which no value was given.
    #[error("{opcode}: missing {what}")]
    Missing {
        /// The instruction's mnemonic.
        opcode: &'static str,
        /// The missing slot (`operand`, `return type`, ...).
        what: &'static str,
    },
    /// A value was given that the opcode's layout has no slot for.
    #[error("{opcode}: {what} has no slot in the opcode's layout")]
    Unused {
        /// The instruction's mnemonic.
        opcode: &'static str,
        /// The extra value (`operand`, `immediate`, ...).
        what: &'static str,
    },
    /// An operand was given for a slot of the other kind (destination vs source).
    #[error("{opcode}: operand {index} is a {expected} slot")]
    SlotMismatch {
        /// The instruction's mnemonic.
        opcode: &'static str,
        /// Position of the operand.
        index: usize,
        /// The slot kind the table expects (`dst` or `src`).
        expected: &'static str,
    },
    /// A structure the token format cannot express (described by the message).
    #[error("{0}")]
    Unencodable(&'static str),
}

/// Result alias for encoding.
pub type Result<T, E = EncodeError> = std::result::Result<T, E>;

/// The program's version token.
pub fn encode_version(version: ShaderVersion) -> Result<u32> {
    let program_type = match version.stage {
        Stage::Pixel => 0,
        Stage::Vertex => 1,
        Stage::Geometry => 2,
        Stage::Hull => 3,
        Stage::Domain => 4,
        Stage::Compute => 5,
        Stage::Library => 0xfff0,
    };
    Ok(token::put(program_type, 16, 16, "program type")?
        | token::put(u32::from(version.major), 4, 4, "major version")?
        | token::put(u32::from(version.minor), 0, 4, "minor version")?)
}

/// A whole program chunk (SHDR/SHEX payload): the version token, the length token, then every
/// instruction. SM5.1-only slots (register space, constant-buffer size) must be present exactly
/// when `version` is 5.1 or later, since the decoder reads them by version.
pub fn encode_program<'i, 'a: 'i>(
    version: ShaderVersion,
    instructions: impl IntoIterator<Item = &'i Instruction<'a>>,
) -> Result<Vec<u32>> {
    let mut out = vec![encode_version(version)?, 0];
    for inst in instructions {
        check_sm51_slots(inst.opcode, inst.space, inst.cb_size, version)?;
        encode_instruction(inst, &mut out)?;
    }
    out[1] = length_dword(out.len(), "program length")?;
    Ok(out)
}

/// Checks that the SM5.1-only slots (register space, constant-buffer size) of an instruction are
/// filled exactly when the program's version has them.
fn check_sm51_slots(
    opcode: crate::front::dxbc::Opcode,
    space: Option<u32>,
    cb_size: Option<u32>,
    version: ShaderVersion,
) -> Result<()> {
    use crate::front::dxbc::opcodes::Slot;
    let sm51 = version.is_sm51();
    for (slot, value, what) in [
        (Slot::Space, space, "register space"),
        (Slot::CbSize, cb_size, "constant buffer size"),
    ] {
        let has_slot = sm51 && opcode.slots().contains(&slot);
        match (has_slot, value.is_some()) {
            (true, false) => {
                return Err(EncodeError::Missing {
                    opcode: opcode.name(),
                    what,
                })
            }
            (false, true) => {
                return Err(EncodeError::Unused {
                    opcode: opcode.name(),
                    what,
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// A dword count as a length dword.
fn length_dword(len: usize, what: &'static str) -> Result<u32> {
    u32::try_from(len).map_err(|_| EncodeError::FieldOverflow {
        what,
        value: len as u64,
        bits: 32,
    })
}

/// The little-endian bytes of `words` (a program chunk's payload).
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
