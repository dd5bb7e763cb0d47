//! `dxbc2spv reflect`: what a program declares (resources and their registers, I/O per phase,
//! stage state, signatures), as text or JSON Lines (`serde` records, one per program; the schema
//! is in `docs/cli.md`). The JSON also gives each resource's Vulkan binding under `--bindings`,
//! resolved as `translate` resolves it (`dxbc2spv::bound_resources`); a shader that does not
//! translate still reflects, with the reason in `bindings_error`.

use std::fmt::Write as _;
use std::io;

use anyhow::Result;
use dxbc2spv::bindings::{BindingTarget, ResourceKind as BindingKind};
use dxbc2spv::front::dxbc::names::COMPONENTS;
use dxbc2spv::front::dxbc::reflect::ResourceClass;
use dxbc2spv::front::dxbc::reflect::{
    Geometry, IndexRange, IndexableTemp, IoDeclaration, Phase, Reflection, Resource, ResourceKind,
    ReturnType, SignatureElement, Stream, Tessellation, Tgsm, TgsmKind, UavFlags,
};
use dxbc2spv::front::dxbc::{Container, ParseOptions};
use dxbc2spv::{BoundResource, OptionFlags, Options};

use serde::Serialize;

use super::json;
use super::Console;
use crate::args::ReflectArgs;
use crate::binding_file;
use crate::inputs::{self, Found};

/// Reflects every input; see `docs/cli.md`.
pub fn run(args: &ReflectArgs, console: &mut Console<'_>) -> io::Result<()> {
    let options = ParseOptions {
        verify_checksum: !args.no_checksum,
    };
    // The binding map is only needed (and a bad one only fails the run) for JSON.
    let translate_options = if args.json {
        match binding_file::choose(
            &args.binding.bindings,
            args.binding.root_signature.as_deref(),
            !args.no_checksum,
        ) {
            Ok(bindings) => Some(
                Options::default()
                    .with_bindings(bindings)
                    .with_flag(OptionFlags::VERIFY_CHECKSUM, !args.no_checksum),
            ),
            Err(e) => return console.failed(std::path::Path::new("--bindings"), &e),
        }
    } else {
        None
    };
    let mut printed = 0usize;
    for item in inputs::expand_with(&args.inputs.paths, inputs::READ_EXTENSIONS) {
        let input = match item {
            Found::File(input) => input,
            Found::Failed(path, e) => {
                console.failed(&path, &e)?;
                continue;
            }
        };
        if super::reflect_d3d9::handled(&input.path, args.json, &mut printed, console)? {
            continue;
        }
        let reflection = inputs::read(&input.path).and_then(|bytes| -> Result<_> {
            let container = Container::parse(&bytes, &options)?;
            let reflection = Reflection::from_container(&container)?;
            let bound = translate_options
                .as_ref()
                .map(|o| dxbc2spv::bound_shader_info(&bytes, o));
            Ok((reflection, bound))
        });
        let (r, bound) = match reflection {
            Ok(r) => r,
            Err(e) => {
                console.failed(&input.path, &e)?;
                continue;
            }
        };
        let path = input.path.display().to_string();
        let text = if args.json {
            let mut record = to_json(&path, &r);
            match bound {
                Some(Ok(info)) => {
                    add_bindings(&mut record, &r, &info.resources);
                    record.push_constants = info.push_constants.map(|p| PushConstantsJson {
                        offset: p.offset,
                        size: p.size,
                        stages: vec![stage_name(info.stage)],
                    });
                }
                Some(Err(e)) => record.bindings_error = Some(e.to_string()),
                None => {}
            }
            json::line(&record)?
        } else {
            let separator = if printed > 0 { "\n" } else { "" };
            format!("{separator}{}", text(&path, &r))
        };
        console.out().write_all(text.as_bytes())?;
        printed += 1;
        console.succeeded();
    }
    Ok(())
}

/// `.xyzw` letters of a mask (empty for 0).
fn mask(m: u8) -> String {
    (0..4)
        .filter(|i| m & (1 << i) != 0)
        .map(|i| COMPONENTS[i])
        .collect()
}

