//! `ld_raw`, `ld_structured`, `store_raw`, `store_structured` on `t#`/`u#`/`g#`, and `bufinfo`.
//!
//! Contract (`ld_raw`/`ld_structured`/`store_raw`/`store_structured`/`bufinfo (sm5 - asm)`):
//! - a load reads, for each destination component `c`, word `swizzle[c]` of the access (the
//!   resource operand's swizzle); each word out of bounds reads 0 on its own;
//! - a store writes the source components the destination mask selects (through the source
//!   swizzle) to consecutive words from word 0; each word out of bounds is dropped on its own;
//! - a structured access at an immediate byte offset whose words all lie in the element is
//!   checked once (the element index): when the element is inside, so is each of its words;
//! - `bufinfo` writes to every destination component the byte size (raw), the element count
//!   (structured: bytes / stride) or the texel count (typed buffers, in `typed.rs`); the size
//!   is the view's (`memory/words.rs` for texel-buffer views and fix-ups).

use super::{Loc, Target};
use crate::back::spirv::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{Inst, Op, Reg, ResourceShape};
use crate::spv::Id;

/// `got[words[i]]` for each `i` (the rest repeats `got[0]`).
fn gather(words: &[u8], got: &[Id; 4]) -> [Id; 4] {
    let mut parts = [got[0]; 4];
    for (part, &k) in parts.iter_mut().zip(words) {
        *part = got[k as usize & 3];
    }
    parts
}

