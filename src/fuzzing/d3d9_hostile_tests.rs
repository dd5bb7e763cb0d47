//! Hostile Direct3D 9 streams just under 1 MiB through the translation, each held to
//! [`translate_d3d9`]'s contract (no panic, no `Internal` error, error offsets inside the input,
//! a module bounded by the input's size and passing `ir::validate`): register numbers at the top
//! of the 11-bit field, 2,000 nested blocks of each kind (more with `DXBC2SPV_D3D9_NESTING`:
//! 60,000 did not finish in minutes when written, a finding left to the lowering), 8192 `def`s,
//! loops whose count is
//! unknown or huge, a chain of 2048 calls, 60,000 straight-line instructions and comment blocks.
//! No test measures time: a quadratic pass or an unbounded recursion shows as a test that does
//! not finish or a stack overflow.

use super::translate_d3d9;

/// The inputs stay under this size.
const MIB: usize = 1 << 20;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `head`, then `n` copies of `line`, then `tail`, assembled.
fn assembled(head: &str, parts: &[(&str, usize)]) -> Vec<u8> {
    let mut text = String::from(head);
    for (line, n) in parts {
        for _ in 0..*n {
            text.push_str(line);
        }
    }
    let bytes = crate::text::d3d9::asm::assemble_bytes(&text)
        .unwrap_or_else(|e| panic!("assembles: {e:?}"));
    assert!(bytes.len() < MIB, "input of {} bytes", bytes.len());
    bytes
}

