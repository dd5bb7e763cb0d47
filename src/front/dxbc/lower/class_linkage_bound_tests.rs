//! Class linkage with the instances bound at translation time ([`ClassLinkage::bound`]).
//! Expected values follow the D3D11 rules: `fcall fp#[i][site]` calls body `site` of the table
//! of the instance bound to slot `fp# + i`; `this[s]` is that instance's (offset, `cb#`, first
//! `t#`, first `s#`); fxc's class methods index `t[this.z + k]`, `s[this.w + k]`,
//! `cb[this.y][this.x + k]`.

use crate::bindings::{ClassInstance, ClassLinkage, ResourceKind};
use crate::ir::{self, Op, Reg};
use crate::{translate, translate_to_ir, Error, ErrorKind, Options};

/// `fp0[1][2]` over ft0 = {fb0, fb2}, ft1 = {fb1, fb3}; `fp1[3][1]` (dynamically indexed)
/// over ft2 = {fb4}, ft3 = {fb5}: 4 slots.
const SHADER: &str = "ps_5_0\n\
    dcl_constantbuffer cb0[1], immediateIndexed\n\
    dcl_function_body fb0\ndcl_function_body fb1\ndcl_function_body fb2\n\
    dcl_function_body fb3\ndcl_function_body fb4\ndcl_function_body fb5\n\
    dcl_function_table ft0 = {fb0, fb2}\ndcl_function_table ft1 = {fb1, fb3}\n\
    dcl_function_table ft2 = {fb4}\ndcl_function_table ft3 = {fb5}\n\
    dcl_interface fp0[1][2] = {ft0, ft1}\n\
    dcl_interface_dynamicindexed fp1[3][1] = {ft2, ft3}\n\
    dcl_output o0.xyzw\ndcl_temps 2\n\
    fcall fp0[0][1]\n\
    fcall fp1[1][0]\n\
    mov r1.x, cb0[0].x\n\
    fcall fp1[r1.x + 0][0]\n\
    mov o0.xyzw, r0.xyzw\nret\n\
    label fb0\nret\nlabel fb1\nret\nlabel fb2\nmov r0.xyzw, l(2,2,2,2)\nret\n\
    label fb3\nmov r0.xyzw, l(3,3,3,3)\nret\n\
    label fb4\nmov r0.xyzw, this[2].xyzw\nret\n\
    label fb5\nmov r0.xyzw, this[3].wzyx\nret\n";

fn assemble(text: &str) -> Vec<u8> {
    crate::text::dxbc::asm::assemble(text).expect("assembles")
}

fn instance(table: u32, cb: u32, offset: u32, texture: u32, sampler: u32) -> ClassInstance {
    ClassInstance {
        table,
        constant_buffer: cb,
        constant_offset: offset,
        base_texture: texture,
        base_sampler: sampler,
    }
}

fn options(instances: Vec<Option<ClassInstance>>) -> Options {
    Options::default()
        .with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false)
        .with_class_linkage(ClassLinkage::bound(instances))
}

/// Slot 0: ft1; slot 1: none; slot 2: ft2 with data (5, 1, 7, 2); slot 3: ft3.
fn instances() -> Vec<Option<ClassInstance>> {
    vec![
        Some(ClassInstance::new(1)),
        None,
        Some(instance(2, 1, 5, 7, 2)),
        Some(instance(3, 4, 9, 11, 6)),
    ]
}

