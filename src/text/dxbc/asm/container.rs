//! Whole containers: the program chunk (SHDR for SM4.x, SHEX for SM5.x) after the reflection and
//! signature chunks built from fxc's comment tables (or derived from the declarations), with the
//! checksum computed.

use super::chunks::build_chunks;
use super::error::{AsmError, Result};
use super::header::{parse_header, HeaderTables};
use super::program::assemble_program;
use crate::front::dxbc::container::FourCc;
use crate::text::dxbc::encode::{words_to_bytes, write_container};

/// Assembles an fxc-style listing into a complete DXBC container.
pub fn assemble(text: &str) -> Result<Vec<u8>> {
    let (_, program) = assemble_program(text)?;
    let header = parse_header(text)?;
    container_with_header(&header, &program)
}

/// The container of a program chunk's dwords (version and length tokens first), with `RDEF`
/// and signature chunks derived from its declarations (no comment tables), as [`assemble`]
/// builds for a listing without a header.
pub fn container_of_program(program: &[u32]) -> Result<Vec<u8>> {
    container_with_header(&HeaderTables::default(), program)
}

fn container_with_header(header: &HeaderTables, program: &[u32]) -> Result<Vec<u8>> {
    let version = crate::front::dxbc::token::VersionToken(program.first().copied().unwrap_or(0));
    let mut chunks = build_chunks(header, program)?;
    let fourcc = if version.major() >= 5 {
        FourCc(*b"SHEX")
    } else {
        FourCc(*b"SHDR")
    };
    chunks.push((fourcc, words_to_bytes(program)));
    let refs: Vec<(FourCc, &[u8])> = chunks.iter().map(|(f, d)| (*f, d.as_slice())).collect();
    write_container(&refs)
        .map_err(|e| AsmError::new(1, 1, format!("cannot write the container: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::dxbc::container::{Container, ParseOptions};

    #[test]
    fn assembles_a_verifiable_container() {
        let text =
            "ps_5_0\ndcl_input_ps linear v0.xy\ndcl_output o0.xyzw\nmov o0.xyzw, v0.xyxx\nret\n";
        let bytes = assemble(text).expect("assembles");
        let container =
            Container::parse(&bytes, &ParseOptions::default()).expect("checksum verifies");
        assert!(container
            .shader_chunk()
            .is_some_and(|c| c.fourcc == FourCc(*b"SHEX")));
        let listing = crate::text::dxbc::disasm::disassemble(
            &bytes,
            &crate::text::dxbc::disasm::Options {
                header: false,
                ..Default::default()
            },
        )
        .expect("disassembles");
        assert_eq!(listing, text);
    }
}
