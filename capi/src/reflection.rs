//! Reflection from C: what a translator's last successful translation needs from its runtime.
//!
//! Contract: [`Reflection::new`] takes the Rust [`ShaderInfo`] (stage, workgroup size,
//! tessellation, resources with their Vulkan bindings), the container's signatures, and what
//! the SPIR-V module itself declares or does, read back from its words: the capabilities and
//! extensions to enable, and the shader-wide usage flags (`DXBC2SPV_USAGE_*`), and per Vulkan
//! binding whether it is written or used atomically (`DXBC2SPV_RESOURCE_USAGE_*`, traced from
//! each store, image write and atomic back to its variable's `DescriptorSet`/`Binding`). Strings and arrays returned stay valid until
//! the translator's next translation or its destruction.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};

use translator::back::spirv::DescriptorType;
use translator::bindings::ResourceKind;
use translator::front::dxbc::signature::Signature;
use translator::front::dxbc::{Container, ParseOptions};
use translator::ir::{ResourceShape, Stage, TessDomain, TessOutputPrimitive, TessPartitioning};
use translator::{ResourceUsage, ShaderInfo, Translation};

use crate::bindings::{dxbc2spv_binding_target, dxbc2spv_register_range, range_code, target_code};
use crate::{dxbc2spv_translator, guard, DXBC2SPV_ERROR_INVALID_ARGUMENT, DXBC2SPV_OK};

/// Stage values (D3D's `D3D11_SHADER_VERSION_TYPE`): pixel shader.
pub const DXBC2SPV_STAGE_PIXEL: u32 = 0;
/// Vertex shader.
pub const DXBC2SPV_STAGE_VERTEX: u32 = 1;
/// Geometry shader.
pub const DXBC2SPV_STAGE_GEOMETRY: u32 = 2;
/// Hull shader (tessellation control).
pub const DXBC2SPV_STAGE_HULL: u32 = 3;
/// Domain shader (tessellation evaluation).
pub const DXBC2SPV_STAGE_DOMAIN: u32 = 4;
/// Compute shader.
pub const DXBC2SPV_STAGE_COMPUTE: u32 = 5;

/// The module discards (`OpKill`, `OpDemoteToHelperInvocation`, `OpTerminateInvocation`).
pub const DXBC2SPV_USAGE_DISCARD: u32 = 1 << 0;
/// The module takes derivatives (explicit, or implicitly by sampling with implicit LOD).
pub const DXBC2SPV_USAGE_DERIVATIVES: u32 = 1 << 1;
/// The module runs per sample (sample index or position, per-sample interpolation).
pub const DXBC2SPV_USAGE_SAMPLE_RATE: u32 = 1 << 2;
/// The module writes the stencil reference (`VK_EXT_shader_stencil_export`).
pub const DXBC2SPV_USAGE_STENCIL_EXPORT: u32 = 1 << 3;
/// The module writes the viewport index.
pub const DXBC2SPV_USAGE_VIEWPORT_OUTPUT: u32 = 1 << 4;
/// The module writes the render-target array layer.
pub const DXBC2SPV_USAGE_LAYER_OUTPUT: u32 = 1 << 5;
/// The module uses atomic operations.
pub const DXBC2SPV_USAGE_ATOMICS: u32 = 1 << 6;
/// The shader uses UAV counters (a resource of kind `DXBC2SPV_RESOURCE_UAV_COUNTER`).
pub const DXBC2SPV_USAGE_UAV_COUNTERS: u32 = 1 << 7;
/// The module writes storage images or storage buffers.
pub const DXBC2SPV_USAGE_STORAGE_WRITES: u32 = 1 << 8;
/// The module writes the depth.
pub const DXBC2SPV_USAGE_DEPTH_OUTPUT: u32 = 1 << 9;

