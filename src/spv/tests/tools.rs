//! Test tools: `spirv-val` and `spirv-dis` as subprocesses, and the writer's `.spvasm` snapshots.
//!
//! A missing tool FAILS the test with a message naming `.ci/setup.sh`, unless
//! `DXBC2SPV_ALLOW_NO_SPIRV_VAL=1`, in which case the check prints `skipped: ...` and is not
//! made (the same policy as `vk-tests`). The writer's snapshots are SPIR-V text from `rspirv`
//! in `fixtures/out/spvasm/writer/<name>.spvasm` (see `snapshot`); `BLESS=1` rewrites them.

use std::io::Write;
use std::process::{Command, Stdio};

const ALLOW_NO_SPIRV_VAL_ENV: &str = "DXBC2SPV_ALLOW_NO_SPIRV_VAL";

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v.trim() == "1")
}

/// Runs `tool args... -` with `words` on stdin; `None` when the tool is absent and skipping is
/// allowed. Returns (success, stdout, stderr).
fn run_tool(tool: &str, args: &[&str], words: &[u32]) -> Option<(bool, String, String)> {
    let spawned = Command::new(tool)
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if env_flag(ALLOW_NO_SPIRV_VAL_ENV) {
                eprintln!("skipped: {tool} not found on PATH ({e}); check not made");
                return None;
            }
            panic!(
                "{tool} not found on PATH ({e}); run .ci/setup.sh (as root) to install \
                 spirv-tools, or set {ALLOW_NO_SPIRV_VAL_ENV}=1 to skip (a skipped check has \
                 not passed)"
            );
        }
        Err(e) => panic!("could not start {tool}: {e}"),
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Some(mut stdin) = child.stdin.take() {
        match stdin.write_all(&bytes) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.expect("writing to the tool's stdin"),
        }
    }
    let out = child.wait_with_output().expect("waiting for the tool");
    Some((
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The disassembly of `words` (friendly names, no colour), or `None` when skipped.
pub fn disassemble(words: &[u32]) -> Option<String> {
    let (ok, stdout, stderr) = run_tool("spirv-dis", &["--no-color"], words)?;
    assert!(ok, "spirv-dis failed:\n{stderr}");
    Some(stdout)
}

/// Asserts that `spirv-val --target-env <env>` accepts `words`; the failure message has the
/// validator's diagnostics and the disassembly.
pub fn validate(words: &[u32], env: &str) {
    let Some((ok, stdout, stderr)) = run_tool("spirv-val", &["--target-env", env], words) else {
        return;
    };
    if !ok {
        let listing = disassemble(words).unwrap_or_default();
        panic!("spirv-val --target-env {env} rejected the module:\n{stdout}{stderr}\n{listing}");
    }
}

/// Whether `spirv-val --target-env <env>` accepts `words` (`None` when skipped).
pub fn is_valid(words: &[u32], env: &str) -> Option<bool> {
    run_tool("spirv-val", &["--target-env", env], words).map(|(ok, _, _)| ok)
}

/// The first line of `spirv-val`'s complaint about `words`, or `None` when it accepts them
/// (or the check is skipped).
pub fn validation_error(words: &[u32], env: &str) -> Option<String> {
    let (ok, stdout, stderr) = run_tool("spirv-val", &["--target-env", env], words)?;
    if ok {
        return None;
    }
    let text = format!("{stdout}{stderr}");
    Some(text.lines().next().unwrap_or("").to_owned())
}

/// Compares the SPIR-V text of `words` (`rspirv`'s disassembly) with
/// `fixtures/out/spvasm/writer/<name>.spvasm` (`BLESS=1` rewrites it); a difference fails with a
/// line diff.
pub fn check_snapshot(name: &str, words: &[u32]) {
    let path = super::snapshot::fixtures_dir()
        .join("out/spvasm/writer")
        .join(format!("{name}.spvasm"));
    let text = super::snapshot::spirv_text(words).unwrap_or_else(|e| panic!("{name}: {e}"));
    if let Err(e) = super::snapshot::check_text(&path, &text) {
        panic!("{e}");
    }
}
