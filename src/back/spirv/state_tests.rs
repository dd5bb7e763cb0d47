//! Pipeline-state key tests: fxc-syntax shaders translated under each key of
//! [`PipelineState`], validated with `spirv-val` for the oldest and newest targets, and
//! inspected for what the key changes (expected from the D3D and Vulkan rules, not from our
//! output).

use crate::spv::tests::tools;
use crate::{
    translate, ErrorKind, OptionFlags, Options, PipelineState, SpecValue, Target, TargetComponent,
};

/// Translates `text` under `state` for Vulkan 1.0 and 1.3 (names on), validating both;
/// returns the 1.3 disassembly.
fn translated(text: &str, state: PipelineState) -> String {
    let bytes = crate::test_support::assemble(text);
    let mut out = String::new();
    for target in [Target::Vulkan1_0, Target::Vulkan1_3] {
        let options = Options::default()
            .with_target(target)
            .with_flag(OptionFlags::DEBUG_NAMES, true)
            .with_pipeline_state(state);
        let t = translate(&bytes, &options).unwrap_or_else(|e| panic!("{e}\n{text}"));
        tools::validate(&t.spirv, target.name());
        out = tools::disassemble(&t.spirv).unwrap_or_default();
    }
    out
}

/// Whether the disassembly holds `needle`.
fn has(text: &str, needle: &str) -> bool {
    text.contains(needle)
}

const PS_TWO_TARGETS: &str = "
ps_5_0
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_output o1.xyzw
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v0.wzyx
ret
";

/// The default state changes nothing: the module is the same bytes as without the option.
#[test]
fn the_default_state_is_todays_module() {
    let bytes = crate::test_support::assemble(PS_TWO_TARGETS);
    let plain = translate(&bytes, &Options::default()).expect("translates");
    let with = translate(
        &bytes,
        &Options::default().with_pipeline_state(PipelineState::default()),
    )
    .expect("translates");
    assert_eq!(plain.spirv, with.spirv);
}

