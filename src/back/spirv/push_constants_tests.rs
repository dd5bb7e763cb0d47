//! The push-constant block: layout (members, offsets, merged overlaps, reflection), reads of
//! root constants (static, dynamic, past the end), `spirv-val`, and the typed errors.

use crate::bindings::{
    Bindings, PushConstants, RegisterRange, ResourceKind, RootConstantsEntry, TableBindings,
    TableEntry,
};
use crate::spv::tests::tools;
use crate::{translate, Error, Options, Target};

/// A compute shader reading `cb0[0]`, `cb0[r0.x]` and `cb1[1]`, writing them to a raw UAV.
const CS: &str = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[2], dynamicIndexed
dcl_constantbuffer CB1[2], immediateIndexed
dcl_uav_raw u0
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.x, cb0[0].x
store_raw u0.x, l(0), cb0[0].yzwx
store_raw u0.xyzw, l(16), cb0[r0.x + 0].xyzw
store_raw u0.xyzw, l(32), cb1[1].xyzw
ret
";

fn table(root: &[(u32, u32, u32)]) -> Bindings {
    let uav = RegisterRange::single(ResourceKind::UnorderedAccess, 0, 0);
    let entries = vec![TableEntry::new(uav, 0, 0, 0)];
    let root = root
        .iter()
        .map(|&(register, offset, size)| RootConstantsEntry {
            space: 0,
            register,
            push_constants: PushConstants { offset, size },
        })
        .collect();
    Bindings::Table(TableBindings::new(entries, root).expect("table"))
}

fn translate_with(root: &[(u32, u32, u32)], target: Target) -> Result<crate::Translation, Error> {
    let bytes = crate::test_support::assemble(CS);
    let options = Options {
        bindings: table(root),
        target,
        ..Options::default().with_flag(crate::OptionFlags::DEBUG_NAMES, true)
    };
    translate(&bytes, &options)
}

/// Two root-constant blocks at different offsets: one `Block` in `PushConstant` storage with a
/// `uint[n]` member at each offset, valid for every target; the reflection gives the range.
#[test]
fn root_constants_are_members_of_one_push_block() {
    for target in [Target::Vulkan1_0, Target::Vulkan1_1, Target::Vulkan1_3] {
        let t = translate_with(&[(0, 0, 24), (1, 32, 32)], target).expect("translates");
        tools::validate(&t.spirv, target.name());
        assert_eq!(
            t.info.push_constants,
            Some(crate::back::spirv::PushConstantRange {
                offset: 0,
                size: 64
            })
        );
        let Some(text) = tools::disassemble(&t.spirv) else {
            continue;
        };
        for needle in [
            "OpMemberDecorate %_struct_",
            "Offset 32",
            "ArrayStride 4",
            "PushConstant",
        ] {
            assert!(text.contains(needle), "{needle} missing:\n{text}");
        }
        assert_eq!(
            text.matches("OpVariable %_ptr_PushConstant").count(),
            1,
            "{text}"
        );
        assert!(!text.contains("OpName %cb"), "{text}");
    }
}

/// Overlapping ranges (a caller's map may overlap them) share one member; the range starts at
/// the lowest offset.
#[test]
fn overlapping_root_constants_share_a_member() {
    let t = translate_with(&[(0, 16, 16), (1, 24, 32)], Target::Vulkan1_1).expect("translates");
    tools::validate(&t.spirv, Target::Vulkan1_1.name());
    assert_eq!(
        t.info.push_constants,
        Some(crate::back::spirv::PushConstantRange {
            offset: 16,
            size: 40
        })
    );
}

/// A module without push-constant buffers reports none.
#[test]
fn no_push_constants_no_range() {
    let bytes = crate::test_support::assemble(CS);
    let t = translate(&bytes, &Options::default()).expect("translates");
    assert_eq!(t.info.push_constants, None);
}

