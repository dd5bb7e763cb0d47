//! Bit packing for the tokens [`crate::front::dxbc::token`] reads: the same fields at the same shifts,
//! written instead of read. Every field is range-checked; a value that does not fit is an
//! [`EncodeError::FieldOverflow`], never silently truncated.
//!
//! The control helpers in [`controls`] return values in the units of
//! [`OpcodeToken::controls`](crate::front::dxbc::token::OpcodeToken::controls) (bits 11–23 shifted down
//! to bit 0), which is what [`ProgramBuilder::op`](super::ProgramBuilder::op) takes.

use super::{EncodeError, Result};
use crate::front::dxbc::token::{ext_opcode, ExtOpcodeToken};

/// `value` placed at `shift` in a field of `bits` bits, or an error naming `what` when it does
/// not fit.
pub fn put(value: u32, shift: u32, bits: u32, what: &'static str) -> Result<u32> {
    let max = if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    if value > max {
        return Err(EncodeError::FieldOverflow {
            what,
            value: u64::from(value),
            bits,
        });
    }
    Ok(value << shift)
}

/// Bit 31 of opcode, extended-opcode and operand tokens: another extension token follows.
pub const EXTENDED: u32 = 1 << 31;

/// An opcode token: opcode (bits 0–10), controls (11–23), length (24–30), extended (31).
pub fn opcode_token(opcode: u32, controls: u32, length: u32, extended: bool) -> Result<u32> {
    Ok(put(opcode, 0, 11, "opcode")?
        | put(controls, 11, 13, "opcode controls")?
        | put(length, 24, 7, "instruction length")?
        | if extended { EXTENDED } else { 0 })
}

/// The opcode token of a custom-data block: opcode 0x35 and the class in bits 11–31.
pub fn custom_data_token(opcode: u32, class: u32) -> Result<u32> {
    Ok(put(opcode, 0, 11, "opcode")? | put(class, 11, 21, "custom data class")?)
}

/// The fields of an operand token, as [`OperandToken`](crate::front::dxbc::token::OperandToken) reads
/// them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperandFields {
    /// Component count: 0 = none, 1 = one, 2 = four, 3 = N (bits 0–1).
    pub num_components: u32,
    /// Selection mode: 0 = mask, 1 = swizzle, 2 = select-1 (bits 2–3).
    pub selection_mode: u32,
    /// Selection bits (4–11).
    pub selection: u32,
    /// Register type (bits 12–19).
    pub register_type: u32,
    /// Index dimension (bits 20–21).
    pub index_dimension: u32,
    /// Representation of each index (bits 22+3i, 3 bits each).
    pub index_representation: [u32; 3],
    /// An extended operand token follows (bit 31).
    pub extended: bool,
}

impl OperandFields {
    /// The packed operand token.
    pub fn pack(&self) -> Result<u32> {
        let mut token = put(self.num_components, 0, 2, "component count")?
            | put(self.selection_mode, 2, 2, "component selection mode")?
            | put(self.selection, 4, 8, "component selection")?
            | put(self.register_type, 12, 8, "register type")?
            | put(self.index_dimension, 20, 2, "index dimension")?;
        for (i, &repr) in self.index_representation.iter().enumerate() {
            token |= put(repr, 22 + 3 * i as u32, 3, "index representation")?;
        }
        if self.extended {
            token |= EXTENDED;
        }
        Ok(token)
    }
}

/// A modifier extended operand token (kind 1): modifier (bits 6–13), minimum precision
/// (14–16), SM5.1 non-uniform (17).
pub fn modifier_token(modifier: u32, min_precision: u32, nonuniform: bool) -> Result<u32> {
    Ok(put(1, 0, 6, "extended operand kind")?
        | put(modifier, 6, 8, "operand modifier")?
        | put(min_precision, 14, 3, "minimum precision")?
        | put(u32::from(nonuniform), 17, 1, "nonuniform")?)
}

/// The bits of a modifier extended operand token that [`modifier_token`] writes (kind, modifier,
/// minimum precision, non-uniform).
pub const MODIFIER_FIELDS: u32 = 0x3_ffff;

