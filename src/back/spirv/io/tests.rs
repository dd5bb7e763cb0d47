//! Stage I/O tests: fxc-syntax shaders with signatures, translated, checked with `spirv-val`
//! for the oldest and newest targets, and inspected for the interface they declare.

use crate::spv::tests::tools;
use crate::{translate, Error, Options, StreamOutput, StreamOutputEntry, Target};

/// Translates `text` for `target` and validates the result; returns the disassembly.
fn spirv_text(text: &str, options: &Options) -> String {
    let bytes = crate::test_support::assemble(text);
    let t = translate(&bytes, options).unwrap_or_else(|e| panic!("{e}\n{text}"));
    tools::validate(&t.spirv, options.target.name());
    tools::disassemble(&t.spirv).unwrap_or_default()
}

/// [`spirv_text`] for Vulkan 1.0 and 1.3 (debug names on); returns the 1.3 text.
fn both_targets(text: &str) -> String {
    let mut out = String::new();
    for target in [Target::Vulkan1_0, Target::Vulkan1_3] {
        let options = Options {
            target,
            ..Options::default().with_flag(crate::OptionFlags::DEBUG_NAMES, true)
        };
        out = spirv_text(text, &options);
    }
    out
}

const VS: &str = "
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// POSITION                 0   xyzw        0     NONE   float   xyzw
// BLENDINDICES             0   xyzw        1     NONE    uint   xyzw
// SV_VertexID              0   x           2   VERTID    uint   x
// SV_InstanceID            0   x           3   INSTID    uint   x
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// TEXCOORD                 0   xy          1     NONE   float   xy
// TEXCOORD                 1     z         1     NONE    uint     z
// SV_ClipDistance          0      w        1  CLIPDST   float      w
// SV_CullDistance          0   x           2  CULLDST   float   x
// SV_ClipDistance          1    y          2  CLIPDST   float    y
//
vs_5_0
dcl_input v0.xyzw
dcl_input v1.xyzw
dcl_input_sgv v2.x, vertex_id
dcl_input_sgv v3.x, instance_id
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_output o1.z
dcl_output_siv o1.w, clip_distance
dcl_output_siv o2.x, cull_distance
dcl_output_siv o2.y, clip_distance
mov o0.xyzw, v0.xyzw
utof o1.xy, v1.xyxx
iadd o1.z, v2.x, v3.x
mov o1.w, v0.x
mov o2.xy, v0.yzyy
ret
";

#[test]
fn vertex_shader_interface() {
    let text = both_targets(VS);
    // Attributes: a float vec4 at 0, a uint vec4 at 1.
    assert!(text.contains("OpDecorate %in0 Location 0"), "{text}");
    assert!(text.contains("OpDecorate %in1 Location 1"), "{text}");
    // Packed outputs: float TEXCOORD0 (.xy) and uint TEXCOORD1 (.z) share location 1 as one
    // uvec3 (Vulkan wants one type per location); clip distances as a 2-element array.
    assert!(
        text.contains("%out1 = OpVariable %_ptr_Output_v3uint"),
        "{text}"
    );
    assert!(text.contains("BuiltIn ClipDistance"), "{text}");
    assert!(text.contains("BuiltIn CullDistance"), "{text}");
    assert!(text.contains("BuiltIn BaseVertex"), "{text}");
    assert!(text.contains("BuiltIn BaseInstance"), "{text}");
    assert!(text.contains("_arr_float_uint_2"), "{text}");
}

const PS: &str = "
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// TEXCOORD                 0   xy          1     NONE   float   xy
// TEXCOORD                 1   x           4     NONE    uint   x
// TEXCOORD                 2     z         4     NONE     int     z
// COLOR                    0   xyzw        2     NONE   float   xyzw
// SV_IsFrontFace           0   x           3    FFACE    uint   x
// SV_SampleIndex           0    y          3   SAMPLE    uint    y
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Target                0   xyzw        0   TARGET   float   xyzw
// SV_Target                1   xyzw        1   TARGET    uint   xyzw
// SV_Coverage              0    N/A   oMask    COVERAGE    uint    YES
// SV_DepthGreaterEqual     0    N/A oDepthGE  DEPTHGE   float    YES
//
ps_5_0
dcl_input_ps_siv linear noperspective v0.xyzw, position
dcl_input_ps linear centroid v1.xy
dcl_input_ps constant v4.x
dcl_input_ps constant v4.z
dcl_input_ps linear sample v2.xyzw
dcl_input_ps_sgv v3.x, is_front_face
dcl_input_ps_sgv v3.y, sampleIndex
dcl_input vCoverage
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_output oMask
dcl_output oDepthGE
dcl_temps 2
deriv_rtx_fine r0.xy, v1.xyxx
deriv_rty r0.zw, v1.xxxy
add r0.xyzw, r0.xyzw, v0.xyzw
eval_centroid r1.xy, v1.xyxx
eval_sample_index r1.zw, v2.xxxy, v3.y
add r0.xyzw, r0.xyzw, r1.xyzw
eval_snapped r1.xyzw, v2.xyzw, l(-8, 7, 0, 0)
add o0.xyzw, r0.xyzw, r1.xyzw
discard_nz v3.x
mov o1.xyzw, v4.xxzz
mov oMask, vCoverage.x
mov oDepthGE, v0.z
ret
";

