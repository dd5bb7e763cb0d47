//! Vulkan test harness for `dxbc2spv`: runs translated SPIR-V on a real Vulkan device.
//!
//! The device is Mesa's lavapipe (a CPU implementation, installed by `.ci/setup.sh`) in CI, or any
//! GPU the machine has. Pick one with the `DXBC2SPV_VK_DEVICE` environment variable (a substring of
//! the device name, see [`gpu::DEVICE_ENV`]).
//!
//! Modules:
//! - [`gpu`]: instance, physical-device choice, logical device, queue and memory allocator.
//! - [`buffer`]: host-visible storage buffers (create, upload, read back).
//! - [`compute`]: run one compute shader with storage, uniform and texel buffers (and images and
//!   samplers) at any (set, binding) and read the results back.
//! - [`graphics`]: draw with vertex, geometry and pixel shaders into render targets, with vertex
//!   and index buffers, depth/stencil, MSAA, several viewports and transform feedback.
//! - [`image`]: device images (upload, layout, read back), image views and samplers.
//! - [`samples`]: per-sample access to multisampled images (read back, upload) through compute.
//! - [`descriptors`]: descriptor sets shared by the compute and graphics runners.
//! - [`submit`]: one-shot command buffers.
//! - [`format`](mod@format): texel and depth formats by DXGI name, and decoding texels into
//!   channel values.
//! - [`png`]: a minimal PNG writer for pictures of failed draws.
//! - [`spirv_val`]: run `spirv-val` on a module.
//! - [`features`]: device features by Vulkan name (what is supported, what is enabled).
//! - [`conformance`]: the conformance runner (declarative cases under `fixtures/conformance/`,
//!   run by `cargo run -p vk-tests -- run fixtures/conformance` and by `cargo test`).
//! - [`level9`]: the two-part differential check of `4_0_level_9_x` pixel and vertex shaders
//!   (the SM4 program against the level-9 program of one container, same inputs, same
//!   outputs).
//! - [`oracle`]: a CPU reference interpreter of D3D compute-shader semantics, checked against
//!   the conformance cases' expected values (no Vulkan needed).
//! - [`policy`]: how tests behave when Vulkan or `spirv-val` is missing (fail unless told to skip).
//! - [`watchdog`]: stops a conformance run whose case never finishes, naming the case.
//!
//! Test policy: a missing device or tool makes a test FAIL with a message naming `.ci/setup.sh`,
//! unless `DXBC2SPV_ALLOW_NO_VULKAN=1` / `DXBC2SPV_ALLOW_NO_SPIRV_VAL=1` is set; then the test
//! prints `skipped: ...` and returns. A skipped test did not pass; it only did not run.

#![warn(missing_docs)]

pub mod buffer;
pub mod compute;
pub mod conformance;
pub mod descriptors;
pub mod features;
pub mod format;
pub mod gpu;
pub mod graphics;
pub mod image;
pub mod level9;
pub mod oracle;
pub mod png;
pub mod policy;
pub mod samples;
pub mod spirv_val;
pub mod submit;
pub mod watchdog;

pub use buffer::Buffer;
pub use compute::{
    run_compute, run_compute_bound, run_compute_u32, BufferBinding, ComputeJob, DescriptorKind,
};
pub use features::DeviceFeatures;
pub use gpu::{DeviceInfo, Gpu, GpuOptions, DEVICE_ENV};
pub use policy::{gpu_or_skip, ALLOW_NO_SPIRV_VAL_ENV, ALLOW_NO_VULKAN_ENV};
pub use spirv_val::{validate, Validation};
