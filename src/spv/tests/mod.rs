//! Tests of the SPIR-V writer: encoding and caches (`unit`), misuse reported as errors
//! (`errors`), complete modules checked by `spirv-val` and snapshots (`modules`, `more_modules`),
//! a hand-run throughput measurement (`throughput`, `#[ignore]`d), the test tools (`tools`) and
//! the text snapshots of `fixtures/out/` (`snapshot`).

mod errors;
mod modules;
mod more_modules;
pub(crate) mod snapshot;
mod throughput;
pub(crate) mod tools;
mod unit;
