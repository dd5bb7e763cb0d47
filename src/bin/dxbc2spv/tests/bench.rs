//! Tests of `bench`: the per-stage lines, the summary, the memory line and the words by
//! opcode.

use std::path::Path;

use super::{path_str, run};
use crate::commands::Status;

/// `bench` prints one line per stage and the summary line, over the files that translate.
#[test]
fn bench_prints_per_stage_lines_and_the_summary() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples");
    let r = run(&["bench", &path_str(&samples), "--rounds", "2"]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    let last = r.stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("bench: 6 files, 6 ok, mean_us ")
            && last.contains(" per shader, median_us ")
            && last.contains(", words_mean "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.lines().any(|l| l.starts_with("hs: 1 files, 1 ok")),
        "{}",
        r.stdout
    );
    // Peak memory: a translation holds at least its SPIR-V (a few KiB) at its peak.
    let memory = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("memory: peak_kib_mean "))
        .unwrap_or_else(|| panic!("no memory line: {}", r.stdout));
    let mean: f64 = memory
        .split(',')
        .next()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("memory line: {memory}"));
    assert!(mean >= 1.0, "{memory}");
}

/// `bench --opcodes` prints each stage's mean words and the words by opcode: every module has
/// one `OpMemoryModel` (3 words) and an `OpEntryPoint`; the shares add up to 100%.
#[test]
fn bench_opcodes_counts_words_by_opcode() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples");
    let r = run(&["bench", &path_str(&samples), "--rounds", "1", "--opcodes"]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert!(
        r.stdout
            .lines()
            .any(|l| l.starts_with("hs: 1 files, 1 ok") && l.contains(", words_mean ")),
        "{}",
        r.stdout
    );
    let rows: Vec<(&str, f64, f64)> = r
        .stdout
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("opcode ")?;
            let mut parts = rest.split_whitespace();
            let name = parts.next()?;
            let words = parts.nth(1)?.parse().ok()?;
            let share = parts.nth(1)?.trim_end_matches('%').parse().ok()?;
            Some((name, words, share))
        })
        .collect();
    let find = |n: &str| rows.iter().find(|r| r.0 == n).map(|r| r.1);
    assert_eq!(find("OpMemoryModel"), Some(3.0), "{}", r.stdout);
    assert!(
        find("OpEntryPoint").is_some_and(|w| w >= 4.0),
        "{}",
        r.stdout
    );
    let total: f64 = rows.iter().map(|r| r.2).sum();
    assert!((total - 100.0).abs() < 1.0, "{total}: {}", r.stdout);
    assert!(rows.windows(2).all(|w| w[0].1 >= w[1].1), "{}", r.stdout);
}
