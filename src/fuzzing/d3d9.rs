//! The fuzz contract of the Direct3D 9 decoder, its token-aware mutator and hand-made seeds.
//!
//! Contract: [`decode_d3d9`] decodes arbitrary bytes as a D3D9 token stream (at base offset 0
//! and at a container-like base offset) and panics only when the decoder breaks a documented
//! guarantee: an error's offset lies inside the input (the end of the input included, where a
//! truncated token is reported), both bases give the same result shifted by the base, decoded
//! instructions are contiguous (each starts where the one before, or a comment, ends) and lie
//! before the end token, comment data lies inside the input, and no instruction has more sources
//! than the model holds. [`mutate_d3d9`] applies one random mutation aimed at the token format
//! (bit flips, truncations, length fields, register types, modifiers, the relative bit, opcodes,
//! comment lengths, inserted and removed dwords); it never panics. [`d3d9_seeds`] are valid
//! streams of every version family, written here from the token format.

use super::Rng;
use crate::front::d3d9::program::MAX_SOURCES;
use crate::front::d3d9::{decode, DecodeError, Program};

/// The base offset the second decoding uses (a program inside a container's `Aon9` chunk).
const BASE: u32 = 0x100;

/// Decodes `data` as a D3D9 token stream, checking the decoder's guarantees; returns whether it
/// decoded (`Err`s are fine, panics are findings).
pub fn decode_d3d9(data: &[u8]) -> bool {
    let len = data.len();
    let plain = decode(data, 0);
    let based = decode(data, BASE);
    match (&plain, &based) {
        (Ok(p), Ok(b)) => {
            check_program(p, len, 0);
            check_program(b, len, BASE);
            assert_eq!(
                p.instructions.len(),
                b.instructions.len(),
                "same instructions"
            );
        }
        (Err(p), Err(b)) => {
            check_error(p, len, 0);
            check_error(b, len, BASE);
            assert_eq!(p.kind, b.kind, "same error at either base");
            assert_eq!(p.offset + BASE, b.offset, "offsets shift with the base");
        }
        _ => panic!("the base offset changed the outcome: {plain:?} / {based:?}"),
    }
    plain.is_ok()
}

fn check_error(e: &DecodeError, len: usize, base: u32) {
    let at = e.offset.checked_sub(base).map(|o| o as usize);
    assert!(
        at.is_some_and(|o| o <= len),
        "error offset outside the input ({len} bytes, base {base:#x}): {e}"
    );
    assert!(e.to_string().starts_with("at 0x"), "located message: {e}");
}

fn check_program(p: &Program<'_>, len: usize, base: u32) {
    let end = p.end_offset as usize;
    assert!(
        end >= base as usize + 4 && end + 4 <= base as usize + len,
        "end token at {end:#x} outside the input ({len} bytes, base {base:#x})"
    );
    // Instructions and comments tile the stream from the first token to the end token.
    let mut items: Vec<(u32, u32)> = p
        .instructions
        .iter()
        .map(|i| (i.offset, i.dwords))
        .collect();
    for c in &p.comments {
        let data_len = u32::try_from(c.data.len()).unwrap_or(u32::MAX);
        assert_eq!(data_len % 4, 0, "comment data is whole dwords");
        items.push((c.offset, 1 + data_len / 4));
        assert!(
            c.position as usize <= p.instructions.len(),
            "comment position past the instructions"
        );
    }
    items.sort_unstable();
    let mut at = base + 4;
    for (offset, dwords) in items {
        assert_eq!(offset, at, "items are contiguous");
        assert!(dwords >= 1, "an item has its token");
        at = offset + dwords * 4;
    }
    assert_eq!(at, p.end_offset, "the last item ends at the end token");
    for inst in &p.instructions {
        assert!(usize::from(inst.src_count) <= MAX_SOURCES, "source count");
        assert!(inst.sources().len() == usize::from(inst.src_count));
    }
}

