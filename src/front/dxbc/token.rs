//! Typed bitfield views of the dwords of the tokenized program format
//! (d3d11TokenizedProgramFormat.hpp / d3d12TokenizedProgramFormat.hpp). Raw shifts and masks live
//! only here; everything else reads tokens through these accessors.

/// Extracts `bits` bits of `value` starting at `shift`.
#[inline]
pub const fn field(value: u32, shift: u32, bits: u32) -> u32 {
    (value >> shift) & ((1u32 << bits) - 1)
}

/// The program's version token: stage, major and minor version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionToken(pub u32);

impl VersionToken {
    /// The program type field (0 = pixel … 5 = compute).
    pub fn program_type(self) -> u32 {
        self.0 >> 16
    }
    /// Major shader-model version.
    pub fn major(self) -> u32 {
        field(self.0, 4, 4)
    }
    /// Minor shader-model version.
    pub fn minor(self) -> u32 {
        field(self.0, 0, 4)
    }
}

/// The first token of every instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OpcodeToken(pub u32);

impl OpcodeToken {
    /// Opcode number (bits 0–10).
    pub fn opcode(self) -> u32 {
        field(self.0, 0, 11)
    }
    /// The opcode-specific control bits 11–23, shifted down to bit 0.
    pub fn controls(self) -> u32 {
        field(self.0, 11, 13)
    }
    /// Instruction length in dwords (bits 24–30); 0 only for `customdata`.
    pub fn length(self) -> u32 {
        field(self.0, 24, 7)
    }
    /// Bit 31: an extended opcode token follows.
    pub fn extended(self) -> bool {
        self.0 >> 31 != 0
    }
    /// `_sat` (bit 13).
    pub fn saturate(self) -> bool {
        field(self.0, 13, 1) != 0
    }
    /// Test for conditionals: true = `_nz`, false = `_z` (bit 18).
    pub fn test_nonzero(self) -> bool {
        field(self.0, 18, 1) != 0
    }
    /// Precise component mask (bits 19–22).
    pub fn precise_mask(self) -> u32 {
        field(self.0, 19, 4)
    }
    /// resinfo/sampleinfo return type (bits 11–12).
    pub fn return_type(self) -> u32 {
        field(self.0, 11, 2)
    }
    /// Resource dimension of `dcl_resource`/`dcl_uav_typed` (bits 11–15).
    pub fn resource_dimension(self) -> u32 {
        field(self.0, 11, 5)
    }
    /// Sample count of a multisampled resource declaration (bits 16–22).
    pub fn sample_count(self) -> u32 {
        field(self.0, 16, 7)
    }
    /// Globally-coherent UAV flag (bit 16).
    pub fn globally_coherent(self) -> bool {
        field(self.0, 16, 1) != 0
    }
    /// Rasterizer-ordered UAV flag (bit 17).
    pub fn rasterizer_ordered(self) -> bool {
        field(self.0, 17, 1) != 0
    }
    /// Structured UAV has an order-preserving counter (bit 23).
    pub fn uav_has_counter(self) -> bool {
        field(self.0, 23, 1) != 0
    }
    /// Interpolation mode of `dcl_input_ps*` (bits 11–14).
    pub fn interpolation(self) -> u32 {
        field(self.0, 11, 4)
    }
    /// Sampler mode of `dcl_sampler` (bits 11–14).
    pub fn sampler_mode(self) -> u32 {
        field(self.0, 11, 4)
    }
    /// Constant-buffer access pattern: true = dynamically indexed (bit 11).
    pub fn cb_dynamic(self) -> bool {
        field(self.0, 11, 1) != 0
    }
    /// Global flags of `dcl_globalFlags` (bits 11–23).
    pub fn global_flags(self) -> u32 {
        field(self.0, 11, 13)
    }
    /// Primitive / topology / control-point count field (bits 11–17).
    pub fn primitive(self) -> u32 {
        field(self.0, 11, 6)
    }
    /// Output topology field (bits 11–17).
    pub fn topology(self) -> u32 {
        field(self.0, 11, 7)
    }
    /// Tessellator domain (bits 11–12).
    pub fn tess_domain(self) -> u32 {
        field(self.0, 11, 2)
    }
    /// Tessellator partitioning / output primitive (bits 11–13).
    pub fn tess_mode(self) -> u32 {
        field(self.0, 11, 3)
    }
    /// `sync` flags (bits 11–14): threads in group, TGSM, UAV group, UAV global.
    pub fn sync_flags(self) -> u32 {
        field(self.0, 11, 4)
    }
    /// Interface declared as dynamically indexed (bit 11).
    pub fn interface_indexed(self) -> bool {
        field(self.0, 11, 1) != 0
    }
    /// Custom-data class (bits 11–31).
    pub fn custom_data_class(self) -> u32 {
        self.0 >> 11
    }
}

