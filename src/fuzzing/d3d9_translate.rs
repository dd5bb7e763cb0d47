//! The fuzz contract of the Direct3D 9 translation: [`translate_d3d9`] runs the whole pipeline
//! (decode, lower, passes, IR validation, SPIR-V emission) over arbitrary bytes with the default
//! parameters.
//!
//! Contract: it panics only when the translation breaks a documented guarantee: a success is a
//! SPIR-V module (magic, header) no larger than [`MAX_WORDS_PER_BYTE`] words per input byte
//! plus [`MAX_FIXED_WORDS`], whose IR ([`crate::translate_to_ir`]) passes [`crate::ir::validate`]
//! again; a failure is a typed error that is not [`ErrorKind::Internal`] (a translator bug), and
//! whose offset, when it has one, lies inside the input (its end included: a truncated token is
//! reported there). What is not a D3D9 token stream (a mutated version token) goes the DXBC way
//! and must fail the same way. The mutator is [`super::mutate_d3d9`]'s.

use crate::{ErrorKind, OptionFlags, Options};

/// The most SPIR-V words a translation may give per input byte, beyond [`MAX_FIXED_WORDS`]: an
/// instruction of one dword (4 bytes) lowers to a bounded number of IR instructions.
pub const MAX_WORDS_PER_BYTE: usize = 64;

/// SPIR-V words every module may have whatever its size (header, capabilities, types, the
/// constant buffers and interface).
pub const MAX_FIXED_WORDS: usize = 16_384;

/// Translates `data` with the default parameters and checks the contract above; returns the
/// module when it translates.
pub fn translate_d3d9(data: &[u8]) -> Option<Vec<u32>> {
    let options = Options::default().with_flag(OptionFlags::VERIFY_CHECKSUM, false);
    match crate::translate(data, &options) {
        Ok(t) => {
            assert_eq!(t.spirv.first(), Some(&0x0723_0203), "SPIR-V magic");
            assert!(t.spirv.len() >= 5, "SPIR-V header");
            let bound = MAX_FIXED_WORDS + MAX_WORDS_PER_BYTE * data.len();
            assert!(
                t.spirv.len() <= bound,
                "{} words from {} bytes (bound {bound})",
                t.spirv.len(),
                data.len()
            );
            let module = crate::translate_to_ir(data, &options)
                .unwrap_or_else(|e| panic!("translates, but its IR does not: {e}"));
            if let Err(e) = crate::ir::validate(&module) {
                panic!("translated IR fails ir::validate: {e}");
            }
            Some(t.spirv)
        }
        Err(e) => {
            assert_ne!(e.kind(), ErrorKind::Internal, "a translator bug: {e}");
            if let Some(offset) = e.offset() {
                assert!(
                    offset as usize <= data.len(),
                    "error offset {offset:#x} outside the input ({} bytes): {e}",
                    data.len()
                );
            }
            assert!(!e.to_string().is_empty(), "an error says what it is");
            None
        }
    }
}

#[cfg(test)]
#[path = "d3d9_translate_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "d3d9_hostile_tests.rs"]
mod hostile_tests;
