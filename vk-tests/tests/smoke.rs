//! Smoke test: one hand-assembled compute shader on the Vulkan device, results checked on the
//! host, the module checked by `spirv-val`.

use vk_tests::{gpu_or_skip, run_compute, validate, Buffer, ComputeJob, Validation};

/// Workgroup size of the shader (x).
const LOCAL_SIZE: u32 = 64;
/// Workgroups dispatched (x).
const GROUPS: u32 = 4;
/// Values written: one per invocation.
const COUNT: u32 = LOCAL_SIZE * GROUPS;
/// Written where the shader did not write, to catch missing invocations.
const SENTINEL: u32 = 0xdead_beef;

/// Minimal SPIR-V word emitter: a header, then instructions as (opcode, operands).
struct Spirv {
    words: Vec<u32>,
}

impl Spirv {
    fn new(id_bound: u32) -> Spirv {
        // Magic, version 1.3 (the Vulkan 1.1 version, needed for the StorageBuffer class),
        // generator 0, id bound, schema 0.
        Spirv {
            words: vec![0x0723_0203, 0x0001_0300, 0, id_bound, 0],
        }
    }

    fn op(&mut self, opcode: u16, operands: &[u32]) {
        let count = u32::try_from(operands.len() + 1).expect("instruction too long");
        assert!(count <= 0xffff);
        self.words.push((count << 16) | u32::from(opcode));
        self.words.extend_from_slice(operands);
    }
}

/// A literal string as SPIR-V words: UTF-8, NUL-terminated, zero-padded to a word boundary.
fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.resize((bytes.len() + 1).div_ceil(4) * 4, 0);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `out[gid.x] = gid.x * 3 + 7`, local size 64, `out` a runtime array of uint in a
/// StorageBuffer block at set 0, binding 0.
fn shader() -> Vec<u32> {
    // Opcodes.
    const CAPABILITY: u16 = 17;
    const MEMORY_MODEL: u16 = 14;
    const ENTRY_POINT: u16 = 15;
    const EXECUTION_MODE: u16 = 16;
    const DECORATE: u16 = 71;
    const MEMBER_DECORATE: u16 = 72;
    const TYPE_VOID: u16 = 19;
    const TYPE_FUNCTION: u16 = 33;
    const TYPE_INT: u16 = 21;
    const TYPE_VECTOR: u16 = 23;
    const TYPE_RUNTIME_ARRAY: u16 = 29;
    const TYPE_STRUCT: u16 = 30;
    const TYPE_POINTER: u16 = 32;
    const CONSTANT: u16 = 43;
    const VARIABLE: u16 = 59;
    const FUNCTION: u16 = 54;
    const LABEL: u16 = 248;
    const LOAD: u16 = 61;
    const COMPOSITE_EXTRACT: u16 = 81;
    const IMUL: u16 = 132;
    const IADD: u16 = 128;
    const ACCESS_CHAIN: u16 = 65;
    const STORE: u16 = 62;
    const RETURN: u16 = 253;
    const FUNCTION_END: u16 = 56;
    // Enumerants.
    const CAP_SHADER: u32 = 1;
    const ADDRESSING_LOGICAL: u32 = 0;
    const MEMORY_GLSL450: u32 = 1;
    const MODEL_GLCOMPUTE: u32 = 5;
    const MODE_LOCAL_SIZE: u32 = 17;
    const DEC_BUILTIN: u32 = 11;
    const DEC_ARRAY_STRIDE: u32 = 6;
    const DEC_OFFSET: u32 = 35;
    const DEC_BLOCK: u32 = 2;
    const DEC_DESCRIPTOR_SET: u32 = 34;
    const DEC_BINDING: u32 = 33;
    const BUILTIN_GLOBAL_INVOCATION_ID: u32 = 28;
    const SC_INPUT: u32 = 1;
    const SC_STORAGE_BUFFER: u32 = 12;
    const FUNCTION_CONTROL_NONE: u32 = 0;

    // Ids.
    let [main, gid, void, fn_void, uint, uvec3, ptr_in_uvec3, rta, block, ptr_sb_block, buf, ptr_sb_uint, c0, c3, c7, label, g, x, m, v, p] =
        std::array::from_fn::<u32, 21, _>(|i| i as u32 + 1);
    let bound = p + 1;

    let mut s = Spirv::new(bound);
    s.op(CAPABILITY, &[CAP_SHADER]);
    s.op(MEMORY_MODEL, &[ADDRESSING_LOGICAL, MEMORY_GLSL450]);
    let mut ep = vec![MODEL_GLCOMPUTE, main];
    ep.extend(string_words("main"));
    ep.push(gid);
    s.op(ENTRY_POINT, &ep);
    s.op(EXECUTION_MODE, &[main, MODE_LOCAL_SIZE, LOCAL_SIZE, 1, 1]);
    s.op(DECORATE, &[gid, DEC_BUILTIN, BUILTIN_GLOBAL_INVOCATION_ID]);
    s.op(DECORATE, &[rta, DEC_ARRAY_STRIDE, 4]);
    s.op(MEMBER_DECORATE, &[block, 0, DEC_OFFSET, 0]);
    s.op(DECORATE, &[block, DEC_BLOCK]);
    s.op(DECORATE, &[buf, DEC_DESCRIPTOR_SET, 0]);
    s.op(DECORATE, &[buf, DEC_BINDING, 0]);
    s.op(TYPE_VOID, &[void]);
    s.op(TYPE_FUNCTION, &[fn_void, void]);
    s.op(TYPE_INT, &[uint, 32, 0]);
    s.op(TYPE_VECTOR, &[uvec3, uint, 3]);
    s.op(TYPE_POINTER, &[ptr_in_uvec3, SC_INPUT, uvec3]);
    s.op(VARIABLE, &[ptr_in_uvec3, gid, SC_INPUT]);
    s.op(TYPE_RUNTIME_ARRAY, &[rta, uint]);
    s.op(TYPE_STRUCT, &[block, rta]);
    s.op(TYPE_POINTER, &[ptr_sb_block, SC_STORAGE_BUFFER, block]);
    s.op(VARIABLE, &[ptr_sb_block, buf, SC_STORAGE_BUFFER]);
    s.op(TYPE_POINTER, &[ptr_sb_uint, SC_STORAGE_BUFFER, uint]);
    s.op(CONSTANT, &[uint, c0, 0]);
    s.op(CONSTANT, &[uint, c3, 3]);
    s.op(CONSTANT, &[uint, c7, 7]);
    s.op(FUNCTION, &[void, main, FUNCTION_CONTROL_NONE, fn_void]);
    s.op(LABEL, &[label]);
    s.op(LOAD, &[uvec3, g, gid]);
    s.op(COMPOSITE_EXTRACT, &[uint, x, g, 0]);
    s.op(IMUL, &[uint, m, x, c3]);
    s.op(IADD, &[uint, v, m, c7]);
    s.op(ACCESS_CHAIN, &[ptr_sb_uint, p, buf, c0, x]);
    s.op(STORE, &[p, v]);
    s.op(RETURN, &[]);
    s.op(FUNCTION_END, &[]);
    s.words
}

