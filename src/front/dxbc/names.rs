//! fxc's spellings of the enumerated fields of the token format (system values, resource
//! dimensions, return types, interpolation modes, topologies, tessellator modes, flags).
//!
//! One table per field, indexed by the token value; the disassembler prints from these tables and
//! the assembler parses with them, so a spelling is defined once.

/// A table of `(value, spelling)` pairs.
pub type NameTable = &'static [(u32, &'static str)];

/// Looks a value up in a table.
pub fn lookup(table: NameTable, value: u32) -> Option<&'static str> {
    table.iter().find(|(v, _)| *v == value).map(|(_, n)| *n)
}

/// Looks a spelling up in a table.
pub fn reverse(table: NameTable, name: &str) -> Option<u32> {
    table.iter().find(|(_, n)| *n == name).map(|(v, _)| *v)
}

/// System-value names of `dcl_*_siv`/`_sgv` (D3D10_SB_NAME).
pub const SYSTEM_VALUES: NameTable = &[
    (0, "undefined"),
    (1, "position"),
    (2, "clip_distance"),
    (3, "cull_distance"),
    (4, "rendertarget_array_index"),
    (5, "viewport_array_index"),
    (6, "vertex_id"),
    (7, "primitive_id"),
    (8, "instance_id"),
    (9, "is_front_face"),
    (10, "sampleIndex"),
    (11, "finalQuadUeq0EdgeTessFactor"),
    (12, "finalQuadVeq0EdgeTessFactor"),
    (13, "finalQuadUeq1EdgeTessFactor"),
    (14, "finalQuadVeq1EdgeTessFactor"),
    (15, "finalQuadUInsideTessFactor"),
    (16, "finalQuadVInsideTessFactor"),
    (17, "finalTriUeq0EdgeTessFactor"),
    (18, "finalTriVeq0EdgeTessFactor"),
    (19, "finalTriWeq0EdgeTessFactor"),
    (20, "finalTriInsideTessFactor"),
    (21, "finalLineDetailTessFactor"),
    (22, "finalLineDensityTessFactor"),
];

/// Resource dimensions (D3D10_SB_RESOURCE_DIMENSION).
pub const RESOURCE_DIMENSIONS: NameTable = &[
    (0, "unknown"),
    (1, "buffer"),
    (2, "texture1d"),
    (3, "texture2d"),
    (4, "texture2dms"),
    (5, "texture3d"),
    (6, "texturecube"),
    (7, "texture1darray"),
    (8, "texture2darray"),
    (9, "texture2dmsarray"),
    (10, "texturecubearray"),
    (11, "raw_buffer"),
    (12, "structured_buffer"),
];

/// Resource return types (D3D10_SB_RESOURCE_RETURN_TYPE).
pub const RETURN_TYPES: NameTable = &[
    (1, "unorm"),
    (2, "snorm"),
    (3, "sint"),
    (4, "uint"),
    (5, "float"),
    (6, "mixed"),
    (7, "double"),
    (8, "continued"),
    (9, "unused"),
];

/// Pixel-shader input interpolation modes (D3D10_SB_INTERPOLATION_MODE).
pub const INTERPOLATION_MODES: NameTable = &[
    (1, "constant"),
    (2, "linear"),
    (3, "linear centroid"),
    (4, "linear noperspective"),
    (5, "linear noperspective centroid"),
    (6, "linear sample"),
    (7, "linear noperspective sample"),
];

/// Sampler modes (D3D10_SB_SAMPLER_MODE).
pub const SAMPLER_MODES: NameTable = &[
    (0, "mode_default"),
    (1, "mode_comparison"),
    (2, "mode_mono"),
];

/// GS input primitives (D3D10_SB_PRIMITIVE) below the patch range.
pub const INPUT_PRIMITIVES: NameTable = &[
    (1, "point"),
    (2, "line"),
    (3, "triangle"),
    (6, "lineadj"),
    (7, "triadj"),
];

/// GS output topologies (D3D10_SB_PRIMITIVE_TOPOLOGY).
pub const OUTPUT_TOPOLOGIES: NameTable = &[
    (1, "pointlist"),
    (2, "linelist"),
    (3, "linestrip"),
    (4, "trianglelist"),
    (5, "trianglestrip"),
    (10, "linelistadj"),
    (11, "linestripadj"),
    (12, "trianglelistadj"),
    (13, "trianglestripadj"),
];

/// Tessellator domains.
pub const TESS_DOMAINS: NameTable = &[(1, "domain_isoline"), (2, "domain_tri"), (3, "domain_quad")];

/// Tessellator partitionings.
pub const TESS_PARTITIONINGS: NameTable = &[
    (1, "partitioning_integer"),
    (2, "partitioning_pow2"),
    (3, "partitioning_fractional_odd"),
    (4, "partitioning_fractional_even"),
];

/// Tessellator output primitives.
pub const TESS_OUTPUT_PRIMITIVES: NameTable = &[
    (1, "output_point"),
    (2, "output_line"),
    (3, "output_triangle_cw"),
    (4, "output_triangle_ccw"),
];

/// `dcl_globalFlags` bits (as bit numbers of the opcode token), in the order fxc prints them.
pub const GLOBAL_FLAGS: NameTable = &[
    (11, "refactoringAllowed"),
    (12, "enableDoublePrecisionFloatOps"),
    (13, "forceEarlyDepthStencil"),
    (14, "enableRawAndStructuredBuffers"),
    (15, "skipOptimization"),
    (16, "enableMinimumPrecision"),
    (17, "enable11_1DoubleExtensions"),
    (18, "enable11_1ShaderExtensions"),
    (19, "allResourcesBound"),
];

/// `sync` flag bits (of the controls field), in the order fxc prints them.
pub const SYNC_FLAGS: NameTable = &[(3, "uglobal"), (2, "ugroup"), (1, "g"), (0, "t")];

/// resinfo return types (bits 11–12).
pub const RESINFO_RETURN_TYPES: NameTable = &[(0, ""), (1, "_rcpFloat"), (2, "_uint")];

/// Minimum-precision spellings (extended operand token bits 14–16).
pub const MIN_PRECISIONS: NameTable = &[
    (0, "def32"),
    (1, "min16f"),
    (2, "min2_8f"),
    (4, "min16i"),
    (5, "min16u"),
];

/// Component letters.
pub const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];
