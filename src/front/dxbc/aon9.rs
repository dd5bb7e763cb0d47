//! The level-9 part of a DXBC container (`Aon9`, and the XNA parts `XNAS`/`XNAP`): a complete
//! Direct3D 9 program plus the tables that map the Direct3D 10+ resources onto D3D9 registers.
//!
//! Contract: [`Level9::parse`] reads one such chunk without copying: the D3D9 program is
//! returned as a slice of the input with its absolute offset (it is not decoded here; the D3D9
//! front end does that), and the mapping tables as rows. The layout (no public specification;
//! derived from every such chunk of the corpus and checked against fxc's listings of them):
//!
//! | offset | field |
//! | --- | --- |
//! | +0 | payload size in bytes (equals the chunk's size) |
//! | +4 | D3D9 version token (`0xFFFE0200` vs / `0xFFFF0200` ps, 2.0 even for 2_x programs) |
//! | +8 | program size in bytes |
//! | +12 | program offset in the chunk (the program runs to the chunk's end in fxc's output) |
//! | +16..+36 | five table descriptors: count in bits 0–15, byte offset in the chunk in 16–31 |
//!
//! The tables are, in descriptor order: constant-buffer mappings (12-byte rows), two tables
//! never seen non-empty (kept raw, [`RawTable`]), sampler mappings (4-byte rows) and runtime
//! constants (4-byte rows). Every inconsistency — a truncated header, a payload size that is not
//! the chunk's, a table or program outside the chunk — is a [`DecodeError`] at the absolute
//! offset of the field that is wrong; nothing panics. Unknown conversion codes, runtime-constant
//! kinds and non-zero reserved bytes are kept, not rejected.

use super::container::{Chunk, FourCc};
use super::error::{DecodeError, DecodeErrorKind, Result};
use super::reader::Reader;

/// Size of the fixed header: four fields and five table descriptors.
pub const HEADER_SIZE: u32 = 36;
/// Size of one constant-buffer mapping row.
pub const CONSTANT_ROW_SIZE: u32 = 12;
/// Size of one sampler mapping row.
pub const SAMPLER_ROW_SIZE: u32 = 4;
/// Size of one runtime-constant row.
pub const RUNTIME_ROW_SIZE: u32 = 4;

/// Which chunk a level-9 part came from (the `D3D_BLOB_*` part names of `D3DGetBlobPart`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level9Kind {
    /// `Aon9`: the feature-level-9 program of a `4_0_level_9_x` container
    /// (`D3D_BLOB_LEGACY_SHADER`).
    Legacy,
    /// `XNAS`: the XNA shader (`D3D_BLOB_XNA_SHADER`).
    XnaShader,
    /// `XNAP`: the XNA pre-pass shader (`D3D_BLOB_XNA_PREPASS_SHADER`).
    XnaPrepass,
}

impl Level9Kind {
    /// Every kind: `Aon9`, `XNAS`, `XNAP`.
    pub const ALL: [Level9Kind; 3] = [Self::Legacy, Self::XnaShader, Self::XnaPrepass];

    /// The chunk code of this kind.
    pub fn fourcc(self) -> FourCc {
        match self {
            Self::Legacy => FourCc::AON9,
            Self::XnaShader => FourCc::XNAS,
            Self::XnaPrepass => FourCc::XNAP,
        }
    }

    /// The kind whose chunk code is `fourcc`, if any.
    pub fn from_fourcc(fourcc: FourCc) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.fourcc() == fourcc)
    }

    /// The chunk code as a string (`Aon9`, `XNAS`, `XNAP`): the context of its errors.
    pub fn name(self) -> &'static str {
        match self {
            Self::Legacy => "Aon9",
            Self::XnaShader => "XNAS",
            Self::XnaPrepass => "XNAP",
        }
    }
}

/// How the runtime converts one component of a constant-buffer value into the D3D9 float
/// constant it is copied to (one byte per component, x first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Conversion {
    /// 0: a float, copied as is. fxc prints `FLT`.
    Float,
    /// 3: a `uint` (seen for `uint` variables; fxc's spelling of it is not in any listing we
    /// have).
    UInt,
    /// Any other code, kept as found.
    Other(u8),
}

