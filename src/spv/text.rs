//! SPIR-V text: a module disassembled in-process by `rspirv`, the text the command line writes
//! (`translate --spirv-asm`, `spirv-dis`) and the snapshot tests compare, so neither depends on
//! an installed spirv-tools.
//!
//! Contract: [`disassemble_words`] and [`disassemble_bytes`] return `rspirv`'s disassembly of a
//! whole module, ending with one newline, or a [`TextError`] naming the byte offset (from the
//! start of the module) where it stops being SPIR-V. Nothing panics, whatever the input. Built
//! with the `spirv-text` feature (which `cli` turns on) and for the crate's own tests.

use rspirv::binary::{Disassemble, ParseState};

/// Why a module could not be disassembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// The input's length is not a whole number of 32-bit words.
    #[error("{len} bytes is not a whole number of 32-bit words (at byte offset {offset})")]
    PartialWord {
        /// The input's length in bytes.
        len: usize,
        /// Where the incomplete last word starts.
        offset: usize,
    },
    /// The input is not a SPIR-V module (or not one `rspirv` can read) at `offset`.
    #[error("not SPIR-V at byte offset {offset}: {message}")]
    Invalid {
        /// Byte offset of the header (0) or of the instruction that could not be read.
        offset: usize,
        /// `rspirv`'s description.
        message: String,
    },
    /// An operand could not be decoded; `rspirv`'s message names the byte index of the word.
    #[error("not SPIR-V: {message}")]
    Operand {
        /// `rspirv`'s description, with the byte index it stopped at.
        message: String,
    },
}

/// The SPIR-V text of the module `words` (ending with a newline).
pub fn disassemble_words(words: &[u32]) -> Result<String, TextError> {
    let module = rspirv::dr::load_words(words).map_err(parse_error)?;
    Ok(finish(module.disassemble()))
}

/// The SPIR-V text of the module `bytes` (a `.spv` file: either byte order, as `rspirv` reads
/// it; ending with a newline).
pub fn disassemble_bytes(bytes: &[u8]) -> Result<String, TextError> {
    let whole = bytes.len() - bytes.len() % 4;
    if whole != bytes.len() {
        return Err(TextError::PartialWord {
            len: bytes.len(),
            offset: whole,
        });
    }
    let module = rspirv::dr::load_bytes(bytes).map_err(parse_error)?;
    Ok(finish(module.disassemble()))
}

fn finish(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// `rspirv`'s parse failure as a [`TextError`] with the byte offset it names.
fn parse_error(state: ParseState) -> TextError {
    let message = state.to_string();
    let offset = match state {
        ParseState::HeaderIncomplete(_)
        | ParseState::HeaderIncorrect
        | ParseState::EndiannessUnsupported => 0,
        ParseState::WordCountZero(offset, _)
        | ParseState::OpcodeUnknown(offset, _, _)
        | ParseState::OperandExpected(offset, _)
        | ParseState::OperandExceeded(offset, _)
        | ParseState::TypeUnsupported(offset, _)
        | ParseState::SpecConstantOpIntegerIncorrect(offset, _) => offset,
        ParseState::OperandError(_)
        | ParseState::Complete
        | ParseState::ConsumerStopRequested
        | ParseState::ConsumerError(_) => return TextError::Operand { message },
    };
    TextError::Invalid { offset, message }
}

#[cfg(test)]
mod tests {
    use super::{disassemble_bytes, disassemble_words, TextError};

    /// A minimal module (SPIR-V spec §2.3 header, then `OpCapability Shader`, `OpMemoryModel
    /// Logical GLSL450`).
    const MODULE: [u32; 8] = [
        0x0723_0203,
        0x0001_0000,
        0,
        1,
        0,
        0x0002_0011,
        1,
        0x0003_000e,
    ];

    fn module() -> Vec<u32> {
        let mut words = MODULE.to_vec();
        words.extend([0, 1]);
        words
    }

    #[test]
    fn words_and_bytes_give_the_same_text() {
        let words = module();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let text = disassemble_words(&words).expect("a valid module");
        assert!(text.contains("OpCapability Shader"), "{text}");
        assert!(text.contains("OpMemoryModel Logical GLSL450"), "{text}");
        assert!(text.ends_with('\n'));
        assert_eq!(disassemble_bytes(&bytes), Ok(text));
    }

    #[test]
    fn not_spirv_is_an_error_at_offset_0() {
        let dxbc = b"DXBC\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0";
        match disassemble_bytes(dxbc) {
            Err(TextError::Invalid { offset: 0, .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_partial_word_is_named() {
        let mut bytes: Vec<u8> = module().iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.push(0);
        assert_eq!(
            disassemble_bytes(&bytes),
            Err(TextError::PartialWord {
                len: 41,
                offset: 40
            })
        );
    }

    #[test]
    fn a_zero_word_count_names_its_instruction() {
        let mut words = module();
        words.push(0);
        // The header is 5 words, the two instructions 2 + 3: the sixth word is at byte 40.
        match disassemble_words(&words) {
            Err(TextError::Invalid { offset: 40, .. }) => {}
            other => panic!("{other:?}"),
        }
    }
}
