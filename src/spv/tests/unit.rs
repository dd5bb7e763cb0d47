//! Encoding, section order, caches and reuse.

use spirv::{
    Capability, Decoration, Dim, ExecutionModel, FunctionControl, ImageFormat, Op, StorageClass,
};

use crate::spv::{Id, ImageType, Module, Version};

/// Splits `words` (after the header) into instructions: (opcode, operands).
pub(super) fn instructions(words: &[u32]) -> Vec<(u32, Vec<u32>)> {
    let mut out = Vec::new();
    let mut rest = &words[5..];
    while let Some(&first) = rest.first() {
        let count = (first >> 16) as usize;
        assert!(count >= 1 && count <= rest.len(), "bad word count {count}");
        out.push((first & 0xFFFF, rest[1..count].to_vec()));
        rest = &rest[count..];
    }
    out
}

fn opcodes(words: &[u32]) -> Vec<Op> {
    instructions(words)
        .into_iter()
        .map(|(op, _)| Op::from_u32(op).expect("known opcode"))
        .collect()
}

/// A void function with one empty block.
fn trivial_entry(m: &mut Module) -> Id {
    m.capability(Capability::Shader);
    let void = m.type_void();
    let fn_ty = m.type_function(void, &[]);
    let f = m.begin_function(fn_ty, FunctionControl::NONE);
    m.new_block();
    m.ret();
    m.end_function();
    m.entry_point(ExecutionModel::GLCompute, f, "main", &[]);
    m.local_size(f, 1, 1, 1);
    f
}

#[test]
fn header_has_magic_version_generator_bound_schema() {
    for (version, word) in [
        (Version::V1_0, 0x0001_0000),
        (Version::V1_3, 0x0001_0300),
        (Version::V1_5, 0x0001_0500),
        (Version::V1_6, 0x0001_0600),
    ] {
        let mut m = Module::new(version);
        trivial_entry(&mut m);
        let bound = m.bound();
        let words = m.finish().expect("valid");
        assert_eq!(words[..5], [0x0723_0203, word, 0, bound, 0]);
        assert_eq!(version.word(), word);
    }
    assert_eq!(Version::V1_4.to_string(), "1.4");
}

#[test]
fn strings_are_nul_terminated_and_padded() {
    let cases: [(&str, &[u32]); 4] = [
        ("", &[0]),
        ("abc", &[0x0063_6261]),
        ("main", &[0x6E69_616D, 0]),
        ("GLSL.std.450", &[0x4C53_4C47, 0x6474_732E, 0x3035_342E, 0]),
    ];
    for (s, expected) in cases {
        let mut m = Module::new(Version::V1_0);
        let id = m.alloc_id();
        m.name(id, s);
        let words = m.finish().expect("valid");
        let insts = instructions(&words);
        let (op, operands) = insts.last().expect("an OpName").clone();
        assert_eq!(op, Op::Name as u32);
        assert_eq!(&operands[1..], expected, "{s:?}");
    }
}

#[test]
fn sections_come_out_in_logical_layout_order() {
    let mut m = Module::new(Version::V1_3);
    // Called in scrambled order on purpose.
    let f = trivial_entry(&mut m);
    let u = m.type_u32();
    let var = m.global_variable(StorageClass::Private, u, None);
    m.decorate(var, Decoration::RelaxedPrecision, &[]);
    m.name(var, "v");
    m.ext_inst_import("GLSL.std.450");
    m.extension("SPV_KHR_some_extension");
    m.capability(Capability::Int64);
    m.name(f, "main");
    let ops = opcodes(&m.finish().expect("valid"));
    let rank = |op: Op| match op {
        Op::Capability => 0,
        Op::Extension => 1,
        Op::ExtInstImport => 2,
        Op::MemoryModel => 3,
        Op::EntryPoint => 4,
        Op::ExecutionMode => 5,
        Op::Name => 6,
        Op::Decorate => 7,
        Op::TypeVoid | Op::TypeFunction | Op::TypeInt | Op::TypePointer | Op::Variable => 8,
        _ => 9,
    };
    let ranks: Vec<u32> = ops.iter().map(|&op| rank(op)).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ops:?}");
    assert_eq!(ops.iter().filter(|&&op| op == Op::MemoryModel).count(), 1);
}

