//! Root signatures (`RTS0`): the serialized `D3D12_VERSIONED_ROOT_SIGNATURE_DESC` that fxc embeds
//! in a shader container (`[RootSignature(...)]`, `/rootsig-define`) or writes alone in a
//! root-signature-only container (`D3D12SerializeVersionedRootSignature`, `/T rootsig_1_x`).
//!
//! Contract: [`RootSignature::parse`] reads one `RTS0` payload into owned, plain-number structures
//! (there are no strings to borrow). Versions 1.0, 1.1 and 1.2 are accepted, anything else is an
//! error. Every count is checked against the bytes it claims before anything is allocated, every
//! offset must point inside the chunk, and the descriptor ranges of all tables together may not
//! exceed what the chunk could hold (so parameters that share one range list cannot multiply the
//! memory used). An unknown root-parameter type is an error (its payload layout is unknown); unknown
//! values of every other enumeration and unknown flag bits are kept as found. Offsets stored in
//! the structures, and in every error, are absolute offsets into the container. A count of 0 lets
//! its offset point anywhere, as the D3D runtime does. Layout: `docs/dxbc-format.md`, "Root
//! signatures (`RTS0`)".

use super::raw_enum::raw_enum;
use std::fmt;

use super::container::Chunk;
use super::error::{DecodeError, DecodeErrorKind, Result};
use super::reader::Reader;

/// Size of the header: version, parameter count and offset, sampler count and offset, flags.
pub const HEADER_SIZE: usize = 24;
/// Size of one root-parameter entry: type, shader visibility, payload offset.
pub const PARAMETER_SIZE: usize = 12;

/// A serialized root-signature version (`D3D_ROOT_SIGNATURE_VERSION`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// 1.0 (stored as 1): no range or root-descriptor flags.
    V1_0,
    /// 1.1 (stored as 2): descriptor ranges and root descriptors carry flags.
    V1_1,
    /// 1.2 (stored as 3): as 1.1, and static samplers carry flags.
    V1_2,
}

impl Version {
    /// The version stored as `raw`, if known.
    pub fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            1 => Some(Self::V1_0),
            2 => Some(Self::V1_1),
            3 => Some(Self::V1_2),
            _ => None,
        }
    }

    /// The stored number.
    pub fn raw(self) -> u32 {
        match self {
            Self::V1_0 => 1,
            Self::V1_1 => 2,
            Self::V1_2 => 3,
        }
    }

    /// True from 1.1 on: descriptor ranges and root descriptors have a flags field.
    pub fn has_descriptor_flags(self) -> bool {
        self != Self::V1_0
    }

    /// Bytes per descriptor range: 20 in 1.0, 24 from 1.1 on.
    pub fn range_size(self) -> usize {
        if self.has_descriptor_flags() {
            24
        } else {
            20
        }
    }

    /// Bytes per root descriptor (CBV/SRV/UAV parameter payload): 8 in 1.0, 12 from 1.1 on.
    pub fn root_descriptor_size(self) -> usize {
        if self.has_descriptor_flags() {
            12
        } else {
            8
        }
    }

    /// Bytes per static sampler: 52, or 56 in 1.2 (a trailing flags field).
    pub fn static_sampler_size(self) -> usize {
        if self == Self::V1_2 {
            56
        } else {
            52
        }
    }
}

impl fmt::Display for Version {
    /// `1.0`, `1.1` or `1.2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::V1_0 => "1.0",
            Self::V1_1 => "1.1",
            Self::V1_2 => "1.2",
        })
    }
}

/// A parsed root signature.
#[derive(Clone, Debug, PartialEq)]
pub struct RootSignature {
    /// The serialized version.
    pub version: Version,
    /// `D3D12_ROOT_SIGNATURE_FLAGS`.
    pub flags: RootSignatureFlags,
    /// The root parameters, in root-argument order.
    pub parameters: Vec<RootParameter>,
    /// The static samplers, in stored order.
    pub static_samplers: Vec<StaticSampler>,
}

