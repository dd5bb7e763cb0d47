//! The one place that orders the stages, for every front end: front end (decode, lower) → IR →
//! passes → [`ir::validate`] → back end (SPIR-V), plus the reflection the caller needs to bind
//! the result.
//!
//! Contract: [`Translator::translate_with`] drives any [`FrontEnd`]; it knows no bytecode
//! format (no chunk, no signature) and no text module. An error of any stage leaves it named:
//! the front end names the instruction or structure at the error's offset, from what it parsed
//! ([`FrontEnd::name_at`]) or, when decoding itself failed, from the bytes
//! ([`FrontEnd::name_in_bytes`]). The [`Translator`] owns the buffers one translation lends the
//! next (the IR arena, the back end's scratch), each kept only up to [`KEEP_BYTES`].

// Built without any front end (every front-end feature off), nothing calls the pipeline.
#![cfg_attr(not(feature = "dxbc"), allow(dead_code))]

use std::mem::size_of;

use crate::back::spirv::{self as emit, DescriptorType, EmitOptions};
pub use crate::back::spirv::{
    parse_swizzle, PipelineState, SpecValue, TargetComponent, TargetSwizzle, IDENTITY_SWIZZLE,
};
pub use crate::back::spirv::{
    DomainModes, FloatControls, FloatEmulation, ForcedBarriers, RovInterlock,
    StorageBufferAlignment, TexelRawBuffers, TypedUavFormats, UavFormat, UnlistedUavFormat,
    WorkgroupZeroInit, ENTRY_POINT,
};
use crate::bindings::{BindingTarget, Bindings, ClassLinkage, Count, RegisterRange, ResourceKind};
use crate::d3d9_state::D3d9State;
use crate::error::Error;
#[cfg(feature = "d3d9")]
use crate::front::d3d9::D3d9;
#[cfg(feature = "dxbc")]
use crate::front::dxbc::Dxbc;
#[cfg(all(feature = "dxbc", feature = "d3d9"))]
use crate::front::level9::Level9Part;
use crate::front::{FrontEnd, Semantic, Semantics};
pub use crate::ir::HullSchedule;
use crate::ir::{self, ResourceShape, Stage};
pub use crate::ir::{
    StreamOutputRequest as StreamOutput, StreamOutputRequestEntry as StreamOutputEntry,
};
use crate::linking::{StageLinking, Workarounds};
use crate::passes;
use crate::resource_usage::ResourceUsage;
use crate::warning::Warning;

mod target;
pub use target::Target;

#[cfg(any(feature = "dxbc", feature = "d3d9"))]
mod format;
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
use format::Format;

bitflags::bitflags! {
    /// The on/off choices of [`Options`] ([`Options::flags`]). The default is
    /// `VERIFY_CHECKSUM | DEMOTE_TO_HELPER | GEOMETRY_POINT_SIZE`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct OptionFlags: u32 {
        /// Check the container checksum as the D3D runtime does (default on).
        const VERIFY_CHECKSUM = 1 << 0;
        /// Emit `OpName`s for registers and resources (default off: smaller output).
        const DEBUG_NAMES = 1 << 1;
        /// Translate `discard` to `OpDemoteToHelperInvocation` (D3D semantics: the discarded
        /// pixel keeps running as a helper for derivatives; Vulkan 1.3 or
        /// `VK_EXT_shader_demote_to_helper_invocation`). Off: `OpKill`, which ends the
        /// invocation (default on).
        const DEMOTE_TO_HELPER = 1 << 2;
        /// The device supports `shaderResourceResidency`: the `_s` (sparse feedback)
        /// operations use `OpImageSparse*` and report real residency. Off (default): plain
        /// operations whose status always reads fully mapped, which is exact for resources
        /// that are not tiled.
        const SPARSE_RESIDENCY = 1 << 3;
        /// The device has `shaderTessellationAndGeometryPointSize` enabled: geometry shaders
        /// that emit points write `PointSize = 1` (D3D points are one pixel; Vulkan then
        /// requires the write). Off: they write no size, as Vulkan requires without the
        /// feature, and points are one pixel by definition (default on).
        const GEOMETRY_POINT_SIZE = 1 << 4;
        /// Translate the level-9 part (`Aon9`) of a `4_0_level_9_x` DXBC container instead
        /// of its Shader Model 4 program; it reads the SM4 program's constant buffers and
        /// textures (`docs/d3d9.md`, "Level-9 parts"). No effect on D3D9 streams.
        const LEVEL9 = 1 << 5;
    }
}

