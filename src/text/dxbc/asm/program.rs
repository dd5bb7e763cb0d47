//! Whole programs: finds the version line, splits the text into logical lines (joining the
//! multi-line immediate constant buffer), assembles each and prepends the version and length
//! tokens.

use super::cursor::Cursor;
use super::error::{AsmError, Result};
use super::instruction::assemble_instruction;
use crate::front::dxbc::literal;
use crate::front::dxbc::program::{ShaderVersion, Stage};
use crate::text::dxbc::disasm::Dialect;
use crate::text::dxbc::encode::{encode_version, ProgramBuilder};

/// Parses a version line such as `ps_5_0` (SM4.0–5.1 only).
pub(super) fn parse_version(line: &str) -> Option<ShaderVersion> {
    let (stage, rest) = line.split_once('_')?;
    let stage = match stage {
        "ps" => Stage::Pixel,
        "vs" => Stage::Vertex,
        "gs" => Stage::Geometry,
        "hs" => Stage::Hull,
        "ds" => Stage::Domain,
        "cs" => Stage::Compute,
        "lib" => Stage::Library,
        _ => return None,
    };
    let (major, minor) = rest.split_once('_')?;
    let major: u8 = major.parse().ok()?;
    let minor: u8 = minor.parse().ok()?;
    ((4..=5).contains(&major) && minor <= 1).then_some(ShaderVersion {
        stage,
        major,
        minor,
    })
}

/// The code part of a line: comments removed, whitespace trimmed; `None` for comment-only,
/// blank and `#line` lines.
fn code(line: &str) -> Option<(&str, u32)> {
    let no_comment = line.split("//").next().unwrap_or("");
    let trimmed = no_comment.trim_end();
    let start = trimmed.len() - trimmed.trim_start().len();
    let body = trimmed.trim_start();
    if body.is_empty() || body.starts_with("#line") {
        return None;
    }
    Some((body, line[..start].chars().count() as u32 + 1))
}

/// Assembles the program part of a listing: from the SM4/5 version line to the end (or to fxc's
/// `// Approximately N instruction slots used` line). Returns the version and the program
/// chunk's dwords, version and length tokens included.
pub fn assemble_program(text: &str) -> Result<(ShaderVersion, Vec<u32>)> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i as u32 + 1, l));
    let mut version = None;
    for (n, line) in lines.by_ref() {
        if let Some((body, _)) = code(line) {
            if let Some(v) = parse_version(body) {
                version = Some((v, n));
                break;
            }
        }
    }
    let dialect = listing_dialect(text);
    let Some((version, version_line)) = version else {
        return Err(AsmError::new(
            1,
            1,
            "no shader model 4/5 version line (such as ps_5_0) found",
        ));
    };
    let mut words = vec![
        encode_version(version).map_err(|e| AsmError::new(version_line, 1, e.to_string()))?,
        0,
    ];
    let mut pending_icb: Option<(u32, u32, String)> = None;
    for (n, line) in lines {
        if line.trim_start().starts_with("// Approximately") {
            break;
        }
        let Some((body, column)) = code(line) else {
            continue;
        };
        if let Some((start, col, mut joined)) = pending_icb.take() {
            joined.push(' ');
            joined.push_str(body);
            if braces_balanced(&joined) {
                immediate_constant_buffer(&joined, start, col, version, &mut words)?;
            } else {
                pending_icb = Some((start, col, joined));
            }
            continue;
        }
        if let Some(rest) = body.strip_prefix("customdata class=") {
            custom_data(rest, n, column, version, &mut words)?;
            continue;
        }
        if body.starts_with("dcl_immediateConstantBuffer") {
            if braces_balanced(body) {
                immediate_constant_buffer(body, n, column, version, &mut words)?;
            } else {
                pending_icb = Some((n, column, body.to_string()));
            }
            continue;
        }
        let mut c = Cursor::new(body, n, column);
        let mut b = ProgramBuilder::new(version);
        assemble_instruction(&mut c, &mut b, version, dialect)?;
        let encoded = b
            .finish()
            .map_err(|e| AsmError::new(n, column, e.to_string()))?;
        words.extend_from_slice(&encoded[2..]);
    }
    if let Some((start, col, _)) = pending_icb {
        return Err(AsmError::new(
            start,
            col,
            "unterminated dcl_immediateConstantBuffer",
        ));
    }
    words[1] = words.len() as u32;
    Ok((version, words))
}

