//! Text tools for Direct3D 9 shader bytecode: the disassembler (fxc's listing) and the
//! assembler (fxc-syntax text back to tokens).

pub mod disasm;
