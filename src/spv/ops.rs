//! Typed helpers for the instructions a translator emits most: memory, arithmetic, conversions,
//! comparisons, composites, select, calls, barriers, images and extended instructions.
//!
//! Each writes its words straight into the current block (fixed-size instructions as one array)
//! and returns the new result id. Names follow rspirv's (`i_add`, `f_ord_less_than`, ...);
//! anything not covered here goes through [`Module::emit`] or [`Module::inst`].

use spirv::{GlslStd450Op, ImageOperands, Op};

use super::{Error, Id, Module};

/// The most words [`Module::value_var`] assembles on the stack.
const SHORT: usize = 12;

impl Module {
    #[inline]
    fn value1(&mut self, op: Op, ty: Id, a: Id) -> Id {
        let id = self.alloc_id();
        if let Some(w) = self.body(op) {
            w.inst(op, [ty.word(), id.word(), a.word()]);
        }
        id
    }

    #[inline]
    fn value2(&mut self, op: Op, ty: Id, a: Id, b: Id) -> Id {
        let id = self.alloc_id();
        if let Some(w) = self.body(op) {
            w.inst(op, [ty.word(), id.word(), a.word(), b.word()]);
        }
        id
    }

    #[inline]
    fn value3(&mut self, op: Op, ty: Id, a: Id, b: Id, c: Id) -> Id {
        let id = self.alloc_id();
        if let Some(w) = self.body(op) {
            w.inst(op, [ty.word(), id.word(), a.word(), b.word(), c.word()]);
        }
        id
    }

    /// `op ty %new head... ids... literals...` in the current block.
    fn value_var(&mut self, op: Op, ty: Id, head: &[Id], ids: &[Id], literals: &[u32]) -> Id {
        let id = self.alloc_id();
        if let Some(w) = self.body(op) {
            let n = 3 + head.len() + ids.len() + literals.len();
            if n <= SHORT {
                // A short instruction (extracts, shuffles, constructs of a few components)
                // assembled on the stack and written at once.
                let mut buf = [0u32; SHORT];
                buf[0] = (n as u32) << 16 | op as u32;
                buf[1] = ty.word();
                buf[2] = id.word();
                let words = head
                    .iter()
                    .chain(ids)
                    .map(|i| i.word())
                    .chain(literals.iter().copied());
                for (slot, word) in buf[3..n].iter_mut().zip(words) {
                    *slot = word;
                }
                w.extend(&buf[..n]);
                return id;
            }
            let start = w.begin(op);
            w.extend(&[ty.word(), id.word()]);
            w.ids(head);
            w.ids(ids);
            w.extend(literals);
            let r = w.end(start);
            self.check(r);
        }
        id
    }
}

/// Generates `pub fn name(&mut self, ty, a, ...) -> Id` for fixed-arity value instructions.
macro_rules! value_ops {
    (@one $name:ident $op:ident ($($arg:ident),+) $helper:ident) => {
        #[doc = concat!("`Op", stringify!($op), "` in the current block.")]
        #[inline]
        pub fn $name(&mut self, ty: Id, $($arg: Id),+) -> Id {
            self.$helper(Op::$op, ty, $($arg),+)
        }
    };
    (value1: $($name:ident => $op:ident,)*) => {
        impl Module { $(value_ops!(@one $name $op (a) value1);)* }
    };
    (value2: $($name:ident => $op:ident,)*) => {
        impl Module { $(value_ops!(@one $name $op (a, b) value2);)* }
    };
    (value3: $($name:ident => $op:ident,)*) => {
        impl Module { $(value_ops!(@one $name $op (a, b, c) value3);)* }
    };
}

