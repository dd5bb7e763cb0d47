//! Device features by their Vulkan names (`shaderFloat64`, `shaderInt64`, …): which ones the
//! device supports, which ones the harness enables, and the float-control properties a test can
//! require.
//!
//! Three kinds of names:
//! - **enabled** features: turned on at device creation whenever the device supports them, so a
//!   shader may use them without asking (the SPIR-V capabilities `Float64`, `Int64`, …);
//! - **opt-in** features (`robustBufferAccess`, `robustImageAccess`): they change what a shader
//!   observes (out-of-bounds accesses), so they are only enabled on a device made for tests that
//!   require them ([`crate::GpuOptions::opt_in_features`]);
//! - **properties** (`shaderDenormFlushToZeroFloat32`, …): facts of the device from
//!   `VkPhysicalDeviceVulkan12Properties`; nothing to enable, a test can only require them.
//!
//! Features of Vulkan 1.1/1.2 (`VkPhysicalDeviceVulkan11Features`, `…12Features`) are known only
//! on devices with Vulkan 1.2 or newer, those of `…13Features` only on Vulkan 1.3 devices; on an
//! older device they count as unsupported.
//!
//! Extension features: `transformFeedback` and `geometryStreams` (with the properties
//! `transformFeedbackQueries` and `transformFeedbackRasterizationStreamSelect`) come from
//! `VK_EXT_transform_feedback`; `shaderStencilExport` is the presence of
//! `VK_EXT_shader_stencil_export`; `maintenance5` comes from `VK_KHR_maintenance5` (the format
//! `VK_FORMAT_A8_UNORM_KHR`); `fragmentShaderPixelInterlock` and `fragmentShaderSampleInterlock`
//! (rasterizer-ordered views) come from `VK_EXT_fragment_shader_interlock`. A device that has
//! the extension gets it enabled together with the feature (`FeatureStructs::extensions`).

use std::collections::BTreeSet;
use std::fmt;

use ash::vk;

/// How the harness treats a name of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureKind {
    /// Enabled on every device that supports it.
    Enabled,
    /// Enabled only when asked for ([`crate::GpuOptions::opt_in_features`]).
    OptIn,
    /// A device property: nothing to enable.
    Property,
}

/// The feature structures of one device, Vulkan 1.0 to 1.3.
#[derive(Clone, Copy, Default)]
pub(crate) struct FeatureStructs {
    pub(crate) v10: vk::PhysicalDeviceFeatures,
    pub(crate) v11: vk::PhysicalDeviceVulkan11Features<'static>,
    pub(crate) v12: vk::PhysicalDeviceVulkan12Features<'static>,
    pub(crate) v13: vk::PhysicalDeviceVulkan13Features<'static>,
    /// `VkPhysicalDeviceTransformFeedbackFeaturesEXT` (`VK_EXT_transform_feedback`).
    pub(crate) xfb: vk::PhysicalDeviceTransformFeedbackFeaturesEXT<'static>,
    /// `VkPhysicalDeviceMaintenance5FeaturesKHR` (`VK_KHR_maintenance5`: `A8_UNORM`).
    pub(crate) m5: vk::PhysicalDeviceMaintenance5FeaturesKHR<'static>,
    /// `VkPhysicalDeviceFragmentShaderInterlockFeaturesEXT` (`VK_EXT_fragment_shader_interlock`).
    pub(crate) interlock: vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT<'static>,
    /// Features that are whole extensions without a feature structure.
    pub(crate) ext: ExtensionFeatures,
}

/// Extensions that are features by themselves (no feature structure): `TRUE` when present (in a
/// query) or wanted (when enabling).
#[derive(Clone, Copy, Default)]
pub(crate) struct ExtensionFeatures {
    /// `VK_EXT_shader_stencil_export` (SPIR-V `StencilExportEXT`: `oStencilRef`).
    pub(crate) shader_stencil_export: vk::Bool32,
}

/// The properties the table reads.
#[derive(Clone, Copy, Default)]
pub(crate) struct PropertyStructs {
    pub(crate) v12: vk::PhysicalDeviceVulkan12Properties<'static>,
    pub(crate) xfb: vk::PhysicalDeviceTransformFeedbackPropertiesEXT<'static>,
}