/// A swizzled target is a whole vec4 whose components come from the swizzle: `bgra` writes
/// (z, y, x, w) of `o0`; `r001` writes x, then the constants 0, 0 and 1.0.
#[test]
fn swizzled_targets_reorder_the_written_components() {
    use TargetComponent::*;
    let state = PipelineState::default()
        .with_target_swizzle(0, [Z, Y, X, W])
        .with_target_swizzle(1, [X, Zero, Zero, One]);
    let text = translated(PS_TWO_TARGETS, state);
    assert!(
        has(&text, "%out0 = OpVariable %_ptr_Output_v4float Output"),
        "{text}"
    );
    // The four extracts of target 0 come in the swizzle's order.
    let extracts: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("OpCompositeExtract %uint"))
        .collect();
    let last: Vec<&str> = extracts
        .iter()
        .take(3)
        .map(|l| l.rsplit(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(last, ["2", "1", "0"], "{text}");
    // One of float: 0x3f800000.
    assert!(
        has(&text, "%uint_1065353216 = OpConstant %uint 1065353216"),
        "{text}"
    );
}

/// A dropped target has no variable (its location is free); the other is still written.
#[test]
fn dropped_targets_are_not_declared() {
    let state = PipelineState::default().with_dropped_targets(0b01);
    let text = translated(PS_TWO_TARGETS, state);
    assert!(!has(&text, "%out0"), "{text}");
    assert!(!text
        .lines()
        .any(|l| l.trim().starts_with("OpDecorate %out") && l.ends_with("Location 0")));
    assert!(has(&text, "OpDecorate %out1 Location 1"), "{text}");
}

/// Dual-source blending: o0 and o1 are location 0, index 0 and 1; a third target is the
/// shader's error (D3D allows only o0 and o1), named at its declaration.
#[test]
fn dual_source_blending_uses_index_one_of_location_zero() {
    let state = PipelineState::default().with_dual_source_blending(true);
    let text = translated(PS_TWO_TARGETS, state);
    assert!(has(&text, "OpDecorate %out0 Location 0"), "{text}");
    assert!(has(&text, "OpDecorate %out0 Index 0"), "{text}");
    assert!(has(&text, "OpDecorate %out1 Location 0"), "{text}");
    assert!(has(&text, "OpDecorate %out1 Index 1"), "{text}");

    let three = "ps_5_0\ndcl_output o0.xyzw\ndcl_output o1.xyzw\ndcl_output o2.xyzw\n\
                 mov o0.xyzw, l(0,0,0,0)\nmov o1.xyzw, l(0,0,0,0)\nmov o2.xyzw, l(0,0,0,0)\nret\n";
    let bytes = crate::test_support::assemble(three);
    let options = Options::default().with_pipeline_state(state);
    let e = translate(&bytes, &options).expect_err("o2 with dual-source blending");
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert_eq!(e.instruction(), Some("dcl_output"));
    assert!(e.to_string().contains("declares o2"), "{e}");
}

const PS_RASTERIZER: &str = "
ps_5_0
dcl_output o0.xyzw
sampleinfo_uint o0.x, rasterizer.x
samplepos o0.yz, rasterizer.xxyx, l(0)
mov o0.w, l(0)
ret
";

/// The rasterizer's sample count: by default specialization constant 0 (default 1); a fixed
/// count is a plain constant; a chosen `SpecId` with its own default.
#[test]
fn the_rasterizer_sample_count_is_fixed_or_specialized() {
    let text = translated(PS_RASTERIZER, PipelineState::default());
    assert!(
        has(&text, "OpDecorate %rasterizer_samples SpecId 0"),
        "{text}"
    );
    assert!(
        has(&text, "%rasterizer_samples = OpSpecConstant %uint 1"),
        "{text}"
    );

    let fixed = PipelineState::default().with_sample_count(SpecValue::Fixed(4));
    let text = translated(PS_RASTERIZER, fixed);
    assert!(!has(&text, "SpecId"), "{text}");
    assert!(has(&text, "OpConstant %uint 4"), "{text}");

    let spec = PipelineState::default().with_sample_count(SpecValue::Spec { id: 7, default: 2 });
    let text = translated(PS_RASTERIZER, spec);
    assert!(
        has(&text, "OpDecorate %rasterizer_samples SpecId 7"),
        "{text}"
    );
    assert!(
        has(&text, "%rasterizer_samples = OpSpecConstant %uint 2"),
        "{text}"
    );
}

/// Forced sample rate: interpolated inputs are read per sample (`Sample`, not `Centroid`),
/// flat ones stay flat, and a `SampleId` input makes the shader run per sample.
#[test]
fn forced_sample_rate_interpolates_per_sample() {
    let ps = "ps_5_0\ndcl_input_ps linear centroid v0.xyzw\ndcl_input_ps constant v1.x\n\
              dcl_output o0.xyzw\nmov o0.xyzw, v0.xyzw\nmov o0.x, v1.x\nret\n";
    let off = translated(ps, PipelineState::default());
    assert!(has(&off, "OpDecorate %in0 Centroid"), "{off}");
    assert!(!has(&off, "SampleId"), "{off}");

    let text = translated(ps, PipelineState::default().with_force_sample_rate(true));
    assert!(has(&text, "OpCapability SampleRateShading"), "{text}");
    assert!(has(&text, "OpDecorate %in0 Sample"), "{text}");
    assert!(!has(&text, "Centroid"), "{text}");
    assert!(has(&text, "OpDecorate %in1 Flat"), "{text}");
    assert!(!has(&text, "OpDecorate %in1 Sample"), "{text}");
    assert!(has(&text, "BuiltIn SampleId"), "{text}");
}

const PS_MS: &str = "
ps_5_0
dcl_resource_texture2dms(4) (float,float,float,float) t1
dcl_output o0.xyzw
dcl_temps 1
sampleinfo_uint r0.x, t1.x
ldms_indexable(texture2dms)(float,float,float,float) o0.xyzw, l(0, 0, 0, 0), t1.xyzw, r0.x
ret
";

/// A multisampled SRV bound single-sampled: the image is not multisampled, `ldms` fetches mip
/// 0 without a sample operand, `sampleinfo` is the constant 1, and the reflection says
/// `Texture2D`.
#[test]
fn single_sampled_srvs_read_mip_zero() {
    let text = translated(PS_MS, PipelineState::default());
    assert!(has(&text, "OpImageQuerySamples"), "{text}");
    assert!(has(&text, "Sample %"), "{text}");

    let state = PipelineState::default().with_single_sampled_srvs(1 << 1);
    let text = translated(PS_MS, state);
    assert!(!has(&text, "OpImageQuerySamples"), "{text}");
    assert!(
        has(&text, "OpTypeImage %float 2D 2 0 0 1 Unknown"),
        "{text}"
    );
    assert!(!has(&text, "OpTypeImage %float 2D 2 0 1"), "{text}");
    assert!(has(&text, "OpImageFetch %v4float"), "{text}");
    assert!(has(&text, "Lod %uint_0"), "{text}");

    let bytes = crate::test_support::assemble(PS_MS);
    let info = translate(&bytes, &Options::default().with_pipeline_state(state))
        .expect("translates")
        .info;
    let shape = info.resources.first().and_then(|r| r.shape);
    assert!(
        matches!(
            shape,
            Some(crate::ir::ResourceShape::Typed {
                dim: crate::ir::Dimension::Texture2D,
                samples: 0,
                ..
            })
        ),
        "{shape:?}"
    );
    // Another register is not demoted.
    let other = PipelineState::default().with_single_sampled_srvs(1 << 2);
    assert!(has(&translated(PS_MS, other), "OpImageQuerySamples"));
}

const HS: &str = "hs_5_0\nhs_decls\ndcl_input_control_point_count 1\n\
    dcl_output_control_point_count 0\ndcl_tessellator_domain domain_isoline\n\
    dcl_tessellator_partitioning partitioning_integer\n\
    dcl_tessellator_output_primitive output_line\ndcl_hs_max_tessfactor l(32.000000)\n\
    hs_fork_phase\ndcl_output_siv o0.x, finalLineDetailTessFactor\n\
    dcl_output_siv o1.x, finalLineDensityTessFactor\n\
    mov o0.x, l(40.0)\nmov o1.x, l(3.0)\nret\n";

/// The tessellation-factor limit lowers D3D's clamp `min(dcl_hs_maxtessfactor, 64)`: fixed 8
/// gives the bound 8; a limit above the declared 32 leaves 32; a specialization constant is
/// combined in the code with `NMin`.
#[test]
fn the_tess_factor_limit_lowers_the_clamp() {
    let text = translated(HS, PipelineState::default());
    assert!(has(&text, "%float_32 = OpConstant %float 32"), "{text}");

    let text = translated(
        HS,
        PipelineState::default().with_max_tess_factor(Some(SpecValue::Fixed(8.0))),
    );
    assert!(has(&text, "%float_8 = OpConstant %float 8"), "{text}");
    assert!(!has(&text, "%float_32 = OpConstant"), "{text}");
    let text = translated(
        HS,
        PipelineState::default().with_max_tess_factor(Some(SpecValue::Fixed(48.0))),
    );
    assert!(has(&text, "%float_32 = OpConstant %float 32"), "{text}");

    let spec = SpecValue::Spec {
        id: 3,
        default: 64.0,
    };
    let text = translated(
        HS,
        PipelineState::default().with_max_tess_factor(Some(spec)),
    );
    assert!(has(&text, "OpDecorate %max_tess_factor SpecId 3"), "{text}");
    assert!(
        has(&text, "%max_tess_factor = OpSpecConstant %float 64"),
        "{text}"
    );
    assert!(has(&text, "NMin"), "{text}");
}
