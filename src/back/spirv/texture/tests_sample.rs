//! Unit tests of sampling and gathers (`sample*`, `gather4*`, `lod`, the `_cl_s` forms) on
//! every dimension that has them, in compute shaders (explicit LOD) and, retargeted to
//! Fragment, with pixel-shader LOD rules; harness in `tests.rs`.

use super::tests::{
    check, check_pixel, immf, inst, inst_aux, module, offsets, r, rs, s, sampler, swz, t, tex,
    SRV_DIMS,
};
use crate::ir::{Dimension, Op, Reg, ReturnType};

#[test]
fn sample_l_and_sample_d_on_every_sampled_dimension() {
    for dim in SRV_DIMS {
        if matches!(dim, Dimension::Texture2DMS | Dimension::Texture2DMSArray) {
            continue;
        }
        let m = module(
            vec![tex(false, 0, dim, ReturnType::Float)],
            vec![sampler(0, false)],
            vec![
                inst_aux(
                    Op::SampleL,
                    offsets(1, -2, 3),
                    &[r(0, 0xf)],
                    &[rs(1), swz(t(0).reg, [2, 1, 0, 3]), s(0, 0), immf(1.5)],
                ),
                inst(
                    Op::SampleD,
                    &[r(2, 0b0110)],
                    &[rs(1), t(0), s(0, 0), rs(3), rs(3)],
                ),
                inst(Op::Sample, &[r(2, 0b0001)], &[rs(1), t(0), s(0, 0)]),
                inst(
                    Op::SampleB,
                    &[r(2, 0b0001)],
                    &[rs(1), t(0), s(0, 0), immf(-1.0)],
                ),
            ],
        );
        let (listing, _) = check(&m);
        if listing.is_empty() {
            continue;
        }
        assert!(listing.contains("OpImageSampleExplicitLod"), "{listing}");
        assert!(listing.contains("Grad"), "{listing}");
        assert!(!listing.contains("ImplicitLod"), "{listing}");
        let cube = matches!(dim, Dimension::TextureCube | Dimension::TextureCubeArray);
        assert_eq!(listing.contains("ConstOffset"), !cube, "{listing}");
        assert!(listing.contains("OpTypeSampler"), "{listing}");
        assert!(listing.contains("OpSampledImage"), "{listing}");
    }
}

#[test]
fn comparisons_on_every_dimension_that_has_them() {
    for dim in [
        Dimension::Texture1D,
        Dimension::Texture1DArray,
        Dimension::Texture2D,
        Dimension::Texture2DArray,
        Dimension::TextureCube,
        Dimension::TextureCubeArray,
    ] {
        let m = module(
            vec![tex(false, 0, dim, ReturnType::Float)],
            vec![sampler(0, true)],
            vec![
                inst_aux(
                    Op::SampleCLz,
                    offsets(-1, 0, 0),
                    &[r(0, 0b0001)],
                    &[rs(1), swz(t(0).reg, [0; 4]), s(0, 0), rs(2)],
                ),
                inst(
                    Op::SampleC,
                    &[r(0, 0b0110)],
                    &[rs(1), t(0), s(0, 0), immf(0.5)],
                ),
            ],
        );
        let (listing, _) = check(&m);
        if !listing.is_empty() {
            assert!(
                listing.contains("OpImageSampleDrefExplicitLod"),
                "{listing}"
            );
        }
    }
}

#[test]
fn gathers_select_the_sampler_channel_and_take_offsets() {
    for dim in [
        Dimension::Texture2D,
        Dimension::Texture2DArray,
        Dimension::TextureCube,
        Dimension::TextureCubeArray,
    ] {
        for ret in [ReturnType::Float, ReturnType::Uint, ReturnType::Sint] {
            let cube = matches!(dim, Dimension::TextureCube | Dimension::TextureCubeArray);
            let mut insts = vec![
                inst_aux(
                    Op::Gather4,
                    offsets(2, -3, 0),
                    &[r(0, 0xf)],
                    &[rs(1), swz(t(0).reg, [3, 2, 1, 0]), s(0, 1)],
                ),
                inst(Op::Gather4, &[r(0, 0b0011)], &[rs(1), t(0), s(0, 3)]),
            ];
            if ret == ReturnType::Float {
                insts.push(inst(
                    Op::Gather4C,
                    &[r(2, 0xf)],
                    &[rs(1), t(0), s(0, 0), rs(3)],
                ));
            }
            if !cube {
                insts.push(inst(
                    Op::Gather4Po,
                    &[r(2, 0xf)],
                    &[rs(1), rs(3), t(0), s(0, 2)],
                ));
                if ret == ReturnType::Float {
                    insts.push(inst(
                        Op::Gather4PoC,
                        &[r(2, 0b1000)],
                        &[rs(1), rs(3), t(0), s(0, 0), immf(0.25)],
                    ));
                }
            }
            let m = module(
                vec![tex(false, 0, dim, ret)],
                vec![sampler(0, false)],
                insts,
            );
            let (listing, _) = check(&m);
            if listing.is_empty() {
                continue;
            }
            assert!(listing.contains("OpImageGather"), "{listing}");
            assert!(listing.contains("%uint_1 ConstOffset") != cube, "{listing}");
            assert!(listing.contains("%uint_3"), "{listing}");
            assert_eq!(listing.contains("ImageGatherExtended"), !cube, "{listing}");
            if !cube {
                assert!(listing.contains("OpBitFieldSExtract"), "{listing}");
                assert!(listing.contains(" Offset "), "{listing}");
            }
        }
    }
}

