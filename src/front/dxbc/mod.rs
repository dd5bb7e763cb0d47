//! Front end: DXBC bytes → container, chunks, signatures, reflection and decoded instructions.
//!
//! The decoder (container, program, signatures, reflection) knows nothing of the IR or SPIR-V;
//! `lower/` turns a decoded program into the IR, and [`Dxbc`] is the entry the pipeline drives
//! ([`crate::front::FrontEnd`]: decode, lower, name an offset). Everything here is zero-copy
//! over the input bytes and returns errors carrying absolute byte offsets; nothing panics on
//! input.

pub mod error;
pub mod reader;

pub use error::{DecodeError, DecodeErrorDetail, DecodeErrorKind};
pub use reader::Reader;
pub mod instruction;
pub mod opcodes;
pub mod operand;
pub mod program;
pub mod token;

pub use instruction::Instruction;
pub use opcodes::Opcode;
pub use operand::{Operand, RegisterType};
pub use program::{Program, ShaderVersion, Stage};
pub mod aon9;
pub mod checksum;
pub mod container;
mod decl;
#[cfg(test)]
mod decode_tests;
pub mod literal;
mod locate;
pub mod lower;
pub mod names;
mod raw_enum;
pub mod rdef;
pub mod reflect;
pub mod rts0;
pub mod sfi0;
pub mod signature;
mod translate;

pub use container::{Chunk, Container, FourCc, ParseOptions};
pub use translate::{shader_program, Dxbc};
#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod hostile_tests;
