//! More complete modules for the less common helpers: 64-bit floats, composite, null and undef
//! constants, OpPhi, carries, bit fields, a storage image, workgroup memory with a barrier and an
//! atomic through the generic emitter, and a function declaration (Linkage).

use spirv::{
    BuiltIn, Capability, Decoration, Dim, ExecutionModel, FunctionControl, ImageFormat,
    ImageOperands, LinkageType, Op, SelectionControl, StorageClass,
};

use super::tools::{check_snapshot, is_valid, validate};
use crate::spv::{Id, ImageType, Module, Version};

/// A GLCompute shader, local size 64x1x1, using the helpers the first modules do not.
fn misc_compute(m: &mut Module) {
    m.capability(Capability::Shader);
    m.capability(Capability::ImageQuery);
    let void = m.type_void();
    let u32_t = m.type_u32();
    let i32_t = m.type_i32();
    let f32_t = m.type_f32();
    let f64_t = m.type_float(64);
    let bool_t = m.type_bool();
    let uvec3 = m.type_vector(u32_t, 3);
    let uvec4 = m.type_vector(u32_t, 4);
    let ivec2 = m.type_vector(i32_t, 2);
    let carry_ty = m.type_struct(&[u32_t, u32_t]);

    let image_ty = m.type_image(&ImageType {
        sampled_type: u32_t,
        dim: Dim::Dim2D,
        depth: 0,
        arrayed: false,
        multisampled: false,
        sampled: 2,
        format: ImageFormat::R32ui,
        access: None,
    });
    let img = m.global_variable(StorageClass::UniformConstant, image_ty, None);
    m.decorate_binding(img, 0, 0);
    m.name(img, "img");
    let wg_ty = m.type_array_len(u32_t, 64);
    let wg = m.global_variable(StorageClass::Workgroup, wg_ty, None);
    m.name(wg, "wg");
    let lid = m.global_variable(StorageClass::Input, uvec3, None);
    m.decorate_builtin(lid, BuiltIn::LocalInvocationId);
    let p_wg = m.type_pointer(StorageClass::Workgroup, u32_t);

    let main_ty = m.type_function(void, &[]);
    let main = m.begin_function(main_ty, FunctionControl::NONE);
    let interface: Vec<Id> = m.interface_variables().collect();
    m.entry_point(ExecutionModel::GLCompute, main, "main", &interface);
    m.local_size(main, 64, 1, 1);
    m.new_block();
    let l = m.load(uvec3, lid);
    let x = m.composite_extract(u32_t, l, &[0]);
    // Workgroup memory, a barrier, an atomic through the generic emitter.
    let slot = m.access_chain(p_wg, wg, &[x]);
    m.store(slot, x);
    let workgroup = m.constant_u32(spirv::Scope::Workgroup as u32);
    let semantics =
        spirv::MemorySemantics::ACQUIRE_RELEASE | spirv::MemorySemantics::WORKGROUP_MEMORY;
    let semantics = m.constant_u32(semantics.bits());
    m.control_barrier(workgroup, workgroup, semantics);
    let c0 = m.constant_u32(0);
    let first = m.access_chain(p_wg, wg, &[c0]);
    let old = m.emit(Op::AtomicIAdd, u32_t, &[first, workgroup, semantics, x]);
    // Carries and bit fields.
    let carry = m.i_add_carry(carry_ty, old, x);
    let sum = m.composite_extract(u32_t, carry, &[0]);
    let c = m.composite_extract(u32_t, carry, &[1]);
    let c4 = m.constant_u32(4);
    let c8 = m.constant_u32(8);
    let field = m.bit_field_u_extract(u32_t, sum, c4, c8);
    let ins = m.bit_field_insert(u32_t, sum, c, c8, c4);
    let bits = m.bit_count(u32_t, ins);
    let rev = m.bit_reverse(u32_t, field);
    // 64-bit floats.
    let f = m.convert_u_to_f(f32_t, bits);
    let d = m.f_convert(f64_t, f);
    let two = m.constant_f64(2.0);
    let d2 = m.f_mul(f64_t, d, two);
    let back = m.f_convert(f32_t, d2);
    let as_int = m.convert_f_to_u(u32_t, back);
    // Composite, null and undef constants; shuffles and dynamic indexing.
    let parts = [1, 2, 3, 4].map(|v| m.constant_u32(v));
    let k = m.constant_composite(uvec4, &parts);
    let zero4 = m.constant_null(uvec4);
    let junk = m.undef(uvec4);
    let v = m.vector_insert_dynamic(uvec4, k, as_int, c0);
    let v = m.vector_shuffle(uvec4, v, zero4, &[0, 5, 2, 7]);
    let v = m.vector_shuffle(uvec4, v, junk, &[0, 1, 2, 3]);
    let c3 = m.constant_u32(3);
    let lane = m.bitwise_and(u32_t, x, c3);
    let picked = m.vector_extract_dynamic(u32_t, v, lane);
    // A selection whose merge takes a phi.
    let odd_bit = m.constant_u32(1);
    let low = m.bitwise_and(u32_t, picked, odd_bit);
    let is_odd = m.i_not_equal(bool_t, low, c0);
    let [then, otherwise, merge] = [(); 3].map(|()| m.alloc_id());
    m.selection_merge(merge, SelectionControl::NONE);
    m.branch_conditional(is_odd, then, otherwise);
    m.label(then);
    let t = m.i_add(u32_t, picked, rev);
    m.branch(merge);
    m.label(otherwise);
    let e = m.select(u32_t, is_odd, rev, picked);
    m.branch(merge);
    m.label(merge);
    let joined = m.phi(u32_t, &[(t, then), (e, otherwise)]);
    // The storage image: size query, read and write.
    let image = m.load(image_ty, img);
    let size = m.image_query_size(ivec2, image);
    let xi = m.bitcast(i32_t, x);
    let zero_i = m.constant_i32(0);
    let coord = m.composite_construct(ivec2, &[xi, zero_i]);
    let wrapped = m.s_mod(ivec2, coord, size);
    let texel = m.image_op(
        Op::ImageRead,
        uvec4,
        image,
        wrapped,
        None,
        ImageOperands::NONE,
        &[],
    );
    let out = m.vector_insert_dynamic(uvec4, texel, joined, c0);
    m.image_write(image, wrapped, out, ImageOperands::NONE, &[]);
    m.ret();
    m.end_function();
}

