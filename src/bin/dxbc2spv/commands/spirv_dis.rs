//! `dxbc2spv spirv-dis`: SPIR-V modules to SPIR-V text, disassembled in-process by
//! `dxbc2spv::spv::text` (no spirv-tools needed). The text goes to stdout (each module after a
//! `; PATH` comment line when there are several), or to `-o OUT` / `--out-dir DIR`
//! (`<name>.spvasm`). A file that is not SPIR-V fails with the byte offset where it stops being
//! SPIR-V; the other files are still disassembled.

use std::io;

use anyhow::anyhow;
use dxbc2spv::spv::text::disassemble_bytes;

use super::Console;
use crate::args::SpirvDisArgs;
use crate::inputs::{self, Destinations, Found};

/// File extensions picked up when a directory is searched for modules.
const EXTENSIONS: &[&str] = &["spv"];

/// Disassembles every input; see `docs/cli.md`.
pub fn run(args: &SpirvDisArgs, console: &mut Console<'_>) -> io::Result<()> {
    let found = inputs::expand_with(&args.paths, EXTENSIONS);
    let to_files = args.output.is_some() || args.out_dir.is_some();
    let mut destinations = match Destinations::new(
        args.output.as_deref(),
        args.out_dir.as_deref(),
        "spvasm",
        &found,
    ) {
        Ok(d) => d,
        Err((path, e)) => return console.failed(&path, &e),
    };
    let label = !inputs::is_single_file(&found);
    for item in found {
        let input = match item {
            Found::File(input) => input,
            Found::Failed(path, e) => {
                console.failed(&path, &e)?;
                continue;
            }
        };
        let text = inputs::read(&input.path)
            .and_then(|bytes| disassemble_bytes(&bytes).map_err(|e| anyhow!(e)));
        let text = match text {
            Ok(text) => text,
            Err(e) => {
                console.failed(&input.path, &e)?;
                continue;
            }
        };
        if to_files {
            let written = destinations
                .claim(&input)
                .and_then(|out| inputs::write_file(&out, text.as_bytes()));
            match written {
                Ok(()) => console.succeeded(),
                Err(e) => console.failed(&input.path, &e)?,
            }
            continue;
        }
        if label {
            writeln!(console.out(), "; {}", input.path.display())?;
        }
        console.out().write_all(text.as_bytes())?;
        console.succeeded();
    }
    Ok(())
}
