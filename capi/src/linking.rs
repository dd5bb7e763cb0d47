//! The stage-linking and workarounds option block.
//!
//! Contract: [`dxbc2spv_stage_linking`] holds the Rust `linking` ([`StageLinking`]) and
//! `workarounds` ([`Workarounds`]) options; all zero (and NULL arrays) is the Rust default.
//! Conversion rejects values the Rust types cannot hold with an error naming the field.

use std::ffi::{c_char, c_void, CStr};

use translator::ir::{ComponentType, InputPrimitive};
use translator::{ForcedBarriers, Options, Semantic, StageLinking, Workarounds, WorkgroupZeroInit};

use crate::{slice, Failure};

/// `stype` of [`dxbc2spv_stage_linking`].
pub const DXBC2SPV_STRUCTURE_TYPE_STAGE_LINKING: u32 = 12;

/// One output of the previous stage (or a vertex-input element).
#[repr(C)]
pub struct dxbc2spv_semantic {
    /// The semantic name (nul-terminated UTF-8).
    pub name: *const c_char,
    /// The semantic index.
    pub index: u32,
    /// The register (the Vulkan location; a vertex attribute's location).
    pub register_: u32,
    /// Components written (bit 0 = x).
    pub mask: u32,
    /// Geometry-shader output stream.
    pub stream: u32,
}

/// An input location declared with another component type.
#[repr(C)]
pub struct dxbc2spv_input_type {
    /// The location.
    pub location: u32,
    /// `DXBC2SPV_COMPONENT_TYPE_*`.
    pub component_type: u32,
}

/// `float`.
pub const DXBC2SPV_COMPONENT_TYPE_FLOAT: u32 = 0;
/// `uint`.
pub const DXBC2SPV_COMPONENT_TYPE_UINT: u32 = 1;
/// `int`.
pub const DXBC2SPV_COMPONENT_TYPE_SINT: u32 = 2;

/// How a shader's inputs link to the previous stage, and the workaround switches
/// (`docs/runtime.md`, "Stage linking and workarounds"). All zero: the Rust defaults.
#[repr(C)]
pub struct dxbc2spv_stage_linking {
    /// [`DXBC2SPV_STRUCTURE_TYPE_STAGE_LINKING`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// 1: `previous_outputs` lists what the previous stage writes (inputs it does not write
    /// read 0); 0: every input at its register's location (the array is ignored).
    pub has_previous_outputs: u32,
    /// The previous stage's outputs (may be NULL when the count is 0).
    pub previous_outputs: *const dxbc2spv_semantic,
    /// Entries in `previous_outputs`.
    pub previous_output_count: usize,
    /// 1: inputs read the location of the previous output with their semantic.
    pub remap_by_semantic: u32,
    /// Pixel-shader input locations (bit n = location n) declared `Flat`.
    pub flat_locations: u32,
    /// Input locations declared with another component type (may be NULL when the count is 0).
    pub input_types: *const dxbc2spv_input_type,
    /// Entries in `input_types`.
    pub input_type_count: usize,
    /// Geometry shaders: the draw's primitive when it differs from `dcl_inputprimitive`:
    /// 0 = as declared, else D3D's `D3D10_SB_PRIMITIVE` value (1 point, 2 line, 3 triangle,
    /// 6 line with adjacency, 7 triangle with adjacency).
    pub geometry_input: u32,
    /// Zero-initialise `g#`: 0 off, 1 by initializer, 2 by stores.
    pub workgroup_zero_init: u32,
    /// Forced barriers in compute shaders: 0 off, 1 after `g#` writes, 2 after `g#` and UAV
    /// writes.
    pub forced_barriers: u32,
    /// 1: the `Position` output is `Invariant`.
    pub invariant_position: u32,
}

fn bad(field: &str, v: u32) -> Failure {
    Failure::invalid_argument(format!(
        "options: stage_linking.{field} = {v} is not a known value"
    ))
}

fn flag(field: &str, v: u32) -> Result<bool, Failure> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(bad(field, v)),
    }
}

