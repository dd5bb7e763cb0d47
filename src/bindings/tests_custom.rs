//! Caller-supplied maps ([`Bindings::Custom`], [`Bindings::from_fn`]): asked about every range
//! the built-in maps are asked about, their errors kept with range and location, compared by
//! identity.

use std::sync::{Arc, Mutex};

use super::*;
use crate::{bound_resources, translate, Error, Options};

/// A compute shader with a constant buffer, an SRV, a UAV with a counter and a sampler.
const SHADER: &str = "cs_5_0\n\
    dcl_constantbuffer cb1[2], immediateIndexed\n\
    dcl_resource_raw t3\n\
    dcl_uav_structured u2, 4\n\
    dcl_sampler s0, mode_default\n\
    dcl_temps 1\ndcl_thread_group 1, 1, 1\n\
    ld_raw r0.x, l(0), t3.xxxx\n\
    imm_atomic_alloc r0.y, u2\n\
    iadd r0.x, r0.x, cb1[1].x\n\
    store_structured u2.x, r0.y, l(0), r0.x\nret\n";

fn assemble(text: &str) -> Vec<u8> {
    crate::text::dxbc::asm::assemble(text).expect("assembles")
}

fn options(bindings: Bindings) -> Options {
    Options::default()
        .with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false)
        .with_bindings(bindings)
}

/// Set 5, binding = 10 × kind index + register: a layout no built-in map gives.
fn layout(range: &RegisterRange) -> BindingTarget {
    BindingTarget::Descriptor(VulkanBinding {
        set: 5,
        binding: 10 * range.kind.index() + range.first,
        array_offset: 0,
        descriptor_count: Count::Bounded(1),
    })
}

/// A map that records what it is asked.
#[derive(Default)]
struct Recording(Mutex<Vec<RegisterRange>>);

impl BindingMap for Recording {
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        if let Ok(mut asked) = self.0.lock() {
            asked.push(*range);
        }
        Ok(layout(range))
    }
}

#[test]
fn a_custom_map_is_asked_for_every_declaration_and_counter() {
    use ResourceKind::*;
    let map = Arc::new(Recording::default());
    let bindings = Bindings::Custom(map.clone());
    let resources = bound_resources(&assemble(SHADER), &options(bindings)).expect("binds");
    let asked = map.0.lock().expect("lock").clone();
    let one = |kind, register| RegisterRange::single(kind, 0, register);
    let expected = [
        one(ConstantBuffer, 1),
        one(ShaderResource, 3),
        one(UnorderedAccess, 2),
        one(UavCounter, 2),
        one(Sampler, 0),
    ];
    assert_eq!(asked, expected);
    // The reflection reports the map's answers: kind index 0 b, 1 t, 2 u, 3 s, 4 counter.
    let got: Vec<(ResourceKind, u32)> = resources
        .iter()
        .map(|r| (r.kind, r.target.descriptor().map_or(0, |b| b.binding)))
        .collect();
    assert_eq!(
        got,
        [
            (ConstantBuffer, 1),
            (ShaderResource, 13),
            (UnorderedAccess, 22),
            (UavCounter, 42),
            (Sampler, 30),
        ]
    );
    assert!(resources
        .iter()
        .all(|r| r.target.descriptor().is_some_and(|b| b.set == 5)));
}

#[test]
fn a_closure_map_translates_to_valid_spirv() {
    let bindings = Bindings::from_fn(|range| Ok(layout(range)));
    let t = translate(&assemble(SHADER), &options(bindings)).expect("translates");
    crate::spv::tests::tools::validate(&t.spirv, "vulkan1.1");
    assert_eq!(t.info.resources.len(), 5);
}

#[test]
fn a_callback_error_keeps_its_range_and_the_declarations_location() {
    let refused = RegisterRange::single(ResourceKind::ShaderResource, 0, 3);
    let bindings = Bindings::from_fn(move |range| {
        if *range == refused {
            Err(BindingError::Unmapped { range: *range })
        } else {
            Ok(layout(range))
        }
    });
    let bytes = assemble(SHADER);
    let e = translate(&bytes, &options(bindings)).expect_err("t3 refused");
    let Error::Binding(located) = &e else {
        panic!("not a binding error: {e}");
    };
    assert_eq!(located.what, BindingError::Unmapped { range: refused });
    assert_eq!(e.instruction(), Some("dcl_resource_raw"));
    assert!(
        e.to_string().ends_with(
            "(dcl_resource_raw): binding: t3 space0 is not mapped to any Vulkan binding"
        ),
        "{e}"
    );
    // The offset is the declaration's, as a built-in table that leaves t3 out reports it.
    let one = |kind, register| RegisterRange::single(kind, 0, register);
    let others = [
        one(ResourceKind::ConstantBuffer, 1),
        one(ResourceKind::UnorderedAccess, 2),
        one(ResourceKind::UavCounter, 2),
        one(ResourceKind::Sampler, 0),
    ];
    let table = TableBindings::one_binding_per_range(0, others).expect("table");
    let builtin = translate(&bytes, &options(Bindings::Table(table))).expect_err("no t3");
    assert_eq!(builtin.to_string(), e.to_string());
}

#[test]
fn the_class_linkage_block_is_checked_against_a_custom_maps_answers() {
    let text = "ps_5_0\ndcl_constantbuffer cb0[1], immediateIndexed\n\
                dcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
                dcl_interface fp0[1][1] = {ft0}\ndcl_output o0.xyzw\n\
                fcall fp0[0][0]\nmov o0.xyzw, cb0[0].xyzw\nret\nlabel fb0\nret\n";
    // cb0 at set 0, binding 14: where the class-linkage block is by default.
    let bindings =
        Bindings::from_fn(|_| Ok(BindingTarget::Descriptor(ClassLinkage::DEFAULT_BINDING)));
    let e = translate(&assemble(text), &options(bindings)).expect_err("clash");
    assert!(e.to_string().contains("b0 space0"), "{e}");
    assert!(e.to_string().contains("class-linkage block"), "{e}");
}

#[test]
fn custom_maps_are_equal_only_to_themselves() {
    let map: SharedBindingMap = Arc::new(Recording::default());
    let a = Bindings::Custom(map.clone());
    let b = Bindings::Custom(map);
    assert_eq!(a, b);
    assert_eq!(a.clone(), a);
    let other = Bindings::Custom(Arc::new(Recording::default()));
    assert_ne!(a, other);
    assert_ne!(a, Bindings::Auto);
    assert_eq!(
        options(a.clone()),
        options(b),
        "Options compare by the map's identity"
    );
    assert!(format!("{a:?}").starts_with("Custom(0x"), "{a:?}");
    assert_eq!(format!("{:?}", Bindings::Auto), "Auto");
    // A custom map is not resolved away.
    let resolved = a.resolve(crate::ir::Stage::Pixel, None).expect("resolves");
    assert_eq!(*resolved, a);
}
