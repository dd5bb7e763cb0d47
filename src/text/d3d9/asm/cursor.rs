//! The assembler's reader: the text cut into lines with comments blanked (columns kept), and a
//! character cursor over one line that makes located errors.
//!
//! Contract: a leading byte-order mark is dropped; `//`, `;` and `/* … */` comments and
//! preprocessor lines (`#line …`) become blanks, so every remaining character keeps its 1-based
//! column; nothing here panics on any input.

use super::AsmError;

/// One line of source with its comments blanked.
pub(super) struct Line {
    /// 1-based line number.
    pub number: u32,
    /// The characters, comments replaced by spaces.
    pub chars: Vec<char>,
}

/// Cuts `text` into lines, blanking comments and preprocessor directives.
pub(super) fn lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut in_block = false;
    // A UTF-8 byte-order mark (Windows editors) is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (index, raw) in text.split('\n').enumerate() {
        let mut chars: Vec<char> = raw.trim_end_matches('\r').chars().collect();
        let mut i = 0;
        let first = chars.iter().position(|c| !c.is_whitespace());
        let directive = !in_block && first.is_some_and(|f| chars.get(f) == Some(&'#'));
        while i < chars.len() {
            let c = chars.get(i).copied().unwrap_or(' ');
            let next = chars.get(i + 1).copied();
            if in_block {
                if c == '*' && next == Some('/') {
                    in_block = false;
                    blank(&mut chars, i, i + 2);
                    i += 2;
                } else {
                    blank(&mut chars, i, i + 1);
                    i += 1;
                }
            } else if directive || c == ';' || (c == '/' && next == Some('/')) {
                let end = chars.len();
                blank(&mut chars, i, end);
                break;
            } else if c == '/' && next == Some('*') {
                in_block = true;
                blank(&mut chars, i, i + 2);
                i += 2;
            } else {
                i += 1;
            }
        }
        out.push(Line {
            number: u32::try_from(index + 1).unwrap_or(u32::MAX),
            chars,
        });
    }
    out
}

fn blank(chars: &mut [char], from: usize, to: usize) {
    for c in chars.iter_mut().take(to).skip(from) {
        *c = ' ';
    }
}

/// A position in one line.
#[derive(Clone)]
pub(super) struct Cursor<'a> {
    chars: &'a [char],
    pos: usize,
    line: u32,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `line`.
    pub fn new(line: &'a Line) -> Self {
        Cursor {
            chars: &line.chars,
            pos: 0,
            line: line.number,
        }
    }

    /// The 1-based column of the cursor.
    pub fn column(&self) -> u32 {
        u32::try_from(self.pos + 1).unwrap_or(u32::MAX)
    }

    /// The position (for [`Cursor::error_at`]).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// An error at the cursor.
    pub fn error(&self, message: impl Into<String>) -> AsmError {
        AsmError::new(self.line, self.column(), message)
    }

    /// An error at an earlier position `pos` of this line.
    pub fn error_at(&self, pos: usize, message: impl Into<String>) -> AsmError {
        AsmError::new(
            self.line,
            u32::try_from(pos + 1).unwrap_or(u32::MAX),
            message,
        )
    }

    /// Skips blanks.
    pub fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    /// The next character, not consumed.
    pub fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// The character after the next one.
    pub fn peek2(&self) -> Option<char> {
        self.chars.get(self.pos + 1).copied()
    }

    /// Consumes `c` if it is next (after blanks).
    pub fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes one character.
    pub fn bump(&mut self) {
        if self.pos < self.chars.len() {
            self.pos += 1;
        }
    }

    /// Whether only blanks remain.
    pub fn at_end(&mut self) -> bool {
        self.skip_space();
        self.pos >= self.chars.len()
    }

    /// A run of characters satisfying `f` (possibly empty).
    pub fn take_while(&mut self, f: impl Fn(char) -> bool) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek().filter(|c| f(*c)) {
            out.push(c);
            self.pos += 1;
        }
        out
    }

    /// The next word (up to a blank, comma or end), for messages.
    pub fn word(&self) -> String {
        self.chars
            .iter()
            .skip(self.pos)
            .take_while(|c| !c.is_whitespace() && **c != ',')
            .collect()
    }

    /// What the cursor points at, for messages: the next word, or "the end of the line".
    pub fn found(&self) -> String {
        match self.peek() {
            None => "the end of the line".into(),
            Some(',') => "','".into(),
            Some(_) => format!("'{}'", self.word()),
        }
    }
}
