//! The one place that orders the stages: container → program → IR → passes → SPIR-V, plus the
//! reflection the caller needs to bind the result.

use crate::bindings::{BindingTarget, Bindings, Count, RegisterRange, ResourceKind};
use crate::dxbc::container::{Container, ParseOptions};
use crate::dxbc::disasm::shader_program;
use crate::error::Error;
pub use crate::ir::HullSchedule;
use crate::ir::{self, ResourceShape, Stage};
use crate::spv::emit::{self, DescriptorType, EmitOptions};
use crate::spv::Version;
use crate::{lower, passes};

/// The Vulkan version the SPIR-V is written for; it decides the SPIR-V version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// Vulkan 1.0: SPIR-V 1.0.
    Vulkan1_0,
    /// Vulkan 1.1: SPIR-V 1.3 (the default).
    #[default]
    Vulkan1_1,
    /// Vulkan 1.2: SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3: SPIR-V 1.6.
    Vulkan1_3,
}

impl Target {
    /// Every target, oldest first.
    pub const ALL: [Target; 4] = [
        Target::Vulkan1_0,
        Target::Vulkan1_1,
        Target::Vulkan1_2,
        Target::Vulkan1_3,
    ];

    /// The SPIR-V version of the module header.
    pub fn spirv_version(self) -> Version {
        match self {
            Target::Vulkan1_0 => Version::V1_0,
            Target::Vulkan1_1 => Version::V1_3,
            Target::Vulkan1_2 => Version::V1_5,
            Target::Vulkan1_3 => Version::V1_6,
        }
    }

    /// The `spirv-val --target-env` spelling: `vulkan1.0` … `vulkan1.3`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Vulkan1_0 => "vulkan1.0",
            Target::Vulkan1_1 => "vulkan1.1",
            Target::Vulkan1_2 => "vulkan1.2",
            Target::Vulkan1_3 => "vulkan1.3",
        }
    }

    /// Parses [`Target::name`]'s spelling.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Float behaviour the target device guarantees when a module asks for it
/// (`VK_KHR_shader_float_controls`, core in Vulkan 1.2). D3D10+ requires IEEE infinities, NaNs
/// and signed zeros, flushes fp32 denormals and keeps fp64 ones (`../shared/DESIGN.md` §5); a
/// runtime sets each flag its device supports (`VkPhysicalDeviceFloatControlsProperties`), and
/// the module then declares the matching execution mode. All off (the default) gives a module
/// that runs on any device, with the driver's default float behaviour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatControls {
    /// `shaderSignedZeroInfNanPreserveFloat32`: declare `SignedZeroInfNanPreserve 32`.
    pub preserve_inf_nan_f32: bool,
    /// `shaderSignedZeroInfNanPreserveFloat64`: declare `SignedZeroInfNanPreserve 64` (modules
    /// with doubles).
    pub preserve_inf_nan_f64: bool,
    /// `shaderDenormFlushToZeroFloat32`: declare `DenormFlushToZero 32`.
    pub flush_denorm_f32: bool,
    /// `shaderDenormPreserveFloat64`: declare `DenormPreserve 64` (modules with doubles).
    pub preserve_denorm_f64: bool,
}

/// How to translate.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Where each D3D register range goes in Vulkan. Default: the D3D11-style fixed layout.
    pub bindings: Bindings,
    /// The Vulkan/SPIR-V version to write for.
    pub target: Target,
    /// Check the container checksum as the D3D runtime does (default true).
    pub verify_checksum: bool,
    /// Emit `OpName`s for registers and resources (default false: smaller output).
    pub debug_names: bool,
    /// Float execution modes the device supports.
    pub float_controls: FloatControls,
    /// Stream output (transform feedback) of the last stage before the rasterizer (vertex,
    /// domain or geometry shader); `None`: nothing is captured and stream 0 is rasterized.
    pub stream_output: Option<StreamOutput>,
    /// Translate `discard` to `OpDemoteToHelperInvocation` (D3D semantics: the discarded pixel
    /// keeps running as a helper for derivatives; Vulkan 1.3 or
    /// `VK_EXT_shader_demote_to_helper_invocation`). `false`: `OpKill`, which ends the
    /// invocation (default true).
    pub demote_to_helper: bool,
    /// The device supports `shaderResourceResidency`: the `_s` (sparse feedback) operations
    /// use `OpImageSparse*` and report real residency. `false` (default): plain operations
    /// whose status always reads fully mapped, which is exact for resources that are not tiled.
    pub sparse_residency: bool,
    /// The device has `shaderTessellationAndGeometryPointSize` enabled: geometry shaders that
    /// emit points write `PointSize = 1` (D3D points are one pixel; Vulkan then requires the
    /// write). `false`: they write no size, as Vulkan requires without the feature, and points
    /// are one pixel by definition (default true).
    pub geometry_point_size: bool,
    /// How a hull shader's patch-constant (fork and join) phases are spread over the
    /// tessellation-control invocations (default [`HullSchedule::Serial`]).
    pub hull_schedule: HullSchedule,
    /// Domain shaders: the hull shader's partitioning and output primitive, declared in the
    /// domain shader too (Vulkan accepts them in either tessellation stage; the hull shader
    /// always declares them). Default `None`.
    pub domain_modes: Option<DomainModes>,
}

