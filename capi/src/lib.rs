//! The C API of dxbc2spv: `libdxbc2spv.so` / `libdxbc2spv.a` and `include/dxbc2spv.h`
//! (generated from this crate by cbindgen; `docs/c-api.md`).
//!
//! Contract, for every exported function:
//! - a panic never unwinds into C: each body runs under [`std::panic::catch_unwind`] and a
//!   caught panic is [`DXBC2SPV_ERROR_INTERNAL`] (with its message in `out->error` where the
//!   function has an output);
//! - every pointer is checked: a NULL where one is required is
//!   [`DXBC2SPV_ERROR_INVALID_ARGUMENT`], never a crash;
//! - no global state: [`dxbc2spv_translate`] keeps only bounded per-thread buffers (any number
//!   of threads may call it), a [`dxbc2spv_translator`] is used by one thread at a time;
//! - memory the library returns is released by the library ([`dxbc2spv_output_free`],
//!   [`dxbc2spv_translator_destroy`]).
//!
//! Extensibility (ABI): option and reflection structures never change layout once released.
//! Options grow by new blocks chained through `next` (each starts with `type` and `next`, as
//! Vulkan's `sType`/`pNext`); reflection structures that the library fills start with a `size`
//! the caller sets to `sizeof`, and the library writes only that many bytes, so a program
//! built against an older header keeps working with a newer library.
#![deny(missing_docs)]
#![allow(non_camel_case_types)]
#![warn(clippy::unwrap_used, clippy::panic, clippy::print_stdout)]

mod bindings;
mod buffers;
mod d3d9;
mod d3d9_state;
#[cfg(test)]
mod d3d9_tests;
mod fingerprint;
mod linking;
mod messages;
mod options;
mod reflection;
mod state;

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use translator::{Error, ErrorKind, Options, Translation, Translator};

pub use bindings::*;
pub use buffers::*;
pub use d3d9::*;
pub use fingerprint::*;
pub use linking::*;
pub use messages::*;
pub use options::*;
pub use reflection::*;
pub use state::*;

/// Success.
pub const DXBC2SPV_OK: c_int = 0;
/// A NULL pointer where one is required, or an option the library does not know or accept
/// (`out->error` says which).
pub const DXBC2SPV_ERROR_INVALID_ARGUMENT: c_int = -1;
/// The bytes are not a well-formed DXBC container or shader program.
pub const DXBC2SPV_ERROR_DECODE: c_int = -2;
/// The program breaks a rule of the shader model.
pub const DXBC2SPV_ERROR_INVALID: c_int = -3;
/// A valid program uses something the translator cannot translate (the error names it).
pub const DXBC2SPV_ERROR_UNSUPPORTED: c_int = -4;
/// The binding map has no place for a resource the shader declares.
pub const DXBC2SPV_ERROR_BINDING: c_int = -5;
/// A translator bug, reported instead of a wrong result (also a caught panic).
pub const DXBC2SPV_ERROR_INTERNAL: c_int = -6;
/// The query has no answer: no successful translation yet, or an index past the end.
pub const DXBC2SPV_ERROR_NOT_AVAILABLE: c_int = -7;

/// The version of this C API (bumped when a function or structure is added); compare with
/// [`dxbc2spv_api_version`] to know what the loaded library has.
pub const DXBC2SPV_API_VERSION: u32 = 5;

/// The result of a translation.
///
/// Owned by the library once filled: release it with [`dxbc2spv_output_free`] (which also
/// resets it to NULL/0). A function that fills it overwrites it without freeing it first.
#[repr(C)]
pub struct dxbc2spv_output {
    /// The SPIR-V module; NULL on failure.
    pub spirv: *mut u32,
    /// Words in `spirv`; 0 on failure.
    pub spirv_words: usize,
    /// NULL on success; otherwise UTF-8, nul-terminated, naming the byte offset and the
    /// instruction (`at 0x1a4 (dcl_temps): 70000 temps exceeds the limit 4096`).
    pub error: *mut c_char,
}

