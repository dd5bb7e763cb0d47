//! Text tools for Direct3D 9 shader bytecode: the disassembler (fxc's listing), the CTAB
//! header fxc prints, the encoder (program back to tokens) and the assembler (fxc-syntax text
//! to tokens).
//!
//! Contract: these tools serve the D3D9 front end ([`crate::front::d3d9`]) and import only it;
//! the translation never depends on them.

pub mod asm;
pub mod ctab_header;
pub mod disasm;
pub mod encode;
#[cfg(test)]
mod encode_tests;
#[cfg(test)]
mod listing_tests;
