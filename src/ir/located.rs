//! [`Located`]: what a stage says about the input, at a byte offset of it (an IR span).
//!
//! Contract: every stage's error type (front end, passes, back end) holds its messages in a
//! `Located`, so that the facade composes them into one error without copying or re-wording:
//! `offset` is the byte offset in the input of the instruction or structure at fault, and
//! `instruction` its name once the front end that decoded the input has named it.

/// Where an error is, and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located<T> {
    /// Byte offset of the offending instruction or declaration in the input.
    pub offset: u32,
    /// What is wrong: a message, or a typed value such as a binding map's answer.
    pub what: T,
    /// The instruction (its mnemonic) or structure at `offset`, once known.
    pub instruction: Option<&'static str>,
}

impl<T> Located<T> {
    /// `what` at `offset`, its instruction to be named later.
    pub fn new(offset: u32, what: T) -> Located<T> {
        Located {
            offset,
            what,
            instruction: None,
        }
    }
}

impl Located<String> {
    /// A boxed message at `offset`: what every stage's error variants hold.
    #[cold]
    pub fn boxed(offset: u32, message: impl Into<String>) -> Box<Located<String>> {
        Box::new(Located::new(offset, message.into()))
    }
}

/// Writes, for an error enum whose variants hold a `Box<Located<String>>`, one `#[cold]`
/// constructor per variant taking the byte offset and the message: `located_constructors!(Error
/// { invalid => Invalid, internal => Internal })` gives `Error::invalid(offset, message)` and
/// `Error::internal(offset, message)`. Every stage's error type uses it, so they build their
/// messages alike.
macro_rules! located_constructors {
    ($ty:ident { $($name:ident => $variant:ident),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("An [`", stringify!($ty), "::", stringify!($variant), "`] at `offset`.")]
                #[cold]
                pub fn $name(offset: u32, message: impl Into<String>) -> $ty {
                    $ty::$variant($crate::ir::Located::boxed(offset, message))
                }
            )*
        }
    };
}
pub(crate) use located_constructors;
