//! [`crate::translate`] from many threads at once: every thread must get exactly what one thread
//! gets alone (the translator keeps no shared state; its inputs and outputs are `Send + Sync`,
//! which `pipeline.rs` asserts at compile time).
//!
//! The inputs are a sample of the corpus (`../shared/corpus`, see `test_support`); without it,
//! the committed fixtures (`fixtures/samples`, `fixtures/malformed`) and the hand-written
//! listings of `fixtures/in`, assembled.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::test_support;

/// Threads translating at once.
const THREADS: usize = 8;
/// Every how-many-th corpus blob is translated (keeps the test a few seconds on two cores).
const CORPUS_STEP: usize = 4;

/// What a translation gave, compared across threads: a hash and the length of the SPIR-V words
/// (a whole corpus of modules would not fit comfortably in memory), or the error's text.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Spirv { words: usize, hash: u64 },
    Error(String),
}

fn outcome(bytes: &[u8]) -> Outcome {
    match crate::translate(bytes, &crate::Options::default()) {
        Ok(t) => {
            let mut h = DefaultHasher::new();
            t.spirv.hash(&mut h);
            format!("{:?}", t.info).hash(&mut h);
            Outcome::Spirv {
                words: t.spirv.len(),
                hash: h.finish(),
            }
        }
        Err(e) => Outcome::Error(e.to_string()),
    }
}

fn files_with(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

/// The inputs: a corpus sample, or the repository's own fixtures when the corpus is absent.
fn inputs() -> Vec<(String, Vec<u8>)> {
    let blobs = test_support::corpus_blobs();
    if !blobs.is_empty() {
        return blobs
            .iter()
            .step_by(CORPUS_STEP)
            .filter_map(|p| Some((p.display().to_string(), std::fs::read(p).ok()?)))
            .collect();
    }
    eprintln!("corpus absent: translating the repository's fixtures from {THREADS} threads");
    let fixtures = test_support::fixtures_dir();
    let mut out = Vec::new();
    for dir in ["samples", "malformed"] {
        for p in files_with(&fixtures.join(dir), "dxbc") {
            if let Ok(bytes) = std::fs::read(&p) {
                out.push((p.display().to_string(), bytes));
            }
        }
    }
    for p in files_with(&fixtures.join("in"), "asm") {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if let Ok(bytes) = crate::text::dxbc::asm::assemble(&text) {
            out.push((p.display().to_string(), bytes));
        }
    }
    out
}

#[test]
fn translations_from_8_threads_match_one_thread() {
    let inputs = inputs();
    assert!(!inputs.is_empty(), "no inputs");
    let expected: Vec<Outcome> = inputs.iter().map(|(_, b)| outcome(b)).collect();
    let translated = expected
        .iter()
        .filter(|o| matches!(o, Outcome::Spirv { .. }))
        .count();
    // Each thread walks the whole list, starting at its own eighth, so the same inputs are
    // translated at the same time by different threads, and different inputs too.
    let checked = AtomicUsize::new(0);
    let mismatches: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (inputs, expected, checked) = (&inputs, &expected, &checked);
                scope.spawn(move || {
                    let n = inputs.len();
                    let mut bad = Vec::new();
                    for i in (0..n).map(|k| (k + t * n / THREADS) % n) {
                        let got = outcome(&inputs[i].1);
                        if got != expected[i] {
                            bad.push(format!(
                                "thread {t}, {}: {got:?}, alone: {:?}",
                                inputs[i].0, expected[i]
                            ));
                        }
                        checked.fetch_add(1, Ordering::Relaxed);
                    }
                    bad
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a translating thread panicked"))
            .collect()
    });
    eprintln!(
        "{} inputs ({translated} translated) on {THREADS} threads: {} translations compared",
        inputs.len(),
        checked.load(Ordering::Relaxed)
    );
    assert_eq!(checked.load(Ordering::Relaxed), inputs.len() * THREADS);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
