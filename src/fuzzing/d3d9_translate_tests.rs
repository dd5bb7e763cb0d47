//! The seeded smoke run of the D3D9 translation contract under `cargo test`: mutated streams
//! (seeded from the hand-made seeds, our `fixtures/d3d9/*.asm` assembled, the malformed
//! fixtures and, when present, the D3D9 corpus) never panic, every success passes
//! `ir::validate` and a sample of them `spirv-val`. `DXBC2SPV_FUZZ_SEED` and
//! `DXBC2SPV_FUZZ_ITERS` change the run, as for the other smoke runs; a failing input is
//! written to `$TMPDIR/dxbc2spv-fuzz-d3d9-failure.d3d9`.

use std::path::{Path, PathBuf};

use super::translate_d3d9;
use crate::fuzzing::{d3d9_seeds, mutate_d3d9, Rng};
use crate::spv::tests::tools;
use crate::test_support;

const DEFAULT_SEED: u64 = 0xd3d9_7a45_1a7e_0001;
/// Mutated streams per run.
const ITERATIONS: usize = 4_000;
/// Every how-many-th success goes through `spirv-val`.
const VALIDATE_EVERY: usize = 10;
/// Corpus streams sampled as seeds (every how-many-th of the sorted list).
const CORPUS_STRIDE: usize = 4;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|t| match t.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => t.parse().ok(),
        })
        .unwrap_or(default)
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == ext));
    paths.sort();
    paths
}

/// Every seed, named.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = d3d9_seeds()
        .into_iter()
        .map(|(name, words)| {
            let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            (format!("seed {name}"), bytes)
        })
        .collect();
    let fixtures = test_support::fixtures_dir();
    for path in files(&fixtures.join("d3d9"), "asm") {
        let text = std::fs::read_to_string(&path).expect("fixture text");
        let bytes = crate::text::d3d9::asm::assemble_bytes(&text)
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        out.push((path.display().to_string(), bytes));
    }
    for path in files(&fixtures.join("malformed/d3d9"), "d3d9") {
        let bytes = std::fs::read(&path).expect("malformed fixture");
        out.push((path.display().to_string(), bytes));
    }
    if let Some(dir) = test_support::corpus_d3d9_dir() {
        let mut streams = Vec::new();
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            streams.extend(files(&entry.path(), "d3d9"));
        }
        streams.sort();
        for path in streams.into_iter().step_by(CORPUS_STRIDE) {
            if let Ok(bytes) = std::fs::read(&path) {
                out.push((path.display().to_string(), bytes));
            }
        }
    }
    out
}

/// Writes the input of a failing run where it can be replayed from; catches nothing.
struct Repro<'a> {
    what: String,
    input: &'a [u8],
}

impl Drop for Repro<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let path = std::env::temp_dir().join("dxbc2spv-fuzz-d3d9-failure.d3d9");
            let _ = std::fs::write(&path, self.input);
            eprintln!(
                "D3D9 translate smoke failure: {} ({} bytes, written to {})",
                self.what,
                self.input.len(),
                path.display()
            );
        }
    }
}

/// Seeds the translation accepts but whose module `spirv-val` rejects today, each with why:
/// findings of this test, for the lowering to fix (the test fails when one of them validates,
/// so the list only shrinks).
const KNOWN_INVALID: &[(&str, &str)] = &[];

/// The seeds themselves: the hand-made ones and the assembled fixtures, the malformed
/// fixtures and the corpus sample all hold the contract unmutated, and every module they
/// give passes `spirv-val` (but the [`KNOWN_INVALID`] ones).
#[test]
fn d3d9_seeds_hold_the_translate_contract() {
    let (mut ok, mut invalid) = (0usize, Vec::new());
    let seeds = seeds();
    for (name, bytes) in &seeds {
        let _repro = Repro {
            what: name.clone(),
            input: bytes,
        };
        if let Some(words) = translate_d3d9(bytes) {
            ok += 1;
            if let Some(why) = tools::validation_error(&words, "vulkan1.1") {
                invalid.push(format!("{name}: {why}"));
            }
        }
    }
    eprintln!("D3D9 seeds: {} streams, {ok} translate", seeds.len());
    assert!(ok > 0, "no seed translates");
    let known = |line: &String| KNOWN_INVALID.iter().any(|(f, _)| line.contains(f));
    let new: Vec<&String> = invalid.iter().filter(|l| !known(l)).collect();
    assert!(new.is_empty(), "spirv-val rejects:\n{new:#?}");
    for (file, why) in KNOWN_INVALID {
        let listed = invalid.iter().any(|l| l.contains(file));
        let sampled = seeds.iter().any(|(n, _)| n.contains(file));
        assert!(
            listed || !sampled,
            "{file} validates now ({why}): take it off KNOWN_INVALID"
        );
    }
}

/// Mutated streams hold the contract; a sample of the successes passes `spirv-val`.
#[test]
fn d3d9_mutated_streams_hold_the_translate_contract() {
    let seed = env_number("DXBC2SPV_FUZZ_SEED", DEFAULT_SEED);
    let n = env_number("DXBC2SPV_FUZZ_ITERS", ITERATIONS as u64) as usize;
    let seeds = seeds();
    let (mut translated, mut failed) = (0usize, 0usize);
    for i in 0..n {
        let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let (name, bytes) = &seeds[rng.below(seeds.len())];
        let mut input = bytes.clone();
        for _ in 0..1 + rng.below(3) {
            mutate_d3d9(&mut rng, &mut input);
        }
        let _repro = Repro {
            what: format!("seed {seed:#x} iteration {i} from {name}"),
            input: &input,
        };
        match translate_d3d9(&input) {
            Some(words) => {
                translated += 1;
                if translated % VALIDATE_EVERY == 0 {
                    if let Some(why) = tools::validation_error(&words, "vulkan1.1") {
                        panic!("accepted input gave invalid SPIR-V: {why}");
                    }
                }
            }
            None => failed += 1,
        }
    }
    eprintln!(
        "D3D9 translate smoke: {n} mutated streams, {translated} translated, {failed} refused"
    );
    // Both outcomes are reached: the mutations are neither all fatal nor all harmless.
    assert!(translated > 0, "nothing translated");
    assert!(failed > 0, "nothing refused");
}
