//! Unit tests of texture declarations, queries and refusals: small hand-built IR
//! modules, emitted for Vulkan 1.0, 1.1 and 1.3 with and without sparse residency, each
//! checked by `spirv-val`. The harness is shared with `tests_sample.rs`, `tests_load.rs` and
//! `tests_corpus.rs`.
//!
//! Implicit-LOD forms need a fragment shader, which the back end cannot emit yet: those tests
//! set `ASSUME_PIXEL` and retarget the emitted module to the Fragment execution model
//! ([`as_fragment`]) before validating it.

use crate::back::spirv::Error;
use crate::back::spirv::{descriptor_type, emit, DescriptorType, EmitOptions};
use crate::bindings::{BindingTarget, Count, RegisterRange, ResourceKind, VulkanBinding};
use crate::ir::{
    Dimension, Dst, Function, Index, Inst, Module, Op, Payload, Reg, ResinfoReturn, ResourceDecl,
    ResourceId, ResourceShape, ReturnType, SampleinfoReturn, SamplerDecl, SamplerId, Src, Stage,
};
use crate::spv::tests::tools::{disassemble, validate};
use crate::spv::Version;

use super::sample::ASSUME_PIXEL;

/// The versions and environments every module is checked in.
pub(super) const VERSIONS: [(Version, &str); 3] = [
    (Version::V1_0, "vulkan1.0"),
    (Version::V1_3, "vulkan1.1"),
    (Version::V1_6, "vulkan1.3"),
];

/// Every dimension a texture SRV can have.
pub(super) const SRV_DIMS: [Dimension; 9] = [
    Dimension::Texture1D,
    Dimension::Texture1DArray,
    Dimension::Texture2D,
    Dimension::Texture2DArray,
    Dimension::Texture2DMS,
    Dimension::Texture2DMSArray,
    Dimension::Texture3D,
    Dimension::TextureCube,
    Dimension::TextureCubeArray,
];

fn target(binding: u32) -> Option<BindingTarget> {
    Some(BindingTarget::Descriptor(VulkanBinding {
        set: 0,
        binding,
        array_offset: 0,
        descriptor_count: Count::Bounded(1),
    }))
}

/// A typed `t#` (`uav == false`) or `u#` declaration of `dim` and return type `ret`.
pub(super) fn tex(uav: bool, register: u32, dim: Dimension, ret: ReturnType) -> ResourceDecl {
    let kind = if uav {
        ResourceKind::UnorderedAccess
    } else {
        ResourceKind::ShaderResource
    };
    let samples = if matches!(dim, Dimension::Texture2DMS | Dimension::Texture2DMSArray) {
        4
    } else {
        0
    };
    ResourceDecl {
        range: RegisterRange::single(kind, 0, register),
        id: register,
        shape: ResourceShape::Typed {
            dim,
            ret: [ret; 4],
            samples,
        },
        coherent: false,
        rasterizer_ordered: false,
        counter: false,
        binding: target(register + if uav { 100 } else { 0 }),
        counter_binding: None,
        view_of: None,
        span: 0,
    }
}

/// `s#` declaration.
pub(super) fn sampler(register: u32, comparison: bool) -> SamplerDecl {
    SamplerDecl {
        range: RegisterRange::single(ResourceKind::Sampler, 0, register),
        id: register,
        comparison,
        binding: target(200 + register),
        span: 0,
    }
}

/// A compute module with `resources`, `samplers`, 4 temps and `insts` (plus `ret`).
pub(super) fn module(
    resources: Vec<ResourceDecl>,
    samplers: Vec<SamplerDecl>,
    mut insts: Vec<Inst>,
) -> Module {
    insts.push(Inst::new(Op::Ret, 0));
    Module {
        model: (5, 0),
        temps: 4,
        resources,
        samplers,
        thread_group: [8, 1, 1],
        functions: vec![Function {
            label: None,
            body: 0..insts.len() as u32,
            span: 0,
        }],
        insts,
        ..Module::new(Stage::Compute)
    }
}

/// An instruction at offset 0x40.
pub(super) fn inst(op: Op, dsts: &[Dst], srcs: &[Src]) -> Inst {
    let mut i = Inst::new(op, 0x40);
    for d in dsts {
        assert!(i.push_dst(*d));
    }
    for s in srcs {
        assert!(i.push_src(*s));
    }
    i
}

