//! IR unit tests: the validator's rules and the printer's form.

use super::*;

fn module_with(insts: Vec<Inst>) -> Module {
    let n = insts.len() as u32;
    Module {
        model: (5, 0),
        temps: 1,
        functions: vec![Function {
            label: None,
            body: 0..n,
            span: 0,
        }],
        insts,
        ..Module::new(Stage::Compute)
    }
}

fn inst(op: Op, span: u32) -> Inst {
    let mut i = Inst::new(op, span);
    let (d, s) = op.arity();
    for _ in 0..d {
        i.push_dst(Dst {
            reg: Reg::Temp(0),
            mask: 1,
        });
    }
    for _ in 0..s {
        i.push_src(Src::new(Reg::Temp(0)));
    }
    i
}

#[test]
fn balanced_control_flow_validates() {
    let m = module_with(vec![
        inst(Op::Loop, 0),
        inst(Op::If, 4),
        inst(Op::Break, 8),
        inst(Op::EndIf, 12),
        inst(Op::EndLoop, 16),
        inst(Op::Ret, 20),
    ]);
    assert_eq!(validate(&m), Ok(()));
}

#[test]
fn unbalanced_control_flow_is_rejected_with_its_offset() {
    let m = module_with(vec![inst(Op::If, 0), inst(Op::EndLoop, 8)]);
    let e = validate(&m).unwrap_err();
    assert_eq!(e.offset, 8);
    assert!(e.message.contains("endloop"), "{e}");
    let m = module_with(vec![inst(Op::Continue, 0x24)]);
    assert_eq!(validate(&m).unwrap_err().offset, 0x24);
}

#[test]
fn out_of_range_registers_are_rejected() {
    let mut i = Inst::new(Op::Mov, 0x30);
    i.push_dst(Dst {
        reg: Reg::Temp(1),
        mask: 1,
    });
    i.push_src(Src::new(Reg::Temp(0)));
    let e = validate(&module_with(vec![i])).unwrap_err();
    assert_eq!(e.offset, 0x30);
    assert!(e.message.contains("r1 past dcl_temps 1"), "{e}");
}

#[test]
fn wrong_arity_is_rejected() {
    let mut i = Inst::new(Op::Add, 4);
    i.push_dst(Dst {
        reg: Reg::Temp(0),
        mask: 1,
    });
    let e = validate(&module_with(vec![i])).unwrap_err();
    assert!(e.message.contains("expected 1 and 2"), "{e}");
}

#[test]
fn printer_indents_constructs_and_shows_offsets() {
    let m = module_with(vec![
        inst(Op::Loop, 0),
        inst(Op::Break, 4),
        inst(Op::EndLoop, 8),
    ]);
    let text = print(&m);
    assert!(
        text.contains("0000:   loop\n0004:     break\n0008:   endloop\n"),
        "{text}"
    );
}

#[test]
fn recursion_is_rejected_at_the_call() {
    let mut call0 = Inst::new(Op::Call, 0x10);
    call0.push_src(Src::new(Reg::Function(FunctionId::new(1))));
    let mut call1 = Inst::new(Op::Call, 0x40);
    call1.push_src(Src::new(Reg::Function(FunctionId::new(1))));
    let mut m = module_with(vec![call0, inst(Op::Ret, 0x14), call1, inst(Op::Ret, 0x44)]);
    m.functions = vec![
        Function {
            label: None,
            body: 0..2,
            span: 0,
        },
        Function {
            label: Some(0),
            body: 2..4,
            span: 0x3c,
        },
    ];
    let e = validate(&m).unwrap_err();
    assert_eq!(e.offset, 0x40);
    assert!(e.message.contains("recursive"), "{e}");
}

#[test]
fn an_instruction_keeps_its_size() {
    assert_eq!(std::mem::size_of::<Payload>(), 5);
    assert_eq!(std::mem::size_of::<Inst>(), 272);
    assert_eq!(std::mem::size_of::<Reg>(), 24);
}

