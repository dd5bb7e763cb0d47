//! Hand-crafted hostile inputs through the public API (`Container::parse`, `Program::parse` and
//! its instruction iterator, the chunk parsers, `disasm::disassemble`): each asserts the exact
//! error kind and byte offset, so that a change in what the decoder reports is a visible diff.
//! The policy they pin down is described in `docs/robustness.md`.
//!
//! Layout of the one-chunk program containers built by [`program`]: header 0..32, chunk table
//! entry 32, chunk header 36, version token 44, length token 48, first instruction 52.

use super::container::{Container, ParseOptions, HEADER_SIZE};
use super::error::{DecodeError, DecodeErrorKind};
use super::program::Program;
use super::rdef::{ResourceDefinitions, MAX_TYPE_DEPTH, MAX_TYPE_NODES};
use super::reader::MAX_STRING_LEN;
use super::sfi0::FeatureFlags;
use super::signature::Signature;
use crate::fuzzing::{build_container, check, words_to_bytes};
use crate::text::dxbc::disasm::{self, header};

const LAX: ParseOptions = ParseOptions {
    verify_checksum: false,
};

/// Offset of the first instruction in a [`program`] container.
const BODY: u32 = 52;
/// `vs_5_0` and `vs_5_1` version tokens.
const VS_5_0: u32 = 0x0001_0050;
const VS_5_1: u32 = 0x0001_0051;

fn set_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// A container with the given chunks (right size and checksum).
fn container(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let chunks: Vec<_> = chunks.iter().map(|(f, d)| (**f, *d)).collect();
    build_container(&chunks)
}

/// A container whose only chunk is an `SHEX` program: `version`, a length token covering the
/// whole chunk, then `body`.
fn program_with(version: u32, body: &[u32]) -> Vec<u8> {
    let mut words = vec![version, body.len() as u32 + 2];
    words.extend_from_slice(body);
    container(&[(b"SHEX", &words_to_bytes(&words))])
}

fn program(body: &[u32]) -> Vec<u8> {
    program_with(VS_5_0, body)
}

fn container_error(bytes: &[u8]) -> DecodeError {
    Container::parse(bytes, &LAX).expect_err("container must be rejected")
}

/// The first error decoding the program of `bytes`; checks that the iterator stops after it,
/// that the disassembler reports the same error and that the fuzz contract holds.
fn decode_error(bytes: &[u8]) -> DecodeError {
    let c = Container::parse(bytes, &LAX).expect("container");
    let chunk = c.shader_chunk().expect("program chunk");
    let p = Program::parse(chunk.data, chunk.offset).expect("program header");
    let mut iter = p.instructions();
    let err = iter
        .by_ref()
        .find_map(Result::err)
        .expect("some instruction must fail");
    assert!(iter.next().is_none(), "decoding continues after {err}");
    let options = disasm::Options {
        verify_checksum: false,
        header: false,
        ..disasm::Options::default()
    };
    assert_eq!(disasm::disassemble(bytes, &options), Err(err.clone()));
    check(bytes);
    err
}

/// The disassembly of a program that must decode.
fn listing(bytes: &[u8]) -> String {
    check(bytes);
    let options = disasm::Options {
        verify_checksum: false,
        header: false,
        ..disasm::Options::default()
    };
    disasm::disassemble(bytes, &options).expect("listing")
}

fn eof(needed: u64, available: u64) -> DecodeErrorKind {
    DecodeErrorKind::UnexpectedEof { needed, available }
}

fn limit(what: &'static str, value: u64, limit: u64) -> DecodeErrorKind {
    DecodeErrorKind::LimitExceeded { what, value, limit }
}

fn size(what: &'static str, declared: u64, actual: u64) -> DecodeErrorKind {
    DecodeErrorKind::SizeMismatch {
        what,
        declared,
        actual,
    }
}

// ---------------------------------------------------------------- container header and table

