//! Tests of the case-file keys the runtime cases use: buffer views at offsets, `one_of`
//! expectations, `[[step]]` sequences and texture swizzles.

use ash::vk;

use super::*;
use crate::conformance::expect::Check;
use crate::conformance::textures::parse_swizzle;

fn parse(text: &str) -> Result<Case> {
    Case::parse(text, Path::new("/cases/runtime/x.toml"))
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(e) => format!("{e:#}"),
    }
}

/// Checks that each (from, to) edit of `text` is refused with a message containing `want`.
fn refused(text: &str, edits: &[(&str, &str, &str)]) {
    for (from, to, want) in edits {
        assert!(text.contains(from), "{from}");
        let e = err(&text.replacen(from, to, 1));
        assert!(e.contains(want), "{to:?}: wanted {want:?} in {e:?}");
    }
}

const VIEWS: &str = r#"
dispatch = [1, 1, 1]
[shader]
spirv_asm = "x.spvasm"
[[buffer]]
register = "t0"
kind = "structured"
stride = 8
size = 64
view_offset = 16
view_size = 24
[[buffer]]
register = "u0"
kind = "raw"
size = 48
view_offset = 32
[[buffer]]
register = "cb0"
size = 64
view_offset = 16
view_size = 32
[[expect]]
buffer = "u0"
values = [0]
"#;

#[test]
fn buffer_views() {
    let c = parse(VIEWS).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(c.buffers[0].view, Some((16, 24)));
    // Without view_size the view runs to the end of the buffer.
    assert_eq!(c.buffers[1].view, Some((32, 16)));
    assert_eq!(c.buffers[2].view, Some((16, 32)));
    // The buffer keeps its whole contents; expectations address it from byte 0.
    assert_eq!(c.buffers[1].contents.len(), 48);
    refused(
        VIEWS,
        &[
            ("view_size = 24", "view_size = 20", "multiple of 8"),
            (
                "view_size = 24",
                "view_size = 56",
                "outside the 64-byte buffer",
            ),
            (
                "view_offset = 32",
                "view_offset = 48",
                "not inside the 48-byte buffer",
            ),
            ("view_offset = 32", "view_offset = 34", "multiple of 4"),
            ("view_size = 32", "view_size = 8", "multiple of 16"),
            ("view_size = 24", "view_size = 0", "empty"),
        ],
    );
    // A view with only a size starts at byte 0.
    let c = parse(&VIEWS.replacen("view_offset = 16\nview_size = 24", "view_size = 24", 1))
        .unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(c.buffers[0].view, Some((0, 24)));
}

#[test]
fn data_at_an_offset() {
    let text = VIEWS.replacen(
        "size = 48\nview_offset = 32",
        "fill = \"0xdeadbeef\"\ndata_offset = 8\ndata = [7]\nview_offset = 32",
        1,
    );
    // Without size the buffer ends after the data (12 bytes), so the view at 32 is outside.
    assert!(err(&text).contains("not inside the 12-byte buffer"));
    let text = text.replacen("data_offset = 8", "size = 48\ndata_offset = 8", 1);
    let c = parse(&text).unwrap_or_else(|e| panic!("{e:#}"));
    let words: Vec<u32> = c.buffers[1]
        .contents
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    assert_eq!(words[..4], [0xdeadbeef, 0xdeadbeef, 7, 0xdeadbeef]);
    assert_eq!(words.len(), 12);
    let e = err(&text.replacen("data_offset = 8", "data_offset = 6", 1));
    assert!(e.contains("data_offset 6 is not a multiple of 4"), "{e}");
}

const ONE_OF: &str = r#"
dispatch = [1, 1, 1]
[shader]
spirv_asm = "x.spvasm"
[[buffer]]
register = "u0"
kind = "raw"
size = 16
[[texture]]
register = "u1"
dimension = "2d"
format = "r32_uint"
width = 2
[[expect]]
buffer = "u0"
offset = 4
one_of = [[1, 2], [2, 1]]
[[expect]]
texture = "u1"
pixel = [1, 0]
one_of = [[5], [6], [7]]
"#;

