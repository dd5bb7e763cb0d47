//! Typed views of the enumerated fields of declarations (resource dimensions, return types,
//! sampler modes, interpolation modes, system-value names, GS primitives and topologies,
//! tessellator modes), and the flag sets of `dcl_globalFlags` and UAV declarations.
//!
//! Every enumeration keeps values it does not know as `Unknown(raw)`, so reflection never fails
//! on a field value; spellings come from the name tables in [`crate::front::dxbc::names`] (fxc's), so a
//! spelling is defined once.

use std::fmt;

use crate::front::dxbc::names;

/// Defines a `u32`-backed enumeration with an `Unknown(u32)` fallback whose spellings are looked
/// up in one of the tables of [`crate::front::dxbc::names`].
macro_rules! token_enum {
    (
        $(#[$meta:meta])* $name:ident: $table:expr;
        $( $(#[$vmeta:meta])* $variant:ident = $value:literal, )*
    ) => {
        $crate::front::dxbc::raw_enum::raw_enum_base! {
            $(#[$meta])* $name {
                $( $(#[$vmeta])* $variant = $value, )*
            }
        }

        impl $name {
            /// fxc's spelling, if the value is known.
            pub fn name(self) -> Option<&'static str> {
                match self {
                    Self::Unknown(_) => None,
                    known => names::lookup($table, known.raw()),
                }
            }
        }

        impl fmt::Display for $name {
            /// fxc's spelling, or `unknown(N)`.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, "unknown({})", self.raw()),
                }
            }
        }
    };
}

token_enum! {
    /// Dimension of a typed SRV or UAV (`D3D10_SB_RESOURCE_DIMENSION`).
    ResourceDimension: names::RESOURCE_DIMENSIONS;
    /// Not given.
    Unspecified = 0,
    /// `buffer` (typed buffer).
    Buffer = 1,
    /// `texture1d`.
    Texture1D = 2,
    /// `texture2d`.
    Texture2D = 3,
    /// `texture2dms`.
    Texture2DMs = 4,
    /// `texture3d`.
    Texture3D = 5,
    /// `texturecube`.
    TextureCube = 6,
    /// `texture1darray`.
    Texture1DArray = 7,
    /// `texture2darray`.
    Texture2DArray = 8,
    /// `texture2dmsarray`.
    Texture2DMsArray = 9,
    /// `texturecubearray`.
    TextureCubeArray = 10,
    /// `raw_buffer` (only in extended opcode tokens).
    RawBuffer = 11,
    /// `structured_buffer` (only in extended opcode tokens).
    StructuredBuffer = 12,
}

impl ResourceDimension {
    /// True for the multisampled dimensions, whose declarations carry a sample count.
    pub fn is_multisampled(self) -> bool {
        matches!(self, Self::Texture2DMs | Self::Texture2DMsArray)
    }
}

token_enum! {
    /// Component type a typed resource returns (`D3D10_SB_RESOURCE_RETURN_TYPE`).
    ReturnType: names::RETURN_TYPES;
    /// `unorm`.
    Unorm = 1,
    /// `snorm`.
    Snorm = 2,
    /// `sint`.
    Sint = 3,
    /// `uint`.
    Uint = 4,
    /// `float`.
    Float = 5,
    /// `mixed` (tbuffers).
    Mixed = 6,
    /// `double`.
    Double = 7,
    /// `continued` (second half of a double).
    Continued = 8,
    /// `unused`.
    Unused = 9,
}

impl ReturnType {
    /// The four per-component return types of a packed return-type token (4 bits each, x
    /// lowest).
    pub fn unpack(packed: u32) -> [ReturnType; 4] {
        [0, 1, 2, 3].map(|i| ReturnType::from_raw((packed >> (4 * i)) & 0xf))
    }
}

token_enum! {
    /// Sampler mode of `dcl_sampler` (`D3D10_SB_SAMPLER_MODE`).
    SamplerMode: names::SAMPLER_MODES;
    /// `mode_default`.
    Default = 0,
    /// `mode_comparison`.
    Comparison = 1,
    /// `mode_mono`.
    Mono = 2,
}

token_enum! {
    /// Pixel-shader input interpolation mode (`D3D10_SB_INTERPOLATION_MODE`).
    Interpolation: names::INTERPOLATION_MODES;
    /// `constant`.
    Constant = 1,
    /// `linear`.
    Linear = 2,
    /// `linear centroid`.
    LinearCentroid = 3,
    /// `linear noperspective`.
    LinearNoPerspective = 4,
    /// `linear noperspective centroid`.
    LinearNoPerspectiveCentroid = 5,
    /// `linear sample`.
    LinearSample = 6,
    /// `linear noperspective sample`.
    LinearNoPerspectiveSample = 7,
}

token_enum! {
    /// The system-value name token of a `_siv`/`_sgv` declaration (`D3D10_SB_NAME`). Numbered
    /// differently from a signature's [`crate::front::dxbc::signature::SystemValue`] (`D3D_NAME`).
    SystemName: names::SYSTEM_VALUES;
    /// `undefined`.
    Undefined = 0,
    /// `position`.
    Position = 1,
    /// `clip_distance`.
    ClipDistance = 2,
    /// `cull_distance`.
    CullDistance = 3,
    /// `rendertarget_array_index`.
    RenderTargetArrayIndex = 4,
    /// `viewport_array_index`.
    ViewportArrayIndex = 5,
    /// `vertex_id`.
    VertexId = 6,
    /// `primitive_id`.
    PrimitiveId = 7,
    /// `instance_id`.
    InstanceId = 8,
    /// `is_front_face`.
    IsFrontFace = 9,
    /// `sampleIndex`.
    SampleIndex = 10,
    /// `finalQuadUeq0EdgeTessFactor`.
    QuadUEq0EdgeTessFactor = 11,
    /// `finalQuadVeq0EdgeTessFactor`.
    QuadVEq0EdgeTessFactor = 12,
    /// `finalQuadUeq1EdgeTessFactor`.
    QuadUEq1EdgeTessFactor = 13,
    /// `finalQuadVeq1EdgeTessFactor`.
    QuadVEq1EdgeTessFactor = 14,
    /// `finalQuadUInsideTessFactor`.
    QuadUInsideTessFactor = 15,
    /// `finalQuadVInsideTessFactor`.
    QuadVInsideTessFactor = 16,
    /// `finalTriUeq0EdgeTessFactor`.
    TriUEq0EdgeTessFactor = 17,
    /// `finalTriVeq0EdgeTessFactor`.
    TriVEq0EdgeTessFactor = 18,
    /// `finalTriWeq0EdgeTessFactor`.
    TriWEq0EdgeTessFactor = 19,
    /// `finalTriInsideTessFactor`.
    TriInsideTessFactor = 20,
    /// `finalLineDetailTessFactor`.
    LineDetailTessFactor = 21,
    /// `finalLineDensityTessFactor`.
    LineDensityTessFactor = 22,
}

impl SystemName {
    /// True for the tessellation factors (values 11–22).
    pub fn is_tess_factor(self) -> bool {
        (11..=22).contains(&self.raw())
    }
}

token_enum! {
    /// Geometry-shader output topology (`D3D10_SB_PRIMITIVE_TOPOLOGY`).
    OutputTopology: names::OUTPUT_TOPOLOGIES;
    /// `pointlist`.
    PointList = 1,
    /// `linelist`.
    LineList = 2,
    /// `linestrip`.
    LineStrip = 3,
    /// `trianglelist`.
    TriangleList = 4,
    /// `trianglestrip`.
    TriangleStrip = 5,
    /// `linelistadj`.
    LineListAdj = 10,
    /// `linestripadj`.
    LineStripAdj = 11,
    /// `trianglelistadj`.
    TriangleListAdj = 12,
    /// `trianglestripadj`.
    TriangleStripAdj = 13,
}

token_enum! {
    /// Tessellator domain (`D3D11_SB_TESSELLATOR_DOMAIN`).
    TessDomain: names::TESS_DOMAINS;
    /// `domain_isoline`.
    Isoline = 1,
    /// `domain_tri`.
    Triangle = 2,
    /// `domain_quad`.
    Quad = 3,
}

token_enum! {
    /// Tessellator partitioning (`D3D11_SB_TESSELLATOR_PARTITIONING`).
    TessPartitioning: names::TESS_PARTITIONINGS;
    /// `partitioning_integer`.
    Integer = 1,
    /// `partitioning_pow2`.
    Pow2 = 2,
    /// `partitioning_fractional_odd`.
    FractionalOdd = 3,
    /// `partitioning_fractional_even`.
    FractionalEven = 4,
}

token_enum! {
    /// Tessellator output primitive (`D3D11_SB_TESSELLATOR_OUTPUT_PRIMITIVE`).
    TessOutputPrimitive: names::TESS_OUTPUT_PRIMITIVES;
    /// `output_point`.
    Point = 1,
    /// `output_line`.
    Line = 2,
    /// `output_triangle_cw`.
    TriangleCw = 3,
    /// `output_triangle_ccw`.
    TriangleCcw = 4,
}

/// Geometry-shader input primitive (`D3D10_SB_PRIMITIVE`), including the patch primitives a
/// geometry shader may read after tessellation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputPrimitive {
    /// `point`.
    Point,
    /// `line`.
    Line,
    /// `triangle`.
    Triangle,
    /// `lineadj`.
    LineAdj,
    /// `triadj`.
    TriangleAdj,
    /// `patchN`: a patch of N (1–32) control points.
    Patch(u32),
    /// A value this crate does not know, kept as found.
    Unknown(u32),
}

impl InputPrimitive {
    /// The primitive for the raw token field.
    pub fn from_raw(value: u32) -> Self {
        match value {
            1 => Self::Point,
            2 => Self::Line,
            3 => Self::Triangle,
            6 => Self::LineAdj,
            7 => Self::TriangleAdj,
            8..=39 => Self::Patch(value - 7),
            other => Self::Unknown(other),
        }
    }

    /// The raw token field.
    pub fn raw(self) -> u32 {
        match self {
            Self::Point => 1,
            Self::Line => 2,
            Self::Triangle => 3,
            Self::LineAdj => 6,
            Self::TriangleAdj => 7,
            Self::Patch(n) => n + 7,
            Self::Unknown(other) => other,
        }
    }

    /// Vertices per input primitive (1, 2, 3, 4, 6 or N), if known.
    pub fn vertex_count(self) -> Option<u32> {
        Some(match self {
            Self::Point => 1,
            Self::Line => 2,
            Self::Triangle => 3,
            Self::LineAdj => 4,
            Self::TriangleAdj => 6,
            Self::Patch(n) => n,
            Self::Unknown(_) => return None,
        })
    }
}

impl fmt::Display for InputPrimitive {
    /// fxc's spelling (`triangle`, `patch3`), or `unknown(N)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Patch(n) => write!(f, "patch{n}"),
            Self::Unknown(v) => write!(f, "unknown({v})"),
            known => match names::lookup(names::INPUT_PRIMITIVES, known.raw()) {
                Some(name) => f.write_str(name),
                None => write!(f, "unknown({})", known.raw()),
            },
        }
    }
}

