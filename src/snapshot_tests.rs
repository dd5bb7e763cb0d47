//! Snapshot tests in the style of naga's: every shader of `fixtures/in/` (fxc-syntax text,
//! assembled by [`crate::text::dxbc::asm::assemble`]) is translated with the default
//! [`Options`] (SM5.1 shaders the D3D11 layout cannot bind get one binding per declared range),
//! and its IR ([`crate::ir::print`], after the passes) and its SPIR-V text
//! (`rspirv`'s disassembler) are compared with `fixtures/out/ir/<name>.ir` and
//! `fixtures/out/spvasm/<name>.spvasm`. Every module is also checked with `spirv-val` for the
//! default target. An input holding the comment line [`IR_ONLY`] is a lowering test: it has only
//! the IR snapshot and is not translated to SPIR-V (it may use what the back end rejects). An
//! input holding the line [`ROV_INTERLOCK`] is translated with [`RovInterlock::Pixel`] (a device
//! with fragment-shader interlock), as its rasterizer-ordered views need.
//! `BLESS=1` writes the snapshots (and removes those whose input is gone); otherwise every
//! difference is reported as a line diff and the test fails.

use std::path::{Path, PathBuf};

use crate::spv::tests::snapshot::{blessing, check_text, fixtures_dir, spirv_text};
use crate::spv::tests::tools;
use crate::{translate, translate_to_ir, Options, RovInterlock};

/// The comment line (a whole line of the input, surrounding blanks ignored) that marks a
/// fixture as lowering-only: IR snapshot, no SPIR-V.
const IR_ONLY: &str = "// snapshot: ir only";

/// The comment line that asks for [`RovInterlock::Pixel`].
const ROV_INTERLOCK: &str = "// snapshot: rov interlock";

/// Whether the input `text` holds the whole line `line`.
fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l.trim() == line)
}

/// Whether the input `text` is lowering-only (holds the [`IR_ONLY`] line).
fn is_ir_only(text: &str) -> bool {
    has_line(text, IR_ONLY)
}

/// The `.asm` files of `fixtures/in/`, sorted.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    paths.sort();
    paths
}

/// The default [`Options`], as the command line uses them (bindings: the embedded root
/// signature, else set = register space).
fn options_for(_bytes: &[u8]) -> Options {
    Options::default()
}

/// One input: its IR and SPIR-V snapshots, and `spirv-val`. Returns the problems found.
fn check_one(path: &Path, out: &Path) -> Vec<String> {
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_owned();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return vec![format!("{}: {e}", path.display())],
    };
    let bytes = match crate::text::dxbc::asm::assemble(&text) {
        Ok(b) => b,
        Err(e) => return vec![format!("{}:{e}", path.display())],
    };
    let mut options = options_for(&bytes);
    if has_line(&text, ROV_INTERLOCK) {
        options = options.with_rov_interlock(RovInterlock::Pixel);
    }
    let mut problems = Vec::new();
    match translate_to_ir(&bytes, &options) {
        Ok(module) => {
            let ir = crate::ir::print(&module);
            let file = out.join("ir").join(format!("{name}.ir"));
            problems.extend(check_text(&file, &ir).err());
        }
        Err(e) => problems.push(format!("{name}: lowering failed: {e}")),
    }
    if is_ir_only(&text) {
        return problems;
    }
    match translate(&bytes, &options) {
        Ok(translation) => {
            tools::validate(&translation.spirv, options.target.name());
            match spirv_text(&translation.spirv) {
                Ok(spvasm) => {
                    let file = out.join("spvasm").join(format!("{name}.spvasm"));
                    problems.extend(check_text(&file, &spvasm).err());
                }
                Err(e) => problems.push(format!("{name}: {e}")),
            }
        }
        Err(e) => problems.push(format!("{name}: translation failed: {e}")),
    }
    problems
}

/// Snapshots in `dir` (files with extension `ext`) whose input is not in `names`: removed when
/// blessing, reported otherwise (`hint` says, for a stem, which input would have made it).
pub(crate) fn orphans(
    dir: &Path,
    ext: &str,
    names: &[String],
    hint: impl Fn(&str) -> String,
) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for path in entries.flatten().map(|e| e.path()) {
        if !path.is_file() || !path.extension().is_some_and(|e| e == ext) {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if names.iter().any(|n| n == stem) {
            continue;
        }
        if blessing() {
            if let Err(e) = std::fs::remove_file(&path) {
                problems.push(format!("{}: {e}", path.display()));
            }
        } else {
            problems.push(format!(
                "{}: {} (BLESS=1 removes it)",
                path.display(),
                hint(stem)
            ));
        }
    }
    problems
}

#[test]
fn fixtures_match_their_snapshots() {
    let fixtures = fixtures_dir();
    let out = fixtures.join("out");
    let paths = inputs(&fixtures.join("in"));
    assert!(!paths.is_empty(), "no shaders in fixtures/in");
    let name = |p: &PathBuf| p.file_stem()?.to_str().map(str::to_owned);
    let names: Vec<String> = paths.iter().filter_map(name).collect();
    // Lowering-only inputs have no SPIR-V snapshot: one left behind is an orphan.
    let translated: Vec<String> = paths
        .iter()
        .filter(|p| !std::fs::read_to_string(p).is_ok_and(|t| is_ir_only(&t)))
        .filter_map(name)
        .collect();
    let mut problems = Vec::new();
    for path in &paths {
        problems.extend(check_one(path, &out));
    }
    let hint = |stem: &str| format!("no fixtures/in/{stem}.asm, or it is lowering-only");
    problems.extend(orphans(&out.join("ir"), "ir", &names, hint));
    problems.extend(orphans(&out.join("spvasm"), "spvasm", &translated, hint));
    assert!(
        problems.is_empty(),
        "{} snapshot problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}
