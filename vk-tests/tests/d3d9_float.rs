//! Direct3D 9's float rules on a Vulkan device: each operation of the IR's `Legacy` family,
//! built by hand as IR with immediate operands (`Reg::Imm32`), emitted by the back end alone
//! (`dxbc2spv::fuzzing::emit_ir`) in the strict and the fast float emulation, run as a compute
//! shader that stores each result vector to a raw UAV; the words read back are checked
//! against values computed by hand from the D3D9 instruction references (`docs/d3d9.md`,
//! "Float rules"), never from the translator's output.
//!
//! The IR module starts from a translated one-instruction DXBC compute shader (its raw UAV
//! declaration and binding, a `store_raw` to copy): its body is replaced by the cases.

use dxbc2spv::ir::{Dst, Inst, Module, Op, Reg, Src};
use dxbc2spv::{FloatControls, FloatEmulation, Options};
use vk_tests::compute::BufferBinding;
use vk_tests::{gpu_or_skip, run_compute_bound, validate, Buffer, ComputeJob, Gpu, Validation};

const INF: u32 = 0x7f80_0000;
const NINF: u32 = 0xff80_0000;
const NAN: u32 = 0x7fc0_0000;
const FLT_MAX: u32 = 0x7f7f_ffff;
const MINUS_FLT_MAX: u32 = 0xff7f_ffff;
/// What `r0` holds before each case: components a case does not write keep it.
const SENTINEL: u32 = 0x0bad_f00d;
const XYZW: [u8; 4] = [0, 1, 2, 3];

fn f(v: f32) -> u32 {
    v.to_bits()
}

/// A result component as D3D9 defines it.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// These bits exactly.
    Bits(u32),
    /// Zero of either sign.
    Zero,
    /// Any NaN.
    Nan,
    /// Within a relative error of 2^-20 (transcendental results: D3D9 asks 21 bits of `log`,
    /// 22 of `rsq`/`rcp`, and `exp` "full precision").
    Near(f64),
    /// Within a relative error of 2^-14: `2^x` for large `x` (Vulkan allows `exp2` an error of
    /// `3 + 2|x|` ULP; D3D9 asks `lit` for 8 fractional bits of the power).
    Rough(f64),
    /// Not written: the sentinel.
    Kept,
}

use Want::{Bits, Kept, Nan, Near, Rough, Zero};

fn b(v: f32) -> Want {
    Bits(f(v))
}

struct Probe {
    name: &'static str,
    insts: Vec<Inst>,
    want: [Want; 4],
}

fn imm(v: [u32; 4]) -> Src {
    Src::new(Reg::Imm32(v))
}

fn imm_swz(v: [u32; 4], swizzle: [u8; 4]) -> Src {
    Src { swizzle, ..imm(v) }
}

fn temp(n: u32) -> Src {
    Src {
        swizzle: XYZW,
        ..Src::new(Reg::Temp(n))
    }
}

fn inst_to(op: Op, reg: u32, mask: u8, srcs: &[Src]) -> Inst {
    let mut i = Inst::new(op, 0);
    assert!(i.push_dst(Dst {
        reg: Reg::Temp(reg),
        mask,
    }));
    for s in srcs {
        assert!(i.push_src(*s));
    }
    i
}

fn one(name: &'static str, op: Op, mask: u8, srcs: &[Src], want: [Want; 4]) -> Probe {
    Probe {
        name,
        insts: vec![inst_to(op, 0, mask, srcs)],
        want,
    }
}

/// 2^x as D3D9's "full precision" result is checked.
fn exp2(x: f64) -> Want {
    Near(x.exp2())
}

/// `lit`'s power limit (the reference's `127.9961f`).
fn max_power() -> f64 {
    f64::from(127.9961f32)
}

