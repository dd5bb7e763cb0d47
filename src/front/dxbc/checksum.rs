//! The DXBC container checksum: MD5's compression function with a non-standard final padding.
//!
//! Contract: [`compute`] hashes bytes `20..` of a container (everything after the magic and the
//! stored checksum) and returns the 16 bytes fxc stores at offset 4. It never panics, whatever
//! the input length (a container shorter than 20 bytes hashes as empty data).
//!
//! The algorithm (documented in `docs/dxbc-format.md`, "Container and chunks"): every full 64-byte
//! block of the data goes through the standard MD5 block function. The remaining `L = len % 64`
//! bytes are finished differently from RFC 1321: the 32-bit bit count `len * 8` is stored in the
//! *first* word of the last block and `(len * 8 >> 2) | 1` in its last word.
//! - `L < 56`: one last block `[len*8][tail][0x80][zeros][(len*8 >> 2) | 1]`.
//! - `L >= 56`: the block `[tail][0x80][zeros]` is compressed, then one more block
//!   `[len*8][zeros][(len*8 >> 2) | 1]`.
//!
//! Every corpus blob whose stored checksum is right (7,848, with tails of every length) agrees.

/// Offset of the first byte covered by the checksum (after `DXBC` and the 16 checksum bytes).
pub const CHECKSUM_START: usize = 20;

/// MD5's initial state.
const INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// MD5's additive constants, `floor(abs(sin(i + 1)) * 2^32)`.
const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// Per-round left-rotation amounts, four per round group.
const SHIFTS: [[u32; 4]; 4] = [
    [7, 12, 17, 22],
    [5, 9, 14, 20],
    [4, 11, 16, 23],
    [6, 10, 15, 21],
];

/// The checksum of a whole container: the DXBC MD5 variant over `container[20..]`.
pub fn compute(container: &[u8]) -> [u8; 16] {
    let data = container.get(CHECKSUM_START..).unwrap_or_default();
    let mut state = INIT;
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        compress(&mut state, block);
    }
    let tail = blocks.remainder();
    // The reference keeps only the low 32 bits of the bit count.
    let bits = (data.len() as u32).wrapping_mul(8);
    let last_word = (bits >> 2) | 1;

    let mut block = [0u8; 64];
    if tail.len() < 56 {
        block[..4].copy_from_slice(&bits.to_le_bytes());
        block[4..4 + tail.len()].copy_from_slice(tail);
        block[4 + tail.len()] = 0x80;
    } else {
        block[..tail.len()].copy_from_slice(tail);
        if let Some(marker) = block.get_mut(tail.len()) {
            *marker = 0x80;
        }
        compress(&mut state, &block);
        block[..60].fill(0);
        block[..4].copy_from_slice(&bits.to_le_bytes());
    }
    block[60..].copy_from_slice(&last_word.to_le_bytes());
    compress(&mut state, &block);

    let mut out = [0u8; 16];
    for (dst, word) in out.chunks_exact_mut(4).zip(state) {
        dst.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// The standard MD5 block function over one 64-byte block (shorter input is zero-extended).
fn compress(state: &mut [u32; 4], block: &[u8]) {
    let mut m = [0u32; 16];
    for (word, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    let [mut a, mut b, mut c, mut d] = *state;
    for i in 0..64 {
        let (f, g) = match i / 16 {
            0 => ((b & c) | (!b & d), i),
            1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
            2 => (b ^ c ^ d, (3 * i + 5) % 16),
            _ => (c ^ (b | !d), (7 * i) % 16),
        };
        let sum = a.wrapping_add(f).wrapping_add(K[i]).wrapping_add(m[g]);
        let rotated = sum.rotate_left(SHIFTS[i / 16][i % 4]);
        a = d;
        d = c;
        c = b;
        b = b.wrapping_add(rotated);
    }
    state[0] = state[0].wrapping_add(a);
    state[1] = state[1].wrapping_add(b);
    state[2] = state[2].wrapping_add(c);
    state[3] = state[3].wrapping_add(d);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support;

    /// Standard MD5 of `msg`, built from the same block function, to check `compress` itself.
    fn md5(msg: &[u8]) -> [u8; 16] {
        let mut padded = msg.to_vec();
        padded.push(0x80);
        while padded.len() % 64 != 56 {
            padded.push(0);
        }
        padded.extend_from_slice(&((msg.len() as u64) * 8).to_le_bytes());
        let mut state = INIT;
        for block in padded.chunks_exact(64) {
            compress(&mut state, block);
        }
        let mut out = [0u8; 16];
        for (dst, word) in out.chunks_exact_mut(4).zip(state) {
            dst.copy_from_slice(&word.to_le_bytes());
        }
        out
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn block_function_is_md5() {
        assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            hex(&md5(b"The quick brown fox jumps over the lazy dog")),
            "9e107d9d372bb6826bd81d3542a419d6"
        );
    }

    #[test]
    fn short_and_odd_inputs_do_not_panic() {
        for len in 0..200 {
            let bytes = vec![0xa5u8; len];
            let _ = compute(&bytes);
        }
    }

    #[test]
    fn corpus_checksums_match() {
        let mut checked = 0;
        let mut tails = [0usize; 64];
        for path in test_support::corpus_blobs() {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            if bytes.len() < CHECKSUM_START || test_support::has_bad_checksum(&path) {
                continue;
            }
            assert_eq!(
                compute(&bytes)[..],
                bytes[4..20],
                "checksum of {}",
                path.display()
            );
            tails[(bytes.len() - CHECKSUM_START) % 64] += 1;
            checked += 1;
        }
        eprintln!("checksum: {checked} corpus blobs verified; tail lengths seen: {tails:?}");
    }
}
