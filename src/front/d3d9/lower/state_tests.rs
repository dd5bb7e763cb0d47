//! The pipeline state the Direct3D 9 lowering reads (`Options::d3d9_state`), checked against
//! D3D9's rules: each test lowers a small program with one field set and checks the IR
//! (printed, offsets stripped) for what the rule requires, for immediates and for
//! specialization-constant and push-constant values.

use crate::d3d9_state::{D3d9State, StateValue, TextureType};
use crate::error::Error;
use crate::ir;

use super::sm3_tests::{assert_sequence, has, printed_lines};

/// `text` assembled, decoded and lowered with `state`.
fn lower(text: &str, state: &D3d9State) -> Result<ir::Module, Error> {
    let bytes = crate::text::d3d9::asm::assemble_bytes(text).expect("assembles");
    let program = crate::front::d3d9::decode(&bytes, 0).expect("decodes");
    super::lower_with_state(&program, state, Vec::new()).map(|(m, _)| m)
}

/// The printed IR of `text` lowered with `state`, one trimmed line each, offsets stripped.
fn lines(text: &str, state: &D3d9State) -> Vec<String> {
    let module = lower(text, state).unwrap_or_else(|e| panic!("lowers: {e}\n{text}"));
    printed_lines(&module)
}

fn state(f: impl FnOnce(&mut D3d9State)) -> D3d9State {
    let mut s = D3d9State::default();
    f(&mut s);
    s
}

const SWVP_VS: &str = "vs_2_0\ndcl_position v0\nmov r0, c0\nadd r0, r0, i0.x\n\
                       if b0\nmov r0, c1\nendif\nmov oPos, r0\n";

#[test]
fn software_vertex_processing_gives_the_software_constant_sets() {
    // Hardware: 256 float, 16 int, 16 bool (one 128-bit vector) constants.
    let hw = lines(SWVP_VS, &D3d9State::default());
    assert_sequence(
        &hw,
        &[
            "cbuffer #0 cb0 b0 space0 count 1 size 256 dynamic",
            "cbuffer #1 cb1 b1 space0 count 1 size 16 dynamic",
            "cbuffer #2 cb2 b2 space0 count 1 size 1 dynamic",
        ],
    );
    // Software vertex processing: 8192 float, 2048 int, 2048 bool (16 vectors).
    let sw = lines(SWVP_VS, &state(|s| s.software_vertex_processing = true));
    assert_sequence(
        &sw,
        &[
            "cbuffer #0 cb0 b0 space0 count 1 size 8192 dynamic",
            "cbuffer #1 cb1 b1 space0 count 1 size 2048 dynamic",
            "cbuffer #2 cb2 b2 space0 count 1 size 16 dynamic",
        ],
    );
    // Pixel shaders have no software constant sets.
    let ps = "ps_2_0\nmov oC0, c0\n";
    let p = lines(ps, &state(|s| s.software_vertex_processing = true));
    assert_sequence(&p, &["cbuffer #0 cb0 b0 space0 count 1 size 32 dynamic"]);
}

#[test]
fn swvp_reads_high_int_constants_in_the_buffer() {
    // i20 is ivec4 20 of b1 (declared first here: cb#0), which has 2048 of them.
    let text = "vs_2_0\ndcl_position v0\nloop aL, i20\nadd r0, v0, c[aL]\nendloop\nmov oPos, r0\n";
    let l = lines(text, &state(|s| s.software_vertex_processing = true));
    assert_sequence(
        &l,
        &[
            "cbuffer #0 cb1 b1 space0 count 1 size 2048 dynamic",
            "mov r2.x, cb#0[20].xxxx",
        ],
    );
}

const TEXBEM: &str = "ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n";