/// The resource's Vulkan binding is written (stores, image writes, atomics).
pub const DXBC2SPV_RESOURCE_USAGE_WRITTEN: u32 = 1 << 0;
/// The resource's Vulkan binding is used atomically.
pub const DXBC2SPV_RESOURCE_USAGE_ATOMIC: u32 = 1 << 1;
/// The shader reads the range (API version 3): loads, samples and gathers read their resource
/// and sampler, any constant-buffer operand its buffer, atomics that return the previous value
/// their UAV, `imm_atomic_alloc`/`_consume` the counter; queries (`resinfo`, `bufinfo`,
/// `sampleinfo`, `samplepos`, `lod`) do not. Per declared range (the Rust
/// `BoundResource::usage`), not per binding.
pub const DXBC2SPV_RESOURCE_USAGE_READ: u32 = 1 << 2;
/// Set in [`dxbc2spv_resource::usage`] when its other bits are meaningful (always, in this
/// version; a resource bound to push constants is never written).
pub const DXBC2SPV_RESOURCE_USAGE_KNOWN: u32 = 1 << 31;

/// Not an SRV or UAV.
pub const DXBC2SPV_SHAPE_NONE: u32 = 0;
/// Byte-addressed buffer.
pub const DXBC2SPV_SHAPE_RAW: u32 = 1;
/// Structured buffer (`stride` bytes per element).
pub const DXBC2SPV_SHAPE_STRUCTURED: u32 = 2;
/// Typed buffer or texture.
pub const DXBC2SPV_SHAPE_TYPED: u32 = 3;

/// The input signature.
pub const DXBC2SPV_SIGNATURE_INPUT: u32 = 0;
/// The output signature.
pub const DXBC2SPV_SIGNATURE_OUTPUT: u32 = 1;
/// The patch-constant signature.
pub const DXBC2SPV_SIGNATURE_PATCH_CONSTANT: u32 = 2;

/// What a shader is and needs. The caller sets `size` to `sizeof(dxbc2spv_shader_info)`; the
/// library fills that many bytes (fields added later go at the end).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct dxbc2spv_shader_info {
    /// In: `sizeof(dxbc2spv_shader_info)` as the caller knows it.
    pub size: u32,
    /// `DXBC2SPV_STAGE_*`.
    pub stage: u32,
    /// The SPIR-V entry point's name (static).
    pub entry_point: *const c_char,
    /// Compute shaders: the workgroup size; zeros otherwise.
    pub workgroup_size: [u32; 3],
    /// Resources (`dxbc2spv_translator_resource`).
    pub resource_count: u32,
    /// `DXBC2SPV_USAGE_*` bits.
    pub usage: u32,
    /// Hull and domain shaders: `D3D11_TESSELLATOR_DOMAIN` (1 isoline, 2 triangle, 3 quad);
    /// 0 otherwise.
    pub tess_domain: u32,
    /// Hull shaders: `DXBC2SPV_PARTITIONING_*`; 0 otherwise.
    pub tess_partitioning: u32,
    /// Hull shaders: `DXBC2SPV_OUTPUT_PRIMITIVE_*`; 0 otherwise.
    pub tess_output_primitive: u32,
    /// Control points of the input patch (hull and domain shaders).
    pub input_control_points: u32,
    /// Control points a hull shader outputs.
    pub output_control_points: u32,
    /// `dcl_hs_max_tessfactor`; 0 when not declared.
    pub max_tess_factor: f32,
    /// SPIR-V capabilities the module declares (`dxbc2spv_translator_capabilities`).
    pub capability_count: u32,
    /// SPIR-V extensions the module declares (`dxbc2spv_translator_extension`).
    pub extension_count: u32,
    /// Elements of the input signature.
    pub input_count: u32,
    /// Elements of the output signature.
    pub output_count: u32,
    /// Elements of the patch-constant signature.
    pub patch_constant_count: u32,
    /// The push-constant range the module declares (constant buffers as root constants, heap
    /// table bases): byte offset of its first byte (API version 2).
    pub push_constant_offset: u32,
    /// Bytes of the push-constant range; 0 when the module declares none (API version 2).
    pub push_constant_size: u32,
    /// Warnings and information of the translation (`dxbc2spv_translator_message`; API
    /// version 3).
    pub message_count: u32,
    /// Entries of the storage-buffer fix-up block (`dxbc2spv_translator_buffer_fixup`); 0 when
    /// the module has no such block (API version 3).
    pub buffer_fixup_count: u32,
    /// Where the fix-up block is bound, when `buffer_fixup_count` is not 0 (API version 3).
    pub buffer_fixup_block: dxbc2spv_binding_target,
}

