//! The subcommands, each a function over the library API, and the conventions they share.
//!
//! Conventions: results go to `out` (stdout); a failed input is reported on `err` (stderr) as
//! `PATH: message` and the other inputs are still processed; the run then ends with
//! [`Status::InputsFailed`] (exit code 1). An `Err` from a command is fatal (stdout could not be
//! written) and stops the run. Progress display (batch `translate`) is only drawn when the caller
//! says stderr is a terminal, so captured or redirected runs never see it.

mod asm;
mod batch;
mod bench;
mod disasm;
pub(crate) mod info;
mod info_d3d9;
mod json;
mod reflect;
mod reflect_d3d9;
mod reflect_d3d9_bound;
mod spirv_dis;
mod stage;
mod summary;
mod translate;

use std::io::{self, Write};
use std::path::Path;

use crate::args::Command;

/// How a run ended, as far as the inputs are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every input was processed.
    Success,
    /// At least one input failed (each was reported on stderr).
    InputsFailed,
}

impl Status {
    /// The process exit code: 0 or 1 (clap exits with 2 on usage errors).
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::InputsFailed => 1,
        }
    }
}

/// Runs one subcommand, writing results to `out` and per-input errors to `err`;
/// `stderr_is_terminal` allows a progress bar on the process's stderr.
pub fn run(
    command: &Command,
    out: &mut dyn Write,
    err: &mut dyn Write,
    stderr_is_terminal: bool,
) -> io::Result<Status> {
    let mut console = Console::new(out, err, stderr_is_terminal);
    match command {
        Command::Translate(args) => translate::run(args, &mut console)?,
        Command::Disasm(args) => disasm::run(args, &mut console)?,
        Command::Info(args) => info::run(args, &mut console)?,
        Command::Asm(args) => asm::run(args, &mut console)?,
        Command::Reflect(args) => reflect::run(args, &mut console)?,
        Command::Bench(args) => bench::run(args, &mut console)?,
        Command::SpirvDis(args) => spirv_dis::run(args, &mut console)?,
    }
    console.finish()
}

/// Where a command writes: results, per-input errors, and the tally of inputs.
pub struct Console<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    inputs: usize,
    failed: usize,
    stderr_is_terminal: bool,
}

impl<'a> Console<'a> {
    fn new(out: &'a mut dyn Write, err: &'a mut dyn Write, stderr_is_terminal: bool) -> Self {
        Self {
            out,
            err,
            inputs: 0,
            failed: 0,
            stderr_is_terminal,
        }
    }

    /// True when the process's stderr is a terminal, so a progress bar may be drawn there.
    pub fn stderr_is_terminal(&self) -> bool {
        self.stderr_is_terminal
    }

    /// The result stream.
    pub fn out(&mut self) -> &mut dyn Write {
        self.out
    }

    /// Counts one input that was processed.
    pub fn succeeded(&mut self) {
        self.inputs += 1;
    }

    /// Reports an input that failed at a text position as `PATH:LINE:COLUMN: message`, the way
    /// compilers do.
    pub fn failed_at(
        &mut self,
        path: &Path,
        line: u32,
        column: u32,
        message: &str,
    ) -> io::Result<()> {
        self.inputs += 1;
        self.failed += 1;
        self.out.flush()?;
        writeln!(self.err, "{}:{line}:{column}: {message}", path.display())
    }

    /// Reports a warning of an input that succeeded, on stderr: `PATH: warning: message`.
    pub fn warn(&mut self, path: &Path, warning: &str) -> io::Result<()> {
        self.out.flush()?;
        writeln!(self.err, "{}: {warning}", path.display())
    }

    /// Reports a failed input as `PATH: message` (the message is the error and its causes).
    pub fn failed(&mut self, path: &Path, error: &anyhow::Error) -> io::Result<()> {
        self.inputs += 1;
        self.failed += 1;
        // Keep results and errors in order when both go to the same terminal.
        self.out.flush()?;
        writeln!(self.err, "{}: {error:#}", path.display())
    }

    fn finish(self) -> io::Result<Status> {
        self.out.flush()?;
        if self.failed == 0 {
            return Ok(Status::Success);
        }
        if self.inputs > 1 {
            writeln!(
                self.err,
                "dxbc2spv: {} of {} inputs failed",
                self.failed, self.inputs
            )?;
        }
        Ok(Status::InputsFailed)
    }
}