impl Default for OptionFlags {
    fn default() -> OptionFlags {
        OptionFlags::VERIFY_CHECKSUM
            | OptionFlags::DEMOTE_TO_HELPER
            | OptionFlags::GEOMETRY_POINT_SIZE
    }
}

/// How to translate.
///
/// Non-exhaustive: start from [`Options::default`] and assign fields, or chain the `with_*`
/// methods (`Options::default().with_flag(OptionFlags::DEBUG_NAMES, true)`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Where each D3D register range goes in Vulkan. Default [`Bindings::Auto`]: the root
    /// signature the container embeds, else the default layout (set = register space, the
    /// D3D11 layout inside; [`crate::bindings::SpacesBindings`]).
    pub bindings: Bindings,
    /// The Vulkan/SPIR-V version to write for.
    pub target: Target,
    /// The on/off choices (checksum, names, discard semantics, sparse residency, point size).
    pub flags: OptionFlags,
    /// Float execution modes the device supports.
    pub float_controls: FloatControls,
    /// Stream output (transform feedback) of the last stage before the rasterizer (vertex,
    /// domain or geometry shader); `None`: nothing is captured and stream 0 is rasterized.
    pub stream_output: Option<StreamOutput>,
    /// How a hull shader's patch-constant (fork and join) phases are spread over the
    /// tessellation-control invocations (default [`HullSchedule::Serial`]).
    pub hull_schedule: HullSchedule,
    /// Domain shaders: the hull shader's partitioning and output primitive, declared in the
    /// domain shader too (Vulkan accepts them in either tessellation stage; the hull shader
    /// always declares them). Default `None`.
    pub domain_modes: Option<DomainModes>,
    /// SM5 class linkage (interfaces): by default run-time dispatch through a block of
    /// function-table indices and `this` data bound at set 0, binding 14; or the instances
    /// bound at `*SetShader` time ([`ClassLinkage::bound`]), called directly
    /// (`docs/runtime.md`, "Class linkage").
    pub class_linkage: ClassLinkage,
    /// Pixel shaders with rasterizer-ordered views: the fragment-shader interlock the device
    /// supports (`VK_EXT_fragment_shader_interlock`). Default [`RovInterlock::Off`]: such a
    /// shader fails with `Unsupported` (a runtime knows its device; the CLI chooses
    /// [`RovInterlock::Pixel`]).
    pub rov_interlock: RovInterlock,
    /// The pipeline state the translation depends on (`docs/runtime.md`, "Pipeline-state
    /// keys"): render-target swizzles and dropped targets (D3D writes nothing to a slot without
    /// a view), dual-source blending (D3D: `o0` and `o1` only, blended as sources 0 and 1),
    /// the rasterizer's sample count (fixed, or a specialization constant), forced
    /// sample-rate shading, multisampled SRVs bound as single-sampled views, and a limit on
    /// the tessellation factors below D3D's `min(dcl_hs_maxtessfactor, 64)`. Default
    /// [`PipelineState::default`]: the same module as without it.
    pub pipeline_state: PipelineState,
    /// How the inputs link to the previous stage: inputs it does not write read 0, location
    /// remapping by semantic, flat and type overrides, a geometry shader's draw primitive
    /// (`docs/runtime.md`, "Stage linking and workarounds"). Default: inputs at their
    /// registers, as declared.
    pub linking: StageLinking,
    /// Workaround switches (zeroed `g#`, forced barriers in compute, invariant position); all
    /// off by default.
    pub workarounds: Workarounds,
    /// Raw and structured views (`t#`, `u#`) declared as texel buffers of 32-bit words instead
    /// of storage buffers, per kind (default: neither; `docs/runtime.md`, "Buffer descriptor
    /// types and alignment"). D3D's rules stay: each word is checked against the view's size,
    /// out-of-bounds reads give 0 and writes and atomics are dropped. The reflection reports the
    /// texel-buffer descriptor types; the runtime binds an `R32_UINT` buffer view.
    pub texel_raw_buffers: TexelRawBuffers,
    /// The device's `minStorageBufferOffsetAlignment`, when D3D's view offsets (raw views at
    /// any multiple of 16 bytes, structured views at any multiple of their stride) can be finer:
    /// the shader adds the remainder the runtime writes to the fix-up block to every address
    /// and checks bounds against the view's size. Default `None`: views are bound at their own
    /// offsets.
    pub storage_buffer_alignment: Option<StorageBufferAlignment>,
    /// Declared formats of typed UAVs, for devices without
    /// `shaderStorageImageReadWithoutFormat` (default: none listed, `Unknown`).
    pub typed_uav_formats: TypedUavFormats,
    /// Direct3D 9 pipeline state (`docs/d3d9.md`); the default changes nothing.
    pub d3d9_state: D3d9State,
    /// Direct3D 9 shaders: how D3D9's float rules are emitted (`docs/d3d9.md`, "Float
    /// rules"). Default [`FloatEmulation::Strict`]: the legacy multiply `0 × x = 0` exactly.
    pub float_emulation: FloatEmulation,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            bindings: Bindings::default(),
            target: Target::default(),
            flags: OptionFlags::default(),
            float_controls: FloatControls::default(),
            stream_output: None,
            hull_schedule: HullSchedule::Serial,
            domain_modes: None,
            class_linkage: ClassLinkage::default(),
            rov_interlock: RovInterlock::Off,
            pipeline_state: PipelineState::default(),
            linking: StageLinking::default(),
            workarounds: Workarounds::default(),
            texel_raw_buffers: TexelRawBuffers::default(),
            storage_buffer_alignment: None,
            typed_uav_formats: TypedUavFormats::default(),
            d3d9_state: D3d9State::default(),
            float_emulation: FloatEmulation::Strict,
        }
    }
}

