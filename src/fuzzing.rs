//! Fuzzing entry points: the "never panics on input" contract in one function, a seeded PRNG and
//! a token-aware DXBC mutator (`docs/robustness.md`).
//!
//! Contract: [`decode_and_disassemble`] runs every decoding stage the crate has over arbitrary
//! bytes (container with checksum verification off, every signature/`RDEF`/`SFI0`/program chunk,
//! every instruction, the fxc-syntax listing and its comment header) and ignores the `Err`s. It
//! panics only when the decoder breaks one of its documented guarantees, checked by [`check`]:
//! error offsets point into the input, parsed structures stay inside the bytes they came from,
//! item counts are bounded by the bytes that hold them, the instruction iterator advances by each
//! instruction's own length and stops after an error, and the listing grows at most linearly with
//! the input. Any panic found by the fuzz targets (`src/fuzz/`) or by the seeded smoke test below
//! is therefore a bug.
//!
//! [`mutate`] is the custom mutator of the `decode_mutated` fuzz target and of the smoke test: it
//! mostly rewrites dwords of the `SHDR`/`SHEX` program (opcode and length fields, the extended bit,
//! operand fields, inserted or removed dwords with the container, chunk and program sizes fixed up
//! so that the mutation reaches the instruction decoder), and sometimes container and chunk
//! headers or metadata chunk bodies.

use crate::dxbc::container::{Container, FourCc, ParseOptions, HEADER_SIZE};
use crate::dxbc::disasm::{self, Dialect};
use crate::dxbc::error::DecodeError;
use crate::dxbc::opcodes::MAX_OPERANDS;
use crate::dxbc::program::Program;
use crate::dxbc::rdef::{ResourceDefinitions, Type, MAX_TYPE_DEPTH, MAX_TYPE_NODES};
use crate::dxbc::sfi0::FeatureFlags;
use crate::dxbc::signature::{Layout, Signature};
use crate::dxbc::{checksum, Chunk};

/// The most listing bytes one input dword may produce (a 64-bit immediate prints up to ~320
/// characters for two dwords; `dcl_globalFlags` with every flag ~250 for one).
pub const LISTING_BYTES_PER_DWORD: usize = 512;

/// What one run of [`check`] reached; the smoke test sums these to show how deep inputs go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The container header and chunk table parsed.
    pub container: bool,
    /// Signature, `RDEF` and `SFI0` chunks that parsed.
    pub metadata_ok: u32,
    /// Signature, `RDEF` and `SFI0` chunks that were errors.
    pub metadata_err: u32,
    /// `SHDR`/`SHEX` chunks whose version and length tokens parsed.
    pub programs: u32,
    /// Instructions decoded without error (all program chunks).
    pub instructions: u32,
    /// A program chunk ended in an instruction decode error.
    pub instruction_error: bool,
    /// The listing of the container's shader program was produced.
    pub listing: bool,
    /// The comment header was produced.
    pub header: bool,
}

/// Decodes and disassembles `data` in every way the crate can, ignoring errors. This is the
/// fuzz targets' entry point: it must never panic (see [`check`]).
pub fn decode_and_disassemble(data: &[u8]) {
    let _ = check(data);
}