#[test]
fn one_of_expectations() {
    let c = parse(ONE_OF).unwrap_or_else(|e| panic!("{e:#}"));
    let Expectation::OneOf(alts) = &c.expectations[0] else {
        panic!("{:?}", c.expectations[0]);
    };
    assert_eq!(alts.len(), 2);
    match &alts[1] {
        Expectation::Buffer {
            check: Check::Values {
                offset, elements, ..
            },
            ..
        } => {
            assert_eq!(*offset, 4);
            let bits: Vec<_> = elements.iter().map(|e| e.pattern).collect();
            assert_eq!(
                bits,
                [
                    crate::conformance::value::Pattern::Bits(2),
                    crate::conformance::value::Pattern::Bits(1)
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    let Expectation::OneOf(alts) = &c.expectations[1] else {
        panic!("{:?}", c.expectations[1]);
    };
    assert_eq!(alts.len(), 3);
    assert!(matches!(alts[2], Expectation::Image(_)));
    refused(
        ONE_OF,
        &[
            (
                "one_of = [[1, 2], [2, 1]]",
                "one_of = [[1, 2]]",
                "at least two",
            ),
            (
                "one_of = [[1, 2], [2, 1]]",
                "values = [1]\none_of = [[1], [2]]",
                "values or one_of",
            ),
            (
                "one_of = [[1, 2], [2, 1]]",
                "one_of = [[1, 2], [1, 2, 3, 4]]",
                "one_of[1]",
            ),
            ("pixel = [1, 0]\n", "", "one_of replaces values"),
            (
                "one_of = [[5], [6], [7]]",
                "one_of = [[5], [6, 7]]",
                "2 values for 1 channels",
            ),
        ],
    );
}

const STEPS: &str = r#"
dispatch = [1, 1, 1]
[shader]
spirv_asm = "x.spvasm"
[[buffer]]
register = "cb0"
data = [0, 0, 0, 0]
[[buffer]]
register = "u0"
kind = "raw"
size = 16
[[step]]
[[step.write]]
buffer = "cb0"
offset = 4
type = "f32"
data = [1.0]
[[step.expect]]
buffer = "u0"
values = [1]
[[step]]
dispatch = [2, 3, 1]
"#;

#[test]
fn steps_in_order() {
    // The only expectations are the steps': that is enough.
    let c = parse(STEPS).unwrap_or_else(|e| panic!("{e:#}"));
    assert!(c.expectations.is_empty());
    assert_eq!(c.steps.len(), 2);
    let first = &c.steps[0];
    assert_eq!(first.dispatch, None);
    assert_eq!(first.writes.len(), 1);
    assert_eq!(first.writes[0].buffer, 0);
    assert_eq!(first.writes[0].offset, 4);
    assert_eq!(first.writes[0].bytes, 1.0f32.to_le_bytes());
    assert_eq!(first.expectations.len(), 1);
    assert_eq!(c.steps[1].dispatch, Some([2, 3, 1]));
    assert_eq!(c.all_expectations().count(), 1);
    refused(
        STEPS,
        &[
            (
                "buffer = \"cb0\"\noffset = 4",
                "buffer = \"cb9\"\noffset = 4",
                "no buffer named",
            ),
            ("offset = 4", "offset = 16", "inside the 16-byte buffer"),
            ("offset = 4", "offset = 2", "not 4-byte aligned"),
            ("dispatch = [2, 3, 1]", "dispatch = [2, 0, 1]", "at least 1"),
            (
                "dispatch = [2, 3, 1]",
                "vertex_count = 3",
                "belong to draws",
            ),
            ("dispatch = [2, 3, 1]", "dispatches = 3", "unknown field"),
            ("values = [1]", "values = [1, 2, 3, 4, 5]", "step 1"),
            (
                "[[step.expect]]\nbuffer = \"u0\"\nvalues = [1]\n",
                "",
                "no [[expect]] blocks",
            ),
        ],
    );
}

#[test]
fn graphics_steps_change_the_draw_call() {
    let text = r#"
[draw]
topology = "point_list"
vertex_count = 1
[[shader]]
stage = "vs"
spirv_asm = "vs.spvasm"
[[buffer]]
register = "u0"
kind = "raw"
size = 16
[[expect]]
buffer = "u0"
values = [1]
[[step]]
vertex_count = 4
first_instance = 2
[[step]]
"#;
    let c = parse(text).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(c.steps[0].draw.vertex_count, Some(4));
    assert_eq!(c.steps[0].draw.first_instance, Some(2));
    assert_eq!(
        c.steps[1].draw,
        crate::conformance::steps::DrawChange::default()
    );
    refused(
        text,
        &[
            ("vertex_count = 4", "dispatch = [1, 1, 1]", "compute cases"),
            ("vertex_count = 4", "vertex_count = 0", "at least 1"),
        ],
    );
}

#[test]
fn swizzles() {
    use vk::ComponentSwizzle as S;
    assert_eq!(parse_swizzle("abgr").ok(), Some([S::A, S::B, S::G, S::R]));
    assert_eq!(
        parse_swizzle("r01g").ok(),
        Some([S::R, S::ZERO, S::ONE, S::G])
    );
    for bad in ["rgb", "rgbaa", "rgbx", ""] {
        assert!(parse_swizzle(bad).is_err(), "{bad}");
    }
    let text = r#"
dispatch = [1, 1, 1]
[shader]
spirv_asm = "x.spvasm"
[[texture]]
register = "t0"
dimension = "2d"
format = "r8_unorm"
width = 4
swizzle = "rrr1"
[[buffer]]
register = "u0"
kind = "raw"
size = 16
[[expect]]
buffer = "u0"
values = [1]
"#;
    let c = parse(text).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(c.textures[0].swizzle, Some([S::R, S::R, S::R, S::ONE]));
    refused(
        text,
        &[
            (
                "swizzle = \"rrr1\"",
                "swizzle = \"rrrq\"",
                "not one of r, g, b, a, 0, 1",
            ),
            (
                "register = \"t0\"",
                "register = \"u1\"",
                "shader resources (t#)",
            ),
        ],
    );
}