value_ops! { value1:
    load => Load,
    copy_object => CopyObject,
    s_negate => SNegate,
    f_negate => FNegate,
    not => Not,
    logical_not => LogicalNot,
    bitcast => Bitcast,
    convert_f_to_u => ConvertFToU,
    convert_f_to_s => ConvertFToS,
    convert_s_to_f => ConvertSToF,
    convert_u_to_f => ConvertUToF,
    u_convert => UConvert,
    s_convert => SConvert,
    f_convert => FConvert,
    quantize_to_f16 => QuantizeToF16,
    bit_reverse => BitReverse,
    bit_count => BitCount,
    is_nan => IsNan,
    is_inf => IsInf,
    any => Any,
    all => All,
    dpdx => DPdx,
    dpdy => DPdy,
    fwidth => Fwidth,
    dpdx_fine => DPdxFine,
    dpdy_fine => DPdyFine,
    dpdx_coarse => DPdxCoarse,
    dpdy_coarse => DPdyCoarse,
    image => Image,
    image_query_size => ImageQuerySize,
    image_query_levels => ImageQueryLevels,
    image_query_samples => ImageQuerySamples,
}

value_ops! { value2:
    i_add => IAdd,
    i_sub => ISub,
    i_mul => IMul,
    u_div => UDiv,
    s_div => SDiv,
    u_mod => UMod,
    s_rem => SRem,
    s_mod => SMod,
    f_add => FAdd,
    f_sub => FSub,
    f_mul => FMul,
    f_div => FDiv,
    f_rem => FRem,
    f_mod => FMod,
    vector_times_scalar => VectorTimesScalar,
    dot => Dot,
    i_add_carry => IAddCarry,
    i_sub_borrow => ISubBorrow,
    u_mul_extended => UMulExtended,
    s_mul_extended => SMulExtended,
    shift_left_logical => ShiftLeftLogical,
    shift_right_logical => ShiftRightLogical,
    shift_right_arithmetic => ShiftRightArithmetic,
    bitwise_or => BitwiseOr,
    bitwise_xor => BitwiseXor,
    bitwise_and => BitwiseAnd,
    logical_or => LogicalOr,
    logical_and => LogicalAnd,
    logical_equal => LogicalEqual,
    logical_not_equal => LogicalNotEqual,
    i_equal => IEqual,
    i_not_equal => INotEqual,
    u_greater_than => UGreaterThan,
    s_greater_than => SGreaterThan,
    u_greater_than_equal => UGreaterThanEqual,
    s_greater_than_equal => SGreaterThanEqual,
    u_less_than => ULessThan,
    s_less_than => SLessThan,
    u_less_than_equal => ULessThanEqual,
    s_less_than_equal => SLessThanEqual,
    f_ord_equal => FOrdEqual,
    f_ord_not_equal => FOrdNotEqual,
    f_ord_less_than => FOrdLessThan,
    f_ord_greater_than => FOrdGreaterThan,
    f_ord_less_than_equal => FOrdLessThanEqual,
    f_ord_greater_than_equal => FOrdGreaterThanEqual,
    f_unord_equal => FUnordEqual,
    f_unord_not_equal => FUnordNotEqual,
    f_unord_less_than => FUnordLessThan,
    f_unord_greater_than => FUnordGreaterThan,
    f_unord_less_than_equal => FUnordLessThanEqual,
    f_unord_greater_than_equal => FUnordGreaterThanEqual,
    vector_extract_dynamic => VectorExtractDynamic,
    sampled_image => SampledImage,
    image_query_size_lod => ImageQuerySizeLod,
    image_query_lod => ImageQueryLod,
}

value_ops! { value3:
    select => Select,
    vector_insert_dynamic => VectorInsertDynamic,
    bit_field_s_extract => BitFieldSExtract,
    bit_field_u_extract => BitFieldUExtract,
}

impl Module {
    /// OpStore `value` through `pointer`.
    pub fn store(&mut self, pointer: Id, value: Id) {
        if let Some(w) = self.body(Op::Store) {
            w.inst(Op::Store, [pointer.word(), value.word()]);
        }
    }

