//! Finding cases, running them on a device, and reporting: one line per case
//! (`PASS name`, `FAIL name: why`, `SKIP name: reason`) and a summary
//! `N passed, N failed[, N skipped]`. A case with a translated hull shader runs twice, once per
//! hull-shader schedule, and reports both runs (`name` and `name [parallel]`).

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use dxbc2spv::HullSchedule;

use super::case::Case;
use super::execute::{execute, Executed};
use super::shader::DxbcTranslator;
use super::stages::run_name;
use crate::features::{feature_kind, DeviceFeatures, FeatureKind};
use crate::gpu::{Gpu, GpuOptions};

/// At most this many mismatches are spelled out per case.
const MAX_MISMATCHES_SHOWN: usize = 8;

/// How one case ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every expectation held (or, with `expect_failure`, one failed as intended: `note` says
    /// how).
    Pass {
        /// For an expected failure: the failure.
        note: Option<String>,
    },
    /// The case failed; the message says why.
    Fail(String),
    /// The device lacks something the case requires; not a pass.
    Skip(String),
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseReport {
    /// The case name (its path below `conformance/`, without `.toml`).
    pub name: String,
    /// How it ended.
    pub outcome: Outcome,
}

impl fmt::Display for CaseReport {
    /// One line (`PASS name`, `FAIL name: why`, `SKIP name: why`); a multi-line reason
    /// continues on indented lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (status, reason) = match &self.outcome {
            Outcome::Pass { note: None } => return write!(f, "PASS {}", self.name),
            Outcome::Pass { note: Some(n) } => {
                return write!(f, "PASS {} (failed as expected: {n})", self.name)
            }
            Outcome::Fail(r) => ("FAIL", r),
            Outcome::Skip(r) => ("SKIP", r),
        };
        let mut lines = reason.trim_end().lines();
        write!(
            f,
            "{status} {}: {}",
            self.name,
            lines.next().unwrap_or_default()
        )?;
        for line in lines {
            write!(f, "\n    {line}")?;
        }
        Ok(())
    }
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases skipped for a missing device feature.
    pub skipped: usize,
}

impl Summary {
    /// Counts one report.
    pub fn add(&mut self, report: &CaseReport) {
        match report.outcome {
            Outcome::Pass { .. } => self.passed += 1,
            Outcome::Fail(_) => self.failed += 1,
            Outcome::Skip(_) => self.skipped += 1,
        }
    }
}

impl fmt::Display for Summary {
    /// `N passed, N failed`, with `, N skipped` when some were.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.skipped > 0 {
            write!(f, ", {} skipped", self.skipped)?;
        }
        Ok(())
    }
}

/// A case file to run and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseFile {
    /// The file.
    pub path: PathBuf,
    /// Its name in reports.
    pub name: String,
}