/// A translator: translates shaders one after another, reusing its buffers, and keeps the
/// reflection of its last successful translation for the `dxbc2spv_translator_*` queries.
/// Create with [`dxbc2spv_translator_create`], release with [`dxbc2spv_translator_destroy`].
/// One thread at a time (it may move between threads).
pub struct dxbc2spv_translator {
    inner: Translator,
    last: Option<reflection::Reflection>,
}

/// A failure on its way to C: the status code and the message for `out->error`.
pub(crate) struct Failure {
    pub(crate) code: c_int,
    pub(crate) message: String,
    /// The byte offset in the input, when the failure has one.
    pub(crate) offset: Option<u32>,
    /// The instruction or structure at `offset`, when known.
    pub(crate) instruction: Option<&'static str>,
}

impl Failure {
    pub(crate) fn invalid_argument(message: impl Into<String>) -> Failure {
        Failure {
            code: DXBC2SPV_ERROR_INVALID_ARGUMENT,
            message: message.into(),
            offset: None,
            instruction: None,
        }
    }

    pub(crate) fn from_error(e: &Error) -> Failure {
        Failure {
            code: status_of(e.kind()),
            message: e.to_string(),
            offset: e.offset(),
            instruction: e.instruction(),
        }
    }
}

/// The status code of an error kind.
fn status_of(kind: ErrorKind) -> c_int {
    match kind {
        ErrorKind::Decode => DXBC2SPV_ERROR_DECODE,
        ErrorKind::Invalid => DXBC2SPV_ERROR_INVALID,
        ErrorKind::Unsupported => DXBC2SPV_ERROR_UNSUPPORTED,
        ErrorKind::Binding => DXBC2SPV_ERROR_BINDING,
        _ => DXBC2SPV_ERROR_INTERNAL,
    }
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("internal error: panic in dxbc2spv: {what}")
}

/// Runs `f`, turning a panic into [`DXBC2SPV_ERROR_INTERNAL`].
pub(crate) fn guard(f: impl FnOnce() -> c_int) -> c_int {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(DXBC2SPV_ERROR_INTERNAL)
}

/// `bytes` of a C buffer; `None` for a NULL pointer.
///
/// # Safety
/// `data` is NULL or points to `size` readable bytes.
pub(crate) unsafe fn slice<'a, T>(data: *const T, size: usize) -> Option<&'a [T]> {
    if data.is_null() {
        None
    } else if size == 0 {
        Some(&[])
    } else {
        // SAFETY: the caller guarantees `size` readable elements at `data`.
        Some(unsafe { std::slice::from_raw_parts(data, size) })
    }
}

/// A C string for C, with interior NULs (never produced by the translator) replaced.
pub(crate) fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "\u{fffd}")).unwrap_or_default()
}

/// Fills `out` with a translation's words or a failure's message.
fn write_output(out: &mut dxbc2spv_output, result: Result<Vec<u32>, Failure>) -> c_int {
    match result {
        Ok(words) => {
            let words = words.into_boxed_slice();
            out.spirv_words = words.len();
            out.spirv = Box::into_raw(words).cast::<u32>();
            DXBC2SPV_OK
        }
        Err(failure) => {
            out.error = c_string(&failure.message).into_raw();
            failure.code
        }
    }
}

