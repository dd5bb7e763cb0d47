//! dxbc2spv: a Direct3D shader bytecode (DXBC, Shader Model 4.0–5.1) to Vulkan SPIR-V translator.
//!
//! Pipeline (see `docs/architecture.md`):
//!
//! ```text
//! bytes ──front end (front::dxbc: container, program, signatures; lower)──► ir::Module
//!       ──passes──► ir::validate ──back end (back::spirv)──► SPIR-V words
//! ```
//!
//! The pipeline is written once (`pipeline.rs`) for every front end ([`front::FrontEnd`]).
//! [`Translator`] translates shaders one after another in reusable, bounded buffers;
//! [`translate`] does so with a translator per thread.
//!
//! Invariant at every boundary: input-derived data never causes a panic; each failure is a typed
//! error carrying the byte offset in the DXBC input.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::panic,
        clippy::print_stdout,
        clippy::dbg_macro,
        clippy::todo
    )
)]

pub mod back;
/// Resource bindings: D3D register ranges → Vulkan descriptor set, binding and array offset.
pub mod bindings;
pub mod d3d9_state;
mod error;
pub mod front;
/// Fuzz entry points (never panic on input), a seeded PRNG and a token-aware DXBC mutator.
/// Built for the crate's own tests and with the non-default `fuzzing` feature (the cargo-fuzz
/// crate in `src/fuzz/` turns it on); a plain build leaves it out.
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod ir;
mod linking;
pub mod passes;
mod pipeline;
mod resource_usage;
mod scratch;
pub mod spv;
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
pub mod text;
mod warning;

pub use d3d9_state::{D3d9State, StateValue};
pub use error::{Error, ErrorKind, Located};
pub use front::{Semantic, Semantics};
pub use linking::{StageLinking, Workarounds};
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
pub use pipeline::{bound_resources, bound_shader_info, translate, translate_to_ir};
pub use pipeline::{
    parse_swizzle, PipelineState, SpecValue, TargetComponent, TargetSwizzle, IDENTITY_SWIZZLE,
};
pub use pipeline::{
    BoundResource, BufferFixup, DomainModes, FixupBlock, FloatControls, FloatEmulation,
    HullSchedule, OptionFlags, Options, RovInterlock, ShaderInfo, StorageBufferAlignment,
    StreamOutput, StreamOutputEntry, Target, TexelRawBuffers, Translation, Translator,
    TypedUavFormats, UavFormat, UnlistedUavFormat, ENTRY_POINT, KEEP_BYTES,
};
pub use pipeline::{ForcedBarriers, WorkgroupZeroInit};
pub use resource_usage::ResourceUsage;
pub use scratch::release_thread_buffers;
pub use warning::{Severity, Warning, WarningKind};

#[cfg(test)]
mod architecture_tests;
#[cfg(test)]
mod hostile_translate_tests;
#[cfg(test)]
mod lowering_tests;
#[cfg(test)]
mod malformed_tests;
#[cfg(all(test, feature = "d3d9"))]
mod snapshot_d3d9_tests;
#[cfg(test)]
mod snapshot_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod thread_safety_tests;
#[cfg(test)]
mod translate_graphics_tests;
#[cfg(test)]
mod translate_sm51_tests;
#[cfg(test)]
mod translate_tests;
#[cfg(test)]
mod warning_tests;
