//! The seeded smoke run (wasm-tools' pattern): the fuzz contract checked under `cargo test`.
//! `DXBC2SPV_FUZZ_SEED` (hex or decimal) and `DXBC2SPV_FUZZ_ITERS` change the run; a failing
//! input is written to `$TMPDIR/dxbc2spv-fuzz-failure.bin` and its seed and iteration printed.

use super::mutate::{resize, scan, write_u32, FOURCCS};
use super::{build_container, check, mutate, seed_container, Outcome, Rng};
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::front::dxbc::program::Program;
use crate::spv::tests::tools;
use crate::test_support;
use crate::text::dxbc::disasm;

const DEFAULT_SEED: u64 = 0xd8bc_2590_f022_0001;
/// Mutated corpus inputs per run.
const MUTATED: usize = 12_000;
/// Corpus blobs sampled as mutation seeds, and the largest size sampled.
const SAMPLED_BLOBS: usize = 1_500;
const MAX_SEED_SIZE: u64 = 64 * 1024;

fn seed() -> u64 {
    let Ok(text) = std::env::var("DXBC2SPV_FUZZ_SEED") else {
        return DEFAULT_SEED;
    };
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.expect("DXBC2SPV_FUZZ_SEED must be a number")
}

fn iterations() -> usize {
    std::env::var("DXBC2SPV_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MUTATED)
}

/// Says how to reproduce the run it guards when that run panics; catches nothing.
struct Repro<'a> {
    what: String,
    input: &'a [u8],
}

impl Drop for Repro<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let path = std::env::temp_dir().join("dxbc2spv-fuzz-failure.bin");
            let _ = std::fs::write(&path, self.input);
            eprintln!(
                "fuzz smoke failure: {} ({} bytes, written to {})",
                self.what,
                self.input.len(),
                path.display()
            );
        }
    }
}

fn run(what: impl FnOnce() -> String, input: &[u8]) -> Outcome {
    let _guard = Repro {
        what: what(),
        input,
    };
    check(input)
}

/// The seeds: the built-in container, every `_other` blob and a seeded sample of the corpus.
fn seeds(rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![("seed_container()".to_string(), seed_container())];
    let mut paths: Vec<_> = test_support::corpus_blobs()
        .into_iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_SEED_SIZE))
        .collect();
    while paths.len() > SAMPLED_BLOBS {
        let i = rng.below(paths.len());
        paths.swap_remove(i);
    }
    paths.sort();
    paths.extend(test_support::other_blobs());
    for path in paths {
        let bytes = std::fs::read(&path).expect("read corpus blob");
        out.push((path.display().to_string(), bytes));
    }
    out
}

#[derive(Default, Debug)]
struct Totals {
    inputs: usize,
    containers: usize,
    programs: usize,
    instructions: usize,
    decoded_some: usize,
    listings: usize,
    metadata_ok: usize,
    metadata_err: usize,
}

impl Totals {
    fn add(&mut self, o: Outcome) {
        self.inputs += 1;
        self.containers += usize::from(o.container);
        self.programs += o.programs as usize;
        self.instructions += o.instructions as usize;
        self.decoded_some += usize::from(o.instructions > 0);
        self.listings += usize::from(o.listing);
        self.metadata_ok += o.metadata_ok as usize;
        self.metadata_err += o.metadata_err as usize;
    }
}

#[test]
fn seed_container_is_valid() {
    let bytes = seed_container();
    let c = Container::parse(&bytes, &ParseOptions::default()).expect("container");
    assert_eq!(c.chunks.len(), 5);
    let o = check(&bytes);
    assert_eq!((o.metadata_ok, o.metadata_err, o.programs), (4, 0, 1));
    assert!(o.listing && o.header && !o.instruction_error);
    assert_eq!(o.instructions, 9);
    let text = disasm::disassemble(&bytes, &disasm::Options::default()).expect("listing");
    assert!(text.contains("icb[r0.x + 0].x"), "{text}");
    let mut header = String::new();
    disasm::header::write_header(&mut header, &c).expect("header");
    assert!(
        header.contains("POSITION") && header.contains("struct"),
        "{header}"
    );
}

