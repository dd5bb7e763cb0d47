//! Buffer and shared-memory access, atomics, UAV counters, barriers (compute shaders).
//!
//! Contract (D3D11 functional spec §7.13 and the `sm5 - asm` instruction pages):
//! - Raw and structured buffers and `g#` are arrays of 32-bit words; an access addresses word
//!   `byte offset / 4` (raw) or `(index * stride + byte offset) / 4` (structured). Loads read
//!   the words the resource operand's swizzle selects for each destination component; stores
//!   write the source components the destination mask selects, packed from the first word.
//! - Out of bounds on `t#`/`u#` (bound = the view's size from `OpArrayLength`, and for
//!   structured buffers also `index >= element count` or `byte offset >= stride`): each
//!   word is checked on its own; reads give 0, writes and atomics are dropped, `imm_atomic_*`
//!   return 0. No access outside the buffer is ever made (the checks are branches, so nothing
//!   relies on `robustBufferAccess`).
//! - `g#` out of bounds is undefined in D3D; here reads are clamped into the array and give 0,
//!   writes and atomics are dropped, so nothing undefined happens in Vulkan either.
//! - Typed buffers and typed UAV textures (`ld_uav_typed`, `store_uav_typed`, typed atomics,
//!   `bufinfo`) are checked against `OpImageQuerySize`.
//! - Atomics use scope Device on UAVs, Workgroup on `g#`, relaxed semantics (D3D atomics do
//!   not order other accesses); `sync` maps to `OpControlBarrier`/`OpMemoryBarrier` with
//!   acquire-release semantics over the memory it names.
//!
//! - Raw and structured views declared as texel buffers (`EmitOptions::texel_raw_buffers`)
//!   are arrays of `R32` texels, one a word: the same rules, with the size from
//!   `OpImageQuerySize` and accesses through `OpImageFetch`/`OpImageRead`/`OpImageWrite`/
//!   `OpImageTexelPointer`.
//! - A storage buffer with a fix-up entry (`EmitOptions::storage_buffer_alignment`) addresses
//!   word `first + address` of the bound range, `first` = the entry's `.x / 4`, and is checked
//!   against the view's size, `min(.y / 4, array length - min(first, array length))` words,
//!   instead of the array length.
//!
//! Files: this one (dispatch, addressing, barriers), `memory/words.rs` (the texel-buffer and
//! fix-up forms of a word target), `memory/buffer.rs` (loads, stores,
//! `bufinfo`), `memory/typed.rs` (typed buffers and UAV textures), `memory/atomic.rs` (atomics,
//! counters).

mod atomic;
mod buffer;
#[cfg(test)]
mod tests;
mod typed;
mod words;

use spirv::{MemorySemantics, Scope, SelectionControl, StorageClass};

use super::context::{Emitter, ResourceVars, Scalar};
use super::descriptors::DescriptorKind;
use crate::back::spirv::Error;
use crate::ir::{
    self, AtomicOp, BufferOp, Inst, OpKind, Reg, ResourceShape, SyncOp, TextureLoadOp,
};
use crate::spv::Id;

