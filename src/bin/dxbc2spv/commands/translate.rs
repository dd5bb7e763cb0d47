//! `dxbc2spv translate`: DXBC containers to SPIR-V modules (`-o OUT`, `--out-dir DIR`, or
//! `<input>.spv` beside each input), optionally checked with `spirv-val` (an installed
//! spirv-tools; missing, it fails the input with a message saying how to install it) and
//! written as SPIR-V text (`--spirv-asm`: `<output>.spvasm`, disassembled in-process by
//! `dxbc2spv::spv::text`). The binding map (`--bindings`, `--root-signature`) is read and
//! checked before any input: a bad binding file fails the run, with nothing written.
//!
//! One named file is translated and reported with one line. Anything else (a directory, several
//! files) is a batch: files are translated in parallel (`--jobs`), each worker reading, writing
//! and dropping one file at a time; failures are reported as they finish (successes too with
//! `--verbose`), a progress bar shows on a terminal, and a per-stage summary ends the run
//! (`summary`). Output paths are all chosen before any work starts, in input order, so they do
//! not depend on the number of threads.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use dxbc2spv::front::dxbc::Stage;
use dxbc2spv::spv::text::disassemble_words;
use dxbc2spv::{translate, Error, HullSchedule, OptionFlags, Options, Target};

use super::batch::{run_jobs, Progress};
use super::stage::stage_of;
use super::summary::{Summary, Verdict};
use super::Console;
use crate::args::{HullScheduleArg, TranslateArgs};
use crate::binding_file;
use crate::inputs::{self, Destinations, Found, Input};

/// One file to translate, with the output path chosen for it (or why there is none).
struct Job {
    input: Input,
    destination: Result<PathBuf>,
}

/// What became of one file.
struct Outcome {
    input: PathBuf,
    /// The stage of the container's program, when it can be read.
    stage: Option<Stage>,
    /// The size of the input file (0 when it cannot be read).
    input_bytes: u64,
    result: std::result::Result<Written, Failure>,
}

/// A module written: its path and size in bytes.
struct Written {
    output: PathBuf,
    spirv_bytes: usize,
    /// `spirv-val` accepted it.
    validated: bool,
    /// The translation's warnings, as `warning: <text>` / `info: <text>`.
    warnings: Vec<String>,
}

/// Why a file gave no module.
struct Failure {
    verdict: Verdict,
    error: anyhow::Error,
}

impl Failure {
    fn failed(error: anyhow::Error) -> Self {
        Self {
            verdict: Verdict::Failed,
            error,
        }
    }

    fn translation(error: Error) -> Self {
        let verdict = match error {
            Error::Unsupported { .. } => Verdict::Unsupported,
            _ => Verdict::Failed,
        };
        Self {
            verdict,
            error: anyhow!("{error}"),
        }
    }
}

/// Translates every input; see `docs/cli.md`.
pub fn run(args: &TranslateArgs, console: &mut Console<'_>) -> io::Result<()> {
    let started = Instant::now();
    let target = match Target::from_name(&args.target) {
        Some(t) => t,
        None => {
            let e = anyhow!(
                "unknown target {:?}: use vulkan1.0 … vulkan1.3",
                args.target
            );
            return console.failed(Path::new("--target"), &e);
        }
    };
    let bindings = match binding_file::choose(
        &args.binding.bindings,
        args.binding.root_signature.as_deref(),
        !args.no_checksum,
    ) {
        Ok(b) => b,
        Err(e) => return console.failed(Path::new("--bindings"), &e),
    };
    let pipeline_state = match args.pipeline_state.state() {
        Ok(s) => s,
        Err(e) => return console.failed(Path::new("--pipeline-state"), &e),
    };
    // The previous stage's output signature, for `--previous-stage`.
    let previous = match &args.linking.previous_stage {
        None => None,
        Some(path) => match std::fs::read(path)
            .map_err(anyhow::Error::from)
            .and_then(|bytes| {
                let o =
                    Options::default().with_flag(OptionFlags::VERIFY_CHECKSUM, !args.no_checksum);
                dxbc2spv::translate(&bytes, &o).map_err(anyhow::Error::from)
            }) {
            Ok(t) => Some(t.info.outputs),
            Err(e) => return console.failed(path, &e),
        },
    };
    let (linking, workarounds) = args.linking.options(previous);
    let class_linkage = match crate::class_instance::linkage(&args.class_instances) {
        Ok(c) => c,
        Err(e) => return console.failed(Path::new("--class-instance"), &e),
    };
    let options = Options::default()
        .with_pipeline_state(pipeline_state)
        .with_linking(linking)
        .with_workarounds(workarounds)
        .with_bindings(bindings)
        .with_class_linkage(class_linkage)
        .with_target(target)
        .with_flag(OptionFlags::VERIFY_CHECKSUM, !args.no_checksum)
        .with_flag(OptionFlags::DEBUG_NAMES, args.debug_names)
        .with_rov_interlock(args.rov_interlock.option())
        .with_float_emulation(args.float_emulation.option())
        .with_hull_schedule(match args.hull_schedule {
            HullScheduleArg::Serial => HullSchedule::Serial,
            HullScheduleArg::Parallel => HullSchedule::Parallel,
        });
    let found = inputs::expand(&args.inputs.paths);
    let batch = !inputs::is_single_file(&found);
    let mut destinations = match Destinations::new(
        args.output.as_deref(),
        args.out_dir.as_deref(),
        "spv",
        &found,
    ) {
        Ok(d) => d,
        Err((path, e)) => return console.failed(&path, &e),
    };
    let mut jobs = Vec::new();
    for item in found {
        match item {
            Found::File(input) => {
                let destination = destinations.claim(&input);
                jobs.push(Job { input, destination });
            }
            Found::Failed(path, e) => console.failed(&path, &e)?,
        }
    }
    let work = |job: Job| translate_file(job, args, &options);
    if !batch {
        return jobs
            .into_iter()
            .try_for_each(|job| report(console, work(job), true));
    }
    let progress = Progress::new(jobs.len(), console.stderr_is_terminal());
    let mut summary = Summary::default();
    run_jobs(jobs, args.jobs, work, |outcome| {
        let verdict = outcome
            .result
            .as_ref()
            .map_or_else(|f| f.verdict, |_| Verdict::Translated);
        summary.count(outcome.stage, outcome.input_bytes, verdict);
        if verdict == Verdict::Translated && !args.verbose {
            report(console, outcome, false)?;
        } else {
            progress.suspend(|| report(console, outcome, true))?;
        }
        progress.file_done();
        Ok(())
    })?;
    progress.finish();
    summary.write(console.out(), started.elapsed())
}

