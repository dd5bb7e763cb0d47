//! Adversarial inputs just under 1 MiB through [`crate::translate`]: each must end with the
//! typed error of the limit it breaks (checked before anything is sized by the count), or
//! translate, in time and memory linear in the input. No test measures time; a limit checked
//! too late, a quadratic pass or an unbounded recursion shows as a test that does not finish
//! (the runs took well under a second each when written). Offsets are computed from the
//! instruction sizes the comments give. The limits are listed in `docs/robustness.md`.

use std::fmt::Write;

use crate::error::Error;
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::test_support::{build_container, signature_chunk};
use crate::{translate, Options, Translation};

/// The inputs stay under this size.
const MIB: usize = 1 << 20;

/// A compute shader: `dcl_temps 2` (2 dwords) and `dcl_thread_group` (4 dwords), so its body
/// continues at [`CS_BODY`] bytes after the first instruction.
const CS: &str = "cs_5_0\ndcl_temps 2\ndcl_thread_group 1, 1, 1\n";
const CS_BODY: u32 = 24;

/// Assembles `head`, then the lines `body` writes; returns the container and the offset of the
/// program's first instruction.
fn assemble(head: &str, body: impl FnOnce(&mut String)) -> (Vec<u8>, u32) {
    let mut text = String::from(head);
    body(&mut text);
    let bytes = crate::text::dxbc::asm::assemble(&text).expect("assembles");
    assert!(bytes.len() < MIB, "input of {} bytes", bytes.len());
    let container = Container::parse(&bytes, &ParseOptions::default()).expect("container");
    let first = container.shader_chunk().expect("program").offset + 8;
    (bytes, first)
}

fn repeat(text: &mut String, line: &str, n: usize) {
    for _ in 0..n {
        text.push_str(line);
    }
}

fn must_fail(bytes: &[u8]) -> Error {
    match translate(bytes, &Options::default()) {
        Ok(t) => panic!("translated to {} words", t.spirv.len()),
        Err(e) => e,
    }
}