/// The shared body of the translate functions: checks the arguments, converts the options,
/// runs `run` (under `catch_unwind`), reports the error to the message callback and fills `out`.
///
/// # Safety
/// As [`dxbc2spv_translate`].
unsafe fn translate_impl(
    dxbc: *const c_void,
    size: usize,
    options: *const dxbc2spv_options,
    out: *mut dxbc2spv_output,
    run: impl FnOnce(&[u8], &options::Converted) -> Result<Translation, Failure>,
) -> c_int {
    // SAFETY: `out` is NULL or points to a writable `dxbc2spv_output` (the caller's contract).
    let Some(out) = (unsafe { out.as_mut() }) else {
        return DXBC2SPV_ERROR_INVALID_ARGUMENT;
    };
    *out = dxbc2spv_output {
        spirv: ptr::null_mut(),
        spirv_words: 0,
        error: ptr::null_mut(),
    };
    let mut sink = None;
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `dxbc` is NULL or holds `size` bytes.
        let bytes = unsafe { slice(dxbc.cast::<u8>(), size) }
            .ok_or_else(|| Failure::invalid_argument("dxbc is NULL"))?;
        // SAFETY: `options` is NULL or a valid options chain.
        let converted = unsafe { options::convert(options) }?;
        sink = converted.messages;
        let translation = run(bytes, &converted)?;
        if let Some(sink) = &sink {
            messages::deliver(sink, translation.warnings());
        }
        Ok(translation.spirv)
    }))
    .unwrap_or_else(|payload| {
        Err(Failure {
            code: DXBC2SPV_ERROR_INTERNAL,
            message: panic_message(&*payload),
            offset: None,
            instruction: None,
        })
    });
    if let (Err(failure), Some(sink)) = (&result, sink) {
        sink.error(failure);
    }
    write_output(out, result)
}

/// Translates with the per-thread buffers (a binding callback as the map).
fn run_shared(bytes: &[u8], converted: &options::Converted) -> Result<Translation, Failure> {
    let options = bindings::resolve(converted);
    translator::translate(bytes, &options).map_err(|e| Failure::from_error(&e))
}

/// Translates with `inner`'s buffers.
fn run_own(
    inner: &mut Translator,
    bytes: &[u8],
    converted: &options::Converted,
) -> Result<Translation, Failure> {
    let options: Options = bindings::resolve(converted);
    inner
        .translate(bytes, &options)
        .map_err(|e| Failure::from_error(&e))
}

/// Translates the DXBC container `dxbc` (`size` bytes) to SPIR-V.
///
/// `options`: NULL for the defaults, else a structure set up by [`dxbc2spv_options_init`]
/// with further option blocks chained through `next`. `out` receives the words or the error
/// (it is overwritten, not freed: release a previous result first). Returns [`DXBC2SPV_OK`]
/// or a negative `DXBC2SPV_ERROR_*` code. Thread-safe: keeps only bounded per-thread buffers.
///
/// # Safety
/// `dxbc` points to `size` readable bytes; `options` is NULL or a valid options chain;
/// `out` is NULL (an error) or writable.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translate(
    dxbc: *const c_void,
    size: usize,
    options: *const dxbc2spv_options,
    out: *mut dxbc2spv_output,
) -> c_int {
    // SAFETY: forwarded caller contract.
    guard(|| unsafe { translate_impl(dxbc, size, options, out, run_shared) })
}

/// Releases what a translate function put in `out` and resets it to NULL/0. NULL and an
/// already released output are accepted.
///
/// # Safety
/// `out` is NULL or was filled by this library and not modified since.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_output_free(out: *mut dxbc2spv_output) {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(out) = (unsafe { out.as_mut() }) else {
            return DXBC2SPV_OK;
        };
        if !out.spirv.is_null() {
            let words = ptr::slice_from_raw_parts_mut(out.spirv, out.spirv_words);
            // SAFETY: `spirv`/`spirv_words` came from `Box::into_raw` of a boxed slice.
            drop(unsafe { Box::from_raw(words) });
        }
        if !out.error.is_null() {
            // SAFETY: `error` came from `CString::into_raw`.
            drop(unsafe { CString::from_raw(out.error) });
        }
        out.spirv = ptr::null_mut();
        out.spirv_words = 0;
        out.error = ptr::null_mut();
        DXBC2SPV_OK
    });
}

/// A new translator without buffers; NULL only if memory ran out. Release it with
/// [`dxbc2spv_translator_destroy`].
#[no_mangle]
pub extern "C" fn dxbc2spv_translator_create() -> *mut dxbc2spv_translator {
    catch_unwind(|| {
        Box::into_raw(Box::new(dxbc2spv_translator {
            inner: Translator::new(),
            last: None,
        }))
    })
    .unwrap_or(ptr::null_mut())
}

