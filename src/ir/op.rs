//! IR operations and instructions.
//!
//! Each [`Op`] is one executable DXBC operation with the same operand order as DXBC: destinations
//! first, then sources, resource operands in place (`ld_raw r0.xy, r1.x, t0.xxxx` has one
//! destination and two sources, the second a [`Reg::Resource`](super::Reg::Resource)). Stores
//! and atomics without a returned value have the resource as their destination. The tiled-resource
//! (`_s`) variants have the status as a second destination (`ld_s r0, r1.x, r2, t0` → dst
//! `r0`, `r1.x`); `check_access_fully_mapped` reads such a status.
//!
//! Every operation is one row of the table below: its name, its operand counts
//! `(destinations -> sources)`, its [`Family`] (what the back end dispatches on) and, for
//! operations on memory, images and samplers, the [`Role`] of each source. [`Op::arity`],
//! [`Op::family`], [`Op::roles`] and [`Op::kind`] (the operation as an [`OpKind`]: its family
//! and a per-family enum such as [`FloatOp`]) all come from that table; adding an operation is
//! one row.

use super::operand::{Dst, Src};

/// What kind of operation an [`Op`] is: the unit the back end dispatches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Untyped moves and selects (`mov`, `movc`, `swapc`).
    Move,
    /// 32-bit float arithmetic, comparisons, and conversions between float and integer or half.
    Float,
    /// 32-bit integer arithmetic, shifts, logic and comparisons.
    Integer,
    /// Bit counting and bit-field operations (`countbits`, `ubfe`, `bfi`, `msad`, ...).
    Bits,
    /// 64-bit float arithmetic, comparisons and conversions.
    Double,
    /// Direct3D 9's float arithmetic: the legacy multiply (`0 × anything = 0`), `log`/`rsq` of
    /// `|x|`, `lit`, `dst`, `nrm` and the SM1 partial-precision `expp`/`logp` (`docs/d3d9.md`).
    /// The back end emits each in the strict or the fast variant the options choose.
    Legacy,
    /// Screen-space derivatives (pixel shaders).
    Derivative,
    /// Structured control flow, jumps, returns, calls and `nop`.
    ControlFlow,
    /// `discard` (pixel shaders).
    Discard,
    /// Raw, structured and typed buffer loads and stores, `bufinfo`.
    Buffer,
    /// Atomic operations on UAVs and shared memory.
    Atomic,
    /// `sync`: barriers and memory fences.
    Sync,
    /// Texel fetches (`ld`, `ldms`); `ld` on a typed buffer is a buffer load.
    TextureLoad,
    /// Filtered sampling (`sample*`).
    Sample,
    /// Gathers (`gather4*`).
    Gather,
    /// Resource queries (`resinfo`, `lod`, `sampleinfo`, `samplepos`).
    Query,
    /// Pull-model interpolation (`eval_*`, pixel shaders).
    Interpolation,
    /// Tiled-resource forms with a status destination, and `check_access_fully_mapped`.
    Sparse,
    /// Geometry-shader vertex and primitive output (`emit`, `cut`).
    Geometry,
}

/// What a source operand of an operation on memory, images or samplers is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The texel coordinate, byte address or structure index.
    Address,
    /// The byte offset inside a structure.
    StructOffset,
    /// The resource (`t#`, `u#` or `g#`).
    Resource,
    /// The sampler (`s#`).
    Sampler,
    /// The depth-comparison reference value.
    Reference,
    /// The explicit level of detail (or the mip level of `resinfo`).
    Lod,
    /// The LOD bias.
    Bias,
    /// The x gradient.
    GradientX,
    /// The y gradient.
    GradientY,
    /// The LOD clamp.
    Clamp,
    /// The programmable texel offset of `gather4_po*`.
    Offset,
    /// The sample index.
    SampleIndex,
    /// The value stored or combined.
    Value,
    /// The value compared against by a compare-and-exchange.
    Compare,
    /// The attribute (input register) interpolated.
    Attribute,
    /// The status that `check_access_fully_mapped` reads.
    Status,
}