/// One entry of the storage-buffer fix-up block (`DXBC2SPV_STRUCTURE_TYPE_BUFFER_DESCRIPTORS`'s
/// `storage_buffer_alignment`): element `i` of the block's `uvec4 data[]` (std140) belongs to
/// entry `i`; before each use the runtime writes `.x` = the view's offset in bytes from the
/// offset the buffer is bound at (the D3D view offset minus that offset rounded down to the
/// alignment), `.y` = the view's size in bytes, `.zw` = 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxbc2spv_buffer_fixup {
    /// `DXBC2SPV_RESOURCE_SRV` or `_UAV`.
    pub kind: u32,
    /// The register space.
    pub space: u32,
    /// The first register of the declared range.
    pub register_: u32,
    /// The DXBC operand id.
    pub id: u32,
}

/// One resource range the shader declares, and where it is bound.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct dxbc2spv_resource {
    /// The registers (kind, space, first, count).
    pub range: dxbc2spv_register_range,
    /// The DXBC operand id (register in SM5.0, range id in SM5.1).
    pub id: u32,
    /// `DXBC2SPV_SHAPE_*`.
    pub shape: u32,
    /// Structured buffers: bytes per element; 0 otherwise.
    pub stride: u32,
    /// The `VkDescriptorType` value the module declares (0 sampler, 2 sampled image, 3 storage
    /// image, 4 uniform texel buffer, 5 storage texel buffer, 6 uniform buffer, 7 storage buffer).
    pub descriptor_type: u32,
    /// Where it is bound.
    pub target: dxbc2spv_binding_target,
    /// `DXBC2SPV_RESOURCE_USAGE_*` bits, per Vulkan binding (ranges sharing one binding share
    /// them), read back from the module; [`DXBC2SPV_RESOURCE_USAGE_KNOWN`] says they are known.
    pub usage: u32,
}

/// One signature element.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct dxbc2spv_signature_element {
    /// The semantic name (UTF-8).
    pub semantic_name: *const c_char,
    /// The semantic index.
    pub semantic_index: u32,
    /// `D3D_NAME` (system value).
    pub system_value: u32,
    /// `D3D_REGISTER_COMPONENT_TYPE`.
    pub component_type: u32,
    /// The register; `0xffffffff` for outputs without one (`oDepth`, `oMask`).
    pub register_: u32,
    /// Components occupied (bit 0 = x).
    pub mask: u32,
    /// Inputs: components read; outputs: components never written.
    pub rw_mask: u32,
    /// Geometry-shader output stream.
    pub stream: u32,
    /// `D3D_MIN_PRECISION`.
    pub min_precision: u32,
}

/// One element as kept (its name owned).
struct Element {
    name: CString,
    element: dxbc2spv_signature_element,
}

/// The reflection a translator keeps of its last successful translation.
pub(crate) struct Reflection {
    info: ShaderInfo,
    capabilities: Vec<u32>,
    extensions: Vec<CString>,
    usage: u32,
    /// (set, binding) → `DXBC2SPV_RESOURCE_USAGE_*` bits.
    binding_usage: HashMap<(u32, u32), u32>,
    signatures: [Vec<Element>; 3],
    /// The translation's warnings.
    pub(crate) messages: Vec<crate::messages::Message>,
}

impl Reflection {
    /// The reflection of `translation`, a translation of `bytes`.
    pub(crate) fn new(bytes: &[u8], translation: &Translation) -> Reflection {
        let module = read_module(&translation.spirv);
        let counters = translation
            .info
            .resources
            .iter()
            .any(|r| r.kind == ResourceKind::UavCounter);
        let usage = module.usage
            | if counters {
                DXBC2SPV_USAGE_UAV_COUNTERS
            } else {
                0
            };
        Reflection {
            info: translation.info.clone(),
            capabilities: module.capabilities,
            extensions: module.extensions,
            usage,
            binding_usage: module.binding_usage,
            signatures: signatures(bytes),
            messages: translation
                .warnings()
                .iter()
                .map(crate::messages::Message::new)
                .collect(),
        }
    }
}