#[test]
fn identical_types_get_one_id() {
    let mut m = Module::new(Version::V1_3);
    let u = m.type_int(32, false);
    assert_eq!(u, m.type_u32());
    assert_ne!(u, m.type_i32());
    let f = m.type_f32();
    assert_eq!(m.type_vector(f, 4), m.type_vector(f, 4));
    assert_ne!(m.type_vector(f, 4), m.type_vector(f, 3));
    let v4 = m.type_vector(f, 4);
    assert_eq!(
        m.type_pointer(StorageClass::Uniform, v4),
        m.type_pointer(StorageClass::Uniform, v4)
    );
    assert_ne!(
        m.type_pointer(StorageClass::Uniform, v4),
        m.type_pointer(StorageClass::Private, v4)
    );
    assert_eq!(m.type_array_len(f, 4), m.type_array_len(f, 4));
    assert_eq!(m.type_runtime_array(u), m.type_runtime_array(u));
    let void = m.type_void();
    assert_eq!(
        m.type_function(void, &[u, f]),
        m.type_function(void, &[u, f])
    );
    assert_ne!(
        m.type_function(void, &[u, f]),
        m.type_function(void, &[f, u])
    );
    assert_ne!(m.type_function(void, &[u]), m.type_function(u, &[u]));
    let image = ImageType {
        sampled_type: f,
        dim: Dim::Dim2D,
        depth: 0,
        arrayed: false,
        multisampled: false,
        sampled: 1,
        format: ImageFormat::Unknown,
        access: None,
    };
    let img = m.type_image(&image);
    assert_eq!(img, m.type_image(&image));
    assert_ne!(
        img,
        m.type_image(&ImageType {
            arrayed: true,
            ..image
        })
    );
    assert_eq!(m.type_sampled_image(img), m.type_sampled_image(img));
    assert_eq!(m.type_sampler(), m.type_sampler());
    assert_eq!(m.type_bool(), m.type_bool());
    let words = m.finish().expect("valid");
    let types = opcodes(&words)
        .iter()
        .filter(|op| format!("{op:?}").starts_with("Type"))
        .count();
    // void, bool, u32, i32, f32, vec4, vec3, 2 pointers, array, rta, 4 functions, 2 images,
    // sampled image, sampler
    assert_eq!(types, 19);
}

#[test]
fn structs_and_unique_arrays_are_never_merged() {
    let mut m = Module::new(Version::V1_3);
    let u = m.type_u32();
    let s1 = m.type_struct(&[u]);
    let s2 = m.type_struct(&[u]);
    assert_ne!(s1, s2);
    m.decorate(s1, Decoration::Block, &[]);
    m.decorate(s2, Decoration::Block, &[]);
    let n = m.constant_u32(4);
    let shared = m.type_array(u, n);
    let a1 = m.type_array_unique(u, n);
    let a2 = m.type_array_unique(u, n);
    assert!(a1 != a2 && a1 != shared && a2 != shared);
    m.decorate_array_stride(a1, 4);
    m.decorate_array_stride(a2, 16);
    let r1 = m.type_runtime_array_unique(u);
    assert_ne!(r1, m.type_runtime_array_unique(u));
    assert_ne!(r1, m.type_runtime_array(u));
    assert!(m.finish().is_ok());
}

#[test]
fn identical_constants_get_one_id() {
    let mut m = Module::new(Version::V1_3);
    assert_eq!(m.constant_u32(5), m.constant_u32(5));
    assert_ne!(m.constant_u32(5), m.constant_i32(5));
    assert_ne!(m.constant_u32(5), m.constant_u32(6));
    assert_eq!(m.constant_f32(1.5), m.constant_f32(1.5));
    assert_ne!(m.constant_f32(0.0), m.constant_f32(-0.0));
    assert_eq!(m.constant_f64(2.0), m.constant_f64(2.0));
    assert_eq!(m.constant_bool(true), m.constant_bool(true));
    assert_ne!(m.constant_bool(true), m.constant_bool(false));
    let f = m.type_f32();
    let v2 = m.type_vector(f, 2);
    let one = m.constant_f32(1.0);
    let two = m.constant_f32(2.0);
    let a = m.constant_composite(v2, &[one, two]);
    assert_eq!(a, m.constant_composite(v2, &[one, two]));
    assert_ne!(a, m.constant_composite(v2, &[two, one]));
    assert_eq!(
        m.constant_splat(v2, one, 2),
        m.constant_composite(v2, &[one, one])
    );
    assert_eq!(m.constant_null(v2), m.constant_null(v2));
    assert_eq!(m.undef(v2), m.undef(v2));
    assert!(m.has_capability(Capability::Float64));
    let words = m.finish().expect("valid");
    // The 64-bit constant is written low word first.
    let insts = instructions(&words);
    let two_f64 = 2.0f64.to_bits();
    assert!(insts
        .iter()
        .any(|(op, o)| *op == Op::Constant as u32
            && o[2..] == [two_f64 as u32, (two_f64 >> 32) as u32]));
}

