//! Corpus-wide decode tests: every instruction of every real blob decodes.

use super::program::Program;
use crate::test_support;

/// Finds the SHDR/SHEX chunk by walking the container's chunk table (scratch helper until the
/// container parser lands).
fn shader_chunk(bytes: &[u8]) -> Option<(&[u8], u32)> {
    let rd = |o: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(o..o + 4)?.try_into().ok()?))
    };
    let count = rd(28)? as usize;
    for i in 0..count {
        let off = rd(32 + 4 * i)? as usize;
        let tag = bytes.get(off..off + 4)?;
        let size = rd(off + 4)? as usize;
        if tag == b"SHDR" || tag == b"SHEX" {
            return Some((bytes.get(off + 8..off + 8 + size)?, (off + 8) as u32));
        }
    }
    None
}

#[test]
fn corpus_decodes_completely() {
    let blobs = test_support::corpus_blobs();
    if blobs.is_empty() {
        return;
    }
    let mut failures = Vec::new();
    let mut instructions = 0usize;
    for path in &blobs {
        let bytes = std::fs::read(path).expect("read corpus blob");
        let Some((chunk, base)) = shader_chunk(&bytes) else {
            failures.push(format!("{}: no shader chunk", path.display()));
            continue;
        };
        match Program::parse(chunk, base) {
            Ok(program) => {
                for inst in program.instructions() {
                    match inst {
                        Ok(_) => instructions += 1,
                        Err(e) => {
                            failures.push(format!("{}: {e}", path.display()));
                            break;
                        }
                    }
                }
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "decoded {} blobs, {instructions} instructions, {} failures",
        blobs.len(),
        failures.len()
    );
    for f in failures.iter().take(30) {
        eprintln!("  {f}");
    }
    assert!(
        failures.is_empty(),
        "{} blobs failed to decode",
        failures.len()
    );
}
