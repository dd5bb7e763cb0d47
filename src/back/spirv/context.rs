//! The emitter's state and the register-access layer every instruction family builds on:
//! typed values, loads through swizzles with modifiers, stores through write masks.
//!
//! Registers are stored as 32-bit words (`r#`, `x#`, `icb`, `cb#` hold `uvec4`); an operation
//! reads them as the [`Scalar`] type it computes in and bitcasts (free), so no register needs
//! a type of its own.

use super::declare::Registers;
use super::values::{pad, LoadKey, CBUFFER_SLOTS};
use crate::back::spirv::Error;
use crate::ir::{self, Dst, Inst, Modifier, Reg, Src};
use crate::spv::{Id, Module};
use spirv::{Decoration, GlslStd450Op, StorageClass};

/// The scalar type an operation computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Scalar {
    /// 32-bit float.
    F32,
    /// 32-bit unsigned integer (also the storage type of registers).
    U32,
    /// 32-bit signed integer.
    I32,
    /// 64-bit float (two register components per value).
    F64,
    /// Boolean (conditions; never stored).
    Bool,
}

/// A value in an SSA id: `n` components of type `scalar` (`n == 1`: a scalar, else a vector).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Value {
    /// The id.
    pub id: Id,
    /// Component type.
    pub scalar: Scalar,
    /// Component count, 1–4.
    pub n: u8,
}

/// Where a register file lives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Var {
    /// The variable.
    pub id: Id,
    /// Its storage class.
    pub storage: StorageClass,
}

/// One open structured construct.
#[derive(Clone, Debug)]
pub(crate) enum Frame {
    /// `if`: the false branch's label, the merge label, and whether `else` was seen.
    If {
        /// Label of the else block (always emitted, possibly empty).
        else_label: Id,
        /// Merge block.
        merge: Id,
        /// `else` seen.
        has_else: bool,
        /// A branch reaches the merge block (the `then` part fell through to `else`).
        reached: bool,
        /// What the block before the `if` knew of the registers, for the `else` part and the
        /// merge block, which it dominates.
        lineage: super::values::Lineage,
        /// Calls made before the `if` (a call in a part hides what it writes).
        calls: u32,
    },
    /// `loop`.
    Loop {
        /// Loop header (back-edge target).
        header: Id,
        /// Continue target.
        continue_target: Id,
        /// Merge block (break target).
        merge: Id,
        /// A `break` reaches the merge block.
        reached: bool,
        /// What the block before the loop knew of the registers the loop does not write, for
        /// the merge block; `None` when the loop calls a subroutine.
        lineage: Option<super::values::Lineage>,
    },
    /// `switch`: one label per case block.
    Switch {
        /// Merge block (break target).
        merge: Id,
        /// Labels of the case blocks, in program order.
        blocks: Vec<Id>,
        /// The block the next `case` run starts.
        next: usize,
    },
}

/// Per-resource SPIR-V objects, filled by `resources.rs`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ResourceVars {
    /// The descriptor variable (storage buffer block, texel buffer or image).
    pub var: Option<Id>,
    /// The UAV counter's storage buffer variable.
    pub counter: Option<Id>,
    /// Type of the image (texel buffers and textures).
    pub image_type: Option<Id>,
    /// Component type of a typed resource's texels (f32, u32 or i32).
    pub texel: Option<Scalar>,
    /// The image is declared with a format (`R32ui`/`R32i` when atomics use it, or one
    /// `EmitOptions::typed_uav_formats` gives), so its reads and writes need no
    /// `StorageImage*WithoutFormat` capability.
    pub r32: bool,
    /// The variable is an array of descriptors (`descriptors.rs`).
    pub array: Option<super::descriptors::DescriptorArray>,
    /// The block type of a raw or structured buffer (the element type of its array).
    pub block: Option<Id>,
    /// The counter variable is an array of descriptors.
    pub counter_array: Option<super::descriptors::DescriptorArray>,
    /// The block type of the counter.
    pub counter_block: Option<Id>,
    /// A raw or structured view declared as a texel buffer of 32-bit words
    /// (`EmitOptions::texel_raw_buffers`).
    pub texel_words: bool,
    /// A storage buffer with a fix-up entry: the fix-up block's variable and the entry's index
    /// (`EmitOptions::storage_buffer_alignment`).
    pub fixup: Option<(Id, u32)>,
    /// A root descriptor: its address's push-constant byte (`block`: `device_address.rs`).
    pub address: Option<u32>,
}