#[test]
fn empty_and_short_headers() {
    let e = container_error(&[]);
    assert_eq!((e.offset, e.kind.clone()), (0, eof(4, 0)));
    assert_eq!(e.context, Some("container header"));

    let good = container(&[(b"STAT", &[0; 4])]);
    // Magic only, then part of the checksum.
    let e = container_error(&good[..12]);
    assert_eq!((e.offset, e.kind.clone()), (4, eof(16, 8)));
    // Up to the version: the total size is missing.
    let e = container_error(&good[..24]);
    assert_eq!((e.offset, e.kind.clone()), (24, eof(4, 0)));
    // 31 bytes that declare 31: the chunk count is cut.
    let mut short = good[..31].to_vec();
    set_u32(&mut short, 24, 31);
    let e = container_error(&short);
    assert_eq!((e.offset, e.kind.clone()), (28, eof(4, 3)));
}

#[test]
fn bad_magic_version_and_checksum() {
    let mut bad = container(&[(b"STAT", &[0; 4])]);
    bad[3] = b'D';
    let e = container_error(&bad);
    assert_eq!(
        (e.offset, e.kind.clone()),
        (0, DecodeErrorKind::BadMagic { found: *b"DXBD" })
    );

    let mut bad = container(&[(b"STAT", &[0; 4])]);
    bad[20] = 2;
    let e = container_error(&bad);
    let kind = DecodeErrorKind::InvalidValue {
        what: "container version",
        value: 2,
    };
    assert_eq!((e.offset, e.kind.clone()), (20, kind));

    let mut bad = container(&[(b"STAT", &[0; 4])]);
    *bad.last_mut().unwrap() ^= 1;
    let e = Container::parse(&bad, &ParseOptions::default()).unwrap_err();
    assert_eq!(e.offset, 4);
    assert!(matches!(e.kind, DecodeErrorKind::ChecksumMismatch { .. }));
    assert!(Container::parse(&bad, &LAX).is_ok());
}

#[test]
fn total_size_larger_or_smaller_than_the_data() {
    let good = container(&[(b"STAT", &[0; 4])]);
    let len = good.len() as u64;
    for declared in [len + 1, len - 1, 0, u64::from(u32::MAX)] {
        let mut bad = good.clone();
        set_u32(&mut bad, 24, declared as u32);
        let e = container_error(&bad);
        assert_eq!(
            (e.offset, e.kind.clone()),
            (24, size("container", declared, len))
        );
    }
    // Trailing bytes beyond a correct declared size.
    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 4]);
    let e = container_error(&longer);
    assert_eq!(
        (e.offset, e.kind.clone()),
        (24, size("container", len, len + 4))
    );
}

#[test]
fn huge_chunk_count_is_refused_before_allocating() {
    // The count is checked against the bytes after the header (12 per chunk: table entry and
    // chunk header) before the chunk list is allocated; the error points at the table.
    let mut bad = container(&[(b"STAT", &[0; 4])]);
    let after_header = (bad.len() - HEADER_SIZE) as u64;
    for count in [u32::MAX, 1 << 28, 2] {
        set_u32(&mut bad, 28, count);
        let e = container_error(&bad);
        let kind = limit("chunk count", u64::from(count), after_header / 12);
        assert_eq!((e.offset, e.kind.clone()), (HEADER_SIZE as u32, kind));
    }
}

#[test]
fn chunk_offsets_outside_the_container() {
    let good = container(&[(b"STAT", &[0; 4])]);
    let len = good.len() as u64;
    // Past the end: reported at the table entry.
    let mut bad = good.clone();
    set_u32(&mut bad, 32, 10_000);
    let e = container_error(&bad);
    assert_eq!(
        (e.offset, e.kind.clone()),
        (32, limit("chunk offset", 10_000, len))
    );
    // Into the header or the chunk table.
    for offset in [0, 8, 35] {
        let mut bad = good.clone();
        set_u32(&mut bad, 32, offset);
        let e = container_error(&bad);
        let kind = DecodeErrorKind::Malformed("chunk offset points into the container header");
        assert_eq!((e.offset, e.kind.clone()), (32, kind));
    }
    // The chunk header itself cut by the end of the data.
    let mut bad = good.clone();
    set_u32(&mut bad, 32, len as u32 - 6);
    let e = container_error(&bad);
    assert_eq!((e.offset, e.kind.clone()), (len as u32 - 2, eof(4, 2)));
}

