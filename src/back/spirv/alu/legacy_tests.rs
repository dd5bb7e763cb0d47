//! Tests of the Direct3D 9 float operations (`legacy.rs`, `legacy_vec.rs`): every operation in
//! every operand shape, both float emulations, each through `spirv-val`; the instruction
//! shapes that tell the strict variant (a zero test per legacy multiply) from the fast one
//! (clamps, no zero test). The values are checked on a Vulkan device by
//! `vk-tests/tests/d3d9_float.rs`.

use super::tests::{
    count, count_ext, family, imm, inst, r, s, translate_with, validate, with, LEGACY_OPS, XYZW,
};
use crate::back::spirv::FloatEmulation;
use crate::ir::{Inst, Modifier, Op};

const BOTH: [FloatEmulation; 2] = [FloatEmulation::Strict, FloatEmulation::Fast];

fn check_with(insts: Vec<Inst>, mode: FloatEmulation) -> Vec<u32> {
    let words = translate_with(insts, mode).expect("emission failed");
    validate(&words);
    words
}

#[test]
fn legacy_family_validates_in_both_emulations() {
    for mode in BOTH {
        let mut insts = family(LEGACY_OPS);
        let mut flagged = family(LEGACY_OPS);
        for i in &mut flagged {
            i.flags.saturate = true;
            i.flags.precise = 0xf;
        }
        insts.extend(flagged);
        check_with(insts, mode);
    }
}

#[test]
fn every_mask_of_the_component_wise_operations_validates() {
    for mode in BOTH {
        let mut insts = Vec::new();
        for op in [
            Op::Lit,
            Op::DistVec,
            Op::ExppSm1,
            Op::LogpSm1,
            Op::NrmLegacy,
        ] {
            let (_, srcs) = op.arity();
            for mask in 1..16u8 {
                let sr: Vec<_> = (0..srcs as u32)
                    .map(|i| with(s(3 + i, [3, 1, 0, 2]), Modifier::Neg))
                    .collect();
                insts.push(inst(op, &[r(0, mask)], &sr));
            }
            // A `null` destination computes nothing.
            let sr: Vec<_> = (0..srcs as u32).map(|i| s(3 + i, XYZW)).collect();
            insts.push(inst(op, &[super::tests::null()], &sr));
        }
        // `dp2add`'s scalar operand: the first component its swizzle selects.
        insts.push(inst(
            Op::Dp2AddLegacy,
            &[r(0, 0xf)],
            &[s(3, XYZW), s(4, XYZW), s(5, [2, 2, 2, 2])],
        ));
        check_with(insts, mode);
    }
}

#[test]
fn strict_multiplies_test_for_zero_and_fast_ones_do_not() {
    let mul = || vec![inst(Op::MulLegacy, &[r(0, 0xf)], &[s(1, XYZW), s(2, XYZW)])];
    let strict = check_with(mul(), FloatEmulation::Strict);
    assert_eq!(count(&strict, spirv::Op::FMul), 1);
    assert_eq!(count(&strict, spirv::Op::FOrdEqual), 2, "a == 0, b == 0");
    assert_eq!(count(&strict, spirv::Op::LogicalOr), 1);
    assert_eq!(count(&strict, spirv::Op::Select), 1);
    let fast = check_with(mul(), FloatEmulation::Fast);
    assert_eq!(count(&fast, spirv::Op::FMul), 1);
    assert_eq!(count(&fast, spirv::Op::FOrdEqual), 0);
    assert_eq!(count(&fast, spirv::Op::Select), 0);
}

#[test]
fn nonzero_immediates_need_no_zero_test() {
    let two = 2f32.to_bits();
    let words = check_with(
        vec![inst(
            Op::MulLegacy,
            &[r(0, 0xf)],
            &[s(1, XYZW), imm([two, two, two, 0x7f80_0000])],
        )],
        FloatEmulation::Strict,
    );
    assert_eq!(count(&words, spirv::Op::FOrdEqual), 1, "only the register");
    assert_eq!(count(&words, spirv::Op::LogicalOr), 0);
    // A zero or denormal lane keeps the test.
    for lane in [0u32, 0x8000_0000, 1] {
        let words = check_with(
            vec![inst(
                Op::MulLegacy,
                &[r(0, 0xf)],
                &[s(1, XYZW), imm([two, lane, two, two])],
            )],
            FloatEmulation::Strict,
        );
        assert_eq!(count(&words, spirv::Op::FOrdEqual), 2, "lane {lane:#x}");
    }
}

#[test]
fn fast_results_are_clamped_and_strict_ones_are_not() {
    let ops = || {
        vec![
            inst(Op::RcpLegacy, &[r(0, 0x1)], &[s(1, XYZW)]),
            inst(Op::RsqLegacy, &[r(0, 0x2)], &[s(1, XYZW)]),
            inst(Op::ExpLegacy, &[r(0, 0x4)], &[s(1, XYZW)]),
        ]
    };
    let fast = check_with(ops(), FloatEmulation::Fast);
    assert_eq!(count_ext(&fast, spirv::GlslStd450Op::NClamp), 1, "rcp");
    assert_eq!(count_ext(&fast, spirv::GlslStd450Op::NMin), 2, "rsq, exp");
    let strict = check_with(ops(), FloatEmulation::Strict);
    assert_eq!(count_ext(&strict, spirv::GlslStd450Op::NClamp), 0);
    assert_eq!(count_ext(&strict, spirv::GlslStd450Op::NMin), 0);
    // Strict: `rcp(1)` and `rsq(1)` exactly 1 (one select each).
    assert_eq!(count(&strict, spirv::Op::Select), 2);
}

#[test]
fn dot_products_are_one_op_dot_of_zero_masked_operands_when_strict() {
    let dp = || {
        vec![
            inst(Op::Dp4Legacy, &[r(0, 0xf)], &[s(1, XYZW), s(2, XYZW)]),
            inst(Op::Dp3Legacy, &[r(0, 0x1)], &[s(1, XYZW), s(2, XYZW)]),
        ]
    };
    let fast = check_with(dp(), FloatEmulation::Fast);
    assert_eq!(count(&fast, spirv::Op::Dot), 2);
    assert_eq!(count(&fast, spirv::Op::Select), 0);
    let strict = check_with(dp(), FloatEmulation::Strict);
    // Each operand zeroed where the other is zero (two tests, two selects), then one dot.
    assert_eq!(count(&strict, spirv::Op::Dot), 2);
    assert_eq!(count(&strict, spirv::Op::FOrdEqual), 4);
    assert_eq!(count(&strict, spirv::Op::Select), 4);
    assert_eq!(count(&strict, spirv::Op::FMul), 0);
    // `[precise]`: the legacy products summed in order (3 + 2 adds).
    let mut precise = dp();
    for i in &mut precise {
        i.flags.precise = 0xf;
    }
    let precise = check_with(precise, FloatEmulation::Strict);
    assert_eq!(count(&precise, spirv::Op::Dot), 0);
    assert_eq!(count(&precise, spirv::Op::FMul), 2);
    assert_eq!(count(&precise, spirv::Op::FAdd), 5);
}

#[test]
fn precise_decorates_the_legacy_arithmetic() {
    let mut mad = inst(
        Op::MadLegacy,
        &[r(0, 0xf)],
        &[s(1, XYZW), s(2, XYZW), s(3, XYZW)],
    );
    mad.flags.precise = 0x1;
    let words = check_with(vec![mad], FloatEmulation::Strict);
    // The multiply and the add.
    assert_eq!(count(&words, spirv::Op::Decorate), 2);
}
