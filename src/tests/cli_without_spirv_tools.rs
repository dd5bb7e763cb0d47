//! The command line on a machine without spirv-tools: the built `dxbc2spv` runs as a child
//! process whose `PATH` is an empty folder, as on a fresh machine before `.ci/test.sh` installs
//! spirv-tools. `translate --spirv-asm` (the README's first command) must still write the module
//! and its SPIR-V text; `--validate` must fail the input with a message naming `spirv-val` and
//! how to install it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty folder under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("dxbc2spv-no-tools-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("empty-path")).expect("create temp dir");
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the tool with `args` and `PATH` set to `tmp`'s empty folder.
fn run_without_tools(tmp: &TempDir, args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxbc2spv"))
        .args(args)
        .env("PATH", tmp.0.join("empty-path"))
        .output()
        .expect("run dxbc2spv")
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/cs50_structured_tgsm.dxbc")
}

#[test]
fn spirv_asm_needs_no_spirv_tools() {
    let tmp = TempDir::new("asm");
    let out = tmp.0.join("sample.spv");
    let r = run_without_tools(
        &tmp,
        &[
            Path::new("translate"),
            &sample(),
            Path::new("-o"),
            &out,
            Path::new("--spirv-asm"),
        ],
    );
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "exit {:?}: {stderr}", r.status);
    let module = std::fs::read(&out).expect("the module was written");
    assert_eq!(module.get(..4), Some(&0x0723_0203u32.to_le_bytes()[..]));
    let text = std::fs::read_to_string(tmp.0.join("sample.spvasm")).expect("the text was written");
    // The sample is a compute shader (`cs_5_0`, `dcl_thread_group 64, 1, 1`): a GLCompute entry
    // point with a LocalSize execution mode.
    assert!(text.contains("OpEntryPoint GLCompute"), "{text}");
    assert!(text.contains("OpExecutionMode"), "{text}");
    assert!(text.contains("LocalSize 64 1 1"), "{text}");
    assert!(text.contains("OpFunctionEnd"), "{text}");
}

#[test]
fn validate_without_spirv_val_says_what_to_install() {
    let tmp = TempDir::new("val");
    let out = tmp.0.join("sample.spv");
    let r = run_without_tools(
        &tmp,
        &[
            Path::new("translate"),
            &sample(),
            Path::new("-o"),
            &out,
            Path::new("--validate"),
        ],
    );
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("spirv-val not found on PATH"), "{stderr}");
    assert!(stderr.contains("apt-get install spirv-tools"), "{stderr}");
}
