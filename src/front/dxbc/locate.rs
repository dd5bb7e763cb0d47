//! Names the instruction or structure that holds a byte offset of a DXBC container, so that
//! error messages can say where they point (`at 0x1a4 (dcl_temps): ...`, see [`crate::Error`]).
//!
//! Contract: [`name_at`] and [`name_in`] never fail and never panic, whatever the bytes. They
//! name the 32-byte header `container header` and the chunk table `chunk table`. Inside the
//! program chunk (`SHEX`/`SHDR`) they name the instruction whose dwords (opcode token to last
//! dword) contain the offset by fxc's mnemonic
//! ([`Opcode::name`](crate::front::dxbc::Opcode::name)), and the chunk header, the version and
//! length tokens and anything past the last decodable instruction by the chunk's code. Other
//! chunks are named by their code when the crate knows it (`ISGN`, `RDEF`, ...), else `chunk`.
//! Offsets past the end, or in bytes that do not parse as a container, have no name.
//! [`name_in`] works from an already parsed container and program (the front end keeps them);
//! [`name_at`] parses the bytes first, for errors raised before they parsed.

use crate::front::dxbc::container::{Container, ParseOptions, HEADER_SIZE};
use crate::front::dxbc::program::Program;

/// The instruction or structure at byte `offset` of `bytes`, if any is found.
pub(crate) fn name_at(bytes: &[u8], offset: u32) -> Option<&'static str> {
    if (offset as usize) < HEADER_SIZE {
        return Some("container header");
    }
    let container = Container::parse(
        bytes,
        &ParseOptions {
            verify_checksum: false,
        },
    )
    .ok()?;
    name_in(&container, None, offset)
}

/// The instruction or structure at byte `offset` of the bytes `container` was parsed from, if
/// any is found; `program` is the container's program when already parsed (else it is parsed
/// here when the offset lies in it).
pub(crate) fn name_in(
    container: &Container<'_>,
    program: Option<&Program<'_>>,
    offset: u32,
) -> Option<&'static str> {
    let offset = offset as usize;
    if offset < HEADER_SIZE {
        return Some("container header");
    }
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
            let name = match program {
                Some(program) => instruction_at(program, offset),
                None => Program::parse(chunk.data, chunk.offset)
                    .ok()
                    .and_then(|program| instruction_at(&program, offset)),
            };
            return Some(name.unwrap_or(chunk_name));
        }
    }
    container
        .chunks
        .iter()
        .find(|c| contains(c.offset, c.data.len()))
        .map(|c| c.fourcc.known_name().unwrap_or("chunk"))
}

/// The mnemonic of the instruction of `program` whose dwords contain `offset`.
fn instruction_at(program: &Program<'_>, offset: usize) -> Option<&'static str> {
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
        // From the parsed container and program, the same names.
        let program = crate::front::dxbc::shader_program(&c).expect("program");
        for at in [
            0,
            32,
            shex - 8,
            body,
            body + 8,
            body + 28,
            body + 32,
            u32::MAX,
        ] {
            assert_eq!(
                name_in(&c, Some(&program), at),
                name_at(&bytes, at),
                "{at:#x}"
            );
        }
    }

    #[test]
    fn survives_bytes_that_do_not_parse() {
        assert_eq!(name_at(b"DXBC", 40), None);
        assert_eq!(name_at(&[], 3), Some("container header"));
    }
}
