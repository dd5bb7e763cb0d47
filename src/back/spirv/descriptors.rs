//! Descriptor arrays: declarations whose Vulkan binding is an array (SM5.1 register ranges, or
//! ranges sharing one binding through array offsets), and the accesses that index them
//! (`docs/bindings.md`).
//!
//! Contract:
//! - A declaration whose binding is one descriptor (array offset 0, count 1) and whose range has
//!   one register is a plain variable, as in SM5.0. Any other is a variable of the binding's
//!   whole array: `T[descriptor_count]`, or `T[]` (`OpTypeRuntimeArray`,
//!   `RuntimeDescriptorArray`) for an unbounded binding.
//! - An access to element `e` of a declaration (the IR index, relative to the range's first
//!   register) is element `array_offset + e` of the variable. A constant `e` outside a bounded
//!   range is [`Error::Invalid`] at translate time; a dynamic one is not checked (D3D12 leaves
//!   out-of-range descriptor indices undefined).
//! - Dynamic indices declare the `*ArrayDynamicIndexing` capability of the descriptor type;
//!   `nonuniform` ones also `ShaderNonUniform` and `*ArrayNonUniformIndexing` (also for arrays
//!   of one: dxbc-spirv decorates those but forgets the capability), and the access chain, and
//!   everything the caller derives from it, is decorated `NonUniform`. Before SPIR-V 1.5 the
//!   capabilities come from `SPV_EXT_descriptor_indexing`. A plain (single) descriptor is the
//!   same for every invocation, so a dynamic or `nonuniform` index of it (which can only be 0)
//!   adds nothing.

use spirv::{Capability, Decoration, StorageClass};

use super::context::{Emitter, Scalar};
use crate::back::spirv::Error;
use crate::ir::binding::{BindingTarget, Count, RegisterRange};
use crate::ir::Index;
use crate::spv::{Id, Version};

/// A declaration's place in an array binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DescriptorArray {
    /// The element of the range's first register.
    pub offset: u32,
    /// Elements of the binding; `None` for a runtime array.
    pub len: Option<u32>,
    /// Registers of the declared range (bounds constant indices).
    pub range: Count,
    /// In a bindless heap: the push-constant byte offset of the table's base index, added to
    /// every element (`push_constants.rs`).
    pub heap_base: Option<u32>,
}

/// Where a declaration is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Binding {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// The array shape, when the declaration is not one plain descriptor.
    pub array: Option<DescriptorArray>,
}

/// The descriptor types, for the indexing capabilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DescriptorKind {
    /// Sampled images and samplers.
    SampledImage,
    /// Storage images.
    StorageImage,
    /// Uniform texel buffers.
    UniformTexelBuffer,
    /// Storage texel buffers.
    StorageTexelBuffer,
    /// Uniform buffers.
    UniformBuffer,
    /// Storage buffers.
    StorageBuffer,
}

impl DescriptorKind {
    fn capabilities(self) -> (Capability, Capability) {
        use Capability as C;
        match self {
            Self::SampledImage => (
                C::SampledImageArrayDynamicIndexing,
                C::SampledImageArrayNonUniformIndexing,
            ),
            Self::StorageImage => (
                C::StorageImageArrayDynamicIndexing,
                C::StorageImageArrayNonUniformIndexing,
            ),
            Self::UniformTexelBuffer => (
                C::UniformTexelBufferArrayDynamicIndexing,
                C::UniformTexelBufferArrayNonUniformIndexing,
            ),
            Self::StorageTexelBuffer => (
                C::StorageTexelBufferArrayDynamicIndexing,
                C::StorageTexelBufferArrayNonUniformIndexing,
            ),
            Self::UniformBuffer => (
                C::UniformBufferArrayDynamicIndexing,
                C::UniformBufferArrayNonUniformIndexing,
            ),
            Self::StorageBuffer => (
                C::StorageBufferArrayDynamicIndexing,
                C::StorageBufferArrayNonUniformIndexing,
            ),
        }
    }
}

/// The binding of a declaration of `range`, which the `assign_bindings` pass set.
pub(crate) fn binding_of(
    target: Option<BindingTarget>,
    range: &RegisterRange,
    span: u32,
    what: &str,
) -> Result<Binding, Error> {
    match target {
        Some(BindingTarget::Descriptor(b)) => {
            let plain = b.array_offset == 0
                && b.descriptor_count == Count::Bounded(1)
                && range.count == Count::Bounded(1);
            Ok(Binding {
                set: b.set,
                binding: b.binding,
                array: (!plain).then_some(DescriptorArray {
                    offset: b.array_offset,
                    len: b.descriptor_count.bounded(),
                    range: range.count,
                    heap_base: None,
                }),
            })
        }
        Some(BindingTarget::Heap(h)) => Ok(Binding {
            set: h.set,
            binding: h.binding,
            array: Some(DescriptorArray {
                offset: h.array_offset,
                len: None,
                range: range.count,
                heap_base: Some(h.base_offset),
            }),
        }),
        Some(BindingTarget::PushConstants(_)) => Err(Error::unsupported(
            span,
            format!("{what} mapped to push constants"),
        )),
        Some(BindingTarget::DeviceAddress(_)) => Err(Error::unsupported(
            span,
            format!(
                "{what} {range} mapped to a buffer device address (root descriptors are \
                 constant buffers and raw or structured buffers only)"
            ),
        )),
        None => Err(Error::internal(span, format!("{what} without a binding"))),
    }
}