/// The cases both emulations agree on.
fn common_cases() -> Vec<Probe> {
    use Op::*;
    let third = f(1.0 / 3.0);
    vec![
        one(
            "mul: finite operands",
            MulLegacy,
            0xf,
            &[
                imm([f(2.0), f(-3.0), f(0.5), f(1e10)]),
                imm([f(3.0), f(4.0), f(0.5), f(1e10)]),
            ],
            [b(6.0), b(-12.0), b(0.25), b(1e20)],
        ),
        one(
            "mul: inf x 2 = inf, NaN x 2 = NaN",
            MulLegacy,
            0xf,
            &[
                imm([INF, NAN, NINF, f(1.0)]),
                imm([f(2.0), f(2.0), f(3.0), INF]),
            ],
            [Bits(INF), Nan, Bits(NINF), Bits(INF)],
        ),
        one(
            "mul: partial mask .y",
            MulLegacy,
            0x2,
            &[
                imm([f(1.0), f(5.0), f(1.0), f(1.0)]),
                imm([f(1.0), f(3.0), f(1.0), f(1.0)]),
            ],
            [Kept, b(15.0), Kept, Kept],
        ),
        one(
            "log: log2|x|, log(0) = -FLT_MAX",
            LogLegacy,
            0xf,
            &[imm([0, f(-8.0), f(1.0), INF])],
            [Bits(MINUS_FLT_MAX), Near(3.0), Zero, Bits(INF)],
        ),
        one(
            "log: -0 and 0.25",
            LogLegacy,
            0x3,
            &[imm([0x8000_0000, f(0.25), 0, 0])],
            [Bits(MINUS_FLT_MAX), Near(-2.0), Kept, Kept],
        ),
        one(
            "rsq: 1/sqrt|x|",
            RsqLegacy,
            0xd,
            &[imm([f(-4.0), 0, f(1.0), f(16.0)])],
            [Near(0.5), Kept, b(1.0), Near(0.25)],
        ),
        one(
            "rcp: 1/x",
            RcpLegacy,
            0xe,
            &[imm([0, f(1.0), f(-4.0), f(0.5)])],
            [Kept, b(1.0), Near(-0.25), Near(2.0)],
        ),
        one(
            "exp: 2^x",
            ExpLegacy,
            0xb,
            &[imm([f(2.5), NINF, 0, f(-3.0)])],
            [exp2(2.5), Zero, Kept, Near(0.125)],
        ),
        one(
            "pow: exp2(b x log2|a|)",
            PowLegacy,
            0xf,
            &[imm([0, 0, f(-8.0), f(2.0)]), imm([0, f(2.0), third, NINF])],
            [b(1.0), Zero, Near(2.0), Zero],
        ),
        one(
            "pow: 4^0.5, 0.5^-1, 3^2",
            PowLegacy,
            0x7,
            &[
                imm([f(4.0), f(0.5), f(-3.0), 0]),
                imm([f(0.5), f(-1.0), f(2.0), 0]),
            ],
            [Near(2.0), Near(2.0), Near(9.0), Kept],
        ),
        one(
            "dp2add: a.xy . b.xy + c (first swizzled component)",
            Dp2AddLegacy,
            0xf,
            &[
                imm([f(1.0), f(2.0), f(100.0), f(100.0)]),
                imm([f(3.0), f(4.0), f(100.0), f(100.0)]),
                imm_swz([f(9.0), f(0.5), f(9.0), f(9.0)], [1, 0, 0, 0]),
            ],
            [b(11.5); 4],
        ),
        one(
            "dp4: finite",
            Dp4Legacy,
            0x3,
            &[
                imm([f(1.0), f(2.0), f(3.0), f(4.0)]),
                imm([f(5.0), f(6.0), f(7.0), f(8.0)]),
            ],
            [b(70.0), b(70.0), Kept, Kept],
        ),
        one(
            "lit: x <= 0 gives (1, 0, 0, 1)",
            Lit,
            0xf,
            &[imm([f(-1.0), f(0.5), f(7.0), f(2.0)])],
            [b(1.0), Zero, Zero, b(1.0)],
        ),
        one(
            "lit: x = 0 is not > 0",
            Lit,
            0xf,
            &[imm([0, f(0.5), f(7.0), f(2.0)])],
            [b(1.0), Zero, Zero, b(1.0)],
        ),
        one(
            "lit: y = 0 gives z = 0",
            Lit,
            0xf,
            &[imm([f(0.5), 0, f(7.0), f(2.0)])],
            [b(1.0), b(0.5), Zero, b(1.0)],
        ),
        one(
            "lit: (0.25, 0.5, _, 3)",
            Lit,
            0xf,
            &[imm([f(0.25), f(0.5), f(7.0), f(3.0)])],
            [b(1.0), b(0.25), Near(0.125), b(1.0)],
        ),
        one(
            "lit: w = 200 limited to 127.9961",
            Lit,
            0x4,
            &[imm([f(1.0), f(2.0), 0, f(200.0)])],
            [Kept, Kept, Rough(max_power().exp2()), Kept],
        ),
        one(
            "lit: w = -200 limited to -127.9961",
            Lit,
            0x6,
            &[imm([f(3.0), f(0.5), 0, f(-200.0)])],
            [Kept, b(3.0), Rough(max_power().exp2()), Kept],
        ),
        one(
            "lit: w = 0 gives y^0 = 1",
            Lit,
            0xf,
            &[imm([f(1.0), f(0.5), 0, 0])],
            [b(1.0), b(1.0), b(1.0), b(1.0)],
        ),
        one(
            "dst: (1, a.y b.y, a.z, b.w)",
            DistVec,
            0xf,
            &[
                imm([f(9.0), f(2.0), f(3.0), f(9.0)]),
                imm([f(9.0), f(4.0), f(9.0), f(5.0)]),
            ],
            [b(1.0), b(8.0), b(3.0), b(5.0)],
        ),
        one(
            "nrm: (3, 0, 4, 5) scaled by 1/5",
            NrmLegacy,
            0xf,
            &[imm([f(3.0), 0, f(4.0), f(5.0)])],
            [Near(0.6), Zero, Near(0.8), Near(1.0)],
        ),
        one(
            "nrm(0) = 0",
            NrmLegacy,
            0x7,
            &[imm([0, 0, 0, f(1.0)])],
            [Zero, Zero, Zero, Kept],
        ),
        one(
            "expp_sm1(2.5) = (4, 0.5, 2^2.5, 1)",
            ExppSm1,
            0xf,
            &[imm([f(2.5), f(9.0), f(9.0), f(9.0)])],
            [b(4.0), b(0.5), exp2(2.5), b(1.0)],
        ),
        one(
            "expp_sm1 of .w = -1.5",
            ExppSm1,
            0xf,
            &[imm_swz([f(9.0), f(9.0), f(9.0), f(-1.5)], [3, 3, 3, 3])],
            [b(0.25), b(0.5), exp2(-1.5), b(1.0)],
        ),
        one(
            "logp_sm1(-12) = (3, 1.5, log2 12, 1)",
            LogpSm1,
            0xf,
            &[imm([f(-12.0), f(9.0), f(9.0), f(9.0)])],
            [b(3.0), b(1.5), Near(12f64.log2()), b(1.0)],
        ),
        one(
            "logp_sm1(0) = (-FLT_MAX, 1, -FLT_MAX, 1)",
            LogpSm1,
            0xf,
            &[imm_swz([f(9.0), 0, f(9.0), f(9.0)], [1, 1, 1, 1])],
            [Bits(MINUS_FLT_MAX), b(1.0), Bits(MINUS_FLT_MAX), b(1.0)],
        ),
        one(
            "logp_sm1(0.375) = (-2, 1.5, log2 0.375, 1)",
            LogpSm1,
            0xf,
            &[imm([f(0.375), 0, 0, 0])],
            [b(-2.0), b(1.5), Near(0.375f64.log2()), b(1.0)],
        ),
    ]
}