#[test]
fn misc_compute_is_valid() {
    for version in [Version::V1_0, Version::V1_3, Version::V1_6] {
        let mut m = Module::new(version);
        misc_compute(&mut m);
        let words = m.finish().expect("valid module");
        if version <= Version::V1_3 {
            validate(&words, "vulkan1.1");
        }
        validate(&words, "vulkan1.3");
        if version == Version::V1_3 {
            check_snapshot("misc_compute_1_3", &words);
        }
    }
}

#[test]
fn function_declarations_come_before_definitions() {
    let mut m = Module::new(Version::V1_3);
    m.capability(Capability::Shader);
    m.capability(Capability::Linkage);
    let u32_t = m.type_u32();
    let fn_ty = m.type_function(u32_t, &[u32_t]);
    let imported = m.declare_function(fn_ty, FunctionControl::NONE);
    // LinkageAttributes: the literal string "ext" (one word), then the linkage type.
    let name = u32::from_le_bytes(*b"ext\0");
    let linkage = [name, LinkageType::Import as u32];
    m.decorate(imported, Decoration::LinkageAttributes, &linkage);
    let f = m.begin_function(fn_ty, FunctionControl::NONE);
    let p = m.function_params()[0];
    m.new_block();
    let r = m.function_call(u32_t, imported, &[p]);
    m.ret_value(r);
    m.end_function();
    m.name(f, "caller");
    let words = m.finish().expect("valid module");
    validate(&words, "spv1.3");
    let ops = super::unit::instructions(&words);
    let functions: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, (op, _))| *op == Op::Function as u32)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(functions.len(), 2);
    // The declaration (no label before its OpFunctionEnd) comes first.
    assert_eq!(ops[functions[0] + 2].0, Op::FunctionEnd as u32);
    // Vulkan forbids Linkage: the validator must see the difference.
    if let Some(ok) = is_valid(&words, "vulkan1.1") {
        assert!(!ok, "spirv-val accepted Linkage under Vulkan rules");
    }
}
