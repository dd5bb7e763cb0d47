//! Unit tests of texel loads (`ld`, `ldms`), typed UAV textures (loads, stores, atomics) and
//! the tiled-resource (`_s`) operations, with the harness of `tests.rs`.

use super::tests::{
    check, emit_err, imm, inst, inst_aux, module, offsets, r, rs, s, sampler, swz, t, tex, u,
    SRV_DIMS,
};
use crate::back::spirv::Error;
use crate::ir::{Dimension, Dst, Op, Reg, ResourceDecl, ResourceShape, ReturnType, Src};

#[test]
fn ld_on_every_loadable_dimension_checks_bounds() {
    for dim in SRV_DIMS {
        if matches!(
            dim,
            Dimension::Texture2DMS
                | Dimension::Texture2DMSArray
                | Dimension::TextureCube
                | Dimension::TextureCubeArray
        ) {
            continue;
        }
        for ret in [ReturnType::Float, ReturnType::Uint, ReturnType::Sint] {
            let m = module(
                vec![tex(false, 0, dim, ret)],
                vec![],
                vec![
                    inst(Op::Ld, &[r(0, 0xf)], &[rs(1), t(0)]),
                    inst_aux(
                        Op::Ld,
                        offsets(-1, 2, 7),
                        &[r(0, 0b0101)],
                        &[swz(Reg::Temp(1), [3, 2, 1, 0]), swz(t(0).reg, [1, 1, 2, 2])],
                    ),
                    inst(Op::LdS, &[r(2, 0b0001), r(3, 0b0010)], &[imm(0), t(0)]),
                    inst(Op::Ld, &[Dst::default()], &[rs(1), t(0)]),
                ],
            );
            let (plain, sparse) = check(&m);
            if plain.is_empty() {
                continue;
            }
            assert!(plain.contains("OpImageFetch"), "{plain}");
            assert!(plain.contains("OpImageQueryLevels"), "{plain}");
            assert!(plain.contains("OpImageQuerySizeLod"), "{plain}");
            assert!(plain.contains("UMin"), "{plain}");
            assert!(plain.contains("OpSelect"), "{plain}");
            assert!(!plain.contains("ConstOffset"), "{plain}");
            assert!(sparse.contains("OpImageSparseFetch"), "{sparse}");
        }
    }
}

#[test]
fn ldms_checks_the_sample_index() {
    for dim in [Dimension::Texture2DMS, Dimension::Texture2DMSArray] {
        let m = module(
            vec![tex(false, 0, dim, ReturnType::Float)],
            vec![],
            vec![
                inst(
                    Op::LdMs,
                    &[r(0, 0xf)],
                    &[rs(1), t(0), swz(Reg::Temp(2), [3; 4])],
                ),
                inst_aux(
                    Op::LdMs,
                    offsets(1, 1, 0),
                    &[r(0, 0b0011)],
                    &[rs(1), swz(t(0).reg, [3, 3, 3, 3]), imm(1)],
                ),
                inst(
                    Op::LdMsS,
                    &[r(0, 0xf), r(3, 0b0001)],
                    &[rs(1), t(0), imm(2)],
                ),
            ],
        );
        let (plain, sparse) = check(&m);
        if plain.is_empty() {
            continue;
        }
        assert!(plain.contains("OpImageQuerySamples"), "{plain}");
        assert!(plain.contains("Sample %"), "{plain}");
        assert!(sparse.contains("OpImageSparseFetch"), "{sparse}");
    }
}

#[test]
fn typed_uav_textures_load_store_and_query() {
    let dims = [
        Dimension::Texture1D,
        Dimension::Texture1DArray,
        Dimension::Texture2D,
        Dimension::Texture2DArray,
        Dimension::Texture3D,
    ];
    for dim in dims {
        for ret in [ReturnType::Float, ReturnType::Uint, ReturnType::Sint] {
            let m = module(
                vec![tex(true, 0, dim, ret)],
                vec![],
                vec![
                    inst(Op::LdUavTyped, &[r(0, 0xf)], &[rs(1), Src::new(u(0))]),
                    inst(
                        Op::LdUavTyped,
                        &[r(0, 0b0100)],
                        &[swz(Reg::Temp(1), [2, 1, 0, 0]), swz(u(0), [3; 4])],
                    ),
                    inst(
                        Op::StoreUavTyped,
                        &[Dst {
                            reg: u(0),
                            mask: 0xf,
                        }],
                        &[rs(1), rs(2)],
                    ),
                    inst(
                        Op::LdUavTypedS,
                        &[r(2, 0xf), r(3, 1)],
                        &[rs(1), Src::new(u(0))],
                    ),
                ],
            );
            let (plain, sparse) = check(&m);
            if plain.is_empty() {
                continue;
            }
            assert!(plain.contains("OpImageRead"), "{plain}");
            assert!(plain.contains("OpImageWrite"), "{plain}");
            assert!(plain.contains("OpImageQuerySize"), "{plain}");
            assert!(plain.contains("StorageImageReadWithoutFormat"), "{plain}");
            assert!(plain.contains("StorageImageWriteWithoutFormat"), "{plain}");
            let one_d = matches!(dim, Dimension::Texture1D | Dimension::Texture1DArray);
            assert_eq!(plain.contains("Capability Image1D"), one_d, "{plain}");
            assert!(sparse.contains("OpImageSparseRead"), "{sparse}");
        }
    }
}

