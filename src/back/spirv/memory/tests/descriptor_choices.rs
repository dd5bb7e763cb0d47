//! The descriptor-type choices of `EmitOptions` on buffers: raw and structured views as texel
//! buffers, the storage-buffer fix-up block; each module validated by `spirv-val` for every
//! version, the listing checked for the instructions the choice implies.

use super::*;
use crate::back::spirv::{
    descriptor_type, DescriptorType, StorageBufferAlignment, TexelRawBuffers,
};

fn options(version: Version) -> EmitOptions {
    EmitOptions::for_tests(version)
}

/// Emits `m` under `choose(options)` for every version, validates each, returns the SPIR-V
/// 1.3 listing (empty when `spirv-dis` is skipped).
fn check_with(m: &Module, choose: impl Fn(&mut EmitOptions)) -> String {
    let mut listing = String::new();
    for (version, env) in VERSIONS {
        let mut o = options(version);
        choose(&mut o);
        let words = emit(m, &o).unwrap_or_else(|e| panic!("{version}: {e}"));
        validate(&words, env);
        if version == Version::V1_3 {
            listing = disassemble(&words).unwrap_or_default();
        }
    }
    listing
}

/// Every word access of raw and structured views: loads with swizzles, stores, atomics (plain
/// and `imm_`), `bufinfo`.
fn word_accesses() -> Module {
    let r0 = Reg::Temp(0);
    let r1 = Reg::Temp(1);
    module(
        vec![
            decl(false, 0, ResourceShape::Raw),
            decl(true, 1, ResourceShape::Raw),
            decl(false, 2, ResourceShape::Structured { stride: 12 }),
            decl(true, 3, ResourceShape::Structured { stride: 20 }),
        ],
        vec![],
        vec![
            inst(Op::LdRaw, &[dst(r0, 1)], &[src(Reg::ThreadId), src(t(0))]),
            inst(
                Op::LdRaw,
                &[dst(r1, 0xf)],
                &[src(r0), swz(u(1), [3, 2, 1, 0])],
            ),
            inst(
                Op::LdStructured,
                &[dst(r1, 0b0111)],
                &[src(r0), imm(4), swz(t(2), [0, 1, 1, 0])],
            ),
            inst(
                Op::LdStructured,
                &[dst(r1, 0b1000)],
                &[src(r0), imm(16), src(u(3))],
            ),
            inst(Op::StoreRaw, &[dst(u(1), 0xf)], &[src(r0), src(r1)]),
            inst(
                Op::StoreStructured,
                &[dst(u(3), 0b0011)],
                &[src(r0), imm(8), src(r1)],
            ),
            inst(Op::AtomicIadd, &[dst(u(1), 1)], &[src(r0), imm(1)]),
            inst(
                Op::ImmAtomicCmpExch,
                &[dst(r1, 1)],
                &[src(u(3)), src(r0), imm(0), imm(5)],
            ),
            inst(Op::Bufinfo, &[dst(r1, 0xf)], &[src(t(0))]),
            inst(Op::Bufinfo, &[dst(r1, 0b0010)], &[src(u(3))]),
        ],
    )
}

/// Texel buffers: SRVs uniform texel buffers read with `OpImageFetch`, UAVs `R32ui` storage
/// texel buffers read with `OpImageRead`, written with `OpImageWrite`, atomics through
/// `OpImageTexelPointer`, sizes from `OpImageQuerySize`; no storage buffer is left.
#[test]
fn raw_and_structured_views_as_texel_buffers() {
    let m = word_accesses();
    let both = TexelRawBuffers {
        srv: true,
        uav: true,
    };
    let listing = check_with(&m, |o| o.texel_raw_buffers = both);
    if !listing.is_empty() {
        for needle in [
            "OpImageFetch",
            "OpImageRead",
            "OpImageWrite",
            "OpImageTexelPointer",
            "OpImageQuerySize",
            "Buffer 0 0 0 1 Unknown",
            "Buffer 0 0 0 2 R32ui",
            "OpCapability SampledBuffer",
            "OpCapability ImageBuffer",
        ] {
            assert!(listing.contains(needle), "{needle} missing:\n{listing}");
        }
        assert!(!listing.contains("OpArrayLength"), "{listing}");
        assert!(!listing.contains("WithoutFormat"), "{listing}");
    }
    // Each kind on its own.
    let srv = check_with(&m, |o| o.texel_raw_buffers.srv = true);
    let uav = check_with(&m, |o| o.texel_raw_buffers.uav = true);
    if !srv.is_empty() {
        assert!(srv.contains("OpImageFetch") && srv.contains("OpArrayLength"));
        assert!(!srv.contains("OpImageRead"), "{srv}");
        assert!(uav.contains("OpImageRead") && uav.contains("OpArrayLength"));
        assert!(!uav.contains("OpImageFetch"), "{uav}");
    }
    // The reflection's descriptor types follow.
    let mut o = options(Version::V1_3);
    let types = |o: &EmitOptions| -> Vec<DescriptorType> {
        m.resources.iter().map(|d| descriptor_type(d, o)).collect()
    };
    assert_eq!(types(&o), [DescriptorType::StorageBuffer; 4]);
    o.texel_raw_buffers = both;
    use DescriptorType::{StorageTexelBuffer as S, UniformTexelBuffer as U};
    assert_eq!(types(&o), [U, S, U, S]);
}