/// The strict emulation: D3D9's legacy multiply exactly, `rcp(0) = rsq(0) = +inf`.
fn strict_cases() -> Vec<Probe> {
    use Op::*;
    let mut cases = vec![
        one(
            "mul: 0 x inf = 0, 0 x NaN = 0",
            MulLegacy,
            0xf,
            &[imm([0, 0, INF, NAN]), imm([INF, NAN, 0, 0x8000_0000])],
            [Zero, Zero, Zero, Zero],
        ),
        one(
            "mul: -0 x -inf, NaN x 0",
            MulLegacy,
            0x3,
            &[imm([0x8000_0000, NAN, 0, 0]), imm([NINF, 0, 0, 0])],
            [Zero, Zero, Kept, Kept],
        ),
        one(
            "mad(0, inf, 1) = 1, mad(NaN, 0, 1) = 1",
            MadLegacy,
            0xf,
            &[
                imm([0, NAN, f(2.0), INF]),
                imm([INF, 0, f(3.0), 0]),
                imm([f(1.0), f(1.0), f(1.0), f(-1.0)]),
            ],
            [b(1.0), b(1.0), b(7.0), b(-1.0)],
        ),
        one(
            "dp4 with a zero lane against inf",
            Dp4Legacy,
            0xf,
            &[
                imm([0, f(1.0), f(2.0), f(3.0)]),
                imm([INF, f(1.0), f(1.0), f(1.0)]),
            ],
            [b(6.0); 4],
        ),
        one(
            "dp3 ignores w; 0 x NaN = 0",
            Dp3Legacy,
            0x1,
            &[
                imm([NAN, f(2.0), f(3.0), NAN]),
                imm([0, f(1.0), f(1.0), NAN]),
            ],
            [b(5.0), Kept, Kept, Kept],
        ),
        one(
            "dp2add: 0 x NaN = 0",
            Dp2AddLegacy,
            0x1,
            &[
                imm([0, f(2.0), 0, 0]),
                imm([NAN, f(3.0), 0, 0]),
                imm([f(0.5), 0, 0, 0]),
            ],
            [b(6.5), Kept, Kept, Kept],
        ),
        one(
            "pow: 1^inf = 1, inf^0 = 1",
            PowLegacy,
            0x3,
            &[imm([f(1.0), INF, 0, 0]), imm([INF, 0, 0, 0])],
            [b(1.0), b(1.0), Kept, Kept],
        ),
        one(
            "rsq(0) = rsq(-0) = +inf",
            RsqLegacy,
            0x3,
            &[imm([0, 0x8000_0000, 0, 0])],
            [Bits(INF), Bits(INF), Kept, Kept],
        ),
        one(
            "rcp(0) = +inf",
            RcpLegacy,
            0x1,
            &[imm([0; 4])],
            [Bits(INF), Kept, Kept, Kept],
        ),
        one(
            "exp(200) = inf",
            ExpLegacy,
            0x1,
            &[imm([f(200.0), 0, 0, 0])],
            [Bits(INF), Kept, Kept, Kept],
        ),
        one(
            "dst: 0 x inf = 0",
            DistVec,
            0xf,
            &[
                imm([f(9.0), 0, f(3.0), f(9.0)]),
                imm([f(9.0), INF, f(9.0), f(5.0)]),
            ],
            [b(1.0), Zero, b(3.0), b(5.0)],
        ),
    ];
    // `rcp(0)` feeding a multiply by 0: the legacy multiply gives 0.
    cases.push(Probe {
        name: "0 x rcp(0) = 0",
        insts: vec![
            inst_to(RcpLegacy, 1, 0xf, &[imm([0; 4])]),
            inst_to(MulLegacy, 0, 0x1, &[temp(1), imm([0; 4])]),
        ],
        want: [Zero, Kept, Kept, Kept],
    });
    cases
}

