//! Stage linking and workaround switches end to end: translated with the options, checked by
//! `spirv-val` and by what the disassembly must (not) contain.

use super::*;
use crate::spv::tests::tools::{disassemble, validate};
use crate::test_support::assemble;
use crate::{translate, Options, Target};

/// A pixel shader reading `TEXCOORD0` (v1.xyzw) and `TEXCOORD1` (v2.xy).
const PS: &str = "//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float
// TEXCOORD                 0   xyzw        1     NONE   float   xyzw
// TEXCOORD                 1   xy          2     NONE   float   xy
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Target                0   xyzw        0   TARGET   float   xyzw
//
ps_5_0
dcl_input_ps linear v1.xyzw
dcl_input_ps linear v2.xy
dcl_output o0.xyzw
add o0.xyzw, v1.xyzw, v2.xyxy
ret
";

fn out(name: &str, index: u32, register: u32, mask: u8) -> Semantic {
    Semantic {
        name: name.into(),
        index,
        register,
        mask,
        stream: 0,
    }
}

/// Translates `text` with `options`, validates for Vulkan 1.1, returns the disassembly.
fn listing(text: &str, options: &Options) -> String {
    let t = translate(&assemble(text), options).unwrap_or_else(|e| panic!("{e}"));
    validate(&t.spirv, options.target.name());
    disassemble(&t.spirv).unwrap_or_default()
}

fn linked(previous: Vec<Semantic>, remap: bool) -> Options {
    Options::default().with_linking(StageLinking {
        previous_outputs: Some(previous),
        remap_by_semantic: remap,
        ..StageLinking::default()
    })
}

#[test]
fn defaults_and_a_complete_previous_stage_change_nothing() {
    let bytes = assemble(PS);
    let plain = translate(&bytes, &Options::default()).expect("translates");
    let all = linked(
        vec![out("TEXCOORD", 0, 1, 0xf), out("TEXCOORD", 1, 2, 0x3)],
        false,
    );
    let same = translate(&bytes, &all).expect("translates");
    assert_eq!(plain.spirv, same.spirv);
    let by_semantic = translate(
        &bytes,
        &linked(
            all.linking.previous_outputs.clone().unwrap_or_default(),
            true,
        ),
    )
    .expect("translates");
    assert_eq!(plain.spirv, by_semantic.spirv);
    // The reflection names the semantics.
    assert_eq!(plain.info.inputs.len(), 3);
    assert_eq!(plain.info.inputs[2], out("TEXCOORD", 1, 2, 0x3));
}

#[test]
fn inputs_the_previous_stage_does_not_write_are_not_declared() {
    // The vertex shader writes o1.xy only: v1.zw and v2 read 0.
    let text = listing(PS, &linked(vec![out("TEXCOORD", 0, 1, 0x3)], false));
    if text.is_empty() {
        return;
    }
    assert!(text.contains("Location 1"), "{text}");
    assert!(!text.contains("Location 2"), "{text}");
    assert!(text.contains("%_ptr_Input_v2float"), "{text}");
    assert!(
        !text.contains("%_ptr_Input_v4float = OpTypePointer Input %v4float\n%in"),
        "{text}"
    );
}

#[test]
fn inputs_take_the_location_of_the_output_with_their_semantic() {
    // TEXCOORD1 at o5, TEXCOORD0 at o3.
    let text = listing(
        PS,
        &linked(
            vec![out("texcoord", 1, 5, 0x3), out("TEXCOORD", 0, 3, 0xf)],
            true,
        ),
    );
    if text.is_empty() {
        return;
    }
    assert!(
        text.contains("Location 5") && text.contains("Location 3"),
        "{text}"
    );
    assert!(
        !text.contains("Location 1") && !text.contains("Location 2"),
        "{text}"
    );
}

#[test]
fn flat_and_type_overrides() {
    let options = Options::default().with_linking(StageLinking {
        flat_locations: 1 << 2,
        input_types: vec![(1, ComponentType::Uint)],
        ..StageLinking::default()
    });
    let text = listing(PS, &options);
    if text.is_empty() {
        return;
    }
    // Location 1 is a uint vector (flat, as Vulkan requires), location 2 flat by request.
    assert!(text.contains("%_ptr_Input_v4uint"), "{text}");
    assert_eq!(text.matches(" Flat").count(), 2, "{text}");
    // A location past 31 is the caller's mistake.
    let bad = Options::default().with_linking(StageLinking {
        input_types: vec![(40, ComponentType::Uint)],
        ..StageLinking::default()
    });
    let e = translate(&assemble(PS), &bad).expect_err("location 40");
    assert_eq!(e.instruction(), Some("Options::linking"));
}

