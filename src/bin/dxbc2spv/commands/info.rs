//! `dxbc2spv info`: what a container holds, as text or JSON Lines (`serde` records, one per
//! container; the schema is in `docs/cli.md`).

use std::fmt::Write as _;
use std::io;

use anyhow::Result;
use dxbc2spv::front::dxbc::checksum;
use dxbc2spv::front::dxbc::rts0::{ParameterKind, RootSignature, ShaderVisibility, StaticSampler};
use dxbc2spv::front::dxbc::sfi0::FeatureFlags;
use dxbc2spv::front::dxbc::signature::Signature;
use dxbc2spv::front::dxbc::{Container, ParseOptions, Program};

use serde::Serialize;

use super::json;
use super::Console;
use crate::args::InfoArgs;
use crate::inputs::{self, Found};
use level9::{Level9Json, Level9Row};

#[path = "info_level9.rs"]
mod level9;

/// Describes every input; see `docs/cli.md`.
pub fn run(args: &InfoArgs, console: &mut Console<'_>) -> io::Result<()> {
    let mut printed = 0usize;
    for item in inputs::expand_with(&args.inputs.paths, inputs::READ_EXTENSIONS) {
        let input = match item {
            Found::File(input) => input,
            Found::Failed(path, e) => {
                console.failed(&path, &e)?;
                continue;
            }
        };
        if super::info_d3d9::handled(&input.path, args.json, &mut printed, console)? {
            continue;
        }
        let path = input.path.display().to_string();
        let summary = match inputs::read(&input.path).and_then(|bytes| Summary::of(&bytes)) {
            Ok(summary) => summary,
            Err(e) => {
                console.failed(&input.path, &e)?;
                continue;
            }
        };
        let text = if args.json {
            json::line(&summary.json(&path))?
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
    level9: Vec<Level9Row>,
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
        let level9 = container
            .level9_parts()
            .into_iter()
            .map(|part| part.map(|l9| Level9Row::of(&l9)))
            .collect::<Result<_, _>>()?;
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
            level9,
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
        for l9 in &self.level9 {
            l9.write_text(s)?;
        }
        Ok(())
    }

    /// The JSON record of this container (see `docs/cli.md`).
    fn json<'a>(&'a self, path: &'a str) -> InfoJson<'a> {
        let mut signatures = SignaturesJson::default();
        for sig in &self.signatures {
            let row = Some(SignatureJson {
                chunk: &sig.chunk,
                elements: sig.elements,
            });
            match sig.kind {
                "input" => signatures.input = row,
                "output" => signatures.output = row,
                _ => signatures.patch_constant = row,
            }
        }
        InfoJson {
            path,
            size: self.size,
            checksum: hex(&self.stored_checksum),
            computed_checksum: hex(&self.computed_checksum),
            checksum_ok: self.checksum_ok(),
            chunks: self
                .chunks
                .iter()
                .map(|c| ChunkJson {
                    fourcc: &c.fourcc,
                    offset: c.offset,
                    size: c.size,
                })
                .collect(),
            program: match &self.program {
                ProgramRow::Dxbc {
                    chunk,
                    version,
                    instructions,
                } => Some(ProgramJson {
                    chunk,
                    version,
                    instructions: *instructions,
                }),
                ProgramRow::Dxil | ProgramRow::Missing => None,
            },
            dxil: matches!(self.program, ProgramRow::Dxil),
            signatures,
            resources: self.rdef.as_ref().map(|r| ResourcesJson {
                buffers: r.buffers,
                bindings: r.bindings,
                creator: &r.creator,
            }),
            features: self.features.map(|f| FeaturesJson {
                bits: f.0,
                names: f.names().collect(),
                unknown_bits: f.unknown_bits(),
            }),
            root_signature: self.root_signature.as_ref().map(root_signature_json),
            level9: self.level9.iter().map(Level9Row::json).collect(),
        }
    }
}

/// `info --json`: one container.
#[derive(Serialize)]
struct InfoJson<'a> {
    path: &'a str,
    size: usize,
    checksum: String,
    computed_checksum: String,
    checksum_ok: bool,
    chunks: Vec<ChunkJson<'a>>,
    program: Option<ProgramJson<'a>>,
    dxil: bool,
    signatures: SignaturesJson<'a>,
    resources: Option<ResourcesJson<'a>>,
    features: Option<FeaturesJson>,
    root_signature: Option<RootSignatureJson>,
    level9: Vec<Level9Json<'a>>,
}

#[derive(Serialize)]
struct ChunkJson<'a> {
    fourcc: &'a str,
    offset: u32,
    size: usize,
}

#[derive(Serialize)]
struct ProgramJson<'a> {
    chunk: &'a str,
    version: &'a str,
    instructions: usize,
}

/// The signatures present, by kind (absent ones are left out).
#[derive(Default, Serialize)]
struct SignaturesJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<SignatureJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<SignatureJson<'a>>,
    #[serde(rename = "patch-constant", skip_serializing_if = "Option::is_none")]
    patch_constant: Option<SignatureJson<'a>>,
}

