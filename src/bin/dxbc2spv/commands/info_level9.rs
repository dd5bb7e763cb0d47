//! `dxbc2spv info`'s level-9 lines and JSON records: one per `Aon9`/`XNAS`/`XNAP` part, with
//! its versions, program size and offset and every mapping row (format in `docs/cli.md`).

use std::fmt::Write as _;

use dxbc2spv::front::dxbc::aon9::{
    self, ConstantMapping, Conversion, Level9, RuntimeConstant, RuntimeConstantKind, SamplerMapping,
};
use dxbc2spv::text::dxbc::disasm::level9::{conversion_name, runtime_description};
use serde::Serialize;

use super::count;

/// One level-9 part (`Aon9`, `XNAS`, `XNAP`), owned.
pub(super) struct Level9Row {
    chunk: String,
    /// Offset of the chunk header, like [`ChunkRow::offset`].
    offset: u32,
    version: String,
    program_version: String,
    program_offset: u32,
    program_size: usize,
    constants: Vec<ConstantMapping>,
    samplers: Vec<SamplerMapping>,
    runtime_constants: Vec<RuntimeConstant>,
    /// Non-empty unknown tables: descriptor index (1 or 2), row count, absolute offset.
    unknown_tables: Vec<(usize, u16, u32)>,
}

impl Level9Row {
    pub(super) fn of(l9: &Level9<'_>) -> Self {
        Self {
            chunk: l9.kind.name().to_string(),
            offset: l9.offset.saturating_sub(8),
            version: aon9::version_name(l9.version),
            program_version: l9
                .program_version()
                .map_or_else(|| "none".to_string(), aon9::version_name),
            program_offset: l9.program_offset,
            program_size: l9.program.len(),
            constants: l9.constants.clone(),
            samplers: l9.samplers.clone(),
            runtime_constants: l9.runtime_constants.clone(),
            unknown_tables: l9
                .unknown_tables
                .iter()
                .zip(1..)
                .filter_map(|(t, i)| t.map(|t| (i, t.count, t.offset)))
                .collect(),
        }
    }
}

impl Level9Row {
    /// `  level 9 (Aon9): vs_2_0, program vs_2_x, 236 bytes at 0x0084`, then one line per
    /// mapping row: `    c1..c4 <- cb0[0..3] (FLT, FLT, FLT, FLT)`, `    s0 <- t0, s0`,
    /// `    c0 <- Vertex Shader position offset`, `    unknown table 1: 2 rows at 0x0060`.
    pub(super) fn write_text(&self, s: &mut String) -> std::fmt::Result {
        writeln!(
            s,
            "  level 9 ({}): {}, program {}, {} bytes at {:#06x}",
            self.chunk, self.version, self.program_version, self.program_size, self.program_offset
        )?;
        for c in &self.constants {
            let last = |first: u16| u32::from(first) + u32::from(c.count.max(1)) - 1;
            let conversion: Vec<String> =
                c.conversion.iter().map(|&x| conversion_name(x)).collect();
            writeln!(
                s,
                "    {} <- cb{}[{}] ({})",
                range('c', c.target, last(c.target)),
                c.buffer,
                range_inner(c.first_register, last(c.first_register)),
                conversion.join(", ")
            )?;
        }
        for x in &self.samplers {
            writeln!(
                s,
                "    s{} <- t{}, s{}",
                x.target_sampler, x.source_resource, x.source_sampler
            )?;
        }
        for r in &self.runtime_constants {
            writeln!(s, "    c{} <- {}", r.target, runtime_description(r.kind))?;
        }
        for (index, rows, offset) in &self.unknown_tables {
            writeln!(
                s,
                "    unknown table {index}: {} at {offset:#06x}",
                count(usize::from(*rows), "row")
            )?;
        }
        Ok(())
    }

    pub(super) fn json(&self) -> Level9Json<'_> {
        Level9Json {
            chunk: &self.chunk,
            offset: self.offset,
            version: &self.version,
            program_version: &self.program_version,
            program_offset: self.program_offset,
            program_size: self.program_size,
            constants: self
                .constants
                .iter()
                .map(|c| ConstantJson {
                    target: c.target,
                    buffer: c.buffer,
                    first_register: c.first_register,
                    count: c.count,
                    conversion: c.conversion.map(conversion_json),
                })
                .collect(),
            samplers: self
                .samplers
                .iter()
                .map(|x| Level9SamplerJson {
                    target: x.target_sampler,
                    resource: x.source_resource,
                    sampler: x.source_sampler,
                })
                .collect(),
            runtime_constants: self
                .runtime_constants
                .iter()
                .map(|r| RuntimeJson {
                    target: r.target,
                    kind: match r.kind {
                        RuntimeConstantKind::VertexShaderPositionOffset => {
                            "vertex_shader_position_offset".to_string()
                        }
                        RuntimeConstantKind::Other(k) => format!("unknown({k})"),
                    },
                })
                .collect(),
            unknown_tables: self
                .unknown_tables
                .iter()
                .map(|&(index, rows, offset)| UnknownTableJson {
                    index,
                    count: rows,
                    offset,
                })
                .collect(),
        }
    }
}

/// `c1..c4`, or `c5` for one register.
fn range(letter: char, first: u16, last: u32) -> String {
    if u32::from(first) == last {
        format!("{letter}{first}")
    } else {
        format!("{letter}{first}..{letter}{last}")
    }
}

/// `0..3`, or `5` for one register.
fn range_inner(first: u16, last: u32) -> String {
    if u32::from(first) == last {
        first.to_string()
    } else {
        format!("{first}..{last}")
    }
}

/// `float`, `uint`, or `unknown(N)`.
fn conversion_json(c: Conversion) -> String {
    match c {
        Conversion::Float => "float".to_string(),
        Conversion::UInt => "uint".to_string(),
        Conversion::Other(code) => format!("unknown({code})"),
    }
}

/// One level-9 part.
#[derive(Serialize)]
pub(super) struct Level9Json<'a> {
    chunk: &'a str,
    offset: u32,
    version: &'a str,
    program_version: &'a str,
    program_offset: u32,
    program_size: usize,
    constants: Vec<ConstantJson>,
    samplers: Vec<Level9SamplerJson>,
    runtime_constants: Vec<RuntimeJson>,
    unknown_tables: Vec<UnknownTableJson>,
}

#[derive(Serialize)]
struct ConstantJson {
    target: u16,
    buffer: u16,
    first_register: u16,
    count: u16,
    conversion: [String; 4],
}

#[derive(Serialize)]
struct Level9SamplerJson {
    target: u8,
    resource: u8,
    sampler: u8,
}

#[derive(Serialize)]
struct RuntimeJson {
    target: u16,
    kind: String,
}

#[derive(Serialize)]
struct UnknownTableJson {
    index: usize,
    count: u16,
    offset: u32,
}