/// Sets the block's options on `o`.
///
/// # Safety
/// The block's arrays hold their counts of elements, with nul-terminated names.
pub(crate) unsafe fn apply(b: &dxbc2spv_stage_linking, o: &mut Options) -> Result<(), Failure> {
    let previous_outputs = if flag("has_previous_outputs", b.has_previous_outputs)? {
        // SAFETY: the caller's contract.
        let entries = match unsafe { slice(b.previous_outputs, b.previous_output_count) } {
            Some(e) => e,
            None if b.previous_output_count == 0 => &[],
            None => {
                return Err(Failure::invalid_argument(
                    "options: stage_linking.previous_outputs is NULL",
                ))
            }
        };
        let mut out = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let name = if e.name.is_null() {
                None
            } else {
                // SAFETY: a nul-terminated string (the caller's contract).
                unsafe { CStr::from_ptr(e.name) }.to_str().ok()
            };
            let name = name.ok_or_else(|| {
                Failure::invalid_argument(format!(
                    "options: stage_linking.previous_outputs[{i}].name is NULL or not UTF-8"
                ))
            })?;
            let mask = u8::try_from(e.mask)
                .ok()
                .filter(|m| m & !0xf == 0)
                .ok_or_else(|| bad(&format!("previous_outputs[{i}].mask"), e.mask))?;
            out.push(Semantic {
                name: name.to_string(),
                index: e.index,
                register: e.register_,
                mask,
                stream: e.stream,
            });
        }
        Some(out)
    } else {
        None
    };
    // SAFETY: the caller's contract.
    let types = match unsafe { slice(b.input_types, b.input_type_count) } {
        Some(t) => t,
        None if b.input_type_count == 0 => &[],
        None => {
            return Err(Failure::invalid_argument(
                "options: stage_linking.input_types is NULL",
            ))
        }
    };
    let mut input_types = Vec::with_capacity(types.len());
    for (i, t) in types.iter().enumerate() {
        let ty = match t.component_type {
            DXBC2SPV_COMPONENT_TYPE_FLOAT => ComponentType::Float,
            DXBC2SPV_COMPONENT_TYPE_UINT => ComponentType::Uint,
            DXBC2SPV_COMPONENT_TYPE_SINT => ComponentType::Sint,
            v => return Err(bad(&format!("input_types[{i}].component_type"), v)),
        };
        input_types.push((t.location, ty));
    }
    let geometry_input = match b.geometry_input {
        0 => None,
        1 => Some(InputPrimitive::Point),
        2 => Some(InputPrimitive::Line),
        3 => Some(InputPrimitive::Triangle),
        6 => Some(InputPrimitive::LineAdj),
        7 => Some(InputPrimitive::TriangleAdj),
        v => return Err(bad("geometry_input", v)),
    };
    o.linking = StageLinking {
        previous_outputs,
        remap_by_semantic: flag("remap_by_semantic", b.remap_by_semantic)?,
        flat_locations: b.flat_locations,
        input_types,
        geometry_input,
    };
    o.workarounds = Workarounds {
        workgroup_zero_init: match b.workgroup_zero_init {
            0 => WorkgroupZeroInit::Off,
            1 => WorkgroupZeroInit::Initializer,
            2 => WorkgroupZeroInit::Stores,
            v => return Err(bad("workgroup_zero_init", v)),
        },
        forced_barriers: match b.forced_barriers {
            0 => ForcedBarriers::Off,
            1 => ForcedBarriers::Tgsm,
            2 => ForcedBarriers::TgsmAndUav,
            v => return Err(bad("forced_barriers", v)),
        },
        invariant_position: flag("invariant_position", b.invariant_position)?,
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zero() -> dxbc2spv_stage_linking {
        dxbc2spv_stage_linking {
            stype: DXBC2SPV_STRUCTURE_TYPE_STAGE_LINKING,
            next: std::ptr::null(),
            has_previous_outputs: 0,
            previous_outputs: std::ptr::null(),
            previous_output_count: 0,
            remap_by_semantic: 0,
            flat_locations: 0,
            input_types: std::ptr::null(),
            input_type_count: 0,
            geometry_input: 0,
            workgroup_zero_init: 0,
            forced_barriers: 0,
            invariant_position: 0,
        }
    }

    /// All zero is the Rust default; fields reach their Rust options; bad values are named.
    #[test]
    fn linking_block_reaches_the_rust_options() {
        let mut o = Options::default();
        // SAFETY: no arrays.
        unsafe { apply(&zero(), &mut o) }
            .map_err(|f| f.message)
            .expect("converts");
        assert_eq!(o, Options::default());
        let outputs = [dxbc2spv_semantic {
            name: c"TEXCOORD".as_ptr(),
            index: 1,
            register_: 3,
            mask: 0b0011,
            stream: 0,
        }];
        let b = dxbc2spv_stage_linking {
            has_previous_outputs: 1,
            previous_outputs: outputs.as_ptr(),
            previous_output_count: 1,
            remap_by_semantic: 1,
            geometry_input: 7,
            forced_barriers: 2,
            invariant_position: 1,
            ..zero()
        };
        // SAFETY: the array holds its count.
        unsafe { apply(&b, &mut o) }
            .map_err(|f| f.message)
            .expect("converts");
        let expected = Semantic {
            name: "TEXCOORD".into(),
            index: 1,
            register: 3,
            mask: 3,
            stream: 0,
        };
        assert_eq!(o.linking.previous_outputs, Some(vec![expected]));
        assert!(o.linking.remap_by_semantic);
        assert_eq!(o.linking.geometry_input, Some(InputPrimitive::TriangleAdj));
        assert_eq!(o.workarounds.forced_barriers, ForcedBarriers::TgsmAndUav);
        assert!(o.workarounds.invariant_position);
        let e = unsafe {
            apply(
                &dxbc2spv_stage_linking {
                    geometry_input: 4,
                    ..zero()
                },
                &mut o,
            )
        }
        .err()
        .map(|f| f.message);
        assert_eq!(
            e.as_deref(),
            Some("options: stage_linking.geometry_input = 4 is not a known value")
        );
    }
}
