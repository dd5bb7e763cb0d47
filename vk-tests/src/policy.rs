//! What a test does when its environment lacks Vulkan or `spirv-val`.
//!
//! By default a missing device or tool is a test FAILURE whose message says to run
//! `.ci/setup.sh`. Setting `DXBC2SPV_ALLOW_NO_VULKAN=1` (or `DXBC2SPV_ALLOW_NO_SPIRV_VAL=1`)
//! turns it into a skip: the test prints `skipped: ...` with the reason and returns. A skipped
//! test has not passed; it only did not run.

use anyhow::{bail, Result};

use crate::gpu::Gpu;

/// Set to `1` to let Vulkan tests skip (with a printed reason) when no device can be created.
pub const ALLOW_NO_VULKAN_ENV: &str = "DXBC2SPV_ALLOW_NO_VULKAN";

/// Set to `1` to let tests skip `spirv-val` (with a printed reason) when it is not installed.
pub const ALLOW_NO_SPIRV_VAL_ENV: &str = "DXBC2SPV_ALLOW_NO_SPIRV_VAL";

/// True when the environment variable `name` is set to `1`.
pub fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v.trim() == "1")
}

/// Creates the test device ([`Gpu::new`] with no selector, so `DXBC2SPV_VK_DEVICE` applies).
///
/// Returns `Ok(None)` after printing `skipped: no Vulkan device (<reason>)` when creation fails
/// and `DXBC2SPV_ALLOW_NO_VULKAN=1`; otherwise a failure is an error that names `.ci/setup.sh`.
pub fn gpu_or_skip() -> Result<Option<Gpu>> {
    match Gpu::new(None) {
        Ok(gpu) => Ok(Some(gpu)),
        Err(e) if env_flag(ALLOW_NO_VULKAN_ENV) => {
            eprintln!("skipped: no Vulkan device ({e:#})");
            Ok(None)
        }
        Err(e) => bail!(
            "no Vulkan device: {e:#}\nrun .ci/setup.sh (as root) to install lavapipe, or set \
             {ALLOW_NO_VULKAN_ENV}=1 to skip Vulkan tests (a skipped test has not passed)"
        ),
    }
}
