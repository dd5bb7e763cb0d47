//! The stage-interface vocabulary of the IR: system values, interpolation modes, geometry-shader
//! primitives, the global flags, and the register limits the back end relies on.
//!
//! Contract: every value is named by its meaning; the front end converts its encoding into
//! these types and the back end matches on them. Each enumeration is one byte except
//! [`SystemValue`] (eight), which keeps a value no variant names as [`SystemValue::Unknown`]
//! so that a stage that rejects it can say which value it was.

use std::fmt;

/// Most `v#`/`o#` registers a stage has (D3D11's 32); signature elements past it have no
/// register (`oDepth`, `oMask`, ...).
pub const MAX_IO_REGISTERS: u32 = 32;

/// [`SystemValue::number`] of [`SystemValue::PointSize`] (no D3D10+ value has it).
const POINT_SIZE_NUMBER: u32 = 4096;

/// The system value of an input or output: what the register means to the pipeline.
///
/// Declarations name the tess factors one by one (`QuadUEq0EdgeTessFactor`, ...); signatures
/// name them by group (`QuadEdgeTessFactors`, ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SystemValue {
    /// No system value: a user register.
    #[default]
    None,
    /// `SV_Position`.
    Position,
    /// `SV_ClipDistance`.
    ClipDistance,
    /// `SV_CullDistance`.
    CullDistance,
    /// `SV_RenderTargetArrayIndex`.
    RenderTargetArrayIndex,
    /// `SV_ViewportArrayIndex`.
    ViewportArrayIndex,
    /// `SV_VertexID`.
    VertexId,
    /// `SV_PrimitiveID`.
    PrimitiveId,
    /// `SV_InstanceID`.
    InstanceId,
    /// `SV_IsFrontFace`.
    IsFrontFace,
    /// `SV_SampleIndex`.
    SampleIndex,
    /// Quad edge `u == 0` tess factor.
    QuadUEq0EdgeTessFactor,
    /// Quad edge `v == 0` tess factor.
    QuadVEq0EdgeTessFactor,
    /// Quad edge `u == 1` tess factor.
    QuadUEq1EdgeTessFactor,
    /// Quad edge `v == 1` tess factor.
    QuadVEq1EdgeTessFactor,
    /// Quad inside tess factor along `u`.
    QuadUInsideTessFactor,
    /// Quad inside tess factor along `v`.
    QuadVInsideTessFactor,
    /// Triangle edge `u == 0` tess factor.
    TriUEq0EdgeTessFactor,
    /// Triangle edge `v == 0` tess factor.
    TriVEq0EdgeTessFactor,
    /// Triangle edge `w == 0` tess factor.
    TriWEq0EdgeTessFactor,
    /// Triangle inside tess factor.
    TriInsideTessFactor,
    /// Isoline detail tess factor (subdivisions of each line).
    LineDetailTessFactor,
    /// Isoline density tess factor (number of lines).
    LineDensityTessFactor,
    /// A signature's quad edge tess factors (`SV_TessFactor` of a quad domain).
    QuadEdgeTessFactors,
    /// A signature's quad inside tess factors.
    QuadInsideTessFactors,
    /// A signature's triangle edge tess factors.
    TriEdgeTessFactors,
    /// A signature's triangle inside tess factor.
    TriInsideTessFactors,
    /// A signature's isoline detail tess factor.
    LineDetailTessFactors,
    /// A signature's isoline density tess factor.
    LineDensityTessFactors,
    /// `SV_Target`.
    Target,
    /// `SV_Depth`.
    Depth,
    /// `SV_Coverage`.
    Coverage,
    /// `SV_DepthGreaterEqual`.
    DepthGreaterEqual,
    /// `SV_DepthLessEqual`.
    DepthLessEqual,
    /// `SV_StencilRef`.
    StencilRef,
    /// `SV_InnerCoverage`.
    InnerCoverage,
    /// The point size a vertex shader writes (Direct3D 9 `oPts`, `PSIZE`); no D3D10+ number.
    PointSize,
    /// The position inside a point sprite, (0, 0) at its top left to (1, 1) (pixel-shader
    /// input, x and y); no D3D10+ number.
    PointCoord,
    /// A value no variant names, with D3D's number for it.
    Unknown(u32),
}

impl SystemValue {
    /// D3D's number for the value, which diagnostics print: the declaration token's numbering
    /// for what a declaration can name (tess factors 11–22), the signature's for the grouped
    /// tess factors (11–16) and the pixel-shader outputs (64–70); the values D3D10+ does not
    /// have (point size and coordinate) print as 4096 and 4097.
    pub fn number(self) -> u32 {
        use SystemValue as S;
        match self {
            S::None => 0,
            S::Position => 1,
            S::ClipDistance => 2,
            S::CullDistance => 3,
            S::RenderTargetArrayIndex => 4,
            S::ViewportArrayIndex => 5,
            S::VertexId => 6,
            S::PrimitiveId => 7,
            S::InstanceId => 8,
            S::IsFrontFace => 9,
            S::SampleIndex => 10,
            S::QuadUEq0EdgeTessFactor | S::QuadEdgeTessFactors => 11,
            S::QuadVEq0EdgeTessFactor | S::QuadInsideTessFactors => 12,
            S::QuadUEq1EdgeTessFactor | S::TriEdgeTessFactors => 13,
            S::QuadVEq1EdgeTessFactor | S::TriInsideTessFactors => 14,
            S::QuadUInsideTessFactor | S::LineDetailTessFactors => 15,
            S::QuadVInsideTessFactor | S::LineDensityTessFactors => 16,
            S::TriUEq0EdgeTessFactor => 17,
            S::TriVEq0EdgeTessFactor => 18,
            S::TriWEq0EdgeTessFactor => 19,
            S::TriInsideTessFactor => 20,
            S::LineDetailTessFactor => 21,
            S::LineDensityTessFactor => 22,
            S::Target => 64,
            S::Depth => 65,
            S::Coverage => 66,
            S::DepthGreaterEqual => 67,
            S::DepthLessEqual => 68,
            S::StencilRef => 69,
            S::InnerCoverage => 70,
            S::PointSize => POINT_SIZE_NUMBER,
            S::PointCoord => POINT_SIZE_NUMBER + 1,
            S::Unknown(n) => n,
        }
    }
}

