//! `dxbc2spv translate`: DXBC containers to SPIR-V modules (`-o OUT`, `--out-dir DIR`, or
//! `<input>.spv` beside each input), optionally checked with `spirv-val` and disassembled with
//! `spirv-dis`.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Result};
use dxbc2spv::{translate, HullSchedule, Options, Target};

use super::Console;
use crate::args::{HullScheduleArg, TranslateArgs};
use crate::inputs::{self, Destinations, Found};

/// Translates every input; see `docs/cli.md`.
pub fn run(args: &TranslateArgs, console: &mut Console<'_>) -> io::Result<()> {
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
    let options = Options {
        target,
        verify_checksum: !args.no_checksum,
        debug_names: args.debug_names,
        hull_schedule: match args.hull_schedule {
            HullScheduleArg::Serial => HullSchedule::Serial,
            HullScheduleArg::Parallel => HullSchedule::Parallel,
        },
        ..Options::default()
    };
    let found = inputs::expand(&args.inputs.paths);
    let mut destinations = match Destinations::new(
        args.output.as_deref(),
        args.out_dir.as_deref(),
        "spv",
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
        let target_path = destinations.claim(&input);
        let result = target_path.and_then(|out| {
            let bytes = inputs::read(&input.path)?;
            let translation = translate(&bytes, &options).map_err(|e| anyhow!("{e}"))?;
            let words: Vec<u8> = translation
                .spirv
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            inputs::write_file(&out, &words)?;
            if args.validate {
                validate(&out, target)?;
            }
            if args.spirv_asm {
                disassemble(&out)?;
            }
            Ok((out, words.len()))
        });
        let result = match result {
            Ok((out, bytes)) => {
                let checked = if args.validate { ", spirv-val ok" } else { "" };
                let line = format!(
                    "{} -> {} ({bytes} bytes{checked})",
                    input.path.display(),
                    out.display()
                );
                writeln!(console.out(), "{line}")?;
                Ok(())
            }
            Err(e) => Err(e),
        };
        match result {
            Ok(()) => console.succeeded(),
            Err(e) => console.failed(&input.path, &e)?,
        }
    }
    Ok(())
}

/// Runs a SPIR-V tool, turning "not installed" into a clear message.
fn tool(name: &str, args: &[&std::ffi::OsStr]) -> Result<std::process::Output> {
    Command::new(name)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => anyhow!(
                "{name} not found on PATH: install spirv-tools (Debian: apt-get install spirv-tools)"
            ),
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

fn disassemble(spv: &Path) -> Result<()> {
    let text_path = spv.with_extension("spvasm");
    let out = tool(
        "spirv-dis",
        &[spv.as_os_str(), "-o".as_ref(), text_path.as_os_str()],
    )?;
    if !out.status.success() {
        bail!(
            "spirv-dis failed on {}: {}",
            spv.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}