/// A constant buffer's variable.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CbufferVar {
    /// The Uniform variable (a block, or an array of blocks).
    pub var: Id,
    /// The block type.
    pub block: Id,
    /// The variable is an array of descriptors.
    pub array: Option<super::descriptors::DescriptorArray>,
    /// In the push-constant block (`var` is the block): where (`push_constants.rs`).
    pub push: Option<super::push_constants::PushSlot>,
    /// A root descriptor: its address's push-constant byte (`block`: `device_address.rs`).
    pub address: Option<u32>,
}

/// The variables of the declared buffers and memory (written by `declare.rs` and
/// `resources.rs` before the functions are emitted, read by the register and memory paths),
/// by declaration position.
#[derive(Default)]
pub(super) struct Objects {
    /// Constant buffer variables (Uniform, block of `uvec4[size]`).
    pub(super) cbuffers: Vec<CbufferVar>,
    /// SRV/UAV objects, by declaration position.
    pub(super) resources: Vec<ResourceVars>,
    /// Shared memory variables (Workgroup `u32[words]`).
    pub(super) tgsm: Vec<Id>,
    /// The push-constant block's variable and layout (`push_constants.rs`), when declared.
    pub(super) push: Option<(Id, super::push_constants::PushLayout)>,
    /// Per parameter: its constant or specialization constant (`parameters.rs`), if any.
    pub(super) parameters: Vec<Option<Id>>,
}

/// The walk through the function being emitted (`mod.rs` drives it, `control_flow.rs` opens
/// and closes constructs): written only there; [`Flow::span`] is read by errors between them.
pub(super) struct Flow<'a> {
    /// Open constructs of the function being emitted.
    pub(super) frames: Vec<Frame>,
    /// The previous instruction was a `case`/`default` label.
    pub(super) after_case: bool,
    /// Inside unreachable code (after `ret`, `break`, `continue` or a kill, before the next
    /// part of the enclosing construct): `Some(n)`, `n` constructs opened in it (skipped).
    pub(super) dead: Option<u32>,
    /// The body of the function being emitted, and the position in it of the instruction
    /// being emitted (a `loop` looks ahead for the registers it writes).
    pub(super) body: &'a [ir::Inst],
    /// See [`Flow::body`].
    pub(super) position: usize,
    /// The offset of the instruction being emitted (for errors found between instructions).
    pub(super) span: u32,
}

/// Everything emission needs while walking the IR.
///
/// `ir`, `m` and `options` are read everywhere. The rest is owned by the module that writes
/// it: [`Registers`] by `declare.rs`, [`Objects`] by `declare.rs` and `resources.rs`,
/// [`Flow`] by `mod.rs` and `control_flow.rs`, the register contents ([`TempValues`]) by
/// `temps.rs` and `control_flow.rs`, the interface ([`Io`]) by `io/`, the texture state by
/// `texture/`; the function ids and the memo are private here. Other modules reach them
/// through their owners' methods.
///
/// [`TempValues`]: super::values::TempValues
/// [`Io`]: super::io::Io
pub(crate) struct Emitter<'a> {
    /// The module being translated.
    pub(super) ir: &'a ir::Module,
    /// The SPIR-V being written.
    pub(super) m: Module,
    /// How to emit.
    pub(super) options: super::EmitOptions,
    /// Where `r#`, `x#`, the icb and the compute built-ins live.
    pub(super) regs: Registers,
    /// The variables of the declared constant buffers, resources and shared memory.
    pub(super) objects: Objects,
    /// Function ids, by [`ir::FunctionId`].
    functions: Vec<Id>,
    /// Where the walk is in the function being emitted: its open constructs and the
    /// unreachable code being skipped.
    pub(super) flow: Flow<'a>,
    /// Stage inputs and outputs (graphics stages).
    pub(super) io: super::io::Io,
    /// Samplers and the other objects texture operations share (`texture/mod.rs`).
    pub(super) textures: super::texture::TextureState,
    /// What is known of each `r#` in the current block, and its writes not yet stored.
    pub(super) temp_values: super::values::TempValues,
    /// Ids asked for at almost every instruction, kept at hand (the module's caches hash).
    memo: super::values::Memo,
    /// Where the module departs from what the shader asked (`warnings.rs`).
    pub(super) warnings: Vec<crate::warning::Warning>,
}