/// One root parameter (`D3D12_ROOT_PARAMETER1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootParameter {
    /// Absolute offset of the parameter's 12-byte entry.
    pub offset: u32,
    /// The stages that see it.
    pub visibility: ShaderVisibility,
    /// What it binds.
    pub kind: ParameterKind,
}

/// What a root parameter binds (`D3D12_ROOT_PARAMETER_TYPE` and its payload).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParameterKind {
    /// Type 0: a descriptor table.
    DescriptorTable(DescriptorTable),
    /// Type 1: 32-bit constants read as a constant buffer.
    Constants(RootConstants),
    /// Type 2: a root constant-buffer view.
    Cbv(RootDescriptor),
    /// Type 3: a root shader-resource view (buffers only).
    Srv(RootDescriptor),
    /// Type 4: a root unordered-access view (buffers only).
    Uav(RootDescriptor),
}

impl ParameterKind {
    /// The stored `D3D12_ROOT_PARAMETER_TYPE`.
    pub fn raw(&self) -> u32 {
        match self {
            Self::DescriptorTable(_) => 0,
            Self::Constants(_) => 1,
            Self::Cbv(_) => 2,
            Self::Srv(_) => 3,
            Self::Uav(_) => 4,
        }
    }

    /// `table`, `constants`, `cbv`, `srv` or `uav`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::DescriptorTable(_) => "table",
            Self::Constants(_) => "constants",
            Self::Cbv(_) => "cbv",
            Self::Srv(_) => "srv",
            Self::Uav(_) => "uav",
        }
    }
}

/// A descriptor table: ranges of descriptors in a heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorTable {
    /// Absolute offset of the table's 8-byte header (range count, ranges offset).
    pub offset: u32,
    /// The ranges, in stored order.
    pub ranges: Vec<DescriptorRange>,
}

/// One descriptor range (`D3D12_DESCRIPTOR_RANGE1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescriptorRange {
    /// Absolute offset of the range's entry.
    pub offset: u32,
    /// The descriptor kind.
    pub range_type: RangeType,
    /// Number of descriptors; [`DescriptorRange::UNBOUNDED`] for an unbounded range.
    pub count: u32,
    /// First shader register (`t`, `u`, `b` or `s` by the range type).
    pub base_register: u32,
    /// Register space.
    pub space: u32,
    /// `D3D12_DESCRIPTOR_RANGE_FLAGS`; `None` in 1.0, which has no such field (D3D12 treats
    /// 1.0 ranges as `DESCRIPTORS_VOLATILE | DATA_VOLATILE`, samplers as `DESCRIPTORS_VOLATILE`).
    pub flags: Option<DescriptorRangeFlags>,
    /// Offset in descriptors from the table start; [`DescriptorRange::APPEND`] to follow the
    /// previous range.
    pub table_offset: u32,
}

impl DescriptorRange {
    /// `count` of an unbounded range (`UINT_MAX`, `numDescriptors = unbounded`).
    pub const UNBOUNDED: u32 = u32::MAX;
    /// `table_offset` of a range placed right after the previous one
    /// (`D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND`).
    pub const APPEND: u32 = u32::MAX;

    /// True for an unbounded range.
    pub fn is_unbounded(&self) -> bool {
        self.count == Self::UNBOUNDED
    }

    /// True when the range follows the previous one in the table.
    pub fn is_append(&self) -> bool {
        self.table_offset == Self::APPEND
    }
}

/// A 32-bit-constants parameter (`D3D12_ROOT_CONSTANTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootConstants {
    /// Absolute offset of the 12-byte payload.
    pub offset: u32,
    /// Constant-buffer register (`b`).
    pub register: u32,
    /// Register space.
    pub space: u32,
    /// Number of 32-bit values.
    pub count: u32,
}

