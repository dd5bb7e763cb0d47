//! Helpers shared by the in-crate test suites: locating the real-shader corpus and fixtures.
//!
//! The corpus lives outside the repository at `../shared/corpus` (or `$DXBC2SPV_CORPUS`). Tests that
//! use it print a clear line when it is absent; with `CI=true` its absence is a failure.

use std::path::{Path, PathBuf};

/// The corpus folder, if present. Prints why when it is absent, and panics under `CI=true`.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("DXBC2SPV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("index.tsv").is_file() {
        return Some(dir);
    }
    let msg = format!(
        "corpus absent: {} has no index.tsv; corpus tests did not run",
        dir.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg} (CI=true requires it)");
    }
    eprintln!("{msg}");
    None
}

/// Every `.dxbc` file in the corpus (sorted), or an empty list when the corpus is absent.
pub fn corpus_blobs() -> Vec<PathBuf> {
    let Some(dir) = corpus_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    collect(&dir, &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "dxbc") {
            out.push(path);
        }
    }
}

/// True for corpus files under `_other/` (containers that are not SM4/5 programs).
pub fn is_other(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "_other")
}

/// The repository's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}