const GS: &str = "//
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
//
gs_5_0
dcl_input_siv v[3][0].xyzw, position
dcl_inputprimitive triangle
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_maxout 3
mov o0.xyzw, v[0][0].xyzw
emit
mov o0.xyzw, v[1][0].xyzw
emit
mov o0.xyzw, v[2][0].xyzw
emit
ret
";

#[test]
fn geometry_input_primitive_follows_the_draw() {
    for (draw, mode) in [
        (InputPrimitive::Point, "InputPoints"),
        (InputPrimitive::Line, "InputLines"),
        (InputPrimitive::TriangleAdj, "InputTrianglesAdjacency"),
    ] {
        let options = Options::default().with_linking(StageLinking {
            geometry_input: Some(draw),
            ..StageLinking::default()
        });
        let text = listing(GS, &options);
        if text.is_empty() {
            return;
        }
        assert!(text.contains(mode), "{mode}: {text}");
        assert!(!text.contains("OpExecutionMode %main Triangles"), "{text}");
    }
    assert_eq!(
        crate::back::spirv::geometry_vertex_map_for_tests(
            InputPrimitive::Triangle,
            InputPrimitive::TriangleAdj
        ),
        [(0, 0), (1, 2), (2, 4)]
    );
}

const CS: &str = "cs_5_0
dcl_tgsm_raw g0, 64
dcl_uav_raw u0
dcl_temps 1
dcl_thread_group 4, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(2)
store_raw g0.x, r0.x, vThreadIDInGroupFlattened.x
ld_raw r0.x, l(0), g0.xxxx
store_raw u0.x, r0.x, r0.x
ret
";

fn workarounds(w: Workarounds) -> Options {
    Options::default().with_workarounds(w)
}

#[test]
fn zeroed_workgroup_memory_in_both_forms() {
    let init = Workarounds {
        workgroup_zero_init: WorkgroupZeroInit::Initializer,
        ..Workarounds::default()
    };
    let text = listing(CS, &workarounds(init).with_target(Target::Vulkan1_3));
    if text.is_empty() {
        return;
    }
    assert!(
        text.contains("OpVariable %_ptr_Workgroup__arr_uint_uint_16 Workgroup %"),
        "{text}"
    );
    let stores = Workarounds {
        workgroup_zero_init: WorkgroupZeroInit::Stores,
        ..Workarounds::default()
    };
    for target in Target::ALL {
        let text = listing(CS, &workarounds(stores).with_target(target));
        assert!(text.contains("OpLoopMerge"), "{text}");
        assert!(text.contains("BuiltIn LocalInvocationIndex"), "{text}");
        assert_eq!(text.matches("OpControlBarrier").count(), 1, "{text}");
    }
}

#[test]
fn forced_barriers_follow_writes() {
    let plain = listing(CS, &Options::default());
    if plain.is_empty() {
        return;
    }
    assert_eq!(plain.matches("OpControlBarrier").count(), 0);
    let tgsm = Workarounds {
        forced_barriers: ForcedBarriers::Tgsm,
        ..Workarounds::default()
    };
    let text = listing(CS, &workarounds(tgsm));
    assert_eq!(text.matches("OpControlBarrier").count(), 1, "{text}");
    let both = Workarounds {
        forced_barriers: ForcedBarriers::TgsmAndUav,
        ..Workarounds::default()
    };
    let text = listing(CS, &workarounds(both));
    assert_eq!(text.matches("OpControlBarrier").count(), 2, "{text}");
    // Inside a branch only a memory barrier: not every invocation reaches it.
    let branchy = CS.replace(
        "store_raw g0.x, r0.x, vThreadIDInGroupFlattened.x\n",
        "if_nz vThreadIDInGroupFlattened.x\nstore_raw g0.x, r0.x, vThreadIDInGroupFlattened.x\nendif\n",
    );
    let text = listing(&branchy, &workarounds(tgsm));
    assert_eq!(text.matches("OpControlBarrier").count(), 0, "{text}");
    assert_eq!(text.matches("OpMemoryBarrier").count(), 1, "{text}");
}

#[test]
fn invariant_position() {
    let vs = "vs_5_0\ndcl_output_siv o0.xyzw, position\nmov o0.xyzw, l(0, 0, 0, 1)\nret\n";
    let on = Workarounds {
        invariant_position: true,
        ..Workarounds::default()
    };
    let text = listing(vs, &workarounds(on));
    if text.is_empty() {
        return;
    }
    assert!(text.contains("Invariant"), "{text}");
    assert!(!listing(vs, &Options::default()).contains("Invariant"));
}