fn must_translate(bytes: &[u8]) -> Translation {
    translate(bytes, &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Asserts an [`Error::Invalid`] with exactly this text.
fn assert_invalid(e: &Error, expected: &str) {
    assert!(matches!(e, Error::Invalid { .. }), "not Invalid: {e}");
    assert_eq!(e.to_string(), expected);
}

#[test]
fn sixty_thousand_nested_ifs_stop_at_the_nesting_limit() {
    // `if_nz r0.x` is 3 dwords, `endif` 1: 16 bytes a level.
    let (bytes, first) = assemble(CS, |t| {
        repeat(t, "if_nz r0.x\n", 60_000);
        repeat(t, "endif\n", 60_000);
        t.push_str("ret\n");
    });
    let at = first + CS_BODY + 64 * 12;
    assert_invalid(
        &must_fail(&bytes),
        &format!("at {at:#x} (if): 65 nested if/loop/switch blocks exceeds the limit 64"),
    );
}

#[test]
fn a_hundred_thousand_nested_loops_stop_at_the_nesting_limit() {
    let (bytes, first) = assemble(CS, |t| {
        repeat(t, "loop\n", 100_000);
        t.push_str("break\n");
        repeat(t, "endloop\n", 100_000);
        t.push_str("ret\n");
    });
    let at = first + CS_BODY + 64 * 4;
    assert_invalid(
        &must_fail(&bytes),
        &format!("at {at:#x} (loop): 65 nested if/loop/switch blocks exceeds the limit 64"),
    );
}

#[test]
fn nesting_up_to_the_limit_translates_in_every_function() {
    // 64 levels mixing the three constructs, in the main function and in a subroutine: the
    // depth starts again at each label.
    let nest = |t: &mut String| {
        for level in 0..64 {
            t.push_str(match level % 3 {
                0 => "loop\n",
                1 => "if_nz r0.x\n",
                _ => "switch r0.x\ndefault\n",
            });
        }
        t.push_str("mov r1.x, l(1)\n");
        for level in (0..64).rev() {
            t.push_str(match level % 3 {
                0 => "break\nendloop\n",
                1 => "endif\n",
                _ => "break\nendswitch\n",
            });
        }
    };
    let (bytes, _) = assemble(CS, |t| {
        t.push_str("mov r0.x, l(0)\n");
        nest(t);
        t.push_str("call l0\nret\nlabel l0\n");
        nest(t);
        t.push_str("ret\n");
    });
    assert_eq!(must_translate(&bytes).spirv.first(), Some(&0x0723_0203));
}

#[test]
fn huge_declared_counts_are_refused_before_allocating() {
    let tg = "dcl_thread_group 1, 1, 1\nret\n";
    let (bytes, first) = assemble(&format!("cs_5_0\ndcl_temps 4294967295\n{tg}"), |_| {});
    assert_invalid(
        &must_fail(&bytes),
        &format!("at {first:#x} (dcl_temps): 4294967295 temps exceeds the limit 4096"),
    );
    let (bytes, first) = assemble(
        &format!("cs_5_0\ndcl_indexableTemp x0[4294967295], 4\n{tg}"),
        |_| {},
    );
    assert_invalid(
        &must_fail(&bytes),
        &format!(
            "at {first:#x} (dcl_indexableTemp): 4294967295 indexable temp elements in all \
             exceeds the limit 4096"
        ),
    );
}

#[test]
fn many_indexable_temps_within_the_limit_each_are_refused_together() {
    // 60,000 `dcl_indexableTemp x#[1], 4` (4 dwords each): the 4097th crosses the limit.
    let (bytes, first) = assemble("cs_5_0\ndcl_thread_group 1, 1, 1\n", |t| {
        for i in 0..60_000 {
            let _ = writeln!(t, "dcl_indexableTemp x{i}[1], 4");
        }
        t.push_str("ret\n");
    });
    let at = first + 16 + 4096 * 16;
    assert_invalid(
        &must_fail(&bytes),
        &format!(
            "at {at:#x} (dcl_indexableTemp): 4097 indexable temp elements in all exceeds the \
             limit 4096"
        ),
    );
}

#[test]
fn sixty_thousand_comment_blocks_are_skipped() {
    // Comment blocks (custom data class 0) carry nothing to translate.
    let (bytes, _) = assemble(CS, |t| {
        repeat(t, "customdata class=0 { 0x1, 0x2 }\n", 60_000);
        t.push_str("ret\n");
    });
    let spirv = must_translate(&bytes).spirv;
    assert!(spirv.len() < 1000, "{} words from comments", spirv.len());
}

#[test]
fn forty_thousand_immediate_constant_buffers_stop_at_the_second() {
    // `dcl_immediateConstantBuffer { { 1, 2, 3, 4 } }` is 6 dwords.
    let (bytes, first) = assemble(CS, |t| {
        repeat(
            t,
            "dcl_immediateConstantBuffer { { 1, 2, 3, 4 } }\n",
            40_000,
        );
        t.push_str("ret\n");
    });
    let at = first + CS_BODY + 24;
    assert_invalid(
        &must_fail(&bytes),
        &format!("at {at:#x} (customdata): second immediate constant buffer"),
    );
}

#[test]
fn huge_immediate_constant_buffer_is_refused() {
    let (bytes, first) = assemble(CS, |t| {
        t.push_str("dcl_immediateConstantBuffer { ");
        for i in 0..65_000 {
            let _ = write!(t, "{}{{ {i}, 0, 0, 0 }}", if i > 0 { ", " } else { "" });
        }
        t.push_str(" }\nret\n");
    });
    let at = first + CS_BODY;
    assert_invalid(
        &must_fail(&bytes),
        &format!(
            "at {at:#x} (customdata): 65000 immediate constant buffer vectors exceeds the limit \
             4096"
        ),
    );
}

#[test]
fn a_loop_of_thirty_seven_thousand_instructions_translates() {
    let (bytes, _) = assemble(CS, |t| {
        t.push_str("mov r0.x, l(0)\nloop\n");
        repeat(t, "iadd r0.x, r0.x, l(1)\n", 37_000);
        t.push_str("uge r0.y, r0.x, l(100)\nbreakc_nz r0.y\nendloop\nret\n");
    });
    let spirv = must_translate(&bytes).spirv;
    // At least one OpIAdd (4 words: opcode, type, result, two operands → 5) per instruction.
    assert!(spirv.len() > 37_000 * 5, "{} words", spirv.len());
}

#[test]
fn switches_translate_up_to_the_opswitch_limit() {
    // `case l(n)` is 3 dwords, `break` 1.
    let switch = |cases: usize| {
        assemble(&format!("{CS}mov r0.x, l(0)\n"), move |t| {
            t.push_str("switch r0.x\n");
            for i in 0..cases {
                let _ = writeln!(t, "case l({i})\nbreak");
            }
            t.push_str("default\nbreak\nendswitch\nret\n");
        })
    };
    let (bytes, _) = switch(5_000);
    must_translate(&bytes);
    // mov (5 dwords) and switch (3) come first.
    let (bytes, first) = switch(40_000);
    let at = first + CS_BODY + 32 + 32_766 * 16;
    let e = must_fail(&bytes);
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "at {at:#x} (case): unsupported: 32767 cases in one switch exceeds the limit 32766 \
             of a SPIR-V OpSwitch"
        )
    );
}

