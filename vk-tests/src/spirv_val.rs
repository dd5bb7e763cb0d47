//! Runs `spirv-val` (from SPIRV-Tools) on a module, feeding it on stdin.
//!
//! `spirv-val` missing is an error that names `.ci/setup.sh`, unless
//! `DXBC2SPV_ALLOW_NO_SPIRV_VAL=1`, in which case validation reports [`Validation::Skipped`].

use std::io::Write;
use std::process::{Child, Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::policy::{env_flag, ALLOW_NO_SPIRV_VAL_ENV};

/// The outcome of [`validate`] when it did not fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Validation {
    /// `spirv-val` accepted the module.
    Valid,
    /// `spirv-val` is not installed and `DXBC2SPV_ALLOW_NO_SPIRV_VAL=1`; the reason is inside.
    Skipped(String),
}

/// Starts the SPIRV-Tools program `program` with `args`, its stdin, stdout and stderr piped.
pub(crate) fn spawn_piped(program: &str, args: &[&str]) -> std::io::Result<Child> {
    Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
}

/// Validates `words` with `spirv-val --target-env <target_env>` (e.g. `vulkan1.1`).
///
/// Errors carry `spirv-val`'s diagnostics when it rejects the module, and a pointer to
/// `.ci/setup.sh` when it is not installed (unless skipping is allowed, see the module doc).
pub fn validate(words: &[u32], target_env: &str) -> Result<Validation> {
    let spawned = spawn_piped("spirv-val", &["--target-env", target_env, "-"]);
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let reason = format!("spirv-val not found on PATH ({e})");
            if env_flag(ALLOW_NO_SPIRV_VAL_ENV) {
                eprintln!("skipped: spirv-val validation ({reason})");
                return Ok(Validation::Skipped(reason));
            }
            bail!(
                "{reason}; run .ci/setup.sh (as root) to install spirv-tools, or set \
                 {ALLOW_NO_SPIRV_VAL_ENV}=1 to skip validation"
            );
        }
        Err(e) => return Err(e).context("could not start spirv-val"),
    };

    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    // Write on this thread, then collect output; spirv-val reads all input before writing.
    {
        let mut stdin = child.stdin.take().context("spirv-val stdin is not piped")?;
        match stdin.write_all(&bytes) {
            // spirv-val exited early; its status and output below tell why.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.context("writing the module to spirv-val's stdin")?,
        }
    }
    let out = child.wait_with_output().context("waiting for spirv-val")?;
    if out.status.success() {
        Ok(Validation::Valid)
    } else {
        bail!(
            "spirv-val --target-env {target_env} rejected the module ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }
}