/// Like [`decode_and_disassemble`], and returns how far the input got. Panics (with a message
/// naming the broken guarantee) only when the decoder violates its contract.
pub fn check(data: &[u8]) -> Outcome {
    let mut out = Outcome::default();
    let _ = checksum::compute(data);
    let lax = ParseOptions {
        verify_checksum: false,
    };
    let container = match Container::parse(data, &lax) {
        Ok(c) => c,
        Err(e) => {
            check_error(&e, data.len(), "container");
            // The listing must fail the same way.
            let listing = disasm::disassemble(data, &listing_options(data));
            assert_eq!(
                listing.err(),
                Some(e),
                "disassemble disagrees with Container::parse"
            );
            return out;
        }
    };
    out.container = true;
    check_container(&container, data);
    for chunk in &container.chunks {
        check_chunk(chunk, data, &mut out);
    }
    // The typed accessors pick the first chunk of each kind; they must agree with the loop.
    for parsed in [
        container.input_signature(),
        container.output_signature(),
        container.patch_constant_signature(),
    ]
    .into_iter()
    .flatten()
    {
        if let Err(e) = parsed {
            check_error(&e, data.len(), "signature accessor");
        }
    }
    if let Some(Err(e)) = container.resource_definitions() {
        check_error(&e, data.len(), "RDEF accessor");
    }
    if let Some(Err(e)) = container.feature_info() {
        check_error(&e, data.len(), "SFI0 accessor");
    }

    let expected = program_result(&container);
    let listing = disasm::disassemble(data, &listing_options(data));
    assert_eq!(
        listing.as_ref().err(),
        expected.as_ref().err(),
        "disassemble disagrees with decoding"
    );
    match &listing {
        Ok(text) => {
            out.listing = true;
            let limit = LISTING_BYTES_PER_DWORD * (data.len() / 4 + 1) + 64;
            assert!(
                text.len() <= limit,
                "listing of {} bytes for {} input bytes",
                text.len(),
                data.len()
            );
        }
        Err(e) => check_error(e, data.len(), "disassemble"),
    }
    let mut header = String::new();
    let header = disasm::header::write_header(&mut header, &container);
    match &header {
        Ok(()) => out.header = true,
        Err(e) => check_error(e, data.len(), "header"),
    }
    if let Ok(text) = &listing {
        // With the header: the header's error, or the header followed by the same listing.
        let options = disasm::Options {
            header: true,
            ..listing_options(data)
        };
        let full = disasm::disassemble(data, &options);
        assert_eq!(
            full.as_ref().err(),
            header.as_ref().err(),
            "disassemble with header disagrees with write_header"
        );
        if let Ok(full) = full {
            assert!(full.ends_with(text.as_str()), "header changes the listing");
        }
    }
    out
}

/// Disassembly options for `data`: no checksum, no header, and a dialect chosen by the input's
/// length (or, one time in six, by the `RDEF` creator) so that every dialect gets inputs.
fn listing_options(data: &[u8]) -> disasm::Options {
    let choice = data.len() % (Dialect::ALL.len() + 1);
    disasm::Options {
        dialect: Dialect::ALL.get(choice).copied(),
        verify_checksum: false,
        header: false,
        lossless: data.len() % 2 == 1,
    }
}

/// The first error decoding the container's shader program meets, as the listing sees it.
fn program_result(container: &Container<'_>) -> Result<(), DecodeError> {
    let program = disasm::shader_program(container)?;
    for inst in program.instructions() {
        inst?;
    }
    Ok(())
}

/// An error must point into the input (an offset equal to the length means "at the end").
fn check_error(e: &DecodeError, len: usize, stage: &str) {
    assert!(
        e.offset as usize <= len,
        "{stage} error offset {:#x} outside a {len}-byte input: {e}",
        e.offset
    );
}

/// True when `inner` lies inside `outer` (pointer ranges); empty slices may point anywhere.
fn within(inner: &[u8], outer: &[u8]) -> bool {
    let (o, i) = (outer.as_ptr() as usize, inner.as_ptr() as usize);
    inner.is_empty() || (i >= o && i + inner.len() <= o + outer.len())
}

fn check_container(c: &Container<'_>, data: &[u8]) {
    assert_eq!(c.total_size as usize, data.len(), "container size");
    let table_end = HEADER_SIZE + 4 * c.chunks.len();
    assert!(table_end <= data.len(), "chunk table past the end");
    for chunk in &c.chunks {
        assert!(
            within(chunk.data, data),
            "chunk {} outside the input",
            chunk.fourcc
        );
        let start = chunk.data.as_ptr() as usize - data.as_ptr() as usize;
        assert_eq!(
            start, chunk.offset as usize,
            "chunk {} offset",
            chunk.fourcc
        );
        assert!(
            start >= table_end + 8,
            "chunk {} overlaps the header",
            chunk.fourcc
        );
    }
}

