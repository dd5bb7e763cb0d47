//! Property tests of the assembler, and the hand-written shaders of `fixtures/in/`.
//!
//! Random programs are generated from the opcode table ([`Opcode::ALL`], [`Opcode::slots`],
//! [`Opcode::class`]) for every stage and shader model 4.0–5.1, encoded with
//! [`ProgramBuilder`], disassembled and assembled again:
//! - a lossless listing (`Flavor { dialect: Fxc10_1, lossless: true }`) must assemble to the
//!   builder's dwords and disassemble to the same text;
//! - the listing of every dialect, for programs whose immediates print exactly, must
//!   disassemble to the same text after assembly.
//!
//! Where the text leaves an encoding open (component counts of unsuffixed registers, `+ 0`
//! relative indices, selection mode of immediates) the generator emits the encoding the
//! assembler chooses (fxc's, see `asm::operand`). Encodings a listing cannot express are kept
//! in [`gaps`] as ignored tests with their reproducers.
//!
//! The generator is seeded (splitmix64), so every failure names a seed that reproduces it.
//!
//! This module holds the harness (PRNG, round-trip checks) and the generated-program tests;
//! the generator itself is [`crate::fuzzing::generate`] (shared with the `translate_generated`
//! fuzz target), and [`fixtures`] checks `fixtures/in/`.

mod fixtures;
mod gaps;

use super::assemble_program;
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::program::{Program, ShaderVersion, Stage};
use crate::fuzzing::generate::{generate, versions};
use crate::fuzzing::Rng;
use crate::text::dxbc::disasm::{write_program, Dialect, Flavor};

fn version(stage: Stage, major: u8, minor: u8) -> ShaderVersion {
    ShaderVersion {
        stage,
        major,
        minor,
    }
}

// ---- checks

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The listing of a program chunk in `flavor`.
fn listing(words: &[u32], flavor: Flavor) -> Result<String, String> {
    let bytes = to_bytes(words);
    let program = Program::parse(&bytes, 0).map_err(|e| format!("does not parse: {e}"))?;
    let mut text = String::new();
    write_program(&mut text, &program, flavor).map_err(|e| format!("does not decode: {e}"))?;
    Ok(text)
}

