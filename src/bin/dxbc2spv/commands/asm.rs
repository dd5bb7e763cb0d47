//! `dxbc2spv asm`: fxc-syntax listings to DXBC containers, or, for text whose version line is
//! a Direct3D 9 one (`vs_1_1` … `ps_3_0`), to the raw D3D9 token stream; with `-o OUT` or
//! `--out-dir DIR` (D3D9 streams get the `.d3d9` extension there and beside their input).

use std::fs;
use std::io;

use anyhow::Context;
use dxbc2spv::text::d3d9::asm as d3d9;
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
        let is_d3d9 = d3d9::is_d3d9_text(&text);
        let assembled = if is_d3d9 {
            d3d9::assemble_bytes(&text).map_err(|e| (e.line, e.column, e.message))
        } else {
            assemble(&text).map_err(|e| (e.line, e.column, e.message))
        };
        let bytes = match assembled {
            Ok(bytes) => bytes,
            Err((line, column, message)) => {
                console.failed_at(&input.path, line, column, &message)?;
                continue;
            }
        };
        let renamed = is_d3d9 && !matches!(destinations, Destinations::One(_));
        let target = destinations.claim(&input).map(|out| {
            if renamed {
                out.with_extension("d3d9")
            } else {
                out
            }
        });
        match target.and_then(|out| inputs::write_file(&out, &bytes)) {
            Ok(()) => console.succeeded(),
            Err(e) => console.failed(&input.path, &e)?,
        }
    }
    Ok(())
}