impl Options {
    /// Whether `flag` is set.
    pub fn has(&self, flag: OptionFlags) -> bool {
        self.flags.contains(flag)
    }

    /// These options with `flag` set (`on`) or cleared.
    #[must_use]
    pub fn with_flag(mut self, flag: OptionFlags, on: bool) -> Options {
        self.flags.set(flag, on);
        self
    }

    /// These options with `bindings`.
    #[must_use]
    pub fn with_bindings(mut self, bindings: Bindings) -> Options {
        self.bindings = bindings;
        self
    }

    /// These options for `target`.
    #[must_use]
    pub fn with_target(mut self, target: Target) -> Options {
        self.target = target;
        self
    }

    /// These options with `float_controls`.
    #[must_use]
    pub fn with_float_controls(mut self, float_controls: FloatControls) -> Options {
        self.float_controls = float_controls;
        self
    }

    /// These options with the stream output `stream_output`.
    #[must_use]
    pub fn with_stream_output(mut self, stream_output: Option<StreamOutput>) -> Options {
        self.stream_output = stream_output;
        self
    }

    /// These options with `class_linkage` (the block's binding, or the bound instances).
    #[must_use]
    pub fn with_class_linkage(mut self, class_linkage: ClassLinkage) -> Options {
        self.class_linkage = class_linkage;
        self
    }

    /// These options with `hull_schedule`.
    #[must_use]
    pub fn with_hull_schedule(mut self, hull_schedule: HullSchedule) -> Options {
        self.hull_schedule = hull_schedule;
        self
    }

    /// These options with `domain_modes`.
    #[must_use]
    pub fn with_domain_modes(mut self, domain_modes: Option<DomainModes>) -> Options {
        self.domain_modes = domain_modes;
        self
    }

    /// These options with `rov_interlock`.
    #[must_use]
    pub fn with_rov_interlock(mut self, rov_interlock: RovInterlock) -> Options {
        self.rov_interlock = rov_interlock;
        self
    }

    /// These options with the pipeline state `pipeline_state`.
    #[must_use]
    pub fn with_pipeline_state(mut self, pipeline_state: PipelineState) -> Options {
        self.pipeline_state = pipeline_state;
        self
    }

    /// These options with the stage linking `linking`.
    #[must_use]
    pub fn with_linking(mut self, linking: StageLinking) -> Options {
        self.linking = linking;
        self
    }

    /// These options with the workaround switches `workarounds`.
    #[must_use]
    pub fn with_workarounds(mut self, workarounds: Workarounds) -> Options {
        self.workarounds = workarounds;
        self
    }

    /// These options with raw and structured views of the kinds `texel_raw_buffers` names
    /// declared as texel buffers.
    #[must_use]
    pub fn with_texel_raw_buffers(mut self, texel_raw_buffers: TexelRawBuffers) -> Options {
        self.texel_raw_buffers = texel_raw_buffers;
        self
    }

