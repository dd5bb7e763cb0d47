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
