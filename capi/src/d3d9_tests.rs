//! Direct3D 9 token streams through the C entry point: [`dxbc2spv_translate`] takes them as it
//! takes DXBC containers (told apart by the version token), and a truncated stream fails with
//! the decode code and a message giving the byte offset.

use std::ffi::CStr;
use std::ptr;

use super::*;

/// ps_2_0: dcl t0.xy; dcl_2d s0; texld r0, t0, s0; mov oC0, r0; end.
const PS_2_0: [u32; 14] = [
    0xffff_0200,
    0x0200_001f,
    0x8000_0000,
    0xb003_0000,
    0x0200_001f,
    0x9000_0000,
    0xa00f_0800,
    0x0300_0042,
    0x800f_0000,
    0xb0e4_0000,
    0xa0e4_0800,
    0x0200_0001,
    0x800f_0800,
    0x80e4_0000,
];

fn stream(end: bool) -> Vec<u8> {
    let mut words = PS_2_0.to_vec();
    if end {
        words.push(0x0000_ffff);
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn translate(bytes: &[u8]) -> (c_int, dxbc2spv_output) {
    let mut out = dxbc2spv_output {
        spirv: ptr::null_mut(),
        spirv_words: 0,
        error: ptr::null_mut(),
    };
    // SAFETY: `bytes` is readable for its length, the options are NULL (the defaults) and
    // `out` is writable.
    let code =
        unsafe { dxbc2spv_translate(bytes.as_ptr().cast(), bytes.len(), ptr::null(), &mut out) };
    (code, out)
}

#[test]
fn a_d3d9_stream_translates_through_the_c_entry_point() {
    let (code, mut out) = translate(&stream(true));
    let error = (!out.error.is_null())
        // SAFETY: a non-NULL error is a nul-terminated string the library wrote.
        .then(|| {
            unsafe { CStr::from_ptr(out.error) }
                .to_string_lossy()
                .into_owned()
        });
    assert_eq!(code, DXBC2SPV_OK, "{error:?}");
    assert!(!out.spirv.is_null() && out.spirv_words > 5);
    // SAFETY: `spirv` holds `spirv_words` words on success.
    let words = unsafe { std::slice::from_raw_parts(out.spirv, out.spirv_words) };
    assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
    // SAFETY: `out` was filled by the library.
    unsafe { dxbc2spv_output_free(&mut out) };
}

#[test]
fn a_truncated_d3d9_stream_is_a_decode_error_at_its_end() {
    let bytes = stream(false);
    let (code, mut out) = translate(&bytes);
    assert_eq!(code, DXBC2SPV_ERROR_DECODE);
    assert!(out.spirv.is_null());
    // SAFETY: on failure `error` is a nul-terminated string the library wrote.
    let message = unsafe { CStr::from_ptr(out.error) }
        .to_string_lossy()
        .into_owned();
    assert!(
        message.starts_with(&format!("at {:#x}", bytes.len())),
        "{message}"
    );
    // SAFETY: `out` was filled by the library.
    unsafe { dxbc2spv_output_free(&mut out) };
}
