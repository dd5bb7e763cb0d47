//! Unit tests of the binding types, the D3D11 default layout and the table form.

use super::*;
use ResourceKind::{
    ConstantBuffer as B, Sampler as S, ShaderResource as T, UavCounter, UnorderedAccess as U,
};

fn one(kind: ResourceKind, space: u32, register: u32) -> RegisterRange {
    RegisterRange::single(kind, space, register)
}

fn desc(set: u32, binding: u32, array_offset: u32, count: Count) -> BindingTarget {
    BindingTarget::Descriptor(VulkanBinding {
        set,
        binding,
        array_offset,
        descriptor_count: count,
    })
}

#[test]
fn bindings_kinds_and_counts() {
    let letters: String = ResourceKind::ALL
        .iter()
        .map(|k| k.register_letter())
        .collect();
    assert_eq!(letters, "btusu");
    let indices: Vec<u32> = ResourceKind::ALL.iter().map(|k| k.index()).collect();
    assert_eq!(indices, [0, 1, 2, 3, 4]);
    assert_eq!(Count::Bounded(8).bounded(), Some(8));
    assert_eq!(Count::Unbounded.bounded(), None);
    assert_eq!(Count::Bounded(8).to_string(), "8");
    assert_eq!(Count::Unbounded.to_string(), "unbounded");
}

#[test]
fn bindings_register_range_display_names_the_d3d_registers() {
    let cases = [
        (RegisterRange::bounded(T, 1, 10, 8), "t10..t17 space1"),
        (one(U, 0, 3).counter(), "u3 (counter) space0"),
        (
            RegisterRange::unbounded(T, 0, 10),
            "t10.. (unbounded) space0",
        ),
        (one(S, 0, 5), "s5 space0"),
        (one(B, 2, 0), "b0 space2"),
        (
            RegisterRange::bounded(U, 0, 0, 4).counter(),
            "u0..u3 (counter) space0",
        ),
        (RegisterRange::bounded(T, 0, 7, 0), "t7 (empty) space0"),
    ];
    for (range, text) in cases {
        assert_eq!(range.to_string(), text);
    }
}

#[test]
fn bindings_register_range_arithmetic() {
    let r = RegisterRange::bounded(T, 0, 10, 8);
    assert_eq!((r.end(), r.last()), (Some(18), Some(17)));
    assert!(r.contains_register(10) && r.contains_register(17));
    assert!(!r.contains_register(9) && !r.contains_register(18));
    let u = RegisterRange::unbounded(T, 0, 10);
    assert_eq!((u.end(), u.last()), (None, None));
    assert!(u.contains_register(u32::MAX) && !u.contains_register(9));
    let top = RegisterRange::bounded(T, 0, u32::MAX, 1);
    assert_eq!(top.end(), Some(1 << 32));
    assert!(top.check().is_ok());
    assert!(RegisterRange::bounded(T, 0, u32::MAX, 2).check().is_err());
    assert!(RegisterRange::bounded(T, 0, 0, 0).check().is_err());

    assert!(r.overlaps(&one(T, 0, 17)) && one(T, 0, 17).overlaps(&r));
    assert!(r.overlaps(&u) && u.overlaps(&RegisterRange::unbounded(T, 0, 3)));
    assert!(!r.overlaps(&one(T, 0, 18)) && !r.overlaps(&one(T, 1, 12)));
    assert!(!r.overlaps(&one(U, 0, 12)) && !one(U, 0, 12).overlaps(&one(U, 0, 12).counter()));
    assert!(!r.overlaps(&RegisterRange::bounded(T, 0, 12, 0)));
    assert_eq!(one(T, 0, 3).counter(), one(T, 0, 3));
}

