//! The Direct3D 9 option block: how D3D9's float rules are emitted.
//!
//! Contract: [`dxbc2spv_d3d9_options`] holds the Rust `float_emulation` option
//! ([`FloatEmulation`]); all zero is the Rust default. Conversion rejects a value the Rust type
//! cannot hold with an error naming the field.

use std::ffi::c_void;

use translator::{FloatEmulation, Options};

use crate::Failure;

/// `stype` of [`dxbc2spv_d3d9_options`].
pub const DXBC2SPV_STRUCTURE_TYPE_D3D9_OPTIONS: u32 = 13;

/// D3D9's float rules exactly: the legacy multiply `0 × x = 0` for every `x` (the default).
pub const DXBC2SPV_FLOAT_EMULATION_STRICT: u32 = 0;
/// The IEEE multiply, with `rcp`, `rsq`, `exp`, `pow` and `nrm` clamped to ±FLT_MAX.
pub const DXBC2SPV_FLOAT_EMULATION_FAST: u32 = 1;

/// Options of Direct3D 9 shaders (`docs/d3d9.md`). All zero: the Rust defaults.
#[repr(C)]
pub struct dxbc2spv_d3d9_options {
    /// [`DXBC2SPV_STRUCTURE_TYPE_D3D9_OPTIONS`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// `DXBC2SPV_FLOAT_EMULATION_*` (`docs/d3d9.md`, "Float rules").
    pub float_emulation: u32,
}

/// Sets the block's options on `o`.
pub(crate) fn apply(b: &dxbc2spv_d3d9_options, o: &mut Options) -> Result<(), Failure> {
    o.float_emulation = match b.float_emulation {
        DXBC2SPV_FLOAT_EMULATION_STRICT => FloatEmulation::Strict,
        DXBC2SPV_FLOAT_EMULATION_FAST => FloatEmulation::Fast,
        v => {
            return Err(Failure::invalid_argument(format!(
                "options: d3d9_options.float_emulation = {v} is not a known value"
            )))
        }
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(float_emulation: u32) -> dxbc2spv_d3d9_options {
        dxbc2spv_d3d9_options {
            stype: DXBC2SPV_STRUCTURE_TYPE_D3D9_OPTIONS,
            next: std::ptr::null(),
            float_emulation,
        }
    }

    #[test]
    fn values_convert_and_unknown_ones_are_named() {
        let mut o = Options::default();
        assert!(apply(&block(DXBC2SPV_FLOAT_EMULATION_FAST), &mut o).is_ok());
        assert_eq!(o.float_emulation, FloatEmulation::Fast);
        assert!(apply(&block(DXBC2SPV_FLOAT_EMULATION_STRICT), &mut o).is_ok());
        assert_eq!(o, Options::default(), "zero is the default");
        let e = apply(&block(2), &mut o).err().map(|f| f.message);
        assert!(e.is_some_and(|m| m.contains("float_emulation = 2")));
    }
}