    /// OpAccessChain: a pointer of type `ty` into `base` through `indices`.
    pub fn access_chain(&mut self, ty: Id, base: Id, indices: &[Id]) -> Id {
        match *indices {
            [i] => self.value2(Op::AccessChain, ty, base, i),
            [i, j] => self.value3(Op::AccessChain, ty, base, i, j),
            _ => self.value_var(Op::AccessChain, ty, &[base], indices, &[]),
        }
    }

    /// OpArrayLength of the runtime array that is member `member` of the struct `structure`
    /// points to.
    pub fn array_length(&mut self, ty: Id, structure: Id, member: u32) -> Id {
        self.value_var(Op::ArrayLength, ty, &[structure], &[], &[member])
    }

    /// OpCompositeConstruct.
    pub fn composite_construct(&mut self, ty: Id, constituents: &[Id]) -> Id {
        self.value_var(Op::CompositeConstruct, ty, &[], constituents, &[])
    }

    /// OpCompositeExtract with literal `indices`.
    pub fn composite_extract(&mut self, ty: Id, composite: Id, indices: &[u32]) -> Id {
        self.value_var(Op::CompositeExtract, ty, &[composite], &[], indices)
    }

    /// OpCompositeInsert of `object` into `composite` at literal `indices`.
    pub fn composite_insert(&mut self, ty: Id, object: Id, composite: Id, indices: &[u32]) -> Id {
        self.value_var(Op::CompositeInsert, ty, &[object, composite], &[], indices)
    }

    /// OpVectorShuffle: `components` index the concatenation of `a` and `b` (`0xFFFFFFFF`:
    /// undefined).
    pub fn vector_shuffle(&mut self, ty: Id, a: Id, b: Id, components: &[u32]) -> Id {
        self.value_var(Op::VectorShuffle, ty, &[a, b], &[], components)
    }

    /// OpBitFieldInsert of `count` bits of `insert` into `base` at `offset`.
    pub fn bit_field_insert(&mut self, ty: Id, base: Id, insert: Id, offset: Id, count: Id) -> Id {
        let ids = [base, insert, offset, count];
        self.value_var(Op::BitFieldInsert, ty, &ids, &[], &[])
    }

    /// OpFunctionCall.
    pub fn function_call(&mut self, ty: Id, function: Id, arguments: &[Id]) -> Id {
        self.block_serial = self.block_serial.wrapping_add(1);
        self.value_var(Op::FunctionCall, ty, &[function], arguments, &[])
    }

    /// OpPhi with `(value, parent block)` pairs.
    pub fn phi(&mut self, ty: Id, incoming: &[(Id, Id)]) -> Id {
        let id = self.alloc_id();
        if let Some(w) = self.body(Op::Phi) {
            let start = w.begin(Op::Phi);
            w.extend(&[ty.word(), id.word()]);
            for &(value, parent) in incoming {
                w.extend(&[value.word(), parent.word()]);
            }
            let r = w.end(start);
            self.check(r);
        }
        id
    }

    /// OpExtInst `instruction` of the extended set `set` (from [`Module::ext_inst_import`]).
    pub fn ext_inst(&mut self, ty: Id, set: Id, instruction: u32, operands: &[Id]) -> Id {
        let id = self.alloc_id();
        if let Some(w) = self.body(Op::ExtInst) {
            let start = w.begin(Op::ExtInst);
            w.extend(&[ty.word(), id.word(), set.word(), instruction]);
            w.ids(operands);
            let r = w.end(start);
            self.check(r);
        }
        id
    }

    /// A `GLSL.std.450` extended instruction (the set is imported on first use).
    pub fn glsl(&mut self, ty: Id, instruction: GlslStd450Op, operands: &[Id]) -> Id {
        let set = self.glsl_std_450();
        self.ext_inst(ty, set, instruction as u32, operands)
    }

    /// OpControlBarrier; the scopes and semantics are ids of `uint` constants.
    pub fn control_barrier(&mut self, execution: Id, memory: Id, semantics: Id) {
        if let Some(w) = self.body(Op::ControlBarrier) {
            let ops = [execution.word(), memory.word(), semantics.word()];
            w.inst(Op::ControlBarrier, ops);
        }
    }