#[test]
fn texbem_reads_its_stage_bump_matrix_from_each_source() {
    // texbem t1, t0: u' = u + M00·du + M10·dv, v' = v + M01·du + M11·dv with stage 1's matrix.
    let imm = state(|s| s.bump_env[1].matrix = StateValue::Immediate([1.0, 0.5, 0.25, 2.0]));
    let matrix = "l(0x3f800000, 0x3f000000, 0x3e800000, 0x40000000)";
    assert_sequence(
        &lines(TEXBEM, &imm),
        &[
            &format!("mad_legacy r9.xy, r1.xxxx, {matrix}, r9.xyzw"),
            "mad_legacy r9.xy, r1.yyyy, l(0x3e800000, 0x40000000, 0x3e800000, 0x40000000), r9.xyzw",
        ],
    );
    // Stage 0's matrix is not texbem t1's.
    let other = state(|s| s.bump_env[0].matrix = StateValue::Immediate([1.0; 4]));
    assert_sequence(
        &lines(TEXBEM, &other),
        &["mad_legacy r9.xy, r1.xxxx, ZERO, r9.xyzw"],
    );
    let spec = state(|s| {
        s.bump_env[1].matrix = StateValue::Spec {
            id: 7,
            default: [0.0; 4],
        }
    });
    let l = lines(TEXBEM, &spec);
    assert_sequence(
        &l,
        &[
            "parameter #0 bump_env_matrix1 Floatx4 spec id 7",
            "mad_legacy r9.xy, r1.xxxx, param#0.xyzw, r9.xyzw",
            "mad_legacy r9.xy, r1.yyyy, param#0.zwzw, r9.xyzw",
        ],
    );
    let push = state(|s| s.bump_env[1].matrix = StateValue::Push { offset: 16 });
    assert_sequence(
        &lines(TEXBEM, &push),
        &[
            "parameter #0 bump_env_matrix1 Floatx4 push offset 16",
            "mad_legacy r9.xy, r1.xxxx, param#0.xyzw, r9.xyzw",
        ],
    );
}

#[test]
fn texbeml_and_bem_read_luminance_and_matrix_parameters() {
    // texbeml: the sample times t(n).b × scale + offset.
    let s = state(|s| {
        s.bump_env[1].luminance_scale = StateValue::Push { offset: 0 };
        s.bump_env[1].luminance_offset = StateValue::Immediate(0.5);
    });
    let l = lines("ps_1_1\ntex t0\ntexbeml t1, t0\nmov r0, t1\n", &s);
    assert_sequence(
        &l,
        &[
            "parameter #0 bump_env_lscale1 Floatx1 push offset 0",
            "mad_legacy r11.xyzw, r1.zzzz, param#0.xxxx, l(0x3f000000, 0x3f000000, 0x3f000000, 0x3f000000)",
        ],
    );
    // ps_1_4 bem r1.xy: stage 1's matrix.
    let s = state(|s| {
        s.bump_env[1].matrix = StateValue::Spec {
            id: 3,
            default: [0.0; 4],
        }
    });
    let l = lines(
        "ps_1_4\ntexcrd r0.xyz, t0\nbem r1.xy, r0, r0\nmov r0, r1\n",
        &s,
    );
    assert_sequence(
        &l,
        &[
            "parameter #0 bump_env_matrix1 Floatx4 spec id 3",
            "mad_legacy r2.xy, r0.xxxx, param#0.xyzw, r0.xyzw",
        ],
    );
}

#[test]
fn projected_stages_divide_by_w_statically_or_by_a_select() {
    let text = "ps_1_1\ntex t0\ntex t1\nadd r0, t0, t1\n";
    // Bit 1: stage 1 divides, stage 0 does not.
    let l = lines(text, &state(|s| s.projected = StateValue::Immediate(0b10)));
    assert_sequence(
        &l,
        &[
            "sample r9.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "div r9.xyzw, v[1].xyzw, v[1].wwww",
            "sample r10.xyzw, r9.xyzw, t#1.xyzw, s#1.xyzw",
        ],
    );
    assert!(!l.iter().any(|l| l.contains("v[0].wwww")));
    // A push constant: the bit selects between the divided and the plain coordinates.
    let l = lines(
        text,
        &state(|s| s.projected = StateValue::Push { offset: 4 }),
    );
    assert_sequence(
        &l,
        &[
            "parameter #0 projected Uintx1 push offset 4",
            "and r9.x, param#0.xyzw, l(0x00000002, 0x00000002, 0x00000002, 0x00000002)",
            "ine r9.x, r9.xxxx, ZERO",
            "div r10.xyzw, v[1].xyzw, v[1].wwww",
            "movc r10.xyzw, r9.xxxx, r10.xyzw, v[1].xyzw",
            "sample r11.xyzw, r10.xyzw, t#1.xyzw, s#1.xyzw",
        ],
    );
    // ps_1_4 has no projected stages (texld divides only with _dw).
    let l = lines(
        "ps_1_4\ntexld r0, t0\n",
        &state(|s| s.projected = StateValue::Immediate(1)),
    );
    assert!(!has(&l, "div"), "{}", l.join("\n"));
}

