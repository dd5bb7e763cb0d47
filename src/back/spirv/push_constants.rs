//! The module's one push-constant block: every constant buffer the binding map put in push
//! constants (D3D12 root constants), as members of a single `Block` struct in `PushConstant`
//! storage (Vulkan allows one push-constant block per entry point).
//!
//! Contract:
//! - [`PushLayout::of`] collects every push-constant-backed declaration of a module and checks
//!   it: offsets and sizes in whole 32-bit words, the end below 2^32 bytes, only single (not
//!   array) constant buffers; otherwise [`Error::Unsupported`] naming the declaration. The
//!   ranges are sorted; overlapping ones share one member (D3D12 never overlaps root
//!   parameters, a caller's map may); each member is a `uint[n]` (`ArrayStride` 4) at its
//!   explicit byte `Offset`. [`PushLayout::range`] is the byte range the block covers: what the
//!   pipeline layout's push-constant range must contain, reported in the translation's
//!   reflection.
//! - A read of `cb#[slot]` of a push-constant buffer returns the `uvec4` of words
//!   `4·slot .. 4·slot + 3` of its range. Words past the end of the root constants, or past the
//!   declared size of the buffer, read 0: D3D12 leaves out-of-bounds reads of root constants
//!   undefined ("Using Constants Directly in the Root Signature"), and 0 is what a constant
//!   buffer with a size returns, so the module never reads outside its block (every index is
//!   clamped, then the result selected).
//! - Push-constant [`ir::Parameter`]s add their words to the same block: a module that has
//!   both root constants and such parameters gets one merged block (overlapping bytes share a
//!   member, so a caller that places a parameter inside a root-constant range reads those
//!   words as both).

use spirv::{Decoration, GlslStd450Op, StorageClass};

use super::context::{Emitter, Scalar};
use crate::back::spirv::Error;
use crate::ir::binding::{BindingTarget, Count};
use crate::ir::{self, Index};
use crate::spv::Id;

/// The push-constant byte range a module's block covers (the range a pipeline layout must give
/// the shader's stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PushConstantRange {
    /// Byte offset of the first byte the block declares.
    pub offset: u32,
    /// Bytes from `offset` to the end of the last member.
    pub size: u32,
}

/// Where one push-constant-backed constant buffer lives in the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PushSlot {
    /// Member of the block.
    pub member: u32,
    /// The buffer's first word inside that member.
    pub word: u32,
    /// Words the buffer may read (its root constants, cut to its declared size).
    pub words: u32,
}

/// One member: `uint[words]` at byte `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Member {
    offset: u32,
    words: u32,
}

/// The layout of a module's push-constant block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PushLayout {
    members: Vec<Member>,
    /// Per constant buffer (by declaration position): its slot, when it is in push constants.
    cbuffers: Vec<Option<PushSlot>>,
}

