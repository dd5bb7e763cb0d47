//! The SM2/3 lowering against D3D9's documented rules: control flow, predicates, relative
//! addressing, I/O, textures and the arithmetic macros. Each test assembles a small program,
//! lowers it and checks the IR (printed, offsets stripped) for what the rule requires.

use crate::error::{Error, ErrorKind};
use crate::front::d3d9::decode;
use crate::ir;

/// `text` assembled, decoded and lowered.
fn lower(text: &str) -> Result<ir::Module, Error> {
    let bytes = crate::text::d3d9::asm::assemble_bytes(text).expect("assembles");
    let program = decode(&bytes, 0).expect("decodes");
    super::lower(&program, Vec::new()).map(|(m, _)| m)
}

/// The printed IR of `text`'s lowering, one trimmed line per instruction, offsets stripped.
fn ir_lines(text: &str) -> Vec<String> {
    let module = lower(text).unwrap_or_else(|e| panic!("lowers: {e}\n{text}"));
    printed_lines(&module)
}

/// The printed IR of `module`, one trimmed line each, offsets stripped.
pub(super) fn printed_lines(module: &ir::Module) -> Vec<String> {
    ir::print(module)
        .lines()
        .map(|l| match l.split_once(':') {
            Some((at, rest)) if at.chars().all(|c| c.is_ascii_hexdigit()) => rest.trim(),
            _ => l.trim(),
        })
        .map(str::to_owned)
        .collect()
}

/// Asserts that `lines` hold `expected` in this order (other lines between them allowed).
/// `ZERO` and `NULL` stand for the immediates (0, 0, 0, 0) and (0, 0, 0, 1).
#[track_caller]
pub(super) fn assert_sequence(lines: &[String], expected: &[&str]) {
    let mut at = 0;
    for want in expected {
        let want = want
            .replace("ZERO", "l(0x00000000, 0x00000000, 0x00000000, 0x00000000)")
            .replace("NULL", "l(0x00000000, 0x00000000, 0x00000000, 0x3f800000)");
        match lines[at..].iter().position(|l| *l == want) {
            Some(p) => at += p + 1,
            None => panic!("`{want}` not found (in order) in:\n{}", lines.join("\n")),
        }
    }
}

/// Whether some line starts with `prefix`.
pub(super) fn has(lines: &[String], prefix: &str) -> bool {
    lines.iter().any(|l| l.starts_with(prefix))
}

#[test]
fn ret_inside_main_flow_control_returns_through_the_epilogue() {
    // vs_2_0: the colour clamp (epilogue) must run after an early `ret`.
    let lines = ir_lines(
        "vs_2_0\ndcl_position v0\ndefb b0, true\nmov oPos, v0\nif b0\nmov oD0, v0\nret\nendif\n\
         mov oD0, c0\n",
    );
    assert_sequence(
        &lines,
        &[
            "function #0 main",
            "call function #1",
            "mov_sat o[8].xyzw, o[8].xyzw",
            "ret",
            "function #1 label l65536",
            "if_nz r0.xxxx",
            "ret",
            "endif",
            "ret",
        ],
    );
}

#[test]
fn main_without_early_return_is_the_entry_point() {
    let lines = ir_lines("ps_2_0\ndef c0, 1, 0, 0, 1\nmov oC0, c0\n");
    assert!(!has(&lines, "call"), "{lines:?}");
    assert!(!has(&lines, "function #1"), "{lines:?}");
}

#[test]
fn predicated_write_selects_per_component_with_the_predicate_swizzle() {
    // (p0.yxzw) mov: component c of the destination takes the new value where p0.swizzle[c].
    let lines = ir_lines(
        "vs_3_0\ndcl_position o0\ndcl_texcoord0 o1\ndef c0, 1, 2, 3, 4\nsetp_gt p0, c0, c0.y\n\
         (p0.yxzw) mov o1, c0\n(!p0.x) mov o0.xy, c0\n",
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("movc o[1].xyzw, r0.yxzw,") && l.ends_with(", o[1].xyzw")),
        "{lines:?}"
    );
    // `!p0`: the old value where p0 is set.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("movc o[0].xy, r0.xxxx, o[0].xyzw,")),
        "{lines:?}"
    );
}

#[test]
fn predicated_saturate_clamps_only_the_new_value() {
    let lines = ir_lines(
        "ps_3_0\ndef c0, 2, -1, 0, 1\nsetp_gt p0, c0, c0.z\n(p0) mov_sat r0, c0\nmov oC0, r0\n",
    );
    assert!(has(&lines, "mov_sat r"), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("movc r0.xyzw,")),
        "{lines:?}"
    );
}

