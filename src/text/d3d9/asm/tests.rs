//! The assembler on small texts whose tokens follow from the D3D9 token format (version,
//! instruction, parameter and `dcl` token layouts), and its located errors.

use super::{assemble, is_d3d9_text, parse, AsmError};

const END: u32 = 0x0000_ffff;

fn words(text: &str) -> Vec<u32> {
    assemble(text).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> String {
    match assemble(text) {
        Ok(w) => panic!("assembled to {w:08x?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn sm2_relative_source_has_an_address_token() {
    // mov (1) with length 3; dst r0 mask xyzw; c5 with bit 13 and identity swizzle; a0 (type
    // 3) with the .x swizzle (0).
    assert_eq!(
        words("vs_2_0\nmov r0, c5[a0.x]\n"),
        [
            0xfffe_0200,
            0x0300_0001,
            0x800f_0000,
            0xa0e4_2005,
            0xb000_0000,
            END
        ]
    );
    // The same register written fxc's other way, and aL (type 15: bits 28-30 = 7, 11-12 = 1).
    assert_eq!(
        words("vs_2_0\nmov r0, c[a0.x + 5]\n"),
        words("vs_2_0\nmov r0, c5[a0.x]\n")
    );
    assert_eq!(
        words("vs_2_0\nmov r0, c2[aL]\n")[4],
        0x8000_0000 | 0x7000_0000 | 0x0800 | 0x00e4_0000
    );
}

#[test]
fn sm1_has_no_length_and_an_implicit_a0() {
    assert_eq!(
        words("vs_1_1\nmov r0, c[a0.x + 5]\n"),
        [0xfffe_0101, 0x0000_0001, 0x800f_0000, 0xa0e4_2005, END]
    );
    // Co-issue (bit 30), result shift _x2 (bits 24-27), t0 is type 3 in pixel shaders.
    assert_eq!(
        words("ps_1_1\ntex t0\nmul_x2 r0.rgb, t0, v0\n+mov r0.a, 1-t0\n"),
        [
            0xffff_0101,
            0x0000_0042,
            0xb00f_0000,
            0x0000_0005,
            0x8107_0000,
            0xb0e4_0000,
            0x90e4_0000,
            0x4000_0001,
            0x8008_0000,
            0xb6e4_0000,
            END
        ]
    );
}

#[test]
fn swizzles_replicate_their_last_component() {
    let src = |s: &str| words(&format!("vs_2_0\nmov r0, r1{s}\n"))[3] >> 16 & 0xff;
    assert_eq!(src(""), 0xe4);
    assert_eq!(src(".x"), 0x00);
    assert_eq!(src(".w"), 0xff);
    assert_eq!(src(".xy"), 0x54);
    assert_eq!(src(".xyz"), 0xa4);
    assert_eq!(src(".wzyx"), 0x1b);
    assert_eq!(src(".rgba"), 0xe4);
}

#[test]
fn source_modifiers_have_their_numbers() {
    let modifier = |s: &str| words(&format!("ps_1_4\ntexld r0, {s}\n"))[3] >> 24 & 0xf;
    let cases = [
        ("t0", 0),
        ("-t0", 1),
        ("t0_bias", 2),
        ("-t0_bias", 3),
        ("t0_bx2", 4),
        ("-t0_bx2", 5),
        ("1-t0", 6),
        ("t0_x2", 7),
        ("-t0_x2", 8),
        ("t0_dz", 9),
        ("t0_dw", 10),
        ("t0_abs", 11),
        ("-t0_abs", 12),
        ("t0.xyz_dz", 9),
    ];
    for (text, raw) in cases {
        assert_eq!(modifier(text), raw, "{text}");
    }
}

#[test]
fn predicates_follow_the_destination() {
    // (!p0.x): predicated bit 28; p0 is type 19 (bits 28-30 = 3, bits 11-12 = 2), not = 13.
    assert_eq!(
        words("vs_3_0\n(!p0.x) mov r0, r1\n"),
        [
            0xfffe_0300,
            0x1300_0001,
            0x800f_0000,
            0xbd00_1000,
            0x80e4_0001,
            END
        ]
    );
    // Without a destination, the predicate comes first (breakp's source is p0 itself here).
    assert_eq!(
        words("ps_3_0\n(p0) break\n"),
        [0xffff_0300, 0x1100_002c, 0xb0e4_1000, END]
    );
}

#[test]
fn dcl_tokens_carry_usage_index_and_sampler_type() {
    assert_eq!(
        words("vs_2_0\ndcl_texcoord3 v2\n"),
        [0xfffe_0200, 0x0200_001f, 0x8003_0005, 0x900f_0002, END]
    );
    assert_eq!(words("ps_2_0\ndcl_cube s1\n")[2], 0x9800_0000);
    assert_eq!(words("ps_2_0\ndcl_volume s1\n")[2], 0xa000_0000);
    assert_eq!(
        words("ps_2_0\ndcl t0.xy\n")[2..4],
        [0x8000_0000, 0xb003_0000]
    );
    // _centroid and _pp are destination bits 22 and 21.
    assert_eq!(
        words("ps_3_0\ndcl_texcoord1_centroid_pp v1.xyz\n")[3],
        0x9067_0001
    );
    assert_eq!(words("ps_3_0\ndcl vFace\n")[3], 0x900f_1001);
}

#[test]
fn constants_keep_their_bits() {
    let w = words("vs_2_0\ndef c3, 1, -0, 0.5, 1e-006\ndefi i1, -1, 0, 7, 255\ndefb b2, true\n");
    assert_eq!(
        w[1..7],
        [
            0x0500_0051,
            0xa00f_0003,
            0x3f80_0000,
            0x8000_0000,
            0x3f00_0000,
            1e-6f32.to_bits()
        ]
    );
    assert_eq!(w[7..13], [0x0500_0030, 0xf00f_0001, 0xffff_ffff, 0, 7, 255]);
    assert_eq!(w[13..16], [0x0200_002f, 0xe00f_0802, 1]);
    let inf = words("ps_2_0\ndef c0, 1.#INF, -1.#INF, 1.#QNAN, 0\n");
    assert_eq!(inf[3..5], [0x7f80_0000, 0xff80_0000]);
}

#[test]
fn comparisons_and_texld_modes_are_controls() {
    assert_eq!(words("ps_3_0\nif_ge r0.x, c0.y\n")[1], 0x0203_0029);
    assert_eq!(words("vs_3_0\nbreak_ne r0.x, c0.y\n")[1], 0x0205_002d);
    assert_eq!(words("ps_3_0\nsetp_le p0, r0, c0\n")[1], 0x0306_005e);
    assert_eq!(words("ps_2_0\ntexldp r0, t0, s0\n")[1], 0x0301_0042);
    assert_eq!(words("ps_2_0\ntexldb r0, t0, s0\n")[1], 0x0302_0042);
    assert_eq!(words("ps_1_4\ntexcrd r0.xyz, t0\n")[1], 0x0000_0040);
}

#[test]
fn comments_directives_and_blank_lines_are_skipped() {
    let text =
        "// header\n\n    ps_2_0 ; version\n#line 3 \"x.fx\"\n/* a\nblock */ mov oC0, c0 // tail\n";
    assert_eq!(words(text), words("ps_2_0\nmov oC0, c0\n"));
    assert_eq!(
        words("\u{feff}ps_2_0\r\nmov oC0, c0\r\n"),
        words("ps_2_0\nmov oC0, c0\n")
    );
}

#[test]
fn errors_name_line_and_column() {
    assert_eq!(
        error("vs_2_0\n\n\n\n\n\n    mov q3, r0\n"),
        "line 7, column 9: unknown register 'q3'"
    );
    assert_eq!(
        error("mov r0, r1\n"),
        "line 1, column 1: expected a version line (vs_1_1 … ps_3_0), found 'mov'"
    );
    assert_eq!(
        error("ps_2_0\nmovx r0, r1\n"),
        "line 2, column 1: unknown instruction 'movx'"
    );
    assert_eq!(
        error("vs_2_0\nadd r0, r1\n"),
        "line 2, column 11: 'add' takes 3 operands, found 2"
    );
    assert_eq!(
        error("vs_2_0\nmov r0.yx, r1\n"),
        "line 2, column 8: invalid write mask '.yx': components must be in xyzw order"
    );
    assert_eq!(
        error("vs_2_0\nmov r0, r1.xq\n"),
        "line 2, column 12: invalid swizzle '.xq'"
    );
    assert_eq!(
        error("vs_2_0\nmov r0, r1_foo\n"),
        "line 2, column 11: unknown source modifier '_foo'"
    );
    assert_eq!(
        error("vs_2_0\nmov r0, r1 r2\n"),
        "line 2, column 12: unexpected 'r2' after the operands"
    );
    assert_eq!(
        error("ps_2_0\nmov r0, a0\n"),
        "line 2, column 9: unknown register 'a0'"
    );
    assert_eq!(
        error("vs_2_0\nmov_foo r0, r1\n"),
        "line 2, column 1: unknown modifier '_foo' in 'mov_foo'"
    );
    assert_eq!(
        error("vs_2_0\ndef c0, 1, 2, x, 4\n"),
        "line 2, column 15: expected a number, found 'x'"
    );
    assert_eq!(
        error("vs_1_1\nmov r0, c[a0.y]\n"),
        "line 2, column 16: vs_1_1 addresses relative registers only through a0.x"
    );
    assert_eq!(
        error(""),
        "line 1, column 1: expected a version line (vs_1_1 … ps_3_0), found nothing"
    );
}

#[test]
fn no_input_makes_it_panic() {
    let samples = [
        "vs_2_0\nmov r0, c[",
        "vs_2_0\nmov r0, c[a0.x +",
        "vs_2_0\nmov r0, c99999999999[a0.x]",
        "vs_2_0\nmov r0, c4000000000",
        "ps_3_0\n(",
        "ps_3_0\n(p0",
        "ps_3_0\n+",
        "ps_1_1\n1-",
        "vs_2_0\ndefi i0, 1, 2",
        "vs_2_0\ndcl_texcoord99 v0",
        "vs_2_0\nmov r0., r1.",
        "vs_3_0\nmov o[aL + 4294967295], r0",
        "ps_2_0\n/* never closed",
        "vs_2_0\nmov r0, 1-",
        "\u{feff}vs_2_0\nmov r0, r1",
        "vs_2_0\nmov r0, r1.xyzwx",
    ];
    for text in samples {
        let _ = assemble(text);
        for cut in 0..text.len() {
            if let Some(prefix) = text.get(..cut) {
                let _ = assemble(prefix);
            }
        }
    }
    // Pseudo-random bytes from a fixed linear congruential generator.
    let mut state = 0x2545_f491u32;
    let alphabet: Vec<char> = "vps_0123.xyzw-+!()[],;/*#rctoaLPdeflmvSsqB\n \t_"
        .chars()
        .collect();
    for _ in 0..2000 {
        let mut text = String::from("vs_3_0\n");
        for _ in 0..24 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let i = (state >> 16) as usize % alphabet.len();
            text.push(alphabet.get(i).copied().unwrap_or(' '));
        }
        let _ = parse(&text);
    }
}

#[test]
fn version_lines_are_recognised() {
    assert!(is_d3d9_text("// fxc\n\n    vs_2_0\nmov oPos, v0\n"));
    assert!(is_d3d9_text("ps_2_x\n"));
    assert!(is_d3d9_text("vs.1.1\n"));
    assert!(is_d3d9_text("ps_3_sw\n"));
    assert!(!is_d3d9_text("ps_5_0\nret\n"));
    assert!(!is_d3d9_text("vs_4_0_level_9_1\n"));
    assert!(!is_d3d9_text(""));
    // A 4_0_level_9_x listing: the level-9 program, then the DXBC one.
    let level9 = "// Level9 shader bytecode:\n//\n    vs_2_0\n    mov oPos, v0\n\n// approximately 1 instruction slot used\nvs_4_0\ndcl_input v0.xyzw\nret\n";
    assert!(!is_d3d9_text(level9));
    let v = |t: &str| parse(t).map(|p| p.version.token());
    assert_eq!(v("ps_2_x"), Ok(0xffff_0201));
    assert_eq!(v("vs_3_sw"), Ok(0xfffe_03ff));
    assert_eq!(v("ps_1_4"), Ok(0xffff_0104));
    assert_eq!(
        v("vs_1_4"),
        Err(AsmError::new(
            1,
            1,
            "expected a version line (vs_1_1 … ps_3_0), found 'vs_1_4'"
        ))
    );
}