macro_rules! ops {
    ($(
        $family:ident($sub:ident) {
            $( $variant:ident $name:literal ($dsts:literal -> $srcs:literal)
               $([$($role:ident),*])?; )*
        }
    )*) => {
        /// An IR operation (see the module docs for the operand convention).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $($(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*)*
        }

        $(
            #[doc = concat!("The operations of [`Family::", stringify!($family), "`], for an ")]
            #[doc = "exhaustive `match` in the code that emits that family."]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            pub enum $sub {
                $(
                    #[doc = concat!("`", $name, "`")]
                    $variant,
                )*
            }

            impl From<$sub> for Op {
                fn from(op: $sub) -> Op {
                    match op {
                        $($sub::$variant => Op::$variant,)*
                    }
                }
            }
        )*

        /// An [`Op`] as its family and its operation within the family: what a back end
        /// matches on to handle every operation of a family with no catch-all.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum OpKind {
            $(
                #[doc = concat!("[`Family::", stringify!($family), "`].")]
                $family($sub),
            )*
        }

        impl Op {
            /// The operation as its family and its operation within the family.
            #[inline]
            pub const fn kind(self) -> OpKind {
                // A table indexed by the discriminant (table order) rather than a `match`: a
                // load the hot paths inline.
                const KINDS: &[OpKind] = &[$($(OpKind::$family($sub::$variant),)*)*];
                KINDS[self as usize]
            }

            /// Every operation, in table order.
            pub const ALL: &'static [Op] = &[$($(Op::$variant,)*)*];

            /// The DXBC mnemonic (without `_sat`, test or other suffixes).
            #[inline]
            pub const fn name(self) -> &'static str {
                match self {
                    $($(Op::$variant => $name,)*)*
                }
            }

            /// The operand counts `(destinations, sources)` every instruction of this
            /// operation has.
            #[inline]
            pub const fn arity(self) -> (usize, usize) {
                const ARITIES: &[(u8, u8)] = &[$($(($dsts, $srcs),)*)*];
                let (dsts, srcs) = ARITIES[self as usize];
                (dsts as usize, srcs as usize)
            }

            /// The family the operation belongs to.
            #[inline]
            pub const fn family(self) -> Family {
                // One entry per operation (`$variant` only sets the repetition).
                const FAMILIES: &[Family] =
                    &[$($({ let _ = stringify!($variant); Family::$family },)*)*];
                FAMILIES[self as usize]
            }

            /// The role of each source, by position; empty for operations whose sources are
            /// plain values (arithmetic, control flow).
            #[inline]
            pub const fn roles(self) -> &'static [Role] {
                match self {
                    $($(Op::$variant => &[$($(Role::$role),*)?],)*)*
                }
            }
        }
    };
}

