//! Corpus-wide decode tests: every instruction of every real blob decodes.

use super::container::{Container, ParseOptions};
use crate::test_support;
use crate::text::dxbc::disasm::shader_program;

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
        // Checksums are checked by the container tests; two corpus blobs have bad ones.
        let options = ParseOptions {
            verify_checksum: false,
        };
        let program = Container::parse(&bytes, &options).and_then(|c| shader_program(&c));
        match program {
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