/// Extended opcode token types.
pub mod ext_opcode {
    /// Empty extension.
    pub const EMPTY: u32 = 0;
    /// Texel offsets for sample/ld (`_aoffimmi`).
    pub const SAMPLE_CONTROLS: u32 = 1;
    /// Resource dimension (`_indexable(texture2d)`).
    pub const RESOURCE_DIM: u32 = 2;
    /// Resource return type (`(float,float,float,float)`).
    pub const RESOURCE_RETURN_TYPE: u32 = 3;
}

/// An extended opcode token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ExtOpcodeToken(pub u32);

impl ExtOpcodeToken {
    /// Extension type (bits 0–5).
    pub fn kind(self) -> u32 {
        field(self.0, 0, 6)
    }
    /// Another extended token follows (bit 31).
    pub fn extended(self) -> bool {
        self.0 >> 31 != 0
    }
    /// Signed 4-bit texel offset for coordinate 0 (u), 1 (v) or 2 (w).
    pub fn offset(self, coord: u32) -> i32 {
        let raw = field(self.0, 9 + 4 * coord, 4) as i32;
        (raw << 28) >> 28
    }
    /// Resource dimension (bits 6–10) of a RESOURCE_DIM extension.
    pub fn resource_dimension(self) -> u32 {
        field(self.0, 6, 5)
    }
    /// Structure stride (bits 11–22) of a RESOURCE_DIM extension.
    pub fn structure_stride(self) -> u32 {
        field(self.0, 11, 12)
    }
    /// The four 4-bit return types of a RESOURCE_RETURN_TYPE extension, packed like a return token.
    pub fn return_types(self) -> u32 {
        field(self.0, 6, 16)
    }
}

/// The first token of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OperandToken(pub u32);

impl OperandToken {
    /// Component count: 0 = none, 1 = one, 2 = four, 3 = N.
    pub fn num_components(self) -> u32 {
        field(self.0, 0, 2)
    }
    /// Selection mode of a 4-component operand: 0 = mask, 1 = swizzle, 2 = select-1.
    pub fn selection_mode(self) -> u32 {
        field(self.0, 2, 2)
    }
    /// The 8 selection bits (4–11): mask in the low 4, or 4×2-bit swizzle, or 2-bit component.
    pub fn selection(self) -> u32 {
        field(self.0, 4, 8)
    }
    /// Register type (bits 12–19).
    pub fn register_type(self) -> u32 {
        field(self.0, 12, 8)
    }
    /// Index dimension 0–3 (bits 20–21).
    pub fn index_dimension(self) -> u32 {
        field(self.0, 20, 2)
    }
    /// Representation of index `i` (bits 22+3i, 3 bits).
    pub fn index_representation(self, i: u32) -> u32 {
        field(self.0, 22 + 3 * i, 3)
    }
    /// An extended operand token follows (bit 31).
    pub fn extended(self) -> bool {
        self.0 >> 31 != 0
    }
}

/// An extended operand token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ExtOperandToken(pub u32);

impl ExtOperandToken {
    /// Extension type (bits 0–5); 1 = modifier.
    pub fn kind(self) -> u32 {
        field(self.0, 0, 6)
    }
    /// Source modifier (bits 6–13): 0 none, 1 neg, 2 abs, 3 -abs.
    pub fn modifier(self) -> u32 {
        field(self.0, 6, 8)
    }
    /// Minimum precision (bits 14–16).
    pub fn min_precision(self) -> u32 {
        field(self.0, 14, 3)
    }
    /// SM5.1 non-uniform index (bit 17).
    pub fn nonuniform(self) -> bool {
        field(self.0, 17, 1) != 0
    }
    /// Another extended token follows (bit 31).
    pub fn extended(self) -> bool {
        self.0 >> 31 != 0
    }
}
