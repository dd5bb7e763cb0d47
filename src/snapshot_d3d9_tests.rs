//! Snapshot tests of the Direct3D 9 translation, as [`crate::snapshot_tests`] is for DXBC:
//! every listing of `fixtures/in/d3d9/` (written for these snapshots) and `fixtures/d3d9/` (the
//! decoder's fixtures, every version family) is assembled ([`crate::text::d3d9::asm`]) and
//! translated with the default [`Options`]. Its IR ([`crate::ir::print`], after the passes) is
//! compared with `fixtures/out/d3d9/ir/<name>.ir` and its SPIR-V text with
//! `fixtures/out/d3d9/spvasm/<name>.spvasm`; every module also goes through `spirv-val`.
//! A listing that does not lower or translate has the error as its snapshot (one `; error:`
//! line), so a change of what translates shows as a snapshot difference to review.
//! `BLESS=1` writes the snapshots (and removes those whose input is gone).

use std::path::{Path, PathBuf};

use crate::snapshot_tests::orphans;
use crate::spv::tests::snapshot::{check_text, fixtures_dir, spirv_text};
use crate::spv::tests::tools;
use crate::{translate, translate_to_ir, Options};

/// The `.asm` files of `dir`, sorted.
fn listings(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    paths.sort();
    paths
}

/// The snapshot text of a refusal.
fn refused(e: &crate::Error) -> String {
    format!("; error: {e}\n")
}

/// One listing: its two snapshots and `spirv-val`. Returns the problems found.
fn check_one(path: &Path, out: &Path) -> Vec<String> {
    let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
        return vec![format!("{}: no file name", path.display())];
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return vec![format!("{}: {e}", path.display())],
    };
    let bytes = match crate::text::d3d9::asm::assemble_bytes(&text) {
        Ok(b) => b,
        Err(e) => return vec![format!("{}: {e:?}", path.display())],
    };
    let options = Options::default();
    let ir = match translate_to_ir(&bytes, &options) {
        Ok(module) => crate::ir::print(&module),
        Err(e) => refused(&e),
    };
    let mut problems = Vec::new();
    problems.extend(check_text(&out.join("ir").join(format!("{name}.ir")), &ir).err());
    let spvasm = match translate(&bytes, &options) {
        Ok(t) => {
            if let Some(why) = tools::validation_error(&t.spirv, options.target.name()) {
                problems.push(format!("{name}: spirv-val: {why}"));
            }
            spirv_text(&t.spirv).unwrap_or_else(|e| format!("; error: {e}\n"))
        }
        Err(e) => refused(&e),
    };
    let file = out.join("spvasm").join(format!("{name}.spvasm"));
    problems.extend(check_text(&file, &spvasm).err());
    problems
}

#[test]
fn d3d9_fixtures_match_their_snapshots() {
    let fixtures = fixtures_dir();
    let out = fixtures.join("out/d3d9");
    let mut paths = listings(&fixtures.join("in/d3d9"));
    paths.extend(listings(&fixtures.join("d3d9")));
    assert!(paths.len() > 16, "the D3D9 listings are missing");
    let names: Vec<String> = paths
        .iter()
        .filter_map(|p| p.file_stem()?.to_str().map(str::to_owned))
        .collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "two listings share a name");
    let mut problems = Vec::new();
    for path in &paths {
        problems.extend(check_one(path, &out));
    }
    let hint = |_: &str| "no listing of that name".to_owned();
    problems.extend(orphans(&out.join("ir"), "ir", &names, hint));
    problems.extend(orphans(&out.join("spvasm"), "spvasm", &names, hint));
    assert!(
        problems.is_empty(),
        "{} snapshot problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}
