//! The disassembler against fxc's own listings in the D3D9 corpus: the standalone `vs_*`/`ps_*`
//! listings of `.d3d9` streams and the level-9 sections of `4_0_level_9_x` container listings.

use std::path::Path;

use super::{slot_summary, write_program, write_slot_summary};
use crate::front::d3d9::corpus_tests::level9_program;
use crate::front::d3d9::decode;
use crate::test_support;

/// Whether a (trimmed) line is a D3D9 version line: `vs_1_1` … `ps_3_0`, `ps_2_x`, `vs_3_sw`.
fn is_version_line(line: &str) -> bool {
    let Some(rest) = line
        .strip_prefix("vs_")
        .or_else(|| line.strip_prefix("ps_"))
    else {
        return false;
    };
    matches!(
        rest,
        "1_0" | "1_1" | "1_2" | "1_3" | "1_4" | "2_0" | "2_x" | "2_sw" | "3_0" | "3_sw"
    )
}

/// Lines of fxc's D3D9 instruction section: from the version line to the slot summary (or
/// the DXBC program that follows a level-9 section), comment lines, `#line` lines and
/// trailing comments removed, whitespace runs folded.
pub(crate) fn fxc_instruction_lines(listing: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut started = false;
    for line in listing.lines() {
        let trimmed = line.trim();
        if !started {
            started = is_version_line(trimmed);
            if !started {
                continue;
            }
        }
        if trimmed.to_ascii_lowercase().starts_with("// approximately") {
            break;
        }
        if trimmed.starts_with("//") || trimmed.starts_with("#line") || trimmed.is_empty() {
            continue;
        }
        let code = match trimmed.find("//") {
            Some(i) => &trimmed[..i],
            None => trimmed,
        };
        out.push(fold(code));
    }
    out
}

/// The `columns` of every row of the corpus index, by column name.
fn index_rows_with(dir: &Path, columns: &[&str]) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("index.tsv")).expect("read index.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let picks: Vec<usize> = columns
        .iter()
        .map(|c| header.iter().position(|h| h == c).expect("index column"))
        .collect();
    lines
        .map(|l| {
            let fields: Vec<&str> = l.split('\t').collect();
            picks
                .iter()
                .map(|&i| fields.get(i).copied().unwrap_or("").to_string())
                .collect()
        })
        .collect()
}

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Listings whose instruction section fxc printed differently from the bytes beside them, and
/// why. Each entry is checked to still differ.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// One listing compared: (file, first differing fxc line, our line there), or `None` when equal.
fn compare(program_text: &str, expected: &[String]) -> Option<(String, String)> {
    let ours: Vec<String> = program_text
        .lines()
        .map(fold)
        .filter(|l| !l.is_empty())
        .collect();
    if ours == expected {
        return None;
    }
    let i = expected
        .iter()
        .enumerate()
        .find(|(i, e)| ours.get(*i) != Some(e))
        .map_or(expected.len(), |(i, _)| i);
    let get = |v: &[String]| v.get(i).cloned().unwrap_or_else(|| "<end>".into());
    Some((get(expected), get(&ours)))
}