#[derive(Serialize)]
struct SignatureJson<'a> {
    chunk: &'a str,
    elements: usize,
}

#[derive(Serialize)]
struct ResourcesJson<'a> {
    buffers: usize,
    bindings: usize,
    creator: &'a str,
}

#[derive(Serialize)]
struct FeaturesJson {
    bits: u64,
    names: Vec<&'static str>,
    unknown_bits: u64,
}

#[derive(Serialize)]
struct RootSignatureJson {
    version: String,
    flags: u32,
    flag_names: Vec<&'static str>,
    parameters: Vec<ParameterJson>,
    static_samplers: Vec<SamplerJson>,
}

#[derive(Serialize)]
struct ParameterJson {
    #[serde(rename = "type")]
    kind: &'static str,
    visibility: String,
    #[serde(flatten)]
    fields: ParameterFields,
}

/// The fields of one parameter kind.
#[derive(Serialize)]
#[serde(untagged)]
enum ParameterFields {
    Table {
        ranges: Vec<RangeJson>,
    },
    Constants {
        register: u32,
        space: u32,
        count: u32,
    },
    Descriptor {
        register: u32,
        space: u32,
        flags: Option<u32>,
    },
}

#[derive(Serialize)]
struct RangeJson {
    #[serde(rename = "type")]
    kind: String,
    count: u32,
    unbounded: bool,
    base_register: u32,
    space: u32,
    table_offset: u32,
    append: bool,
    flags: Option<u32>,
}

#[derive(Serialize)]
struct SamplerJson {
    filter: String,
    address_u: String,
    address_v: String,
    address_w: String,
    mip_lod_bias: f32,
    max_anisotropy: u32,
    comparison_func: String,
    border_color: String,
    min_lod: f32,
    max_lod: f32,
    register: u32,
    space: u32,
    visibility: String,
    flags: Option<u32>,
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

/// The whole root signature as a JSON record.
fn root_signature_json(rs: &RootSignature) -> RootSignatureJson {
    let parameters = rs
        .parameters
        .iter()
        .map(|p| ParameterJson {
            kind: p.kind.name(),
            visibility: visibility_name(p.visibility),
            fields: match &p.kind {
                ParameterKind::DescriptorTable(t) => ParameterFields::Table {
                    ranges: t
                        .ranges
                        .iter()
                        .map(|r| RangeJson {
                            kind: match r.range_type.d3d12_name() {
                                Some(name) => name.to_ascii_lowercase(),
                                None => format!("unknown({})", r.range_type.raw()),
                            },
                            count: r.count,
                            unbounded: r.is_unbounded(),
                            base_register: r.base_register,
                            space: r.space,
                            table_offset: r.table_offset,
                            append: r.is_append(),
                            flags: r.flags.map(|f| f.0),
                        })
                        .collect(),
                },
                ParameterKind::Constants(c) => ParameterFields::Constants {
                    register: c.register,
                    space: c.space,
                    count: c.count,
                },
                ParameterKind::Cbv(d) | ParameterKind::Srv(d) | ParameterKind::Uav(d) => {
                    ParameterFields::Descriptor {
                        register: d.register,
                        space: d.space,
                        flags: d.flags.map(|f| f.0),
                    }
                }
            },
        })
        .collect();
    RootSignatureJson {
        version: rs.version.to_string(),
        flags: rs.flags.0,
        flag_names: rs.flags.names().collect(),
        parameters,
        static_samplers: rs.static_samplers.iter().map(sampler_json).collect(),
    }
}

fn sampler_json(x: &StaticSampler) -> SamplerJson {
    let name =
        |n: Option<&str>, raw: u32| n.map_or_else(|| format!("unknown({raw})"), str::to_string);
    SamplerJson {
        filter: x
            .filter
            .d3d12_name()
            .unwrap_or_else(|| format!("unknown({:#x})", x.filter.0)),
        address_u: name(x.address_u.d3d12_name(), x.address_u.raw()),
        address_v: name(x.address_v.d3d12_name(), x.address_v.raw()),
        address_w: name(x.address_w.d3d12_name(), x.address_w.raw()),
        mip_lod_bias: x.mip_lod_bias,
        max_anisotropy: x.max_anisotropy,
        comparison_func: name(x.comparison_func.d3d12_name(), x.comparison_func.raw()),
        border_color: name(x.border_color.d3d12_name(), x.border_color.raw()),
        min_lod: x.min_lod,
        max_lod: x.max_lod,
        register: x.register,
        space: x.space,
        visibility: visibility_name(x.visibility),
        flags: x.flags.map(|f| f.0),
    }
}

/// `all`, `vs`, ..., `ps`, or `visibility(N)` for a value D3D12 does not define.
fn visibility_name(v: ShaderVisibility) -> String {
    v.short_name()
        .map_or_else(|| format!("visibility({})", v.raw()), str::to_string)
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
pub(crate) mod tests {
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
        let json = super::json::line(&summary.json("rs.bin")).expect("serializes");
        for part in [
            "\"root_signature\":{\"version\":\"1.1\",\"flags\":1,\
             \"flag_names\":[\"ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT\"],\"parameters\":[",
            "{\"type\":\"table\",\"visibility\":\"ps\",\"ranges\":[{\"type\":\"srv\",\"count\":2,",
            "{\"type\":\"sampler\",\"count\":4294967295,\"unbounded\":true,\"base_register\":0,\
             \"space\":1,\"table_offset\":0,\"append\":false,\"flags\":1}",
            "{\"type\":\"constants\",\"visibility\":\"all\",\"register\":0,\"space\":0,\"count\":4}",
            "{\"type\":\"cbv\",\"visibility\":\"all\",\"register\":1,\"space\":0,\"flags\":0}",
            "\"static_samplers\":[{\"filter\":\"ANISOTROPIC\",\"address_u\":\"CLAMP\",",
            // FLT_MAX, in serde_json's exponent form.
            "\"max_lod\":3.4028235e+38,\"register\":2,\"space\":0,\"visibility\":\"all\",\
             \"flags\":null}]},\"level9\":[]}\n",
        ] {
            assert!(json.contains(part), "no {part} in {json}");
        }
    }

    /// A vertex-shader `Aon9` payload: cb0 registers 0..3 → c1..c4 (floats), cb1 register 2 →
    /// c5 (x float, yzw uint), the position offset in c0, sampler t1/s0 → s2, and a `vs_2_x`
    /// program of 16 bytes at 68.
    pub(crate) fn aon9() -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut u16s = |vs: &[u16]| bytes.extend(vs.iter().flat_map(|v| v.to_le_bytes()));
        // Payload size, version, program size and offset; five descriptors (count, offset).
        u16s(&[84, 0, 0x0200, 0xFFFE, 16, 0, 68, 0]);
        u16s(&[2, 36, 0, 68, 0, 68, 1, 64, 1, 60]);
        // Constant rows at 36: (cb0, 0, 4, c1, FLT×4), (cb1, 2, 1, c5, FLT UINT UINT UINT).
        u16s(&[0, 0, 4, 1, 0, 0, 1, 2, 1, 5, 0x0300, 0x0303]);
        // Runtime row at 60: kind 0 → c0; sampler row at 64: t1, s0 → s2 (bytes 1 0 2 0).
        u16s(&[0, 0, 0x0001, 0x0002]);
        // Program at 68: vs_2_x, two filler tokens, the end token.
        u16s(&[0x0201, 0xFFFE, 0, 0, 0, 0, 0xFFFF, 0]);
        bytes
    }