#[test]
fn pixel_shader_interface() {
    let text = both_targets(PS);
    for needle in [
        "BuiltIn FragCoord",
        "BuiltIn FrontFacing",
        "BuiltIn SampleId",
        "BuiltIn SampleMask",
        "BuiltIn FragDepth",
        "OriginUpperLeft",
        "DepthReplacing",
        "DepthGreater",
        "Centroid",
        "OpDecorate %in2 Sample",
        "Flat",
        "OpDemoteToHelperInvocation",
        "InterpolateAtCentroid",
        "InterpolateAtSample",
        "InterpolateAtOffset",
        "OpDPdxFine",
        "OpCapability DerivativeControl",
    ] {
        assert!(text.contains(needle), "missing {needle}:\n{text}");
    }
    // The uint and sint elements of v4 share one flat uvec3 at location 4.
    assert!(text.contains("OpDecorate %in4 Location 4"), "{text}");
    assert!(text.contains("OpDecorate %in4 Flat"), "{text}");
    // Kill instead of demote when asked.
    let bytes = crate::test_support::assemble(PS);
    let options = Options::default().with_flag(crate::OptionFlags::DEMOTE_TO_HELPER, false);
    let t = translate(&bytes, &options).expect("translates");
    tools::validate(&t.spirv, "vulkan1.1");
    let killed = tools::disassemble(&t.spirv).unwrap_or_default();
    assert!(
        killed.contains("OpKill") && !killed.contains("Demote"),
        "{killed}"
    );
}

const GS: &str = "
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// TEXCOORD                 0   xyzw        1     NONE   float   xyzw
//
gs_5_0
dcl_input_siv v[3][0].xyzw, position
dcl_input v[3][1].xyzw
dcl_input vPrim
dcl_input vGSInstanceID
dcl_temps 1
dcl_inputprimitive triangle
dcl_stream m0
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_stream m1
dcl_output o1.xyzw
dcl_maxout 6
dcl_gsinstances 2
mov r0.x, l(0)
loop
ige r0.y, r0.x, l(3)
breakc_nz r0.y
mov o0.xyzw, v[r0.x + 0][0].xyzw
mov o1.xyzw, v[r0.x + 0][1].xyzw
emit_stream m0
utof o1.xy, vPrim
utof o1.zw, vGSInstanceID
emit_stream m1
iadd r0.x, r0.x, l(1)
endloop
cut_stream m0
ret
";

#[test]
fn geometry_shader_streams_and_stream_output() {
    let text = both_targets(GS);
    for needle in [
        "OpCapability Geometry",
        "OpCapability GeometryStreams",
        "OpEmitStreamVertex",
        "OpEndStreamPrimitive",
        "Invocations 2",
        "OutputVertices 6",
        "Triangles",
        "OutputTriangleStrip",
        "BuiltIn InvocationId",
        "BuiltIn PrimitiveId",
        "Stream 1",
    ] {
        assert!(text.contains(needle), "missing {needle}:\n{text}");
    }
    let bytes = crate::test_support::assemble(GS);
    let entry = |semantic: Option<&str>, index, start, count, slot| StreamOutputEntry {
        stream: 0,
        semantic_name: semantic.map(str::to_owned),
        semantic_index: index,
        start_component: start,
        component_count: count,
        output_slot: slot,
    };
    let options = Options {
        target: Target::Vulkan1_1,
        stream_output: Some(StreamOutput {
            entries: vec![
                entry(Some("SV_Position"), 0, 0, 4, 0),
                entry(None, 0, 0, 1, 0),
                entry(Some("texcoord"), 0, 1, 2, 0),
                entry(Some("TEXCOORD"), 0, 0, 1, 1),
            ],
            strides: [0, 16, 0, 0],
            rasterized_stream: Some(0),
        }),
        ..Options::default().with_flag(crate::OptionFlags::DEBUG_NAMES, true)
    };
    let so = spirv_text(GS, &options);
    for needle in [
        "OpCapability TransformFeedback",
        "Xfb",
        "XfbStride 28",
        "Offset 20",
        "XfbStride 16",
        "XfbBuffer 1",
    ] {
        assert!(so.contains(needle), "missing {needle}:\n{so}");
    }
    // Unknown semantics and stream output on a pixel shader are the caller's errors.
    let bad = Options {
        stream_output: Some(StreamOutput {
            entries: vec![entry(Some("COLOR"), 3, 0, 4, 0)],
            ..StreamOutput::default()
        }),
        ..Options::default()
    };
    assert!(matches!(
        translate(&bytes, &bad),
        Err(Error::Invalid { .. })
    ));
}

