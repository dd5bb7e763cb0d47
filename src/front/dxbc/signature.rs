//! Input, output and patch-constant signatures (`ISGN`/`OSGN`/`PCSG`, `OSG5`, `ISG1`/`OSG1`/`PSG1`).
//!
//! Contract: [`Signature::parse`] reads a signature chunk into a list of [`Element`]s whose names
//! are borrowed from the chunk. The element layout is chosen by the chunk's code: 24 bytes
//! (`ISGN`, `OSGN`, `PCSG`), 28 bytes with a leading stream index (`OSG5`), or 32 bytes with a
//! stream index and a minimum precision (`ISG1`, `OSG1`, `PSG1`). The element count is checked
//! against the chunk size before allocating; names must be nul-terminated inside the chunk.
//! Field values are kept as found; unknown enumeration values are preserved, never an error.

use super::container::{Chunk, FourCc};
use super::error::{DecodeErrorKind, Result};
use super::raw_enum::raw_enum;

/// A parsed signature: its elements in chunk order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature<'a> {
    /// The chunk the signature came from (decides which fields are meaningful).
    pub fourcc: FourCc,
    /// The elements, in chunk order (fxc sorts them by register).
    pub elements: Vec<Element<'a>>,
}

/// One signature element: a semantic bound to (part of) a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element<'a> {
    /// Geometry-shader output stream (0 where the layout has no stream field).
    pub stream: u32,
    /// Semantic name, as written in the source (`SV_Position`, `TEXCOORD`, ...).
    pub name: &'a str,
    /// Semantic index.
    pub semantic_index: u32,
    /// System value (`D3D_NAME`).
    pub system_value: SystemValue,
    /// Component type (`D3D_REGISTER_COMPONENT_TYPE`).
    pub component_type: ComponentType,
    /// Register number; `0xffffffff` for outputs without a register (`oDepth`, `oMask`, ...).
    pub register: u32,
    /// Components the element occupies (bit 0 = x).
    pub mask: u8,
    /// For inputs: components the shader reads. For outputs: components the shader NEVER
    /// writes (fxc's "Used" column for outputs prints `mask & !rw_mask`).
    pub rw_mask: u8,
    /// Minimum precision (`D3D_MIN_PRECISION`); `Default` where the layout has no such field.
    pub min_precision: MinPrecision,
}

/// The per-element layout of a signature chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `ISGN`, `OSGN`, `PCSG`: 24-byte elements.
    Basic,
    /// `OSG5`: a stream index, then the basic fields (28 bytes).
    Stream,
    /// `ISG1`, `OSG1`, `PSG1`: stream, basic fields, minimum precision (32 bytes).
    Full,
}

impl Layout {
    /// The layout of chunks with code `fourcc`, if it is a signature chunk.
    pub fn of(fourcc: FourCc) -> Option<Self> {
        match &fourcc.0 {
            b"ISGN" | b"OSGN" | b"PCSG" => Some(Self::Basic),
            b"OSG5" => Some(Self::Stream),
            b"ISG1" | b"OSG1" | b"PSG1" => Some(Self::Full),
            _ => None,
        }
    }

    /// Bytes per element.
    pub fn element_size(self) -> usize {
        match self {
            Self::Basic => 24,
            Self::Stream => 28,
            Self::Full => 32,
        }
    }
}

impl<'a> Signature<'a> {
    /// Parses a signature chunk; the chunk's code selects the element layout.
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self> {
        let name = chunk.fourcc.known_name().unwrap_or("signature");
        Self::parse_inner(chunk).map_err(|e| e.with_context(name))
    }

    fn parse_inner(chunk: &Chunk<'a>) -> Result<Self> {
        let mut r = chunk.reader();
        let layout = Layout::of(chunk.fourcc)
            .ok_or_else(|| r.error(DecodeErrorKind::Malformed("not a signature chunk")))?;
        let count = r.read_u32()?;
        let table = r;
        let mut e = r.table_ref(&table)?;
        let count = e.check_count("signature elements", count, layout.element_size())?;
        let mut elements = Vec::with_capacity(count);
        for _ in 0..count {
            let stream = match layout {
                Layout::Basic => 0,
                Layout::Stream | Layout::Full => e.read_u32()?,
            };
            let name = e.string_ref(&r)?;
            let semantic_index = e.read_u32()?;
            let system_value = SystemValue::from_raw(e.read_u32()?);
            let component_type = ComponentType::from_raw(e.read_u32()?);
            let register = e.read_u32()?;
            let mask = e.read_u8()?;
            let rw_mask = e.read_u8()?;
            e.skip(2)?;
            let min_precision = match layout {
                Layout::Full => MinPrecision::from_raw(e.read_u32()?),
                Layout::Basic | Layout::Stream => MinPrecision::Default,
            };
            elements.push(Element {
                stream,
                name,
                semantic_index,
                system_value,
                component_type,
                register,
                mask,
                rw_mask,
                min_precision,
            });
        }
        Ok(Self {
            fourcc: chunk.fourcc,
            elements,
        })
    }
}

