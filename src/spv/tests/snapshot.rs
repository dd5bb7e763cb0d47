//! Text snapshots under `fixtures/out/`: SPIR-V text from `rspirv`'s disassembler (in-process,
//! so a snapshot does not depend on the installed spirv-tools), and one comparison for every
//! snapshot: `BLESS=1` writes the file, otherwise a difference fails with a line diff.

use std::path::{Path, PathBuf};

/// The repository's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Whether this run rewrites snapshots (`BLESS=1`).
pub fn blessing() -> bool {
    std::env::var("BLESS").is_ok_and(|v| v.trim() == "1")
}

/// The SPIR-V text of `words` ([`crate::spv::text`], `rspirv`'s disassembly, ending with a
/// newline); a module `rspirv` cannot load is an error naming why.
pub fn spirv_text(words: &[u32]) -> Result<String, String> {
    crate::spv::text::disassemble_words(words).map_err(|e| format!("rspirv: {e}"))
}

/// Compares `text` with the file at `path`: `Ok` when equal; with `BLESS=1` writes it (and its
/// folder) instead. A difference, or a missing file, is an `Err` with a line diff.
pub fn check_text(path: &Path, text: &str) -> Result<(), String> {
    if blessing() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        return std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()));
    }
    let expected = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) => {
            return Err(format!(
                "{}: {e}; run with BLESS=1 to create it",
                path.display()
            ))
        }
    };
    if expected == text {
        return Ok(());
    }
    Err(format!(
        "{} differs (- snapshot, + now; BLESS=1 rewrites it):\n{}",
        path.display(),
        line_diff(&expected, text)
    ))
}

/// Lines of context shown around a difference.
const CONTEXT: usize = 3;
/// At most this many lines of each side are shown.
const SHOWN: usize = 40;

/// A readable diff: the common first and last lines are skipped (but for a little context),
/// the rest is shown as `-` (old) and `+` (new) lines, each numbered by its line in the file.
pub fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut out = String::new();
    let start = prefix.saturating_sub(CONTEXT);
    for (i, line) in a.iter().enumerate().take(prefix).skip(start) {
        out.push_str(&format!("{:>5}   {line}\n", i + 1));
    }
    let show = |out: &mut String, lines: &[&str], first: usize, sign: char| {
        for (i, line) in lines.iter().enumerate().take(SHOWN) {
            out.push_str(&format!("{:>5} {sign} {line}\n", first + i + 1));
        }
        if lines.len() > SHOWN {
            out.push_str(&format!("      {sign} ... {} more\n", lines.len() - SHOWN));
        }
    };
    show(&mut out, &a[prefix..a.len() - suffix], prefix, '-');
    show(&mut out, &b[prefix..b.len() - suffix], prefix, '+');
    let tail = b.len() - suffix;
    for (i, line) in b.iter().enumerate().skip(tail).take(CONTEXT) {
        out.push_str(&format!("{:>5}   {line}\n", i + 1));
    }
    out
}

#[test]
fn line_diff_shows_the_changed_lines_with_context() {
    let diff = line_diff("a\nb\nc\nd\ne\n", "a\nb\nX\nd\ne\n");
    assert_eq!(
        diff,
        "    1   a\n    2   b\n    3 - c\n    3 + X\n    4   d\n    5   e\n"
    );
}