/// Where a raw or structured access goes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    /// A raw or structured `t#`/`u#` storage buffer block.
    Buffer {
        /// Pointer to the block (the variable, or its element in a descriptor array).
        var: Id,
        /// Structure stride in bytes; 0 for raw buffers.
        stride: u32,
        /// A UAV (writable).
        uav: bool,
        /// The descriptor is non-uniform: pointers into it are decorated `NonUniform`.
        nonuniform: bool,
        /// With a fix-up entry: the view's first word in the bound range and its size in
        /// words (already clamped to the bound range), both `u32`.
        fixup: Option<(Id, Id)>,
    },
    /// A raw or structured view declared as a texel buffer of 32-bit words (one texel a word).
    Texels {
        /// Pointer to the image descriptor (for `OpImageTexelPointer`).
        var: Id,
        /// The loaded image.
        image: Id,
        /// Structure stride in bytes; 0 for raw buffers.
        stride: u32,
        /// A UAV (storage texel buffer, else uniform texel buffer).
        uav: bool,
        /// The descriptor is non-uniform.
        nonuniform: bool,
    },
    /// A root descriptor read through a buffer device address (`device_address.rs`): no size.
    Address {
        /// `PhysicalStorageBuffer` pointer to the `{ uint data[]; }` block.
        ptr: Id,
        /// Structure stride in bytes; 0 for raw buffers.
        stride: u32,
        /// A UAV (writable).
        uav: bool,
    },
    /// Shared memory `g#`.
    Shared {
        /// The Workgroup `uint[words]` variable.
        var: Id,
        /// Its size in words.
        words: u32,
        /// Structure stride in bytes; 0 for raw memory.
        stride: u32,
    },
}

/// A located access: the word address of its first word and the bounds it is checked against.
#[derive(Clone, Copy, Debug)]
pub(super) struct Loc {
    /// Word index of the access's word 0.
    pub base: Id,
    /// `base`'s value when the access's operands are immediates (a constant address).
    pub base_imm: Option<u32>,
    /// Structured accesses: `index < element count && byte offset < stride`.
    pub elem_ok: Option<Id>,
    /// Number of words in the target (`u32`).
    pub len: Id,
    /// A structured access at an immediate byte offset inside the stride: the words from
    /// `base` to the end of its element. Each of them is inside the target whenever `elem_ok`
    /// holds (or always, when there is no `elem_ok`), so an access of at most this many words
    /// needs that one check. 0 when not known.
    pub in_element: u32,
}