/// Tallies `outcome` on the console and prints its line: the error, or the module written
/// (after its warnings, one line each on stderr) when `show_success`.
fn report(console: &mut Console<'_>, outcome: Outcome, show_success: bool) -> io::Result<()> {
    match outcome.result {
        Ok(written) => {
            if show_success {
                for w in &written.warnings {
                    console.warn(&outcome.input, w)?;
                }
                let checked = if written.validated {
                    ", spirv-val ok"
                } else {
                    ""
                };
                writeln!(
                    console.out(),
                    "{} -> {} ({} bytes{checked})",
                    outcome.input.display(),
                    written.output.display(),
                    written.spirv_bytes
                )?;
                console.out().flush()?;
            }
            console.succeeded();
            Ok(())
        }
        Err(failure) => console.failed(&outcome.input, &failure.error),
    }
}

/// Reads, translates and writes one file (validating and disassembling it when asked); all of
/// it is dropped on return, only the outcome remains.
fn translate_file(job: Job, args: &TranslateArgs, options: &Options) -> Outcome {
    let bytes = inputs::read(&job.input.path);
    let (stage, input_bytes) = match &bytes {
        Ok(bytes) => (stage_of(bytes), bytes.len() as u64),
        Err(_) => (None, 0),
    };
    let result = job
        .destination
        .and_then(|output| Ok((output, bytes?)))
        .map_err(Failure::failed)
        .and_then(|(output, bytes)| write_module(&bytes, output, args, options));
    Outcome {
        input: job.input.path,
        stage,
        input_bytes,
        result,
    }
}

/// Translates `bytes` and writes the module to `output`, then runs the SPIR-V tools asked for.
fn write_module(
    bytes: &[u8],
    output: PathBuf,
    args: &TranslateArgs,
    options: &Options,
) -> std::result::Result<Written, Failure> {
    let translation = translate(bytes, options).map_err(Failure::translation)?;
    let words: Vec<u8> = translation
        .spirv
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let tools = || -> Result<()> {
        inputs::write_file(&output, &words)?;
        if args.validate {
            validate(&output, options.target)?;
        }
        if args.spirv_asm {
            write_text(&output, &translation.spirv)?;
        }
        Ok(())
    };
    tools().map_err(Failure::failed)?;
    Ok(Written {
        spirv_bytes: words.len(),
        validated: args.validate,
        output,
        warnings: translation
            .warnings()
            .iter()
            .map(|w| format!("{}: {w}", w.severity().name()))
            .collect(),
    })
}

/// A SPIR-V tool that is not installed.
#[derive(Debug, thiserror::Error)]
#[error(
    "{tool} not found on PATH (--validate runs it): install spirv-tools (Debian/Ubuntu: \
     apt-get install spirv-tools; or the Vulkan SDK)"
)]
struct ToolMissing {
    tool: &'static str,
}

/// Runs a SPIR-V tool; one that is not installed is a [`ToolMissing`].
fn tool(name: &'static str, args: &[&std::ffi::OsStr]) -> Result<std::process::Output> {
    Command::new(name)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => anyhow!(ToolMissing { tool: name }),
            _ => anyhow!(e).context(format!("cannot run {name}")),
        })
}

fn validate(spv: &Path, target: Target) -> Result<()> {
    let out = tool(
        "spirv-val",
        &[
            "--target-env".as_ref(),
            target.name().as_ref(),
            spv.as_os_str(),
        ],
    )?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        let text = if text.trim().is_empty() {
            String::from_utf8_lossy(&out.stdout)
        } else {
            text
        };
        bail!("spirv-val rejected {}: {}", spv.display(), text.trim());
    }
    Ok(())
}

/// Writes the SPIR-V text of `words` to `<spv>.spvasm`.
fn write_text(spv: &Path, words: &[u32]) -> Result<()> {
    let text = disassemble_words(words).map_err(|e| {
        anyhow!(
            "cannot disassemble the module written to {}: {e}",
            spv.display()
        )
    })?;
    inputs::write_file(&spv.with_extension("spvasm"), text.as_bytes())
}
