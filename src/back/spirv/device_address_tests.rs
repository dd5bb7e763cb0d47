//! Root descriptors as buffer device addresses: the push block holds the addresses, every
//! access goes through a `PhysicalStorageBuffer` pointer with `Aligned`, `spirv-val` accepts
//! the module for every target, modules without addresses keep `Logical` addressing, and what
//! cannot be a root descriptor is refused with a typed error naming the register.

use crate::bindings::{
    Bindings, PushConstants, RegisterRange, ResourceKind, RootConstantsEntry, RootDescriptorEntry,
    TableBindings, TableEntry,
};
use crate::spv::tests::tools;
use crate::{translate, Error, Options, Target};

/// Root CBV b0 (static and dynamic reads), root constants b1, raw SRV t0, structured SRV t1,
/// raw UAV u0 (stores and an atomic), structured UAV u1.
const CS: &str = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[4], dynamicIndexed
dcl_constantbuffer CB1[1], immediateIndexed
dcl_resource_raw t0
dcl_resource_structured t1, 8
dcl_uav_raw u0
dcl_uav_structured u1, 8
dcl_temps 2
dcl_thread_group 1, 1, 1
mov r0.x, cb1[0].x
store_raw u0.xyzw, l(0), cb0[r0.x + 0].xyzw
store_raw u0.xyzw, l(16), cb0[3].xyzw
ld_raw r1.xyzw, l(4), t0.xyzw
store_raw u0.xyzw, l(32), r1.xyzw
ld_structured r1.xy, l(1), l(4), t1.xyxx
store_structured u1.xy, l(2), l(0), r1.xyxx
atomic_iadd u0, l(48), l(5)
ret
";

const ADDRESSED: [(ResourceKind, u32, u32); 5] = [
    (ResourceKind::ConstantBuffer, 0, 8),
    (ResourceKind::ShaderResource, 0, 16),
    (ResourceKind::ShaderResource, 1, 24),
    (ResourceKind::UnorderedAccess, 0, 32),
    (ResourceKind::UnorderedAccess, 1, 40),
];

fn bindings(addressed: &[(ResourceKind, u32, u32)]) -> Bindings {
    let mut entries = Vec::new();
    let mut binding = 0;
    for (kind, register) in [
        (ResourceKind::ShaderResource, 0),
        (ResourceKind::ShaderResource, 1),
        (ResourceKind::UnorderedAccess, 0),
        (ResourceKind::UnorderedAccess, 1),
        (ResourceKind::ConstantBuffer, 0),
    ] {
        if !addressed.iter().any(|a| (a.0, a.1) == (kind, register)) {
            entries.push(TableEntry::new(
                RegisterRange::single(kind, 0, register),
                0,
                binding,
                0,
            ));
            binding += 1;
        }
    }
    let root = vec![RootConstantsEntry {
        space: 0,
        register: 1,
        push_constants: PushConstants { offset: 0, size: 4 },
    }];
    let descriptors = addressed
        .iter()
        .map(|&(kind, register, offset)| RootDescriptorEntry {
            range: RegisterRange::single(kind, 0, register),
            offset,
        })
        .collect();
    Bindings::Table(
        TableBindings::with_root_descriptors(entries, root, descriptors).expect("table"),
    )
}

fn translate_with(
    source: &str,
    addressed: &[(ResourceKind, u32, u32)],
    target: Target,
) -> Result<crate::Translation, Error> {
    let bytes = crate::test_support::assemble(source);
    let options = Options {
        bindings: bindings(addressed),
        target,
        ..Options::default()
    };
    translate(&bytes, &options)
}