#[test]
fn chunk_size_past_the_end() {
    let good = container(&[(b"STAT", &[0; 4])]);
    for declared in [5u32, 1 << 20, u32::MAX] {
        let mut bad = good.clone();
        set_u32(&mut bad, 40, declared);
        let e = container_error(&bad);
        assert_eq!(
            (e.offset, e.kind.clone()),
            (44, eof(u64::from(declared), 4))
        );
    }
}

#[test]
fn overlapping_and_misaligned_chunks_are_accepted() {
    // Policy: chunks are windows into the input; two table entries may name the same bytes and
    // a chunk need not be dword-aligned (nothing reads through an aligned pointer).
    let mut twice = container(&[(b"STAT", &[1, 2, 3, 4]), (b"ABCD", &[5, 6, 7, 8])]);
    let first = u32::from_le_bytes(twice[32..36].try_into().unwrap());
    set_u32(&mut twice, 36, first);
    let c = Container::parse(&twice, &LAX).expect("overlap");
    assert_eq!(c.chunks[0], c.chunks[1]);

    // A program chunk one byte off alignment, decoded and disassembled as usual.
    let aligned = program(&[0x0100_003e]);
    let mut misaligned = aligned[..36].to_vec();
    misaligned.push(0xcc);
    misaligned.extend_from_slice(&aligned[36..]);
    let len = misaligned.len() as u32;
    set_u32(&mut misaligned, 24, len);
    set_u32(&mut misaligned, 32, 37);
    let c = Container::parse(&misaligned, &LAX).expect("misaligned");
    assert_eq!(c.chunks[0].offset, 45);
    assert_eq!(listing(&misaligned), "vs_5_0\nret\n");
}

#[test]
fn containers_without_a_program() {
    let options = disasm::Options {
        verify_checksum: false,
        ..disasm::Options::default()
    };
    let none = container(&[(b"STAT", &[0; 4])]);
    let e = disasm::disassemble(&none, &options).unwrap_err();
    assert_eq!(
        (e.offset, e.kind.clone()),
        (0, DecodeErrorKind::MissingChunk("SHDR or SHEX"))
    );
    let dxil = container(&[(b"DXIL", &[0; 4])]);
    let e = disasm::disassemble(&dxil, &options).unwrap_err();
    assert_eq!((e.offset, e.kind.clone()), (0, DecodeErrorKind::Dxil));
}

// ---------------------------------------------------------------- program header

#[test]
fn program_length_zero_one_and_huge() {
    for length in [0u32, 1, 4, u32::MAX] {
        let mut bad = program(&[0x0100_003e]);
        set_u32(&mut bad, 48, length);
        let c = Container::parse(&bad, &LAX).unwrap();
        let chunk = c.shader_chunk().unwrap();
        let e = Program::parse(chunk.data, chunk.offset).unwrap_err();
        let kind = size("program length", u64::from(length) * 4, 12);
        assert_eq!((e.offset, e.kind.clone()), (48, kind));
        check(&bad);
    }
    // A chunk too short for the length token.
    let bad = container(&[(b"SHEX", &words_to_bytes(&[VS_5_0]))]);
    let c = Container::parse(&bad, &LAX).unwrap();
    let chunk = c.shader_chunk().unwrap();
    let e = Program::parse(chunk.data, chunk.offset).unwrap_err();
    assert_eq!((e.offset, e.kind.clone()), (48, eof(4, 0)));
    // A length shorter than the chunk: the rest of the chunk is not part of the program.
    let mut short = program(&[0x0100_003e, 0xffff_ffff]);
    set_u32(&mut short, 48, 3);
    assert_eq!(listing(&short), "vs_5_0\nret\n");
}