fn lowered(text: &str, instances: Vec<Option<ClassInstance>>) -> ir::Module {
    translate_to_ir(&assemble(text), &options(instances)).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str, instances: Vec<Option<ClassInstance>>) -> Error {
    match translate_to_ir(&assemble(text), &options(instances)) {
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

fn ops(m: &ir::Module, f: ir::FunctionId) -> Vec<Op> {
    m.body(f).iter().map(|i| i.op).collect()
}

#[test]
fn calls_go_straight_to_the_bound_tables_bodies_and_there_is_no_block() {
    let m = lowered(SHADER, instances());
    assert!(m.class_linkage.is_none());
    assert_eq!(m.cbuffers.len(), 1, "only cb0");
    let main = m.body(ir::FunctionId::new(0));
    // fp0[0][1]: slot 0 is ft1, site 1 → fb3. fp1[1][0]: slot 2 is ft2, site 0 → fb4.
    assert_eq!(main[0].op, Op::Call);
    assert_eq!(main[0].src()[0].reg, Reg::Function(body_function(&m, 3)));
    assert_eq!(main[1].op, Op::Call);
    assert_eq!(main[1].src()[0].reg, Reg::Function(body_function(&m, 4)));
    assert_eq!(main[2].op, Op::Mov);
    let t = translate(&assemble(SHADER), &options(instances())).expect("translates");
    crate::spv::tests::tools::validate(&t.spirv, "vulkan1.1");
    assert!(t.info.resources.iter().all(|r| r.register != 14));
}

#[test]
fn another_instance_table_calls_other_bodies() {
    let other = vec![
        Some(ClassInstance::new(0)),
        None,
        Some(ClassInstance::new(3)),
    ];
    let m = lowered(SHADER, other);
    let main = m.body(ir::FunctionId::new(0));
    // Slot 0 is ft0, site 1 → fb2; slot 2 is ft3, site 0 → fb5.
    assert_eq!(main[0].src()[0].reg, Reg::Function(body_function(&m, 2)));
    assert_eq!(main[1].src()[0].reg, Reg::Function(body_function(&m, 5)));
}

#[test]
fn a_slot_without_an_instance_calls_nothing() {
    let m = lowered(SHADER, vec![None, None, None, None]);
    let main = ops(&m, ir::FunctionId::new(0));
    assert_eq!(main, [Op::Mov, Op::Mov, Op::Ret]);
}

#[test]
fn a_dynamically_indexed_interface_switches_over_the_slots_with_instances() {
    let m = lowered(SHADER, instances());
    let main = m.body(ir::FunctionId::new(0));
    let at = main
        .iter()
        .position(|i| i.op == Op::Switch)
        .expect("switch");
    // fp1[r1.x]: r1.x = k selects slot 1 + k; slot 1 has no instance, slots 2 and 3 do.
    assert_eq!(main[at].src()[0].reg, Reg::Temp(1));
    assert_eq!(main[at].src()[0].swizzle, [0; 4]);
    let cases: Vec<(Reg, Reg)> = main[at..]
        .windows(2)
        .filter(|w| w[0].op == Op::Case)
        .map(|w| (w[0].src()[0].reg, w[1].src()[0].reg))
        .collect();
    assert_eq!(
        cases,
        [
            (Reg::Imm32([1; 4]), Reg::Function(body_function(&m, 4))),
            (Reg::Imm32([2; 4]), Reg::Function(body_function(&m, 5))),
        ]
    );
}

#[test]
fn this_reads_the_bound_instances_data_as_constants() {
    let m = lowered(SHADER, instances());
    // Slot 2: (offset 5, cb1, t7, s2); slot 3: (9, cb4, t11, s6) read .wzyx.
    let fb4 = m.body(body_function(&m, 4));
    assert_eq!(fb4[0].src()[0].reg, Reg::Imm32([5, 1, 7, 2]));
    assert_eq!(fb4[0].src()[0].swizzle, [0, 1, 2, 3]);
    let fb5 = m.body(body_function(&m, 5));
    assert_eq!(fb5[0].src()[0].reg, Reg::Imm32([6, 11, 4, 9]));
    assert_eq!(fb5[0].src()[0].swizzle, [0, 1, 2, 3]);
    // A slot without an instance reads zeros.
    let none = lowered(SHADER, vec![Some(ClassInstance::new(1))]);
    let fb4 = none.body(body_function(&none, 4));
    assert_eq!(fb4[0].src()[0].reg, Reg::Imm32([0; 4]));
}

/// fxc's class method: the texture and sampler at the instance's bases, its data in a cbuffer.
const METHOD: &str = "ps_5_0\n\
    dcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
    dcl_interface fp0[1][1] = {ft0}\n\
    dcl_input_ps linear v0.xy\ndcl_output o0.xyzw\ndcl_temps 3\n\
    fcall fp0[0][0]\nret\n\
    label fb0\n\
    mov r0.zw, this[0].zzzw\n\
    sample_indexable(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t[r0.z + 1].xyzw, \
    s[r0.w + 0]\n\
    mov r2.xy, this[0].yxyy\n\
    add o0.xyzw, r1.xyzw, cb[r2.x + 0][r2.y + 2].xyzw\n\
    ret\n";

#[test]
fn this_indexed_registers_resolve_to_static_registers() {
    // this[0] = (offset 3, cb2, t5, s1): t[5 + 1] = t6, s[1 + 0] = s1, cb2[3 + 2] = cb2[5].
    let m = lowered(METHOD, vec![Some(instance(0, 2, 3, 5, 1))]);
    let declared: Vec<(ResourceKind, u32)> = m
        .register_ranges()
        .iter()
        .map(|r| (r.kind, r.first))
        .collect();
    assert_eq!(
        declared,
        [
            (ResourceKind::ConstantBuffer, 2),
            (ResourceKind::ShaderResource, 6),
            (ResourceKind::Sampler, 1),
        ]
    );
    let fb0 = m.body(body_function(&m, 0));
    assert!(!fb0.iter().any(|i| i.op == Op::Switch), "no switch");
    let add = fb0.iter().find(|i| i.op == Op::Add).expect("add");
    let cb = add.src()[1].reg;
    assert!(
        matches!(cb, Reg::ConstantBuffer { slot, .. } if slot.imm == 2 && slot.rel().is_some()),
        "{cb:?}"
    );
    let t = translate(
        &assemble(METHOD),
        &options(vec![Some(instance(0, 2, 3, 5, 1))]),
    )
    .expect("translates");
    crate::spv::tests::tools::validate(&t.spirv, "vulkan1.1");
}

#[test]
fn a_register_written_since_or_across_control_flow_keeps_the_switch() {
    let changed = METHOD.replace(
        "mov r0.zw, this[0].zzzw\n",
        "mov r0.zw, this[0].zzzw\niadd r0.z, r0.z, l(1)\n",
    );
    // r0.z is no longer known: t[r0.z + 1] switches; s[r0.w] alone would not, but two
    // dynamic operands of which one is unknown are unsupported as without instances.
    let e = error(&changed, vec![Some(ClassInstance::new(0))]);
    assert_eq!(e.kind(), ErrorKind::Unsupported, "{e}");
    let across = "ps_5_0\n\
        dcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
        dcl_interface fp0[1][1] = {ft0}\n\
        dcl_output o0.xyzw\ndcl_temps 1\n\
        fcall fp0[0][0]\nret\n\
        label fb0\nmov r0.x, this[0].z\nif_nz r0.x\n\
        ld_indexable(texture2d)(float,float,float,float) o0.xyzw, l(0,0,0,0), t[r0.x + 0].xyzw\n\
        endif\nret\n";
    let m = lowered(across, vec![Some(instance(0, 0, 0, 4, 0))]);
    let fb0 = m.body(body_function(&m, 0));
    assert!(fb0.iter().any(|i| i.op == Op::Switch), "switch kept");
    assert_eq!(m.resources.len(), 128);
    // The same in straight-line code resolves to t4.
    let straight = across.replace("if_nz r0.x\n", "").replace("endif\n", "");
    let m = lowered(&straight, vec![Some(instance(0, 0, 0, 4, 0))]);
    assert_eq!(m.resources.len(), 1);
    assert_eq!(m.resources[0].range.first, 4);
}

#[test]
fn a_resolved_register_outside_the_api_slots_reads_nothing() {
    // t[128 + 0] does not exist in D3D11 (t0..t127).
    let m = lowered(METHOD, vec![Some(instance(0, 0, 0, 127, 0))]);
    let fb0 = m.body(body_function(&m, 0));
    assert!(!fb0.iter().any(|i| i.op == Op::Sample), "no sample of t128");
    assert!(m.resources.is_empty());
}

#[test]
fn instance_tables_that_do_not_fit_the_interfaces_are_errors_naming_the_option() {
    // ft2 is not one of fp0's tables.
    let e = error(SHADER, vec![Some(ClassInstance::new(2))]);
    assert!(matches!(e, Error::Invalid(_)), "{e}");
    assert_eq!(e.instruction(), Some("Options::class_linkage"));
    assert!(
        e.to_string().contains(
            "class instance bound to interface slot 0 has table ft2, which fp0 does not list (ft0, \
             ft1)"
        ),
        "{e}"
    );
    // Slot 4 is past the shader's 4 slots.
    let mut past = instances();
    past.push(Some(ClassInstance::new(0)));
    let e = error(SHADER, past);
    assert!(matches!(e, Error::Invalid(_)), "{e}");
    assert_eq!(e.instruction(), Some("Options::class_linkage"));
    assert!(
        e.to_string()
            .contains("interface slot 4, which the shader does not declare"),
        "{e}"
    );
    // A shader without interfaces has no slot at all; an empty table fits it.
    let plain = "ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(0,0,0,0)\nret\n";
    let e = error(plain, vec![Some(ClassInstance::new(0))]);
    assert!(e.to_string().contains("it has 0 slots"), "{e}");
    lowered(plain, vec![None]);
}

#[test]
fn a_dynamically_indexed_this_is_unsupported_with_bound_instances() {
    let text = "ps_5_0\ndcl_function_body fb0\ndcl_function_table ft0 = {fb0}\n\
                dcl_interface_dynamicindexed fp0[2][1] = {ft0}\n\
                dcl_output o0.xyzw\ndcl_temps 1\nfcall fp0[0][0]\nret\n\
                label fb0\nmov o0.xyzw, this[r0.x + 0].xyzw\nret\n";
    let e = error(text, vec![Some(ClassInstance::new(0))]);
    assert_eq!(e.kind(), ErrorKind::Unsupported);
    assert!(e.to_string().contains("dynamically indexed this[]"), "{e}");
}

/// Each interface of a disassembly: (`fp#`, array length, listed tables).
fn interfaces(listing: &str) -> Vec<(u32, u32, Vec<u32>)> {
    let number = |s: &str| s.trim().trim_start_matches("ft").parse::<u32>().ok();
    listing
        .lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("dcl_interface_dynamicindexed fp")
                .or_else(|| l.strip_prefix("dcl_interface fp"))?;
            let (id, rest) = rest.split_once('[')?;
            let (len, rest) = rest.split_once(']')?;
            let (_, tables) = rest.split_once('{')?;
            let tables = tables.trim_end_matches('}').split(',').filter_map(number);
            Some((id.parse().ok()?, len.parse().ok()?, tables.collect()))
        })
        .collect()
}

/// The corpus's class-linkage blobs (those with interfaces) translate to valid SPIR-V with
/// every slot bound to its interface's first table, and again to its last, with instance data
/// (cb0 at offset 0, textures from t2, samplers from s1).
#[test]
fn corpus_class_linkage_blobs_translate_with_bound_instances() {
    let blobs = crate::test_support::corpus_blobs();
    let mut translated = 0;
    for path in &blobs {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(listing) = crate::text::dxbc::disasm::disassemble(&bytes, &Default::default())
        else {
            continue;
        };
        let declared = interfaces(&listing);
        if declared.is_empty() {
            continue;
        }
        for pick_last in [false, true] {
            let mut bound = Vec::new();
            for (id, len, tables) in &declared {
                let table = if pick_last {
                    tables.last()
                } else {
                    tables.first()
                };
                for slot in *id..id + len {
                    let slot = slot as usize;
                    if bound.len() <= slot {
                        bound.resize(slot + 1, None);
                    }
                    bound[slot] = table.map(|&t| instance(t, 0, 0, 2, 1));
                }
            }
            let options = options(bound).with_flag(
                crate::OptionFlags::VERIFY_CHECKSUM,
                !crate::test_support::has_bad_checksum(path),
            );
            let t =
                translate(&bytes, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            crate::spv::tests::tools::validate(&t.spirv, "vulkan1.1");
            // No class-linkage block (cb14).
            assert!(
                !t.info
                    .resources
                    .iter()
                    .any(|r| r.kind == ResourceKind::ConstantBuffer && r.register == 14),
                "{}",
                path.display()
            );
        }
        translated += 1;
    }
    if !blobs.is_empty() {
        // HLSLCrossCompiler's interface tests and Wine's reflection blob: 7.
        assert!(translated >= 7, "{translated} class-linkage blobs");
    }
}