/// One name of the table: how to read it from the queried structures and how to enable it.
struct FeatureDef {
    name: &'static str,
    kind: FeatureKind,
    get: fn(&FeatureStructs, &PropertyStructs) -> bool,
    set: fn(&mut FeatureStructs),
}

macro_rules! feature_table {
    ($($kind:ident $level:ident . $field:ident = $name:literal;)*) => {
        const FEATURES: &[FeatureDef] = &[$(feature_table!(@def $kind $level . $field = $name)),*];
    };
    (@def Property $level:ident . $field:ident = $name:literal) => {
        FeatureDef {
            name: $name,
            kind: FeatureKind::Property,
            get: |_, p| p.$level.$field == vk::TRUE,
            set: |_| {},
        }
    };
    (@def $kind:ident $level:ident . $field:ident = $name:literal) => {
        FeatureDef {
            name: $name,
            kind: FeatureKind::$kind,
            get: |s, _| s.$level.$field == vk::TRUE,
            set: |s| s.$level.$field = vk::TRUE,
        }
    };
}

feature_table! {
    // Vulkan 1.0 (VkPhysicalDeviceFeatures): the ones shaders and the test runners touch.
    OptIn v10.robust_buffer_access = "robustBufferAccess";
    Enabled v10.full_draw_index_uint32 = "fullDrawIndexUint32";
    Enabled v10.image_cube_array = "imageCubeArray";
    Enabled v10.independent_blend = "independentBlend";
    Enabled v10.geometry_shader = "geometryShader";
    Enabled v10.tessellation_shader = "tessellationShader";
    Enabled v10.sample_rate_shading = "sampleRateShading";
    Enabled v10.dual_src_blend = "dualSrcBlend";
    Enabled v10.logic_op = "logicOp";
    Enabled v10.multi_draw_indirect = "multiDrawIndirect";
    Enabled v10.draw_indirect_first_instance = "drawIndirectFirstInstance";
    Enabled v10.depth_clamp = "depthClamp";
    Enabled v10.depth_bias_clamp = "depthBiasClamp";
    Enabled v10.fill_mode_non_solid = "fillModeNonSolid";
    Enabled v10.depth_bounds = "depthBounds";
    Enabled v10.multi_viewport = "multiViewport";
    Enabled v10.sampler_anisotropy = "samplerAnisotropy";
    Enabled v10.texture_compression_bc = "textureCompressionBC";
    Enabled v10.occlusion_query_precise = "occlusionQueryPrecise";
    Enabled v10.vertex_pipeline_stores_and_atomics = "vertexPipelineStoresAndAtomics";
    Enabled v10.fragment_stores_and_atomics = "fragmentStoresAndAtomics";
    Enabled v10.shader_tessellation_and_geometry_point_size = "shaderTessellationAndGeometryPointSize";
    Enabled v10.shader_image_gather_extended = "shaderImageGatherExtended";
    Enabled v10.shader_storage_image_extended_formats = "shaderStorageImageExtendedFormats";
    Enabled v10.shader_storage_image_multisample = "shaderStorageImageMultisample";
    Enabled v10.shader_storage_image_read_without_format = "shaderStorageImageReadWithoutFormat";
    Enabled v10.shader_storage_image_write_without_format = "shaderStorageImageWriteWithoutFormat";
    Enabled v10.shader_uniform_buffer_array_dynamic_indexing = "shaderUniformBufferArrayDynamicIndexing";
    Enabled v10.shader_sampled_image_array_dynamic_indexing = "shaderSampledImageArrayDynamicIndexing";
    Enabled v10.shader_storage_buffer_array_dynamic_indexing = "shaderStorageBufferArrayDynamicIndexing";
    Enabled v10.shader_storage_image_array_dynamic_indexing = "shaderStorageImageArrayDynamicIndexing";
    Enabled v10.shader_clip_distance = "shaderClipDistance";
    Enabled v10.shader_cull_distance = "shaderCullDistance";
    Enabled v10.shader_float64 = "shaderFloat64";
    Enabled v10.shader_int64 = "shaderInt64";
    Enabled v10.shader_int16 = "shaderInt16";
    Enabled v10.shader_resource_residency = "shaderResourceResidency";
    Enabled v10.shader_resource_min_lod = "shaderResourceMinLod";
    Enabled v10.variable_multisample_rate = "variableMultisampleRate";
    // Vulkan 1.1 (VkPhysicalDeviceVulkan11Features).
    Enabled v11.storage_buffer16_bit_access = "storageBuffer16BitAccess";
    Enabled v11.uniform_and_storage_buffer16_bit_access = "uniformAndStorageBuffer16BitAccess";
    Enabled v11.storage_push_constant16 = "storagePushConstant16";
    Enabled v11.storage_input_output16 = "storageInputOutput16";
    Enabled v11.multiview = "multiview";
    Enabled v11.variable_pointers_storage_buffer = "variablePointersStorageBuffer";
    Enabled v11.variable_pointers = "variablePointers";
    Enabled v11.shader_draw_parameters = "shaderDrawParameters";
    // Vulkan 1.2 (VkPhysicalDeviceVulkan12Features).
    Enabled v12.storage_buffer8_bit_access = "storageBuffer8BitAccess";
    Enabled v12.uniform_and_storage_buffer8_bit_access = "uniformAndStorageBuffer8BitAccess";
    Enabled v12.shader_buffer_int64_atomics = "shaderBufferInt64Atomics";
    Enabled v12.shader_shared_int64_atomics = "shaderSharedInt64Atomics";
    Enabled v12.shader_float16 = "shaderFloat16";
    Enabled v12.shader_int8 = "shaderInt8";
    Enabled v12.shader_uniform_texel_buffer_array_dynamic_indexing = "shaderUniformTexelBufferArrayDynamicIndexing";
    Enabled v12.shader_storage_texel_buffer_array_dynamic_indexing = "shaderStorageTexelBufferArrayDynamicIndexing";
    Enabled v12.shader_uniform_buffer_array_non_uniform_indexing = "shaderUniformBufferArrayNonUniformIndexing";
    Enabled v12.shader_sampled_image_array_non_uniform_indexing = "shaderSampledImageArrayNonUniformIndexing";
    Enabled v12.shader_storage_buffer_array_non_uniform_indexing = "shaderStorageBufferArrayNonUniformIndexing";
    Enabled v12.shader_storage_image_array_non_uniform_indexing = "shaderStorageImageArrayNonUniformIndexing";
    Enabled v12.shader_uniform_texel_buffer_array_non_uniform_indexing = "shaderUniformTexelBufferArrayNonUniformIndexing";
    Enabled v12.shader_storage_texel_buffer_array_non_uniform_indexing = "shaderStorageTexelBufferArrayNonUniformIndexing";
    Enabled v12.descriptor_binding_partially_bound = "descriptorBindingPartiallyBound";
    Enabled v12.descriptor_binding_variable_descriptor_count = "descriptorBindingVariableDescriptorCount";
    Enabled v12.runtime_descriptor_array = "runtimeDescriptorArray";
    Enabled v12.sampler_filter_minmax = "samplerFilterMinmax";
    Enabled v12.sampler_mirror_clamp_to_edge = "samplerMirrorClampToEdge";
    Enabled v12.scalar_block_layout = "scalarBlockLayout";
    Enabled v12.uniform_buffer_standard_layout = "uniformBufferStandardLayout";
    Enabled v12.shader_subgroup_extended_types = "shaderSubgroupExtendedTypes";
    Enabled v12.host_query_reset = "hostQueryReset";
    Enabled v12.timeline_semaphore = "timelineSemaphore";
    Enabled v12.vulkan_memory_model = "vulkanMemoryModel";
    Enabled v12.vulkan_memory_model_device_scope = "vulkanMemoryModelDeviceScope";
    Enabled v12.shader_output_viewport_index = "shaderOutputViewportIndex";
    Enabled v12.shader_output_layer = "shaderOutputLayer";
    Enabled v12.subgroup_broadcast_dynamic_id = "subgroupBroadcastDynamicId";
    // Root descriptors as device addresses (dxbc2spv's BindingTarget::DeviceAddress).
    Enabled v12.buffer_device_address = "bufferDeviceAddress";
    // Vulkan 1.3 (VkPhysicalDeviceVulkan13Features).
    OptIn v13.robust_image_access = "robustImageAccess";
    Enabled v13.shader_demote_to_helper_invocation = "shaderDemoteToHelperInvocation";
    Enabled v13.shader_terminate_invocation = "shaderTerminateInvocation";
    Enabled v13.subgroup_size_control = "subgroupSizeControl";
    Enabled v13.compute_full_subgroups = "computeFullSubgroups";
    Enabled v13.synchronization2 = "synchronization2";
    Enabled v13.shader_zero_initialize_workgroup_memory = "shaderZeroInitializeWorkgroupMemory";
    Enabled v13.dynamic_rendering = "dynamicRendering";
    Enabled v13.shader_integer_dot_product = "shaderIntegerDotProduct";
    Enabled v13.maintenance4 = "maintenance4";
    // Extensions: VK_EXT_transform_feedback (stream output), VK_EXT_shader_stencil_export.
    Enabled xfb.transform_feedback = "transformFeedback";
    Enabled xfb.geometry_streams = "geometryStreams";
    Property xfb.transform_feedback_queries = "transformFeedbackQueries";
    Property xfb.transform_feedback_rasterization_stream_select = "transformFeedbackRasterizationStreamSelect";
    Enabled ext.shader_stencil_export = "shaderStencilExport";
    // VK_KHR_maintenance5 (among others, the format VK_FORMAT_A8_UNORM_KHR: DXGI A8_UNORM).
    Enabled m5.maintenance5 = "maintenance5";
    // VK_EXT_fragment_shader_interlock: rasterizer-ordered views.
    Enabled interlock.fragment_shader_pixel_interlock = "fragmentShaderPixelInterlock";
    Enabled interlock.fragment_shader_sample_interlock = "fragmentShaderSampleInterlock";
    // Float controls (VkPhysicalDeviceVulkan12Properties): D3D flushes fp32 denormals and keeps
    // fp64 ones (D3D11.3 functional spec); a test that depends on it requires the matching property.
    Property v12.shader_denorm_flush_to_zero_float32 = "shaderDenormFlushToZeroFloat32";
    Property v12.shader_denorm_preserve_float32 = "shaderDenormPreserveFloat32";
    Property v12.shader_denorm_flush_to_zero_float64 = "shaderDenormFlushToZeroFloat64";
    Property v12.shader_denorm_preserve_float64 = "shaderDenormPreserveFloat64";
    Property v12.shader_denorm_flush_to_zero_float16 = "shaderDenormFlushToZeroFloat16";
    Property v12.shader_denorm_preserve_float16 = "shaderDenormPreserveFloat16";
    Property v12.shader_signed_zero_inf_nan_preserve_float16 = "shaderSignedZeroInfNanPreserveFloat16";
    Property v12.shader_signed_zero_inf_nan_preserve_float32 = "shaderSignedZeroInfNanPreserveFloat32";
    Property v12.shader_signed_zero_inf_nan_preserve_float64 = "shaderSignedZeroInfNanPreserveFloat64";
    Property v12.shader_rounding_mode_rte_float16 = "shaderRoundingModeRTEFloat16";
    Property v12.shader_rounding_mode_rte_float32 = "shaderRoundingModeRTEFloat32";
    Property v12.shader_rounding_mode_rte_float64 = "shaderRoundingModeRTEFloat64";
    Property v12.shader_rounding_mode_rtz_float16 = "shaderRoundingModeRTZFloat16";
    Property v12.shader_rounding_mode_rtz_float32 = "shaderRoundingModeRTZFloat32";
    Property v12.shader_rounding_mode_rtz_float64 = "shaderRoundingModeRTZFloat64";
}

