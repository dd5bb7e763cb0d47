//! The descriptor-type choices a runtime makes per device for buffers and typed UAVs
//! (`docs/runtime.md`, "Buffer descriptor types and alignment"): raw and structured views as
//! texel buffers ([`TexelRawBuffers`]), the storage-buffer offset fix-up block
//! ([`StorageBufferAlignment`]) and the declared formats of typed UAVs ([`TypedUavFormats`]).
//!
//! Contract: plain data, read by `resources.rs` (declarations) and `memory.rs` (accesses). Every
//! default keeps the module it replaces byte for byte: SSBOs for raw and structured views, no
//! fix-up block, format `Unknown` (or `R32ui`/`R32i` for atomics) on typed UAVs.

use spirv::ImageFormat;

use crate::ir::binding::{BindingTarget, Count, ResourceKind, VulkanBinding};
use crate::ir::{self, ResourceShape};

/// Which raw and structured views (`ByteAddressBuffer`, `StructuredBuffer` and their `RW`
/// forms) are declared as texel buffers of 32-bit words instead of storage buffers: an SRV as a
/// uniform texel buffer (`R32_UINT` view), a UAV as a storage texel buffer of format `R32ui`.
/// Default: neither.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TexelRawBuffers {
    /// Raw and structured SRVs (`t#`) are uniform texel buffers.
    pub srv: bool,
    /// Raw and structured UAVs (`u#`) are storage texel buffers (their counters stay storage
    /// buffers).
    pub uav: bool,
}

impl TexelRawBuffers {
    /// Whether a view of this kind (`uav`) is a texel buffer.
    pub fn applies(self, uav: bool) -> bool {
        if uav {
            self.uav
        } else {
            self.srv
        }
    }
}

/// The device's `minStorageBufferOffsetAlignment` and where the fix-up block is bound.
///
/// D3D lets a raw view start at any multiple of 16 bytes and a structured view at any multiple
/// of its stride; a runtime binds such a view at its offset rounded down to `alignment` and
/// writes, for each storage buffer that needs it, the remainder and the view's size into the
/// fix-up block (`uvec4 data[n]`, std140): `data[i].x` = the view's offset from the bound
/// offset in bytes (a multiple of 4), `data[i].y` = the view's size in bytes, `.zw` = 0.
/// Element `i` belongs to the `i`-th raw/structured storage buffer, in declaration order, whose
/// view offsets can be finer than `alignment` (raw: `alignment > 16`; structured: `stride` not
/// a multiple of `alignment`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StorageBufferAlignment {
    /// `minStorageBufferOffsetAlignment`: a power of two, at most 256.
    pub alignment: u32,
    /// Where the fix-up block (a uniform buffer) is bound.
    pub block: BindingTarget,
}

impl StorageBufferAlignment {
    /// The default block binding: set 0, binding 15 (unused by the D3D11 default layout:
    /// constant buffers at 0..13, the class-linkage block at 14, samplers from 16).
    pub const DEFAULT_BINDING: VulkanBinding = VulkanBinding {
        set: 0,
        binding: 15,
        array_offset: 0,
        descriptor_count: Count::Bounded(1),
    };

    /// `alignment` with the block at [`StorageBufferAlignment::DEFAULT_BINDING`].
    pub fn new(alignment: u32) -> StorageBufferAlignment {
        StorageBufferAlignment {
            alignment,
            block: BindingTarget::Descriptor(Self::DEFAULT_BINDING),
        }
    }

    /// Whether a raw (`stride == 0`) or structured view needs a fix-up entry: D3D allows view
    /// offsets finer than the alignment.
    pub fn needs_fixup(self, stride: u32) -> bool {
        if stride == 0 {
            self.alignment > 16
        } else {
            stride % self.alignment.max(1) != 0
        }
    }
}