/// A raw view with the fix-up at alignment 256: the block is a `Block` uniform buffer of one
/// `uvec4` per entry at the chosen binding, the address adds the entry's first word and the
/// bounds use the view's size (`UMin` with the array length).
#[test]
fn storage_buffers_read_through_the_fix_up_block() {
    let m = word_accesses();
    let listing = check_with(&m, |o| {
        o.storage_buffer_alignment = Some(StorageBufferAlignment::new(256))
    });
    if !listing.is_empty() {
        for needle in [
            "OpDecorate %buffer_fixups Binding 15",
            "OpDecorate %buffer_fixups DescriptorSet 0",
            "%_ptr_Uniform_v4uint",
        ] {
            assert!(listing.contains(needle), "{needle} missing:\n{listing}");
        }
        // Four entries, one a view.
        assert!(listing.contains("%uint_4"), "{listing}");
    }
    // Which views need an entry.
    let entries = |alignment| {
        let mut o = options(Version::V1_3);
        o.storage_buffer_alignment = Some(StorageBufferAlignment::new(alignment));
        crate::back::spirv::fixup_entries(&m.resources, &o)
    };
    // 16: raw views (16-byte offsets) need none; strides 12 and 20 are not multiples of 16.
    assert_eq!(entries(16), [2, 3]);
    // 4: every stride is a multiple.
    assert_eq!(entries(4), Vec::<usize>::new());
    assert_eq!(entries(64), [0, 1, 2, 3]);
    // Texel-buffer views get none.
    let mut o = options(Version::V1_3);
    o.storage_buffer_alignment = Some(StorageBufferAlignment::new(64));
    o.texel_raw_buffers.uav = true;
    assert_eq!(crate::back::spirv::fixup_entries(&m.resources, &o), [0, 2]);
}

/// What cannot work is refused: an alignment Vulkan does not allow, the block in push
/// constants, the block on a binding the shader uses.
#[test]
fn impossible_fix_ups_are_refused() {
    let m = word_accesses();
    let err = |a: StorageBufferAlignment| {
        let mut o = options(Version::V1_3);
        o.storage_buffer_alignment = Some(a);
        emit(&m, &o).expect_err("refused")
    };
    assert!(matches!(
        err(StorageBufferAlignment::new(300)),
        Error::Unsupported(_)
    ));
    assert!(matches!(
        err(StorageBufferAlignment::new(512)),
        Error::Unsupported(_)
    ));
    let push = StorageBufferAlignment {
        alignment: 256,
        block: BindingTarget::PushConstants(crate::ir::binding::PushConstants {
            offset: 0,
            size: 16,
        }),
    };
    assert!(matches!(err(push), Error::Unsupported(_)));
    // u1 is at binding 101.
    let taken = StorageBufferAlignment {
        alignment: 256,
        block: target(101).expect("a target"),
    };
    match err(taken) {
        Error::Invalid(e) => assert!(e.what.contains("binding 101"), "{}", e.what),
        other => panic!("{other:?}"),
    }
}

/// A module reading typed UAV buffers u0 (float), u1 (uint) and a 2-D u2 (float), and only
/// writing u3 (float).
fn typed_reads() -> Module {
    let r0 = Reg::Temp(0);
    let tex2d = ResourceShape::Typed {
        dim: Dimension::Texture2D,
        ret: [ReturnType::Float; 4],
        samples: 0,
    };
    module(
        vec![
            decl(true, 0, typed(ReturnType::Float)),
            decl(true, 1, typed(ReturnType::Uint)),
            decl(true, 2, tex2d),
            decl(true, 3, typed(ReturnType::Float)),
        ],
        vec![],
        vec![
            inst(
                Op::LdUavTyped,
                &[dst(r0, 0xf)],
                &[src(Reg::ThreadId), src(u(0))],
            ),
            inst(
                Op::LdUavTyped,
                &[dst(r0, 0x1)],
                &[src(Reg::ThreadId), src(u(1))],
            ),
            inst(
                Op::LdUavTyped,
                &[dst(r0, 0xf)],
                &[src(Reg::ThreadId), src(u(2))],
            ),
            inst(
                Op::StoreUavTyped,
                &[dst(u(3), 0xf)],
                &[src(Reg::ThreadId), src(r0)],
            ),
        ],
    )
}