/// The tessellator modes only a hull shader declares, for a domain shader's translation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DomainModes {
    /// `dcl_tessellator_partitioning`.
    pub partitioning: ir::TessPartitioning,
    /// `dcl_tessellator_output_primitive`.
    pub output_primitive: ir::TessOutputPrimitive,
}

/// Stream output as the D3D runtime declares it (`D3D11_SO_DECLARATION_ENTRY` list, buffer
/// strides, rasterized stream): which output components are written to which transform-feedback
/// buffer. Byte offsets follow D3D: within one buffer, entries are packed in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamOutput {
    /// The entries, in declaration order.
    pub entries: Vec<StreamOutputEntry>,
    /// Byte stride of each of the four buffers (0: the packed size of its entries).
    pub strides: [u32; 4],
    /// The stream sent to the rasterizer (`None`: `D3D11_SO_NO_RASTERIZED_STREAM`).
    pub rasterized_stream: Option<u32>,
}

/// One `D3D11_SO_DECLARATION_ENTRY`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamOutputEntry {
    /// The stream (0–3).
    pub stream: u32,
    /// Output semantic (`SV_Position`, `TEXCOORD`, case-insensitive); `None` is a gap of
    /// `component_count` components that only advances the offset.
    pub semantic_name: Option<String>,
    /// Semantic index.
    pub semantic_index: u32,
    /// First component written (0–3).
    pub start_component: u8,
    /// Components written (1–4).
    pub component_count: u8,
    /// Buffer (0–3).
    pub output_slot: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            bindings: Bindings::default(),
            target: Target::default(),
            verify_checksum: true,
            debug_names: false,
            float_controls: FloatControls::default(),
            stream_output: None,
            demote_to_helper: true,
            sparse_residency: false,
            geometry_point_size: true,
            hull_schedule: HullSchedule::Serial,
            domain_modes: None,
        }
    }
}

/// One resource binding of a translated shader: which D3D registers, and where they went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundResource {
    /// The register kind (`UavCounter` for the counter of a UAV).
    pub kind: ResourceKind,
    /// Register space.
    pub space: u32,
    /// First register of the range.
    pub register: u32,
    /// Number of registers.
    pub count: Count,
    /// The DXBC operand id (register in SM5.0, range id in SM5.1).
    pub id: u32,
    /// Raw, structured or typed (SRVs and UAVs only).
    pub shape: Option<ResourceShape>,
    /// The Vulkan descriptor type the shader declares.
    pub descriptor: DescriptorType,
    /// The Vulkan set/binding (or push-constant range) chosen by the binding map.
    pub target: BindingTarget,
}

/// What a caller needs to know about a translated shader.
#[derive(Clone, Debug, PartialEq)]
pub struct ShaderInfo {
    /// Name of the SPIR-V entry point.
    pub entry_point: &'static str,
    /// The stage.
    pub stage: Stage,
    /// Workgroup size (compute shaders; zeros otherwise).
    pub workgroup_size: [u32; 3],
    /// Every resource the shader declares, with its Vulkan binding.
    pub resources: Vec<BoundResource>,
    /// Hull and domain shaders: the tessellator declarations (domain, control-point counts;
    /// hull shaders also partitioning, output primitive and `dcl_hs_max_tessfactor`). A
    /// runtime passes the hull shader's partitioning and output primitive to the domain
    /// shader's translation in [`Options::domain_modes`] where its Vulkan driver wants them
    /// there.
    pub tessellation: Option<ir::TessellationInfo>,
}