fn check_chunk(chunk: &Chunk<'_>, data: &[u8], out: &mut Outcome) {
    let fourcc = chunk.fourcc;
    let metadata = if let Some(layout) = Layout::of(fourcc) {
        Signature::parse(chunk).map(|sig| {
            let size = sig.elements.len() * layout.element_size();
            assert!(
                size <= chunk.data.len(),
                "{fourcc}: {} elements",
                sig.elements.len()
            );
            for e in &sig.elements {
                assert!(
                    within(e.name.as_bytes(), chunk.data),
                    "{fourcc}: name outside the chunk"
                );
            }
        })
    } else if fourcc == FourCc::RDEF {
        ResourceDefinitions::parse(chunk).map(|rdef| check_rdef(&rdef, chunk))
    } else if fourcc == FourCc::SFI0 {
        FeatureFlags::parse(chunk).map(|_| ())
    } else if fourcc == FourCc::SHDR || fourcc == FourCc::SHEX {
        check_program(chunk, data, out);
        return;
    } else {
        return;
    };
    match metadata {
        Ok(()) => out.metadata_ok += 1,
        Err(e) => {
            out.metadata_err += 1;
            check_chunk_error(&e, chunk, data.len());
        }
    }
}

/// Errors inside a chunk point into that chunk (its end included).
fn check_chunk_error(e: &DecodeError, chunk: &Chunk<'_>, len: usize) {
    check_error(e, len, "chunk");
    let (start, end) = (
        chunk.offset as usize,
        chunk.offset as usize + chunk.data.len(),
    );
    assert!(
        (start..=end).contains(&(e.offset as usize)),
        "{} error at {:#x} outside the chunk {start:#x}..{end:#x}: {e}",
        chunk.fourcc,
        e.offset
    );
}

fn check_rdef(rdef: &ResourceDefinitions<'_>, chunk: &Chunk<'_>) {
    let len = chunk.data.len();
    assert!(
        rdef.constant_buffers.len() * 24 <= len,
        "RDEF constant buffer count"
    );
    assert!(rdef.bindings.len() * 32 <= len, "RDEF binding count");
    assert!(
        within(rdef.creator.as_bytes(), chunk.data),
        "RDEF creator outside the chunk"
    );
    let mut nodes = 0u32;
    for cb in &rdef.constant_buffers {
        assert!(cb.variables.len() * 24 <= len, "RDEF variable count");
        for v in &cb.variables {
            assert!(
                within(v.name.as_bytes(), chunk.data),
                "RDEF name outside the chunk"
            );
            if let Some(value) = v.default_value {
                assert!(
                    within(value, chunk.data),
                    "RDEF default value outside the chunk"
                );
            }
            count_type_nodes(&v.ty, 0, &mut nodes, chunk.data);
        }
    }
    assert!(nodes <= MAX_TYPE_NODES, "RDEF: {nodes} type nodes");
}

fn count_type_nodes(ty: &Type<'_>, depth: u32, nodes: &mut u32, chunk: &[u8]) {
    assert!(depth < MAX_TYPE_DEPTH, "RDEF type nested {depth} deep");
    *nodes += 1;
    assert!(ty.members.len() * 12 <= chunk.len(), "RDEF member count");
    for m in &ty.members {
        assert!(
            within(m.name.as_bytes(), chunk),
            "RDEF member name outside the chunk"
        );
        count_type_nodes(&m.ty, depth + 1, nodes, chunk);
    }
}

