//! What the back end is asked for: [`EmitOptions`] (SPIR-V version, names, discard semantics,
//! sparse residency, point size), the device's [`FloatControls`] and a domain shader's
//! [`DomainModes`], and the [`ENTRY_POINT`] name every module uses.
//!
//! Contract: these types belong to the back end; the facade re-exports the ones a caller sets
//! (`dxbc2spv::FloatControls`, `dxbc2spv::DomainModes`, `dxbc2spv::ENTRY_POINT`) and builds an
//! [`EmitOptions`] from its own `Options`. Nothing here depends on a front end.

use crate::ir;
use crate::spv::Version;

/// The name of every entry point this translator writes.
pub const ENTRY_POINT: &str = "main";

/// How to emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
