//! Decoder unit tests on hand-assembled token streams.

use super::decode;
use super::error::DecodeErrorKind;
use super::opcodes::Opcode;
use super::program::{Payload, RegisterType, SrcModifier, Stage};

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn decodes_a_vs_2_0_stream() {
    // vs_2_0; dcl_position v0; m4x4 oPos, v0, c0 is not used: dp4 oPos.x, v0, c0; end.
    let words = [
        0xfffe_0200,
        0x0200_001f, // dcl, length 2
        0x8000_0000, // usage position, index 0
        0x900f_0000, // v0
        0x0300_0009, // dp4, length 3
        0xc001_0000, // oPos.x (type 4: bits 28-30 = 4)
        0x90e4_0000, // v0
        0xa0e4_0000, // c0
        0x0000_ffff,
    ];
    let b = bytes(&words);
    let program = decode(&b, 0).expect("decodes");
    assert_eq!(program.version.stage, Stage::Vertex);
    assert_eq!(program.instructions.len(), 2);
    let dcl = &program.instructions[0];
    assert_eq!(dcl.opcode, Opcode::Dcl);
    assert!(matches!(dcl.payload, Payload::Dcl(t) if t.usage() == 0));
    let dp4 = &program.instructions[1];
    assert_eq!(dp4.offset, 16);
    let dst = dp4.dst.expect("dst");
    assert_eq!((dst.reg, dst.num, dst.mask), (RegisterType::RastOut, 0, 1));
    assert_eq!(dp4.sources()[1].reg, RegisterType::Const);
    assert_eq!(program.end_offset, 32);
}

#[test]
fn sm1_takes_operand_counts_from_the_table() {
    // ps_1_1; tex t0; mov r0, -t0_bx2 (no length fields).
    let words = [
        0xffff_0101,
        0x0000_0042,
        0xb00f_0000,
        0x0000_0001,
        0x800f_0000,
        0xb5e4_0000,
        0x0000_ffff,
    ];
    let b = bytes(&words);
    let program = decode(&b, 0x40).expect("decodes");
    assert_eq!(program.instructions[0].opcode, Opcode::Tex);
    assert_eq!(program.instructions[0].src_count, 0);
    let mov = &program.instructions[1];
    assert_eq!(mov.offset, 0x40 + 12);
    assert_eq!(mov.sources()[0].modifier, SrcModifier::SignNegate);
    assert_eq!(mov.sources()[0].reg, RegisterType::Texture);
}

#[test]
fn relative_tokens_follow_sm2_sources_and_vs1_is_implicit() {
    // vs_2_0: mov r0, c2[a0.x] with its address token.
    let sm2 = [
        0xfffe_0200,
        0x0300_0001,
        0x800f_0000,
        0xa0e4_2002,
        0xb000_0000,
        0x0000_ffff,
    ];
    let b = bytes(&sm2);
    let p = decode(&b, 0).expect("decodes");
    let rel = p.instructions[0].sources()[0].relative.expect("relative");
    assert!(rel.token);
    assert_eq!(rel.reg, RegisterType::Address);
    // vs_1_1: the same without a token.
    let sm1 = [
        0xfffe_0101,
        0x0000_0001,
        0x800f_0000,
        0xa0e4_2002,
        0x0000_ffff,
    ];
    let b = bytes(&sm1);
    let p = decode(&b, 0).expect("decodes");
    let rel = p.instructions[0].sources()[0].relative.expect("relative");
    assert!(!rel.token);
}

#[test]
fn comments_are_kept_in_place() {
    let words = [
        0xffff_0200,
        0x0002_fffe,
        u32::from_le_bytes(*b"CTAB"),
        0x1234_5678,
        0x0000_ffff,
    ];
    let b = bytes(&words);
    let p = decode(&b, 0).expect("decodes");
    assert_eq!(p.comments.len(), 1);
    assert_eq!(p.comments[0].fourcc(), Some(*b"CTAB"));
    assert_eq!(p.comments[0].data.len(), 8);
}

#[test]
fn errors_name_the_offset() {
    let err = |words: &[u32]| decode(&bytes(words), 0x100).map(|_| ()).expect_err("fails");
    let e = err(&[0xfffe_0200, 0x0300_0001, 0x800f_0000]);
    assert_eq!(e.offset, 0x10c);
    assert_eq!(e.kind, DecodeErrorKind::Truncated("a source parameter"));
    assert_eq!(
        e.to_string(),
        "at 0x10c (mov): the stream ends inside a source parameter"
    );
    let e = err(&[0xfffe_0200, 0x0000_0077, 0x0000_ffff]);
    assert_eq!(
        (e.offset, e.kind.clone()),
        (0x104, DecodeErrorKind::UnknownOpcode(0x77))
    );
    let e = err(&[0x0000_0200]);
    assert_eq!(e.kind, DecodeErrorKind::NotAVersionToken(0x200));
    let e = err(&[
        0xfffe_0200,
        0x0300_0001,
        0x800f_0000,
        0xa0e4_0000,
        0x0000_ffff,
    ]);
    assert_eq!(
        e.kind,
        DecodeErrorKind::LengthMismatch {
            field: 3,
            operands: 2
        }
    );
}

