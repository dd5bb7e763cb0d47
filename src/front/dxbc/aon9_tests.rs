//! Unit tests of the level-9 chunk parser on hand-built chunks, well-formed and malformed.

use super::*;
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::test_support::build_container;

/// Absolute offset given to the hand-built chunks' data.
const BASE: u32 = 0x40;

/// A `vs_2_0` program: `mov oPos, v0` and the end token.
const VS_PROGRAM: [u32; 4] = [0xFFFE_0200, 0x0200_0001, 0x800F_0000, 0x0000_FFFF];

/// A level-9 payload with the given table rows (`(count, bytes)` per descriptor), laid out as
/// fxc does for vertex shaders: header, the tables in descriptor order, then the program.
fn payload(version: u32, tables: [(u16, &[u8]); 5], program: &[u32]) -> Vec<u8> {
    let mut rows = Vec::new();
    let mut descriptors = Vec::new();
    for (count, bytes) in tables {
        let offset = HEADER_SIZE + rows.len() as u32;
        descriptors.push(u32::from(count) | offset << 16);
        rows.extend_from_slice(bytes);
    }
    let program_offset = HEADER_SIZE + rows.len() as u32;
    let program_size = 4 * program.len() as u32;
    let mut out = Vec::new();
    for v in [
        program_offset + program_size,
        version,
        program_size,
        program_offset,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for d in descriptors {
        out.extend_from_slice(&d.to_le_bytes());
    }
    out.extend_from_slice(&rows);
    for t in program {
        out.extend_from_slice(&t.to_le_bytes());
    }
    out
}

fn constant_row(cb: u16, first: u16, count: u16, target: u16, conv: [u8; 4]) -> Vec<u8> {
    let mut v = Vec::new();
    for x in [cb, first, count, target] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(&conv);
    v
}

/// A vertex-shader payload: cb0[0..4] → c1 (floats), cb1[2] → c5 (x float, yzw uint), and the
/// position offset in c0.
fn vertex_payload() -> Vec<u8> {
    let mut constants = constant_row(0, 0, 4, 1, [0; 4]);
    constants.extend(constant_row(1, 2, 1, 5, [0, 3, 3, 3]));
    let runtime = [0u8, 0, 0, 0];
    payload(
        0xFFFE_0200,
        [(2, &constants), (0, &[]), (0, &[]), (0, &[]), (1, &runtime)],
        &VS_PROGRAM,
    )
}

fn parse(data: &[u8]) -> Result<Level9<'_>> {
    Level9::parse(&Chunk {
        fourcc: FourCc::AON9,
        offset: BASE,
        data,
    })
}

#[test]
fn parses_a_vertex_shader_part() {
    let data = vertex_payload();
    let l9 = parse(&data).unwrap();
    assert_eq!(l9.kind, Level9Kind::Legacy);
    assert_eq!(l9.payload_size as usize, data.len());
    assert_eq!(l9.version, 0xFFFE_0200);
    assert!(l9.is_vertex_shader());
    // Header (36) + two constant rows (24) + one runtime row (4).
    assert_eq!(l9.program_offset, BASE + 64);
    assert_eq!(l9.program.len(), 16);
    assert_eq!(l9.program_version(), Some(0xFFFE_0200));
    assert_eq!(
        l9.constants,
        [
            ConstantMapping {
                buffer: 0,
                first_register: 0,
                count: 4,
                target: 1,
                conversion: [Conversion::Float; 4],
            },
            ConstantMapping {
                buffer: 1,
                first_register: 2,
                count: 1,
                target: 5,
                conversion: [
                    Conversion::Float,
                    Conversion::UInt,
                    Conversion::UInt,
                    Conversion::UInt
                ],
            },
        ]
    );
    assert_eq!(
        l9.runtime_constants,
        [RuntimeConstant {
            kind: RuntimeConstantKind::VertexShaderPositionOffset,
            target: 0,
        }]
    );
    assert!(l9.samplers.is_empty());
    assert_eq!(l9.unknown_tables, [None, None]);
}

