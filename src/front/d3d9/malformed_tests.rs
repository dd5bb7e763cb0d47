//! `fixtures/malformed/d3d9/`: crafted bad D3D9 token streams and the exact message each must
//! fail [`decode`] with (the folder's `README.md` gives the format).
//!
//! Contract checked here:
//! - every `<name>.d3d9` has an entry in `expected.toml`, and every entry a file;
//! - every `src/<name>.words` (hex dwords, one a line, then an optional `@truncate N`) builds to
//!   exactly the committed `<name>.d3d9` (`BLESS=1` rewrites the `.d3d9` files instead);
//! - every entry fails [`decode`] (base offset 0) with exactly the expected `Display` text, whose
//!   offset lies inside the input;
//! - the folder holds at least 25 cases.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::decode;
use crate::test_support::fixtures_dir;

fn dir() -> PathBuf {
    fixtures_dir().join("malformed").join("d3d9")
}

/// Parses `expected.toml`: one `[decode]` table of `name = "message"` lines (basic strings with
/// `\\` and `\"` escapes).
fn manifest(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut in_table = false;
    let mut cases = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        let fail = |e: &str| format!("expected.toml line {}: {e}", n + 1);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "[decode]" {
            in_table = true;
            continue;
        }
        if !in_table {
            return Err(fail("entry before [decode]"));
        }
        let (name, value) = line
            .split_once('=')
            .ok_or_else(|| fail("expected name = \"message\""))?;
        let value = value.trim();
        let body = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .ok_or_else(|| fail("value is not a \"string\""))?;
        let mut message = String::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some(e @ ('\\' | '"')) => message.push(e),
                    _ => return Err(fail("unsupported escape")),
                },
                '"' => return Err(fail("unescaped quote")),
                c => message.push(c),
            }
        }
        if cases.insert(name.trim().to_string(), message).is_some() {
            return Err(fail("listed twice"));
        }
    }
    Ok(cases)
}

/// Builds the bytes of a `.words` source: `#` lines are comments; other lines start with a
/// dword in hex (the rest of the line describes it); `@truncate N` cuts the bytes at `N`.
fn build(source: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut truncate = None;
    for line in source.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(at) = line.strip_prefix("@truncate ") {
            truncate = Some(at.trim().parse::<usize>().map_err(|e| e.to_string())?);
            continue;
        }
        let word = line.split_whitespace().next().unwrap_or_default();
        let value = u32::from_str_radix(word, 16).map_err(|e| format!("{line}: {e}"))?;
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    if let Some(at) = truncate {
        if at > bytes.len() {
            return Err(format!("@truncate {at} is past the end"));
        }
        bytes.truncate(at);
    }
    Ok(bytes)
}

fn names(ext: &str, folder: PathBuf) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.strip_suffix(ext).map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn read_manifest() -> BTreeMap<String, String> {
    let path = dir().join("expected.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    manifest(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn d3d9_malformed_inputs_are_rebuilt_from_their_sources() {
    let names = names(".words", dir().join("src"));
    let problems = crate::test_support::rebuilt_from_sources(
        &dir(),
        &names,
        ("words", "d3d9"),
        &read_manifest(),
        build,
    );
    assert!(
        problems.is_empty(),
        "run with BLESS=1 to rewrite the inputs:\n{}",
        problems.join("\n")
    );
}

#[test]
fn d3d9_malformed_inputs_fail_with_their_messages() {
    let cases = read_manifest();
    let mut problems = Vec::new();
    for name in names(".d3d9", dir()) {
        if !cases.contains_key(&name) {
            problems.push(format!("{name}.d3d9 is not in expected.toml"));
        }
    }
    for (name, expected) in &cases {
        let Ok(bytes) = std::fs::read(dir().join(format!("{name}.d3d9"))) else {
            problems.push(format!("{name}: no {name}.d3d9"));
            continue;
        };
        match decode(&bytes, 0) {
            Ok(_) => problems.push(format!("{name}: decoded")),
            Err(e) if e.offset as usize > bytes.len() => {
                problems.push(format!("{name}: offset past the end: {e}"));
            }
            Err(e) if e.to_string() == *expected => {}
            Err(e) => problems.push(format!("{name}:\n  expected: {expected}\n  got:      {e}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(cases.len() >= 25, "only {} cases", cases.len());
}

#[test]
fn words_and_manifest_syntax() {
    let m = manifest("# c\n[decode]\na = \"at 0x0: \\\"q\\\" \\\\\"\n").expect("parses");
    assert_eq!(m["a"], "at 0x0: \"q\" \\");
    assert!(manifest("a = \"x\"\n").is_err(), "entry outside the table");
    assert!(
        manifest("[decode]\na = \"x\"\na = \"y\"\n").is_err(),
        "twice"
    );
    assert_eq!(
        build("# c\nffff0200 ps_2_0\n0000ffff end\n"),
        Ok(vec![0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0])
    );
    assert_eq!(build("0000ffff\n@truncate 3\n"), Ok(vec![0xff, 0xff, 0]));
    assert!(build("0000ffff\n@truncate 5\n").is_err());
    assert!(build("xyz\n").is_err());
}
