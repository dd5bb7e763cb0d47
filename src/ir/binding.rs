//! The binding vocabulary: D3D register ranges, the Vulkan targets they map to, and the
//! [`BindingMap`] interface through which a runtime says where each range lives.
//!
//! Contract:
//! - A [`RegisterRange`] is a run of registers of one [`ResourceKind`] in one register space;
//!   its [`Count`] may be unbounded (an SM5.1 `t10[10:*]`). UAV counters are a kind of their own
//!   ([`ResourceKind::UavCounter`]): Vulkan has no counter attached to a storage buffer.
//! - [`BindingMap::map`] answers one range with one [`BindingTarget`]: a descriptor (set,
//!   binding, array offset of the range's first register, size of the whole Vulkan binding),
//!   for constant buffers only a push-constant block, or an element of a bindless heap whose
//!   table base index is a push constant ([`HeapBinding`]), or for single constant buffers
//!   and raw/structured buffers a buffer device address in push constants
//!   ([`DeviceAddress`], D3D12 root descriptors); otherwise a [`BindingError`] that
//!   says which part, if any, is mapped.
//!
//! The IR's declarations carry these values; the maps themselves (the D3D11 default layout,
//! tables, root signatures) live outside the IR.

use std::fmt;

/// The kind of a D3D register, which decides its register letter and its Vulkan binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceKind {
    /// Constant buffers (`b#`, `cb#`).
    ConstantBuffer,
    /// Shader-resource views (`t#`): textures and read-only buffers.
    ShaderResource,
    /// Unordered-access views (`u#`): storage images and buffers.
    UnorderedAccess,
    /// Samplers (`s#`).
    Sampler,
    /// The hidden counter of a UAV (`u#` used by `imm_atomic_alloc/consume`), bound separately.
    UavCounter,
}

impl ResourceKind {
    /// Every kind, in declaration order.
    pub const ALL: [Self; 5] = [
        Self::ConstantBuffer,
        Self::ShaderResource,
        Self::UnorderedAccess,
        Self::Sampler,
        Self::UavCounter,
    ];

    /// The HLSL register letter: `b`, `t`, `u`, `s`, and `u` for a UAV counter.
    pub fn register_letter(self) -> char {
        match self {
            Self::ConstantBuffer => 'b',
            Self::ShaderResource => 't',
            Self::UnorderedAccess | Self::UavCounter => 'u',
            Self::Sampler => 's',
        }
    }

    /// The position in [`ResourceKind::ALL`] (0 b, 1 t, 2 u, 3 s, 4 UAV counter); also the
    /// binding number a root-signature table map gives each kind inside a table's set.
    pub fn index(self) -> u32 {
        match self {
            Self::ConstantBuffer => 0,
            Self::ShaderResource => 1,
            Self::UnorderedAccess => 2,
            Self::Sampler => 3,
            Self::UavCounter => 4,
        }
    }
}

/// A number of registers or descriptors, possibly unbounded (`t10[10:*]`, a runtime array).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Count {
    /// Exactly this many.
    Bounded(u32),
    /// No upper bound: up to the end of the register space or descriptor array.
    Unbounded,
}

impl Count {
    /// The number, or `None` when unbounded.
    pub fn bounded(self) -> Option<u32> {
        match self {
            Self::Bounded(n) => Some(n),
            Self::Unbounded => None,
        }
    }
}

impl fmt::Display for Count {
    /// The number, or `unbounded`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bounded(n) => write!(f, "{n}"),
            Self::Unbounded => f.write_str("unbounded"),
        }
    }
}

/// A range of D3D registers of one kind in one space: `t10..t17 space1`, `s5 space0`,
/// `t10.. (unbounded) space0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegisterRange {
    /// The register kind.
    pub kind: ResourceKind,
    /// The register space (always 0 before SM5.1).
    pub space: u32,
    /// The first register.
    pub first: u32,
    /// How many registers from `first`.
    pub count: Count,
}

