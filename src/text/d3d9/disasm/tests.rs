//! Formatting rules of the disassembler on hand-built programs.
