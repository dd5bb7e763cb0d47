//! Texture operations: sampling, gathers, texel loads and queries on `t#` (images and samplers).

use crate::error::Error;
use crate::ir::Inst;

use super::context::Emitter;

impl Emitter<'_> {
    /// One texture operation.
    pub(super) fn texture(&mut self, inst: &Inst) -> Result<(), Error> {
        Err(Error::unsupported(
            inst.span,
            format!("`{}` (textures)", inst.op.name()),
        ))
    }
}