/// A root CBV/SRV/UAV parameter (`D3D12_ROOT_DESCRIPTOR1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootDescriptor {
    /// Absolute offset of the payload.
    pub offset: u32,
    /// Shader register (`b`, `t` or `u` by the parameter type).
    pub register: u32,
    /// Register space.
    pub space: u32,
    /// `D3D12_ROOT_DESCRIPTOR_FLAGS`; `None` in 1.0 (treated by D3D12 as `DATA_VOLATILE`).
    pub flags: Option<RootDescriptorFlags>,
}

/// A static sampler (`D3D12_STATIC_SAMPLER_DESC1`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StaticSampler {
    /// Absolute offset of the sampler's entry.
    pub offset: u32,
    /// `D3D12_FILTER`.
    pub filter: Filter,
    /// Addressing outside [0, 1] along u.
    pub address_u: AddressMode,
    /// Addressing along v.
    pub address_v: AddressMode,
    /// Addressing along w.
    pub address_w: AddressMode,
    /// Bias added to the computed mip level.
    pub mip_lod_bias: f32,
    /// Anisotropy clamp (1–16) for anisotropic filters.
    pub max_anisotropy: u32,
    /// Comparison for comparison filters.
    pub comparison_func: ComparisonFunc,
    /// Border colour for [`AddressMode::Border`].
    pub border_color: BorderColor,
    /// Lowest mip level accessed.
    pub min_lod: f32,
    /// Highest mip level accessed (`D3D12_FLOAT32_MAX` for no limit).
    pub max_lod: f32,
    /// Sampler register (`s`).
    pub register: u32,
    /// Register space.
    pub space: u32,
    /// The stages that see it.
    pub visibility: ShaderVisibility,
    /// `D3D12_SAMPLER_FLAGS`; `None` before 1.2.
    pub flags: Option<SamplerFlags>,
}

impl RootSignature {
    /// Parses an `RTS0` chunk.
    pub fn parse(chunk: &Chunk<'_>) -> Result<Self> {
        Self::parse_bytes(chunk.data, chunk.offset)
    }

    /// Parses a serialized root signature held in `data`, whose first byte is at absolute
    /// offset `base` (the payload of an `RTS0` chunk).
    pub fn parse_bytes(data: &[u8], base: u32) -> Result<Self> {
        parse(Reader::new(data, base)).map_err(|e| e.with_context("RTS0"))
    }

    /// Total number of descriptor ranges over all tables.
    pub fn range_count(&self) -> usize {
        self.parameters
            .iter()
            .map(|p| match &p.kind {
                ParameterKind::DescriptorTable(t) => t.ranges.len(),
                _ => 0,
            })
            .sum()
    }
}

fn parse(whole: Reader<'_>) -> Result<RootSignature> {
    let mut r = whole;
    let version_at = r.offset();
    let raw = r.read_u32()?;
    let version = Version::from_raw(raw).ok_or_else(|| {
        DecodeError::new(
            version_at,
            DecodeErrorKind::InvalidValue {
                what: "root signature version",
                value: raw,
            },
        )
    })?;
    let (params, param_count_at, param_count) = counted_table(&mut r, &whole)?;
    let (samplers, sampler_count_at, sampler_count) = counted_table(&mut r, &whole)?;
    let flags = RootSignatureFlags(r.read_u32()?);

    let mut p = params;
    let n = p
        .check_count("root parameters", param_count, PARAMETER_SIZE)
        .map_err(|e| at(e, param_count_at))?;
    // Each range is stored once; parameters sharing one list would otherwise multiply it.
    let mut ranges_left = whole.remaining() / version.range_size();
    let mut parameters = Vec::with_capacity(n);
    for _ in 0..n {
        parameters.push(parse_parameter(&mut p, &whole, version, &mut ranges_left)?);
    }

    let mut s = samplers;
    let n = s
        .check_count(
            "static samplers",
            sampler_count,
            version.static_sampler_size(),
        )
        .map_err(|e| at(e, sampler_count_at))?;
    let mut static_samplers = Vec::with_capacity(n);
    for _ in 0..n {
        static_samplers.push(parse_sampler(&mut s, version)?);
    }
    Ok(RootSignature {
        version,
        flags,
        parameters,
        static_samplers,
    })
}