impl RegisterRange {
    /// The range of `count` registers from `first`.
    pub fn new(kind: ResourceKind, space: u32, first: u32, count: Count) -> Self {
        Self {
            kind,
            space,
            first,
            count,
        }
    }

    /// The single register `register`.
    pub fn single(kind: ResourceKind, space: u32, register: u32) -> Self {
        Self::new(kind, space, register, Count::Bounded(1))
    }

    /// `count` registers from `first`.
    pub fn bounded(kind: ResourceKind, space: u32, first: u32, count: u32) -> Self {
        Self::new(kind, space, first, Count::Bounded(count))
    }

    /// Every register from `first` on.
    pub fn unbounded(kind: ResourceKind, space: u32, first: u32) -> Self {
        Self::new(kind, space, first, Count::Unbounded)
    }

    /// The same registers as UAV counters (for a UAV range; other kinds are returned unchanged).
    pub fn counter(self) -> Self {
        match self.kind {
            ResourceKind::UnorderedAccess => Self {
                kind: ResourceKind::UavCounter,
                ..self
            },
            _ => self,
        }
    }

    /// One past the last register, or `None` when unbounded (may be 2^32).
    pub fn end(&self) -> Option<u64> {
        self.count
            .bounded()
            .map(|n| u64::from(self.first) + u64::from(n))
    }

    /// The last register, or `None` when unbounded or empty.
    pub fn last(&self) -> Option<u64> {
        match self.count {
            Count::Bounded(0) | Count::Unbounded => None,
            Count::Bounded(n) => Some(u64::from(self.first) + u64::from(n) - 1),
        }
    }

    /// True when `register` (of this kind and space) lies in the range.
    pub fn contains_register(&self, register: u32) -> bool {
        register >= self.first && self.end().map_or(true, |end| u64::from(register) < end)
    }

    /// True when the two ranges share a register (same kind and space, intersecting spans).
    pub fn overlaps(&self, other: &Self) -> bool {
        let empty = |r: &Self| r.count == Count::Bounded(0);
        self.kind == other.kind
            && self.space == other.space
            && !empty(self)
            && !empty(other)
            && self.contains_register(other.first.max(self.first))
            && other.contains_register(other.first.max(self.first))
    }

    /// A problem that makes the range unusable: empty, or running past register 2^32 − 1.
    pub(crate) fn check(&self) -> Result<(), BindingError> {
        let reason = match self.end() {
            Some(_) if self.count == Count::Bounded(0) => "the range is empty",
            Some(end) if end > 1 << 32 => "the range runs past register 4294967295",
            _ => return Ok(()),
        };
        Err(BindingError::Invalid {
            range: *self,
            reason,
        })
    }
}

impl fmt::Display for RegisterRange {
    /// `t5 space0`, `t10..t17 space1`, `t10.. (unbounded) space0`, `u3 (counter) space0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = self.kind.register_letter();
        write!(f, "{letter}{}", self.first)?;
        match self.count {
            Count::Bounded(0) => f.write_str(" (empty)")?,
            Count::Bounded(1) => {}
            Count::Bounded(_) => write!(f, "..{letter}{}", self.last().unwrap_or_default())?,
            Count::Unbounded => f.write_str(".. (unbounded)")?,
        }
        if self.kind == ResourceKind::UavCounter {
            f.write_str(" (counter)")?;
        }
        write!(f, " space{}", self.space)
    }
}

/// Where a mapped range lives in Vulkan: its first register is element `array_offset` of the
/// descriptor array at (`set`, `binding`); register `first + i` is element `array_offset + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VulkanBinding {
    /// The descriptor set.
    pub set: u32,
    /// The binding in that set.
    pub binding: u32,
    /// The array element that holds the range's first register.
    pub array_offset: u32,
    /// The size of the whole Vulkan binding, as its layout declares it (at least
    /// `array_offset` + the range's count): the array the back end declares. `Unbounded` means a
    /// runtime array (descriptor indexing).
    pub descriptor_count: Count,
}