    #[test]
    fn level9_part_summary() {
        let aon9 = aon9();
        let bytes = write_container(&[(FourCc::AON9, &aon9[..])]).expect("container");
        let summary = Summary::of(&bytes).expect("parses");
        let text = summary.text("l9.dxbc");
        // Container header (32), one table entry (4), chunk header (8): data at 0x2c.
        let expected = "  level 9 (Aon9): vs_2_0, program vs_2_x, 16 bytes at 0x0070\n\
                        \x20   c1..c4 <- cb0[0..3] (FLT, FLT, FLT, FLT)\n\
                        \x20   c5 <- cb1[2] (FLT, UINT, UINT, UINT)\n\
                        \x20   s2 <- t1, s0\n\
                        \x20   c0 <- Vertex Shader position offset\n";
        assert!(text.ends_with(expected), "{text}");
        let json = super::json::line(&summary.json("l9.dxbc")).expect("serializes");
        let part = "\"level9\":[{\"chunk\":\"Aon9\",\"offset\":36,\"version\":\"vs_2_0\",\
                    \"program_version\":\"vs_2_x\",\"program_offset\":112,\"program_size\":16,\
                    \"constants\":[{\"target\":1,\"buffer\":0,\"first_register\":0,\"count\":4,\
                    \"conversion\":[\"float\",\"float\",\"float\",\"float\"]},\
                    {\"target\":5,\"buffer\":1,\"first_register\":2,\"count\":1,\
                    \"conversion\":[\"float\",\"uint\",\"uint\",\"uint\"]}],\
                    \"samplers\":[{\"target\":2,\"resource\":1,\"sampler\":0}],\
                    \"runtime_constants\":[{\"target\":0,\
                    \"kind\":\"vertex_shader_position_offset\"}],\"unknown_tables\":[]}]}\n";
        assert!(json.ends_with(part), "{json}");
    }

    #[test]
    fn no_root_signature_is_null() {
        let bytes = write_container(&[(FourCc::STAT, &[0u8; 4][..])]).expect("container");
        let summary = Summary::of(&bytes).expect("parses");
        assert!(!summary.text("x").contains("root signature"));
        let json = super::json::line(&summary.json("x")).expect("serializes");
        assert!(json.contains(",\"root_signature\":null,\"level9\":[]}"));
    }
}
