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
