//! Tests of the pipeline: errors named by their stage, bindings reported under the chosen
//! map, any front end driven.

use super::*;

fn stream_output(semantic: &str) -> Options {
    Options {
        stream_output: Some(StreamOutput {
            entries: vec![StreamOutputEntry {
                semantic_name: Some(semantic.into()),
                component_count: 4,
                ..StreamOutputEntry::default()
            }],
            ..StreamOutput::default()
        }),
        ..Options::default()
    }
}

/// Stream-output errors are the caller's: an entry the signature lacks names the option,
/// a shader of the wrong stage points at its version token.
#[test]
fn stream_output_errors_say_where_they_come_from() {
    let vs = "vs_5_0\ndcl_output_siv o0.xyzw, position\nmov o0.xyzw, l(0, 0, 0, 0)\nret\n";
    let bytes = crate::text::dxbc::asm::assemble(vs).expect("assembles");
    let e = translate(&bytes, &stream_output("COLOR")).expect_err("no COLOR output");
    assert_eq!(
        (e.offset(), e.instruction()),
        (Some(0), Some("Options::stream_output"))
    );
    assert!(e
        .to_string()
        .starts_with("at 0x0 (Options::stream_output): stream output: "));

    let ps = "ps_5_0\nret\n";
    let bytes = crate::text::dxbc::asm::assemble(ps).expect("assembles");
    let e = translate(&bytes, &stream_output("SV_Position")).expect_err("pixel shader");
    let c = crate::front::dxbc::Container::parse(&bytes, &Default::default()).expect("container");
    let version_token = c.shader_chunk().expect("program").offset;
    assert_eq!(
        e.to_string(),
        format!(
            "at {version_token:#x} (SHEX): stream output is for vertex, domain and geometry \
             shaders"
        )
    );
}

/// The D3D9 state the D3D9 lowering reads does not apply to a DXBC shader: set, it is
/// refused by name rather than ignored; the default translates.
#[test]
fn d3d9_sampler_state_with_a_dxbc_shader_is_refused() {
    let bytes = crate::text::dxbc::asm::assemble("ps_5_0\nret\n").expect("assembles");
    let state = crate::d3d9_state::D3d9State {
        null_samplers: crate::d3d9_state::StateValue::Immediate(1),
        ..Default::default()
    };
    let e = translate(&bytes, &Options::default().with_d3d9_state(state)).expect_err("refused");
    assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
    assert!(
        e.to_string().contains("Options::d3d9_state.null_samplers"),
        "{e}"
    );
    translate(&bytes, &Options::default()).expect("translates");
}

/// `translate_to_ir` names the instruction too.
#[test]
fn lowering_errors_name_their_instruction() {
    let bytes = crate::text::dxbc::asm::assemble(
        "cs_5_0\ndcl_temps 70000\ndcl_thread_group 1, 1, 1\nret\n",
    )
    .expect("assembles");
    let e = translate_to_ir(&bytes, &Options::default()).expect_err("too many temps");
    assert_eq!(e.instruction(), Some("dcl_temps"));
    assert!(
        e.to_string()
            .ends_with("(dcl_temps): 70000 temps exceeds the limit 4096"),
        "{e}"
    );
}

/// A condition only a translator bug reaches is an internal error, named like the others.
#[test]
fn translator_bugs_are_internal_errors() {
    let bytes = crate::text::dxbc::asm::assemble(
        "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t0\nret\n",
    )
    .expect("assembles");
    let mut module = translate_to_ir(&bytes, &Options::default()).expect("lowers");
    module.resources[0].binding = None;
    let semantics = Semantics::default();
    let emit_options = Options::default()
        .emit_options(&semantics, module.stage)
        .expect("default options");
    let e = shader_info(&module, &emit_options, semantics)
        .expect_err("a declaration the passes left unbound");
    assert_eq!(e.kind(), crate::ErrorKind::Internal);
    let e = name(e, |at| Dxbc::name_in_bytes(&bytes, at));
    assert_eq!(e.instruction(), Some("dcl_resource"));
    assert!(
        e.to_string()
            .ends_with("(dcl_resource): internal error: declaration without a binding"),
        "{e}"
    );
}

/// `bound_resources` reports the set, binding and array size the default bindings give
/// each declared range (set = space; `b` at 0, `s` at 16, `t` at 32 + first register), and
/// an explicit D3D11 map refuses the space-1 range.
#[test]
fn bound_resources_reports_each_range_under_the_chosen_map() {
    use crate::bindings::{D3d11Bindings, VulkanBinding};
    let bytes = crate::text::dxbc::asm::assemble(
        "ps_5_1\n\
         dcl_constantbuffer CB0[0:0][4], immediateIndexed, space=1\n\
         dcl_sampler S0[3:3], mode_default, space=0\n\
         dcl_resource_texture2d (float,float,float,float) T0[4:7], space=0\n\
         dcl_resource_texture2d (float,float,float,float) T1[10:*], space=2\n\
         ret\n",
    )
    .expect("assembles");
    let resources = bound_resources(&bytes, &Options::default()).expect("binds");
    let got: Vec<_> = resources
        .iter()
        .map(|r| (r.kind, r.space, r.register, r.target.descriptor()))
        .collect();
    let at = |set, binding, count| {
        Some(VulkanBinding {
            set,
            binding,
            array_offset: 0,
            descriptor_count: count,
        })
    };
    assert_eq!(
        got,
        [
            (
                ResourceKind::ConstantBuffer,
                1,
                0,
                at(1, 0, Count::Bounded(1))
            ),
            (
                ResourceKind::ShaderResource,
                0,
                4,
                at(0, 36, Count::Bounded(4))
            ),
            (
                ResourceKind::ShaderResource,
                2,
                10,
                at(2, 42, Count::Unbounded)
            ),
            (ResourceKind::Sampler, 0, 3, at(0, 19, Count::Bounded(1))),
        ]
    );
    let d3d11 = Options::default().with_bindings(Bindings::D3d11(D3d11Bindings::default()));
    let e = bound_resources(&bytes, &d3d11).expect_err("space 1");
    assert_eq!(e.kind(), crate::ErrorKind::Binding);
}

