//! Tests of the ALU emitters: small hand-built IR modules per operation family (every mask
//! shape, modifiers, immediates, `null` destinations, `_sat`, `[precise]`), each emitted and
//! checked with `spirv-val --target-env vulkan1.1`; instruction counts that show whole-vector
//! emission; malformed double masks reported as errors.
//!
//! A missing `spirv-val` fails the test unless `DXBC2SPV_ALLOW_NO_SPIRV_VAL=1` (then the check
//! prints `skipped` and is not made), as in `spv/tests/tools.rs`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::back::spirv::Error;
use crate::back::spirv::{emit, EmitOptions};
use crate::ir::{self, Dst, Function, Inst, Modifier, Op, Reg, Src, Stage};
use crate::spv::Version;

pub(super) const XYZW: [u8; 4] = [0, 1, 2, 3];

pub(super) fn r(n: u32, mask: u8) -> Dst {
    Dst {
        reg: Reg::Temp(n),
        mask,
    }
}

pub(super) fn null() -> Dst {
    Dst::default()
}

pub(super) fn s(n: u32, swizzle: [u8; 4]) -> Src {
    Src {
        reg: Reg::Temp(n),
        swizzle,
        modifier: Modifier::None,
    }
}

pub(super) fn imm(v: [u32; 4]) -> Src {
    Src::new(Reg::Imm32(v))
}

pub(super) fn with(src: Src, modifier: Modifier) -> Src {
    Src { modifier, ..src }
}

pub(super) fn inst(op: Op, dsts: &[Dst], srcs: &[Src]) -> Inst {
    let mut i = Inst::new(op, 0x40);
    for d in dsts {
        assert!(i.push_dst(*d));
    }
    for s in srcs {
        assert!(i.push_src(*s));
    }
    i
}

fn module(insts: Vec<Inst>) -> ir::Module {
    let n = insts.len() as u32;
    ir::Module {
        model: (5, 0),
        temps: 8,
        thread_group: [1, 1, 1],
        functions: vec![Function {
            label: None,
            body: 0..n,
            span: 0,
        }],
        insts,
        ..ir::Module::new(Stage::Compute)
    }
}

fn translate(insts: Vec<Inst>) -> Result<Vec<u32>, Error> {
    translate_with(insts, crate::back::spirv::FloatEmulation::Strict)
}

/// [`translate`] with the D3D9 float emulation `float_emulation`.
pub(super) fn translate_with(
    insts: Vec<Inst>,
    float_emulation: crate::back::spirv::FloatEmulation,
) -> Result<Vec<u32>, Error> {
    // Every float execution mode on: the modes must validate with any ALU content.
    let options = EmitOptions {
        float_emulation,
        debug_names: false,
        float_controls: crate::FloatControls {
            preserve_inf_nan_f32: true,
            preserve_inf_nan_f64: true,
            flush_denorm_f32: true,
            preserve_denorm_f64: true,
        },
        ..EmitOptions::for_tests(Version::V1_3)
    };
    emit(&module(insts), &options)
}

/// Runs `spirv-val` on `words`; panics with its diagnostics when it rejects them.
pub(super) fn validate(words: &[u32]) {
    let spawned = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if std::env::var("DXBC2SPV_ALLOW_NO_SPIRV_VAL").is_ok_and(|v| v.trim() == "1") {
                eprintln!("skipped: spirv-val not found ({e}); check not made");
                return;
            }
            panic!("spirv-val not found on PATH ({e}); run .ci/setup.sh or set DXBC2SPV_ALLOW_NO_SPIRV_VAL=1");
        }
        Err(e) => panic!("could not start spirv-val: {e}"),
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&bytes).expect("writing to spirv-val");
    }
    let out = child.wait_with_output().expect("waiting for spirv-val");
    assert!(
        out.status.success(),
        "spirv-val rejected the module:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Emits `insts` and validates the result.
pub(super) fn check(insts: Vec<Inst>) -> Vec<u32> {
    let words = translate(insts).expect("emission failed");
    validate(&words);
    words
}

/// How many instructions with opcode `op` the module has.
pub(super) fn count(words: &[u32], op: spirv::Op) -> usize {
    let mut n = 0;
    let mut at = 5;
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        if words[at] & 0xffff == op as u32 {
            n += 1;
        }
        at += len.max(1);
    }
    n
}

/// How many `OpExtInst`s of GLSL.std.450 instruction `op` the module has.
pub(super) fn count_ext(words: &[u32], op: spirv::GlslStd450Op) -> usize {
    let mut n = 0;
    let mut at = 5;
    while at < words.len() {
        let len = (words[at] >> 16) as usize;
        if words[at] & 0xffff == spirv::Op::ExtInst as u32
            && words.get(at + 4) == Some(&(op as u32))
        {
            n += 1;
        }
        at += len.max(1);
    }
    n
}

