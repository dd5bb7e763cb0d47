//! Fuzzing entry points: the "never panics on input" contract in one function, a seeded PRNG and
//! a token-aware DXBC mutator (`docs/robustness.md`).
//!
//! Contract: [`decode_and_disassemble`] runs every decoding stage the crate has over arbitrary
//! bytes (container with checksum verification off, every signature/`RDEF`/`SFI0`/program chunk,
//! every instruction, the fxc-syntax listing and its comment header) and ignores the `Err`s. It
//! panics only when the decoder breaks one of its documented guarantees, checked by [`check()`]:
//! error offsets point into the input, parsed structures stay inside the bytes they came from,
//! item counts are bounded by the bytes that hold them, the instruction iterator advances by each
//! instruction's own length and stops after an error, and the listing grows at most linearly with
//! the input. Any panic found by the fuzz targets (`src/fuzz/`) or by the seeded smoke tests
//! (`tests.rs`) is therefore a bug.
//!
//! [`mutate()`] is the custom mutator of the `decode_mutated` fuzz target and of the smoke test: it
//! mostly rewrites dwords of the `SHDR`/`SHEX` program (opcode and length fields, the extended bit,
//! operand fields, inserted or removed dwords with the container, chunk and program sizes fixed up
//! so that the mutation reaches the instruction decoder), and sometimes container and chunk
//! headers or metadata chunk bodies.
//!
//! [`assemble()`] is the assembler's contract (what it accepts decodes and its listing is a
//! fixpoint), with [`mutate_text()`] as its token-aware text mutator; [`translate_generated`] runs
//! the translation over random programs from the opcode table ([`generate`]; nine in ten follow the
//! shader model's rules, the rest only the encoding), bound as [`generated_options`] says.
//!
//! [`decode_d3d9`] is the same contract for the Direct3D 9 decoder (raw token streams), with
//! [`mutate_d3d9`] as its token-aware mutator over hand-made seeds ([`d3d9_seeds`]);
//! [`translate_d3d9`] is the whole translation's contract over D3D9 streams (no panic, no
//! `Internal` error, error offsets inside the input, successes bounded in size and passing
//! `ir::validate`), fuzzed with the same mutator.
//!
//! [`emit_ir`] runs the back end alone on an IR module built by hand (the device tests of single
//! operations).
//!
//! Layout: this file holds the entry points the fuzz targets call; `check` holds the invariant
//! checks ([`check()`], [`Outcome`]), `mutate` the seeded PRNG ([`Rng`]), the mutator and the
//! container helpers ([`build_container`], [`seed_container`], [`words_to_bytes`]), and `tests`
//! the seeded smoke tests.
//!
//! [`decode_and_disassemble`]: crate::fuzzing::decode_and_disassemble
//! [`assemble()`]: crate::fuzzing::assemble()
//! [`mutate_text()`]: crate::fuzzing::mutate_text()
//! [`translate_generated`]: crate::fuzzing::translate_generated
//! [`generate`]: crate::fuzzing::generate
//! [`generated_options`]: crate::fuzzing::generated_options
//! [`decode_d3d9`]: crate::fuzzing::decode_d3d9
//! [`mutate_d3d9`]: crate::fuzzing::mutate_d3d9
//! [`d3d9_seeds`]: crate::fuzzing::d3d9_seeds
//! [`translate_d3d9`]: crate::fuzzing::translate_d3d9
//! [`emit_ir`]: crate::fuzzing::emit_ir
//! [`check()`]: crate::fuzzing::check()
//! [`mutate()`]: crate::fuzzing::mutate()
//! [`Outcome`]: crate::fuzzing::Outcome
//! [`Rng`]: crate::fuzzing::Rng
//! [`build_container`]: crate::fuzzing::build_container
//! [`seed_container`]: crate::fuzzing::seed_container
//! [`words_to_bytes`]: crate::fuzzing::words_to_bytes

