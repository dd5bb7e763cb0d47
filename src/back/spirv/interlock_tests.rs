//! Rasterizer-ordered views: fxc-syntax pixel shaders with `_rov` UAVs, translated with each
//! [`RovInterlock`], checked word by word (capability, extension, execution mode, the critical
//! section's place in the entry point) and with `spirv-val`; and the errors when the ordering
//! cannot be kept.

use spirv::{Capability, ExecutionMode, Op};

use crate::spv::tests::tools;
use crate::{translate, ErrorKind, OptionFlags, Options, RovInterlock, Target};

/// A pixel shader with a raw and a typed ROV (read-modify-write of each, D3D's programmable
/// blending pattern), a plain UAV, and a `discard`.
const PS: &str = "
ps_5_0
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_output o0.xyzw
dcl_uav_raw_rov u1
dcl_uav_typed_texture2d_rov (uint,uint,uint,uint) u2
dcl_uav_raw u3
dcl_temps 2
ftou r0.xy, v0.xyxx
imad r0.z, r0.y, l(8), r0.x
ishl r0.z, r0.z, l(2)
discard_z r0.x
ld_raw r1.x, r0.z, u1.xxxx
iadd r1.x, r1.x, l(1)
store_raw u1.x, r0.z, r1.x
ld_uav_typed r1.y, r0.xyyy, u2.yxzw
iadd r1.y, r1.y, l(1)
store_uav_typed u2.xyzw, r0.xyyy, r1.yyyy
store_raw u3.x, r0.z, r1.x
mov o0.xyzw, l(1.000000, 1.000000, 1.000000, 1.000000)
ret
";

/// A pixel shader that runs per sample (it reads `SV_SampleIndex`) with a ROV.
const PS_PER_SAMPLE: &str = "
ps_5_0
dcl_input_ps_sgv constant v0.x, sampleIndex
dcl_uav_raw_rov u1
dcl_temps 1
ishl r0.x, v0.x, l(2)
store_raw u1.x, r0.x, v0.x
ret
";

/// One instruction of a module: opcode and operand words.
type Inst = (u32, Vec<u32>);

/// The instructions of `words` after the header.
fn instructions(words: &[u32]) -> Vec<Inst> {
    let mut out = Vec::new();
    let mut rest = words.get(5..).unwrap_or_default();
    while let Some(&first) = rest.first() {
        let count = (first >> 16) as usize;
        assert!(count >= 1 && count <= rest.len(), "bad word count {count}");
        out.push((first & 0xffff, rest[1..count].to_vec()));
        rest = &rest[count..];
    }
    out
}

/// How many instructions of `insts` have opcode `op` and start with `operands`.
fn count(insts: &[Inst], op: Op, operands: &[u32]) -> usize {
    insts
        .iter()
        .filter(|(o, w)| *o == op as u32 && w.starts_with(operands))
        .count()
}

/// The opcodes of the entry point's function, in order.
fn entry_point_body(insts: &[Inst]) -> Vec<u32> {
    let entry = insts
        .iter()
        .find(|(o, _)| *o == Op::EntryPoint as u32)
        .and_then(|(_, w)| w.get(1).copied())
        .expect("an entry point");
    let start = insts
        .iter()
        .position(|(o, w)| *o == Op::Function as u32 && w.get(1) == Some(&entry))
        .expect("the entry point's function");
    insts[start..]
        .iter()
        .map(|(o, _)| *o)
        .take_while(|&o| o != Op::FunctionEnd as u32)
        .collect()
}

fn options(rov: RovInterlock) -> Options {
    Options::default().with_rov_interlock(rov)
}

/// Translates `text` and validates the module for `options.target`.
fn words(text: &str, options: &Options) -> Vec<u32> {
    let bytes = crate::test_support::assemble(text);
    let t = translate(&bytes, options).unwrap_or_else(|e| panic!("{e}\n{text}"));
    tools::validate(&t.spirv, options.target.name());
    t.spirv
}