#[test]
fn bindings_error_messages() {
    let e = BindingError::Unmapped {
        range: RegisterRange::bounded(T, 1, 10, 8),
    };
    assert_eq!(
        e.to_string(),
        "t10..t17 space1 is not mapped to any Vulkan binding"
    );
    let e = BindingError::PartiallyMapped {
        range: RegisterRange::unbounded(T, 0, 10),
        mapped: RegisterRange::bounded(T, 0, 10, 4),
    };
    assert_eq!(
        e.to_string(),
        "t10.. (unbounded) space0 is only partly mapped: t10..t13 space0 maps to one Vulkan \
         binding, the rest does not"
    );
    let e = BindingError::Overlap {
        first: one(U, 0, 3).counter(),
        second: RegisterRange::bounded(UavCounter, 0, 2, 4),
    };
    assert_eq!(
        e.to_string(),
        "binding table maps u3 (counter) space0 and u2..u5 (counter) space0, which overlap"
    );
    let e = BindingError::RootSignature {
        offset: 0x40,
        reason: "unknown descriptor range type 9".into(),
    };
    assert_eq!(
        e.to_string(),
        "root signature at 0x40: unknown descriptor range type 9"
    );
}

#[test]
fn bindings_d3d11_layout() {
    let m = D3d11Bindings::default();
    let expect = [
        (one(B, 0, 0), 0),
        (one(B, 0, 13), 13),
        (one(S, 0, 0), 16),
        (one(S, 0, 15), 31),
        (one(T, 0, 0), 32),
        (one(T, 0, 127), 159),
        (one(U, 0, 0), 160),
        (one(U, 0, 63), 223),
        (one(U, 0, 0).counter(), 224),
        (one(U, 0, 63).counter(), 287),
    ];
    for (range, binding) in expect {
        assert_eq!(
            m.map(&range),
            Ok(desc(0, binding, 0, Count::Bounded(1))),
            "{range}"
        );
    }
    let bindings: Vec<u32> = m
        .ranges()
        .map(|(r, b)| b + r.count.bounded().unwrap_or(0))
        .collect();
    assert_eq!(bindings, [14, 160, 224, 32, D3d11Bindings::BINDING_COUNT]);
    let stage = D3d11Bindings::with_set(3);
    assert_eq!(
        stage.map(&one(T, 0, 4)),
        Ok(desc(3, 36, 0, Count::Bounded(1)))
    );
}

#[test]
fn bindings_d3d11_rejects_what_it_does_not_map() {
    let m = D3d11Bindings::default();
    for range in [
        one(B, 0, 14),
        one(S, 0, 16),
        one(T, 0, 128),
        one(U, 0, 64),
        one(T, 1, 0),
    ] {
        assert_eq!(m.map(&range), Err(BindingError::Unmapped { range }));
    }
    let e = m.map(&one(U, 0, 64).counter()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "u64 (counter) space0 is not mapped to any Vulkan binding"
    );
    for range in [
        RegisterRange::bounded(T, 0, 3, 3),
        RegisterRange::unbounded(T, 0, 3),
    ] {
        let mapped = one(T, 0, 3);
        assert_eq!(
            m.map(&range),
            Err(BindingError::PartiallyMapped { range, mapped })
        );
    }
    assert!(matches!(
        m.map(&RegisterRange::bounded(T, 0, 3, 0)),
        Err(BindingError::Invalid { .. })
    ));
    assert_eq!(
        Bindings::D3d11(m).map(&one(T, 1, 0)),
        Err(BindingError::Unmapped {
            range: one(T, 1, 0)
        })
    );
}

/// Registers of one kind spread over bindings: t0..t3 and t4..t7 continue one array, t8..t9
/// starts another binding, t12.. is unbounded; b0 is push constants, b1..b2 descriptors.
fn sample_table() -> TableBindings {
    let entries = vec![
        TableEntry::new(RegisterRange::bounded(T, 0, 4, 4), 1, 0, 14),
        TableEntry::new(RegisterRange::bounded(T, 0, 0, 4), 1, 0, 10),
        TableEntry::new(RegisterRange::bounded(T, 0, 8, 2), 1, 1, 0),
        TableEntry::new(RegisterRange::unbounded(T, 0, 12), 1, 2, 5),
        TableEntry::new(RegisterRange::bounded(B, 0, 1, 2), 0, 0, 0),
        TableEntry::new(RegisterRange::bounded(U, 0, 0, 2), 1, 3, 0),
        TableEntry::new(RegisterRange::bounded(U, 0, 0, 2).counter(), 1, 4, 0),
    ];
    let push = PushConstants {
        offset: 16,
        size: 8,
    };
    let rc = vec![RootConstantsEntry {
        space: 0,
        register: 0,
        push_constants: push,
    }];
    TableBindings::new(entries, rc).unwrap()
}

