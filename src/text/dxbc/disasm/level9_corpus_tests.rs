//! Corpus checks of the level-9 parts: every `Aon9`/`XNAS`/`XNAP` chunk of the DXBC corpus
//! parses, the D3D9 corpus index agrees with the programs found, and the table text equals
//! fxc's in every listing that has a level-9 section.

use std::collections::BTreeMap;
use std::path::Path;

use super::super::{tables, BYTECODE_TITLE};
use crate::front::dxbc::aon9::{version_name, Level9};
use crate::front::dxbc::{Container, ParseOptions};
use crate::test_support::{asm_listing, corpus_blobs, corpus_d3d9_dir};

/// Listings whose level-9 tables we knowingly print differently from fxc: (file name, reason).
/// Empty: every listing matches.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// Titles that open fxc's level-9 sections.
const TITLES: [&str; 4] = [
    "// Constant buffer to DX9 shader constant mappings:",
    "// Sampler/Resource to DX9 shader sampler mappings:",
    "// Runtime generated constant mappings:",
    BYTECODE_TITLE,
];

/// fxc's level-9 tables in `listing`: from the `//` line before the first level-9 title through
/// the `//` line after `// Level9 shader bytecode:`, and the line after that (the D3D9 version
/// line). `None` when the listing has no level-9 section.
fn fxc_section(listing: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = listing.lines().map(|l| l.trim_end()).collect();
    let bytecode = lines.iter().position(|l| *l == BYTECODE_TITLE)?;
    let first = lines
        .iter()
        .take(bytecode + 1)
        .position(|l| TITLES.contains(l))?;
    let section = lines.get(first.checked_sub(1)?..bytecode + 2)?;
    let version = lines.get(bytecode + 2)?.trim().to_string();
    Some((section.join("\n") + "\n", version))
}

fn name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn corpus_level9_parts_parse_and_print_as_fxc() {
    let blobs = corpus_blobs();
    if blobs.is_empty() {
        return;
    }
    let lax = ParseOptions {
        verify_checksum: false,
    };
    let mut parts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let (mut listings, mut matched, mut known) = (0, 0, 0);
    let mut rows = [0usize; 3];
    for path in &blobs {
        let Ok(bytes) = std::fs::read(path) else {
            failures.push(format!("{}: unreadable", path.display()));
            continue;
        };
        // Containers that do not parse are the container tests' business.
        let Ok(container) = Container::parse(&bytes, &lax) else {
            continue;
        };
        for part in container.level9_parts() {
            match part {
                Ok(l9) => *parts.entry(l9.kind.name()).or_default() += 1,
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
        let Some((expected, version)) = asm_listing(path).as_deref().and_then(fxc_section) else {
            continue;
        };
        listings += 1;
        let Some(Ok(l9)) = container.level9() else {
            failures.push(format!(
                "{}: listing has level-9 tables, blob has no Aon9",
                name(path)
            ));
            continue;
        };
        let ours = tables(&l9);
        let our_version = l9.program_version().map(version_name).unwrap_or_default();
        if ours == expected && our_version == version {
            matched += 1;
            rows[0] += l9.constants.len();
            rows[1] += l9.samplers.len();
            rows[2] += l9.runtime_constants.len();
        } else if KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == name(path)) {
            known += 1;
        } else {
            failures.push(format!(
                "{}: tables differ\n--- fxc ({version})\n{expected}--- ours ({our_version})\n{ours}",
                path.display()
            ));
        }
    }
    eprintln!(
        "level-9 parts parsed: {parts:?}; fxc listings with level-9 tables: {listings}, \
         {matched} equal ({} constant, {} sampler, {} runtime rows), {known} known differences",
        rows[0], rows[1], rows[2]
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        parts.get("Aon9").copied().unwrap_or(0) > 0,
        "no Aon9 part in the corpus"
    );
    assert!(
        listings > 0,
        "no fxc listing with level-9 tables in the corpus"
    );
}

#[test]
fn d3d9_corpus_index_names_the_level9_programs() {
    let Some(dir) = corpus_d3d9_dir() else {
        return;
    };
    let index = std::fs::read_to_string(dir.join("index.tsv")).unwrap_or_default();
    let mut lines = index.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let col = |n: &str| header.iter().position(|c| *c == n);
    let (Some(file), Some(array), Some(origin), Some(dwords)) =
        (col("file"), col("array"), col("origin"), col("dwords"))
    else {
        panic!("index.tsv lacks the file/array/origin/dwords columns");
    };
    let lax = ParseOptions {
        verify_checksum: false,
    };
    let (mut checked, mut failures) = (0, Vec::new());
    for line in lines {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.get(origin) != Some(&"aon9") {
            continue;
        }
        let (Some(f), Some(chunk), Some(n)) = (cols.get(file), cols.get(array), cols.get(dwords))
        else {
            failures.push(format!("short row: {line}"));
            continue;
        };
        let path = dir.join(f);
        let bytes = std::fs::read(&path).unwrap_or_default();
        let found = Container::parse(&bytes, &lax).ok().and_then(|c| {
            c.level9_parts()
                .into_iter()
                .flatten()
                .find(|p: &Level9<'_>| p.kind.name() == *chunk)
                .map(|p| p.program.len())
        });
        if found.map(|len| (len / 4).to_string()).as_deref() == Some(n) {
            checked += 1;
        } else {
            failures.push(format!(
                "{f} {chunk}: {n} dwords listed, found {found:?} bytes"
            ));
        }
    }
    eprintln!("D3D9 corpus index: {checked} level-9 rows agree");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 0, "no aon9 row in the D3D9 corpus index");
}
