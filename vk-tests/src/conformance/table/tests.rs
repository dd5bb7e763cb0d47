//! Tests of binding tables: `[[binding]]` rows, resources in array elements, and the placements
//! and layouts made from reflected register ranges or from the table alone.

use std::path::Path;

use ash::vk;
use dxbc2spv::bindings::{Count, ResourceKind};

use super::*;
use crate::conformance::bind::{placements, ResRef};
use crate::conformance::case::Case;
use crate::conformance::shader::{CompiledShader, ShaderBinding, Stage};

fn parse(text: &str) -> anyhow::Result<Case> {
    Case::parse(text, Path::new("/cases/runner/x.toml"))
}

fn case(text: &str) -> Case {
    parse(text).unwrap_or_else(|e| panic!("{e:#}\n{text}"))
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(e) => format!("{e:#}"),
    }
}

/// A compute case with a SPIR-V source, `rows` and `resources`.
fn with(rows: &str, resources: &str) -> String {
    format!(
        "dispatch = [1, 1, 1]\n[shader]\nspirv_asm = \"x.spvasm\"\n{rows}\n{resources}\n\
         [[expect]]\nbuffer = \"u0\"\nvalues = [0]\n"
    )
}

const OUT: &str = "[[binding]]\nkind = \"uav\"\nfirst = 0\nbinding = 9\n\
                   [[buffer]]\nregister = \"u0\"\nkind = \"raw\"\nsize = 4\n";

/// Four 1x1 textures t10..t13 in space 1.
fn space1_textures() -> String {
    (10..14)
        .map(|r| {
            format!(
                "[[texture]]\nregister = \"t{r}\"\nspace = 1\ndimension = \"2d\"\n\
                 format = \"r32_uint\"\nwidth = 1\n"
            )
        })
        .collect()
}

const SHARED: &str = "[[binding]]\nkind = \"srv\"\nfirst = 0\ncount = 2\nbinding = 0\n\
                      [[binding]]\nkind = \"srv\"\nspace = 1\nfirst = 10\ncount = 4\n\
                      binding = 0\narray_offset = 2\n";

#[test]
fn rows_and_defaults() {
    let c = case(&with(
        &format!("{SHARED}{OUT}"),
        "[[texture]]\nregister = \"t1\"\ndimension = \"2d\"\nformat = \"r32_uint\"\nwidth = 1\n",
    ));
    let t = c.table.as_ref().unwrap_or_else(|| panic!("no table"));
    assert_eq!(t.rows.len(), 3);
    let e = t.rows[1].entry;
    assert_eq!(
        (e.range.kind, e.range.space, e.range.first, e.range.count),
        (ResourceKind::ShaderResource, 1, 10, Count::Bounded(4))
    );
    assert_eq!((e.set, e.binding, e.array_offset), (0, 0, 2));
    // count and set default to 1 and 0.
    let e = t.rows[2].entry;
    assert_eq!((e.range.count, e.set, e.binding), (Count::Bounded(1), 0, 9));
    let r = |text: &str| {
        crate::conformance::shader::Register::parse(text).unwrap_or_else(|e| panic!("{e:#}"))
    };
    assert_eq!(
        t.locate(BindingTarget::Resource(r("t12:space1"))),
        Some((0, 0, 4))
    );
    assert_eq!(t.locate(BindingTarget::Resource(r("t1"))), Some((0, 0, 1)));
    assert_eq!(t.locate(BindingTarget::Resource(r("t2"))), None);
    assert_eq!(t.locate(BindingTarget::Counter(r("u0"))), None);
    assert!(c.requested_bindings(Stage::Compute).is_empty());
}

