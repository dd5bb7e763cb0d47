//! The one place that orders the stages: container → program → IR → passes → SPIR-V, plus the
//! reflection the caller needs to bind the result.

use crate::back::spirv::{self as emit, DescriptorType, EmitOptions};
use crate::bindings::{BindingTarget, Bindings, Count, RegisterRange, ResourceKind};
use crate::error::Error;
use crate::front::dxbc::container::{Container, FourCc, ParseOptions};
use crate::front::dxbc::lower;
pub use crate::ir::HullSchedule;
use crate::ir::{self, ResourceShape, Stage};
use crate::passes;
use crate::scratch::Scratch;
use crate::spv::Version;
use crate::text::dxbc::disasm::shader_program;

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

// `translate` may run on many threads at once: everything it takes and returns can be shared
// and sent between them.
const _: () = {
    const fn thread_safe<T: Send + Sync>() {}
    thread_safe::<Options>();
    thread_safe::<Translation>();
    thread_safe::<Error>();
    thread_safe::<ir::Module>();
};

/// Translates a DXBC container to SPIR-V.
///
/// Errors name the byte offset and the instruction or structure they are about
/// (`at 0x1a4 (dcl_temps): 70000 temps exceeds the limit 4096`; see [`Error`]). The function
/// keeps no state between calls (only buffers for reuse, per thread and bounded: see
/// `scratch.rs`): any number of threads may call it at once.
pub fn translate(bytes: &[u8], options: &Options) -> Result<Translation, Error> {
    let mut scratch = Scratch::take();
    let translation = translate_in(bytes, options, &mut scratch);
    scratch.give_back();
    translation
}

/// [`translate`] with the IR arena and the SPIR-V module of `scratch`, left there for the next.
fn translate_in(
    bytes: &[u8],
    options: &Options,
    scratch: &mut Scratch,
) -> Result<Translation, Error> {
    let arena = std::mem::take(&mut scratch.insts);
    let mut module =
        decode_and_lower(bytes, options, arena).map_err(|e| name_instruction(e, bytes))?;
    let translation =
        emit_with_info(&module, options, &mut scratch.emit).map_err(|e| name_instruction(e, bytes));
    scratch.insts = std::mem::take(&mut module.insts);
    translation
}

/// The back end and the reflection of a module that passed [`ir::validate`].
fn emit_with_info(
    module: &ir::Module,
    options: &Options,
    scratch: &mut emit::Scratch,
) -> Result<Translation, Error> {
    let spirv = emit::emit_reusing(
        module,
        &EmitOptions {
            version: options.target.spirv_version(),
            debug_names: options.debug_names,
            float_controls: options.float_controls,
            demote_to_helper: options.demote_to_helper,
            sparse_residency: options.sparse_residency,
            geometry_point_size: options.geometry_point_size,
            domain_modes: options.domain_modes,
        },
        scratch,
    )?;
    Ok(Translation {
        spirv,
        info: shader_info(module)?,
    })
}

/// Names the instruction or structure at the error's offset when the stage that raised it
/// knew only the offset.
fn name_instruction(error: Error, bytes: &[u8]) -> Error {
    if error.instruction().is_some() {
        return error;
    }
    match error
        .offset()
        .and_then(|at| crate::locate::name_at(bytes, at))
    {
        Some(name) => error.with_instruction(name),
        None => error,
    }
}

/// The stages up to the IR the back end receives (decoded, lowered, passes run, validated).
/// Errors name their instruction as [`translate`]'s do.
pub fn translate_to_ir(bytes: &[u8], options: &Options) -> Result<ir::Module, Error> {
    decode_and_lower(bytes, options, Vec::new()).map_err(|e| name_instruction(e, bytes))
}