/// The three signatures of the container (empty where absent or unreadable: the translation
/// succeeded, so they were read once already).
fn signatures(bytes: &[u8]) -> [Vec<Element>; 3] {
    let parse = ParseOptions {
        verify_checksum: false,
    };
    let Ok(c) = Container::parse(bytes, &parse) else {
        return Default::default();
    };
    let elements = |s: Option<Result<Signature<'_>, _>>| -> Vec<Element> {
        let Some(Ok(s)) = s else { return Vec::new() };
        s.elements
            .iter()
            .map(|e| {
                let name = crate::c_string(e.name);
                let element = dxbc2spv_signature_element {
                    semantic_name: std::ptr::null(),
                    semantic_index: e.semantic_index,
                    system_value: e.system_value.raw(),
                    component_type: e.component_type.raw(),
                    register_: e.register,
                    mask: u32::from(e.mask),
                    rw_mask: u32::from(e.rw_mask),
                    stream: e.stream,
                    min_precision: e.min_precision.raw(),
                };
                Element { name, element }
            })
            .collect()
    };
    [
        elements(c.input_signature()),
        elements(c.output_signature()),
        elements(c.patch_constant_signature()),
    ]
}

/// What a SPIR-V module declares and does.
#[derive(Default)]
struct ModuleFacts {
    capabilities: Vec<u32>,
    extensions: Vec<CString>,
    usage: u32,
    binding_usage: HashMap<(u32, u32), u32>,
}

/// Reads the capabilities, extensions and usage flags back from a module's words (a module
/// the back end wrote; a malformed instruction ends the walk).
fn read_module(words: &[u32]) -> ModuleFacts {
    const INPUT: u32 = 1;
    const OUTPUT: u32 = 3;
    let mut facts = ModuleFacts::default();
    let mut builtins = Vec::new(); // (target id, builtin)
    let mut variables = HashMap::new(); // id → storage class
    let mut pointer_types = HashMap::new(); // type id → storage class
    let mut pointer_of = HashMap::new(); // value id → type id
    let mut stores = Vec::new(); // pointer ids stored through
    let mut base_of = HashMap::new(); // id → the pointer or image it was derived from
    let mut sets = HashMap::new(); // variable → DescriptorSet
    let mut bindings = HashMap::new(); // variable → Binding
    let mut written = Vec::new(); // pointers or images written
    let mut atomic = Vec::new(); // pointers used atomically
    let mut rest = words.get(5..).unwrap_or(&[]);
    while let Some(&first) = rest.first() {
        let count = (first >> 16) as usize;
        let Some(inst) = rest.get(..count).filter(|_| count > 0) else {
            break;
        };
        rest = rest.get(count..).unwrap_or(&[]);
        let op = first & 0xffff;
        let arg = |i: usize| inst.get(i).copied().unwrap_or(0);
        match op {
            10 => facts
                .extensions
                .push(crate::c_string(&literal(inst.get(1..).unwrap_or(&[])))),
            17 => facts.capabilities.push(arg(1)),
            // OpDecorate: BuiltIn (11), Sample (17).
            71 if arg(2) == 11 => builtins.push((arg(1), arg(3))),
            71 if arg(2) == 17 => facts.usage |= DXBC2SPV_USAGE_SAMPLE_RATE,
            71 if arg(2) == 34 => {
                sets.insert(arg(1), arg(3));
            }
            71 if arg(2) == 33 => {
                bindings.insert(arg(1), arg(3));
            }
            // OpImageTexelPointer, OpLoad, OpCopyObject, OpSampledImage: derived from operand 3.
            60 | 61 | 83 | 86 => {
                base_of.insert(arg(2), arg(3));
            }
            32 => {
                pointer_types.insert(arg(1), arg(2));
            }
            59 => {
                variables.insert(arg(2), arg(3));
                pointer_of.insert(arg(2), arg(1));
            }
            65 | 66 => {
                pointer_of.insert(arg(2), arg(1));
                base_of.insert(arg(2), arg(3));
            }
            62 => {
                stores.push(arg(1));
                written.push(arg(1));
            }
            99 => {
                facts.usage |= DXBC2SPV_USAGE_STORAGE_WRITES;
                written.push(arg(1));
            }
            // OpAtomicStore: pointer first.
            228 => {
                facts.usage |= DXBC2SPV_USAGE_ATOMICS;
                atomic.push(arg(1));
            }
            252 | 4416 | 5380 => facts.usage |= DXBC2SPV_USAGE_DISCARD,
            207..=215 | 87 | 89 | 91 | 93 | 105 | 305 | 307 | 309 | 311 => {
                facts.usage |= DXBC2SPV_USAGE_DERIVATIVES;
            }
            227..=242 | 6035 => {
                facts.usage |= DXBC2SPV_USAGE_ATOMICS;
                atomic.push(arg(3));
            }
            _ => {}
        }
    }
    if facts.capabilities.contains(&35) {
        facts.usage |= DXBC2SPV_USAGE_SAMPLE_RATE; // SampleRateShading
    }
    for (id, builtin) in builtins {
        let class = variables.get(&id).copied();
        facts.usage |= match (builtin, class) {
            (18 | 19, Some(INPUT)) => DXBC2SPV_USAGE_SAMPLE_RATE, // SampleId, SamplePosition
            (5014, Some(OUTPUT)) => DXBC2SPV_USAGE_STENCIL_EXPORT, // FragStencilRefEXT
            (10, Some(OUTPUT)) => DXBC2SPV_USAGE_VIEWPORT_OUTPUT,
            (9, Some(OUTPUT)) => DXBC2SPV_USAGE_LAYER_OUTPUT,
            (22, Some(OUTPUT)) => DXBC2SPV_USAGE_DEPTH_OUTPUT, // FragDepth
            _ => 0,
        };
    }
    // Storage buffers: StorageBuffer (12), Uniform (2: SPIR-V 1.0's BufferBlock; constant
    // buffers are never stored to), PhysicalStorageBuffer (5349).
    let storage = stores.iter().any(|p| {
        let class = pointer_of.get(p).and_then(|t| pointer_types.get(t));
        matches!(class, Some(12 | 2 | 5349))
    });
    if storage {
        facts.usage |= DXBC2SPV_USAGE_STORAGE_WRITES;
    }
    // The variable a pointer or image comes from (a bounded walk: ids never form loops in a
    // valid module, the bound keeps a malformed one harmless).
    let root = |mut id: u32| {
        for _ in 0..64 {
            match base_of.get(&id) {
                Some(&base) => id = base,
                None => break,
            }
        }
        id
    };
    let mut mark = |ids: &[u32], bit: u32| {
        for &id in ids {
            let var = root(id);
            if let (Some(&set), Some(&binding)) = (sets.get(&var), bindings.get(&var)) {
                *facts.binding_usage.entry((set, binding)).or_insert(0) |= bit;
            }
        }
    };
    mark(&written, DXBC2SPV_RESOURCE_USAGE_WRITTEN);
    mark(
        &atomic,
        DXBC2SPV_RESOURCE_USAGE_ATOMIC | DXBC2SPV_RESOURCE_USAGE_WRITTEN,
    );
    facts
}

