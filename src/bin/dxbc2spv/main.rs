//! `dxbc2spv`: the command-line tool. Argument handling only, over the library API; the
//! commands and their conventions are described in `docs/cli.md`.
//!
//! Exit codes: 0 success, 1 some input failed (each reported on stderr as `PATH: message`),
//! 2 usage error (clap's).

mod alloc;
mod args;
mod binding_file;
mod class_instance;
mod commands;
mod inputs;
mod state_args;
#[cfg(test)]
mod tests;

use std::io::{self, BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

fn main() -> ExitCode {
    let cli = args::Cli::parse_from(args::with_default_command(std::env::args_os()));
    let stderr_is_terminal = io::stderr().is_terminal();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut err = io::stderr().lock();
    match commands::run(&cli.command, &mut out, &mut err, stderr_is_terminal) {
        Ok(status) => ExitCode::from(status.exit_code()),
        // A reader that stopped early (`| head`) is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(err, "dxbc2spv: cannot write the output: {e}");
            ExitCode::from(1)
        }
    }
}
