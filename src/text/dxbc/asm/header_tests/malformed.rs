//! Malformed input: every malformed table row is an error at the offending line and column, and
//! truncated or randomly edited real headers give a result or an error, never a panic.

use super::PS_HEADER;
use crate::test_support;
use crate::text::dxbc::asm::chunks::build_chunks;
use crate::text::dxbc::asm::header::parse_header;

/// `(text, line, column)` of each malformed header: the error points at the offending field.
#[test]
fn malformed_tables_are_errors_with_positions() {
    let sig = |row: &str| {
        format!(
            "// Input signature:\n//\n// Name Index Mask Register SysValue Format Used\n// ---\n{row}\n//\n"
        )
    };
    let cases: Vec<(String, u32, u32, &str)> = vec![
        (sig("// TEXCOORD   x   xy   0  NONE float xy"), 5, 15, "semantic index"),
        (sig("// TEXCOORD   0   xy   r0  NONE float xy"), 5, 24, "register"),
        (sig("// TEXCOORD   0   xy   0  BOGUS float xy"), 5, 27, "system value"),
        (sig("// TEXCOORD   0   xy   0  NONE half xy"), 5, 32, "format"),
        (sig("// TEXCOORD   0   xy   0  NONE float qq"), 5, 38, "used"),
        (sig("// TEXCOORD   0   xy"), 5, 21, "register"),
        (sig("// TEXCOORD   0   N/A  N/A  DEPTH float maybe"), 5, 41, "YES or NO"),
        (
            "// Buffer Definitions:\n//\n// cbuffer a\n// {\n//   float4 x; // Offset: q Size: 16\n// }\n"
                .to_string(),
            5,
            27,
            "number",
        ),
        (
            "// Buffer Definitions:\n//\n// cbuffer a\n// {\n//   float5 x; // Offset: 0 Size: 16\n// }\n"
                .to_string(),
            5,
            6,
            "unknown type",
        ),
        (
            "// Buffer Definitions:\n//\n// cbuffer a\n// {\n//   float4 x // Offset: 0 Size: 16\n// }\n"
                .to_string(),
            5,
            14,
            "';'",
        ),
        (
            "// Buffer Definitions:\n//\n// cbuffer a\n// {\n//   float4 x;\n// }\n".to_string(),
            5,
            15,
            "Offset",
        ),
        (
            "// Buffer Definitions:\n//\n// cbuffer a\n//   float4 x;\n".to_string(),
            4,
            6,
            "'{'",
        ),
        (
            "// Buffer Definitions:\n//\n// cbuffer a\n// {\n//   float4 x; // Offset: 0 Size: 16\n"
                .to_string(),
            3,
            4,
            "closing",
        ),
        (
            "// Buffer Definitions:\n//\n// sbuffer a\n".to_string(),
            3,
            4,
            "expected cbuffer",
        ),
        (
            "// Buffer Definitions:\n//\n// cbuffer a\n// {\n//      = 0x1\n// }\n".to_string(),
            5,
            4,
            "default value",
        ),
        (
            "// Buffer Definitions:\n//\n// cbuffer a\n// {\n//   float x[q]; // Offset: 0 Size: 4\n// }\n"
                .to_string(),
            5,
            13,
            "array size",
        ),
        (
            "// Resource Bindings:\n//\n// Name Type Format Dim HLSL Bind Count\n// ---\n// t texture float4 2d t0\n//\n"
                .to_string(),
            5,
            26,
            "columns",
        ),
        (
            "// Resource Bindings:\n//\n// Name Type Format Dim HLSL Bind Count\n// ---\n// t texture float9 2d t0 1\n//\n"
                .to_string(),
            5,
            14,
            "format",
        ),
        (
            "// Resource Bindings:\n//\n// Name Type Format Dim HLSL Bind Count\n// ---\n// t texture float4 2d t0,spac 1\n//\n"
                .to_string(),
            5,
            24,
            "binding",
        ),
        (
            "// Resource Bindings:\n//\n// Name Type Format Dim HLSL Bind Count\n// ---\n// t thing NA NA t0 1\n//\n"
                .to_string(),
            5,
            6,
            "binding type",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, line, column, what) in cases {
        match parse_header(&text) {
            Ok(_) => wrong.push(format!("{text}\n=> accepted")),
            Err(e) if (e.line, e.column) != (line, column) || !e.message.contains(what) => {
                wrong.push(format!("{text}\n=> {e} (expected {line}:{column} {what})"));
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// Truncations and random edits of real headers give a result or an error, never a panic.
#[test]
fn mutated_headers_never_panic() {
    let mut inputs = vec![PS_HEADER.to_string()];
    for path in test_support::corpus_blobs().iter().step_by(211) {
        if let Some(l) = test_support::asm_listing(path) {
            inputs.push(l);
        }
    }
    let mut state = 0x2545_f491u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let alphabet = b" /{}[];:,.=0123456789xyzwNAOffsetSize\n-";
    for text in &inputs {
        let header_end =
            crate::text::dxbc::asm::header::find_version_line(text).unwrap_or(text.len());
        let head = &text.as_bytes()[..header_end];
        for cut in (0..head.len()).step_by(37) {
            let _ = parse_header(&String::from_utf8_lossy(&head[..cut]));
        }
        for _ in 0..100 {
            let mut bytes = head.to_vec();
            for _ in 0..1 + next() % 4 {
                if bytes.is_empty() {
                    break;
                }
                let i = next() as usize % bytes.len();
                bytes[i] = alphabet[next() as usize % alphabet.len()];
            }
            let text = String::from_utf8_lossy(&bytes);
            if let Ok(h) = parse_header(&text) {
                let _ = build_chunks(&h, &[0x50, 2]);
                let _ = build_chunks(&h, &[0x0003_0050, 2]);
            }
        }
    }
}