#[test]
fn rng_is_deterministic_and_spread() {
    let (mut a, mut b) = (Rng::new(7), Rng::new(7));
    let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
    assert!(xs.iter().all(|&x| x == b.next_u64()));
    let mut hits = [0usize; 10];
    for _ in 0..10_000 {
        hits[a.below(10)] += 1;
    }
    assert!(hits.iter().all(|&h| (800..1200).contains(&h)), "{hits:?}");
    assert_eq!(a.below(0), 0);
}

#[test]
fn smoke_mutated_corpus() {
    let seed = seed();
    let mut rng = Rng::new(seed);
    let seeds = seeds(&mut rng);
    let mut totals = Totals::default();
    for (name, bytes) in &seeds {
        totals.add(run(|| format!("unmutated seed {name}"), bytes));
    }
    let unmutated = std::mem::take(&mut totals);
    let n = iterations();
    for i in 0..n {
        // One generator per iteration, so any iteration replays on its own.
        let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
        let (name, bytes) = &seeds[rng.below(seeds.len())];
        let mut input = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut input);
        }
        totals.add(run(
            || format!("seed {seed:#x} iteration {i} from {name}"),
            &input,
        ));
    }
    eprintln!("fuzz smoke: {} seeds unmutated: {unmutated:?}", seeds.len());
    eprintln!("fuzz smoke: {n} mutated inputs (seed {seed:#x}): {totals:?}");
    // The mutator is token-aware: most inputs must still reach the instruction decoder.
    assert!(totals.containers * 10 >= n * 6, "{totals:?}");
    assert!(totals.decoded_some * 10 >= n * 5, "{totals:?}");
}

/// Random byte strings, random bytes behind a valid header, and containers of random chunks.
#[test]
fn smoke_random_inputs() {
    let seed = seed();
    let mut rng = Rng::new(seed.rotate_left(17));
    let mut totals = Totals::default();
    for i in 0..3_000 {
        let len = rng.below(400);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u32() as u8).collect();
        match i % 3 {
            0 => {}
            1 => {
                bytes.resize(len.max(32), 0);
                let len = bytes.len() as u32;
                bytes[..4].copy_from_slice(b"DXBC");
                write_u32(&mut bytes, 20, 1);
                write_u32(&mut bytes, 24, len);
                write_u32(&mut bytes, 28, rng.below(6) as u32);
            }
            _ => {
                let mut payloads = Vec::new();
                for _ in 0..rng.below(5) {
                    let fourcc = rng.pick(&FOURCCS);
                    let mut payload: Vec<u8> =
                        (0..rng.below(200)).map(|_| rng.next_u32() as u8).collect();
                    if (&fourcc == b"SHEX" || &fourcc == b"SHDR") && payload.len() >= 8 {
                        let version = (rng.below(6) as u32) << 16 | 0x50 | rng.below(2) as u32;
                        write_u32(&mut payload, 0, version);
                        let dwords = payload.len() as u32 / 4;
                        write_u32(&mut payload, 4, dwords);
                    }
                    payloads.push((fourcc, payload));
                }
                let chunks: Vec<_> = payloads.iter().map(|(f, p)| (*f, p.as_slice())).collect();
                bytes = build_container(&chunks);
            }
        }
        totals.add(run(|| format!("seed {seed:#x} random input {i}"), &bytes));
    }
    eprintln!("fuzz smoke: 3000 random inputs: {totals:?}");
    assert!(totals.containers >= 1_000, "{totals:?}");
}

