//! JSON Lines for the commands that print JSON (`info --json`, `reflect --json`): one
//! `serde_json` object per input and line. Keys come in the order the record's fields are
//! declared; floats are `serde_json`'s shortest round-trip form, `null` for NaN and infinities.

use std::io;

use serde::Serialize;

/// `value` as one line of JSON, ending with a newline.
pub fn line<T: Serialize>(value: &T) -> io::Result<String> {
    let mut text = serde_json::to_string(value).map_err(io::Error::other)?;
    text.push('\n');
    Ok(text)
}