impl Conversion {
    /// The conversion of code `byte`.
    pub fn from_byte(byte: u8) -> Self {
        match byte {
            0 => Self::Float,
            3 => Self::UInt,
            other => Self::Other(other),
        }
    }

    /// The code as stored.
    pub fn code(self) -> u8 {
        match self {
            Self::Float => 0,
            Self::UInt => 3,
            Self::Other(code) => code,
        }
    }
}

/// One constant-buffer mapping: `count` registers of constant buffer `buffer` from
/// `first_register` are copied to the D3D9 float constants from `c{target}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstantMapping {
    /// The constant-buffer slot (`cb#`).
    pub buffer: u16,
    /// The first 16-byte register of the buffer.
    pub first_register: u16,
    /// How many registers.
    pub count: u16,
    /// The first D3D9 float constant (`c#`) they land in.
    pub target: u16,
    /// The conversion of each component, x to w.
    pub conversion: [Conversion; 4],
}

/// One sampler mapping: texture `t{source_resource}` sampled with `s{source_sampler}` is the
/// D3D9 sampler `s{target_sampler}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerMapping {
    /// The shader-resource slot (`t#`), byte 0 of the row.
    pub source_resource: u8,
    /// The sampler slot (`s#`), byte 1.
    pub source_sampler: u8,
    /// The D3D9 sampler (`s#`), byte 2.
    pub target_sampler: u8,
    /// Byte 3, always 0 in fxc's output.
    pub reserved: u8,
}

/// What a runtime-generated constant holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeConstantKind {
    /// 0: the vertex shader position offset (the runtime's half-pixel correction; the
    /// program adds `c#.xy × position.w` to `oPos.xy`). On Vulkan it is zero.
    VertexShaderPositionOffset,
    /// Any other kind, kept as found.
    Other(u16),
}

impl RuntimeConstantKind {
    /// The kind of code `code`.
    pub fn from_code(code: u16) -> Self {
        match code {
            0 => Self::VertexShaderPositionOffset,
            other => Self::Other(other),
        }
    }

    /// The code as stored.
    pub fn code(self) -> u16 {
        match self {
            Self::VertexShaderPositionOffset => 0,
            Self::Other(code) => code,
        }
    }
}

/// One runtime-generated constant: the runtime writes a value of `kind` into `c{target}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuntimeConstant {
    /// What the constant holds.
    pub kind: RuntimeConstantKind,
    /// The D3D9 float constant (`c#`).
    pub target: u16,
}

/// A table whose rows are not understood (descriptors 1 and 2, always empty in fxc's output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawTable<'a> {
    /// The row count from the descriptor.
    pub count: u16,
    /// Absolute offset of the table in the container.
    pub offset: u32,
    /// The bytes from the table's offset to the next table or the program that starts after
    /// it (or the chunk's end): the rows' size is unknown, so this is an upper bound.
    pub bytes: &'a [u8],
}

/// A parsed level-9 chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level9<'a> {
    /// Which chunk it is.
    pub kind: Level9Kind,
    /// Absolute offset of the chunk's data in the container.
    pub offset: u32,
    /// The payload size field (+0).
    pub payload_size: u32,
    /// The D3D9 version token of the header (+4); the program's own version token may be 2_x.
    pub version: u32,
    /// The D3D9 program: version token to end token, borrowed from the container.
    pub program: &'a [u8],
    /// Absolute offset of [`Level9::program`] in the container.
    pub program_offset: u32,
    /// Constant-buffer → `c#` mappings (descriptor 0), in chunk order.
    pub constants: Vec<ConstantMapping>,
    /// The tables of descriptors 1 and 2, when non-empty.
    pub unknown_tables: [Option<RawTable<'a>>; 2],
    /// Texture/sampler → `s#` mappings (descriptor 3), in chunk order.
    pub samplers: Vec<SamplerMapping>,
    /// Runtime-generated constants (descriptor 4), in chunk order.
    pub runtime_constants: Vec<RuntimeConstant>,
}

/// One table descriptor: where its rows are.
#[derive(Clone, Copy)]
struct Descriptor {
    /// Absolute offset of the descriptor itself (errors point at it).
    at: u32,
    count: u16,
    /// Offset of the rows relative to the chunk's data.
    offset: u16,
}

