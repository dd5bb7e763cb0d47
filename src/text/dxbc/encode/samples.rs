//! The committed samples under `fixtures/samples/`, described in Rust and built with
//! [`ProgramBuilder`], [`write_signature`] and [`write_container`]. No third-party bytes: every
//! dword comes from these descriptions. `encode_tests::fixtures_are_up_to_date` compares them
//! with the committed files (`BLESS=1` rewrites them); see `fixtures/README.md`.

use super::token::{
    controls, resource_dimension, resource_return_type, return_types, sample_offsets,
};
use super::{imm32, reg, relative, words_to_bytes, write_container, write_signature};
use super::{OperandBuild, ProgramBuilder};
use crate::front::dxbc::container::FourCc;
use crate::front::dxbc::names::{self, NameTable};
use crate::front::dxbc::opcodes::Opcode as Op;
use crate::front::dxbc::operand::{Modifier, Operand, RegisterType as R};
use crate::front::dxbc::program::{ShaderVersion, Stage};
use crate::front::dxbc::signature::{ComponentType, Element, MinPrecision, Signature, SystemValue};

/// One sample: its file stem and its container bytes.
pub(crate) struct Sample {
    /// File stem under `fixtures/samples/`.
    pub name: &'static str,
    /// The whole container.
    pub bytes: Vec<u8>,
}

/// Every sample, in file-name order.
pub(crate) fn all() -> Vec<Sample> {
    vec![
        cs50_structured_tgsm(),
        gs40_triangle_loop(),
        hs50_tri_factors(),
        ps50_sample_cbuffer(),
        ps51_spaces_icb(),
        vs40_passthrough(),
    ]
}

/// The value spelled `name` in `table` (the disassembler's spelling).
fn v(table: NameTable, name: &str) -> u32 {
    names::reverse(table, name).unwrap_or_else(|| panic!("no `{name}` in the name table"))
}

const XYZW: [u8; 4] = [0, 1, 2, 3];
const XYXX: [u8; 4] = [0, 1, 0, 0];
const XXXX: [u8; 4] = [0, 0, 0, 0];
const FLOAT4: [u32; 4] = [5, 5, 5, 5];

fn version(stage: Stage, major: u8, minor: u8) -> ShaderVersion {
    ShaderVersion {
        stage,
        major,
        minor,
    }
}

/// A signature element with the common defaults (stream 0, full precision, float). As fxc
/// does, pixel-shader outputs such as `SV_Target` are stored with system value 0 (reflection
/// derives `TARGET` from the name).
fn element(
    name: &'static str,
    semantic_index: u32,
    system_value: SystemValue,
    register: u32,
    mask: u8,
    rw_mask: u8,
) -> Element<'static> {
    Element {
        stream: 0,
        name,
        semantic_index,
        system_value,
        component_type: ComponentType::Float32,
        register,
        mask,
        rw_mask,
        min_precision: MinPrecision::Default,
    }
}

fn signature(fourcc: FourCc, elements: Vec<Element<'static>>) -> Vec<u8> {
    write_signature(&Signature { fourcc, elements }).expect("sample signature")
}

