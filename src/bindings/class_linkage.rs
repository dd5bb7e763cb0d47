//! How a shader's SM5 interfaces are dispatched: at run time through the class-linkage block,
//! or directly to the class instances the runtime binds (`ID3D11ClassLinkage`).
//!
//! Contract: [`ClassLinkage::default`] is run-time dispatch with the block at set 0, binding
//! 14, a single uniform buffer: binding 14 is unused by [`D3d11Bindings`](super::D3d11Bindings)
//! (its constant buffers are `b0..b13` at 0..13, samplers start at 16), and only SM5.0
//! shaders, which have no register spaces, declare interfaces. The block's layout is the IR's
//! [`ClassLinkage`](crate::ir::ClassLinkage) (`docs/runtime.md`, "Class linkage").
//! [`ClassLinkage::bound`] gives the instances instead: entry `s` is the instance bound to
//! interface slot `s` (`None`: no instance, D3D's NULL), and the shader has no block.

use super::{BindingTarget, Count, VulkanBinding};

/// The class instance bound to one interface slot: what D3D11's `ID3D11ClassInstance` carries
/// (`D3D11_CLASS_INSTANCE_DESC`) and `*SetShader` hands to the shader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClassInstance {
    /// The function table (`ft#`) of the instance's class: the table id the compiler lists for
    /// the class in the shader's "Interface slots" (it must be one the slot's interface lists).
    pub table: u32,
    /// The constant buffer (`cb#`) holding the instance's data (`ConstantBuffer`).
    pub constant_buffer: u32,
    /// Where the instance's data starts in that buffer, in 16-byte vectors
    /// (`BaseConstantBufferOffset`).
    pub constant_offset: u32,
    /// The instance's first texture register (`t#`, `BaseTexture`).
    pub base_texture: u32,
    /// The instance's first sampler register (`s#`, `BaseSampler`).
    pub base_sampler: u32,
}

impl ClassInstance {
    /// An instance of the class whose function table is `table`, with its data at the start of
    /// `cb0` and its textures and samplers from `t0` and `s0`.
    pub fn new(table: u32) -> ClassInstance {
        ClassInstance {
            table,
            ..ClassInstance::default()
        }
    }

    /// The `this` data the shader reads as `this[s]`: (offset in vectors, `cb#`, first `t#`,
    /// first `s#`), as fxc uses it (`cb[this.y][this.x + k]`, `t[this.z + k]`, `s[this.w + k]`).
    pub fn this_data(&self) -> [u32; 4] {
        [
            self.constant_offset,
            self.constant_buffer,
            self.base_texture,
            self.base_sampler,
        ]
    }
}

/// How a shader's interfaces are dispatched, and where their data lives.
///
/// Two models: run-time dispatch (the default, [`ClassLinkage::at`]) on the function-table
/// index the runtime writes, per interface slot, into the class-linkage block at
/// [`ClassLinkage::block`]; or bound instances ([`ClassLinkage::bound`]), known at translation
/// time: each `fcall` calls its body directly and `this[]` reads constants.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ClassLinkage {
    /// Where the block (`uvec4[2 × slots]`, std140) is bound (run-time dispatch).
    pub block: BindingTarget,
    /// The instances bound per interface slot, when known at translation time: entry `s` for
    /// slot `s`, `None` (or past the end) for a slot without an instance. `None`: run-time
    /// dispatch through the block.
    pub instances: Option<Vec<Option<ClassInstance>>>,
}

impl ClassLinkage {
    /// The default block binding: set 0, binding 14.
    pub const DEFAULT_BINDING: VulkanBinding = VulkanBinding {
        set: 0,
        binding: 14,
        array_offset: 0,
        descriptor_count: Count::Bounded(1),
    };

    /// Run-time dispatch with the block at `block`.
    pub fn at(block: BindingTarget) -> ClassLinkage {
        ClassLinkage {
            block,
            instances: None,
        }
    }

    /// The instances bound at `*SetShader` time, by interface slot (`None`: no instance bound
    /// to that slot). Calls go straight to the bodies of each instance's table; the shader has
    /// no class-linkage block.
    pub fn bound(instances: impl IntoIterator<Item = Option<ClassInstance>>) -> ClassLinkage {
        ClassLinkage {
            instances: Some(instances.into_iter().collect()),
            ..ClassLinkage::default()
        }
    }

    /// The instance bound to `slot`, under [`ClassLinkage::bound`].
    pub fn instance(&self, slot: u32) -> Option<&ClassInstance> {
        self.instances
            .as_ref()?
            .get(usize::try_from(slot).ok()?)?
            .as_ref()
    }
}

impl Default for ClassLinkage {
    fn default() -> ClassLinkage {
        ClassLinkage::at(BindingTarget::Descriptor(Self::DEFAULT_BINDING))
    }
}