impl<'a> Level9<'a> {
    /// Parses a level-9 chunk (`Aon9`, `XNAS` or `XNAP`).
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self> {
        let kind = Level9Kind::from_fourcc(chunk.fourcc).ok_or_else(|| {
            DecodeError::new(
                chunk.offset,
                DecodeErrorKind::Malformed("not a level-9 chunk (Aon9, XNAS or XNAP)"),
            )
        })?;
        Self::parse_as(kind, chunk.data, chunk.offset).map_err(|e| e.with_context(kind.name()))
    }

    /// Parses the payload `data` of a chunk of `kind`, whose first byte is at absolute offset
    /// `base` in the container.
    pub fn parse_as(kind: Level9Kind, data: &'a [u8], base: u32) -> Result<Self> {
        let mut r = Reader::new(data, base);
        let len = data.len() as u64;
        let size_at = r.offset();
        let payload_size = r.read_u32()?;
        if u64::from(payload_size) != len {
            return Err(DecodeError::new(
                size_at,
                DecodeErrorKind::SizeMismatch {
                    what: "level-9 payload",
                    declared: u64::from(payload_size),
                    actual: len,
                },
            ));
        }
        let version_at = r.offset();
        let version = r.read_u32()?;
        if !matches!(version >> 16, 0xFFFE | 0xFFFF) {
            return Err(DecodeError::new(
                version_at,
                DecodeErrorKind::InvalidValue {
                    what: "level-9 version token",
                    value: version,
                },
            ));
        }
        let program_size_at = r.offset();
        let program_size = r.read_u32()?;
        let program_offset_at = r.offset();
        let program_offset = r.read_u32()?;
        let mut descriptors = [Descriptor {
            at: 0,
            count: 0,
            offset: 0,
        }; 5];
        for d in &mut descriptors {
            d.at = r.offset();
            let word = r.read_u32()?;
            d.count = word as u16;
            d.offset = (word >> 16) as u16;
        }
        if program_offset < HEADER_SIZE || u64::from(program_offset) > len {
            return Err(DecodeError::new(
                program_offset_at,
                DecodeErrorKind::OutOfRange {
                    what: "level-9 program offset",
                    start: u64::from(program_offset),
                    end: u64::from(program_offset),
                    lower: u64::from(HEADER_SIZE),
                    limit: len,
                },
            ));
        }
        let program_end = u64::from(program_offset) + u64::from(program_size);
        if program_end > len {
            return Err(DecodeError::new(
                program_size_at,
                DecodeErrorKind::OutOfRange {
                    what: "level-9 program",
                    start: u64::from(program_offset),
                    end: program_end,
                    lower: u64::from(HEADER_SIZE),
                    limit: len,
                },
            ));
        }
        // In range: both bounds are at most `len`, which came from a slice.
        let program = data
            .get(program_offset as usize..program_end as usize)
            .unwrap_or_default();
        let whole = Reader::new(data, base);
        let rows = |d: &Descriptor, row_size: u32, what: &'static str| -> Result<Reader<'a>> {
            table(&whole, d, row_size, what)
        };
        let [d_const, d_unk1, d_unk2, d_samp, d_rt] = descriptors;

        let mut t = rows(&d_const, CONSTANT_ROW_SIZE, "constant mapping table")?;
        let mut constants = Vec::with_capacity(usize::from(d_const.count));
        for _ in 0..d_const.count {
            let buffer = t.read_u16()?;
            let first_register = t.read_u16()?;
            let count = t.read_u16()?;
            let target = t.read_u16()?;
            let conversion = t.read_array::<4>()?.map(Conversion::from_byte);
            constants.push(ConstantMapping {
                buffer,
                first_register,
                count,
                target,
                conversion,
            });
        }

        let mut t = rows(&d_samp, SAMPLER_ROW_SIZE, "sampler mapping table")?;
        let mut samplers = Vec::with_capacity(usize::from(d_samp.count));
        for _ in 0..d_samp.count {
            let [source_resource, source_sampler, target_sampler, reserved] = t.read_array()?;
            samplers.push(SamplerMapping {
                source_resource,
                source_sampler,
                target_sampler,
                reserved,
            });
        }

        let mut t = rows(&d_rt, RUNTIME_ROW_SIZE, "runtime constant table")?;
        let mut runtime_constants = Vec::with_capacity(usize::from(d_rt.count));
        for _ in 0..d_rt.count {
            let kind = RuntimeConstantKind::from_code(t.read_u16()?);
            let target = t.read_u16()?;
            runtime_constants.push(RuntimeConstant { kind, target });
        }

        // Starts of everything else, to bound the raw tables.
        let starts: Vec<u32> = descriptors
            .iter()
            .filter(|d| d.count != 0)
            .map(|d| u32::from(d.offset))
            .chain([program_offset, len as u32])
            .collect();
        let mut unknown_tables = [None, None];
        for (slot, d) in unknown_tables.iter_mut().zip([d_unk1, d_unk2]) {
            // At least one byte per row: the only bound a table of unknown rows has.
            table(&whole, &d, 1, "unknown level-9 table")?;
            if d.count == 0 {
                continue;
            }
            let start = u32::from(d.offset);
            let end = starts
                .iter()
                .copied()
                .filter(|&s| s > start)
                .min()
                .unwrap_or(len as u32);
            *slot = Some(RawTable {
                count: d.count,
                offset: base.wrapping_add(start),
                bytes: data.get(start as usize..end as usize).unwrap_or_default(),
            });
        }

        Ok(Self {
            kind,
            offset: base,
            payload_size,
            version,
            program,
            program_offset: base.wrapping_add(program_offset),
            constants,
            unknown_tables,
            samplers,
            runtime_constants,
        })
    }