/// The fast emulation: the IEEE multiply, `rcp`/`rsq`/`exp` clamped to `±FLT_MAX`.
fn fast_cases() -> Vec<Probe> {
    use Op::*;
    vec![
        one(
            "mul: 0 x inf is IEEE (NaN)",
            MulLegacy,
            0x1,
            &[imm([0; 4]), imm([INF; 4])],
            [Nan, Kept, Kept, Kept],
        ),
        one(
            "rcp(0) = FLT_MAX, rcp(-0) = -FLT_MAX",
            RcpLegacy,
            0x3,
            &[imm([0, 0x8000_0000, 0, 0])],
            [Bits(FLT_MAX), Bits(MINUS_FLT_MAX), Kept, Kept],
        ),
        one(
            "rsq(0) = FLT_MAX",
            RsqLegacy,
            0x1,
            &[imm([0; 4])],
            [Bits(FLT_MAX), Kept, Kept, Kept],
        ),
        one(
            "exp(200) = FLT_MAX",
            ExpLegacy,
            0x1,
            &[imm([f(200.0), 0, 0, 0])],
            [Bits(FLT_MAX), Kept, Kept, Kept],
        ),
        one(
            "pow(0, 0) = 1, pow(0, 2) = 0, pow(2, 200) = FLT_MAX",
            PowLegacy,
            0x7,
            &[imm([0, 0, f(2.0), 0]), imm([0, f(2.0), f(200.0), 0])],
            [b(1.0), Zero, Bits(FLT_MAX), Kept],
        ),
        Probe {
            name: "0 x rcp(0) = 0 x FLT_MAX = 0",
            insts: vec![
                inst_to(RcpLegacy, 1, 0xf, &[imm([0; 4])]),
                inst_to(MulLegacy, 0, 0x1, &[temp(1), imm([0; 4])]),
            ],
            want: [Zero, Kept, Kept, Kept],
        },
    ]
}

