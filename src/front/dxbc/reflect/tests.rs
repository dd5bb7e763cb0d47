//! Unit tests: programs written in fxc syntax, assembled, then reflected.

use super::*;
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::front::dxbc::error::DecodeErrorKind;
use crate::front::dxbc::operand::RegisterType;
use crate::front::dxbc::program::{Program, Stage};
use crate::front::dxbc::signature::SystemValue;
use crate::text::dxbc::asm::assemble;

/// Assembles `text` and reflects the container.
fn reflect(text: &str) -> Result<Reflection, ReflectError> {
    let bytes = assemble(text).unwrap_or_else(|e| panic!("assembles: {e}\n{text}"));
    let container = Container::parse(&bytes, &ParseOptions::default()).expect("container");
    Reflection::from_container(&container)
}

fn ok(text: &str) -> Reflection {
    reflect(text).unwrap_or_else(|e| panic!("reflects: {e}"))
}

const FLOAT4: [ReturnType; 4] = [ReturnType::Float; 4];

#[test]
fn compute_resources_tgsm_and_temps() {
    let r = ok("cs_5_0
dcl_globalFlags refactoringAllowed | enableRawAndStructuredBuffers
dcl_constantbuffer CB1[7], dynamicIndexed
dcl_sampler s3, mode_comparison
dcl_resource_texture2dms(4) (float,float,float,float) t0
dcl_resource_buffer (uint,sint,unorm,snorm) t1
dcl_resource_raw t2
dcl_resource_structured t3, 20
dcl_uav_typed_texture2d_glc (float,float,float,float) u0
dcl_uav_raw_rov u1
dcl_uav_structured_opc u2, 16
dcl_tgsm_raw g0, 1024
dcl_tgsm_structured g1, 12, 64
dcl_input vThreadID.xy
dcl_temps 5
dcl_indexableTemp x0[8], 4
dcl_indexableTemp x1[3], 2
dcl_thread_group 8, 8, 1
ret
");
    assert_eq!(r.version.stage, Stage::Compute);
    assert_eq!(r.thread_group_size, Some([8, 8, 1]));
    assert_eq!(
        r.global_flags.names().collect::<Vec<_>>(),
        ["refactoringAllowed", "enableRawAndStructuredBuffers"]
    );
    let kinds: Vec<_> = r
        .resources
        .iter()
        .map(|r| (r.kind.clone(), r.range))
        .collect();
    let slot = |n| Range {
        id: n,
        space: 0,
        lower_bound: n,
        count: Some(1),
    };
    let uav = |glc, rov, counter| UavFlags {
        globally_coherent: glc,
        rasterizer_ordered: rov,
        counter,
    };
    use ResourceKind as K;
    assert_eq!(
        kinds,
        [
            (
                K::ConstantBuffer {
                    size: 7,
                    dynamic_indexed: true
                },
                slot(1)
            ),
            (
                K::Sampler {
                    mode: SamplerMode::Comparison
                },
                slot(3)
            ),
            (
                K::TypedSrv {
                    dimension: ResourceDimension::Texture2DMs,
                    return_types: FLOAT4,
                    sample_count: Some(4)
                },
                slot(0)
            ),
            (
                K::TypedSrv {
                    dimension: ResourceDimension::Buffer,
                    return_types: [
                        ReturnType::Uint,
                        ReturnType::Sint,
                        ReturnType::Unorm,
                        ReturnType::Snorm
                    ],
                    sample_count: None
                },
                slot(1)
            ),
            (K::RawSrv, slot(2)),
            (K::StructuredSrv { stride: 20 }, slot(3)),
            (
                K::TypedUav {
                    dimension: ResourceDimension::Texture2D,
                    return_types: FLOAT4,
                    flags: uav(true, false, false)
                },
                slot(0)
            ),
            (
                K::RawUav {
                    flags: uav(false, true, false)
                },
                slot(1)
            ),
            (
                K::StructuredUav {
                    stride: 16,
                    flags: uav(false, false, true)
                },
                slot(2)
            ),
        ]
    );
    assert_eq!(r.resources_of(ResourceClass::UnorderedAccess).count(), 3);
    let tgsm: Vec<_> = r
        .tgsm
        .iter()
        .map(|g| (g.register, g.kind, g.size_bytes()))
        .collect();
    assert_eq!(
        tgsm,
        [
            (0, TgsmKind::Raw { bytes: 1024 }, 1024),
            (
                1,
                TgsmKind::Structured {
                    stride: 12,
                    count: 64
                },
                768
            )
        ]
    );
    let [main] = &r.phases[..] else {
        panic!("one phase: {:?}", r.phases)
    };
    assert_eq!(
        (main.kind, main.temps, r.max_temps()),
        (PhaseKind::Main, 5, 5)
    );
    assert_eq!(
        main.indexable_temps,
        [
            IndexableTemp {
                register: 0,
                size: 8,
                components: 4
            },
            IndexableTemp {
                register: 1,
                size: 3,
                components: 2
            }
        ]
    );
    let input = main.inputs[0];
    assert_eq!(
        (input.register_type, input.register, input.mask),
        (RegisterType::InputThreadId, None, 0b0011)
    );
    assert!(r.geometry.is_none() && r.tessellation.is_none());
    assert_eq!(
        r.resources[0].kind.to_string(),
        "constant buffer, 7 vec4s, dynamic indexed"
    );
    assert_eq!(
        r.resources[8].kind.to_string(),
        "structured uav, stride 16, counter"
    );
}

#[test]
fn sm51_ranges_spaces_and_names() {
    let r = ok("// Resource Bindings:
//
// Name                                 Type  Format         Dim      ID      HLSL Bind  Count
// ------------------------------ ---------- ------- ----------- ------- -------------- ------
// smp                               sampler      NA          NA      S0      s1,space1      1
// texs                              texture  float4          2d      T0     t2,space2      3
// many                              texture  float4          2d      T1     t10,space2 unbounded
// cb                                cbuffer      NA          NA     CB0     cb4,space3      1
//
ps_5_1
dcl_constantbuffer CB0[4:4][2], immediateIndexed, space=3
dcl_sampler S0[1:1], mode_default, space=1
dcl_resource_texture2d (float,float,float,float) T0[2:4], space=2
dcl_resource_texture2d (float,float,float,float) T1[10:*], space=2
dcl_uav_raw U0[0:0], space=0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
ret
");
    let ranges: Vec<_> = r
        .resources
        .iter()
        .map(|res| (res.range, res.name.as_deref()))
        .collect();
    let range = |id, space, lower_bound, count| Range {
        id,
        space,
        lower_bound,
        count,
    };
    assert_eq!(
        ranges,
        [
            (range(0, 3, 4, Some(1)), Some("cb")),
            (range(0, 1, 1, Some(1)), Some("smp")),
            (range(0, 2, 2, Some(3)), Some("texs")),
            (range(1, 2, 10, None), Some("many")),
            (range(0, 0, 0, Some(1)), None),
        ]
    );
    assert_eq!(
        r.resources[0].kind,
        ResourceKind::ConstantBuffer {
            size: 2,
            dynamic_indexed: false
        }
    );
    assert_eq!(r.resources[2].range.upper_bound(), Some(4));
    assert!(r.resources[3].range.is_unbounded() && r.resources[3].range.contains(1000));
    let show = |i: usize| {
        let res = &r.resources[i];
        res.range.display(res.class(), true)
    };
    assert_eq!(show(3), "T1[10:*]");
    assert_eq!(show(4), "U0[0:0]");
    let input = r.phases[0].inputs[0];
    assert_eq!(input.interpolation, Some(Interpolation::Linear));
    let sig = r
        .signatures
        .input
        .as_ref()
        .expect("derived input signature");
    assert_eq!(sig.len(), 1);
}

#[test]
fn sm50_array_bindings_name_each_element() {
    let r = ok("// Resource Bindings:
//
// Name                                 Type  Format         Dim      HLSL Bind  Count
// ------------------------------ ---------- ------- ----------- -------------- ------
// arr                               texture  float4          2d             t1      3
//
ps_5_0
dcl_resource_texture2d (float,float,float,float) t1
dcl_resource_texture2d (float,float,float,float) t3
dcl_resource_texture2d (float,float,float,float) t4
ret
");
    let names: Vec<_> = r.resources.iter().map(|r| r.name.as_deref()).collect();
    assert_eq!(names, [Some("arr[0]"), Some("arr[2]"), None]);
}

#[test]
fn hull_shader_phases_and_tessellation() {
    let r = ok("hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 4
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_fractional_odd
dcl_tessellator_output_primitive output_triangle_cw
dcl_hs_max_tessfactor l(15.000000)
dcl_constantbuffer CB0[1], immediateIndexed
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input v[3][0].xyzw
dcl_output o0.xyzw
dcl_temps 2
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_temps 1
dcl_indexrange o0.x 3
ret
hs_join_phase
dcl_input vpc0.x
dcl_output_siv o3.x, finalTriInsideTessFactor
ret
");
    let t = r.tessellation.expect("tessellation");
    assert_eq!(t.domain, Some(TessDomain::Triangle));
    assert_eq!(t.partitioning, Some(TessPartitioning::FractionalOdd));
    assert_eq!(t.output_primitive, Some(TessOutputPrimitive::TriangleCw));
    assert_eq!(
        (t.input_control_points, t.output_control_points),
        (Some(3), Some(4))
    );
    assert_eq!(t.max_tess_factor, Some(15.0));
    let kinds: Vec<_> = r.phases.iter().map(|p| p.kind).collect();
    use PhaseKind as P;
    assert_eq!(kinds, [P::Declarations, P::ControlPoint, P::Fork, P::Join]);
    assert!(r.phases.iter().all(|p| p.offset.is_some()));
    assert_eq!(r.fork_instance_counts(), [3]);
    assert_eq!(r.join_instance_counts(), [1]);
    assert_eq!(r.max_temps(), 2);
    let cp = r.phase(P::ControlPoint).expect("cp phase");
    let v = cp.inputs[1];
    assert_eq!((v.array_size, v.register, v.mask), (Some(3), Some(0), 0xf));
    let fork = r.phase(P::Fork).expect("fork phase");
    let svs: Vec<_> = fork.outputs.iter().map(|o| o.system_value).collect();
    assert_eq!(
        svs,
        [
            Some(SystemName::TriUEq0EdgeTessFactor),
            Some(SystemName::TriVEq0EdgeTessFactor),
            Some(SystemName::TriWEq0EdgeTessFactor)
        ]
    );
    assert_eq!(
        fork.index_ranges[0],
        IndexRange {
            register_type: RegisterType::Output,
            register: 0,
            count: 3,
            mask: 1,
            offset: fork.index_ranges[0].offset
        }
    );
    assert_eq!(r.resources.len(), 1);
}

#[test]
fn geometry_streams_and_outputs() {
    let r = ok("gs_5_0
dcl_input v[2][0].xyz
dcl_inputprimitive line
dcl_stream m0
dcl_outputtopology pointlist
dcl_output o0.xyz
dcl_stream m1
dcl_outputtopology linestrip
dcl_output_siv o1.xyzw, position
dcl_maxout 18
dcl_gsinstances 2
ret
");
    let g = r.geometry.expect("geometry");
    assert_eq!(g.input_primitive, Some(InputPrimitive::Line));
    assert_eq!(g.output_topology, Some(OutputTopology::PointList));
    assert_eq!(
        (g.max_output_vertices, g.instance_count),
        (Some(18), Some(2))
    );
    assert_eq!(
        g.streams,
        [
            Stream {
                index: 0,
                output_topology: Some(OutputTopology::PointList)
            },
            Stream {
                index: 1,
                output_topology: Some(OutputTopology::LineStrip)
            }
        ]
    );
    let outs: Vec<_> = r.phases[0]
        .outputs
        .iter()
        .map(|o| (o.stream, o.system_value))
        .collect();
    assert_eq!(
        outs,
        [(Some(0), None), (Some(1), Some(SystemName::Position))]
    );
}

#[test]
fn icb_linkage_and_pixel_inputs() {
    let r = ok("ps_5_0
dcl_globalFlags forceEarlyDepthStencil
dcl_immediateConstantBuffer { { 1.000000, 0, 0, 0},
                              { 0, 1.000000, 0, 0},
                              { 0, 0, 1.000000, 0} }
dcl_function_body fb0
dcl_function_body fb1
dcl_function_table ft0 = {fb0}
dcl_function_table ft1 = {fb1}
dcl_interface_dynamicindexed fp0[2][1] = {ft0, ft1}
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_input_ps constant v1.x
dcl_output o0.xyzw
dcl_output oDepth
ret
");
    assert!(r.global_flags.force_early_depth_stencil());
    let icb = r.immediate_constant_buffer.expect("icb");
    assert_eq!((icb.dwords, icb.vec4s()), (12, 3));
    assert_eq!(r.linkage.function_bodies, 2);
    assert_eq!(r.linkage.function_tables[1].bodies, [1]);
    let fp = &r.linkage.interfaces[0];
    assert_eq!(
        (
            fp.id,
            fp.array_length,
            fp.table_length,
            &fp.function_tables[..],
            fp.dynamically_indexed
        ),
        (0, 2, 1, &[0, 1][..], true)
    );
    let inputs = &r.phases[0].inputs;
    assert_eq!(
        inputs[0].interpolation,
        Some(Interpolation::LinearNoPerspective)
    );
    assert_eq!(inputs[0].system_value, Some(SystemName::Position));
    assert_eq!(inputs[1].interpolation, Some(Interpolation::Constant));
    let depth = r.phases[0].outputs[1];
    assert_eq!(
        (depth.register_type, depth.register),
        (RegisterType::OutputDepth, None)
    );
    let out = r.signatures.output.as_ref().expect("output signature");
    assert!(out
        .iter()
        .any(|e| e.system_value == SystemValue::Depth && e.register.is_none()));
}

#[test]
fn malformed_declarations_are_errors_with_offsets() {
    let e = reflect(
        "hs_5_0
hs_decls
dcl_hs_fork_phase_instance_count 2
ret
",
    )
    .unwrap_err();
    let ReflectError::Malformed { what, offset, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(*what, "instance count outside its phase");
    assert!(
        e.to_string().starts_with(&format!(
            "at {offset:#x} (dcl_hs_fork_phase_instance_count): "
        )),
        "{e}"
    );
    assert_eq!(e.offset(), *offset);
    let e = reflect(
        "ps_5_1
dcl_resource_texture2d (float,float,float,float) T0[4:2], space=0
ret
",
    )
    .unwrap_err();
    assert!(e.to_string().contains("upper bound below"), "{e}");
    let e = reflect(
        "ps_5_0
hs_fork_phase
ret
",
    )
    .unwrap_err();
    assert!(e.to_string().contains("outside a hull shader"), "{e}");
}

#[test]
fn decode_errors_and_missing_programs() {
    // ps_5_0, length 3, then `dcl_temps` claiming 2 dwords with only one left.
    let words = [0x50u32, 3, 0x0200_0068];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let program = Program::parse(&bytes, 0x40).expect("program header");
    let e = Reflection::from_program(&program).unwrap_err();
    assert_eq!(e.offset(), 0x48);
    assert!(matches!(e, ReflectError::Decode(_)));
    let bytes = crate::test_support::build_container(&[(b"STAT", &[0u8; 4])]);
    let container = Container::parse(&bytes, &ParseOptions::default()).expect("container");
    let e = Reflection::from_container(&container).unwrap_err();
    assert!(matches!(
        e,
        ReflectError::Decode(ref d) if d.kind == DecodeErrorKind::MissingChunk("SHDR or SHEX")
    ));
}