    /// These options with the storage-buffer offset fix-up for the device's alignment.
    #[must_use]
    pub fn with_storage_buffer_alignment(
        mut self,
        storage_buffer_alignment: Option<StorageBufferAlignment>,
    ) -> Options {
        self.storage_buffer_alignment = storage_buffer_alignment;
        self
    }

    /// These options with the D3D9 float emulation `float_emulation`.
    #[must_use]
    pub fn with_float_emulation(mut self, float_emulation: FloatEmulation) -> Options {
        self.float_emulation = float_emulation;
        self
    }

    /// These options with the typed UAV formats `typed_uav_formats`.
    #[must_use]
    pub fn with_typed_uav_formats(mut self, typed_uav_formats: TypedUavFormats) -> Options {
        self.typed_uav_formats = typed_uav_formats;
        self
    }

    /// These options with the Direct3D 9 pipeline state `d3d9_state`.
    #[must_use]
    pub fn with_d3d9_state(mut self, d3d9_state: D3d9State) -> Options {
        self.d3d9_state = d3d9_state;
        self
    }

    /// What the back end is asked for (the linking resolved against `semantics`) for a
    /// module of `stage`.
    fn emit_options(&self, semantics: &Semantics, stage: Stage) -> Result<EmitOptions, Error> {
        let mut linking = crate::linking::resolve(&self.linking, &self.workarounds, semantics)?;
        linking.flat_locations |= self.d3d9_state.flat_locations(stage);
        Ok(EmitOptions {
            version: self.target.spirv_version(),
            debug_names: self.has(OptionFlags::DEBUG_NAMES),
            float_controls: self.float_controls,
            demote_to_helper: self.has(OptionFlags::DEMOTE_TO_HELPER),
            sparse_residency: self.has(OptionFlags::SPARSE_RESIDENCY),
            geometry_point_size: self.has(OptionFlags::GEOMETRY_POINT_SIZE),
            domain_modes: self.domain_modes,
            rov_interlock: self.rov_interlock,
            pipeline_state: self.pipeline_state,
            linking,
            texel_raw_buffers: self.texel_raw_buffers,
            storage_buffer_alignment: self.storage_buffer_alignment,
            typed_uav_formats: self.typed_uav_formats.clone(),
            float_emulation: self.float_emulation,
        })
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
    /// Whether the shader reads, writes or uses this range atomically (the rules:
    /// [`ResourceUsage`]'s module).
    pub usage: ResourceUsage,
    /// The dimensions of the shader's other views of this binding, `None` past them: a
    /// Direct3D 9 sampler whose texture type is a specialization or push constant
    /// ([`D3d9State::sampler_types`](crate::D3d9State::sampler_types)) is read through a cube
    /// and a 3-D view beside `shape`'s 2-D one, and the runtime binds an image view of the type
    /// it gave. `[None, None]` for every other binding.
    pub other_views: [Option<ir::Dimension>; 2],
}

/// The storage-buffer fix-up block of a shader ([`Options::storage_buffer_alignment`]): a
/// uniform buffer of `uvec4 data[entries.len()]` (std140) that the runtime fills before each
/// use. `data[i]` belongs to `entries[i]`: `.x` = the view's offset in bytes from the offset the
/// buffer is bound at (the D3D view offset minus the offset rounded down to the alignment),
/// `.y` = the view's size in bytes, `.zw` = 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixupBlock {
    /// Where the block is bound ([`StorageBufferAlignment::block`]).
    pub target: BindingTarget,
    /// The view of each element, in element order.
    pub entries: Vec<BufferFixup>,
}