/// `customdata class=N { 0x..., ... }`: a custom-data block other than an immediate constant
/// buffer, as the disassembler prints it.
fn custom_data(
    rest: &str,
    line: u32,
    column: u32,
    version: ShaderVersion,
    words: &mut Vec<u32>,
) -> Result<()> {
    let err = |m: String| AsmError::new(line, column, m);
    let (class, body) = rest
        .split_once('{')
        .ok_or_else(|| err("expected customdata class=N { ... }".into()))?;
    let class = literal::parse_uint(class.trim())
        .ok_or_else(|| err(format!("invalid class '{}'", class.trim())))?;
    let body = body
        .trim()
        .strip_suffix('}')
        .ok_or_else(|| err("expected '}'".into()))?;
    let mut payload = Vec::new();
    for v in body.split(',').map(str::trim).filter(|v| !v.is_empty()) {
        payload.push(literal::parse_uint(v).ok_or_else(|| err(format!("invalid value '{v}'")))?);
    }
    let mut b = ProgramBuilder::new(version);
    b.custom_data(class, &payload);
    let encoded = b.finish().map_err(|e| err(e.to_string()))?;
    words.extend_from_slice(&encoded[2..]);
    Ok(())
}

/// The fxc release that printed a listing, from its `Generated by` banner (the newest when none):
/// releases differ in what they leave unsaid (e.g. the interpolation mode of `dcl_input_ps_sgv`).
pub(super) fn listing_dialect(text: &str) -> Dialect {
    let banner = text
        .lines()
        .take_while(|l| parse_version(l.trim()).is_none())
        .find_map(|l| l.split_once("Generated by ").map(|(_, b)| b.trim()));
    Dialect::from_creator(banner)
}

fn braces_balanced(text: &str) -> bool {
    let open = text.matches('{').count();
    open > 0 && open == text.matches('}').count()
}

/// `dcl_immediateConstantBuffer { { a, b, c, d}, ... }` → a custom-data block of class 3.
fn immediate_constant_buffer(
    text: &str,
    line: u32,
    column: u32,
    version: ShaderVersion,
    words: &mut Vec<u32>,
) -> Result<()> {
    let err = |m: &str| AsmError::new(line, column, m.to_string());
    let inner = text
        .trim_start_matches("dcl_immediateConstantBuffer")
        .trim()
        .strip_prefix('{')
        .and_then(|s| s.trim_end().strip_suffix('}'))
        .ok_or_else(|| err("expected dcl_immediateConstantBuffer { { ... }, ... }"))?;
    let mut payload = Vec::new();
    for row in inner.split('}') {
        let row = row.trim().trim_start_matches(',').trim();
        if row.is_empty() {
            continue;
        }
        let values = row
            .strip_prefix('{')
            .ok_or_else(|| err("expected '{' before a row"))?;
        let values: Vec<&str> = values.split(',').map(str::trim).collect();
        // Rows have 4 values; a buffer whose size is not a multiple of 4 ends with a short row.
        if values.is_empty() || values.len() > 4 {
            return Err(err("an immediate constant buffer row has 1 to 4 values"));
        }
        for v in values {
            payload.push(
                literal::parse_untyped_dword(v)
                    .ok_or_else(|| err(&format!("invalid value '{v}'")))?,
            );
        }
    }
    let mut b = ProgramBuilder::new(version);
    b.custom_data(3, &payload);
    let encoded = b.finish().map_err(|e| err(&e.to_string()))?;
    words.extend_from_slice(&encoded[2..]);
    Ok(())
}
