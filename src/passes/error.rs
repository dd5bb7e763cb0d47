//! The passes' error: why an IR module could not be rewritten.
//!
//! Contract: [`Error::Binding`] is a declared range the caller's binding map has no place for
//! (the map's answer, at the declaration); [`Error::Invalid`] a rule of the shader model a pass
//! is the first to check (a case value twice in a switch, a counter operation on a view without
//! one); [`Error::Unsupported`] a construct the translation lacks; [`Error::Internal`] a module
//! the front end should never have produced. Messages are [`Located`] at the instruction's byte
//! offset; the facade composes them into the crate's error unchanged. Two words: every variant
//! is a box.

use crate::ir::binding::BindingError;
use crate::ir::Located;

/// Why a pass failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The binding map has no place for a range the module declares.
    Binding(Box<Located<BindingError>>),
    /// A rule of the shader model is broken.
    Invalid(Box<Located<String>>),
    /// A valid construct this translator cannot translate (yet).
    Unsupported(Box<Located<String>>),
    /// A condition the front end rules out: a translator bug.
    Internal(Box<Located<String>>),
}

crate::ir::located_constructors!(Error {
    invalid => Invalid,
    unsupported => Unsupported,
    internal => Internal,
});

impl Error {
    /// An [`Error::Binding`] at `offset`.
    #[cold]
    pub fn binding(offset: u32, source: BindingError) -> Error {
        Error::Binding(Box::new(Located::new(offset, source)))
    }

    /// The byte offset the error points at.
    pub fn offset(&self) -> Option<u32> {
        Some(match self {
            Error::Binding(e) => e.offset,
            Error::Invalid(e) | Error::Unsupported(e) | Error::Internal(e) => e.offset,
        })
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Binding(e) => write!(f, "at 0x{:x}: binding: {}", e.offset, e.what),
            Error::Invalid(e) => write!(f, "at 0x{:x}: {}", e.offset, e.what),
            Error::Unsupported(e) => write!(f, "at 0x{:x}: unsupported: {}", e.offset, e.what),
            Error::Internal(e) => write!(f, "at 0x{:x}: internal error: {}", e.offset, e.what),
        }
    }
}

impl std::error::Error for Error {}
