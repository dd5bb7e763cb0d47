//! Tests of `asm` on Direct3D 9 text: recognised by its version line, written as the raw token
//! stream, errors located as `PATH:LINE:COLUMN` with no output written.

use std::fs;

use super::{path_str, run, TempDir};
use crate::commands::Status;

/// The dwords of a file.
fn dwords(path: &std::path::Path) -> Vec<u32> {
    fs::read(path)
        .expect("read output")
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn asm_writes_a_d3d9_token_stream() {
    let tmp = TempDir::new("asm-d3d9");
    // ps_2_0 version token, dcl_2d s0 (dcl token 2 << 27), texld (length 3), end token.
    let text = "// a comment\n    ps_2_0\n    dcl t0.xy\n    dcl_2d s0\n    texld r0, t0, s0\n    mov oC0, r0\n";
    let input = tmp.file("tint.asm", text.as_bytes());
    let out = tmp.path("tint.pso");
    let r = run(&["asm", &input, "-o", &path_str(&out)]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    assert_eq!(
        dwords(&out),
        [
            0xffff_0200,
            0x0200_001f,
            0x8000_0000,
            0xb003_0000,
            0x0200_001f,
            0x9000_0000,
            0xa00f_0800,
            0x0300_0042,
            0x800f_0000,
            0xb0e4_0000,
            0xa0e4_0800,
            0x0200_0001,
            0x800f_0800,
            0x80e4_0000,
            0x0000_ffff,
        ]
    );
}

#[test]
fn asm_names_d3d9_outputs_d3d9_in_an_out_dir_beside_dxbc_ones() {
    let tmp = TempDir::new("asm-d3d9-dir");
    let vs = tmp.file("in/vs.asm", b"vs_1_1\ndcl_position v0\nm4x4 oPos, v0, c0\n");
    let dxbc = tmp.file("in/cs.asm", b"cs_5_0\ndcl_thread_group 1, 1, 1\nret\n");
    let out = tmp.path("out");
    let r = run(&["asm", &vs, &dxbc, "--out-dir", &path_str(&out)]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    assert_eq!(
        dwords(&out.join("vs.d3d9")).first(),
        Some(&0xfffe_0101),
        "a vs_1_1 version token"
    );
    assert!(out.join("cs.dxbc").is_file());
}

#[test]
fn asm_reports_d3d9_errors_with_line_and_column_and_writes_nothing() {
    let tmp = TempDir::new("asm-d3d9-errors");
    let bad = tmp.file("bad.asm", b"vs_2_0\ndcl_position v0\nmov oPos, q3\n");
    let out = tmp.path("bad.d3d9");
    let r = run(&["asm", &bad, "-o", &path_str(&out)]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr
            .starts_with(&format!("{bad}:3:11: unknown register 'q3'")),
        "{}",
        r.stderr
    );
    assert!(!out.exists(), "no output for bad text");
}
