//! The default layout for every shader, SM4.0–5.1 (`docs/bindings.md`, "The default layout"):
//! descriptor set = register space, and inside each set the D3D11 layout of
//! [`D3d11Bindings`], extended to arrays and to registers past D3D11's slot counts.
//!
//! Contract:
//! - Range `r` (kind `k`, space `s`, first register `f`, `n` registers) is binding
//!   [`SpacesBindings::binding`]`(k, f)` of set `first_set + s`, array offset 0. A Vulkan
//!   binding is one descriptor array however long, so only the first register picks the
//!   binding: `n = 1` is one descriptor, `n > 1` an array of `n`, an unbounded range a runtime
//!   array.
//! - Registers inside D3D11's slot counts ([`D3d11Bindings::block`]) keep their D3D11 binding,
//!   `base + f`, so every shader the D3D11 layout binds is bound identically. A register past
//!   its kind's slot count (SM5.1 allows any) goes above the D3D11 block, the kinds interleaved:
//!   binding `288 + 5·(f − slots) + k` (`k`: [`ResourceKind::index`]).
//! - The numbering is one-to-one: two ranges of one shader never share a binding, because two
//!   ranges of one kind and space cannot start at the same register and the two regions
//!   (below 288 by kind blocks, from 288 by `k` modulo 5) keep kinds apart. The only layout
//!   failure is arithmetic: a set or binding past 4294967295 ([`BindingError::Invalid`], the
//!   range named), which needs a register or space number above about 858 million.

use super::{
    BindingError, BindingMap, BindingTarget, D3d11Bindings, RegisterRange, ResourceKind,
    VulkanBinding,
};

/// The default layout: set = `first_set` + register space; in each set the D3D11 blocks
/// (`b` 0.., `s` 16.., `t` 32.., `u` 160.., UAV counters 224..), registers past a block's
/// D3D11 slot count from binding 288 on, five kinds interleaved. A range is one binding: one
/// descriptor, an array of its count, or a runtime array when unbounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpacesBindings {
    /// The set of register space 0; space `s` is set `first_set + s`.
    pub first_set: u32,
}

impl SpacesBindings {
    /// The first binding of the interleaved region (registers past D3D11's slot counts).
    pub const HIGH_BASE: u32 = D3d11Bindings::BINDING_COUNT;

    /// The layout with register space 0 in set `first_set`.
    pub fn with_first_set(first_set: u32) -> Self {
        Self { first_set }
    }

    /// The binding of register `register` of `kind` inside its space's set, or `None` when it
    /// would be past 4294967295.
    pub fn binding(kind: ResourceKind, register: u32) -> Option<u32> {
        let (base, slots) = D3d11Bindings::block(kind);
        if register < slots {
            return Some(base + register);
        }
        let high = (u64::from(register) - u64::from(slots)) * 5
            + u64::from(Self::HIGH_BASE)
            + u64::from(kind.index());
        u32::try_from(high).ok()
    }
}

impl BindingMap for SpacesBindings {
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        range.check()?;
        let set = self
            .first_set
            .checked_add(range.space)
            .ok_or(BindingError::Invalid {
                range: *range,
                reason: "its descriptor set would be past 4294967295",
            })?;
        let binding = Self::binding(range.kind, range.first).ok_or(BindingError::Invalid {
            range: *range,
            reason: "its binding would be past 4294967295",
        })?;
        Ok(BindingTarget::Descriptor(VulkanBinding {
            set,
            binding,
            array_offset: 0,
            descriptor_count: range.count,
        }))
    }
}
