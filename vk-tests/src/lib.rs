//! Vulkan test harness for `dxbc2spv`: runs translated SPIR-V on a real Vulkan device.
//!
//! The device is Mesa's lavapipe (a CPU implementation, installed by `.ci/setup.sh`) in CI, or any
//! GPU the machine has. Pick one with the `DXBC2SPV_VK_DEVICE` environment variable (a substring of
//! the device name, see [`gpu::DEVICE_ENV`]).
//!
//! Modules:
//! - [`gpu`]: instance, physical-device choice, logical device, queue and memory allocator.
//! - [`buffer`]: host-visible storage buffers (create, upload, read back).
//! - [`compute`]: run one compute shader with storage, uniform and texel buffers at any
//!   (set, binding) and read the results back.
//! - [`spirv_val`]: run `spirv-val` on a module.
//! - [`features`]: device features by Vulkan name (what is supported, what is enabled).
//! - [`conformance`]: the conformance runner (declarative cases under `fixtures/conformance/`,
//!   run by `cargo run -p vk-tests -- run fixtures/conformance` and by `cargo test`).
//! - [`policy`]: how tests behave when Vulkan or `spirv-val` is missing (fail unless told to skip).
//!
//! Test policy: a missing device or tool makes a test FAIL with a message naming `.ci/setup.sh`,
//! unless `DXBC2SPV_ALLOW_NO_VULKAN=1` / `DXBC2SPV_ALLOW_NO_SPIRV_VAL=1` is set; then the test
//! prints `skipped: ...` and returns. A skipped test did not pass; it only did not run.

#![warn(missing_docs)]

pub mod buffer;
pub mod compute;
pub mod conformance;
pub mod features;
pub mod gpu;
pub mod policy;
pub mod spirv_val;

pub use buffer::Buffer;
pub use compute::{
    run_compute, run_compute_bound, run_compute_u32, BufferBinding, ComputeJob, DescriptorKind,
};
pub use features::DeviceFeatures;
pub use gpu::{DeviceInfo, Gpu, GpuOptions, DEVICE_ENV};
pub use policy::{gpu_or_skip, ALLOW_NO_SPIRV_VAL_ENV, ALLOW_NO_VULKAN_ENV};
pub use spirv_val::{validate, Validation};
