//! The conformance runner: declarative test cases (one TOML file each) that run a compute
//! shader, or draw with vertex, hull, domain, geometry and pixel shaders, on the Vulkan device
//! and check the buffers and images they leave. See `docs/conformance.md`.
//!
//! - [`case`]: the file format and its checks; [`draw`] and [`draw_state`] (graphics tables),
//!   [`textures`]
//!   (textures and samplers) and [`expect`] (expectations and comparisons) hold its parts;
//!   [`records`] compares unordered records (one per domain-shader invocation, say).
//! - [`steps`]: several dispatches or draws of one case in order (`[[step]]`).
//! - [`stages`]: which stages a graphics case may combine, and its runs (one per hull-shader
//!   schedule for a translated hull shader).
//! - [`d3d9`]: Direct3D 9 shaders (assembly text or tokens) and their constant sets.
//! - [`value`]: scalars in `data`/`values` lists and the comparisons (exact, ULP, NaN).
//! - [`shader`]: shader sources, stages and the [`DxbcTranslator`] plug-in point;
//!   [`translator`] is `dxbc2spv` behind it.
//! - [`spirv_scan`]: entry points and capabilities of a module (stage check, implied features).
//! - [`bind`]: where each resource is bound, for every stage; [`table`]: binding tables
//!   (`[[binding]]` rows, SM 5.1 register ranges in descriptor arrays).
//! - `execute`/`resources`: running one case.
//! - [`run`]: discovery, the [`Runner`], per-case reports and the summary line.

pub mod address;
pub mod bind;
pub mod case;
pub mod d3d9;
pub mod draw;
pub mod draw_state;
mod execute;
pub mod expect;
pub mod linkage;
pub mod pipeline_state;
pub mod push;
pub mod records;
mod resources;
pub mod run;
pub mod shader;
pub mod spirv_scan;
pub mod stages;
pub mod steps;
pub mod table;
pub mod textures;
pub mod translator;
pub mod value;

pub use case::Case;
pub use run::{discover, CaseFile, CaseReport, Outcome, Runner, Summary};
pub use shader::{
    default_translator, CompileOptions, CompiledShader, DxbcInput, DxbcTranslator, NotImplemented,
    ShaderSource, Stage,
};