/// [`inst`] with a payload (texel offsets, return type).
pub(super) fn inst_aux(op: Op, payload: Payload, dsts: &[Dst], srcs: &[Src]) -> Inst {
    let mut i = inst(op, dsts, srcs);
    i.payload = payload;
    i
}

/// `r#` with `mask`.
pub(super) fn r(n: u32, mask: u8) -> Dst {
    Dst {
        reg: Reg::Temp(n),
        mask,
    }
}

/// `r#` read with the identity swizzle.
pub(super) fn rs(n: u32) -> Src {
    Src::new(Reg::Temp(n))
}

/// `reg` read through `swizzle`.
pub(super) fn swz(reg: Reg, swizzle: [u8; 4]) -> Src {
    Src {
        swizzle,
        ..Src::new(reg)
    }
}

/// `l(v, v, v, v)`.
pub(super) fn imm(v: u32) -> Src {
    Src::new(Reg::Imm32([v; 4]))
}

/// `l(f, f, f, f)`.
pub(super) fn immf(f: f32) -> Src {
    imm(f.to_bits())
}

/// `t#` operand of declaration `decl`.
pub(super) fn t(decl: u32) -> Src {
    Src::new(Reg::Resource {
        decl: ResourceId::new(decl),
        element: Index::imm(0),
    })
}

/// `u#` register of declaration `decl`.
pub(super) fn u(decl: u32) -> Reg {
    Reg::Uav {
        decl: ResourceId::new(decl),
        element: Index::imm(0),
    }
}

/// `s#` operand of sampler `decl`, its swizzle selecting component `c` (gathers).
pub(super) fn s(decl: u32, c: u8) -> Src {
    swz(
        Reg::Sampler {
            decl: SamplerId::new(decl),
            element: Index::imm(0),
        },
        [c; 4],
    )
}

/// Packed immediate offsets.
pub(super) fn offsets(u: i8, v: i8, w: i8) -> Payload {
    Payload::TexelOffsets([u, v, w])
}

/// Emission options.
pub(super) fn options(version: Version, sparse: bool) -> EmitOptions {
    EmitOptions {
        sparse_residency: sparse,
        ..EmitOptions::for_tests(version)
    }
}

/// Emits `m` for every version, with and without sparse residency, validates each, and
/// returns the SPIR-V 1.3 disassemblies `(without, with)` sparse residency (empty when
/// `spirv-dis` is skipped).
pub(super) fn check(m: &Module) -> (String, String) {
    check_as(m, false)
}

/// [`check`] with the LOD chosen as in a pixel shader and the module validated as a
/// fragment shader.
pub(super) fn check_pixel(m: &Module) -> (String, String) {
    check_as(m, true)
}

fn check_as(m: &Module, pixel: bool) -> (String, String) {
    let mut listings = (String::new(), String::new());
    for sparse in [false, true] {
        for (version, env) in VERSIONS {
            ASSUME_PIXEL.with(|a| a.set(pixel));
            let result = emit(m, &options(version, sparse));
            ASSUME_PIXEL.with(|a| a.set(false));
            let mut words = result.unwrap_or_else(|e| panic!("{version} sparse={sparse}: {e}"));
            if pixel {
                words = as_fragment(&words);
            }
            validate(&words, env);
            if version == Version::V1_3 {
                let l = disassemble(&words).unwrap_or_default();
                if sparse {
                    listings.1 = l;
                } else {
                    listings.0 = l;
                }
            }
        }
    }
    listings
}

/// Retargets a compute module with no compute built-ins to a fragment shader: the entry point
/// becomes `Fragment` and its `LocalSize` mode `OriginUpperLeft`.
pub(super) fn as_fragment(words: &[u32]) -> Vec<u32> {
    let mut out = words[..5].to_vec();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        let opcode = words[i] & 0xffff;
        let inst = &words[i..i + count.max(1)];
        match opcode {
            // OpEntryPoint: execution model Fragment.
            15 => {
                out.push(inst[0]);
                out.push(4);
                out.extend(&inst[2..]);
            }
            // OpExecutionMode LocalSize → OriginUpperLeft.
            16 if inst[2] == 17 => out.extend([(3 << 16) | 16, inst[1], 7]),
            _ => out.extend(inst),
        }
        i += count.max(1);
    }
    out
}