#[test]
fn program_type_and_version() {
    for (version, what, value) in [
        (0x0006_0050, "program type", 6),
        (0xfff1_0050, "program type", 0xfff1),
        (0x0001_0060, "shader model version", 0x60),
        (0x0001_0052, "shader model version", 0x52),
        (0x0001_0030, "shader model version", 0x30),
    ] {
        let bad = program_with(version, &[0x0100_003e]);
        let c = Container::parse(&bad, &LAX).unwrap();
        let chunk = c.shader_chunk().unwrap();
        let e = Program::parse(chunk.data, chunk.offset).unwrap_err();
        let kind = DecodeErrorKind::InvalidValue { what, value };
        assert_eq!((e.offset, e.kind.clone()), (44, kind), "{version:#x}");
    }
}

// ---------------------------------------------------------------- instructions

#[test]
fn instruction_length_zero() {
    // `mov` with a zero length field.
    let e = decode_error(&program(&[0x0000_0036, 0x0010_0012, 0]));
    let kind = DecodeErrorKind::Malformed("instruction length is 0");
    assert_eq!(
        (e.offset, e.kind.clone(), e.context),
        (BODY, kind, Some("mov"))
    );
    // After a good instruction, the offset is the bad one's.
    let e = decode_error(&program(&[0x0100_003e, 0x0000_003e]));
    assert_eq!(e.offset, BODY + 4);
}

#[test]
fn instruction_length_past_the_end() {
    // `mov` claiming 5 dwords with 3 left.
    let e = decode_error(&program(&[0x0500_0036, 0x0010_0012, 0]));
    assert_eq!(
        (e.offset, e.kind.clone()),
        (BODY, size("instruction", 20, 12))
    );
    // The length field's maximum, 127 dwords.
    let e = decode_error(&program(&[0x7f00_0036]));
    assert_eq!(
        (e.offset, e.kind.clone()),
        (BODY, size("instruction", 508, 4))
    );
}

#[test]
fn instruction_shorter_than_its_operands() {
    // `mov r0.x, r1.x` with a length of 3: the source operand is outside the instruction
    // even though the program continues.
    let e = decode_error(&program(&[0x0300_0036, 0x0010_0012, 0, 0x0010_000a, 1]));
    assert_eq!((e.offset, e.kind.clone()), (BODY + 12, eof(4, 0)));
}

#[test]
fn custom_data_lengths() {
    // A huge, a zero and a one-dword length: the block must be at least its two header dwords
    // and fit in the program.
    for length in [u32::MAX, 0, 1, 5] {
        let e = decode_error(&program(&[0x0000_1835, length, 0]));
        let kind = size("custom data block", u64::from(length) * 4, 12);
        assert_eq!(
            (e.offset, e.kind.clone(), e.context),
            (BODY, kind, Some("customdata"))
        );
    }
    // The length dword itself missing.
    let e = decode_error(&program(&[0x0000_1835]));
    assert_eq!((e.offset, e.kind.clone()), (BODY + 4, eof(4, 0)));
    // An empty immediate constant buffer is fine.
    assert_eq!(
        listing(&program(&[0x0000_1835, 2])),
        "vs_5_0\ndcl_immediateConstantBuffer { }\n"
    );
}

#[test]
fn unknown_and_reserved_opcodes() {
    for opcode in [0xebu32, 0x6b, 0x7ff] {
        let e = decode_error(&program(&[0x0100_003e, 0x0100_0000 | opcode]));
        let kind = DecodeErrorKind::UnknownOpcode(opcode);
        assert_eq!((e.offset, e.kind.clone()), (BODY + 4, kind));
    }
}

#[test]
fn variable_length_declaration_too_short() {
    // `dcl_function_table` (0x91) in its long form stores its length in the next dword.
    for length in [0u32, 1] {
        let e = decode_error(&program(&[0x8000_0091, length, 0]));
        let kind = DecodeErrorKind::Malformed("instruction length too small");
        assert_eq!((e.offset, e.kind.clone()), (BODY, kind));
    }
}