fn check_program(chunk: &Chunk<'_>, data: &[u8], out: &mut Outcome) {
    let program = match Program::parse(chunk.data, chunk.offset) {
        Ok(p) => p,
        Err(e) => return check_chunk_error(&e, chunk, data.len()),
    };
    out.programs += 1;
    let body = program.body();
    assert!(within(body, chunk.data), "program body outside its chunk");
    assert_eq!(
        program.body_offset(),
        chunk.offset + 8,
        "program body offset"
    );
    let body_end = program.body_offset() as usize + body.len();
    let mut next = program.body_offset() as usize;
    let mut iter = program.instructions();
    let mut count = 0usize;
    for inst in iter.by_ref() {
        let inst = match inst {
            Ok(inst) => inst,
            Err(e) => {
                out.instruction_error = true;
                check_error(&e, data.len(), "instruction");
                assert!(
                    (next..=body_end).contains(&(e.offset as usize)),
                    "instruction error at {e}"
                );
                break;
            }
        };
        count += 1;
        out.instructions += 1;
        assert_eq!(
            inst.offset as usize, next,
            "instructions are not contiguous"
        );
        assert!(inst.length >= 1, "{}: zero length", inst.opcode.name());
        let end = next + inst.length as usize * 4;
        assert!(
            end <= body_end,
            "{} at {next:#x} ends past the program",
            inst.opcode.name()
        );
        let operands = inst.operands();
        assert!(operands.len() <= MAX_OPERANDS && inst.imms().len() <= 4);
        for op in operands {
            assert!(
                (next..end).contains(&(op.offset as usize)),
                "operand outside its instruction"
            );
            assert!(op.indices().len() <= 3 && op.imm_count() <= 4);
        }
        assert!(within(inst.data_bytes(), body) && within(inst.padding, body));
        next = end;
    }
    assert!(
        iter.next().is_none(),
        "the instruction iterator continues after an error"
    );
    assert!(
        count <= body.len() / 4,
        "{count} instructions in {} dwords",
        body.len() / 4
    );
    if !out.instruction_error {
        assert_eq!(next, body_end, "instructions do not cover the program");
    }
}

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

    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A chunk as the mutator sees it: found by a tolerant scan, not by [`Container::parse`].
#[derive(Clone, Copy, Debug)]
struct ChunkSpan {
    /// Byte offset of the chunk's table entry.
    entry: usize,
    /// Byte offset of the chunk header (fourcc, size).
    header: usize,
    /// Byte offset and length of the payload, clamped to the data.
    start: usize,
    len: usize,
    fourcc: [u8; 4],
}

/// Four-character codes a mutated chunk may take (layout confusion between signature kinds).
const FOURCCS: [[u8; 4]; 13] = [
    *b"ISGN", *b"ISG1", *b"OSGN", *b"OSG5", *b"OSG1", *b"PCSG", *b"PSG1", *b"RDEF", *b"SHDR",
    *b"SHEX", *b"SFI0", *b"DXIL", *b"STAT",
];

