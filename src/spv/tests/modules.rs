//! Complete modules built with the API, validated with `spirv-val` (Vulkan 1.1 and 1.3 rules)
//! and compared with their SPIR-V text in `fixtures/out/spvasm/writer/*.spvasm`.

use spirv::{
    BuiltIn, Capability, Decoration, Dim, ExecutionMode, ExecutionModel, FunctionControl,
    GlslStd450Op, ImageFormat, ImageOperands, LoopControl, SelectionControl, StorageClass,
};

use super::tools::{check_snapshot, validate};
use crate::spv::{Id, ImageType, Module, Version};

/// Storage-buffer block `struct { T data[]; }` with stride 4, decorated; returns (struct, rta).
fn buffer_block(m: &mut Module, element: Id, name: &str) -> (Id, Id) {
    let rta = m.type_runtime_array_unique(element);
    m.decorate_array_stride(rta, 4);
    let block = m.type_struct(&[rta]);
    m.decorate(block, Decoration::Block, &[]);
    m.member_offset(block, 0, 0);
    m.name(block, name);
    m.member_name(block, 0, "data");
    (block, rta)
}

/// A GLCompute shader, local size 8x8x1: reads a `uint` storage buffer, does integer and float
/// math, calls a helper function, runs a loop (OpLoopMerge) and a switch without fall-through,
/// calls GLSL.std.450, and writes a `uint` and a `float` storage buffer.
pub fn compute_module(m: &mut Module) {
    m.capability(Capability::Shader);
    let void = m.type_void();
    let u32_t = m.type_u32();
    let i32_t = m.type_i32();
    let f32_t = m.type_f32();
    let bool_t = m.type_bool();
    let uvec3 = m.type_vector(u32_t, 3);

    let (in_block, _) = buffer_block(m, u32_t, "In");
    m.member_decorate(in_block, 0, Decoration::NonWritable, &[]);
    let (out_block, _) = buffer_block(m, u32_t, "Out");
    let (outf_block, _) = buffer_block(m, f32_t, "OutF");
    let src = m.global_variable(StorageClass::StorageBuffer, in_block, None);
    let dst = m.global_variable(StorageClass::StorageBuffer, out_block, None);
    let dstf = m.global_variable(StorageClass::StorageBuffer, outf_block, None);
    for (binding, (var, name)) in [(src, "src"), (dst, "dst"), (dstf, "dstf")]
        .into_iter()
        .enumerate()
    {
        m.decorate_binding(var, 0, binding as u32);
        m.name(var, name);
    }
    let gid = m.global_variable(StorageClass::Input, uvec3, None);
    m.decorate_builtin(gid, BuiltIn::GlobalInvocationId);
    m.name(gid, "gl_GlobalInvocationID");
    let p_in_u = m.type_pointer(StorageClass::Input, uvec3);
    let p_sb_u = m.type_pointer(StorageClass::StorageBuffer, u32_t);
    let p_sb_f = m.type_pointer(StorageClass::StorageBuffer, f32_t);
    assert_eq!(p_in_u, m.type_pointer(StorageClass::Input, uvec3));

    // uint mix_bits(uint a, uint b) { return (a ^ (b << 3)) + 0x9E3779B9; }
    let mix_ty = m.type_function(u32_t, &[u32_t, u32_t]);
    let mix = m.begin_function(mix_ty, FunctionControl::NONE);
    m.name(mix, "mix_bits");
    let [a, b] = [m.function_params()[0], m.function_params()[1]];
    m.new_block();
    let c3 = m.constant_u32(3);
    let shifted = m.shift_left_logical(u32_t, b, c3);
    let x = m.bitwise_xor(u32_t, a, shifted);
    let golden = m.constant_u32(0x9E37_79B9);
    let sum = m.i_add(u32_t, x, golden);
    m.ret_value(sum);
    m.end_function();

    let main_ty = m.type_function(void, &[]);
    let main = m.alloc_id();
    let interface: Vec<Id> = m.interface_variables().collect();
    m.entry_point(ExecutionModel::GLCompute, main, "main", &interface);
    m.local_size(main, 8, 8, 1);
    m.begin_function_with_id(main, main_ty, FunctionControl::NONE);
    m.name(main, "main");
    m.new_block();
    let g = m.load(uvec3, gid);
    let gx = m.composite_extract(u32_t, g, &[0]);
    let gy = m.composite_extract(u32_t, g, &[1]);
    let c64 = m.constant_u32(64);
    let row = m.i_mul(u32_t, gy, c64);
    let idx0 = m.i_add(u32_t, gx, row);
    let n = m.array_length(u32_t, src, 0);
    let c1 = m.constant_u32(1);
    let last = m.i_sub(u32_t, n, c1);
    let idx = m.glsl(u32_t, GlslStd450Op::UMin, &[idx0, last]);
    m.name(idx, "idx");
    let c0 = m.constant_u32(0);
    let p = m.access_chain(p_sb_u, src, &[c0, idx]);
    let v = m.load(u32_t, p);
    m.name(v, "v");
    // Integer math.
    let c7 = m.constant_u32(7);
    let v3 = m.i_mul(u32_t, v, c3);
    let a = m.i_add(u32_t, v3, c7);
    let a_signed = m.bitcast(i32_t, a);
    let c2i = m.constant_i32(2);
    let s = m.shift_right_arithmetic(i32_t, a_signed, c2i);
    let s_u = m.bitcast(u32_t, s);
    let b = m.function_call(u32_t, mix, &[a, s_u]);
    // Float math.
    let f = m.convert_u_to_f(f32_t, v);
    let half = m.constant_f32(0.5);
    let one = m.constant_f32(1.0);
    let fma = m.glsl(f32_t, GlslStd450Op::Fma, &[f, half, one]);
    let root = m.glsl(f32_t, GlslStd450Op::Sqrt, &[fma]);
    // Locals, declared here but placed at the start of the entry block.
    let acc = m.variable(u32_t, Some(c0));
    let i = m.variable(u32_t, Some(c0));
    let r = m.variable(u32_t, None);
    m.name(acc, "acc");
    m.name(i, "i");
    m.name(r, "r");

    // for (uint i = 0; i < (v & 7); i++) acc += i * b;
    let [header, cond, body, cont, merge] = [(); 5].map(|()| m.alloc_id());
    m.branch(header);
    m.label(header);
    m.loop_merge(merge, cont, LoopControl::NONE);
    m.branch(cond);
    m.label(cond);
    let iv = m.load(u32_t, i);
    let limit = m.bitwise_and(u32_t, v, c7);
    let more = m.u_less_than(bool_t, iv, limit);
    m.branch_conditional(more, body, merge);
    m.label(body);
    let term = m.i_mul(u32_t, iv, b);
    let accv = m.load(u32_t, acc);
    let acc2 = m.i_add(u32_t, accv, term);
    m.store(acc, acc2);
    m.branch(cont);
    m.label(cont);
    let iv2 = m.load(u32_t, i);
    let inc = m.i_add(u32_t, iv2, c1);
    m.store(i, inc);
    m.branch(header);
    m.label(merge);

    // switch (v % 4) { case 0: r = acc; case 1: r = acc + 1; case 2: r = b; default: r = ~0; }
    let c4 = m.constant_u32(4);
    let sel = m.u_mod(u32_t, v, c4);
    let [case0, case1, case2, default, sw_merge] = [(); 5].map(|()| m.alloc_id());
    m.selection_merge(sw_merge, SelectionControl::NONE);
    m.switch(sel, default, &[(0, case0), (1, case1), (2, case2)]);
    m.label(case0);
    let accv = m.load(u32_t, acc);
    m.store(r, accv);
    m.branch(sw_merge);
    m.label(case1);
    let accv = m.load(u32_t, acc);
    let acc1 = m.i_add(u32_t, accv, c1);
    m.store(r, acc1);
    m.branch(sw_merge);
    m.label(case2);
    m.store(r, b);
    m.branch(sw_merge);
    m.label(default);
    let all_ones = m.constant_u32(u32::MAX);
    m.store(r, all_ones);
    m.branch(sw_merge);
    m.label(sw_merge);

    let rv = m.load(u32_t, r);
    let pd = m.access_chain(p_sb_u, dst, &[c0, idx]);
    m.store(pd, rv);
    let c255 = m.constant_u32(255);
    let low = m.bitwise_and(u32_t, rv, c255);
    let lowf = m.convert_u_to_f(f32_t, low);
    let mx = m.glsl(f32_t, GlslStd450Op::FMax, &[root, lowf]);
    let pf = m.access_chain(p_sb_f, dstf, &[c0, idx]);
    m.store(pf, mx);
    // if (v == 0) dstf[idx] = -mx;
    let is_zero = m.i_equal(bool_t, v, c0);
    let [then, if_merge] = [(); 2].map(|()| m.alloc_id());
    m.selection_merge(if_merge, SelectionControl::NONE);
    m.branch_conditional(is_zero, then, if_merge);
    m.label(then);
    let neg = m.f_negate(f32_t, mx);
    m.store(pf, neg);
    m.branch(if_merge);
    m.label(if_merge);
    m.ret();
    m.end_function();
}

