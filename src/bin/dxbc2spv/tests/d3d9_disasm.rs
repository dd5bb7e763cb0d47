//! `disasm` of Direct3D 9 token streams: told from DXBC containers by the version token,
//! whatever the file's extension.

use super::{run, TempDir};
use crate::commands::Status;

/// `ps_2_0; dcl t0.xy; dcl_2d s0; texld r0, t0, s0; mov oC0, r0` as tokens (D3D9 layout:
/// length in bits 24–27, register type in bits 28–30 and 11–12).
fn ps_2_0_stream() -> Vec<u8> {
    [
        0xffff_0200u32,
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
    .iter()
    .flat_map(|w| w.to_le_bytes())
    .collect()
}

const LISTING: &str =
    "    ps_2_0\n    dcl t0.xy\n    dcl_2d s0\n    texld r0, t0, s0\n    mov oC0, r0\n\n\
                       // approximately 2 instruction slots used (1 texture, 1 arithmetic)\n";

#[test]
fn disasm_lists_a_d3d9_stream_whatever_its_extension() {
    let tmp = TempDir::new("d3d9");
    for name in ["shader.d3d9", "shader.pso", "shader.cso", "shader.bin"] {
        let path = tmp.file(name, &ps_2_0_stream());
        let r = run(&["disasm", &path]);
        assert_eq!(r.status, Status::Success, "{name}: {}", r.stderr);
        assert_eq!(r.stdout, LISTING, "{name}");
    }
}

#[test]
fn disasm_reports_a_truncated_d3d9_stream_with_its_offset() {
    let tmp = TempDir::new("d3d9-disasm-bad");
    let mut bytes = ps_2_0_stream();
    bytes.truncate(bytes.len() - 4); // no end token
    let bad = tmp.file("bad.pso", &bytes);
    let r = run(&["disasm", &bad]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.contains("bad.pso") && r.stderr.contains("at 0x38"),
        "{}",
        r.stderr
    );
}