/// The same operation with every operand shape worth checking: full, partial and scattered
/// masks, swizzles, negate/abs modifiers and an immediate.
pub(super) fn shapes(op: Op) -> Vec<Inst> {
    let (dsts, srcs) = op.arity();
    let mut out = Vec::new();
    for (mask, swizzle) in [
        (0xf, XYZW),
        (0x1, [2, 0, 0, 0]),
        (0x6, [3, 2, 1, 0]),
        (0x9, [1, 1, 3, 3]),
    ] {
        let d: Vec<Dst> = (0..dsts as u32).map(|k| r(k, mask)).collect();
        let modifiers = [
            Modifier::None,
            Modifier::Neg,
            Modifier::Abs,
            Modifier::AbsNeg,
        ];
        let sr: Vec<Src> = (0..srcs as u32)
            .map(|i| {
                with(
                    s(3 + i, swizzle),
                    modifiers[(i as usize + mask as usize) % 4],
                )
            })
            .collect();
        out.push(inst(op, &d, &sr));
    }
    let d: Vec<Dst> = (0..dsts as u32).map(|k| r(k, 0x3)).collect();
    let sr: Vec<Src> = (0..srcs as u32)
        .map(|i| {
            if i == 0 {
                imm([1, 2, 33, 0xffff_ffff])
            } else {
                s(3 + i, XYZW)
            }
        })
        .collect();
    out.push(inst(op, &d, &sr));
    out
}

const FLOAT_OPS: &[Op] = &[
    Op::Add,
    Op::Mul,
    Op::Mad,
    Op::Div,
    Op::Min,
    Op::Max,
    Op::Dp2,
    Op::Dp3,
    Op::Dp4,
    Op::Eq,
    Op::Ne,
    Op::Lt,
    Op::Ge,
    Op::Exp,
    Op::Log,
    Op::Frc,
    Op::Sqrt,
    Op::Rsq,
    Op::Rcp,
    Op::RoundNe,
    Op::RoundNi,
    Op::RoundPi,
    Op::RoundZ,
    Op::Sincos,
    Op::Ftoi,
    Op::Ftou,
    Op::Itof,
    Op::Utof,
    Op::F32tof16,
    Op::F16tof32,
];

const INT_OPS: &[Op] = &[
    Op::Iadd,
    Op::Ineg,
    Op::Imul,
    Op::Umul,
    Op::Imad,
    Op::Umad,
    Op::Udiv,
    Op::Ishl,
    Op::Ishr,
    Op::Ushr,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Not,
    Op::Imin,
    Op::Imax,
    Op::Umin,
    Op::Umax,
    Op::Ieq,
    Op::Ine,
    Op::Ilt,
    Op::Ige,
    Op::Ult,
    Op::Uge,
    Op::Uaddc,
    Op::Usubb,
];

const BIT_OPS: &[Op] = &[
    Op::Countbits,
    Op::FirstbitHi,
    Op::FirstbitLo,
    Op::FirstbitShi,
    Op::Ubfe,
    Op::Ibfe,
    Op::Bfi,
    Op::Bfrev,
    Op::Msad,
];

const MOVE_OPS: &[Op] = &[Op::Mov, Op::Movc, Op::Swapc];

pub(super) const LEGACY_OPS: &[Op] = &[
    Op::MulLegacy,
    Op::MadLegacy,
    Op::Dp2AddLegacy,
    Op::Dp3Legacy,
    Op::Dp4Legacy,
    Op::PowLegacy,
    Op::ExpLegacy,
    Op::LogLegacy,
    Op::RcpLegacy,
    Op::RsqLegacy,
    Op::NrmLegacy,
    Op::Lit,
    Op::DistVec,
    Op::ExppSm1,
    Op::LogpSm1,
];

pub(super) fn family(ops: &[Op]) -> Vec<Inst> {
    ops.iter().flat_map(|&op| shapes(op)).collect()
}

#[test]
fn float_family_validates() {
    let mut insts = family(FLOAT_OPS);
    // `_sat` and `[precise]` on every float operation.
    let mut flagged = family(FLOAT_OPS);
    for i in &mut flagged {
        i.flags.saturate = true;
        i.flags.precise = 0xf;
    }
    insts.extend(flagged);
    check(insts);
}

#[test]
fn int_family_validates() {
    check(family(INT_OPS));
}