    /// OpMemoryBarrier; the scope and semantics are ids of `uint` constants.
    pub fn memory_barrier(&mut self, memory: Id, semantics: Id) {
        if let Some(w) = self.body(Op::MemoryBarrier) {
            w.inst(Op::MemoryBarrier, [memory.word(), semantics.word()]);
        }
    }

    /// An image read: `op ty %new image coordinate [extra] [operands ids...]`, where `op` is one
    /// of OpImageSample{,Dref}{Implicit,Explicit}Lod, OpImageSampleProj*, OpImageFetch,
    /// OpImageGather, OpImageDrefGather or OpImageRead, or the OpImageSparse* form of one of
    /// them (whose `ty` is the residency struct `{ uint, texel }`), `extra` is the depth
    /// reference or the gather component, and `operand_ids` follow the `operands` mask
    /// (omitted when empty).
    #[allow(clippy::too_many_arguments)]
    pub fn image_op(
        &mut self,
        op: Op,
        ty: Id,
        image: Id,
        coordinate: Id,
        extra: Option<Id>,
        operands: ImageOperands,
        operand_ids: &[Id],
    ) -> Id {
        let id = self.alloc_id();
        let extra_allowed = matches!(
            op,
            Op::ImageSampleDrefImplicitLod
                | Op::ImageSampleDrefExplicitLod
                | Op::ImageSampleProjDrefImplicitLod
                | Op::ImageSampleProjDrefExplicitLod
                | Op::ImageGather
                | Op::ImageDrefGather
                | Op::ImageSparseSampleDrefImplicitLod
                | Op::ImageSparseSampleDrefExplicitLod
                | Op::ImageSparseSampleProjDrefImplicitLod
                | Op::ImageSparseSampleProjDrefExplicitLod
                | Op::ImageSparseGather
                | Op::ImageSparseDrefGather
        );
        let known = extra_allowed
            || matches!(
                op,
                Op::ImageSampleImplicitLod
                    | Op::ImageSampleExplicitLod
                    | Op::ImageSampleProjImplicitLod
                    | Op::ImageSampleProjExplicitLod
                    | Op::ImageFetch
                    | Op::ImageRead
                    | Op::ImageSparseSampleImplicitLod
                    | Op::ImageSparseSampleExplicitLod
                    | Op::ImageSparseSampleProjImplicitLod
                    | Op::ImageSparseSampleProjExplicitLod
                    | Op::ImageSparseFetch
                    | Op::ImageSparseRead
            );
        if !known || extra.is_some() != extra_allowed {
            let what = "not an image read, or a depth reference/component where none belongs";
            self.fail(Error::InvalidOperand { op, what });
            return id;
        }
        if let Some(w) = self.body(op) {
            let start = w.begin(op);
            w.extend(&[ty.word(), id.word(), image.word(), coordinate.word()]);
            if let Some(e) = extra {
                w.push(e.word());
            }
            if !operands.is_empty() || !operand_ids.is_empty() {
                w.push(operands.bits());
                w.ids(operand_ids);
            }
            let r = w.end(start);
            self.check(r);
        }
        id
    }

    /// OpImageWrite of `texel` at `coordinate`, with optional image operands.
    pub fn image_write(
        &mut self,
        image: Id,
        coordinate: Id,
        texel: Id,
        operands: ImageOperands,
        operand_ids: &[Id],
    ) {
        if let Some(w) = self.body(Op::ImageWrite) {
            let start = w.begin(Op::ImageWrite);
            w.extend(&[image.word(), coordinate.word(), texel.word()]);
            if !operands.is_empty() || !operand_ids.is_empty() {
                w.push(operands.bits());
                w.ids(operand_ids);
            }
            let r = w.end(start);
            self.check(r);
        }
    }
}
