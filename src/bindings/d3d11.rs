//! The fixed binding layout of D3D11-style runtimes (SM4.x and SM5.0): one descriptor set,
//! one Vulkan binding per register, a fixed block of bindings per kind sized by D3D11.1's slot
//! limits, the same for every stage. It is the space-0 part of the default layout
//! ([`super::SpacesBindings`]).

use super::{
    BindingError, BindingMap, BindingTarget, Count, RegisterRange, ResourceKind, VulkanBinding,
};

/// The D3D11-style default layout. Register `r` of a kind is binding `base + r` of set
/// [`D3d11Bindings::set`], a single descriptor (array offset 0):
///
/// | Kind | Registers | Bindings |
/// |---|---|---|
/// | constant buffers | `b0..b13` (14) | 0..13 |
/// | samplers | `s0..s15` (16) | 16..31 |
/// | shader resources | `t0..t127` (128) | 32..159 |
/// | UAVs | `u0..u63` (64, D3D11.1) | 160..223 |
/// | UAV counters | `u0..u63` (64) | 224..287 |
///
/// Only space 0 exists; a register past its kind's limit, or in another space, is unmapped. A
/// range of more than one register spans several bindings, so it is
/// [`BindingError::PartiallyMapped`] (its first register is the mapped part); an SM5.0 shader
/// declares every register alone. The layout does not depend on the stage: a runtime that binds
/// each stage's resources separately gives each stage its own set with [`D3d11Bindings::with_set`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct D3d11Bindings {
    /// The descriptor set every binding is in.
    pub set: u32,
}

impl D3d11Bindings {
    /// Constant-buffer slots (`D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT`).
    pub const CONSTANT_BUFFERS: u32 = 14;
    /// Sampler slots (`D3D11_COMMONSHADER_SAMPLER_SLOT_COUNT`).
    pub const SAMPLERS: u32 = 16;
    /// Shader-resource slots (`D3D11_COMMONSHADER_INPUT_RESOURCE_SLOT_COUNT`).
    pub const SHADER_RESOURCES: u32 = 128;
    /// UAV slots (`D3D11_1_UAV_SLOT_COUNT`); UAV counters have as many.
    pub const UAVS: u32 = 64;
    /// Bindings the layout uses in its set (0..`BINDING_COUNT`, with 14 and 15 unused).
    pub const BINDING_COUNT: u32 = 288;

    /// The layout in set `set`.
    pub fn with_set(set: u32) -> Self {
        Self { set }
    }

    /// The first binding of `kind`'s block and how many registers it has.
    pub fn block(kind: ResourceKind) -> (u32, u32) {
        match kind {
            ResourceKind::ConstantBuffer => (0, Self::CONSTANT_BUFFERS),
            ResourceKind::Sampler => (16, Self::SAMPLERS),
            ResourceKind::ShaderResource => (32, Self::SHADER_RESOURCES),
            ResourceKind::UnorderedAccess => (160, Self::UAVS),
            ResourceKind::UavCounter => (224, Self::UAVS),
        }
    }

    /// Every register the layout maps, one range per kind, with the binding of its first
    /// register (the rest follow one binding per register).
    pub fn ranges(&self) -> impl Iterator<Item = (RegisterRange, u32)> {
        ResourceKind::ALL.into_iter().map(|kind| {
            let (base, count) = Self::block(kind);
            (RegisterRange::bounded(kind, 0, 0, count), base)
        })
    }
}

impl BindingMap for D3d11Bindings {
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        range.check()?;
        let (base, limit) = Self::block(range.kind);
        if range.space != 0 || range.first >= limit {
            return Err(BindingError::Unmapped { range: *range });
        }
        if range.count != Count::Bounded(1) {
            return Err(BindingError::PartiallyMapped {
                range: *range,
                mapped: RegisterRange::single(range.kind, 0, range.first),
            });
        }
        Ok(BindingTarget::Descriptor(VulkanBinding {
            set: self.set,
            binding: base + range.first,
            array_offset: 0,
            descriptor_count: Count::Bounded(1),
        }))
    }
}