/// A front end that decodes nothing and lowers to an error, naming offsets itself.
struct Fake<'a>(&'a [u8]);

impl<'a> FrontEnd<'a> for Fake<'a> {
    fn decode(bytes: &'a [u8], _verify_checksum: bool) -> Result<Self, Error> {
        match bytes.first() {
            Some(_) => Ok(Fake(bytes)),
            None => Err(Error::invalid(0, "empty")),
        }
    }
    fn lower(
        &self,
        _stream_output: Option<&ir::StreamOutputRequest>,
        _class_linkage: &ClassLinkage,
        _d3d9_state: &crate::d3d9_state::D3d9State,
        _arena: Vec<ir::Inst>,
    ) -> Result<ir::Module, Error> {
        Err(Error::unsupported(self.0.len() as u32 - 1, "everything"))
    }
    fn name_at(&self, _offset: u32) -> Option<&'static str> {
        Some("parsed")
    }
    fn name_in_bytes(_bytes: &[u8], _offset: u32) -> Option<&'static str> {
        Some("unparsed")
    }
}

/// The pipeline drives any front end and names each error from what the front end parsed,
/// or from the bytes when decoding failed.
#[test]
fn the_pipeline_drives_any_front_end() {
    let mut translator = Translator::new();
    let options = Options::default();
    let e = translator
        .translate_with::<Fake<'_>>(b"abc", &options)
        .expect_err("lowers to an error");
    assert_eq!(e.to_string(), "at 0x2 (parsed): unsupported: everything");
    let e = translator
        .translate_with::<Fake<'_>>(b"", &options)
        .expect_err("decodes to an error");
    assert_eq!(e.to_string(), "at 0x0 (unparsed): empty");
    let e = translate_to_ir_with::<Fake<'_>>(b"abc", &options).expect_err("lowers to an error");
    assert_eq!(e.kind(), crate::ErrorKind::Unsupported);
    assert_eq!(e.instruction(), Some("parsed"));
}

/// A D3D9 sampler whose type is a push constant has three views at one binding: reflection
/// reports the binding once (the 2-D declaration, with the cube and 3-D views beside it and
/// their reads as its usage), and the SPIR-V decorates three image variables with it.
#[cfg(feature = "d3d9")]
#[test]
fn a_runtime_typed_d3d9_sampler_is_one_binding_with_three_views() {
    use crate::d3d9_state::{D3d9State, StateValue};
    use crate::ir::Dimension;
    let text = "ps_1_1\ntex t0\ntex t1\nadd r0, t0, t1\n";
    let bytes = crate::text::d3d9::asm::assemble_bytes(text).expect("assembles");
    let state = D3d9State {
        sampler_types: StateValue::Push { offset: 0 },
        ..D3d9State::default()
    };
    let options = Options::default().with_d3d9_state(state);
    let info = bound_shader_info(&bytes, &options).expect("reflects");
    let srvs: Vec<&BoundResource> = info
        .resources
        .iter()
        .filter(|r| r.kind == ResourceKind::ShaderResource)
        .collect();
    assert_eq!(srvs.len(), 2, "{srvs:?}");
    for (r, register) in srvs.iter().zip(0..) {
        assert_eq!(r.register, register);
        assert!(matches!(
            r.shape,
            Some(ResourceShape::Typed {
                dim: Dimension::Texture2D,
                ..
            })
        ));
        assert_eq!(
            r.other_views,
            [Some(Dimension::TextureCube), Some(Dimension::Texture3D)]
        );
        assert!(r.usage.contains(ResourceUsage::READ));
    }
    assert_ne!(srvs[0].target, srvs[1].target);
    let t = translate(&bytes, &options).expect("translates");
    assert_eq!(t.info.resources, info.resources);
    // Three image variables per SRV binding, one per other binding: count the `OpDecorate
    // %v Binding n` instructions (opcode 71, 4 words, decoration 33).
    let decorations = t
        .spirv
        .windows(3)
        .filter(|w| w[0] == (4 << 16 | 71) && w[2] == 33)
        .count();
    assert_eq!(decorations, info.resources.len() - 2 + 6);
    // An immediate type: one declaration, no other views.
    let info = bound_shader_info(&bytes, &Options::default()).expect("reflects");
    assert!(info.resources.iter().all(|r| r.other_views == [None, None]));
}