/// Valid hand-made streams, one per version family (named by profile), as dwords.
pub fn d3d9_seeds() -> Vec<(&'static str, Vec<u32>)> {
    vec![
        (
            "vs_1_1",
            vec![
                0xfffe_0101, // vs_1_1
                0x0000_001f,
                0x8000_0000,
                0x900f_0000, // dcl_position v0
                0x0000_0001,
                0x800f_0000,
                0x90e4_0000, // mov r0, v0
                0x0000_0009,
                0xc001_0000,
                0x80e4_0000,
                0xa0e4_0000, // dp4 oPos.x, r0, c0
                0x0000_0001,
                0x800f_0001,
                0xa0e4_2002, // mov r1, c2[a0.x]
                0x0000_0001,
                0xd00f_0000,
                0xa0e4_0001, // mov oD0, c1
                0x0000_ffff,
            ],
        ),
        (
            "ps_1_1",
            vec![
                0xffff_0101, // ps_1_1
                0x0000_0051,
                0xa00f_0000,
                0x3f80_0000,
                0x3f80_0000,
                0x3f80_0000,
                0x3f80_0000,
                0x0000_0042,
                0xb00f_0000, // tex t0
                0x0000_0005,
                0x800f_0000,
                0xb0e4_0000,
                0xa0e4_0000, // mul r0, t0, c0
                0x4000_0002,
                0x8008_0000,
                0xb5e4_0000,
                0xa0e4_0000, // +add r0.w, -t0_bx2, c0
                0x0000_ffff,
            ],
        ),
        (
            "ps_1_4",
            vec![
                0xffff_0104, // ps_1_4
                0x0000_0040,
                0x800f_0000,
                0xb0e4_0000, // texcrd r0, t0
                0x0000_0042,
                0x800f_0001,
                0xb0e4_0000, // texld r1, t0
                0x0000_fffd, // phase
                0x0000_0001,
                0x800f_0000,
                0x80e4_0001, // mov r0, r1
                0x0000_ffff,
            ],
        ),
        (
            "vs_2_0",
            vec![
                0xfffe_0200, // vs_2_0
                0x0003_fffe,
                0x4241_5443,
                0x0000_001c,
                0x0000_0000, // comment: CTAB …
                0x0200_001f,
                0x8000_0000,
                0x900f_0000, // dcl_position v0
                0x0200_001f,
                0x8000_0005,
                0x900f_0001, // dcl_texcoord v1
                0x0200_002e,
                0xb001_0000,
                0x9000_0001, // mova a0.x, v1.x
                0x0300_0001,
                0x800f_0000,
                0xa0e4_2002,
                0xb000_0000, // mov r0, c2[a0.x]
                0x0300_0009,
                0xc001_0000,
                0x90e4_0000,
                0x80e4_0000, // dp4 oPos.x, v0, r0
                0x0200_0001,
                0xe00f_0000,
                0x90e4_0001, // mov oT0, v1
                0x0000_ffff,
            ],
        ),
        (
            "ps_2_0",
            vec![
                0xffff_0200, // ps_2_0
                0x0500_0051,
                0xa00f_0000,
                0x3f80_0000,
                0x3f00_0000,
                0x0000_0000,
                0x3f80_0000,
                0x0200_001f,
                0x8000_0000,
                0xb003_0000, // dcl t0.xy
                0x0200_001f,
                0x9000_0000,
                0xa00f_0800, // dcl_2d s0
                0x0300_0042,
                0x800f_0000,
                0xb0e4_0000,
                0xa0e4_0800, // texld r0, t0, s0
                0x0100_0041,
                0x800f_0000, // texkill r0
                0x0400_0004,
                0x800f_0000,
                0x80e4_0000,
                0xa0e4_0000,
                0xa0e4_0000, // mad
                0x0200_0001,
                0x800f_0800,
                0x80e4_0000, // mov oC0, r0
                0x0000_ffff,
            ],
        ),
        (
            "vs_3_0",
            vec![
                0xfffe_0300, // vs_3_0
                0x0500_0030,
                0xf00f_0000,
                4,
                0,
                1,
                0, // defi i0, 4, 0, 1, 0
                0x0200_001f,
                0x8000_0000,
                0x900f_0000, // dcl_position v0
                0x0200_001f,
                0x8000_0000,
                0xe00f_0000, // dcl_position o0
                0x0200_001f,
                0x8000_0005,
                0xe00f_0001, // dcl_texcoord o1
                0x0200_0001,
                0x800f_0000,
                0xa0e4_0000, // mov r0, c0
                0x0200_001b,
                0xf0e4_0800,
                0xf0e4_0000, // loop aL, i0
                0x0400_0002,
                0x800f_0000,
                0x80e4_0000,
                0xa0e4_2001,
                0xf0e4_0800, // add, c1[aL]
                0x0000_001d, // endloop
                0x0301_005e,
                0xb001_1000,
                0x8000_0000,
                0xa000_0000, // setp_gt p0.x, r0.x, c0.x
                0x1300_0001,
                0x800f_0000,
                0xb000_1000,
                0x90e4_0000, // (p0.x) mov r0, v0
                0x0200_0001,
                0xe00f_0000,
                0x90e4_0000, // mov o0, v0
                0x0200_0001,
                0xe00f_0001,
                0x80e4_0000, // mov o1, r0
                0x0000_ffff,
            ],
        ),
        (
            "ps_3_0",
            vec![
                0xffff_0300, // ps_3_0
                0x0200_001f,
                0x8000_0005,
                0x9003_0000, // dcl_texcoord v0.xy
                0x0200_001f,
                0x8000_0000,
                0x900f_1001, // dcl vFace
                0x0200_001f,
                0x9800_0000,
                0xa00f_0801, // dcl_cube s1
                0x0200_005b,
                0x800f_0000,
                0x90e4_0000, // dsx r0, v0
                0x0200_005c,
                0x800f_0001,
                0x90e4_0000, // dsy r1, v0
                0x0300_0042,
                0x800f_0002,
                0x90e4_0000,
                0xa0e4_0801, // texld r2, v0, s1
                0x0200_0001,
                0x800f_0800,
                0x80e4_0002, // mov oC0, r2
                0x0000_ffff,
            ],
        ),
    ]
}