/// Reads a (count, offset) pair; returns the table (at the chunk end when the count is 0 and the
/// offset points nowhere), the count field's offset and the count.
fn counted_table<'a>(r: &mut Reader<'a>, whole: &Reader<'a>) -> Result<(Reader<'a>, u32, u32)> {
    let count_at = r.offset();
    let count = r.read_u32()?;
    let table = if count == 0 {
        r.read_u32()?;
        whole.at(whole.data().len() as u32)?
    } else {
        r.table_ref(whole)?
    };
    Ok((table, count_at, count))
}

/// `e`, reported at `offset`.
fn at(e: DecodeError, offset: u32) -> DecodeError {
    e.at(offset)
}

fn parse_parameter<'a>(
    p: &mut Reader<'a>,
    whole: &Reader<'a>,
    version: Version,
    ranges_left: &mut usize,
) -> Result<RootParameter> {
    let offset = p.offset();
    let raw_type = p.read_u32()?;
    let visibility = ShaderVisibility::from_raw(p.read_u32()?);
    let mut body = p.table_ref(whole)?;
    let payload = body.offset();
    let kind = match raw_type {
        0 => {
            let (mut ranges, count_at, count) = counted_table(&mut body, whole)?;
            let n = ranges
                .check_count("descriptor ranges", count, version.range_size())
                .map_err(|e| at(e, count_at))?;
            if n > *ranges_left {
                return Err(DecodeError::new(
                    count_at,
                    DecodeErrorKind::LimitExceeded {
                        what: "descriptor ranges in all tables",
                        value: count as u64,
                        limit: *ranges_left as u64,
                    },
                ));
            }
            *ranges_left -= n;
            let mut list = Vec::with_capacity(n);
            for _ in 0..n {
                list.push(parse_range(&mut ranges, version)?);
            }
            ParameterKind::DescriptorTable(DescriptorTable {
                offset: payload,
                ranges: list,
            })
        }
        1 => ParameterKind::Constants(RootConstants {
            offset: payload,
            register: body.read_u32()?,
            space: body.read_u32()?,
            count: body.read_u32()?,
        }),
        2..=4 => {
            let d = RootDescriptor {
                offset: payload,
                register: body.read_u32()?,
                space: body.read_u32()?,
                flags: if version.has_descriptor_flags() {
                    Some(RootDescriptorFlags(body.read_u32()?))
                } else {
                    None
                },
            };
            match raw_type {
                2 => ParameterKind::Cbv(d),
                3 => ParameterKind::Srv(d),
                _ => ParameterKind::Uav(d),
            }
        }
        other => {
            return Err(DecodeError::new(
                offset,
                DecodeErrorKind::InvalidValue {
                    what: "root parameter type",
                    value: other,
                },
            ))
        }
    };
    Ok(RootParameter {
        offset,
        visibility,
        kind,
    })
}

fn parse_range(r: &mut Reader<'_>, version: Version) -> Result<DescriptorRange> {
    let offset = r.offset();
    let range_type = RangeType::from_raw(r.read_u32()?);
    let count = r.read_u32()?;
    let base_register = r.read_u32()?;
    let space = r.read_u32()?;
    let flags = if version.has_descriptor_flags() {
        Some(DescriptorRangeFlags(r.read_u32()?))
    } else {
        None
    };
    let table_offset = r.read_u32()?;
    Ok(DescriptorRange {
        offset,
        range_type,
        count,
        base_register,
        space,
        flags,
        table_offset,
    })
}