fn hex(words: &[u32]) -> String {
    words
        .iter()
        .map(|w| format!("{w:08x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each instruction's text and dwords.
fn split_instructions(words: &[u32], flavor: Flavor) -> Vec<(String, Vec<u32>)> {
    let bytes = to_bytes(words);
    let Ok(program) = Program::parse(&bytes, 0) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for inst in program.instructions() {
        let Ok(inst) = inst else { break };
        let mut text = String::new();
        crate::text::dxbc::disasm::write_instruction(&mut text, &inst, program.version, flavor);
        let start = (inst.offset / 4) as usize;
        out.push((text, words[start..start + inst.length as usize].to_vec()));
    }
    out
}

/// The first instruction whose dwords differ: its text, the expected and the assembled dwords.
fn first_difference(expected: &[u32], got: &[u32], flavor: Flavor) -> String {
    let theirs = split_instructions(expected, flavor);
    let ours = split_instructions(got, flavor);
    for (i, (a, b)) in theirs.iter().zip(&ours).enumerate() {
        if a.1 != b.1 {
            return format!(
                "instruction {i}: `{}`\n    expected: {}\n    assembled: {} (`{}`)",
                a.0,
                hex(&a.1),
                hex(&b.1),
                b.0
            );
        }
    }
    format!(
        "{} instructions expected, {} assembled",
        theirs.len(),
        ours.len()
    )
}

/// `asm(disasm(words))`: same dwords (when `exact`) and `disasm(asm(text)) == text`.
fn check(words: &[u32], flavor: Flavor, exact: bool) -> Result<(), String> {
    let text = listing(words, flavor)?;
    if text.contains("unknown(") {
        return Err(format!("the listing has unknown values:\n{text}"));
    }
    let (_, assembled) = assemble_program(&text).map_err(|e| {
        let line = text.lines().nth(e.line as usize - 1).unwrap_or("");
        format!("does not assemble: {e}\n    line: `{line}`")
    })?;
    if exact && assembled != words {
        return Err(first_difference(words, &assembled, flavor));
    }
    let again = listing(&assembled, flavor)?;
    if again != text {
        let (a, b) = text
            .lines()
            .zip(again.lines())
            .find(|(a, b)| a != b)
            .unwrap_or(("", ""));
        return Err(format!(
            "disasm(asm(text)) differs:\n    text:  `{a}`\n    again: `{b}`"
        ));
    }
    Ok(())
}

const LOSSLESS: Flavor = Flavor {
    dialect: Dialect::Fxc10_1,
    lossless: true,
};

/// Programs per stage/model and instructions per program (lossless run).
const PROGRAMS: u32 = 24;
const BUDGET: u32 = 150;

fn seed(version_index: usize, program: u32, salt: u64) -> u64 {
    salt ^ ((version_index as u64) << 32) ^ u64::from(program)
}

fn report(failures: &[String]) {
    let shown = if std::env::var_os("SHOW_ALL").is_some() {
        failures.len()
    } else {
        12
    };
    for f in failures.iter().take(shown) {
        eprintln!("{f}\n");
    }
    assert!(
        failures.is_empty(),
        "{} generated programs did not round-trip (first shown above)",
        failures.len()
    );
}

/// Lossless listings of random programs assemble to the builder's dwords and print the same.
#[test]
fn generated_programs_round_trip_losslessly() {
    let mut coverage = vec![0u32; 0x100];
    let mut failures = Vec::new();
    let mut total = 0usize;
    for (vi, v) in versions().into_iter().enumerate() {
        for p in 0..PROGRAMS {
            let seed = seed(vi, p, 0x00a5_5e3b_1e00_0000);
            let words = generate(&mut Rng::new(seed), v, true, BUDGET, &mut coverage);
            total += split_instructions(&words, LOSSLESS).len();
            if let Err(e) = check(&words, LOSSLESS, true) {
                failures.push(format!("{v} seed {seed:#x}: {e}"));
            }
        }
    }
    let hit = coverage.iter().filter(|&&n| n > 0).count();
    eprintln!(
        "{total} instructions in {} programs; {hit} of {} opcodes generated",
        versions().len() as u32 * PROGRAMS,
        Opcode::ALL.len()
    );
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .filter(|op| coverage[**op as usize] == 0)
        .map(|op| op.name())
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    report(&failures);
}

/// Every dialect's listing of programs without inexact immediates reads back as itself.
#[test]
fn generated_programs_round_trip_in_every_dialect() {
    let mut coverage = vec![0u32; 0x100];
    let mut failures = Vec::new();
    for (vi, v) in versions().into_iter().enumerate() {
        for p in 0..4 {
            let seed = seed(vi, p, 0xd1a1_ec70_0000_0000);
            let words = generate(&mut Rng::new(seed), v, false, BUDGET, &mut coverage);
            for dialect in Dialect::ALL {
                let flavor = Flavor {
                    dialect,
                    lossless: false,
                };
                // Releases before fxc 10 leave the interpolation mode of `dcl_input_ps_sgv`
                // unsaid, so only the text can come back.
                let exact = dialect.sgv_interpolation();
                if let Err(e) = check(&words, flavor, exact) {
                    failures.push(format!("{v} {dialect:?} seed {seed:#x}: {e}"));
                }
            }
        }
    }
    report(&failures);
}

/// The generator is deterministic: the same seed gives the same program.
#[test]
fn generator_is_deterministic() {
    let v = version(Stage::Pixel, 5, 1);
    let mut coverage = vec![0u32; 0x100];
    let a = generate(&mut Rng::new(7), v, true, 50, &mut coverage);
    let b = generate(&mut Rng::new(7), v, true, 50, &mut coverage);
    assert_eq!(a, b);
    // `SHOW_PROGRAM=hs_5_0` prints a generated listing of that model, to see what is covered.
    if let Ok(name) = std::env::var("SHOW_PROGRAM") {
        for (vi, v) in versions().into_iter().enumerate() {
            if v.to_string() == name {
                let words = generate(
                    &mut Rng::new(seed(vi, 0, 1)),
                    v,
                    true,
                    BUDGET,
                    &mut coverage,
                );
                eprintln!("{}", listing(&words, LOSSLESS).expect("listing"));
            }
        }
    }
}