/// A typed UAV's declared format (the `Image Format` of its SPIR-V image type). The component
/// type must match the UAV's declared return type (float/unorm/snorm formats for `float`,
/// `unorm`, `snorm`; `*ui` for `uint`; `*i` for `sint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UavFormat {
    /// `R32_FLOAT`.
    R32f,
    /// `R32_UINT`.
    R32ui,
    /// `R32_SINT`.
    R32i,
    /// `R8G8B8A8_UNORM`.
    Rgba8,
    /// `R8G8B8A8_SNORM`.
    Rgba8Snorm,
    /// `R8G8B8A8_UINT`.
    Rgba8ui,
    /// `R8G8B8A8_SINT`.
    Rgba8i,
    /// `R16G16B16A16_FLOAT`.
    Rgba16f,
    /// `R16G16B16A16_UINT`.
    Rgba16ui,
    /// `R16G16B16A16_SINT`.
    Rgba16i,
    /// `R32G32B32A32_FLOAT`.
    Rgba32f,
    /// `R32G32B32A32_UINT`.
    Rgba32ui,
    /// `R32G32B32A32_SINT`.
    Rgba32i,
    /// `R32G32_FLOAT` (extended).
    Rg32f,
    /// `R32G32_UINT` (extended).
    Rg32ui,
    /// `R16G16_FLOAT` (extended).
    Rg16f,
    /// `R16_FLOAT` (extended).
    R16f,
    /// `R16_UNORM` (extended).
    R16,
    /// `R8_UNORM` (extended).
    R8,
    /// `R8G8_UNORM` (extended).
    Rg8,
    /// `R16G16B16A16_UNORM` (extended).
    Rgba16,
    /// `R10G10B10A2_UNORM` (extended).
    Rgb10A2,
    /// `R11G11B10_FLOAT` (extended).
    R11fG11fB10f,
}

/// The component type of a format's texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FormatClass {
    /// Float, unorm and snorm formats: read and written as f32.
    Float,
    /// `*ui` formats.
    Uint,
    /// `*i` formats.
    Sint,
}

impl UavFormat {
    /// Every format, for parsing.
    pub const ALL: [UavFormat; 23] = {
        use UavFormat::*;
        [
            R32f,
            R32ui,
            R32i,
            Rgba8,
            Rgba8Snorm,
            Rgba8ui,
            Rgba8i,
            Rgba16f,
            Rgba16ui,
            Rgba16i,
            Rgba32f,
            Rgba32ui,
            Rgba32i,
            Rg32f,
            Rg32ui,
            Rg16f,
            R16f,
            R16,
            R8,
            Rg8,
            Rgba16,
            Rgb10A2,
            R11fG11fB10f,
        ]
    };

    /// The SPIR-V spelling, lower case (`r32f`, `rgba8`, `r11fg11fb10f` …).
    pub fn name(self) -> &'static str {
        use UavFormat::*;
        match self {
            R32f => "r32f",
            R32ui => "r32ui",
            R32i => "r32i",
            Rgba8 => "rgba8",
            Rgba8Snorm => "rgba8snorm",
            Rgba8ui => "rgba8ui",
            Rgba8i => "rgba8i",
            Rgba16f => "rgba16f",
            Rgba16ui => "rgba16ui",
            Rgba16i => "rgba16i",
            Rgba32f => "rgba32f",
            Rgba32ui => "rgba32ui",
            Rgba32i => "rgba32i",
            Rg32f => "rg32f",
            Rg32ui => "rg32ui",
            Rg16f => "rg16f",
            R16f => "r16f",
            R16 => "r16",
            R8 => "r8",
            Rg8 => "rg8",
            Rgba16 => "rgba16",
            Rgb10A2 => "rgb10a2",
            R11fG11fB10f => "r11fg11fb10f",
        }
    }

    /// Parses [`UavFormat::name`]'s spelling.
    pub fn from_name(name: &str) -> Option<UavFormat> {
        UavFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The SPIR-V image format.
    pub(crate) fn spirv(self) -> ImageFormat {
        use UavFormat::*;
        match self {
            R32f => ImageFormat::R32f,
            R32ui => ImageFormat::R32ui,
            R32i => ImageFormat::R32i,
            Rgba8 => ImageFormat::Rgba8,
            Rgba8Snorm => ImageFormat::Rgba8Snorm,
            Rgba8ui => ImageFormat::Rgba8ui,
            Rgba8i => ImageFormat::Rgba8i,
            Rgba16f => ImageFormat::Rgba16f,
            Rgba16ui => ImageFormat::Rgba16ui,
            Rgba16i => ImageFormat::Rgba16i,
            Rgba32f => ImageFormat::Rgba32f,
            Rgba32ui => ImageFormat::Rgba32ui,
            Rgba32i => ImageFormat::Rgba32i,
            Rg32f => ImageFormat::Rg32f,
            Rg32ui => ImageFormat::Rg32ui,
            Rg16f => ImageFormat::Rg16f,
            R16f => ImageFormat::R16f,
            R16 => ImageFormat::R16,
            R8 => ImageFormat::R8,
            Rg8 => ImageFormat::Rg8,
            Rgba16 => ImageFormat::Rgba16,
            Rgb10A2 => ImageFormat::Rgb10A2,
            R11fG11fB10f => ImageFormat::R11fG11fB10f,
        }
    }

    /// The component type of its texels.
    pub(crate) fn class(self) -> FormatClass {
        use UavFormat::*;
        match self {
            R32ui | Rgba8ui | Rgba16ui | Rgba32ui | Rg32ui => FormatClass::Uint,
            R32i | Rgba8i | Rgba16i | Rgba32i => FormatClass::Sint,
            R32f | Rgba8 | Rgba8Snorm | Rgba16f | Rgba32f | Rg32f | Rg16f | R16f | R16 | R8
            | Rg8 | Rgba16 | Rgb10A2 | R11fG11fB10f => FormatClass::Float,
        }
    }

    /// Whether Vulkan needs `StorageImageExtendedFormats` for it (the formats outside
    /// SPIR-V's `Shader` capability).
    pub(crate) fn extended(self) -> bool {
        use UavFormat::*;
        matches!(
            self,
            Rg32f | Rg32ui | Rg16f | R16f | R16 | R8 | Rg8 | Rgba16 | Rgb10A2 | R11fG11fB10f
        )
    }
}