/// Every buffer a root descriptor: valid for every target; the push range covers the root
/// constant (bytes 0..4) and the five addresses (bytes 8..48); physical addressing declared.
#[test]
fn root_descriptors_read_through_device_addresses() {
    for target in [
        Target::Vulkan1_0,
        Target::Vulkan1_1,
        Target::Vulkan1_2,
        Target::Vulkan1_3,
    ] {
        let t = translate_with(CS, &ADDRESSED, target).unwrap_or_else(|e| panic!("{e}"));
        tools::validate(&t.spirv, target.name());
        assert_eq!(
            t.info.push_constants,
            Some(crate::back::spirv::PushConstantRange {
                offset: 0,
                size: 48
            })
        );
        let Some(text) = tools::disassemble(&t.spirv) else {
            continue;
        };
        for needle in [
            "OpCapability PhysicalStorageBufferAddresses",
            "OpMemoryModel PhysicalStorageBuffer64 GLSL450",
            "Aligned 4",
            "Aligned 16",
            "OpAtomicIAdd",
        ] {
            assert!(text.contains(needle), "{needle} missing:\n{text}");
        }
        assert!(!text.contains("OpArrayLength"), "{text}");
        let extension = text.contains("OpExtension \"SPV_KHR_physical_storage_buffer\"");
        assert_eq!(extension, target < Target::Vulkan1_2, "{text}");
    }
}

/// The same shader with descriptors only: `Logical` addressing, nothing physical.
#[test]
fn descriptors_keep_logical_addressing() {
    let t = translate_with(CS, &[], Target::Vulkan1_1).expect("translates");
    tools::validate(&t.spirv, Target::Vulkan1_1.name());
    let Some(text) = tools::disassemble(&t.spirv) else {
        return;
    };
    assert!(text.contains("OpMemoryModel Logical GLSL450"), "{text}");
    assert!(!text.contains("PhysicalStorageBuffer"), "{text}");
}

/// Typed buffers cannot be root descriptors: refused, naming the register.
#[test]
fn typed_buffer_root_descriptor_is_unsupported() {
    let source = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_buffer (float,float,float,float) t2
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
ld_indexable(buffer)(float,float,float,float) r0.xyzw, l(0, 0, 0, 0), t2.xyzw
store_raw u0.xyzw, l(0), r0.xyzw
ret
";
    let bytes = crate::test_support::assemble(source);
    let table = TableBindings::with_root_descriptors(
        vec![TableEntry::new(
            RegisterRange::single(ResourceKind::UnorderedAccess, 0, 0),
            0,
            0,
            0,
        )],
        Vec::new(),
        vec![RootDescriptorEntry {
            range: RegisterRange::single(ResourceKind::ShaderResource, 0, 2),
            offset: 0,
        }],
    )
    .expect("table");
    let options = Options {
        bindings: Bindings::Table(table),
        ..Options::default()
    };
    match translate(&bytes, &options) {
        Err(Error::Unsupported(e)) => {
            assert!(e.what.contains("t2"), "{}", e.what);
            assert!(e.what.contains("device address"), "{}", e.what);
        }
        other => panic!("{other:?}"),
    }
}

/// `bufinfo` of a root descriptor: no size to return, refused.
#[test]
fn bufinfo_of_a_root_descriptor_is_unsupported() {
    let source = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_raw t0
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 1, 1, 1
bufinfo r0.x, t0
store_raw u0.x, l(0), r0.x
ret
";
    let addressed = [(ResourceKind::ShaderResource, 0, 8)];
    match translate_with(source, &addressed, Target::Vulkan1_1) {
        Err(Error::Unsupported(e)) => assert!(e.what.contains("bufinfo"), "{}", e.what),
        other => panic!("{other:?}"),
    }
}

/// Root descriptors must be single `b`/`t`/`u` registers at 8-byte aligned offsets.
#[test]
fn root_descriptor_entries_are_checked() {
    let bad = [
        (
            RegisterRange::single(ResourceKind::UnorderedAccess, 0, 0),
            4,
        ),
        (RegisterRange::single(ResourceKind::Sampler, 0, 0), 8),
        (
            RegisterRange::bounded(ResourceKind::ShaderResource, 0, 0, 2),
            8,
        ),
        (RegisterRange::single(ResourceKind::UavCounter, 0, 0), 8),
    ];
    for (range, offset) in bad {
        let r = TableBindings::with_root_descriptors(
            Vec::new(),
            Vec::new(),
            vec![RootDescriptorEntry { range, offset }],
        );
        assert!(
            matches!(r, Err(crate::bindings::BindingError::Invalid { .. })),
            "{range}: {r:?}"
        );
    }
}