/// Every prefix of a few real blobs, as is and with the container size patched to match.
#[test]
fn smoke_truncations() {
    let mut blobs = vec![("seed_container()".to_string(), seed_container())];
    let corpus = test_support::corpus_blobs();
    let mut sized: Vec<_> = corpus
        .iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.len(), p)))
        .filter(|(len, _)| (600..6_000).contains(len))
        .collect();
    sized.sort();
    for i in [0, sized.len() / 2, sized.len().saturating_sub(1)] {
        if let Some((_, path)) = sized.get(i) {
            blobs.push((
                path.display().to_string(),
                std::fs::read(path).expect("read blob"),
            ));
        }
    }
    let mut runs = 0;
    for (name, bytes) in &blobs {
        for len in 0..=bytes.len() {
            let mut cut = bytes[..len].to_vec();
            run(|| format!("{name} truncated to {len} bytes"), &cut);
            if len >= 28 {
                write_u32(&mut cut, 24, len as u32);
                run(
                    || format!("{name} truncated to {len} bytes, size patched"),
                    &cut,
                );
            }
            runs += 1;
        }
    }
    eprintln!("fuzz smoke: {runs} truncations of {} blobs", blobs.len());
}

#[test]
fn mutations_keep_sizes_consistent() {
    // With fix-ups, inserting and removing program dwords keeps the container parseable.
    let bytes = seed_container();
    let mut rng = Rng::new(1);
    let mut parsed = 0;
    for _ in 0..500 {
        let mut input = bytes.clone();
        let chunks = scan(&input);
        let p = *chunks
            .iter()
            .find(|c| &c.fourcc == b"SHEX")
            .expect("program");
        let at = p.start + 8 + 4 * rng.below(p.len / 4 - 2);
        let delta = if rng.percent(50) { 4 } else { -4 };
        resize(&mut input, &chunks, at, delta, true);
        let c = Container::parse(
            &input,
            &ParseOptions {
                verify_checksum: false,
            },
        )
        .expect("container");
        let chunk = c.shader_chunk().expect("program chunk");
        assert_eq!(chunk.data.len() as isize, p.len as isize + delta);
        parsed += usize::from(Program::parse(chunk.data, chunk.offset).is_ok());
    }
    assert_eq!(parsed, 500);
}

/// Every how-many-th successful translation of the translate smoke run goes through
/// `spirv-val`.
const VALIDATE_EVERY: usize = 10;

/// Corpus blobs (every stage) sampled as seeds of the translate smoke run.
const SAMPLED_TRANSLATE_BLOBS: usize = 600;

/// The corpus blobs whose program satisfies `keep`.
fn corpus_programs(keep: impl Fn(&Program<'_>) -> bool) -> Vec<Vec<u8>> {
    let opts = ParseOptions {
        verify_checksum: false,
    };
    test_support::corpus_blobs()
        .into_iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| {
            Container::parse(b, &opts)
                .ok()
                .and_then(|c| disasm::shader_program(&c).ok())
                .is_some_and(|p| keep(&p))
        })
        .collect()
}

/// The translate target's contract over mutated `seeds` (each with the options to translate it
/// with): errors are fine, panics and malformed output are not, and a sample of what is
/// accepted must pass `spirv-val`. Returns how many translations succeeded.
fn translate_smoke(label: &str, seeds: &[(Vec<u8>, Vec<crate::Options>)]) -> usize {
    let seed = seed();
    let n = iterations();
    let mut translated = 0usize;
    for i in 0..n {
        let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let (bytes, options) = &seeds[rng.below(seeds.len())];
        let mut input = bytes.clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut rng, &mut input);
        }
        for options in options {
            let _repro = Repro {
                what: format!("translate {label}, seed {seed:#x} iteration {i}"),
                input: &input,
            };
            if let Ok(t) = crate::translate(&input, options) {
                assert_eq!(t.spirv.first(), Some(&0x0723_0203), "SPIR-V magic");
                translated += 1;
                if translated % VALIDATE_EVERY == 0 {
                    if let Some(why) = tools::validation_error(&t.spirv, options.target.name()) {
                        let path = std::env::temp_dir().join("dxbc2spv-fuzz-invalid.dxbc");
                        let _ = std::fs::write(&path, &input);
                        panic!(
                            "{label}: accepted input gave invalid SPIR-V (seed {seed:#x} \
                             iteration {i}, written to {}): {why}",
                            path.display()
                        );
                    }
                }
            }
        }
    }
    eprintln!("translate smoke, {label}: {n} mutated inputs, {translated} translations");
    translated
}

