//! Names the instruction or structure that holds a byte offset of a DXBC container, so that
//! error messages can say where they point (`at 0x1a4 (dcl_temps): ...`, see [`crate::Error`]).
//!
//! Contract: [`name_at`] never fails and never panics, whatever the bytes. It names the 32-byte
//! header `container header` and the chunk table `chunk table`. Inside the program chunk
//! (`SHEX`/`SHDR`) it names the instruction whose dwords (opcode token to last dword) contain the
//! offset by fxc's mnemonic ([`Opcode::name`](crate::front::dxbc::Opcode::name)), and the chunk header,
//! the version and length tokens and anything past the last decodable instruction by the chunk's
//! code. Other chunks are named by their code when the crate knows it (`ISGN`, `RDEF`, ...), else
//! `chunk`. Offsets past the end, or in bytes that do not parse as a container, have no name.
//! It decodes the program again, which only the (rare) error path pays for.

use crate::front::dxbc::container::{Container, ParseOptions, HEADER_SIZE};
use crate::front::dxbc::program::Program;

/// The instruction or structure at byte `offset` of `bytes`, if any is found.
pub(crate) fn name_at(bytes: &[u8], offset: u32) -> Option<&'static str> {
    let offset = offset as usize;
    if offset < HEADER_SIZE {
        return Some("container header");
    }
    let container = Container::parse(
        bytes,
        &ParseOptions {
            verify_checksum: false,
        },
    )
    .ok()?;
    if offset < HEADER_SIZE + 4 * container.chunks.len() {
        return Some("chunk table");
    }
    let contains = |start: u32, len: usize| {
        let start = (start as usize).saturating_sub(8); // the chunk's code and size
        offset >= start && offset - start < len + 8
    };
    if let Some(chunk) = container.shader_chunk() {
        if contains(chunk.offset, chunk.data.len()) {
            let chunk_name = chunk.fourcc.known_name().unwrap_or("program");
            return Some(instruction_at(chunk.data, chunk.offset, offset).unwrap_or(chunk_name));
        }
    }
    container
        .chunks
        .iter()
        .find(|c| contains(c.offset, c.data.len()))
        .map(|c| c.fourcc.known_name().unwrap_or("chunk"))
}

/// The mnemonic of the instruction of the program in `data` (at absolute offset `base`) whose
/// dwords contain `offset`.
fn instruction_at(data: &[u8], base: u32, offset: usize) -> Option<&'static str> {
    let program = Program::parse(data, base).ok()?;
    for inst in program.instructions() {
        let inst = inst.ok()?;
        let start = inst.offset as usize;
        if start > offset {
            return None;
        }
        if offset - start < (inst.length as usize).max(1) * 4 {
            return Some(inst.opcode.name());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `vs_5_0`: `dcl_temps 2` (2 dwords), `mov r0.x, l(1.0)` (5 dwords), `ret` (1 dword); the
    /// assembler writes the program chunk last.
    fn sample() -> Vec<u8> {
        crate::text::dxbc::asm::assemble("vs_5_0\ndcl_temps 2\nmov r0.x, l(1.0)\nret\n")
            .expect("assembles")
    }

    #[test]
    fn names_instructions_and_structures() {
        let bytes = sample();
        let c = Container::parse(&bytes, &ParseOptions::default()).expect("container");
        let shex = c.shader_chunk().expect("program").offset;
        let body = shex + 8;
        assert_eq!(name_at(&bytes, 0), Some("container header"));
        assert_eq!(name_at(&bytes, 31), Some("container header"));
        assert_eq!(name_at(&bytes, 32), Some("chunk table"));
        assert_eq!(name_at(&bytes, shex - 8), Some("SHEX"));
        assert_eq!(name_at(&bytes, shex), Some("SHEX"));
        assert_eq!(name_at(&bytes, body), Some("dcl_temps"));
        assert_eq!(name_at(&bytes, body + 7), Some("dcl_temps"));
        assert_eq!(name_at(&bytes, body + 8), Some("mov"));
        assert_eq!(name_at(&bytes, body + 27), Some("mov"));
        assert_eq!(name_at(&bytes, body + 28), Some("ret"));
        assert_eq!(name_at(&bytes, body + 32), None);
        assert_eq!(name_at(&bytes, u32::MAX), None);
    }

    #[test]
    fn survives_bytes_that_do_not_parse() {
        assert_eq!(name_at(b"DXBC", 40), None);
        assert_eq!(name_at(&[], 3), Some("container header"));
    }
}