/// The error emission gives for `m`.
pub(super) fn emit_err(m: &Module) -> Error {
    emit(m, &options(Version::V1_3, false)).expect_err("emission should fail")
}

#[test]
fn every_dimension_and_return_type_declares_an_image() {
    for dim in SRV_DIMS {
        for ret in [
            ReturnType::Float,
            ReturnType::Unorm,
            ReturnType::Snorm,
            ReturnType::Uint,
            ReturnType::Sint,
        ] {
            let m = module(
                vec![tex(false, 0, dim, ret)],
                vec![],
                vec![inst_aux(
                    Op::Resinfo,
                    Payload::Resinfo(ResinfoReturn::Uint),
                    &[r(0, 0xf)],
                    &[imm(0), t(0)],
                )],
            );
            let (listing, _) = check(&m);
            if listing.is_empty() {
                continue;
            }
            assert!(listing.contains("OpTypeImage"), "{listing}");
            assert!(listing.contains("DescriptorSet 0"), "{listing}");
            let one_d = matches!(dim, Dimension::Texture1D | Dimension::Texture1DArray);
            assert_eq!(listing.contains("Capability Sampled1D"), one_d, "{listing}");
            assert_eq!(
                listing.contains("Capability SampledCubeArray"),
                dim == Dimension::TextureCubeArray,
                "{listing}"
            );
            let sampled_type = match ret {
                ReturnType::Uint => "%uint",
                ReturnType::Sint => "%int",
                _ => "%float",
            };
            assert!(
                listing.contains(&format!("OpTypeImage {sampled_type}")),
                "{listing}"
            );
        }
        let d = tex(false, 0, dim, ReturnType::Float);
        assert_eq!(
            descriptor_type(&d, &options(Version::V1_3, false)),
            DescriptorType::SampledImage
        );
        let d = tex(true, 0, dim, ReturnType::Float);
        assert_eq!(
            descriptor_type(&d, &options(Version::V1_3, false)),
            DescriptorType::StorageImage
        );
    }
}

#[test]
fn resinfo_returns_sizes_rcp_sizes_and_integers_on_every_dimension() {
    for dim in SRV_DIMS {
        let mut resources = vec![tex(false, 0, dim, ReturnType::Float)];
        let mut insts = vec![
            inst_aux(
                Op::Resinfo,
                Payload::Resinfo(ResinfoReturn::Float),
                &[r(0, 0xf)],
                &[rs(1), t(0)],
            ),
            inst_aux(
                Op::Resinfo,
                Payload::Resinfo(ResinfoReturn::RcpFloat),
                &[r(0, 0b0111)],
                &[swz(Reg::Temp(1), [2; 4]), swz(t(0).reg, [3, 2, 1, 0])],
            ),
            inst_aux(
                Op::Resinfo,
                Payload::Resinfo(ResinfoReturn::Uint),
                &[r(0, 0b1000)],
                &[imm(3), t(0)],
            ),
        ];
        let uav_dim = !matches!(
            dim,
            Dimension::Texture2DMS
                | Dimension::Texture2DMSArray
                | Dimension::TextureCube
                | Dimension::TextureCubeArray
        );
        if uav_dim {
            resources.push(tex(true, 0, dim, ReturnType::Uint));
            insts.push(inst_aux(
                Op::Resinfo,
                Payload::Resinfo(ResinfoReturn::Uint),
                &[r(2, 0xf)],
                &[imm(0), Src::new(u(1))],
            ));
        }
        let m = module(resources, vec![], insts);
        let (listing, _) = check(&m);
        if listing.is_empty() {
            continue;
        }
        assert!(listing.contains("Capability ImageQuery"), "{listing}");
        let ms = matches!(dim, Dimension::Texture2DMS | Dimension::Texture2DMSArray);
        assert_eq!(listing.contains("OpImageQueryLevels"), !ms, "{listing}");
        assert!(listing.contains("OpFDiv"), "{listing}");
    }
}