/// Read typed UAVs get the listed format, or the R32 format of their return type; a UAV only
/// written keeps `Unknown` unless `written_only`; extended formats declare
/// `StorageImageExtendedFormats`; no `StorageImageReadWithoutFormat` is left.
#[test]
fn typed_uav_reads_declare_a_format() {
    use crate::back::spirv::{UavFormat, UnlistedUavFormat};
    let m = typed_reads();
    let default = check_with(&m, |_| {});
    if !default.is_empty() {
        assert!(
            default.contains("StorageImageReadWithoutFormat"),
            "{default}"
        );
    }
    let listing = check_with(&m, |o| {
        o.typed_uav_formats.formats = vec![((0, 0), UavFormat::Rgba8), ((0, 2), UavFormat::Rg16f)];
        o.typed_uav_formats.unlisted = UnlistedUavFormat::R32OfReturnType;
    });
    if !listing.is_empty() {
        for needle in [
            "Buffer 0 0 0 2 Rgba8",
            "Buffer 0 0 0 2 R32ui",
            "2D 0 0 0 2 Rg16f",
            "Buffer 0 0 0 2 Unknown",
            "OpCapability StorageImageExtendedFormats",
            "OpCapability StorageImageWriteWithoutFormat",
        ] {
            assert!(listing.contains(needle), "{needle} missing:\n{listing}");
        }
        assert!(!listing.contains("ReadWithoutFormat"), "{listing}");
    }
    let all = check_with(&m, |o| {
        o.typed_uav_formats.formats = vec![((0, 3), UavFormat::Rgba32f)];
        o.typed_uav_formats.unlisted = UnlistedUavFormat::R32OfReturnType;
        o.typed_uav_formats.written_only = true;
    });
    if !all.is_empty() {
        assert!(all.contains("Buffer 0 0 0 2 Rgba32f"), "{all}");
        assert!(all.contains("Buffer 0 0 0 2 R32f"), "{all}");
        assert!(!all.contains("WithoutFormat"), "{all}");
        assert!(!all.contains("ExtendedFormats"), "{all}");
    }
    // A format whose components are not the return type's is refused.
    let mut o = options(Version::V1_3);
    o.typed_uav_formats.formats = vec![((0, 1), UavFormat::R32f)];
    match emit(&m, &o) {
        Err(Error::Invalid(e)) => assert!(e.what.contains("u1"), "{}", e.what),
        other => panic!("{other:?}"),
    }
}

/// Through the whole pipeline: the reflection reports the texel-buffer descriptor types and
/// the fix-up block with its entries in declaration order; the defaults report storage
/// buffers and no block.
#[test]
fn the_reflection_reports_the_choices() {
    use crate::bindings::ResourceKind;
    use crate::{translate, BufferFixup, Options};
    let bytes = crate::test_support::assemble(
        "cs_5_0\n\
         dcl_globalFlags refactoringAllowed\n\
         dcl_resource_raw t0\n\
         dcl_resource_structured t1, 16\n\
         dcl_uav_structured u0, 12\n\
         dcl_temps 1\n\
         dcl_thread_group 1, 1, 1\n\
         ld_raw r0.x, l(0), t0.xxxx\n\
         ld_structured r0.y, l(0), l(0), t1.xxxx\n\
         store_structured u0.xy, l(0), l(0), r0.xyxx\n\
         ret\n",
    );
    let descriptors = |o: &Options| -> Vec<DescriptorType> {
        let t = translate(&bytes, o).unwrap_or_else(|e| panic!("{e}"));
        validate(&t.spirv, "vulkan1.1");
        t.info.resources.iter().map(|r| r.descriptor).collect()
    };
    let default = Options::default();
    assert_eq!(descriptors(&default), [DescriptorType::StorageBuffer; 3]);
    let t = translate(&bytes, &default).expect("translates");
    assert_eq!(t.info.buffer_fixups, None);
    let texel = Options::default().with_texel_raw_buffers(TexelRawBuffers {
        srv: true,
        uav: true,
    });
    use DescriptorType::{StorageTexelBuffer as S, UniformTexelBuffer as U};
    assert_eq!(descriptors(&texel), [U, U, S]);
    // Alignment 16: t0 (raw) and t1 (stride 16) need no entry; u0 (stride 12) does.
    let aligned =
        Options::default().with_storage_buffer_alignment(Some(StorageBufferAlignment::new(16)));
    let t = translate(&bytes, &aligned).expect("translates");
    validate(&t.spirv, "vulkan1.1");
    let block = t.info.buffer_fixups.expect("a fix-up block");
    assert_eq!(
        block.target,
        BindingTarget::Descriptor(StorageBufferAlignment::DEFAULT_BINDING)
    );
    assert_eq!(
        block.entries,
        [BufferFixup {
            kind: ResourceKind::UnorderedAccess,
            space: 0,
            register: 0,
            id: 0
        }]
    );
    let t = translate(
        &bytes,
        &Options::default().with_storage_buffer_alignment(Some(StorageBufferAlignment::new(256))),
    )
    .expect("translates");
    let regs: Vec<_> = t
        .info
        .buffer_fixups
        .expect("a fix-up block")
        .entries
        .iter()
        .map(|e| (e.kind, e.register))
        .collect();
    assert_eq!(
        regs,
        [
            (ResourceKind::ShaderResource, 0),
            (ResourceKind::ShaderResource, 1),
            (ResourceKind::UnorderedAccess, 0)
        ]
    );
}
