//! A differential campaign over a range of seeds: each generated program is compared on the
//! device (see `super::differential`), a mismatch is shrunk to a small reproducer
//! (`super::shrink`), and counts are kept per instruction family.
//!
//! Contract: [`Campaign::run_seed`] gives one seed's [`SeedOutcome`] and adds it to the
//! campaign's [`Stats`]. A program that mismatches is shrunk while it still mismatches the same
//! way (the device still gives one of the original's (device, expected) word pairs), each
//! candidate judged valid and Defined by the oracle (`case_of_text`) before it is run; the
//! shrunk case (fxc-syntax text and the oracle's expected values) is written as
//! `<seed>-shrunk.toml` beside the original. Families are the opcode table's classes
//! (`dxbc2spv::front::dxbc::Class`), ALU ones split by operand type.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use dxbc2spv::front::dxbc::opcodes::{Class as OpClass, NumType};
use dxbc2spv::front::dxbc::Opcode;

use super::deviations::{Deviation, DEVIATIONS};
use super::differential::{case_of_text, program_text, Generated};
use super::shrink::shrink;
use crate::conformance::{Case, Outcome, Runner};

/// What the runner's message says when a submission's fence wait ran past its limit.
const DEVICE_WAIT_FAILED: &str = "waiting for the device failed";

/// Predicate calls one shrink may make (each runs the device: about 0.4 s on lavapipe).
pub const SHRINK_TRIES: usize = 400;

/// One seed's result.
#[derive(Debug)]
pub enum SeedOutcome {
    /// No program was compared: why.
    Skipped(String),
    /// The device agreed with the oracle.
    Agreed,
    /// The device disagreed.
    Mismatch {
        /// The generated case.
        case: PathBuf,
        /// The runner's message.
        why: String,
        /// The shrunk reproducer, when shrinking ran and removed something.
        shrunk: Option<PathBuf>,
    },
    /// The device disagreed only where known driver deviations explain it.
    Driver {
        /// The generated case.
        case: PathBuf,
        /// The deviations (one, or all of the device's together when none alone explains it).
        deviations: Vec<&'static Deviation>,
    },
    /// The oracle or the case writer failed (a bug in the oracle or generator).
    Error(String),
}

/// Counts for one instruction family.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FamilyCounts {
    /// Instructions of the family in the generated programs.
    pub generated: u64,
    /// Compared programs holding at least one.
    pub compared: u64,
    /// Mismatching programs whose shrunk reproducer (or, unshrunk, whose program) holds one.
    pub mismatches: u64,
    /// Programs holding one that differed only by a known driver deviation.
    pub driver: u64,
}

/// A campaign's counts.
#[derive(Debug, Default)]
pub struct Stats {
    /// Seeds run.
    pub programs: u64,
    /// Programs compared on the device.
    pub compared: u64,
    /// Programs whose device result differed (errors included), known driver deviations
    /// not included.
    pub mismatches: u64,
    /// Programs that differed only by known driver deviations, by their names (`a+b` when
    /// only several together explain one).
    pub driver: BTreeMap<String, u64>,
    /// Why programs were not compared, and how many.
    pub skipped: BTreeMap<String, u64>,
    /// Counts per family.
    pub families: BTreeMap<String, FamilyCounts>,
}

impl Stats {
    /// The summary's lines: skips, one line per family, and last exactly
    /// `differential: <N> programs, <M> mismatches`.
    pub fn summary(&self) -> String {
        let skips: Vec<String> = self
            .skipped
            .iter()
            .map(|(w, n)| format!("{n}× {w}"))
            .collect();
        let mut s = format!(
            "compared {}; skipped: {}\n",
            self.compared,
            skips.join(", ")
        );
        for (name, n) in &self.driver {
            s.push_str(&format!("driver: {n}× {name}\n"));
        }
        for d in DEVIATIONS {
            if self
                .driver
                .keys()
                .any(|k| k.split('+').any(|p| p == d.name))
            {
                s.push_str(&format!("  {} ({}): {}\n", d.name, d.device, d.reason));
            }
        }
        s.push_str("family          generated  programs compared  mismatches  driver\n");
        for (f, c) in &self.families {
            s.push_str(&format!(
                "{f:<15} {:>9}  {:>17}  {:>10}  {:>6}\n",
                c.generated, c.compared, c.mismatches, c.driver
            ));
        }
        s.push_str(&format!(
            "differential: {} programs, {} mismatches",
            self.programs, self.mismatches
        ));
        s
    }
}

