//! The one JSON string escaper of the commands that print JSON lines (`info`, `reflect`).

use std::fmt::Write as _;

/// Appends `text` to `out` as a JSON string literal.
pub fn push_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `text` as a JSON string literal.
pub fn string(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    push_string(&mut s, text);
    s
}