#[test]
fn invalid_register_type() {
    // mov r0.x, <type 0xff>
    let e = decode_error(&program(&[0x0500_0036, 0x0010_0012, 0, 0x001f_f00a, 0]));
    let kind = DecodeErrorKind::InvalidValue {
        what: "register type",
        value: 0xff,
    };
    assert_eq!(
        (e.offset, e.kind.clone(), e.context),
        (BODY + 12, kind, Some("mov"))
    );
    // The first undefined number (43) also fails, inside a relative index.
    let e = decode_error(&program(&[
        0x0600_0036,
        0x0010_0012,
        0,
        0x0090_300a,
        0x0012_b00a,
        0,
    ]));
    let kind = DecodeErrorKind::InvalidValue {
        what: "register type",
        value: 43,
    };
    assert_eq!((e.offset, e.kind.clone()), (BODY + 16, kind));
}

#[test]
fn invalid_component_selection_mode() {
    // Selection mode 3 on a four-component source.
    let e = decode_error(&program(&[0x0500_0036, 0x0010_0012, 0, 0x0010_000e, 0]));
    let kind = DecodeErrorKind::InvalidValue {
        what: "component selection mode",
        value: 3,
    };
    assert_eq!((e.offset, e.kind.clone()), (BODY + 12, kind));
}

#[test]
fn nested_relative_addressing() {
    // mov r0.x, x1[r0[...].x]: the relative register's own index is relative again.
    let e = decode_error(&program(&[
        0x0800_0036,
        0x0010_0012,
        0, // opcode, r0.x
        0x0420_300a,
        1, // x1[imm 1][relative]
        0x0090_000a,
        0,
        0, // r0[relative].x
    ]));
    let kind = DecodeErrorKind::Malformed("nested relative addressing");
    assert_eq!((e.offset, e.kind.clone()), (BODY + 20, kind));
    // A relative register with three indices.
    let e = decode_error(&program(&[
        0x0800_0036,
        0x0010_0012,
        0,
        0x0090_300a,
        0x0030_000a,
        0,
        0,
        0,
    ]));
    let kind = DecodeErrorKind::Malformed("relative index register with more than two indices");
    assert_eq!((e.offset, e.kind.clone()), (BODY + 16, kind));
}

#[test]
fn invalid_index_representation() {
    // Representation 5 for the first index; reported at the operand token.
    let e = decode_error(&program(&[0x0500_0036, 0x0010_0012, 0, 0x0150_000a, 0]));
    let kind = DecodeErrorKind::InvalidValue {
        what: "index representation",
        value: 5,
    };
    assert_eq!((e.offset, e.kind.clone()), (BODY + 12, kind));
}

#[test]
fn extended_opcode_chain_runs_past_the_instruction() {
    // Two dwords: the opcode token and one extended token that says another follows.
    let e = decode_error(&program(&[0x8200_0045, 0x8000_0001, 0x0100_003e]));
    assert_eq!(
        (e.offset, e.kind.clone(), e.context),
        (BODY + 8, eof(4, 0), Some("sample"))
    );
}

#[test]
fn extended_operand_chain_runs_past_the_instruction() {
    // mov r0.x, r1.x where r1's extended operand tokens never end before the length does.
    let e = decode_error(&program(&[
        0x0600_0036,
        0x0010_0012,
        0,
        0x8010_000a,
        0x8000_0001,
        0x8000_0001,
        0x0100_003e,
    ]));
    assert_eq!((e.offset, e.kind.clone()), (BODY + 24, eof(4, 0)));
}

#[test]
fn too_many_extended_opcode_tokens() {
    let e = decode_error(&program(&[
        0x8600_0045,
        0x8000_0001,
        0x8000_0002,
        0x8000_0003,
        0x0000_0000,
        0,
    ]));
    assert_eq!(e.kind, limit("extended opcode tokens", 4, 3));
    assert_eq!(e.offset, BODY + 16, "reported at the fourth token");
}

#[test]
fn invalid_operand_modifier() {
    // mov r0.x, r1.x with modifier 4 in its extended operand token.
    let e = decode_error(&program(&[
        0x0600_0036,
        0x0010_0012,
        0,
        0x8010_000a,
        0x0000_0101,
        1,
    ]));
    let kind = DecodeErrorKind::InvalidValue {
        what: "operand modifier",
        value: 4,
    };
    assert_eq!(e.kind, kind);
    assert_eq!(e.offset, BODY + 16, "reported at the extended token");
}

