//! Class linkage and dynamic resource registers, lowered and translated from fxc-syntax text.
//! Expected values follow the D3D11 rules (`fcall fp#[i][site]` calls body `site` of the table
//! bound to slot `fp# + i`; `this[s]` is slot `s`'s data) and the block layout documented in
//! `docs/runtime.md` (this data at element `s`, table index at element `slots + s`).

use crate::bindings::{BindingTarget, ClassLinkage, Count, VulkanBinding};
use crate::ir::{self, Op, Reg};
use crate::{translate, translate_to_ir, Error, Options};

/// Two interfaces: `fp0[1][2]` over tables ft0 = {fb0, fb2}, ft1 = {fb1, fb3}, and the
/// dynamically indexed array `fp1[3][1]` over ft2 = {fb4}: 4 slots.
const SHADER: &str = "ps_5_0\n\
    dcl_constantbuffer cb0[1], immediateIndexed\n\
    dcl_function_body fb0\ndcl_function_body fb1\ndcl_function_body fb2\n\
    dcl_function_body fb3\ndcl_function_body fb4\n\
    dcl_function_table ft0 = {fb0, fb2}\ndcl_function_table ft1 = {fb1, fb3}\n\
    dcl_function_table ft2 = {fb4}\n\
    dcl_interface fp0[1][2] = {ft0, ft1}\n\
    dcl_interface_dynamicindexed fp1[3][1] = {ft2}\n\
    dcl_output o0.xyzw\ndcl_temps 2\n\
    fcall fp0[0][1]\n\
    mov r1.x, cb0[0].x\n\
    fcall fp1[r1.x + 0][0]\n\
    mov o0.xyzw, r0.xyzw\nret\n\
    label fb0\nret\nlabel fb1\nret\nlabel fb2\nmov r0.xyzw, l(2,2,2,2)\nret\n\
    label fb3\nmov r0.xyzw, l(3,3,3,3)\nret\n\
    label fb4\nmov r0.xyzw, this[1].xyzw\nret\n";

fn assemble(text: &str) -> Vec<u8> {
    crate::text::dxbc::asm::assemble(text).expect("assembles")
}

fn options() -> Options {
    Options::default().with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false)
}

