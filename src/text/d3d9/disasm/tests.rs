//! Formatting rules of the disassembler on hand-assembled token streams. The tokens follow the
//! documented D3D9 layout (register type in bits 28–30 and 11–12, write mask 16–19, swizzle
//! 16–23, source modifier 24–27, relative bit 13); the expected text is fxc's syntax as the
//! D3D9 assembly reference spells it.

use super::{
    disassemble, is_d3d9_stream, slot_summary, write_program, DisasmErrorKind, Error, Options,
    SlotSummary,
};
use crate::front::d3d9::decode;
use crate::front::d3d9::program::{DclToken, Payload};

// Register types.
const R: u32 = 0;
const V: u32 = 1;
const C: u32 = 2;
const A_OR_T: u32 = 3;
const RAST: u32 = 4;
const ATTR: u32 = 5;
const TEXCRD_OR_O: u32 = 6;
const I: u32 = 7;
const OC: u32 = 8;
const ODEPTH: u32 = 9;
const S: u32 = 10;
const B: u32 = 14;
const AL: u32 = 15;
const MISC: u32 = 17;
const L: u32 = 18;
const P: u32 = 19;

const END: u32 = 0x0000_ffff;

fn param(ty: u32, num: u32) -> u32 {
    0x8000_0000 | (ty & 7) << 28 | (ty >> 3) << 11 | num
}

/// A destination: register, write mask (`"xy"`, `""` for all four), extra bits.
fn dst(ty: u32, num: u32, mask: &str, bits: u32) -> u32 {
    let mask = if mask.is_empty() {
        0xf
    } else {
        mask.chars()
            .map(|c| 1 << "xyzw".find(c).expect("component"))
            .sum()
    };
    param(ty, num) | mask << 16 | bits
}

const SAT: u32 = 1 << 20;
const PP: u32 = 1 << 21;
const CENTROID: u32 = 1 << 22;
const RELATIVE: u32 = 1 << 13;

fn shift(n: i32) -> u32 {
    ((n as u32) & 0xf) << 24
}

/// A swizzle from one to four letters (the last one repeats).
fn swz(s: &str) -> u32 {
    let mut comps: Vec<u32> = s
        .chars()
        .map(|c| "xyzw".find(c).expect("component") as u32)
        .collect();
    while comps.len() < 4 {
        comps.push(*comps.last().unwrap_or(&0));
    }
    comps.iter().enumerate().map(|(i, c)| c << (2 * i)).sum()
}

/// A source: register, swizzle (`""` for `.xyzw`), modifier number.
fn src(ty: u32, num: u32, swizzle: &str, modifier: u32) -> u32 {
    let s = if swizzle.is_empty() {
        0xe4
    } else {
        swz(swizzle)
    };
    param(ty, num) | s << 16 | modifier << 24
}

/// An SM2+ instruction token: opcode, controls, operand dwords.
fn op(opcode: u32, controls: u32, len: u32) -> u32 {
    opcode | controls << 16 | len << 24
}