ops! {
    Float(FloatOp) {
        Add "add" (1 -> 2); Mul "mul" (1 -> 2); Mad "mad" (1 -> 3); Div "div" (1 -> 2);
        Min "min" (1 -> 2); Max "max" (1 -> 2);
        Dp2 "dp2" (1 -> 2); Dp3 "dp3" (1 -> 2); Dp4 "dp4" (1 -> 2);
        Eq "eq" (1 -> 2); Ne "ne" (1 -> 2); Lt "lt" (1 -> 2); Ge "ge" (1 -> 2);
        Exp "exp" (1 -> 1); Log "log" (1 -> 1); Frc "frc" (1 -> 1); Sqrt "sqrt" (1 -> 1);
        Rsq "rsq" (1 -> 1); Rcp "rcp" (1 -> 1);
        RoundNe "round_ne" (1 -> 1); RoundNi "round_ni" (1 -> 1); RoundPi "round_pi" (1 -> 1);
        RoundZ "round_z" (1 -> 1);
        Sincos "sincos" (2 -> 1);
        Ftoi "ftoi" (1 -> 1); Ftou "ftou" (1 -> 1); Itof "itof" (1 -> 1); Utof "utof" (1 -> 1);
        F32tof16 "f32tof16" (1 -> 1); F16tof32 "f16tof32" (1 -> 1);
    }
    Derivative(DerivativeOp) {
        DerivRtx "deriv_rtx" (1 -> 1); DerivRty "deriv_rty" (1 -> 1);
        DerivRtxCoarse "deriv_rtx_coarse" (1 -> 1); DerivRtxFine "deriv_rtx_fine" (1 -> 1);
        DerivRtyCoarse "deriv_rty_coarse" (1 -> 1); DerivRtyFine "deriv_rty_fine" (1 -> 1);
    }
    Move(MoveOp) {
        Mov "mov" (1 -> 1); Movc "movc" (1 -> 3); Swapc "swapc" (2 -> 3);
    }
    Integer(IntegerOp) {
        Iadd "iadd" (1 -> 2); Ineg "ineg" (1 -> 1); Imul "imul" (2 -> 2); Umul "umul" (2 -> 2);
        Imad "imad" (1 -> 3); Umad "umad" (1 -> 3); Udiv "udiv" (2 -> 2);
        Ishl "ishl" (1 -> 2); Ishr "ishr" (1 -> 2); Ushr "ushr" (1 -> 2);
        And "and" (1 -> 2); Or "or" (1 -> 2); Xor "xor" (1 -> 2); Not "not" (1 -> 1);
        Imin "imin" (1 -> 2); Imax "imax" (1 -> 2); Umin "umin" (1 -> 2); Umax "umax" (1 -> 2);
        Ieq "ieq" (1 -> 2); Ine "ine" (1 -> 2); Ilt "ilt" (1 -> 2); Ige "ige" (1 -> 2);
        Ult "ult" (1 -> 2); Uge "uge" (1 -> 2);
        Uaddc "uaddc" (2 -> 2); Usubb "usubb" (2 -> 2);
    }
    Bits(BitsOp) {
        Countbits "countbits" (1 -> 1); FirstbitHi "firstbit_hi" (1 -> 1);
        FirstbitLo "firstbit_lo" (1 -> 1); FirstbitShi "firstbit_shi" (1 -> 1);
        Ubfe "ubfe" (1 -> 3); Ibfe "ibfe" (1 -> 3); Bfi "bfi" (1 -> 4); Bfrev "bfrev" (1 -> 1);
        Msad "msad" (1 -> 3);
    }
    Double(DoubleOp) {
        Dadd "dadd" (1 -> 2); Dmul "dmul" (1 -> 2); Dmin "dmin" (1 -> 2); Dmax "dmax" (1 -> 2);
        Ddiv "ddiv" (1 -> 2); Dfma "dfma" (1 -> 3); Drcp "drcp" (1 -> 1);
        Deq "deq" (1 -> 2); Dne "dne" (1 -> 2); Dlt "dlt" (1 -> 2); Dge "dge" (1 -> 2);
        Dmov "dmov" (1 -> 1); Dmovc "dmovc" (1 -> 3);
        Dtof "dtof" (1 -> 1); Ftod "ftod" (1 -> 1); Dtoi "dtoi" (1 -> 1); Dtou "dtou" (1 -> 1);
        Itod "itod" (1 -> 1); Utod "utod" (1 -> 1);
    }
    Legacy(LegacyOp) {
        // `a × b` per component, where `0 × x = 0` for every x (inf and NaN included).
        MulLegacy "mul_legacy" (1 -> 2);
        // `a × b + c` with the legacy multiply.
        MadLegacy "mad_legacy" (1 -> 3);
        // `a.x × b.x + a.y × b.y + c.x` (the `c` component its swizzle selects first), legacy
        // multiply, the sum replicated.
        Dp2AddLegacy "dp2add_legacy" (1 -> 3);
        // Dot products over xyz / xyzw with the legacy multiply, the sum replicated.
        Dp3Legacy "dp3_legacy" (1 -> 2); Dp4Legacy "dp4_legacy" (1 -> 2);
        // `exp2(b × log2|a|)` with the legacy multiply (`pow(0, 0) = 1`).
        PowLegacy "pow_legacy" (1 -> 2);
        // `2^x` (full precision).
        ExpLegacy "exp_legacy" (1 -> 1);
        // `log2|x|`, with `log(0) = -FLT_MAX`.
        LogLegacy "log_legacy" (1 -> 1);
        // `1 / x` (`rcp(0) = +inf` strict, FLT_MAX fast).
        RcpLegacy "rcp_legacy" (1 -> 1);
        // `1 / sqrt|x|` (`rsq(0) = +inf` strict, FLT_MAX fast).
        RsqLegacy "rsq_legacy" (1 -> 1);
        // Every written component of `x` scaled by `rsq(dot3(x, x))` (legacy multiply).
        NrmLegacy "nrm_legacy" (1 -> 1);
        // `lit`: (1, max(x, 0), x > 0 && y > 0 ? pow(y, clamp(w, ±127.9961)) : 0, 1) from
        // (x, y, _, w).
        Lit "lit" (1 -> 1);
        // `dst`: (1, a.y × b.y, a.z, b.w) with the legacy multiply.
        DistVec "dst" (1 -> 2);
        // SM1 `expp`: (2^floor(x), x − floor(x), 2^x, 1) of the scalar x.
        ExppSm1 "expp_sm1" (1 -> 1);
        // SM1 `logp`: (exponent of |x|, mantissa of |x| in [1, 2), log2|x|, 1), `log(0)` as in
        // `log_legacy`.
        LogpSm1 "logp_sm1" (1 -> 1);
    }
    ControlFlow(ControlFlowOp) {
        If "if" (0 -> 1); Else "else" (0 -> 0); EndIf "endif" (0 -> 0);
        Loop "loop" (0 -> 0); EndLoop "endloop" (0 -> 0);
        Break "break" (0 -> 0); Breakc "breakc" (0 -> 1);
        Continue "continue" (0 -> 0); Continuec "continuec" (0 -> 1);
        Switch "switch" (0 -> 1); Case "case" (0 -> 1); Default "default" (0 -> 0);
        EndSwitch "endswitch" (0 -> 0);
        Ret "ret" (0 -> 0); Retc "retc" (0 -> 1); Call "call" (0 -> 1); Callc "callc" (0 -> 2);
        Nop "nop" (0 -> 0);
    }
    Discard(DiscardOp) {
        Discard "discard" (0 -> 1);
    }
    Buffer(BufferOp) {
        LdRaw "ld_raw" (1 -> 2) [Address, Resource];
        LdStructured "ld_structured" (1 -> 3) [Address, StructOffset, Resource];
        StoreRaw "store_raw" (1 -> 2) [Address, Value];
        StoreStructured "store_structured" (1 -> 3) [Address, StructOffset, Value];
        LdUavTyped "ld_uav_typed" (1 -> 2) [Address, Resource];
        StoreUavTyped "store_uav_typed" (1 -> 2) [Address, Value];
        Bufinfo "bufinfo" (1 -> 1) [Resource];
    }
    Atomic(AtomicOp) {
        AtomicAnd "atomic_and" (1 -> 2) [Address, Value];
        AtomicOr "atomic_or" (1 -> 2) [Address, Value];
        AtomicXor "atomic_xor" (1 -> 2) [Address, Value];
        AtomicCmpStore "atomic_cmp_store" (1 -> 3) [Address, Compare, Value];
        AtomicIadd "atomic_iadd" (1 -> 2) [Address, Value];
        AtomicImax "atomic_imax" (1 -> 2) [Address, Value];
        AtomicImin "atomic_imin" (1 -> 2) [Address, Value];
        AtomicUmax "atomic_umax" (1 -> 2) [Address, Value];
        AtomicUmin "atomic_umin" (1 -> 2) [Address, Value];
        ImmAtomicAlloc "imm_atomic_alloc" (1 -> 1) [Resource];
        ImmAtomicConsume "imm_atomic_consume" (1 -> 1) [Resource];
        ImmAtomicIadd "imm_atomic_iadd" (1 -> 3) [Resource, Address, Value];
        ImmAtomicAnd "imm_atomic_and" (1 -> 3) [Resource, Address, Value];
        ImmAtomicOr "imm_atomic_or" (1 -> 3) [Resource, Address, Value];
        ImmAtomicXor "imm_atomic_xor" (1 -> 3) [Resource, Address, Value];
        ImmAtomicExch "imm_atomic_exch" (1 -> 3) [Resource, Address, Value];
        ImmAtomicCmpExch "imm_atomic_cmp_exch" (1 -> 4) [Resource, Address, Compare, Value];
        ImmAtomicImax "imm_atomic_imax" (1 -> 3) [Resource, Address, Value];
        ImmAtomicImin "imm_atomic_imin" (1 -> 3) [Resource, Address, Value];
        ImmAtomicUmax "imm_atomic_umax" (1 -> 3) [Resource, Address, Value];
        ImmAtomicUmin "imm_atomic_umin" (1 -> 3) [Resource, Address, Value];
    }
    Sync(SyncOp) {
        Sync "sync" (0 -> 0);
    }
    TextureLoad(TextureLoadOp) {
        Ld "ld" (1 -> 2) [Address, Resource];
        LdMs "ldms" (1 -> 3) [Address, Resource, SampleIndex];
    }
    Sample(SampleOp) {
        Sample "sample" (1 -> 3) [Address, Resource, Sampler];
        SampleB "sample_b" (1 -> 4) [Address, Resource, Sampler, Bias];
        SampleL "sample_l" (1 -> 4) [Address, Resource, Sampler, Lod];
        SampleD "sample_d" (1 -> 5) [Address, Resource, Sampler, GradientX, GradientY];
        SampleC "sample_c" (1 -> 4) [Address, Resource, Sampler, Reference];
        SampleCLz "sample_c_lz" (1 -> 4) [Address, Resource, Sampler, Reference];
    }
    Gather(GatherOp) {
        Gather4 "gather4" (1 -> 3) [Address, Resource, Sampler];
        Gather4C "gather4_c" (1 -> 4) [Address, Resource, Sampler, Reference];
        Gather4Po "gather4_po" (1 -> 4) [Address, Offset, Resource, Sampler];
        Gather4PoC "gather4_po_c" (1 -> 5) [Address, Offset, Resource, Sampler, Reference];
    }
    Query(QueryOp) {
        Resinfo "resinfo" (1 -> 2) [Lod, Resource];
        Lod "lod" (1 -> 3) [Address, Resource, Sampler];
        SampleInfo "sampleinfo" (1 -> 1) [Resource];
        SamplePos "samplepos" (1 -> 2) [Resource, SampleIndex];
    }
    Interpolation(InterpolationOp) {
        EvalSnapped "eval_snapped" (1 -> 2) [Attribute, Offset];
        EvalSampleIndex "eval_sample_index" (1 -> 2) [Attribute, SampleIndex];
        EvalCentroid "eval_centroid" (1 -> 1) [Attribute];
    }
    Sparse(SparseOp) {
        SampleLS "sample_l_s" (2 -> 4) [Address, Resource, Sampler, Lod];
        SampleCLzS "sample_c_lz_s" (2 -> 4) [Address, Resource, Sampler, Reference];
        SampleClS "sample_cl_s" (2 -> 4) [Address, Resource, Sampler, Clamp];
        SampleBClS "sample_b_cl_s" (2 -> 5) [Address, Resource, Sampler, Bias, Clamp];
        SampleDClS "sample_d_cl_s" (2 -> 6)
            [Address, Resource, Sampler, GradientX, GradientY, Clamp];
        SampleCClS "sample_c_cl_s" (2 -> 5) [Address, Resource, Sampler, Reference, Clamp];
        LdS "ld_s" (2 -> 2) [Address, Resource];
        LdMsS "ldms_s" (2 -> 3) [Address, Resource, SampleIndex];
        Gather4S "gather4_s" (2 -> 3) [Address, Resource, Sampler];
        Gather4CS "gather4_c_s" (2 -> 4) [Address, Resource, Sampler, Reference];
        Gather4PoS "gather4_po_s" (2 -> 4) [Address, Offset, Resource, Sampler];
        Gather4PoCS "gather4_po_c_s" (2 -> 5) [Address, Offset, Resource, Sampler, Reference];
        LdUavTypedS "ld_uav_typed_s" (2 -> 2) [Address, Resource];
        LdRawS "ld_raw_s" (2 -> 2) [Address, Resource];
        LdStructuredS "ld_structured_s" (2 -> 3) [Address, StructOffset, Resource];
        CheckAccessFullyMapped "check_access_fully_mapped" (1 -> 1) [Status];
    }
    Geometry(GeometryOp) {
        Emit "emit" (0 -> 0); Cut "cut" (0 -> 0); EmitThenCut "emit_then_cut" (0 -> 0);
    }
}

