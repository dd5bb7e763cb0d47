//! Decode errors of the Direct3D 9 front end: each carries the absolute byte offset of the
//! token at fault and, when known, the instruction being decoded.
//!
//! Contract: nothing in [`crate::front::d3d9`] panics or allocates without bound on hostile
//! input; each failure is a [`DecodeError`] naming where it was found.

use std::fmt;

/// An error found while decoding a D3D9 token stream: where, what, and in which instruction.
/// Boxed, so that the decoder's `Result`s stay one word.
///
/// Displays as `at 0x<offset> (<context>): <kind>`, the shape of every located error of the
/// crate; without a context, `at 0x<offset>: <kind>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorDetail>);

/// What a [`DecodeError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeErrorDetail {
    /// Absolute byte offset of the token at fault.
    pub offset: u32,
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// The instruction (mnemonic) or structure being decoded, when known.
    pub context: Option<&'static str>,
}

impl std::ops::Deref for DecodeError {
    type Target = DecodeErrorDetail;
    fn deref(&self) -> &DecodeErrorDetail {
        &self.0
    }
}

impl DecodeError {
    /// An error of `kind` at `offset`, without context.
    #[cold]
    pub fn new(offset: u32, kind: DecodeErrorKind) -> Self {
        Self(Box::new(DecodeErrorDetail {
            offset,
            kind,
            context: None,
        }))
    }

    /// The same error, naming the instruction or structure it was found in (the first name
    /// given is kept).
    pub fn with_context(mut self, context: &'static str) -> Self {
        if self.0.context.is_none() {
            self.0.context = Some(context);
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {:#x}", self.offset)?;
        if let Some(context) = self.context {
            write!(f, " ({context})")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for DecodeError {}

/// The kinds of D3D9 decode failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input's size is not a whole number of dwords.
    #[error("the input is {0} bytes, not a whole number of 32-bit tokens")]
    UnalignedSize(usize),
    /// The stream ends before a token it needs.
    #[error("the stream ends inside {0}")]
    Truncated(&'static str),
    /// The first token is not a version token.
    #[error("{0:#010x} is not a D3D9 version token (0xFFFEmmnn vertex, 0xFFFFmmnn pixel)")]
    NotAVersionToken(u32),
    /// A version token of a version D3D9 does not define.
    #[error("unknown shader version {0:#010x}")]
    UnknownVersion(u32),
    /// An instruction opcode the table does not define.
    #[error("unknown opcode {0:#06x}")]
    UnknownOpcode(u16),
    /// A parameter token where an instruction token was expected (bit 31 set).
    #[error("{0:#010x} has bit 31 set: a parameter token where an instruction token was expected")]
    ParameterWhereInstructionExpected(u32),
    /// A token whose low 16 bits are the end opcode but whose other bits are not zero.
    #[error("malformed end token {0:#010x} (the end token is 0x0000FFFF)")]
    MalformedEnd(u32),
    /// A comment block whose data runs past the stream.
    #[error("comment block of {0} dwords runs past the end of the stream")]
    CommentPastEnd(u32),
    /// A register type number that is not defined.
    #[error("register type {0} is not defined")]
    UnknownRegisterType(u32),
    /// A source modifier number that is not defined.
    #[error("source modifier {0} is not defined")]
    UnknownSourceModifier(u32),
    /// A relative-address token naming something other than `a0` or `aL`.
    #[error("relative addressing through {0} (only a0 and aL address registers)")]
    BadRelativeRegister(&'static str),
    /// Controls that are not a comparison on an instruction that needs one.
    #[error("controls {0} are not a comparison (1 gt … 6 le)")]
    BadComparison(u8),
    /// An instruction whose length field disagrees with its operands.
    #[error("length field says {field} dwords but the operands take {operands}")]
    LengthMismatch {
        /// The length field (bits 24–27).
        field: u32,
        /// The dwords the instruction's operands take.
        operands: u32,
    },
    /// The stream has no end token.
    #[error("no end token (0x0000FFFF) before the end of the stream")]
    MissingEnd,
    /// Relative addressing (bit 13) where the version has none: sources of pixel shaders
    /// before ps_3_0 (no address register), destinations before shader model 3.
    #[error("{profile} has no relative addressing of {what}")]
    RelativeNotAllowed {
        /// fxc's profile name (`ps_2_0`).
        profile: String,
        /// `sources` or `destinations`.
        what: &'static str,
    },
    /// A shader model 1 parameter token without bit 31: without a length field, the operand
    /// count of the table says a parameter comes here, and the token says it is an instruction.
    #[error("{0:#010x} has bit 31 clear: an instruction token where a parameter was expected")]
    ParameterExpected(u32),
    /// A destination's result shift (bits 24–27) that is not one of 0, ±1, ±2, ±3 (`_x2`,
    /// `_x4`, `_x8`, `_d2`, `_d4`, `_d8`): 4–12 (where a source would have its modifier).
    #[error("result shift {0} is not defined (0-3 multiply, 13-15 divide)")]
    UnknownResultShift(u32),
    /// A `dcl` of an input or output whose usage (bits 0–4) is not defined.
    #[error("dcl usage {0} is not defined (0 position … 13 sample)")]
    UnknownUsage(u32),
    /// A `dcl` of a sampler whose texture type (bits 27–30) is not defined.
    #[error("sampler texture type {0} is not defined (2 2d, 3 cube, 4 volume)")]
    UnknownTextureType(u32),
}