/// A descriptor an access names: the pointer to it and whether it is non-uniform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Descriptor {
    /// Pointer to the descriptor (the variable itself for plain declarations).
    pub ptr: Id,
    /// Decorate what is derived from it `NonUniform`.
    pub nonuniform: bool,
}

impl Emitter<'_> {
    /// The variable type of a declaration: `ty`, or the array of its binding.
    pub(crate) fn descriptor_variable_type(
        &mut self,
        ty: Id,
        array: Option<DescriptorArray>,
    ) -> Id {
        match array {
            None => ty,
            Some(DescriptorArray { len: Some(n), .. }) => self.m.type_array_len(ty, n.max(1)),
            Some(DescriptorArray { len: None, .. }) => {
                self.descriptor_indexing_capability(Capability::RuntimeDescriptorArray);
                self.m.type_runtime_array(ty)
            }
        }
    }

    /// The descriptor `element` selects in a declaration's variable `var` of `storage` class,
    /// whose elements are `elem_ty`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn descriptor_element(
        &mut self,
        span: u32,
        var: Id,
        array: Option<DescriptorArray>,
        element: &Index,
        storage: StorageClass,
        elem_ty: Id,
        kind: DescriptorKind,
    ) -> Result<Descriptor, Error> {
        let Some(array) = array else {
            // One descriptor: a constant index must be 0; a dynamic one can only be 0 in a
            // valid program (D3D12 leaves others undefined), and every invocation reads the
            // same descriptor, so even a `nonuniform` index needs no decoration.
            if element.constant().is_some_and(|e| e != 0) {
                return Err(Error::invalid(
                    span,
                    format!("descriptor index {} of a single descriptor", element.imm),
                ));
            }
            return Ok(Descriptor {
                ptr: var,
                nonuniform: false,
            });
        };
        // A heap index depends on a push constant: dynamically uniform.
        let heap = array.heap_base.is_some();
        let (dynamic, nonuniform) = (element.is_relative() || heap, element.nonuniform());
        let idx = match element.constant() {
            Some(e) => {
                if let Some(n) = array.range.bounded() {
                    if e >= n {
                        return Err(Error::invalid(
                            span,
                            format!("descriptor index {e} outside its range of {n}"),
                        ));
                    }
                }
                let at = array.offset.checked_add(e).ok_or_else(|| {
                    Error::invalid(span, "descriptor index past the binding's array")
                })?;
                if array.len.is_some_and(|n| at >= n) {
                    return Err(Error::invalid(
                        span,
                        format!("descriptor element {at} past the binding's array"),
                    ));
                }
                self.u32_const(at)
            }
            None => {
                let u = self.ty(Scalar::U32, 1);
                let e = self.index_value(span, element)?;
                if array.offset == 0 {
                    e
                } else {
                    let offset = self.u32_const(array.offset);
                    self.m.i_add(u, e, offset)
                }
            }
        };
        let idx = match array.heap_base {
            Some(byte) => {
                let base = self.push_word(span, byte)?;
                let u = self.ty(Scalar::U32, 1);
                self.m.i_add(u, base, idx)
            }
            None => idx,
        };
        let (dynamic_cap, nonuniform_cap) = kind.capabilities();
        if dynamic || nonuniform {
            if matches!(
                kind,
                DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer
            ) {
                self.descriptor_indexing_capability(dynamic_cap);
            } else {
                self.m.capability(dynamic_cap);
            }
        }
        if nonuniform {
            self.descriptor_indexing_capability(Capability::ShaderNonUniform);
            self.descriptor_indexing_capability(nonuniform_cap);
            self.non_uniform(idx);
        }
        let ptr_ty = self.m.type_pointer(storage, elem_ty);
        let ptr = self.m.access_chain(ptr_ty, var, &[idx]);
        if nonuniform {
            self.non_uniform(ptr);
        }
        Ok(Descriptor { ptr, nonuniform })
    }

    /// Decorates `id` `NonUniform`.
    pub(crate) fn non_uniform(&mut self, id: Id) {
        self.m.decorate(id, Decoration::NonUniform, &[]);
    }

    /// A descriptor-indexing capability: core in SPIR-V 1.5, `SPV_EXT_descriptor_indexing`
    /// before.
    fn descriptor_indexing_capability(&mut self, cap: Capability) {
        self.extension_before(Version::V1_5, "SPV_EXT_descriptor_indexing");
        self.m.capability(cap);
    }
}

#[cfg(test)]
mod tests {
    use crate::bindings::{
        Bindings, Count, RegisterRange, ResourceKind, TableBindings, TableEntry,
    };
    use crate::spv::tests::tools;
    use crate::{translate, Error, Options, Target};