impl Op {
    /// The position of the first source with `role`, if the operation has one.
    pub fn source(self, role: Role) -> Option<usize> {
        self.roles().iter().position(|&r| r == role)
    }

    /// The operation named `name` (its DXBC mnemonic), if there is one; usable in constants.
    pub const fn from_name(name: &str) -> Option<Op> {
        let mut i = 0;
        while i < Op::ALL.len() {
            let op = Op::ALL[i];
            if str_eq(op.name(), name) {
                return Some(op);
            }
            i += 1;
        }
        None
    }

    /// Control-flow operations: constructs, jumps, returns, calls and `nop`.
    #[inline]
    pub const fn is_control_flow(self) -> bool {
        matches!(self.family(), Family::ControlFlow)
    }

    /// Operations that open, split or close a structured control-flow construct.
    pub const fn is_block_delimiter(self) -> bool {
        matches!(
            self,
            Op::If
                | Op::Else
                | Op::EndIf
                | Op::Loop
                | Op::EndLoop
                | Op::Switch
                | Op::Case
                | Op::Default
                | Op::EndSwitch
        )
    }
}

/// Byte-wise string equality, usable in constants.
const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The condition of `if`, `breakc`, `continuec`, `retc`, `callc` and `discard`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Test {
    /// `_z`: taken when the value is zero (all 32 bits).
    Zero,
    /// `_nz`: taken when any bit is set.
    #[default]
    NonZero,
}

