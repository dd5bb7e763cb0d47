//! Root descriptors read through buffer device addresses
//! ([`BindingTarget::DeviceAddress`]: D3D12 root CBVs, SRVs and UAVs as 64-bit addresses in
//! the push constants).
//!
//! Contract:
//! - Only a single constant buffer or a single raw/structured SRV/UAV may be mapped to a device
//!   address (D3D12 root SRVs and UAVs are raw or structured buffers); anything else mapped so
//!   is refused with [`Error::Unsupported`] naming the register (here for arrays of them,
//!   in `descriptors.rs` for typed resources, textures, samplers and UAV counters). The
//!   address's push-constant byte offset must be a multiple of 8.
//! - A module that maps anything to a device address declares `OpMemoryModel
//!   PhysicalStorageBuffer64 GLSL450`, the capability `PhysicalStorageBufferAddresses` and,
//!   before SPIR-V 1.5, the extension `SPV_KHR_physical_storage_buffer`; any other module is
//!   emitted exactly as without this feature (`Logical` addressing).
//! - The address is the two 32-bit push-constant words at its offset (low word first, as a
//!   little-endian `u64`); each access loads them, makes a `PhysicalStorageBuffer` pointer to
//!   a `Block` struct (`OpBitcast` of the `uvec2` from SPIR-V 1.5 on; before it `OpBitcast`
//!   to a `u64`, which needs `Int64`, then `OpConvertUToPtr`) and reads or writes through it
//!   with `Aligned 4` (constant buffers: `Aligned 16`). Raw and structured buffers are
//!   `{ uint data[]; }` (`ArrayStride` 4; SRVs `NonWritable`), constant buffers
//!   `{ uvec4 data[]; }` (`ArrayStride` 16).
//! - Bounds: a D3D12 root descriptor is set by its GPU virtual address alone
//!   (`SetComputeRootShaderResourceView(index, BufferLocation)`), so it has no size and
//!   nothing is checked against one: `cb#[i]` reads vector `i` of the buffer whatever `i` is, and raw/structured accesses
//!   read and write the addressed words. What D3D defines without a size is kept: a
//!   structured access with `byte offset >= stride` reads 0 and writes nothing. `bufinfo`
//!   on a root descriptor has no size to return and is refused ([`Error::Unsupported`]).
//!   Atomics use scope `Device`, as on any UAV.

use spirv::{AddressingModel, Capability, Decoration, MemoryAccess, MemoryModel, Op, StorageClass};

use super::context::{Emitter, Scalar};
use super::push_constants::single_constant_buffer;
use crate::back::spirv::Error;
use crate::ir::binding::{BindingTarget, Count};
use crate::ir::{self, Index, ResourceShape};
use crate::spv::{Id, Module, Version};

/// The push-constant byte ranges (offset, 8) of every device address `module` uses, checked:
/// only single constant buffers and raw/structured buffers, offsets multiples of 8.
pub(super) fn address_ranges(module: &ir::Module) -> Result<Vec<u32>, Error> {
    let mut out = Vec::new();
    let cbuffers = module
        .cbuffers
        .iter()
        .map(|c| (c.binding, c.range, c.span, true));
    let resources = module.resources.iter().map(|r| {
        let buffer = !matches!(r.shape, ResourceShape::Typed { .. });
        (r.binding, r.range, r.span, buffer)
    });
    for (binding, range, span, buffer) in cbuffers.chain(resources) {
        let Some(BindingTarget::DeviceAddress(a)) = binding else {
            continue;
        };
        if !buffer {
            // Refused with its name where its binding is read (`descriptors.rs`).
            continue;
        }
        if range.count != Count::Bounded(1) {
            return Err(Error::unsupported(
                span,
                format!(
                    "{range} is an array mapped to a buffer device address (a D3D12 root \
                     descriptor is one buffer)"
                ),
            ));
        }
        if a.offset % 8 != 0 || a.offset > u32::MAX - 8 {
            return Err(Error::unsupported(
                span,
                format!(
                    "device address of {range} at push-constant byte {}: addresses are 8-byte \
                     aligned below byte 2^32",
                    a.offset
                ),
            ));
        }
        out.push(a.offset);
    }
    Ok(out)
}

/// True when a declaration of `module` is mapped to a device address.
pub(super) fn uses_device_addresses(module: &ir::Module) -> bool {
    let is = |b: Option<BindingTarget>| matches!(b, Some(BindingTarget::DeviceAddress(_)));
    module.cbuffers.iter().any(|c| is(c.binding))
        || module
            .resources
            .iter()
            .any(|r| is(r.binding) || is(r.counter_binding))
        || module.samplers.iter().any(|s| is(s.binding))
}