#[test]
fn bit_family_validates() {
    let mut insts = family(BIT_OPS);
    // Immediate widths and offsets (folded), including width 0 and values past 31.
    let w = imm([0, 8, 33, 31]);
    let o = imm([4, 36, 0xffff_ffff, 1]);
    for op in [Op::Ubfe, Op::Ibfe] {
        insts.push(inst(op, &[r(0, 0xf)], &[w, o, s(3, XYZW)]));
        insts.push(inst(
            op,
            &[r(0, 0x3)],
            &[imm([5, 5, 5, 5]), s(4, XYZW), s(3, XYZW)],
        ));
        insts.push(inst(
            op,
            &[r(0, 0x4)],
            &[s(4, XYZW), imm([7, 7, 7, 7]), s(3, XYZW)],
        ));
    }
    insts.push(inst(Op::Bfi, &[r(0, 0xf)], &[w, o, s(3, XYZW), s(4, XYZW)]));
    insts.push(inst(
        Op::Bfi,
        &[r(0, 0x5)],
        &[w, s(5, XYZW), s(3, XYZW), s(4, XYZW)],
    ));
    check(insts);
}

#[test]
fn move_family_validates() {
    let mut insts = family(MOVE_OPS);
    let mut sat = inst(Op::Mov, &[r(0, 0xf)], &[s(1, XYZW)]);
    sat.flags.saturate = true;
    insts.push(sat);
    insts.push(inst(
        Op::Movc,
        &[r(0, 0x7)],
        &[imm([0, 1, 0, 1]), s(1, XYZW), imm([5; 4])],
    ));
    insts.push(inst(
        Op::Swapc,
        &[null(), r(1, 0x3)],
        &[s(0, XYZW), s(1, XYZW), s(2, XYZW)],
    ));
    insts.push(inst(
        Op::Swapc,
        &[r(1, 0x1), null()],
        &[s(0, XYZW), s(1, XYZW), s(2, XYZW)],
    ));
    check(insts);
}

#[test]
fn two_destination_ops_with_null_and_different_masks_validate() {
    let mut insts = Vec::new();
    for op in [
        Op::Sincos,
        Op::Udiv,
        Op::Imul,
        Op::Umul,
        Op::Uaddc,
        Op::Usubb,
    ] {
        let (_, srcs) = op.arity();
        let sr: Vec<Src> = (0..srcs as u32).map(|i| s(4 + i, XYZW)).collect();
        insts.push(inst(op, &[null(), r(1, 0x3)], &sr));
        insts.push(inst(op, &[r(0, 0xc), null()], &sr));
        insts.push(inst(op, &[r(0, 0x1), r(1, 0x6)], &sr));
        insts.push(inst(op, &[r(0, 0xf), r(1, 0xf)], &sr));
        insts.push(inst(op, &[null(), null()], &sr));
        // Destinations that are also sources.
        insts.push(inst(op, &[r(4, 0x3), r(5, 0x3)], &sr));
    }
    check(insts);
}

fn double_insts() -> Vec<Inst> {
    let dimm = Src::new(Reg::Imm64([1.5f64.to_bits(), (-2.0f64).to_bits()]));
    let a = s(3, XYZW);
    let b = s(4, [2, 3, 0, 1]);
    let c = s(5, [0, 1, 0, 1]);
    let mut insts = Vec::new();
    for mask in [0x3, 0xc, 0xf] {
        for op in [Op::Dadd, Op::Dmul, Op::Dmin, Op::Dmax, Op::Ddiv] {
            insts.push(inst(op, &[r(0, mask)], &[a, with(b, Modifier::Neg)]));
            insts.push(inst(op, &[r(0, mask)], &[dimm, with(c, Modifier::Abs)]));
        }
        insts.push(inst(Op::Dfma, &[r(0, mask)], &[a, b, dimm]));
        for op in [Op::Drcp, Op::Dmov] {
            insts.push(inst(op, &[r(1, mask)], &[a]));
            insts.push(inst(op, &[r(1, mask)], &[with(b, Modifier::AbsNeg)]));
        }
        insts.push(inst(Op::Dmovc, &[r(2, mask)], &[s(6, [3, 2, 1, 0]), a, b]));
        insts.push(inst(
            Op::Dmovc,
            &[r(2, mask)],
            &[s(6, XYZW), a, with(dimm, Modifier::Neg)],
        ));
        for op in [Op::Ftod, Op::Itod, Op::Utod] {
            insts.push(inst(op, &[r(0, mask)], &[s(6, [1, 0, 2, 3])]));
            insts.push(inst(op, &[r(0, mask)], &[imm([7, 0xffff_fff9, 0, 0])]));
        }
    }
    for mask in [0x1, 0x2, 0x8, 0x3, 0x5, 0xa] {
        for op in [Op::Deq, Op::Dne, Op::Dlt, Op::Dge] {
            insts.push(inst(op, &[r(0, mask)], &[a, b]));
        }
        for op in [Op::Dtof, Op::Dtoi, Op::Dtou] {
            insts.push(inst(op, &[r(0, mask)], &[with(c, Modifier::Neg)]));
            insts.push(inst(op, &[r(0, mask)], &[dimm]));
        }
    }
    insts.push(inst(Op::Dadd, &[null()], &[a, b]));
    insts.push(inst(Op::Dtof, &[null()], &[a]));
    insts
}

