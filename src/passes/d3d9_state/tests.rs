//! The fixed-function passes on fxc-syntax shaders: what each adds (expected from D3D9's rules),
//! every module through `ir::validate`, the back end and `spirv-val`.

use crate::d3d9_state::{
    cmp_func, AlphaTest, ClipPlanes, D3d9State, Fog, FogDepth, FogFunction, FogMode, PointSize,
    StateValue,
};
use crate::ir::{self, Module, Op, ParameterSource, Reg, SystemValue};
use crate::passes::test_util::lowered;
use crate::spv::tests::tools;
use crate::{ErrorKind, OptionFlags, Options, Target};

const PS: &str = "
ps_5_0
dcl_input_ps linear v0.xyzw
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
add o0.xyzw, v0.xyzw, v1.xyxy
ret
";

const PS_EARLY_RETURN: &str = "
ps_5_0
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_temps 1
mov o0.xyzw, v0.xyzw
lt r0.x, v0.x, l(0.5)
retc_nz r0.x
mov o0.xyzw, l(1.0, 1.0, 1.0, 1.0)
ret
";

const VS: &str = "
vs_5_0
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v0.wzyx
ret
";

/// `text` lowered, its model replaced by `model` when given, with `state` applied, validated.
fn applied(text: &str, model: Option<(u8, u8)>, state: &D3d9State) -> Module {
    let mut module = lowered(text);
    if let Some(m) = model {
        module.model = m;
    }
    crate::passes::run(
        &mut module,
        &Default::default(),
        &Default::default(),
        Default::default(),
        state,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ir::validate(&module).unwrap_or_else(|e| panic!("{e}\n{}", ir::print(&module)));
    module
}

/// The SPIR-V of `module` for Vulkan 1.0 and 1.3, validated; the 1.3 disassembly and the
/// reflection.
fn emitted(module: &Module, options: &Options) -> (String, crate::ShaderInfo) {
    let mut out = (String::new(), None);
    for target in [Target::Vulkan1_0, Target::Vulkan1_3] {
        let options = options
            .clone()
            .with_target(target)
            .with_flag(OptionFlags::DEBUG_NAMES, true);
        let scratch = &mut crate::back::spirv::Scratch::default();
        let t = crate::pipeline::emit_with_info(module, &options, Default::default(), scratch)
            .unwrap_or_else(|e| panic!("{e}\n{}", ir::print(module)));
        tools::validate(&t.spirv, target.name());
        out = (
            tools::disassemble(&t.spirv).unwrap_or_default(),
            Some(t.info),
        );
    }
    (out.0, out.1.expect("translated"))
}

fn ops(module: &Module) -> Vec<Op> {
    module
        .body(ir::FunctionId::new(0))
        .iter()
        .map(|i| i.op)
        .collect()
}

#[test]
fn the_default_state_changes_nothing() {
    for text in [PS, VS, PS_EARLY_RETURN] {
        let plain = lowered(text);
        let mut with = plain.clone();
        crate::passes::apply_d3d9_state(&mut with, &D3d9State::default()).expect("applies");
        assert_eq!(plain, with);
    }
    // Fog of a D3D10+ model (no fixed-function fog there) and an alpha test that always
    // passes change nothing either.
    let state = D3d9State {
        fog: Fog {
            mode: FogMode::Vertex,
            ..Fog::default()
        },
        ..D3d9State::default()
    };
    let mut with = lowered(PS);
    crate::passes::apply_d3d9_state(&mut with, &state).expect("applies");
    assert_eq!(with, lowered(PS));
}

fn alpha(func: StateValue<u32>, reference: StateValue<u32>) -> D3d9State {
    D3d9State {
        alpha_test: AlphaTest {
            func,
            reference,
            precision_bits: 8,
        },
        ..D3d9State::default()
    }
}

#[test]
fn the_alpha_test_runs_after_every_return() {
    let state = alpha(
        StateValue::Immediate(cmp_func::GREATER),
        StateValue::Immediate(128),
    );
    let m = applied(PS_EARLY_RETURN, None, &state);
    // The shader became a subroutine: the entry point calls it, then tests, then returns.
    let entry = ops(&m);
    assert_eq!(entry.first(), Some(&Op::Call), "{}", ir::print(&m));
    assert_eq!(entry.last(), Some(&Op::Ret));
    assert!(entry.contains(&Op::Discard));
    assert_eq!(m.functions.len(), 2);
    assert_eq!(
        m.parameters
            .iter()
            .map(|p| (p.name, p.source))
            .collect::<Vec<_>>(),
        [
            ("alpha_func", ParameterSource::Immediate([5, 0, 0, 0])),
            ("alpha_ref", ParameterSource::Immediate([128, 0, 0, 0])),
        ]
    );
    let (text, _) = emitted(&m, &Options::default());
    assert!(text.contains("OpDemoteToHelperInvocation") || text.contains("OpKill"));
}

#[test]
fn alpha_test_values_as_spec_constants_and_push_constants() {
    let state = alpha(
        StateValue::Spec {
            id: 7,
            default: cmp_func::ALWAYS,
        },
        StateValue::Push { offset: 16 },
    );
    let m = applied(PS, None, &state);
    let (text, info) = emitted(&m, &Options::default());
    assert!(text.contains("SpecId 7"), "{text}");
    assert!(!text.contains("SpecId 8"), "{text}");
    assert!(text.contains("OpSpecConstant %uint 8"), "{text}");
    assert_eq!(info.spec_ids, [7]);
    assert!(text.contains("PushConstant"), "{text}");
    let range = info.push_constants.expect("a push-constant range");
    assert_eq!((range.offset, range.size), (16, 4));
}

#[test]
fn two_values_given_one_spec_id_are_refused() {
    let state = alpha(
        StateValue::Spec {
            id: 3,
            default: cmp_func::ALWAYS,
        },
        StateValue::Spec { id: 3, default: 0 },
    );
    let m = applied(PS, None, &state);
    let options = Options::default().with_d3d9_state(state);
    let scratch = &mut crate::back::spirv::Scratch::default();
    let e = crate::pipeline::emit_with_info(&m, &options, Default::default(), scratch)
        .expect_err("SpecId 3 twice");
    assert!(e.to_string().contains("SpecId 3 is given to both"), "{e}");
}

#[test]
fn alpha_test_refuses_values_outside_d3d9s_ranges() {
    for state in [
        alpha(StateValue::Immediate(9), StateValue::Immediate(0)),
        alpha(StateValue::Immediate(2), StateValue::Immediate(256)),
        alpha(StateValue::Immediate(2), StateValue::Push { offset: 2 }),
    ] {
        let mut m = lowered(PS);
        let e = crate::passes::apply_d3d9_state(&mut m, &state).expect_err("refused");
        assert!(matches!(e, crate::passes::Error::Invalid(_)), "{e}");
        assert!(e.to_string().contains("Options::d3d9_state"), "{e}");
    }
    let bytes = crate::test_support::assemble(PS);
    let options = Options::default()
        .with_d3d9_state(alpha(StateValue::Immediate(0), StateValue::Immediate(0)));
    let e = crate::translate(&bytes, &options).expect_err("refused");
    assert_eq!(e.kind(), ErrorKind::Invalid);
}

fn fog(mode: FogMode, depth: FogDepth) -> D3d9State {
    D3d9State {
        fog: Fog {
            mode,
            depth,
            color: StateValue::Spec {
                id: 3,
                default: [0.25, 0.5, 0.75],
            },
            start: StateValue::Immediate(0.25),
            end: StateValue::Push { offset: 0 },
            density: StateValue::Immediate(2.0),
        },
        ..D3d9State::default()
    }
}

#[test]
fn fog_blends_before_sm3_from_each_source() {
    for (mode, depth) in [
        (FogMode::Vertex, FogDepth::Z),
        (FogMode::Table(FogFunction::Linear), FogDepth::Z),
        (FogMode::Table(FogFunction::Exp), FogDepth::W),
        (FogMode::Table(FogFunction::Exp2), FogDepth::Z),
    ] {
        let m = applied(PS, Some((2, 0)), &fog(mode, depth));
        let (text, _) = emitted(&m, &Options::default());
        assert!(
            text.contains("SpecId 3") && text.contains("SpecId 5"),
            "{text}"
        );
        match mode {
            FogMode::Vertex => {
                // The FOG input (location 18, x) is declared.
                assert!(m.inputs.iter().any(|d| d.register == 18 && d.mask == 1));
                assert!(text.contains("Location 18"), "{text}");
            }
            _ => {
                let position = m
                    .inputs
                    .iter()
                    .find(|d| d.system_value == SystemValue::Position)
                    .expect("the position is declared");
                let c = if depth == FogDepth::Z { 4 } else { 8 };
                assert_eq!(position.mask, c);
                assert!(text.contains("FragCoord"), "{text}");
            }
        }
        let linear = mode == FogMode::Table(FogFunction::Linear);
        assert_eq!(text.contains("PushConstant"), linear, "{text}");
    }
    // ps_3_0 fogs itself: nothing added.
    let m = applied(PS, Some((3, 0)), &fog(FogMode::Vertex, FogDepth::Z));
    assert_eq!(m.functions.len(), 1);
}

#[test]
fn clip_planes_write_one_distance_per_enabled_plane() {
    let mut planes = ClipPlanes {
        enabled: StateValue::Immediate(0b10_0101),
        ..ClipPlanes::default()
    };
    planes.planes[2] = StateValue::Spec {
        id: 10,
        default: [1.0, 0.0, 0.0, 0.5],
    };
    let state = D3d9State {
        clip_planes: planes,
        ..D3d9State::default()
    };
    let m = applied(VS, None, &state);
    let distances: Vec<_> = m
        .outputs
        .iter()
        .filter(|d| d.system_value == SystemValue::ClipDistance)
        .map(|d| d.mask)
        .collect();
    assert_eq!(distances, [0b111]);
    let (text, _) = emitted(&m, &Options::default());
    assert!(text.contains("BuiltIn ClipDistance"), "{text}");
    assert!(text.contains("SpecId 13"), "{text}");
    // A mask the pipeline sets: all six, in two registers.
    planes.enabled = StateValue::Push { offset: 4 };
    let state = D3d9State {
        clip_planes: planes,
        ..D3d9State::default()
    };
    let m = applied(VS, None, &state);
    let distances: Vec<_> = m
        .outputs
        .iter()
        .filter(|d| d.system_value == SystemValue::ClipDistance)
        .map(|d| d.mask)
        .collect();
    assert_eq!(distances, [0xf, 0b11]);
    let (text, info) = emitted(&m, &Options::default());
    assert!(text.contains("_arr_float_uint_6"), "{text}");
    assert_eq!(
        info.push_constants.map(|r| (r.offset, r.size)),
        Some((4, 4))
    );
}

#[test]
fn point_size_is_written_and_clamped() {
    let state = D3d9State {
        point_size: Some(PointSize {
            size: StateValue::Immediate(8.0),
            min: StateValue::Spec {
                id: 1,
                default: 2.0,
            },
            max: StateValue::Immediate(4.0),
        }),
        ..D3d9State::default()
    };
    let m = applied(VS, None, &state);
    assert!(m
        .outputs
        .iter()
        .any(|d| d.system_value == SystemValue::PointSize));
    let entry = ops(&m);
    assert!(
        entry.ends_with(&[Op::Mov, Op::Max, Op::Min, Op::Ret]),
        "{entry:?}"
    );
    let (text, _) = emitted(&m, &Options::default());
    assert!(text.contains("BuiltIn PointSize"), "{text}");
}

#[test]
fn point_sprites_replace_texcoords_with_the_point_coordinate() {
    for sprite in [
        StateValue::Immediate(true),
        StateValue::Spec {
            id: 0,
            default: false,
        },
    ] {
        let state = D3d9State {
            point_sprite: sprite,
            ..D3d9State::default()
        };
        let m = applied(PS, None, &state);
        let pc = m
            .inputs
            .iter()
            .find(|d| d.system_value == SystemValue::PointCoord)
            .expect("declared");
        assert_eq!(pc.mask, 0b11);
        // Both TEXCOORD registers (v0, v1) are rewritten before the shader runs.
        let body = m.body(ir::FunctionId::new(0));
        let rewritten: Vec<_> = body
            .iter()
            .filter_map(|i| match i.dst().first().map(|d| d.reg) {
                Some(Reg::Input(index)) => Some(index.imm),
                _ => None,
            })
            .collect();
        assert_eq!(rewritten, [0, 1]);
        let (text, _) = emitted(&m, &Options::default());
        assert!(text.contains("BuiltIn PointCoord"), "{text}");
    }
}

#[test]
fn flat_shading_makes_the_colour_locations_flat() {
    let text = "
ps_5_0
dcl_input_ps linear v16.xyzw
dcl_output o0.xyzw
mov o0.xyzw, v16.xyzw
ret
";
    let bytes = crate::test_support::assemble(text);
    let state = D3d9State {
        flat_shading: true,
        ..D3d9State::default()
    };
    let t =
        crate::translate(&bytes, &Options::default().with_d3d9_state(state)).expect("translates");
    tools::validate(&t.spirv, "vulkan1.1");
    let dis = tools::disassemble(&t.spirv).unwrap_or_default();
    if !dis.is_empty() {
        assert!(dis.contains("Flat"), "{dis}");
    }
    let plain = crate::translate(&bytes, &Options::default()).expect("translates");
    assert_ne!(plain.spirv, t.spirv);
}

#[test]
fn parameters_print_and_are_read_only() {
    let state = alpha(
        StateValue::Spec {
            id: 2,
            default: cmp_func::LESS,
        },
        StateValue::Immediate(1),
    );
    let mut m = applied(PS, None, &state);
    let text = ir::print(&m);
    assert!(
        text.contains("parameter #0 alpha_func Uintx1 spec id 2"),
        "{text}"
    );
    assert!(text.contains("param#1"), "{text}");
    // A parameter written, or one past the table, is refused.
    let mut inst = ir::Inst::new(Op::Mov, 0);
    inst.push_dst(ir::Dst {
        reg: Reg::Parameter(0),
        mask: 1,
    });
    inst.push_src(ir::Src::new(Reg::Imm32([0; 4])));
    let start = m.insts.len() as u32;
    m.insts.push(inst);
    m.insts.push(ir::Inst::new(Op::Ret, 0));
    m.functions.push(ir::Function {
        label: Some(99),
        body: start..start + 2,
        span: 0,
    });
    let e = ir::validate(&m).expect_err("a parameter written");
    assert!(e.to_string().contains("read only"), "{e}");
}

/// `text` (a Direct3D 9 listing) translated under `state` for Vulkan 1.0 and 1.3, validated;
/// the 1.3 disassembly and the IR.
#[cfg(feature = "d3d9")]
fn d3d9(text: &str, state: D3d9State) -> (String, Module) {
    let bytes = crate::text::d3d9::asm::assemble_bytes(text).unwrap_or_else(|e| panic!("{e}"));
    let options = Options::default().with_d3d9_state(state);
    let module = crate::translate_to_ir(&bytes, &options).unwrap_or_else(|e| panic!("{e}"));
    let mut dis = String::new();
    for target in [Target::Vulkan1_0, Target::Vulkan1_3] {
        let t = crate::translate(&bytes, &options.clone().with_target(target))
            .unwrap_or_else(|e| panic!("{e}"));
        tools::validate(&t.spirv, target.name());
        dis = tools::disassemble(&t.spirv).unwrap_or_default();
    }
    (dis, module)
}

#[cfg(feature = "d3d9")]
#[test]
fn direct3d9_shaders_get_fog_sprites_and_point_size_by_location() {
    // ps_2_0: t0 is TEXCOORD0 (location 0), v0 COLOR0 (16); no FOG input: the pass declares it
    // at location 18.
    let ps = "ps_2_0\ndcl t0\ndcl v0\nadd r0, t0, v0\nmov oC0, r0\n";
    let state = D3d9State {
        fog: Fog {
            mode: FogMode::Vertex,
            ..Fog::default()
        },
        point_sprite: StateValue::Immediate(true),
        ..D3d9State::default()
    };
    let (text, m) = d3d9(ps, state);
    let fog = m
        .inputs
        .iter()
        .find(|d| m.input_location(d.register) == 18)
        .expect("the FOG input");
    assert_eq!(fog.mask, 1);
    assert!(text.contains("Location 18"), "{text}");
    assert!(text.contains("BuiltIn PointCoord"), "{text}");
    // Only the TEXCOORD input is rewritten, not COLOR0.
    let rewritten: Vec<u32> = m
        .body(ir::FunctionId::new(0))
        .iter()
        .filter_map(|i| match i.dst().first().map(|d| d.reg) {
            Some(Reg::Input(index)) => Some(m.input_location(index.imm)),
            _ => None,
        })
        .collect();
    assert_eq!(rewritten, [0]);
    // ps_3_0 fogs itself.
    let (_, m) = d3d9("ps_3_0\ndcl_texcoord0 v0\nmov oC0, v0\n", state);
    assert!(m.inputs.iter().all(|d| m.input_location(d.register) != 18));
    // vs_2_0's oPts becomes the clamped PointSize.
    let vs = "vs_2_0\ndcl_position v0\nmov oPos, v0\nmov oPts, v0.x\n";
    let state = D3d9State {
        point_size: Some(PointSize::default()),
        ..D3d9State::default()
    };
    let (text, m) = d3d9(vs, state);
    assert!(m
        .outputs
        .iter()
        .any(|d| d.system_value == SystemValue::PointSize));
    assert!(text.contains("BuiltIn PointSize"), "{text}");
    assert!(ops(&m).ends_with(&[Op::Max, Op::Min, Op::Ret]));
}
