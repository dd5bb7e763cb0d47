//! Where the class-linkage block of a shader with SM5 interfaces is bound.
//!
//! Contract: [`ClassLinkage::default`] binds the block at set 0, binding 14, a single uniform
//! buffer: binding 14 is unused by [`D3d11Bindings`](super::D3d11Bindings) (its constant buffers
//! are `b0..b13` at 0..13, samplers start at 16), and only SM5.0 shaders, which have no register
//! spaces, declare interfaces. The block's layout is the IR's
//! [`ClassLinkage`](crate::ir::ClassLinkage) (`docs/runtime.md`, "Class linkage").

use super::{BindingTarget, Count, VulkanBinding};

/// How a shader's interfaces are dispatched, and where their data lives.
///
/// Today one model: run-time dispatch on the function-table index the runtime writes, per
/// interface slot, into the class-linkage block at [`ClassLinkage::block`]. Non-exhaustive so
/// that a model with the instances known at translation time can be added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ClassLinkage {
    /// Where the block (`uvec4[2 × slots]`, std140) is bound.
    pub block: BindingTarget,
}

impl ClassLinkage {
    /// The default block binding: set 0, binding 14.
    pub const DEFAULT_BINDING: VulkanBinding = VulkanBinding {
        set: 0,
        binding: 14,
        array_offset: 0,
        descriptor_count: Count::Bounded(1),
    };

    /// The block at `block`.
    pub fn at(block: BindingTarget) -> ClassLinkage {
        ClassLinkage { block }
    }
}

impl Default for ClassLinkage {
    fn default() -> ClassLinkage {
        ClassLinkage::at(BindingTarget::Descriptor(Self::DEFAULT_BINDING))
    }
}