raw_enum! {
    names: fxc_name, "The short name fxc prints in its listings, if the value is known.";
    /// A signature element's system value (`D3D_NAME`); fxc prints the short names in the
    /// `SysValue` column.
    SystemValue {
        /// Not a system value.
        Undefined = 0 => "NONE",
        /// `SV_Position`.
        Position = 1 => "POS",
        /// `SV_ClipDistance`.
        ClipDistance = 2 => "CLIPDST",
        /// `SV_CullDistance`.
        CullDistance = 3 => "CULLDST",
        /// `SV_RenderTargetArrayIndex`.
        RenderTargetArrayIndex = 4 => "RTINDEX",
        /// `SV_ViewportArrayIndex`.
        ViewportArrayIndex = 5 => "VPINDEX",
        /// `SV_VertexID`.
        VertexId = 6 => "VERTID",
        /// `SV_PrimitiveID`.
        PrimitiveId = 7 => "PRIMID",
        /// `SV_InstanceID`.
        InstanceId = 8 => "INSTID",
        /// `SV_IsFrontFace`.
        IsFrontFace = 9 => "FFACE",
        /// `SV_SampleIndex`.
        SampleIndex = 10 => "SAMPLE",
        /// Quad edge tessellation factor.
        FinalQuadEdgeTessFactor = 11 => "QUADEDGE",
        /// Quad inside tessellation factor.
        FinalQuadInsideTessFactor = 12 => "QUADINT",
        /// Triangle edge tessellation factor.
        FinalTriEdgeTessFactor = 13 => "TRIEDGE",
        /// Triangle inside tessellation factor.
        FinalTriInsideTessFactor = 14 => "TRIINT",
        /// Isoline detail tessellation factor.
        FinalLineDetailTessFactor = 15 => "LINEDET",
        /// Isoline density tessellation factor.
        FinalLineDensityTessFactor = 16 => "LINEDEN",
        /// `SV_Barycentrics` (SM6 only).
        Barycentrics = 23 => "BARYCEN",
        /// `SV_ShadingRate` (SM6 only).
        ShadingRate = 24 => "SHDINGRATE",
        /// `SV_CullPrimitive` (SM6 only).
        CullPrimitive = 25 => "CULLPRIM",
        /// `SV_Target`.
        Target = 64 => "TARGET",
        /// `SV_Depth`.
        Depth = 65 => "DEPTH",
        /// `SV_Coverage`.
        Coverage = 66 => "COVERAGE",
        /// `SV_DepthGreaterEqual`.
        DepthGreaterEqual = 67 => "DEPTHGE",
        /// `SV_DepthLessEqual`.
        DepthLessEqual = 68 => "DEPTHLE",
        /// `SV_StencilRef`.
        StencilRef = 69 => "STENCILREF",
        /// `SV_InnerCoverage`.
        InnerCoverage = 70 => "INNERCOV",
    }
}

raw_enum! {
    names: fxc_name, "The short name fxc prints in its listings, if the value is known.";
    /// A signature element's component type (`D3D_REGISTER_COMPONENT_TYPE`); fxc prints the
    /// names in the `Format` column.
    ComponentType {
        /// No type (system values such as `SV_Depth` in old compilers).
        Untyped = 0 => "unknown",
        /// 32-bit unsigned integer.
        Uint32 = 1 => "uint",
        /// 32-bit signed integer.
        Sint32 = 2 => "int",
        /// 32-bit float.
        Float32 = 3 => "float",
    }
}

raw_enum! {
    names: fxc_name, "The short name fxc prints in its listings, if the value is known.";
    /// A signature element's minimum precision (`D3D_MIN_PRECISION`); when not `Default`, fxc
    /// prints it in the `Format` column instead of the component type.
    MinPrecision {
        /// Full precision.
        Default = 0 => "",
        /// `min16float`.
        Float16 = 1 => "min16f",
        /// `min10float`.
        Float2_8 = 2 => "min2_8f",
        /// `min16int`.
        Sint16 = 4 => "min16i",
        /// `min16uint`.
        Uint16 = 5 => "min16u",
        /// Any 16-bit type.
        Any16 = 0xf0 => "any16",
        /// Any 10-bit type.
        Any10 = 0xf1 => "any10",
    }
}

