//! Front end: Direct3D 9 shader bytecode (vs/ps 1.0–3.0 token streams, standalone or the
//! level-9 part of a DXBC container) → decoded program.
//!
//! Contract: everything here reads little-endian dwords from the version token to the end token,
//! is driven by the one opcode table ([`opcodes`]), knows nothing of the IR, SPIR-V or the DXBC
//! front end, and reports every failure as a typed error carrying the absolute byte offset of
//! the token at fault; nothing panics on input.

pub mod ctab;
pub mod decode;
pub mod error;
pub mod opcodes;
pub mod program;
pub mod reflect;

pub use decode::{decode, is_token_stream};
pub use error::{DecodeError, DecodeErrorKind};
pub use opcodes::Opcode;
pub use program::{Program, Version};

#[cfg(test)]
pub(crate) mod corpus_tests;
#[cfg(test)]
mod decode_tests;
#[cfg(test)]
mod malformed_tests;
