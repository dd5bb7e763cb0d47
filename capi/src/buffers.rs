//! The buffer-descriptor option block: texel buffers for raw and structured views, the
//! device's storage-buffer offset alignment (with its fix-up block) and typed UAV formats.
//!
//! Contract: [`dxbc2spv_buffer_descriptors`] holds the Rust `texel_raw_buffers`,
//! `storage_buffer_alignment` and `typed_uav_formats` options ([`dxbc2spv_buffer_descriptors_init`]
//! writes the Rust defaults); conversion rejects what the Rust types cannot hold with an error
//! naming the field.

use std::ffi::{c_char, c_int, c_void, CStr};

use translator::{
    Options, StorageBufferAlignment, TexelRawBuffers, TypedUavFormats, UavFormat, UnlistedUavFormat,
};

use crate::bindings::{dxbc2spv_binding_target, target, target_code};
use crate::{slice, Failure, DXBC2SPV_ERROR_INVALID_ARGUMENT, DXBC2SPV_OK};

/// `stype` of [`dxbc2spv_buffer_descriptors`].
pub const DXBC2SPV_STRUCTURE_TYPE_BUFFER_DESCRIPTORS: u32 = 11;

/// Unlisted read UAVs keep format `Unknown` (`shaderStorageImageReadWithoutFormat`).
pub const DXBC2SPV_UNLISTED_UAV_UNKNOWN: u32 = 0;
/// Unlisted read UAVs are declared with the 32-bit one-channel format of their return type.
pub const DXBC2SPV_UNLISTED_UAV_R32_OF_RETURN_TYPE: u32 = 1;

/// The format the runtime binds at one UAV range.
#[repr(C)]
pub struct dxbc2spv_uav_format {
    /// The register space.
    pub space: u32,
    /// The range's first `u` register.
    pub register_: u32,
    /// The format's name, as the SPIR-V image format in lower case (`"rgba8"`, `"r32f"`,
    /// `"r11fg11fb10f"`; the names the Rust `UavFormat::name` gives).
    pub format: *const c_char,
}

/// How raw, structured and typed buffer views are declared (`docs/runtime.md`, "Buffer
/// descriptor types and alignment"). Set it up with [`dxbc2spv_buffer_descriptors_init`].
#[repr(C)]
pub struct dxbc2spv_buffer_descriptors {
    /// [`DXBC2SPV_STRUCTURE_TYPE_BUFFER_DESCRIPTORS`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// 1: raw and structured SRVs are uniform texel buffers (`R32_UINT` views); 0: storage
    /// buffers.
    pub texel_raw_srv: u32,
    /// 1: raw and structured UAVs are storage texel buffers; 0: storage buffers.
    pub texel_raw_uav: u32,
    /// `minStorageBufferOffsetAlignment` (a power of two, at most 256), or 0: views are bound
    /// at their own offsets (no fix-up block).
    pub storage_buffer_alignment: u32,
    /// Where the fix-up block (a uniform buffer) is bound, when the alignment is not 0.
    pub fixup_block: dxbc2spv_binding_target,
    /// Formats of UAV ranges (may be NULL when the count is 0).
    pub uav_formats: *const dxbc2spv_uav_format,
    /// Entries in `uav_formats`.
    pub uav_format_count: usize,
    /// Read UAVs not listed: `DXBC2SPV_UNLISTED_UAV_*`.
    pub unlisted_uav_format: u32,
    /// 1: also declare the format of UAVs that are only written.
    pub uav_formats_written_only: u32,
}

fn flag(field: &str, v: u32) -> Result<bool, Failure> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(Failure::invalid_argument(format!(
            "options: {field} = {v} is not 0 or 1"
        ))),
    }
}

/// Sets the block's options on `o`.
///
/// # Safety
/// `b.uav_formats` holds `b.uav_format_count` entries with nul-terminated strings.
pub(crate) unsafe fn apply(
    b: &dxbc2spv_buffer_descriptors,
    o: &mut Options,
) -> Result<(), Failure> {
    o.texel_raw_buffers = TexelRawBuffers {
        srv: flag("buffer_descriptors.texel_raw_srv", b.texel_raw_srv)?,
        uav: flag("buffer_descriptors.texel_raw_uav", b.texel_raw_uav)?,
    };
    o.storage_buffer_alignment = match b.storage_buffer_alignment {
        0 => None,
        a if a.is_power_of_two() && a <= 256 => Some(StorageBufferAlignment {
            alignment: a,
            block: target(&b.fixup_block, "buffer_descriptors.fixup_block")?,
        }),
        a => {
            return Err(Failure::invalid_argument(format!(
                "options: buffer_descriptors.storage_buffer_alignment = {a} is not 0 or a \
                 power of two up to 256"
            )))
        }
    };
    // SAFETY: the caller's contract.
    let entries = match unsafe { slice(b.uav_formats, b.uav_format_count) } {
        Some(e) => e,
        None if b.uav_format_count == 0 => &[],
        None => {
            return Err(Failure::invalid_argument(
                "options: buffer_descriptors.uav_formats is NULL",
            ))
        }
    };
    let mut formats = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let name = if e.format.is_null() {
            None
        } else {
            // SAFETY: a nul-terminated string (the caller's contract).
            unsafe { CStr::from_ptr(e.format) }.to_str().ok()
        };
        let format = name
            .and_then(|n| UavFormat::ALL.into_iter().find(|f| f.name() == n))
            .ok_or_else(|| {
                Failure::invalid_argument(format!(
                    "options: buffer_descriptors.uav_formats[{i}].format = {name:?} is not a \
                     known format name"
                ))
            })?;
        formats.push(((e.space, e.register_), format));
    }
    let unlisted = match b.unlisted_uav_format {
        DXBC2SPV_UNLISTED_UAV_UNKNOWN => UnlistedUavFormat::Unknown,
        DXBC2SPV_UNLISTED_UAV_R32_OF_RETURN_TYPE => UnlistedUavFormat::R32OfReturnType,
        v => {
            return Err(Failure::invalid_argument(format!(
                "options: buffer_descriptors.unlisted_uav_format = {v} is not a known value"
            )))
        }
    };
    o.typed_uav_formats = TypedUavFormats {
        formats,
        unlisted,
        written_only: flag(
            "buffer_descriptors.uav_formats_written_only",
            b.uav_formats_written_only,
        )?,
    };
    Ok(())
}