/// The family of an opcode: its class in the opcode table, ALU ones with their operand type.
pub fn family(op: Opcode) -> String {
    match op.class() {
        OpClass::Alu => match op.num_type() {
            NumType::Float => "alu float".into(),
            NumType::Int => "alu int".into(),
            NumType::Uint => "alu uint".into(),
            NumType::Double => "alu double".into(),
            NumType::Untyped => "alu move".into(),
        },
        OpClass::ControlFlow => "control flow".into(),
        OpClass::Memory => "memory".into(),
        OpClass::Atomic => "atomic".into(),
        OpClass::Texture => "texture".into(),
        OpClass::Sync => "sync".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// Instructions per family in a program's text (declarations not counted); empty when the
/// text does not assemble.
pub fn families(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let Ok((_, words)) = dxbc2spv::text::dxbc::asm::assemble_program(text) else {
        return out;
    };
    let mut i = 2;
    while let Some(&token) = words.get(i) {
        let number = token & 0x7ff;
        let len = if number == 0x35 {
            words.get(i + 1).copied().unwrap_or(0) as usize
        } else {
            ((token >> 24) & 0x7f) as usize
        };
        if let Some(op) = Opcode::from_u32(number) {
            if op.class() != OpClass::Declaration && op.class() != OpClass::CustomData {
                *out.entry(family(op)).or_default() += 1;
            }
        }
        i += len.max(1);
    }
    out
}

/// The (device word, expected word) pairs a runner message names (`= 0x… expected 0x…`).
fn word_pairs(message: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let mut rest = message;
    while let Some(at) = rest.find(" expected ") {
        let before = rest[..at]
            .rsplit("= ")
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        let after = rest[at + " expected ".len()..]
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("")
            .to_owned();
        out.insert((before, after));
        rest = &rest[at + 1..];
    }
    out
}

/// A campaign on one device.
pub struct Campaign<'t> {
    runner: Runner<'t>,
    dir: PathBuf,
    denormals_kept: bool,
    /// Predicate calls one shrink may make; 0: no shrinking.
    pub shrink_tries: usize,
    /// The counts so far.
    pub stats: Stats,
}

impl<'t> Campaign<'t> {
    /// A campaign writing its cases to `dir`.
    pub fn new(runner: Runner<'t>, dir: &Path, denormals_kept: bool) -> Self {
        Campaign {
            runner,
            dir: dir.to_owned(),
            denormals_kept,
            shrink_tries: SHRINK_TRIES,
            stats: Stats::default(),
        }
    }

    /// Generates, compares and (on a mismatch) shrinks the program of `seed`.
    pub fn run_seed(&mut self, seed: u64) -> SeedOutcome {
        self.stats.programs += 1;
        let text = program_text(seed);
        let fams = families(&text);
        for (f, n) in &fams {
            self.stats.families.entry(f.clone()).or_default().generated += n;
        }
        let description = format!("differential seed {seed}: expected values from the oracle");
        let name = seed.to_string();
        let path = match case_of_text(
            &text,
            seed,
            &name,
            &description,
            &self.dir,
            self.denormals_kept,
            &[],
        ) {
            Ok(Generated::Case(path)) => path,
            Ok(Generated::Skip(why)) => return self.skip(why),
            Err(e) => {
                self.stats.mismatches += 1;
                return SeedOutcome::Error(e.to_string());
            }
        };
        let outcome = match Case::load(&path) {
            Ok(case) => match self.runner.run_case(&case) {
                // A fence wait past the runner's limit says the device was starved (a loaded
                // machine), not what the program computes: run it once more, and say so.
                Outcome::Fail(why) if why.contains(DEVICE_WAIT_FAILED) => {
                    println!("RETRY seed {seed}: {why}");
                    self.runner.run_case(&case)
                }
                other => other,
            },
            Err(e) => Outcome::Fail(format!("{e:#}")),
        };
        let why = match outcome {
            Outcome::Pass { .. } => {
                self.stats.compared += 1;
                self.count(&fams, |c| &mut c.compared);
                let _ = std::fs::remove_file(&path);
                return SeedOutcome::Agreed;
            }
            Outcome::Skip(why) => return self.skip(format!("device: {why}")),
            Outcome::Fail(why) => why,
        };
        self.stats.compared += 1;
        self.count(&fams, |c| &mut c.compared);
        if let Some(deviations) = self.deviations(seed, &text) {
            let names: Vec<&str> = deviations.iter().map(|d| d.name).collect();
            *self.stats.driver.entry(names.join("+")).or_default() += 1;
            self.count(&fams, |c| &mut c.driver);
            return SeedOutcome::Driver {
                case: path,
                deviations,
            };
        }
        self.stats.mismatches += 1;
        let shrunk = if self.shrink_tries > 0 {
            self.shrink(seed, &text, &why)
        } else {
            None
        };
        let blamed = shrunk
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map_or(fams, |t| families(shrunk_text(&t)));
        self.count(&blamed, |c| &mut c.mismatches);
        SeedOutcome::Mismatch {
            case: path,
            why,
            shrunk,
        }
    }

    /// The known deviations of this device that explain the mismatch of `text`: one alone,
    /// else all of them together; `None` when they do not.
    fn deviations(&mut self, seed: u64, text: &str) -> Option<Vec<&'static Deviation>> {
        let device = self.runner.gpu().info().name.clone();
        let mine: Vec<&'static Deviation> = DEVIATIONS
            .iter()
            .filter(|d| d.applies_to(&device))
            .collect();
        let mut tries: Vec<Vec<&'static Deviation>> = mine.iter().map(|d| vec![*d]).collect();
        if mine.len() > 1 {
            tries.push(mine);
        }
        tries
            .into_iter()
            .find(|ds| self.explained_by(seed, text, ds))
    }

    /// Whether the device's result of `text` is the oracle's but where `ds`' models differ.
    fn explained_by(&mut self, seed: u64, text: &str, ds: &[&'static Deviation]) -> bool {
        let names: Vec<&str> = ds.iter().map(|d| d.name).collect();
        let names = names.join("+");
        let description = format!("differential seed {seed} under the {names} model");
        let name = format!("{seed}-{names}");
        let Ok(Generated::Case(path)) = case_of_text(
            text,
            seed,
            &name,
            &description,
            &self.dir,
            self.denormals_kept,
            ds,
        ) else {
            return false;
        };
        let agreed = Case::load(&path)
            .map(|case| matches!(self.runner.run_case(&case), Outcome::Pass { .. }))
            .unwrap_or(false);
        let _ = std::fs::remove_file(&path);
        agreed
    }

    fn skip(&mut self, why: String) -> SeedOutcome {
        *self.stats.skipped.entry(why.clone()).or_default() += 1;
        SeedOutcome::Skipped(why)
    }

    fn count(
        &mut self,
        fams: &BTreeMap<String, u64>,
        field: impl Fn(&mut FamilyCounts) -> &mut u64,
    ) {
        for f in fams.keys() {
            *field(self.stats.families.entry(f.clone()).or_default()) += 1;
        }
    }

    /// Shrinks the mismatching program of `seed`; the reproducer's path if anything went.
    fn shrink(&mut self, seed: u64, text: &str, why: &str) -> Option<PathBuf> {
        let pairs = word_pairs(why);
        let description =
            format!("differential seed {seed}, shrunk: expected values from the oracle");
        let (dir, kept) = (self.dir.clone(), self.denormals_kept);
        let name = format!("{seed}-shrunk");
        let runner = &mut self.runner;
        let mut still_fails = |candidate: &str| -> bool {
            let Ok(Generated::Case(path)) =
                case_of_text(candidate, seed, &name, &description, &dir, kept, &[])
            else {
                return false;
            };
            let Ok(case) = Case::load(&path) else {
                return false;
            };
            match runner.run_case(&case) {
                Outcome::Fail(msg) => word_pairs(&msg).iter().any(|p| pairs.contains(p)),
                _ => false,
            }
        };
        let shrunk = shrink(text, self.shrink_tries, &mut still_fails);
        if shrunk.removed == 0 {
            let _ = std::fs::remove_file(self.dir.join(format!("{name}.toml")));
            return None;
        }
        // The last candidate tried may have been one that passed: write the shrunk one again.
        match case_of_text(&shrunk.text, seed, &name, &description, &dir, kept, &[]) {
            Ok(Generated::Case(path)) => Some(path),
            _ => None,
        }
    }
}

/// The program text inside a case written by `case_of_text` (between the `asm = """` quotes).
pub fn shrunk_text(case: &str) -> &str {
    case.split_once("asm = \"\"\"\n")
        .and_then(|(_, rest)| rest.split_once("\"\"\""))
        .map_or("", |(text, _)| text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_pairs_reads_runner_messages() {
        let msg = "none of the 2 one_of alternatives holds: buffer u0[4] = 0x00000000 expected \
                   0x7fc00000 (and 29 more) | buffer u0[15] = 0x00000000 expected 0x80000000 \
                   (and 5 more)";
        let pairs = word_pairs(msg);
        let want: BTreeSet<(String, String)> = [
            ("0x00000000".to_owned(), "0x7fc00000".to_owned()),
            ("0x00000000".to_owned(), "0x80000000".to_owned()),
        ]
        .into_iter()
        .collect();
        assert_eq!(pairs, want);
        assert!(word_pairs("translating: unsupported").is_empty());
    }

    #[test]
    fn families_count_instructions_not_declarations() {
        let text = "cs_5_0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\nmov r0.x, l(1)\n\
                    iadd r1.x, r0.x, l(2)\nadd r1.y, r0.x, r0.x\nif_nz r0.x\nendif\nret\n";
        let f = families(text);
        let want: BTreeMap<String, u64> = [
            ("alu float".to_owned(), 1),
            ("alu int".to_owned(), 1),
            ("alu move".to_owned(), 1),
            ("control flow".to_owned(), 3),
        ]
        .into_iter()
        .collect();
        assert_eq!(f, want);
    }

    #[test]
    fn the_summary_ends_with_the_fixed_line() {
        let mut s = Stats {
            programs: 3,
            mismatches: 1,
            ..Stats::default()
        };
        s.families.insert("alu int".into(), FamilyCounts::default());
        let text = s.summary();
        assert_eq!(
            text.lines().last(),
            Some("differential: 3 programs, 1 mismatches")
        );
        assert!(text.contains("alu int"), "{text}");
    }

    #[test]
    fn shrunk_text_reads_the_inline_program() {
        let case = "description = \"x\"\n[shader]\nasm = \"\"\"\ncs_5_0\nret\n\"\"\"\n";
        assert_eq!(shrunk_text(case), "cs_5_0\nret\n");
    }
}