/// Per-instruction controls from the opcode token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct InstFlags {
    /// `_sat`: clamp float results to [0, 1] (NaN → 0).
    pub saturate: bool,
    /// `[precise]` component mask (bit 0 = x); the results must not be contracted or reassociated.
    pub precise: u8,
    /// Conditional test of control-flow instructions.
    pub test: Test,
    /// `sync` flags: bit 0 thread-group execution barrier (`_t`), bit 1 TGSM (`_g`), bit 2 UAV
    /// memory of the group (`_ug`), bit 3 UAV memory globally (`_uglobal`).
    pub sync: u8,
}

/// What `resinfo` returns (its `_rcpFloat`/`_uint` suffix).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ResinfoReturn {
    /// Float sizes.
    #[default]
    Float,
    /// `_rcpFloat`: reciprocal float sizes.
    RcpFloat,
    /// `_uint`: integer sizes.
    Uint,
    /// The reserved encoding (3), which the back end refuses.
    Reserved,
}

/// What `sampleinfo` returns (its `_uint` suffix).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SampleinfoReturn {
    /// A float count.
    #[default]
    Float,
    /// `_uint`: an integer count.
    Uint,
}

/// The index of a [`SwitchTable`](super::SwitchTable) in
/// [`Module::switches`](super::Module::switches).
///
/// Kept as four bytes of alignment 1 so that [`Payload`] packs into five bytes and an
/// [`Inst`] stays at 272.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SwitchId([u8; 4]);

