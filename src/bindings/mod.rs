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
//! Three maps are provided: [`SpacesBindings`], the default layout that binds every shader
//! (set = register space, D3D11's fixed blocks inside); [`D3d11Bindings`], the fixed layout of
//! SM4/SM5.0 runtimes (the space-0 part of the default); and [`TableBindings`], the table form
//! for D3D12-style runtimes (hand-written, from a parsed root signature with
//! [`TableBindings::from_root_signature`], or one binding per range with
//! [`TableBindings::one_binding_per_range`]). [`Bindings`] holds one of them, the choice the
//! pipeline makes per shader ([`Bindings::Auto`]: the embedded root signature, else the default
//! layout), or the runtime's own map ([`Bindings::Custom`], a shared trait object; a closure
//! becomes one with [`Bindings::from_fn`]). The vocabulary they share with the IR (register
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
//! [`SpacesBindings`]: crate::bindings::SpacesBindings
//! [`Bindings`]: crate::bindings::Bindings
//! [`Bindings::Auto`]: crate::bindings::Bindings::Auto
//! [`Bindings::Custom`]: crate::bindings::Bindings::Custom
//! [`Bindings::from_fn`]: crate::bindings::Bindings::from_fn
//! [`TableBindings`]: crate::bindings::TableBindings
//! [`TableBindings::from_root_signature`]: crate::bindings::TableBindings::from_root_signature
//! [`TableBindings::one_binding_per_range`]: crate::bindings::TableBindings::one_binding_per_range

mod class_linkage;
mod custom;
mod d3d11;
#[cfg(feature = "dxbc")]
mod root_signature;
mod spaces;
mod table;

#[cfg(feature = "dxbc")]
use std::borrow::Cow;
use std::fmt;

#[cfg(feature = "dxbc")]
use crate::front::dxbc::rts0::RootSignature;
#[cfg(feature = "dxbc")]
use crate::ir::Stage;
pub use class_linkage::{ClassInstance, ClassLinkage};
pub use custom::{FnBindings, SharedBindingMap};
pub use d3d11::D3d11Bindings;
#[cfg(feature = "dxbc")]
pub use root_signature::{RootConstantsAs, RootDescriptorsAs, RootSignatureOptions, TableSets};
pub use spaces::SpacesBindings;
pub use table::{
    LayoutBinding, RootConstantsEntry, RootDescriptorEntry, TableBindings, TableEntry,
};

pub use crate::ir::binding::{
    BindingError, BindingMap, BindingTarget, Count, DeviceAddress, HeapBinding, PushConstants,
    RegisterRange, ResourceKind, VulkanBinding,
};

/// The binding maps this crate provides, as one value an `Options` struct can hold.
///
/// [`Bindings::Auto`] (the default) and [`Bindings::RootSignature`] depend on the shader: the
/// pipeline resolves them once per translation ([`Bindings::resolve`]) into one of the other
/// forms before any range is looked up. [`Bindings::Custom`] holds the runtime's own map
/// (built with [`Bindings::custom`] or, from a closure, [`Bindings::from_fn`]).
#[derive(Clone, Default)]
pub enum Bindings {
    /// As a D3D12 runtime binds a shader with no other information: by the root signature the
    /// container embeds (its `RTS0` chunk, laid out as [`TableBindings::from_root_signature`]
    /// describes, for the shader's stage), else by [`SpacesBindings`]. Looked up without being
    /// resolved, it is [`SpacesBindings`].
    #[default]
    Auto,
    /// The fixed D3D11-style layout: space 0, single registers only.
    D3d11(D3d11Bindings),
    /// The default layout for every shader: set = register space, the D3D11 layout inside.
    Spaces(SpacesBindings),
    /// A runtime-supplied table.
    Table(TableBindings),
    /// A root signature the caller supplies, laid out for each shader's stage with the default
    /// [`RootSignatureOptions`] (looked up without being resolved: for every stage).
    #[cfg(feature = "dxbc")]
    RootSignature(Box<RootSignature>),
    /// The runtime's own map, asked about every range as the built-in ones are; equal to
    /// another `Custom` only when both hold the same map object.
    Custom(SharedBindingMap),
}

impl fmt::Debug for Bindings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Auto => f.write_str("Auto"),
            Self::D3d11(m) => f.debug_tuple("D3d11").field(m).finish(),
            Self::Spaces(m) => f.debug_tuple("Spaces").field(m).finish(),
            Self::Table(m) => f.debug_tuple("Table").field(m).finish(),
            #[cfg(feature = "dxbc")]
            Self::RootSignature(rs) => f.debug_tuple("RootSignature").field(rs).finish(),
            Self::Custom(m) => write!(f, "Custom({:p})", custom::map_address(m)),
        }
    }
}

impl PartialEq for Bindings {
    fn eq(&self, other: &Bindings) -> bool {
        match (self, other) {
            (Self::Auto, Self::Auto) => true,
            (Self::D3d11(a), Self::D3d11(b)) => a == b,
            (Self::Spaces(a), Self::Spaces(b)) => a == b,
            (Self::Table(a), Self::Table(b)) => a == b,
            #[cfg(feature = "dxbc")]
            (Self::RootSignature(a), Self::RootSignature(b)) => a == b,
            (Self::Custom(a), Self::Custom(b)) => custom::map_address(a) == custom::map_address(b),
            _ => false,
        }
    }
}

impl Bindings {
    /// The map a shader of `stage` is bound by: [`Bindings::Auto`] becomes the table of
    /// `embedded` (the container's root signature, when it has one) or [`SpacesBindings`];
    /// [`Bindings::RootSignature`] becomes its table for `stage`; the others are themselves.
    /// Errors: a root signature that cannot be laid out.
    #[cfg(feature = "dxbc")]
    pub fn resolve(
        &self,
        stage: Stage,
        embedded: Option<&RootSignature>,
    ) -> Result<Cow<'_, Bindings>, BindingError> {
        let for_stage = |rs: &RootSignature| {
            TableBindings::from_root_signature(rs, &RootSignatureOptions::for_stage(stage))
                .map(|t| Cow::Owned(Bindings::Table(t)))
        };
        match self {
            Self::Auto => match embedded {
                Some(rs) => for_stage(rs),
                None => Ok(Cow::Owned(Bindings::Spaces(SpacesBindings::default()))),
            },
            Self::RootSignature(rs) => for_stage(rs),
            other => Ok(Cow::Borrowed(other)),
        }
    }
}

impl BindingMap for Bindings {
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        match self {
            Self::Auto => SpacesBindings::default().map(range),
            Self::D3d11(m) => m.map(range),
            Self::Spaces(m) => m.map(range),
            Self::Table(m) => m.map(range),
            #[cfg(feature = "dxbc")]
            Self::RootSignature(rs) => {
                TableBindings::from_root_signature(rs, &RootSignatureOptions::default())?.map(range)
            }
            Self::Custom(m) => m.map(range),
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_custom;
#[cfg(test)]
mod tests_rts0;
#[cfg(test)]
mod tests_spaces;
