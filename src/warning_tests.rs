//! The warnings of [`crate::translate`]: each condition the back end reports, from a shader
//! written for it, named at its instruction; the same shader without the condition (or with
//! the option that removes it) has none, and warnings never change the module.

use crate::warning::{Severity, WarningKind};
use crate::{translate, OptionFlags, Options, Translation, TypedUavFormats, UnlistedUavFormat};

fn run(asm: &str, options: &Options) -> Translation {
    let bytes = crate::text::dxbc::asm::assemble(asm).expect("assembles");
    translate(&bytes, options).expect("translates")
}

/// (kind, instruction) of each warning.
fn found(t: &Translation) -> Vec<(WarningKind, Option<&'static str>)> {
    t.warnings()
        .iter()
        .map(|w| (w.kind, w.instruction))
        .collect()
}

const CLEAN: &str = "ps_5_0\n\
    dcl_globalFlags refactoringAllowed\n\
    dcl_input_ps linear v0.xyzw\n\
    dcl_output o0.xyzw\n\
    dcl_temps 1\n\
    mad r0.xyzw, v0.xyzw, v0.xyzw, v0.xyzw\n\
    mov o0.xyzw, r0.xyzw\n\
    ret\n";

/// A shader without any condition has no warnings, and nothing was allocated for them.
#[test]
fn a_plain_shader_has_no_warnings() {
    let t = run(CLEAN, &Options::default());
    assert!(t.warnings().is_empty(), "{:?}", t.warnings());
    assert_eq!(t.warnings.capacity(), 0);
}

/// A typed UAV read without a listed format, under `R32OfReturnType`: declared `r32f`
/// (D3D would read the view's own format), reported at its declaration; listed, it is not.
#[test]
fn typed_uav_read_with_an_assumed_format_warns() {
    let cs = "cs_5_0\n\
        dcl_globalFlags refactoringAllowed\n\
        dcl_uav_typed_texture2d (float,float,float,float) u1\n\
        dcl_temps 1\n\
        dcl_thread_group 1, 1, 1\n\
        ld_uav_typed r0.xyzw, l(0, 0, 0, 0), u1.xyzw\n\
        store_uav_typed u1.xyzw, l(1, 0, 0, 0), r0.xyzw\n\
        ret\n";
    let mut options = Options::default().with_typed_uav_formats(TypedUavFormats {
        unlisted: UnlistedUavFormat::R32OfReturnType,
        ..TypedUavFormats::default()
    });
    let t = run(cs, &options);
    assert_eq!(
        found(&t),
        [(WarningKind::TypedUavFormatAssumed, Some("dcl_uav_typed"))]
    );
    let w = &t.warnings()[0];
    assert_eq!(w.severity(), Severity::Warning);
    assert!(
        w.message.contains("u1") && w.message.contains("r32f"),
        "{w}"
    );
    // The module is the one written without anyone looking at the warnings: the default
    // (Unknown) choice differs only by the format, and a listed format warns nothing.
    options.typed_uav_formats.formats = vec![((0, 1), crate::UavFormat::Rgba8)];
    assert!(run(cs, &options).warnings().is_empty());
    assert!(run(cs, &Options::default()).warnings().is_empty());
}

/// `discard` as `OpKill` ends the invocation (D3D keeps it as a helper): one warning, at the
/// first `discard`; with demote to helper (the default) none.
#[test]
fn discard_as_kill_warns() {
    let ps = "ps_5_0\n\
        dcl_globalFlags refactoringAllowed\n\
        dcl_input_ps linear v0.xyzw\n\
        dcl_output o0.xyzw\n\
        discard_nz v0.x\n\
        discard_z v0.y\n\
        mov o0.xyzw, v0.xyzw\n\
        ret\n";
    let kill = Options::default().with_flag(OptionFlags::DEMOTE_TO_HELPER, false);
    assert_eq!(
        found(&run(ps, &kill)),
        [(WarningKind::DiscardEndsInvocation, Some("discard"))]
    );
    assert!(run(ps, &Options::default()).warnings().is_empty());
}

/// A constant index past the declared size reads 0 (D3D10+): reported once per instruction;
/// an index inside the buffer is not.
#[test]
fn constant_buffer_reads_past_the_declared_size_warn() {
    let ps = |slot: u32| {
        format!(
            "ps_5_0\n\
             dcl_globalFlags refactoringAllowed\n\
             dcl_constantbuffer CB0[2], immediateIndexed\n\
             dcl_output o0.xyzw\n\
             dcl_temps 1\n\
             mov r0.xyzw, cb0[{slot}].xyzw\n\
             add o0.xyzw, r0.xyzw, cb0[{slot}].xyzw\n\
             ret\n"
        )
    };
    let t = run(&ps(5), &Options::default());
    assert_eq!(
        found(&t),
        [
            (WarningKind::ConstantBufferReadPastSize, Some("mov")),
            (WarningKind::ConstantBufferReadPastSize, Some("add")),
        ]
    );
    assert!(t.warnings()[0]
        .message
        .starts_with("cb0[5] is past the 2 vectors"));
    assert!(run(&ps(1), &Options::default()).warnings().is_empty());
}

/// Without `refactoringAllowed`, D3D keeps the float order; the module does not (only
/// `[precise]` is `NoContraction`): reported at the first multiply-add.
#[test]
fn missing_refactoring_allowed_warns() {
    let strict = CLEAN.replace("dcl_globalFlags refactoringAllowed\n", "");
    assert_eq!(
        found(&run(&strict, &Options::default())),
        [(WarningKind::StrictFloatOrderNotKept, Some("mad"))]
    );
}

/// `enableMinimumPrecision`: computed at 32 bits, information without an offset.
#[test]
fn minimum_precision_is_information() {
    let min = CLEAN.replace(
        "refactoringAllowed\n",
        "refactoringAllowed | enableMinimumPrecision\n",
    );
    let t = run(&min, &Options::default());
    assert_eq!(found(&t), [(WarningKind::MinimumPrecisionAt32Bits, None)]);
    assert_eq!(t.warnings()[0].severity(), Severity::Info);
    assert_eq!(t.warnings()[0].offset, None);
}