/// Offsets and sizes not in whole words are refused with a typed error.
#[test]
fn unaligned_push_constants_are_unsupported() {
    for root in [[(0, 2, 16), (1, 32, 16)], [(0, 0, 6), (1, 32, 16)]] {
        match translate_with(&root, Target::Vulkan1_1) {
            Err(Error::Unsupported(e)) => assert!(e.what.contains("32-bit words"), "{}", e.what),
            other => panic!("{other:?}"),
        }
    }
}

/// Empty root constants: reads are zero and nothing is declared for them.
#[test]
fn empty_root_constants_read_zero() {
    let t = translate_with(&[(0, 0, 0), (1, 0, 0)], Target::Vulkan1_1).expect("translates");
    tools::validate(&t.spirv, Target::Vulkan1_1.name());
    assert_eq!(t.info.push_constants, None);
}

/// SM5.1 ranges of every kind in bindless heaps: `t`, `s`, `u` (with its counter) and `b`
/// ranges, two tables with different base words; a non-uniform texture index.
const BINDLESS: &str = "ps_5_1
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[0:1][1], dynamicIndexed, space=0
dcl_sampler S0[0:1], mode_default, space=0
dcl_resource_texture2d (float,float,float,float) T0[0:*], space=0
dcl_uav_structured_opc U0[0:3], 4, space=0
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_temps 2
ftou r1.x, v0.z
sample r0.xyzw, v0.xyxx, T0[r1.x + 2].xyzw {nonuniform}, S0[1]
add r0.xyzw, r0.xyzw, CB0[1][0].xyzw
imm_atomic_alloc r1.y, U0[3]
store_structured U0[3].x, r1.y, l(0), r0.x
mov o0.xyzw, r0.xyzw
ret
";

fn heap_table() -> Bindings {
    use crate::bindings::Count;
    use ResourceKind::*;
    // Table A (base word at byte 0): t0.. at element 0, s0..s1 at element 0 of the sampler
    // heap. Table B (base word at byte 8): b0..b1 and u0..u3 (counters too).
    let e = |kind, count, binding, base| {
        TableEntry::new(RegisterRange::new(kind, 0, 0, count), 0, binding, 0).in_heap(base)
    };
    let entries = vec![
        e(ShaderResource, Count::Unbounded, 1, 0),
        e(Sampler, Count::Bounded(2), 3, 0),
        e(ConstantBuffer, Count::Bounded(2), 0, 8),
        e(UnorderedAccess, Count::Bounded(4), 2, 8),
        e(UavCounter, Count::Bounded(4), 4, 8),
    ];
    Bindings::Table(TableBindings::new(entries, Vec::new()).expect("table"))
}

/// Every kind reads its heap at `push[base] + offset + index`: runtime arrays, one push block
/// with the two base words, the dynamic-indexing capabilities (a heap index is a push
/// constant), `NonUniform` on the non-uniform one; valid for SPIR-V 1.3 and 1.6 targets.
#[test]
fn bindless_heaps_index_from_push_constant_bases() {
    for target in [Target::Vulkan1_1, Target::Vulkan1_3] {
        let bytes = crate::test_support::assemble(BINDLESS);
        let options = Options {
            bindings: heap_table(),
            target,
            ..Options::default()
        };
        let t = translate(&bytes, &options).unwrap_or_else(|e| panic!("{e}"));
        tools::validate(&t.spirv, target.name());
        assert_eq!(
            t.info.push_constants,
            Some(crate::back::spirv::PushConstantRange {
                offset: 0,
                size: 12
            })
        );
        assert!(t
            .info
            .resources
            .iter()
            .all(|r| matches!(r.target, crate::bindings::BindingTarget::Heap(_))));
        let Some(text) = tools::disassemble(&t.spirv) else {
            continue;
        };
        for needle in [
            "OpCapability RuntimeDescriptorArray",
            "OpCapability SampledImageArrayDynamicIndexing",
            "OpCapability UniformBufferArrayDynamicIndexing",
            "OpCapability StorageBufferArrayDynamicIndexing",
            "OpCapability SampledImageArrayNonUniformIndexing",
            "NonUniform",
            "OpTypeRuntimeArray",
            "PushConstant",
        ] {
            assert!(text.contains(needle), "{needle} missing:\n{text}");
        }
    }
}