/// Mutated hull and domain shaders (the corpus's and our own fixtures'), under both hull
/// schedules. Hull shaders are few in the sampled corpus seeds, so they get their own run.
#[test]
fn smoke_translate_mutated_tessellation_shaders() {
    let mut blobs = corpus_programs(|p| {
        matches!(
            p.version.stage,
            crate::front::dxbc::Stage::Hull | crate::front::dxbc::Stage::Domain
        )
    });
    for asm in ["hs_tri.asm", "ds_tri.asm"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/in")
            .join(asm);
        let text = std::fs::read_to_string(&path).expect("fixture listing");
        blobs.push(crate::text::dxbc::asm::assemble(&text).expect("fixture assembles"));
    }
    let options: Vec<crate::Options> = [crate::HullSchedule::Serial, crate::HullSchedule::Parallel]
        .into_iter()
        .map(|hull_schedule| crate::Options {
            hull_schedule,
            ..crate::Options::default().with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false)
        })
        .collect();
    let seeds: Vec<_> = blobs.into_iter().map(|b| (b, options.clone())).collect();
    assert!(
        translate_smoke("hull/domain", &seeds) > 0,
        "nothing translated"
    );
}

/// Mutated SM5.1 shaders, each bound with a table of its own (unmutated) ranges, so mutations
/// reach the descriptor-array paths: indices, spaces, range bounds.
#[test]
fn smoke_translate_mutated_sm51_shaders() {
    let seeds: Vec<_> = corpus_programs(|p| p.version.is_sm51())
        .into_iter()
        .filter_map(|b| {
            let bindings = crate::translate_tests::own_bindings(&b)?;
            let options = crate::Options {
                bindings,
                ..crate::Options::default().with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false)
            };
            Some((b, vec![options]))
        })
        .collect();
    if seeds.is_empty() {
        eprintln!("no SM5.1 shaders found (corpus absent?); test did not run");
        return;
    }
    assert!(translate_smoke("SM5.1", &seeds) > 0, "nothing translated");
}

/// Mutated blobs of every stage (a seeded sample of the corpus), bound as a runtime would: the
/// D3D11 layout, or a table of the blob's own ranges for SM5.1.
#[test]
fn smoke_translate_mutated_corpus_sample() {
    let mut rng = Rng::new(seed());
    let mut blobs = corpus_programs(|_| true);
    while blobs.len() > SAMPLED_TRANSLATE_BLOBS {
        let i = rng.below(blobs.len());
        blobs.swap_remove(i);
    }
    let seeds: Vec<_> = blobs
        .into_iter()
        .map(|b| {
            let bindings = crate::translate_tests::own_bindings(&b).unwrap_or_default();
            let sm51 = crate::front::dxbc::container::Container::parse(
                &b,
                &ParseOptions {
                    verify_checksum: false,
                },
            )
            .ok()
            .and_then(|c| disasm::shader_program(&c).ok())
            .is_some_and(|p| p.version.is_sm51());
            let options = crate::Options {
                bindings: if sm51 {
                    bindings
                } else {
                    crate::bindings::Bindings::default()
                },
                ..crate::Options::default().with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false)
            };
            (b, vec![options])
        })
        .collect();
    if seeds.is_empty() {
        eprintln!("corpus absent; the sampled translate smoke run did not run");
        return;
    }
    assert!(
        translate_smoke("every stage", &seeds) > 0,
        "nothing translated"
    );
}

/// Listings mutated by inputs per run of the assembler smoke test.
const MUTATED_LISTINGS: usize = 3_000;

