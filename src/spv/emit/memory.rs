//! Buffer and shared-memory access, atomics, UAV counters, barriers.

use super::context::Emitter;
use crate::error::Error;
use crate::ir::Inst;

impl Emitter<'_> {
    /// Emits one memory instruction.
    pub fn memory(&mut self, inst: &Inst) -> Result<(), Error> {
        Err(Error::unsupported(inst.span, format!("`{}`", inst.op.name())))
    }
}