#[test]
fn double_family_validates() {
    let mut insts = double_insts();
    let mut flagged = double_insts();
    for i in &mut flagged {
        i.flags.saturate = true;
        i.flags.precise = 0xf;
    }
    insts.extend(flagged);
    let words = check(insts);
    assert!(
        count(&words, spirv::Op::Capability) >= 2,
        "Float64 declared"
    );
}

#[test]
fn malformed_double_masks_are_errors() {
    for (op, mask) in [
        (Op::Dadd, 0x1),
        (Op::Dmov, 0x6),
        (Op::Ftod, 0x7),
        (Op::Dtof, 0x7),
        (Op::Deq, 0xf),
    ] {
        let (_, srcs) = op.arity();
        let sr: Vec<Src> = (0..srcs as u32).map(|i| s(3 + i, XYZW)).collect();
        match translate(vec![inst(op, &[r(0, mask)], &sr)]) {
            Err(Error::Invalid(e)) => assert_eq!(e.offset, 0x40),
            other => panic!("{op:?} with mask {mask:#x}: expected an error, got {other:?}"),
        }
    }
}

#[test]
fn vector_ops_are_one_instruction_per_step() {
    let words = check(vec![
        inst(Op::Add, &[r(0, 0xf)], &[s(1, XYZW), s(2, [3, 2, 1, 0])]),
        inst(Op::Iadd, &[r(0, 0x7)], &[s(1, XYZW), imm([1, 2, 3, 4])]),
        inst(Op::Ishl, &[r(0, 0xf)], &[s(1, XYZW), s(2, XYZW)]),
        inst(Op::Max, &[r(0, 0xf)], &[s(1, XYZW), s(2, XYZW)]),
    ]);
    assert_eq!(count(&words, spirv::Op::FAdd), 1);
    assert_eq!(count(&words, spirv::Op::IAdd), 1);
    assert_eq!(count(&words, spirv::Op::ShiftLeftLogical), 1);
    assert_eq!(
        count(&words, spirv::Op::BitwiseAnd),
        1,
        "shift amount masked once"
    );
    assert_eq!(count_ext(&words, spirv::GlslStd450Op::NMax), 1);
}

#[test]
fn immediate_shift_amounts_and_fields_fold() {
    let words = check(vec![
        inst(Op::Ishl, &[r(0, 0xf)], &[s(1, XYZW), imm([33, 1, 2, 3])]),
        inst(
            Op::Ubfe,
            &[r(0, 0xf)],
            &[imm([8; 4]), imm([16; 4]), s(1, XYZW)],
        ),
        inst(
            Op::Bfi,
            &[r(0, 0xf)],
            &[imm([8; 4]), imm([16; 4]), s(1, XYZW), s(2, XYZW)],
        ),
        inst(
            Op::Ibfe,
            &[r(0, 0xf)],
            &[imm([8; 4]), imm([16; 4]), s(1, XYZW)],
        ),
    ]);
    // ubfe: one `and` with the constant field mask; bfi: two `and`s; nothing masks `& 31`.
    assert_eq!(count(&words, spirv::Op::BitwiseAnd), 3);
    // ibfe with constant nonzero widths needs no width-0 select.
    assert_eq!(count(&words, spirv::Op::Select), 0);
}

#[test]
fn null_destinations_compute_nothing() {
    let words = check(vec![
        inst(Op::Sincos, &[null(), r(0, 0x1)], &[s(1, XYZW)]),
        inst(Op::Imul, &[null(), r(0, 0x1)], &[s(1, XYZW), s(2, XYZW)]),
        inst(Op::Udiv, &[r(0, 0x1), null()], &[s(1, XYZW), s(2, XYZW)]),
    ]);
    assert_eq!(count_ext(&words, spirv::GlslStd450Op::Sin), 0);
    assert_eq!(count_ext(&words, spirv::GlslStd450Op::Cos), 1);
    assert_eq!(count(&words, spirv::Op::SMulExtended), 0);
    assert_eq!(count(&words, spirv::Op::IMul), 1);
    assert_eq!(count(&words, spirv::Op::UDiv), 1);
    assert_eq!(count(&words, spirv::Op::UMod), 0);
}