#[test]
fn point_size_follows_the_device_feature() {
    let gs = "gs_4_0\ndcl_input_siv v[1][0].xyzw, position\ndcl_inputprimitive point\n\
              dcl_outputtopology pointlist\ndcl_output_siv o0.xyzw, position\ndcl_maxout 1\n\
              mov o0.xyzw, v[0][0].xyzw\nemit\nret\n";
    let with = spirv_text(gs, &Options::default());
    assert!(with.contains("BuiltIn PointSize"), "{with}");
    let options = Options {
        domain_modes: None,
        ..Options::default().with_flag(crate::OptionFlags::GEOMETRY_POINT_SIZE, false)
    };
    let without = spirv_text(gs, &options);
    assert!(!without.contains("PointSize"), "{without}");
    // Vertex shaders always write it: any draw of points may end there.
    let text = both_targets(VS);
    assert!(text.contains("BuiltIn PointSize"), "{text}");
}

/// A hull shader over triangles: control points pass through a control-point phase, a fork
/// phase writes the three edge factors through `o[vForkInstanceID]` and reads `vocp`, a join
/// phase the inside factor from `vpc`, and a user patch constant shares o3 with the inside
/// factor (`o3.x` factor, `o3.yzw` COLOR).
const HS: &str = "
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// TEXCOORD                 0   xy          1     NONE   float   xy
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// TEXCOORD                 0   xy          1     NONE   float   xy
//
// Patch Constant signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_TessFactor            0   x           0 TRIEDGE   float   x
// SV_TessFactor            1   x           1 TRIEDGE   float   x
// SV_TessFactor            2   x           2 TRIEDGE   float   x
// SV_InsideTessFactor      0   x           3  TRIINT   float   x
// COLOR                    0    yzw        3     NONE   float    yzw
//
hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_pow2
dcl_tessellator_output_primitive output_triangle_ccw
dcl_hs_max_tessfactor l(12.000000)
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_input v[3][1].xy
dcl_output o0.xyzw
dcl_output o1.xy
dcl_temps 1
mov r0.x, vOutputControlPointID
mov o0.xyzw, v[r0.x + 0][0].xyzw
mov o1.xy, v[r0.x + 0][1].xyxx
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_input vocp[3][1].xy
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_temps 1
dcl_indexrange o0.x 3
mov r0.x, vForkInstanceID.x
mov o[r0.x + 0].x, vocp[r0.x + 0][1].x
ret
hs_join_phase
dcl_input vpc0.x
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_output o3.yzw
mov o3.x, vpc0.x
mov o3.yzw, l(0, 1.0, 2.0, 3.0)
ret
";

/// The tessellation-control interface: per-vertex arrays, `OutputVertices`, the tessellator
/// modes, `Patch` variables at locations counted down from 29, levels from the tess factors
/// through `NClamp`; the serial schedule calls the phases from invocation 0 only, after a
/// barrier (the fork phase reads `vocp`); the parallel one spreads the fork instances.
#[test]
fn hull_shaders_map_phases_onto_tessellation_control() {
    let text = both_targets(HS);
    for needle in [
        "OpEntryPoint TessellationControl",
        "OpExecutionMode %main Triangles",
        "OpExecutionMode %main OutputVertices 3",
        "OpExecutionMode %main SpacingEqual",
        "OpExecutionMode %main VertexOrderCcw",
        "BuiltIn TessLevelOuter",
        "BuiltIn TessLevelInner",
        "BuiltIn InvocationId",
        "OpDecorate %patch0 Location 29",
        "OpDecorate %patch3 Location 26",
        "OpDecorate %patch0 Patch",
        "NClamp",
        "OpControlBarrier",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    // Per-vertex TEXCOORD at location 1, an array over the three control points.
    assert!(text.contains("OpDecorate %out1 Location 1"), "{text}");
    // Four phase calls in invocation 0 (control point + three fork instances + one join).
    assert_eq!(text.matches("OpFunctionCall").count(), 5, "{text}");
    let parallel = spirv_text(
        HS,
        &Options {
            hull_schedule: crate::HullSchedule::Parallel,
            ..Options::default().with_flag(crate::OptionFlags::DEBUG_NAMES, true)
        },
    );
    assert!(parallel.contains("OpLoopMerge"), "{parallel}");
    assert!(parallel.contains("vpc_written"), "{parallel}");
    // CP → fork (vocp), fork → join (vpc), before the levels.
    assert_eq!(
        parallel.matches("OpControlBarrier").count(),
        3,
        "{parallel}"
    );
}

/// `outputcontrolpoints(0)` still declares one output vertex (Vulkan requires at least one);
/// isolines map the density factor to `TessLevelOuter[0]` and the detail to `[1]`.
#[test]
fn isolines_map_tess_factors_by_meaning_and_zero_points_is_one_vertex() {
    let hs = "hs_5_0\nhs_decls\ndcl_input_control_point_count 1\n\
        dcl_output_control_point_count 0\ndcl_tessellator_domain domain_isoline\n\
        dcl_tessellator_partitioning partitioning_integer\n\
        dcl_tessellator_output_primitive output_line\n\
        hs_fork_phase\ndcl_output_siv o0.x, finalLineDetailTessFactor\n\
        dcl_output_siv o1.x, finalLineDensityTessFactor\n\
        mov o0.x, l(7.0)\nmov o1.x, l(3.0)\nret\n";
    let text = both_targets(hs);
    assert!(text.contains("OutputVertices 1"), "{text}");
    assert!(text.contains("Isolines"), "{text}");
    // Detail (register 0) goes to element 1, density (register 1) to element 0: the stores to
    // the levels come in declaration order.
    let outer: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("OpAccessChain") && l.contains("%gl_TessLevelOuter"))
        .collect();
    assert!(outer.len() >= 2, "{text}");
    assert!(outer[0].ends_with("%uint_1"), "{}", outer[0]);
    assert!(outer[1].ends_with("%uint_0"), "{}", outer[1]);
}