#[test]
fn sampler_types_give_undeclared_samplers_their_dimension() {
    let text = "ps_1_1\ntex t0\ntex t1\ntex t2\nadd r0, t0, t1\nadd r0, r0, t2\n";
    use TextureType::*;
    let word = TextureType::pack(&[Texture2D, Cube, Volume]);
    let l = lines(
        text,
        &state(|s| s.sampler_types = StateValue::Immediate(word)),
    );
    assert_sequence(
        &l,
        &[
            "resource #0 t0 space0 count 1 typed Texture2D (float,float,float,float)",
            "resource #1 t1 space0 count 1 typed TextureCube (float,float,float,float)",
            "resource #2 t2 space0 count 1 typed Texture3D (float,float,float,float)",
        ],
    );
    // A declared sampler keeps its dcl's type.
    let l = lines(
        "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        &state(|s| s.sampler_types = StateValue::Immediate(1)),
    );
    assert!(has(&l, "resource #0 t0 space0 count 1 typed Texture2D"));
    // Vertex samplers read vertex_sampler_types.
    let vs = "vs_3_0\ndcl_position v0\ndcl_position o0\ntexldl r0, v0, s1\nmov o0, r0\n";
    let l = lines(
        vs,
        &state(|s| s.vertex_sampler_types = StateValue::Immediate(Cube.code() << 2)),
    );
    assert!(has(&l, "resource #0 t1 space0 count 1 typed TextureCube"));
    // Not an immediate: the lowering does not refuse it (see the tests below).
    let spec = state(|s| s.sampler_types = StateValue::Spec { id: 1, default: 0 });
    assert!(lower(text, &spec).is_ok());
}

/// The declarations of sampler `n` whose type is chosen at run time: t`n` once per
/// dimension, the cube and volume ones views of the 2-D one (one binding), one sampler.
fn runtime_declarations(n: u32) -> Vec<String> {
    let typed = "space0 count 1 typed";
    let ret = "(float,float,float,float)";
    vec![
        format!("resource #0 t{n} {typed} Texture2D {ret}"),
        format!("resource #1 t{n} {typed} TextureCube {ret} view of #0"),
        format!("resource #2 t{n} {typed} Texture3D {ret} view of #0"),
        format!("sampler #0 s{n} space0"),
    ]
}

#[test]
fn runtime_sampler_types_select_the_view_by_the_samplers_two_bits() {
    // s2's type is bits 4–5 of the specialization constant: code 1 samples the cube view,
    // code 2 the volume view, 0 (and the reserved 3) the 2-D one.
    let spec = state(|s| s.sampler_types = StateValue::Spec { id: 1, default: 0 });
    let l = lines("ps_2_0\ndcl t0\ntexld r0, t0, s2\nmov oC0, r0\n", &spec);
    let mut expected = runtime_declarations(2);
    expected.extend(
        [
            "parameter #0 sampler_types Uintx1 spec id 1",
            "ushr r2.x, param#0.xyzw, l(0x00000004, 0x00000004, 0x00000004, 0x00000004)",
            "and r2.x, r2.xxxx, l(0x00000003, 0x00000003, 0x00000003, 0x00000003)",
            "ieq r3.x, r2.xxxx, l(0x00000001, 0x00000001, 0x00000001, 0x00000001)",
            "if_nz r3.xxxx",
            "sample r1.xyzw, v[0].xyzw, t#1.xyzw, s#0.xyzw",
            "else",
            "ieq r4.x, r2.xxxx, l(0x00000002, 0x00000002, 0x00000002, 0x00000002)",
            "if_nz r4.xxxx",
            "sample r1.xyzw, v[0].xyzw, t#2.xyzw, s#0.xyzw",
            "else",
            "sample r1.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "endif",
            "endif",
            "mov r0.xyzw, r1.xyzw",
        ]
        .map(String::from),
    );
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_sequence(&l, &expected);
    // A declared sampler keeps its one declaration of the dcl's type.
    let l = lines(
        "ps_2_0\ndcl t0\ndcl_cube s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        &spec,
    );
    assert!(!has(&l, "view of"), "{}", l.join("\n"));
    assert!(!has(&l, "parameter"), "{}", l.join("\n"));
}

