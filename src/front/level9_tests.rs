//! Tests of the level-9 front end on hand-built containers: constants read from the SM4
//! constant buffers through the mapping table, samplers through the sampler table, runtime
//! constants as 0, errors at container offsets; and every corpus level-9 part that the rest
//! of the pipeline supports translates.

use crate::front::dxbc::aon9::HEADER_SIZE;
use crate::ir::{Op, Reg};
use crate::test_support::build_container;
use crate::text::d3d9::asm::assemble_bytes;
use crate::{translate, translate_to_ir, ErrorKind, OptionFlags, Options};

/// The options that select the level-9 part.
fn level9() -> Options {
    Options::default().with_flag(OptionFlags::LEVEL9, true)
}

/// One constant mapping row: `count` registers of `cb{cb}` from `first` land at `c{target}`.
fn constant_row(cb: u16, first: u16, count: u16, target: u16, conv: [u8; 4]) -> Vec<u8> {
    let mut v = Vec::new();
    for x in [cb, first, count, target] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend_from_slice(&conv);
    v
}

/// An `Aon9` payload: header, the constant, sampler and runtime tables, then `program`.
fn payload(
    version: u32,
    constants: &[Vec<u8>],
    samplers: &[[u8; 4]],
    runtime: &[[u8; 4]],
) -> impl Fn(&[u8]) -> Vec<u8> {
    let constants: Vec<u8> = constants.concat();
    let samplers: Vec<u8> = samplers.concat();
    let runtime: Vec<u8> = runtime.concat();
    let counts = [
        constants.len() / 12,
        0,
        0,
        samplers.len() / 4,
        runtime.len() / 4,
    ];
    move |program: &[u8]| {
        let tables = [&constants[..], &[], &[], &samplers[..], &runtime[..]];
        let mut rows = Vec::new();
        let mut descriptors = Vec::new();
        for (count, bytes) in counts.iter().zip(tables) {
            let offset = HEADER_SIZE + rows.len() as u32;
            descriptors.push(*count as u32 | offset << 16);
            rows.extend_from_slice(bytes);
        }
        let program_offset = HEADER_SIZE + rows.len() as u32;
        let size = program.len() as u32;
        let mut out = Vec::new();
        for v in [program_offset + size, version, size, program_offset] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for d in descriptors {
            out.extend_from_slice(&d.to_le_bytes());
        }
        out.extend_from_slice(&rows);
        out.extend_from_slice(program);
        out
    }
}

/// A container holding only the level-9 part of `text` with the given tables (the SM4 program
/// is not needed to translate the level-9 part).
fn container(
    text: &str,
    constants: &[Vec<u8>],
    samplers: &[[u8; 4]],
    runtime: &[[u8; 4]],
) -> Vec<u8> {
    let program = assemble_bytes(text).unwrap();
    let version = if text.trim_start().starts_with("vs") {
        0xFFFE_0200
    } else {
        0xFFFF_0200
    };
    let chunk = payload(version, constants, samplers, runtime)(&program);
    build_container(&[(b"Aon9", &chunk)])
}

/// The mapping of the vertex-shader tests: cb0[0..4] → c1..c4 (floats), cb1[2] → c5 (x float,
/// yzw uint), and the position offset in c0.
fn vs(text: &str) -> Vec<u8> {
    container(
        text,
        &[
            constant_row(0, 0, 4, 1, [0; 4]),
            constant_row(1, 2, 1, 5, [0, 3, 3, 3]),
        ],
        &[],
        &[[0, 0, 0, 0]],
    )
}

#[test]
fn constants_read_the_sm4_constant_buffers() {
    let bytes = vs("vs_2_0\ndcl_position v0\nadd oPos, v0, c3\nmov oT0, c5\nmov oT1, c0\n");
    let module = translate_to_ir(&bytes, &level9()).unwrap();
    // Two buffers: b0 covering registers 0..4, b1 covering 0..3 (register 2 read).
    let buffers: Vec<(u32, u32)> = module
        .cbuffers
        .iter()
        .map(|c| (c.range.first, c.size))
        .collect();
    assert_eq!(buffers, [(0, 4), (1, 3)]);
    let reads: Vec<(u32, u32)> = module
        .insts
        .iter()
        .flat_map(|i| i.src())
        .filter_map(|s| match s.reg {
            Reg::ConstantBuffer { decl, slot, .. } => {
                Some((module.cbuffers[decl.index()].range.first, slot.imm))
            }
            _ => None,
        })
        .collect();
    // c3 is cb0[2] (c1 is cb0[0]); c5 is cb1[2].
    assert_eq!(reads, [(0, 2), (1, 2)]);
    // cb1[2].yzw are uint: converted to float.
    let utof = module
        .insts
        .iter()
        .find(|i| i.op == Op::Utof)
        .expect("a utof");
    assert_eq!(utof.dst()[0].mask, 0b1110);
    // c0, the position offset, reads 0.
    assert!(module
        .insts
        .iter()
        .flat_map(|i| i.src())
        .any(|s| s.reg == Reg::Imm32([0; 4])));
    // And the whole pipeline accepts it.
    assert!(!translate(&bytes, &level9()).unwrap().spirv.is_empty());
}