/// A SPIR-V literal string (UTF-8, nul-terminated, little-endian in words).
fn literal(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn stage_code(stage: Stage) -> u32 {
    match stage {
        Stage::Pixel => DXBC2SPV_STAGE_PIXEL,
        Stage::Vertex => DXBC2SPV_STAGE_VERTEX,
        Stage::Geometry => DXBC2SPV_STAGE_GEOMETRY,
        Stage::Hull => DXBC2SPV_STAGE_HULL,
        Stage::Domain => DXBC2SPV_STAGE_DOMAIN,
        Stage::Compute => DXBC2SPV_STAGE_COMPUTE,
    }
}

fn descriptor_code(d: DescriptorType) -> u32 {
    match d {
        DescriptorType::Sampler => 0,
        DescriptorType::SampledImage => 2,
        DescriptorType::StorageImage => 3,
        DescriptorType::UniformTexelBuffer => 4,
        DescriptorType::StorageTexelBuffer => 5,
        DescriptorType::UniformBuffer => 6,
        DescriptorType::StorageBuffer => 7,
    }
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Reflection {
    fn shader_info(&self) -> dxbc2spv_shader_info {
        let info = &self.info;
        let tess = info.tessellation.unwrap_or_default();
        let entry_point: &std::ffi::CStr = c"main";
        debug_assert_eq!(info.entry_point, "main");
        dxbc2spv_shader_info {
            size: len32(std::mem::size_of::<dxbc2spv_shader_info>()),
            stage: stage_code(info.stage),
            entry_point: entry_point.as_ptr(),
            workgroup_size: info.workgroup_size,
            resource_count: len32(info.resources.len()),
            usage: self.usage,
            tess_domain: match tess.domain {
                None => 0,
                Some(TessDomain::Isoline) => 1,
                Some(TessDomain::Triangle) => 2,
                Some(TessDomain::Quad) => 3,
            },
            tess_partitioning: match tess.partitioning {
                None => 0,
                Some(TessPartitioning::Integer) => 1,
                Some(TessPartitioning::Pow2) => 2,
                Some(TessPartitioning::FractionalOdd) => 3,
                Some(TessPartitioning::FractionalEven) => 4,
            },
            tess_output_primitive: match tess.output_primitive {
                None => 0,
                Some(TessOutputPrimitive::Point) => 1,
                Some(TessOutputPrimitive::Line) => 2,
                Some(TessOutputPrimitive::TriangleCw) => 3,
                Some(TessOutputPrimitive::TriangleCcw) => 4,
            },
            input_control_points: tess.input_control_points,
            output_control_points: tess.output_control_points,
            max_tess_factor: tess.max_tess_factor.unwrap_or(0.0),
            capability_count: len32(self.capabilities.len()),
            extension_count: len32(self.extensions.len()),
            input_count: len32(self.signatures[0].len()),
            output_count: len32(self.signatures[1].len()),
            patch_constant_count: len32(self.signatures[2].len()),
            push_constant_offset: info.push_constants.map_or(0, |p| p.offset),
            push_constant_size: info.push_constants.map_or(0, |p| p.size),
            message_count: len32(self.messages.len()),
            buffer_fixup_count: info
                .buffer_fixups
                .as_ref()
                .map_or(0, |f| len32(f.entries.len())),
            buffer_fixup_block: info
                .buffer_fixups
                .as_ref()
                .map_or_else(Default::default, |f| target_code(&f.target)),
        }
    }
}

/// The last successful translation's reflection of `translator`.
///
/// # Safety
/// `translator` is NULL or live.
pub(crate) unsafe fn last<'a>(
    translator: *const dxbc2spv_translator,
) -> Result<&'a Reflection, c_int> {
    // SAFETY: the caller's contract.
    let t = unsafe { translator.as_ref() }.ok_or(DXBC2SPV_ERROR_INVALID_ARGUMENT)?;
    t.last.as_ref().ok_or(crate::DXBC2SPV_ERROR_NOT_AVAILABLE)
}