impl PushLayout {
    /// The layout of every push-constant-backed declaration of `module`.
    pub(crate) fn of(module: &ir::Module) -> Result<PushLayout, Error> {
        // (offset in bytes, size in bytes, declaration position)
        let mut ranges = Vec::new();
        for (i, cb) in module.cbuffers.iter().enumerate() {
            let Some(BindingTarget::PushConstants(p)) = cb.binding else {
                continue;
            };
            if cb.range.count != Count::Bounded(1) {
                return Err(Error::unsupported(
                    cb.span,
                    format!(
                        "constant-buffer array {} mapped to push constants (D3D12 maps one \
                         constant buffer to root constants)",
                        cb.range
                    ),
                ));
            }
            if p.offset % 4 != 0 || p.size % 4 != 0 {
                return Err(Error::unsupported(
                    cb.span,
                    format!(
                        "constant buffer {} in push constants at byte {} size {}: push \
                         constants are whole 32-bit words",
                        cb.range, p.offset, p.size
                    ),
                ));
            }
            if p.offset.checked_add(p.size).is_none() {
                return Err(Error::unsupported(
                    cb.span,
                    format!(
                        "constant buffer {} runs past push-constant byte 2^32",
                        cb.range
                    ),
                ));
            }
            ranges.push((p.offset, p.size, i));
        }
        // Bindless table bases: one word each (several ranges of one table share it).
        let heaps = module
            .cbuffers
            .iter()
            .map(|c| (c.binding, c.span))
            .chain(
                module
                    .resources
                    .iter()
                    .flat_map(|r| [(r.binding, r.span), (r.counter_binding, r.span)]),
            )
            .chain(module.samplers.iter().map(|s| (s.binding, s.span)));
        for (binding, span) in heaps {
            let Some(BindingTarget::Heap(h)) = binding else {
                continue;
            };
            if h.base_offset % 4 != 0 || h.base_offset > u32::MAX - 4 {
                return Err(Error::unsupported(
                    span,
                    format!(
                        "bindless table base at push-constant byte {}: push constants are \
                         whole 32-bit words below byte 2^32",
                        h.base_offset
                    ),
                ));
            }
            ranges.push((h.base_offset, 4, usize::MAX));
        }
        // Parameters the runtime pushes (`parameters.rs`): their words.
        for p in &module.parameters {
            let Some((offset, size)) = p.push_range() else {
                continue;
            };
            if offset % 4 != 0 || offset.checked_add(size).is_none() {
                return Err(Error::unsupported(
                    module.program_span,
                    format!(
                        "parameter {} in push constants at byte {offset}: push constants are \
                         whole 32-bit words below byte 2^32",
                        p.name
                    ),
                ));
            }
            ranges.push((offset, size, usize::MAX));
        }
        // Root descriptors as device addresses: two words each.
        for offset in super::device_address::address_ranges(module)? {
            ranges.push((offset, 8, usize::MAX));
        }
        let mut layout = PushLayout {
            members: Vec::new(),
            cbuffers: vec![None; module.cbuffers.len()],
        };
        ranges.retain(|r| r.1 > 0);
        ranges.sort_unstable();
        // Merge overlapping ranges into members; remember each range's member.
        let mut placed = Vec::with_capacity(ranges.len());
        for &(offset, size, i) in &ranges {
            let end = offset + size;
            match layout.members.last_mut() {
                Some(m) if offset < m.offset + 4 * m.words => {
                    let m_end = (m.offset + 4 * m.words).max(end);
                    m.words = (m_end - m.offset) / 4;
                }
                _ => layout.members.push(Member {
                    offset,
                    words: size / 4,
                }),
            }
            let member = layout.members.len() - 1;
            placed.push((member, offset, size, i));
        }
        for (member, offset, size, i) in placed {
            let m = layout.members[member];
            let declared = module.cbuffers.get(i).map_or(0, |cb| cb.size);
            let slot = PushSlot {
                member: member as u32,
                word: (offset - m.offset) / 4,
                words: (size / 4).min(declared.saturating_mul(4)),
            };
            if let Some(s) = layout.cbuffers.get_mut(i) {
                *s = Some(slot);
            }
        }
        Ok(layout)
    }

    /// The byte range the block covers; `None` when the module has no push constants.
    pub(crate) fn range(&self) -> Option<PushConstantRange> {
        let first = self.members.first()?;
        let last = self.members.last()?;
        Some(PushConstantRange {
            offset: first.offset,
            size: last.offset + 4 * last.words - first.offset,
        })
    }

    /// The member and word in it of the push-constant word at `byte` (a multiple of 4), when
    /// the block declares it.
    pub(crate) fn word_at(&self, byte: u32) -> Option<(u32, u32)> {
        let k = self
            .members
            .iter()
            .position(|m| byte >= m.offset && byte - m.offset < 4 * m.words)?;
        let m = self.members.get(k)?;
        Some((k as u32, (byte - m.offset) / 4))
    }

    /// The slot of constant buffer `decl` (by declaration position), when it is in push
    /// constants.
    pub(crate) fn cbuffer(&self, decl: usize) -> Option<PushSlot> {
        self.cbuffers.get(decl).copied().flatten()
    }
}

/// The push-constant range `module` declares (reflection).
pub fn push_constant_range(module: &ir::Module) -> Result<Option<PushConstantRange>, Error> {
    Ok(PushLayout::of(module)?.range())
}