/// The kind of a known feature or property name, or `None` for a name the table lacks.
pub fn feature_kind(name: &str) -> Option<FeatureKind> {
    FEATURES.iter().find(|d| d.name == name).map(|d| d.kind)
}

/// Every name the harness knows, in table order.
pub fn known_features() -> impl Iterator<Item = &'static str> {
    FEATURES.iter().map(|d| d.name)
}

/// The known feature names (and properties) a device supports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceFeatures {
    supported: BTreeSet<&'static str>,
}

impl DeviceFeatures {
    /// A set holding exactly `names` (unknown names are ignored); for tests of code that asks
    /// for features.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> DeviceFeatures {
        let supported = names
            .into_iter()
            .filter_map(|n| FEATURES.iter().find(|d| d.name == n).map(|d| d.name))
            .collect();
        DeviceFeatures { supported }
    }

    /// True when the device supports the feature or has the property `name`.
    pub fn supports(&self, name: &str) -> bool {
        self.supported.contains(name)
    }

    /// The supported names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.supported.iter().copied()
    }

    /// Queries a physical device (of an instance created for Vulkan 1.1 or newer).
    pub(crate) fn query(
        instance: &ash::Instance,
        handle: vk::PhysicalDevice,
        api_version: u32,
    ) -> DeviceFeatures {
        let mut s = FeatureStructs::default();
        let mut props = PropertyStructs::default();
        let extensions = device_extensions(instance, handle);
        let has_xfb = extensions.contains(&ash::ext::transform_feedback::NAME);
        // VK_KHR_maintenance5 needs Vulkan 1.3 (or VK_KHR_dynamic_rendering, which the harness
        // does not enable): on older devices it counts as absent.
        let has_m5 = api_version >= vk::API_VERSION_1_3
            && extensions.contains(&ash::khr::maintenance5::NAME);
        let has_interlock = extensions.contains(&ash::ext::fragment_shader_interlock::NAME);
        if extensions.contains(&ash::ext::shader_stencil_export::NAME) {
            s.ext.shader_stencil_export = vk::TRUE;
        }
        // Devices have Vulkan 1.1 or newer (gpu.rs checks), so `vkGetPhysicalDeviceFeatures2` is
        // core.
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default();
        if api_version >= vk::API_VERSION_1_2 {
            f2 = f2.push_next(&mut s.v11).push_next(&mut s.v12);
            p2 = p2.push_next(&mut props.v12);
            if api_version >= vk::API_VERSION_1_3 {
                f2 = f2.push_next(&mut s.v13);
            }
        }
        if has_xfb {
            f2 = f2.push_next(&mut s.xfb);
            p2 = p2.push_next(&mut props.xfb);
        }
        if has_m5 {
            f2 = f2.push_next(&mut s.m5);
        }
        if has_interlock {
            f2 = f2.push_next(&mut s.interlock);
        }
        // SAFETY: the chained structures are core in the device's version or belong to an
        // extension it has, and outlive the calls.
        unsafe {
            instance.get_physical_device_features2(handle, &mut f2);
            instance.get_physical_device_properties2(handle, &mut p2);
        }
        s.v10 = f2.features;
        s.clear_chain();
        props.v12.p_next = std::ptr::null_mut();
        props.xfb.p_next = std::ptr::null_mut();
        let supported = FEATURES
            .iter()
            .filter(|d| (d.get)(&s, &props))
            .map(|d| d.name)
            .collect();
        DeviceFeatures { supported }
    }

    /// The structures to enable at device creation: every supported [`FeatureKind::Enabled`]
    /// feature, plus the supported ones among `opt_in`. Also returns the enabled names.
    pub(crate) fn to_enable(&self, opt_in: &[&str]) -> (FeatureStructs, BTreeSet<&'static str>) {
        let mut s = FeatureStructs::default();
        let mut names = BTreeSet::new();
        for d in FEATURES {
            let wanted = match d.kind {
                FeatureKind::Enabled => true,
                FeatureKind::OptIn => opt_in.contains(&d.name),
                FeatureKind::Property => false,
            };
            if wanted && self.supports(d.name) {
                (d.set)(&mut s);
                names.insert(d.name);
            }
        }
        (s, names)
    }
}