/// `v0.xy`, `v[3][0].xyzw`, `vThreadID.xy`, `oDepth`.
fn io_register(io: &IoDeclaration) -> String {
    let mut s = io.register_type.prefix().to_string();
    match (io.array_size, io.register) {
        (Some(size), Some(reg)) => {
            let _ = write!(s, "[{size}][{reg}]");
        }
        (None, Some(reg)) => {
            let _ = write!(s, "{reg}");
        }
        _ => {}
    }
    if io.mask != 0 {
        let _ = write!(s, ".{}", mask(io.mask));
    }
    s
}

fn io_text(io: &IoDeclaration) -> String {
    let mut s = String::new();
    if let Some(mode) = io.interpolation {
        let _ = write!(s, "{mode} ");
    }
    s.push_str(&io_register(io));
    if let Some(sv) = io.system_value {
        let _ = write!(s, ", {sv}");
    }
    if let Some(stream) = io.stream {
        let _ = write!(s, " (stream {stream})");
    }
    s
}

fn resource_register(r: &Reflection, res: &Resource) -> String {
    res.range.display(res.class(), r.version.is_sm51())
}

/// `n noun`, with an `s` unless `n` is 1.
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn text(path: &str, r: &Reflection) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_text(&mut s, path, r);
    s
}

fn write_text(s: &mut String, path: &str, r: &Reflection) -> std::fmt::Result {
    writeln!(s, "{path}")?;
    writeln!(s, "  program: {}", r.version)?;
    let flags: Vec<&str> = r.global_flags.names().collect();
    if !flags.is_empty() {
        writeln!(s, "  global flags: {}", flags.join(" | "))?;
    }
    if let Some([x, y, z]) = r.thread_group_size {
        writeln!(s, "  thread group: {x} x {y} x {z}")?;
    }
    writeln!(s, "  resources: {}", r.resources.len())?;
    for res in &r.resources {
        let mut register = resource_register(r, res);
        if res.range.space != 0 {
            let _ = write!(register, ", space={}", res.range.space);
        }
        write!(s, "    {register:<22} {}", res.kind)?;
        match &res.name {
            Some(name) => writeln!(s, "  \"{name}\"")?,
            None => writeln!(s)?,
        }
    }
    for g in &r.tgsm {
        match g.kind {
            TgsmKind::Raw { bytes } => writeln!(s, "  tgsm g{}: raw, {bytes} bytes", g.register)?,
            TgsmKind::Structured { stride, count } => writeln!(
                s,
                "  tgsm g{}: structured, {count} x {stride} bytes",
                g.register
            )?,
        }
    }
    if let Some(icb) = r.immediate_constant_buffer {
        writeln!(s, "  immediate constant buffer: {} vec4s", icb.vec4s())?;
    }
    for phase in &r.phases {
        write_phase(s, phase)?;
    }
    if let Some(g) = &r.geometry {
        let mut parts = Vec::new();
        if let Some(p) = g.input_primitive {
            parts.push(format!("input {p}"));
        }
        if let Some(t) = g.output_topology {
            parts.push(format!("output {t}"));
        }
        if let Some(n) = g.max_output_vertices {
            parts.push(format!("max {n} vertices"));
        }
        if let Some(n) = g.instance_count {
            parts.push(count(n as usize, "instance"));
        }
        for st in &g.streams {
            let topology = st
                .output_topology
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            parts.push(format!("stream m{}{topology}", st.index));
        }
        writeln!(s, "  geometry: {}", parts.join(", "))?;
    }
    if let Some(t) = &r.tessellation {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(t.domain.map(|d| d.to_string()));
        parts.extend(t.partitioning.map(|p| p.to_string()));
        parts.extend(t.output_primitive.map(|p| p.to_string()));
        if let Some(n) = t.input_control_points {
            parts.push(format!("{n} input control points"));
        }
        if let Some(n) = t.output_control_points {
            parts.push(format!("{n} output control points"));
        }
        if let Some(f) = t.max_tess_factor {
            parts.push(format!("max tess factor {f}"));
        }
        writeln!(s, "  tessellation: {}", parts.join(", "))?;
    }
    let l = &r.linkage;
    if l.function_bodies > 0 || !l.function_tables.is_empty() || !l.interfaces.is_empty() {
        writeln!(
            s,
            "  linkage: {} function bodies, {}, {}",
            l.function_bodies,
            count(l.function_tables.len(), "function table"),
            count(l.interfaces.len(), "interface")
        )?;
    }
    for (kind, sig) in [
        ("input", &r.signatures.input),
        ("output", &r.signatures.output),
        ("patch-constant", &r.signatures.patch_constant),
    ] {
        let Some(sig) = sig else { continue };
        writeln!(s, "  {kind} signature: {}", count(sig.len(), "element"))?;
        for e in sig {
            write!(s, "    {}{}: ", e.semantic_name, e.semantic_index)?;
            match e.register {
                Some(reg) => write!(s, "register {reg}.{}", mask(e.mask))?,
                None => write!(s, "no register")?,
            }
            write!(s, ", {}", e.component_type.fxc_name().unwrap_or("?"))?;
            match e.system_value.fxc_name() {
                Some("NONE") => {}
                Some(sv) => write!(s, ", {sv}")?,
                None => write!(s, ", system value {}", e.system_value.raw())?,
            }
            if e.stream != 0 {
                write!(s, ", stream {}", e.stream)?;
            }
            writeln!(s)?;
        }
    }
    Ok(())
}

