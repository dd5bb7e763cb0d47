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
