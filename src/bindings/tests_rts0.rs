//! Tests of [`TableBindings::from_root_signature`]: the worked example of `docs/bindings.md`
//! (the SM5.1 seed's resources), layout rules, invalid root signatures and every root signature
//! in the corpus.

use super::*;
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::front::dxbc::rts0::{
    AddressMode, BorderColor, ComparisonFunc, DescriptorRange, DescriptorTable, Filter,
    ParameterKind, RangeType, RootConstants, RootDescriptor, RootParameter, RootSignature,
    RootSignatureFlags, ShaderVisibility, StaticSampler, Version,
};
use crate::test_support;
use ResourceKind::{ConstantBuffer as B, Sampler as S, ShaderResource as T, UnorderedAccess as U};

const APPEND: u32 = DescriptorRange::APPEND;
const UNBOUNDED: u32 = DescriptorRange::UNBOUNDED;

fn range(range_type: RangeType, count: u32, base: u32, space: u32, at: u32) -> DescriptorRange {
    DescriptorRange {
        offset: 0,
        range_type,
        count,
        base_register: base,
        space,
        flags: None,
        table_offset: at,
    }
}

fn table(visibility: ShaderVisibility, ranges: Vec<DescriptorRange>) -> RootParameter {
    let kind = ParameterKind::DescriptorTable(DescriptorTable { offset: 0, ranges });
    RootParameter {
        offset: 0,
        visibility,
        kind,
    }
}

fn root(kind: ParameterKind) -> RootParameter {
    RootParameter {
        offset: 0,
        visibility: ShaderVisibility::All,
        kind,
    }
}

fn static_sampler(register: u32, visibility: ShaderVisibility) -> StaticSampler {
    StaticSampler {
        offset: 0,
        filter: Filter(0x15),
        address_u: AddressMode::Wrap,
        address_v: AddressMode::Wrap,
        address_w: AddressMode::Wrap,
        mip_lod_bias: 0.0,
        max_anisotropy: 16,
        comparison_func: ComparisonFunc::LessEqual,
        border_color: BorderColor::OpaqueWhite,
        min_lod: 0.0,
        max_lod: f32::MAX,
        register,
        space: 0,
        visibility,
        flags: None,
    }
}

fn signature(parameters: Vec<RootParameter>, static_samplers: Vec<StaticSampler>) -> RootSignature {
    RootSignature {
        version: Version::V1_1,
        flags: RootSignatureFlags(0),
        parameters,
        static_samplers,
    }
}

/// The root signature of `docs/bindings.md`:
///
/// ```text
/// RootConstants(num32BitConstants=4, b0),
/// CBV(b1),
/// DescriptorTable(SRV(t5), SRV(t0, space=1, numDescriptors=8),
///                 SRV(t10, numDescriptors=unbounded)),
/// DescriptorTable(CBV(b2), UAV(u0, numDescriptors=4), SRV(t3, space=2, offset=8)),
/// DescriptorTable(Sampler(s5), visibility=SHADER_VISIBILITY_PIXEL),
/// StaticSampler(s0)
/// ```
fn docs_example() -> RootSignature {
    use RangeType::{Cbv, Sampler, Srv, Uav};
    let constants = RootConstants {
        offset: 0,
        register: 0,
        space: 0,
        count: 4,
    };
    let cbv = RootDescriptor {
        offset: 0,
        register: 1,
        space: 0,
        flags: None,
    };
    let all = ShaderVisibility::All;
    signature(
        vec![
            root(ParameterKind::Constants(constants)),
            root(ParameterKind::Cbv(cbv)),
            table(
                all,
                vec![
                    range(Srv, 1, 5, 0, APPEND),
                    range(Srv, 8, 0, 1, APPEND),
                    range(Srv, UNBOUNDED, 10, 0, APPEND),
                ],
            ),
            table(
                all,
                vec![
                    range(Cbv, 1, 2, 0, APPEND),
                    range(Uav, 4, 0, 0, APPEND),
                    range(Srv, 1, 3, 2, 8),
                ],
            ),
            table(
                ShaderVisibility::Pixel,
                vec![range(Sampler, 1, 5, 0, APPEND)],
            ),
        ],
        vec![static_sampler(0, all)],
    )
}

