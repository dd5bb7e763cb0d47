//! Text tools for DXBC: the disassembler (fxc-syntax listings), the assembler (listings back to
//! containers) and the encoder (instructions and chunks to bytes) that the assembler builds on.
//!
//! Contract: these tools serve the DXBC front end ([`crate::front::dxbc`]) and import only it;
//! the translation never depends on them.

pub mod asm;
pub mod disasm;
pub mod encode;
#[cfg(test)]
mod encode_tests;