/// A compute shader with one raw UAV, translated to IR: the module to fill with cases.
fn template(options: &Options) -> Module {
    let text = "cs_5_0\n\
                dcl_globalFlags refactoringAllowed\n\
                dcl_uav_raw u0\n\
                dcl_temps 2\n\
                dcl_thread_group 1, 1, 1\n\
                store_raw u0.xyzw, l(0), r0.xyzw\n\
                ret\n";
    let dxbc = dxbc2spv::text::dxbc::asm::assemble(text).unwrap_or_else(|e| panic!("{e}"));
    dxbc2spv::translate_to_ir(&dxbc, options).unwrap_or_else(|e| panic!("{e}"))
}

/// The module running `cases` in order, case `k` stored at byte `16 k`.
fn build(options: &Options, cases: &[Probe]) -> Module {
    let mut module = template(options);
    let store = module
        .insts
        .iter()
        .find(|i| i.op == Op::StoreRaw)
        .copied()
        .expect("the template's store_raw");
    let ret = module
        .insts
        .iter()
        .find(|i| i.op == Op::Ret)
        .copied()
        .expect("the template's ret");
    let mut insts = Vec::new();
    for (k, case) in (0u32..).zip(cases) {
        insts.push(inst_to(Op::Mov, 0, 0xf, &[imm([SENTINEL; 4])]));
        insts.extend(case.insts.iter().copied());
        let mut s = store;
        s.src_mut()[0] = imm([16 * k; 4]);
        s.src_mut()[1] = temp(0);
        insts.push(s);
    }
    insts.push(ret);
    let n = u32::try_from(insts.len()).expect("instruction count");
    module.insts = insts;
    let main = module.functions.first_mut().expect("the main function");
    main.body = 0..n;
    module
}