fn write_phase(s: &mut String, phase: &Phase) -> std::fmt::Result {
    write!(
        s,
        "  phase {}: {}",
        phase.kind.name(),
        count(phase.temps as usize, "temp")
    )?;
    if let Some(n) = phase.instance_count {
        write!(s, ", {}", count(n as usize, "instance"))?;
    }
    for x in &phase.indexable_temps {
        write!(
            s,
            ", x{}[{}] ({} components)",
            x.register, x.size, x.components
        )?;
    }
    writeln!(s)?;
    for io in &phase.inputs {
        writeln!(s, "    input {}", io_text(io))?;
    }
    for io in &phase.outputs {
        writeln!(s, "    output {}", io_text(io))?;
    }
    for ir in &phase.index_ranges {
        writeln!(
            s,
            "    index range {}{}.{} {}",
            ir.register_type.prefix(),
            ir.register,
            mask(ir.mask),
            ir.count
        )?;
    }
    Ok(())
}

/// `reflect --json`: one program (see `docs/cli.md`). Keys in declaration order.
#[derive(Serialize)]
struct ReflectJson<'a> {
    path: &'a str,
    version: String,
    stage: &'static str,
    shader_model: String,
    global_flags: Vec<&'static str>,
    thread_group_size: Option<[u32; 3]>,
    resources: Vec<ResourceJson<'a>>,
    tgsm: Vec<TgsmJson>,
    immediate_constant_buffer: Option<IcbJson>,
    phases: Vec<PhaseJson>,
    geometry: Option<GeometryJson>,
    tessellation: Option<TessellationJson>,
    linkage: LinkageJson,
    signatures: SignaturesJson<'a>,
    /// Why no resource has a `vulkan` binding: the shader does not translate under the
    /// chosen options.
    #[serde(skip_serializing_if = "Option::is_none")]
    bindings_error: Option<String>,
    /// The push-constant range the translation declares (with `--json` and a binding map that
    /// puts something in push constants).
    #[serde(skip_serializing_if = "Option::is_none")]
    push_constants: Option<PushConstantsJson>,
}

/// `push_constants`: the byte range the pipeline layout must give the stages.
#[derive(Serialize)]
struct PushConstantsJson {
    offset: u32,
    size: u32,
    stages: Vec<&'static str>,
}

/// The Vulkan name of a stage's shader-stage flag, without `VK_SHADER_STAGE_` and `_BIT`.
fn stage_name(stage: dxbc2spv::ir::Stage) -> &'static str {
    use dxbc2spv::ir::Stage;
    match stage {
        Stage::Vertex => "VERTEX",
        Stage::Hull => "TESSELLATION_CONTROL",
        Stage::Domain => "TESSELLATION_EVALUATION",
        Stage::Geometry => "GEOMETRY",
        Stage::Pixel => "FRAGMENT",
        Stage::Compute => "COMPUTE",
    }
}

#[derive(Serialize)]
struct TgsmJson {
    register: u32,
    kind: &'static str,
    bytes: u64,
    stride: Option<u32>,
    count: Option<u32>,
}

#[derive(Serialize)]
struct IcbJson {
    dwords: u32,
}

#[derive(Serialize)]
struct StreamJson {
    index: u32,
    output_topology: Option<String>,
}

