//! The word targets a runtime's descriptor choices add to raw and structured views: texel
//! buffers of 32-bit words (`EmitOptions::texel_raw_buffers`) and storage buffers read through
//! a fix-up entry (`EmitOptions::storage_buffer_alignment`); and the size, load and store of a
//! word of any target.
//!
//! Contract: a texel-words target's size is `OpImageQuerySize` (texels = words); a word is read
//! with `OpImageFetch` (SRV, uniform texel buffer) or `OpImageRead` (UAV, `R32ui`) as a `uvec4`
//! whose `.x` is the word, and written with `OpImageWrite` of the word. A fix-up target reads
//! entry `i` of the block (`uvec4`): its first word is `.x >> 2`, its size in words
//! `min(.y >> 2, L - min(.x >> 2, L))` with `L` = `OpArrayLength`, so an address below the size
//! is inside the bound range whatever the runtime wrote. The callers check every word against
//! the size before [`Emitter::load_word`]/[`Emitter::store_word`] (`memory.rs`).

use spirv::{GlslStd450Op, ImageOperands, StorageClass};

use super::Target;
use crate::back::spirv::context::{Emitter, ResourceVars, Scalar};
use crate::back::spirv::descriptors::DescriptorKind;
use crate::back::spirv::Error;
use crate::ir::Index;
use crate::spv::Id;

impl Emitter<'_> {
    /// The target of a raw/structured view declared as a texel buffer (`vars.texel_words`).
    pub(super) fn texel_words_target(
        &mut self,
        span: u32,
        vars: ResourceVars,
        element: &Index,
        stride: u32,
        uav: bool,
    ) -> Result<Target, Error> {
        let (Some(var), Some(image_type)) = (vars.var, vars.image_type) else {
            return Err(Error::internal(span, "texel-buffer view without an image"));
        };
        let kind = if uav {
            DescriptorKind::StorageTexelBuffer
        } else {
            DescriptorKind::UniformTexelBuffer
        };
        let d = self.descriptor_element(
            span,
            var,
            vars.array,
            element,
            StorageClass::UniformConstant,
            image_type,
            kind,
        )?;
        let image = self.m.load(image_type, d.ptr);
        if d.nonuniform {
            self.non_uniform(image);
        }
        Ok(Target::Texels {
            var: d.ptr,
            image,
            stride,
            uav,
            nonuniform: d.nonuniform,
        })
    }

    /// The first word and the size in words of the view behind fix-up entry `entry` of
    /// `block`, for the storage buffer `var`.
    pub(super) fn fixup_view(&mut self, var: Id, block: Id, entry: u32) -> (Id, Id) {
        let u = self.ty(Scalar::U32, 1);
        let uvec4 = self.ty(Scalar::U32, 4);
        let ptr_ty = self.m.type_pointer(StorageClass::Uniform, uvec4);
        let zero = self.u32_const(0);
        let index = self.u32_const(entry);
        let ptr = self.m.access_chain(ptr_ty, block, &[zero, index]);
        let data = self.m.load(uvec4, ptr);
        let offset = self.m.composite_extract(u, data, &[0]);
        let size = self.m.composite_extract(u, data, &[1]);
        let two = self.u32_const(2);
        let first = self.m.shift_right_logical(u, offset, two);
        let view_words = self.m.shift_right_logical(u, size, two);
        let bound = self.m.array_length(u, var, 0);
        let start = self.glsl(u, GlslStd450Op::UMin, &[first, bound]);
        let room = self.m.i_sub(u, bound, start);
        let len = self.glsl(u, GlslStd450Op::UMin, &[view_words, room]);
        (first, len)
    }

    /// The number of words in `target` (`u32`).
    pub(super) fn target_len(&mut self, target: &Target) -> Id {
        let u = self.ty(Scalar::U32, 1);
        match *target {
            Target::Buffer {
                fixup: Some((_, len)),
                ..
            } => len,
            Target::Buffer { var, .. } => self.m.array_length(u, var, 0),
            Target::Texels { image, .. } => {
                self.m.capability(spirv::Capability::ImageQuery);
                self.m.image_query_size(u, image)
            }
            Target::Shared { words, .. } => self.u32_const(words),
            // A root descriptor has no size: every word a 32-bit address reaches is inside.
            Target::Address { .. } => self.u32_const(u32::MAX),
        }
    }

    /// Word `addr` of `target`, which the caller checked is inside it.
    pub(super) fn load_word(&mut self, target: &Target, addr: Id) -> Id {
        let u = self.ty(Scalar::U32, 1);
        match *target {
            Target::Texels {
                image,
                uav,
                nonuniform,
                ..
            } => {
                let uvec4 = self.ty(Scalar::U32, 4);
                let op = if uav {
                    spirv::Op::ImageRead
                } else {
                    spirv::Op::ImageFetch
                };
                let texel = self
                    .m
                    .image_op(op, uvec4, image, addr, None, ImageOperands::NONE, &[]);
                if nonuniform {
                    self.non_uniform(texel);
                }
                self.m.composite_extract(u, texel, &[0])
            }
            Target::Buffer { .. } | Target::Shared { .. } => {
                let ptr = self.word_ptr(target, addr);
                self.m.load(u, ptr)
            }
            Target::Address { .. } => {
                let ptr = self.word_ptr(target, addr);
                self.load_aligned(u, ptr, 4)
            }
        }
    }

    /// Writes `value` to word `addr` of `target`, which the caller checked is inside it.
    pub(super) fn store_word(&mut self, target: &Target, addr: Id, value: Id) {
        match *target {
            Target::Texels { image, .. } => {
                self.m
                    .image_write(image, addr, value, ImageOperands::NONE, &[]);
            }
            Target::Buffer { .. } | Target::Shared { .. } => {
                let ptr = self.word_ptr(target, addr);
                self.m.store(ptr, value);
            }
            Target::Address { .. } => {
                let ptr = self.word_ptr(target, addr);
                self.store_aligned(ptr, value);
            }
        }
    }
}