#[test]
fn bindings_table_lookups() {
    let m = sample_table();
    let bounded = Count::Bounded;
    let cases = [
        (
            RegisterRange::bounded(T, 0, 0, 4),
            desc(1, 0, 10, bounded(18)),
        ),
        (one(T, 0, 6), desc(1, 0, 16, bounded(18))),
        // Runs on from t0..t3 into t4..t7: same binding, contiguous elements.
        (
            RegisterRange::bounded(T, 0, 2, 6),
            desc(1, 0, 12, bounded(18)),
        ),
        (one(T, 0, 9), desc(1, 1, 1, bounded(2))),
        (
            RegisterRange::unbounded(T, 0, 12),
            desc(1, 2, 5, Count::Unbounded),
        ),
        (
            RegisterRange::bounded(T, 0, 100, 50),
            desc(1, 2, 93, Count::Unbounded),
        ),
        (
            RegisterRange::bounded(B, 0, 1, 2),
            desc(0, 0, 0, bounded(2)),
        ),
        (one(U, 0, 1).counter(), desc(1, 4, 1, bounded(2))),
    ];
    for (range, target) in cases {
        assert_eq!(m.map(&range), Ok(target), "{range}");
    }
    let push = PushConstants {
        offset: 16,
        size: 8,
    };
    assert_eq!(m.map(&one(B, 0, 0)), Ok(BindingTarget::PushConstants(push)));
    assert_eq!(m.map(&one(B, 0, 0)).unwrap().descriptor(), None);
    assert_eq!(m.push_constants_size(), 24);
    fn through_ref(m: impl BindingMap, r: &RegisterRange) -> Result<BindingTarget, BindingError> {
        m.map(r)
    }
    assert_eq!(through_ref(&m, &one(T, 0, 0)), m.map(&one(T, 0, 0)));
    assert_eq!(
        Bindings::Table(m.clone()).map(&one(T, 0, 9)),
        m.map(&one(T, 0, 9))
    );
}

#[test]
fn bindings_table_misses() {
    let m = sample_table();
    // (asked, the part reported as mapped)
    let cases = [
        // Another binding follows t7: t8 breaks the run.
        (
            RegisterRange::bounded(T, 0, 6, 4),
            RegisterRange::bounded(T, 0, 6, 2),
        ),
        // A gap at t10..t11.
        (
            RegisterRange::bounded(T, 0, 8, 4),
            RegisterRange::bounded(T, 0, 8, 2),
        ),
        // Starts before the first mapped register: the mapped part is reported.
        (
            RegisterRange::bounded(T, 0, 10, 4),
            RegisterRange::bounded(T, 0, 12, 2),
        ),
        (
            RegisterRange::unbounded(T, 0, 10),
            RegisterRange::unbounded(T, 0, 12),
        ),
        (
            RegisterRange::unbounded(T, 0, 8),
            RegisterRange::bounded(T, 0, 8, 2),
        ),
        // Push constants do not run on into descriptors.
        (RegisterRange::bounded(B, 0, 0, 2), one(B, 0, 0)),
        (RegisterRange::bounded(U, 0, 1, 2), one(U, 0, 1)),
    ];
    for (range, mapped) in cases {
        let expected = Err(BindingError::PartiallyMapped { range, mapped });
        assert_eq!(m.map(&range), expected, "{range}");
    }
    for range in [
        one(T, 0, 10),
        one(T, 1, 0),
        one(S, 0, 0),
        one(U, 0, 2).counter(),
        one(B, 0, 3),
    ] {
        assert_eq!(m.map(&range), Err(BindingError::Unmapped { range }));
    }
    let max = RegisterRange::single(T, 0, u32::MAX);
    let far = TableBindings::new(
        vec![TableEntry::new(RegisterRange::unbounded(T, 0, 0), 0, 0, 1)],
        Vec::new(),
    )
    .unwrap();
    assert!(matches!(far.map(&max), Err(BindingError::Invalid { .. })));
}