/// A push-constant block that stands for a constant buffer (D3D12 root constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PushConstants {
    /// Byte offset of the buffer's first value in the push-constant range.
    pub offset: u32,
    /// Size in bytes (4 per 32-bit root constant).
    pub size: u32,
}

/// A range in a bindless descriptor heap (vkd3d-proton's model): one large runtime array of
/// descriptors at (`set`, `binding`), and a 32-bit push constant at byte `base_offset` holding
/// the index in it of the range's descriptor table's first descriptor. Register `first + i` is
/// element `push[base_offset] + array_offset + i` of the array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HeapBinding {
    /// The descriptor set of the heap array.
    pub set: u32,
    /// The binding of the heap array (a runtime array: `descriptor_count` is unbounded).
    pub binding: u32,
    /// Byte offset in the push constants of the `u32` table base index (a multiple of 4).
    pub base_offset: u32,
    /// Elements from the table base to the range's first register.
    pub array_offset: u32,
}

/// A D3D12 root descriptor (root CBV, SRV or UAV) read through a buffer device address: the
/// 64-bit address of the buffer is a push constant at byte `offset` (a multiple of 8, the
/// low word first), and the shader accesses the buffer through a `PhysicalStorageBuffer`
/// pointer made from it. Only for a single constant buffer or raw/structured buffer: D3D12
/// root SRVs and UAVs are raw or structured buffers, and have no size (no bounds checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceAddress {
    /// Byte offset of the `u64` address in the push constants (a multiple of 8).
    pub offset: u32,
}

/// What a register range is mapped to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingTarget {
    /// A descriptor (array) in a descriptor set.
    Descriptor(VulkanBinding),
    /// Push constants; only ever returned for a single constant buffer.
    PushConstants(PushConstants),
    /// Elements of a bindless heap indexed from a push-constant table base.
    Heap(HeapBinding),
    /// A buffer device address in push constants (a root descriptor); only ever returned for
    /// a single constant buffer or raw/structured buffer register.
    DeviceAddress(DeviceAddress),
}

impl BindingTarget {
    /// The descriptor binding, if this is one.
    pub fn descriptor(self) -> Option<VulkanBinding> {
        match self {
            Self::Descriptor(b) => Some(b),
            Self::PushConstants(_) | Self::Heap(_) | Self::DeviceAddress(_) => None,
        }
    }
}

/// A mapping from D3D register ranges to Vulkan bindings, supplied by the runtime.
pub trait BindingMap {
    /// Where `range` lives. The whole range must map onto one Vulkan binding (contiguous array
    /// elements); otherwise the error says which part, if any, is mapped.
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError>;
}

impl<T: BindingMap + ?Sized> BindingMap for &T {
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        (**self).map(range)
    }
}

/// A failed lookup, or an invalid binding table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindingError {
    /// No register of the range is mapped.
    #[error("{range} is not mapped to any Vulkan binding")]
    Unmapped {
        /// The range asked for.
        range: RegisterRange,
    },
    /// Part of the range is mapped, but not all of it onto one Vulkan binding.
    #[error(
        "{range} is only partly mapped: {mapped} maps to one Vulkan binding, the rest does not"
    )]
    PartiallyMapped {
        /// The range asked for.
        range: RegisterRange,
        /// The lowest part of `range` that maps contiguously onto one Vulkan binding.
        mapped: RegisterRange,
    },
    /// Two entries of a binding table map the same register.
    #[error("binding table maps {first} and {second}, which overlap")]
    Overlap {
        /// The entry with the lower first register.
        first: RegisterRange,
        /// The other entry.
        second: RegisterRange,
    },
    /// A range that cannot be looked up or mapped (empty, past the last register, or with an
    /// array offset past the last descriptor).
    #[error("invalid range {range}: {reason}")]
    Invalid {
        /// The range.
        range: RegisterRange,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A root signature that cannot be laid out.
    #[error("root signature at 0x{offset:x}: {reason}")]
    RootSignature {
        /// Absolute offset of the offending parameter or range in the container.
        offset: u32,
        /// What is wrong.
        reason: String,
    },
}
