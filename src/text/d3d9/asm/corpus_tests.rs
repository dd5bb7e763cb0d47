//! The assembler against fxc: for every fxc listing of the D3D9 corpus (standalone `X.asm`
//! beside `X.d3d9`, and the level-9 section of the `.asm` beside each DXBC container),
//! assembling fxc's text gives back exactly the instruction tokens of the real stream (comment
//! blocks aside). The few listings that cannot are named in [`KNOWN_DIFFERENCES`] with the
//! reason, and the test checks that each still differs.

use std::path::Path;

use super::assemble;
use crate::front::d3d9::corpus_tests::level9_program;
use crate::front::d3d9::decode;
use crate::test_support;
use crate::text::d3d9::encode::encode;

/// Listings whose text does not give back their stream, with the reason.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// (file, origin, array) of every row whose `listing` is `fxc`.
fn fxc_rows(dir: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(dir.join("index.tsv")).expect("read index.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect("column");
    let (file, origin, array, listing) = (col("file"), col("origin"), col("array"), col("listing"));
    lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f.get(listing) == Some(&"fxc"))
        .map(|f| {
            (
                f[file].to_string(),
                f[origin].to_string(),
                f[array].to_string(),
            )
        })
        .collect()
}

/// The level-9 section of a `4_0_level_9_x` listing: the lines after `// Level9 shader
/// bytecode:` up to fxc's `// approximately N instruction slots used`.
fn level9_section(listing: &str) -> Option<String> {
    let start = listing.find("// Level9 shader bytecode:")?;
    let rest = listing.get(start..)?;
    let end = rest.find("// approximately").unwrap_or(rest.len());
    rest.get(..end).map(str::to_string)
}

/// The instruction tokens of a stream (its comment blocks dropped), or why not.
fn instruction_tokens(stream: &[u8], base: u32) -> Result<Vec<u32>, String> {
    let mut program = decode(stream, base).map_err(|e| e.to_string())?;
    program.comments.clear();
    encode(&program).map_err(|e| e.to_string())
}

/// Assembles one listing; `Ok(None)` when it gives back the stream's instruction tokens.
fn check(dir: &Path, file: &str, origin: &str, chunk: &str) -> Result<Option<String>, String> {
    let bytes = std::fs::read(dir.join(file)).map_err(|e| e.to_string())?;
    let listing_path = dir.join(file).with_extension("asm");
    let listing = std::fs::read_to_string(&listing_path).map_err(|e| e.to_string())?;
    let (text, expected) = if origin == "aon9" {
        let (stream, base) = level9_program(&bytes, chunk).ok_or("no level-9 program")?;
        let text = level9_section(&listing).ok_or("no level-9 section")?;
        (text, instruction_tokens(&stream, base)?)
    } else {
        (listing, instruction_tokens(&bytes, 0)?)
    };
    let words = match assemble(&text) {
        Ok(words) => words,
        Err(e) => return Ok(Some(format!("assembler: {e}"))),
    };
    if words == expected {
        return Ok(None);
    }
    let at = words
        .iter()
        .zip(&expected)
        .position(|(a, b)| a != b)
        .unwrap_or(words.len().min(expected.len()));
    Ok(Some(format!(
        "dword {at}: assembled {:08x?}, stream {:08x?}",
        words.get(at),
        expected.get(at)
    )))
}

#[test]
fn fxc_listings_assemble_to_their_instruction_tokens() {
    let Some(dir) = test_support::corpus_d3d9_dir() else {
        return;
    };
    let rows = fxc_rows(&dir);
    let (mut standalone, mut standalone_same, mut level9, mut level9_same) = (0, 0, 0, 0);
    let mut unexpected = Vec::new();
    let mut known_still_differ = Vec::new();
    for (file, origin, chunk) in &rows {
        let outcome = check(&dir, file, origin, chunk).unwrap_or_else(Some);
        let known = KNOWN_DIFFERENCES.iter().find(|(f, _)| f == file);
        if origin == "aon9" {
            level9 += 1;
            level9_same += usize::from(outcome.is_none());
        } else {
            standalone += 1;
            standalone_same += usize::from(outcome.is_none());
        }
        match (outcome, known) {
            (None, None) => {}
            (Some(_), Some(_)) => known_still_differ.push(file.clone()),
            (None, Some(_)) => unexpected.push(format!("{file}: listed as known but now the same")),
            (Some(why), None) => unexpected.push(format!("{file}: {why}")),
        }
    }
    let total = standalone + level9;
    let same = standalone_same + level9_same;
    println!(
        "fxc listings assembled to their instruction tokens: {same} of {total} \
         ({standalone_same} of {standalone} standalone, {level9_same} of {level9} level-9); \
         {} known differences",
        known_still_differ.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} unexpected:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert_eq!(known_still_differ.len(), KNOWN_DIFFERENCES.len());
    assert!(
        same * 1000 >= total * 999,
        "{same} of {total} is under 99.9%"
    );
}

/// Wine's d3dcompiler `asm.c` texts that this assembler does not take, with the reason.
const WINE_KNOWN_DIFFERENCES: &[(&str, &str)] = &[(
    "wine/d3dcompiler_43.asm.preproc_test.tests_2.d3d9",
    "uses a #define macro; the assembler has no preprocessor",
)];

/// Wine's d3dcompiler `asm.c` test sources, the text the native D3D assembler turned into
/// these tokens (`vs.1.1`, `c[2 + 10]`, `c0[a0]`, `1.0f`, `- 1`): each gives back its tokens.
/// HlslDecompiler's stripped `/Fc` listings are not checked (they are older than their bytes).
#[test]
fn wine_assembler_sources_assemble_to_their_tokens() {
    let Some(dir) = test_support::corpus_d3d9_dir() else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("index.tsv")).expect("read index.tsv");
    let (mut total, mut same) = (0, 0);
    let mut unexpected = Vec::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let Some(file) = fields.first() else { continue };
        let listing_path = dir.join(file).with_extension("asm");
        let Ok(listing) = std::fs::read_to_string(&listing_path) else {
            continue;
        };
        let first = listing.lines().next().unwrap_or("");
        if fields.get(10) != Some(&"comment") || !first.contains("asm.c") {
            continue;
        }
        total += 1;
        let bytes = std::fs::read(dir.join(file)).expect("read stream");
        let outcome = match (assemble(&listing), instruction_tokens(&bytes, 0)) {
            (Ok(words), Ok(expected)) if words == expected => None,
            (Ok(words), Ok(expected)) => {
                let at = words.iter().zip(&expected).position(|(a, b)| a != b);
                Some(format!("differs at dword {at:?}"))
            }
            (Err(e), _) => Some(e.to_string()),
            (_, Err(e)) => Some(e),
        };
        let known = WINE_KNOWN_DIFFERENCES.iter().any(|(f, _)| f == file);
        match (outcome, known) {
            (None, false) => same += 1,
            (Some(_), true) => {}
            (None, true) => unexpected.push(format!("{file}: listed as known but now the same")),
            (Some(why), false) => unexpected.push(format!("{file}: {why}")),
        }
    }
    println!("Wine assembler sources: {same} of {total} give back their tokens");
    assert!(
        unexpected.is_empty(),
        "{} unexpected:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert_eq!(same + WINE_KNOWN_DIFFERENCES.len(), total);
}