#[derive(Serialize)]
struct GeometryJson {
    input_primitive: Option<String>,
    output_topology: Option<String>,
    max_output_vertices: Option<u32>,
    instance_count: Option<u32>,
    streams: Vec<StreamJson>,
}

#[derive(Serialize)]
struct TessellationJson {
    domain: Option<String>,
    partitioning: Option<String>,
    output_primitive: Option<String>,
    input_control_points: Option<u32>,
    output_control_points: Option<u32>,
    max_tess_factor: Option<f32>,
}

#[derive(Serialize)]
struct LinkageJson {
    function_bodies: u32,
    function_tables: usize,
    interfaces: usize,
}

#[derive(Serialize)]
struct SignaturesJson<'a> {
    input: Option<Vec<ElementJson<'a>>>,
    output: Option<Vec<ElementJson<'a>>>,
    patch_constant: Option<Vec<ElementJson<'a>>>,
}

#[derive(Serialize)]
struct ElementJson<'a> {
    semantic: &'a str,
    index: u32,
    register: Option<u32>,
    mask: String,
    rw_mask: String,
    system_value: String,
    component_type: &'static str,
    stream: u32,
}

#[derive(Serialize)]
struct ResourceJson<'a> {
    class: &'static str,
    register: String,
    id: u32,
    space: u32,
    lower_bound: u32,
    count: Option<u32>,
    name: Option<&'a str>,
    kind: &'static str,
    #[serde(flatten)]
    fields: KindFields,
    #[serde(flatten)]
    uav: Option<UavJson>,
    /// Where the range is bound in Vulkan (JSON output with a translatable shader).
    #[serde(skip_serializing_if = "Option::is_none")]
    vulkan: Option<VulkanJson>,
    /// Where the UAV's counter is bound, when the shader uses it.
    #[serde(skip_serializing_if = "Option::is_none")]
    counter_vulkan: Option<VulkanJson>,
}

/// A Vulkan binding: a descriptor (array) or a push-constant block.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum VulkanJson {
    Descriptor {
        set: u32,
        binding: u32,
        array_offset: u32,
        /// `null`: a runtime array.
        descriptor_count: Option<u32>,
    },
    PushConstants {
        push_constant_offset: u32,
        push_constant_size: u32,
    },
    Heap {
        set: u32,
        binding: u32,
        /// Byte offset in the push constants of the table's base index.
        heap_base_offset: u32,
        array_offset: u32,
    },
    DeviceAddress {
        /// Byte offset in the push constants of the buffer's 64-bit device address.
        device_address_offset: u32,
    },
}

impl From<BindingTarget> for VulkanJson {
    fn from(target: BindingTarget) -> Self {
        match target {
            BindingTarget::Descriptor(b) => VulkanJson::Descriptor {
                set: b.set,
                binding: b.binding,
                array_offset: b.array_offset,
                descriptor_count: b.descriptor_count.bounded(),
            },
            BindingTarget::PushConstants(p) => VulkanJson::PushConstants {
                push_constant_offset: p.offset,
                push_constant_size: p.size,
            },
            BindingTarget::Heap(h) => VulkanJson::Heap {
                set: h.set,
                binding: h.binding,
                heap_base_offset: h.base_offset,
                array_offset: h.array_offset,
            },
            BindingTarget::DeviceAddress(a) => VulkanJson::DeviceAddress {
                device_address_offset: a.offset,
            },
        }
    }
}

/// Attaches to each resource of `record` the binding `bound` gives its range (matched by
/// register class, space and operand id) and, for a UAV, its counter's.
fn add_bindings(record: &mut ReflectJson<'_>, r: &Reflection, bound: &[BoundResource]) {
    for (json, res) in record.resources.iter_mut().zip(&r.resources) {
        let kind = match res.class() {
            ResourceClass::ConstantBuffer => BindingKind::ConstantBuffer,
            ResourceClass::ShaderResource => BindingKind::ShaderResource,
            ResourceClass::UnorderedAccess => BindingKind::UnorderedAccess,
            ResourceClass::Sampler => BindingKind::Sampler,
        };
        let find = |kind: BindingKind| {
            bound
                .iter()
                .find(|b| b.kind == kind && b.space == res.range.space && b.id == res.range.id)
                .map(|b| VulkanJson::from(b.target))
        };
        json.vulkan = find(kind);
        if kind == BindingKind::UnorderedAccess {
            json.counter_vulkan = find(BindingKind::UavCounter);
        }
    }
}