impl SwitchId {
    /// The id of table `index`.
    pub const fn new(index: u32) -> SwitchId {
        SwitchId(index.to_le_bytes())
    }

    /// The table's index.
    pub const fn index(self) -> usize {
        u32::from_le_bytes(self.0) as usize
    }
}

impl std::fmt::Display for SwitchId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        u32::from_le_bytes(self.0).fmt(f)
    }
}

/// Operation-specific data an [`Inst`] carries besides its operands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Payload {
    /// Nothing.
    #[default]
    None,
    /// `switch`: its case table.
    Switch(SwitchId),
    /// Texture operations (their `_s` forms included): the immediate texel offsets `(u, v, w)`,
    /// each in -8..=7.
    TexelOffsets([i8; 3]),
    /// `resinfo`: the return type.
    Resinfo(ResinfoReturn),
    /// `sampleinfo`: the return type.
    Sampleinfo(SampleinfoReturn),
    /// `emit`, `cut`, `emit_then_cut`: the stream (0 without a stream operand).
    Stream(u8),
}

impl Payload {
    /// The immediate texel offsets (zeros when there are none).
    #[inline]
    pub fn texel_offsets(self) -> [i8; 3] {
        match self {
            Payload::TexelOffsets(offsets) => offsets,
            _ => [0; 3],
        }
    }