#[test]
fn space_keys() {
    let c = case(&with(
        &format!("{SHARED}{OUT}"),
        "[[texture]]\nregister = \"t11\"\nspace = 1\ndimension = \"2d\"\nformat = \"r32_uint\"\n\
         width = 1\n[[texture]]\nregister = \"t12, space1\"\nspace = 1\ndimension = \"2d\"\n\
         format = \"r32_uint\"\nwidth = 1\n",
    ));
    assert_eq!(c.textures[0].name, "t11:space1");
    assert_eq!(
        (c.textures[1].register.index, c.textures[1].register.space),
        (12, 1)
    );
    let e = err(&with(
        &format!("{SHARED}{OUT}"),
        "[[texture]]\nregister = \"t11, space2\"\nspace = 1\ndimension = \"2d\"\n\
         format = \"r32_uint\"\nwidth = 1\n",
    ));
    assert!(e.contains("is in space 2, but space = 1"), "{e}");
}

#[test]
fn bad_rows() {
    let bad = |rows: &str, want: &str| {
        let e = err(&with(&format!("{rows}{OUT}"), ""));
        assert!(e.contains(want), "{e}");
    };
    bad(
        "[[binding]]\nkind = \"tex\"\nfirst = 0\nbinding = 0\n",
        "unknown kind \"tex\"",
    );
    bad(
        "[[binding]]\nkind = \"srv\"\nfirst = 0\ncount = 0\nbinding = 0\n",
        "count 0 is not 1 to 4294967295",
    );
    bad(
        "[[binding]]\nkind = \"srv\"\nfirst = 0\ncount = \"many\"\nbinding = 0\n",
        "\"unbounded\"",
    );
    bad(
        "[[binding]]\nkind = \"srv\"\nfirst = 0\ncount = 2\nbinding = 0\ndescriptor_count = 4\n",
        "descriptor_count sizes unbounded rows only",
    );
    bad(
        "[[binding]]\nkind = \"sampler\"\nfirst = 0\nbinding = 0\ndescriptor = \"sampled_image\"\n",
        "cannot hold sampled_image",
    );
    bad(
        "[[binding]]\nkind = \"srv\"\nfirst = 0\ncount = 4\nbinding = 0\n\
         [[binding]]\nkind = \"srv\"\nfirst = 3\nbinding = 1\n",
        "the translator rejects the binding table: binding table maps t0..t3 space0 and t3 \
         space0, which overlap",
    );
    bad(
        "[[binding]]\nkind = \"srv\"\nfirst = 0\nbinding = 0\nbogus = 1\n",
        "unknown field",
    );
}

#[test]
fn resources_must_fit_the_table() {
    let e = err(&with(
        &format!("{SHARED}{OUT}"),
        "[[texture]]\nregister = \"t2\"\ndimension = \"2d\"\nformat = \"r32_uint\"\nwidth = 1\n",
    ));
    assert!(
        e.contains("t2: no [[binding]] row of kind srv holds t2"),
        "{e}"
    );
    let e = err(&with(
        &format!("{SHARED}{OUT}"),
        "[[texture]]\nregister = \"t0\"\nbinding = 4\ndimension = \"2d\"\nformat = \"r32_uint\"\n\
         width = 1\n",
    ));
    assert!(e.contains("t0 gives set/binding"), "{e}");
    // A counter needs a uav_counter row.
    let e = err(&with(
        OUT,
        "[[buffer]]\nregister = \"u0\"\nspace = 1\nkind = \"raw\"\nsize = 4\ncounter = 0\n\
         [[binding]]\nkind = \"uav\"\nspace = 1\nfirst = 0\nbinding = 1\n",
    ));
    assert!(
        e.contains(
            "the counter of u0:space1: no [[binding]] row of kind uav_counter holds u0:space1"
        ),
        "{e}"
    );
    // One table serves every stage: two resources at one register for different stages would
    // share its array element.
    let e = err("[draw]\ntopology = \"point_list\"\nvertex_count = 1\n\
         [[shader]]\nstage = \"vs\"\nspirv_asm = \"v.spvasm\"\n\
         [[shader]]\nstage = \"ps\"\nspirv_asm = \"p.spvasm\"\n\
         [[binding]]\nkind = \"srv\"\nfirst = 0\nbinding = 0\n\
         [[buffer]]\nregister = \"t0\"\nkind = \"raw\"\nsize = 4\nstages = [\"vs\"]\n\
         [[buffer]]\nregister = \"t0\"\nname = \"t0ps\"\nkind = \"raw\"\nsize = 4\n\
         stages = [\"ps\"]\n[[expect]]\nbuffer = \"t0\"\nvalues = [0]\n");
    assert!(
        e.contains("t0ps and t0 are both at set 0, binding 0, element 0"),
        "{e}"
    );
}

