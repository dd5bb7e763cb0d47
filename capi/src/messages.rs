//! Warnings from C: the non-fatal diagnostics of a successful translation (the Rust
//! [`Translation::warnings`](translator::Translation::warnings)), delivered to the message
//! callback and kept by a translator for [`dxbc2spv_translator_message`].
//!
//! Contract: each warning becomes one [`dxbc2spv_message`] with severity
//! `DXBC2SPV_SEVERITY_WARNING` or `_INFO`, status 0, the byte offset and instruction when it
//! has them, its text in the error form (`at 0x<offset> (<instruction>): <message>`) and its
//! stable `DXBC2SPV_WARNING_*` kind. The callback gets them, in order, before the translate
//! function returns; a translator keeps them with its reflection (until its next translation).

use std::ffi::{c_int, CString};

use translator::{Severity, Warning};

use crate::options::{
    dxbc2spv_message, MessageSink, DXBC2SPV_SEVERITY_INFO, DXBC2SPV_SEVERITY_WARNING,
};
use crate::{dxbc2spv_translator, guard, DXBC2SPV_ERROR_INVALID_ARGUMENT, DXBC2SPV_OK};

/// A typed UAV that the shader reads has no listed format and is declared with the R32 format
/// of its return type: a view of another format reads wrong values.
pub const DXBC2SPV_WARNING_TYPED_UAV_FORMAT_ASSUMED: u32 = 1;
/// `discard` is `OpKill` (`DXBC2SPV_FLAG_DEMOTE_TO_HELPER` off): derivatives the quad takes
/// after it are undefined.
pub const DXBC2SPV_WARNING_DISCARD_ENDS_INVOCATION: u32 = 2;
/// A constant index past a constant buffer's declared size: the read gives 0.
pub const DXBC2SPV_WARNING_CONSTANT_BUFFER_READ_PAST_SIZE: u32 = 3;
/// The program does not declare `refactoringAllowed`, but only `[precise]` instructions are
/// `NoContraction`.
pub const DXBC2SPV_WARNING_STRICT_FLOAT_ORDER_NOT_KEPT: u32 = 4;
/// Minimum-precision values are computed at 32 bits (information).
pub const DXBC2SPV_WARNING_MINIMUM_PRECISION_AT_32_BITS: u32 = 5;

/// A warning as C sees it, its strings owned.
pub(crate) struct Message {
    severity: u32,
    kind: u32,
    offset: Option<u32>,
    instruction: Option<CString>,
    text: CString,
}

impl Message {
    pub(crate) fn new(w: &Warning) -> Message {
        Message {
            severity: match w.severity() {
                Severity::Warning => DXBC2SPV_SEVERITY_WARNING,
                _ => DXBC2SPV_SEVERITY_INFO,
            },
            kind: w.kind.code(),
            offset: w.offset,
            instruction: w.instruction.map(crate::c_string),
            text: crate::c_string(&w.to_string()),
        }
    }

    /// The C form, pointing into `self`.
    fn view(&self) -> dxbc2spv_message {
        dxbc2spv_message {
            severity: self.severity,
            status: 0,
            has_offset: u32::from(self.offset.is_some()),
            offset: self.offset.unwrap_or(0),
            instruction: self
                .instruction
                .as_ref()
                .map_or(std::ptr::null(), |s| s.as_ptr()),
            text: self.text.as_ptr(),
            kind: self.kind,
        }
    }
}

/// Sends `warnings` to `sink`, in order.
pub(crate) fn deliver(sink: &MessageSink, warnings: &[Warning]) {
    for w in warnings {
        let m = Message::new(w);
        let view = m.view();
        // SAFETY: the caller gave a callback that accepts its own user data and a message
        // valid for the call.
        unsafe { (sink.callback)(sink.user_data, &view) };
    }
}

/// Warning `index` (below `shader_info.message_count`) of the translator's last successful
/// translation, written to `message`; its strings stay valid until the translator's next
/// translation or its destruction. Errors: `DXBC2SPV_ERROR_INVALID_ARGUMENT` (NULL),
/// `DXBC2SPV_ERROR_NOT_AVAILABLE` (no translation, or `index` past the end).
///
/// # Safety
/// `translator` is NULL or live; `message` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_message(
    translator: *const dxbc2spv_translator,
    index: usize,
    message: *mut dxbc2spv_message,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = match unsafe { crate::reflection::last(translator) } {
            Ok(r) => r,
            Err(code) => return code,
        };
        // SAFETY: the caller's contract.
        let Some(out) = (unsafe { message.as_mut() }) else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        let Some(m) = r.messages.get(index) else {
            return crate::DXBC2SPV_ERROR_NOT_AVAILABLE;
        };
        *out = m.view();
        DXBC2SPV_OK
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use translator::WarningKind;

    /// Every Rust kind has its C constant, with the same number.
    #[test]
    fn c_constants_are_the_rust_codes() {
        let c = [
            (
                WarningKind::TypedUavFormatAssumed,
                DXBC2SPV_WARNING_TYPED_UAV_FORMAT_ASSUMED,
            ),
            (
                WarningKind::DiscardEndsInvocation,
                DXBC2SPV_WARNING_DISCARD_ENDS_INVOCATION,
            ),
            (
                WarningKind::ConstantBufferReadPastSize,
                DXBC2SPV_WARNING_CONSTANT_BUFFER_READ_PAST_SIZE,
            ),
            (
                WarningKind::StrictFloatOrderNotKept,
                DXBC2SPV_WARNING_STRICT_FLOAT_ORDER_NOT_KEPT,
            ),
            (
                WarningKind::MinimumPrecisionAt32Bits,
                DXBC2SPV_WARNING_MINIMUM_PRECISION_AT_32_BITS,
            ),
        ];
        assert_eq!(c.len(), WarningKind::ALL.len());
        for (kind, value) in c {
            assert_eq!(kind.code(), value, "{kind:?}");
        }
    }
}
