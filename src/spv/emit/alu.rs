//! Arithmetic, logic, comparison and conversion instructions with D3D's numeric rules
//! (`../shared/DESIGN.md` §5).

use super::context::Emitter;
use crate::error::Error;
use crate::ir::Inst;

impl Emitter<'_> {
    /// Emits one ALU instruction.
    pub fn alu(&mut self, inst: &Inst) -> Result<(), Error> {
        Err(Error::unsupported(inst.span, format!("`{}`", inst.op.name())))
    }
}