#[test]
fn spirv_val_accepts_the_smoke_shader() {
    match validate(&shader(), "vulkan1.1") {
        Ok(Validation::Valid) => {}
        Ok(Validation::Skipped(reason)) => eprintln!("skipped: spirv-val ({reason})"),
        Err(e) => panic!("{e:#}"),
    }
}

#[test]
fn compute_shader_writes_gid_times_3_plus_7() {
    let gpu = match gpu_or_skip() {
        Ok(Some(gpu)) => gpu,
        Ok(None) => return, // skip printed by gpu_or_skip
        Err(e) => panic!("{e:#}"),
    };
    let info = gpu.info();
    eprintln!("device: {info}");
    eprintln!(
        "device name: {}; driver version: {} (raw {:#x}); driver info: {}",
        info.name,
        info.driver_version_string(),
        info.driver_version,
        info.driver_info.as_deref().unwrap_or("n/a")
    );

    let words = shader();
    if let Err(e) = validate(&words, "vulkan1.1") {
        panic!("{e:#}");
    }
    let initial = vec![SENTINEL; COUNT as usize];
    let out = Buffer::from_u32s(&gpu, &initial, "out").unwrap_or_else(|e| panic!("{e:#}"));
    let job = ComputeJob::new(&words, [GROUPS, 1, 1]);
    run_compute(&gpu, &job, &[&out]).unwrap_or_else(|e| panic!("{e:#}"));
    let values = out.read_u32s().unwrap_or_else(|e| panic!("{e:#}"));

    assert_eq!(values.len(), COUNT as usize);
    let wrong: Vec<String> = (0..COUNT)
        .zip(&values)
        .filter(|&(i, &got)| got != i.wrapping_mul(3).wrapping_add(7))
        .take(10)
        .map(|(i, got)| format!("out[{i}] = {got:#x}, expected {}", i * 3 + 7))
        .collect();
    assert!(
        wrong.is_empty(),
        "wrong results on {}:\n{}",
        info.name,
        wrong.join("\n")
    );
}