#[test]
fn def_wins_over_the_mapping_for_direct_reads() {
    let bytes = vs("vs_2_0\ndef c2, 1, 2, 3, 4\ndcl_position v0\nadd oPos, v0, c2\n");
    let module = translate_to_ir(&bytes, &level9()).unwrap();
    assert!(module.cbuffers.is_empty());
}

#[test]
fn relative_reads_index_the_mapped_buffer() {
    let bytes = vs("vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nmov oPos, c2[a0.x]\n");
    let module = translate_to_ir(&bytes, &level9()).unwrap();
    let slot = module
        .insts
        .iter()
        .flat_map(|i| i.src())
        .find_map(|s| match s.reg {
            Reg::ConstantBuffer { slot, .. } => Some(slot),
            _ => None,
        })
        .expect("a constant-buffer read");
    // c2 is cb0[1]; the address register adds to it.
    assert_eq!(slot.imm, 1);
    assert!(slot.is_relative());
}

#[test]
fn relative_read_outside_the_mapping_is_unsupported() {
    let bytes = vs("vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nmov oPos, c9[a0.x]\n");
    let e = translate_to_ir(&bytes, &level9()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("c9"), "{e}");
}

#[test]
fn relative_read_outside_an_affine_mapping_extends_it() {
    // One row, cb0[2..6] → c0..c3: `c5[a0.x]` (an array offset folded into the base) is
    // cb0[7 + a0.x].
    let bytes = container(
        "vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nmov oPos, c5[a0.x]\n",
        &[constant_row(0, 2, 4, 0, [0; 4])],
        &[],
        &[],
    );
    let module = translate_to_ir(&bytes, &level9()).unwrap();
    let slot = module
        .insts
        .iter()
        .flat_map(|i| i.src())
        .find_map(|s| match s.reg {
            Reg::ConstantBuffer { slot, .. } => Some(slot),
            _ => None,
        })
        .expect("a constant-buffer read");
    assert_eq!((slot.imm, slot.is_relative()), (7, true));
}

#[test]
fn relative_read_of_defined_registers_reads_their_values() {
    // c8..c10 are defined (an HLSL literal array: fxc's level-9 skinning loops read identity
    // rows as `c8[aL]`) and no mapping row holds them: D3D9 loads `def` values into the
    // constant file, so `c8[a0.x]` reads (1,0,0,0), (0,1,0,0), (0,0,1,0) for a0.x = 0, 1, 2;
    // `c9[a0.x]` starts one row later. The SM4 constant buffers do not hold them.
    let bytes = vs(
        "vs_2_0\ndef c8, 1, 0, 0, 0\ndef c9, 0, 1, 0, 0\ndef c10, 0, 0, 1, 0\n\
         dcl_position v0\nmova a0.x, v0.x\nmov oPos, c8[a0.x]\nmov oT0, c9[a0.x]\n",
    );
    let module = translate_to_ir(&bytes, &level9()).unwrap();
    let one = 1.0f32.to_bits();
    assert_eq!(
        module.icb,
        [one, 0, 0, 0, 0, one, 0, 0, 0, 0, one, 0],
        "one copy of the three rows"
    );
    let reads: Vec<(u32, bool)> = module
        .insts
        .iter()
        .flat_map(|i| i.src())
        .filter_map(|s| match &s.reg {
            Reg::ImmediateConstantBuffer(i) => Some((i.imm, i.is_relative())),
            _ => None,
        })
        .collect();
    assert_eq!(reads, [(0, true), (1, true)]);
    assert!(!module
        .insts
        .iter()
        .flat_map(|i| i.src())
        .any(|s| matches!(s.reg, Reg::ConstantBuffer { .. })));
    assert!(!translate(&bytes, &level9()).unwrap().spirv.is_empty());
}

