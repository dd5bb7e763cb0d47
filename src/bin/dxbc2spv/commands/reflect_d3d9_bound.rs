//! The translation's side of `dxbc2spv reflect` for a Direct3D 9 token stream: what a runtime
//! binds and links when it translates the stream with the default parameters
//! (`dxbc2spv::bound_shader_info`, the same lowering, passes and binding resolution as
//! `translate`, without emitting SPIR-V).
//!
//! Contract: [`of`] gives the Vulkan binding of every constant buffer (`b0` float constants,
//! `b1` integer constants, `b2` boolean constants), texture (`t#`) and sampler (`s#`) the
//! translation declares, the input and output variables with their D3D9 usage (`TEXCOORD`,
//! `COLOR`, ...) and usage index where it has one, its `Location` or the built-in it is, and its
//! declared components (the IR module's declarations, `dxbc2spv::translate_to_ir`), and the
//! push-constant range; or, for a stream that does not translate, the translation's error text. [`write_text`] prints it as indented lines under a `translation:` heading.

use std::fmt::Write as _;

use dxbc2spv::back::spirv::DescriptorType;
use dxbc2spv::bindings::ResourceKind;
use dxbc2spv::ir::{IoDecl, SystemValue};
use dxbc2spv::{
    bound_shader_info, translate_to_ir, BoundResource, OptionFlags, Options, ResourceUsage,
    Semantic,
};
use serde::Serialize;

use super::reflect::VulkanJson;

/// The translation's reflection of one stream (`translation` in `reflect --json`).
#[derive(Serialize)]
pub struct TranslationJson {
    /// One entry per bound range, in the translation's order.
    pub bindings: Vec<BindingJson>,
    /// Input variables.
    pub inputs: Vec<LinkJson>,
    /// Output variables.
    pub outputs: Vec<LinkJson>,
    /// The push-constant range, when the module declares one.
    pub push_constants: Option<PushJson>,
}

/// One bound range.
#[derive(Serialize)]
pub struct BindingJson {
    /// `b0`, `t1`, `s1` (the first register of the range).
    pub register: String,
    /// `constant_buffer`, `shader_resource`, `sampler`, ...
    pub kind: &'static str,
    /// Registers in the range (`null`: unbounded).
    pub count: Option<u32>,
    /// The Vulkan descriptor type (`uniform_buffer`, `sampled_image`, `sampler`, ...).
    pub descriptor: &'static str,
    /// Whether the shader reads it.
    pub read: bool,
    /// Where it is bound.
    pub vulkan: VulkanJson,
}

/// One input or output variable.
#[derive(Serialize)]
pub struct LinkJson {
    /// The D3D9 usage name (`POSITION`, `TEXCOORD`, `COLOR`, `FOG`, ...), when it has one (a
    /// pixel shader's colour outputs and built-ins have none).
    pub usage: Option<String>,
    /// The usage index.
    pub usage_index: u32,
    /// The Vulkan `Location` (`null` for a built-in).
    pub location: Option<u32>,
    /// The built-in it is (`Position`, `IsFrontFace`, ...), `null` for a user variable.
    pub built_in: Option<String>,
    /// `.xyzw` letters of the declared components.
    pub mask: String,
}

/// The push-constant range.
#[derive(Serialize)]
pub struct PushJson {
    /// Byte offset.
    pub offset: u32,
    /// Bytes.
    pub size: u32,
}

/// The translation's reflection of the D3D9 token stream `bytes` under the default parameters,
/// or the translation's error as text.
pub fn of(bytes: &[u8]) -> Result<TranslationJson, String> {
    let options = Options::default().with_flag(OptionFlags::VERIFY_CHECKSUM, false);
    let info = bound_shader_info(bytes, &options).map_err(|e| e.to_string())?;
    // The IR module holds the locations (the semantics give the IR registers).
    let module = translate_to_ir(bytes, &options).map_err(|e| e.to_string())?;
    let inputs = module
        .inputs
        .iter()
        .map(|d| link(d, &info.inputs, module.input_location(d.register)))
        .collect();
    let outputs = module
        .outputs
        .iter()
        .map(|d| link(d, &info.outputs, module.output_location(d.register)))
        .collect();
    Ok(TranslationJson {
        bindings: info.resources.iter().map(binding).collect(),
        inputs,
        outputs,
        push_constants: info.push_constants.map(|p| PushJson {
            offset: p.offset,
            size: p.size,
        }),
    })
}