/// A domain shader reads the control points, the patch constants (tess factors included) at
/// the hull shader's locations, `TessCoord` and `PrimitiveId`.
#[test]
fn domain_shaders_read_control_points_patch_constants_and_the_domain() {
    let ds = "
// Patch Constant signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_TessFactor            0   x           0 QUADEDGE   float   x
// SV_TessFactor            1   x           1 QUADEDGE   float
// SV_TessFactor            2   x           2 QUADEDGE   float
// SV_TessFactor            3   x           3 QUADEDGE   float
// SV_InsideTessFactor      0   x           4  QUADINT   float
// SV_InsideTessFactor      1   x           5  QUADINT   float
//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// COLOR                    0   xyzw        1     NONE   float   xyzw
//
ds_5_0
dcl_input_control_point_count 4
dcl_tessellator_domain domain_quad
dcl_input vDomain.xy
dcl_input vicp[4][0].xyzw
dcl_input_siv vpc0.x, finalQuadUeq0EdgeTessFactor
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_temps 1
mov o0.xyzw, vicp[3][0].xyzw
mov r0.xy, vDomain.xyxx
mov r0.z, vpc0.x
utof r0.w, vPrim
mov o1.xyzw, r0.xyzw
ret
";
    let text = both_targets(ds);
    for needle in [
        "OpEntryPoint TessellationEvaluation",
        "OpExecutionMode %main Quads",
        "BuiltIn TessCoord",
        "BuiltIn PrimitiveId",
        "OpDecorate %patch0 Location 29",
        "OpDecorate %patch0 Patch",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    // No spacing without the hull shader's modes; with them, the domain shader declares them.
    assert!(!text.contains("Spacing"), "{text}");
    let with_modes = spirv_text(
        ds,
        &Options {
            domain_modes: Some(crate::DomainModes {
                partitioning: crate::ir::TessPartitioning::FractionalOdd,
                output_primitive: crate::ir::TessOutputPrimitive::Point,
            }),
            ..Options::default()
        },
    );
    assert!(with_modes.contains("SpacingFractionalOdd"), "{with_modes}");
    assert!(with_modes.contains("PointMode"), "{with_modes}");
}

/// Reflection tells a runtime the tessellator modes (to pass the hull shader's partitioning
/// and output primitive on to the domain shader when its driver wants them there).
#[test]
fn reflection_reports_the_tessellator_declarations() {
    let bytes = crate::test_support::assemble(HS);
    let t = translate(&bytes, &Options::default()).expect("translates");
    let info = t
        .info
        .tessellation
        .expect("hull shaders report tessellation");
    assert_eq!(info.domain, Some(crate::ir::TessDomain::Triangle));
    assert_eq!(info.partitioning, Some(crate::ir::TessPartitioning::Pow2));
    assert_eq!(
        info.output_primitive,
        Some(crate::ir::TessOutputPrimitive::TriangleCcw)
    );
    assert_eq!(
        (info.input_control_points, info.output_control_points),
        (3, 3)
    );
    assert_eq!(info.max_tess_factor, Some(12.0));
    let vs = crate::test_support::assemble(VS);
    let t = translate(&vs, &Options::default()).expect("translates");
    assert!(t.info.tessellation.is_none());
}