impl fmt::Display for DeviceFeatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.names().collect();
        f.write_str(&names.join(", "))
    }
}

impl FeatureStructs {
    /// Nulls the `p_next` pointers left by a query.
    pub(crate) fn clear_chain(&mut self) {
        self.v11.p_next = std::ptr::null_mut();
        self.v12.p_next = std::ptr::null_mut();
        self.v13.p_next = std::ptr::null_mut();
        self.xfb.p_next = std::ptr::null_mut();
        self.m5.p_next = std::ptr::null_mut();
        self.interlock.p_next = std::ptr::null_mut();
    }

    /// Whether a feature of `VK_EXT_fragment_shader_interlock` is wanted.
    pub(crate) fn wants_interlock(&self) -> bool {
        self.interlock.fragment_shader_pixel_interlock == vk::TRUE
            || self.interlock.fragment_shader_sample_interlock == vk::TRUE
    }

    /// The device extensions the enabled features need.
    pub(crate) fn extensions(&self) -> Vec<&'static std::ffi::CStr> {
        let mut out = Vec::new();
        if self.xfb.transform_feedback == vk::TRUE || self.xfb.geometry_streams == vk::TRUE {
            out.push(ash::ext::transform_feedback::NAME);
        }
        if self.ext.shader_stencil_export == vk::TRUE {
            out.push(ash::ext::shader_stencil_export::NAME);
        }
        if self.m5.maintenance5 == vk::TRUE {
            out.push(ash::khr::maintenance5::NAME);
        }
        if self.wants_interlock() {
            out.push(ash::ext::fragment_shader_interlock::NAME);
        }
        out
    }
}

