//! Tests of the declaration decoder: tokens built by hand from the tokenized program format
//! (`d3d11TokenizedProgramFormat.hpp`: opcode number in bits 0–10, instruction length in
//! bits 24–30, the declaration's own fields in bits 11–23; operand tokens with the component
//! count in bits 0–1, selection mode in 2–3, write mask in 4–7, type in 12–19 and index
//! dimension in 20–21), decoded, and compared with the values that format defines.

use super::declaration::ICB_CLASS;
use super::{write_mask, Declaration, HullPhase, InstancedPhase, Io, Shape, View};
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::operand::{Operand, RegisterType};
use crate::front::dxbc::program::{ShaderVersion, Stage};
use crate::front::dxbc::reader::Reader;
use crate::front::dxbc::reflect::{
    GlobalFlags, IndexableTemp, InputPrimitive, Interpolation, OutputTopology,
    ResourceDimension as Dim, ReturnType as Ret, SamplerMode, SystemName, TessDomain,
    TessOutputPrimitive, TessPartitioning, TgsmKind, UavFlags,
};

/// An opcode token: `opcode`, the declaration fields `fields` (already shifted), `length`
/// dwords in all.
fn op(opcode: u32, fields: u32, length: u32) -> u32 {
    opcode | fields | (length << 24)
}

/// A 1D-indexed operand token of `ty` with no components (`t#`, `u#`, `s#`, `g#`).
fn reg0(ty: u32) -> u32 {
    (ty << 12) | (1 << 20)
}

/// A 1D-indexed operand token of `ty` with four components and write mask `mask`.
fn masked(ty: u32, mask: u32) -> u32 {
    2 | (mask << 4) | (ty << 12) | (1 << 20)
}

/// `D3D10_SB_OPERAND_TYPE_*`.
const INPUT: u32 = 1;
const OUTPUT: u32 = 2;
const SAMPLER: u32 = 6;
const RESOURCE: u32 = 7;
const CONSTANT_BUFFER: u32 = 8;
const INPUT_PRIMITIVEID: u32 = 11;
const STREAM: u32 = 16;
const UAV: u32 = 30;
const TGSM: u32 = 31;

fn version(stage: Stage, minor: u8) -> ShaderVersion {
    ShaderVersion {
        stage,
        major: 5,
        minor,
    }
}