/// The flags of `dcl_globalFlags`, as the bits of its opcode token (bit 11 = refactoring allowed,
/// as in `D3D10_SB_GLOBAL_FLAG_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GlobalFlags(pub u32);

impl GlobalFlags {
    /// The flags of a `dcl_globalFlags` opcode token (its bits 11–23; the others are the
    /// opcode and length).
    pub fn from_token(token: u32) -> Self {
        Self(token & 0x00ff_f800)
    }

    /// `refactoringAllowed` (bit 11).
    pub fn refactoring_allowed(self) -> bool {
        self.0 & (1 << 11) != 0
    }

    /// `enableRawAndStructuredBuffers` (bit 14).
    pub fn raw_and_structured_buffers(self) -> bool {
        self.0 & (1 << 14) != 0
    }

    /// `enableMinimumPrecision` (bit 16).
    pub fn minimum_precision(self) -> bool {
        self.0 & (1 << 16) != 0
    }

    /// `enable11_1DoubleExtensions` (bit 17).
    pub fn double_extensions_11_1(self) -> bool {
        self.0 & (1 << 17) != 0
    }

    /// `enable11_1ShaderExtensions` (bit 18).
    pub fn shader_extensions_11_1(self) -> bool {
        self.0 & (1 << 18) != 0
    }