/// A container of signature chunks followed by the program chunk.
fn container(
    signatures: Vec<(FourCc, Vec<u8>)>,
    program: FourCc,
    b: &mut ProgramBuilder,
) -> Vec<u8> {
    let words = b.finish().expect("sample program");
    let code = words_to_bytes(&words);
    let mut chunks: Vec<(FourCc, &[u8])> =
        signatures.iter().map(|(f, d)| (*f, d.as_slice())).collect();
    chunks.push((program, &code));
    write_container(&chunks).expect("sample container")
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// `l(x)` as a scalar immediate.
fn l(x: u32) -> Operand {
    imm32([x, 0, 0, 0]).scalar()
}

/// vs_4_0: position and texture coordinate passed through.
fn vs40_passthrough() -> Sample {
    let isgn = signature(
        FourCc::ISGN,
        vec![
            element("POSITION", 0, SystemValue::Undefined, 0, 0xf, 0xf),
            element("SAMPLE_UV", 0, SystemValue::Undefined, 1, 0x3, 0x3),
        ],
    );
    // Semantic names of our own: the plain POSITION/TEXCOORD pass-through is byte for byte a
    // shader that many projects (and our corpus) carry, and fixtures must be our own.
    let osgn = signature(
        FourCc::OSGN,
        vec![
            element("SV_Position", 0, SystemValue::Position, 0, 0xf, 0),
            element("SAMPLE_UV", 0, SystemValue::Undefined, 1, 0x3, 0xc),
        ],
    );
    let mut b = ProgramBuilder::new(version(Stage::Vertex, 4, 0));
    b.op(Op::DclInput, 0).dst(reg(R::Input, &[0]).mask(0xf));
    b.op(Op::DclInput, 0).dst(reg(R::Input, &[1]).mask(0x3));
    b.op(Op::DclOutputSiv, 0)
        .dst(reg(R::Output, &[0]).mask(0xf))
        .name(v(names::SYSTEM_VALUES, "position"));
    b.op(Op::DclOutput, 0).dst(reg(R::Output, &[1]).mask(0x3));
    b.op(Op::Mov, 0)
        .dst(reg(R::Output, &[0]).mask(0xf))
        .src(reg(R::Input, &[0]).swizzle(XYZW));
    b.op(Op::Mov, 0)
        .dst(reg(R::Output, &[1]).mask(0x3))
        .src(reg(R::Input, &[1]).swizzle(XYXX));
    b.op(Op::Ret, 0);
    Sample {
        name: "vs40_passthrough",
        bytes: container(
            vec![(FourCc::ISGN, isgn), (FourCc::OSGN, osgn)],
            FourCc::SHDR,
            &mut b,
        ),
    }
}

/// ps_5_0: a texture sample with an immediate offset, scaled and biased by a constant buffer,
/// with a negate modifier and `_sat`.
fn ps50_sample_cbuffer() -> Sample {
    let isgn = signature(
        FourCc::ISGN,
        vec![
            element("SV_Position", 0, SystemValue::Position, 0, 0xf, 0),
            element("TEXCOORD", 0, SystemValue::Undefined, 1, 0x3, 0x3),
        ],
    );
    let osgn = signature(
        FourCc::OSGN,
        vec![element("SV_Target", 0, SystemValue::Undefined, 0, 0xf, 0)],
    );
    let mut b = ProgramBuilder::new(version(Stage::Pixel, 5, 0));
    b.op(Op::DclGlobalFlags, controls::REFACTORING_ALLOWED);
    b.op(Op::DclConstantBuffer, 0)
        .src(reg(R::ConstantBuffer, &[0, 2]).swizzle(XYZW));
    b.op(Op::DclSampler, v(names::SAMPLER_MODES, "mode_default"))
        .dst(reg(R::Sampler, &[0]));
    b.op(
        Op::DclResource,
        controls::resource_dimension(v(names::RESOURCE_DIMENSIONS, "texture2d")),
    )
    .dst(reg(R::Resource, &[0]))
    .return_type(return_types(FLOAT4).expect("return types"));
    b.op(
        Op::DclInputPs,
        controls::interpolation(v(names::INTERPOLATION_MODES, "linear")),
    )
    .dst(reg(R::Input, &[1]).mask(0x3));
    b.op(Op::DclOutput, 0).dst(reg(R::Output, &[0]).mask(0xf));
    b.op(Op::DclTemps, 0).imm(1);
    b.op(Op::Sample, 0)
        .ext(sample_offsets(1, -1, 0).expect("offsets"))
        .dst(reg(R::Temp, &[0]).mask(0xf))
        .src(reg(R::Input, &[1]).swizzle(XYXX))
        .src(reg(R::Resource, &[0]).swizzle(XYZW))
        .src(reg(R::Sampler, &[0]));
    b.op(Op::Mad, controls::SATURATE)
        .dst(reg(R::Output, &[0]).mask(0xf))
        .src(reg(R::Temp, &[0]).swizzle(XYZW).modifier(Modifier::Neg))
        .src(reg(R::ConstantBuffer, &[0, 0]).swizzle(XYZW))
        .src(reg(R::ConstantBuffer, &[0, 1]).swizzle(XYZW));
    b.op(Op::Ret, 0);
    Sample {
        name: "ps50_sample_cbuffer",
        bytes: container(
            vec![(FourCc::ISGN, isgn), (FourCc::OSGN, osgn)],
            FourCc::SHEX,
            &mut b,
        ),
    }
}

/// cs_5_0: each thread loads a structured UAV element, shares it through TGSM, synchronizes,
/// and adds its neighbour's value back into the UAV.
fn cs50_structured_tgsm() -> Sample {
    let empty = || signature(FourCc::ISGN, Vec::new());
    let mut b = ProgramBuilder::new(version(Stage::Compute, 5, 0));
    let flat = || reg(R::InputThreadIdInGroupFlattened, &[]);
    let tid_x = || reg(R::InputThreadId, &[]).select(0);
    let r = |i| reg(R::Temp, &[i]);
    b.op(Op::DclGlobalFlags, controls::REFACTORING_ALLOWED);
    b.op(Op::DclUavStructured, 0)
        .dst(reg(R::UnorderedAccessView, &[0]))
        .imm(4);
    b.op(Op::DclInput, 0).dst(flat());
    b.op(Op::DclInput, 0)
        .dst(reg(R::InputThreadId, &[]).mask(0x1));
    b.op(Op::DclTemps, 0).imm(2);
    b.op(Op::DclTgsmStructured, 0)
        .dst(reg(R::ThreadGroupSharedMemory, &[0]))
        .imm(4)
        .imm(64);
    b.op(Op::DclThreadGroup, 0).imm(64).imm(1).imm(1);
    let structured = v(names::RESOURCE_DIMENSIONS, "structured_buffer");
    b.op(Op::LdStructured, 0)
        .ext(resource_dimension(structured, 4).expect("dimension"))
        .ext(resource_return_type(return_types([6; 4]).expect("types")).expect("ext"))
        .dst(r(0).mask(0x1))
        .src(tid_x())
        .src(l(0))
        .src(reg(R::UnorderedAccessView, &[0]).swizzle(XXXX));
    b.op(Op::StoreStructured, 0)
        .dst(reg(R::ThreadGroupSharedMemory, &[0]).mask(0x1))
        .src(flat().select(0))
        .src(l(0))
        .src(r(0).select(0));
    b.op(Op::Sync, controls::SYNC_THREADS | controls::SYNC_TGSM);
    b.op(Op::Iadd, 0)
        .dst(r(1).mask(0x1))
        .src(flat().select(0))
        .src(l(1));
    b.op(Op::And, 0)
        .dst(r(1).mask(0x1))
        .src(r(1).select(0))
        .src(l(63));
    b.op(Op::LdStructured, 0)
        .dst(r(1).mask(0x1))
        .src(r(1).select(0))
        .src(l(0))
        .src(reg(R::ThreadGroupSharedMemory, &[0]).swizzle(XXXX));
    b.op(Op::Iadd, 0)
        .dst(r(0).mask(0x1))
        .src(r(0).select(0))
        .src(r(1).select(0));
    b.op(Op::StoreStructured, 0)
        .dst(reg(R::UnorderedAccessView, &[0]).mask(0x1))
        .src(tid_x())
        .src(l(0))
        .src(r(0).select(0));
    b.op(Op::Ret, 0);
    let osgn = signature(FourCc::OSGN, Vec::new());
    Sample {
        name: "cs50_structured_tgsm",
        bytes: container(
            vec![(FourCc::ISGN, empty()), (FourCc::OSGN, osgn)],
            FourCc::SHEX,
            &mut b,
        ),
    }
}

/// gs_4_0: emits the input triangle as a strip from a loop that indexes the input vertices
/// relatively (`v[r0.x + 0][0]`).
fn gs40_triangle_loop() -> Sample {
    let isgn = signature(
        FourCc::ISGN,
        vec![element(
            "SV_Position",
            0,
            SystemValue::Position,
            0,
            0xf,
            0xf,
        )],
    );
    let osgn = signature(
        FourCc::OSGN,
        vec![element("SV_Position", 0, SystemValue::Position, 0, 0xf, 0)],
    );
    let position = v(names::SYSTEM_VALUES, "position");
    let r0 = || reg(R::Temp, &[0]);
    let mut b = ProgramBuilder::new(version(Stage::Geometry, 4, 0));
    b.op(Op::DclInputSiv, 0)
        .dst(reg(R::Input, &[3, 0]).mask(0xf))
        .name(position);
    b.op(Op::DclTemps, 0).imm(1);
    b.op(
        Op::DclInputPrimitive,
        controls::primitive(v(names::INPUT_PRIMITIVES, "triangle")),
    );
    b.op(
        Op::DclOutputTopology,
        controls::primitive(v(names::OUTPUT_TOPOLOGIES, "trianglestrip")),
    );
    b.op(Op::DclOutputSiv, 0)
        .dst(reg(R::Output, &[0]).mask(0xf))
        .name(position);
    b.op(Op::DclMaxOutputVertexCount, 0).imm(3);
    b.op(Op::Mov, 0).dst(r0().mask(0x1)).src(l(0));
    b.op(Op::Loop, 0);
    b.op(Op::Ige, 0)
        .dst(r0().mask(0x2))
        .src(r0().select(0))
        .src(l(3));
    b.op(Op::Breakc, controls::TEST_NONZERO).src(r0().select(1));
    b.op(Op::Mov, 0).dst(reg(R::Output, &[0]).mask(0xf)).src(
        reg(R::Input, &[0, 0])
            .relative_index(0, Some(0), relative(R::Temp, &[0], 0))
            .swizzle(XYZW),
    );
    b.op(Op::Emit, 0);
    b.op(Op::Iadd, 0)
        .dst(r0().mask(0x1))
        .src(r0().select(0))
        .src(l(1));
    b.op(Op::EndLoop, 0);
    b.op(Op::Cut, 0);
    b.op(Op::Ret, 0);
    Sample {
        name: "gs40_triangle_loop",
        bytes: container(
            vec![(FourCc::ISGN, isgn), (FourCc::OSGN, osgn)],
            FourCc::SHDR,
            &mut b,
        ),
    }
}

/// hs_5_0: pass-through control points (no control-point phase), a fork phase writing the three
/// edge factors through `vForkInstanceID` and an index range, a join phase writing the inside
/// factor.
fn hs50_tri_factors() -> Sample {
    let control_point = || vec![element("POSITION", 0, SystemValue::Undefined, 0, 0xf, 0xf)];
    let isgn = signature(FourCc::ISGN, control_point());
    let mut out = control_point();
    out[0].rw_mask = 0;
    let osgn = signature(FourCc::OSGN, out);
    let pcsg = signature(
        FourCc::PCSG,
        vec![
            element(
                "SV_TessFactor",
                0,
                SystemValue::FinalTriEdgeTessFactor,
                0,
                0x1,
                0xe,
            ),
            element(
                "SV_TessFactor",
                1,
                SystemValue::FinalTriEdgeTessFactor,
                1,
                0x1,
                0xe,
            ),
            element(
                "SV_TessFactor",
                2,
                SystemValue::FinalTriEdgeTessFactor,
                2,
                0x1,
                0xe,
            ),
            element(
                "SV_InsideTessFactor",
                0,
                SystemValue::FinalTriInsideTessFactor,
                3,
                0x1,
                0xe,
            ),
        ],
    );
    let mut b = ProgramBuilder::new(version(Stage::Hull, 5, 0));
    b.op(Op::HsDecls, 0);
    b.op(Op::DclInputControlPointCount, controls::primitive(3));
    b.op(Op::DclOutputControlPointCount, controls::primitive(3));
    b.op(
        Op::DclTessDomain,
        controls::primitive(v(names::TESS_DOMAINS, "domain_tri")),
    );
    b.op(
        Op::DclTessPartitioning,
        controls::primitive(v(names::TESS_PARTITIONINGS, "partitioning_integer")),
    );
    b.op(
        Op::DclTessOutputPrimitive,
        controls::primitive(v(names::TESS_OUTPUT_PRIMITIVES, "output_triangle_cw")),
    );
    b.op(Op::DclHsMaxTessFactor, 0).float(64.0);
    b.op(Op::HsForkPhase, 0);
    b.op(Op::DclHsForkPhaseInstanceCount, 0).imm(3);
    b.op(Op::DclInput, 0).dst(reg(R::InputForkInstanceId, &[]));
    for (i, name) in [
        "finalTriUeq0EdgeTessFactor",
        "finalTriVeq0EdgeTessFactor",
        "finalTriWeq0EdgeTessFactor",
    ]
    .into_iter()
    .enumerate()
    {
        b.op(Op::DclOutputSiv, 0)
            .dst(reg(R::Output, &[i as u32]).mask(0x1))
            .name(v(names::SYSTEM_VALUES, name));
    }
    b.op(Op::DclTemps, 0).imm(1);
    b.op(Op::DclIndexRange, 0)
        .dst(reg(R::Output, &[0]).mask(0x1))
        .imm(3);
    b.op(Op::Mov, 0)
        .dst(reg(R::Temp, &[0]).mask(0x1))
        .src(reg(R::InputForkInstanceId, &[]).select(0));
    b.op(Op::Mov, 0)
        .dst(
            reg(R::Output, &[0])
                .relative_index(0, Some(0), relative(R::Temp, &[0], 0))
                .mask(0x1),
        )
        .src(l(f(4.0)));
    b.op(Op::Ret, 0);
    b.op(Op::HsJoinPhase, 0);
    b.op(Op::DclOutputSiv, 0)
        .dst(reg(R::Output, &[3]).mask(0x1))
        .name(v(names::SYSTEM_VALUES, "finalTriInsideTessFactor"));
    b.op(Op::Mov, 0)
        .dst(reg(R::Output, &[3]).mask(0x1))
        .src(l(f(4.0)));
    b.op(Op::Ret, 0);
    Sample {
        name: "hs50_tri_factors",
        bytes: container(
            vec![
                (FourCc::ISGN, isgn),
                (FourCc::OSGN, osgn),
                (FourCc::PCSG, pcsg),
            ],
            FourCc::SHEX,
            &mut b,
        ),
    }
}

/// ps_5_1: SM5.1 resource ranges and spaces (an unbounded texture range indexed
/// `nonuniform`ly), a constant buffer with its size, and an immediate constant buffer.
fn ps51_spaces_icb() -> Sample {
    let mut index = element("INDEX", 0, SystemValue::Undefined, 2, 0x1, 0x1);
    index.component_type = ComponentType::Uint32;
    let isgn = signature(
        FourCc::ISGN,
        vec![
            element("SV_Position", 0, SystemValue::Position, 0, 0xf, 0),
            element("TEXCOORD", 0, SystemValue::Undefined, 1, 0x3, 0x3),
            index,
        ],
    );
    let osgn = signature(
        FourCc::OSGN,
        vec![element("SV_Target", 0, SystemValue::Undefined, 0, 0xf, 0)],
    );
    let v2x = || relative(R::Input, &[2], 0);
    let r0 = || reg(R::Temp, &[0]);
    let mut b = ProgramBuilder::new(version(Stage::Pixel, 5, 1));
    b.op(Op::DclGlobalFlags, controls::REFACTORING_ALLOWED);
    b.custom_data(
        3,
        &[
            f(0.25),
            f(0.5),
            f(0.75),
            f(1.0),
            f(1.0),
            f(0.75),
            f(0.5),
            f(0.25),
        ],
    );
    b.op(Op::DclConstantBuffer, 0)
        .src(reg(R::ConstantBuffer, &[0, 0, 0]).swizzle(XYZW))
        .cb_size(1)
        .space(0);
    b.op(Op::DclSampler, v(names::SAMPLER_MODES, "mode_default"))
        .dst(reg(R::Sampler, &[0, 0, 0]).swizzle(XYZW))
        .space(0);
    b.op(
        Op::DclResource,
        controls::resource_dimension(v(names::RESOURCE_DIMENSIONS, "texture2d")),
    )
    .dst(reg(R::Resource, &[0, 0, u32::MAX]).swizzle(XYZW))
    .return_type(return_types(FLOAT4).expect("return types"))
    .space(1);
    b.op(
        Op::DclInputPs,
        controls::interpolation(v(names::INTERPOLATION_MODES, "linear")),
    )
    .dst(reg(R::Input, &[1]).mask(0x3));
    b.op(
        Op::DclInputPs,
        controls::interpolation(v(names::INTERPOLATION_MODES, "constant")),
    )
    .dst(reg(R::Input, &[2]).mask(0x1));
    b.op(Op::DclOutput, 0).dst(reg(R::Output, &[0]).mask(0xf));
    b.op(Op::DclTemps, 0).imm(1);
    b.op(Op::Sample, 0)
        .dst(r0().mask(0xf))
        .src(reg(R::Input, &[1]).swizzle(XYXX))
        .src(
            reg(R::Resource, &[0, 0])
                .relative_index(1, Some(0), v2x())
                .nonuniform()
                .swizzle(XYZW),
        )
        .src(reg(R::Sampler, &[0, 0]));
    b.op(Op::Mul, 0)
        .dst(r0().mask(0xf))
        .src(r0().swizzle(XYZW))
        .src(
            reg(R::ImmediateConstantBuffer, &[0])
                .relative_index(0, Some(0), v2x())
                .swizzle(XXXX),
        );
    b.op(Op::Mul, 0)
        .dst(reg(R::Output, &[0]).mask(0xf))
        .src(r0().swizzle(XYZW))
        .src(reg(R::ConstantBuffer, &[0, 0, 0]).swizzle(XYZW));
    b.op(Op::Ret, 0);
    Sample {
        name: "ps51_spaces_icb",
        bytes: container(
            vec![(FourCc::ISGN, isgn), (FourCc::OSGN, osgn)],
            FourCc::SHEX,
            &mut b,
        ),
    }
}
