//! The encoder against the decoder: `encode(decode(x)) == x` for every stream of the D3D9
//! corpus (standalone and level-9 parts), and hand-built programs with known tokens.

use super::encode::{encode, encode_bytes};
use crate::front::d3d9::corpus_tests::{index_rows, level9_program};
use crate::front::d3d9::decode;
use crate::test_support;

/// The dwords of a stream up to its end token inclusive.
fn dwords_to_end(bytes: &[u8], end_offset: usize) -> Vec<u32> {
    bytes
        .get(..end_offset + 4)
        .unwrap_or(bytes)
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn every_corpus_stream_encodes_back_to_its_tokens() {
    let Some(dir) = test_support::corpus_d3d9_dir() else {
        return;
    };
    let rows = index_rows(&dir);
    let mut failures = Vec::new();
    let (mut standalone, mut level9) = (0, 0);
    for (file, origin, chunk) in &rows {
        let bytes = std::fs::read(dir.join(file)).expect("read corpus file");
        let (stream, base) = if origin == "aon9" {
            level9_program(&bytes, chunk).expect("level-9 program")
        } else {
            (bytes, 0)
        };
        let program = decode(&stream, base).expect("corpus stream decodes");
        let expected = dwords_to_end(&stream, (program.end_offset - base) as usize);
        match encode(&program) {
            Ok(words) if words == expected => {
                if origin == "aon9" {
                    level9 += 1;
                } else {
                    standalone += 1;
                }
            }
            Ok(words) => {
                let at = words
                    .iter()
                    .zip(&expected)
                    .position(|(a, b)| a != b)
                    .unwrap_or(words.len().min(expected.len()));
                failures.push(format!(
                    "{file}: dword {at}: encoded {:08x?}, stream {:08x?}",
                    words.get(at),
                    expected.get(at)
                ));
            }
            Err(e) => failures.push(format!("{file}: {e}")),
        }
    }
    println!(
        "D3D9 corpus: {standalone} standalone streams and {level9} level-9 parts encode back \
         to their tokens, of {}",
        rows.len()
    );
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_hand_built_stream_round_trips_through_decode_and_encode() {
    // vs_2_0: dcl_position v0; mov oPos, c[a0.x + 4] (relative token); sincos with 3 sources;
    // a comment block before the first instruction and one before the end.
    let words: [u32; 17] = [
        0xfffe_0200,
        0x0001_fffe,
        0x4154_4344, // comment "DCTA"
        0x0200_001f,
        0x8000_0000,
        0x900f_0000,
        0x0300_0001,
        0xc00f_0000,
        0xa0e4_2004,
        0xb000_0000,
        0x0400_0025,
        0x8003_0000,
        0xa000_0001,
        0xa0e4_0002,
        0xa0e4_0003,
        0x0000_fffe,
        0x0000_ffff,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let program = decode(&bytes, 0).expect("decodes");
    assert_eq!(program.instructions.len(), 3);
    assert_eq!(encode(&program).expect("encodes"), words);
    assert_eq!(encode_bytes(&program).expect("encodes"), bytes);
}

#[test]
fn sm1_instructions_have_no_length_field() {
    // ps_1_1: tex t0; mov_x2 r0, t0 (result shift 1); end.
    let words: [u32; 6] = [
        0xffff_0101,
        0x0000_0042,
        0xb00f_0000,
        0x0000_0001,
        0x810f_0000,
        0xb0e4_0000,
    ];
    let mut with_end = words.to_vec();
    with_end.push(0x0000_ffff);
    let bytes: Vec<u8> = with_end.iter().flat_map(|w| w.to_le_bytes()).collect();
    let program = decode(&bytes, 0).expect("decodes");
    assert_eq!(
        program
            .instructions
            .get(1)
            .and_then(|i| i.dst)
            .map(|d| d.shift),
        Some(1)
    );
    assert_eq!(encode(&program).expect("encodes"), with_end);
}