/// A translated shader.
#[derive(Clone, Debug, PartialEq)]
pub struct Translation {
    /// The SPIR-V module.
    pub spirv: Vec<u32>,
    /// Reflection.
    pub info: ShaderInfo,
}

/// The name of every entry point this translator writes.
pub const ENTRY_POINT: &str = "main";

/// Translates a DXBC container to SPIR-V.
pub fn translate(bytes: &[u8], options: &Options) -> Result<Translation, Error> {
    let module = translate_to_ir(bytes, options)?;
    let spirv = emit::emit(
        &module,
        &EmitOptions {
            version: options.target.spirv_version(),
            debug_names: options.debug_names,
            float_controls: options.float_controls,
            demote_to_helper: options.demote_to_helper,
            sparse_residency: options.sparse_residency,
            geometry_point_size: options.geometry_point_size,
            domain_modes: options.domain_modes,
        },
    )?;
    Ok(Translation {
        spirv,
        info: shader_info(&module)?,
    })
}

/// The stages up to the IR the back end receives (decoded, lowered, passes run, validated).
pub fn translate_to_ir(bytes: &[u8], options: &Options) -> Result<ir::Module, Error> {
    let container = Container::parse(
        bytes,
        &ParseOptions {
            verify_checksum: options.verify_checksum,
        },
    )?;
    let program = shader_program(&container)?;
    let input = container.input_signature().transpose()?;
    let output = container.output_signature().transpose()?;
    let patch_constant = container.patch_constant_signature().transpose()?;
    let signatures = lower::Signatures {
        input: input.as_ref(),
        output: output.as_ref(),
        patch_constant: patch_constant.as_ref(),
    };
    let mut module = lower::lower_with_signatures(&program, signatures)?;
    if let Some(so) = &options.stream_output {
        if !matches!(
            module.stage,
            Some(Stage::Vertex | Stage::Domain | Stage::Geometry)
        ) {
            return Err(Error::invalid(
                0,
                "stream output is for vertex, domain and geometry shaders",
            ));
        }
        module.stream_output = Some(lower::stream_output::resolve(so, output.as_ref())?);
    }
    passes::run(&mut module, &options.bindings, options.hull_schedule)?;
    ir::validate(&module)?;
    Ok(module)
}

fn shader_info(module: &ir::Module) -> Result<ShaderInfo, Error> {
    let stage = module
        .stage
        .ok_or_else(|| Error::invalid(0, "module without a stage"))?;
    let entry = |range: RegisterRange,
                 id: u32,
                 shape: Option<ResourceShape>,
                 descriptor: DescriptorType,
                 target: Option<BindingTarget>,
                 span: u32|
     -> Result<BoundResource, Error> {
        Ok(BoundResource {
            kind: range.kind,
            space: range.space,
            register: range.first,
            count: range.count,
            id,
            shape,
            descriptor,
            target: target.ok_or_else(|| Error::invalid(span, "declaration without a binding"))?,
        })
    };
    let mut resources = Vec::new();
    for cb in &module.cbuffers {
        let d = DescriptorType::UniformBuffer;
        resources.push(entry(cb.range, cb.id, None, d, cb.binding, cb.span)?);
    }
    for r in &module.resources {
        let d = emit::descriptor_type(r);
        resources.push(entry(r.range, r.id, Some(r.shape), d, r.binding, r.span)?);
        if r.counter {
            let (range, d) = (r.range.counter(), DescriptorType::StorageBuffer);
            resources.push(entry(range, r.id, None, d, r.counter_binding, r.span)?);
        }
    }
    for smp in &module.samplers {
        let d = DescriptorType::Sampler;
        resources.push(entry(smp.range, smp.id, None, d, smp.binding, smp.span)?);
    }
    Ok(ShaderInfo {
        entry_point: ENTRY_POINT,
        stage,
        workgroup_size: module.thread_group,
        resources,
        tessellation: matches!(stage, Stage::Hull | Stage::Domain).then_some(module.tessellation),
    })
}
