//! Text tools beside the front ends: disassemblers, assemblers and encoders, one module per
//! bytecode.

#[cfg(feature = "d3d9")]
pub mod d3d9;
#[cfg(feature = "dxbc")]
pub mod dxbc;
#[cfg(all(feature = "dxbc", feature = "d3d9"))]
pub mod level9;
