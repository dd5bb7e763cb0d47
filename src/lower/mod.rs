//! DXBC → IR: declarations become [`ir::Module`] tables, executable instructions become
//! [`ir::Inst`]s with resolved operands.

use crate::dxbc::Program;
use crate::error::Error;
use crate::ir;

/// Lowers a decoded shader program to the IR.
pub fn lower(program: &Program<'_>) -> Result<ir::Module, Error> {
    Err(Error::unsupported(program.body_offset(), "lowering (in progress)"))
}