#[test]
fn capabilities_extensions_and_imports_are_declared_once() {
    let mut m = Module::new(Version::V1_0);
    m.capability(Capability::Shader);
    m.capability(Capability::Shader);
    m.extension("SPV_KHR_storage_buffer_storage_class");
    let u = m.type_u32();
    // StorageBuffer before 1.3 declares the same extension again, which is merged.
    m.type_pointer(StorageClass::StorageBuffer, u);
    let a = m.glsl_std_450();
    assert_eq!(a, m.ext_inst_import("GLSL.std.450"));
    m.type_int(64, false);
    m.type_int(64, true);
    let ops = opcodes(&m.finish().expect("valid"));
    let count = |op| ops.iter().filter(|&&o| o == op).count();
    assert_eq!(count(Op::Capability), 2); // Shader, Int64
    assert_eq!(count(Op::Extension), 1);
    assert_eq!(count(Op::ExtInstImport), 1);
}

#[test]
fn storage_buffer_extension_only_before_1_3() {
    let mut m = Module::new(Version::V1_3);
    let u = m.type_u32();
    m.type_pointer(StorageClass::StorageBuffer, u);
    let ops = opcodes(&m.finish().expect("valid"));
    assert!(!ops.contains(&Op::Extension));
}

#[test]
fn function_variables_land_at_the_start_of_the_entry_block() {
    let mut m = Module::new(Version::V1_3);
    let void = m.type_void();
    let u = m.type_u32();
    let fn_ty = m.type_function(void, &[]);
    m.begin_function(fn_ty, FunctionControl::NONE);
    let early = m.variable(u, None);
    m.new_block();
    let next = m.alloc_id();
    m.branch(next);
    m.label(next);
    let late = m.variable(u, None);
    let x = m.load(u, early);
    m.store(late, x);
    m.ret();
    m.end_function();
    let insts = instructions(&m.finish().expect("valid"));
    let body: Vec<u32> = insts
        .iter()
        .skip_while(|(op, _)| *op != Op::Function as u32)
        .map(|(op, _)| *op)
        .collect();
    let v = Op::Variable as u32;
    let expected = [
        Op::Function,
        Op::Label,
        Op::Variable,
        Op::Variable,
        Op::Branch,
        Op::Label,
    ];
    assert_eq!(body[..6], expected.map(|op| op as u32));
    assert_eq!(body.iter().filter(|&&op| op == v).count(), 2);
}

#[test]
fn function_parameters_follow_the_function_type() {
    let mut m = Module::new(Version::V1_3);
    let u = m.type_u32();
    let f = m.type_f32();
    let fn_ty = m.type_function(u, &[u, f, u]);
    m.begin_function(fn_ty, FunctionControl::INLINE);
    let params = m.function_params().to_vec();
    assert_eq!(params.len(), 3);
    m.new_block();
    m.ret_value(params[2]);
    m.end_function();
    assert!(m.function_params().is_empty());
    let insts = instructions(&m.finish().expect("valid"));
    let param_types: Vec<u32> = insts
        .iter()
        .filter(|(op, _)| *op == Op::FunctionParameter as u32)
        .map(|(_, o)| o[0])
        .collect();
    assert_eq!(param_types, [u.word(), f.word(), u.word()]);
}

#[test]
fn clear_reuses_the_module_and_gives_the_same_words() {
    let build = |m: &mut Module| {
        super::modules::compute_module(m);
        let mut out = Vec::new();
        m.write_into(&mut out).expect("valid");
        out
    };
    let mut m = Module::new(Version::V1_3);
    let first = build(&mut m);
    m.clear(Version::V1_3);
    let second = build(&mut m);
    assert_eq!(first, second);
    m.clear(Version::V1_0);
    let older = build(&mut m);
    assert_eq!(older[1], Version::V1_0.word());
}
