//! Assembler errors: every one names the line and column of the text it was found at.

use std::fmt;

/// An error in fxc-syntax assembly text, with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column (in characters).
    pub column: u32,
    /// What is wrong, e.g. `expected register, found ')'`.
    pub message: String,
}

impl AsmError {
    /// An error at `line`:`column`.
    pub fn new(line: u32, column: u32, message: impl Into<String>) -> Self {
        Self {
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for AsmError {}

/// Result alias for the assembler.
pub type Result<T, E = AsmError> = std::result::Result<T, E>;