#[test]
fn if_breakp_and_callnz_test_the_predicate_and_its_negation() {
    let lines = ir_lines(
        "ps_3_0\ndef c0, 1, 0, 0, 1\ndefi i0, 3, 0, 1, 0\nsetp_ge p0, c0, c0.y\nif !p0.y\n\
         mov r0, c0\nendif\nrep i0\nbreakp p0.z\nendrep\ncallnz l1, !p0.x\nmov oC0, r0\nret\n\
         label l1\nmov r0, c0.y\nret\n",
    );
    assert!(has(&lines, "if_z r"), "{lines:?}");
    assert!(has(&lines, "breakc_nz r"), "{lines:?}");
    assert!(has(&lines, "callc_z r"), "{lines:?}");
}

#[test]
fn loop_counts_with_its_own_counter_so_step_zero_ends() {
    // loop aL, i0 with i0 = (count 3, start 5, step 0): aL stays 5, the loop ends after 3.
    let lines = ir_lines(
        "vs_3_0\ndcl_position o0\ndefi i0, 3, 5, 0, 0\nmov r0, c0.x\nloop aL, i0\n\
         add r0, r0, c[aL]\nendloop\nmov o0, r0\n",
    );
    assert_sequence(
        &lines,
        &[
            "loop",
            "ige r4.x, l(0x00000000, 0x00000000, 0x00000000, 0x00000000), r2.xxxx",
            "breakc_nz r4.xxxx",
            "iadd r2.x, r2.xxxx, l(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff)",
            "endloop",
        ],
    );
    // The counter starts at i0.x, aL at i0.y, and aL moves by i0.z.
    assert!(has(&lines, "mov r2.x, l(0x00000003"), "{lines:?}");
    assert!(
        has(&lines, "mov r1.x, l(0x00000005, 0x00000005"),
        "{lines:?}"
    );
    assert!(
        has(&lines, "iadd r1.x, r1.xxxx, l(0x00000000, 0x00000000"),
        "{lines:?}"
    );
}

#[test]
fn nested_loops_keep_their_own_counter_and_restore_the_outer_al() {
    let lines = ir_lines(
        "vs_3_0\ndcl_position o0\ndefi i0, 2, 0, 1, 0\ndefi i1, 4, 10, -1, 0\nmov r0, c0.x\n\
         loop aL, i0\nloop aL, i1\nadd r0, r0, c[aL]\nendloop\nadd r0, r0, c[aL]\nendloop\n\
         mov o0, r0\n",
    );
    // Each loop has its own counter (r2 outer, r4 inner); the inner saves the outer aL (r1)
    // in r5 and restores it after its endloop; aL steps by each loop's own i#.z.
    assert_sequence(
        &lines,
        &[
            "mov r2.x, l(0x00000002, 0x00000002, 0x00000002, 0x00000002)",
            "mov r1.x, l(0x00000000, 0x00000000, 0x00000000, 0x00000000)",
            "loop",
            "mov r4.x, l(0x00000004, 0x00000004, 0x00000004, 0x00000004)",
            "mov r5.x, r1.xxxx",
            "mov r1.x, l(0x0000000a, 0x0000000a, 0x0000000a, 0x0000000a)",
            "loop",
            "iadd r4.x, r4.xxxx, l(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff)",
            "iadd r1.x, r1.xxxx, l(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff)",
            "endloop",
            "mov r1.x, r5.xyzw",
            "add r0.xyzw, r0.xyzw, cb#0[r1.x + 0].xyzw",
            "iadd r2.x, r2.xxxx, l(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff)",
            "iadd r1.x, r1.xxxx, l(0x00000001, 0x00000001, 0x00000001, 0x00000001)",
            "endloop",
        ],
    );
}

#[test]
fn rep_runs_the_count_without_al() {
    let lines = ir_lines(
        "ps_2_x\ndefi i0, 4, 0, 0, 0\ndef c0, 0, 0, 0, 0\nmov r0, c0\nrep i0\nadd r0, r0, c1\n\
         endrep\nmov oC0, r0\n",
    );
    assert_sequence(&lines, &["loop", "breakc_nz r4.xxxx", "endloop"]);
    assert!(
        !has(&lines, "iadd r1.x, r1.xxxx, l(0x00000000, 0x00000000"),
        "{lines:?}"
    );
}

#[test]
fn vs_1_1_mov_a0_floors_and_mova_rounds_to_nearest() {
    let floor = ir_lines("vs_1_1\ndcl_position v0\nmov a0.x, v0.x\nmov oPos, c[a0.x + 2]\n");
    assert!(has(&floor, "round_ni r"), "{floor:?}");
    assert!(has(&floor, "ftoi r"), "{floor:?}");
    let nearest = ir_lines("vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nmov oPos, c[a0.x + 2]\n");
    assert!(has(&nearest, "round_ne r"), "{nearest:?}");
}