/// The case files at `path`: the file itself, or every `*.toml` below the folder, sorted by
/// name. A case is named by its path below the nearest `conformance` folder (else below
/// `path`), without `.toml`, with `/` separators: `compute/ftoi_nan`.
pub fn discover(path: &Path) -> Result<Vec<CaseFile>> {
    let meta = std::fs::metadata(path).with_context(|| format!("{}", path.display()))?;
    let mut files = Vec::new();
    if meta.is_dir() {
        walk(path, &mut files)?;
    } else {
        files.push(path.to_owned());
    }
    let base = if meta.is_dir() {
        path
    } else {
        path.parent().unwrap_or(Path::new(""))
    };
    let mut cases: Vec<CaseFile> = files
        .into_iter()
        .map(|p| CaseFile {
            name: case_name(&p, base),
            path: p,
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("reading folder {}", dir.display()))?;
    for entry in entries {
        let path = entry
            .with_context(|| format!("reading folder {}", dir.display()))?
            .path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
    Ok(())
}

fn case_name(file: &Path, base: &Path) -> String {
    let abs = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_owned());
    let root = abs
        .ancestors()
        .skip(1)
        .find(|a| a.file_name().is_some_and(|n| n == "conformance"))
        .map(Path::to_owned)
        .or_else(|| std::fs::canonicalize(base).ok());
    let rel = root
        .as_deref()
        .and_then(|r| abs.strip_prefix(r).ok())
        .unwrap_or(file);
    let rel = rel.with_extension("");
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Runs cases on one Vulkan device.
pub struct Runner<'t> {
    gpu: Gpu,
    /// Devices made for cases that require opt-in features, by the sorted feature list.
    opt_in_gpus: Vec<(Vec<String>, Gpu)>,
    selector: Option<String>,
    translator: &'t dyn DxbcTranslator,
    watchdog: Option<crate::watchdog::Watchdog>,
}

impl<'t> Runner<'t> {
    /// A runner on `gpu`; `selector` is the device selector `gpu` was made with (devices for
    /// opt-in features are made with it too). DXBC cases go through `translator`.
    pub fn new(gpu: Gpu, selector: Option<String>, translator: &'t dyn DxbcTranslator) -> Self {
        Runner {
            gpu,
            opt_in_gpus: Vec::new(),
            selector,
            translator,
            watchdog: None,
        }
    }

    /// Has `watchdog` stop the run when a case never finishes (see [`crate::watchdog`]).
    pub fn with_watchdog(mut self, watchdog: crate::watchdog::Watchdog) -> Self {
        self.watchdog = Some(watchdog);
        self
    }

    /// The main device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Runs every case of `files` and prints each report as it finishes, through `print`.
    pub fn run_all(&mut self, files: &[CaseFile], mut print: impl FnMut(&CaseReport)) -> Summary {
        let mut summary = Summary::default();
        for file in files {
            for report in self.run_file(file) {
                summary.add(&report);
                print(&report);
            }
        }
        summary
    }

    /// Runs one case file: one report per run of the case ([`Case::hull_schedules`]; one
    /// report for a file that is not a valid case).
    pub fn run_file(&mut self, file: &CaseFile) -> Vec<CaseReport> {
        let case = match Case::load(&file.path) {
            Ok(case) => case,
            Err(e) => {
                return vec![CaseReport {
                    name: file.name.clone(),
                    outcome: Outcome::Fail(format!("bad case file: {e:#}")),
                }]
            }
        };
        case.hull_schedules()
            .iter()
            .map(|&schedule| {
                let name = run_name(&file.name, schedule);
                if let Some(w) = &self.watchdog {
                    w.begin(&name);
                }
                let outcome = self.run_case_with(&case, schedule);
                if let Some(w) = &self.watchdog {
                    w.end();
                }
                CaseReport { name, outcome }
            })
            .collect()
    }

    /// Runs a parsed case once, with the serial hull-shader schedule.
    pub fn run_case(&mut self, case: &Case) -> Outcome {
        self.run_case_with(case, HullSchedule::Serial)
    }

    /// Runs a parsed case once; a translated hull shader is translated with `hull_schedule`.
    pub fn run_case_with(&mut self, case: &Case, hull_schedule: HullSchedule) -> Outcome {
        let missing = missing_requirements(self.gpu.features(), case);
        if !missing.is_empty() {
            return Outcome::Skip(format!(
                "{} lacks {}",
                self.gpu.info().name,
                missing.join(", ")
            ));
        }
        let mut opt_in: Vec<String> = case
            .requires
            .iter()
            .filter(|n| feature_kind(n) == Some(FeatureKind::OptIn))
            .cloned()
            .collect();
        opt_in.sort();
        opt_in.dedup();
        let translator = self.translator;
        let gpu = match self.gpu_with(opt_in) {
            Ok(gpu) => gpu,
            Err(e) => return Outcome::Fail(format!("{e:#}")),
        };
        let device = gpu.info().name.clone();
        let result = execute(gpu, translator, case, hull_schedule);
        known_driver_bug(case, &device, judge(case, result))
    }

    /// The main device, or one with the opt-in features `opt_in` enabled (made once).
    fn gpu_with(&mut self, opt_in: Vec<String>) -> Result<&Gpu> {
        if opt_in.is_empty() {
            return Ok(&self.gpu);
        }
        let pos = match self.opt_in_gpus.iter().position(|(k, _)| *k == opt_in) {
            Some(pos) => pos,
            None => {
                let gpu = Gpu::with_options(&GpuOptions {
                    selector: self
                        .selector
                        .clone()
                        .or_else(|| Some(self.gpu.info().name.clone())),
                    opt_in_features: opt_in.clone(),
                })
                .with_context(|| format!("creating a device with {}", opt_in.join(", ")))?;
                self.opt_in_gpus.push((opt_in, gpu));
                self.opt_in_gpus.len() - 1
            }
        };
        Ok(&self.opt_in_gpus[pos].1)
    }
}

/// The names of `case.requires` that `features` lacks.
pub fn missing_requirements<'c>(features: &DeviceFeatures, case: &'c Case) -> Vec<&'c str> {
    case.requires
        .iter()
        .map(String::as_str)
        .filter(|n| !features.supports(n))
        .collect()
}