#[test]
fn runtime_vertex_sampler_types_combine_with_depth_comparison() {
    // Vertex s1: bits 2–3 of vertex_sampler_types; depth comparison (bit 16 + 1) compares
    // with w for a cube, z for a 2-D texture, and not at all for a volume (no depth formats).
    let push = state(|s| {
        s.vertex_sampler_types = StateValue::Push { offset: 8 };
        s.depth_compare = StateValue::Immediate(1 << 17);
    });
    let vs = "vs_3_0\ndcl_position v0\ndcl_position o0\ntexldl r0, v0, s1\nmov o0, r0\n";
    let l = lines(vs, &push);
    let mut expected = runtime_declarations(1);
    expected.extend(
        [
            "parameter #0 vertex_sampler_types Uintx1 push offset 8",
            "ushr r2.x, param#0.xyzw, l(0x00000002, 0x00000002, 0x00000002, 0x00000002)",
            "if_nz r3.xxxx",
            "sample_c_lz r1.x, v[0].xyzw, t#1.xyzw, s#0.xyzw, v[0].wwww",
            "else",
            "if_nz r4.xxxx",
            "sample_l r1.xyzw, v[0].xyzw, t#2.xyzw, s#0.xyzw, v[0].wwww",
            "else",
            "sample_c_lz r1.x, v[0].xyzw, t#0.xyzw, s#0.xyzw, v[0].zzzz",
        ]
        .map(String::from),
    );
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_sequence(&l, &expected);
}

#[test]
fn runtime_sampler_types_serve_every_ps1_stage_from_one_parameter() {
    // tex t0 (stage 0) and texm3x3tex t3 (stage 3): both read the one push constant, each its
    // own field; a null sampler's select follows the typed samples.
    let push = state(|s| {
        s.sampler_types = StateValue::Push { offset: 0 };
        s.null_samplers = StateValue::Spec { id: 4, default: 0 };
    });
    let text = "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3tex t3, t0\n\
                mov r0, t3\n";
    let l = lines(text, &push);
    let params: Vec<&String> = l.iter().filter(|l| l.starts_with("parameter")).collect();
    assert_eq!(params.len(), 2, "{}", l.join("\n"));
    assert!(has(&l, "parameter #0 null_samplers Uintx1 spec id 4"));
    assert!(has(&l, "parameter #1 sampler_types Uintx1 push offset 0"));
    // Stage 0 then stage 3: t0's three views are #0–#2, t3's #3–#5.
    assert_sequence(
        &l,
        &[
            "resource #0 t0 space0 count 1 typed Texture2D (float,float,float,float)",
            "resource #2 t0 space0 count 1 typed Texture3D (float,float,float,float) view of #0",
            "resource #3 t3 space0 count 1 typed Texture2D (float,float,float,float)",
            "resource #4 t3 space0 count 1 typed TextureCube (float,float,float,float) view of #3",
            "resource #5 t3 space0 count 1 typed Texture3D (float,float,float,float) view of #3",
            "and r9.x, param#0.xyzw, l(0x00000001, 0x00000001, 0x00000001, 0x00000001)",
            "ushr r11.x, param#1.xyzw, ZERO",
            "sample r10.xyzw, v[0].xyzw, t#1.xyzw, s#0.xyzw",
            "endif",
            "movc r10.xyzw, r9.xxxx, NULL, r10.xyzw",
            "and r10.x, param#0.xyzw, l(0x00000008, 0x00000008, 0x00000008, 0x00000008)",
            "ushr r12.x, param#1.xyzw, l(0x00000006, 0x00000006, 0x00000006, 0x00000006)",
            "sample r11.xyzw, r9.xyzw, t#4.xyzw, s#1.xyzw",
            "sample r11.xyzw, r9.xyzw, t#5.xyzw, s#1.xyzw",
            "sample r11.xyzw, r9.xyzw, t#3.xyzw, s#1.xyzw",
            "endif",
            "movc r11.xyzw, r10.xxxx, NULL, r11.xyzw",
        ],
    );
}

