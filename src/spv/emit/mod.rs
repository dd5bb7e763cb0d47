//! IR → SPIR-V: the back end. Knows the IR and Vulkan, nothing of DXBC.

use crate::error::Error;
use crate::ir::{self, Dimension, ResourceShape};
use crate::spv::Version;

/// How to emit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmitOptions {
    /// SPIR-V version of the module.
    pub version: Version,
    /// Emit `OpName`s.
    pub debug_names: bool,
}

/// The Vulkan descriptor type of a binding the module declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorType {
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`: constant buffers.
    UniformBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`: raw and structured buffers, UAV counters.
    StorageBuffer,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER`: typed buffer SRVs.
    UniformTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER`: typed buffer UAVs.
    StorageTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`: texture SRVs.
    SampledImage,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`: texture UAVs.
    StorageImage,
    /// `VK_DESCRIPTOR_TYPE_SAMPLER`.
    Sampler,
}

/// The descriptor type a `t#`/`u#` declaration is bound as.
pub fn descriptor_type(decl: &ir::ResourceDecl) -> DescriptorType {
    let uav = decl.range.kind == crate::bindings::ResourceKind::UnorderedAccess;
    match (decl.shape, uav) {
        (ResourceShape::Raw | ResourceShape::Structured { .. }, _) => DescriptorType::StorageBuffer,
        (
            ResourceShape::Typed {
                dim: Dimension::Buffer,
                ..
            },
            false,
        ) => DescriptorType::UniformTexelBuffer,
        (
            ResourceShape::Typed {
                dim: Dimension::Buffer,
                ..
            },
            true,
        ) => DescriptorType::StorageTexelBuffer,
        (ResourceShape::Typed { .. }, false) => DescriptorType::SampledImage,
        (ResourceShape::Typed { .. }, true) => DescriptorType::StorageImage,
    }
}

/// Writes `module` as a SPIR-V module.
pub fn emit(module: &ir::Module, options: &EmitOptions) -> Result<Vec<u32>, Error> {
    let _ = options;
    Err(Error::unsupported(0, format!("emission of {} instructions (in progress)", module.insts.len())))
}