#[test]
fn immediates_with_indices_or_n_components() {
    // mov r0.x, l(...) with an index dimension of 1, then with N components.
    let e = decode_error(&program(&[0x0500_0036, 0x0010_0012, 0, 0x0010_4001, 0]));
    let kind = DecodeErrorKind::Malformed("immediate operand with indices");
    assert_eq!(
        (e.offset, e.kind.clone()),
        (BODY + 12, kind),
        "at the operand token"
    );
    let e = decode_error(&program(&[0x0500_0036, 0x0010_0012, 0, 0x0000_4003, 0]));
    let kind = DecodeErrorKind::Malformed("N-component immediate");
    assert_eq!((e.offset, e.kind.clone()), (BODY + 12, kind));
}

#[test]
fn three_dimensional_operands_with_relative_indices() {
    // SM5.1: mov r0.x, CB[r1.x + 1][r1.y + 2][r1.z + 3].x — every index imm32 + relative.
    let rel = |c: u32| 0x0010_000a | c << 4;
    let bytes = program_with(
        VS_5_1,
        &[
            0x0d00_0036,
            0x0010_0012,
            0,           // mov, r0.x
            0x36f0_800a, // cb, select x, 3 indices, all imm32 + relative
            1,
            rel(0),
            1,
            2,
            rel(1),
            1,
            3,
            rel(2),
            1,
        ],
    );
    let text = listing(&bytes);
    assert_eq!(
        text,
        "vs_5_1\nmov r0.x, CB[r1.x + 1][r1.y + 2][r1.z + 3].x\n"
    );
    // The same operand cut inside its last relative register.
    let mut cut = program_with(
        VS_5_1,
        &[
            0x0c00_0036,
            0x0010_0012,
            0,
            0x36f0_800a,
            1,
            rel(0),
            1,
            2,
            rel(1),
            1,
            3,
            rel(2),
        ],
    );
    let e = decode_error(&cut);
    assert_eq!((e.offset, e.kind.clone()), (BODY + 48, eof(4, 0)));
    // Index representation bits on a zero-dimensional operand are ignored.
    set_u32(&mut cut, BODY as usize + 12, 0x36c0_800a);
    check(&cut);
}

// ---------------------------------------------------------------- metadata chunks

/// A one-element `ISGN` payload whose element table starts at 8 and name at 32.
fn signature_payload(count: u32) -> Vec<u8> {
    let mut d = words_to_bytes(&[count, 8, 32, 0, 0, 3, 0]);
    d.extend_from_slice(&[0xf, 0xf, 0, 0]);
    d.extend_from_slice(b"TEXCOORD\0");
    d
}

