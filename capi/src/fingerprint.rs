//! Cache keys: the output revision and the fingerprint of (input, options).
//!
//! Contract:
//! - [`DXBC2SPV_REVISION`] changes whenever the SPIR-V written for some input and options can
//!   change (rule: bump it in the commit that changes any output byte; the test
//!   `revision_pins_the_output` pins it together with a hash of the output of the sample
//!   shaders under several options, so a changed output without a bump fails the test). A
//!   runtime keys its disk cache on the revision (or on the fingerprint, which contains it).
//! - [`dxbc2spv_fingerprint`] is SHA-256 over a canonical encoding of the library version, the
//!   revision, the input bytes and the options: the `Debug` form of the Rust
//!   [`translator::Options`] they convert to, which names every field (derived, so an option
//!   added to the Rust API is in the key without anyone remembering it), plus the binding
//!   callback's `key` bytes (the fingerprint cannot call the callback; without a key it fails).
//!   The message callback is not part of the key (it does not change the output).

use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use sha2::{Digest, Sha256};

use crate::{
    dxbc2spv_options, options, slice, DXBC2SPV_ERROR_INTERNAL, DXBC2SPV_ERROR_INVALID_ARGUMENT,
    DXBC2SPV_OK,
};

/// The output revision: changes whenever the output for the same input and options can change.
pub const DXBC2SPV_REVISION: u32 = 2;

/// [`DXBC2SPV_REVISION`] of the loaded library (a cache written by another library revision
/// is stale).
#[no_mangle]
pub extern "C" fn dxbc2spv_revision() -> u32 {
    DXBC2SPV_REVISION
}

/// The bytes hashed for (`bytes`, `converted`).
fn encode(bytes: &[u8], converted: &options::Converted) -> Result<Vec<u8>, String> {
    let mut e = Vec::with_capacity(bytes.len() + 512);
    let mut field = |part: &[u8]| {
        e.extend_from_slice(&(part.len() as u64).to_le_bytes());
        e.extend_from_slice(part);
    };
    field(b"dxbc2spv fingerprint 1");
    field(env!("CARGO_PKG_VERSION").as_bytes());
    field(&DXBC2SPV_REVISION.to_le_bytes());
    field(bytes);
    field(format!("{:?}", converted.options).as_bytes());
    match &converted.callback {
        None => field(b"no binding callback"),
        Some(map) => match &map.key {
            Some(key) => {
                field(b"binding callback");
                field(key);
            }
            None => {
                return Err(
                    "fingerprint: the binding callback has no key (key/key_size): \
                            its answers cannot be part of the fingerprint"
                        .to_string(),
                )
            }
        },
    }
    Ok(e)
}