/// Decodes the one instruction `words` hold and hands it to `check`.
fn with_instruction(words: &[u32], version: ShaderVersion, check: impl FnOnce(&Instruction<'_>)) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut r = Reader::new(&bytes, 0);
    let inst = Instruction::decode(&mut r, version).expect("instruction decodes");
    assert_eq!(r.remaining(), 0, "the instruction takes every dword");
    check(&inst);
}

/// Decodes `words` as a pixel-shader 5.0 declaration.
fn decoded(words: &[u32], check: impl FnOnce(Declaration<'_>)) {
    decoded_in(words, version(Stage::Pixel, 0), check);
}

fn decoded_in(words: &[u32], version: ShaderVersion, check: impl FnOnce(Declaration<'_>)) {
    with_instruction(words, version, |inst| {
        let declaration = Declaration::decode(inst)
            .expect("decodes")
            .expect("is a declaration");
        check(declaration);
    });
}

/// The immediate indices of an operand.
fn indices(op: &Operand) -> Vec<u64> {
    op.indices().iter().map(|i| i.imm).collect()
}

#[test]
fn typed_multisampled_resource() {
    // dcl_resource_texture2dms(4) (float,uint,sint,unorm) t2: dimension 4 (TEXTURE2DMS) in
    // bits 11–15, sample count in bits 16–22; return types 4 bits per component, x first.
    let words = [
        op(0x58, (4 << 11) | (4 << 16), 4),
        reg0(RESOURCE),
        2,
        5 | (4 << 4) | (3 << 8) | (1 << 12),
    ];
    decoded(&words, |d| {
        let Declaration::Resource {
            operand,
            view,
            shape,
        } = d
        else {
            panic!("{d:?}")
        };
        assert_eq!(operand.ty, RegisterType::Resource);
        assert_eq!(indices(operand), [2]);
        assert_eq!(view, View::ShaderResource);
        assert_eq!(
            shape,
            Shape::Typed {
                dimension: Dim::Texture2DMs,
                return_types: [Ret::Float, Ret::Uint, Ret::Sint, Ret::Unorm],
                sample_count: Some(4),
            }
        );
    });
}

#[test]
fn sample_count_only_for_multisampled_shader_resources() {
    // Texture2D (3) with bits 16–22 set: not multisampled, so no sample count.
    let words = [
        op(0x58, (3 << 11) | (4 << 16), 4),
        reg0(RESOURCE),
        0,
        0x5555,
    ];
    decoded(&words, |d| {
        let Declaration::Resource { shape, .. } = d else {
            panic!("{d:?}")
        };
        assert_eq!(
            shape,
            Shape::Typed {
                dimension: Dim::Texture2D,
                return_types: [Ret::Float; 4],
                sample_count: None,
            }
        );
    });
    // dcl_uav_typed with dimension 4: bit 16 is globally coherent there, not a sample count.
    let words = [op(0x9c, (4 << 11) | (1 << 16), 4), reg0(UAV), 0, 0x4444];
    decoded(&words, |d| {
        let Declaration::Resource { view, shape, .. } = d else {
            panic!("{d:?}")
        };
        assert_eq!(
            view,
            View::UnorderedAccess(UavFlags {
                globally_coherent: true,
                rasterizer_ordered: false,
                counter: false,
            })
        );
        assert!(matches!(
            shape,
            Shape::Typed {
                sample_count: None,
                ..
            }
        ));
    });
}

#[test]
fn unknown_dimension_and_return_type_are_kept() {
    // Dimension 13 and return type 0 are not defined; they stay as found.
    let words = [op(0x58, 13 << 11, 4), reg0(RESOURCE), 0, 0x5550];
    decoded(&words, |d| {
        let Declaration::Resource { shape, .. } = d else {
            panic!("{d:?}")
        };
        assert_eq!(
            shape,
            Shape::Typed {
                dimension: Dim::Unknown(13),
                return_types: [Ret::Unknown(0), Ret::Float, Ret::Float, Ret::Float],
                sample_count: None,
            }
        );
    });
}

#[test]
fn uav_flags() {
    // dcl_uav_structured_glc_opc u1, 16: bit 16 globally coherent, bit 23 counter.
    let words = [op(0x9e, (1 << 16) | (1 << 23), 4), reg0(UAV), 1, 16];
    decoded(&words, |d| {
        let Declaration::Resource {
            operand,
            view,
            shape,
        } = d
        else {
            panic!("{d:?}")
        };
        assert_eq!(operand.ty, RegisterType::UnorderedAccessView);
        assert_eq!(indices(operand), [1]);
        let flags = UavFlags {
            globally_coherent: true,
            rasterizer_ordered: false,
            counter: true,
        };
        assert_eq!(view, View::UnorderedAccess(flags));
        assert_eq!(shape, Shape::Structured { stride: 16 });
    });
    // dcl_uav_raw_rov u0: bit 17 rasterizer ordered; bit 23 means a counter only on
    // structured UAVs.
    let words = [op(0x9d, (1 << 17) | (1 << 23), 3), reg0(UAV), 0];
    decoded(&words, |d| {
        let Declaration::Resource { view, shape, .. } = d else {
            panic!("{d:?}")
        };
        let flags = UavFlags {
            globally_coherent: false,
            rasterizer_ordered: true,
            counter: false,
        };
        assert_eq!(view, View::UnorderedAccess(flags));
        assert_eq!(shape, Shape::Raw);
    });
}

#[test]
fn structured_resource_stride_and_raw_resource() {
    let words = [op(0xa2, 0, 4), reg0(RESOURCE), 3, 20];
    decoded(&words, |d| {
        assert!(matches!(
            d,
            Declaration::Resource {
                view: View::ShaderResource,
                shape: Shape::Structured { stride: 20 },
                ..
            }
        ));
    });
    let words = [op(0xa1, 0, 3), reg0(RESOURCE), 2];
    decoded(&words, |d| {
        assert!(matches!(
            d,
            Declaration::Resource {
                view: View::ShaderResource,
                shape: Shape::Raw,
                ..
            }
        ));
    });
}

#[test]
fn sampler_mode() {
    // dcl_sampler s3, mode_comparison: D3D10_SB_SAMPLER_MODE_COMPARISON = 1 in bits 11–14.
    let words = [op(0x5a, 1 << 11, 3), reg0(SAMPLER), 3];
    decoded(&words, |d| {
        let Declaration::Sampler { operand, mode } = d else {
            panic!("{d:?}")
        };
        assert_eq!(indices(operand), [3]);
        assert_eq!(mode, SamplerMode::Comparison);
    });
}

#[test]
fn constant_buffer_before_and_in_sm51() {
    // dcl_constantbuffer cb2[16], dynamicIndexed: bit 11; a 2D-indexed operand.
    let cb = 2 | (1 << 2) | (0xe4 << 4) | (CONSTANT_BUFFER << 12) | (2 << 20);
    let words = [op(0x59, 1 << 11, 4), cb, 2, 16];
    decoded(&words, |d| {
        let Declaration::ConstantBuffer {
            operand,
            dynamic_indexed,
            sm51_size,
        } = d
        else {
            panic!("{d:?}")
        };
        assert_eq!(indices(operand), [2, 16]);
        assert!(dynamic_indexed);
        assert_eq!(sm51_size, None);
    });
    // SM5.1: CB0[1:3], then the size in vectors and the register space in dwords of their own.
    let cb51 = (cb & !(3 << 20)) | (3 << 20);
    let words = [op(0x59, 0, 7), cb51, 0, 1, 3, 12, 5];
    decoded_in(&words, version(Stage::Pixel, 1), |d| {
        let Declaration::ConstantBuffer {
            operand,
            dynamic_indexed,
            sm51_size,
        } = d
        else {
            panic!("{d:?}")
        };
        assert_eq!(indices(operand), [0, 1, 3]);
        assert!(!dynamic_indexed);
        assert_eq!(sm51_size, Some(12));
    });
}

#[test]
fn input_interpolation_and_system_value() {
    // dcl_input_ps linear centroid v3.xyz: D3D10_SB_INTERPOLATION_LINEAR_CENTROID = 3 in
    // bits 11–14.
    let words = [op(0x62, 3 << 11, 3), masked(INPUT, 0b0111), 3];
    decoded(&words, |d| {
        let Declaration::Io(io) = d else {
            panic!("{d:?}")
        };
        assert!(!io.output);
        assert_eq!(io.operand.ty, RegisterType::Input);
        assert_eq!(indices(io.operand), [3]);
        assert_eq!(io.mask(), Some(0b0111));
        assert_eq!(io.interpolation, Some(Interpolation::LinearCentroid));
        assert_eq!(io.system_name, None);
    });
    // dcl_input_ps_siv constant v1.x, primitive_id: mode 1; D3D10_SB_NAME_PRIMITIVE_ID = 7.
    let words = [op(0x64, 1 << 11, 4), masked(INPUT, 0b0001), 1, 7];
    decoded(&words, |d| {
        let Declaration::Io(io) = d else {
            panic!("{d:?}")
        };
        assert_eq!(io.interpolation, Some(Interpolation::Constant));
        assert_eq!(io.system_name, Some(SystemName::PrimitiveId));
    });
    // dcl_input_ps v0 with mode 0: no mode given.
    let words = [op(0x62, 0, 3), masked(INPUT, 0b1111), 0];
    decoded(&words, |d| {
        let Declaration::Io(io) = d else {
            panic!("{d:?}")
        };
        assert_eq!(io.interpolation, None);
    });
    // dcl_input (not a pixel-shader input): bits 11–14 are no interpolation mode.
    let words = [op(0x5f, 2 << 11, 3), masked(INPUT, 0b1111), 0];
    decoded_in(&words, version(Stage::Vertex, 0), |d| {
        let Declaration::Io(io) = d else {
            panic!("{d:?}")
        };
        assert_eq!(io.interpolation, None);
    });
}

#[test]
fn output_and_scalar_special_register() {
    // dcl_output_siv o0.xyzw, position (D3D10_SB_NAME_POSITION = 1).
    let words = [op(0x67, 0, 4), masked(OUTPUT, 0b1111), 0, 1];
    decoded_in(&words, version(Stage::Vertex, 0), |d| {
        let Declaration::Io(Io {
            output,
            system_name,
            ..
        }) = d
        else {
            panic!("{d:?}")
        };
        assert!(output);
        assert_eq!(system_name, Some(SystemName::Position));
    });
    // dcl_input vPrim: one component, no index, no write mask.
    let words = [op(0x5f, 0, 2), 1 | (INPUT_PRIMITIVEID << 12)];
    decoded_in(&words, version(Stage::Geometry, 0), |d| {
        let Declaration::Io(io) = d else {
            panic!("{d:?}")
        };
        assert_eq!(io.operand.ty, RegisterType::InputPrimitiveId);
        assert_eq!(io.mask(), None);
        assert_eq!(write_mask(io.operand), None);
    });
}

#[test]
fn temps_indexable_temps_thread_group_global_flags() {
    decoded(&[op(0x68, 0, 2), 5], |d| {
        assert!(matches!(d, Declaration::Temps(5)), "{d:?}");
    });
    decoded(&[op(0x69, 0, 4), 1, 8, 3], |d| {
        let Declaration::IndexableTemp(temp) = d else {
            panic!("{d:?}")
        };
        let expected = IndexableTemp {
            register: 1,
            size: 8,
            components: 3,
        };
        assert_eq!(temp, expected);
    });
    let cs = version(Stage::Compute, 0);
    decoded_in(&[op(0x9b, 0, 4), 8, 4, 2], cs, |d| {
        assert!(matches!(d, Declaration::ThreadGroup([8, 4, 2])), "{d:?}");
    });
    // refactoringAllowed (bit 11) and forceEarlyDepthStencil (bit 13).
    decoded(&[op(0x6a, (1 << 11) | (1 << 13), 1)], |d| {
        let Declaration::GlobalFlags(flags) = d else {
            panic!("{d:?}")
        };
        assert_eq!(flags, GlobalFlags((1 << 11) | (1 << 13)));
        assert!(flags.refactoring_allowed() && flags.force_early_depth_stencil());
    });
}

#[test]
fn thread_group_shared_memory() {
    let cs = version(Stage::Compute, 0);
    decoded_in(&[op(0x9f, 0, 4), reg0(TGSM), 0, 1024], cs, |d| {
        let Declaration::Tgsm { operand, kind } = d else {
            panic!("{d:?}")
        };
        assert_eq!(operand.ty, RegisterType::ThreadGroupSharedMemory);
        assert_eq!(kind, TgsmKind::Raw { bytes: 1024 });
    });
    decoded_in(&[op(0xa0, 0, 5), reg0(TGSM), 1, 12, 64], cs, |d| {
        let Declaration::Tgsm { operand, kind } = d else {
            panic!("{d:?}")
        };
        assert_eq!(indices(operand), [1]);
        assert_eq!(
            kind,
            TgsmKind::Structured {
                stride: 12,
                count: 64
            }
        );
    });
}

#[test]
fn geometry_shader_declarations() {
    let gs = version(Stage::Geometry, 0);
    // D3D10_SB_PRIMITIVE_TRIANGLE = 3, D3D11_SB_PRIMITIVE_3_CONTROL_POINT_PATCH = 10 (bits 11–16).
    decoded_in(&[op(0x5d, 3 << 11, 1)], gs, |d| {
        assert!(
            matches!(d, Declaration::InputPrimitive(InputPrimitive::Triangle)),
            "{d:?}"
        );
    });
    decoded_in(&[op(0x5d, 10 << 11, 1)], gs, |d| {
        assert!(
            matches!(d, Declaration::InputPrimitive(InputPrimitive::Patch(3))),
            "{d:?}"
        );
    });
    // D3D10_SB_PRIMITIVE_TOPOLOGY_TRIANGLESTRIP = 5 (bits 11–17).
    decoded_in(&[op(0x5c, 5 << 11, 1)], gs, |d| {
        assert!(
            matches!(
                d,
                Declaration::OutputTopology(OutputTopology::TriangleStrip)
            ),
            "{d:?}"
        );
    });
    decoded_in(&[op(0x5e, 0, 2), 12], gs, |d| {
        assert!(matches!(d, Declaration::MaxOutputVertices(12)), "{d:?}");
    });
    decoded_in(&[op(0xce, 0, 2), 6], gs, |d| {
        assert!(matches!(d, Declaration::GsInstances(6)), "{d:?}");
    });
    decoded_in(&[op(0x8f, 0, 3), reg0(STREAM), 2], gs, |d| {
        let Declaration::Stream(operand) = d else {
            panic!("{d:?}")
        };
        assert_eq!(operand.ty, RegisterType::Stream);
        assert_eq!(indices(operand), [2]);
    });
}

#[test]
fn hull_and_domain_shader_declarations() {
    let hs = version(Stage::Hull, 0);
    decoded_in(&[op(0x71, 0, 1)], hs, |d| {
        assert!(
            matches!(d, Declaration::Phase(HullPhase::Declarations)),
            "{d:?}"
        );
    });
    decoded_in(&[op(0x72, 0, 1)], hs, |d| {
        assert!(
            matches!(d, Declaration::Phase(HullPhase::ControlPoint)),
            "{d:?}"
        );
    });
    decoded_in(&[op(0x99, 0, 2), 4], hs, |d| {
        assert!(
            matches!(
                d,
                Declaration::PhaseInstanceCount {
                    phase: InstancedPhase::Fork,
                    count: 4
                }
            ),
            "{d:?}"
        );
    });
    // Control-point counts in bits 11–16.
    decoded_in(&[op(0x93, 3 << 11, 1)], hs, |d| {
        assert!(matches!(d, Declaration::InputControlPoints(3)), "{d:?}");
    });
    decoded_in(&[op(0x94, 32 << 11, 1)], hs, |d| {
        assert!(matches!(d, Declaration::OutputControlPoints(32)), "{d:?}");
    });
    // D3D11_SB_TESSELLATOR_DOMAIN_TRI = 2 (bits 11–12).
    decoded_in(&[op(0x95, 2 << 11, 1)], hs, |d| {
        assert!(
            matches!(d, Declaration::TessDomain(TessDomain::Triangle)),
            "{d:?}"
        );
    });
    // D3D11_SB_TESSELLATOR_PARTITIONING_FRACTIONAL_ODD = 3 (bits 11–13).
    decoded_in(&[op(0x96, 3 << 11, 1)], hs, |d| {
        assert!(
            matches!(
                d,
                Declaration::TessPartitioning(TessPartitioning::FractionalOdd)
            ),
            "{d:?}"
        );
    });
    // D3D11_SB_TESSELLATOR_OUTPUT_TRIANGLE_CCW = 4; 0 is undefined and kept as found.
    decoded_in(&[op(0x97, 4 << 11, 1)], hs, |d| {
        assert!(
            matches!(
                d,
                Declaration::TessOutputPrimitive(TessOutputPrimitive::TriangleCcw)
            ),
            "{d:?}"
        );
    });
    decoded_in(&[op(0x97, 0, 1)], hs, |d| {
        assert!(
            matches!(
                d,
                Declaration::TessOutputPrimitive(TessOutputPrimitive::Unknown(0))
            ),
            "{d:?}"
        );
    });
    // dcl_hs_max_tessfactor l(64.0): an IEEE float.
    decoded_in(&[op(0x98, 0, 2), 0x4280_0000], hs, |d| {
        let Declaration::MaxTessFactor(f) = d else {
            panic!("{d:?}")
        };
        assert_eq!(f, 64.0);
    });
}

#[test]
fn immediate_constant_buffer_and_other_custom_data() {
    // customdata: class in bits 11–31, then the length in dwords including both header dwords.
    let words = [0x35 | (ICB_CLASS << 11), 5, 1, 2, 0x3f80_0000];
    decoded(&words, |d| {
        let Declaration::ImmediateConstantBuffer(dwords) = d else {
            panic!("{d:?}")
        };
        assert_eq!(dwords.len(), 3);
        assert_eq!(dwords.iter().collect::<Vec<_>>(), [1, 2, 0x3f80_0000]);
    });
    // A comment block (class 0) declares nothing.
    with_instruction(&[0x35, 3, 0x6869], version(Stage::Pixel, 0), |inst| {
        assert!(matches!(Declaration::decode(inst), Ok(None)));
    });
}

#[test]
fn executable_instructions_declare_nothing() {
    with_instruction(&[op(0x3e, 0, 1)], version(Stage::Pixel, 0), |inst| {
        assert!(matches!(Declaration::decode(inst), Ok(None)));
    });
}