/// The fields of one resource kind, after `kind`.
#[derive(Serialize)]
#[serde(untagged)]
enum KindFields {
    ConstantBuffer {
        size_vec4s: u32,
        dynamic_indexed: bool,
    },
    TypedSrv {
        dimension: String,
        return_types: [String; 4],
        sample_count: Option<u32>,
    },
    TypedUav {
        dimension: String,
        return_types: [String; 4],
    },
    Structured {
        stride: u32,
    },
    Sampler {
        mode: String,
    },
    None {},
}

#[derive(Serialize)]
struct UavJson {
    globally_coherent: bool,
    rasterizer_ordered: bool,
    counter: bool,
}

#[derive(Serialize)]
struct IoJson {
    register_type: &'static str,
    register: Option<u32>,
    array_size: Option<u32>,
    mask: String,
    system_value: Option<String>,
    interpolation: Option<String>,
    stream: Option<u32>,
}

#[derive(Serialize)]
struct PhaseJson {
    kind: &'static str,
    instance_count: Option<u32>,
    temps: u32,
    indexable_temps: Vec<IndexableTempJson>,
    inputs: Vec<IoJson>,
    outputs: Vec<IoJson>,
    index_ranges: Vec<IndexRangeJson>,
}

#[derive(Serialize)]
struct IndexableTempJson {
    register: u32,
    size: u32,
    components: u32,
}

#[derive(Serialize)]
struct IndexRangeJson {
    register_type: &'static str,
    register: u32,
    count: u32,
    mask: String,
}

fn to_json<'a>(path: &'a str, r: &'a Reflection) -> ReflectJson<'a> {
    let v = r.version;
    let l = &r.linkage;
    let name = |x: Option<String>| x;
    let tgsm = |g: &Tgsm| {
        let (kind, stride, count) = match g.kind {
            TgsmKind::Raw { .. } => ("raw", None, None),
            TgsmKind::Structured { stride, count } => ("structured", Some(stride), Some(count)),
        };
        TgsmJson {
            register: g.register,
            kind,
            bytes: g.size_bytes(),
            stride,
            count,
        }
    };
    let geometry = |g: &Geometry| GeometryJson {
        input_primitive: name(g.input_primitive.map(|p| p.to_string())),
        output_topology: name(g.output_topology.map(|t| t.to_string())),
        max_output_vertices: g.max_output_vertices,
        instance_count: g.instance_count,
        streams: g
            .streams
            .iter()
            .map(|st: &Stream| StreamJson {
                index: st.index,
                output_topology: st.output_topology.map(|t| t.to_string()),
            })
            .collect(),
    };
    let tessellation = |t: &Tessellation| TessellationJson {
        domain: t.domain.map(|d| d.to_string()),
        partitioning: t.partitioning.map(|p| p.to_string()),
        output_primitive: t.output_primitive.map(|p| p.to_string()),
        input_control_points: t.input_control_points,
        output_control_points: t.output_control_points,
        max_tess_factor: t.max_tess_factor,
    };
    ReflectJson {
        path,
        version: v.to_string(),
        stage: v.stage.prefix(),
        shader_model: format!("{}.{}", v.major, v.minor),
        global_flags: r.global_flags.names().collect(),
        thread_group_size: r.thread_group_size,
        resources: r
            .resources
            .iter()
            .map(|res| resource_json(r, res))
            .collect(),
        tgsm: r.tgsm.iter().map(tgsm).collect(),
        immediate_constant_buffer: r
            .immediate_constant_buffer
            .map(|icb| IcbJson { dwords: icb.dwords }),
        phases: r.phases.iter().map(phase_json).collect(),
        geometry: r.geometry.as_ref().map(geometry),
        tessellation: r.tessellation.as_ref().map(tessellation),
        linkage: LinkageJson {
            function_bodies: l.function_bodies,
            function_tables: l.function_tables.len(),
            interfaces: l.interfaces.len(),
        },
        bindings_error: None,
        push_constants: None,
        signatures: SignaturesJson {
            input: signature_json(&r.signatures.input),
            output: signature_json(&r.signatures.output),
            patch_constant: signature_json(&r.signatures.patch_constant),
        },
    }
}