#[test]
fn atomics_on_typed_uav_textures_use_texel_pointers() {
    for (dim, ret) in [
        (Dimension::Texture2D, ReturnType::Uint),
        (Dimension::Texture2DArray, ReturnType::Sint),
        (Dimension::Texture3D, ReturnType::Uint),
        (Dimension::Texture1D, ReturnType::Sint),
    ] {
        let uav = Dst {
            reg: u(0),
            mask: 0xf,
        };
        let m = module(
            vec![tex(true, 0, dim, ret)],
            vec![],
            vec![
                inst(Op::AtomicOr, &[uav], &[rs(1), imm(4)]),
                inst(
                    Op::ImmAtomicIadd,
                    &[r(0, 1)],
                    &[Src::new(u(0)), swz(Reg::Temp(1), [1, 2, 3, 0]), imm(1)],
                ),
                inst(
                    Op::ImmAtomicCmpExch,
                    &[r(0, 2)],
                    &[Src::new(u(0)), rs(1), imm(1), imm(2)],
                ),
                inst(Op::LdUavTyped, &[r(2, 0xf)], &[rs(1), Src::new(u(0))]),
            ],
        );
        let (plain, _) = check(&m);
        if plain.is_empty() {
            continue;
        }
        assert!(plain.contains("OpImageTexelPointer"), "{plain}");
        assert!(plain.contains("R32"), "{plain}");
        assert!(!plain.contains("WithoutFormat"), "{plain}");
    }
}

#[test]
fn sparse_operations_write_a_status_check_access_reads_it() {
    let structured = ResourceDecl {
        shape: ResourceShape::Structured { stride: 16 },
        ..tex(false, 1, Dimension::Buffer, ReturnType::Float)
    };
    let raw = ResourceDecl {
        shape: ResourceShape::Raw,
        ..tex(true, 2, Dimension::Buffer, ReturnType::Float)
    };
    let status = |c: u8| r(3, 1 << c);
    let m = module(
        vec![
            tex(false, 0, Dimension::Texture2DArray, ReturnType::Float),
            structured,
            raw,
            tex(false, 3, Dimension::Buffer, ReturnType::Uint),
            tex(true, 4, Dimension::Buffer, ReturnType::Float),
        ],
        vec![sampler(0, false)],
        vec![
            inst(
                Op::SampleLS,
                &[r(0, 0xf), status(0)],
                &[rs(1), t(0), s(0, 0), imm(0)],
            ),
            inst(
                Op::SampleCLzS,
                &[r(0, 1), status(1)],
                &[rs(1), t(0), s(0, 0), rs(2)],
            ),
            inst(
                Op::Gather4S,
                &[r(0, 0xf), status(2)],
                &[rs(1), t(0), s(0, 2)],
            ),
            inst(
                Op::Gather4CS,
                &[r(0, 0xf), status(3)],
                &[rs(1), t(0), s(0, 0), rs(2)],
            ),
            inst_aux(
                Op::Gather4PoS,
                offsets(1, 1, 0),
                &[r(0, 0xf), status(0)],
                &[rs(1), rs(2), t(0), s(0, 0)],
            ),
            inst(
                Op::Gather4PoCS,
                &[Dst::default(), status(1)],
                &[rs(1), rs(2), t(0), s(0, 0), rs(2)],
            ),
            inst(
                Op::LdStructuredS,
                &[r(0, 0b0011), status(2)],
                &[imm(1), imm(4), swz(t(1).reg, [1, 2, 0, 0])],
            ),
            inst(
                Op::LdRawS,
                &[r(0, 0b0001), status(3)],
                &[imm(8), Src::new(u(2))],
            ),
            inst(Op::LdS, &[r(1, 0xf), status(0)], &[imm(8), t(3)]),
            inst(
                Op::LdUavTypedS,
                &[r(1, 0xf), status(1)],
                &[imm(8), Src::new(u(4))],
            ),
            inst(Op::CheckAccessFullyMapped, &[r(2, 0xf)], &[rs(3)]),
        ],
    );
    let (plain, sparse) = check(&m);
    if plain.is_empty() {
        return;
    }
    assert!(!plain.contains("Sparse"), "{plain}");
    assert!(plain.contains("%uint_4294967295"), "{plain}");
    for op in [
        "OpImageSparseSampleExplicitLod",
        "OpImageSparseSampleDrefExplicitLod",
        "OpImageSparseGather",
        "OpImageSparseDrefGather",
        "OpImageSparseTexelsResident",
    ] {
        assert!(sparse.contains(op), "{op}: {sparse}");
    }
}

#[test]
fn loads_outside_their_rules_are_invalid() {
    let cases = [
        (
            Dimension::TextureCube,
            inst(Op::Ld, &[r(0, 1)], &[rs(1), t(0)]),
            "cube",
        ),
        (
            Dimension::Texture2DMS,
            inst(Op::Ld, &[r(0, 1)], &[rs(1), t(0)]),
            "ldms",
        ),
        (
            Dimension::Texture2D,
            inst(Op::LdMs, &[r(0, 1)], &[rs(1), t(0), imm(0)]),
            "not multisampled",
        ),
        (
            Dimension::Texture2D,
            inst(Op::Bufinfo, &[r(0, 1)], &[t(0)]),
            "texture",
        ),
    ];
    for (dim, i, needle) in cases {
        let m = module(vec![tex(false, 0, dim, ReturnType::Float)], vec![], vec![i]);
        match emit_err(&m) {
            Error::Invalid(e) => {
                assert_eq!(e.offset, 0x40);
                assert!(e.what.contains(needle), "{}", e.what);
            }
            e => panic!("{needle}: not Invalid: {e}"),
        }
    }
    // Atomics need an integer view.
    let m = module(
        vec![tex(true, 0, Dimension::Texture2D, ReturnType::Float)],
        vec![sampler(0, false)],
        vec![inst(
            Op::AtomicIadd,
            &[Dst { reg: u(0), mask: 1 }],
            &[rs(1), imm(1)],
        )],
    );
    assert!(matches!(emit_err(&m), Error::Invalid { .. }));
}