#[test]
fn immediate_sampler_types_lower_as_without_state() {
    // Immediate 0 is the default: the same module as no state, one declaration per sampler.
    let text = "ps_1_1\ntex t0\ntex t1\nadd r0, t0, t1\n";
    let immediate = state(|s| s.sampler_types = StateValue::Immediate(0));
    let with = lower(text, &immediate).expect("lowers");
    let without = lower(text, &D3d9State::default()).expect("lowers");
    assert_eq!(with, without);
    assert_eq!(with.resources.len(), 2);
    assert!(with.resources.iter().all(|r| r.view_of.is_none()));
}

#[test]
fn null_samplers_read_0001() {
    let text = "ps_2_0\ndcl t0\ndcl_2d s0\ndcl_2d s1\ntexld r0, t0, s0\ntexld r1, t0, s1\n\
                add r0, r0, r1\nmov oC0, r0\n";
    // Immediate: sampler 1 is not sampled, its reads are (0, 0, 0, 1).
    let l = lines(
        text,
        &state(|s| s.null_samplers = StateValue::Immediate(0b10)),
    );
    assert_sequence(
        &l,
        &[
            "sample r0.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "mov r2.xyzw, NULL",
            "mov r1.xyzw, r2.xyzw",
        ],
    );
    assert!(!l.iter().any(|l| l.contains("t#1")), "{}", l.join("\n"));
    // Specialization constant: the sample, then a select on bit 1.
    let spec = state(|s| s.null_samplers = StateValue::Spec { id: 5, default: 0 });
    let l = lines(text, &spec);
    assert_sequence(
        &l,
        &[
            "parameter #0 null_samplers Uintx1 spec id 5",
            "and r2.x, param#0.xyzw, l(0x00000002, 0x00000002, 0x00000002, 0x00000002)",
            "ine r2.x, r2.xxxx, ZERO",
            "sample r3.xyzw, v[0].xyzw, t#1.xyzw, s#1.xyzw",
            "movc r3.xyzw, r2.xxxx, NULL, r3.xyzw",
            "mov r1.xyzw, r3.xyzw",
        ],
    );
    // Vertex sampler 0 is bit 16.
    let vs = "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_2d s0\ntexldl r0, v0, s0\nmov o0, r0\n";
    let l = lines(
        vs,
        &state(|s| s.null_samplers = StateValue::Immediate(1 << 16)),
    );
    assert!(!has(&l, "sample_l"), "{}", l.join("\n"));
    let l = lines(vs, &state(|s| s.null_samplers = StateValue::Immediate(1)));
    assert!(has(&l, "sample_l"), "{}", l.join("\n"));
}

