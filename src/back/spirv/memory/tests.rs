//! Unit tests of buffer/shared-memory access, atomics, counters and barriers: small hand-built
//! IR modules, emitted for every SPIR-V version and checked by `spirv-val`.

use crate::back::spirv::Error;
use crate::back::spirv::{emit, EmitOptions};
use crate::bindings::{BindingTarget, Count, RegisterRange, ResourceKind, VulkanBinding};
use crate::ir::{
    self, Dimension, Dst, Function, Index, Inst, Module, Op, Reg, ResourceDecl, ResourceShape,
    ReturnType, Src, Stage, Tgsm,
};
use crate::spv::tests::tools::{disassemble, validate};
use crate::spv::Version;

const VERSIONS: [(Version, &str); 4] = [
    (Version::V1_0, "vulkan1.0"),
    (Version::V1_3, "vulkan1.1"),
    (Version::V1_5, "vulkan1.2"),
    (Version::V1_6, "vulkan1.3"),
];

fn target(binding: u32) -> Option<BindingTarget> {
    Some(BindingTarget::Descriptor(VulkanBinding {
        set: 0,
        binding,
        array_offset: 0,
        descriptor_count: Count::Bounded(1),
    }))
}

fn decl(uav: bool, register: u32, shape: ResourceShape) -> ResourceDecl {
    let kind = if uav {
        ResourceKind::UnorderedAccess
    } else {
        ResourceKind::ShaderResource
    };
    ResourceDecl {
        range: RegisterRange::single(kind, 0, register),
        id: register,
        shape,
        coherent: false,
        rasterizer_ordered: false,
        counter: false,
        binding: target(register + if uav { 100 } else { 0 }),
        counter_binding: None,
        view_of: None,
        span: 0,
    }
}

fn typed(ret: ReturnType) -> ResourceShape {
    ResourceShape::Typed {
        dim: Dimension::Buffer,
        ret: [ret; 4],
        samples: 0,
    }
}