fn read(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

fn write(data: &mut [u8], at: usize, value: u32) {
    if let Some(slot) = data.get_mut(at..at + 4) {
        slot.copy_from_slice(&value.to_le_bytes());
    }
}

/// Applies one random mutation to `data`, usually to one of its dwords after the version token.
pub fn mutate_d3d9(rng: &mut Rng, data: &mut Vec<u8>) {
    let dwords = data.len() / 4;
    if dwords < 2 || rng.percent(5) {
        // Bytes: flip a bit anywhere (the version token included) or cut at any byte.
        if !data.is_empty() && rng.percent(60) {
            let i = rng.below(data.len());
            data[i] ^= 1 << rng.below(8);
        } else {
            data.truncate(rng.below(data.len() + 1));
        }
        return;
    }
    let at = 4 * (1 + rng.below(dwords - 1));
    let word = read(data, at).unwrap_or(0);
    let new = match rng.below(11) {
        0 => word ^ (1 << rng.below(32)),
        // The length field of an instruction token (bits 24–27).
        1 => (word & !0x0f00_0000) | (rng.below32(16) << 24),
        // The register type of a parameter token (bits 28–30 and 11–12).
        2 => {
            let raw = rng.below32(32);
            (word & !0x7000_1800) | 0x8000_0000 | (raw & 7) << 28 | (raw >> 3) << 11
        }
        // A source modifier or result shift (bits 24–27), the relative bit, bit 31.
        3 => (word & !0x0f00_0000) | (rng.below32(16) << 24),
        4 => word ^ (1 << 13),
        5 => word ^ 0x8000_0000,
        // Another opcode, controls or comment length.
        6 => (word & !0xffff) | u32::from(rng.pick(&OPCODES)),
        7 => (word & !0x00ff_0000) | (rng.below32(8) << 16),
        8 => 0xfffe | (rng.below32(0x40) << 16),
        // Insert or remove a dword.
        9 => {
            let random = rng.next_u32();
            let value = rng.pick(&[0x0000_ffff, 0x8000_0000, 0xa0e4_2000, word, random]);
            let bytes = value.to_le_bytes();
            data.splice(at..at, bytes);
            return;
        }
        _ => {
            data.drain(at..at + 4);
            return;
        }
    };
    write(data, at, new);
    if rng.percent(10) {
        // Cut the stream somewhere after the change (sometimes mid-dword).
        let cut = at + rng.below(data.len() - at + 1);
        data.truncate(cut);
    }
}

/// Opcodes the mutator writes: a few of every family and some no version defines.
const OPCODES: [u16; 16] = [
    0x01, 0x04, 0x1f, 0x25, 0x29, 0x2f, 0x30, 0x42, 0x51, 0x5d, 0x5e, 0x31, 0x61, 0xfffd, 0xfffe,
    0xffff,
];

/// The custom-mutator step of the `decode_d3d9` fuzz target: 1–3 [`mutate_d3d9`]s of
/// `data[..size]` written back (at most `max_size` bytes) with the new length, seeded by
/// libFuzzer's `seed`. `None` one time in five: the caller then runs libFuzzer's own mutation.
pub fn mutate_d3d9_in_place(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
) -> Option<usize> {
    let mut rng = Rng::new(u64::from(seed));
    let size = size.min(data.len());
    if rng.percent(20) {
        return None;
    }
    let mut bytes = data[..size].to_vec();
    if bytes.len() < 8 {
        // An empty or tiny input grows into a seed first.
        let seeds = d3d9_seeds();
        let (_, words) = &seeds[rng.below(seeds.len())];
        bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    }
    for _ in 0..1 + rng.below(3) {
        mutate_d3d9(&mut rng, &mut bytes);
    }
    let len = bytes.len().min(max_size).min(data.len());
    data[..len].copy_from_slice(&bytes[..len]);
    Some(len)
}

#[cfg(test)]
mod tests {
    //! The seeded smoke run of the D3D9 contract under `cargo test` (`DXBC2SPV_FUZZ_SEED` and
    //! `DXBC2SPV_FUZZ_ITERS` change it, as for the DXBC smoke run).
    use super::*;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn env_number(name: &str, default: u64) -> u64 {
        std::env::var(name)
            .ok()
            .and_then(|t| match t.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => t.parse().ok(),
            })
            .unwrap_or(default)
    }

    #[test]
    fn d3d9_seeds_decode() {
        for (name, words) in d3d9_seeds() {
            let data = bytes(&words);
            let program = decode(&data, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(program.version.profile(), name);
            assert!(decode_d3d9(&data), "{name}");
        }
    }

    #[test]
    fn d3d9_mutations_never_panic_and_errors_stay_inside() {
        let mut rng = Rng::new(env_number("DXBC2SPV_FUZZ_SEED", 0xd3d9_0f22_2b1e));
        let iterations = env_number("DXBC2SPV_FUZZ_ITERS", 20_000) as usize;
        let seeds = d3d9_seeds();
        let (mut ok, mut err) = (0usize, 0usize);
        for i in 0..iterations {
            let (name, words) = &seeds[i % seeds.len()];
            let mut data = bytes(words);
            for _ in 0..1 + rng.below(4) {
                mutate_d3d9(&mut rng, &mut data);
            }
            let result = std::panic::catch_unwind(|| decode_d3d9(&data));
            match result {
                Ok(true) => ok += 1,
                Ok(false) => err += 1,
                Err(_) => panic!("iteration {i} (seed {name}): input {data:02x?}"),
            }
        }
        // Both outcomes are reached: the mutations are neither all fatal nor all harmless.
        assert!(ok > iterations / 20, "{ok} decoded of {iterations}");
        assert!(err > iterations / 4, "{err} errors of {iterations}");
    }

    #[test]
    fn the_in_place_mutator_stays_inside_its_buffer() {
        for seed in 0..200 {
            let mut buf = vec![0u8; 64];
            let size = 4;
            if let Some(len) = mutate_d3d9_in_place(&mut buf, size, 64, seed) {
                assert!(len <= 64);
                decode_d3d9(&buf[..len]);
            }
        }
    }
}