fn device() -> Option<Gpu> {
    match gpu_or_skip() {
        Ok(gpu) => gpu,
        Err(e) => panic!("{e:#}"),
    }
}

fn matches(want: Want, got: u32) -> bool {
    let v = f64::from(f32::from_bits(got));
    match want {
        Bits(bits) => got == bits,
        Zero => got & 0x7fff_ffff == 0,
        Nan => f32::from_bits(got).is_nan(),
        Near(x) => (v - x).abs() <= x.abs() * (1.0 / f64::from(1u32 << 20)),
        Rough(x) => (v - x).abs() <= x.abs() * (1.0 / f64::from(1u32 << 14)),
        Kept => got == SENTINEL,
    }
}

/// Runs `cases` under `emulation` and reports every wrong component.
fn run(gpu: &Gpu, emulation: FloatEmulation, cases: &[Probe]) {
    let has = |name: &str| gpu.features().supports(name);
    let options = Options::default()
        .with_float_emulation(emulation)
        .with_float_controls(FloatControls {
            preserve_inf_nan_f32: has("shaderSignedZeroInfNanPreserveFloat32"),
            preserve_inf_nan_f64: false,
            flush_denorm_f32: has("shaderDenormFlushToZeroFloat32"),
            preserve_denorm_f64: false,
        });
    let module = build(&options, cases);
    let binding = module
        .resources
        .first()
        .and_then(|r| r.binding)
        .and_then(|t| t.descriptor())
        .expect("u0 bound to a descriptor");
    let words = dxbc2spv::fuzzing::emit_ir(&module, &options).unwrap_or_else(|e| panic!("{e}"));
    match validate(&words, "vulkan1.1") {
        Ok(Validation::Valid) => {}
        Ok(Validation::Skipped(reason)) => eprintln!("skipped: spirv-val ({reason})"),
        Err(e) => panic!("{e:#}"),
    }
    let init = vec![0xdead_beef_u32; cases.len() * 4];
    let out = Buffer::from_u32s(gpu, &init, "u0").unwrap_or_else(|e| panic!("{e:#}"));
    let job = ComputeJob::new(&words, [1, 1, 1]);
    let bindings = [BufferBinding::storage(binding.set, binding.binding, &out)];
    run_compute_bound(gpu, &job, &bindings).unwrap_or_else(|e| panic!("{e:#}"));
    let got = out.read_u32s().unwrap_or_else(|e| panic!("{e:#}"));
    let mut wrong = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        for (c, want) in case.want.iter().enumerate() {
            let g = got.get(k * 4 + c).copied().unwrap_or(0xdead_beef);
            if !matches(*want, g) {
                wrong.push(format!(
                    "{emulation:?} `{}` .{}: got {g:#010x} ({}), want {want:?}",
                    case.name,
                    ['x', 'y', 'z', 'w'][c],
                    f32::from_bits(g)
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "wrong results on {}:\n{}",
        gpu.info().name,
        wrong.join("\n")
    );
}

#[test]
fn strict_float_rules_on_the_device() {
    let Some(gpu) = device() else { return };
    let mut cases = common_cases();
    cases.extend(strict_cases());
    run(&gpu, FloatEmulation::Strict, &cases);
}

#[test]
fn fast_float_rules_on_the_device() {
    let Some(gpu) = device() else { return };
    let mut cases = common_cases();
    cases.extend(fast_cases());
    run(&gpu, FloatEmulation::Fast, &cases);
}

#[test]
fn a_wrong_expectation_is_reported() {
    // The checker itself: a wrong value must not pass.
    assert!(!matches(Zero, f(1.0)));
    assert!(!matches(Near(2.0), f(2.001)));
    assert!(matches(Near(2.0), f(2.000_001)));
    assert!(!matches(Rough(2.0), f(2.001)));
    assert!(!matches(Bits(INF), FLT_MAX));
    assert!(!matches(Nan, INF));
    assert!(!matches(Kept, 0));
}