#[test]
fn instruction_listing_matches_fxc() {
    let Some(dir) = test_support::corpus_d3d9_dir() else {
        return;
    };
    let rows = index_rows_with(&dir, &["file", "origin", "array", "listing"]);
    let (mut standalone, mut standalone_ok, mut level9, mut level9_ok) = (0, 0, 0, 0);
    let mut failures: Vec<(String, String, String)> = Vec::new();
    let mut known_seen = 0;
    let (mut summaries, mut summaries_ok) = (0, 0);
    for row in &rows {
        let [file, origin, chunk, listing] = [0, 1, 2, 3].map(|i| row[i].as_str());
        if listing != "fxc" {
            continue;
        }
        let path = dir.join(file);
        let text = std::fs::read_to_string(path.with_extension("asm")).expect("read listing");
        let bytes = std::fs::read(&path).expect("read stream");
        let is_level9 = origin == "aon9";
        let (section, stream, base) = if is_level9 {
            let at = text
                .find("// Level9 shader bytecode:")
                .expect("a level-9 section");
            let (stream, base) = level9_program(&bytes, chunk).expect("a level-9 program");
            (&text[at..], stream, base)
        } else {
            (text.as_str(), bytes, 0)
        };
        let expected = fxc_instruction_lines(section);
        assert!(!expected.is_empty(), "{file}: no instruction section");
        let program = decode(&stream, base).expect("decode");
        let mut ours = String::new();
        let summary_line = section
            .lines()
            .map(str::trim)
            .find(|l| l.to_ascii_lowercase().starts_with("// approximately"));
        if let (Some(fxc), Some(summary)) = (summary_line, slot_summary(&program)) {
            let mut line = String::new();
            write_slot_summary(&mut line, &summary);
            summaries += 1;
            if line.trim_end() == fxc {
                summaries_ok += 1;
            } else {
                println!(
                    "  {file}: slot summary\n    fxc:  {fxc}\n    ours: {}",
                    line.trim_end()
                );
            }
        }
        let result = write_program(&mut ours, &program)
            .map_err(|e| (e.to_string(), String::new()))
            .and_then(|()| compare(&ours, &expected).map_or(Ok(()), Err));
        let known = KNOWN_DIFFERENCES
            .iter()
            .find(|(name, _)| file.ends_with(name));
        if let Some((name, why)) = known {
            assert!(
                result.is_err(),
                "{name} now matches fxc: remove it from KNOWN_DIFFERENCES ({why})"
            );
            known_seen += 1;
        }
        let (total, ok) = if is_level9 {
            (&mut level9, &mut level9_ok)
        } else {
            (&mut standalone, &mut standalone_ok)
        };
        *total += 1;
        match result {
            Ok(()) => *ok += 1,
            Err((e, o)) if known.is_none() => failures.push((file.to_string(), e, o)),
            Err(_) => {}
        }
    }
    let (total, matched) = (standalone + level9, standalone_ok + level9_ok);
    let rate = if total > 0 {
        matched as f64 * 100.0 / total as f64
    } else {
        100.0
    };
    println!(
        "D3D9 fxc listing match: {matched}/{total} ({rate:.2}%): standalone {standalone_ok}/{standalone}, \
         level-9 sections {level9_ok}/{level9}"
    );
    println!("D3D9 slot summaries: {summaries_ok}/{summaries} equal fxc's (the others' instructions have no checked cost)");
    let mut shown = std::collections::HashSet::new();
    for (path, e, o) in &failures {
        let key: String = e.split_whitespace().next().unwrap_or("").to_string();
        if shown.insert(key) || std::env::var("SHOW_ALL").is_ok() {
            println!("  {path}\n    fxc:  {e}\n    ours: {o}");
        }
    }
    assert!(total > 0, "the index lists no fxc listing");
    assert!(
        rate >= 99.0,
        "fxc listing match rate {rate:.2}% is below 99%"
    );
    assert_eq!(
        known_seen,
        KNOWN_DIFFERENCES.len(),
        "a known-difference file is missing"
    );
    assert_eq!(summaries_ok, summaries, "slot summaries differ from fxc's");
    assert!(
        failures.is_empty(),
        "{} listings differ from fxc's",
        failures.len()
    );
}

#[test]
fn the_section_starts_at_the_version_line_and_ends_at_the_summary() {
    let listing = "//\n// Registers:\n//   c0 1\n\n    ps_2_0\n    def c0, 1, 0, 0, 0  // x\n\
                   #line 4\n    mov   oC0,  c0\n\n// approximately 1 instruction slot used\n/*\nfloat4 a;\n*/\n";
    assert_eq!(
        fxc_instruction_lines(listing),
        ["ps_2_0", "def c0, 1, 0, 0, 0", "mov oC0, c0"]
    );
}
