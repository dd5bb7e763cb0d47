//! Stage-specific operations: discard, derivatives, pull-model interpolation, geometry emits.

use crate::error::Error;
use crate::ir::Inst;

use super::context::Emitter;

impl Emitter<'_> {
    /// One stage-specific operation.
    pub(super) fn stage_op(&mut self, inst: &Inst) -> Result<(), Error> {
        Err(Error::unsupported(
            inst.span,
            format!("`{}` (graphics stages)", inst.op.name()),
        ))
    }
}