#[test]
fn relative_constant_reads_the_buffer_and_direct_reads_the_def() {
    let lines = ir_lines(
        "vs_2_0\ndcl_position v0\ndef c2, 1, 2, 3, 4\nmova a0.x, v0.x\nmov r0, c2\n\
         add oPos, r0, c[a0.x + 2]\n",
    );
    assert!(
        has(&lines, "mov r0.xyzw, l(0x3f800000, 0x40000000"),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("cb#0[r1.x + 2]")),
        "{lines:?}"
    );
}

#[test]
fn sm3_relative_inputs_and_outputs_index_by_al() {
    let ps = ir_lines(
        "ps_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndefi i0, 2, 0, 1, 0\ndef c0, 0, 0, 0, 0\n\
         mov r0, c0\nloop aL, i0\nadd r0, r0, v[aL]\nendloop\nmov oC0, r0\n",
    );
    assert!(ps.iter().any(|l| l.contains("v[r1.x + 0]")), "{ps:?}");
    let vs = ir_lines(
        "vs_3_0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\ndefi i0, 2, 1, 1, 0\n\
         mov o0, c0\nloop aL, i0\nmov o[aL], c1\nendloop\n",
    );
    assert!(
        vs.iter()
            .any(|l| l.contains("mov o[r0.x + 0].xyzw, cb#0[1].xyzw")),
        "{vs:?}"
    );
}

#[test]
fn texture_sampling_variants() {
    let lines = ir_lines(
        "ps_3_0\ndcl_texcoord0 v0\ndcl_cube s0\ndcl_volume s1\ndcl_2d s2\ntexldp r0, v0, s0\n\
         texldb r1, v0, s1\ntexldl r2, v0, s2.yxzw\ntexldd r3, v0, s2, v0, v0\ndsx r4, v0\n\
         dsy r5, v0\nadd r0, r0, r1\nadd r0, r0, r2\nadd r0, r0, r3\nadd r0, r0, r4\n\
         add oC0, r0, r5\n",
    );
    // texldp divides by w before sampling, even for a cube map.
    assert_sequence(&lines, &["div r6.xyzw, v[0].xyzw, v[0].wwww"]);
    assert!(
        has(&lines, "sample r0.xyzw, r6.xyzw, t#0.xyzw, s#0"),
        "{lines:?}"
    );
    assert!(
        has(
            &lines,
            "sample_b r1.xyzw, v[0].xyzw, t#1.xyzw, s#1.xyzw, v[0].wwww"
        ),
        "{lines:?}"
    );
    // texldl: LOD from w; SM3 applies the sampler's swizzle to the result.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("sample_l r2.xyzw, v[0].xyzw, t#2.yxzw")
                && l.ends_with("v[0].wwww")),
        "{lines:?}"
    );
    assert!(
        has(&lines, "sample_d r3.xyzw, v[0].xyzw, t#2.xyzw"),
        "{lines:?}"
    );
    assert!(has(&lines, "deriv_rtx r4.xyzw, v[0].xyzw"), "{lines:?}");
    assert!(has(&lines, "deriv_rty r5.xyzw, v[0].xyzw"), "{lines:?}");
}

#[test]
fn vertex_texture_fetch_samples_lod_from_w() {
    let lines = ir_lines(
        "vs_3_0\ndcl_position o0\ndcl_texcoord0 v0\ndcl_2d s3\ntexldl r0, v0, s3\nmov o0, r0\n",
    );
    assert!(has(&lines, "resource #0 t3 space0"), "{lines:?}");
    assert!(
        has(
            &lines,
            "sample_l r0.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw, v[0].wwww"
        ),
        "{lines:?}"
    );
}

#[test]
fn odepth_writes_are_clamped_to_0_1() {
    let lines = ir_lines("ps_2_0\ndcl t0\nmov oDepth, t0.x\nmov oC0, t0\n");
    assert!(has(&lines, "mov_sat oDepth"), "{lines:?}");
}

#[test]
fn vpos_is_the_pixel_centre_minus_half_and_vface_is_plus_minus_one() {
    let lines = ir_lines("ps_3_0\ndcl vPos.xy\ndcl vFace\nadd r0, vPos.xyxy, vFace\nmov oC0, r0\n");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("add r") && l.contains("l(0xbf000000, 0xbf000000, 0x00000000")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("movc r")
            && l.contains("l(0x3f800000")
            && l.contains("0xbf800000")),
        "{lines:?}"
    );
}