#[test]
fn relative_addressing_is_refused_where_the_version_has_none() {
    let err = |words: &[u32]| decode(&bytes(words), 0).map(|_| ()).expect_err("fails");
    let relative = |profile: &str, what| DecodeErrorKind::RelativeNotAllowed {
        profile: profile.into(),
        what,
    };
    // vs_2_0: mov r0[a0.x], c0 (destination relative before SM3).
    let e = err(&[
        0xfffe_0200,
        0x0300_0001,
        0x800f_2000,
        0xb000_0000,
        0xa0e4_0000,
        0xffff,
    ]);
    assert_eq!(
        (e.offset, e.kind.clone()),
        (8, relative("vs_2_0", "destinations"))
    );
    // ps_1_1: mov r0, c0 with the bit: no a0 in pixel shaders (it used to read as vs_1_1's a0.x).
    let e = err(&[0xffff_0101, 0x0000_0001, 0x800f_0000, 0xa0e4_2000, 0xffff]);
    assert_eq!(
        (e.offset, e.kind.clone()),
        (12, relative("ps_1_1", "sources"))
    );
    // Where the version has it, it still decodes: vs_3_0 o0[aL] and ps_3_0 v0[aL].
    let vs3 = [
        0xfffe_0300,
        0x0300_0001,
        0xe00f_2000,
        0xf0e4_0800,
        0xa0e4_0000,
        0xffff,
    ];
    let b = bytes(&vs3);
    let p = decode(&b, 0).expect("vs_3_0 decodes");
    let rel = p.instructions[0]
        .dst
        .and_then(|d| d.relative)
        .expect("relative");
    assert_eq!(rel.reg, RegisterType::Loop);
    let ps3 = [
        0xffff_0300,
        0x0300_0001,
        0x800f_0000,
        0x90e4_2000,
        0xf0e4_0800,
        0xffff,
    ];
    assert!(decode(&bytes(&ps3), 0).is_ok(), "ps_3_0 v0[aL]");
}

#[test]
fn sm1_parameters_need_bit_31() {
    // vs_1_1: add r0, v0, <mov token>: the walk must not take an instruction for an operand.
    let words = [
        0xfffe_0101,
        2,
        0x800f_0000,
        0x90e4_0000,
        1,
        0x800f_0001,
        0x90e4_0000,
        0xffff,
    ];
    let e = decode(&bytes(&words), 0).map(|_| ()).expect_err("fails");
    assert_eq!(e.offset, 16);
    assert_eq!(e.kind, DecodeErrorKind::ParameterExpected(1));
    assert_eq!(e.context, Some("add"));
    // SM2 streams carry their length: a parameter without bit 31 is tolerated (the corpus has
    // such streams), the length field frames the instruction.
    let sm2 = [0xfffe_0200, 0x0200_0001, 0x000f_0000, 0x10e4_0000, 0xffff];
    assert!(decode(&bytes(&sm2), 0).is_ok());
}

#[test]
fn dcl_tokens_are_checked_and_dcl_is_sm2_in_pixel_shaders() {
    let err = |words: &[u32]| decode(&bytes(words), 0).map(|_| ()).expect_err("fails");
    let e = err(&[0xfffe_0200, 0x0200_001f, 0x8000_000e, 0x900f_0000, 0xffff]);
    assert_eq!(
        (e.offset, e.kind.clone()),
        (4, DecodeErrorKind::UnknownUsage(14))
    );
    // dcl_2d s0 decodes; texture type 0 (unknown) does not.
    let ok = [0xffff_0200, 0x0200_001f, 0x9000_0000, 0xa00f_0800, 0xffff];
    let b = bytes(&ok);
    let p = decode(&b, 0).expect("dcl_2d");
    assert!(matches!(p.instructions[0].payload, Payload::Dcl(t) if t.texture_type() == 2));
    let e = err(&[0xffff_0200, 0x0200_001f, 0x8000_0000, 0xa00f_0800, 0xffff]);
    assert_eq!(e.kind, DecodeErrorKind::UnknownTextureType(0));
    // ps_1_x has no dcl (D3D9 declares pixel inputs and samplers from ps_2_0 on): the table says
    // so, and the stream still decodes with dcl's layout, for the validator to refuse.
    assert!(Opcode::Dcl.form(true, 0x0104).is_none());
    assert!(Opcode::Dcl.form(true, 0x0200).is_some());
    assert!(Opcode::Dcl.form(false, 0x0101).is_some());
    let ps14 = [0xffff_0104, 0x0000_001f, 0x8000_0000, 0xb00f_0000, 0xffff];
    assert_eq!(
        decode(&bytes(&ps14), 0)
            .expect("decodes")
            .instructions
            .len(),
        1
    );
}

#[test]
fn errors_name_fxc_spelling_of_the_instruction() {
    // ps_1_1 `tex` (the table's name is texld) cut before its destination.
    let e = decode(&bytes(&[0xffff_0101, 0x0000_0042]), 0)
        .map(|_| ())
        .expect_err("fails");
    assert_eq!(
        e.to_string(),
        "at 0x8 (tex): the stream ends inside a destination parameter"
    );
}

#[test]
fn result_shifts_are_the_six_d3d9_defines() {
    // ps_1_4: mov_x8 r0, c0 (3), mov_d2 r0, c0 (0xF = −1), then shift 12, which is undefined.
    let shifted = |raw: u32| [0xffff_0104, 1, 0x800f_0000 | raw << 24, 0xa0e4_0000, 0xffff];
    for (raw, shift) in [(3, 3), (0xd, -3), (0xf, -1)] {
        let b = bytes(&shifted(raw));
        let p = decode(&b, 0).expect("decodes");
        assert_eq!(p.instructions[0].dst.map(|d| d.shift), Some(shift));
    }
    let e = decode(&bytes(&shifted(12)), 0)
        .map(|_| ())
        .expect_err("fails");
    assert_eq!(
        (e.offset, e.kind.clone()),
        (8, DecodeErrorKind::UnknownResultShift(12))
    );
}