/// The docs example's table, written by hand.
fn docs_example_by_hand() -> TableBindings {
    let e = TableEntry::new;
    let entries = vec![
        e(RegisterRange::single(B, 0, 1), 0, 0, 0),
        e(RegisterRange::single(T, 0, 5), 1, 1, 0),
        e(RegisterRange::bounded(T, 1, 0, 8), 1, 1, 1),
        e(RegisterRange::unbounded(T, 0, 10), 1, 1, 9),
        e(RegisterRange::single(B, 0, 2), 2, 0, 0),
        e(RegisterRange::bounded(U, 0, 0, 4), 2, 2, 1),
        e(RegisterRange::bounded(U, 0, 0, 4).counter(), 2, 4, 1),
        e(RegisterRange::single(T, 2, 3), 2, 1, 8),
        e(RegisterRange::single(S, 0, 5), 3, 3, 0),
        e(RegisterRange::single(S, 0, 0), 0, 1, 0),
    ];
    let rc = RootConstantsEntry {
        space: 0,
        register: 0,
        push_constants: PushConstants {
            offset: 0,
            size: 16,
        },
    };
    TableBindings::new(entries, vec![rc]).unwrap()
}

fn at(set: u32, binding: u32, array_offset: u32, descriptor_count: Count) -> BindingTarget {
    BindingTarget::Descriptor(VulkanBinding {
        set,
        binding,
        array_offset,
        descriptor_count,
    })
}

#[test]
fn bindings_rts0_worked_example_maps_the_seed_resources() {
    let rs = docs_example();
    let m = TableBindings::from_root_signature(&rs, &RootSignatureOptions::default()).unwrap();
    assert_eq!(m, docs_example_by_hand());
    let unbounded = Count::Unbounded;
    // The SM5.1 seed: tex0 t5, tex1[][5][3] t10.. and tex2[8] t0..t7 space1 share set 1
    // binding 1 at offsets 0, 9 and 1; samp0 s5 is alone in the sampler table's set.
    let cases = [
        (RegisterRange::single(T, 0, 5), at(1, 1, 0, unbounded)),
        (RegisterRange::unbounded(T, 0, 10), at(1, 1, 9, unbounded)),
        (RegisterRange::bounded(T, 1, 0, 8), at(1, 1, 1, unbounded)),
        (
            RegisterRange::single(S, 0, 5),
            at(3, 3, 0, Count::Bounded(1)),
        ),
        // Static accesses: tex1[0][0][2] is t12, tex2[7] is t7 space1.
        (RegisterRange::single(T, 0, 12), at(1, 1, 11, unbounded)),
        (RegisterRange::single(T, 1, 7), at(1, 1, 8, unbounded)),
        // The second table: a range starting at u0 after b2, t3 space2 at explicit offset 8.
        (
            RegisterRange::single(B, 0, 2),
            at(2, 0, 0, Count::Bounded(1)),
        ),
        (
            RegisterRange::bounded(U, 0, 0, 4),
            at(2, 2, 1, Count::Bounded(5)),
        ),
        (
            RegisterRange::single(U, 0, 3).counter(),
            at(2, 4, 4, Count::Bounded(5)),
        ),
        (
            RegisterRange::single(T, 2, 3),
            at(2, 1, 8, Count::Bounded(9)),
        ),
        // The root set.
        (
            RegisterRange::single(B, 0, 1),
            at(0, 0, 0, Count::Bounded(1)),
        ),
        (
            RegisterRange::single(S, 0, 0),
            at(0, 1, 0, Count::Bounded(1)),
        ),
    ];
    for (range, target) in cases {
        assert_eq!(m.map(&range), Ok(target), "{range}");
    }
    let push = PushConstants {
        offset: 0,
        size: 16,
    };
    let b0 = RegisterRange::single(B, 0, 0);
    assert_eq!(m.map(&b0), Ok(BindingTarget::PushConstants(push)));
    for range in [
        RegisterRange::single(T, 1, 8),
        RegisterRange::single(T, 0, 6),
        RegisterRange::single(U, 0, 4),
    ] {
        assert_eq!(m.map(&range), Err(BindingError::Unmapped { range }));
    }
    let sets: Vec<(u32, u32)> = m.layout().iter().map(|b| (b.set, b.binding)).collect();
    assert_eq!(
        sets,
        [
            (0, 0),
            (0, 1),
            (1, 1),
            (2, 0),
            (2, 1),
            (2, 2),
            (2, 4),
            (3, 3)
        ]
    );

    // Per stage: the vertex shader does not see the pixel-only sampler table, and nothing moves.
    let vs = RootSignatureOptions {
        first_set: 2,
        stage: Some(ShaderVisibility::Vertex),
        ..Default::default()
    };
    let v = TableBindings::from_root_signature(&rs, &vs).unwrap();
    let s5 = RegisterRange::single(S, 0, 5);
    assert_eq!(v.map(&s5), Err(BindingError::Unmapped { range: s5 }));
    let t5 = RegisterRange::single(T, 0, 5);
    assert_eq!(v.map(&t5), Ok(at(3, 1, 0, unbounded)));

    // All tables in one set: table k's kinds at bindings 5k..5k + 4.
    let shared = RootSignatureOptions {
        tables: TableSets::Shared,
        ..Default::default()
    };
    let one_set = TableBindings::from_root_signature(&rs, &shared).unwrap();
    let layout: Vec<(u32, u32)> = one_set
        .layout()
        .iter()
        .map(|b| (b.set, b.binding))
        .collect();
    assert_eq!(
        layout,
        [
            (0, 0),
            (0, 1),
            (1, 1),
            (1, 5),
            (1, 6),
            (1, 7),
            (1, 9),
            (1, 13)
        ]
    );
    assert_eq!(one_set.map(&t5), Ok(at(1, 1, 0, unbounded)));
    assert_eq!(one_set.map(&s5), Ok(at(1, 13, 0, Count::Bounded(1))));
}