/// The raw or structured view one element of the fix-up block describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferFixup {
    /// `ShaderResource` or `UnorderedAccess`.
    pub kind: ResourceKind,
    /// Register space.
    pub space: u32,
    /// First register of the declared range.
    pub register: u32,
    /// The DXBC operand id.
    pub id: u32,
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
    /// The storage-buffer fix-up block the shader reads ([`Options::storage_buffer_alignment`]),
    /// when some view needs an entry; `None` otherwise.
    pub buffer_fixups: Option<FixupBlock>,
    /// Hull and domain shaders: the tessellator declarations (domain, control-point counts;
    /// hull shaders also partitioning, output primitive and `dcl_hs_max_tessfactor`). A
    /// runtime passes the hull shader's partitioning and output primitive to the domain
    /// shader's translation in [`Options::domain_modes`] where its Vulkan driver wants them
    /// there.
    pub tessellation: Option<ir::TessellationInfo>,
    /// The input signature's semantics (empty without a signature, and from
    /// [`bound_resources`], which reads no signature).
    pub inputs: Vec<Semantic>,
    /// The output signature's semantics: what the next stage's
    /// [`StageLinking::previous_outputs`] takes.
    pub outputs: Vec<Semantic>,
    /// The push-constant bytes the module declares (root constants, bindless table offsets,
    /// root-descriptor addresses), `None` when it declares none: the pipeline layout must give
    /// [`ShaderInfo::stage`] a push-constant range that contains it.
    pub push_constants: Option<emit::PushConstantRange>,
    /// The `SpecId`s of the [`Options::d3d9_state`] values the pipeline may specialize.
    pub spec_ids: Vec<u32>,
}

/// A translated shader.
#[derive(Clone, Debug, PartialEq)]
pub struct Translation {
    /// The SPIR-V module.
    pub spirv: Vec<u32>,
    /// Reflection.
    pub info: ShaderInfo,
    /// Where the module does not do exactly what the shader asked, or what a runtime may want
    /// in its log ([`Warning`]), in the order found; each names its instruction as errors do.
    /// Empty (and unallocated) for most shaders; they never change [`Translation::spirv`].
    pub warnings: Vec<Warning>,
}

impl Translation {
    /// [`Translation::warnings`].
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

/// The most bytes of each buffer a [`Translator`] keeps between translations (8 MiB in all):
/// room for the IR and the SPIR-V of all but the very largest shaders of real games (the 99th
/// percentile of the corpus needs under 1 MiB of each; 10 shaders in 7850 need more than 2 MiB).
pub const KEEP_BYTES: usize = 4 << 20;

/// A translator: translates shaders one after another, reusing the buffers of one translation
/// for the next.
///
/// It owns the IR instruction arena and the back end's buffers (the SPIR-V module under
/// construction and the emitter's tables): a caller translating many shaders allocates them
/// once instead of once per shader (and, for large shaders, does not map, fault in and unmap
/// fresh pages every time). Nothing of one translation's result stays in them: each is emptied
/// before use. What it keeps is bounded by [`KEEP_BYTES`] per buffer (a larger one is freed
/// after the translation that grew it), and freed by [`Translator::release_buffers`] or on drop.
/// A `Translator` is `Send`: one per thread, or moved between threads.
#[derive(Debug, Default)]
pub struct Translator {
    /// The IR instruction arena ([`ir::Module::insts`]), empty between translations.
    insts: Vec<ir::Inst>,
    /// The back end's buffers, emptied by the next translation.
    emit: emit::Scratch,
}

// `translate` may run on many threads at once: everything it takes and returns can be shared
// and sent between them; a `Translator` can be sent.
const _: () = {
    const fn thread_safe<T: Send + Sync>() {}
    const fn sendable<T: Send>() {}
    thread_safe::<Options>();
    thread_safe::<Translation>();
    thread_safe::<Error>();
    thread_safe::<ir::Module>();
    sendable::<Translator>();
};

impl Translator {
    /// A translator without buffers (they are allocated by the first translation).
    pub const fn new() -> Translator {
        Translator {
            insts: Vec::new(),
            emit: emit::Scratch::EMPTY,
        }
    }

    /// Translates a DXBC container or a Direct3D 9 token stream to SPIR-V (see [`translate`]),
    /// in this translator's buffers.
    #[cfg(any(feature = "dxbc", feature = "d3d9"))]
    pub fn translate(&mut self, bytes: &[u8], options: &Options) -> Result<Translation, Error> {
        match Format::of(bytes, options)? {
            #[cfg(feature = "d3d9")]
            Format::D3d9 => self.translate_with::<D3d9<'_>>(bytes, options),
            #[cfg(feature = "dxbc")]
            Format::Dxbc => self.translate_with::<Dxbc<'_>>(bytes, options),
            #[cfg(all(feature = "dxbc", feature = "d3d9"))]
            Format::Level9 => self.translate_with::<Level9Part<'_>>(bytes, options),
        }
    }