/// The `assemble` target's contract over mutated listings: `fixtures/in/` and a seeded sample
/// of the corpus's fxc listings. Mutants the assembler accepts must decode and round-trip.
#[test]
fn smoke_assemble_mutated_listings() {
    let seed = seed();
    let mut rng = Rng::new(seed);
    let mut texts: Vec<String> = Vec::new();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/in");
    for entry in std::fs::read_dir(&fixtures).expect("fixtures/in") {
        let path = entry.expect("fixtures/in entry").path();
        if !path.is_file() {
            // `fixtures/in/d3d9/`: Direct3D 9 listings, another assembler.
            continue;
        }
        texts.push(std::fs::read_to_string(&path).expect("fixture listing"));
    }
    let mut listings: Vec<String> = test_support::corpus_blobs()
        .iter()
        .filter_map(|p| test_support::asm_listing(p))
        .filter(|t| t.len() <= MAX_SEED_SIZE as usize)
        .collect();
    if listings.is_empty() {
        eprintln!("corpus absent: the assembler smoke run uses fixtures/in only");
    }
    while listings.len() > 200 {
        let i = rng.below(listings.len());
        listings.swap_remove(i);
    }
    texts.extend(listings);
    let n = iterations().min(MUTATED_LISTINGS);
    let mut accepted = 0usize;
    for i in 0..n {
        let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut text = texts[rng.below(texts.len())].clone();
        for _ in 0..1 + rng.below(3) {
            super::mutate_text(&mut rng, &mut text);
        }
        let _repro = Repro {
            what: format!("assemble, seed {seed:#x} iteration {i}"),
            input: text.as_bytes(),
        };
        if crate::text::dxbc::asm::assemble(&text).is_ok() {
            accepted += 1;
        }
        super::assemble(text.as_bytes());
    }
    eprintln!("assembler smoke: {n} mutated listings, {accepted} assembled");
    assert!(
        accepted > 0,
        "no mutant assembled: the mutator is too destructive"
    );
}

/// Generated programs per run of the generated-program smoke test.
const GENERATED: usize = 2_000;

/// The `translate_generated` target's contract: random programs of every stage and model from
/// the opcode table translate or fail with an error, never panic, and a sample of what is
/// accepted passes `spirv-val`. Nine in ten follow the shader model's rules (the translatable
/// profile), so most must translate; the same bytes always give the same program.
/// `DXBC2SPV_FUZZ_VERBOSE` prints each refusal.
#[test]
fn smoke_translate_generated_programs() {
    let seed = seed();
    let n = iterations().min(GENERATED);
    let (mut translated, mut refused) = (0usize, std::collections::BTreeMap::new());
    // Per stage: (programs, translated).
    let mut stages = std::collections::BTreeMap::<String, (usize, usize)>::new();
    for i in 0..n {
        let data = (seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).to_le_bytes();
        let container = super::generated_container(&data).expect("generated container");
        if i == 0 {
            assert_eq!(super::generated_container(&data), Some(container.clone()));
        }
        let _repro = Repro {
            what: format!("translate generated program, seed {seed:#x} iteration {i}"),
            input: &container,
        };
        let parsed = Container::parse(&container, &ParseOptions::default()).expect("container");
        let program = disasm::shader_program(&parsed).expect("program");
        let stage = stages
            .entry(format!("{:?}", program.version.stage))
            .or_default();
        stage.0 += 1;
        let options = super::generated_options(&container);
        match crate::translate(&container, &options) {
            Ok(t) => {
                translated += 1;
                stage.1 += 1;
                if translated % VALIDATE_EVERY == 0 {
                    if let Some(why) = tools::validation_error(&t.spirv, options.target.name()) {
                        panic!("generated program {i} gave invalid SPIR-V: {why}");
                    }
                }
            }
            Err(e) => {
                let kind = match e {
                    crate::Error::Unsupported { .. } => "unsupported",
                    crate::Error::Invalid { .. } => "invalid",
                    _ => "other",
                };
                *refused.entry(kind).or_insert(0usize) += 1;
                if std::env::var_os("DXBC2SPV_FUZZ_VERBOSE").is_some() {
                    eprintln!("refused: {e}");
                }
            }
        }
    }
    eprintln!("generated programs: {n}, translated {translated}, refused {refused:?}");
    for (stage, (programs, ok)) in &stages {
        eprintln!("  {stage}: translated {ok} of {programs}");
    }
    assert!(translated > 0, "no generated program translated");
    if n >= 100 {
        assert!(
            2 * translated > n,
            "fewer than half the generated programs translated"
        );
    }
}