/// With pixel interlock, every ROV access is inside one ordered critical section: the entry
/// point begins it right before calling the shader and ends it right after, once each; the
/// module declares the capability, the extension and `PixelInterlockOrderedEXT`, and the ROVs
/// are `Coherent`. Valid for the oldest and newest targets.
#[test]
fn pixel_interlock_wraps_the_shader() {
    for target in [Target::Vulkan1_0, Target::Vulkan1_3] {
        let insts = instructions(&words(
            PS,
            &options(RovInterlock::Pixel).with_target(target),
        ));
        let cap = Capability::FragmentShaderPixelInterlockEXT as u32;
        assert_eq!(count(&insts, Op::Capability, &[cap]), 1);
        assert_eq!(
            count(&insts, Op::Extension, &[]),
            1 + u32::from(target < Target::Vulkan1_3) as usize
        );
        let mode = ExecutionMode::PixelInterlockOrderedEXT as u32;
        assert_eq!(
            count(&insts, Op::ExecutionMode, &[]) - 1,
            1,
            "OriginUpperLeft + interlock"
        );
        assert!(insts
            .iter()
            .any(|(o, w)| *o == Op::ExecutionMode as u32 && w.get(1) == Some(&mode)));
        assert_eq!(count(&insts, Op::BeginInvocationInterlockEXT, &[]), 1);
        assert_eq!(count(&insts, Op::EndInvocationInterlockEXT, &[]), 1);
        let body = entry_point_body(&insts);
        let at = |op: Op| body.iter().position(|&o| o == op as u32);
        let (begin, call, end) = (
            at(Op::BeginInvocationInterlockEXT).expect("begin in the entry point"),
            at(Op::FunctionCall).expect("the call"),
            at(Op::EndInvocationInterlockEXT).expect("end in the entry point"),
        );
        assert_eq!((begin + 1, call + 1), (call, end), "begin, call, end");
        // Straight-line: one block, so both run exactly once, in uniform control flow.
        assert_eq!(body.iter().filter(|&&o| o == Op::Label as u32).count(), 1);
        // The two ROVs are Coherent (the raw one on its block's member), the plain UAV not.
        let coherent = spirv::Decoration::Coherent as u32;
        let decorated = insts
            .iter()
            .filter(|(o, w)| {
                (*o == Op::Decorate as u32 && w.get(1) == Some(&coherent))
                    || (*o == Op::MemberDecorate as u32 && w.get(2) == Some(&coherent))
            })
            .count();
        assert_eq!(decorated, 2);
    }
}

/// `PixelAndSample`: a shader that runs per sample uses sample interlock; one that runs per
/// pixel keeps pixel interlock.
#[test]
fn sample_interlock_only_for_per_sample_shaders() {
    let opts = options(RovInterlock::PixelAndSample);
    let per_sample = instructions(&words(PS_PER_SAMPLE, &opts));
    let sample_cap = Capability::FragmentShaderSampleInterlockEXT as u32;
    let pixel_cap = Capability::FragmentShaderPixelInterlockEXT as u32;
    assert_eq!(count(&per_sample, Op::Capability, &[sample_cap]), 1);
    assert_eq!(count(&per_sample, Op::Capability, &[pixel_cap]), 0);
    let mode = ExecutionMode::SampleInterlockOrderedEXT as u32;
    assert!(per_sample
        .iter()
        .any(|(o, w)| *o == Op::ExecutionMode as u32 && w.get(1) == Some(&mode)));

    let per_pixel = instructions(&words(PS, &opts));
    assert_eq!(count(&per_pixel, Op::Capability, &[pixel_cap]), 1);
    assert_eq!(count(&per_pixel, Op::Capability, &[sample_cap]), 0);

    // Pixel interlock is also right (stricter) for a per-sample shader.
    let pixel = instructions(&words(PS_PER_SAMPLE, &options(RovInterlock::Pixel)));
    assert_eq!(count(&pixel, Op::Capability, &[pixel_cap]), 1);
}

/// Without an interlock a ROV is refused, naming the feature and the option, never translated
/// as a plain UAV.
#[test]
fn without_interlock_a_rov_is_unsupported() {
    let bytes = crate::test_support::assemble(PS);
    let e = translate(&bytes, &Options::default()).expect_err("no interlock by default");
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    let text = e.to_string();
    assert!(text.contains("rasterizer-ordered views (u1)"), "{text}");
    assert!(text.contains("rov_interlock option"), "{text}");
    assert_eq!(e.instruction(), Some("dcl_uav_raw"), "{text}");
}

/// `discard` as `OpKill` would end the invocation inside the section: refused. Without a
/// `discard`, `OpKill` never runs and the shader translates.
#[test]
fn kill_inside_the_critical_section_is_unsupported() {
    let kill = options(RovInterlock::Pixel).with_flag(OptionFlags::DEMOTE_TO_HELPER, false);
    let bytes = crate::test_support::assemble(PS);
    let e = translate(&bytes, &kill).expect_err("discard would kill");
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(
        e.to_string()
            .contains("rasterizer-ordered views with discard as OpKill"),
        "{e}"
    );
    let insts = instructions(&words(PS_PER_SAMPLE, &kill));
    assert_eq!(count(&insts, Op::BeginInvocationInterlockEXT, &[]), 1);
}

/// ROVs exist in pixel shaders only: elsewhere the input is invalid.
#[test]
fn a_rov_outside_a_pixel_shader_is_invalid() {
    let cs = "cs_5_0\ndcl_uav_raw_rov u0\ndcl_thread_group 1, 1, 1\nret\n";
    let bytes = crate::test_support::assemble(cs);
    let e = translate(&bytes, &options(RovInterlock::Pixel)).expect_err("compute shader");
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert!(
        e.to_string()
            .contains("rasterizer-ordered view u0 in a cs shader"),
        "{e}"
    );
}

/// A shader without ROVs is the same whatever the option says.
#[test]
fn shaders_without_rovs_do_not_change() {
    let plain = PS.replace("_rov", "");
    let off = words(&plain, &options(RovInterlock::Off));
    for rov in [RovInterlock::Pixel, RovInterlock::PixelAndSample] {
        assert_eq!(words(&plain, &options(rov)), off);
    }
}