/// The layout binding at (set, binding).
fn layout_at(bound: &crate::conformance::bind::Bound, set: u32, binding: u32) -> SetLayoutBinding {
    *bound
        .layout
        .iter()
        .find(|l| (l.set, l.binding) == (set, binding))
        .unwrap_or_else(|| panic!("no layout binding {set}.{binding}: {:?}", bound.layout))
}

#[test]
fn spirv_sources_take_their_elements_from_the_table() {
    let c = case(&with(
        &format!(
            "{SHARED}{OUT}[[binding]]\nkind = \"uav\"\nspace = 1\nfirst = 0\ncount = \
             \"unbounded\"\nbinding = 1\n[[binding]]\nkind = \"uav_counter\"\nspace = 1\n\
             first = 0\ncount = \"unbounded\"\nbinding = 2\ndescriptor_count = 8\n\
             [[binding]]\nkind = \"cbv\"\nfirst = 0\ncount = 4\nbinding = 3\n\
             [[binding]]\nkind = \"srv\"\nspace = 5\nfirst = 0\nbinding = 4\n"
        ),
        &format!(
            "{}[[buffer]]\nregister = \"u3, space1\"\nkind = \"raw\"\nsize = 4\ncounter = 1\n",
            space1_textures()
        ),
    ));
    let shader = CompiledShader {
        spirv: Vec::new(),
        entry_point: "main".into(),
        bindings: None,
    };
    let bound = placements(&c, &[(Stage::Compute, &shader)]).unwrap_or_else(|e| panic!("{e:#}"));
    let at = |res| {
        let p = bound
            .places
            .iter()
            .find(|p| p.res == res)
            .unwrap_or_else(|| panic!("{res:?} not placed"));
        (p.set, p.binding, p.element, p.kind)
    };
    assert_eq!(
        at(ResRef::Texture(0)),
        (0, 0, 2, DescriptorKind::SampledImage)
    );
    assert_eq!(
        at(ResRef::Texture(3)),
        (0, 0, 5, DescriptorKind::SampledImage)
    );
    assert_eq!(
        at(ResRef::Buffer(1)),
        (0, 1, 3, DescriptorKind::StorageBuffer)
    );
    assert_eq!(
        at(ResRef::Counter(1)),
        (0, 2, 3, DescriptorKind::StorageBuffer)
    );
    assert_eq!(
        at(ResRef::Buffer(0)),
        (0, 9, 0, DescriptorKind::StorageBuffer)
    );
    let l = layout_at(&bound, 0, 0);
    assert_eq!(
        (l.kind, l.count, l.partially_bound),
        (DescriptorKind::SampledImage, 6, true)
    );
    assert_eq!(l.stages, vk::ShaderStageFlags::COMPUTE);
    // Unbounded: the highest element written + 1, or descriptor_count.
    assert_eq!(
        (
            layout_at(&bound, 0, 1).count,
            layout_at(&bound, 0, 1).partially_bound
        ),
        (4, true)
    );
    assert_eq!(layout_at(&bound, 0, 2).count, 8);
    // Nothing written, but the kind decides: a partially bound array of 4 uniform buffers.
    let l = layout_at(&bound, 0, 3);
    assert_eq!(
        (l.kind, l.count, l.partially_bound),
        (DescriptorKind::UniformBuffer, 4, true)
    );
    let l = layout_at(&bound, 0, 9);
    assert_eq!((l.count, l.partially_bound), (1, false));
    // An SRV binding with nothing in it and no descriptor key is left out.
    assert!(
        bound.layout.iter().all(|l| l.binding != 4),
        "{:?}",
        bound.layout
    );
}

