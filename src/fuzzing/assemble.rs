//! The assembler's fuzz contract: what [`assemble`] asserts over one input text.
//!
//! Contract: the fxc-syntax assembler ([`crate::text::dxbc::asm`]) never panics on any text, and
//! whatever it accepts is a well-formed container: it parses (checksum verified), its program
//! decodes to the end without an error, its listing is produced, and the program's lossless
//! listing assembles to a program whose listing is the same text (a fixpoint: the assembler
//! accepts register kinds a declaration cannot take, such as `dcl_output cb0`, whose component
//! encodings the listing does not tell apart, so equal dwords are not promised for those). A
//! failure of any of these is a bug in the assembler, the decoder or the disassembler, and the
//! assertion names which.

use crate::front::dxbc::container::{Container, ParseOptions};
use crate::text::dxbc::asm::{assemble as assemble_text, assemble_program};
use crate::text::dxbc::disasm::{shader_program, write_program, Dialect, Flavor};

/// Assembles `data` (when it is UTF-8) and checks the result as the module doc says. Errors of
/// the assembler are fine; a panic is a bug.
pub fn assemble(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(bytes) = assemble_text(text) else {
        return;
    };
    let strict = ParseOptions {
        verify_checksum: true,
    };
    let container = Container::parse(&bytes, &strict)
        .unwrap_or_else(|e| panic!("assembled container does not parse: {e}"));
    let program = shader_program(&container)
        .unwrap_or_else(|e| panic!("assembled container has no program: {e}"));
    let outcome = super::check(&bytes);
    assert!(
        outcome.listing && !outcome.instruction_error,
        "assembled program does not decode: {outcome:?}"
    );
    let lossless = Flavor {
        dialect: Dialect::Fxc10_1,
        lossless: true,
    };
    let mut listing = String::new();
    write_program(&mut listing, &program, lossless)
        .unwrap_or_else(|e| panic!("assembled program does not disassemble: {e}"));
    let (_, words) = assemble_program(&listing)
        .unwrap_or_else(|e| panic!("lossless listing does not assemble: {e}\n{listing}"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let again = crate::front::dxbc::program::Program::parse(&bytes, 0)
        .unwrap_or_else(|e| panic!("reassembled program does not parse: {e}"));
    let mut relisted = String::new();
    write_program(&mut relisted, &again, lossless)
        .unwrap_or_else(|e| panic!("reassembled program does not disassemble: {e}"));
    if relisted != listing {
        let original: Vec<u32> = program
            .body()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        panic!(
            "the listing changes after reassembly: {}",
            first_difference(&original, &words[2..], words[0], program.version)
        );
    }
}

/// The first instruction whose dwords differ between `a` and `b` (instruction dwords without the
/// version and length tokens), as text and hex.
fn first_difference(
    a: &[u32],
    b: &[u32],
    version_token: u32,
    version: crate::front::dxbc::program::ShaderVersion,
) -> String {
    let (mut i, mut j) = (0usize, 0usize);
    while i < a.len() && j < b.len() {
        let len = |w: &[u32], k: usize| ((w[k] >> 24) & 0x7f).max(1) as usize;
        let (la, lb) = (len(a, i), len(b, j));
        let (ia, ib) = (&a[i..(i + la).min(a.len())], &b[j..(j + lb).min(b.len())]);
        if ia != ib {
            let text = |w: &[u32]| {
                let length = w.len() as u32 + 2;
                let words = [&[version_token, length][..], w].concat();
                let bytes: Vec<u8> = words.iter().flat_map(|d| d.to_le_bytes()).collect();
                let mut out = String::new();
                let flavor = Flavor {
                    dialect: Dialect::Fxc10_1,
                    lossless: true,
                };
                match crate::front::dxbc::program::Program::parse(&bytes, 0) {
                    Ok(p) => match p.instructions().next() {
                        Some(Ok(inst)) => crate::text::dxbc::disasm::write_instruction(
                            &mut out, &inst, version, flavor,
                        ),
                        _ => out.push('?'),
                    },
                    Err(_) => out.push('?'),
                }
                out
            };
            return format!(
                "`{}` {:08x?} became `{}` {:08x?}",
                text(ia),
                ia,
                text(ib),
                ib
            );
        }
        i += la;
        j += lb;
    }
    format!("lengths {} and {}", a.len(), b.len())
}