impl fmt::Display for SystemValue {
    /// [`SystemValue::number`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// How a pixel-shader input is interpolated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Not given (inputs of other stages, or a mode this crate does not know): perspective,
    /// at the pixel centre, for float inputs.
    #[default]
    Undefined,
    /// Not interpolated: the provoking vertex's value.
    Constant,
    /// Perspective-correct.
    Linear,
    /// Perspective-correct, at a covered point (centroid).
    LinearCentroid,
    /// Linear in screen space.
    LinearNoPerspective,
    /// Linear in screen space, at a covered point.
    LinearNoPerspectiveCentroid,
    /// Perspective-correct, per sample.
    LinearSample,
    /// Linear in screen space, per sample.
    LinearNoPerspectiveSample,
}

impl Interpolation {
    /// Linear in screen space.
    pub fn no_perspective(self) -> bool {
        matches!(
            self,
            Self::LinearNoPerspective
                | Self::LinearNoPerspectiveCentroid
                | Self::LinearNoPerspectiveSample
        )
    }

    /// At a covered point of the pixel.
    pub fn centroid(self) -> bool {
        matches!(
            self,
            Self::LinearCentroid | Self::LinearNoPerspectiveCentroid
        )
    }

    /// Per sample.
    pub fn sample(self) -> bool {
        matches!(self, Self::LinearSample | Self::LinearNoPerspectiveSample)
    }
}

/// The primitive a geometry shader reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputPrimitive {
    /// One vertex.
    Point,
    /// Two vertices.
    Line,
    /// Three vertices.
    Triangle,
    /// A line with adjacency: four vertices.
    LineAdj,
    /// A triangle with adjacency: six vertices.
    TriangleAdj,
}

impl InputPrimitive {
    /// Vertices per primitive.
    pub fn vertices(self) -> u32 {
        match self {
            Self::Point => 1,
            Self::Line => 2,
            Self::Triangle => 3,
            Self::LineAdj => 4,
            Self::TriangleAdj => 6,
        }
    }
}

/// What a geometry shader emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputTopology {
    /// Points.
    PointList,
    /// Line strips.
    LineStrip,
    /// Triangle strips.
    TriangleStrip,
}

/// The program-wide flags of `dcl_globalFlags`, as a set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GlobalFlags(u16);

impl GlobalFlags {
    /// No flag.
    pub const NONE: Self = Self(0);
    /// The compiler may reorder floating-point operations.
    pub const REFACTORING_ALLOWED: Self = Self(1);
    /// The program uses double-precision operations.
    pub const DOUBLES: Self = Self(1 << 1);
    /// Depth and stencil tests run before the pixel shader.
    pub const EARLY_DEPTH_STENCIL: Self = Self(1 << 2);
    /// The program uses raw and structured buffers (on D3D10-class hardware).
    pub const RAW_AND_STRUCTURED_BUFFERS: Self = Self(1 << 3);
    /// Compiled without optimization.
    pub const SKIP_OPTIMIZATION: Self = Self(1 << 4);
    /// The program uses minimum-precision types.
    pub const MINIMUM_PRECISION: Self = Self(1 << 5);
    /// The program uses the D3D11.1 double extensions.
    pub const DOUBLE_EXTENSIONS_11_1: Self = Self(1 << 6);
    /// The program uses the D3D11.1 shader extensions.
    pub const SHADER_EXTENSIONS_11_1: Self = Self(1 << 7);
    /// Every resource is bound when the program runs.
    pub const ALL_RESOURCES_BOUND: Self = Self(1 << 8);

    /// True when every flag of `other` is set.
    pub fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Sets the flags of `other`.
    pub fn insert(&mut self, other: Self) {
        self.0 |= other.0;
    }

    /// True when no flag is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for GlobalFlags {
    type Output = Self;

    /// The union of two sets.
    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interface_types_stay_small() {
        use std::mem::size_of;
        assert_eq!(size_of::<SystemValue>(), 8);
        assert_eq!(size_of::<Interpolation>(), 1);
        assert_eq!(size_of::<Option<InputPrimitive>>(), 1);
        assert_eq!(size_of::<Option<OutputTopology>>(), 1);
        assert_eq!(size_of::<GlobalFlags>(), 2);
        assert_eq!(size_of::<super::super::IoDecl>(), 20);
    }

    #[test]
    fn flags_and_numbers() {
        let mut flags = GlobalFlags::NONE;
        assert!(flags.is_empty());
        flags.insert(GlobalFlags::EARLY_DEPTH_STENCIL);
        assert!(flags.contains(GlobalFlags::EARLY_DEPTH_STENCIL));
        assert!(!flags.contains(GlobalFlags::EARLY_DEPTH_STENCIL | GlobalFlags::DOUBLES));
        assert_eq!(SystemValue::LineDensityTessFactor.to_string(), "22");
        assert_eq!(SystemValue::Unknown(1000).number(), 1000);
        assert_eq!(InputPrimitive::TriangleAdj.vertices(), 6);
    }
}