/// Writes the defaults (the Rust defaults: storage buffers at their own offsets, no formats
/// listed; the fix-up block at set 0, binding 15 for when an alignment is set) to `block`.
/// Returns `DXBC2SPV_ERROR_INVALID_ARGUMENT` for NULL.
///
/// # Safety
/// `block` is NULL or points to a writable `dxbc2spv_buffer_descriptors`.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_buffer_descriptors_init(
    block: *mut dxbc2spv_buffer_descriptors,
) -> c_int {
    if block.is_null() {
        return DXBC2SPV_ERROR_INVALID_ARGUMENT;
    }
    let d = Options::default();
    let fixup = StorageBufferAlignment::new(0).block;
    let b = dxbc2spv_buffer_descriptors {
        stype: DXBC2SPV_STRUCTURE_TYPE_BUFFER_DESCRIPTORS,
        next: std::ptr::null(),
        texel_raw_srv: u32::from(d.texel_raw_buffers.srv),
        texel_raw_uav: u32::from(d.texel_raw_buffers.uav),
        storage_buffer_alignment: d.storage_buffer_alignment.map_or(0, |a| a.alignment),
        fixup_block: target_code(&fixup),
        uav_formats: std::ptr::null(),
        uav_format_count: 0,
        unlisted_uav_format: match d.typed_uav_formats.unlisted {
            UnlistedUavFormat::R32OfReturnType => DXBC2SPV_UNLISTED_UAV_R32_OF_RETURN_TYPE,
            _ => DXBC2SPV_UNLISTED_UAV_UNKNOWN,
        },
        uav_formats_written_only: u32::from(d.typed_uav_formats.written_only),
    };
    // SAFETY: checked non-NULL; writable by the caller's contract.
    unsafe { block.write(b) };
    DXBC2SPV_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> dxbc2spv_buffer_descriptors {
        let mut b = std::mem::MaybeUninit::<dxbc2spv_buffer_descriptors>::uninit();
        // SAFETY: writable.
        assert_eq!(
            unsafe { dxbc2spv_buffer_descriptors_init(b.as_mut_ptr()) },
            0
        );
        // SAFETY: initialised.
        unsafe { b.assume_init() }
    }

    /// The init block gives the Rust defaults; fields reach their Rust options; bad values are
    /// named.
    #[test]
    fn buffer_block_reaches_the_rust_options() {
        let mut o = Options::default();
        // SAFETY: no arrays.
        unsafe { apply(&defaults(), &mut o) }
            .map_err(|f| f.message)
            .expect("converts");
        assert_eq!(o, Options::default());
        let formats = [dxbc2spv_uav_format {
            space: 0,
            register_: 2,
            format: c"rgba8".as_ptr(),
        }];
        let b = dxbc2spv_buffer_descriptors {
            texel_raw_uav: 1,
            storage_buffer_alignment: 64,
            uav_formats: formats.as_ptr(),
            uav_format_count: 1,
            ..defaults()
        };
        // SAFETY: the array holds its count.
        unsafe { apply(&b, &mut o) }
            .map_err(|f| f.message)
            .expect("converts");
        assert!(o.texel_raw_buffers.uav && !o.texel_raw_buffers.srv);
        assert_eq!(
            o.storage_buffer_alignment,
            Some(StorageBufferAlignment::new(64))
        );
        assert_eq!(o.typed_uav_formats.listed(0, 2), Some(UavFormat::Rgba8));
        let bad = dxbc2spv_buffer_descriptors {
            storage_buffer_alignment: 48,
            ..defaults()
        };
        // SAFETY: no arrays.
        let e = unsafe { apply(&bad, &mut o) }.err().map(|f| f.message);
        assert!(
            e.as_deref().is_some_and(
                |e| e.starts_with("options: buffer_descriptors.storage_buffer_alignment = 48")
            ),
            "{e:?}"
        );
    }
}
