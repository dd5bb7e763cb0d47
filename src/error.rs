//! The translator's error type: every failure of [`translate`](crate::translate) is one value
//! that says what went wrong, at which byte offset of the DXBC input, and in which instruction
//! or structure.
//!
//! Contract: every variant with an offset displays as
//!
//! ```text
//! at 0x<offset> (<instruction>): <message>
//! ```
//!
//! where `<instruction>` is fxc's mnemonic of the instruction whose bytes hold the offset
//! ([`Opcode::name`](crate::front::dxbc::Opcode::name)), or the structure for offsets outside the
//! program (`container header`, `chunk table`, `ISGN`, `SHEX`, ...); the parenthesis is left out
//! when neither is known. `<message>` says what is wrong with the input for
//! [`Error::Decode`] and [`Error::Invalid`]; [`Error::Unsupported`] starts it with
//! `unsupported: ` and [`Error::Binding`] with `binding: `, so that a reader tells "the shader is
//! wrong" from "the translator cannot (yet)" and "the binding map has no place for it". Limits
//! read `<value> <what> exceeds the limit <limit>`. The constructors ([`Error::invalid`],
//! [`Error::unsupported`]) leave the instruction unknown; [`crate::translate`] names it from the
//! offset before returning. [`Error::Internal`] (a translator bug caught before it produced a
//! wrong result) reads `at 0x<offset> (<instruction>): internal error: <message>`.
//!
//! # Errors per stage
//!
//! Each stage reports its own failures, and the facade composes them into this one type, whose
//! [`Error::kind`] says which stage's kind of failure it is ([`ErrorKind`]):
//!
//! - the front end's decoder: [`DecodeError`] (converted with `From`) → [`ErrorKind::Decode`];
//! - the front end's lowering: [`Error::invalid`] / [`Error::unsupported`] → `Invalid` /
//!   `Unsupported` (a lowering module names the facade type directly: it is the front end's
//!   error type, `crate::front::dxbc::lower` has no other);
//! - the passes: [`BindingError`] with the declaration's offset ([`Error::binding`]) →
//!   [`ErrorKind::Binding`], and the conditions the passes check on the input as `Invalid`;
//! - the IR validator: [`ValidationError`] (converted with `From`) → `Invalid` (it checks what
//!   lowering derived from the input);
//! - the back end: `Invalid` / `Unsupported` for what the input asks that SPIR-V cannot hold,
//!   and [`Error::internal`] → [`ErrorKind::Internal`] for a condition that only a translator
//!   bug reaches (the back end's `Error` is this type, `crate::back::spirv::Error`, so a call
//!   site changes from `Error::invalid` to `Error::internal` and nothing else);
//! - the SPIR-V writer: [`crate::spv::Error`] (converted with `From`) → [`ErrorKind::Internal`]
//!   (the back end asked the writer for an invalid module).
//!
//! One type rather than one wrapper per stage keeps adoption cheap (the hundreds of
//! `Error::invalid` sites compile unchanged; a stage-local alias names it) and keeps the value
//! two words, so that the many `Result`s are returned in registers.

use std::fmt;

use crate::bindings::BindingError;
#[cfg(feature = "dxbc")]
use crate::front::dxbc::DecodeError;
use crate::ir::ValidationError;

