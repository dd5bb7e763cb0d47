//! Tests of the case file format: compute cases, graphics cases, textures, samplers and
//! expectations.

use super::*;
use crate::conformance::expect::Check;
use crate::conformance::value::Pattern;

fn parse(text: &str) -> Result<Case> {
    Case::parse(text, Path::new("/cases/compute/x.toml"))
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(e) => format!("{e:#}"),
    }
}

const BASE: &str = r#"
dispatch = [1, 1, 1]
[shader]
spirv_asm = "x.spvasm"
[[buffer]]
register = "u0"
kind = "raw"
data = [1, 2, 3, 4]
[[expect]]
buffer = "u0"
values = [1]
"#;

#[test]
fn minimal_case() {
    let c = parse(BASE).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(
        c.shaders[0].source,
        ShaderSource::SpirvAsm(PathBuf::from("/cases/compute/x.spvasm"))
    );
    assert_eq!(c.shaders[0].stage, Stage::Compute);
    assert_eq!(c.target_env, "vulkan1.1");
    assert_eq!(c.buffers[0].contents.len(), 16);
    assert_eq!(
        c.buffers[0].default_descriptor(),
        DescriptorKind::StorageBuffer
    );
    assert!(c.requested_bindings(Stage::Compute).is_empty());
}

#[test]
fn inline_asm_knows_its_line() {
    let text = "dispatch = [1, 1, 1]\n[shader]\nasm = \"\"\"\ncs_5_0\nret\n\"\"\"\n\
                [[buffer]]\nregister = \"u0\"\nkind = \"raw\"\nsize = 4\n\
                [[expect]]\nbuffer = \"u0\"\nvalues = [0]\n";
    let c = parse(text).unwrap_or_else(|e| panic!("{e:#}"));
    match &c.shaders[0].source {
        ShaderSource::Asm {
            text, first_line, ..
        } => {
            assert_eq!(text, "cs_5_0\nret\n");
            assert_eq!(*first_line, 4);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn contents_fill_and_types() {
    let c = parse(
        r#"
dispatch = [1, 1, 1]
[shader]
dxbc = "a.dxbc"
[[buffer]]
register = "u1, space2"
kind = "structured"
stride = 8
type = "f32"
data = [1.5, "u32:7", -2]
fill = "0xdeadbeef"
size = 24
set = 1
binding = 3
counter = 5
counter_binding = 4
[[buffer]]
register = "cb0"
data = [1]
[[expect]]
buffer = "u1:space2"
type = "f32"
offset = 8
values = ["*", "nan", 1.0]
ulp = 1
[[expect]]
buffer = "u1:space2"
counter = 6
"#,
    )
    .unwrap_or_else(|e| panic!("{e:#}"));
    let b = &c.buffers[0];
    let words: Vec<u32> = b
        .contents
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    assert_eq!(
        words,
        [
            0x3fc0_0000,
            7,
            0xc000_0000,
            0xdead_beef,
            0xdead_beef,
            0xdead_beef
        ]
    );
    assert_eq!(b.placement, Some((1, 3)));
    assert_eq!(
        b.counter,
        Some(CounterSpec {
            initial: 5,
            placement: Some((1, 4))
        })
    );
    assert_eq!(c.buffers[1].contents.len(), 16, "cbuffers round up to 16");
    assert_eq!(c.buffers[1].kind, BufferKind::Constant);
    match &c.expectations[0] {
        Expectation::Buffer {
            check:
                Check::Values {
                    offset,
                    elements,
                    tolerance,
                },
            ..
        } => {
            assert_eq!(*offset, 8);
            assert_eq!(elements[1].pattern, Pattern::Nan);
            assert_eq!(tolerance.ulp, 1);
        }
        other => panic!("{other:?}"),
    }
    match &c.expectations[1] {
        Expectation::Buffer { check, .. } => assert_eq!(*check, Check::Counter(6)),
        other => panic!("{other:?}"),
    }
    assert_eq!(c.requested_bindings(Stage::Compute).len(), 2);
}

#[test]
fn mistakes_are_reported() {
    let cases: &[(&str, &str, &str)] = &[
        ("kind = \"raw\"", "kind = \"rawr\"", "unknown kind"),
        (
            "data = [1, 2, 3, 4]",
            "data = [1, 2, 3, 4]\nbogus = 1",
            "bogus",
        ),
        (
            "values = [1]",
            "values = [1, 2, 3, 4, 5]",
            "outside the 16-byte",
        ),
        ("values = [1]", "values = [1]\nulp = 2", "ulp/abs apply"),
        ("buffer = \"u0\"", "buffer = \"u9\"", "no buffer named"),
        ("[1, 1, 1]", "[1, 0, 1]", "at least 1"),
        ("register = \"u0\"", "register = \"x0\"", "bad register"),
        ("register = \"u0\"", "register = \"s0\"", "holds a sampler"),
        (
            "spirv_asm = \"x.spvasm\"",
            "spirv_asm = \"x\"\ndxbc = \"y\"",
            "exactly one",
        ),
        (
            "values = [1]",
            "values = [1]\ncounter = 1",
            "give one of values, counter",
        ),
        ("data = [1, 2, 3, 4]", "data = [1.5]", "must be an integer"),
        (
            "data = [1, 2, 3, 4]",
            "data = [1]\nsize = 6",
            "multiple of 4",
        ),
        ("kind = \"raw\"", "kind = \"structured\"", "needs stride"),
    ];
    for (from, to, want) in cases {
        assert!(BASE.contains(from), "{from}");
        let e = err(&BASE.replacen(from, to, 1));
        assert!(e.contains(want), "{to:?}: wanted {want:?} in {e:?}");
    }
    let e = err(&format!("requires = [\"shaderFloat65\"]\n{BASE}"));
    assert!(e.contains("unknown device feature"), "{e}");
    let e = err(&format!("failure_contains = \"x\"\n{BASE}"));
    assert!(e.contains("expect_failure"), "{e}");
    let e = err(&BASE.replace("[[expect]]\nbuffer = \"u0\"\nvalues = [1]\n", ""));
    assert!(e.contains("no [[expect]]"), "{e}");
}

const GFX: &str = r#"
[draw]
topology = "triangle_list"
vertex_count = 3
[[shader]]
stage = "ps"
spirv_asm = "p.spvasm"
[[shader]]
stage = "vs"
spirv_asm = "v.spvasm"
[[vertex_buffer]]
slot = 0
stride = 16
type = "f32"
data = [0.0, 0.0, 0.0, 1.0]
[[input]]
register = "v0"
format = "r32g32b32a32_float"
[[render_target]]
slot = 0
format = "r32g32b32a32_uint"
clear = [1, 2, 3, 4]
[[expect]]
target = 0
pixel = [3, 3]
values = [1, 2, 3, "*"]
"#;

#[test]
fn graphics_case() {
    let c = parse(GFX).unwrap_or_else(|e| panic!("{e:#}"));
    let stages: Vec<Stage> = c.shaders.iter().map(|s| s.stage).collect();
    assert_eq!(
        stages,
        [Stage::Vertex, Stage::Pixel],
        "sorted in pipeline order"
    );
    let d = c.draw().unwrap_or_else(|| panic!("no draw"));
    assert_eq!((d.width, d.height, d.samples, d.layers), (4, 4, 1, 1));
    assert_eq!(d.instance_count, 1);
    assert_eq!(d.viewports.len(), 1);
    assert_eq!(d.targets[0].clear, [1, 2, 3, 4]);
    assert_eq!(d.inputs[0].location, 0);
    match &c.expectations[0] {
        Expectation::Image(check) => {
            assert_eq!(check.rect, [3, 3, 1, 1]);
            assert_eq!(check.values[0].len(), 4);
            assert_eq!(check.values[0][0].ty, ScalarType::U32);
        }
        other => panic!("{other:?}"),
    }
    assert!(c.implied_requirements().contains(&"dynamicRendering"));
}

#[test]
fn graphics_mistakes_are_reported() {
    let cases: &[(&str, &str, &str)] = &[
        ("stage = \"vs\"", "stage = \"ps\"", "two ps shaders"),
        ("stage = \"vs\"", "stage = \"gs\"", "needs a vertex shader"),
        ("\"triangle_list\"", "\"triangles\"", "unknown topology"),
        (
            "register = \"v0\"",
            "register = \"v0\"\nslot = 1",
            "has no [[vertex_buffer]]",
        ),
        ("register = \"v0\"", "register = \"o0\"", "expected v#"),
        ("pixel = [3, 3]", "pixel = [4, 3]", "outside the 4x4 image"),
        (
            "values = [1, 2, 3, \"*\"]",
            "values = [1, 2]",
            "2 values for 4 channels",
        ),
        (
            "target = 0\n",
            "target = 1\n",
            "no [[render_target]] at slot 1",
        ),
        ("target = 0\n", "target = \"depth\"\n", "needs [depth]"),
        (
            "vertex_count = 3",
            "vertex_count = 3\nfirst_index = 1",
            "apply to indexed",
        ),
        (
            "clear = [1, 2, 3, 4]",
            "clear = [1.5]",
            "must be an integer",
        ),
        ("[draw]", "dispatch = [1, 1, 1]\n[draw]", "either dispatch"),
    ];
    for (from, to, want) in cases {
        assert!(GFX.contains(from), "{from}");
        let e = err(&GFX.replacen(from, to, 1));
        assert!(e.contains(want), "{to:?}: wanted {want:?} in {e:?}");
    }
    // Graphics tables in a compute case.
    let e = err(&format!("{BASE}\n[framebuffer]\nwidth = 2\n"));
    assert!(e.contains("[framebuffer] belongs to graphics cases"), "{e}");
    // A stage-less [[shader]] in a graphics case.
    let e = err(&GFX.replacen("stage = \"ps\"\n", "", 1));
    assert!(e.contains("needs stage"), "{e}");
}

#[test]
fn stream_output_and_so_buffers() {
    let text = GFX.replace(
        "[[expect]]",
        "[[stream_output]]\nsemantic = \"SV_Position\"\ncomponent_count = 4\nslot = 1\n\
         [[so_buffer]]\nslot = 1\nsize = 32\n[[expect]]\nbuffer = \"so1\"\nvalues = [0]\n\
         [[expect]]\nstream = 0\nprimitives_written = 1\n[[expect]]",
    );
    let c = parse(&text).unwrap_or_else(|e| panic!("{e:#}"));
    let d = c.draw().unwrap_or_else(|| panic!("no draw"));
    let so = d.stream_output.as_ref().unwrap_or_else(|| panic!("no SO"));
    assert_eq!(so.entries[0].output_slot, 1);
    assert_eq!(so.entries[0].semantic_name.as_deref(), Some("SV_Position"));
    assert_eq!(so.rasterized_stream, Some(0));
    assert!(c.implied_requirements().contains(&"transformFeedback"));
    assert!(c
        .implied_requirements()
        .contains(&"transformFeedbackQueries"));
    let e = err(&text.replace("slot = 1\nsize = 32", "slot = 2\nsize = 32"));
    assert!(e.contains("which has no [[so_buffer]]"), "{e}");
}

#[test]
fn textures_and_samplers() {
    let text = format!(
        "{BASE}\n[[texture]]\nregister = \"t1\"\nset = 0\nbinding = 5\ndimension = \"2d_array\"\n\
         format = \"r32g32_uint\"\nwidth = 2\nheight = 1\narray_layers = 2\nmip_levels = 2\n\
         pattern = \"coords\"\n[[sampler]]\nregister = \"s0\"\nset = 0\nbinding = 6\n\
         filter = \"point\"\naddress_u = \"mirror_once\"\ncomparison = \"less\"\n"
    );
    let c = parse(&text).unwrap_or_else(|e| panic!("{e:#}"));
    let t = &c.textures[0];
    let words: Vec<u32> = t
        .contents
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // Layer 0: mip 0 (x, y) = (0, 0), (1, 0); mip 1 (0, 0). Then layer 1 (layer-major).
    // Two channels: x and y.
    assert_eq!(words, [0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    let s = &c.samplers[0].state;
    assert_eq!(s.mag, ash::vk::Filter::NEAREST);
    assert_eq!(
        s.address[0],
        ash::vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE
    );
    assert_eq!(s.address[1], ash::vk::SamplerAddressMode::CLAMP_TO_EDGE);
    assert_eq!(s.compare, Some(ash::vk::CompareOp::LESS));
    assert!(c
        .implied_requirements()
        .contains(&"samplerMirrorClampToEdge"));
    assert_eq!(c.requested_bindings(Stage::Compute).len(), 2);

    let bad: &[(&str, &str, &str)] = &[
        ("dimension = \"2d_array\"", "dimension = \"cube\"", "square"),
        (
            "dimension = \"2d_array\"",
            "dimension = \"2d\"",
            "array_layers applies",
        ),
        (
            "register = \"t1\"",
            "register = \"s1\"",
            "t# or u# register",
        ),
        ("register = \"s0\"", "register = \"t0\"", "s# register"),
        ("filter = \"point\"", "filter = \"cubic\"", "unknown filter"),
        ("register = \"t1\"", "register = \"u0\"", "both at u0"),
        ("binding = 6", "binding = 5", "both at set 0, binding 5"),
    ];
    for (from, to, want) in bad {
        assert!(text.contains(from), "{from}");
        let e = err(&text.replacen(from, to, 1));
        assert!(e.contains(want), "{to:?}: wanted {want:?} in {e:?}");
    }
}

#[test]
fn per_stage_registers() {
    // The same register for two stages, as D3D binds per stage.
    let text = GFX.replace(
        "[[expect]]",
        "[[buffer]]\nregister = \"cb0\"\nstages = [\"vs\"]\ndata = [1]\n\
         [[buffer]]\nregister = \"cb0\"\nname = \"ps_cb0\"\nstages = [\"ps\"]\ndata = [2]\n[[expect]]",
    );
    let c = parse(&text).unwrap_or_else(|e| panic!("{e:#}"));
    assert_eq!(c.buffers[0].stages, Some(vec![Stage::Vertex]));
    let e = err(&text.replace("stages = [\"ps\"]", "stages = [\"ps\", \"vs\"]"));
    assert!(e.contains("both at cb0"), "{e}");
    let e = err(&text.replace("stages = [\"ps\"]", "stages = [\"xs\"]"));
    assert!(e.contains("unknown stage"), "{e}");
    let e = err(&text.replace("stages = [\"ps\"]", "stages = [\"hs\"]"));
    assert!(
        e.contains("stages lists hs, which the case has no shader for"),
        "{e}"
    );
}

#[test]
fn record_expectations() {
    let records = "[[expect]]\nbuffer = \"u0\"\ncount_offset = 0\noffset = 4\n\
                   types = [\"f32\", \"u32\"]\nrecords = [[0.5, 1], [\"nan\", \"*\"]]\n";
    let text = format!("{BASE}{records}");
    let c = parse(&text).unwrap_or_else(|e| panic!("{e:#}"));
    match &c.expectations[1] {
        Expectation::Buffer {
            check: Check::Records(r),
            ..
        } => {
            assert_eq!((r.count_offset, r.offset, r.distinct), (0, 4, true));
            assert_eq!(r.fields, [ScalarType::F32, ScalarType::U32]);
            assert_eq!(r.record_size(), 8);
        }
        other => panic!("{other:?}"),
    }
    let bad: &[(&str, &str, &str)] = &[
        (
            "offset = 4\n",
            "offset = 4\nvalues = [1]\n",
            "give one of values",
        ),
        ("count_offset = 0\n", "", "need count_offset"),
        ("offset = 4", "offset = 20", "outside the 16-byte buffer"),
        ("[0.5, 1], ", "[0.5], ", "1 values for a record of 2"),
        (
            "[\"nan\", \"*\"]",
            "[\"nan\", \"f64:1\"]",
            "is a f64, in a u32 field",
        ),
        (
            "records = [[0.5, 1], [\"nan\", \"*\"]]",
            "distinct = false",
            "go with records or record_count",
        ),
    ];
    for (from, to, want) in bad {
        assert!(text.contains(from), "{from}");
        let e = err(&text.replacen(from, to, 1));
        assert!(e.contains(want), "{to:?}: wanted {want:?} in {e:?}");
    }
    let e = err(&GFX.replace("pixel = [3, 3]", "pixel = [3, 3]\nrecord_count = 1"));
    assert!(e.contains("apply to buffers"), "{e}");
}