#[test]
fn parses_sampler_rows_and_names_unknown_codes() {
    // t1 with s0 → s2; t0 with s1 → s0 (reserved byte 7 kept).
    let samplers = [1u8, 0, 2, 0, 0, 1, 0, 7];
    let constants = constant_row(0, 0, 1, 0, [9, 0, 0, 0]);
    let runtime = [5u8, 0, 4, 0];
    let data = payload(
        0xFFFF_0200,
        [
            (1, &constants),
            (0, &[]),
            (0, &[]),
            (2, &samplers),
            (1, &runtime),
        ],
        &[0xFFFF_0201, 0x0000_FFFF],
    );
    let l9 = parse(&data).unwrap();
    assert!(!l9.is_vertex_shader());
    assert_eq!(l9.program_version(), Some(0xFFFF_0201));
    assert_eq!(
        l9.samplers,
        [
            SamplerMapping {
                source_resource: 1,
                source_sampler: 0,
                target_sampler: 2,
                reserved: 0,
            },
            SamplerMapping {
                source_resource: 0,
                source_sampler: 1,
                target_sampler: 0,
                reserved: 7,
            },
        ]
    );
    assert_eq!(l9.constants[0].conversion[0], Conversion::Other(9));
    assert_eq!(l9.constants[0].conversion[0].code(), 9);
    assert_eq!(l9.runtime_constants[0].kind, RuntimeConstantKind::Other(5));
    assert_eq!(l9.runtime_constants[0].kind.code(), 5);
    assert_eq!(l9.runtime_constants[0].target, 4);
}

#[test]
fn keeps_unknown_tables_raw() {
    let raw = [1u8, 2, 3, 4, 5, 6, 7, 8];
    let data = payload(
        0xFFFE_0200,
        [(0, &[]), (0, &[]), (2, &raw), (0, &[]), (0, &[])],
        &VS_PROGRAM,
    );
    let l9 = parse(&data).unwrap();
    assert_eq!(l9.unknown_tables[0], None);
    assert_eq!(
        l9.unknown_tables[1],
        Some(RawTable {
            count: 2,
            offset: BASE + 36,
            bytes: &raw,
        })
    );
}

#[test]
fn container_exposes_aon9_and_xna_parts() {
    let aon9 = vertex_payload();
    let xnas = payload(
        0xFFFF_0200,
        [(0, &[]), (0, &[]), (0, &[]), (0, &[]), (0, &[])],
        &[0xFFFF_0200, 0x0000_FFFF],
    );
    let bytes = build_container(&[(b"XNAS", &xnas), (b"Aon9", &aon9), (b"XNAP", &aon9)]);
    let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
    let l9 = c.level9().unwrap().unwrap();
    assert_eq!(l9.kind, Level9Kind::Legacy);
    // Container header (32) + three table entries (12) + XNAS header and data + Aon9 header.
    let aon9_at = 32 + 12 + 8 + xnas.len() as u32 + 8;
    assert_eq!(l9.offset, aon9_at);
    assert_eq!(l9.program_offset, aon9_at + 64);
    let parts: Vec<_> = c.level9_parts().into_iter().map(|p| p.unwrap()).collect();
    let kinds: Vec<_> = parts.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            Level9Kind::XnaShader,
            Level9Kind::Legacy,
            Level9Kind::XnaPrepass
        ]
    );
    assert_eq!(parts[0].program, &bytes[52 + 36..52 + 44]);

    let only_xna = build_container(&[(b"XNAS", &xnas)]);
    let c = Container::parse(&only_xna, &ParseOptions::default()).unwrap();
    assert!(c.level9().is_none());
    assert_eq!(c.level9_parts().len(), 1);
}

