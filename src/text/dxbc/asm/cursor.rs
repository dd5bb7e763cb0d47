//! A character cursor over one logical line of assembly, tracking columns for error messages.

use super::error::AsmError;
use crate::front::dxbc::literal::parse_uint;

/// Reads one line of text; every error it makes carries the line and column.
#[derive(Clone, Debug)]
pub(super) struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line: u32,
    /// Column of byte 0 of `text` within its source line (1-based).
    column0: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor over `text`, which starts at `line`:`column0` of the source.
    pub fn new(text: &'a str, line: u32, column0: u32) -> Self {
        Self {
            text,
            pos: 0,
            line,
            column0,
        }
    }

    /// The unread rest of the line.
    pub fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    /// An error at the current position.
    pub fn error(&self, message: impl Into<String>) -> AsmError {
        self.error_at(self.pos, message)
    }

    /// An error at byte `pos` of the line.
    pub fn error_at(&self, pos: usize, message: impl Into<String>) -> AsmError {
        let column = self.column0 + self.text[..pos.min(self.text.len())].chars().count() as u32;
        AsmError::new(self.line, column, message)
    }

    /// Current byte position.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Skips spaces and tabs.
    pub fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The next character, after whitespace.
    pub fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    /// The next character, without skipping whitespace.
    pub fn peek_raw(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Consumes `c` (after whitespace) if it is next.
    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// Consumes `c` or fails with `expected 'c'`.
    pub fn expect(&mut self, c: char) -> Result<(), AsmError> {
        if self.eat(c) {
            Ok(())
        } else {
            self.skip_ws();
            Err(self.error(format!("expected '{c}', found {}", self.describe_next())))
        }
    }

    /// Consumes `word` (after whitespace) if the rest starts with it.
    pub fn eat_str(&mut self, word: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(word) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    /// How the next token reads in an error message.
    pub fn describe_next(&self) -> String {
        let rest = self.rest().trim_start();
        match rest.chars().next() {
            None => "end of line".into(),
            Some(c) if c.is_ascii_alphanumeric() || c == '_' => {
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                format!("'{word}'")
            }
            Some(c) => format!("'{c}'"),
        }
    }

    /// An identifier: letters, digits and underscores, starting with a letter or underscore.
    pub fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let first = rest.chars().next()?;
        if !(first.is_ascii_alphabetic() || first == '_') {
            return None;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.pos += len;
        Some(&rest[..len])
    }

    /// A number token: optional sign, digits, `0x` hex, decimals, exponents and MSVC's
    /// `1.#INF00`/`1.#QNAN0` spellings. Returns the raw text.
    pub fn number_text(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let mut i = 0;
        if i < bytes.len() && (bytes[i] == b'-' || bytes[i] == b'+') {
            i += 1;
        }
        let start_digits = i;
        if rest[i..].starts_with("0x") || rest[i..].starts_with("0X") {
            i += 2;
            while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                i += 1;
            }
        } else {
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || bytes[i] == b'.'
                    || bytes[i] == b'#'
                    || ((bytes[i] == b'e' || bytes[i] == b'E')
                        && i + 1 < bytes.len()
                        && (bytes[i + 1].is_ascii_digit()
                            || bytes[i + 1] == b'-'
                            || bytes[i + 1] == b'+'))
                    || ((bytes[i] == b'-' || bytes[i] == b'+')
                        && i > 0
                        && (bytes[i - 1] == b'e' || bytes[i - 1] == b'E'))
                    || (bytes[i].is_ascii_alphabetic() && i > 0 && rest[..i].contains('#')))
            {
                i += 1;
            }
        }
        if i == start_digits {
            return None;
        }
        self.pos += i;
        Some(&rest[..i])
    }

    /// An unsigned integer (decimal or `0x` hex).
    pub fn uint(&mut self) -> Result<u32, AsmError> {
        let start = self.pos;
        let Some(text) = self.number_text() else {
            return Err(self.error(format!("expected a number, found {}", self.describe_next())));
        };
        parse_uint(text).ok_or_else(|| self.error_at(start, format!("invalid number '{text}'")))
    }

    /// True when only whitespace (or a comment) is left.
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.rest().is_empty() || self.rest().starts_with("//")
    }

    /// Fails unless only whitespace or a comment is left.
    pub fn expect_end(&mut self) -> Result<(), AsmError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error(format!("unexpected {}", self.describe_next())))
        }
    }
}

impl Cursor<'_> {
    /// The 1-based line number.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// The 1-based column of byte `pos` of this line.
    pub fn column_of(&self, pos: usize) -> u32 {
        self.column0 + self.text[..pos.min(self.text.len())].chars().count() as u32
    }

    /// Consumes one character, whatever it is.
    pub fn expect_any(&mut self) -> Result<(), AsmError> {
        match self.peek_raw() {
            Some(ch) => {
                self.pos += ch.len_utf8();
                Ok(())
            }
            None => Err(self.error("unexpected end of line")),
        }
    }
}