    /// The switch table, if this is a `switch`'s payload.
    #[inline]
    pub fn switch(self) -> Option<SwitchId> {
        match self {
            Payload::Switch(id) => Some(id),
            _ => None,
        }
    }

    /// The stream of a geometry operation (0 when none).
    #[inline]
    pub fn stream(self) -> u8 {
        match self {
            Payload::Stream(stream) => stream,
            _ => 0,
        }
    }
}

/// Largest number of destinations an instruction has.
pub const MAX_DST: usize = 2;
/// Largest number of sources an instruction has (`sample_d_cl_s`: address, resource, sampler,
/// two gradients and the LOD clamp).
pub const MAX_SRC: usize = 6;

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inst {
    /// The operation.
    pub op: Op,
    /// Byte offset of the DXBC instruction in the input.
    pub span: u32,
    /// Controls.
    pub flags: InstFlags,
    /// Operation-specific data (see [`Payload`]).
    pub payload: Payload,
    dst: [Dst; MAX_DST],
    src: [Src; MAX_SRC],
    dst_count: u8,
    src_count: u8,
}

impl Inst {
    /// An instruction with no operands.
    pub fn new(op: Op, span: u32) -> Inst {
        Inst {
            op,
            span,
            flags: InstFlags::default(),
            payload: Payload::None,
            dst: [Dst::default(); MAX_DST],
            src: [Src::default(); MAX_SRC],
            dst_count: 0,
            src_count: 0,
        }
    }

    /// Appends a destination; returns `false` (and changes nothing) when all slots are used.
    pub fn push_dst(&mut self, dst: Dst) -> bool {
        match self.dst.get_mut(self.dst_count as usize) {
            Some(slot) => {
                *slot = dst;
                self.dst_count += 1;
                true
            }
            None => false,
        }
    }

    /// Appends a source; returns `false` (and changes nothing) when all slots are used.
    pub fn push_src(&mut self, src: Src) -> bool {
        match self.src.get_mut(self.src_count as usize) {
            Some(slot) => {
                *slot = src;
                self.src_count += 1;
                true
            }
            None => false,
        }
    }

    /// Appends a default destination and returns it, to be filled in place; `None` (and
    /// nothing changed) when all slots are used.
    #[inline]
    pub fn next_dst(&mut self) -> Option<&mut Dst> {
        let slot = self.dst.get_mut(self.dst_count as usize)?;
        self.dst_count += 1;
        Some(slot)
    }

    /// Appends a default source and returns it, to be filled in place; `None` (and nothing
    /// changed) when all slots are used.
    #[inline]
    pub fn next_src(&mut self) -> Option<&mut Src> {
        let slot = self.src.get_mut(self.src_count as usize)?;
        self.src_count += 1;
        Some(slot)
    }

    /// The destinations.
    pub fn dst(&self) -> &[Dst] {
        &self.dst[..self.dst_count as usize]
    }

    /// The sources.
    pub fn src(&self) -> &[Src] {
        &self.src[..self.src_count as usize]
    }

    /// The destinations, mutable (for passes).
    pub fn dst_mut(&mut self) -> &mut [Dst] {
        &mut self.dst[..self.dst_count as usize]
    }

    /// The sources, mutable (for passes).
    pub fn src_mut(&mut self) -> &mut [Src] {
        &mut self.src[..self.src_count as usize]
    }
}
