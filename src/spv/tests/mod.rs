//! Tests of the SPIR-V writer: encoding and caches (`unit`), misuse reported as errors
//! (`errors`), complete modules checked by `spirv-val` and snapshots (`modules`, `more_modules`),
//! and a hand-run throughput measurement (`throughput`, `#[ignore]`d).

mod errors;
mod modules;
mod more_modules;
mod throughput;
pub(crate) mod tools;
mod unit;
