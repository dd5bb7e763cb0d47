//! `info` and `reflect` on Direct3D 9 token streams: recognised by the version token whatever
//! the extension, printed as text and JSON; a bad stream is reported with its byte offset.

use std::path::Path;

use super::{run, TempDir};
use crate::commands::Status;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// ps_2_0 with a CTAB comment, a def, dcl_centroid t1.xy, dcl_cube s2, texld, texkill, mov oC0.
fn ps_2_0() -> Vec<u8> {
    bytes(&[
        0xffff_0200,
        0x0004_fffe, // comment at 0x4: 4 dwords
        0x4241_5443, // 'CTAB'
        0x1c,
        0,
        0,
        0x0500_0051, // 0x18 def c3, 1, 0.5, 0, -2
        0xa00f_0003,
        0x3f80_0000,
        0x3f00_0000,
        0,
        0xc000_0000,
        0x0200_001f, // 0x30 dcl_centroid t1.xy
        0x8000_0000,
        0xb043_0001,
        0x0200_001f, // 0x3c dcl_cube s2
        0x9800_0000,
        0xa00f_0802,
        0x0300_0042, // 0x48 texld r0, t1, s2
        0x800f_0000,
        0xb0e4_0001,
        0xa0e4_0802,
        0x0100_0041, // 0x58 texkill r0
        0x800f_0000,
        0x0200_0001, // 0x60 mov oC0, r0
        0x800f_0800,
        0x80e4_0000,
        0x0000_ffff, // 0x6c
    ])
}

/// vs_3_0: dcl_position v0; dcl_texcoord3 o2.xy; mov o2.xy, c4[a0.x] (after mova); defb b0.
fn vs_3_0() -> Vec<u8> {
    bytes(&[
        0xfffe_0300,
        0x0200_002f, // defb b0, false
        0xe00f_0800,
        0,
        0x0200_001f, // dcl_position v0
        0x8000_0000,
        0x900f_0000,
        0x0200_001f, // dcl_texcoord3 o2.xy
        0x8003_0005,
        0xe003_0002,
        0x0200_002e, // mova a0.x, v0.x
        0xb001_0000,
        0x9000_0000,
        0x0300_0001, // mov o2.xy, c4[a0.x]
        0xe003_0002,
        0xa0e4_2004,
        0xb000_0000,
        0x0000_ffff,
    ])
}

#[test]
fn info_recognises_d3d9_streams_whatever_the_extension() {
    let tmp = TempDir::new("d3d9-info");
    let pso = tmp.file("shader.pso", &ps_2_0());
    let r = run(&["info", &pso]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!(
            "{pso}\n  size: 112 bytes\n  format: Direct3D 9 token stream\n  program: ps_2_0 \
             (version token 0xffff0200), 6 instructions, end token at 0x006c\n  comments: 1\n    \
             CTAB  at 0x0004  16 bytes\n"
        )
    );
    for ext in ["d3d9", "vso", "fxo", "cso", "bin"] {
        let path = tmp.file(&format!("shader.{ext}"), &vs_3_0());
        let r = run(&["info", &path]);
        assert_eq!(r.status, Status::Success, "{ext}: {}", r.stderr);
        assert!(
            r.stdout.contains("  program: vs_3_0 "),
            "{ext}: {}",
            r.stdout
        );
    }
    let r = run(&["info", "--json", &pso]);
    assert_eq!(r.status, Status::Success);
    assert_eq!(
        r.stdout,
        format!(
            "{{\"path\":\"{pso}\",\"format\":\"d3d9\",\"size\":112,\"program\":{{\"version\":\
             \"ps_2_0\",\"version_token\":4294902272,\"instructions\":6,\"end_offset\":108}},\
             \"comments\":[{{\"fourcc\":\"CTAB\",\"offset\":4,\"size\":16}}]}}\n"
        )
    );
}

#[test]
fn a_bad_d3d9_stream_is_reported_with_its_offset_and_the_others_still_print() {
    let tmp = TempDir::new("d3d9-bad");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/malformed/d3d9/missing_end.d3d9");
    let bad = tmp.file(
        "bad.vso",
        &std::fs::read(&fixture).expect("fixture missing_end.d3d9"),
    );
    let good = tmp.file("good.pso", &ps_2_0());
    for command in ["info", "reflect"] {
        let r = run(&[command, &bad, &good]);
        assert_eq!(r.status, Status::InputsFailed);
        assert!(
            r.stderr.starts_with(&format!(
                "{bad}: at 0x10: no end token (0x0000FFFF) before the end of the stream\n"
            )),
            "{command}: {}",
            r.stderr
        );
        assert!(r.stdout.starts_with(&format!("{good}\n")), "{}", r.stdout);
    }
}

#[test]
fn reflect_prints_constants_samplers_io_and_registers() {
    let tmp = TempDir::new("d3d9-reflect");
    let pso = tmp.file("shader.pso", &ps_2_0());
    let r = run(&["reflect", &pso]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    let expected = format!(
        "{pso}
  program: ps_2_0 (Direct3D 9), 6 instructions
  constants (def): 1
    c3 = (1, 0.5, 0, -2)
  constant table: CTAB at 0x0004, 16 bytes
    does not parse: at 0xc (CTAB): header needs 28 bytes but only 12 remain in the table
  samplers: 1
    s2  cube
  inputs (dcl): 1
    t1.xy  texcoord1  centroid
  outputs (dcl): 0
  registers:
    read [r0]  written [r0]
    read [t1]  written []
    read []  written [oC0]
    read [s2]  written []
  uses: texkill
  translation (default parameters):
    bindings: 2
      t2   shader_resource  sampled_image  set 0, binding 34
      s2   sampler  sampler  set 0, binding 18
    inputs: 1
      TEXCOORD1  location 1  .xyzw
    outputs: 1
      -          location 0  .xyzw
    push constants: none
"
    );
    assert_eq!(r.stdout, expected);

    let vso = tmp.file("shader.vso", &vs_3_0());
    let r = run(&["reflect", "--json", &vso]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1);
    for part in [
        "\"format\":\"d3d9\",\"version\":\"vs_3_0\",\"instructions\":5",
        "\"bool_constants\":[{\"register\":0,\"value\":false}]",
        "\"constant_table\":null,\"named_constants\":[],\"constant_table_error\":null",
        "\"inputs\":[{\"register\":\"v0\",\"mask\":\"xyzw\",\"usage\":\"position\",\
         \"usage_index\":0,\"centroid\":false,\"partial_precision\":false}]",
        "\"outputs\":[{\"register\":\"o2\",\"mask\":\"xy\",\"usage\":\"texcoord\",\
         \"usage_index\":3,",
        "{\"read\":[\"c4\"],\"written\":[],\"relative\":true}",
        "{\"read\":[\"a0\"],\"written\":[\"a0\"],\"relative\":false}",
        "\"relative_addressing\":true,\"predicates\":false,\"texkill\":false,\
         \"derivatives\":false",
    ] {
        assert!(r.stdout.contains(part), "no {part} in {}", r.stdout);
    }
}
