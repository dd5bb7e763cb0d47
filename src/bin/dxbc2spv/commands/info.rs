//! `dxbc2spv info`: what a container holds, as text or JSON Lines.

use std::fmt::Write as _;
use std::io;

use anyhow::Result;
use dxbc2spv::front::dxbc::checksum;
use dxbc2spv::front::dxbc::rts0::{ParameterKind, RootSignature, ShaderVisibility, StaticSampler};
use dxbc2spv::front::dxbc::sfi0::FeatureFlags;
use dxbc2spv::front::dxbc::signature::Signature;
use dxbc2spv::front::dxbc::{Container, ParseOptions, Program};

use super::json::string as json_str;
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
    root_signature: Option<RootSignature>,
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
            root_signature: container.root_signature().transpose()?,
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
        if let Some(rs) = &self.root_signature {
            writeln!(s, "  root signature: {}", root_signature_text(rs))?;
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
        s.push_str(",\"root_signature\":");
        match &self.root_signature {
            Some(rs) => write_root_signature_json(s, rs)?,
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

/// One line: version, parameters (kind, registers, visibility when not all stages), static
/// samplers, and the flags when any is set:
/// `v1.1, 3 parameters (table[2 ranges] ps, constants b0 space0 x4, cbv b1), 1 static sampler`.
fn root_signature_text(rs: &RootSignature) -> String {
    let params: Vec<String> = rs
        .parameters
        .iter()
        .map(|p| {
            let mut t = match &p.kind {
                ParameterKind::DescriptorTable(table) => {
                    format!("table[{}]", count(table.ranges.len(), "range"))
                }
                ParameterKind::Constants(c) => {
                    format!("constants b{} space{} x{}", c.register, c.space, c.count)
                }
                ParameterKind::Cbv(d) | ParameterKind::Srv(d) | ParameterKind::Uav(d) => {
                    let letter = match p.kind {
                        ParameterKind::Cbv(_) => 'b',
                        ParameterKind::Srv(_) => 't',
                        _ => 'u',
                    };
                    let mut t = format!("{} {letter}{}", p.kind.name(), d.register);
                    if d.space != 0 {
                        let _ = write!(t, " space{}", d.space);
                    }
                    t
                }
            };
            if p.visibility != ShaderVisibility::All {
                let _ = write!(t, " {}", visibility_name(p.visibility));
            }
            t
        })
        .collect();
    let mut s = format!(
        "v{}, {}",
        rs.version,
        count(rs.parameters.len(), "parameter")
    );
    if !params.is_empty() {
        let _ = write!(s, " ({})", params.join(", "));
    }
    let _ = write!(s, ", {}", count(rs.static_samplers.len(), "static sampler"));
    if rs.flags.0 != 0 {
        let mut names: Vec<String> = rs.flags.names().map(str::to_string).collect();
        if rs.flags.unknown_bits() != 0 {
            names.push(format!("unknown {:#x}", rs.flags.unknown_bits()));
        }
        let _ = write!(s, ", flags {:#x} ({})", rs.flags.0, names.join(" | "));
    }
    s
}

/// The whole root signature as a JSON object.
fn write_root_signature_json(s: &mut String, rs: &RootSignature) -> std::fmt::Result {
    let names: Vec<String> = rs.flags.names().map(json_str).collect();
    write!(
        s,
        "{{\"version\":\"{}\",\"flags\":{},\"flag_names\":[{}],\"parameters\":[",
        rs.version,
        rs.flags.0,
        names.join(",")
    )?;
    for (i, p) in rs.parameters.iter().enumerate() {
        let comma = if i > 0 { "," } else { "" };
        write!(
            s,
            "{comma}{{\"type\":\"{}\",\"visibility\":{}",
            p.kind.name(),
            json_str(&visibility_name(p.visibility))
        )?;
        match &p.kind {
            ParameterKind::DescriptorTable(t) => {
                s.push_str(",\"ranges\":[");
                for (j, r) in t.ranges.iter().enumerate() {
                    let comma = if j > 0 { "," } else { "" };
                    let kind = match r.range_type.d3d12_name() {
                        Some(name) => name.to_ascii_lowercase(),
                        None => format!("unknown({})", r.range_type.raw()),
                    };
                    write!(
                        s,
                        "{comma}{{\"type\":{},\"count\":{},\"unbounded\":{},\
                         \"base_register\":{},\"space\":{},\"table_offset\":{},\
                         \"append\":{},\"flags\":{}}}",
                        json_str(&kind),
                        r.count,
                        r.is_unbounded(),
                        r.base_register,
                        r.space,
                        r.table_offset,
                        r.is_append(),
                        json_flags(r.flags.map(|f| f.0))
                    )?;
                }
                s.push(']');
            }
            ParameterKind::Constants(c) => write!(
                s,
                ",\"register\":{},\"space\":{},\"count\":{}",
                c.register, c.space, c.count
            )?,
            ParameterKind::Cbv(d) | ParameterKind::Srv(d) | ParameterKind::Uav(d) => write!(
                s,
                ",\"register\":{},\"space\":{},\"flags\":{}",
                d.register,
                d.space,
                json_flags(d.flags.map(|f| f.0))
            )?,
        }
        s.push('}');
    }
    s.push_str("],\"static_samplers\":[");
    for (i, sampler) in rs.static_samplers.iter().enumerate() {
        let comma = if i > 0 { "," } else { "" };
        s.push_str(comma);
        write_sampler_json(s, sampler)?;
    }
    s.push_str("]}");
    Ok(())
}

fn write_sampler_json(s: &mut String, x: &StaticSampler) -> std::fmt::Result {
    let filter = x
        .filter
        .d3d12_name()
        .unwrap_or_else(|| format!("unknown({:#x})", x.filter.0));
    let name = |n: Option<&str>, raw: u32| {
        json_str(&n.map_or_else(|| format!("unknown({raw})"), str::to_string))
    };
    write!(
        s,
        "{{\"filter\":{},\"address_u\":{},\"address_v\":{},\"address_w\":{},\
         \"mip_lod_bias\":{},\"max_anisotropy\":{},\"comparison_func\":{},\
         \"border_color\":{},\"min_lod\":{},\"max_lod\":{},\"register\":{},\
         \"space\":{},\"visibility\":{},\"flags\":{}}}",
        json_str(&filter),
        name(x.address_u.d3d12_name(), x.address_u.raw()),
        name(x.address_v.d3d12_name(), x.address_v.raw()),
        name(x.address_w.d3d12_name(), x.address_w.raw()),
        json_f32(x.mip_lod_bias),
        x.max_anisotropy,
        name(x.comparison_func.d3d12_name(), x.comparison_func.raw()),
        name(x.border_color.d3d12_name(), x.border_color.raw()),
        json_f32(x.min_lod),
        json_f32(x.max_lod),
        x.register,
        x.space,
        json_str(&visibility_name(x.visibility)),
        json_flags(x.flags.map(|f| f.0))
    )
}

/// `all`, `vs`, ..., `ps`, or `visibility(N)` for a value D3D12 does not define.
fn visibility_name(v: ShaderVisibility) -> String {
    v.short_name()
        .map_or_else(|| format!("visibility({})", v.raw()), str::to_string)
}

/// A flags field as JSON: its value, or `null` where the version has no such field.
fn json_flags(flags: Option<u32>) -> String {
    flags.map_or_else(|| "null".to_string(), |f| f.to_string())
}

/// A float as JSON: Rust's shortest round-trip form, `null` for NaN and infinities.
fn json_f32(v: f32) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".to_string()
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

#[cfg(test)]
mod tests {
    use dxbc2spv::front::dxbc::FourCc;
    use dxbc2spv::text::dxbc::encode::write_container;

    use super::Summary;

    /// A version-1.1 root signature: a pixel-shader table of an SRV range and an unbounded
    /// sampler range, four root constants at b0, a root CBV at b1 and one static sampler.
    fn rts0() -> Vec<u8> {
        #[rustfmt::skip]
        let words: [u32; 48] = [
            2, 3, 24, 1, 140, 0x1, // header
            0, 5, 60, 1, 0, 116, 2, 0, 128, // parameters
            2, 68, // table
            0, 2, 0, 0, 0, u32::MAX, // t0-t1
            3, u32::MAX, 0, 1, 1, 0, // s0-... in space 1
            0, 0, 4, // constants
            1, 0, 0, // CBV
            0x55, 3, 3, 3, 0, 16, 4, 1, 0, 0x7f7f_ffff, 2, 0, 0, // static sampler s2
        ];
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn root_signature_summary() {
        let rts0 = rts0();
        let bytes = write_container(&[(FourCc::RTS0, &rts0[..])]).expect("container");
        let summary = Summary::of(&bytes).expect("parses");
        let text = summary.text("rs.bin");
        let line = "  root signature: v1.1, 3 parameters (table[2 ranges] ps, constants b0 space0 \
                    x4, cbv b1), 1 static sampler, flags 0x1 (ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT)\n";
        assert!(text.contains(line), "{text}");
        let json = summary.json("rs.bin");
        for part in [
            "\"root_signature\":{\"version\":\"1.1\",\"flags\":1,\
             \"flag_names\":[\"ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT\"],\"parameters\":[",
            "{\"type\":\"table\",\"visibility\":\"ps\",\"ranges\":[{\"type\":\"srv\",\"count\":2,",
            "{\"type\":\"sampler\",\"count\":4294967295,\"unbounded\":true,\"base_register\":0,\
             \"space\":1,\"table_offset\":0,\"append\":false,\"flags\":1}",
            "{\"type\":\"constants\",\"visibility\":\"all\",\"register\":0,\"space\":0,\"count\":4}",
            "{\"type\":\"cbv\",\"visibility\":\"all\",\"register\":1,\"space\":0,\"flags\":0}",
            "\"static_samplers\":[{\"filter\":\"ANISOTROPIC\",\"address_u\":\"CLAMP\",",
            "\"max_lod\":3.4028235e38,\"register\":2,\"space\":0,\"visibility\":\"all\",\
             \"flags\":null}]}}\n",
        ] {
            assert!(json.contains(part), "no {part} in {json}");
        }
    }

    #[test]
    fn no_root_signature_is_null() {
        let bytes = write_container(&[(FourCc::STAT, &[0u8; 4][..])]).expect("container");
        let summary = Summary::of(&bytes).expect("parses");
        assert!(!summary.text("x").contains("root signature"));
        assert!(summary.json("x").contains(",\"root_signature\":null}"));
    }
}