fn binding(b: &BoundResource) -> BindingJson {
    BindingJson {
        register: format!("{}{}", b.kind.register_letter(), b.register),
        kind: kind_name(b.kind),
        count: b.count.bounded(),
        descriptor: descriptor_name(b.descriptor),
        read: b.usage.contains(ResourceUsage::READ),
        vulkan: VulkanJson::from(b.target),
    }
}

/// The variable of the declaration `d`, with the usage `semantics` give its register.
fn link(d: &IoDecl, semantics: &[Semantic], location: u32) -> LinkJson {
    let semantic = semantics.iter().find(|s| s.register == d.register);
    let built_in = (d.system_value != SystemValue::None).then(|| format!("{:?}", d.system_value));
    LinkJson {
        usage: semantic.map(|s| s.name.clone()),
        usage_index: semantic.map_or(0, |s| s.index),
        location: built_in.is_none().then_some(location),
        built_in,
        mask: (0..4)
            .filter(|i| d.mask & (1 << i) != 0)
            .map(|i| ['x', 'y', 'z', 'w'][i])
            .collect(),
    }
}

fn kind_name(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::ConstantBuffer => "constant_buffer",
        ResourceKind::ShaderResource => "shader_resource",
        ResourceKind::UnorderedAccess => "unordered_access",
        ResourceKind::Sampler => "sampler",
        ResourceKind::UavCounter => "uav_counter",
    }
}

fn descriptor_name(d: DescriptorType) -> &'static str {
    match d {
        DescriptorType::UniformBuffer => "uniform_buffer",
        DescriptorType::StorageBuffer => "storage_buffer",
        DescriptorType::UniformTexelBuffer => "uniform_texel_buffer",
        DescriptorType::StorageTexelBuffer => "storage_texel_buffer",
        DescriptorType::SampledImage => "sampled_image",
        DescriptorType::StorageImage => "storage_image",
        DescriptorType::Sampler => "sampler",
    }
}

/// `set 0, binding 3` and the like.
fn vulkan_text(v: &VulkanJson) -> String {
    match v {
        VulkanJson::Descriptor {
            set,
            binding,
            array_offset,
            ..
        } if *array_offset == 0 => format!("set {set}, binding {binding}"),
        VulkanJson::Descriptor {
            set,
            binding,
            array_offset,
            ..
        } => format!("set {set}, binding {binding}[{array_offset}]"),
        VulkanJson::PushConstants {
            push_constant_offset,
            push_constant_size,
        } => format!("push constants {push_constant_offset}+{push_constant_size}"),
        VulkanJson::Heap {
            set,
            binding,
            heap_base_offset,
            array_offset,
        } => format!(
            "heap set {set}, binding {binding}, base at push constant {heap_base_offset} + \
             {array_offset}"
        ),
        VulkanJson::DeviceAddress {
            device_address_offset,
        } => format!("device address at push constant {device_address_offset}"),
    }
}

/// Prints `t` under a `translation (default parameters):` heading, indented as the rest of the
/// D3D9 `reflect` text.
pub fn write_text(s: &mut String, t: &Result<TranslationJson, String>) -> std::fmt::Result {
    let t = match t {
        Ok(t) => t,
        Err(e) => return writeln!(s, "  translation: does not translate: {e}"),
    };
    writeln!(s, "  translation (default parameters):")?;
    writeln!(s, "    bindings: {}", t.bindings.len())?;
    for b in &t.bindings {
        let count = match b.count {
            Some(1) => String::new(),
            Some(n) => format!(" x{n}"),
            None => " (unbounded)".to_owned(),
        };
        let unread = if b.read { "" } else { "  (not read)" };
        writeln!(
            s,
            "      {:<4} {}{count}  {}  {}{unread}",
            b.register,
            b.kind,
            b.descriptor,
            vulkan_text(&b.vulkan)
        )?;
    }
    for (title, list) in [("inputs", &t.inputs), ("outputs", &t.outputs)] {
        writeln!(s, "    {title}: {}", list.len())?;
        for l in list {
            let usage = l
                .usage
                .as_ref()
                .map_or_else(|| "-".to_owned(), |u| format!("{u}{}", l.usage_index));
            let place = match (&l.built_in, l.location) {
                (Some(b), _) => format!("built-in {b}"),
                (None, Some(n)) => format!("location {n}"),
                (None, None) => "-".to_owned(),
            };
            writeln!(s, "      {usage:<10} {place}  .{}", l.mask)?;
        }
    }
    match &t.push_constants {
        Some(p) => writeln!(s, "    push constants: {} bytes at {}", p.size, p.offset),
        None => writeln!(s, "    push constants: none"),
    }
}