fn lowered(text: &str) -> ir::Module {
    translate_to_ir(&assemble(text), &options()).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> Error {
    match translate_to_ir(&assemble(text), &options()) {
        Ok(m) => panic!("translated:\n{}", ir::print(&m)),
        Err(e) => e,
    }
}

/// The function whose `label fb#` is `body`.
fn body_function(m: &ir::Module, body: u32) -> ir::FunctionId {
    let position = m
        .functions
        .iter()
        .position(|f| f.label == Some(body))
        .expect("body defined");
    ir::FunctionId::new(position as u32)
}

/// The block element a source reads, when it reads the class-linkage block.
fn block_element(m: &ir::Module, src: &ir::Src) -> Option<ir::Index> {
    let block = m.class_linkage?.cbuffer;
    match src.reg {
        Reg::ConstantBuffer { decl, slot, .. } if decl == block => Some(slot),
        _ => None,
    }
}

#[test]
fn the_block_has_two_vectors_per_interface_slot_and_is_bound_at_set_0_binding_14() {
    let m = lowered(SHADER);
    let linkage = m.class_linkage.expect("class linkage");
    // fp0 takes slot 0, fp1[3] slots 1..=3.
    assert_eq!(linkage.slots, 4);
    let block = &m.cbuffers[linkage.cbuffer.index()];
    assert_eq!(block.size, 8);
    assert_eq!(
        block.binding,
        Some(BindingTarget::Descriptor(ClassLinkage::DEFAULT_BINDING))
    );
    // cb0 is still where the D3D11 layout puts it.
    assert_eq!(
        m.cbuffers[0]
            .binding
            .and_then(|b| b.descriptor())
            .map(|b| b.binding),
        Some(0)
    );
}

#[test]
fn fcall_switches_on_the_slots_table_index_and_calls_that_tables_body_for_the_site() {
    let m = lowered(SHADER);
    let main = m.body(ir::FunctionId::new(0));
    let ops: Vec<Op> = main.iter().map(|i| i.op).collect();
    assert_eq!(
        &ops[..9],
        &[
            Op::Switch,
            Op::Case,
            Op::Call,
            Op::Break,
            Op::Case,
            Op::Call,
            Op::Break,
            Op::EndSwitch,
            Op::Mov
        ]
    );
    // Slot 0's table index: element 4 + 0, component x.
    let selector = main[0].src()[0];
    assert_eq!(block_element(&m, &selector), Some(ir::Index::imm(4)));
    assert_eq!(selector.swizzle, [0; 4]);
    // Case ft0 calls body 1 of ft0 (fb2), case ft1 body 1 of ft1 (fb3).
    assert_eq!(main[1].src()[0].reg, Reg::Imm32([0; 4]));
    assert_eq!(main[2].src()[0].reg, Reg::Function(body_function(&m, 2)));
    assert_eq!(main[4].src()[0].reg, Reg::Imm32([1; 4]));
    assert_eq!(main[5].src()[0].reg, Reg::Function(body_function(&m, 3)));
}

#[test]
fn a_dynamically_indexed_interface_reads_the_table_index_at_the_indexed_slot() {
    let m = lowered(SHADER);
    let main = m.body(ir::FunctionId::new(0));
    let switch = main
        .iter()
        .filter(|i| i.op == Op::Switch)
        .nth(1)
        .expect("second fcall");
    let index = block_element(&m, &switch.src()[0]).expect("reads the block");
    // fp1[r1.x]: slot 1 + r1.x, table index at element 4 + 1 + r1.x.
    assert_eq!(index.imm, 5);
    assert!(index.rel().is_some());
}

#[test]
fn this_reads_the_slots_data() {
    let m = lowered(SHADER);
    let fb4 = m.body(body_function(&m, 4));
    assert_eq!(fb4[0].op, Op::Mov);
    assert_eq!(block_element(&m, &fb4[0].src()[0]), Some(ir::Index::imm(1)));
}

#[test]
fn class_linkage_shaders_translate_to_valid_spirv() {
    let t = translate(&assemble(SHADER), &options()).expect("translates");
    crate::spv::tests::tools::validate(&t.spirv, "vulkan1.1");
}

#[test]
fn the_block_binding_is_the_callers_choice_and_a_clash_is_an_error() {
    let elsewhere = VulkanBinding {
        set: 3,
        binding: 7,
        array_offset: 0,
        descriptor_count: Count::Bounded(1),
    };
    let chosen =
        options().with_class_linkage(ClassLinkage::at(BindingTarget::Descriptor(elsewhere)));
    let m = translate_to_ir(&assemble(SHADER), &chosen).expect("translates");
    let block = m.class_linkage.expect("class linkage").cbuffer;
    assert_eq!(
        m.cbuffers[block.index()].binding,
        Some(BindingTarget::Descriptor(elsewhere))
    );
    // cb0 is binding 0 of set 0 in the D3D11 layout.
    let clash = VulkanBinding {
        set: 0,
        binding: 0,
        ..elsewhere
    };
    let clashing = options().with_class_linkage(ClassLinkage::at(BindingTarget::Descriptor(clash)));
    let e = translate_to_ir(&assemble(SHADER), &clashing).unwrap_err();
    assert!(e.to_string().contains("b0 space0"), "{e}");
    assert!(e.to_string().contains("class-linkage block"), "{e}");
}

#[test]
fn shaders_without_interfaces_have_no_block() {
    let m = lowered("ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(0,0,0,0)\nret\n");
    assert!(m.class_linkage.is_none());
    assert!(m.cbuffers.is_empty());
}

#[test]
fn malformed_class_linkage_is_invalid() {
    let cases = [
        (
            "ps_5_0\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
             dcl_interface fp0[1][1] = {ft1}\nret\nlabel fb0\nret\n",
            "ft1, which is not declared",
        ),
        (
            "ps_5_0\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
             dcl_interface fp0[1][2] = {ft0}\nret\nlabel fb0\nret\n",
            "2 call sites but ft0 has 1",
        ),
        (
            "ps_5_0\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
             dcl_interface fp0[1][1] = {ft0}\nfcall fp0[0][0]\nret\n",
            "function body fb0, which is not defined",
        ),
        (
            "ps_5_0\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
             dcl_interface fp250[4][1] = {ft0}\nret\nlabel fb0\nret\n",
            "253 interface slots",
        ),
        (
            "ps_5_0\ndcl_temps 1\nmov r0.x, this[0].x\nret\n",
            "this[] without dcl_interface",
        ),
        (
            "ps_5_0\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
             dcl_interface fp0[1][1] = {ft0}\nfcall fp0[0][1]\nret\nlabel fb0\nret\n",
            "call site 1 of fp0",
        ),
    ];
    for (text, needle) in cases {
        let e = error(text);
        assert!(matches!(e, Error::Invalid(_)), "{needle}: not invalid: {e}");
        assert!(e.to_string().contains(needle), "{needle}: {e}");
    }
}

#[test]
fn a_dynamic_texture_register_is_a_switch_over_the_128_srv_slots() {
    let text = "ps_5_0\ndcl_resource_texture2d (float,float,float,float) t3\n\
                dcl_resource_texture3d (float,float,float,float) t5\n\
                dcl_output o0.xyzw\ndcl_temps 1\n\
                ld_indexable(texture2d)(float,float,float,float) o0.xyzw, l(0,0,0,0), \
                t[r0.x + 2].xyzw\nret\n";
    let m = lowered(text);
    let main = m.body(ir::FunctionId::new(0));
    assert_eq!(main[0].op, Op::Switch);
    assert_eq!(main[0].src()[0].reg, Reg::Temp(0));
    let cases: Vec<u32> = main
        .iter()
        .filter(|i| i.op == Op::Case)
        .map(|i| match i.src()[0].reg {
            Reg::Imm32(v) => v[0],
            other => panic!("{other:?}"),
        })
        .collect();
    // t0..t127 except t5 (a 3-D texture); the value is the register minus 2.
    assert_eq!(cases.len(), 127);
    assert!(cases.contains(&3u32.wrapping_sub(2)));
    assert!(!cases.contains(&3));
    assert!(cases.contains(&0u32.wrapping_sub(2)));
    // t3 is the declared one; the others are declared as the instruction uses them.
    assert_eq!(m.resources.len(), 128);
    assert!(m.resources.iter().all(|r| r.binding.is_some()));
    let t = translate(&assemble(text), &options()).expect("translates");
    crate::spv::tests::tools::validate(&t.spirv, "vulkan1.1");
}

#[test]
fn a_dynamic_constant_buffer_register_is_a_switch_over_the_14_slots() {
    let text = "ps_5_0\ndcl_constantbuffer cb0[4], immediateIndexed\n\
                dcl_output o0.xyzw\ndcl_temps 2\n\
                mov o0.xyzw, cb[r1.y + 0][r1.x + 0].xyzw\nret\n";
    let m = lowered(text);
    assert_eq!(m.cbuffers.len(), 14);
    assert_eq!(m.cbuffers[0].size, 4);
    assert!(m.cbuffers[1..].iter().all(|c| c.size == 4096));
    let main = m.body(ir::FunctionId::new(0));
    assert_eq!(main.iter().filter(|i| i.op == Op::Case).count(), 14);
    assert_eq!(main[0].src()[0].swizzle, [1; 4]);
}

#[test]
fn unsupported_dynamic_registers_name_the_feature() {
    let two = "ps_5_0\ndcl_output o0.xyzw\ndcl_temps 1\n\
               sample_indexable(texture2d)(float,float,float,float) o0.xyzw, r0.xyxx, \
               t[r0.z + 0].xyzw, s[r0.w + 0]\nret\n";
    match error(two) {
        Error::Unsupported(e) => assert!(e.what.contains("several dynamically indexed")),
        e => panic!("{e}"),
    }
    let uav = "ps_5_0\ndcl_temps 1\nstore_raw u[r0.x + 0].x, l(0), l(0)\nret\n";
    match error(uav) {
        Error::Unsupported(e) => assert!(e.what.contains("dynamically indexed u#"), "{}", e.what),
        e => panic!("{e}"),
    }
}

#[test]
fn an_interface_listing_no_table_calls_nothing() {
    let m = lowered(
        "ps_5_0\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
         dcl_interface fp0[1][1] = {}\ndcl_output o0.xyzw\nfcall fp0[0][0]\n\
         mov o0.xyzw, l(0,0,0,0)\nret\nlabel fb0\nret\n",
    );
    let ops: Vec<Op> = m
        .body(ir::FunctionId::new(0))
        .iter()
        .map(|i| i.op)
        .collect();
    assert_eq!(ops, [Op::Mov, Op::Ret]);
}