/// Why a translation failed.
///
/// Every variant holds a box: an `Error` is two words, so the `Result`s of the translator's
/// many fallible steps are returned in registers rather than through memory.
///
/// Non-exhaustive: a caller that acts on the kind of failure matches [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a well-formed DXBC container or shader program.
    #[cfg(feature = "dxbc")]
    Decode(Box<DecodeError>),
    /// The bytes are not a well-formed Direct3D 9 token stream.
    #[cfg(feature = "d3d9")]
    D3d9Decode(crate::front::d3d9::DecodeError),
    /// The program decodes, but breaks a rule of the shader model (an undeclared register, an
    /// `endif` without `if`, an operand of the wrong kind, a count past a D3D limit, ...);
    /// [`Located::what`] is the message.
    Invalid(Box<Located<String>>),
    /// A valid program that uses something this translator cannot (yet) translate;
    /// [`Located::what`] names the feature as a user would search for it.
    Unsupported(Box<Located<String>>),
    /// The binding map has no place for a resource the shader declares; [`Located::what`] is
    /// the map's answer.
    Binding(Box<Located<BindingError>>),
    /// The back end produced an invalid module (a translator bug, reported rather than emitted).
    Spirv(Box<crate::spv::Error>),
    /// A condition only a translator bug reaches (a stage broke what the previous one
    /// guarantees), reported instead of a wrong result; [`Located::what`] says what was found.
    Internal(Box<Located<String>>),
}

/// The kind of an [`Error`]: which stage's kind of failure it is, for a caller that acts on it
/// (a runtime reports `Decode`/`Invalid` as the application's shader being wrong, `Unsupported`
/// as a gap of the translator, `Binding` as its own binding map being incomplete, `Internal` as
/// a bug to file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The bytes are not a well-formed container or program ([`Error::Decode`]).
    Decode,
    /// The program breaks a rule of the shader model ([`Error::Invalid`]).
    Invalid,
    /// The translator cannot translate something valid ([`Error::Unsupported`]).
    Unsupported,
    /// The binding map has no place for a declaration ([`Error::Binding`]).
    Binding,
    /// A translator bug ([`Error::Internal`], [`Error::Spirv`]).
    Internal,
}

pub use crate::ir::Located;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            #[cfg(feature = "dxbc")]
            Error::Decode(e) => write!(f, "{e}"),
            #[cfg(feature = "d3d9")]
            Error::D3d9Decode(e) => write!(f, "{e}"),
            Error::Invalid(e) => write!(f, "{}{}", Location(e.offset, e.instruction), e.what),
            Error::Unsupported(e) => write!(
                f,
                "{}unsupported: {}",
                Location(e.offset, e.instruction),
                e.what
            ),
            Error::Binding(e) => {
                write!(
                    f,
                    "{}binding: {}",
                    Location(e.offset, e.instruction),
                    e.what
                )
            }
            Error::Spirv(e) => write!(f, "SPIR-V emission failed: {e}"),
            Error::Internal(e) => write!(
                f,
                "{}internal error: {}",
                Location(e.offset, e.instruction),
                e.what
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            #[cfg(feature = "dxbc")]
            Error::Decode(e) => e.source(),
            #[cfg(feature = "d3d9")]
            Error::D3d9Decode(_) => None,
            Error::Binding(e) => Some(&e.what),
            Error::Spirv(e) => Some(&**e),
            Error::Invalid(_) | Error::Unsupported(_) | Error::Internal(_) => None,
        }
    }
}

#[cfg(feature = "dxbc")]
impl From<DecodeError> for Error {
    fn from(e: DecodeError) -> Error {
        Error::Decode(Box::new(e))
    }
}

#[cfg(feature = "dxbc")]
impl From<crate::front::dxbc::lower::Error> for Error {
    /// The lowering's messages move over as they are (the same boxes).
    fn from(e: crate::front::dxbc::lower::Error) -> Error {
        use crate::front::dxbc::lower::Error as Lower;
        match e {
            Lower::Decode(e) => Error::from(e),
            Lower::Invalid(e) => Error::Invalid(e),
            Lower::Unsupported(e) => Error::Unsupported(e),
        }
    }
}

impl From<crate::passes::Error> for Error {
    /// The passes' messages move over as they are (the same boxes).
    fn from(e: crate::passes::Error) -> Error {
        use crate::passes::Error as Pass;
        match e {
            Pass::Binding(e) => Error::Binding(e),
            Pass::Invalid(e) => Error::Invalid(e),
            Pass::Unsupported(e) => Error::Unsupported(e),
            Pass::Internal(e) => Error::Internal(e),
        }
    }
}

