//! Front end: Direct3D 9 shader bytecode (vs/ps 1.0–3.0 token streams, standalone or the
//! level-9 part of a DXBC container) → decoded program → IR ([`lower`], [`D3d9`]).
//!
//! Contract: everything here reads little-endian dwords from the version token to the end token,
//! is driven by the one opcode table ([`opcodes`]), knows nothing of SPIR-V or the DXBC
//! front end (only [`lower`] knows the IR), and reports every failure as a typed error carrying the absolute byte offset of
//! the token at fault; nothing panics on input.

pub mod ctab;
pub mod decode;
pub mod error;
pub mod lower;
pub mod opcodes;
pub mod program;
pub mod reflect;
mod translate;

pub use decode::{decode, is_token_stream};
pub use error::{DecodeError, DecodeErrorKind};
pub use opcodes::Opcode;
pub use program::{Program, Version};
pub use translate::D3d9;

#[cfg(test)]
pub(crate) mod corpus_tests;
#[cfg(test)]
mod decode_tests;
#[cfg(test)]
mod malformed_tests;