fn read_u32(data: &[u8], at: usize) -> Option<u32> {
    let bytes = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

fn write_u32(data: &mut [u8], at: usize, value: u32) {
    if let Some(bytes) = at.checked_add(4).and_then(|end| data.get_mut(at..end)) {
        bytes.copy_from_slice(&value.to_le_bytes());
    }
}

/// The chunks a container's table names, as far as they can be found (at most 64).
fn scan(data: &[u8]) -> Vec<ChunkSpan> {
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
fn resize(data: &mut Vec<u8>, chunks: &[ChunkSpan], at: usize, delta: isize, fix: bool) {
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

#[cfg(test)]
mod tests {
    //! The seeded smoke run (wasm-tools' pattern): the fuzz contract checked under `cargo test`.
    //! `DXBC2SPV_FUZZ_SEED` (hex or decimal) and `DXBC2SPV_FUZZ_ITERS` change the run; a failing
    //! input is written to `$TMPDIR/dxbc2spv-fuzz-failure.bin` and its seed and iteration printed.

    use super::*;
    use crate::test_support;

    const DEFAULT_SEED: u64 = 0xd8bc_2590_f022_0001;
    /// Mutated corpus inputs per run.
    const MUTATED: usize = 12_000;
    /// Corpus blobs sampled as mutation seeds, and the largest size sampled.
    const SAMPLED_BLOBS: usize = 1_500;
    const MAX_SEED_SIZE: u64 = 64 * 1024;

    fn seed() -> u64 {
        let Ok(text) = std::env::var("DXBC2SPV_FUZZ_SEED") else {
            return DEFAULT_SEED;
        };
        let parsed = match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        };
        parsed.expect("DXBC2SPV_FUZZ_SEED must be a number")
    }

    fn iterations() -> usize {
        std::env::var("DXBC2SPV_FUZZ_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(MUTATED)
    }

    /// Says how to reproduce the run it guards when that run panics; catches nothing.
    struct Repro<'a> {
        what: String,
        input: &'a [u8],
    }

    impl Drop for Repro<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                let path = std::env::temp_dir().join("dxbc2spv-fuzz-failure.bin");
                let _ = std::fs::write(&path, self.input);
                eprintln!(
                    "fuzz smoke failure: {} ({} bytes, written to {})",
                    self.what,
                    self.input.len(),
                    path.display()
                );
            }
        }
    }

    fn run(what: impl FnOnce() -> String, input: &[u8]) -> Outcome {
        let _guard = Repro {
            what: what(),
            input,
        };
        check(input)
    }

    /// The seeds: the built-in container, every `_other` blob and a seeded sample of the corpus.
    fn seeds(rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
        let mut out = vec![("seed_container()".to_string(), seed_container())];
        let mut paths: Vec<_> = test_support::corpus_blobs()
            .into_iter()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_SEED_SIZE))
            .collect();
        while paths.len() > SAMPLED_BLOBS {
            let i = rng.below(paths.len());
            paths.swap_remove(i);
        }
        paths.sort();
        paths.extend(test_support::other_blobs());
        for path in paths {
            let bytes = std::fs::read(&path).expect("read corpus blob");
            out.push((path.display().to_string(), bytes));
        }
        out
    }

    #[derive(Default, Debug)]
    struct Totals {
        inputs: usize,
        containers: usize,
        programs: usize,
        instructions: usize,
        decoded_some: usize,
        listings: usize,
        metadata_ok: usize,
        metadata_err: usize,
    }

    impl Totals {
        fn add(&mut self, o: Outcome) {
            self.inputs += 1;
            self.containers += usize::from(o.container);
            self.programs += o.programs as usize;
            self.instructions += o.instructions as usize;
            self.decoded_some += usize::from(o.instructions > 0);
            self.listings += usize::from(o.listing);
            self.metadata_ok += o.metadata_ok as usize;
            self.metadata_err += o.metadata_err as usize;
        }
    }

    #[test]
    fn seed_container_is_valid() {
        let bytes = seed_container();
        let c = Container::parse(&bytes, &ParseOptions::default()).expect("container");
        assert_eq!(c.chunks.len(), 5);
        let o = check(&bytes);
        assert_eq!((o.metadata_ok, o.metadata_err, o.programs), (4, 0, 1));
        assert!(o.listing && o.header && !o.instruction_error);
        assert_eq!(o.instructions, 9);
        let text = disasm::disassemble(&bytes, &disasm::Options::default()).expect("listing");
        assert!(text.contains("icb[r0.x + 0].x"), "{text}");
        let mut header = String::new();
        disasm::header::write_header(&mut header, &c).expect("header");
        assert!(
            header.contains("POSITION") && header.contains("struct"),
            "{header}"
        );
    }

    #[test]
    fn rng_is_deterministic_and_spread() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        assert!(xs.iter().all(|&x| x == b.next_u64()));
        let mut hits = [0usize; 10];
        for _ in 0..10_000 {
            hits[a.below(10)] += 1;
        }
        assert!(hits.iter().all(|&h| (800..1200).contains(&h)), "{hits:?}");
        assert_eq!(a.below(0), 0);
    }

    #[test]
    fn smoke_mutated_corpus() {
        let seed = seed();
        let mut rng = Rng::new(seed);
        let seeds = seeds(&mut rng);
        let mut totals = Totals::default();
        for (name, bytes) in &seeds {
            totals.add(run(|| format!("unmutated seed {name}"), bytes));
        }
        let unmutated = std::mem::take(&mut totals);
        let n = iterations();
        for i in 0..n {
            // One generator per iteration, so any iteration replays on its own.
            let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
            let (name, bytes) = &seeds[rng.below(seeds.len())];
            let mut input = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                mutate(&mut rng, &mut input);
            }
            totals.add(run(
                || format!("seed {seed:#x} iteration {i} from {name}"),
                &input,
            ));
        }
        eprintln!("fuzz smoke: {} seeds unmutated: {unmutated:?}", seeds.len());
        eprintln!("fuzz smoke: {n} mutated inputs (seed {seed:#x}): {totals:?}");
        // The mutator is token-aware: most inputs must still reach the instruction decoder.
        assert!(totals.containers * 10 >= n * 6, "{totals:?}");
        assert!(totals.decoded_some * 10 >= n * 5, "{totals:?}");
    }

    /// Random byte strings, random bytes behind a valid header, and containers of random chunks.
    #[test]
    fn smoke_random_inputs() {
        let seed = seed();
        let mut rng = Rng::new(seed.rotate_left(17));
        let mut totals = Totals::default();
        for i in 0..3_000 {
            let len = rng.below(400);
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u32() as u8).collect();
            match i % 3 {
                0 => {}
                1 => {
                    bytes.resize(len.max(32), 0);
                    let len = bytes.len() as u32;
                    bytes[..4].copy_from_slice(b"DXBC");
                    write_u32(&mut bytes, 20, 1);
                    write_u32(&mut bytes, 24, len);
                    write_u32(&mut bytes, 28, rng.below(6) as u32);
                }
                _ => {
                    let mut payloads = Vec::new();
                    for _ in 0..rng.below(5) {
                        let fourcc = rng.pick(&FOURCCS);
                        let mut payload: Vec<u8> =
                            (0..rng.below(200)).map(|_| rng.next_u32() as u8).collect();
                        if (&fourcc == b"SHEX" || &fourcc == b"SHDR") && payload.len() >= 8 {
                            let version = (rng.below(6) as u32) << 16 | 0x50 | rng.below(2) as u32;
                            write_u32(&mut payload, 0, version);
                            let dwords = payload.len() as u32 / 4;
                            write_u32(&mut payload, 4, dwords);
                        }
                        payloads.push((fourcc, payload));
                    }
                    let chunks: Vec<_> = payloads.iter().map(|(f, p)| (*f, p.as_slice())).collect();
                    bytes = build_container(&chunks);
                }
            }
            totals.add(run(|| format!("seed {seed:#x} random input {i}"), &bytes));
        }
        eprintln!("fuzz smoke: 3000 random inputs: {totals:?}");
        assert!(totals.containers >= 1_000, "{totals:?}");
    }

    /// Every prefix of a few real blobs, as is and with the container size patched to match.
    #[test]
    fn smoke_truncations() {
        let mut blobs = vec![("seed_container()".to_string(), seed_container())];
        let corpus = test_support::corpus_blobs();
        let mut sized: Vec<_> = corpus
            .iter()
            .filter_map(|p| Some((std::fs::metadata(p).ok()?.len(), p)))
            .filter(|(len, _)| (600..6_000).contains(len))
            .collect();
        sized.sort();
        for i in [0, sized.len() / 2, sized.len().saturating_sub(1)] {
            if let Some((_, path)) = sized.get(i) {
                blobs.push((
                    path.display().to_string(),
                    std::fs::read(path).expect("read blob"),
                ));
            }
        }
        let mut runs = 0;
        for (name, bytes) in &blobs {
            for len in 0..=bytes.len() {
                let mut cut = bytes[..len].to_vec();
                run(|| format!("{name} truncated to {len} bytes"), &cut);
                if len >= 28 {
                    write_u32(&mut cut, 24, len as u32);
                    run(
                        || format!("{name} truncated to {len} bytes, size patched"),
                        &cut,
                    );
                }
                runs += 1;
            }
        }
        eprintln!("fuzz smoke: {runs} truncations of {} blobs", blobs.len());
    }

    #[test]
    fn mutations_keep_sizes_consistent() {
        // With fix-ups, inserting and removing program dwords keeps the container parseable.
        let bytes = seed_container();
        let mut rng = Rng::new(1);
        let mut parsed = 0;
        for _ in 0..500 {
            let mut input = bytes.clone();
            let chunks = scan(&input);
            let p = *chunks
                .iter()
                .find(|c| &c.fourcc == b"SHEX")
                .expect("program");
            let at = p.start + 8 + 4 * rng.below(p.len / 4 - 2);
            let delta = if rng.percent(50) { 4 } else { -4 };
            resize(&mut input, &chunks, at, delta, true);
            let c = Container::parse(
                &input,
                &ParseOptions {
                    verify_checksum: false,
                },
            )
            .expect("container");
            let chunk = c.shader_chunk().expect("program chunk");
            assert_eq!(chunk.data.len() as isize, p.len as isize + delta);
            parsed += usize::from(Program::parse(chunk.data, chunk.offset).is_ok());
        }
        assert_eq!(parsed, 500);
    }
}