#[test]
fn pixel_shaders_use_implicit_lod_bias_clamps_and_lod_queries() {
    for dim in [
        Dimension::Texture1D,
        Dimension::Texture2D,
        Dimension::Texture2DArray,
        Dimension::Texture3D,
        Dimension::TextureCube,
        Dimension::TextureCubeArray,
    ] {
        let three_d = dim == Dimension::Texture3D;
        let mut insts = vec![
            inst_aux(
                Op::Sample,
                offsets(1, 1, 1),
                &[r(0, 0xf)],
                &[rs(1), t(0), s(0, 0)],
            ),
            inst(
                Op::SampleB,
                &[r(0, 0b0011)],
                &[rs(1), t(0), s(0, 0), immf(0.5)],
            ),
            inst(
                Op::SampleClS,
                &[r(0, 0xf), r(3, 1)],
                &[rs(1), t(0), s(0, 0), immf(2.0)],
            ),
            inst(
                Op::SampleBClS,
                &[r(0, 0xf), r(3, 2)],
                &[rs(1), t(0), s(0, 0), immf(0.5), rs(2)],
            ),
            inst(
                Op::SampleDClS,
                &[r(0, 0xf), r(3, 4)],
                &[rs(1), t(0), s(0, 0), rs(2), rs(2), rs(2)],
            ),
            inst(
                Op::Lod,
                &[r(2, 0b0111)],
                &[rs(1), swz(t(0).reg, [1, 0, 3, 2]), s(0, 0)],
            ),
            inst(
                Op::CheckAccessFullyMapped,
                &[r(3, 0b1000)],
                &[swz(Reg::Temp(3), [1; 4])],
            ),
        ];
        if !three_d {
            insts.push(inst(
                Op::SampleC,
                &[r(0, 1)],
                &[rs(1), t(0), s(0, 0), immf(0.5)],
            ));
            insts.push(inst(
                Op::SampleCClS,
                &[r(0, 1), r(3, 1)],
                &[rs(1), t(0), s(0, 0), immf(0.5), immf(1.0)],
            ));
        }
        let m = module(
            vec![tex(false, 0, dim, ReturnType::Float)],
            vec![sampler(0, false)],
            insts,
        );
        let (plain, sparse) = check_pixel(&m);
        if plain.is_empty() {
            continue;
        }
        assert!(plain.contains("OpImageSampleImplicitLod"), "{plain}");
        assert!(plain.contains("Bias"), "{plain}");
        assert!(plain.contains("MinLod"), "{plain}");
        assert!(plain.contains("OpImageQueryLod"), "{plain}");
        assert!(!plain.contains("Sparse"), "{plain}");
        assert!(
            sparse.contains("OpImageSparseSampleImplicitLod"),
            "{sparse}"
        );
        assert!(sparse.contains("OpImageSparseTexelsResident"), "{sparse}");
        assert!(sparse.contains("Capability SparseResidency"), "{sparse}");
        if !three_d {
            assert!(plain.contains("OpImageSampleDrefImplicitLod"), "{plain}");
        }
    }
}

#[test]
fn implicit_lod_outside_pixel_shaders_samples_level_zero_or_the_clamp() {
    let m = module(
        vec![tex(false, 0, Dimension::Texture2D, ReturnType::Float)],
        vec![sampler(0, false)],
        vec![
            inst(Op::Sample, &[r(0, 0xf)], &[rs(1), t(0), s(0, 0)]),
            inst(
                Op::SampleBClS,
                &[r(0, 0xf), r(3, 1)],
                &[rs(1), t(0), s(0, 0), immf(0.5), rs(2)],
            ),
            inst(
                Op::SampleCClS,
                &[r(0, 1), r(3, 2)],
                &[rs(1), t(0), s(0, 0), rs(2), rs(2)],
            ),
        ],
    );
    let (plain, sparse) = check(&m);
    if plain.is_empty() {
        return;
    }
    assert!(!plain.contains("ImplicitLod"), "{plain}");
    assert!(!plain.contains("MinLod"), "{plain}");
    assert!(!plain.contains("Bias"), "{plain}");
    assert!(plain.contains("NMax"), "{plain}");
    assert!(
        sparse.contains("OpImageSparseSampleDrefExplicitLod"),
        "{sparse}"
    );
}