/// A reflected range of `count` SRVs from t10 space1 at element `offset` of (0, 0), declared
/// as an array of `declared`.
fn srv_range(count: Count, offset: u32, declared: Count) -> ShaderBinding {
    let r = crate::conformance::shader::Register::parse("t10:space1")
        .unwrap_or_else(|e| panic!("{e:#}"));
    ShaderBinding {
        target: BindingTarget::Resource(r),
        count,
        set: 0,
        binding: 0,
        array_offset: offset,
        descriptor_count: declared,
        kind: DescriptorKind::SampledImage,
        texel_format: None,
        dimension: None,
    }
}

#[test]
fn reflected_ranges_place_every_resource_in_them() {
    let c = case(&with(&format!("{SHARED}{OUT}"), &space1_textures()));
    let shader = CompiledShader {
        spirv: Vec::new(),
        entry_point: "main".into(),
        bindings: Some(vec![srv_range(Count::Bounded(4), 2, Count::Bounded(6))]),
    };
    let bound = placements(&c, &[(Stage::Compute, &shader)]).unwrap_or_else(|e| panic!("{e:#}"));
    let elements: Vec<(ResRef, u32)> = bound.places.iter().map(|p| (p.res, p.element)).collect();
    assert_eq!(
        elements,
        [
            (ResRef::Texture(0), 2),
            (ResRef::Texture(1), 3),
            (ResRef::Texture(2), 4),
            (ResRef::Texture(3), 5)
        ]
    );
    assert_eq!(layout_at(&bound, 0, 0).count, 6);

    // A range the case has nothing in is an error that names the range.
    let c = case(&with(&format!("{SHARED}{OUT}"), ""));
    let e = match placements(&c, &[(Stage::Compute, &shader)]) {
        Ok(b) => panic!("placed {b:?}"),
        Err(e) => format!("{e:#}"),
    };
    assert!(e.contains("uses t10..t13:space1 (set 0, binding 0"), "{e}");
}

#[test]
fn arrays_without_a_table() {
    // Reflection alone (the translator's own map): the resources land at their elements and the
    // binding is as large as the shader declares it.
    let text = format!(
        "dispatch = [1, 1, 1]\n[shader]\ndxbc = \"x.dxbc\"\n{}\
         [[buffer]]\nregister = \"u0\"\nkind = \"raw\"\nsize = 4\n\
         [[expect]]\nbuffer = \"u0\"\nvalues = [0]\n",
        space1_textures()
    );
    let c = case(&text);
    let shader = CompiledShader {
        spirv: Vec::new(),
        entry_point: "main".into(),
        bindings: Some(vec![srv_range(Count::Unbounded, 1, Count::Bounded(8))]),
    };
    let bound = placements(&c, &[(Stage::Compute, &shader)]).unwrap_or_else(|e| panic!("{e:#}"));
    let l = layout_at(&bound, 0, 0);
    assert_eq!((l.count, l.partially_bound), (8, true));
    assert_eq!(bound.places.iter().map(|p| p.element).max(), Some(4));
    // SM 5.0 resources stay single descriptors.
    let single = CompiledShader {
        bindings: Some(vec![srv_range(Count::Bounded(1), 0, Count::Bounded(1))]),
        ..shader
    };
    let bound = placements(&c, &[(Stage::Compute, &single)]).unwrap_or_else(|e| panic!("{e:#}"));
    let l = layout_at(&bound, 0, 0);
    assert_eq!((l.count, l.partially_bound), (1, false));
    assert_eq!(bound.places.len(), 1);
}
