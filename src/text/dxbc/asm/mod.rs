//! Assembler: fxc-syntax listings (what [`crate::text::dxbc::disasm`] prints) → DXBC.
//!
//! Generated from the same opcode and name tables as the decoder and disassembler: a mnemonic is
//! split into the longest opcode name of the table plus suffixes, operands follow the opcode's
//! slots, and tokens are written by [`crate::text::dxbc::encode`]. Encodings the text leaves implicit
//! (component counts of unsuffixed registers, index representations, immediate selection modes)
//! follow fxc's choices as observed over the corpus. Every error names the line and column.

pub mod chunks;
mod container;
mod cursor;
pub mod error;
pub mod header;
mod instruction;
mod mnemonic;
mod operand;
mod program;

pub use container::{assemble, container_of_program};
pub use error::AsmError;
pub use program::assemble_program;

#[cfg(test)]
mod header_tests;
#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod tests;