#[test]
fn equal_masks_share_one_extended_multiply() {
    let words = check(vec![inst(
        Op::Umul,
        &[r(0, 0x3), r(1, 0x3)],
        &[s(2, XYZW), s(3, XYZW)],
    )]);
    assert_eq!(count(&words, spirv::Op::UMulExtended), 1);
    assert_eq!(count(&words, spirv::Op::IMul), 0);
}

#[test]
fn precise_decorates_float_results() {
    let mut add = inst(Op::Mad, &[r(0, 0xf)], &[s(1, XYZW), s(2, XYZW), s(3, XYZW)]);
    add.flags.precise = 0x1;
    let mut dot = inst(Op::Dp3, &[r(0, 0x1)], &[s(1, XYZW), s(2, XYZW)]);
    dot.flags.precise = 0x1;
    let words = check(vec![add, dot]);
    // mad: mul + add; dp3: three muls and two adds, in order (no OpDot).
    assert_eq!(count(&words, spirv::Op::Decorate), 7);
    assert_eq!(count(&words, spirv::Op::Dot), 0);
}

const DOUBLE_OPS: &[Op] = &[
    Op::Dadd,
    Op::Dmul,
    Op::Dmin,
    Op::Dmax,
    Op::Ddiv,
    Op::Dfma,
    Op::Drcp,
    Op::Deq,
    Op::Dne,
    Op::Dlt,
    Op::Dge,
    Op::Dmov,
    Op::Dmovc,
    Op::Dtof,
    Op::Ftod,
    Op::Dtoi,
    Op::Dtou,
    Op::Itod,
    Op::Utod,
];

#[test]
fn every_operation_of_the_alu_families_is_listed_and_emits() {
    use ir::Family;
    let lists = [
        (Family::Float, FLOAT_OPS),
        (Family::Integer, INT_OPS),
        (Family::Bits, BIT_OPS),
        (Family::Move, MOVE_OPS),
        (Family::Double, DOUBLE_OPS),
        (Family::Legacy, LEGACY_OPS),
    ];
    for (family, list) in lists {
        let from_table: Vec<Op> = Op::ALL
            .iter()
            .copied()
            .filter(|op| op.family() == family)
            .collect();
        let mut listed = list.to_vec();
        listed.sort_by_key(|op| op.name());
        let mut expected = from_table.clone();
        expected.sort_by_key(|op| op.name());
        assert_eq!(
            listed, expected,
            "{family:?}: the test list and the op table differ"
        );
    }
    let alu: Vec<Op> = [
        FLOAT_OPS, INT_OPS, BIT_OPS, MOVE_OPS, DOUBLE_OPS, LEGACY_OPS,
    ]
    .concat();
    // Every ALU operation emits with plain operands (`.xy` suits every double form too).
    let insts: Vec<Inst> = alu
        .iter()
        .map(|&op| {
            let (dsts, srcs) = op.arity();
            let d: Vec<Dst> = (0..dsts as u32).map(|k| r(k, 0x3)).collect();
            let sr: Vec<Src> = (0..srcs as u32).map(|i| s(3 + i, XYZW)).collect();
            inst(op, &d, &sr)
        })
        .collect();
    check(insts);
}

#[test]
fn float32_abs_clears_the_sign_bit_instead_of_fabs() {
    // D3D's `_abs` forces the sign positive (|-0| = +0); GLSL.std.450 FAbs is "x if x >= 0,
    // otherwise -x", which lets |-0| be -0 (llvmpipe folds a constant FAbs(-0.0) to -0.0;
    // differential seed 313). Both `|x|` and `-|x|`, of registers and of immediates.
    let neg_zero = 0x8000_0000;
    let words = check(vec![
        inst(Op::Mov, &[r(0, 0xf)], &[with(s(1, XYZW), Modifier::Abs)]),
        inst(
            Op::Add,
            &[r(2, 0x3)],
            &[with(s(1, XYZW), Modifier::AbsNeg), imm([neg_zero; 4])],
        ),
        inst(
            Op::Mov,
            &[r(3, 0x1)],
            &[with(imm([neg_zero; 4]), Modifier::Abs)],
        ),
    ]);
    assert_eq!(count_ext(&words, spirv::GlslStd450Op::FAbs), 0);
    assert!(count(&words, spirv::Op::BitwiseAnd) >= 3);
    assert_eq!(count(&words, spirv::Op::FNegate), 1);
}
