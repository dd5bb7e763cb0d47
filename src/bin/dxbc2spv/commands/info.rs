//! `dxbc2spv info`: what a container holds, as text or JSON Lines.

use std::fmt::Write as _;
use std::io;

use anyhow::Result;
use dxbc2spv::dxbc::checksum;
use dxbc2spv::dxbc::sfi0::FeatureFlags;
use dxbc2spv::dxbc::signature::Signature;
use dxbc2spv::dxbc::{Container, ParseOptions, Program};

use super::Console;
use crate::args::InfoArgs;
use crate::inputs::{self, Found};

/// Describes every input; see `docs/cli.md`.
pub fn run(args: &InfoArgs, console: &mut Console<'_>) -> io::Result<()> {
    let mut printed = 0usize;
    for item in inputs::expand(&args.inputs.paths) {
        let input = match item {
            Found::File(input) => input,
            Found::Failed(path, e) => {
                console.failed(&path, &e)?;
                continue;
            }
        };
        let path = input.path.display().to_string();
        let summary = match inputs::read(&input.path).and_then(|bytes| Summary::of(&bytes)) {
            Ok(summary) => summary,
            Err(e) => {
                console.failed(&input.path, &e)?;
                continue;
            }
        };
        let text = if args.json {
            summary.json(&path)
        } else {
            let separator = if printed > 0 { "\n" } else { "" };
            format!("{separator}{}", summary.text(&path))
        };
        console.out().write_all(text.as_bytes())?;
        printed += 1;
        console.succeeded();
    }
    Ok(())
}

/// Everything `info` prints about one container.
struct Summary {
    size: usize,
    stored_checksum: [u8; 16],
    computed_checksum: [u8; 16],
    chunks: Vec<ChunkRow>,
    program: ProgramRow,
    signatures: Vec<SignatureRow>,
    rdef: Option<RdefRow>,
    features: Option<FeatureFlags>,
}

struct ChunkRow {
    fourcc: String,
    /// Offset of the chunk header (the chunk-table entry).
    offset: u32,
    size: usize,
}

enum ProgramRow {
    Dxbc {
        chunk: String,
        version: String,
        instructions: usize,
    },
    Dxil,
    Missing,
}

struct SignatureRow {
    kind: &'static str,
    chunk: String,
    elements: usize,
}

struct RdefRow {
    buffers: usize,
    bindings: usize,
    creator: String,
}

impl Summary {
    fn of(bytes: &[u8]) -> Result<Self> {
        let lax = ParseOptions {
            verify_checksum: false,
        };
        let container = Container::parse(bytes, &lax)?;
        let chunks = container
            .chunks
            .iter()
            .map(|c| ChunkRow {
                fourcc: c.fourcc.to_string(),
                offset: c.offset.saturating_sub(8),
                size: c.data.len(),
            })
            .collect();
        let program = match container.shader_chunk() {
            Some(chunk) => {
                let program = Program::parse(chunk.data, chunk.offset)?;
                let mut instructions = 0;
                for inst in program.instructions() {
                    inst?;
                    instructions += 1;
                }
                ProgramRow::Dxbc {
                    chunk: chunk.fourcc.to_string(),
                    version: program.version.to_string(),
                    instructions,
                }
            }
            None if container.is_dxil() => ProgramRow::Dxil,
            None => ProgramRow::Missing,
        };
        let mut signatures = Vec::new();
        for (kind, sig) in [
            ("input", container.input_signature()),
            ("output", container.output_signature()),
            ("patch-constant", container.patch_constant_signature()),
        ] {
            if let Some(sig) = sig.transpose()? {
                signatures.push(SignatureRow::of(kind, &sig));
            }
        }
        let rdef = container
            .resource_definitions()
            .transpose()?
            .map(|r| RdefRow {
                buffers: r.constant_buffers.len(),
                bindings: r.bindings.len(),
                creator: r.creator.to_string(),
            });
        Ok(Self {
            size: bytes.len(),
            stored_checksum: container.checksum,
            computed_checksum: checksum::compute(bytes),
            chunks,
            program,
            signatures,
            rdef,
            features: container.feature_info().transpose()?,
        })
    }

    fn checksum_ok(&self) -> bool {
        self.stored_checksum == self.computed_checksum
    }

    fn text(&self, path: &str) -> String {
        let mut s = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_text(&mut s, path);
        s
    }