fn parse_sampler(r: &mut Reader<'_>, version: Version) -> Result<StaticSampler> {
    Ok(StaticSampler {
        offset: r.offset(),
        filter: Filter(r.read_u32()?),
        address_u: AddressMode::from_raw(r.read_u32()?),
        address_v: AddressMode::from_raw(r.read_u32()?),
        address_w: AddressMode::from_raw(r.read_u32()?),
        mip_lod_bias: r.read_f32()?,
        max_anisotropy: r.read_u32()?,
        comparison_func: ComparisonFunc::from_raw(r.read_u32()?),
        border_color: BorderColor::from_raw(r.read_u32()?),
        min_lod: r.read_f32()?,
        max_lod: r.read_f32()?,
        register: r.read_u32()?,
        space: r.read_u32()?,
        visibility: ShaderVisibility::from_raw(r.read_u32()?),
        flags: if version == Version::V1_2 {
            Some(SamplerFlags(r.read_u32()?))
        } else {
            None
        },
    })
}

raw_enum! {
    names: d3d12_name, "The D3D12 name without its prefix, if the value is known.";
    /// The stages that see a parameter or static sampler (`D3D12_SHADER_VISIBILITY`).
    ShaderVisibility {
        /// Every stage.
        All = 0 => "ALL",
        /// Vertex shaders.
        Vertex = 1 => "VERTEX",
        /// Hull shaders.
        Hull = 2 => "HULL",
        /// Domain shaders.
        Domain = 3 => "DOMAIN",
        /// Geometry shaders.
        Geometry = 4 => "GEOMETRY",
        /// Pixel shaders.
        Pixel = 5 => "PIXEL",
        /// Amplification shaders (SM6).
        Amplification = 6 => "AMPLIFICATION",
        /// Mesh shaders (SM6).
        Mesh = 7 => "MESH",
    }
}

impl ShaderVisibility {
    /// `all`, `vs`, `hs`, `ds`, `gs`, `ps`, `as`, `ms`, or `None` for an unknown value.
    pub fn short_name(self) -> Option<&'static str> {
        Some(match self {
            Self::All => "all",
            Self::Vertex => "vs",
            Self::Hull => "hs",
            Self::Domain => "ds",
            Self::Geometry => "gs",
            Self::Pixel => "ps",
            Self::Amplification => "as",
            Self::Mesh => "ms",
            Self::Unknown(_) => return None,
        })
    }
}

raw_enum! {
    names: d3d12_name, "The D3D12 name without its prefix, if the value is known.";
    /// The descriptors of a range (`D3D12_DESCRIPTOR_RANGE_TYPE`).
    RangeType {
        /// Shader-resource views (`t` registers).
        Srv = 0 => "SRV",
        /// Unordered-access views (`u` registers).
        Uav = 1 => "UAV",
        /// Constant-buffer views (`b` registers).
        Cbv = 2 => "CBV",
        /// Samplers (`s` registers).
        Sampler = 3 => "SAMPLER",
    }
}

impl RangeType {
    /// The HLSL register letter: `t`, `u`, `b`, `s`; `None` for an unknown value.
    pub fn register_letter(self) -> Option<char> {
        match self {
            Self::Srv => Some('t'),
            Self::Uav => Some('u'),
            Self::Cbv => Some('b'),
            Self::Sampler => Some('s'),
            Self::Unknown(_) => None,
        }
    }
}

raw_enum! {
    names: d3d12_name, "The D3D12 name without its prefix, if the value is known.";
    /// Texture addressing (`D3D12_TEXTURE_ADDRESS_MODE`).
    AddressMode {
        /// Repeat.
        Wrap = 1 => "WRAP",
        /// Mirror at every integer.
        Mirror = 2 => "MIRROR",
        /// Clamp to the edge texel.
        Clamp = 3 => "CLAMP",
        /// Use the border colour.
        Border = 4 => "BORDER",
        /// Mirror once, then clamp.
        MirrorOnce = 5 => "MIRROR_ONCE",
    }
}