/// Fills `info` (up to `info->size` bytes, which the caller sets to `sizeof(*info)`) with the
/// shader info of `translator`'s last successful translation. Errors:
/// `DXBC2SPV_ERROR_INVALID_ARGUMENT` (NULL), `DXBC2SPV_ERROR_NOT_AVAILABLE` (no translation).
///
/// # Safety
/// `translator` is NULL or live; `info` is NULL or holds `info->size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_shader_info(
    translator: *const dxbc2spv_translator,
    info: *mut dxbc2spv_shader_info,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = match unsafe { last(translator) } {
            Ok(r) => r,
            Err(code) => return code,
        };
        if info.is_null() {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: `info` is writable at least for its `size` field.
        let size = unsafe { std::ptr::addr_of!((*info).size).read_unaligned() } as usize;
        let full = r.shader_info();
        let n = size.min(std::mem::size_of::<dxbc2spv_shader_info>());
        // SAFETY: `n` bytes of `full` are readable and the caller gave `size` writable bytes;
        // the size field itself is left as the caller wrote it.
        unsafe {
            std::ptr::copy_nonoverlapping(
                std::ptr::from_ref(&full).cast::<u8>(),
                info.cast::<u8>(),
                n,
            );
            if size >= 4 {
                std::ptr::addr_of_mut!((*info).size).write_unaligned(len32(size));
            }
        }
        DXBC2SPV_OK
    })
}