#[test]
fn samplers_read_the_mapped_texture_and_sampler_state() {
    // D3D9 s0 is t3 sampled with s1.
    let bytes = container(
        "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        &[],
        &[[3, 1, 0, 0]],
        &[],
    );
    let module = translate_to_ir(&bytes, &level9()).unwrap();
    let textures: Vec<u32> = module.resources.iter().map(|r| r.range.first).collect();
    let samplers: Vec<u32> = module.samplers.iter().map(|s| s.range.first).collect();
    assert_eq!((textures, samplers), (vec![3], vec![1]));
    assert!(!translate(&bytes, &level9()).unwrap().spirv.is_empty());
}

#[test]
fn a_container_without_a_level9_part_is_invalid() {
    let bytes = build_container(&[(b"SHEX", &[0u8; 8])]);
    let e = translate(&bytes, &level9()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid, "{e}");
    assert!(e.to_string().contains("no level-9 part"), "{e}");
}

#[test]
fn program_errors_carry_container_offsets() {
    // `mov oPos, v0` whose source names register type 20, which does not exist.
    let program: Vec<u8> = [
        0xFFFE_0200u32,
        0x0200_0001,
        0x800F_0000,
        0xC0E4_1000,
        0xFFFF,
    ]
    .iter()
    .flat_map(|t| t.to_le_bytes())
    .collect();
    let chunk = payload(0xFFFE_0200, &[], &[], &[])(&program);
    let bytes = build_container(&[(b"Aon9", &chunk)]);
    let e = translate(&bytes, &level9()).unwrap_err();
    // Container header 32 + one offset 4 + chunk header 8 + Aon9 header 36 + 3 tokens.
    let at = 32 + 4 + 8 + HEADER_SIZE + 12;
    assert_eq!(e.offset(), Some(at), "{e}");
}

#[test]
fn the_flag_leaves_d3d9_streams_alone() {
    let stream = assemble_bytes("vs_2_0\ndcl_position v0\nmov oPos, v0\n").unwrap();
    assert!(translate(&stream, &level9()).is_ok());
}

/// Every level-9 part of the corpus translates to SPIR-V that `spirv-val` accepts, or fails
/// as `Unsupported` (naming a feature); no other error. Prints the count per cause.
#[test]
fn corpus_level9_parts_translate_or_name_what_is_missing() {
    use crate::front::dxbc::{Container, ParseOptions};
    use crate::spv::tests::tools;
    use std::collections::BTreeMap;

    let Some(_) = crate::test_support::corpus_dir() else {
        return;
    };
    let options = level9().with_flag(OptionFlags::VERIFY_CHECKSUM, false);
    let (mut parts, mut translated) = (0usize, 0usize);
    // Per cause: how many, and the first container.
    let mut unsupported: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut failures = Vec::new();
    for path in crate::test_support::corpus_blobs() {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let lax = ParseOptions {
            verify_checksum: false,
        };
        let has_part = Container::parse(&bytes, &lax).is_ok_and(|c| c.level9().is_some());
        if !has_part {
            continue;
        }
        parts += 1;
        match translate(&bytes, &options) {
            Ok(t) => match tools::is_valid(&t.spirv, "vulkan1.1") {
                Some(false) => failures.push(format!("{}: spirv-val rejected it", path.display())),
                _ => translated += 1,
            },
            Err(e) if e.kind() == ErrorKind::Unsupported => {
                let text = e.to_string();
                let cause = text.split_once("): ").map_or(&text[..], |(_, c)| c);
                // Register numbers become `#`; names such as `D3D9`, `dp4` stay.
                let mut generic = String::new();
                let mut keep = false;
                for c in cause.chars() {
                    if c.is_ascii_digit() {
                        generic.push(if keep { c } else { '#' });
                    } else {
                        keep = c.is_ascii_alphabetic() && c != 'c';
                        generic.push(c);
                    }
                }
                let cause = generic;
                let entry = unsupported
                    .entry(cause)
                    .or_insert_with(|| (0, path.display().to_string()));
                entry.0 += 1;
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!("level-9 parts: {parts}, translated and valid: {translated}");
    for (cause, (n, first)) in &unsupported {
        eprintln!("  unsupported {n:4}  {cause} (first: {first})");
    }
    assert!(parts >= 600, "only {parts} level-9 parts in the corpus");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // What is missing is the legacy float operations (the back end's), nothing of the level-9
    // mapping.
    let other: Vec<&String> = unsupported
        .keys()
        .filter(|c| !c.contains("_legacy`"))
        .collect();
    assert!(
        other.is_empty(),
        "unsupported besides legacy operations: {other:?}"
    );
}