raw_enum! {
    names: d3d12_name, "The D3D12 name without its prefix, if the value is known.";
    /// Depth-comparison function (`D3D12_COMPARISON_FUNC`).
    ComparisonFunc {
        /// No comparison (newer SDKs only).
        None = 0 => "NONE",
        /// Never passes.
        Never = 1 => "NEVER",
        /// `<`.
        Less = 2 => "LESS",
        /// `==`.
        Equal = 3 => "EQUAL",
        /// `<=`.
        LessEqual = 4 => "LESS_EQUAL",
        /// `>`.
        Greater = 5 => "GREATER",
        /// `!=`.
        NotEqual = 6 => "NOT_EQUAL",
        /// `>=`.
        GreaterEqual = 7 => "GREATER_EQUAL",
        /// Always passes.
        Always = 8 => "ALWAYS",
    }
}

raw_enum! {
    names: d3d12_name, "The D3D12 name without its prefix, if the value is known.";
    /// Border colour of a static sampler (`D3D12_STATIC_BORDER_COLOR`).
    BorderColor {
        /// (0, 0, 0, 0).
        TransparentBlack = 0 => "TRANSPARENT_BLACK",
        /// (0, 0, 0, 1).
        OpaqueBlack = 1 => "OPAQUE_BLACK",
        /// (1, 1, 1, 1).
        OpaqueWhite = 2 => "OPAQUE_WHITE",
        /// Integer (0, 0, 0, 1).
        OpaqueBlackUint = 3 => "OPAQUE_BLACK_UINT",
        /// Integer (1, 1, 1, 1).
        OpaqueWhiteUint = 4 => "OPAQUE_WHITE_UINT",
    }
}

/// A `D3D12_FILTER` value: point/linear choices for min, mag and mip in bits 4–5, 2–3 and 0–1,
/// anisotropy in bit 6 and the reduction (standard, comparison, minimum, maximum) in bits 7–8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Filter(pub u32);

impl Filter {
    const ANISOTROPIC: u32 = 0x40;
    const KNOWN_BITS: u32 = 0x1d5;

    /// True when minification filters linearly.
    pub fn min_linear(self) -> bool {
        self.0 >> 4 & 3 == 1
    }

    /// True when magnification filters linearly.
    pub fn mag_linear(self) -> bool {
        self.0 >> 2 & 3 == 1
    }

    /// True when mip levels are blended linearly.
    pub fn mip_linear(self) -> bool {
        self.0 & 3 == 1
    }

    /// True for anisotropic filters.
    pub fn anisotropic(self) -> bool {
        self.0 & Self::ANISOTROPIC != 0
    }

    /// The reduction: 0 standard, 1 comparison, 2 minimum, 3 maximum.
    pub fn reduction(self) -> u32 {
        self.0 >> 7 & 3
    }

    /// The D3D12 name without `D3D12_FILTER_` (`MIN_MAG_MIP_LINEAR`, `COMPARISON_ANISOTROPIC`,
    /// ...), or `None` for a value D3D12 does not define.
    pub fn d3d12_name(self) -> Option<String> {
        let v = self.0;
        let field_ok = |shift: u32| v >> shift & 3 <= 1;
        if v & !Self::KNOWN_BITS != 0 || !field_ok(0) || !field_ok(2) || !field_ok(4) {
            return None;
        }
        let prefix = ["", "COMPARISON_", "MINIMUM_", "MAXIMUM_"][(self.reduction() & 3) as usize];
        let kind = |linear: bool| if linear { "LINEAR" } else { "POINT" };
        let (min, mag, mip) = (self.min_linear(), self.mag_linear(), self.mip_linear());
        let body = if self.anisotropic() {
            match (min, mag, mip) {
                (true, true, true) => "ANISOTROPIC".to_string(),
                (true, true, false) => "MIN_MAG_ANISOTROPIC_MIP_POINT".to_string(),
                _ => return None,
            }
        } else if min == mag && mag == mip {
            format!("MIN_MAG_MIP_{}", kind(min))
        } else if min == mag {
            format!("MIN_MAG_{}_MIP_{}", kind(min), kind(mip))
        } else if mag == mip {
            format!("MIN_{}_MAG_MIP_{}", kind(min), kind(mag))
        } else {
            format!("MIN_{}_MAG_{}_MIP_{}", kind(min), kind(mag), kind(mip))
        };
        Some(format!("{prefix}{body}"))
    }
}