/// Turns the failure of a case with a matching `driver_bug` on `device` into a skip that names
/// the bug (it is still not a pass).
fn known_driver_bug(case: &Case, device: &str, outcome: Outcome) -> Outcome {
    let (Some(bug), Outcome::Fail(msg)) = (&case.driver_bug, &outcome) else {
        return outcome;
    };
    let on_device = device.to_lowercase().contains(&bug.device.to_lowercase());
    if on_device && msg.contains(&bug.failure_contains) {
        return Outcome::Skip(format!(
            "known {} bug: {} (failed: {msg})",
            bug.device, bug.reason
        ));
    }
    outcome
}

/// Applies `expect_failure` to the result of a run.
fn judge(case: &Case, result: Result<Executed>) -> Outcome {
    let mismatches = match result {
        Err(e) => return Outcome::Fail(format!("{e:#}")),
        Ok(Executed::Unsupported(why)) => return Outcome::Skip(why),
        Ok(Executed::Ran(m, note)) => (m, note),
    };
    let (mismatches, note) = mismatches;
    let message = || {
        let mut shown: Vec<String> = mismatches
            .iter()
            .take(MAX_MISMATCHES_SHOWN)
            .cloned()
            .collect();
        if mismatches.len() > MAX_MISMATCHES_SHOWN {
            shown.push(format!(
                "… {} more mismatches",
                mismatches.len() - MAX_MISMATCHES_SHOWN
            ));
        }
        let mut text = shown.join("; ");
        if let Some(n) = &note {
            text.push('\n');
            text.push_str(n);
        }
        text
    };
    match (case.expect_failure, mismatches.is_empty()) {
        (false, true) => Outcome::Pass { note: None },
        (false, false) => Outcome::Fail(message()),
        (true, true) => Outcome::Fail(
            "expect_failure = true, but every expectation held: the runner missed a wrong \
             expectation"
                .to_owned(),
        ),
        (true, false) => {
            let msg = message();
            match &case.failure_contains {
                Some(want) if !mismatches.iter().any(|m| m.contains(want.as_str())) => {
                    Outcome::Fail(format!(
                        "failed as expected, but no mismatch contains {want:?}: {msg}"
                    ))
                }
                _ => Outcome::Pass { note: Some(msg) },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(outcome: Outcome) -> String {
        CaseReport {
            name: "compute/x".into(),
            outcome,
        }
        .to_string()
    }

    #[test]
    fn report_lines() {
        assert_eq!(report(Outcome::Pass { note: None }), "PASS compute/x");
        assert_eq!(
            report(Outcome::Fail("buffer u0[3] = 0x1 expected 0x2".into())),
            "FAIL compute/x: buffer u0[3] = 0x1 expected 0x2"
        );
        assert_eq!(
            report(Outcome::Skip("device lacks shaderFloat64".into())),
            "SKIP compute/x: device lacks shaderFloat64"
        );
        assert_eq!(
            report(Outcome::Fail("spirv-val said:\nerror 1\n".into())),
            "FAIL compute/x: spirv-val said:\n    error 1"
        );
        assert_eq!(
            report(Outcome::Pass {
                note: Some("u0[1] = 0x2 expected 0x3".into())
            }),
            "PASS compute/x (failed as expected: u0[1] = 0x2 expected 0x3)"
        );
    }

    #[test]
    fn summary_line() {
        let mut s = Summary::default();
        for o in [
            Outcome::Pass { note: None },
            Outcome::Pass { note: None },
            Outcome::Fail(String::new()),
        ] {
            s.add(&CaseReport {
                name: String::new(),
                outcome: o,
            });
        }
        assert_eq!(s.to_string(), "2 passed, 1 failed");
        s.skipped = 3;
        assert_eq!(s.to_string(), "2 passed, 1 failed, 3 skipped");
    }

    fn case(expect_failure: bool, failure_contains: Option<&str>) -> Case {
        let mut text = String::new();
        if expect_failure {
            text.push_str("expect_failure = true\n");
        }
        if let Some(f) = failure_contains {
            text.push_str(&format!("failure_contains = {f:?}\n"));
        }
        text.push_str(
            "dispatch = [1, 1, 1]\n[shader]\nspirv = \"x.spv\"\n[[buffer]]\nregister = \"u0\"\n\
             kind = \"raw\"\nsize = 4\n[[expect]]\nbuffer = \"u0\"\nvalues = [0]\n",
        );
        Case::parse(&text, Path::new("x.toml")).unwrap_or_else(|e| panic!("{e:#}"))
    }

    /// A known driver bug turns the matching failure into a skip on that device only; other
    /// failures and other devices are untouched.
    #[test]
    fn known_driver_bugs_are_skips_on_their_device_only() {
        let mut c = case(false, None);
        c.driver_bug = Some(super::super::case::DriverBug {
            device: "llvmpipe".into(),
            reason: "divergent buffer sizes".into(),
            failure_contains: "u0[2]".into(),
        });
        let fail = |m: &str| Outcome::Fail(m.to_owned());
        let lavapipe = "llvmpipe (LLVM 15.0.6, 256 bits)";
        assert!(matches!(
            known_driver_bug(&c, lavapipe, fail("buffer u0[2] = 1 expected 2")),
            Outcome::Skip(why) if why.contains("known llvmpipe bug: divergent buffer sizes")
        ));
        assert!(matches!(
            known_driver_bug(&c, lavapipe, fail("buffer u0[3] = 1 expected 2")),
            Outcome::Fail(_)
        ));
        assert!(matches!(
            known_driver_bug(&c, "NVIDIA H200", fail("buffer u0[2] = 1 expected 2")),
            Outcome::Fail(_)
        ));
        assert_eq!(
            known_driver_bug(&c, lavapipe, Outcome::Pass { note: None }),
            Outcome::Pass { note: None }
        );
    }

    #[test]
    fn expected_failures() {
        let ran = |m: &[&str]| {
            Ok(Executed::Ran(
                m.iter().map(|s| s.to_string()).collect(),
                None,
            ))
        };
        assert_eq!(
            judge(&case(false, None), ran(&[])),
            Outcome::Pass { note: None }
        );
        assert!(matches!(
            judge(&case(false, None), ran(&["a"])),
            Outcome::Fail(_)
        ));
        assert!(matches!(
            judge(&case(true, None), ran(&[])),
            Outcome::Fail(_)
        ));
        assert_eq!(
            judge(&case(true, None), ran(&["a", "b"])),
            Outcome::Pass {
                note: Some("a; b".into())
            }
        );
        assert!(matches!(
            judge(&case(true, Some("u0[2]")), ran(&["u0[1] x"])),
            Outcome::Fail(_)
        ));
        assert!(matches!(
            judge(&case(true, Some("u0[1]")), ran(&["u0[1] x"])),
            Outcome::Pass { .. }
        ));
        // An error before the comparison is a failure even when a failure is expected.
        assert!(matches!(
            judge(&case(true, None), Err(anyhow::anyhow!("boom"))),
            Outcome::Fail(_)
        ));
        assert!(matches!(
            judge(&case(false, None), Ok(Executed::Unsupported("no".into()))),
            Outcome::Skip(_)
        ));
    }

    #[test]
    fn many_mismatches_are_capped() {
        let m: Vec<String> = (0..20).map(|i| format!("m{i}")).collect();
        match judge(&case(false, None), Ok(Executed::Ran(m, None))) {
            Outcome::Fail(msg) => {
                assert!(msg.starts_with("m0; m1;"), "{msg}");
                assert!(msg.ends_with("… 12 more mismatches"), "{msg}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn names() {
        let base = Path::new("/nowhere/fixtures/conformance");
        assert_eq!(
            case_name(
                Path::new("/nowhere/fixtures/conformance/compute/a.toml"),
                base
            ),
            "compute/a"
        );
    }

    #[test]
    fn skipped_for_missing_requirement() {
        let dev = DeviceFeatures::from_names(["shaderInt64", "robustBufferAccess"]);
        let mut c = case(false, None);
        c.requires = vec![
            "shaderInt64".into(),
            "shaderFloat64".into(),
            "robustBufferAccess".into(),
        ];
        assert_eq!(missing_requirements(&dev, &c), ["shaderFloat64"]);
    }
}