impl Emitter<'_> {
    /// `ld_raw dst, byteOffset, res` and `ld_structured dst, index, byteOffset, res`.
    pub(super) fn load_words(&mut self, inst: &Inst) -> Result<(), Error> {
        let structured = inst.op == Op::LdStructured;
        let res_i = if structured { 2 } else { 1 };
        let res = *inst
            .src()
            .get(res_i)
            .ok_or_else(|| Error::internal(inst.span, "missing resource operand"))?;
        let mask = Self::dst_mask(inst, 0);
        let target = self.target(inst.span, &res.reg)?;
        if mask == 0 {
            // Nothing observable: a load into `null`.
            return Ok(());
        }
        let first = self.load_src(inst, 0, 1, Scalar::U32)?.id;
        let second = if structured {
            Some(self.load_src(inst, 1, 1, Scalar::U32)?.id)
        } else {
            None
        };
        let imm = [
            Self::imm_values(inst, 0, 1).map(|(v, _)| v[0]),
            Self::imm_values(inst, 1, 1)
                .map(|(v, _)| v[0])
                .filter(|_| structured),
        ];
        let loc = self.locate(inst.span, &target, first, second, imm)?;
        let mut words = [0u8; 4];
        let mut n = 0;
        for c in Self::mask_components(mask) {
            words[n] = res.swizzle[c as usize] & 3;
            n += 1;
        }
        let value = self.read_words(&target, &loc, &words[..n])?;
        self.store_dst(inst, 0, value)
    }

    /// Reads words `words[i]` of the access `loc` into component `i` of a `u32` vector.
    fn read_words(&mut self, target: &Target, loc: &Loc, words: &[u8]) -> Result<Value, Error> {
        let u = self.ty(Scalar::U32, 1);
        let zero = self.u32_const(0);
        let n = words.len() as u8;
        let kmin = words.iter().copied().min().unwrap_or(0);
        // Each word read once, however often the swizzle names it.
        let read = words.iter().fold(0u8, |acc, &k| acc | 1 << k);
        let distinct = (0..4u8).filter(move |k| read & (1 << k) != 0);
        if let Target::Shared { words: size, .. } = *target {
            // Clamp into the array, then zero what was outside.
            let last = self.u32_const(size.saturating_sub(1));
            let mut got = [zero; 4];
            for k in distinct.clone() {
                let (addr, ok) = self.word_at(loc, k);
                let safe = self.glsl(u, spirv::GlslStd450Op::UMin, &[addr, last]);
                let ptr = self.word_ptr(target, safe);
                let v = self.m.load(u, ptr);
                got[k as usize] = self.m.select(u, ok, v, zero);
            }
            let parts = gather(words, &got);
            return Ok(self.compose(Scalar::U32, &parts[..words.len()]));
        }
        let max_word = words.iter().copied().max().unwrap_or(0);
        if u32::from(max_word) < loc.in_element {
            // Every word is inside when the element is: one test, no clamps.
            let target = *target;
            let loc = *loc;
            let read_all = |e: &mut Self| {
                let mut got = [zero; 4];
                for k in distinct.clone() {
                    let addr = e.address_at(&loc, k);
                    got[k as usize] = e.load_word(&target, addr);
                }
                let parts = gather(words, &got);
                Ok(e.compose(Scalar::U32, &parts[..words.len()]).id)
            };
            let vty = self.ty(Scalar::U32, n);
            let id = match loc.elem_ok {
                Some(ok) => {
                    let default = self.splat_bits(Scalar::U32, n, 0);
                    self.guarded_value(ok, vty, default, read_all)?
                }
                None => read_all(self)?,
            };
            return Ok(Value {
                id,
                scalar: Scalar::U32,
                n,
            });
        }
        // Buffers: no access at all unless the first word read is inside (so the buffer has at
        // least one word to clamp the others to).
        let (first_addr, cond) = self.word_at(loc, kmin);
        let vty = self.ty(Scalar::U32, n);
        let default = self.splat_bits(Scalar::U32, n, 0);
        let target = *target;
        let loc = *loc;
        let id = self.guarded_value(cond, vty, default, |e| {
            let one = e.u32_const(1);
            let last = e.m.i_sub(u, loc.len, one);
            let mut got = [zero; 4];
            for k in distinct.clone() {
                got[k as usize] = if k == kmin {
                    e.load_word(&target, first_addr)
                } else {
                    let (addr, ok) = e.word_at(&loc, k);
                    let safe = e.glsl(u, spirv::GlslStd450Op::UMin, &[addr, last]);
                    let v = e.load_word(&target, safe);
                    e.m.select(u, ok, v, zero)
                };
            }
            let parts = gather(words, &got);
            Ok(e.compose(Scalar::U32, &parts[..words.len()]).id)
        })?;
        Ok(Value {
            id,
            scalar: Scalar::U32,
            n,
        })
    }

    /// `store_raw dst, byteOffset, value` and `store_structured dst, index, byteOffset, value`.
    pub(super) fn store_words(&mut self, inst: &Inst) -> Result<(), Error> {
        let structured = inst.op == Op::StoreStructured;
        let dst = *inst
            .dst()
            .first()
            .ok_or_else(|| Error::internal(inst.span, "missing destination operand"))?;
        let target = self.target(inst.span, &dst.reg)?;
        if let Target::Buffer { uav: false, .. }
        | Target::Texels { uav: false, .. }
        | Target::Address { uav: false, .. } = target
        {
            return Err(Error::invalid(inst.span, "store to a shader resource view"));
        }
        let mask = dst.mask & 0xf;
        if mask == 0 {
            return Err(Error::invalid(inst.span, "store with an empty write mask"));
        }
        let first = self.load_src(inst, 0, 1, Scalar::U32)?.id;
        let second = if structured {
            Some(self.load_src(inst, 1, 1, Scalar::U32)?.id)
        } else {
            None
        };
        let value = self.load_src(inst, if structured { 2 } else { 1 }, mask, Scalar::U32)?;
        let imm = [
            Self::imm_values(inst, 0, 1).map(|(v, _)| v[0]),
            Self::imm_values(inst, 1, 1)
                .map(|(v, _)| v[0])
                .filter(|_| structured),
        ];
        let loc = self.locate(inst.span, &target, first, second, imm)?;
        if u32::from(value.n) <= loc.in_element {
            // Every word is inside when the element is: one test for the whole store.
            let store_all = |e: &mut Self| {
                for j in 0..value.n {
                    let word = e.extract(value, j);
                    let addr = e.address_at(&loc, j);
                    e.store_word(&target, addr, word.id);
                }
                Ok(())
            };
            return match loc.elem_ok {
                Some(ok) => self.guarded(ok, store_all),
                None => store_all(self),
            };
        }
        for j in 0..value.n {
            let word = self.extract(value, j);
            let (addr, ok) = self.word_at(&loc, j);
            self.guarded(ok, |e| {
                e.store_word(&target, addr, word.id);
                Ok(())
            })?;
        }
        Ok(())
    }

    /// `bufinfo dst, res`: byte size (raw), element count (structured) or texel count (typed
    /// buffers), written to every destination component.
    pub(super) fn bufinfo(&mut self, inst: &Inst) -> Result<(), Error> {
        let res = *inst
            .src()
            .first()
            .ok_or_else(|| Error::internal(inst.span, "missing resource operand"))?;
        let (Reg::Resource { decl, element } | Reg::Uav { decl, element }) = res.reg else {
            return Err(Error::invalid(
                inst.span,
                "bufinfo of something other than a t# or u#",
            ));
        };
        let shape = self
            .ir
            .resources
            .get(decl.index())
            .ok_or_else(|| Error::internal(inst.span, format!("resource #{decl} is not declared")))?
            .shape;
        let u = self.ty(Scalar::U32, 1);
        let id = match shape {
            ResourceShape::Raw | ResourceShape::Structured { .. } => {
                let target = self.target(inst.span, &res.reg)?;
                let stride = match target {
                    Target::Buffer { stride, .. } | Target::Texels { stride, .. } => stride,
                    Target::Shared { .. } => {
                        return Err(Error::invalid(inst.span, "bufinfo of shared memory"))
                    }
                    Target::Address { .. } => {
                        return Err(Error::unsupported(
                            inst.span,
                            format!(
                                "`bufinfo` of {}, a root descriptor read through a buffer \
                                 device address (root descriptors have no size)",
                                crate::ir::register_name(&res.reg)
                            ),
                        ))
                    }
                };
                let len = self.target_len(&target);
                if stride == 0 {
                    let two = self.u32_const(2);
                    self.m.shift_left_logical(u, len, two)
                } else {
                    if stride % 4 != 0 {
                        return Err(Error::internal(
                            inst.span,
                            "structure stride not a multiple of 4",
                        ));
                    }
                    let per = self.u32_const(stride / 4);
                    self.m.u_div(u, len, per)
                }
            }
            ResourceShape::Typed { .. } => self.texel_count(inst.span, decl, &element)?,
        };
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        self.store_dst(
            inst,
            0,
            Value {
                id,
                scalar: Scalar::U32,
                n: 1,
            },
        )
    }
}