/// What a typed UAV that the shader reads (`ld_uav_typed`) and the map does not list is
/// declared as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UnlistedUavFormat {
    /// `Unknown` (the default): the device needs `shaderStorageImageReadWithoutFormat`.
    #[default]
    Unknown,
    /// The single-component 32-bit format of the declared return type (`R32f` for
    /// float/unorm/snorm, `R32ui` for uint, `R32i` for sint): the only formats D3D guarantees
    /// typed UAV loads from without "typed UAV additional formats".
    R32OfReturnType,
}

/// Declared formats of typed UAVs (`RWBuffer`, `RWTexture*`), for devices without
/// `shaderStorageImageReadWithoutFormat`. Default: nothing listed, unlisted ones `Unknown`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TypedUavFormats {
    /// `((space, first register), format)` of UAV ranges (`u#`): the view format the runtime
    /// binds there.
    pub formats: Vec<((u32, u32), UavFormat)>,
    /// Read UAVs that `formats` does not list.
    pub unlisted: UnlistedUavFormat,
    /// Also declare the format of UAVs that are only written (else they keep `Unknown`, which
    /// needs only `shaderStorageImageWriteWithoutFormat`).
    pub written_only: bool,
}

impl TypedUavFormats {
    /// The format listed for the UAV range starting at `register` of `space`.
    pub fn listed(&self, space: u32, register: u32) -> Option<UavFormat> {
        self.formats
            .iter()
            .find(|(at, _)| *at == (space, register))
            .map(|&(_, f)| f)
    }
}

/// The positions in `resources` of the storage buffers that get a fix-up entry, in entry order
/// (declaration order): raw and structured views that stay storage buffers and whose D3D view
/// offsets can be finer than the alignment. Empty without [`EmitOptions::storage_buffer_alignment`].
///
/// [`EmitOptions::storage_buffer_alignment`]: super::EmitOptions::storage_buffer_alignment
pub fn fixup_entries(resources: &[ir::ResourceDecl], options: &super::EmitOptions) -> Vec<usize> {
    let Some(alignment) = options.storage_buffer_alignment else {
        return Vec::new();
    };
    resources
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            let uav = d.range.kind == ResourceKind::UnorderedAccess;
            let stride = match d.shape {
                ResourceShape::Raw => 0,
                ResourceShape::Structured { stride } => stride,
                ResourceShape::Typed { .. } => return false,
            };
            let addressed = matches!(d.binding, Some(BindingTarget::DeviceAddress(_)));
            !addressed && !options.texel_raw_buffers.applies(uav) && alignment.needs_fixup(stride)
        })
        .map(|(i, _)| i)
        .collect()
}