impl Element<'_> {
    /// The system value as D3D's reflection reports it: the stored one, except that pixel-shader
    /// output semantics are stored as `Undefined` and recognised by name (`SV_Target` → `Target`,
    /// `SV_Depth` → `Depth`, `SV_DepthGreaterEqual`, `SV_DepthLessEqual`, `SV_Coverage`,
    /// `SV_StencilRef`; case-insensitive). fxc's listings print this value.
    pub fn effective_system_value(&self) -> SystemValue {
        if self.system_value != SystemValue::Undefined {
            return self.system_value;
        }
        const BY_NAME: [(&str, SystemValue); 6] = [
            ("SV_Target", SystemValue::Target),
            ("SV_Depth", SystemValue::Depth),
            ("SV_DepthGreaterEqual", SystemValue::DepthGreaterEqual),
            ("SV_DepthLessEqual", SystemValue::DepthLessEqual),
            ("SV_Coverage", SystemValue::Coverage),
            ("SV_StencilRef", SystemValue::StencilRef),
        ];
        BY_NAME
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(self.name))
            .map_or(SystemValue::Undefined, |(_, v)| *v)
    }

    /// True for outputs without a register (`oDepth`, `oDepthGE`, `oDepthLE`, `oMask`,
    /// `oStencilRef`): their register field is `0xffffffff`.
    pub fn has_no_register(&self) -> bool {
        self.register == u32::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk<'a>(fourcc: &[u8; 4], data: &'a [u8]) -> Chunk<'a> {
        Chunk {
            fourcc: FourCc(*fourcc),
            offset: 0x40,
            data,
        }
    }

    /// A one-element signature chunk of the given layout.
    fn one_element(layout: Layout) -> Vec<u8> {
        let size = layout.element_size();
        let name_offset = 8 + size as u32;
        let mut d = Vec::new();
        d.extend_from_slice(&1u32.to_le_bytes());
        d.extend_from_slice(&8u32.to_le_bytes());
        if layout != Layout::Basic {
            d.extend_from_slice(&2u32.to_le_bytes()); // stream
        }
        for v in [name_offset, 3, 1, 3, 5] {
            d.extend_from_slice(&u32::to_le_bytes(v));
        }
        d.extend_from_slice(&[0b1111, 0b0011, 0, 0]);
        if layout == Layout::Full {
            d.extend_from_slice(&1u32.to_le_bytes());
        }
        d.extend_from_slice(b"TEXCOORD\0");
        d
    }

    #[test]
    fn parses_each_layout() {
        for (fourcc, layout) in [
            (b"ISGN", Layout::Basic),
            (b"OSG5", Layout::Stream),
            (b"ISG1", Layout::Full),
        ] {
            let data = one_element(layout);
            let sig = Signature::parse(&chunk(fourcc, &data)).unwrap();
            let e = sig.elements[0];
            assert_eq!(e.name, "TEXCOORD");
            assert_eq!(e.semantic_index, 3);
            assert_eq!(e.system_value, SystemValue::Position);
            assert_eq!(e.component_type, ComponentType::Float32);
            assert_eq!((e.register, e.mask, e.rw_mask), (5, 0xf, 3));
            assert_eq!(e.stream, if layout == Layout::Basic { 0 } else { 2 });
            let min = if layout == Layout::Full {
                MinPrecision::Float16
            } else {
                MinPrecision::Default
            };
            assert_eq!(e.min_precision, min);
        }
    }

    #[test]
    fn unknown_values_are_kept() {
        assert_eq!(SystemValue::from_raw(99), SystemValue::Unknown(99));
        assert_eq!(SystemValue::from_raw(99).raw(), 99);
        assert_eq!(SystemValue::from_raw(66).fxc_name(), Some("COVERAGE"));
        assert_eq!(MinPrecision::from_raw(2).fxc_name(), Some("min2_8f"));
    }

    #[test]
    fn malformed_chunks_are_errors() {
        let data = one_element(Layout::Basic);
        // Not a signature chunk.
        assert!(Signature::parse(&chunk(b"RDEF", &data)).is_err());
        // Every truncation fails, with an offset inside the chunk.
        for len in 0..data.len() {
            let e = Signature::parse(&chunk(b"ISGN", &data[..len])).unwrap_err();
            assert!((0x40..=0x40 + data.len() as u32).contains(&e.offset));
        }
        // A huge count is refused before allocating.
        let mut huge = data.clone();
        huge[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = Signature::parse(&chunk(b"ISGN", &huge)).unwrap_err();
        assert!(matches!(e.kind, DecodeErrorKind::LimitExceeded { .. }));
        // A name offset outside the chunk.
        let mut bad = data.clone();
        bad[8..12].copy_from_slice(&1000u32.to_le_bytes());
        assert!(Signature::parse(&chunk(b"ISGN", &bad)).is_err());
    }
}
