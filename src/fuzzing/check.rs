//! The invariant checks behind the fuzz contract: what [`check`] asserts over one input.
//!
//! Contract: [`check`] runs every decoding stage over arbitrary bytes and ignores the `Err`s; it
//! panics (naming the broken guarantee) only when the decoder breaks one: error offsets inside the
//! input (and inside the chunk for chunk errors), parsed structures inside the bytes they came
//! from, item counts bounded by the bytes that hold them, contiguous instructions that stop after
//! an error, the listing and its header agreeing with decoding, and a listing at most
//! [`LISTING_BYTES_PER_DWORD`] bytes per input dword. [`Outcome`] says how far the input got.

use crate::front::dxbc::container::{Container, FourCc, ParseOptions, HEADER_SIZE};
use crate::front::dxbc::error::DecodeError;
use crate::front::dxbc::opcodes::MAX_OPERANDS;
use crate::front::dxbc::program::Program;
use crate::front::dxbc::rdef::{ResourceDefinitions, Type, MAX_TYPE_DEPTH, MAX_TYPE_NODES};
use crate::front::dxbc::sfi0::FeatureFlags;
use crate::front::dxbc::signature::{Layout, Signature};
use crate::front::dxbc::{checksum, Chunk};
use crate::text::dxbc::disasm::{self, Dialect};

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

/// Like [`super::decode_and_disassemble`], and returns how far the input got. Panics (with a
/// message naming the broken guarantee) only when the decoder violates its contract.
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
    if let Some(Err(e)) = container.root_signature() {
        check_error(&e, data.len(), "RTS0 accessor");
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