/// Releases a translator and everything its queries returned. NULL is accepted.
///
/// # Safety
/// `translator` is NULL or came from [`dxbc2spv_translator_create`] and is not used again.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_destroy(translator: *mut dxbc2spv_translator) {
    guard(|| {
        if !translator.is_null() {
            // SAFETY: it came from `Box::into_raw` in `dxbc2spv_translator_create`.
            drop(unsafe { Box::from_raw(translator) });
        }
        DXBC2SPV_OK
    });
}

/// [`dxbc2spv_translate`] in `translator`'s buffers; on success the translator keeps the
/// shader's reflection for the `dxbc2spv_translator_*` queries (until its next translation),
/// on failure it has none.
///
/// # Safety
/// As [`dxbc2spv_translate`]; `translator` is NULL (an error) or a live translator not in use
/// by another thread.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_translate(
    translator: *mut dxbc2spv_translator,
    dxbc: *const c_void,
    size: usize,
    options: *const dxbc2spv_options,
    out: *mut dxbc2spv_output,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract.
        let Some(t) = (unsafe { translator.as_mut() }) else {
            // SAFETY: `out` is NULL or writable.
            if let Some(out) = unsafe { out.as_mut() } {
                *out = dxbc2spv_output {
                    spirv: ptr::null_mut(),
                    spirv_words: 0,
                    error: c_string("translator is NULL").into_raw(),
                };
            }
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        t.last = None;
        let mut last = None;
        let inner = &mut t.inner;
        // SAFETY: forwarded caller contract.
        let code = unsafe {
            translate_impl(dxbc, size, options, out, |bytes, converted| {
                let translation = run_own(inner, bytes, converted)?;
                last = Some(reflection::Reflection::new(bytes, &translation));
                Ok(translation)
            })
        };
        t.last = last;
        code
    })
}

/// Frees the buffers `translator` keeps for its next translation (its reflection stays).
///
/// # Safety
/// `translator` is NULL or a live translator not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_release_buffers(translator: *mut dxbc2spv_translator) {
    guard(|| {
        // SAFETY: the caller's contract.
        if let Some(t) = unsafe { translator.as_mut() } {
            t.inner.release_buffers();
        }
        DXBC2SPV_OK
    });
}

/// The library's version, `major.minor.patch`, nul-terminated, static.
#[no_mangle]
pub extern "C" fn dxbc2spv_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"unknown",
        };
    VERSION.as_ptr()
}

/// [`DXBC2SPV_API_VERSION`] of the loaded library.
#[no_mangle]
pub extern "C" fn dxbc2spv_api_version() -> u32 {
    DXBC2SPV_API_VERSION
}

/// A status code's name (`"DXBC2SPV_ERROR_DECODE"`), static; `"unknown"` for others.
#[no_mangle]
pub extern "C" fn dxbc2spv_status_name(status: c_int) -> *const c_char {
    let name: &CStr = match status {
        DXBC2SPV_OK => c"DXBC2SPV_OK",
        DXBC2SPV_ERROR_INVALID_ARGUMENT => c"DXBC2SPV_ERROR_INVALID_ARGUMENT",
        DXBC2SPV_ERROR_DECODE => c"DXBC2SPV_ERROR_DECODE",
        DXBC2SPV_ERROR_INVALID => c"DXBC2SPV_ERROR_INVALID",
        DXBC2SPV_ERROR_UNSUPPORTED => c"DXBC2SPV_ERROR_UNSUPPORTED",
        DXBC2SPV_ERROR_BINDING => c"DXBC2SPV_ERROR_BINDING",
        DXBC2SPV_ERROR_INTERNAL => c"DXBC2SPV_ERROR_INTERNAL",
        DXBC2SPV_ERROR_NOT_AVAILABLE => c"DXBC2SPV_ERROR_NOT_AVAILABLE",
        _ => c"unknown",
    };
    name.as_ptr()
}