    /// Translates `bytes` with the front end `F`: the pipeline every front end shares.
    pub(crate) fn translate_with<'a, F: FrontEnd<'a>>(
        &mut self,
        bytes: &'a [u8],
        options: &Options,
    ) -> Result<Translation, Error> {
        let front = F::decode(bytes, options.has(OptionFlags::VERIFY_CHECKSUM))
            .map_err(|e| name(e, |at| F::name_in_bytes(bytes, at)))?;
        let arena = std::mem::take(&mut self.insts);
        let translation = match lower_and_check(&front, options, arena) {
            Ok(mut module) => {
                let semantics = front.semantics();
                let translation = emit_with_info(&module, options, semantics, &mut self.emit);
                self.insts = std::mem::take(&mut module.insts);
                translation
            }
            Err(e) => Err(e),
        };
        self.trim();
        let mut translation = translation.map_err(|e| name(e, |at| front.name_at(at)))?;
        for w in &mut translation.warnings {
            w.instruction = w
                .instruction
                .or_else(|| w.offset.and_then(|at| front.name_at(at)));
        }
        Ok(translation)
    }

    /// Frees the buffers this translator keeps for its next translation (at most
    /// 2 × [`KEEP_BYTES`]); the next translation allocates them anew.
    pub fn release_buffers(&mut self) {
        *self = Translator::new();
    }

    /// Empties the buffers, dropping whichever is larger than [`KEEP_BYTES`].
    fn trim(&mut self) {
        self.insts.clear();
        if self.insts.capacity() * size_of::<ir::Inst>() > KEEP_BYTES {
            self.insts = Vec::new();
        }
        if self.emit.allocated_bytes() > KEEP_BYTES {
            self.emit = emit::Scratch::default();
        }
    }

    /// The bytes this translator holds allocated.
    pub fn allocated_bytes(&self) -> usize {
        self.insts.capacity() * size_of::<ir::Inst>() + self.emit.allocated_bytes()
    }

    /// A translator holding the given buffers (tests of what is kept).
    #[cfg(test)]
    pub(crate) fn with_buffers(insts: Vec<ir::Inst>, emit: emit::Scratch) -> Translator {
        Translator { insts, emit }
    }

