//! Declarations of SRVs, UAVs, UAV counters and shared memory (`docs/bindings.md`).
//!
//! Contract: after [`Emitter::declare_resources`], `Emitter::resources[i]` holds the SPIR-V
//! objects of `ir.resources[i]` and `Emitter::tgsm[i]` the variable of `ir.tgsm[i]`:
//! - raw and structured buffers (`t#`, `u#`): a storage buffer block `struct { uint data[]; }`
//!   (runtime array, `ArrayStride 4`, member `Offset 0`), `Block` in the `StorageBuffer` class
//!   from SPIR-V 1.3 on, `BufferBlock` in the `Uniform` class before; SRVs are `NonWritable`,
//!   `_glc` and `_rov` UAVs `Coherent` (a ROV's writes must be seen by the next invocation
//!   of the interlock's critical section); [`ResourceVars::var`] is the variable.
//! - typed buffers: a texel buffer image (`Dim Buffer`, `Sampled 1` for SRVs = uniform texel
//!   buffer, `Sampled 2` for UAVs = storage texel buffer) of the return type's scalar
//!   (float/unorm/snorm → f32, uint → u32, sint → i32), format `Unknown`, except a typed UAV
//!   that atomics use, which Vulkan requires to be `R32ui`/`R32i` (D3D requires an
//!   `R32_UINT`/`R32_SINT` view there too); [`ResourceVars::image_type`] is its type.
//! - UAV counters: a separate storage buffer block `struct { uint counter; }` at the counter
//!   binding ([`ResourceVars::counter`]).
//! - textures (SRVs and typed UAVs of every non-buffer dimension) and samplers: declared by
//!   `texture/declare.rs`.
//! - `g#`: a Workgroup `uint[words]`.
//!
//! A declaration bound inside a descriptor array is a variable of the whole array
//! (`descriptors.rs`); push constants are refused there.

use spirv::{Capability, Decoration, Dim, ImageFormat, StorageClass};

use super::buffer_options::{
    fixup_entries, FormatClass, TypedUavFormats, UavFormat, UnlistedUavFormat,
};
use super::context::{Emitter, ResourceVars, Scalar};
use super::descriptors::{binding_of, Binding};
use crate::back::spirv::Error;
use crate::ir::binding::{BindingTarget, Count, ResourceKind};
use crate::ir::{self, Dimension, Op, Reg, ResourceShape, ReturnType};
use crate::spv::{Id, ImageType, Version};

/// The component type a typed resource's texels are read and written as.
pub(crate) fn texel_scalar(ret: ReturnType) -> Option<Scalar> {
    match ret {
        ReturnType::Float | ReturnType::Unorm | ReturnType::Snorm => Some(Scalar::F32),
        ReturnType::Uint => Some(Scalar::U32),
        ReturnType::Sint => Some(Scalar::I32),
        _ => None,
    }
}

/// The resource operand an atomic operation works on (`None` for other operations).
pub(crate) fn atomic_target(inst: &ir::Inst) -> Option<Reg> {
    use Op::*;
    match inst.op {
        AtomicAnd | AtomicOr | AtomicXor | AtomicCmpStore | AtomicIadd | AtomicImax
        | AtomicImin | AtomicUmax | AtomicUmin => inst.dst().first().map(|d| d.reg),
        ImmAtomicIadd | ImmAtomicAnd | ImmAtomicOr | ImmAtomicXor | ImmAtomicExch
        | ImmAtomicCmpExch | ImmAtomicImax | ImmAtomicImin | ImmAtomicUmax | ImmAtomicUmin => {
            inst.src().first().map(|s| s.reg)
        }
        _ => None,
    }
}