#[test]
fn bindings_rts0_per_stage_tables_may_repeat_registers() {
    let t0 = |vis| table(vis, vec![range(RangeType::Srv, 2, 0, 0, APPEND)]);
    let rs = signature(
        vec![t0(ShaderVisibility::Vertex), t0(ShaderVisibility::Pixel)],
        vec![
            static_sampler(0, ShaderVisibility::Pixel),
            static_sampler(0, ShaderVisibility::Vertex),
        ],
    );
    let all = TableBindings::from_root_signature(&rs, &RootSignatureOptions::default());
    assert!(matches!(all, Err(BindingError::Overlap { .. })));
    let t1 = RegisterRange::single(T, 0, 1);
    let s0 = RegisterRange::single(S, 0, 0);
    for (stage, set, sampler) in [
        (ShaderVisibility::Vertex, 1, 1),
        (ShaderVisibility::Pixel, 2, 0),
    ] {
        let options = RootSignatureOptions {
            first_set: 0,
            stage: Some(stage),
            ..Default::default()
        };
        let m = TableBindings::from_root_signature(&rs, &options).unwrap();
        assert_eq!(m.map(&t1), Ok(at(set, 1, 1, Count::Bounded(2))));
        assert_eq!(m.map(&s0), Ok(at(0, sampler, 0, Count::Bounded(1))));
    }
}