/// The version line and instructions of a stream.
fn list(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert!(is_d3d9_stream(&bytes));
    let program = decode(&bytes, 0).unwrap_or_else(|e| panic!("{e}"));
    let mut out = String::new();
    write_program(&mut out, &program).unwrap_or_else(|e| panic!("{e}"));
    out
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn vertex_shader_2_0_declarations_constants_and_relative_reads() {
    let text = list(&[
        0xfffe_0200,
        op(0x1f, 0, 2),
        0x8000_0000, // position
        dst(V, 0, "", 0),
        op(0x1f, 0, 2),
        0x8001_0005, // texcoord1
        dst(V, 1, "", 0),
        op(0x51, 0, 5),
        dst(C, 4, "", 0),
        1.0f32.to_bits(),
        0.0f32.to_bits(),
        0.5f32.to_bits(),
        (-0.3f32).to_bits(),
        op(0x30, 0, 5),
        dst(I, 0, "", 0),
        3,
        0,
        1,
        0xffff_ffff,
        op(0x2f, 0, 2),
        dst(B, 1, "", 0),
        1,
        op(0x2e, 0, 2), // mova a0.x, v1.x
        dst(A_OR_T, 0, "x", 0),
        src(V, 1, "x", 0),
        op(0x01, 0, 3), // mov oPos, c5[a0.x]
        dst(RAST, 0, "", 0),
        src(C, 5, "", 0) | RELATIVE,
        src(A_OR_T, 0, "x", 0),
        op(0x04, 0, 5), // mad r0.xy, -c2[a0.w].zwzw, r1_abs.x, -r2_abs
        dst(R, 0, "xy", 0),
        src(C, 2, "zwzw", 1) | RELATIVE,
        src(A_OR_T, 0, "w", 0),
        src(R, 1, "x", 11),
        src(R, 2, "", 12),
        op(0x01, 0, 2), // mov oFog, r0.yzxw
        dst(RAST, 1, "", 0),
        src(R, 0, "yzxw", 0),
        op(0x01, 0, 2),
        dst(RAST, 2, "", 0),
        src(R, 0, "xyzz", 0),
        op(0x01, 0, 2),
        dst(ATTR, 1, "", SAT),
        src(V, 1, "", 0),
        op(0x01, 0, 2),
        dst(TEXCRD_OR_O, 7, "xyz", 0),
        src(C, 4, "w", 1),
        END,
    ]);
    assert_eq!(
        lines(&text),
        [
            "    vs_2_0",
            "    dcl_position v0",
            "    dcl_texcoord1 v1",
            "    def c4, 1, 0, 0.5, -0.300000012",
            "    defi i0, 3, 0, 1, -1",
            "    defb b1, true",
            "    mova a0.x, v1.x",
            "    mov oPos, c5[a0.x]",
            "    mad r0.xy, -c2[a0.w].zwzw, r1_abs.x, -r2_abs",
            "    mov oFog, r0.yzxw",
            "    mov oPts, r0.xyzz",
            "    mov_sat oD1, v1",
            "    mov oT7.xyz, -c4.w",
        ]
    );
}

#[test]
fn control_flow_spells_comparisons_and_loop_registers() {
    let text = list(&[
        0xfffe_0201,
        op(0x26, 0, 1), // rep i0
        src(I, 0, "", 0),
        op(0x29, 1, 2), // if_gt r0.x, c0.y
        src(R, 0, "x", 0),
        src(C, 0, "y", 0),
        op(0x2d, 5, 2), // break_ne
        src(R, 0, "x", 0),
        src(C, 0, "y", 0),
        op(0x2a, 0, 0),
        op(0x2c, 0, 0),
        op(0x2b, 0, 0),
        op(0x27, 0, 0),
        op(0x1b, 0, 2), // loop aL, i1
        src(AL, 0, "", 0),
        src(I, 1, "", 0),
        op(0x01, 0, 3), // mov r0, c0[aL]
        dst(R, 0, "", 0),
        src(C, 0, "", 0) | RELATIVE,
        src(AL, 0, "", 0),
        op(0x1d, 0, 0),
        op(0x28, 0, 1), // if b3
        src(B, 3, "", 0),
        op(0x2b, 0, 0),
        op(0x19, 0, 1), // call l2
        src(L, 2, "", 0),
        op(0x1a, 0, 2), // callnz l2, b0
        src(L, 2, "", 0),
        src(B, 0, "", 0),
        op(0x1c, 0, 0),
        op(0x1e, 0, 1), // label l2
        src(L, 2, "", 0),
        op(0x25, 0, 4), // sincos r1.xy, r0.x, c1, c2 (SM2: three sources)
        dst(R, 1, "xy", 0),
        src(R, 0, "x", 0),
        src(C, 1, "", 0),
        src(C, 2, "", 0),
        op(0x1c, 0, 0),
        END,
    ]);
    assert_eq!(
        lines(&text),
        [
            "    vs_2_x",
            "    rep i0",
            "      if_gt r0.x, c0.y",
            "        break_ne r0.x, c0.y",
            "      else",
            "        break",
            "      endif",
            "    endrep",
            "    loop aL, i1",
            "      mov r0, c0[aL]",
            "    endloop",
            "    if b3",
            "    endif",
            "    call l2",
            "    callnz l2, b0",
            "    ret",
            "    label l2",
            "    sincos r1.xy, r0.x, c1, c2",
            "    ret",
        ]
    );
}

#[test]
fn pixel_shader_2_0_declares_registers_and_samplers_without_usages() {
    let text = list(&[
        0xffff_0200,
        op(0x1f, 0, 2),
        0x8000_0000,
        dst(A_OR_T, 0, "xy", 0),
        op(0x1f, 0, 2),
        0x8000_0000,
        dst(A_OR_T, 1, "", PP | CENTROID),
        op(0x1f, 0, 2),
        0x8000_0000,
        dst(V, 0, "xyz", 0),
        op(0x1f, 0, 2),
        0x9000_0000, // 2D
        dst(S, 0, "", 0),
        op(0x1f, 0, 2),
        0x9800_0000, // cube
        dst(S, 1, "", 0),
        op(0x1f, 0, 2),
        0xa000_0000, // volume
        dst(S, 2, "", 0),
        op(0x42, 0, 3), // texld r0, t0, s0
        dst(R, 0, "", 0),
        src(A_OR_T, 0, "", 0),
        src(S, 0, "", 0),
        op(0x42, 1, 3), // texldp
        dst(R, 1, "", PP),
        src(A_OR_T, 1, "", 0),
        src(S, 1, "", 0),
        op(0x42, 2, 3), // texldb
        dst(R, 2, "", 0),
        src(R, 0, "", 0),
        src(S, 2, "", 0),
        op(0x41, 0, 1), // texkill t0
        dst(A_OR_T, 0, "", 0),
        op(0x58, 0, 4), // cmp r0, -r0.w, r1, c0
        dst(R, 0, "", 0),
        src(R, 0, "w", 1),
        src(R, 1, "", 0),
        src(C, 0, "", 0),
        op(0x5a, 0, 4), // dp2add_sat r0.x, r0, c0, c0.w
        dst(R, 0, "x", SAT),
        src(R, 0, "", 0),
        src(C, 0, "", 0),
        src(C, 0, "w", 0),
        op(0x01, 0, 2),
        dst(OC, 0, "", 0),
        src(R, 0, "", 0),
        END,
    ]);
    assert_eq!(
        lines(&text),
        [
            "    ps_2_0",
            "    dcl t0.xy",
            "    dcl_pp_centroid t1",
            "    dcl v0.xyz",
            "    dcl_2d s0",
            "    dcl_cube s1",
            "    dcl_volume s2",
            "    texld r0, t0, s0",
            "    texldp_pp r1, t1, s1",
            "    texldb r2, r0, s2",
            "    texkill t0",
            "    cmp r0, -r0.w, r1, c0",
            "    dp2add_sat r0.x, r0, c0, c0.w",
            "    mov oC0, r0",
        ]
    );
}

#[test]
fn shader_model_3_semantics_predicates_and_misc_registers() {
    let text = list(&[
        0xffff_0300,
        op(0x1f, 0, 2),
        0x8001_0005, // texcoord1
        dst(V, 1, "xy", CENTROID),
        op(0x1f, 0, 2),
        0x8000_000a, // color
        dst(V, 0, "", 0),
        op(0x1f, 0, 2),
        0x8000_0000,
        dst(MISC, 0, "xy", 0),
        op(0x1f, 0, 2),
        0x8000_0000,
        dst(MISC, 1, "", 0),
        op(0x5e, 1, 3), // setp_gt p0, v0, c0
        dst(P, 0, "", 0),
        src(V, 0, "", 0),
        src(C, 0, "", 0),
        op(0x01, 0, 3) | 1 << 28, // (p0) mov r0, v0
        dst(R, 0, "", 0),
        src(P, 0, "", 0),
        src(V, 0, "", 0),
        op(0x02, 0, 4) | 1 << 28, // (!p0.x) add r0.x, r0, vFace
        dst(R, 0, "x", 0),
        src(P, 0, "x", 13),
        src(R, 0, "", 0),
        src(MISC, 1, "", 0),
        op(0x26, 0, 1),
        src(I, 0, "", 0),
        op(0x60, 0, 1), // breakp !p0.y
        src(P, 0, "y", 13),
        op(0x27, 0, 0),
        op(0x5f, 0, 3), // texldl r1, v1, s3
        dst(R, 1, "", 0),
        src(V, 1, "", 0),
        src(S, 3, "", 0),
        op(0x5d, 0, 5), // texldd r1, v1, s3, r2, r3
        dst(R, 1, "", 0),
        src(V, 1, "", 0),
        src(S, 3, "", 0),
        src(R, 2, "", 0),
        src(R, 3, "", 0),
        op(0x5b, 0, 2), // dsx r2, v1
        dst(R, 2, "", 0),
        src(V, 1, "", 0),
        op(0x01, 0, 2),
        dst(ODEPTH, 0, "", 0),
        src(R, 0, "x", 0),
        END,
    ]);
    assert_eq!(
        lines(&text),
        [
            "    ps_3_0",
            "    dcl_texcoord1_centroid v1.xy",
            "    dcl_color v0",
            "    dcl vPos.xy",
            "    dcl vFace",
            "    setp_gt p0, v0, c0",
            "    (p0) mov r0, v0",
            "    (!p0.x) add r0.x, r0, vFace",
            "    rep i0",
            "      breakp !p0.y",
            "    endrep",
            "    texldl r1, v1, s3",
            "    texldd r1, v1, s3, r2, r3",
            "    dsx r2, v1",
            "    mov oDepth, r0.x",
        ]
    );
}

#[test]
fn vertex_shader_3_0_outputs_and_relative_outputs() {
    let text = list(&[
        0xfffe_0300,
        op(0x1f, 0, 2),
        0x8000_0000,
        dst(TEXCRD_OR_O, 0, "", 0),
        op(0x1f, 0, 2),
        0x8002_0005, // texcoord2
        dst(TEXCRD_OR_O, 1, "xy", 0),
        op(0x1f, 0, 2),
        0x9000_0000,
        dst(S, 0, "", 0),
        op(0x01, 0, 3), // mov o1[aL].xy, r0
        dst(TEXCRD_OR_O, 1, "xy", RELATIVE),
        src(AL, 0, "", 0),
        src(R, 0, "", 0),
        op(0x01, 0, 3), // mov r0, c2050[a0.x] (bank 2)
        dst(R, 0, "", 0),
        src(11, 2, "", 0) | RELATIVE,
        src(A_OR_T, 0, "x", 0),
        END,
    ]);
    assert_eq!(
        lines(&text),
        [
            "    vs_3_0",
            "    dcl_position o0",
            "    dcl_texcoord2 o1.xy",
            "    dcl_2d s0",
            "    mov o1[aL].xy, r0",
            "    mov r0, c2050[a0.x]",
        ]
    );
}

#[test]
fn pixel_shader_1_x_texture_ops_modifiers_and_coissue() {
    // ps_1_1: no length fields; the operand counts come from the opcode table.
    let text = list(&[
        0xffff_0101,
        0x0000_0042, // tex t0
        dst(A_OR_T, 0, "", 0),
        0x0000_0040, // texcoord t1
        dst(A_OR_T, 1, "", 0),
        0x0000_0043, // texbem t2, t0
        dst(A_OR_T, 2, "", 0),
        src(A_OR_T, 0, "", 0),
        0x0000_0005, // mul_x2 r0, t0_bx2, v0_bias
        dst(R, 0, "", shift(1)),
        src(A_OR_T, 0, "", 4),
        src(V, 0, "", 2),
        0x4000_0001, // +mov_d2 r0.w, 1 - t1.w
        dst(R, 0, "w", shift(-1)),
        src(A_OR_T, 1, "w", 6),
        0x0000_0002, // add_x4_sat r1, -t2_bx2, -v1_bias
        dst(R, 1, "", shift(2) | SAT),
        src(A_OR_T, 2, "", 5),
        src(V, 1, "", 3),
        0x0000_0050, // cnd r0, r0.w, t0_x2, -t1_x2
        dst(R, 0, "", 0),
        src(R, 0, "w", 0),
        src(A_OR_T, 0, "", 7),
        src(A_OR_T, 1, "", 8),
        END,
    ]);
    assert_eq!(
        lines(&text),
        [
            "    ps_1_1",
            "    tex t0",
            "    texcoord t1",
            "    texbem t2, t0",
            "    mul_x2 r0, t0_bx2, v0_bias",
            "    +mov_d2 r0.w, 1 - t1.w",
            "    add_x4_sat r1, -t2_bx2, -v1_bias",
            "    cnd r0, r0.w, t0_x2, -t1_x2",
        ]
    );
}

#[test]
fn pixel_shader_1_4_phases_and_projective_modifiers() {
    let text = list(&[
        0xffff_0104,
        0x0000_0042, // texld r0, t0
        dst(R, 0, "", 0),
        src(A_OR_T, 0, "", 0),
        0x0000_0040, // texcrd r1.xyz, t1_dw.xyw
        dst(R, 1, "xyz", 0),
        src(A_OR_T, 1, "xyww", 10),
        0x0000_fffd, // phase
        0x0000_0042, // texld r2, r1_dz
        dst(R, 2, "", 0),
        src(R, 1, "", 9),
        0x0000_0059, // bem r3.xy, r0, r1
        dst(R, 3, "xy", 0),
        src(R, 0, "", 0),
        src(R, 1, "", 0),
        END,
    ]);
    assert_eq!(
        lines(&text),
        [
            "    ps_1_4",
            "    texld r0, t0",
            "    texcrd r1.xyz, t1_dw.xyww",
            "    phase",
            "    texld r2, r1_dz",
            "    bem r3.xy, r0, r1",
        ]
    );
}

#[test]
fn vertex_shader_1_1_reads_a0_x_implicitly() {
    let text = list(&[
        0xfffe_0101,
        0x0000_0001, // mov oD0, c5[a0.x] (no relative token before SM2)
        dst(ATTR, 0, "", 0),
        src(C, 5, "", 0) | RELATIVE,
        0x0000_0001, // mov a0.x, v0.x
        dst(A_OR_T, 0, "x", 0),
        src(V, 0, "x", 0),
        0x0000_0014, // m4x4 oPos, v0, c0
        dst(RAST, 0, "", 0),
        src(V, 0, "", 0),
        src(C, 0, "", 0),
        END,
    ]);
    assert_eq!(
        lines(&text),
        [
            "    vs_1_1",
            "    mov oD0, c5[a0.x]",
            "    mov a0.x, v0.x",
            "    m4x4 oPos, v0, c0",
        ]
    );
}

#[test]
fn values_without_a_spelling_are_located_errors() {
    let bytes = |words: &[u32]| -> Vec<u8> { words.iter().flat_map(|w| w.to_le_bytes()).collect() };
    // dcl with usage 14 (beyond `sample`): the decoder refuses it; a program built another
    // way that holds one is a located disassembly error.
    let b = bytes(&[
        0xfffe_0200,
        op(0x1f, 0, 2),
        0x8000_000e,
        dst(V, 0, "", 0),
        END,
    ]);
    assert!(matches!(
        disassemble(&b, &Options::default()),
        Err(Error::Decode(_))
    ));
    let b = bytes(&[
        0xfffe_0200,
        op(0x1f, 0, 2),
        0x8000_0005,
        dst(V, 0, "", 0),
        END,
    ]);
    let mut program = decode(&b, 0).expect("decodes");
    program.instructions[0].payload = Payload::Dcl(DclToken(0x8000_000e));
    match write_program(&mut String::new(), &program) {
        Err(e) => {
            assert_eq!(e.offset, 4);
            assert_eq!(e.kind, DisasmErrorKind::UnknownUsage(14));
        }
        other => panic!("{other:?}"),
    }
    // vPos/vFace have no register 2.
    let b = bytes(&[
        0xffff_0300,
        op(0x01, 0, 2),
        dst(R, 0, "", 0),
        src(MISC, 2, "", 0),
        END,
    ]);
    match disassemble(&b, &Options::default()) {
        Err(Error::Disasm(e)) => {
            assert_eq!(e.offset, 12);
            assert_eq!(e.to_string(), "at 0xc: vPos/vFace has no register 2");
        }
        other => panic!("{other:?}"),
    }
    // Not a stream at all.
    assert!(!is_d3d9_stream(b"DXBC"));
    assert!(matches!(
        disassemble(&[0, 0, 0, 0], &Options::default()),
        Err(Error::Decode(_))
    ));
}

#[test]
fn the_slot_summary_follows_where_every_cost_is_known() {
    let words = [
        0xffff_0200,
        op(0x42, 0, 3), // texld r0, t0, s0: one texture slot
        dst(R, 0, "", 0),
        src(A_OR_T, 0, "", 0),
        src(S, 0, "", 0),
        op(0x24, 0, 2), // nrm r1.xyz, r0: three arithmetic slots
        dst(R, 1, "xyz", 0),
        src(R, 0, "", 0),
        op(0x01, 0, 2),
        dst(OC, 0, "", 0),
        src(R, 1, "", 0),
        END,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let text = disassemble(&bytes, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.ends_with("    mov oC0, r1\n\n// approximately 5 instruction slots used (1 texture, 4 arithmetic)\n"),
        "{text}"
    );
    // A vertex shader prints no split; one slot is singular.
    let words = [
        0xfffe_0200,
        op(0x01, 0, 2),
        dst(RAST, 0, "", 0),
        src(V, 0, "", 0),
        END,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let text = disassemble(&bytes, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.ends_with("    mov oPos, v0\n\n// approximately 1 instruction slot used\n"),
        "{text}"
    );
    // `sincos` has no checked cost: no summary rather than a guess.
    let words = [
        0xfffe_0300,
        op(0x25, 0, 2),
        dst(R, 0, "xy", 0),
        src(R, 1, "x", 0),
        END,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let program = decode(&bytes, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(slot_summary(&program), None);
    assert!(!disassemble(&bytes, &Options::default())
        .unwrap_or_default()
        .contains("approximately"));
    let words = [
        0xffff_0300,
        op(0x5f, 0, 3),
        dst(R, 0, "", 0),
        src(V, 0, "", 0),
        src(S, 0, "", 0),
        END,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let program = decode(&bytes, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        slot_summary(&program),
        Some(SlotSummary {
            texture: 2,
            arithmetic: 0,
            split: true
        })
    );
}