impl<'a> Emitter<'a> {
    /// An emitter of `ir` into `m`, its tables taken from `scratch` (emptied, allocations kept).
    pub(super) fn new(
        ir: &'a ir::Module,
        m: Module,
        options: &super::EmitOptions,
        scratch: &mut super::Scratch,
    ) -> Emitter<'a> {
        let mut temp_values = std::mem::take(&mut scratch.temp_values);
        temp_values.reset(ir.temps as usize);
        Emitter {
            ir,
            m,
            options: options.clone(),
            regs: Registers::reusing(super::take_empty(&mut scratch.temps)),
            objects: Objects::default(),
            functions: super::take_empty(&mut scratch.functions),
            flow: Flow {
                frames: super::take_empty(&mut scratch.frames),
                after_case: false,
                dead: None,
                body: &[],
                position: 0,
                span: 0,
            },
            io: super::io::Io::default(),
            textures: super::texture::TextureState::new(options.sparse_residency),
            temp_values,
            memo: super::values::Memo::default(),
            warnings: Vec::new(),
        }
    }

    /// Gives the module and the tables back to `scratch`; returns the warnings.
    pub(super) fn into_scratch(self, scratch: &mut super::Scratch) -> Vec<crate::warning::Warning> {
        scratch.module = Some(self.m);
        scratch.temp_values = self.temp_values;
        scratch.temps = self.regs.into_temps();
        scratch.functions = self.functions;
        scratch.frames = self.flow.frames;
        self.warnings
    }

    /// Allocates the id of every function of the module.
    pub(super) fn declare_functions(&mut self) {
        for _ in &self.ir.functions {
            let id = self.m.alloc_id();
            self.functions.push(id);
        }
    }

    /// The SPIR-V id of function `f`.
    pub(super) fn function_id(&self, span: u32, f: ir::FunctionId) -> Result<Id, Error> {
        self.functions
            .get(f.index())
            .copied()
            .ok_or_else(|| Error::internal(span, format!("function #{f} is not declared")))
    }

    /// The type of `n` components of `s`.
    #[inline]
    pub fn ty(&mut self, s: Scalar, n: u8) -> Id {
        let slot = (s as usize, usize::from(n.clamp(1, 4)));
        if let Some(id) = self.memo.types[slot.0][slot.1] {
            return id;
        }
        let id = self.new_ty(s, n);
        self.memo.types[slot.0][slot.1] = Some(id);
        id
    }

    #[cold]
    #[inline(never)]
    fn new_ty(&mut self, s: Scalar, n: u8) -> Id {
        let scalar = match s {
            Scalar::F32 => self.m.type_f32(),
            Scalar::U32 => self.m.type_u32(),
            Scalar::I32 => self.m.type_i32(),
            Scalar::F64 => self.m.type_float(64),
            Scalar::Bool => self.m.type_bool(),
        };
        if n <= 1 {
            scalar
        } else {
            self.m.type_vector(scalar, n as u32)
        }
    }

    /// A `u32` constant.
    #[inline]
    pub fn u32_const(&mut self, v: u32) -> Id {
        let Some(slot) = self.memo.small_u32.get_mut(v as usize) else {
            return self.m.constant_u32(v);
        };
        if let Some(id) = *slot {
            return id;
        }
        let id = self.m.constant_u32(v);
        self.memo.small_u32[v as usize] = Some(id);
        id
    }

    /// A constant of `n` components of `s`, each with the 32-bit pattern `bits`
    /// (the bit pattern of a float for F32, `v != 0` for Bool, low word only for F64).
    pub fn splat_bits(&mut self, s: Scalar, n: u8, bits: u32) -> Id {
        let one = match s {
            Scalar::Bool => self.m.constant_bool(bits != 0),
            Scalar::F64 => {
                let ty = self.ty(Scalar::F64, 1);
                self.m
                    .constant_bits64(ty, f64::from(f32::from_bits(bits)).to_bits())
            }
            _ => {
                // 32-bit splats repeat (zero, one, masks, the legacy operations' limits):
                // remembered, they cost no constant-table lookups.
                let key = (s, n, bits);
                let slot = super::values::splat_slot(key);
                if let Some(Some((k, id))) = self.memo.splats.get(slot) {
                    if *k == key {
                        return *id;
                    }
                }
                let ty = self.ty(s, 1);
                let one = self.m.constant_bits32(ty, bits);
                let id = self.splat(s, n, one);
                if let Some(entry) = self.memo.splats.get_mut(slot) {
                    *entry = Some((key, id));
                }
                return id;
            }
        };
        self.splat(s, n, one)
    }

    /// A constant vector of `n` copies of the scalar constant `one` (or `one` when `n == 1`).
    pub fn splat(&mut self, s: Scalar, n: u8, one: Id) -> Id {
        if n <= 1 {
            return one;
        }
        let ty = self.ty(s, n);
        self.m.constant_splat(ty, one, n as u32)
    }

    /// Reinterprets `v` as `to` (same width: 32-bit scalars only; F64 is handled by callers).
    pub fn bitcast(&mut self, v: Value, to: Scalar) -> Value {
        if v.scalar == to {
            return v;
        }
        let ty = self.ty(to, v.n);
        Value {
            id: self.m.bitcast(ty, v.id),
            scalar: to,
            n: v.n,
        }
    }

    /// Component `c` of `v` (the value itself when scalar).
    pub fn extract(&mut self, v: Value, c: u8) -> Value {
        if v.n == 1 {
            return v;
        }
        let ty = self.ty(v.scalar, 1);
        Value {
            id: self.m.composite_extract(ty, v.id, &[c as u32]),
            scalar: v.scalar,
            n: 1,
        }
    }

    /// Builds a vector (or returns the scalar) from scalar values of one type.
    pub fn compose(&mut self, scalar: Scalar, parts: &[Id]) -> Value {
        let n = parts.len() as u8;
        if n == 1 {
            return Value {
                id: parts[0],
                scalar,
                n: 1,
            };
        }
        let ty = self.ty(scalar, n);
        Value {
            id: self.m.composite_construct(ty, parts),
            scalar,
            n,
        }
    }

    /// Decorates `id` NoContraction when the instruction is `[precise]`.
    pub fn precise(&mut self, inst: &Inst, id: Id) {
        if inst.flags.precise != 0 {
            self.m.decorate(id, Decoration::NoContraction, &[]);
        }
    }

    /// Calls a GLSL.std.450 instruction on values of type `ty`.
    pub fn glsl(&mut self, ty: Id, op: GlslStd450Op, args: &[Id]) -> Id {
        self.m.glsl(ty, op, args)
    }

    // ---- Reading registers ----

    /// Reads source `i` of `inst`: the components that destination mask `mask` writes (in mask
    /// order, one per set bit), through the source's swizzle, as `ty`, with its modifier applied.
    /// For F64 the mask is the 32-bit mask of the double destination (`.xy` = one double):
    /// the result has one f64 per set pair.
    pub fn load_src(
        &mut self,
        inst: &Inst,
        i: usize,
        mask: u8,
        ty: Scalar,
    ) -> Result<Value, Error> {
        let src = inst
            .src()
            .get(i)
            .ok_or_else(|| Error::internal(inst.span, "missing source operand"))?;
        self.load(inst.span, src, mask, ty)
    }

    /// [`Emitter::load_src`] for an operand not taken from an instruction's list.
    pub fn load(&mut self, span: u32, src: &Src, mask: u8, ty: Scalar) -> Result<Value, Error> {
        if ty == Scalar::F64 {
            return self.load_f64(span, src, mask);
        }
        let mut comps = [0u8; 4];
        let mut n = 0;
        for c in Self::mask_components(mask) {
            comps[n] = src.swizzle[c as usize] & 3;
            n += 1;
        }
        if n == 0 {
            return Err(Error::invalid(span, "empty write mask"));
        }
        let raw = self.read_components(span, &src.reg, &comps[..n], ty)?;
        Ok(self.apply_modifier(raw, src.modifier))
    }

    fn load_f64(&mut self, span: u32, src: &Src, mask: u8) -> Result<Value, Error> {
        // Each double takes components (2k, 2k+1) of the destination; the source swizzle picks
        // the register's lo and hi words for them.
        let mut parts = [None; 2];
        for pair in 0..2u8 {
            if mask & (3 << (2 * pair)) == 0 {
                continue;
            }
            let lo = src.swizzle[(2 * pair) as usize] & 3;
            let hi = src.swizzle[(2 * pair + 1) as usize] & 3;
            let words = self.read_components(span, &src.reg, &[lo, hi], Scalar::U32)?;
            let f64_ty = self.ty(Scalar::F64, 1);
            parts[pair as usize] = Some(self.m.bitcast(f64_ty, words.id));
        }
        let v = match parts {
            [Some(a), Some(b)] => self.compose(Scalar::F64, &[a, b]),
            [Some(a), None] | [None, Some(a)] => self.compose(Scalar::F64, &[a]),
            [None, None] => return Err(Error::internal(span, "empty double write mask")),
        };
        Ok(self.apply_modifier(v, src.modifier))
    }

    #[inline(always)]
    fn apply_modifier(&mut self, v: Value, modifier: Modifier) -> Value {
        if modifier == Modifier::None {
            return v;
        }
        self.modified(v, modifier)
    }

    /// `v` with `modifier` (not `None`) applied.
    ///
    /// A float32 `|x|` clears the sign bit (`BitwiseAnd 0x7fffffff`) instead of `FAbs`:
    /// GLSL.std.450 defines `FAbs` as "x if x >= 0, otherwise -x", which lets `|-0|` be `-0`
    /// (llvmpipe's constant folder gives that), where D3D's `abs` gives `+0`.
    fn modified(&mut self, v: Value, modifier: Modifier) -> Value {
        let ty = self.ty(v.scalar, v.n);
        let float = matches!(v.scalar, Scalar::F32 | Scalar::F64);
        let abs = |e: &mut Self, id: Id| {
            if v.scalar == Scalar::F32 {
                let u32s = e.ty(Scalar::U32, v.n);
                let bits = e.m.bitcast(u32s, id);
                let mask = e.splat_bits(Scalar::U32, v.n, 0x7fff_ffff);
                let cleared = e.m.bitwise_and(u32s, bits, mask);
                return e.m.bitcast(ty, cleared);
            }
            let op = if float {
                GlslStd450Op::FAbs
            } else {
                GlslStd450Op::SAbs
            };
            e.glsl(ty, op, &[id])
        };
        let neg = |e: &mut Self, id: Id| {
            if float {
                e.m.f_negate(ty, id)
            } else {
                e.m.s_negate(ty, id)
            }
        };
        let id = match modifier {
            Modifier::None => return v,
            Modifier::Neg => neg(self, v.id),
            Modifier::Abs => abs(self, v.id),
            Modifier::AbsNeg => {
                let a = abs(self, v.id);
                neg(self, a)
            }
        };
        Value { id, ..v }
    }

    /// Reads components `comps` (register components, 0 = x) of `reg` as `ty`.
    pub fn read_components(
        &mut self,
        span: u32,
        reg: &Reg,
        comps: &[u8],
        ty: Scalar,
    ) -> Result<Value, Error> {
        let comps = &comps[..comps.len().min(4)];
        let n = comps.len() as u8;
        // Immediates become constants directly.
        let immediate = immediate_words(reg, comps).filter(|_| !comps.is_empty());
        if let Some(words) = immediate {
            let one = self.splat_bits(ty, 1, words[0]);
            let mut parts = [one; 4];
            for (part, &w) in parts.iter_mut().zip(&words[..comps.len()]).skip(1) {
                *part = self.splat_bits(ty, 1, w);
            }
            return Ok(self.constant_compose(ty, &parts[..comps.len()]));
        }
        if let Reg::Temp(register) = *reg {
            if let Some(v) = self.read_typed(register, comps, ty) {
                return Ok(v);
            }
        }
        let (vec, width) = self.read_register(span, reg)?;
        let key = (vec, pad(comps), n, ty);
        let serial = self.m.block_serial();
        if let Some(id) = self.temp_values.read(serial, &key) {
            return Ok(Value { id, scalar: ty, n });
        }
        let u = self.ty(Scalar::U32, 1);
        let raw = if width == 1 {
            // Scalar registers: every component reads the one value.
            if n == 1 {
                vec
            } else {
                let t = self.ty(Scalar::U32, n);
                self.m.composite_construct(t, &[vec; 4][..n as usize])
            }
        } else if n == 1 {
            let c = comps[0].min(width - 1);
            self.m.composite_extract(u, vec, &[c as u32])
        } else {
            let mut sel = [0u32; 4];
            for (s, &c) in sel.iter_mut().zip(comps) {
                *s = c.min(width - 1) as u32;
            }
            let sel = &sel[..n as usize];
            if n == width && sel.iter().enumerate().all(|(k, &c)| c == k as u32) {
                // The whole register in order: no shuffle.
                vec
            } else {
                let t = self.ty(Scalar::U32, n);
                self.m.vector_shuffle(t, vec, vec, sel)
            }
        };
        let v = Value {
            id: raw,
            scalar: Scalar::U32,
            n,
        };
        let v = self.bitcast(v, ty);
        self.temp_values.remember_read(serial, key, v.id);
        Ok(v)
    }

    /// Components `comps` of `r<register>` as `ty`, taken from the value they were stored from
    /// in this block when it has that type (no load, shuffle or bitcast of the register).
    fn read_typed(&mut self, register: u32, comps: &[u8], ty: Scalar) -> Option<Value> {
        let serial = self.m.block_serial();
        let (source, positions) = self.temp_values.typed(serial, register, comps)?;
        if source.scalar != ty {
            return None;
        }
        let n = comps.len() as u8;
        let positions = &positions[..comps.len()];
        let in_order = positions.iter().enumerate().all(|(k, &p)| p == k as u8);
        let id = if n == source.n && in_order {
            source.value
        } else if source.n == 1 {
            // A replicated scalar: every component is the value.
            let t = self.ty(ty, n);
            self.m
                .composite_construct(t, &[source.value; 4][..comps.len()])
        } else if n == 1 {
            let t = self.ty(ty, 1);
            self.m
                .composite_extract(t, source.value, &[u32::from(positions[0])])
        } else {
            let key = (source.value, pad(positions), n, ty);
            if let Some(id) = self.temp_values.read(serial, &key) {
                return Some(Value { id, scalar: ty, n });
            }
            let t = self.ty(ty, n);
            let mut sel = [0u32; 4];
            for (s, &p) in sel.iter_mut().zip(positions) {
                *s = u32::from(p);
            }
            let id = self
                .m
                .vector_shuffle(t, source.value, source.value, &sel[..comps.len()]);
            self.temp_values.remember_read(serial, key, id);
            id
        };
        Some(Value { id, scalar: ty, n })
    }

    fn constant_compose(&mut self, ty: Scalar, parts: &[Id]) -> Value {
        let n = parts.len() as u8;
        if n == 1 {
            return Value {
                id: parts[0],
                scalar: ty,
                n,
            };
        }
        let t = self.ty(ty, n);
        Value {
            id: self.m.constant_composite(t, parts),
            scalar: ty,
            n,
        }
    }

    /// Loads a whole register as `u32` words: `(id, component count)`; count 1 is a scalar.
    fn read_register(&mut self, span: u32, reg: &Reg) -> Result<(Id, u8), Error> {
        let uvec4 = self.ty(Scalar::U32, 4);
        match *reg {
            Reg::Temp(n) => Ok((self.temp_vec(span, n)?, 4)),
            Reg::IndexableTemp { array, index } => {
                let ptr = self.indexable_ptr(span, array, &index)?;
                let v = self.m.load(uvec4, ptr.0);
                let v = self.zero_if_out_of_range(v, ptr.1);
                Ok((v, 4))
            }
            Reg::ImmediateConstantBuffer(index) => {
                let icb = self
                    .regs
                    .icb()
                    .ok_or_else(|| Error::internal(span, "icb read without an icb"))?;
                let len = (self.ir.icb.len() / 4) as u32;
                let (idx, in_range) = self.bounded_index(span, &index, len)?;
                let ptr_ty = self.m.type_pointer(icb.storage, uvec4);
                let ptr = self.m.access_chain(ptr_ty, icb.id, &[idx]);
                let v = self.m.load(uvec4, ptr);
                Ok((self.zero_if_out_of_range(v, in_range), 4))
            }
            Reg::ConstantBuffer {
                decl,
                element,
                slot,
            } => {
                let cb = self.ir.cbuffers.get(decl.index()).copied();
                let var = self.objects.cbuffers.get(decl.index()).copied();
                let (Some(cb), Some(var)) = (cb, var) else {
                    return Err(Error::internal(span, "undeclared constant buffer"));
                };
                if let Some(offset) = var.address {
                    return Ok((
                        self.read_address_cbuffer(span, offset, var.block, &element, &slot)?,
                        4,
                    ));
                }
                self.cbuffer_read(span, &cb, &slot);
                if let Some(p) = var.push {
                    return Ok((
                        self.read_push_cbuffer(span, var.var, p, &element, &slot)?,
                        4,
                    ));
                }
                // A register at constant indices read again in the same block: the same
                // value (constant buffers are read-only), no second load.
                let constant = !element.is_relative() && !slot.is_relative();
                let key = (decl.index() as u32, element.imm, slot.imm);
                let serial = self.m.block_serial();
                let memo = (key.2 as usize ^ (key.0 as usize) << 3) % CBUFFER_SLOTS;
                if constant {
                    if let Some(Some((s, k, id))) = self.memo.cbuffer_loads.get(memo) {
                        if *s == serial && *k == key {
                            return Ok((*id, 4));
                        }
                    }
                }
                let d = self.descriptor_element(
                    span,
                    var.var,
                    var.array,
                    &element,
                    StorageClass::Uniform,
                    var.block,
                    super::descriptors::DescriptorKind::UniformBuffer,
                )?;
                let (idx, in_range) = self.bounded_index(span, &slot, cb.size.max(1))?;
                let ptr_ty = self.m.type_pointer(StorageClass::Uniform, uvec4);
                let zero = self.u32_const(0);
                let ptr = self.m.access_chain(ptr_ty, d.ptr, &[zero, idx]);
                if d.nonuniform {
                    self.non_uniform(ptr);
                }
                let v = self.m.load(uvec4, ptr);
                let v = self.zero_if_out_of_range(v, in_range);
                if constant && !d.nonuniform {
                    if let Some(entry) = self.memo.cbuffer_loads.get_mut(memo) {
                        *entry = Some((serial, key, v));
                    }
                }
                Ok((v, 4))
            }
            Reg::ThreadId | Reg::ThreadGroupId | Reg::ThreadIdInGroup => {
                let which = match reg {
                    Reg::ThreadId => 0,
                    Reg::ThreadGroupId => 1,
                    _ => 2,
                };
                let var = self.regs.builtin(which).ok_or_else(|| {
                    Error::invalid(span, "thread id read without its declaration")
                })?;
                let uvec3 = self.ty(Scalar::U32, 3);
                Ok((self.load_builtin(uvec3, var), 3))
            }
            Reg::ThreadIdInGroupFlattened => {
                let var = self.regs.builtin(3).ok_or_else(|| {
                    Error::invalid(span, "thread id read without its declaration")
                })?;
                let u = self.ty(Scalar::U32, 1);
                Ok((self.load_builtin(u, var), 1))
            }
            Reg::Input(_)
            | Reg::Output(_)
            | Reg::VertexInput { .. }
            | Reg::OutputControlPoint { .. }
            | Reg::PatchConstant(_)
            | Reg::OutputControlPointId
            | Reg::ForkInstanceId
            | Reg::JoinInstanceId
            | Reg::DomainLocation
            | Reg::PrimitiveId
            | Reg::GsInstanceId
            | Reg::InputCoverage
            | Reg::InnerCoverage => self.read_io_register(span, reg),
            Reg::Parameter(n) => Ok((self.read_parameter(span, n)?, 4)),
            Reg::Null => Err(Error::invalid(span, "null used as a source")),
            _ => Err(Error::invalid(
                span,
                format!(
                    "{} is not a value operand here",
                    crate::ir::register_name(reg)
                ),
            )),
        }
    }

    /// The id a load of `key` gave earlier in the current block, if the memo still has it.
    pub(super) fn remembered_load(&self, key: LoadKey) -> Option<Id> {
        let serial = self.m.block_serial();
        match self.memo.loads.get(key.slot()) {
            Some(Some((s, k, id))) if *s == serial && *k == key => Some(*id),
            _ => None,
        }
    }

    /// Remembers that a load of `key` gave `id` in the current block.
    pub(super) fn remember_load(&mut self, key: LoadKey, id: Id) {
        let serial = self.m.block_serial();
        if let Some(entry) = self.memo.loads.get_mut(key.slot()) {
            *entry = Some((serial, key, id));
        }
    }

    /// The value of the input built-in variable `var` (of type `ty`): built-ins do not change,
    /// so one load per block.
    fn load_builtin(&mut self, ty: Id, var: Id) -> Id {
        let key = LoadKey::Handle(var);
        if let Some(id) = self.remembered_load(key) {
            return id;
        }
        let v = self.m.load(ty, var);
        self.remember_load(key, v);
        v
    }

    /// Forgets every remembered input-register load (an input register is being written).
    pub(super) fn forget_input_loads(&mut self) {
        for entry in &mut self.memo.loads {
            if matches!(entry, Some((_, LoadKey::Input(_), _))) {
                *entry = None;
            }
        }
    }

    /// The `r#` variable.
    pub fn temp(&self, span: u32, n: u32) -> Result<Var, Error> {
        self.regs
            .temp(n)
            .ok_or_else(|| Error::internal(span, format!("r{n} is not declared")))
    }

    // ---- Writing registers ----

    /// Writes `value` to destination `i` of `inst`: `value` has one component per set bit of
    /// the destination mask (a scalar value is replicated). Float values are saturated when the
    /// instruction says `_sat`. F64 values write two words per double (mask `.xy`/`.zw`/`.xyzw`).
    pub fn store_dst(&mut self, inst: &Inst, i: usize, value: Value) -> Result<(), Error> {
        let dst = inst
            .dst()
            .get(i)
            .ok_or_else(|| Error::internal(inst.span, "missing destination operand"))?;
        let mut value = value;
        if inst.flags.saturate && matches!(value.scalar, Scalar::F32 | Scalar::F64) {
            value = self.saturate(value);
        }
        self.store(inst.span, dst, value)
    }

    /// `NClamp(v, 0, 1)`: NaN becomes 0.
    pub fn saturate(&mut self, v: Value) -> Value {
        let ty = self.ty(v.scalar, v.n);
        let (zero, one) = if v.scalar == Scalar::F64 {
            let t = self.ty(Scalar::F64, 1);
            let z = self.m.constant_bits64(t, 0f64.to_bits());
            let o = self.m.constant_bits64(t, 1f64.to_bits());
            (
                self.splat(Scalar::F64, v.n, z),
                self.splat(Scalar::F64, v.n, o),
            )
        } else {
            (
                self.splat_bits(Scalar::F32, v.n, 0),
                self.splat_bits(Scalar::F32, v.n, 1f32.to_bits()),
            )
        };
        let id = self.glsl(ty, GlslStd450Op::NClamp, &[v.id, zero, one]);
        Value { id, ..v }
    }

    /// [`Emitter::store_dst`] for a destination not taken from an instruction.
    pub fn store(&mut self, span: u32, dst: &Dst, value: Value) -> Result<(), Error> {
        if matches!(dst.reg, Reg::Null) || dst.mask == 0 {
            return Ok(());
        }
        let mut comps = [0u8; 4];
        let mut count = 0;
        for c in Self::mask_components(dst.mask) {
            comps[count] = c;
            count += 1;
        }
        let comps = &comps[..count];
        let words = if value.scalar == Scalar::F64 {
            self.f64_to_words(value)
        } else {
            value
        };
        if let Reg::Temp(n) = dst.reg {
            // Recorded, and stored when the block ends (see `temps.rs`).
            return self.write_temp(span, n, words, comps);
        }
        let words = self.bitcast(words, Scalar::U32);
        let uvec4 = self.ty(Scalar::U32, 4);
        let ptr = match dst.reg {
            Reg::IndexableTemp { array, index } => self.indexable_ptr(span, array, &index)?.0,
            Reg::Output(_)
            | Reg::PatchConstant(_)
            | Reg::OutputDepth(_)
            | Reg::OutputCoverage
            | Reg::OutputStencilRef => {
                self.mark_patch_written(span, &dst.reg, dst.mask)?;
                self.output_ptr(span, &dst.reg)?
            }
            Reg::Input(_) => self.output_ptr(span, &dst.reg)?,
            _ => {
                return Err(Error::invalid(
                    span,
                    format!(
                        "{} is not a destination register here",
                        crate::ir::register_name(&dst.reg)
                    ),
                ))
            }
        };
        if comps.len() == 4 && words.n == 4 {
            self.m.store(ptr, words.id);
            return Ok(());
        }
        let old = self.m.load(uvec4, ptr);
        let new = if words.n == 1 {
            let mut acc = old;
            for &c in comps {
                acc = self.m.composite_insert(uvec4, words.id, acc, &[c as u32]);
            }
            acc
        } else {
            if words.n as usize != comps.len() {
                return Err(Error::internal(
                    span,
                    "value width does not match the write mask",
                ));
            }
            // Shuffle: component c takes the k-th new component when c is the k-th masked one.
            let mut sel = [0u32, 1, 2, 3];
            for (k, &c) in comps.iter().enumerate() {
                sel[c as usize] = 4 + k as u32;
            }
            self.m.vector_shuffle(uvec4, old, words.id, &sel)
        };
        self.m.store(ptr, new);
        Ok(())
    }

    /// Splits doubles into their (lo, hi) words: `n` doubles → `2n` `u32`s.
    fn f64_to_words(&mut self, v: Value) -> Value {
        let uvec2 = self.ty(Scalar::U32, 2);
        let u = self.ty(Scalar::U32, 1);
        let mut parts = Vec::with_capacity(4);
        for k in 0..v.n {
            let d = self.extract(v, k);
            let w = self.m.bitcast(uvec2, d.id);
            parts.push(self.m.composite_extract(u, w, &[0]));
            parts.push(self.m.composite_extract(u, w, &[1]));
        }
        self.compose(Scalar::U32, &parts)
    }

    /// The components a destination writes, in order.
    pub fn mask_components(mask: u8) -> impl Iterator<Item = u8> {
        (0..4u8).filter(move |c| mask & (1 << c) != 0)
    }

    /// The destination mask of destination `i` (0 for `null`).
    pub fn dst_mask(inst: &Inst, i: usize) -> u8 {
        match inst.dst().get(i) {
            Some(d) if !matches!(d.reg, Reg::Null) => d.mask & 0xf,
            _ => 0,
        }
    }
}

/// The 32-bit words an immediate operand gives for register components `comps` (a 64-bit
/// immediate read as words: component 2k/2k+1 = lo/hi of value k); `None` for other registers.
fn immediate_words(reg: &Reg, comps: &[u8]) -> Option<[u32; 4]> {
    let word = |c: u8| match reg {
        Reg::Imm32(v) => Some(v[c as usize & 3]),
        Reg::Imm64(v) => {
            let d = v[(c as usize >> 1) & 1];
            Some(if c & 1 == 0 {
                d as u32
            } else {
                (d >> 32) as u32
            })
        }
        _ => None,
    };
    let mut out = [0; 4];
    for (o, &c) in out.iter_mut().zip(comps) {
        *o = word(c)?;
    }
    Some(out)
}
