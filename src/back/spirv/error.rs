//! The back end's error: why an IR module could not be written as SPIR-V.
//!
//! Contract: the back end receives modules that passed [`ir::validate`](crate::ir::validate)
//! and the passes, so most conditions it checks can only be reached by a translator bug: those
//! are [`Error::Internal`], never reported as bad input. [`Error::Invalid`] is kept for the
//! few rules of D3D that only the back end sees (an operation on a resource of the wrong
//! shape, a stage register in the wrong stage) and [`Error::Unsupported`] names a feature
//! the translation lacks. Misuse of the SPIR-V writer, found when the module is finished, is
//! [`Error::Writer`]. Each message is a [`Located`] at the IR span (the input's byte offset);
//! the facade turns these into the crate's error without re-wording them.

use crate::ir::Located;

/// Why emission failed. Two words: each variant is a box, so results come back in registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The module breaks a rule of D3D that validation does not check.
    Invalid(Box<Located<String>>),
    /// A valid module that uses something the back end cannot translate (yet).
    Unsupported(Box<Located<String>>),
    /// A condition validation rules out: a translator bug, reported rather than emitted.
    Internal(Box<Located<String>>),
    /// The SPIR-V writer reported misuse when the module was finished (a translator bug).
    Writer(Box<crate::spv::Error>),
}

crate::ir::located_constructors!(Error {
    invalid => Invalid,
    unsupported => Unsupported,
    internal => Internal,
});

impl Error {
    /// The byte offset the error points at, when it has one.
    pub fn offset(&self) -> Option<u32> {
        match self {
            Error::Invalid(e) | Error::Unsupported(e) | Error::Internal(e) => Some(e.offset),
            Error::Writer(_) => None,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Invalid(e) => write!(f, "at 0x{:x}: {}", e.offset, e.what),
            Error::Unsupported(e) => write!(f, "at 0x{:x}: unsupported: {}", e.offset, e.what),
            Error::Internal(e) => write!(f, "at 0x{:x}: internal error: {}", e.offset, e.what),
            Error::Writer(e) => write!(f, "SPIR-V emission failed: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::spv::Error> for Error {
    fn from(e: crate::spv::Error) -> Error {
        Error::Writer(Box::new(e))
    }
}