/// A compute module with `resources`, `tgsm`, 4 temps and `insts` (plus `ret`).
fn module(resources: Vec<ResourceDecl>, tgsm: Vec<Tgsm>, mut insts: Vec<Inst>) -> Module {
    insts.push(Inst::new(Op::Ret, 0));
    Module {
        model: (5, 0),
        temps: 4,
        resources,
        tgsm,
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

fn inst(op: Op, dsts: &[Dst], srcs: &[Src]) -> Inst {
    let mut i = Inst::new(op, 0x40);
    for d in dsts {
        assert!(i.push_dst(*d));
    }
    for s in srcs {
        assert!(i.push_src(*s));
    }
    i
}

fn dst(reg: Reg, mask: u8) -> Dst {
    Dst { reg, mask }
}

fn src(reg: Reg) -> Src {
    Src::new(reg)
}

fn swz(reg: Reg, swizzle: [u8; 4]) -> Src {
    Src {
        swizzle,
        ..Src::new(reg)
    }
}

fn imm(v: u32) -> Src {
    src(Reg::Imm32([v; 4]))
}

fn t(decl: u32) -> Reg {
    Reg::Resource {
        decl: ir::ResourceId::new(decl),
        element: Index::imm(0),
    }
}

fn u(decl: u32) -> Reg {
    Reg::Uav {
        decl: ir::ResourceId::new(decl),
        element: Index::imm(0),
    }
}

/// Emits `m` for every version, validates each, and returns the SPIR-V 1.3 disassembly (empty
/// when `spirv-dis` is skipped).
fn check(m: &Module) -> String {
    let mut listing = String::new();
    for (version, env) in VERSIONS {
        let options = EmitOptions::for_tests(version);
        let words = emit(m, &options).unwrap_or_else(|e| panic!("{version}: {e}"));
        validate(&words, env);
        if version == Version::V1_3 {
            listing = disassemble(&words).unwrap_or_default();
        }
    }
    listing
}

fn emit_err(m: &Module) -> Error {
    let options = EmitOptions {
        debug_names: false,
        ..EmitOptions::for_tests(Version::V1_3)
    };
    emit(m, &options).expect_err("emission should fail")
}

#[test]
fn raw_loads_and_stores() {
    let r0 = Reg::Temp(0);
    let r1 = Reg::Temp(1);
    let m = module(
        vec![
            decl(false, 0, ResourceShape::Raw),
            decl(true, 0, ResourceShape::Raw),
        ],
        vec![],
        vec![
            inst(Op::LdRaw, &[dst(r0, 1)], &[src(Reg::ThreadId), src(t(0))]),
            // Every mask width, with a swizzle that skips word 0.
            inst(Op::LdRaw, &[dst(r1, 0xf)], &[src(r0), src(t(0))]),
            inst(
                Op::LdRaw,
                &[dst(r1, 0b1000)],
                &[src(r0), swz(t(0), [0, 0, 0, 3])],
            ),
            inst(
                Op::LdRaw,
                &[dst(r1, 0b0011)],
                &[imm(56), swz(t(0), [2, 1, 0, 0])],
            ),
            inst(
                Op::LdRaw,
                &[dst(r1, 0xf)],
                &[src(r0), swz(u(1), [3, 2, 1, 0])],
            ),
            inst(Op::LdRaw, &[dst(Reg::Null, 0)], &[src(r0), src(t(0))]),
            inst(
                Op::StoreRaw,
                &[dst(u(1), 0b0001)],
                &[src(r0), swz(r1, [3, 3, 3, 3])],
            ),
            inst(Op::StoreRaw, &[dst(u(1), 0b0111)], &[src(r0), src(r1)]),
            inst(
                Op::StoreRaw,
                &[dst(u(1), 0xf)],
                &[src(r0), swz(r1, [3, 2, 1, 0])],
            ),
        ],
    );
    let listing = check(&m);
    if !listing.is_empty() {
        assert!(listing.contains("OpArrayLength"), "{listing}");
        assert!(listing.contains("NonWritable"), "{listing}");
        assert!(listing.contains("ArrayStride 4"), "{listing}");
        assert!(listing.contains("StorageBuffer"), "{listing}");
    }
}

#[test]
fn structured_loads_stores_and_bufinfo() {
    let r0 = Reg::Temp(0);
    let r1 = Reg::Temp(1);
    let mut coherent = decl(true, 0, ResourceShape::Structured { stride: 20 });
    coherent.coherent = true;
    let m = module(
        vec![
            decl(false, 0, ResourceShape::Structured { stride: 12 }),
            coherent,
        ],
        vec![],
        vec![
            inst(
                Op::LdStructured,
                &[dst(r0, 1)],
                &[src(Reg::ThreadId), imm(0), src(t(0))],
            ),
            inst(
                Op::LdStructured,
                &[dst(r1, 0b0111)],
                &[src(r0), imm(4), swz(t(0), [0, 1, 1, 0])],
            ),
            inst(
                Op::LdStructured,
                &[dst(r1, 0b1000)],
                &[src(r0), imm(16), swz(u(1), [0, 0, 0, 0])],
            ),
            inst(
                Op::StoreStructured,
                &[dst(u(1), 0xf)],
                &[src(r0), imm(4), src(r1)],
            ),
            inst(
                Op::StoreStructured,
                &[dst(u(1), 0b0001)],
                &[src(r0), imm(0), src(r1)],
            ),
            inst(Op::Bufinfo, &[dst(r1, 0xf)], &[src(t(0))]),
            inst(Op::Bufinfo, &[dst(r1, 0b0010)], &[src(u(1))]),
        ],
    );
    let listing = check(&m);
    if !listing.is_empty() {
        assert!(listing.contains("Coherent"), "{listing}");
        assert!(listing.contains("OpUDiv"), "{listing}");
    }
}

/// A structured store whose words all lie in the element (immediate offset) is checked once,
/// by the element index; one that runs past the stride keeps a test per word (D3D drops each
/// out-of-bounds word on its own).
#[test]
fn structured_stores_inside_the_element_are_checked_once() {
    let r0 = Reg::Temp(0);
    let store = |offset: Src, mask: u8| {
        check(&module(
            vec![decl(true, 0, ResourceShape::Structured { stride: 16 })],
            vec![],
            vec![
                inst(Op::Mov, &[dst(r0, 0xf)], &[src(Reg::ThreadId)]),
                inst(
                    Op::StoreStructured,
                    &[dst(u(0), mask)],
                    &[src(r0), offset, src(r0)],
                ),
            ],
        ))
    };
    let tests = |listing: &str| listing.matches("OpSelectionMerge").count();
    let inside = store(imm(0), 0xf);
    let tail = store(imm(8), 0b0011);
    let crossing = store(imm(8), 0xf);
    let dynamic = store(swz(r0, [1, 1, 1, 1]), 0b0011);
    if inside.is_empty() {
        return; // spirv-dis skipped
    }
    assert_eq!(tests(&inside), 1, "{inside}");
    assert_eq!(inside.matches("OpStore ").count(), 4 + 1, "{inside}");
    assert_eq!(tests(&tail), 1, "{tail}");
    assert_eq!(tests(&crossing), 4, "{crossing}");
    assert_eq!(tests(&dynamic), 2, "{dynamic}");
}

#[test]
fn buffer_blocks_before_spirv_1_3_use_buffer_block() {
    let m = module(
        vec![decl(true, 0, ResourceShape::Raw)],
        vec![],
        vec![inst(Op::StoreRaw, &[dst(u(0), 1)], &[imm(0), imm(7)])],
    );
    check(&m);
    let words = emit(
        &m,
        &EmitOptions {
            debug_names: false,
            ..EmitOptions::for_tests(Version::V1_0)
        },
    )
    .expect("emits");
    if let Some(listing) = disassemble(&words) {
        assert!(listing.contains("BufferBlock"), "{listing}");
        assert!(!listing.contains("StorageBuffer"), "{listing}");
    }
}

#[test]
fn shared_memory_access_atomics_and_barriers() {
    let r0 = Reg::Temp(0);
    let r1 = Reg::Temp(1);
    let raw = Tgsm {
        register: 0,
        stride: 0,
        words: 64,
        span: 0,
    };
    let structured = Tgsm {
        register: 1,
        stride: 8,
        words: 16,
        span: 0,
    };
    let sync = |flags: u8| {
        let mut i = Inst::new(Op::Sync, 0);
        i.flags.sync = flags;
        i
    };
    let mut insts = vec![
        inst(
            Op::LdRaw,
            &[dst(r0, 1)],
            &[
                src(Reg::ThreadIdInGroupFlattened),
                src(Reg::Tgsm(ir::TgsmId::new(0))),
            ],
        ),
        inst(
            Op::StoreRaw,
            &[dst(Reg::Tgsm(ir::TgsmId::new(0)), 0b0011)],
            &[src(r0), src(Reg::ThreadId)],
        ),
        sync(0b0011),
        inst(
            Op::LdRaw,
            &[dst(r1, 0xf)],
            &[src(r0), swz(Reg::Tgsm(ir::TgsmId::new(0)), [1, 0, 3, 2])],
        ),
        inst(
            Op::StoreStructured,
            &[dst(Reg::Tgsm(ir::TgsmId::new(1)), 0b0011)],
            &[src(r0), imm(0), src(r1)],
        ),
        inst(
            Op::LdStructured,
            &[dst(r1, 0b0001)],
            &[src(r0), imm(4), swz(Reg::Tgsm(ir::TgsmId::new(1)), [1; 4])],
        ),
        inst(
            Op::AtomicIadd,
            &[dst(Reg::Tgsm(ir::TgsmId::new(0)), 1)],
            &[src(r0), imm(1)],
        ),
        inst(
            Op::AtomicCmpStore,
            &[dst(Reg::Tgsm(ir::TgsmId::new(0)), 1)],
            &[src(r0), imm(1), imm(2)],
        ),
        inst(
            Op::ImmAtomicUmax,
            &[dst(r1, 0b0100)],
            &[src(Reg::Tgsm(ir::TgsmId::new(1))), src(r0), imm(9)],
        ),
        inst(
            Op::ImmAtomicCmpExch,
            &[dst(r1, 1)],
            &[src(Reg::Tgsm(ir::TgsmId::new(0))), src(r0), imm(0), imm(5)],
        ),
    ];
    for flags in [
        0b0001, 0b0010, 0b0100, 0b1000, 0b0101, 0b1001, 0b1111, 0b1110, 0,
    ] {
        insts.push(sync(flags));
    }
    let m = module(vec![], vec![raw, structured], insts);
    let listing = check(&m);
    if !listing.is_empty() {
        assert!(listing.contains("OpControlBarrier"), "{listing}");
        assert!(listing.contains("OpMemoryBarrier"), "{listing}");
        assert!(listing.contains("Workgroup"), "{listing}");
    }
}

#[test]
fn uav_atomics_every_operation() {
    let r0 = Reg::Temp(0);
    let r1 = Reg::Temp(1);
    let raw = 0;
    let structured = 1;
    let mut insts = vec![inst(
        Op::LdRaw,
        &[dst(r0, 1)],
        &[src(Reg::ThreadId), src(u(raw))],
    )];
    let plain = [
        Op::AtomicAnd,
        Op::AtomicOr,
        Op::AtomicXor,
        Op::AtomicIadd,
        Op::AtomicImax,
        Op::AtomicImin,
        Op::AtomicUmax,
        Op::AtomicUmin,
    ];
    for op in plain {
        insts.push(inst(op, &[dst(u(raw), 1)], &[src(r0), imm(3)]));
        insts.push(inst(
            op,
            &[dst(u(structured), 1)],
            &[swz(r0, [0, 0, 0, 0]), imm(3)],
        ));
    }
    insts.push(inst(
        Op::AtomicCmpStore,
        &[dst(u(raw), 1)],
        &[src(r0), imm(3), imm(4)],
    ));
    let returning = [
        Op::ImmAtomicIadd,
        Op::ImmAtomicAnd,
        Op::ImmAtomicOr,
        Op::ImmAtomicXor,
        Op::ImmAtomicExch,
        Op::ImmAtomicImax,
        Op::ImmAtomicImin,
        Op::ImmAtomicUmax,
        Op::ImmAtomicUmin,
    ];
    for op in returning {
        insts.push(inst(
            op,
            &[dst(r1, 0b0010)],
            &[src(u(raw)), src(r0), imm(3)],
        ));
        insts.push(inst(
            op,
            &[dst(Reg::Null, 0)],
            &[src(u(structured)), src(r0), imm(3)],
        ));
    }
    insts.push(inst(
        Op::ImmAtomicCmpExch,
        &[dst(r1, 1)],
        &[src(u(structured)), src(r0), imm(3), imm(4)],
    ));
    let m = module(
        vec![
            decl(true, 0, ResourceShape::Raw),
            decl(true, 1, ResourceShape::Structured { stride: 16 }),
        ],
        vec![],
        insts,
    );
    let listing = check(&m);
    if !listing.is_empty() {
        for op in [
            "OpAtomicSMax",
            "OpAtomicUMin",
            "OpAtomicExchange",
            "OpAtomicCompareExchange",
        ] {
            assert!(listing.contains(op), "{op} missing:\n{listing}");
        }
    }
}

#[test]
fn uav_counter_alloc_and_consume() {
    let r1 = Reg::Temp(1);
    let mut d = decl(true, 2, ResourceShape::Structured { stride: 4 });
    d.counter = true;
    d.counter_binding = target(50);
    let m = module(
        vec![d],
        vec![],
        vec![
            inst(Op::ImmAtomicAlloc, &[dst(r1, 1)], &[src(u(0))]),
            inst(Op::ImmAtomicConsume, &[dst(r1, 2)], &[src(u(0))]),
            inst(
                Op::StoreStructured,
                &[dst(u(0), 1)],
                &[src(r1), imm(0), src(r1)],
            ),
        ],
    );
    let listing = check(&m);
    if !listing.is_empty() {
        assert!(listing.contains("OpAtomicIIncrement"), "{listing}");
        assert!(listing.contains("OpAtomicIDecrement"), "{listing}");
        assert!(listing.contains("Binding 50"), "{listing}");
    }
}

#[test]
fn typed_buffers_load_store_bufinfo() {
    let r0 = Reg::Temp(0);
    let r1 = Reg::Temp(1);
    let m = module(
        vec![
            decl(false, 0, typed(ReturnType::Float)),
            decl(true, 0, typed(ReturnType::Unorm)),
            decl(true, 1, typed(ReturnType::Sint)),
        ],
        vec![],
        vec![
            inst(
                Op::LdUavTyped,
                &[dst(r0, 1)],
                &[src(Reg::ThreadId), src(u(2))],
            ),
            inst(
                Op::LdUavTyped,
                &[dst(r1, 0xf)],
                &[src(r0), swz(u(1), [3, 2, 1, 0])],
            ),
            inst(Op::StoreUavTyped, &[dst(u(1), 0xf)], &[src(r0), src(r1)]),
            inst(Op::LdUavTyped, &[dst(r1, 0b0101)], &[src(r0), src(u(2))]),
            inst(Op::StoreUavTyped, &[dst(u(2), 0xf)], &[src(r0), src(r1)]),
            inst(Op::Bufinfo, &[dst(r1, 0xf)], &[src(t(0))]),
            inst(Op::Bufinfo, &[dst(r1, 1)], &[src(u(2))]),
        ],
    );
    let listing = check(&m);
    if !listing.is_empty() {
        for want in [
            "StorageImageReadWithoutFormat",
            "StorageImageWriteWithoutFormat",
            "SampledBuffer",
            "ImageBuffer",
            "OpImageQuerySize",
        ] {
            assert!(listing.contains(want), "{want} missing:\n{listing}");
        }
    }
}

#[test]
fn typed_atomics_declare_r32_formats() {
    let r0 = Reg::Temp(0);
    let r1 = Reg::Temp(1);
    let m = module(
        vec![
            decl(true, 0, typed(ReturnType::Uint)),
            decl(true, 1, typed(ReturnType::Sint)),
        ],
        vec![],
        vec![
            inst(
                Op::LdUavTyped,
                &[dst(r0, 1)],
                &[src(Reg::ThreadId), src(u(0))],
            ),
            inst(Op::AtomicIadd, &[dst(u(0), 1)], &[src(r0), imm(1)]),
            inst(
                Op::ImmAtomicImin,
                &[dst(r1, 1)],
                &[src(u(1)), src(r0), imm(7)],
            ),
            inst(
                Op::ImmAtomicCmpExch,
                &[dst(r1, 2)],
                &[src(u(0)), src(r0), imm(1), imm(2)],
            ),
            inst(Op::LdUavTyped, &[dst(r1, 0xf)], &[src(r0), src(u(0))]),
            inst(Op::StoreUavTyped, &[dst(u(1), 0xf)], &[src(r0), src(r1)]),
        ],
    );
    let listing = check(&m);
    if !listing.is_empty() {
        assert!(
            listing.contains("R32ui") && listing.contains("R32i"),
            "{listing}"
        );
        assert!(listing.contains("OpImageTexelPointer"), "{listing}");
        assert!(!listing.contains("WithoutFormat"), "{listing}");
    }
}

#[test]
fn refusals() {
    // A store to an SRV.
    let m = module(
        vec![decl(false, 0, ResourceShape::Raw)],
        vec![],
        vec![inst(Op::StoreRaw, &[dst(t(0), 1)], &[imm(0), imm(0)])],
    );
    assert!(matches!(emit_err(&m), Error::Invalid(e) if e.offset == 0x40));
    // `bufinfo` on a texture UAV.
    let tex = ResourceShape::Typed {
        dim: Dimension::Texture2D,
        ret: [ReturnType::Float; 4],
        samples: 0,
    };
    let m = module(
        vec![decl(true, 0, tex)],
        vec![],
        vec![inst(Op::Bufinfo, &[dst(Reg::Temp(0), 1)], &[src(u(0))])],
    );
    assert!(matches!(emit_err(&m), Error::Invalid(e) if e.offset == 0x40));
    // A constant index past the binding's array.
    let mut d = decl(true, 0, ResourceShape::Raw);
    d.range = RegisterRange::new(ResourceKind::UnorderedAccess, 0, 0, Count::Bounded(4));
    d.binding = Some(BindingTarget::Descriptor(VulkanBinding {
        set: 0,
        binding: 0,
        array_offset: 0,
        descriptor_count: Count::Bounded(4),
    }));
    let element = Reg::Uav {
        decl: ir::ResourceId::new(0),
        element: Index::imm(4),
    };
    let m = module(
        vec![d],
        vec![],
        vec![inst(Op::StoreRaw, &[dst(element, 1)], &[imm(0), imm(0)])],
    );
    match emit_err(&m) {
        Error::Invalid(e) if e.offset == 0x40 => {
            assert!(e.what.contains("outside its range"), "{}", e.what)
        }
        e => panic!("{e}"),
    }
    // Counter operations on a UAV without a counter: the passes give a counter to every UAV a
    // counter operation uses, so only a translator bug gets here.
    let m = module(
        vec![decl(true, 0, ResourceShape::Structured { stride: 4 })],
        vec![],
        vec![inst(
            Op::ImmAtomicAlloc,
            &[dst(Reg::Temp(0), 1)],
            &[src(u(0))],
        )],
    );
    assert!(matches!(emit_err(&m), Error::Internal(e) if e.offset == 0x40));
    // A structured access to raw shared memory.
    let g = Tgsm {
        register: 0,
        stride: 0,
        words: 4,
        span: 0,
    };
    let m = module(
        vec![],
        vec![g],
        vec![inst(
            Op::LdStructured,
            &[dst(Reg::Temp(0), 1)],
            &[imm(0), imm(0), src(Reg::Tgsm(ir::TgsmId::new(0)))],
        )],
    );
    assert!(matches!(emit_err(&m), Error::Invalid(e) if e.offset == 0x40));
}

mod descriptor_choices;
