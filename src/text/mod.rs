//! Text tools beside the front ends: disassemblers, assemblers and encoders, one module per
//! bytecode.

pub mod dxbc;