/// The contract, and the outcome as `Ok(words)` / `Err(message)` for the test's own checks.
fn outcome(data: &[u8]) -> Result<usize, String> {
    match translate_d3d9(data) {
        Some(words) => {
            crate::spv::tests::tools::validate(&words, "vulkan1.1");
            Ok(words.len())
        }
        None => Err(crate::translate(data, &crate::Options::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()),
    }
}

/// SM2+ instruction token: opcode and length in dwords after the token.
const fn op(opcode: u32, len: u32) -> u32 {
    opcode | len << 24
}

/// A parameter token: register type (0–31), number, and the mask/swizzle byte.
const fn param(ty: u32, num: u32, bits: u32) -> u32 {
    0x8000_0000 | (ty & 7) << 28 | (ty >> 3) << 11 | num | bits << 16
}

const DST: u32 = 0x0f; // .xyzw write mask
const SRC: u32 = 0xe4; // .xyzw swizzle

#[test]
fn register_numbers_at_the_top_of_the_field_are_refused_or_translated() {
    // ps_3_0 / vs_3_0 `mov` with each register file at number 2047 in the source, then in
    // the destination; `mov oC0, r0` ends each.
    for version in [0xffff_0300u32, 0xfffe_0300, 0xffff_0200, 0xfffe_0101] {
        for ty in 0..32u32 {
            for (dst, src) in [
                (param(0, 0, DST), param(ty, 2047, SRC)),
                (param(ty, 2047, DST), param(0, 0, SRC)),
            ] {
                let stream = bytes(&[
                    version,
                    op(1, 2),
                    dst,
                    src,
                    op(1, 2),
                    param(8, 0, DST),
                    param(0, 0, SRC),
                    0x0000_ffff,
                ]);
                let _ = outcome(&stream);
            }
        }
    }
    // A temporary past the 32 of ps_3_0 is not a register of the model; the lowering takes
    // it (2048 temporaries, a module of about 10,000 words), within the contract's bound.
    let r2047 = bytes(&[
        0xffff_0300,
        op(1, 2),
        param(0, 2047, DST),
        param(2, 0, SRC),
        0x0000_ffff,
    ]);
    match outcome(&r2047) {
        Ok(words) => eprintln!("ps_3_0 r2047: {words} words"),
        Err(e) => assert!(e.starts_with("at 0x"), "located: {e}"),
    }
}

#[test]
fn relative_constant_reads_at_the_top_of_the_field_translate_or_are_refused() {
    // vs_3_0: mova a0.x, v0.x; mov o0, c2047[a0.x]: the constant buffer is sized by the
    // register, not by the input.
    let text = "vs_3_0\ndcl_position v0\ndcl_position o0\nmova a0.x, v0.x\nmov o0, c2047[a0.x]\n";
    let _ = outcome(&assembled(text, &[]));
}

/// Blocks nested in the nesting test (`DXBC2SPV_D3D9_NESTING` changes it).
fn nesting() -> usize {
    std::env::var("DXBC2SPV_D3D9_NESTING")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

#[test]
fn deeply_nested_blocks_of_each_kind_end_in_a_typed_error_or_translate() {
    let head = "ps_3_0\ndefi i0, 3, 0, 1, 0\ndefb b0, true\ndef c0, 1, 0, 0, 1\n";
    let depth = nesting();
    for (open, close) in [
        ("rep i0\n", "endrep\n"),
        ("loop aL, i0\n", "endloop\n"),
        ("if b0\n", "endif\n"),
        ("if_gt c0.x, c0.y\n", "endif\n"),
    ] {
        let stream = assembled(head, &[(open, depth), (close, depth), ("mov oC0, c0\n", 1)]);
        // The contract only: the lowering has no nesting limit yet, and SPIR-V's (1023 levels
        // of structured control flow) is past 2,000 levels, so `spirv-val` rejects what it
        // gives (a finding for the lowering: D3D9 itself allows 4 levels of loops and 24 of
        // `if`).
        match translate_d3d9(&stream) {
            Some(words) => {
                let valid = crate::spv::tests::tools::validation_error(&words, "vulkan1.1");
                eprintln!(
                    "{open:?} x {depth}: {} words, spirv-val {valid:?}",
                    words.len()
                );
            }
            None => eprintln!("{open:?} x {depth}: refused"),
        }
    }
}

#[test]
fn eight_thousand_constant_definitions_translate_or_are_refused() {
    // 8192 `def`s (c0–c2047, four times each), then a relative read of the last.
    let mut text = String::from("vs_3_0\ndcl_position v0\ndcl_position o0\n");
    for i in 0..8192u32 {
        text.push_str(&format!("def c{}, {i}, 1, 2, 3\n", i % 2048));
    }
    let stream = assembled(&text, &[("mova a0.x, v0.x\nmov o0, c2047[a0.x]\n", 1)]);
    let _ = outcome(&stream);
    // The same number of integer and boolean definitions (i0–i15, b0–b15 over and over).
    let mut text = String::from("vs_3_0\ndcl_position v0\ndcl_position o0\n");
    for i in 0..8192u32 {
        text.push_str(&format!("defi i{}, {}, 0, 1, 0\n", i % 16, i % 256));
        text.push_str(&format!("defb b{}, true\n", i % 16));
    }
    let _ = outcome(&assembled(&text, &[("mov o0, v0\n", 1)]));
}

#[test]
fn loops_with_unknown_or_huge_counts_translate_without_unrolling() {
    // i1 is the runtime's: no count is known; i0 is the largest rep count D3D9 has (255) with
    // step 0 in the loop.
    let text = "vs_3_0\ndefi i0, 255, 0, 0, 0\ndcl_position v0\ndcl_position o0\n\
                mov r0, v0\nrep i1\nadd r0, r0, c0\nendrep\nloop aL, i0\nadd r0, r0, c1[aL]\n\
                endloop\nmov o0, r0\n";
    let words = outcome(&assembled(text, &[])).unwrap_or_else(|e| panic!("{e}"));
    assert!(words < 4_000, "{words} words: the loop was unrolled");
}

#[test]
fn sixty_thousand_straight_line_instructions_translate_in_bounded_size() {
    let stream = assembled(
        "ps_3_0\ndcl_texcoord v0\n",
        &[
            ("add r0, v0, c0\n", 1),
            ("add r0, r0, c1\n", 60_000),
            ("mov oC0, r0\n", 1),
        ],
    );
    let words = outcome(&stream).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        words < 64 * stream.len(),
        "{words} words from {} bytes",
        stream.len()
    );
}

#[test]
fn a_chain_of_two_thousand_calls_ends_in_a_typed_error_or_translates() {
    // label l0 calls l1, which calls l2, ... up to l2047.
    let mut text = String::from(
        "vs_3_0\ndcl_position v0\ndcl_position o0\nmov r0, v0\ncall l0\nmov o0, r0\nret\n",
    );
    for i in 0..2047 {
        text.push_str(&format!(
            "label l{i}\nadd r0, r0, c0\ncall l{}\nret\n",
            i + 1
        ));
    }
    text.push_str("label l2047\nret\n");
    match outcome(&assembled(&text, &[])) {
        Ok(words) => eprintln!("call chain: {words} words"),
        Err(e) => eprintln!("call chain: {e}"),
    }
}

#[test]
fn sixty_thousand_comment_blocks_are_skipped() {
    let mut words = vec![0xffff_0200u32];
    for _ in 0..60_000 {
        words.extend([0x0002_fffe, 0x4141_4141, 0]);
    }
    words.extend([op(1, 2), param(8, 0, DST), param(2, 0, SRC), 0x0000_ffff]);
    let stream = bytes(&words);
    assert!(stream.len() < MIB);
    outcome(&stream).unwrap_or_else(|e| panic!("{e}"));
}