/// A fragment shader: a sampled image with a separate sampler, a uniform block with an
/// `ArrayStride` array, a discard in a selection, and a vec4 output.
fn fragment_module(m: &mut Module) {
    m.capability(Capability::Shader);
    let void = m.type_void();
    let f32_t = m.type_f32();
    let u32_t = m.type_u32();
    let bool_t = m.type_bool();
    let vec2 = m.type_vector(f32_t, 2);
    let vec4 = m.type_vector(f32_t, 4);
    let color = m.global_variable(StorageClass::Input, vec4, None);
    m.decorate_location(color, 0);
    let uv = m.global_variable(StorageClass::Input, vec2, None);
    m.decorate_location(uv, 1);
    let out = m.global_variable(StorageClass::Output, vec4, None);
    m.decorate_location(out, 0);
    let image_ty = m.type_image(&ImageType {
        sampled_type: f32_t,
        dim: Dim::Dim2D,
        depth: 0,
        arrayed: false,
        multisampled: false,
        sampled: 1,
        format: ImageFormat::Unknown,
        access: None,
    });
    let sampler_ty = m.type_sampler();
    let sampled_ty = m.type_sampled_image(image_ty);
    let tex = m.global_variable(StorageClass::UniformConstant, image_ty, None);
    m.decorate_binding(tex, 0, 0);
    let smp = m.global_variable(StorageClass::UniformConstant, sampler_ty, None);
    m.decorate_binding(smp, 0, 1);
    let c4 = m.constant_u32(4);
    let scales = m.type_array_unique(vec4, c4);
    m.decorate_array_stride(scales, 16);
    let cb_ty = m.type_struct(&[scales, u32_t]);
    m.decorate(cb_ty, Decoration::Block, &[]);
    m.member_offset(cb_ty, 0, 0);
    m.member_offset(cb_ty, 1, 64);
    let cb = m.global_variable(StorageClass::Uniform, cb_ty, None);
    m.decorate_binding(cb, 0, 2);
    m.name(cb, "cb");

    let main_ty = m.type_function(void, &[]);
    let main = m.begin_function(main_ty, FunctionControl::NONE);
    let interface: Vec<Id> = m.interface_variables().collect();
    m.entry_point(ExecutionModel::Fragment, main, "main", &interface);
    m.execution_mode(main, ExecutionMode::OriginUpperLeft, &[]);
    m.new_block();
    let t = m.load(image_ty, tex);
    let s = m.load(sampler_ty, smp);
    let si = m.sampled_image(sampled_ty, t, s);
    let uvv = m.load(vec2, uv);
    let texel = m.image_op(
        spirv::Op::ImageSampleImplicitLod,
        vec4,
        si,
        uvv,
        None,
        ImageOperands::NONE,
        &[],
    );
    let c1 = m.constant_u32(1);
    let p_mode = m.type_pointer(StorageClass::Uniform, u32_t);
    let pm = m.access_chain(p_mode, cb, &[c1]);
    let mode = m.load(u32_t, pm);
    let c3 = m.constant_u32(3);
    let slot = m.bitwise_and(u32_t, mode, c3);
    let c0 = m.constant_u32(0);
    let p_scale = m.type_pointer(StorageClass::Uniform, vec4);
    let ps = m.access_chain(p_scale, cb, &[c0, slot]);
    let scale = m.load(vec4, ps);
    let col = m.load(vec4, color);
    let c = m.f_mul(vec4, texel, col);
    let c = m.f_mul(vec4, c, scale);
    let alpha = m.composite_extract(f32_t, c, &[3]);
    let half = m.constant_f32(0.5);
    let low = m.f_ord_less_than(bool_t, alpha, half);
    let [discard, merge] = [(); 2].map(|()| m.alloc_id());
    m.selection_merge(merge, SelectionControl::NONE);
    m.branch_conditional(low, discard, merge);
    m.label(discard);
    m.kill();
    m.label(merge);
    let one = m.constant_f32(1.0);
    let one4 = m.constant_splat(vec4, one, 4);
    let rgb1 = m.vector_shuffle(vec4, c, one4, &[0, 1, 2, 7]);
    m.store(out, rgb1);
    m.ret();
    m.end_function();
}

