//! `dxbc2spv asm`: fxc-syntax listings to DXBC containers, with `-o OUT` or `--out-dir DIR`.

use std::fs;
use std::io;

use anyhow::Context;
use dxbc2spv::text::dxbc::asm::assemble;

use super::Console;
use crate::args::AsmArgs;
use crate::inputs::{self, Destinations, Found};

/// Assembles every input; see `docs/cli.md`. Errors read `PATH:LINE:COLUMN: message`.
pub fn run(args: &AsmArgs, console: &mut Console<'_>) -> io::Result<()> {
    let found = inputs::expand_with(&args.paths, inputs::ASM_EXTENSIONS);
    let mut destinations = match Destinations::new(
        args.output.as_deref(),
        args.out_dir.as_deref(),
        "dxbc",
        &found,
    ) {
        Ok(d) => d,
        Err((path, e)) => return console.failed(&path, &e),
    };
    for item in found {
        let input = match item {
            Found::File(input) => input,
            Found::Failed(path, e) => {
                console.failed(&path, &e)?;
                continue;
            }
        };
        let text = match fs::read_to_string(&input.path).context("cannot read") {
            Ok(text) => text,
            Err(e) => {
                console.failed(&input.path, &e)?;
                continue;
            }
        };
        let bytes = match assemble(&text) {
            Ok(bytes) => bytes,
            Err(e) => {
                console.failed_at(&input.path, e.line, e.column, &e.message)?;
                continue;
            }
        };
        let target = destinations.claim(&input);
        match target.and_then(|out| inputs::write_file(&out, &bytes)) {
            Ok(()) => console.succeeded(),
            Err(e) => console.failed(&input.path, &e)?,
        }
    }
    Ok(())
}