#[test]
fn bindings_rts0_offsets_append_and_errors() {
    use RangeType::{Sampler, Srv, Uav};
    // Explicit offsets may alias (D3D12 allows it); APPEND follows the previous range.
    let rs = signature(
        vec![table(
            ShaderVisibility::All,
            vec![
                range(Srv, 4, 0, 0, 6),
                range(Uav, 2, 0, 0, 2),
                range(Srv, 1, 4, 0, APPEND),
            ],
        )],
        vec![],
    );
    let m = TableBindings::from_root_signature(&rs, &RootSignatureOptions::default()).unwrap();
    assert_eq!(
        m.map(&RegisterRange::single(T, 0, 4)),
        Ok(at(1, 1, 4, Count::Bounded(10)))
    );
    assert_eq!(
        m.map(&RegisterRange::bounded(T, 0, 1, 3)),
        Ok(at(1, 1, 7, Count::Bounded(10)))
    );
    assert_eq!(
        m.map(&RegisterRange::single(U, 0, 1)),
        Ok(at(1, 2, 3, Count::Bounded(4)))
    );

    let bad = |ranges: Vec<DescriptorRange>| {
        let rs = signature(vec![table(ShaderVisibility::All, ranges)], vec![]);
        TableBindings::from_root_signature(&rs, &RootSignatureOptions::default())
            .unwrap_err()
            .to_string()
    };
    let mut unknown = range(Srv, 1, 0, 0, APPEND);
    unknown.range_type = RangeType::Unknown(9);
    unknown.offset = 0x40;
    assert_eq!(
        bad(vec![unknown]),
        "root signature at 0x40: unknown descriptor range type 9"
    );
    assert_eq!(
        bad(vec![
            range(Srv, UNBOUNDED, 0, 0, 0),
            range(Sampler, 1, 0, 0, APPEND)
        ]),
        "root signature at 0x0: s0 space0 is appended after an unbounded range"
    );
    assert_eq!(
        bad(vec![range(Srv, 8, 0, 0, u32::MAX - 4)]),
        "root signature at 0x0: t0..t7 space0 runs past descriptor 4294967295"
    );
    assert_eq!(
        bad(vec![range(Srv, 0, 3, 0, 0)]),
        "root signature at 0x0: invalid range t3 (empty) space0: the range is empty"
    );
    assert_eq!(
        bad(vec![
            range(Srv, 4, 0, 0, APPEND),
            range(Srv, 2, 3, 0, APPEND)
        ]),
        "binding table maps t0..t3 space0 and t3..t4 space0, which overlap"
    );
}

/// Every root signature in the corpus lays out without error, for all stages together and for
/// each stage alone.
#[test]
fn bindings_rts0_every_corpus_root_signature_lays_out() {
    let lax = ParseOptions {
        verify_checksum: false,
    };
    let blobs = test_support::corpus_blobs();
    let (mut signatures, mut entries, mut push) = (0, 0, 0);
    let mut sets_used = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for path in blobs.iter().chain(test_support::other_blobs().iter()) {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(container) = Container::parse(&bytes, &lax) else {
            continue;
        };
        let Some(Ok(rs)) = container.root_signature() else {
            continue;
        };
        signatures += 1;
        let stages = [
            None,
            Some(ShaderVisibility::Vertex),
            Some(ShaderVisibility::Hull),
            Some(ShaderVisibility::Domain),
            Some(ShaderVisibility::Geometry),
            Some(ShaderVisibility::Pixel),
        ];
        for stage in stages {
            let options = RootSignatureOptions {
                stage,
                ..Default::default()
            };
            match TableBindings::from_root_signature(&rs, &options) {
                Ok(m) if stage.is_none() => {
                    entries += m.entries().len();
                    push += m.root_constants().len();
                    let sets = m.layout().iter().map(|b| b.set + 1).max().unwrap_or(0);
                    *sets_used.entry(sets).or_insert(0) += 1;
                }
                Ok(_) => {}
                Err(e) => failures.push(format!("{} ({stage:?}): {e}", path.display())),
            }
        }
        let shared = RootSignatureOptions {
            tables: TableSets::Shared,
            ..Default::default()
        };
        if let Err(e) = TableBindings::from_root_signature(&rs, &shared) {
            failures.push(format!("{} (shared): {e}", path.display()));
        }
    }
    eprintln!(
        "bindings: {signatures} root signatures laid out: {entries} table entries, {push} \
         root-constant blocks; descriptor sets used (root set included): {sets_used:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