/// Fills `resource` with resource `index` (below `resource_count`) of the last translation.
///
/// # Safety
/// `translator` is NULL or live; `resource` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_resource(
    translator: *const dxbc2spv_translator,
    index: usize,
    resource: *mut dxbc2spv_resource,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = match unsafe { last(translator) } {
            Ok(r) => r,
            Err(code) => return code,
        };
        // SAFETY: the caller's contract.
        let Some(out) = (unsafe { resource.as_mut() }) else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        let Some(b) = r.info.resources.get(index) else {
            return crate::DXBC2SPV_ERROR_NOT_AVAILABLE;
        };
        let range = translator::bindings::RegisterRange::new(b.kind, b.space, b.register, b.count);
        let (shape, stride) = match b.shape {
            None => (DXBC2SPV_SHAPE_NONE, 0),
            Some(ResourceShape::Raw) => (DXBC2SPV_SHAPE_RAW, 0),
            Some(ResourceShape::Structured { stride }) => (DXBC2SPV_SHAPE_STRUCTURED, stride),
            Some(_) => (DXBC2SPV_SHAPE_TYPED, 0),
        };
        *out = dxbc2spv_resource {
            range: range_code(&range),
            id: b.id,
            shape,
            stride,
            descriptor_type: descriptor_code(b.descriptor),
            target: target_code(&b.target),
            usage: DXBC2SPV_RESOURCE_USAGE_KNOWN
                | if b.usage.contains(ResourceUsage::READ) {
                    DXBC2SPV_RESOURCE_USAGE_READ
                } else {
                    0
                }
                | b.target.descriptor().map_or(0, |d| {
                    r.binding_usage
                        .get(&(d.set, d.binding))
                        .copied()
                        .unwrap_or(0)
                }),
        };
        DXBC2SPV_OK
    })
}

/// Entry `index` (below `buffer_fixup_count`) of the last translation's storage-buffer fix-up
/// block. Errors: `DXBC2SPV_ERROR_INVALID_ARGUMENT` (NULL), `DXBC2SPV_ERROR_NOT_AVAILABLE` (no
/// translation, no block, or `index` past the end).
///
/// # Safety
/// `translator` is NULL or live; `fixup` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_buffer_fixup(
    translator: *const dxbc2spv_translator,
    index: usize,
    fixup: *mut dxbc2spv_buffer_fixup,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = match unsafe { last(translator) } {
            Ok(r) => r,
            Err(code) => return code,
        };
        // SAFETY: the caller's contract.
        let Some(out) = (unsafe { fixup.as_mut() }) else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        let entry = r
            .info
            .buffer_fixups
            .as_ref()
            .and_then(|f| f.entries.get(index));
        let Some(e) = entry else {
            return crate::DXBC2SPV_ERROR_NOT_AVAILABLE;
        };
        *out = dxbc2spv_buffer_fixup {
            kind: e.kind.index(),
            space: e.space,
            register_: e.register,
            id: e.id,
        };
        DXBC2SPV_OK
    })
}

/// Element `index` of signature `signature` (`DXBC2SPV_SIGNATURE_*`) of the last translation.
///
/// # Safety
/// `translator` is NULL or live; `element` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_signature_element(
    translator: *const dxbc2spv_translator,
    signature: u32,
    index: usize,
    element: *mut dxbc2spv_signature_element,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = match unsafe { last(translator) } {
            Ok(r) => r,
            Err(code) => return code,
        };
        // SAFETY: the caller's contract.
        let Some(out) = (unsafe { element.as_mut() }) else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        let Some(list) = r.signatures.get(signature as usize) else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        let Some(e) = list.get(index) else {
            return crate::DXBC2SPV_ERROR_NOT_AVAILABLE;
        };
        *out = dxbc2spv_signature_element {
            semantic_name: e.name.as_ptr(),
            ..e.element
        };
        DXBC2SPV_OK
    })
}

