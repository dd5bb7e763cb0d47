//! The mutator of the `decode_mutated` fuzz target and the smoke tests, its seeded PRNG, and the
//! container helpers that assemble seeds.
//!
//! Contract: [`mutate`] applies one random mutation, mostly to dwords of the `SHDR`/`SHEX`
//! program (opcode and length fields, the extended bit, operand fields, inserted or removed
//! dwords with the container, chunk and program sizes fixed up so that the mutation reaches the
//! instruction decoder), sometimes to container and chunk headers or metadata chunk bodies; it
//! never panics, whatever `data` holds. [`Rng`] fixes every choice by its seed.
//! [`build_container`] and [`seed_container`] build valid containers (right size and checksum).

use crate::front::dxbc::checksum;
use crate::front::dxbc::container::{FourCc, HEADER_SIZE};

/// A small, fast, seeded PRNG (SplitMix64). Not for cryptography.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `percent`/100.
    pub fn percent(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// A number in `0..n` (`n > 0`), from the high bits (the generator's draws).
    pub fn below32(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below32(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below32(100) < percent
    }

    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A chunk as the mutator sees it: found by a tolerant scan, not by
/// [`crate::front::dxbc::container::Container::parse`].
#[derive(Clone, Copy, Debug)]
pub(super) struct ChunkSpan {
    /// Byte offset of the chunk's table entry.
    pub(super) entry: usize,
    /// Byte offset of the chunk header (fourcc, size).
    pub(super) header: usize,
    /// Byte offset and length of the payload, clamped to the data.
    pub(super) start: usize,
    pub(super) len: usize,
    pub(super) fourcc: [u8; 4],
}

/// Four-character codes a mutated chunk may take (layout confusion between signature kinds).
pub(super) const FOURCCS: [[u8; 4]; 13] = [
    *b"ISGN", *b"ISG1", *b"OSGN", *b"OSG5", *b"OSG1", *b"PCSG", *b"PSG1", *b"RDEF", *b"SHDR",
    *b"SHEX", *b"SFI0", *b"DXIL", *b"STAT",
];

fn read_u32(data: &[u8], at: usize) -> Option<u32> {
    let bytes = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

pub(super) fn write_u32(data: &mut [u8], at: usize, value: u32) {
    if let Some(bytes) = at.checked_add(4).and_then(|end| data.get_mut(at..end)) {
        bytes.copy_from_slice(&value.to_le_bytes());
    }
}

/// The chunks a container's table names, as far as they can be found (at most 64).
pub(super) fn scan(data: &[u8]) -> Vec<ChunkSpan> {
    let count = read_u32(data, 28).unwrap_or(0).min(64) as usize;
    let mut out = Vec::new();
    for i in 0..count {
        let entry = HEADER_SIZE + 4 * i;
        let Some(header) = read_u32(data, entry) else {
            break;
        };
        let header = header as usize;
        let (Some(fourcc), Some(size)) = (
            data.get(header..header.saturating_add(4)),
            read_u32(data, header + 4),
        ) else {
            continue;
        };
        let start = header + 8;
        let len = (size as usize).min(data.len() - start.min(data.len()));
        out.push(ChunkSpan {
            entry,
            header,
            start,
            len,
            fourcc: [fourcc[0], fourcc[1], fourcc[2], fourcc[3]],
        });
    }
    out
}

/// Values that sit on the edges of the decoder's checks.
fn interesting(rng: &mut Rng, context: &[u32]) -> u32 {
    const FIXED: [u32; 16] = [
        0,
        1,
        2,
        3,
        4,
        8,
        0x7f,
        0x80,
        0xff,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fffe,
        0xffff_ffff,
        0x0100_0000,
        0x8000_0001,
    ];
    if !context.is_empty() && rng.percent(40) {
        let v = rng.pick(context);
        return match rng.below(3) {
            0 => v,
            1 => v.wrapping_add(1),
            _ => v.wrapping_sub(1),
        };
    }
    rng.pick(&FIXED)
}

/// The custom-mutator step of the DXBC fuzz targets (`decode_mutated`, `translate_mutated`):
/// 1–3 [`mutate`]s of `data[..size]`, written back into `data` (at most `max_size` bytes) with
/// the new length, seeded by libFuzzer's `seed`. `None` one time in five: the caller then runs
/// libFuzzer's own byte-level mutation instead.
pub fn mutate_in_place(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> Option<usize> {
    let mut rng = Rng::new(u64::from(seed));
    let size = size.min(data.len());
    if rng.percent(20) {
        return None;
    }
    let mut bytes = data[..size].to_vec();
    for _ in 0..1 + rng.below(3) {
        mutate(&mut rng, &mut bytes);
    }
    let len = bytes.len().min(max_size).min(data.len());
    data[..len].copy_from_slice(&bytes[..len]);
    Some(len)
}

/// Applies one random mutation to `data`, usually inside the `SHDR`/`SHEX` program.
pub fn mutate(rng: &mut Rng, data: &mut Vec<u8>) {
    let chunks = scan(data);
    let program = chunks
        .iter()
        .copied()
        .find(|c| (&c.fourcc == b"SHEX" || &c.fourcc == b"SHDR") && c.len >= 12);
    let roll = rng.below(100);
    match program {
        Some(p) if roll < 65 => mutate_program(rng, data, &chunks, p),
        _ if roll < 80 && !chunks.is_empty() => mutate_header(rng, data, &chunks),
        _ if roll < 92 && !chunks.is_empty() => {
            let c = rng.pick(&chunks);
            mutate_chunk_body(rng, data, c);
        }
        _ => mutate_bytes(rng, data),
    }
}

/// Inserts (`delta > 0`, zero bytes) or removes (`delta < 0`) bytes at `at`; with `fix`, updates
/// the container size, later chunk offsets, the enclosing chunk's size and program length.
pub(super) fn resize(data: &mut Vec<u8>, chunks: &[ChunkSpan], at: usize, delta: isize, fix: bool) {
    let at = at.min(data.len());
    if delta >= 0 {
        data.splice(at..at, vec![0u8; delta as usize]);
    } else {
        let end = (at + delta.unsigned_abs()).min(data.len());
        data.drain(at..end);
    }
    if !fix {
        return;
    }
    let add = |v: u32| (v as i64 + delta as i64) as u32;
    let total = read_u32(data, 24).unwrap_or(0);
    write_u32(data, 24, add(total));
    for c in chunks {
        if c.header >= at {
            write_u32(data, c.entry, add(c.header as u32));
        } else if (c.start..=c.start + c.len).contains(&at) {
            let size = read_u32(data, c.header + 4).unwrap_or(0);
            write_u32(data, c.header + 4, add(size));
            if &c.fourcc == b"SHEX" || &c.fourcc == b"SHDR" {
                let length = read_u32(data, c.start + 4).unwrap_or(0);
                write_u32(data, c.start + 4, (length as i64 + delta as i64 / 4) as u32);
            }
        }
    }
}

/// Offsets of the first instructions of a program, following length tokens like the decoder.
fn instruction_starts(data: &[u8], body: usize, end: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut at = body;
    while at + 4 <= end && starts.len() < 4096 {
        starts.push(at);
        let token = read_u32(data, at).unwrap_or(0);
        let mut len = (token >> 24) & 0x7f;
        if token & 0x7ff == 0x35 {
            len = read_u32(data, at + 4).unwrap_or(0);
        }
        if len == 0 {
            break;
        }
        at += len as usize * 4;
    }
    starts
}

fn mutate_program(rng: &mut Rng, data: &mut Vec<u8>, chunks: &[ChunkSpan], p: ChunkSpan) {
    let body = p.start + 8;
    let end = p.start + p.len / 4 * 4;
    let dwords = (end - body) / 4;
    let context = [
        dwords as u32,
        dwords as u32 + 2,
        p.len as u32,
        data.len() as u32,
    ];
    let at = if rng.percent(50) {
        let starts = instruction_starts(data, body, end);
        if starts.is_empty() {
            body
        } else {
            rng.pick(&starts)
        }
    } else {
        body + 4 * rng.below(dwords.max(1))
    };
    let token = read_u32(data, at).unwrap_or(0);
    let fix = rng.percent(85);
    let new = match rng.below(15) {
        0 | 1 => token ^ (1 << rng.below(32)),
        2 => interesting(rng, &context),
        3 => token ^ 0x8000_0000,
        4 | 5 => {
            let opcode = if rng.percent(80) {
                rng.below(0xec) as u32
            } else {
                rng.next_u32() & 0x7ff
            };
            token & !0x7ff | opcode
        }
        6 | 7 => {
            let len = (token >> 24) & 0x7f;
            let len = match rng.below(4) {
                0 => rng.pick(&[0, 1, 2, 0x7f]),
                1 => len.wrapping_add(1),
                2 => len.wrapping_sub(1),
                _ => rng.next_u32(),
            } & 0x7f;
            token & !(0x7f << 24) | len << 24
        }
        8 => {
            // Operand token fields: components, selection mode, register type, index
            // dimension and representations.
            let (shift, bits) =
                rng.pick(&[(0, 2), (2, 2), (12, 8), (20, 2), (22, 3), (25, 3), (28, 3)]);
            let mask = ((1u32 << bits) - 1) << shift;
            token & !mask | (rng.next_u32() << shift) & mask
        }
        9 => {
            // Duplicate a dword.
            resize(data, chunks, at + 4, 4, fix);
            write_u32(data, at + 4, token);
            return;
        }
        10 => {
            resize(data, chunks, at, -4, fix);
            return;
        }
        11 => {
            resize(data, chunks, at, 4, fix);
            let value = if rng.percent(50) {
                interesting(rng, &context)
            } else {
                rng.next_u32()
            };
            write_u32(data, at, value);
            return;
        }
        12 => {
            // Overwrite a run with dwords copied from elsewhere in the program.
            let from = body + 4 * rng.below(dwords.max(1));
            let n = 1 + rng.below(8);
            for i in 0..n {
                if let Some(v) = read_u32(data, from + 4 * i) {
                    if at + 4 * i + 4 <= end {
                        write_u32(data, at + 4 * i, v);
                    }
                }
            }
            return;
        }
        13 => {
            // The version or program length token.
            let field = p.start + 4 * rng.below(2);
            let v = read_u32(data, field).unwrap_or(0);
            let v = if rng.percent(50) {
                interesting(rng, &context)
            } else {
                v ^ (1 << rng.below(32))
            };
            write_u32(data, field, v);
            return;
        }
        _ => {
            // Truncate the program at a dword, the sizes fixed up or not.
            let cut = at.max(body);
            resize(data, chunks, cut, -((end - cut) as isize), fix);
            return;
        }
    };
    write_u32(data, at, new);
}

fn mutate_header(rng: &mut Rng, data: &mut [u8], chunks: &[ChunkSpan]) {
    let c = rng.pick(chunks);
    let other = rng.pick(chunks);
    let len = data.len() as u32;
    let context = [
        len,
        len - len.min(4),
        c.header as u32,
        other.header as u32,
        c.len as u32,
    ];
    match rng.below(8) {
        0 => write_u32(data, 24, interesting(rng, &context)),
        1 => {
            let count = read_u32(data, 28).unwrap_or(0);
            write_u32(
                data,
                28,
                interesting(rng, &[count, count.wrapping_add(1), count.wrapping_sub(1)]),
            );
        }
        2 => {
            // A chunk offset: misaligned, overlapping another chunk, or on an edge.
            let v = match rng.below(3) {
                0 => c.header as u32 + 1 + rng.below(3) as u32,
                1 => other.header as u32 + 4 * rng.below(4) as u32,
                _ => interesting(rng, &context),
            };
            write_u32(data, c.entry, v);
        }
        3 => {
            let size = c.len as u32;
            let v = interesting(rng, &[size, size + 4, size.wrapping_sub(4), len]);
            write_u32(data, c.header + 4, v);
        }
        4 | 5 => {
            let fourcc = rng.pick(&FOURCCS);
            if let Some(bytes) = data.get_mut(c.header..c.header + 4) {
                bytes.copy_from_slice(&fourcc);
            }
        }
        6 => write_u32(data, 20, rng.pick(&[0, 1, 2, 0x0001_0001, 0x0000_0100])),
        _ => {
            let i = rng.below(20.min(data.len()).max(1));
            if let Some(b) = data.get_mut(i) {
                *b ^= 1 << rng.below(8);
            }
        }
    }
}

fn mutate_chunk_body(rng: &mut Rng, data: &mut [u8], c: ChunkSpan) {
    if c.len < 4 {
        return;
    }
    let len = c.len as u32;
    // Offsets inside the chunk make cyclic or shared type graphs and overlapping tables.
    let inside = rng.below(c.len) as u32 & !3;
    let context = [len, len - 1, len / 12, inside, inside + 1];
    let at = if rng.percent(50) {
        // Header fields: RDEF counts/offsets/creator and RD11 sizes, signature count/offset.
        c.start + 4 * rng.below((c.len / 4).min(15))
    } else {
        c.start + 4 * rng.below(c.len / 4)
    };
    let old = read_u32(data, at).unwrap_or(0);
    let v = match rng.below(4) {
        0 => old ^ (1 << rng.below(32)),
        1 => inside,
        _ => interesting(rng, &context),
    };
    if rng.percent(15) {
        let i = c.start + rng.below(c.len);
        data[i] = rng.pick(&[0, 0x80, 0xff, b'A']);
    } else {
        write_u32(data, at, v);
    }
}

fn mutate_bytes(rng: &mut Rng, data: &mut Vec<u8>) {
    match rng.below(5) {
        0 | 1 if !data.is_empty() => {
            let i = rng.below(data.len());
            data[i] ^= 1 << rng.below(8);
        }
        2 if !data.is_empty() => {
            let i = rng.below(data.len());
            data[i] = rng.next_u32() as u8;
        }
        3 => data.truncate(rng.below(data.len() + 1)),
        _ => {
            let at = rng.below(data.len() + 1);
            let n = 1 + rng.below(8);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u32() as u8).collect();
            data.splice(at..at, bytes);
        }
    }
}

/// A container holding `chunks` in order, with the right total size and checksum: the way test
/// and fuzz seeds are assembled.
pub fn build_container(chunks: &[([u8; 4], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&FourCc::DXBC.0);
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    let mut offset = HEADER_SIZE + 4 * chunks.len();
    for (_, data) in chunks {
        out.extend_from_slice(&(offset as u32).to_le_bytes());
        offset += 8 + data.len();
    }
    for (fourcc, data) in chunks {
        out.extend_from_slice(fourcc);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
    }
    let len = out.len() as u32;
    write_u32(&mut out, 24, len);
    let sum = checksum::compute(&out);
    out[4..20].copy_from_slice(&sum);
    out
}

/// Little-endian bytes of `words`.
pub fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A small valid `vs_5_0` container built in code (signatures, an `RDEF` with a struct, `SFI0`
/// and a program using declarations, an immediate constant buffer, relative addressing and
/// immediates): the seed used when the real corpus is absent.
pub fn seed_container() -> Vec<u8> {
    #[rustfmt::skip]
    let program = [
        0x0001_0050, 0, // vs_5_0, length (patched below)
        0x0100_086a, // dcl_globalFlags refactoringAllowed
        0x0300_005f, 0x0010_10f2, 0, // dcl_input v0.xyzw
        0x0300_0065, 0x0010_20f2, 0, // dcl_output o0.xyzw
        0x0200_0068, 1, // dcl_temps 1
        0x0000_1835, 6, 0x3f80_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000, // icb
        0x0500_0036, 0x0010_00f2, 0, 0x0010_1e46, 0, // mov r0.xyzw, v0.xyzw
        0x0700_0036, 0x0010_0012, 0, 0x00d0_900a, 0, 0x0010_000a, 0, // mov r0.x, icb[r0.x + 0].x
        0x0a00_0000, 0x0010_20f2, 0, 0x0010_0e46, 0, 0x0000_4002, // add o0, r0, l(1, 2, 3, 4)
        0x3f80_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000,
        0x0100_003e, // ret
    ];
    let mut program = words_to_bytes(&program);
    let dwords = program.len() as u32 / 4;
    write_u32(&mut program, 4, dwords);

    let signature = |name: &[u8], system_value: u32| {
        let mut d = words_to_bytes(&[1, 8, 32, 0, system_value, 3, 0]);
        d.extend_from_slice(&[0xf, 0xf, 0, 0]);
        d.extend_from_slice(name);
        d
    };
    #[rustfmt::skip]
    let rdef = [
        1, 28, 1, 52, 0xfffe_0500, 0, 160, // cb count/offset, binding count/offset, vs_5_0, flags, creator
        152, 1, 84, 16, 0, 0, // cb0: name, 1 variable at 84, 16 bytes, flags, cbuffer
        152, 0, 0, 0, 0, 0, 1, 0, // binding cb0
        156, 0, 16, 2, 108, 0, // variable v: offset, size, used, type at 108, no default
        0x0000_0005, 0x0004_0001, 0x0001_0000, 124, // struct type: 1 member at 124
        158, 136, 0, // member m: type at 136, offset
        0x0003_0001, 0x0004_0001, 0, 0, // float4
    ];
    let mut rdef = words_to_bytes(&rdef);
    rdef.extend_from_slice(b"cb0\0v\0m\0Microsoft (R) HLSL Shader Compiler 10.1\0");
    build_container(&[
        (FourCc::RDEF.0, &rdef),
        (FourCc::ISGN.0, &signature(b"POSITION\0", 0)),
        (FourCc::OSGN.0, &signature(b"SV_Position\0", 1)),
        (FourCc::SFI0.0, &[0x10, 0, 0, 0, 0, 0, 0, 0]),
        (FourCc::SHEX.0, &program),
    ])
}