#[test]
fn bindings_table_layout_sizes_each_binding() {
    let m = sample_table();
    let layout: Vec<(u32, u32, Vec<ResourceKind>, Count)> = m
        .layout()
        .iter()
        .map(|b| (b.set, b.binding, b.kinds.clone(), b.descriptor_count))
        .collect();
    let bounded = Count::Bounded;
    assert_eq!(
        layout,
        [
            (0, 0, vec![B], bounded(2)),
            (1, 0, vec![T], bounded(18)),
            (1, 1, vec![T], bounded(2)),
            (1, 2, vec![T], Count::Unbounded),
            (1, 3, vec![U], bounded(2)),
            (1, 4, vec![UavCounter], bounded(2)),
        ]
    );
    assert_eq!(m.entries().len(), 7);
    assert_eq!(m.root_constants()[0].range(), one(B, 0, 0));
    let shared = TableBindings::new(
        vec![
            TableEntry::new(one(T, 0, 0), 0, 0, 3),
            TableEntry::new(one(U, 0, 0), 0, 0, 0),
        ],
        Vec::new(),
    )
    .unwrap();
    assert_eq!(shared.layout()[0].kinds, [T, U]);
    assert_eq!(shared.layout()[0].descriptor_count, bounded(4));
}

#[test]
fn bindings_table_rejects_invalid_tables() {
    let e = |range, set, binding, off| TableEntry::new(range, set, binding, off);
    let overlap = TableBindings::new(
        vec![
            e(RegisterRange::bounded(T, 1, 0, 8), 0, 0, 0),
            e(RegisterRange::bounded(T, 0, 0, 8), 0, 1, 0),
            e(RegisterRange::unbounded(T, 1, 12), 0, 2, 0),
            e(RegisterRange::bounded(T, 1, 20, 2), 0, 3, 0),
        ],
        Vec::new(),
    );
    assert_eq!(
        overlap.unwrap_err().to_string(),
        "binding table maps t12.. (unbounded) space1 and t20..t21 space1, which overlap"
    );
    let rc = RootConstantsEntry {
        space: 0,
        register: 2,
        push_constants: PushConstants { offset: 0, size: 4 },
    };
    let with_rc = TableBindings::new(
        vec![e(RegisterRange::bounded(B, 0, 0, 4), 0, 0, 0)],
        vec![rc],
    );
    assert!(matches!(with_rc, Err(BindingError::Overlap { .. })));
    let empty = TableBindings::new(vec![e(RegisterRange::bounded(T, 0, 3, 0), 0, 0, 0)], vec![]);
    assert!(matches!(empty, Err(BindingError::Invalid { .. })));
    let huge = TableBindings::new(
        vec![e(RegisterRange::bounded(T, 0, 0, 8), 0, 0, u32::MAX - 4)],
        vec![],
    );
    assert_eq!(
        huge.unwrap_err().to_string(),
        "invalid range t0..t7 space0: its binding would need more than 4294967295 descriptors"
    );
    // Different kinds, spaces or counters never overlap.
    let fine = TableBindings::new(
        vec![
            e(one(T, 0, 0), 0, 0, 0),
            e(one(T, 1, 0), 0, 1, 0),
            e(one(U, 0, 0), 0, 2, 0),
            e(one(U, 0, 0).counter(), 0, 3, 0),
            e(one(S, 0, 0), 0, 4, 0),
            e(one(B, 0, 0), 0, 5, 0),
        ],
        Vec::new(),
    );
    assert!(fine.is_ok());
}

#[test]
fn bindings_one_binding_per_range() {
    let ranges = [
        one(T, 0, 5),
        RegisterRange::unbounded(T, 0, 10),
        RegisterRange::bounded(T, 1, 0, 8),
        one(S, 0, 5),
    ];
    let m = TableBindings::one_binding_per_range(2, ranges).unwrap();
    for (i, range) in ranges.iter().enumerate() {
        assert_eq!(m.map(range), Ok(desc(2, i as u32, 0, range.count)));
    }
    assert!(TableBindings::one_binding_per_range(0, [one(T, 0, 1), one(T, 0, 1)]).is_err());
}