#[test]
fn huge_signature_element_count() {
    let bytes = container(&[(b"ISGN", &signature_payload(u32::MAX))]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.input_signature().unwrap().unwrap_err();
    // The count is checked against the bytes from the element table's start (33 left).
    let kind = limit("signature elements", u64::from(u32::MAX), 1);
    assert_eq!(
        (e.offset, e.kind.clone(), e.context),
        (44 + 8, kind, Some("ISGN"))
    );
    check(&bytes);
    // The same bytes as a 32-byte-element `ISG1`: two elements no longer fit.
    let bytes = container(&[(b"ISG1", &signature_payload(2))]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.input_signature().unwrap().unwrap_err();
    assert_eq!(
        (e.offset, e.kind.clone()),
        (52, limit("signature elements", 2, 1))
    );
}

#[test]
fn signature_name_outside_the_chunk() {
    let mut payload = signature_payload(1);
    set_u32(&mut payload, 8, 1000);
    let bytes = container(&[(b"ISGN", &payload)]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.input_signature().unwrap().unwrap_err();
    assert_eq!(e.kind, limit("offset", 1000, payload.len() as u64));
    assert_eq!(e.offset, 44 + 8, "reported at the field holding the offset");
    // A name without a terminating nul.
    let mut payload = signature_payload(1);
    payload.pop();
    let bytes = container(&[(b"ISGN", &payload)]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.input_signature().unwrap().unwrap_err();
    assert_eq!(
        (e.offset, e.kind.clone()),
        (44 + 32, DecodeErrorKind::InvalidString)
    );
}

#[test]
fn signature_name_outside_the_chunk_points_at_the_field() {
    let mut payload = signature_payload(1);
    set_u32(&mut payload, 8, 1000);
    let bytes = container(&[(b"ISGN", &payload)]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.input_signature().unwrap().unwrap_err();
    assert_eq!(e.offset, 44 + 8);
}

#[test]
fn short_sfi0() {
    let bytes = container(&[(b"SFI0", &[1, 0, 0, 0, 0])]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.feature_info().unwrap().unwrap_err();
    assert_eq!(
        (e.offset, e.kind.clone(), e.context),
        (48, eof(4, 1), Some("SFI0"))
    );
    let e = FeatureFlags::parse(&c.chunks[0]).unwrap_err();
    assert_eq!(e.offset, 48);
}

/// An SM4 `RDEF` with one constant buffer of one variable whose type is at `type_offset`,
/// followed by `types` (16-byte SM4 type entries and 12-byte members, laid out by the caller
/// from offset 100). Strings: "c" at 92, creator "x" at 94.
fn rdef_payload(type_offset: u32, types: &[u32]) -> Vec<u8> {
    #[rustfmt::skip]
    let words = [
        1, 28, 0, 0, 0xfffe_0400, 0, 94, // header: 1 cb at 28, no bindings, vs_4_0, creator
        92, 1, 52, 16, 0, 0, // cb "c": 1 variable at 52
        92, 0, 16, 2, type_offset, 0, // variable "c"
        0, 0, 0, 0, // padding up to 92
    ];
    let mut d = words_to_bytes(&words);
    d.extend_from_slice(b"c\0x\0\0\0\0\0"); // strings at 92, padding up to 100
    d.extend_from_slice(&words_to_bytes(types));
    d
}

/// A struct type at `at` with `members` members whose table is at `member_offset`.
fn struct_type(members: u32, member_offset: u32) -> [u32; 4] {
    [0x0000_0005, 0x0004_0001, members << 16, member_offset]
}

#[test]
fn rdef_cyclic_type_is_a_depth_error() {
    // The struct at 100 has one member (table at 116) whose type is the struct itself.
    let mut types = struct_type(1, 116).to_vec();
    types.extend_from_slice(&[92, 100, 0]);
    let payload = rdef_payload(100, &types);
    let bytes = container(&[(b"RDEF", &payload)]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.resource_definitions().unwrap().unwrap_err();
    let depth = u64::from(MAX_TYPE_DEPTH);
    assert_eq!(
        (e.offset, e.kind.clone()),
        (44 + 100, limit("type nesting depth", depth, depth))
    );
    assert_eq!(e.context, Some("RDEF"));
    check(&bytes);
}

#[test]
fn rdef_deep_type_chain_is_a_depth_error() {
    // 100 distinct structs, each the only member of the previous one.
    let mut types = Vec::new();
    for i in 0..100u32 {
        let at = 100 + 28 * i;
        types.extend_from_slice(&struct_type(1, at + 16));
        types.extend_from_slice(&[92, at + 28, 0]);
    }
    types.extend_from_slice(&[0x0003_0001, 0x0004_0001, 0, 0]);
    let payload = rdef_payload(100, &types);
    let bytes = container(&[(b"RDEF", &payload)]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.resource_definitions().unwrap().unwrap_err();
    let depth = u64::from(MAX_TYPE_DEPTH);
    let at = 44 + 100 + 28 * MAX_TYPE_DEPTH;
    assert_eq!(
        (e.offset, e.kind.clone()),
        (at, limit("type nesting depth", depth, depth))
    );
}

#[test]
fn rdef_exponentially_shared_types_hit_the_node_budget() {
    // 20 levels, each a struct with two members of the next level's type: 2^21 nodes per use.
    let mut types = Vec::new();
    for i in 0..20u32 {
        let at = 100 + 40 * i;
        types.extend_from_slice(&struct_type(2, at + 16));
        types.extend_from_slice(&[92, at + 40, 0, 92, at + 40, 0]);
    }
    types.extend_from_slice(&[0x0003_0001, 0x0004_0001, 0, 0]);
    let payload = rdef_payload(100, &types);
    let bytes = container(&[(b"RDEF", &payload)]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.resource_definitions().unwrap().unwrap_err();
    let nodes = u64::from(MAX_TYPE_NODES);
    assert_eq!(e.kind, limit("type nodes", nodes + 1, nodes));
    // The node that crossed the budget is the float4 leaf (level 20) of the 2^16th path.
    assert_eq!(e.offset, 44 + 100 + 40 * 20);
    check(&bytes);
}

#[test]
fn rdef_counts_and_offsets() {
    // A constant-buffer count far beyond the chunk.
    let mut payload = rdef_payload(100, &[0x0003_0001, 0x0004_0001, 0, 0]);
    let good = container(&[(b"RDEF", &payload)]);
    ResourceDefinitions::parse(&Container::parse(&good, &LAX).unwrap().chunks[0]).expect("valid");
    set_u32(&mut payload, 0, u32::MAX);
    let bytes = container(&[(b"RDEF", &payload)]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.resource_definitions().unwrap().unwrap_err();
    let left = (payload.len() - 28) as u64 / 24;
    assert_eq!(
        (e.offset, e.kind.clone()),
        (
            44 + 28,
            limit("constant buffers", u64::from(u32::MAX), left)
        )
    );
    // A creator string that runs to the end of the chunk.
    let mut payload = rdef_payload(100, &[0x0003_0001, 0x0004_0001, 0, 0]);
    let last = payload.len() as u32 - 1;
    set_u32(&mut payload, 24, last);
    *payload.last_mut().unwrap() = b'!';
    let bytes = container(&[(b"RDEF", &payload)]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.resource_definitions().unwrap().unwrap_err();
    let at = 44 + payload.len() as u32 - 1;
    assert_eq!(
        (e.offset, e.kind.clone()),
        (at, DecodeErrorKind::InvalidString)
    );
}

// ---------------------------------------------------------------- amplification

/// An `ISGN` with `count` elements that all name one `len`-byte string.
fn shared_name_signature(count: u32, len: usize) -> Vec<u8> {
    let name_offset = 8 + 24 * count;
    let mut d = words_to_bytes(&[count, 8]);
    for i in 0..count {
        d.extend_from_slice(&words_to_bytes(&[name_offset, i, 0, 3, i]));
        d.extend_from_slice(&[0xf, 0xf, 0, 0]);
    }
    d.resize(d.len() + len, b'A');
    d.push(0);
    d
}

#[test]
fn header_output_is_linear_in_the_input() {
    // Names are capped at MAX_STRING_LEN, so a shared name costs at most that per element.
    let bytes = container(&[(b"ISGN", &shared_name_signature(2000, MAX_STRING_LEN))]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let mut text = String::new();
    header::write_header(&mut text, &c).expect("header");
    assert!(
        text.len() <= 64 * bytes.len(),
        "{} bytes of header for {} bytes",
        text.len(),
        bytes.len()
    );
}

#[test]
fn shared_names_parse_in_linear_time() {
    let bytes = container(&[(b"ISGN", &shared_name_signature(40_000, MAX_STRING_LEN))]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let sig = Signature::parse(&c.chunks[0]).expect("signature");
    assert_eq!(sig.elements.len(), 40_000);
}

#[test]
fn overlong_names_are_rejected() {
    let bytes = container(&[(b"ISGN", &shared_name_signature(2, MAX_STRING_LEN + 1))]);
    let c = Container::parse(&bytes, &LAX).unwrap();
    let e = c.input_signature().unwrap().unwrap_err();
    assert!(
        matches!(
            e.kind,
            DecodeErrorKind::LimitExceeded {
                what: "string length",
                ..
            }
        ),
        "{e}"
    );
}