// The contract checks and the generator's self-checks panic by design: a panic is the finding.
#[allow(clippy::panic)]
mod assemble;
mod check;
// The D3D9 decoder's contract checks panic by design, as `check`'s do.
#[cfg(feature = "d3d9")]
#[allow(clippy::panic)]
mod d3d9;
// The D3D9 translation's contract checks panic by design, as `check`'s do.
#[cfg(feature = "d3d9")]
#[allow(clippy::panic)]
mod d3d9_translate;
#[allow(clippy::panic)]
pub mod generate;
mod mutate;
mod mutate_text;
#[cfg(test)]
mod tests;

pub use crate::pipeline::emit_ir;
pub use assemble::assemble;
pub use check::{check, Outcome, LISTING_BYTES_PER_DWORD};
#[cfg(feature = "d3d9")]
pub use d3d9::{d3d9_seeds, decode_d3d9, mutate_d3d9, mutate_d3d9_in_place};
#[cfg(feature = "d3d9")]
pub use d3d9_translate::{translate_d3d9, MAX_FIXED_WORDS, MAX_WORDS_PER_BYTE};
pub use mutate::{build_container, mutate, mutate_in_place, seed_container, words_to_bytes, Rng};
pub use mutate_text::mutate_text;

use crate::bindings::{Bindings, TableBindings};
use crate::front::dxbc::container::{Container, ParseOptions};

/// Translates `data` to SPIR-V with the default options (checksum not verified, so mutated
/// inputs reach the later stages). Errors are fine; a panic is a bug, and so is a success whose
/// words do not start with the SPIR-V header.
pub fn translate(data: &[u8]) {
    let options = crate::Options::default().with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false);
    translate_with(data, &options);
}

fn translate_with(data: &[u8], options: &crate::Options) {
    if let Ok(t) = crate::translate(data, options) {
        assert_eq!(t.spirv.first(), Some(&0x0723_0203), "SPIR-V magic");
        assert!(t.spirv.len() >= 5, "SPIR-V header");
    }
}

/// The random program [`translate_generated`] builds from `data`: the bytes seed the generator
/// (FNV-1a of all of them) and the first byte sets the length (20–275 instructions). `None`
/// when the container could not be written (a generator bug).
pub fn generated_container(data: &[u8]) -> Option<Vec<u8>> {
    let seed = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let budget = 20 + u32::from(data.first().copied().unwrap_or(0));
    generate::generate_container(&mut Rng::new(seed), budget)
}

/// The options a generated `container` translates with: the defaults without checksum
/// verification and, for SM5.1 programs (register spaces and ranges, which the D3D11 default
/// layout does not bind), one Vulkan binding per declared range, as a D3D12-style runtime
/// derives them from the shader's own declarations.
pub fn generated_options(container: &[u8]) -> crate::Options {
    let mut options =
        crate::Options::default().with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false);
    let parse = ParseOptions {
        verify_checksum: false,
    };
    let Ok(parsed) = Container::parse(container, &parse) else {
        return options;
    };
    let Ok(program) = crate::text::dxbc::disasm::shader_program(&parsed) else {
        return options;
    };
    if program.version.is_sm51() {
        let ranges = crate::front::dxbc::lower::lower(&program).map(|m| m.register_ranges());
        let table = ranges
            .ok()
            .and_then(|r| TableBindings::one_binding_per_range(0, r).ok());
        if let Some(table) = table {
            options.bindings = Bindings::Table(table);
        }
    }
    options
}

/// Translates the random program `data` seeds ([`generated_container`]) with
/// [`generated_options`], as [`translate`] does a container: errors are fine, panics and
/// malformed output are not.
pub fn translate_generated(data: &[u8]) {
    if let Some(container) = generated_container(data) {
        translate_with(&container, &generated_options(&container));
    }
}

/// Decodes and disassembles `data` in every way the crate can, ignoring errors. This is the
/// fuzz targets' entry point: it must never panic (see [`check()`]).
pub fn decode_and_disassemble(data: &[u8]) {
    let _ = check(data);
}
