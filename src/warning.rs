//! Non-fatal diagnostics of a successful translation: where the module does something other
//! than exactly what the shader asked (a behaviour emulated or approximated, an access that
//! reads zero, a hint not carried over) or something a runtime may want in its log.
//!
//! Contract: a [`Warning`] has a [`Severity`], a stable [`WarningKind`] (its
//! [`WarningKind::code`] never changes once released; new kinds get new codes), the byte offset
//! in the input and the instruction there when the condition has one, and a message. They
//! never change the output: the same module is written with or without anyone reading them.
//! A translation with nothing to report allocates nothing for them. They display as errors do:
//! `at 0x<offset> (<instruction>): <message>`, or the message alone without an offset.

use std::fmt;

/// How much a [`Warning`] matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The module behaves differently from D3D in some case the shader can reach.
    Warning,
    /// Information: what the module does is allowed by D3D, but a runtime may want to know.
    Info,
}

impl Severity {
    /// `warning` or `info`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// What a [`Warning`] is about. Each kind has a stable [`WarningKind::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// A typed UAV that the shader reads has no listed format and is declared with the R32
    /// format of its return type ([`crate::UnlistedUavFormat::R32OfReturnType`]): a view of
    /// another format reads wrong values. Offset: the declaration.
    TypedUavFormatAssumed,
    /// `discard` is `OpKill` ([`crate::OptionFlags::DEMOTE_TO_HELPER`] off): the discarded
    /// invocation ends instead of running on as a helper, so derivatives its quad takes after
    /// it are undefined. Offset: the first `discard`.
    DiscardEndsInvocation,
    /// A constant-buffer operand with a constant index past the buffer's declared size: it
    /// reads 0, whatever the bound buffer holds there. Offset: the instruction.
    ConstantBufferReadPastSize,
    /// The program does not declare `refactoringAllowed`: D3D then keeps the order of its
    /// float operations, but only `[precise]` instructions are decorated `NoContraction`, so
    /// the driver may fuse multiplies and adds. Offset: the first float operation affected.
    StrictFloatOrderNotKept,
    /// The program declares `enableMinimumPrecision`: minimum-precision values are computed
    /// at 32 bits (as D3D allows). No offset.
    MinimumPrecisionAt32Bits,
}

impl WarningKind {
    /// Every kind, in [`WarningKind::code`] order.
    pub const ALL: [WarningKind; 5] = [
        WarningKind::TypedUavFormatAssumed,
        WarningKind::DiscardEndsInvocation,
        WarningKind::ConstantBufferReadPastSize,
        WarningKind::StrictFloatOrderNotKept,
        WarningKind::MinimumPrecisionAt32Bits,
    ];

    /// The stable number of the kind (from 1; the C API's `DXBC2SPV_WARNING_*`).
    pub fn code(self) -> u32 {
        match self {
            WarningKind::TypedUavFormatAssumed => 1,
            WarningKind::DiscardEndsInvocation => 2,
            WarningKind::ConstantBufferReadPastSize => 3,
            WarningKind::StrictFloatOrderNotKept => 4,
            WarningKind::MinimumPrecisionAt32Bits => 5,
        }
    }

    /// The severity warnings of this kind have.
    pub fn severity(self) -> Severity {
        match self {
            WarningKind::MinimumPrecisionAt32Bits => Severity::Info,
            _ => Severity::Warning,
        }
    }
}

/// One non-fatal diagnostic of a translation ([`crate::Translation::warnings`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// What it is about.
    pub kind: WarningKind,
    /// The byte offset in the input, when the condition has one.
    pub offset: Option<u32>,
    /// The instruction or structure at `offset` (fxc's mnemonic), when known.
    pub instruction: Option<&'static str>,
    /// What happened, in words.
    pub message: String,
}

impl Warning {
    /// A warning of `kind` at `offset` (the instruction is named later, by the pipeline).
    pub fn new(kind: WarningKind, offset: Option<u32>, message: impl Into<String>) -> Warning {
        Warning {
            kind,
            offset,
            instruction: None,
            message: message.into(),
        }
    }

    /// The kind's severity.
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.offset, self.instruction) {
            (Some(at), Some(name)) => write!(f, "at {at:#x} ({name}): {}", self.message),
            (Some(at), None) => write!(f, "at {at:#x}: {}", self.message),
            (None, _) => f.write_str(&self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Codes are distinct, from 1, in `ALL` order; display follows the error form.
    #[test]
    fn codes_are_stable_and_display_names_the_offset() {
        let codes: Vec<u32> = WarningKind::ALL.iter().map(|k| k.code()).collect();
        assert_eq!(codes, [1, 2, 3, 4, 5]);
        let mut w = Warning::new(WarningKind::DiscardEndsInvocation, Some(0x1a4), "x");
        assert_eq!(w.to_string(), "at 0x1a4: x");
        w.instruction = Some("discard_nz");
        assert_eq!(w.to_string(), "at 0x1a4 (discard_nz): x");
        let w = Warning::new(WarningKind::MinimumPrecisionAt32Bits, None, "y");
        assert_eq!(
            (w.to_string().as_str(), w.severity()),
            ("y", Severity::Info)
        );
    }
}