    /// Empties the buffers as after a translation (tests of what is kept).
    #[cfg(test)]
    pub(crate) fn trimmed(mut self) -> Translator {
        self.trim();
        self
    }
}

/// Translates a DXBC container or a Direct3D 9 token stream (told by its version token) to
/// SPIR-V.
///
/// Errors name the byte offset and the instruction or structure they are about
/// (`at 0x1a4 (dcl_temps): 70000 temps exceeds the limit 4096`; see [`Error`]). The function
/// keeps no state between calls, only a [`Translator`]'s buffers per thread for reuse (bounded;
/// [`crate::release_thread_buffers`] frees them): any number of threads may call it at once.
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
pub fn translate(bytes: &[u8], options: &Options) -> Result<Translation, Error> {
    crate::scratch::with_thread_translator(|translator| translator.translate(bytes, options))
}

/// The stages up to the IR the back end receives (decoded, lowered, passes run, validated).
/// Errors name their instruction as [`translate`]'s do.
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
pub fn translate_to_ir(bytes: &[u8], options: &Options) -> Result<ir::Module, Error> {
    match Format::of(bytes, options)? {
        #[cfg(feature = "d3d9")]
        Format::D3d9 => translate_to_ir_with::<D3d9<'_>>(bytes, options),
        #[cfg(feature = "dxbc")]
        Format::Dxbc => translate_to_ir_with::<Dxbc<'_>>(bytes, options),
        #[cfg(all(feature = "dxbc", feature = "d3d9"))]
        Format::Level9 => translate_to_ir_with::<Level9Part<'_>>(bytes, options),
    }
}

/// Where each range the shader declares is bound under `options`, without emitting SPIR-V:
/// the same resolution of [`Options::bindings`] as [`translate`] ([`crate::bindings::Bindings::Auto`]
/// reads the embedded root signature), one [`BoundResource`] per declared range and per UAV
/// counter, in [`ShaderInfo::resources`] order. [`BoundResource::target`] holds the set, the
/// binding, the array offset and the size of the binding (`descriptor_count`, `Unbounded` for
/// a runtime array). Errors: those of [`translate_to_ir`].
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
pub fn bound_resources(bytes: &[u8], options: &Options) -> Result<Vec<BoundResource>, Error> {
    Ok(bound_shader_info(bytes, options)?.resources)
}

/// [`bound_resources`] with the rest of the reflection [`translate`] gives, among it the
/// push-constant range ([`ShaderInfo::push_constants`]), without emitting SPIR-V. Errors:
/// those of [`translate_to_ir`], and a push-constant layout the back end refuses.
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
pub fn bound_shader_info(bytes: &[u8], options: &Options) -> Result<ShaderInfo, Error> {
    match Format::of(bytes, options)? {
        #[cfg(feature = "d3d9")]
        Format::D3d9 => bound_shader_info_with::<D3d9<'_>>(bytes, options),
        #[cfg(feature = "dxbc")]
        Format::Dxbc => bound_shader_info_with::<Dxbc<'_>>(bytes, options),
        #[cfg(all(feature = "dxbc", feature = "d3d9"))]
        Format::Level9 => bound_shader_info_with::<Level9Part<'_>>(bytes, options),
    }
}

/// [`bound_shader_info`] with the front end `F`.
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
fn bound_shader_info_with<'a, F: FrontEnd<'a>>(
    bytes: &'a [u8],
    options: &Options,
) -> Result<ShaderInfo, Error> {
    let front = F::decode(bytes, options.has(OptionFlags::VERIFY_CHECKSUM))
        .map_err(|e| name(e, |at| F::name_in_bytes(bytes, at)))?;
    let module = lower_and_check(&front, options, Vec::new())
        .map_err(|e| name(e, |at| front.name_at(at)))?;
    let semantics = front.semantics();
    shader_info(
        &module,
        &options.emit_options(&semantics, module.stage)?,
        semantics,
    )
}

/// The back end alone, on an IR module built or edited by hand (device tests of single
/// operations, `dxbc2spv::fuzzing::emit_ir`): `module` is checked with [`ir::validate`], then
/// emitted as [`translate`] emits with `options` (no signatures: no stage linking by semantic).
#[cfg(any(test, feature = "fuzzing"))]
pub fn emit_ir(module: &ir::Module, options: &Options) -> Result<Vec<u32>, Error> {
    ir::validate(module)?;
    let emit_options = options.emit_options(&Semantics::default(), module.stage)?;
    Ok(emit::emit(module, &emit_options)?)
}

/// [`translate_to_ir`] with the front end `F`.
#[cfg(any(feature = "dxbc", feature = "d3d9"))]
fn translate_to_ir_with<'a, F: FrontEnd<'a>>(
    bytes: &'a [u8],
    options: &Options,
) -> Result<ir::Module, Error> {
    let front = F::decode(bytes, options.has(OptionFlags::VERIFY_CHECKSUM))
        .map_err(|e| name(e, |at| F::name_in_bytes(bytes, at)))?;
    lower_and_check(&front, options, Vec::new()).map_err(|e| name(e, |at| front.name_at(at)))
}

/// The front end's lowering into `arena`, the passes and the validator.
fn lower_and_check<'a, F: FrontEnd<'a>>(
    front: &F,
    options: &Options,
    arena: Vec<ir::Inst>,
) -> Result<ir::Module, Error> {
    let mut module = front.lower(
        options.stream_output.as_ref(),
        &options.class_linkage,
        &options.d3d9_state,
        arena,
    )?;
    let bindings = front.bindings(&options.bindings, module.stage)?;
    passes::run(
        &mut module,
        &bindings,
        &options.class_linkage,
        options.hull_schedule,
        &options.d3d9_state,
    )?;
    ir::validate(&module)?;
    Ok(module)
}

/// The back end and the reflection of a module that passed [`ir::validate`].
pub(crate) fn emit_with_info(
    module: &ir::Module,
    options: &Options,
    semantics: Semantics,
    scratch: &mut emit::Scratch,
) -> Result<Translation, Error> {
    let emit_options = options.emit_options(&semantics, module.stage)?;
    let emitted = emit::emit_reusing(module, &emit_options, scratch)?;
    Ok(Translation {
        spirv: emitted.spirv,
        info: shader_info(module, &emit_options, semantics)?,
        warnings: emitted.warnings,
    })
}

/// Names the instruction or structure at the error's offset (with `name_at`) when the stage
/// that raised it knew only the offset.
fn name(error: Error, name_at: impl FnOnce(u32) -> Option<&'static str>) -> Error {
    if error.instruction().is_some() {
        return error;
    }
    match error.offset().and_then(name_at) {
        Some(name) => error.with_instruction(name),
        None => error,
    }
}

/// The reflection of `module` as `options` translate it: descriptor types as chosen, and
/// multisampled SRVs the pipeline state binds single-sampled reported with the shape the
/// runtime binds.
fn shader_info(
    module: &ir::Module,
    options: &EmitOptions,
    semantics: Semantics,
) -> Result<ShaderInfo, Error> {
    let stage = module.stage;
    let entry = |range: RegisterRange,
                 id: u32,
                 shape: Option<ResourceShape>,
                 descriptor: DescriptorType,
                 target: Option<BindingTarget>,
                 span: u32,
                 usage: Option<&ResourceUsage>|
     -> Result<BoundResource, Error> {
        Ok(BoundResource {
            kind: range.kind,
            space: range.space,
            register: range.first,
            count: range.count,
            id,
            shape,
            descriptor,
            target: target.ok_or_else(|| Error::internal(span, "declaration without a binding"))?,
            usage: usage.copied().unwrap_or_default(),
            other_views: [None; 2],
        })
    };
    let usage = crate::resource_usage::usages(module);
    let mut resources = Vec::new();
    for (cb, u) in module.cbuffers.iter().zip(0..) {
        let (d, u) = (DescriptorType::UniformBuffer, usage.cbuffers.get(u));
        resources.push(entry(cb.range, cb.id, None, d, cb.binding, cb.span, u)?);
    }
    // A view's usage and dimension belong to the declaration it is a view of.
    let mut merged = usage.resources.clone();
    let mut other_views = vec![[None; 2]; module.resources.len()];
    for (v, u) in module.resources.iter().zip(&usage.resources) {
        let Some(of) = v.view_of.map(|of| of.index()) else {
            continue;
        };
        if let Some(m) = merged.get_mut(of) {
            *m |= *u;
        }
        let slot = other_views
            .get_mut(of)
            .and_then(|views| views.iter_mut().find(|d| d.is_none()));
        if let (Some(slot), ResourceShape::Typed { dim, .. }) = (slot, v.shape) {
            *slot = Some(dim);
        }
    }
    for (r, i) in module.resources.iter().zip(0..) {
        if r.view_of.is_some() {
            // Reported once, as the declaration it is a view of.
            continue;
        }
        let d = emit::descriptor_type(r, options);
        let shape = options.pipeline_state.bound_shape(r);
        let u = merged.get(i);
        let mut bound = entry(r.range, r.id, Some(shape), d, r.binding, r.span, u)?;
        bound.other_views = other_views.get(i).copied().unwrap_or_default();
        resources.push(bound);
        if r.counter {
            let (range, d) = (r.range.counter(), DescriptorType::StorageBuffer);
            let u = usage.counters.get(i);
            resources.push(entry(range, r.id, None, d, r.counter_binding, r.span, u)?);
        }
    }
    for (smp, i) in module.samplers.iter().zip(0..) {
        let (d, u) = (DescriptorType::Sampler, usage.samplers.get(i));
        resources.push(entry(smp.range, smp.id, None, d, smp.binding, smp.span, u)?);
    }
    let fixups: Vec<BufferFixup> = emit::fixup_entries(&module.resources, options)
        .into_iter()
        .filter_map(|i| module.resources.get(i))
        .map(|r| BufferFixup {
            kind: r.range.kind,
            space: r.range.space,
            register: r.range.first,
            id: r.id,
        })
        .collect();
    let buffer_fixups = match options.storage_buffer_alignment {
        Some(a) if !fixups.is_empty() => Some(FixupBlock {
            target: a.block,
            entries: fixups,
        }),
        _ => None,
    };
    Ok(ShaderInfo {
        entry_point: ENTRY_POINT,
        stage,
        workgroup_size: module.thread_group,
        resources,
        buffer_fixups,
        tessellation: matches!(stage, Stage::Hull | Stage::Domain).then_some(module.tessellation),
        inputs: semantics.inputs,
        outputs: semantics.outputs,
        push_constants: emit::push_constant_range(module).map_err(Error::from)?,
        spec_ids: module
            .parameters
            .iter()
            .flat_map(|p| p.spec_ids())
            .collect(),
    })
}

#[cfg(test)]
mod tests;
