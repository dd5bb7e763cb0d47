//! `dxbc2spv info` for Direct3D 9 token streams (vs/ps 1.0–3.0): recognised by the version
//! token whatever the file's extension (`.d3d9`, `.vso`, `.pso`, `.fxo`, `.cso`); prints the
//! size, version, instruction count, end token and comment blocks, as text or one JSON object
//! (the schema is in `docs/cli.md`).

use std::fmt::Write as _;
use std::io::{self, Read};
use std::path::Path;

use anyhow::Result;
use dxbc2spv::front::d3d9::{decode, is_token_stream, Program};
use serde::Serialize;

use super::json;
use super::Console;
use crate::inputs;

/// Whether the file at `path` starts with a D3D9 version token. An unreadable file is not one:
/// the caller's own reading reports it.
pub fn is_d3d9_file(path: &Path) -> bool {
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && is_token_stream(&head)
}

/// Prints `info` for `path` when it is a D3D9 token stream and says whether it was one (then
/// the caller moves on to the next input); `printed` counts the records printed so far.
pub fn handled(
    path: &Path,
    json: bool,
    printed: &mut usize,
    console: &mut Console<'_>,
) -> io::Result<bool> {
    if !is_d3d9_file(path) {
        return Ok(false);
    }
    let name = path.display().to_string();
    let rendered = inputs::read(path).and_then(|bytes| -> Result<String> {
        let program = decode(&bytes, 0)?;
        Ok(if json {
            json::line(&info_json(&name, bytes.len(), &program))?
        } else {
            let separator = if *printed > 0 { "\n" } else { "" };
            format!("{separator}{}", info_text(&name, bytes.len(), &program))
        })
    });
    match rendered {
        Ok(text) => {
            console.out().write_all(text.as_bytes())?;
            *printed += 1;
            console.succeeded();
        }
        Err(e) => console.failed(path, &e)?,
    }
    Ok(true)
}

/// A comment block's FOURCC as text (`CTAB`), `-` when it has none, `?` for unprintable bytes.
pub fn fourcc_text(fourcc: Option<[u8; 4]>) -> String {
    match fourcc {
        Some(f) if f.iter().all(|b| b.is_ascii_graphic() || *b == b' ') => {
            f.iter().map(|&b| char::from(b)).collect()
        }
        Some(_) => "?".into(),
        None => "-".into(),
    }
}

fn info_text(path: &str, size: usize, p: &Program<'_>) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(s, "{path}");
    let _ = writeln!(s, "  size: {size} bytes");
    let _ = writeln!(s, "  format: Direct3D 9 token stream");
    let n = p.instructions.len();
    let _ = writeln!(
        s,
        "  program: {} (version token {:#010x}), {n} instruction{}, end token at {:#06x}",
        p.version.profile(),
        p.version.token(),
        if n == 1 { "" } else { "s" },
        p.end_offset
    );
    let _ = writeln!(s, "  comments: {}", p.comments.len());
    for c in &p.comments {
        let _ = writeln!(
            s,
            "    {:<4}  at {:#06x}  {} bytes",
            fourcc_text(c.fourcc()),
            c.offset,
            c.data.len()
        );
    }
    s
}

/// `info --json` for a D3D9 token stream.
#[derive(Serialize)]
struct InfoD3d9Json<'a> {
    path: &'a str,
    format: &'static str,
    size: usize,
    program: ProgramJson,
    comments: Vec<CommentJson>,
}

#[derive(Serialize)]
struct ProgramJson {
    version: String,
    version_token: u32,
    instructions: usize,
    end_offset: u32,
}

#[derive(Serialize)]
struct CommentJson {
    fourcc: String,
    offset: u32,
    size: usize,
}

fn info_json<'a>(path: &'a str, size: usize, p: &Program<'_>) -> InfoD3d9Json<'a> {
    InfoD3d9Json {
        path,
        format: "d3d9",
        size,
        program: ProgramJson {
            version: p.version.profile(),
            version_token: p.version.token(),
            instructions: p.instructions.len(),
            end_offset: p.end_offset,
        },
        comments: p
            .comments
            .iter()
            .map(|c| CommentJson {
                fourcc: fourcc_text(c.fourcc()),
                offset: c.offset,
                size: c.data.len(),
            })
            .collect(),
    }
}