    /// `forceEarlyDepthStencil` (bit 13).
    pub fn force_early_depth_stencil(self) -> bool {
        self.0 & (1 << 13) != 0
    }

    /// `enableDoublePrecisionFloatOps` (bit 12).
    pub fn double_precision(self) -> bool {
        self.0 & (1 << 12) != 0
    }

    /// `skipOptimization` (bit 15).
    pub fn skip_optimization(self) -> bool {
        self.0 & (1 << 15) != 0
    }

    /// `allResourcesBound` (bit 19).
    pub fn all_resources_bound(self) -> bool {
        self.0 & (1 << 19) != 0
    }

    /// fxc's names of the flags that are set, in the order fxc prints them.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        names::GLOBAL_FLAGS
            .iter()
            .filter(move |(bit, _)| self.0 & (1 << bit) != 0)
            .map(|(_, name)| *name)
    }

    /// Set bits that have no name.
    pub fn unknown_bits(self) -> u32 {
        let known = names::GLOBAL_FLAGS
            .iter()
            .fold(0u32, |acc, (bit, _)| acc | (1 << bit));
        self.0 & !known
    }
}

/// The flags of a UAV declaration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UavFlags {
    /// `_glc`: globally coherent.
    pub globally_coherent: bool,
    /// `_rov`: rasterizer ordered.
    pub rasterizer_ordered: bool,
    /// `_opc`: a structured UAV with a hidden counter (append/consume, `IncrementCounter`).
    pub counter: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_come_from_the_name_tables() {
        for &(value, name) in names::RESOURCE_DIMENSIONS {
            assert_eq!(ResourceDimension::from_raw(value).name(), Some(name));
        }
        for &(value, name) in names::SYSTEM_VALUES {
            assert_eq!(SystemName::from_raw(value).to_string(), name);
        }
        for &(value, name) in names::INTERPOLATION_MODES {
            assert_eq!(Interpolation::from_raw(value).name(), Some(name));
        }
        for &(value, name) in names::OUTPUT_TOPOLOGIES {
            assert_eq!(OutputTopology::from_raw(value).name(), Some(name));
        }
        for &(value, name) in names::INPUT_PRIMITIVES {
            assert_eq!(InputPrimitive::from_raw(value).to_string(), name);
        }
        assert_eq!(InputPrimitive::from_raw(10).to_string(), "patch3");
        assert_eq!(InputPrimitive::Patch(3).raw(), 10);
        assert_eq!(ReturnType::from_raw(0).to_string(), "unknown(0)");
        assert_eq!(
            TessPartitioning::from_raw(3),
            TessPartitioning::FractionalOdd
        );
        let flags = GlobalFlags((1 << 11) | (1 << 13) | (1 << 23));
        assert_eq!(
            flags.names().collect::<Vec<_>>(),
            ["refactoringAllowed", "forceEarlyDepthStencil"]
        );
        assert!(flags.force_early_depth_stencil());
        assert_eq!(flags.unknown_bits(), 1 << 23);
    }
}
