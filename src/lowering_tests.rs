//! Lowering tests: fxc-syntax shaders assembled, decoded, lowered and run through the passes;
//! the IR must validate and have the properties checked here (the whole printouts of
//! translatable shaders are snapshots in `fixtures/out/ir/`, see `snapshot_tests`). Error cases
//! check kind and offset. The corpus test lowers every compute shader of the corpus
//! (`test_support::corpus_blobs`).

use std::collections::BTreeMap;

use crate::bindings::Bindings;
use crate::error::Error;
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::ir::{self, Module};
use crate::test_support;
use crate::text::dxbc::disasm::shader_program;

/// Assembles `text`, lowers it, runs the passes and validates. SM5.1 shaders are bound with a
/// table of their own ranges (the default map has only space 0).
fn translate(text: &str) -> Result<Module, Error> {
    let bytes = crate::text::dxbc::asm::assemble(text).expect("assembles");
    let container = Container::parse(&bytes, &ParseOptions::default()).expect("container");
    let program = shader_program(&container).expect("program");
    let mut module = crate::front::dxbc::lower::lower(&program)?;
    let bindings = if program.version.is_sm51() {
        table_for(&program)
    } else {
        Bindings::default()
    };
    crate::passes::run(
        &mut module,
        &bindings,
        &Default::default(),
        ir::HullSchedule::Serial,
        &Default::default(),
    )?;
    ir::validate(&module)?;
    Ok(module)
}

