//! Resource bindings: the binding maps that say where each D3D register range lands in Vulkan.
//!
//! A shader names its resources by D3D register: kind (`b`, `t`, `u`, `s`), register space and
//! register number (SM5.0 has only space 0 and single registers; SM5.1 declares ranges, possibly
//! unbounded). Vulkan names them by descriptor set, binding and array element. A [`BindingMap`]
//! connects the two; the runtime that embeds the translator supplies it, because only the runtime
//! knows its pipeline layouts (`docs/bindings.md`).
//!
//! Contract:
//! - The translator asks [`BindingMap::map`] once per declared range and once per statically
//!   indexed access, and gets a [`BindingTarget`]: a descriptor (set, binding, array offset of the
//!   range's first register, size of the whole Vulkan binding) or, for constant buffers only, a
//!   push-constant block.
//! - A range that is not mapped is an error ([`BindingError::Unmapped`]), never a silent default;
//!   a range that is mapped only in part is [`BindingError::PartiallyMapped`], which names the
//!   part that is mapped so a caller may fall back to checking each static access.
//! - UAV counters are bindings of their own ([`ResourceKind::UavCounter`]): Vulkan has no
//!   counter attached to a storage buffer.
//!
//! Two maps are provided: [`D3d11Bindings`], the fixed default layout for SM4/SM5.0 runtimes, and
//! [`TableBindings`], the table form for D3D12-style runtimes (hand-written, from a parsed root
//! signature with [`TableBindings::from_root_signature`], or one binding per range with
//! [`TableBindings::one_binding_per_range`]). The vocabulary they share with the IR (register
//! ranges, targets, [`BindingMap`], [`BindingError`]) is defined in [`crate::ir::binding`] and
//! re-exported here. This module knows nothing of DXBC tokens or SPIR-V; only the
//! root-signature conversion reads the front end's parsed [`RootSignature`].
//!
//! [`RootSignature`]: crate::front::dxbc::rts0::RootSignature
//! [`BindingMap`]: crate::bindings::BindingMap
//! [`BindingMap::map`]: crate::bindings::BindingMap::map
//! [`BindingTarget`]: crate::bindings::BindingTarget
//! [`BindingError::Unmapped`]: crate::bindings::BindingError::Unmapped
//! [`BindingError::PartiallyMapped`]: crate::bindings::BindingError::PartiallyMapped
//! [`BindingError`]: crate::bindings::BindingError
//! [`ResourceKind::UavCounter`]: crate::bindings::ResourceKind::UavCounter
//! [`D3d11Bindings`]: crate::bindings::D3d11Bindings
//! [`TableBindings`]: crate::bindings::TableBindings
//! [`TableBindings::from_root_signature`]: crate::bindings::TableBindings::from_root_signature
//! [`TableBindings::one_binding_per_range`]: crate::bindings::TableBindings::one_binding_per_range

mod class_linkage;
mod d3d11;
#[cfg(feature = "dxbc")]
mod root_signature;
mod table;

pub use class_linkage::ClassLinkage;
pub use d3d11::D3d11Bindings;
#[cfg(feature = "dxbc")]
pub use root_signature::{RootSignatureOptions, TableSets};
pub use table::{LayoutBinding, RootConstantsEntry, TableBindings, TableEntry};

pub use crate::ir::binding::{
    BindingError, BindingMap, BindingTarget, Count, PushConstants, RegisterRange, ResourceKind,
    VulkanBinding,
};

/// The binding maps this crate provides, as one value an `Options` struct can hold.
#[derive(Clone, Debug, PartialEq)]
pub enum Bindings {
    /// The fixed D3D11-style layout (the default).
    D3d11(D3d11Bindings),
    /// A runtime-supplied table.
    Table(TableBindings),
}

impl Default for Bindings {
    fn default() -> Self {
        Self::D3d11(D3d11Bindings::default())
    }
}

impl BindingMap for Bindings {
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        match self {
            Self::D3d11(m) => m.map(range),
            Self::Table(m) => m.map(range),
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_rts0;
