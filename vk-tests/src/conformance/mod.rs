//! The conformance runner: declarative test cases (one TOML file each) that run a compute
//! shader on the Vulkan device and check the buffers it leaves. See `docs/conformance.md`.
//!
//! - [`case`]: the file format and its checks.
//! - [`value`]: scalars in `data`/`values` lists and the comparisons (exact, ULP, NaN).
//! - [`shader`]: shader sources and the [`DxbcTranslator`] plug-in point.
//! - [`run`]: discovery, the [`Runner`], per-case reports and the summary line.

pub mod case;
pub mod run;
pub mod shader;
pub mod translator;
pub mod value;

pub use case::Case;
pub use run::{discover, CaseFile, CaseReport, Outcome, Runner, Summary};
pub use shader::{
    default_translator, CompiledShader, DxbcInput, DxbcTranslator, NotImplemented, ShaderSource,
};