#[test]
fn depth_compare_samplers_compare_z_and_replicate() {
    // texldp: the reference is z / w; the result is replicated to xyzw.
    let text = "ps_2_0\ndcl t0\ndcl_2d s0\ntexldp r0, t0, s0\nmov oC0, r0\n";
    let l = lines(text, &state(|s| s.depth_compare = StateValue::Immediate(1)));
    assert_sequence(
        &l,
        &[
            "div r1.xyzw, v[0].xyzw, v[0].wwww",
            "sample_c r2.x, r1.xyzw, t#0.xyzw, s#0.xyzw, r1.zzzz",
            "mov r2.xyzw, r2.xxxx",
            "mov r0.xyzw, r2.xyzw",
        ],
    );
    // ps_1_1 tex on a projected depth stage: the same after the stage's divide.
    let l = lines(
        "ps_1_1\ntex t0\nmov r0, t0\n",
        &state(|s| {
            s.depth_compare = StateValue::Immediate(1);
            s.projected = StateValue::Immediate(1);
        }),
    );
    assert_sequence(
        &l,
        &[
            "div r9.xyzw, v[0].xyzw, v[0].wwww",
            "sample_c r10.x, r9.xyzw, t#0.xyzw, s#0.xyzw, r9.zzzz",
        ],
    );
    // A push constant: an `if` on the bit between the comparison and the plain sample.
    let l = lines(
        text,
        &state(|s| s.depth_compare = StateValue::Push { offset: 0 }),
    );
    assert_sequence(
        &l,
        &[
            "parameter #0 depth_compare Uintx1 push offset 0",
            "and r1.x, param#0.xyzw, l(0x00000001, 0x00000001, 0x00000001, 0x00000001)",
            "ine r1.x, r1.xxxx, ZERO",
            "div r2.xyzw, v[0].xyzw, v[0].wwww",
            "if_nz r1.xxxx",
            "sample_c r3.x, r2.xyzw, t#0.xyzw, s#0.xyzw, r2.zzzz",
            "mov r3.xyzw, r3.xxxx",
            "else",
            "sample r3.xyzw, r2.xyzw, t#0.xyzw, s#0.xyzw",
            "endif",
            "mov r0.xyzw, r3.xyzw",
        ],
    );
    // A cube compares w; a volume never compares.
    let l = lines(
        "ps_2_0\ndcl t0\ndcl_cube s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        &state(|s| s.depth_compare = StateValue::Immediate(1)),
    );
    assert_sequence(
        &l,
        &["sample_c r1.x, v[0].xyzw, t#0.xyzw, s#0.xyzw, v[0].wwww"],
    );
    let l = lines(
        "ps_2_0\ndcl t0\ndcl_volume s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        &state(|s| s.depth_compare = StateValue::Immediate(1)),
    );
    assert!(!has(&l, "sample_c"), "{}", l.join("\n"));
}

#[test]
fn fetch4_gathers_the_footprint_in_d3d9_order() {
    let text = "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";
    let l = lines(text, &state(|s| s.fetch4 = StateValue::Immediate(1)));
    assert_sequence(
        &l,
        &[
            // Half a texel right and down: 0.5 / size.
            "resinfo r2.xy, ZERO, t#0.xyzw",
            "mov r3.xyzw, v[0].xyzw",
            "mad r3.xy, r2.xyzw, l(0x3f000000, 0x3f000000, 0x3f000000, 0x3f000000), r3.xyzw",
            "gather4 r4.xyzw, r3.xyzw, t#0.xyzw, s#0.xxxx",
            "mov r1.xyzw, r4.zxyw",
        ],
    );
    // A specialization constant: an `if` on the bit between the gather and the sample.
    let l = lines(
        text,
        &state(|s| s.fetch4 = StateValue::Spec { id: 2, default: 0 }),
    );
    assert_sequence(
        &l,
        &[
            "parameter #0 fetch4 Uintx1 spec id 2",
            "if_nz r1.xxxx",
            "gather4 r5.xyzw, r4.xyzw, t#0.xyzw, s#0.xxxx",
            "mov r2.xyzw, r5.zxyw",
            "else",
            "sample r2.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "endif",
        ],
    );
    // A cube sampler ignores Fetch4.
    let l = lines(
        "ps_2_0\ndcl t0\ndcl_cube s0\ntexld r0, t0, s0\nmov oC0, r0\n",
        &state(|s| s.fetch4 = StateValue::Immediate(1)),
    );
    assert!(!has(&l, "gather4"));
}