    /// True when the program is a vertex shader (version token `0xFFFE....`).
    pub fn is_vertex_shader(&self) -> bool {
        self.version >> 16 == 0xFFFE
    }

    /// The program's own version token (its first four bytes), which says 2_x where the
    /// header says 2.0; `None` when the program is shorter than a token.
    pub fn program_version(&self) -> Option<u32> {
        let bytes = self.program.first_chunk::<4>()?;
        Some(u32::from_le_bytes(*bytes))
    }
}

/// The name of a D3D9 version token as fxc's version line spells it: `vs_2_0`, `ps_2_x` (2.1),
/// `ps_1_4`, `vs_3_sw` (3.255); `unknown_XXXXXXXX` when the token is neither vs nor ps.
pub fn version_name(token: u32) -> String {
    let stage = match token >> 16 {
        0xFFFE => "vs",
        0xFFFF => "ps",
        _ => return format!("unknown_{token:08x}"),
    };
    let (major, minor) = ((token >> 8) & 0xFF, token & 0xFF);
    match (major, minor) {
        (2, 1) => format!("{stage}_2_x"),
        (_, 0xFF) => format!("{stage}_{major}_sw"),
        _ => format!("{stage}_{major}_{minor}"),
    }
}

/// A reader over the `count` rows of `row_size` bytes that descriptor `d` places in `whole`
/// (the chunk's data); an error at the descriptor when they do not lie after the header and
/// inside the chunk.
fn table<'a>(
    whole: &Reader<'a>,
    d: &Descriptor,
    row_size: u32,
    what: &'static str,
) -> Result<Reader<'a>> {
    let start = u64::from(d.offset);
    let end = start + u64::from(d.count) * u64::from(row_size);
    let len = whole.data().len() as u64;
    let lower = u64::from(HEADER_SIZE);
    // Empty tables may point anywhere up to the chunk's end (fxc points them at the program
    // or the header's end).
    let bad = if d.count == 0 {
        start > len
    } else {
        start < lower || end > len
    };
    if bad {
        return Err(DecodeError::new(
            d.at,
            DecodeErrorKind::OutOfRange {
                what,
                start,
                end,
                lower,
                limit: len,
            },
        ));
    }
    let bytes = whole
        .data()
        .get(start as usize..end as usize)
        .unwrap_or_default();
    Ok(Reader::new(
        bytes,
        whole.base().wrapping_add(d.offset.into()),
    ))
}

#[cfg(test)]
#[path = "aon9_tests.rs"]
mod tests;