/// Defines a `u32` flag set with its D3D12 names.
macro_rules! d3d12_flags {
    ($(#[$meta:meta])* $name:ident, $table:ident { $( $bit:literal => $d3d:literal, )* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name(pub u32);

        /// Each known bit and its D3D12 name (without the type's prefix).
        pub const $table: &[(u32, &str)] = &[ $( ($bit, $d3d), )* ];

        impl $name {
            /// True when every bit of `flag` is set.
            pub fn contains(self, flag: u32) -> bool {
                self.0 & flag == flag
            }

            /// The D3D12 names of the set bits, in bit order (unknown bits are not listed).
            pub fn names(self) -> impl Iterator<Item = &'static str> {
                $table
                    .iter()
                    .filter(move |(bit, _)| self.0 & bit != 0)
                    .map(|(_, name)| *name)
            }

            /// The set bits this crate has no name for.
            pub fn unknown_bits(self) -> u32 {
                self.0 & !$table.iter().fold(0, |acc, (bit, _)| acc | bit)
            }
        }
    };
}

d3d12_flags! {
    /// `D3D12_ROOT_SIGNATURE_FLAGS`.
    RootSignatureFlags, ROOT_SIGNATURE_FLAGS {
        0x1 => "ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT",
        0x2 => "DENY_VERTEX_SHADER_ROOT_ACCESS",
        0x4 => "DENY_HULL_SHADER_ROOT_ACCESS",
        0x8 => "DENY_DOMAIN_SHADER_ROOT_ACCESS",
        0x10 => "DENY_GEOMETRY_SHADER_ROOT_ACCESS",
        0x20 => "DENY_PIXEL_SHADER_ROOT_ACCESS",
        0x40 => "ALLOW_STREAM_OUTPUT",
        0x80 => "LOCAL_ROOT_SIGNATURE",
        0x100 => "DENY_AMPLIFICATION_SHADER_ROOT_ACCESS",
        0x200 => "DENY_MESH_SHADER_ROOT_ACCESS",
        0x400 => "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED",
        0x800 => "SAMPLER_HEAP_DIRECTLY_INDEXED",
    }
}

d3d12_flags! {
    /// `D3D12_DESCRIPTOR_RANGE_FLAGS` (1.1 and later).
    DescriptorRangeFlags, DESCRIPTOR_RANGE_FLAGS {
        0x1 => "DESCRIPTORS_VOLATILE",
        0x2 => "DATA_VOLATILE",
        0x4 => "DATA_STATIC_WHILE_SET_AT_EXECUTE",
        0x8 => "DATA_STATIC",
        0x10000 => "DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS",
    }
}

d3d12_flags! {
    /// `D3D12_ROOT_DESCRIPTOR_FLAGS` (1.1 and later).
    RootDescriptorFlags, ROOT_DESCRIPTOR_FLAGS {
        0x2 => "DATA_VOLATILE",
        0x4 => "DATA_STATIC_WHILE_SET_AT_EXECUTE",
        0x8 => "DATA_STATIC",
    }
}

d3d12_flags! {
    /// `D3D12_SAMPLER_FLAGS` of a static sampler (1.2).
    SamplerFlags, SAMPLER_FLAGS {
        0x1 => "UINT_BORDER_COLOR",
        0x2 => "NON_NORMALIZED_COORDINATES",
    }
}

#[cfg(test)]
mod tests;