#[test]
fn scalar_sources_take_the_first_swizzle_component() {
    // D3D9's rcp/rsq/exp/log/pow read one component: a replicate swizzle names it; with no
    // swizzle the documented default is x.
    let lines = ir_lines("vs_2_0\ndcl_position v0\nrcp r0, v0\nrsq r1, v0.z\nadd oPos, r0, r1\n");
    assert!(has(&lines, "rcp_legacy r0.xyzw, v[0].xxxx"), "{lines:?}");
    assert!(has(&lines, "rsq_legacy r1.xyzw, v[0].zzzz"), "{lines:?}");
}

#[test]
fn sincos_writes_cos_to_x_sin_to_y_only() {
    let sm2 = ir_lines(
        "ps_2_0\ndef c0, 1, 0, 0, 0\ndef c1, 1, 1, 1, 1\ndef c2, 2, 2, 2, 2\nmov r0, c0\n\
         sincos r0.xy, c0.x, c1, c2\nmov oC0, r0\n",
    );
    assert!(has(&sm2, "sincos r1.y, r1.x, l(0x3f800000"), "{sm2:?}");
    assert!(has(&sm2, "mov r0.xy, r1.xyzw"), "{sm2:?}");
    let sm3 = ir_lines("vs_3_0\ndcl_position o0\nmov r0, c0\nsincos r0.y, c1.w\nmov o0, r0\n");
    assert!(has(&sm3, "sincos r1.y, null, cb#0[1].wwww"), "{sm3:?}");
    assert!(has(&sm3, "mov r0.y, r1.xyzw"), "{sm3:?}");
}

#[test]
fn crs_writes_xyz_only() {
    let lines = ir_lines("vs_2_0\ndcl_position v0\nmov r0, c0\ncrs r0.xyz, v0, c1\nmov oPos, r0\n");
    assert!(has(&lines, "mov r0.xyz, r1.xyzw"), "{lines:?}");
}

#[test]
fn matrix_macros_read_consecutive_rows_relative_too() {
    let lines = ir_lines(
        "vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nm3x2 r0.xy, v0, c[a0.x + 4]\nmov oPos, r0\n",
    );
    assert!(
        lines.iter().any(|l| l.contains("cb#0[r1.x + 4]")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("cb#0[r1.x + 5]")),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("cb#0[r1.x + 6]")),
        "{lines:?}"
    );
    assert!(has(&lines, "mov r0.xy, r2.xyzw"), "{lines:?}");
}

#[test]
fn call_to_an_undefined_label_is_invalid() {
    let e =
        lower("vs_2_0\ndcl_position v0\nmov oPos, v0\ncall l2047\n").expect_err("no label l2047");
    assert_eq!(e.kind(), ErrorKind::Invalid, "{e}");
}

#[test]
fn texldd_with_a_temp_as_sampler_is_invalid() {
    let e = lower("ps_3_0\ndcl_texcoord0 v0\ntexldd r0, v0, r2, v0, v0\nmov oC0, r0\n")
        .expect_err("r2 is no sampler");
    assert_eq!(e.kind(), ErrorKind::Invalid, "{e}");
}

#[test]
fn predicated_texkill_tests_only_the_predicated_components() {
    let lines = ir_lines(
        "ps_3_0\ndcl vPos.xy\ndef c0, 0, 2, 0, 0\ndef c1, -1, -1, -1, -1\nmov r1, c1\n\
         setp_ge p0.x, vPos.x, c0.y\n(p0.x) texkill r1\n(!p0.y) texkill r1.x\nmov oC0, c0\n",
    );
    assert_sequence(
        &lines,
        &[
            "lt r4.xyzw, r1.xyzw, l(0x00000000, 0x00000000, 0x00000000, 0x00000000)",
            "and r4.xyzw, r4.xyzw, r2.xxxx",
            "or r4.x, r4.xxxx, r4.wwww",
            "discard_nz r4.xxxx",
            "lt r4.x, r1.xyzw, l(0x00000000, 0x00000000, 0x00000000, 0x00000000)",
            "not r5.x, r2.yyyy",
            "and r4.x, r4.xyzw, r5.xyzw",
            "discard_nz r4.xxxx",
        ],
    );
}

#[test]
fn sm2_pixel_colour_inputs_read_the_colour_registers() {
    // Before ps_3_0, `v#` is COLOR#: the input declared for it is the one read.
    let m = lower("ps_2_0\ndcl v1\nmov oC0, v1\n").expect("lowers");
    let read = ir::print(&m);
    assert!(read.contains("mov o[0].xyzw, v[9].xyzw"), "{read}");
    assert!(m.inputs.iter().any(|d| d.register == 9), "{:?}", m.inputs);
    assert_eq!(m.input_locations, [(9, 17)]);
}