#[test]
fn the_op_table_is_consistent() {
    for &op in Op::ALL {
        let (_, srcs) = op.arity();
        let roles = op.roles();
        assert!(
            roles.is_empty() || roles.len() == srcs,
            "{op:?}: {} roles for {srcs} sources",
            roles.len()
        );
        assert_eq!(Op::from_name(op.name()), Some(op), "{op:?}");
        // The kind names the same family and converts back to the same operation.
        let back = match op.kind() {
            OpKind::Move(o) => (Family::Move, Op::from(o)),
            OpKind::Float(o) => (Family::Float, Op::from(o)),
            OpKind::Integer(o) => (Family::Integer, Op::from(o)),
            OpKind::Bits(o) => (Family::Bits, Op::from(o)),
            OpKind::Double(o) => (Family::Double, Op::from(o)),
            OpKind::Legacy(o) => (Family::Legacy, Op::from(o)),
            OpKind::Derivative(o) => (Family::Derivative, Op::from(o)),
            OpKind::ControlFlow(o) => (Family::ControlFlow, Op::from(o)),
            OpKind::Discard(o) => (Family::Discard, Op::from(o)),
            OpKind::Buffer(o) => (Family::Buffer, Op::from(o)),
            OpKind::Atomic(o) => (Family::Atomic, Op::from(o)),
            OpKind::Sync(o) => (Family::Sync, Op::from(o)),
            OpKind::TextureLoad(o) => (Family::TextureLoad, Op::from(o)),
            OpKind::Sample(o) => (Family::Sample, Op::from(o)),
            OpKind::Gather(o) => (Family::Gather, Op::from(o)),
            OpKind::Query(o) => (Family::Query, Op::from(o)),
            OpKind::Interpolation(o) => (Family::Interpolation, Op::from(o)),
            OpKind::Sparse(o) => (Family::Sparse, Op::from(o)),
            OpKind::Geometry(o) => (Family::Geometry, Op::from(o)),
        };
        assert_eq!(back, (op.family(), op), "{op:?}");
    }
    // Resource operations name their resource; samplers follow their resource.
    for op in [
        Op::Ld,
        Op::Sample,
        Op::Gather4PoC,
        Op::SampleDClS,
        Op::LdStructuredS,
    ] {
        assert!(op.source(Role::Resource).is_some(), "{op:?}");
    }
    assert_eq!(Op::SampleDClS.source(Role::Clamp), Some(5));
    assert_eq!(Op::from_name("dcl_temps"), None);
}

#[test]
fn payload_accessors_default_to_nothing() {
    assert_eq!(Payload::None.texel_offsets(), [0; 3]);
    assert_eq!(
        Payload::TexelOffsets([-8, 7, 0]).texel_offsets(),
        [-8, 7, 0]
    );
    assert_eq!(Payload::Stream(2).stream(), 2);
    assert_eq!(Payload::None.stream(), 0);
    assert_eq!(
        Payload::Switch(SwitchId::new(70_000))
            .switch()
            .map(SwitchId::index),
        Some(70_000)
    );
    assert_eq!(Payload::None.switch(), None);
}

/// A view (`ResourceDecl::view_of`) must name an earlier typed declaration of its range that
/// is no view itself.
#[test]
fn views_name_an_earlier_declaration_of_their_range() {
    use super::binding::{RegisterRange, ResourceKind};
    use super::{Dimension, ResourceDecl, ResourceId, ResourceShape, ReturnType};
    let decl = |register: u32, dim: Dimension, view_of: Option<u32>, span: u32| ResourceDecl {
        range: RegisterRange::single(ResourceKind::ShaderResource, 0, register),
        id: register,
        shape: ResourceShape::Typed {
            dim,
            ret: [ReturnType::Float; 4],
            samples: 0,
        },
        coherent: false,
        rasterizer_ordered: false,
        counter: false,
        binding: None,
        counter_binding: None,
        view_of: view_of.map(ResourceId::new),
        span,
    };
    let with = |resources: Vec<ResourceDecl>| {
        let mut m = module_with(vec![inst(Op::Ret, 0)]);
        m.resources = resources;
        validate(&m)
    };
    let (tex2d, cube, volume) = (
        Dimension::Texture2D,
        Dimension::TextureCube,
        Dimension::Texture3D,
    );
    with(vec![
        decl(1, tex2d, None, 10),
        decl(1, cube, Some(0), 20),
        decl(1, volume, Some(0), 30),
    ])
    .expect("two views of t1");
    // Another register, a later declaration, a view of a view: refused at the view (span 20).
    for resources in [
        vec![decl(2, tex2d, None, 10), decl(1, cube, Some(0), 20)],
        vec![decl(1, cube, Some(1), 20), decl(1, tex2d, None, 10)],
        vec![
            decl(1, tex2d, None, 10),
            decl(1, cube, Some(0), 30),
            decl(1, volume, Some(1), 20),
        ],
    ] {
        let e = with(resources).expect_err("refused");
        assert_eq!(e.offset, 20, "{}", e.message);
        assert!(e.message.contains("is a view of #"), "{}", e.message);
    }
    // A view of a raw declaration.
    let raw = ResourceDecl {
        shape: ResourceShape::Raw,
        ..decl(1, tex2d, None, 10)
    };
    let e = with(vec![raw, decl(1, cube, Some(0), 20)]).expect_err("refused");
    assert_eq!(e.offset, 20);
}