impl From<crate::back::spirv::Error> for Error {
    /// The back end's messages move over as they are (the same boxes).
    fn from(e: crate::back::spirv::Error) -> Error {
        use crate::back::spirv::Error as Back;
        match e {
            Back::Invalid(e) => Error::Invalid(e),
            Back::Unsupported(e) => Error::Unsupported(e),
            Back::Internal(e) => Error::Internal(e),
            Back::Writer(e) => Error::Spirv(e),
        }
    }
}

impl From<crate::spv::Error> for Error {
    fn from(e: crate::spv::Error) -> Error {
        Error::Spirv(Box::new(e))
    }
}

/// The `at 0x<offset> (<instruction>): ` prefix of a message.
struct Location(u32, Option<&'static str>);

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_location(f, self.0, self.1)
    }
}

/// Writes `at 0x<offset> (<instruction>): ` (without the parenthesis when `instruction` is
/// `None`): the prefix every located error message of the crate starts with.
pub(crate) fn write_location(
    f: &mut impl fmt::Write,
    offset: u32,
    instruction: Option<&str>,
) -> fmt::Result {
    match instruction {
        Some(name) => write!(f, "at 0x{offset:x} ({name}): "),
        None => write!(f, "at 0x{offset:x}: "),
    }
}

crate::ir::located_constructors!(Error {
    invalid => Invalid,
    unsupported => Unsupported,
    internal => Internal,
});

impl Error {
    /// An [`Error::Binding`] whose instruction is found later from `offset`.
    #[cold]
    pub fn binding(offset: u32, source: BindingError) -> Error {
        Error::Binding(Box::new(Located {
            offset,
            what: source,
            instruction: None,
        }))
    }

    /// Which kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            #[cfg(feature = "dxbc")]
            Error::Decode(_) => ErrorKind::Decode,
            #[cfg(feature = "d3d9")]
            Error::D3d9Decode(_) => ErrorKind::Decode,
            Error::Invalid(_) => ErrorKind::Invalid,
            Error::Unsupported(_) => ErrorKind::Unsupported,
            Error::Binding(_) => ErrorKind::Binding,
            Error::Spirv(_) | Error::Internal(_) => ErrorKind::Internal,
        }
    }

    /// The byte offset in the DXBC input the error points at, when it has one.
    pub fn offset(&self) -> Option<u32> {
        match self {
            #[cfg(feature = "dxbc")]
            Error::Decode(e) => Some(e.offset),
            #[cfg(feature = "d3d9")]
            Error::D3d9Decode(e) => Some(e.offset),
            Error::Invalid(e) | Error::Unsupported(e) | Error::Internal(e) => Some(e.offset),
            Error::Binding(e) => Some(e.offset),
            Error::Spirv(_) => None,
        }
    }

    /// The instruction (fxc mnemonic such as `dcl_temps`) or structure (`container header`,
    /// `ISGN`, `RDEF`, ...) the offset lies in, when known.
    pub fn instruction(&self) -> Option<&'static str> {
        match self {
            #[cfg(feature = "dxbc")]
            Error::Decode(e) => e.context,
            #[cfg(feature = "d3d9")]
            Error::D3d9Decode(e) => e.context,
            Error::Invalid(e) | Error::Unsupported(e) | Error::Internal(e) => e.instruction,
            Error::Binding(e) => e.instruction,
            Error::Spirv(_) => None,
        }
    }

    /// The same error, naming `name` as its instruction or structure unless one is known.
    pub fn with_instruction(mut self, name: &'static str) -> Error {
        match &mut self {
            #[cfg(feature = "dxbc")]
            Error::Decode(e) => {
                e.context.get_or_insert(name);
            }
            #[cfg(feature = "d3d9")]
            Error::D3d9Decode(e) => {
                *e = e.clone().with_context(name);
            }
            Error::Invalid(e) | Error::Unsupported(e) | Error::Internal(e) => {
                e.instruction.get_or_insert(name);
            }
            Error::Binding(e) => {
                e.instruction.get_or_insert(name);
            }
            Error::Spirv(_) => {}
        }
        self
    }
}