/// The printed IR of `text`, which must translate.
fn printed(text: &str) -> String {
    match translate(text) {
        Ok(m) => ir::print(&m),
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// Byte offset of the `n`th instruction (0-based) of the assembled `text`.
fn offset_of(text: &str, n: usize) -> u32 {
    let bytes = crate::text::dxbc::asm::assemble(text).expect("assembles");
    let container = Container::parse(&bytes, &ParseOptions::default()).expect("container");
    let program = shader_program(&container).expect("program");
    let inst = program.instructions().nth(n).expect("instruction");
    inst.expect("decodes").offset
}

/// A binding table with one binding per declared range (and UAV counter) of `program`.
fn table_for(program: &crate::front::dxbc::Program<'_>) -> Bindings {
    let Ok(mut m) = crate::front::dxbc::lower::lower(program) else {
        return Bindings::default();
    };
    if crate::passes::find_uav_counters(&mut m).is_err() {
        return Bindings::default();
    }
    let ranges = m
        .cbuffers
        .iter()
        .map(|c| c.range)
        .chain(m.resources.iter().map(|r| r.range))
        .chain(
            m.resources
                .iter()
                .filter(|r| r.counter)
                .map(|r| r.range.counter()),
        )
        .chain(m.samplers.iter().map(|s| s.range));
    match crate::bindings::TableBindings::one_binding_per_range(0, ranges) {
        Ok(table) => Bindings::Table(table),
        Err(_) => Bindings::default(),
    }
}

/// Every compute shader of the corpus lowers, or fails only as unsupported.
#[test]
fn corpus_compute_shaders_lower() {
    let mut ok = 0usize;
    let mut not_compute = 0usize;
    let mut unreadable = 0usize;
    let mut unsupported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut bound_by_table = 0usize;
    for path in test_support::corpus_blobs() {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let options = ParseOptions {
            verify_checksum: false,
        };
        let Ok(container) = Container::parse(&bytes, &options) else {
            unreadable += 1;
            continue;
        };
        let Ok(program) = shader_program(&container) else {
            unreadable += 1;
            continue;
        };
        if program.version.stage != crate::front::dxbc::Stage::Compute {
            not_compute += 1;
            continue;
        }
        let options = crate::Options::default().with_flag(
            crate::OptionFlags::VERIFY_CHECKSUM,
            !test_support::has_bad_checksum(&path),
        );
        let result = match crate::translate_to_ir(&bytes, &options) {
            // Register spaces other than 0 need a binding table: give each range its own.
            Err(Error::Binding { .. }) => {
                bound_by_table += 1;
                let bindings = table_for(&program);
                crate::translate_to_ir(
                    &bytes,
                    &crate::Options {
                        bindings,
                        ..options
                    },
                )
            }
            other => other,
        };
        match result {
            Ok(_) => ok += 1,
            Err(Error::Unsupported(e)) => unsupported
                .entry(e.what)
                .or_default()
                .push(path.display().to_string()),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    let unsupported_total: usize = unsupported.values().map(Vec::len).sum();
    println!(
        "compute shaders: {} lowered, {unsupported_total} unsupported, {} failed \
         ({bound_by_table} with a table of their own ranges; {not_compute} other stages, \
         {unreadable} unreadable skipped)",
        ok,
        failures.len()
    );
    for (feature, paths) in &unsupported {
        println!(
            "  unsupported {feature}: {} (e.g. {})",
            paths.len(),
            paths[0]
        );
    }
    assert!(
        failures.is_empty(),
        "{} compute shaders failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Its whole IR is the snapshot `fixtures/out/ir/cs_loop_switch_dynamic_cb.ir`.
const LOOP_SWITCH: &str = include_str!("../fixtures/in/cs_loop_switch_dynamic_cb.asm");

#[test]
fn loop_if_switch_nesting_and_dynamic_cb_index() {
    let m = translate(LOOP_SWITCH).expect("translates");
    assert_eq!(m.global_flags, ir::GlobalFlags::REFACTORING_ALLOWED);
    assert_eq!(
        m.switches,
        [ir::SwitchTable {
            cases: vec![(0, 0), (1, 0)],
            default: Some(1),
            blocks: 2,
        }]
    );
    assert!(m.cbuffers[0].binding.is_some() && m.resources[0].binding.is_some());
}

/// Its whole IR is the snapshot `fixtures/out/ir/cs_sm51_ranges_spaces.ir` (lowering-only).
const SM51: &str = include_str!("../fixtures/in/cs_sm51_ranges_spaces.asm");

#[test]
fn sm51_ranges_spaces_and_descriptor_elements() {
    let m = translate(SM51).expect("translates");
    let sample = m.insts[3];
    assert_eq!(sample.op, ir::Op::SampleL);
    assert_eq!(
        sample.payload,
        ir::Payload::TexelOffsets([-1, 2, 0]),
        "texel offsets (-1, 2, 0)"
    );
    assert_eq!(
        (m.insts[4].op, m.insts[4].payload),
        (
            ir::Op::Resinfo,
            ir::Payload::Resinfo(ir::ResinfoReturn::Uint)
        ),
        "_uint"
    );
    assert_eq!(
        m.resources[1].range.count,
        crate::bindings::Count::Unbounded
    );
}

/// Its whole IR is the snapshot `fixtures/out/ir/cs_indexable_icb_calls.ir`.
const CALLS: &str = include_str!("../fixtures/in/cs_indexable_icb_calls.asm");

#[test]
fn indexable_temps_icb_and_calls_to_labels() {
    let m = translate(CALLS).expect("translates");
    assert_eq!(
        &m.icb[..5],
        &[0x3f80_0000, 0x4000_0000, 0x4040_0000, 0x4080_0000, 5]
    );
    assert_eq!(m.insts[7].flags.sync, 0b11);
}

#[test]
fn labels_may_be_defined_after_their_calls_and_in_any_order() {
    let m = translate(
        "cs_5_0\ndcl_thread_group 1, 1, 1\ncall l7\nret\nlabel l9\nret\nlabel l7\ncall l9\nret\n",
    )
    .expect("translates");
    let target = |i: usize| m.insts[i].src()[0].reg;
    assert_eq!(target(0), ir::Reg::Function(ir::FunctionId::new(2)));
    assert_eq!(target(3), ir::Reg::Function(ir::FunctionId::new(1)));
    assert_eq!(m.functions[1].label, Some(9));
}

#[test]
fn imm_atomics_put_the_memory_first_among_the_sources() {
    let text = "cs_5_0
dcl_uav_structured u1, 4
dcl_tgsm_raw g0, 16
dcl_temps 2
dcl_thread_group 64, 1, 1
imm_atomic_iadd r0.x, u1, r1.xyxx, l(1)
imm_atomic_cmp_exch r0.y, g0, l(4), r1.x, l(7)
imm_atomic_alloc r1.x, u1
sincos null, r0.z, r1.x
ret
";
    let got = printed(text);
    let body: Vec<&str> = got
        .lines()
        .skip_while(|l| !l.contains("main"))
        .skip(1)
        .collect();
    let strip = |l: &&str| l.split_once(": ").map(|(_, t)| t.trim().to_owned());
    let body: Vec<String> = body.iter().filter_map(strip).collect();
    assert_eq!(
        body,
        [
            "imm_atomic_iadd r0.x, u#0.xyzw, r1.xyxx, l(0x00000001, 0x00000001, 0x00000001, 0x00000001)",
            "imm_atomic_cmp_exch r0.y, g#0.xyzw, l(0x00000004, 0x00000004, 0x00000004, 0x00000004), r1.xxxx, l(0x00000007, 0x00000007, 0x00000007, 0x00000007)",
            "imm_atomic_alloc r1.x, u#0.xyzw",
            "sincos null, r0.z, r1.xxxx",
            "ret",
        ]
    );
    assert!(
        got.contains("resource #0 u1 space0 count 1 structured stride 4 counter"),
        "{got}"
    );
    assert!(got.contains("tgsm #0 g0 words 4 stride 0"), "{got}");
}

/// The error of translating `text`, which must fail.
fn error(text: &str) -> Error {
    match translate(text) {
        Ok(m) => panic!("translated:\n{}", ir::print(&m)),
        Err(e) => e,
    }
}

fn assert_invalid_at(text: &str, inst: usize, needle: &str) {
    let e = error(text);
    assert!(matches!(e, Error::Invalid { .. }), "not Invalid: {e}");
    assert_eq!(e.offset(), Some(offset_of(text, inst)), "{e}");
    assert!(e.to_string().contains(needle), "{e}");
}

fn assert_unsupported(text: &str, feature_needle: &str) {
    match error(text) {
        Error::Unsupported(e) => {
            assert!(e.what.contains(feature_needle), "{}", e.what)
        }
        e => panic!("not Unsupported: {e}"),
    }
}

#[test]
fn undeclared_registers_are_invalid_at_their_instruction() {
    let head = "cs_5_0\ndcl_resource_raw t0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n";
    assert_invalid_at(
        &format!("{head}mov r0.x, l(0)\nld_raw r0.x, l(0), t5.xxxx\nret\n"),
        4,
        "t5 is not declared",
    );
    assert_invalid_at(&format!("{head}mov r0.x, cb2[0].x\nret\n"), 3, "cb2");
    assert_invalid_at(&format!("{head}mov r0.x, x1[0].x\nret\n"), 3, "x1");
    assert_invalid_at(&format!("{head}mov r0.x, icb[0].x\nret\n"), 3, "icb");
    assert_invalid_at(&format!("{head}call l3\nret\n"), 3, "l3");
    assert_invalid_at(&format!("{head}mov r1.x, l(0)\nret\n"), 3, "dcl_temps");
}

#[test]
fn sm51_registers_outside_their_range_are_invalid() {
    let head = "cs_5_1\ndcl_resource_raw T0[2:5], space=0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n";
    assert_invalid_at(
        &format!("{head}ld_raw r0.x, l(0), T0[1].xxxx\nret\n"),
        3,
        "below the range",
    );
    assert_invalid_at(
        &format!("{head}ld_raw r0.x, l(0), T0[6].xxxx\nret\n"),
        3,
        "past its 4 elements",
    );
}

#[test]
fn unbalanced_control_flow_is_invalid_via_validation() {
    let text = "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nmov r0.x, l(1)\nendif\nret\n";
    assert_invalid_at(text, 3, "endif without a matching if");
    let text = "cs_5_0\ndcl_thread_group 1, 1, 1\nbreak\nret\n";
    assert_invalid_at(text, 1, "break outside");
}

#[test]
fn limits_are_checked_before_anything_is_sized() {
    let tg = "dcl_thread_group 1, 1, 1\nret\n";
    assert_invalid_at(
        &format!("cs_5_0\ndcl_temps 4294967295\n{tg}"),
        0,
        "4294967295 temps exceeds the limit 4096",
    );
    assert_invalid_at(
        &format!("cs_5_0\ndcl_indexableTemp x0[4294967295], 4\n{tg}"),
        0,
        "4294967295 indexable temp elements in all exceeds the limit 4096",
    );
    assert_invalid_at(
        &format!("cs_5_0\ndcl_tgsm_structured g0, 4, 4294967295\n{tg}"),
        0,
        "shared memory",
    );
    assert_invalid_at(
        &format!("cs_5_0\ndcl_tgsm_raw g0, 16384\ndcl_tgsm_raw g1, 16388\n{tg}"),
        1,
        "32768",
    );
    assert_invalid_at(
        "cs_5_0\ndcl_thread_group 1024, 2, 1\nret\n",
        0,
        "thread group 1024 × 2 × 1 exceeds",
    );
    assert_invalid_at(
        "cs_5_0\ndcl_thread_group 0, 1, 1\nret\n",
        0,
        "thread group 0 × 1 × 1",
    );
    // A missing declaration is reported at the version token, 8 bytes before the body.
    let e = error("cs_5_0\nret\n");
    assert_eq!(e.offset(), Some(offset_of("cs_5_0\nret\n", 0) - 8), "{e}");
    assert!(e.to_string().contains("without dcl_thread_group"), "{e}");
    assert_invalid_at(
        &format!("cs_5_0\ndcl_uav_raw u0\ndcl_uav_raw u0\n{tg}"),
        1,
        "declared twice",
    );
}

#[test]
fn untranslated_features_are_unsupported() {
    let head = "cs_5_0\ndcl_uav_raw u0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n";
    assert_unsupported(&format!("{head}abort\nret\n"), "abort");
    assert_unsupported(&format!("{head}debug_break\nret\n"), "debug_break");
    // Class linkage translates; two dynamic resource registers in one instruction do not.
    assert_unsupported(
        "ps_5_0\ndcl_output o0.xyzw\ndcl_temps 1\nsample_indexable(texture2d)(float,float,float,float) \
         o0.xyzw, r0.xyxx, t[r0.z + 0].xyzw, s[r0.w + 0]\nret\n",
        "several dynamically indexed",
    );
}

/// The tiled-resource (`_s`) operations lower with the status as their second destination,
/// the texel offsets in `aux`, and `check_access_fully_mapped` reads a status.
#[test]
fn sparse_feedback_operations_lower_with_a_status_destination() {
    let m = translate(
        "cs_5_0\ndcl_resource_texture2d (float,float,float,float) t0\ndcl_sampler s0, mode_default\n\
         dcl_uav_raw u0\ndcl_temps 3\ndcl_thread_group 1, 1, 1\n\
         ld_raw_s r0.x, r0.y, l(0), u0.xxxx\n\
         sample_l_s_aoffimmi(1,-2,0) r1.xyzw, r0.z, r2.xyxx, t0.xyzw, s0, l(0.000000)\n\
         sample_d_cl_s r1.xyzw, r0.w, r2.xyxx, t0.xyzw, s0, r2.zwzz, r2.zwzz, l(1.000000)\n\
         check_access_fully_mapped r0.x, r0.z\nret\n",
    )
    .expect("translates");
    let ops: Vec<ir::Op> = m.insts.iter().map(|i| i.op).collect();
    assert_eq!(
        ops,
        [
            ir::Op::LdRawS,
            ir::Op::SampleLS,
            ir::Op::SampleDClS,
            ir::Op::CheckAccessFullyMapped,
            ir::Op::Ret
        ]
    );
    assert_eq!(m.insts[0].dst().len(), 2);
    assert_eq!(m.insts[0].dst()[1].mask, 0b0010);
    assert_eq!(m.insts[1].payload, ir::Payload::TexelOffsets([1, -2, 0]));
    assert_eq!(m.insts[2].src().len(), 6);
}

#[test]
fn nops_and_comments_are_dropped() {
    let m = translate(
        "cs_5_0\ndcl_thread_group 1, 1, 1\nnop\ncustomdata class=0 { 0x00000001 }\nret\n",
    )
    .expect("translates");
    assert_eq!(m.insts.len(), 1);
    assert_eq!(m.insts[0].op, ir::Op::Ret);
}

/// Mutated corpus compute shaders go through lowering, the passes, validation and the whole
/// translation without panicking (the seeded smoke run of the `translate` fuzz target).
#[test]
fn mutated_compute_shaders_never_panic() {
    use crate::fuzzing::{mutate, Rng};
    let options = ParseOptions {
        verify_checksum: false,
    };
    let mut rng = Rng::new(0x10e3);
    let mut runs = 0;
    for path in test_support::corpus_blobs().iter().step_by(7) {
        let Ok(original) = std::fs::read(path) else {
            continue;
        };
        let is_compute = Container::parse(&original, &options)
            .ok()
            .and_then(|c| shader_program(&c).ok())
            .is_some_and(|p| p.version.stage == crate::front::dxbc::Stage::Compute);
        if !is_compute {
            continue;
        }
        for _ in 0..16 {
            let mut bytes = original.clone();
            mutate(&mut rng, &mut bytes);
            let Ok(container) = Container::parse(&bytes, &options) else {
                continue;
            };
            let Ok(program) = shader_program(&container) else {
                continue;
            };
            runs += 1;
            crate::fuzzing::translate(&bytes);
            if let Ok(mut module) = crate::front::dxbc::lower::lower(&program) {
                if crate::passes::run(
                    &mut module,
                    &Bindings::default(),
                    &Default::default(),
                    ir::HullSchedule::Serial,
                    &Default::default(),
                )
                .is_ok()
                {
                    let _ = ir::validate(&module);
                }
            }
        }
    }
    println!("{runs} mutated compute shaders lowered and translated without a panic");
}

const HULL: &str = "hs_5_0\nhs_decls\n\
    dcl_input_control_point_count 3\ndcl_output_control_point_count 4\n\
    dcl_tessellator_domain domain_tri\ndcl_tessellator_partitioning partitioning_integer\n\
    dcl_tessellator_output_primitive output_triangle_cw\ndcl_hs_max_tessfactor l(16.000000)\n\
    hs_control_point_phase\ndcl_input vOutputControlPointID\ndcl_input v[3][0].xyzw\n\
    dcl_output o0.xyzw\ndcl_temps 1\nmov r0.x, vOutputControlPointID\n\
    mov o0.xyzw, v[r0.x + 0][0].xyzw\nret\n\
    hs_fork_phase\ndcl_hs_fork_phase_instance_count 3\ndcl_input vForkInstanceID\n\
    dcl_input vocp[4][0].xyzw\n\
    dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor\ndcl_output_siv o1.x, finalTriVeq0EdgeTessFactor\n\
    dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor\ndcl_temps 2\ndcl_indexrange o0.x 3\n\
    dcl_indexableTemp x0[2], 4\n\
    mov r0.x, vForkInstanceID.x\nmov r1.x, vocp[r0.x + 1][0].x\nmov o[r0.x + 0].x, r1.x\nret\n\
    hs_join_phase\ndcl_input vpc0.x\ndcl_output_siv o3.x, finalTriInsideTessFactor\n\
    dcl_indexableTemp x0[5], 4\nmov o3.x, vpc0.x\nret\n";

/// Each phase is a function of its own with its kind and instance count; `o#` of fork and join
/// phases are patch constants, `vocp`/`vpc`/the instance ids resolve to their registers, and
/// `x#` and temps are per phase.
#[test]
fn hull_phases_become_functions_with_their_registers() {
    let m = match translate(HULL) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(m.stage, ir::Stage::Hull);
    let kinds: Vec<_> = m
        .hull_phases
        .iter()
        .map(|p| (p.kind, p.function.get(), p.instances))
        .collect();
    assert_eq!(
        kinds,
        [
            (ir::PhaseKind::ControlPoint, 0, 1),
            (ir::PhaseKind::Fork, 1, 3),
            (ir::PhaseKind::Join, 2, 1)
        ]
    );
    assert_eq!(m.functions.len(), 3);
    assert!(m.functions.iter().all(|f| f.label.is_none()));
    let t = m.tessellation;
    assert_eq!(t.domain, Some(ir::TessDomain::Triangle));
    assert_eq!(t.partitioning, Some(ir::TessPartitioning::Integer));
    assert_eq!(
        t.output_primitive,
        Some(ir::TessOutputPrimitive::TriangleCw)
    );
    assert_eq!((t.input_control_points, t.output_control_points), (3, 4));
    assert_eq!(t.max_tess_factor, Some(16.0));
    // The temps file is the largest phase's; each phase numbers its own x#.
    assert_eq!(m.temps, 2);
    assert_eq!(m.indexable_temps.len(), 2);
    // Control-point outputs and patch constants are separate tables.
    assert_eq!(m.outputs.len(), 1);
    let pcs: Vec<_> = m
        .patch_constants
        .iter()
        .map(|d| (d.register, d.system_value.number()))
        .collect();
    assert_eq!(pcs, [(0, 17), (1, 18), (2, 19), (0, 0), (3, 20)]);
    let text = ir::print(&m);
    for needle in [
        "vOutputControlPointID",
        "v[r0.x + 0][0]",
        "vForkInstanceID",
        "vocp[r0.x + 1][0]",
        "mov vpc[r0.x + 0].x",
        "mov vpc[3].x, vpc[0].xxxx",
        "function #1 hs_fork_phase x3",
    ] {
        assert!(text.contains(needle), "{needle} missing from\n{text}");
    }
}

/// Without a control-point phase the output signature's registers are declared on both sides
/// (the back end copies them through); misplaced or malformed declarations are invalid.
#[test]
fn hull_declarations_are_checked() {
    let head = "hs_5_0\nhs_decls\ndcl_input_control_point_count 3\n\
        dcl_output_control_point_count 3\ndcl_tessellator_domain domain_quad\n\
        dcl_tessellator_partitioning partitioning_pow2\n\
        dcl_tessellator_output_primitive output_point\n";
    let m = translate(&format!(
        "{head}hs_fork_phase\ndcl_output_siv o0.x, finalQuadUeq0EdgeTessFactor\n\
         mov o0.x, l(1.0)\nret\n"
    ))
    .expect("translates");
    assert_eq!(m.hull_phases.len(), 1);
    assert_eq!(m.hull_phases[0].kind, ir::PhaseKind::Fork);
    assert_invalid_at(
        &format!("{head}hs_join_phase\nret\nhs_fork_phase\nret\n"),
        8,
        "fork phase after a join phase",
    );
    assert_invalid_at(
        "hs_5_0\nhs_decls\ndcl_input_control_point_count 33\nret\n",
        1,
        "33 control points exceeds the limit 32",
    );
    assert_invalid_at(
        &format!("{head}hs_fork_phase\ndcl_hs_fork_phase_instance_count 0\nret\n"),
        7,
        "0 phase instances is not in 1..=128",
    );
    assert_invalid_at(
        &format!("{head}dcl_hs_max_tessfactor l(65.0)\nhs_fork_phase\nret\n"),
        6,
        "max_tessfactor",
    );
    assert_invalid_at(
        "cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_tessellator_domain domain_quad\nret\n",
        1,
        "in a cs shader",
    );
    // A domain shader reads vDomain, vicp and vpc.
    let m = translate(
        "ds_5_0\ndcl_input_control_point_count 0\ndcl_tessellator_domain domain_isoline\n\
         dcl_input vDomain.xy\ndcl_input_siv vpc0.x, finalLineDensityTessFactor\n\
         dcl_output o0.xyzw\nmov o0.xy, vDomain.xyxx\nmov o0.z, vpc0.x\nmov o0.w, vPrim\nret\n",
    )
    .expect("domain shader translates");
    assert_eq!(m.patch_constants.len(), 1);
    assert_eq!(
        m.patch_constants[0].system_value,
        ir::SystemValue::LineDensityTessFactor
    );
    assert!(ir::print(&m).contains("vDomain"));
}