/// The names of the device extensions of `handle` (empty when the query fails).
fn device_extensions(
    instance: &ash::Instance,
    handle: vk::PhysicalDevice,
) -> Vec<&'static std::ffi::CStr> {
    // SAFETY: plain query.
    let Ok(props) = (unsafe { instance.enumerate_device_extension_properties(handle) }) else {
        return Vec::new();
    };
    let known = [
        ash::ext::transform_feedback::NAME,
        ash::ext::shader_stencil_export::NAME,
        ash::khr::maintenance5::NAME,
        ash::ext::fragment_shader_interlock::NAME,
    ];
    known
        .into_iter()
        .filter(|k| {
            props
                .iter()
                .any(|p| p.extension_name_as_c_str().ok() == Some(*k))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut seen = BTreeSet::new();
        for name in known_features() {
            assert!(seen.insert(name), "{name} listed twice");
        }
    }

    #[test]
    fn enable_sets_supported_enabled_and_requested_opt_in_only() {
        let dev = DeviceFeatures::from_names([
            "shaderFloat64",
            "robustBufferAccess",
            "shaderDenormPreserveFloat64",
            "shaderDemoteToHelperInvocation",
            "noSuchFeature",
        ]);
        assert!(!dev.supports("noSuchFeature"));
        let (s, names) = dev.to_enable(&[]);
        assert_eq!(s.v10.shader_float64, vk::TRUE);
        assert_eq!(s.v10.robust_buffer_access, vk::FALSE);
        assert_eq!(s.v13.shader_demote_to_helper_invocation, vk::TRUE);
        assert_eq!(s.v10.shader_int64, vk::FALSE);
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            ["shaderDemoteToHelperInvocation", "shaderFloat64"]
        );
        let (s, _) = dev.to_enable(&["robustBufferAccess", "robustImageAccess"]);
        assert_eq!(s.v10.robust_buffer_access, vk::TRUE);
        assert_eq!(s.v13.robust_image_access, vk::FALSE);
    }

    #[test]
    fn kinds() {
        assert_eq!(feature_kind("shaderInt64"), Some(FeatureKind::Enabled));
        assert_eq!(feature_kind("robustBufferAccess"), Some(FeatureKind::OptIn));
        assert_eq!(
            feature_kind("shaderDenormFlushToZeroFloat32"),
            Some(FeatureKind::Property)
        );
        assert_eq!(feature_kind("shaderfloat64"), None);
    }
}