fn resource_json<'a>(r: &Reflection, res: &'a Resource) -> ResourceJson<'a> {
    let range = res.range;
    let types = |t: &[ReturnType; 4]| t.each_ref().map(|x| x.to_string());
    let uav = |f: &UavFlags| {
        Some(UavJson {
            globally_coherent: f.globally_coherent,
            rasterizer_ordered: f.rasterizer_ordered,
            counter: f.counter,
        })
    };
    let (kind, fields, uav) = match &res.kind {
        ResourceKind::ConstantBuffer {
            size,
            dynamic_indexed,
        } => (
            "constant_buffer",
            KindFields::ConstantBuffer {
                size_vec4s: *size,
                dynamic_indexed: *dynamic_indexed,
            },
            None,
        ),
        ResourceKind::TypedSrv {
            dimension,
            return_types,
            sample_count,
        } => (
            "typed",
            KindFields::TypedSrv {
                dimension: dimension.to_string(),
                return_types: types(return_types),
                sample_count: *sample_count,
            },
            None,
        ),
        ResourceKind::RawSrv => ("raw", KindFields::None {}, None),
        ResourceKind::StructuredSrv { stride } => (
            "structured",
            KindFields::Structured { stride: *stride },
            None,
        ),
        ResourceKind::TypedUav {
            dimension,
            return_types,
            flags,
        } => (
            "typed",
            KindFields::TypedUav {
                dimension: dimension.to_string(),
                return_types: types(return_types),
            },
            uav(flags),
        ),
        ResourceKind::RawUav { flags } => ("raw", KindFields::None {}, uav(flags)),
        ResourceKind::StructuredUav { stride, flags } => (
            "structured",
            KindFields::Structured { stride: *stride },
            uav(flags),
        ),
        ResourceKind::Sampler { mode } => (
            "sampler",
            KindFields::Sampler {
                mode: mode.to_string(),
            },
            None,
        ),
    };
    ResourceJson {
        class: res.class().name(),
        register: resource_register(r, res),
        id: range.id,
        space: range.space,
        lower_bound: range.lower_bound,
        count: range.count,
        name: res.name.as_deref(),
        kind,
        fields,
        uav,
        vulkan: None,
        counter_vulkan: None,
    }
}

fn io_json(io: &IoDeclaration) -> IoJson {
    IoJson {
        register_type: io.register_type.prefix(),
        register: io.register,
        array_size: io.array_size,
        mask: mask(io.mask),
        system_value: io.system_value.map(|x| x.to_string()),
        interpolation: io.interpolation.map(|x| x.to_string()),
        stream: io.stream,
    }
}

fn phase_json(p: &Phase) -> PhaseJson {
    let temp = |x: &IndexableTemp| IndexableTempJson {
        register: x.register,
        size: x.size,
        components: x.components,
    };
    let range = |ir: &IndexRange| IndexRangeJson {
        register_type: ir.register_type.prefix(),
        register: ir.register,
        count: ir.count,
        mask: mask(ir.mask),
    };
    PhaseJson {
        kind: p.kind.name(),
        instance_count: p.instance_count,
        temps: p.temps,
        indexable_temps: p.indexable_temps.iter().map(temp).collect(),
        inputs: p.inputs.iter().map(io_json).collect(),
        outputs: p.outputs.iter().map(io_json).collect(),
        index_ranges: p.index_ranges.iter().map(range).collect(),
    }
}

fn signature_json(sig: &Option<Vec<SignatureElement>>) -> Option<Vec<ElementJson<'_>>> {
    Some(sig.as_ref()?.iter().map(element_json).collect())
}

fn element_json(e: &SignatureElement) -> ElementJson<'_> {
    let sv = e.system_value;
    ElementJson {
        semantic: &e.semantic_name,
        index: e.semantic_index,
        register: e.register,
        mask: mask(e.mask),
        rw_mask: mask(e.rw_mask),
        system_value: sv
            .fxc_name()
            .map_or_else(|| sv.raw().to_string(), str::to_string),
        component_type: e.component_type.fxc_name().unwrap_or("unknown"),
        stream: e.stream,
    }
}