/// `data` with the u32 at `at` replaced by `value`.
fn with_u32(data: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut out = data.to_vec();
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

fn error(data: &[u8]) -> (u32, DecodeErrorKind) {
    let e = parse(data).unwrap_err();
    assert_eq!(e.context, Some("Aon9"), "{e}");
    (e.offset, e.kind.clone())
}

#[test]
fn rejects_inconsistent_headers_at_the_field() {
    let good = vertex_payload();
    let len = good.len() as u64;

    // Payload size that is not the chunk's.
    let (at, kind) = error(&with_u32(&good, 0, 12));
    assert_eq!(at, BASE);
    assert_eq!(
        kind,
        DecodeErrorKind::SizeMismatch {
            what: "level-9 payload",
            declared: 12,
            actual: len,
        }
    );

    // A version token that is neither vs nor ps.
    let (at, kind) = error(&with_u32(&good, 4, 0x4353_0200));
    assert_eq!(at, BASE + 4);
    assert!(matches!(kind, DecodeErrorKind::InvalidValue { .. }));

    // Program offset inside the header, and past the end.
    for offset in [8, len as u32 + 4] {
        let (at, kind) = error(&with_u32(&good, 12, offset));
        assert_eq!(at, BASE + 12);
        assert!(matches!(kind, DecodeErrorKind::OutOfRange { .. }), "{kind}");
    }

    // Program size running past the end: reported at the size field.
    let (at, kind) = error(&with_u32(&good, 8, 17));
    assert_eq!(at, BASE + 8);
    assert_eq!(
        kind,
        DecodeErrorKind::OutOfRange {
            what: "level-9 program",
            start: 64,
            end: 81,
            lower: 36,
            limit: len,
        }
    );
    // A huge size does not overflow.
    let (at, _) = error(&with_u32(&good, 8, u32::MAX));
    assert_eq!(at, BASE + 8);
}

#[test]
fn rejects_tables_outside_the_chunk_at_their_descriptor() {
    let good = vertex_payload();
    let len = good.len() as u64;
    // Constant table: 100 rows at 36 run past the end.
    let (at, kind) = error(&with_u32(&good, 16, 100 | 36 << 16));
    assert_eq!(at, BASE + 16);
    assert_eq!(
        kind,
        DecodeErrorKind::OutOfRange {
            what: "constant mapping table",
            start: 36,
            end: 36 + 1200,
            lower: 36,
            limit: len,
        }
    );
    // Rows inside the header.
    let (at, _) = error(&with_u32(&good, 16, 1 | 8 << 16));
    assert_eq!(at, BASE + 16);
    // Sampler and runtime tables past the end.
    let (at, kind) = error(&with_u32(&good, 28, 1 | (len as u32 - 2) << 16));
    assert_eq!(at, BASE + 28);
    assert!(matches!(
        kind,
        DecodeErrorKind::OutOfRange {
            what: "sampler mapping table",
            ..
        }
    ));
    let (at, _) = error(&with_u32(&good, 32, 2 | (len as u32 - 4) << 16));
    assert_eq!(at, BASE + 32);
    // An unknown table with rows past the end, and an empty one pointing past the end.
    let (at, _) = error(&with_u32(&good, 20, 1 | (len as u32) << 16));
    assert_eq!(at, BASE + 20);
    let (at, _) = error(&with_u32(&good, 24, (len as u32 + 1) << 16));
    assert_eq!(at, BASE + 24);
    // An empty table may point at the chunk's end.
    assert!(parse(&with_u32(&good, 24, (len as u32) << 16)).is_ok());
}

#[test]
fn truncated_headers_are_end_of_data_errors() {
    let good = vertex_payload();
    for cut in 0..HEADER_SIZE as usize {
        // The payload size field agrees with the cut length, so the header read itself fails.
        let mut data = good[..cut].to_vec();
        if cut >= 4 {
            data[..4].copy_from_slice(&(cut as u32).to_le_bytes());
        }
        let e = parse(&data).unwrap_err();
        let expected = BASE + (cut as u32 / 4) * 4;
        assert_eq!(e.offset, expected, "cut at {cut}: {e}");
        if !(4..8).contains(&cut) {
            assert!(
                matches!(e.kind, DecodeErrorKind::UnexpectedEof { .. }),
                "{e}"
            );
        }
    }
    // Cutting the program off makes the payload size wrong.
    let e = parse(&good[..good.len() - 4]).unwrap_err();
    assert_eq!(e.offset, BASE);
}

#[test]
fn rejects_chunks_that_are_not_level9() {
    let data = vertex_payload();
    let e = Level9::parse(&Chunk {
        fourcc: FourCc::SHDR,
        offset: BASE,
        data: &data,
    })
    .unwrap_err();
    assert_eq!(e.offset, BASE);
    assert!(matches!(e.kind, DecodeErrorKind::Malformed(_)));
}

#[test]
fn mutations_never_panic() {
    let good = vertex_payload();
    let mut state = 0x9E37_79B9u32;
    for _ in 0..5000 {
        let mut bytes = good.clone();
        for _ in 0..3 {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let i = (state >> 8) as usize % bytes.len();
            bytes[i] = (state >> 24) as u8;
        }
        let keep = (state as usize) % (bytes.len() + 1);
        if let Ok(l9) = parse(&bytes[..keep]) {
            assert!(l9.program_offset as usize + l9.program.len() <= BASE as usize + keep);
        }
    }
}

#[test]
fn names_versions_as_fxc() {
    assert_eq!(version_name(0xFFFE_0200), "vs_2_0");
    assert_eq!(version_name(0xFFFF_0201), "ps_2_x");
    assert_eq!(version_name(0xFFFF_0104), "ps_1_4");
    assert_eq!(version_name(0xFFFE_03FF), "vs_3_sw");
    assert_eq!(version_name(0x4353_0500), "unknown_43530500");
}