impl Emitter<'_> {
    /// Emits one memory instruction: a buffer, atomic or `sync` operation, or `ld` from a
    /// typed buffer. Every operation of those families has its arm (no catch-all).
    pub fn memory(&mut self, inst: &Inst) -> Result<(), Error> {
        use AtomicOp::*;
        match inst.op.kind() {
            OpKind::Buffer(op) => match op {
                BufferOp::LdRaw | BufferOp::LdStructured => self.load_words(inst),
                BufferOp::StoreRaw | BufferOp::StoreStructured => self.store_words(inst),
                BufferOp::LdUavTyped => self.ld_uav_typed(inst),
                BufferOp::StoreUavTyped => self.store_uav_typed(inst),
                BufferOp::Bufinfo => self.bufinfo(inst),
            },
            OpKind::Atomic(op) => match op {
                ImmAtomicAlloc | ImmAtomicConsume => self.counter(inst),
                AtomicAnd | AtomicOr | AtomicXor | AtomicCmpStore | AtomicIadd | AtomicImax
                | AtomicImin | AtomicUmax | AtomicUmin | ImmAtomicIadd | ImmAtomicAnd
                | ImmAtomicOr | ImmAtomicXor | ImmAtomicExch | ImmAtomicCmpExch | ImmAtomicImax
                | ImmAtomicImin | ImmAtomicUmax | ImmAtomicUmin => self.atomic(inst, op),
            },
            OpKind::Sync(SyncOp::Sync) => self.sync(inst),
            OpKind::TextureLoad(TextureLoadOp::Ld) => self.ld_typed_buffer(inst),
            OpKind::TextureLoad(TextureLoadOp::LdMs)
            | OpKind::Move(_)
            | OpKind::Float(_)
            | OpKind::Legacy(_)
            | OpKind::Integer(_)
            | OpKind::Bits(_)
            | OpKind::Double(_)
            | OpKind::Derivative(_)
            | OpKind::ControlFlow(_)
            | OpKind::Discard(_)
            | OpKind::Sample(_)
            | OpKind::Gather(_)
            | OpKind::Query(_)
            | OpKind::Interpolation(_)
            | OpKind::Sparse(_)
            | OpKind::Geometry(_) => Err(Error::unsupported(
                inst.span,
                format!("`{}`", inst.op.name()),
            )),
        }
    }

    /// `sync`: bit 0 thread-group execution barrier, bit 1 `g#` memory, bit 2 UAV memory of
    /// the group, bit 3 UAV memory of the device.
    fn sync(&mut self, inst: &Inst) -> Result<(), Error> {
        let flags = inst.flags.sync;
        let mut semantics = MemorySemantics::empty();
        if flags & 2 != 0 {
            semantics |= MemorySemantics::WORKGROUP_MEMORY;
        }
        if flags & 0xc != 0 {
            semantics |= MemorySemantics::UNIFORM_MEMORY | MemorySemantics::IMAGE_MEMORY;
        }
        if !semantics.is_empty() {
            semantics |= MemorySemantics::ACQUIRE_RELEASE;
        }
        let memory_scope = if flags & 8 != 0 {
            Scope::Device
        } else {
            Scope::Workgroup
        };
        let scope = self.u32_const(memory_scope as u32);
        let sem = self.u32_const(semantics.bits());
        if flags & 1 != 0 {
            let exec = self.u32_const(Scope::Workgroup as u32);
            self.m.control_barrier(exec, scope, sem);
        } else if !semantics.is_empty() {
            self.m.memory_barrier(scope, sem);
        }
        // `sync` without any flag orders nothing: there is nothing to emit.
        Ok(())
    }

    /// The SPIR-V objects of resource declaration `decl`.
    pub(super) fn resource_vars(
        &self,
        span: u32,
        decl: ir::ResourceId,
    ) -> Result<ResourceVars, Error> {
        self.objects
            .resources
            .get(decl.index())
            .copied()
            .ok_or_else(|| Error::internal(span, format!("resource #{decl} is not declared")))
    }

    /// The raw/structured target a `t#`, `u#` or `g#` operand names.
    pub(super) fn target(&mut self, span: u32, reg: &Reg) -> Result<Target, Error> {
        match *reg {
            Reg::Resource { decl, element } | Reg::Uav { decl, element } => {
                let d = self.ir.resources.get(decl.index()).ok_or_else(|| {
                    Error::internal(span, format!("resource #{decl} is not declared"))
                })?;
                let stride = match d.shape {
                    ResourceShape::Raw => 0,
                    ResourceShape::Structured { stride } => stride,
                    ResourceShape::Typed { .. } => {
                        return Err(Error::invalid(
                            span,
                            "raw or structured access to a typed resource",
                        ))
                    }
                };
                let vars = self.resource_vars(span, decl)?;
                let uav = matches!(reg, Reg::Uav { .. });
                if let (Some(offset), Some(block)) = (vars.address, vars.block) {
                    if element.constant().is_some_and(|e| e != 0) {
                        return Err(Error::invalid(
                            span,
                            format!("descriptor index {} of a root descriptor", element.imm),
                        ));
                    }
                    let ptr = self.address_pointer(span, offset, block)?;
                    return Ok(Target::Address { ptr, stride, uav });
                }
                if vars.texel_words {
                    return self.texel_words_target(span, vars, &element, stride, uav);
                }
                let (Some(var), Some(block)) = (vars.var, vars.block) else {
                    return Err(Error::internal(span, "resource without a variable"));
                };
                let storage = self.buffer_storage();
                let d = self.descriptor_element(
                    span,
                    var,
                    vars.array,
                    &element,
                    storage,
                    block,
                    DescriptorKind::StorageBuffer,
                )?;
                let fixup = vars
                    .fixup
                    .map(|(block, entry)| self.fixup_view(d.ptr, block, entry));
                Ok(Target::Buffer {
                    var: d.ptr,
                    stride,
                    uav,
                    nonuniform: d.nonuniform,
                    fixup,
                })
            }
            Reg::Tgsm(n) => {
                let g = self
                    .ir
                    .tgsm
                    .get(n.index())
                    .ok_or_else(|| Error::internal(span, format!("g#{n} is not declared")))?;
                let var = *self
                    .objects
                    .tgsm
                    .get(n.index())
                    .ok_or_else(|| Error::internal(span, format!("g#{n} is not declared")))?;
                Ok(Target::Shared {
                    var,
                    words: g.words,
                    stride: g.stride,
                })
            }
            _ => Err(Error::invalid(
                span,
                format!(
                    "{} is not a buffer or shared memory",
                    crate::ir::register_name(reg)
                ),
            )),
        }
    }

    /// Locates an access: `first` is the byte offset (raw, `second == None`) or the element
    /// index (structured, `second` = byte offset in the element); `imm` has their values when
    /// they are immediates (the address arithmetic is then folded).
    pub(super) fn locate(
        &mut self,
        span: u32,
        target: &Target,
        first: Id,
        second: Option<Id>,
        imm: [Option<u32>; 2],
    ) -> Result<Loc, Error> {
        let [first_imm, offset_imm] = imm;
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let two = self.u32_const(2);
        let len = self.target_len(target);
        let stride = match *target {
            Target::Buffer { stride, .. }
            | Target::Texels { stride, .. }
            | Target::Address { stride, .. }
            | Target::Shared { stride, .. } => stride,
        };
        let Some(offset) = second else {
            let base_imm = first_imm.map(|f| f >> 2);
            let base = match base_imm {
                Some(b) => self.u32_const(b),
                None => self.m.shift_right_logical(u, first, two),
            };
            return Ok(Loc {
                base,
                base_imm,
                elem_ok: None,
                len,
                in_element: 0,
            });
        };
        if stride == 0 || stride % 4 != 0 {
            return Err(Error::invalid(
                span,
                "structured access to memory without a valid stride",
            ));
        }
        let per = stride / 4;
        let per_c = self.u32_const(per);
        // Wrapping, as the device's arithmetic.
        let base_imm = first_imm
            .zip(offset_imm)
            .map(|(f, o)| f.wrapping_mul(per).wrapping_add(o >> 2));
        let base = match base_imm {
            Some(b) => self.u32_const(b),
            None => {
                let scaled = match first_imm {
                    Some(f) => self.u32_const(f.wrapping_mul(per)),
                    None => self.m.i_mul(u, first, per_c),
                };
                match offset_imm.map(|o| o >> 2) {
                    Some(0) => scaled,
                    Some(w) => {
                        let w = self.u32_const(w);
                        self.m.i_add(u, scaled, w)
                    }
                    None => {
                        let word = self.m.shift_right_logical(u, offset, two);
                        self.m.i_add(u, scaled, word)
                    }
                }
            }
        };
        let count = match *target {
            Target::Buffer { .. } | Target::Texels { .. } => Some(self.m.u_div(u, len, per_c)),
            Target::Shared { words, .. } => Some(self.u32_const(words / per)),
            // No size: only `byte offset < stride` is checked.
            Target::Address { .. } => None,
        };
        let index_ok = count.map(|count| self.m.u_less_than(b, first, count));
        // An immediate offset inside the stride needs no test, and every word from it to the
        // end of the element is inside the target when the index is (`count × per ≤ len`).
        if let Some(o) = offset_imm.filter(|&o| o < stride) {
            return Ok(Loc {
                base,
                base_imm,
                elem_ok: index_ok,
                len,
                in_element: per - o / 4,
            });
        }
        let stride_c = self.u32_const(stride);
        let offset_ok = self.m.u_less_than(b, offset, stride_c);
        let elem_ok = match index_ok {
            Some(index_ok) => self.m.logical_and(b, index_ok, offset_ok),
            None => offset_ok,
        };
        Ok(Loc {
            base,
            base_imm,
            elem_ok: Some(elem_ok),
            len,
            in_element: 0,
        })
    }

    /// The address of word `k` of an access.
    pub(super) fn address_at(&mut self, loc: &Loc, k: u8) -> Id {
        if k == 0 {
            return loc.base;
        }
        if let Some(b) = loc.base_imm {
            return self.u32_const(b.wrapping_add(u32::from(k)));
        }
        let u = self.ty(Scalar::U32, 1);
        let kc = self.u32_const(k as u32);
        self.m.i_add(u, loc.base, kc)
    }

    /// Word `k` of an access: its address and whether it is inside the target (and, for
    /// structured accesses, whether the element is).
    pub(super) fn word_at(&mut self, loc: &Loc, k: u8) -> (Id, Id) {
        let b = self.ty(Scalar::Bool, 1);
        let addr = self.address_at(loc, k);
        let mut ok = self.m.u_less_than(b, addr, loc.len);
        if let Some(e) = loc.elem_ok {
            ok = self.m.logical_and(b, e, ok);
        }
        (addr, ok)
    }

    /// A pointer to word `addr` of `target` (the caller makes sure it is in bounds): into the
    /// storage buffer (after the fix-up's first word), the texel buffer's texel
    /// (`OpImageTexelPointer`, for atomics) or `g#`.
    pub(super) fn word_ptr(&mut self, target: &Target, addr: Id) -> Id {
        let u = self.ty(Scalar::U32, 1);
        match *target {
            Target::Buffer {
                var,
                nonuniform,
                fixup,
                ..
            } => {
                let storage = self.buffer_storage();
                let ptr_ty = self.m.type_pointer(storage, u);
                let zero = self.u32_const(0);
                let addr = match fixup {
                    Some((first, _)) => self.m.i_add(u, first, addr),
                    None => addr,
                };
                let ptr = self.m.access_chain(ptr_ty, var, &[zero, addr]);
                if nonuniform {
                    self.non_uniform(ptr);
                }
                ptr
            }
            Target::Texels {
                var, nonuniform, ..
            } => {
                let ptr_ty = self.m.type_pointer(StorageClass::Image, u);
                let sample = self.u32_const(0);
                let ptr = self
                    .m
                    .emit(spirv::Op::ImageTexelPointer, ptr_ty, &[var, addr, sample]);
                if nonuniform {
                    self.non_uniform(ptr);
                }
                ptr
            }
            Target::Shared { var, .. } => {
                let ptr_ty = self.m.type_pointer(StorageClass::Workgroup, u);
                self.m.access_chain(ptr_ty, var, &[addr])
            }
            Target::Address { ptr, .. } => {
                let ptr_ty = self.m.type_pointer(StorageClass::PhysicalStorageBuffer, u);
                let zero = self.u32_const(0);
                self.m.access_chain(ptr_ty, ptr, &[zero, addr])
            }
        }
    }

    /// `cond ? body() : default` as a selection: `body` runs only when `cond` holds and must
    /// stay in the block it starts in (no control flow of its own).
    pub(super) fn guarded_value(
        &mut self,
        cond: Id,
        ty: Id,
        default: Id,
        body: impl FnOnce(&mut Self) -> Result<Id, Error>,
    ) -> Result<Id, Error> {
        let then = self.m.alloc_id();
        let skip = self.m.alloc_id();
        let merge = self.m.alloc_id();
        self.flush_temps()?;
        self.m.selection_merge(merge, SelectionControl::NONE);
        self.m.branch_conditional(cond, then, skip);
        let part = self.enter_part(then);
        let value = body(self)?;
        self.flush_temps()?;
        let unchanged = self.part_unchanged(part);
        self.m.branch(merge);
        self.m.label(skip);
        self.m.branch(merge);
        self.m.label(merge);
        self.pass_on_if(unchanged, part);
        Ok(self.m.phi(ty, &[(value, then), (default, skip)]))
    }
}
