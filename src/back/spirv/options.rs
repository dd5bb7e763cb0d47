//! What the back end is asked for: [`EmitOptions`] (SPIR-V version, names, discard semantics,
//! sparse residency, point size, buffer descriptor types, [`FloatEmulation`]), the device's
//! [`FloatControls`] and [`RovInterlock`], a domain shader's [`DomainModes`], the
//! [`PipelineState`] keys, and the [`ENTRY_POINT`] name every module uses.
//!
//! Contract: these types belong to the back end; the facade re-exports the ones a caller sets
//! (`dxbc2spv::FloatControls`, `dxbc2spv::FloatEmulation`, `dxbc2spv::RovInterlock`,
//! `dxbc2spv::DomainModes`, `dxbc2spv::ENTRY_POINT`) and builds an [`EmitOptions`] from its
//! own `Options`. Nothing here depends on a front end.

pub use super::buffer_options::{
    StorageBufferAlignment, TexelRawBuffers, TypedUavFormats, UavFormat, UnlistedUavFormat,
};
pub use super::state::PipelineState;
use crate::ir;
use crate::spv::Version;

/// The name of every entry point this translator writes.
pub const ENTRY_POINT: &str = "main";

/// How to emit.
#[derive(Clone, Debug, PartialEq)]
pub struct EmitOptions {
    /// `discard` demotes to a helper invocation (else `OpKill`).
    pub demote_to_helper: bool,
    /// SPIR-V version of the module.
    pub version: Version,
    /// Emit `OpName`s.
    pub debug_names: bool,
    /// Float execution modes to declare.
    pub float_controls: FloatControls,
    /// Translate the tiled-resource (`_s`) operations with `OpImageSparse*` (capability
    /// `SparseResidency`), so that `check_access_fully_mapped` reports real residency; when
    /// off they are ordinary accesses whose status always reads "fully mapped" (see
    /// `texture/sparse.rs`).
    pub sparse_residency: bool,
    /// Geometry shaders that emit points write `PointSize` (the device enabled
    /// `shaderTessellationAndGeometryPointSize`).
    pub geometry_point_size: bool,
    /// Domain shaders: the hull shader's partitioning and output primitive, to declare too.
    pub domain_modes: Option<DomainModes>,
    /// How rasterizer-ordered views are kept ordered, if at all.
    pub rov_interlock: RovInterlock,
    /// Raw and structured views declared as texel buffers.
    pub texel_raw_buffers: TexelRawBuffers,
    /// The storage-buffer offset fix-up, when the device's alignment needs one.
    pub storage_buffer_alignment: Option<StorageBufferAlignment>,
    /// Declared formats of typed UAVs.
    pub typed_uav_formats: TypedUavFormats,
    /// The pipeline state the module depends on (render targets, samples, tessellation
    /// limit); the default changes nothing.
    pub pipeline_state: PipelineState,
    /// Stage linking (inputs the previous stage does not write, remapped locations, flat and
    /// type overrides, a geometry shader's draw primitive) and workaround switches.
    pub linking: Linking,
    /// How Direct3D 9's float rules (the legacy multiply, `rcp`/`rsq` of 0) are emitted.
    pub float_emulation: FloatEmulation,
}

/// How the Direct3D 9 float operations (the IR's `Legacy` family) are emitted
/// (`docs/d3d9.md`, "Float rules"). Modules without them are the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FloatEmulation {
    /// D3D9's rules exactly (the default): the legacy multiply `0 × x = 0` for every `x`
    /// (infinity and NaN included) in `mul`, `mad`, the dot products, `pow`, `lit` and `dst`,
    /// a zero test per multiply; `rcp(0)` and `rsq(0)` are `+inf`.
    #[default]
    Strict,
    /// The IEEE multiply, with the results of `rcp`, `rsq`, `exp`, `pow` and `nrm`'s scale
    /// clamped to `±FLT_MAX`, so that no infinity reaches a later multiply (`0 × rcp(0)` is 0
    /// as in D3D9); `0 × inf` from other sources is NaN.
    Fast,
}

/// Stage linking and workaround switches (`docs/runtime.md`, "Stage linking and
/// workarounds"). The default changes nothing: every module is the same bytes as without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Linking {
    /// Per input register (`v#`, index = register): the location it reads and the components
    /// the previous stage (vertex shaders: the input layout) writes there. `None`: every input
    /// is declared at its register's location, all components.
    pub inputs: Option<[LinkedInput; 32]>,
    /// Input locations (bit n = location n) whose pixel-shader inputs are `Flat` whatever
    /// their interpolation mode.
    pub flat_locations: u32,
    /// Per input location: the component type to declare the input with instead of the
    /// signature's (the words are passed through bit for bit).
    pub input_types: [Option<ir::ComponentType>; 32],
    /// Geometry shaders: the primitive the draw feeds (`None`: the declared one).
    pub geometry_input: Option<ir::InputPrimitive>,
    /// How `g#` is zero-initialised.
    pub workgroup_zero_init: WorkgroupZeroInit,
    /// Barriers added after shared-memory or UAV writes in compute shaders.
    pub forced_barriers: ForcedBarriers,
    /// Decorate the `Position` output `Invariant`.
    pub invariant_position: bool,
}