/// Writes to `fingerprint` (32 bytes) the SHA-256 fingerprint of translating `dxbc` (`size`
/// bytes) with `options` (NULL: the defaults): equal fingerprints mean equal output from this
/// library revision. Does not translate. Errors: `DXBC2SPV_ERROR_INVALID_ARGUMENT` for NULL
/// pointers, invalid options, or a binding callback without a key.
///
/// # Safety
/// `dxbc` holds `size` bytes; `options` is NULL or a valid chain; `fingerprint` is NULL or
/// holds 32 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_fingerprint(
    dxbc: *const c_void,
    size: usize,
    options: *const dxbc2spv_options,
    fingerprint: *mut u8,
) -> c_int {
    catch_unwind(AssertUnwindSafe(|| {
        if fingerprint.is_null() {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: the caller's contract.
        let Some(bytes) = (unsafe { slice(dxbc.cast::<u8>(), size) }) else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        // SAFETY: the caller's contract.
        let Ok(converted) = (unsafe { options::convert(options) }) else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        let Ok(encoded) = encode(bytes, &converted) else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        let digest: [u8; 32] = Sha256::digest(&encoded).into();
        // SAFETY: the caller gave 32 writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(digest.as_ptr(), fingerprint, 32) };
        DXBC2SPV_OK
    }))
    .unwrap_or(DXBC2SPV_ERROR_INTERNAL)
}

#[cfg(test)]
/// The field names of a derived `Debug` struct form (`Name { a: .., b: .. }`), in order.
pub(crate) fn top_level_fields(debug: &str) -> Vec<&str> {
    let Some(open) = debug.find('{') else {
        return Vec::new();
    };
    let body = debug.get(open + 1..).unwrap_or("");
    let (mut depth, mut quoted, mut start) = (0usize, false, 0usize);
    let mut fields = Vec::new();
    let mut prev = ' ';
    for (i, ch) in body.char_indices() {
        match ch {
            '"' if prev != '\\' => quoted = !quoted,
            _ if quoted => {}
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' if depth > 0 => depth -= 1,
            ':' if depth == 0 && start != usize::MAX => {
                fields.push(
                    body.get(start..i)
                        .unwrap_or("")
                        .trim()
                        .trim_start_matches(','),
                );
                start = usize::MAX;
            }
            ',' if depth == 0 => start = i + 1,
            _ => {}
        }
        prev = ch;
    }
    fields.into_iter().map(str::trim).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use translator::{OptionFlags, Options, Target};

    fn samples() -> Vec<(String, Vec<u8>)> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/samples");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("fixtures/samples")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "dxbc"))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|p| {
                let name = p
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                (name, std::fs::read(&p).expect("readable"))
            })
            .collect()
    }

    /// The revision is pinned with a hash of the output of every sample under several options.
    /// When this fails because the output changed: bump `DXBC2SPV_REVISION` and put the new
    /// revision and hash here (never only the hash).
    #[test]
    fn revision_pins_the_output() {
        let option_sets = [
            Options::default(),
            Options::default().with_flag(OptionFlags::DEBUG_NAMES, true),
            Options::default().with_target(Target::Vulkan1_3),
            Options::default().with_flag(OptionFlags::DEMOTE_TO_HELPER, false),
        ];
        let mut hash = Sha256::new();
        let samples = samples();
        assert!(samples.len() >= 5, "the samples are there");
        for (name, bytes) in &samples {
            for options in &option_sets {
                hash.update(name.as_bytes());
                match translator::translate(bytes, options) {
                    Ok(t) => t.spirv.iter().for_each(|w| hash.update(w.to_le_bytes())),
                    Err(e) => hash.update(e.to_string().as_bytes()),
                }
            }
        }
        let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            (DXBC2SPV_REVISION, hex.as_str()),
            (
                2,
                "1605b9e1d944ca1e757de82691a021a218ae69ada11b8c3a67e287b8d185a687"
            ),
            "the output changed: bump DXBC2SPV_REVISION and pin the new hash with it"
        );
    }

    fn fingerprint(bytes: &[u8], options: Option<&dxbc2spv_options>) -> [u8; 32] {
        let mut out = [0u8; 32];
        let options = options.map_or(std::ptr::null(), std::ptr::from_ref);
        // SAFETY: valid buffers and options.
        let status = unsafe {
            dxbc2spv_fingerprint(
                bytes.as_ptr().cast(),
                bytes.len(),
                options,
                out.as_mut_ptr(),
            )
        };
        assert_eq!(status, DXBC2SPV_OK);
        out
    }

    fn defaults() -> dxbc2spv_options {
        let mut c = std::mem::MaybeUninit::<dxbc2spv_options>::uninit();
        // SAFETY: writable.
        unsafe { crate::dxbc2spv_options_init(c.as_mut_ptr()) };
        // SAFETY: initialised.
        unsafe { c.assume_init() }
    }

    /// Same input and options: same fingerprint; any option or input byte changed: another.
    #[test]
    fn fingerprint_follows_input_and_every_option() {
        let (_, bytes) = samples().into_iter().next().expect("a sample");
        let base = fingerprint(&bytes, None);
        assert_eq!(
            base,
            fingerprint(&bytes, Some(&defaults())),
            "NULL is the defaults"
        );
        assert_eq!(base, fingerprint(&bytes, None), "deterministic");
        let mut other = bytes.clone();
        other[40] ^= 1;
        assert_ne!(base, fingerprint(&other, None));
        let changes: [fn(&mut dxbc2spv_options); 7] = [
            |o| o.target = 3,
            |o| o.flags ^= crate::options::DXBC2SPV_FLAG_DEBUG_NAMES,
            |o| o.float_controls = 1,
            |o| o.bindings = 2,
            |o| o.hull_schedule = 1,
            |o| o.rov_interlock = 1,
            |o| {
                o.bindings = 1;
                o.bindings_set = 3;
            },
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut o = defaults();
            change(&mut o);
            assert_ne!(base, fingerprint(&bytes, Some(&o)), "change {i}");
        }
        let domain = crate::dxbc2spv_domain_modes {
            stype: crate::options::DXBC2SPV_STRUCTURE_TYPE_DOMAIN_MODES,
            next: std::ptr::null(),
            partitioning: 1,
            output_primitive: 3,
        };
        let mut o = defaults();
        o.next = std::ptr::from_ref(&domain).cast();
        assert_ne!(base, fingerprint(&bytes, Some(&o)), "a chained block");
    }

    /// The new option blocks are in the key; a binding callback (handed to the translator as
    /// `Bindings::Custom`) needs the caller's key bytes, and its key is what is hashed.
    #[test]
    fn new_blocks_and_callback_keys_are_in_the_fingerprint() {
        unsafe extern "C" fn map(
            _: *mut c_void,
            _: *const crate::dxbc2spv_register_range,
            _: *mut crate::dxbc2spv_binding_target,
        ) -> c_int {
            1
        }
        let (_, bytes) = samples().into_iter().next().expect("a sample");
        let base = fingerprint(&bytes, None);
        let mut state = std::mem::MaybeUninit::<crate::dxbc2spv_pipeline_state>::uninit();
        // SAFETY: writable.
        unsafe { crate::dxbc2spv_pipeline_state_init(state.as_mut_ptr()) };
        // SAFETY: initialised.
        let mut state = unsafe { state.assume_init() };
        let mut o = defaults();
        o.next = std::ptr::from_ref(&state).cast();
        assert_eq!(
            base,
            fingerprint(&bytes, Some(&o)),
            "defaults change nothing"
        );
        state.force_sample_rate = 1;
        o.next = std::ptr::from_ref(&state).cast();
        assert_ne!(base, fingerprint(&bytes, Some(&o)), "pipeline state");

        let key = *b"layout 1";
        let mut cb = crate::dxbc2spv_binding_callback {
            stype: crate::options::DXBC2SPV_STRUCTURE_TYPE_BINDING_CALLBACK,
            next: std::ptr::null(),
            callback: Some(map),
            user_data: std::ptr::null_mut(),
            key: std::ptr::null(),
            key_size: 0,
        };
        let mut o = defaults();
        o.next = std::ptr::from_ref(&cb).cast();
        let mut out = [0u8; 32];
        // SAFETY: valid buffers and options.
        let status = unsafe {
            dxbc2spv_fingerprint(bytes.as_ptr().cast(), bytes.len(), &o, out.as_mut_ptr())
        };
        assert_eq!(status, DXBC2SPV_ERROR_INVALID_ARGUMENT, "no key");
        cb.key = key.as_ptr().cast();
        cb.key_size = key.len();
        o.next = std::ptr::from_ref(&cb).cast();
        let first = fingerprint(&bytes, Some(&o));
        assert_eq!(first, fingerprint(&bytes, Some(&o)), "stable");
        let other = *b"layout 2";
        cb.key = other.as_ptr().cast();
        o.next = std::ptr::from_ref(&cb).cast();
        assert_ne!(first, fingerprint(&bytes, Some(&o)), "the key is hashed");
    }

    #[test]
    fn top_level_fields_skip_nested_ones() {
        let d = r#"O { a: X { b: 1, c: [2, 3] }, d: Some("e, f: g"), h: (1, 2) }"#;
        assert_eq!(top_level_fields(d), ["a", "d", "h"]);
    }
}