impl Emitter<'_> {
    /// The format of a typed resource's image: `Unknown`, except `R32ui`/`R32i` for a UAV that
    /// atomics use (`r32`), which Vulkan requires and D3D guarantees (an `R32_UINT`/`R32_SINT`
    /// view), and a UAV's format from `EmitOptions::typed_uav_formats` (listed, or the R32
    /// format of its return type when unlisted and so chosen) when the shader reads it (or that
    /// option's `written_only`). A declared format needs no `*WithoutFormat` capability.
    pub(crate) fn typed_format(
        &mut self,
        decl: &ir::ResourceDecl,
        scalar: Scalar,
        r32: bool,
    ) -> Result<ImageFormat, Error> {
        let uav = decl.range.kind == ResourceKind::UnorderedAccess;
        let choice = &self.options.typed_uav_formats;
        let chosen = if !uav || choice == &TypedUavFormats::default() {
            None
        } else {
            let listed = choice.listed(decl.range.space, decl.range.first);
            let unlisted = choice.unlisted;
            let written_only = choice.written_only;
            let read = self.typed_uav_read(decl);
            match listed {
                Some(f) if read || written_only || r32 => Some(f),
                None if read && unlisted == UnlistedUavFormat::R32OfReturnType => {
                    let f = match scalar {
                        Scalar::U32 => UavFormat::R32ui,
                        Scalar::I32 => UavFormat::R32i,
                        _ => UavFormat::R32f,
                    };
                    if !r32 {
                        self.format_assumed(decl, f);
                    }
                    Some(f)
                }
                _ => None,
            }
        };
        if let Some(f) = chosen {
            let matches = match f.class() {
                FormatClass::Float => scalar == Scalar::F32,
                FormatClass::Uint => scalar == Scalar::U32,
                FormatClass::Sint => scalar == Scalar::I32,
            };
            if !matches {
                return Err(Error::invalid(
                    decl.span,
                    format!(
                        "typed UAV u{} given format {} whose components are not its declared \
                         return type",
                        decl.range.first,
                        f.name()
                    ),
                ));
            }
            if r32 && !matches!(f, UavFormat::R32ui | UavFormat::R32i) {
                return Err(Error::unsupported(
                    decl.span,
                    format!(
                        "atomics on typed UAV u{} given format {} (Vulkan image atomics need \
                         R32ui or R32i)",
                        decl.range.first,
                        f.name()
                    ),
                ));
            }
            if f.extended() {
                self.m.capability(Capability::StorageImageExtendedFormats);
            }
            return Ok(f.spirv());
        }
        match (r32, scalar) {
            (false, _) => Ok(ImageFormat::Unknown),
            (true, Scalar::U32) => Ok(ImageFormat::R32ui),
            (true, Scalar::I32) => Ok(ImageFormat::R32i),
            (true, _) => Err(Error::invalid(
                decl.span,
                "atomics on a typed UAV that is not declared uint or sint",
            )),
        }
    }

    /// Whether the shader reads the typed UAV `decl` (`ld_uav_typed`, `ld_uav_typed_s`).
    fn typed_uav_read(&self, decl: &ir::ResourceDecl) -> bool {
        let Some(index) = self
            .ir
            .resources
            .iter()
            .position(|r| r.range == decl.range && r.id == decl.id)
        else {
            return false;
        };
        self.ir.insts.iter().any(|inst| {
            matches!(inst.op, Op::LdUavTyped | Op::LdUavTypedS)
                && inst
                    .op
                    .source(ir::Role::Resource)
                    .and_then(|k| inst.src().get(k))
                    .is_some_and(
                        |s| matches!(s.reg, Reg::Uav { decl, .. } if decl.index() == index),
                    )
        })
    }

    /// The image type and its `UniformConstant` variable for a typed `t#`/`u#`, bound at
    /// `binding`, `Coherent` for `_glc` UAVs, named `t#`/`u#`: `(variable, image type)`.
    pub(crate) fn image_variable(
        &mut self,
        decl: &ir::ResourceDecl,
        binding: Binding,
        ty: ImageType,
    ) -> (Id, Id) {
        let uav = decl.range.kind == ResourceKind::UnorderedAccess;
        let image = self.m.type_image(&ty);
        let var_ty = self.descriptor_variable_type(image, binding.array);
        let var = self
            .m
            .global_variable(StorageClass::UniformConstant, var_ty, None);
        self.m.decorate_binding(var, binding.set, binding.binding);
        if uav && (decl.coherent || decl.rasterizer_ordered) {
            self.m.decorate(var, Decoration::Coherent, &[]);
        }
        self.name_indexed(var, if uav { "u" } else { "t" }, decl.id);
        (var, image)
    }

    /// The storage class of raw/structured buffers and counters: `StorageBuffer` from SPIR-V
    /// 1.3 on, `Uniform` (with `BufferBlock` blocks) before.
    pub(crate) fn buffer_storage(&self) -> StorageClass {
        if self.m.version() >= Version::V1_3 {
            StorageClass::StorageBuffer
        } else {
            StorageClass::Uniform
        }
    }

    /// Declares every SRV, UAV (with counters), `g#` and sampler of the module.
    pub fn declare_resources(&mut self) -> Result<(), Error> {
        let ir = self.ir;
        let atomics = self.typed_atomic_uses()?;
        let fixups = fixup_entries(&ir.resources, &self.options);
        // One runtime array type serves every buffer block.
        let mut words_array: Option<Id> = None;
        for (i, decl) in ir.resources.iter().enumerate() {
            let uav = decl.range.kind == ResourceKind::UnorderedAccess;
            let mut vars = ResourceVars::default();
            match decl.shape {
                ResourceShape::Raw | ResourceShape::Structured { .. } => {
                    if let ResourceShape::Structured { stride } = decl.shape {
                        if stride == 0 || stride % 4 != 0 {
                            return Err(Error::internal(
                                decl.span,
                                format!(
                                    "structure stride {stride} is not a positive multiple of 4"
                                ),
                            ));
                        }
                    }
                    if let Some(BindingTarget::DeviceAddress(a)) = decl.binding {
                        let coherent = decl.coherent || decl.rasterizer_ordered;
                        vars.block = Some(self.address_block(false, uav, coherent));
                        vars.address = Some(a.offset);
                        self.finish_resource(decl, vars)?;
                        continue;
                    }
                    let binding = binding_of(decl.binding, &decl.range, decl.span, "buffer")?;
                    if self.options.texel_raw_buffers.applies(uav) {
                        vars = self.texel_words_buffer(decl, binding, uav);
                        self.finish_resource(decl, vars)?;
                        continue;
                    }
                    let array = match words_array {
                        Some(a) => a,
                        None => {
                            let u = self.ty(Scalar::U32, 1);
                            let a = self.m.type_runtime_array_unique(u);
                            self.m.decorate_array_stride(a, 4);
                            words_array = Some(a);
                            a
                        }
                    };
                    let block = self.buffer_block(array);
                    if !uav {
                        self.m
                            .member_decorate(block, 0, Decoration::NonWritable, &[]);
                    }
                    if decl.coherent || decl.rasterizer_ordered {
                        self.m.member_decorate(block, 0, Decoration::Coherent, &[]);
                    }
                    let storage = self.buffer_storage();
                    let ty = self.descriptor_variable_type(block, binding.array);
                    let var = self.m.global_variable(storage, ty, None);
                    self.m.decorate_binding(var, binding.set, binding.binding);
                    self.name_indexed(var, if uav { "u" } else { "t" }, decl.id);
                    vars.var = Some(var);
                    vars.block = Some(block);
                    vars.array = binding.array;
                    if let Some(entry) = fixups.iter().position(|&f| f == i) {
                        if binding.array.is_some() {
                            return Err(Error::unsupported(
                                decl.span,
                                "storage-buffer offset fix-up of a descriptor array",
                            ));
                        }
                        let block_var = self.fixup_block(decl.span, fixups.len())?;
                        vars.fixup = Some((block_var, entry as u32));
                    }
                }
                ResourceShape::Typed {
                    dim: Dimension::Buffer,
                    ret,
                    ..
                } => {
                    let scalar = texel_scalar(ret[0]).ok_or_else(|| {
                        Error::unsupported(
                            decl.span,
                            format!("typed buffer of return type {}", ret[0].name()),
                        )
                    })?;
                    let binding = binding_of(decl.binding, &decl.range, decl.span, "typed buffer")?;
                    let r32 = uav && atomics.get(i).copied().unwrap_or(false);
                    let format = self.typed_format(decl, scalar, r32)?;
                    let (var, image) = self.texel_buffer_variable(decl, binding, scalar, format);
                    vars.var = Some(var);
                    vars.image_type = Some(image);
                    vars.texel = Some(scalar);
                    vars.r32 = format != ImageFormat::Unknown;
                    vars.array = binding.array;
                }
                ResourceShape::Typed { .. } => {
                    let r32 = uav && atomics.get(i).copied().unwrap_or(false);
                    vars = self.declare_texture(decl, r32)?;
                }
            }
            self.finish_resource(decl, vars)?;
        }
        for g in &ir.tgsm {
            if g.words == 0 {
                return Err(Error::invalid(g.span, "shared memory of size 0"));
            }
            let u = self.ty(Scalar::U32, 1);
            let ty = self.m.type_array_len(u, g.words);
            let zero_init = self.options.linking.workgroup_zero_init
                == super::options::WorkgroupZeroInit::Initializer;
            let init = zero_init.then(|| self.m.constant_null(ty));
            let var = self.m.global_variable(StorageClass::Workgroup, ty, init);
            self.name_indexed(var, "g", g.register);
            self.objects.tgsm.push(var);
        }
        self.declare_samplers()
    }

    /// Declares the counter of `decl` (if it has one) and records its objects `vars`.
    fn finish_resource(
        &mut self,
        decl: &ir::ResourceDecl,
        mut vars: ResourceVars,
    ) -> Result<(), Error> {
        let uav = decl.range.kind == ResourceKind::UnorderedAccess;
        {
            if decl.counter {
                if !uav {
                    return Err(Error::internal(
                        decl.span,
                        "a shader resource view with a counter",
                    ));
                }
                let counter_range = decl.range.counter();
                let binding = binding_of(
                    decl.counter_binding,
                    &counter_range,
                    decl.span,
                    "UAV counter",
                )?;
                let u = self.ty(Scalar::U32, 1);
                let block = self.buffer_block(u);
                let storage = self.buffer_storage();
                let ty = self.descriptor_variable_type(block, binding.array);
                let var = self.m.global_variable(storage, ty, None);
                self.m.decorate_binding(var, binding.set, binding.binding);
                self.name_indexed(var, "counter_u", decl.id);
                vars.counter = Some(var);
                vars.counter_block = Some(block);
                vars.counter_array = binding.array;
            }
            self.objects.resources.push(vars);
        }
        Ok(())
    }

    /// A raw or structured view declared as a texel buffer of 32-bit words
    /// ([`crate::back::spirv::TexelRawBuffers`]): a uniform texel buffer of `u32` (format
    /// `Unknown`, read with `OpImageFetch`) for an SRV, a storage texel buffer of format `R32ui`
    /// for a UAV.
    fn texel_words_buffer(
        &mut self,
        decl: &ir::ResourceDecl,
        binding: Binding,
        uav: bool,
    ) -> ResourceVars {
        let format = if uav {
            ImageFormat::R32ui
        } else {
            ImageFormat::Unknown
        };
        let (var, image) = self.texel_buffer_variable(decl, binding, Scalar::U32, format);
        ResourceVars {
            var: Some(var),
            image_type: Some(image),
            texel: Some(Scalar::U32),
            r32: uav,
            array: binding.array,
            texel_words: true,
            ..ResourceVars::default()
        }
    }

    /// The variable of a texel buffer of `scalar` texels and `format` for `decl`: a uniform
    /// texel buffer (`Sampled 1`, capability `SampledBuffer`) for an SRV, a storage texel buffer
    /// (`Sampled 2`, `ImageBuffer`) for a UAV. Returns the variable and the image type.
    fn texel_buffer_variable(
        &mut self,
        decl: &ir::ResourceDecl,
        binding: Binding,
        scalar: Scalar,
        format: ImageFormat,
    ) -> (Id, Id) {
        let uav = decl.range.kind == ResourceKind::UnorderedAccess;
        self.m.capability(if uav {
            Capability::ImageBuffer
        } else {
            Capability::SampledBuffer
        });
        let sampled_type = self.ty(scalar, 1);
        self.image_variable(
            decl,
            binding,
            ImageType {
                sampled_type,
                dim: Dim::DimBuffer,
                depth: 0,
                arrayed: false,
                multisampled: false,
                sampled: if uav { 2 } else { 1 },
                format,
                access: None,
            },
        )
    }

    /// The storage-buffer fix-up block (`uvec4 data[entries]`, std140, a uniform buffer at
    /// `EmitOptions::storage_buffer_alignment`'s binding), declared on first use.
    fn fixup_block(&mut self, span: u32, entries: usize) -> Result<Id, Error> {
        if let Some(var) = self.objects.resources.iter().find_map(|v| v.fixup) {
            return Ok(var.0);
        }
        let Some(alignment) = self.options.storage_buffer_alignment else {
            return Err(Error::internal(span, "fix-up entries without an alignment"));
        };
        if !alignment.alignment.is_power_of_two() || alignment.alignment > 256 {
            return Err(Error::unsupported(
                span,
                format!(
                    "storage-buffer offset alignment {} (Vulkan allows powers of two up to 256)",
                    alignment.alignment
                ),
            ));
        }
        let binding = match alignment.block {
            BindingTarget::Descriptor(b) => b,
            BindingTarget::PushConstants(_) => {
                return Err(Error::unsupported(
                    span,
                    "storage-buffer fix-up block mapped to push constants",
                ))
            }
            BindingTarget::Heap(_) => {
                return Err(Error::unsupported(
                    span,
                    "storage-buffer fix-up block mapped into a bindless heap",
                ))
            }
            BindingTarget::DeviceAddress(_) => {
                return Err(Error::unsupported(
                    span,
                    "storage-buffer fix-up block mapped to a buffer device address",
                ))
            }
        };
        if binding.array_offset != 0 || binding.descriptor_count != Count::Bounded(1) {
            return Err(Error::unsupported(
                span,
                "storage-buffer fix-up block in a descriptor array",
            ));
        }
        self.check_fixup_binding(span, binding.set, binding.binding)?;
        let n =
            u32::try_from(entries).map_err(|_| Error::internal(span, "too many fix-up entries"))?;
        let uvec4 = self.ty(Scalar::U32, 4);
        let len = self.u32_const(n);
        let array = self.m.type_array_unique(uvec4, len);
        self.m.decorate_array_stride(array, 16);
        let block = self.m.type_struct(&[array]);
        self.m.decorate(block, Decoration::Block, &[]);
        self.m.member_offset(block, 0, 0);
        let var = self.m.global_variable(StorageClass::Uniform, block, None);
        self.m.decorate_binding(var, binding.set, binding.binding);
        self.m.name(var, "buffer_fixups");
        Ok(var)
    }

    /// Refuses a fix-up block binding that a declaration of the shader also uses.
    fn check_fixup_binding(&self, span: u32, set: u32, binding: u32) -> Result<(), Error> {
        let ir = self.ir;
        let at = |t: Option<BindingTarget>| matches!(t, Some(BindingTarget::Descriptor(b)) if b.set == set && b.binding == binding);
        let taken = ir.cbuffers.iter().any(|c| at(c.binding))
            || ir
                .resources
                .iter()
                .any(|r| at(r.binding) || at(r.counter_binding))
            || ir.samplers.iter().any(|s| at(s.binding));
        if taken {
            return Err(Error::invalid(
                span,
                format!(
                    "the storage-buffer fix-up block's set {set}, binding {binding} is taken by a \
                     declaration of the shader"
                ),
            ));
        }
        Ok(())
    }

    /// A fresh one-member block struct around `member` (at offset 0), decorated for the
    /// module's buffer storage class.
    fn buffer_block(&mut self, member: Id) -> Id {
        let block = self.m.type_struct(&[member]);
        let decoration = if self.buffer_storage() == StorageClass::StorageBuffer {
            Decoration::Block
        } else {
            Decoration::BufferBlock
        };
        self.m.decorate(block, decoration, &[]);
        self.m.member_offset(block, 0, 0);
        block
    }

    /// For each resource declaration, whether an atomic operation uses it as a typed UAV.
    fn typed_atomic_uses(&self) -> Result<Vec<bool>, Error> {
        let mut used = vec![false; self.ir.resources.len()];
        let typed_uavs = self.ir.resources.iter().any(|r| {
            r.range.kind == ResourceKind::UnorderedAccess
                && matches!(r.shape, ResourceShape::Typed { .. })
        });
        // Without a typed UAV there is nothing to find: skip the scan.
        let insts: &[ir::Inst] = if typed_uavs { &self.ir.insts } else { &[] };
        for inst in insts {
            if let Some(Reg::Uav { decl, .. }) = atomic_target(inst) {
                let Some(slot) = used.get_mut(decl.index()) else {
                    return Err(Error::internal(inst.span, "atomic on an undeclared UAV"));
                };
                if matches!(
                    self.ir.resources[decl.index()].shape,
                    ResourceShape::Typed { .. }
                ) {
                    *slot = true;
                }
            }
        }
        Ok(used)
    }
}