#[test]
fn a_chain_of_thirty_thousand_calls_stops_at_the_call_depth_limit() {
    // `call l#` and `label l#` are 3 dwords, `ret` 1: each subroutine is 28 bytes.
    let (bytes, first) = assemble("cs_5_0\ndcl_thread_group 1, 1, 1\n", |t| {
        t.push_str("call l1\nret\n");
        for i in 1..30_000 {
            let _ = writeln!(t, "label l{i}\ncall l{}\nret", i + 1);
        }
        t.push_str("label l30000\nret\n");
    });
    // The 33rd nested call is the one in l32.
    let at = first + 16 + 16 + 31 * 28 + 12;
    assert_invalid(
        &must_fail(&bytes),
        &format!("at {at:#x} (call): 30000 nested subroutine calls exceeds the limit 32"),
    );
}

/// A compute shader whose main function calls `l1`, each `l<i>` calling `l<i+1>` up to `l<n>`:
/// `n` nested calls.
fn call_chain(n: u32) -> Vec<u8> {
    let (bytes, _) = assemble("cs_5_0\ndcl_thread_group 1, 1, 1\ncall l1\nret\n", |t| {
        for i in 1..n {
            let _ = writeln!(t, "label l{i}\ncall l{}\nret", i + 1);
        }
        let _ = writeln!(t, "label l{n}\nret");
    });
    bytes
}

#[test]
fn call_depth_is_limited_at_32() {
    must_translate(&call_chain(32));
    let e = must_fail(&call_chain(33));
    assert!(e
        .to_string()
        .ends_with("(call): 33 nested subroutine calls exceeds the limit 32"));
}

#[test]
fn call_graphs_with_shared_callees_are_measured_in_linear_time() {
    // 30 layers of two functions, each calling both functions of the next layer: 2^30 call
    // paths, 30 nested calls at most.
    let (bytes, _) = assemble("cs_5_0\ndcl_thread_group 1, 1, 1\ncall l0\nret\n", |t| {
        for layer in 0..30 {
            for f in 0..2 {
                let _ = writeln!(t, "label l{}", 2 * layer + f);
                if layer < 29 {
                    let _ = writeln!(t, "call l{}\ncall l{}", 2 * layer + 2, 2 * layer + 3);
                }
                t.push_str("ret\n");
            }
        }
    });
    must_translate(&bytes);
}

#[test]
fn sixty_thousand_uncalled_subroutines_translate() {
    let (bytes, _) = assemble("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n", |t| {
        for i in 0..60_000 {
            let _ = writeln!(t, "label l{i}\nret");
        }
    });
    must_translate(&bytes);
}

#[test]
fn a_hundred_thousand_hull_phases_translate() {
    // Each phase is a function of its own; checks per phase must not scan the earlier ones.
    let head = "hs_5_0\nhs_decls\ndcl_input_control_point_count 3\n\
        dcl_output_control_point_count 3\ndcl_tessellator_domain domain_tri\n\
        dcl_tessellator_partitioning partitioning_integer\n\
        dcl_tessellator_output_primitive output_triangle_cw\n";
    let (bytes, _) = assemble(head, |t| repeat(t, "hs_fork_phase\nret\n", 100_000));
    must_translate(&bytes);
}

#[test]
fn thirty_thousand_signature_elements_are_refused() {
    let elements: Vec<_> = (0..30_000u32)
        .map(|i| ("TEXCOORD", i, 0, 3, i % 32, 0xf, 0xf))
        .collect();
    let isgn = signature_chunk(&elements);
    let (program, _) = assemble("vs_5_0\ndcl_output_siv o0.xyzw, position\n", |t| {
        t.push_str("mov o0.xyzw, l(0, 0, 0, 1.0)\nret\n")
    });
    let c = Container::parse(&program, &ParseOptions::default()).expect("container");
    let shex = c.shader_chunk().expect("program").data;
    let osgn = c.chunk(b"OSGN").expect("output signature").data;
    let bytes = build_container(&[(b"ISGN", &isgn), (b"OSGN", osgn), (b"SHEX", shex)]);
    assert!(bytes.len() < MIB);
    // The ISGN chunk's data follows the header (32), the table (12) and its chunk header (8).
    assert_invalid(
        &must_fail(&bytes),
        "at 0x34 (ISGN): 30000 signature elements exceeds the limit 512",
    );
}

#[test]
fn a_d3d9_stream_translates_and_a_truncated_one_is_a_d3d9_decode_error() {
    // ps_2_0; mov oC0, c0; end.
    let words = [
        0xffff_0200u32,
        0x0200_0001,
        0x800f_0800,
        0xa0e4_0000,
        0x0000_ffff,
    ];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let t = translate(&bytes, &Options::default()).expect("a ps_2_0 stream translates");
    crate::spv::tests::tools::validate(&t.spirv, "vulkan1.1");
    // Without its end token the stream is cut short inside no instruction: a D3D9 decode
    // error at the byte after the last token.
    let e = must_fail(&bytes[..16]);
    assert_eq!(e.kind(), crate::ErrorKind::Decode);
    assert_eq!(e.offset(), Some(16), "{e}");
}
