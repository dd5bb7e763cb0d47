//! Decode errors: every one carries the absolute byte offset in the input where decoding failed.
//!
//! Contract: nothing in [`crate::front::dxbc`] panics or allocates without bound on hostile input; each
//! failure is returned as a [`DecodeError`] whose offset points into the original DXBC bytes.

use std::fmt;

/// An error found while decoding DXBC bytes, with the byte offset where it was found: a box
/// of [`DecodeErrorDetail`] (its fields read through the box), one word, so that the decoder's
/// many `Result`s are returned in registers.
///
/// Displays as `at 0x<offset> (<context>): <kind>`, the shape of every located error of the
/// crate (see [`crate::Error`]); without a context, `at 0x<offset>: <kind>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Box<DecodeErrorDetail>);

/// What a [`DecodeError`] says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeErrorDetail {
    /// Absolute byte offset into the container (or the buffer handed to the decoder).
    pub offset: u32,
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// The instruction (opcode name) or structure being decoded, when known.
    pub context: Option<&'static str>,
}

impl std::ops::Deref for DecodeError {
    type Target = DecodeErrorDetail;
    fn deref(&self) -> &DecodeErrorDetail {
        &self.0
    }
}

impl std::ops::DerefMut for DecodeError {
    fn deref_mut(&mut self) -> &mut DecodeErrorDetail {
        &mut self.0
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

    /// The same error, found at `offset` instead.
    pub fn at(mut self, offset: u32) -> Self {
        self.0.offset = offset;
        self
    }

    /// The same error, naming the instruction or structure it was found in.
    pub fn with_context(mut self, context: &'static str) -> Self {
        if self.context.is_none() {
            self.context = Some(context);
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::error::write_location(f, self.offset, self.context)?;
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for DecodeError {}

/// The kinds of decode failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The data ends before a structure does.
    #[error("unexpected end of data: {needed} bytes needed, {available} available")]
    UnexpectedEof {
        /// Bytes the structure needs.
        needed: u64,
        /// Bytes left in the enclosing range.
        available: u64,
    },
    /// The container does not start with `DXBC`.
    #[error("not a DXBC container: magic {found:02x?}")]
    BadMagic {
        /// The first four bytes found.
        found: [u8; 4],
    },
    /// The stored checksum differs from the computed one.
    #[error("checksum mismatch: stored {stored}, computed {computed}")]
    ChecksumMismatch {
        /// Checksum in the header, as 32 hex digits.
        stored: String,
        /// Checksum over the data, as 32 hex digits.
        computed: String,
    },
    /// A count or size is larger than D3D allows or than the data could hold.
    #[error("{what} {value} exceeds the limit {limit}")]
    LimitExceeded {
        /// What was counted.
        what: &'static str,
        /// The value found.
        value: u64,
        /// The largest value accepted.
        limit: u64,
    },
    /// A size field disagrees with the data.
    #[error("{what} is {declared} bytes but {actual} are available")]
    SizeMismatch {
        /// Which size field.
        what: &'static str,
        /// The declared size.
        declared: u64,
        /// The size that is there.
        actual: u64,
    },
    /// A region (a table, a program) declared by offset and size lies outside the range it
    /// must lie in.
    #[error("{what} at bytes {start}..{end} lies outside {lower}..{limit}")]
    OutOfRange {
        /// Which region.
        what: &'static str,
        /// Its first byte, relative to the enclosing structure.
        start: u64,
        /// One past its last byte, relative to the enclosing structure.
        end: u64,
        /// The first byte it may occupy.
        lower: u64,
        /// One past the last byte it may occupy (the enclosing structure's size).
        limit: u64,
    },
    /// An opcode number not defined in any shader model.
    #[error("unknown opcode {0}")]
    UnknownOpcode(u32),
    /// A field holds a value outside its enumeration.
    #[error("invalid {what} {value:#x}")]
    InvalidValue {
        /// Which field.
        what: &'static str,
        /// The value found.
        value: u32,
    },
    /// A structure is malformed in a way described by the message.
    #[error("{0}")]
    Malformed(&'static str),
    /// A string is not nul-terminated inside its chunk or is not UTF-8.
    #[error("invalid string")]
    InvalidString,
    /// A required chunk is absent.
    #[error("missing {0} chunk")]
    MissingChunk(&'static str),
    /// A DXIL (Shader Model 6) container: valid, but not SM4/5 bytecode.
    #[error("DXIL container (Shader Model 6.x), not DXBC shader bytecode")]
    Dxil,
}

/// Result alias for decoding.
pub type Result<T, E = DecodeError> = std::result::Result<T, E>;