    fn write_text(&self, s: &mut String, path: &str) -> std::fmt::Result {
        writeln!(s, "{path}")?;
        writeln!(s, "  size: {} bytes", self.size)?;
        write!(s, "  checksum: {}", hex(&self.stored_checksum))?;
        if self.checksum_ok() {
            writeln!(s, " (ok)")?;
        } else {
            writeln!(s, " (MISMATCH, computed {})", hex(&self.computed_checksum))?;
        }
        writeln!(s, "  chunks: {}", self.chunks.len())?;
        for c in &self.chunks {
            writeln!(
                s,
                "    {:<4}  at {:#06x}  {} bytes",
                c.fourcc, c.offset, c.size
            )?;
        }
        match &self.program {
            ProgramRow::Dxbc {
                chunk,
                version,
                instructions,
            } => writeln!(
                s,
                "  program: {version} ({chunk}), {}",
                count(*instructions, "instruction")
            )?,
            ProgramRow::Dxil => writeln!(s, "  program: none (DXIL container, Shader Model 6)")?,
            ProgramRow::Missing => writeln!(s, "  program: none")?,
        }
        for sig in &self.signatures {
            writeln!(
                s,
                "  {} signature: {} ({})",
                sig.kind,
                count(sig.elements, "element"),
                sig.chunk
            )?;
        }
        if let Some(rdef) = &self.rdef {
            writeln!(
                s,
                "  resources: {}, {}",
                count(rdef.buffers, "buffer"),
                count(rdef.bindings, "binding")
            )?;
            writeln!(s, "  creator: {}", rdef.creator)?;
        }
        if let Some(features) = self.features {
            write!(s, "  features: {:#x}", features.0)?;
            let mut names: Vec<String> = features.names().map(str::to_string).collect();
            if features.unknown_bits() != 0 {
                names.push(format!("unknown {:#x}", features.unknown_bits()));
            }
            if names.is_empty() {
                writeln!(s)?;
            } else {
                writeln!(s, " ({})", names.join(", "))?;
            }
        }
        Ok(())
    }

    /// One JSON object on one line.
    fn json(&self, path: &str) -> String {
        let mut s = String::new();
        let _ = self.write_json(&mut s, path);
        s
    }

    fn write_json(&self, s: &mut String, path: &str) -> std::fmt::Result {
        write!(s, "{{\"path\":{},\"size\":{}", json_str(path), self.size)?;
        write!(
            s,
            ",\"checksum\":\"{}\",\"computed_checksum\":\"{}\",\"checksum_ok\":{}",
            hex(&self.stored_checksum),
            hex(&self.computed_checksum),
            self.checksum_ok()
        )?;
        s.push_str(",\"chunks\":[");
        for (i, c) in self.chunks.iter().enumerate() {
            let comma = if i > 0 { "," } else { "" };
            write!(
                s,
                "{comma}{{\"fourcc\":{},\"offset\":{},\"size\":{}}}",
                json_str(&c.fourcc),
                c.offset,
                c.size
            )?;
        }
        s.push_str("],\"program\":");
        match &self.program {
            ProgramRow::Dxbc {
                chunk,
                version,
                instructions,
            } => write!(
                s,
                "{{\"chunk\":{},\"version\":{},\"instructions\":{instructions}}}",
                json_str(chunk),
                json_str(version)
            )?,
            ProgramRow::Dxil | ProgramRow::Missing => s.push_str("null"),
        }
        write!(s, ",\"dxil\":{}", matches!(self.program, ProgramRow::Dxil))?;
        s.push_str(",\"signatures\":{");
        for (i, sig) in self.signatures.iter().enumerate() {
            let comma = if i > 0 { "," } else { "" };
            write!(
                s,
                "{comma}{}:{{\"chunk\":{},\"elements\":{}}}",
                json_str(sig.kind),
                json_str(&sig.chunk),
                sig.elements
            )?;
        }
        s.push_str("},\"resources\":");
        match &self.rdef {
            Some(r) => write!(
                s,
                "{{\"buffers\":{},\"bindings\":{},\"creator\":{}}}",
                r.buffers,
                r.bindings,
                json_str(&r.creator)
            )?,
            None => s.push_str("null"),
        }
        s.push_str(",\"features\":");
        match self.features {
            Some(f) => {
                let names: Vec<String> = f.names().map(json_str).collect();
                write!(
                    s,
                    "{{\"bits\":{},\"names\":[{}],\"unknown_bits\":{}}}",
                    f.0,
                    names.join(","),
                    f.unknown_bits()
                )?;
            }
            None => s.push_str("null"),
        }
        s.push_str("}\n");
        Ok(())
    }
}

impl SignatureRow {
    fn of(kind: &'static str, sig: &Signature<'_>) -> Self {
        Self {
            kind,
            chunk: sig.fourcc.to_string(),
            elements: sig.elements.len(),
        }
    }
}

/// `n noun`, with an `s` unless `n` is 1.
fn count(n: usize, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{n} {noun}{s}")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `text` as a JSON string literal.
fn json_str(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", u32::from(c));
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}
