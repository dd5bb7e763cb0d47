//! `dxbc2spv disasm`: fxc-syntax listings, to stdout or to `--out-dir`. A file that starts with
//! a Direct3D 9 version token is listed as a D3D9 token stream, whatever its extension;
//! `--level9` lists a container's level-9 part instead of its SM4 program.

use std::fs;
use std::io;
use std::path::Path;

use anyhow::{anyhow, Context, Result};
use dxbc2spv::front::dxbc::container::{Container, ParseOptions};
use dxbc2spv::text::d3d9::disasm as d3d9;
use dxbc2spv::text::dxbc::disasm::{self, disassemble};

use super::Console;
use crate::args::DisasmArgs;
use crate::inputs::{self, Found, OutputPaths};

/// Disassembles every input; see `docs/cli.md`.
pub fn run(args: &DisasmArgs, console: &mut Console<'_>) -> io::Result<()> {
    let options = disasm::Options {
        dialect: args.dialect.into(),
        verify_checksum: !args.no_checksum,
        header: !args.no_header,
        lossless: args.lossless,
    };
    let level9 = args.level9;
    let found = inputs::expand_with(&args.inputs.paths, inputs::READ_EXTENSIONS);
    let labelled = !inputs::is_single_file(&found);
    let mut outputs = match &args.out_dir {
        Some(dir) => {
            if let Err(e) = fs::create_dir_all(dir) {
                let e = anyhow::Error::new(e).context("cannot create the output directory");
                return console.failed(dir, &e);
            }
            Some(OutputPaths::new(dir, "asm"))
        }
        None => None,
    };
    let mut printed = 0usize;
    for item in found {
        let input = match item {
            Found::File(input) => input,
            Found::Failed(path, e) => {
                console.failed(&path, &e)?;
                continue;
            }
        };
        let listing =
            match inputs::read(&input.path).and_then(|bytes| listing(&bytes, &options, level9)) {
                Ok(listing) => listing,
                Err(e) => {
                    console.failed(&input.path, &e)?;
                    continue;
                }
            };
        match &mut outputs {
            Some(outputs) => match outputs.claim(&input).and_then(|out| write(&out, &listing)) {
                Ok(()) => console.succeeded(),
                Err(e) => console.failed(&input.path, &e)?,
            },
            None => {
                let out = console.out();
                if labelled {
                    if printed > 0 {
                        writeln!(out)?;
                    }
                    writeln!(out, "==> {} <==", input.path.display())?;
                }
                out.write_all(listing.as_bytes())?;
                printed += 1;
                console.succeeded();
            }
        }
    }
    Ok(())
}

/// The listing of one input: a D3D9 token stream (told by its version token), a DXBC
/// container, or (`level9`) a container's level-9 part.
fn listing(bytes: &[u8], options: &disasm::Options, level9: bool) -> Result<String> {
    if d3d9::is_d3d9_stream(bytes) {
        let d3d9_options = d3d9::Options {
            header: options.header,
        };
        return Ok(d3d9::disassemble(bytes, &d3d9_options)?);
    }
    if level9 {
        let parse = ParseOptions {
            verify_checksum: options.verify_checksum,
        };
        let container = Container::parse(bytes, &parse)?;
        let part = container
            .level9()
            .ok_or_else(|| anyhow!("the container has no level-9 part (Aon9 chunk)"))??;
        let mut out = String::new();
        dxbc2spv::text::level9::write_listing(&mut out, &part)?;
        return Ok(out);
    }
    Ok(disassemble(bytes, options)?)
}

fn write(path: &Path, listing: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    fs::write(path, listing).with_context(|| format!("cannot write {}", path.display()))
}
