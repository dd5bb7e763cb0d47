//! The decoder against the D3D9 corpus: every stream decodes, standalone or as the level-9
//! part of a DXBC container.

use std::path::Path;

use super::decode;
use crate::test_support;

/// The rows of the corpus index: (file relative to the corpus folder, origin, chunk name).
pub(crate) fn index_rows(dir: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(dir.join("index.tsv")).expect("read index.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .expect("index column")
    };
    let (file, origin, array) = (col("file"), col("origin"), col("array"));
    lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .map(|f| {
            (
                f[file].to_string(),
                f[origin].to_string(),
                f[array].to_string(),
            )
        })
        .collect()
}

/// The level-9 program of a DXBC container: (its bytes, its offset in the container). A small
/// walk of the container for the tests; the container API is the DXBC front end's.
pub(crate) fn level9_program(container: &[u8], chunk: &str) -> Option<(Vec<u8>, u32)> {
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(
            container.get(at..at + 4)?.try_into().ok()?,
        ))
    };
    let count = word(28)? as usize;
    for i in 0..count {
        let at = word(32 + 4 * i)? as usize;
        if container.get(at..at + 4)? != chunk.as_bytes() {
            continue;
        }
        let data = at + 8;
        let size = word(data + 8)? as usize;
        let offset = word(data + 12)? as usize;
        let start = data + offset;
        return Some((container.get(start..start + size)?.to_vec(), start as u32));
    }
    None
}

#[test]
fn every_corpus_stream_decodes() {
    let Some(dir) = test_support::corpus_d3d9_dir() else {
        return;
    };
    let rows = index_rows(&dir);
    let mut failures = Vec::new();
    let (mut standalone, mut level9, mut instructions) = (0, 0, 0);
    for (file, origin, chunk) in &rows {
        let path = dir.join(file);
        let Ok(bytes) = std::fs::read(&path) else {
            failures.push(format!("{file}: unreadable"));
            continue;
        };
        let (stream, base) = if origin == "aon9" {
            match level9_program(&bytes, chunk) {
                Some(found) => found,
                None => {
                    failures.push(format!("{file}: no {chunk} program"));
                    continue;
                }
            }
        } else {
            (bytes, 0)
        };
        match decode(&stream, base) {
            Ok(program) => {
                instructions += program.instructions.len();
                if origin == "aon9" {
                    level9 += 1;
                } else {
                    standalone += 1;
                }
            }
            Err(e) => failures.push(format!("{file}: {e}")),
        }
    }
    println!(
        "D3D9 corpus: {standalone} standalone streams and {level9} level-9 parts decoded, \
         {instructions} instructions"
    );
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(standalone + level9, rows.len());
}