impl Emitter<'_> {
    /// Declares the push-constant block of `layout` (nothing when it is empty); returns its
    /// variable.
    pub(super) fn declare_push_block(&mut self, layout: &PushLayout) -> Option<Id> {
        if layout.members.is_empty() {
            return None;
        }
        let u = self.ty(Scalar::U32, 1);
        let mut member_types = Vec::with_capacity(layout.members.len());
        for m in &layout.members {
            let len = self.m.constant_u32(m.words);
            let array = self.m.type_array_unique(u, len);
            self.m.decorate_array_stride(array, 4);
            member_types.push(array);
        }
        let block = self.m.type_struct(&member_types);
        self.m.decorate(block, Decoration::Block, &[]);
        for (k, m) in layout.members.iter().enumerate() {
            self.m.member_offset(block, k as u32, m.offset);
        }
        let var = self
            .m
            .global_variable(StorageClass::PushConstant, block, None);
        self.m.name(var, "push_constants");
        Some(var)
    }

    /// The `u32` push constant at `byte` (a bindless table base).
    pub(super) fn push_word(&mut self, span: u32, byte: u32) -> Result<Id, Error> {
        let Some((var, (member, word))) = self
            .objects
            .push
            .as_ref()
            .and_then(|(var, layout)| Some((*var, layout.word_at(byte)?)))
        else {
            return Err(Error::internal(
                span,
                format!("push-constant word at byte {byte} is not declared"),
            ));
        };
        let u = self.ty(Scalar::U32, 1);
        let ptr_ty = self.m.type_pointer(StorageClass::PushConstant, u);
        let (member, word) = (self.u32_const(member), self.u32_const(word));
        let ptr = self.m.access_chain(ptr_ty, var, &[member, word]);
        Ok(self.m.load(u, ptr))
    }

    /// `cb#[element][slot]` of a push-constant buffer at `p` of block `var`: a `uvec4`, its
    /// words past `p.words` zero (see the module documentation).
    pub(super) fn read_push_cbuffer(
        &mut self,
        span: u32,
        var: Id,
        p: PushSlot,
        element: &Index,
        slot: &Index,
    ) -> Result<Id, Error> {
        single_constant_buffer(span, element)?;
        let uvec4 = self.ty(Scalar::U32, 4);
        if p.words == 0 {
            return Ok(self.splat_bits(Scalar::U32, 4, 0));
        }
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let ptr_ty = self.m.type_pointer(StorageClass::PushConstant, u);
        let member = self.u32_const(p.member);
        let zero = self.u32_const(0);
        let mut parts = [zero; 4];
        if !slot.is_relative() {
            for (k, part) in parts.iter_mut().enumerate() {
                let w = u64::from(slot.imm) * 4 + k as u64;
                if w < u64::from(p.words) {
                    let at = self.u32_const(p.word + w as u32);
                    let ptr = self.m.access_chain(ptr_ty, var, &[member, at]);
                    *part = self.m.load(u, ptr);
                }
            }
            return Ok(self.m.composite_construct(uvec4, &parts));
        }
        // Dynamic: clamp the vector index, then each word; select 0 where out of range.
        let vectors = p.words.div_ceil(4);
        let raw = self.index_value(span, slot)?;
        let last_vec = self.u32_const(vectors - 1);
        let clamped = self.glsl(u, GlslStd450Op::UMin, &[raw, last_vec]);
        let vectors_c = self.u32_const(vectors);
        let vec_ok = self.m.u_less_than(b, raw, vectors_c);
        let four = self.u32_const(4);
        let first = self.m.i_mul(u, clamped, four);
        let words_c = self.u32_const(p.words);
        let last_word = self.u32_const(p.words - 1);
        let base = self.u32_const(p.word);
        for (k, part) in parts.iter_mut().enumerate() {
            let kc = self.u32_const(k as u32);
            let w = self.m.i_add(u, first, kc);
            let ok = self.m.u_less_than(b, w, words_c);
            let ok = self.m.logical_and(b, ok, vec_ok);
            let wc = self.glsl(u, GlslStd450Op::UMin, &[w, last_word]);
            let at = self.m.i_add(u, wc, base);
            let ptr = self.m.access_chain(ptr_ty, var, &[member, at]);
            let v = self.m.load(u, ptr);
            *part = self.m.select(u, ok, v, zero);
        }
        Ok(self.m.composite_construct(uvec4, &parts))
    }
}

/// A constant buffer that is not a descriptor (push constants, a device address) is one
/// buffer: a constant descriptor index other than 0 is invalid.
pub(super) fn single_constant_buffer(span: u32, element: &Index) -> Result<(), Error> {
    match element.constant() {
        Some(e) if e != 0 => Err(Error::invalid(
            span,
            format!(
                "descriptor index {} of a single constant buffer",
                element.imm
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "push_constants_tests.rs"]
mod tests;