/// Declares physical storage buffer addressing in `m` (for a module that uses it).
pub(super) fn enable(m: &mut Module) {
    m.capability(Capability::PhysicalStorageBufferAddresses);
    if m.version() < Version::V1_5 {
        m.extension("SPV_KHR_physical_storage_buffer");
    }
    m.memory_model(
        AddressingModel::PhysicalStorageBuffer64,
        MemoryModel::GLSL450,
    );
}

impl Emitter<'_> {
    /// The `Block` struct a device address points to: `{ uint data[]; }` (`ArrayStride` 4,
    /// `NonWritable` unless `writable`), or for a constant buffer `{ uvec4 data[]; }`
    /// (`ArrayStride` 16).
    pub(super) fn address_block(&mut self, cbuffer: bool, writable: bool, coherent: bool) -> Id {
        let (elem, stride) = if cbuffer {
            (self.ty(Scalar::U32, 4), 16)
        } else {
            (self.ty(Scalar::U32, 1), 4)
        };
        let array = self.m.type_runtime_array_unique(elem);
        self.m.decorate_array_stride(array, stride);
        let block = self.m.type_struct(&[array]);
        self.m.decorate(block, Decoration::Block, &[]);
        self.m.member_offset(block, 0, 0);
        if !writable {
            self.m
                .member_decorate(block, 0, Decoration::NonWritable, &[]);
        }
        if coherent {
            self.m.member_decorate(block, 0, Decoration::Coherent, &[]);
        }
        block
    }

    /// A `PhysicalStorageBuffer` pointer to `block` from the address at push-constant byte
    /// `offset`.
    pub(super) fn address_pointer(
        &mut self,
        span: u32,
        offset: u32,
        block: Id,
    ) -> Result<Id, Error> {
        let lo = self.push_word(span, offset)?;
        let hi = self.push_word(span, offset + 4)?;
        let uvec2 = self.ty(Scalar::U32, 2);
        let pair = self.m.composite_construct(uvec2, &[lo, hi]);
        let ptr_ty = self
            .m
            .type_pointer(StorageClass::PhysicalStorageBuffer, block);
        if self.m.version() >= Version::V1_5 {
            return Ok(self.m.emit(Op::Bitcast, ptr_ty, &[pair]));
        }
        self.m.capability(Capability::Int64);
        let u64_ty = self.m.type_int(64, false);
        let wide = self.m.emit(Op::Bitcast, u64_ty, &[pair]);
        Ok(self.m.emit(Op::ConvertUToPtr, ptr_ty, &[wide]))
    }

    /// OpLoad of `ty` through the physical pointer `ptr` with `Aligned align`.
    pub(super) fn load_aligned(&mut self, ty: Id, ptr: Id, align: u32) -> Id {
        let id = self.m.alloc_id();
        self.m.inst(
            Op::Load,
            Some(ty),
            Some(id),
            &[ptr.word(), MemoryAccess::ALIGNED.bits(), align],
        );
        id
    }

    /// OpStore of `value` through the physical pointer `ptr` with `Aligned 4`.
    pub(super) fn store_aligned(&mut self, ptr: Id, value: Id) {
        self.m.inst(
            Op::Store,
            None,
            None,
            &[ptr.word(), value.word(), MemoryAccess::ALIGNED.bits(), 4],
        );
    }

    /// `cb#[element][slot]` of a root constant buffer whose address is at push-constant byte
    /// `offset` (block type `block`): vector `slot` of the buffer, unchecked (no size).
    pub(super) fn read_address_cbuffer(
        &mut self,
        span: u32,
        offset: u32,
        block: Id,
        element: &Index,
        slot: &Index,
    ) -> Result<Id, Error> {
        single_constant_buffer(span, element)?;
        let base = self.address_pointer(span, offset, block)?;
        let uvec4 = self.ty(Scalar::U32, 4);
        let idx = self.index_value(span, slot)?;
        let ptr_ty = self
            .m
            .type_pointer(StorageClass::PhysicalStorageBuffer, uvec4);
        let zero = self.u32_const(0);
        let ptr = self.m.access_chain(ptr_ty, base, &[zero, idx]);
        Ok(self.load_aligned(uvec4, ptr, 16))
    }
}

#[cfg(test)]
#[path = "device_address_tests.rs"]
mod tests;