#[cfg(feature = "d3d9")]
impl From<crate::front::d3d9::DecodeError> for Error {
    fn from(e: crate::front::d3d9::DecodeError) -> Error {
        Error::D3d9Decode(e)
    }
}

impl From<ValidationError> for Error {
    fn from(e: ValidationError) -> Error {
        Error::invalid(e.offset, e.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::{RegisterRange, ResourceKind};
    use crate::front::dxbc::DecodeErrorKind;

    #[test]
    fn messages_start_with_offset_and_instruction() {
        let e = Error::invalid(0x1a4, "70000 temps exceeds the limit 4096");
        assert_eq!(
            e.to_string(),
            "at 0x1a4: 70000 temps exceeds the limit 4096"
        );
        let e = e.with_instruction("dcl_temps");
        assert_eq!(
            e.to_string(),
            "at 0x1a4 (dcl_temps): 70000 temps exceeds the limit 4096"
        );
        assert_eq!(e.instruction(), Some("dcl_temps"));
        assert_eq!(e.offset(), Some(0x1a4));
        // A known instruction is kept.
        assert_eq!(e.with_instruction("mov").instruction(), Some("dcl_temps"));

        let e = Error::unsupported(0x1c, "class linkage (interfaces)").with_instruction("fcall");
        assert_eq!(
            e.to_string(),
            "at 0x1c (fcall): unsupported: class linkage (interfaces)"
        );
        let range = RegisterRange::single(ResourceKind::ShaderResource, 0, 3);
        let e = Error::binding(0x40, crate::bindings::BindingError::Unmapped { range })
            .with_instruction("dcl_resource");
        assert!(
            e.to_string()
                .starts_with("at 0x40 (dcl_resource): binding: "),
            "{e}"
        );
    }

    #[test]
    fn every_stage_has_its_kind() {
        let e = Error::internal(0x30, "declaration without a binding").with_instruction("mov");
        assert_eq!(e.kind(), ErrorKind::Internal);
        assert_eq!(e.offset(), Some(0x30));
        assert_eq!(e.instruction(), Some("mov"));
        assert_eq!(
            e.to_string(),
            "at 0x30 (mov): internal error: declaration without a binding"
        );
        assert_eq!(Error::invalid(0, "x").kind(), ErrorKind::Invalid);
        assert_eq!(Error::unsupported(0, "x").kind(), ErrorKind::Unsupported);
        let range = RegisterRange::single(ResourceKind::ShaderResource, 0, 3);
        let e = Error::binding(0, crate::bindings::BindingError::Unmapped { range });
        assert_eq!(e.kind(), ErrorKind::Binding);
        let d = DecodeError::new(0, DecodeErrorKind::UnknownOpcode(300));
        assert_eq!(Error::from(d).kind(), ErrorKind::Decode);
        // Two words, so that `Result`s are returned in registers.
        assert!(std::mem::size_of::<Error>() <= 2 * std::mem::size_of::<usize>());
    }

    #[test]
    fn decode_errors_use_the_same_shape() {
        let d = DecodeError::new(0, DecodeErrorKind::UnknownOpcode(300)).with_context("mov");
        assert_eq!(
            Error::from(d.clone()).to_string(),
            "at 0x0 (mov): unknown opcode 300"
        );
        let plain = DecodeError::new(8, DecodeErrorKind::UnknownOpcode(300));
        let named = Error::from(plain).with_instruction("SHEX");
        assert_eq!(named.instruction(), Some("SHEX"));
        assert_eq!(named.to_string(), "at 0x8 (SHEX): unknown opcode 300");
        // A decode error's own context wins.
        assert_eq!(
            Error::from(d).with_instruction("SHEX").instruction(),
            Some("mov")
        );
    }
}