/// An extended opcode token with immediate texel offsets (`_aoffimmi(u,v,w)`), each in -8..=7.
pub fn sample_offsets(u: i32, v: i32, w: i32) -> Result<ExtOpcodeToken> {
    let mut token = ext_opcode::SAMPLE_CONTROLS;
    for (i, value) in [u, v, w].into_iter().enumerate() {
        if !(-8..=7).contains(&value) {
            return Err(EncodeError::FieldOverflow {
                what: "texel offset",
                value: value as u64,
                bits: 4,
            });
        }
        token |= ((value as u32) & 0xf) << (9 + 4 * i as u32);
    }
    Ok(ExtOpcodeToken(token))
}

/// An extended opcode token naming a resource dimension (bits 6–10) and structure stride
/// (11–22): `_indexable(texture2d)` / `_indexable(structured_buffer, stride=16)`.
pub fn resource_dimension(dimension: u32, stride: u32) -> Result<ExtOpcodeToken> {
    Ok(ExtOpcodeToken(
        ext_opcode::RESOURCE_DIM
            | put(dimension, 6, 5, "resource dimension")?
            | put(stride, 11, 12, "structure stride")?,
    ))
}

/// An extended opcode token naming the four resource return types (bits 6–21), packed as by
/// [`return_types`].
pub fn resource_return_type(packed: u32) -> Result<ExtOpcodeToken> {
    Ok(ExtOpcodeToken(
        ext_opcode::RESOURCE_RETURN_TYPE | put(packed, 6, 16, "resource return type")?,
    ))
}

/// A resource return type token: four 4-bit component types (x in bits 0–3), as in
/// [`crate::front::dxbc::names::RETURN_TYPES`] (5 = float, 4 = uint, ...).
pub fn return_types(types: [u32; 4]) -> Result<u32> {
    let mut token = 0;
    for (i, ty) in types.into_iter().enumerate() {
        token |= put(ty, 4 * i as u32, 4, "return type")?;
    }
    Ok(token)
}

/// Opcode control values, in the units of
/// [`OpcodeToken::controls`](crate::front::dxbc::token::OpcodeToken::controls) (token bit 11 = bit 0).
/// Each helper mirrors the accessor of the same name; values must fit the field (the opcode
/// token checks only the 13-bit total).
pub mod controls {
    /// `_sat` (token bit 13).
    pub const SATURATE: u32 = 1 << 2;
    /// `_nz` rather than `_z` on conditionals (token bit 18).
    pub const TEST_NONZERO: u32 = 1 << 7;
    /// `dcl_globalFlags refactoringAllowed` (token bit 11).
    pub const REFACTORING_ALLOWED: u32 = 1;
    /// Dynamically indexed constant buffer (token bit 11).
    pub const CB_DYNAMIC: u32 = 1;
    /// Globally-coherent UAV (token bit 16).
    pub const GLOBALLY_COHERENT: u32 = 1 << 5;
    /// Rasterizer-ordered UAV (token bit 17).
    pub const RASTERIZER_ORDERED: u32 = 1 << 6;
    /// Structured UAV with a counter (token bit 23).
    pub const UAV_HAS_COUNTER: u32 = 1 << 12;
    /// `sync` flag: threads in group (`_t`).
    pub const SYNC_THREADS: u32 = 1;
    /// `sync` flag: thread-group shared memory (`_g`).
    pub const SYNC_TGSM: u32 = 1 << 1;
    /// `sync` flag: UAV memory, group scope (`_ugroup`).
    pub const SYNC_UAV_GROUP: u32 = 1 << 2;
    /// `sync` flag: UAV memory, global scope (`_uglobal`).
    pub const SYNC_UAV_GLOBAL: u32 = 1 << 3;

    /// Precise component mask (token bits 19–22).
    pub const fn precise(mask: u32) -> u32 {
        mask << 8
    }
    /// Resource dimension of `dcl_resource`/`dcl_uav_typed` (token bits 11–15).
    pub const fn resource_dimension(dimension: u32) -> u32 {
        dimension
    }
    /// Sample count of a multisampled resource declaration (token bits 16–22).
    pub const fn sample_count(count: u32) -> u32 {
        count << 5
    }
    /// Interpolation mode of `dcl_input_ps*` (token bits 11–14).
    pub const fn interpolation(mode: u32) -> u32 {
        mode
    }
    /// Primitive, topology, control-point count, tessellator domain or mode (from token bit 11).
    pub const fn primitive(value: u32) -> u32 {
        value
    }
}