/// The SPIR-V capabilities (`SpvCapability` values) the last translation's module declares:
/// `*capabilities` points to `*count` of them, owned by the translator.
///
/// # Safety
/// `translator` is NULL or live; the out pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_capabilities(
    translator: *const dxbc2spv_translator,
    capabilities: *mut *const u32,
    count: *mut usize,
) -> c_int {
    guard(|| {
        // SAFETY: the caller's contract.
        let r = match unsafe { last(translator) } {
            Ok(r) => r,
            Err(code) => return code,
        };
        // SAFETY: the caller's contract.
        let (Some(caps), Some(count)) =
            (unsafe { capabilities.as_mut() }, unsafe { count.as_mut() })
        else {
            return DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        *caps = r.capabilities.as_ptr();
        *count = r.capabilities.len();
        DXBC2SPV_OK
    })
}

/// Extension `index` (below `extension_count`) the last translation's module declares
/// (`"SPV_EXT_demote_to_helper_invocation"`), owned by the translator; NULL past the end or
/// without a translation.
///
/// # Safety
/// `translator` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_translator_extension(
    translator: *const dxbc2spv_translator,
    index: usize,
) -> *const c_char {
    let mut result = std::ptr::null();
    guard(|| {
        // SAFETY: the caller's contract.
        if let Ok(r) = unsafe { last(translator) } {
            if let Some(e) = r.extensions.get(index) {
                result = e.as_ptr();
            }
        }
        DXBC2SPV_OK
    });
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of a hand-written module: capabilities, an extension, a discard, a derivative
    /// and an output `Layer` are found; an input `Layer` (a pixel shader's) is not an output.
    #[test]
    fn module_facts_are_read_from_the_words() {
        let word = |count: u32, op: u32| count << 16 | op;
        let ext = u32::from_le_bytes(*b"SPV_");
        let ext2 = u32::from_le_bytes(*b"X\0\0\0");
        let module = [
            0x0723_0203,
            0x0001_0300,
            0,
            100,
            0,
            word(2, 17),
            1, // Capability Shader
            word(2, 17),
            35, // SampleRateShading
            word(3, 10),
            ext,
            ext2,
            word(4, 71),
            7,
            11,
            9, // %7 BuiltIn Layer
            word(4, 71),
            8,
            11,
            9, // %8 BuiltIn Layer
            word(4, 59),
            5,
            7,
            3, // %7 Output
            word(4, 59),
            6,
            8,
            1, // %8 Input
            word(4, 207),
            1,
            2,
            3,            // OpDPdx
            word(1, 252), // OpKill
        ];
        let facts = read_module(&module);
        assert_eq!(facts.capabilities, [1, 35]);
        assert_eq!(
            facts.extensions,
            [CString::new("SPV_X").unwrap_or_default()]
        );
        assert_eq!(
            facts.usage,
            DXBC2SPV_USAGE_SAMPLE_RATE
                | DXBC2SPV_USAGE_LAYER_OUTPUT
                | DXBC2SPV_USAGE_DERIVATIVES
                | DXBC2SPV_USAGE_DISCARD
        );
        // A truncated instruction ends the walk without a panic.
        assert!(read_module(&module[..10]).extensions.is_empty());
        assert!(read_module(&[1, 2]).capabilities.is_empty());
    }

    /// A store through an access chain into a variable marks its (set, binding) written; an
    /// atomic through an image texel pointer marks another atomic (and written); a load does
    /// not mark.
    #[test]
    fn binding_usage_follows_pointers_to_their_variables() {
        let word = |count: u32, op: u32| count << 16 | op;
        let module = [
            0x0723_0203,
            0x0001_0300,
            0,
            100,
            0,
            word(4, 71),
            10,
            34,
            2, // %10 DescriptorSet 2
            word(4, 71),
            10,
            33,
            7, // %10 Binding 7
            word(4, 71),
            20,
            34,
            0, // %20 DescriptorSet 0
            word(4, 71),
            20,
            33,
            3, // %20 Binding 3
            word(4, 71),
            30,
            34,
            0,
            word(4, 71),
            30,
            33,
            4, // %30 at (0, 4): only loaded
            word(5, 65),
            1,
            11,
            10,
            5, // %11 = OpAccessChain %10 %5
            word(3, 62),
            11,
            6, // OpStore %11 %6
            word(6, 60),
            1,
            21,
            20,
            5,
            6, // %21 = OpImageTexelPointer %20 ...
            word(7, 234),
            1,
            22,
            21,
            1,
            0,
            5, // %22 = OpAtomicIAdd %21 ...
            word(4, 61),
            1,
            31,
            30, // %31 = OpLoad %30
        ];
        let facts = read_module(&module);
        let written = DXBC2SPV_RESOURCE_USAGE_WRITTEN;
        let atomic = written | DXBC2SPV_RESOURCE_USAGE_ATOMIC;
        assert_eq!(facts.binding_usage.get(&(2, 7)), Some(&written));
        assert_eq!(facts.binding_usage.get(&(0, 3)), Some(&atomic));
        assert_eq!(facts.binding_usage.get(&(0, 4)), None);
    }
}