    /// Microsoft's SM5.1 example (`Texture2D tex0 : t5; Texture2D tex1[][5][3] : t10;
    /// Texture2D tex2[8] : register(t0, space1)`), plus a non-uniform read of `tex2`, a
    /// constant-buffer array and a UAV array with counters.
    const SEED: &str = "ps_5_1
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[2:3][1], immediateIndexed, space=0
dcl_sampler s0[5:5], mode_default, space=0
dcl_resource_texture2d (float,float,float,float) t0[5:5], space=0
dcl_resource_texture2d (float,float,float,float) t1[10:*], space=0
dcl_resource_texture2d (float,float,float,float) t2[0:7], space=1
dcl_uav_structured_opc u0[0:3], 4, space=2
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_temps 2
sample r0.xyzw, v0.xyxx, t0[5].xyzw, s0[5]
add r0.xyzw, r0.xyzw, v0.xyzw
ftou r1.x, r0.x
sample r1.xyzw, r0.xyxx, t2[r1.x + 0].xyzw, s0[5]
add r0.xyzw, r0.xyzw, r1.xyzw
ftou r1.xyz, r0.zyxz
sample r1.xyzw, r0.xyxx, t1[r1.x + 10].xyzw {nonuniform}, s0[5]
add r0.xyzw, r0.xyzw, r1.xyzw
add r0.xyzw, r0.xyzw, cb0[3][0].xyzw
imm_atomic_alloc r1.x, u0[r1.y + 2] {nonuniform}
store_structured u0[r1.y + 2].x {nonuniform}, r1.x, l(0), r0.x
mov o0.xyzw, r0.xyzw
ret
";

    fn table() -> Bindings {
        use ResourceKind::*;
        let e = |kind, space, first, count, binding, offset| {
            TableEntry::new(
                RegisterRange::new(kind, space, first, count),
                0,
                binding,
                offset,
            )
        };
        let entries = vec![
            e(Sampler, 0, 5, Count::Bounded(1), 0, 0),
            // t0 (space 0) and t2[8] (space 1) share binding 1: t0 at element 0, t2 from 1.
            e(ShaderResource, 0, 5, Count::Bounded(1), 1, 0),
            e(ShaderResource, 1, 0, Count::Bounded(8), 1, 1),
            e(ShaderResource, 0, 10, Count::Unbounded, 2, 0),
            e(ConstantBuffer, 0, 2, Count::Bounded(2), 3, 0),
            e(UnorderedAccess, 2, 0, Count::Bounded(4), 4, 0),
            e(UavCounter, 2, 0, Count::Bounded(4), 5, 0),
        ];
        Bindings::Table(TableBindings::new(entries, Vec::new()).expect("table"))
    }

    fn spirv(target: Target) -> String {
        let bytes = crate::test_support::assemble(SEED);
        let options = Options {
            bindings: table(),
            target,
            ..Options::default().with_flag(crate::OptionFlags::DEBUG_NAMES, true)
        };
        let t = translate(&bytes, &options).unwrap_or_else(|e| panic!("{e}"));
        tools::validate(&t.spirv, target.name());
        tools::disassemble(&t.spirv).unwrap_or_default()
    }

    /// Arrays of the bindings' sizes, runtime arrays for unbounded ones, array offsets added,
    /// and the capabilities: dynamic indexing, runtime arrays, non-uniform indexing with the
    /// `NonUniform` decorations (the extension before SPIR-V 1.5).
    #[test]
    fn descriptor_arrays_are_declared_and_indexed() {
        let old = spirv(Target::Vulkan1_1);
        assert!(old.contains("SPV_EXT_descriptor_indexing"), "{old}");
        let text = spirv(Target::Vulkan1_3);
        for needle in [
            "OpCapability SampledImageArrayDynamicIndexing",
            "OpCapability RuntimeDescriptorArray",
            "OpCapability ShaderNonUniform",
            "OpCapability SampledImageArrayNonUniformIndexing",
            "OpCapability StorageBufferArrayNonUniformIndexing",
            "OpTypeRuntimeArray",
            "NonUniform",
        ] {
            assert!(text.contains(needle), "{needle} missing:\n{text}");
        }
        // t0 and t2 share binding 1, an array of 9 images (t2[i] is element i + 1).
        assert_eq!(
            text.matches("OpDecorate %t0 Binding 1").count(),
            1,
            "{text}"
        );
        assert_eq!(
            text.matches("OpDecorate %t2 Binding 1").count(),
            1,
            "{text}"
        );
        assert!(text.contains("%uint_9"), "{text}");
        // Constant buffers: an array of 2 blocks; CB0[3] is element 1.
        assert!(text.contains("OpDecorate %cb0 Binding 3"), "{text}");
    }

    /// A constant index outside the declared range is refused at translate time.
    #[test]
    fn a_constant_index_outside_the_range_is_invalid() {
        let text = SEED.replace("t2[r1.x + 0]", "t2[8]");
        let bytes = crate::test_support::assemble(&text);
        let options = Options {
            bindings: table(),
            ..Options::default()
        };
        match translate(&bytes, &options) {
            Err(Error::Invalid(e)) => {
                assert!(e.what.contains("past its 8 elements"), "{}", e.what)
            }
            other => panic!("{other:?}"),
        }
    }
}