/// [`translate_to_ir`] before the instruction of an error is named, building the IR in `arena`.
fn decode_and_lower(
    bytes: &[u8],
    options: &Options,
    arena: Vec<ir::Inst>,
) -> Result<ir::Module, Error> {
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
    // The same chunk lookups as the accessors above, for the offsets.
    let signatures: [(_, &[FourCc]); 3] = [
        (&input, &[FourCc::ISGN, FourCc::ISG1]),
        (&output, &[FourCc::OSGN, FourCc::OSG5, FourCc::OSG1]),
        (&patch_constant, &[FourCc::PCSG, FourCc::PSG1]),
    ];
    for (signature, codes) in signatures {
        if let (Some(signature), Some(chunk)) = (signature, container.chunk_any(codes)) {
            lower::check_signature(signature, chunk.offset)?;
        }
    }
    let signatures = lower::Signatures {
        input: input.as_ref(),
        output: output.as_ref(),
        patch_constant: patch_constant.as_ref(),
    };
    let mut module = lower::lower_reusing(&program, signatures, arena)?;
    if let Some(so) = &options.stream_output {
        if !matches!(
            module.stage,
            Stage::Vertex | Stage::Domain | Stage::Geometry
        ) {
            // At the version token, which names the stage.
            return Err(Error::invalid(
                program.body_offset().saturating_sub(8),
                "stream output is for vertex, domain and geometry shaders",
            ));
        }
        // The caller's declaration is at fault, not a byte of the input.
        let resolved = lower::stream_output::resolve(so, output.as_ref())
            .map_err(|e| e.with_instruction("Options::stream_output"))?;
        module.stream_output = Some(resolved);
    }
    passes::run(&mut module, &options.bindings, options.hull_schedule)?;
    ir::validate(&module)?;
    Ok(module)
}

fn shader_info(module: &ir::Module) -> Result<ShaderInfo, Error> {
    let stage = module.stage;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn stream_output(semantic: &str) -> Options {
        Options {
            stream_output: Some(StreamOutput {
                entries: vec![StreamOutputEntry {
                    semantic_name: Some(semantic.into()),
                    component_count: 4,
                    ..StreamOutputEntry::default()
                }],
                ..StreamOutput::default()
            }),
            ..Options::default()
        }
    }

    /// Stream-output errors are the caller's: an entry the signature lacks names the option,
    /// a shader of the wrong stage points at its version token.
    #[test]
    fn stream_output_errors_say_where_they_come_from() {
        let vs = "vs_5_0\ndcl_output_siv o0.xyzw, position\nmov o0.xyzw, l(0, 0, 0, 0)\nret\n";
        let bytes = crate::text::dxbc::asm::assemble(vs).expect("assembles");
        let e = translate(&bytes, &stream_output("COLOR")).expect_err("no COLOR output");
        assert_eq!(
            (e.offset(), e.instruction()),
            (Some(0), Some("Options::stream_output"))
        );
        assert!(e
            .to_string()
            .starts_with("at 0x0 (Options::stream_output): stream output: "));

        let ps = "ps_5_0\nret\n";
        let bytes = crate::text::dxbc::asm::assemble(ps).expect("assembles");
        let e = translate(&bytes, &stream_output("SV_Position")).expect_err("pixel shader");
        let c = Container::parse(&bytes, &ParseOptions::default()).expect("container");
        let version_token = c.shader_chunk().expect("program").offset;
        assert_eq!(
            e.to_string(),
            format!(
                "at {version_token:#x} (SHEX): stream output is for vertex, domain and geometry \
                 shaders"
            )
        );
    }

    /// `translate_to_ir` names the instruction too.
    #[test]
    fn lowering_errors_name_their_instruction() {
        let bytes = crate::text::dxbc::asm::assemble(
            "cs_5_0\ndcl_temps 70000\ndcl_thread_group 1, 1, 1\nret\n",
        )
        .expect("assembles");
        let e = translate_to_ir(&bytes, &Options::default()).expect_err("too many temps");
        assert_eq!(e.instruction(), Some("dcl_temps"));
        assert!(
            e.to_string()
                .ends_with("(dcl_temps): 70000 temps exceeds the limit 4096"),
            "{e}"
        );
    }
}
