//! IR → IR passes, one per file, run in the order written in [`run`].

use crate::bindings::Bindings;
use crate::error::Error;
use crate::ir::Module;

/// Runs every pass, in order.
pub fn run(module: &mut Module, bindings: &Bindings) -> Result<(), Error> {
    let _ = (module, bindings);
    Ok(())
}