#[test]
fn sampleinfo_and_samplepos_on_multisampled_views() {
    for dim in [Dimension::Texture2DMS, Dimension::Texture2DMSArray] {
        let m = module(
            vec![tex(false, 0, dim, ReturnType::Float)],
            vec![],
            vec![
                inst_aux(
                    Op::SampleInfo,
                    Payload::Sampleinfo(SampleinfoReturn::Float),
                    &[r(0, 0xf)],
                    &[t(0)],
                ),
                inst_aux(
                    Op::SampleInfo,
                    Payload::Sampleinfo(SampleinfoReturn::Uint),
                    &[r(0, 0b0010)],
                    &[swz(t(0).reg, [0; 4])],
                ),
                inst(
                    Op::SamplePos,
                    &[r(1, 0b0011)],
                    &[t(0), swz(Reg::Temp(0), [1; 4])],
                ),
                inst(
                    Op::SamplePos,
                    &[r(1, 0b1100)],
                    &[swz(t(0).reg, [1, 0, 1, 0]), imm(3)],
                ),
            ],
        );
        let (listing, _) = check(&m);
        if listing.is_empty() {
            continue;
        }
        assert!(listing.contains("OpImageQuerySamples"), "{listing}");
        assert!(listing.contains("sample_positions"), "{listing}");
        // 8x sample 3: (-3, -5) / 16.
        assert!(listing.contains("-0.1875"), "{listing}");
        assert!(listing.contains("-0.3125"), "{listing}");
        // One table, however many samplepos use it.
        assert_eq!(
            listing.matches("OpVariable %_ptr_Private").count(),
            1,
            "{listing}"
        );
    }
}

#[test]
fn texture_operations_outside_their_rules_are_invalid() {
    let float = ReturnType::Float;
    let cases: Vec<(Dimension, ReturnType, Inst, &str)> = vec![
        (
            Dimension::Texture2D,
            float,
            inst(Op::Lod, &[r(0, 1)], &[rs(1), t(0), s(0, 0)]),
            "outside a pixel shader",
        ),
        (
            Dimension::Texture2DMS,
            float,
            inst(Op::SampleL, &[r(0, 1)], &[rs(1), t(0), s(0, 0), imm(0)]),
            "multisampled",
        ),
        (
            Dimension::Texture3D,
            float,
            inst(Op::Gather4, &[r(0, 1)], &[rs(1), t(0), s(0, 0)]),
            "gather",
        ),
        (
            Dimension::Texture2D,
            ReturnType::Uint,
            inst(Op::SampleCLz, &[r(0, 1)], &[rs(1), t(0), s(0, 0), rs(2)]),
            "comparison",
        ),
        (
            Dimension::TextureCube,
            float,
            inst(Op::Gather4Po, &[r(0, 1)], &[rs(1), rs(2), t(0), s(0, 0)]),
            "cube",
        ),
        (
            Dimension::Texture2D,
            float,
            inst(Op::SampleInfo, &[r(0, 1)], &[t(0)]),
            "not multisampled",
        ),
        (
            Dimension::Texture2D,
            float,
            inst(Op::SampleL, &[r(0, 1)], &[rs(1), s(0, 0), t(0), imm(0)]),
            "not a t#",
        ),
    ];
    for (dim, ret, i, needle) in cases {
        let m = module(
            vec![tex(false, 0, dim, ret)],
            vec![sampler(0, false)],
            vec![i],
        );
        match emit_err(&m) {
            Error::Invalid(e) => {
                assert_eq!(e.offset, 0x40);
                assert!(e.what.contains(needle), "{}", e.what);
            }
            e => panic!("{needle}: not Invalid: {e}"),
        }
    }
}

#[test]
fn untyped_returns_and_impossible_uavs_are_refused() {
    let m = module(
        vec![tex(false, 0, Dimension::Texture2D, ReturnType::Mixed)],
        vec![],
        vec![],
    );
    match emit_err(&m) {
        Error::Unsupported(e) => assert!(e.what.contains("mixed"), "{}", e.what),
        e => panic!("{e}"),
    }
    // D3D has no cube or multisampled UAVs.
    let m = module(
        vec![tex(true, 0, Dimension::TextureCube, ReturnType::Float)],
        vec![],
        vec![],
    );
    assert!(matches!(emit_err(&m), Error::Invalid { .. }));
}