/// Where an input register is read from (an element of [`Linking::inputs`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LinkedInput {
    /// The location the previous stage writes the register's data to.
    pub location: u32,
    /// The components it writes (bit 0 = x); 0: none, the register reads 0.
    pub written: u8,
}

/// How thread-group shared memory (`g#`) starts: D3D leaves it undefined; some games read it
/// before writing and expect zeros.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WorkgroupZeroInit {
    /// Undefined, as in D3D (the default).
    #[default]
    Off,
    /// An `OpConstantNull` initializer on each Workgroup variable: needs Vulkan 1.3 or
    /// `VK_KHR_zero_initialize_workgroup_memory` (`shaderZeroInitializeWorkgroupMemory`).
    Initializer,
    /// Explicit stores at the start of the compute shader (each invocation zeroes every
    /// `invocations`-th word from its `LocalInvocationIndex`, then a workgroup barrier): any
    /// Vulkan version.
    Stores,
}

/// Barriers a compute shader gets beyond its own `sync` instructions, for games that rely on
/// the ordering their D3D driver happened to give. A write's barrier is an execution barrier
/// (`sync_..._t`) only where every invocation of the group reaches it: outside any `if`,
/// `loop` or `switch` of the main program; elsewhere it is a memory barrier of the same
/// memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ForcedBarriers {
    /// None (the default).
    #[default]
    Off,
    /// After every `g#` store and atomic: `sync_g_t` (workgroup execution and `g#` memory).
    Tgsm,
    /// After every `g#` store or atomic `sync_g_t`, and after every UAV store or atomic
    /// `sync_uglobal_g_t` (device-scope UAV and `g#` memory, workgroup execution).
    TgsmAndUav,
}

/// What the device offers to keep a pixel shader's rasterizer-ordered views (`_rov` UAVs)
/// ordered: the features of `VK_EXT_fragment_shader_interlock` it enabled. D3D guarantees that
/// the ROV accesses of pixel-shader invocations that overlap run in the order of their
/// primitives; the module keeps that guarantee with an ordered interlock (a critical section
/// between `OpBeginInvocationInterlockEXT` and `OpEndInvocationInterlockEXT`). Shaders without
/// ROVs are the same whatever is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RovInterlock {
    /// No interlock (the default): a shader that declares a rasterizer-ordered view fails with
    /// `Unsupported` (the ordering D3D guarantees is never silently dropped).
    #[default]
    Off,
    /// `fragmentShaderPixelInterlock`: the module declares `PixelInterlockOrderedEXT`
    /// (capability `FragmentShaderPixelInterlockEXT`), one invocation at a time per pixel, in
    /// primitive order.
    Pixel,
    /// `fragmentShaderPixelInterlock` and `fragmentShaderSampleInterlock`: as [`Pixel`], except
    /// that a shader that runs per sample (it reads `SV_SampleIndex` or interpolates an input
    /// per sample) declares `SampleInterlockOrderedEXT` (capability
    /// `FragmentShaderSampleInterlockEXT`): only invocations covering the same sample wait
    /// for each other.
    ///
    /// [`Pixel`]: RovInterlock::Pixel
    PixelAndSample,
}

/// Float behaviour the target device guarantees when a module asks for it
/// (`VK_KHR_shader_float_controls`, core in Vulkan 1.2). D3D10+ requires IEEE infinities, NaNs
/// and signed zeros, flushes fp32 denormals and keeps fp64 ones; a runtime sets each flag its
/// device supports (`VkPhysicalDeviceFloatControlsProperties`), and the module then declares the
/// matching execution mode. All off (the default) gives a module that runs on any device, with
/// the driver's default float behaviour.
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

/// The tessellator modes only a hull shader declares, for a domain shader's translation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DomainModes {
    /// `dcl_tessellator_partitioning`.
    pub partitioning: ir::TessPartitioning,
    /// `dcl_tessellator_output_primitive`.
    pub output_primitive: ir::TessOutputPrimitive,
}

#[cfg(test)]
impl EmitOptions {
    /// What the back end's unit tests start from, for SPIR-V `version`: `discard` demotes,
    /// no interlock, geometry point size on, debug names on, every other choice its default.
    pub(crate) fn for_tests(version: Version) -> EmitOptions {
        EmitOptions {
            demote_to_helper: true,
            rov_interlock: RovInterlock::Off,
            pipeline_state: PipelineState::default(),
            linking: Linking::default(),
            float_emulation: FloatEmulation::default(),
            geometry_point_size: true,
            domain_modes: None,
            version,
            debug_names: true,
            float_controls: FloatControls::default(),
            sparse_residency: false,
            texel_raw_buffers: TexelRawBuffers::default(),
            storage_buffer_alignment: None,
            typed_uav_formats: TypedUavFormats::default(),
        }
    }
}
