//! The translator's error type: every failure of [`translate`](crate::translate) is one value
//! that says what went wrong and at which byte offset of the DXBC input.

use crate::bindings::BindingError;
use crate::dxbc::DecodeError;
use crate::ir::ValidationError;

/// Why a translation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The bytes are not a well-formed DXBC container or shader program.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The program decodes, but breaks a rule of the shader model (an undeclared register, an
    /// `endif` without `if`, an operand of the wrong kind, ...).
    #[error("invalid shader: {message} at 0x{offset:x}")]
    Invalid {
        /// Byte offset of the offending instruction or declaration.
        offset: u32,
        /// What is wrong.
        message: String,
    },
    /// A valid program that uses something this translator cannot (yet) translate.
    #[error("unsupported: {feature} at 0x{offset:x}")]
    Unsupported {
        /// Byte offset of the instruction or declaration that needs it.
        offset: u32,
        /// The feature, named as a user would search for it.
        feature: String,
    },
    /// The binding map has no place for a resource the shader declares.
    #[error("binding of the declaration at 0x{offset:x}: {source}")]
    Binding {
        /// Byte offset of the declaration.
        offset: u32,
        /// The binding map's answer.
        source: BindingError,
    },
    /// The back end produced an invalid module (a translator bug, reported rather than emitted).
    #[error("SPIR-V emission failed: {0}")]
    Spirv(#[from] crate::spv::Error),
}

impl Error {
    /// An [`Error::Invalid`].
    pub fn invalid(offset: u32, message: impl Into<String>) -> Error {
        Error::Invalid {
            offset,
            message: message.into(),
        }
    }

    /// An [`Error::Unsupported`].
    pub fn unsupported(offset: u32, feature: impl Into<String>) -> Error {
        Error::Unsupported {
            offset,
            feature: feature.into(),
        }
    }

    /// The byte offset in the DXBC input the error points at, when it has one.
    pub fn offset(&self) -> Option<u32> {
        match self {
            Error::Decode(e) => Some(e.offset),
            Error::Invalid { offset, .. }
            | Error::Unsupported { offset, .. }
            | Error::Binding { offset, .. } => Some(*offset),
            Error::Spirv(_) => None,
        }
    }
}

impl From<ValidationError> for Error {
    fn from(e: ValidationError) -> Error {
        Error::Invalid {
            offset: e.offset,
            message: e.message,
        }
    }
}
