//! The lowering's error: why a decoded DXBC program could not become an IR module.
//!
//! Contract: [`Error::Decode`] is an instruction that did not decode (the program is read
//! lazily, so decoding errors surface here); [`Error::Invalid`] is a program that decodes but
//! breaks a rule of the shader model or a D3D limit; [`Error::Unsupported`] a valid construct
//! the translation lacks, named as a user would search for it. Messages are [`Located`] at the
//! instruction's byte offset; the facade composes them into the crate's error unchanged. Two
//! words: every variant is a box.

use crate::front::dxbc::DecodeError;
use crate::ir::Located;

/// Why lowering failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// An instruction or structure that does not decode.
    Decode(DecodeError),
    /// A rule of the shader model or a D3D limit is broken.
    Invalid(Box<Located<String>>),
    /// A valid construct this translator cannot translate (yet).
    Unsupported(Box<Located<String>>),
}

crate::ir::located_constructors!(Error {
    invalid => Invalid,
    unsupported => Unsupported,
});

impl Error {
    /// The byte offset the error points at.
    pub fn offset(&self) -> u32 {
        match self {
            Error::Decode(e) => e.offset,
            Error::Invalid(e) | Error::Unsupported(e) => e.offset,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Decode(e) => write!(f, "{e}"),
            Error::Invalid(e) => write!(f, "at 0x{:x}: {}", e.offset, e.what),
            Error::Unsupported(e) => write!(f, "at 0x{:x}: unsupported: {}", e.offset, e.what),
        }
    }
}

impl std::error::Error for Error {}

impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Error {
        Error::Decode(e)
    }
}