fn build(version: Version, f: fn(&mut Module)) -> Vec<u32> {
    let mut m = Module::new(version);
    f(&mut m);
    match m.finish() {
        Ok(words) => words,
        Err(e) => panic!("building the module failed: {e}"),
    }
}

#[test]
fn compute_spirv_1_0_is_valid() {
    let words = build(Version::V1_0, compute_module);
    validate(&words, "vulkan1.1");
    validate(&words, "vulkan1.3");
    check_snapshot("compute_1_0", &words);
}

#[test]
fn compute_spirv_1_3_is_valid() {
    let words = build(Version::V1_3, compute_module);
    validate(&words, "vulkan1.1");
    validate(&words, "vulkan1.3");
    check_snapshot("compute_1_3", &words);
}

#[test]
fn compute_spirv_1_5_and_1_6_are_valid() {
    // From 1.4 on the entry point lists the storage buffers too.
    let words = build(Version::V1_5, compute_module);
    validate(&words, "vulkan1.2");
    validate(&words, "vulkan1.3");
    check_snapshot("compute_1_5", &words);
    let words = build(Version::V1_6, compute_module);
    validate(&words, "vulkan1.3");
    check_snapshot("compute_1_6", &words);
}

#[test]
fn fragment_is_valid() {
    let words = build(Version::V1_3, fragment_module);
    validate(&words, "vulkan1.1");
    validate(&words, "vulkan1.3");
    check_snapshot("fragment_1_3", &words);
    let words = build(Version::V1_6, fragment_module);
    validate(&words, "vulkan1.3");
}

#[test]
fn compute_without_names_is_valid_and_smaller() {
    let named = build(Version::V1_3, compute_module);
    let mut m = Module::new(Version::V1_3);
    m.set_emit_names(false);
    compute_module(&mut m);
    let words = m.finish().expect("valid module");
    validate(&words, "vulkan1.1");
    assert!(words.len() < named.len());
}
