//! IR operations and instructions.
//!
//! Each [`Op`] is one executable DXBC operation with the same operand order as DXBC: destinations
//! first, then sources, resource operands in place (`ld_raw r0.xy, r1.x, t0.xxxx` has one
//! destination and two sources, the second a [`Reg::Resource`](super::Reg::Resource)). Stores
//! and atomics without a returned value have the resource as their destination. The tiled-resource
//! (`_s`) variants have the status as a second destination (`ld_s r0, r1.x, r2, t0` → dst
//! `r0`, `r1.x`); `check_access_fully_mapped` reads such a status.

use super::operand::{Dst, Src};

macro_rules! ops {
    ($($variant:ident $name:literal;)*) => {
        /// An IR operation (see the module docs for the operand convention).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl Op {
            /// Every operation, in declaration order.
            pub const ALL: &'static [Op] = &[$(Op::$variant,)*];

            /// The DXBC mnemonic (without `_sat`, test or other suffixes).
            pub fn name(self) -> &'static str {
                match self {
                    $(Op::$variant => $name,)*
                }
            }
        }
    };
}

ops! {
    // Float ALU.
    Add "add"; Mul "mul"; Mad "mad"; Div "div"; Min "min"; Max "max";
    Dp2 "dp2"; Dp3 "dp3"; Dp4 "dp4";
    Eq "eq"; Ne "ne"; Lt "lt"; Ge "ge";
    Exp "exp"; Log "log"; Frc "frc"; Sqrt "sqrt"; Rsq "rsq"; Rcp "rcp";
    RoundNe "round_ne"; RoundNi "round_ni"; RoundPi "round_pi"; RoundZ "round_z";
    Sincos "sincos";
    Ftoi "ftoi"; Ftou "ftou"; Itof "itof"; Utof "utof";
    F32tof16 "f32tof16"; F16tof32 "f16tof32";
    DerivRtx "deriv_rtx"; DerivRty "deriv_rty";
    DerivRtxCoarse "deriv_rtx_coarse"; DerivRtxFine "deriv_rtx_fine";
    DerivRtyCoarse "deriv_rty_coarse"; DerivRtyFine "deriv_rty_fine";
    // Moves and selects (untyped).
    Mov "mov"; Movc "movc"; Swapc "swapc";
    // Integer ALU.
    Iadd "iadd"; Ineg "ineg"; Imul "imul"; Umul "umul"; Imad "imad"; Umad "umad"; Udiv "udiv";
    Ishl "ishl"; Ishr "ishr"; Ushr "ushr";
    And "and"; Or "or"; Xor "xor"; Not "not";
    Imin "imin"; Imax "imax"; Umin "umin"; Umax "umax";
    Ieq "ieq"; Ine "ine"; Ilt "ilt"; Ige "ige"; Ult "ult"; Uge "uge";
    Countbits "countbits"; FirstbitHi "firstbit_hi"; FirstbitLo "firstbit_lo";
    FirstbitShi "firstbit_shi";
    Ubfe "ubfe"; Ibfe "ibfe"; Bfi "bfi"; Bfrev "bfrev";
    Uaddc "uaddc"; Usubb "usubb"; Msad "msad";
    // Double ALU.
    Dadd "dadd"; Dmul "dmul"; Dmin "dmin"; Dmax "dmax"; Ddiv "ddiv"; Dfma "dfma"; Drcp "drcp";
    Deq "deq"; Dne "dne"; Dlt "dlt"; Dge "dge";
    Dmov "dmov"; Dmovc "dmovc";
    Dtof "dtof"; Ftod "ftod"; Dtoi "dtoi"; Dtou "dtou"; Itod "itod"; Utod "utod";
    // Control flow.
    If "if"; Else "else"; EndIf "endif";
    Loop "loop"; EndLoop "endloop";
    Break "break"; Breakc "breakc"; Continue "continue"; Continuec "continuec";
    Switch "switch"; Case "case"; Default "default"; EndSwitch "endswitch";
    Ret "ret"; Retc "retc"; Call "call"; Callc "callc";
    Discard "discard"; Nop "nop";
    // Buffers and shared memory.
    LdRaw "ld_raw"; LdStructured "ld_structured"; StoreRaw "store_raw";
    StoreStructured "store_structured"; LdUavTyped "ld_uav_typed";
    StoreUavTyped "store_uav_typed"; Bufinfo "bufinfo";
    // Atomics.
    AtomicAnd "atomic_and"; AtomicOr "atomic_or"; AtomicXor "atomic_xor";
    AtomicCmpStore "atomic_cmp_store"; AtomicIadd "atomic_iadd";
    AtomicImax "atomic_imax"; AtomicImin "atomic_imin";
    AtomicUmax "atomic_umax"; AtomicUmin "atomic_umin";
    ImmAtomicAlloc "imm_atomic_alloc"; ImmAtomicConsume "imm_atomic_consume";
    ImmAtomicIadd "imm_atomic_iadd"; ImmAtomicAnd "imm_atomic_and";
    ImmAtomicOr "imm_atomic_or"; ImmAtomicXor "imm_atomic_xor";
    ImmAtomicExch "imm_atomic_exch"; ImmAtomicCmpExch "imm_atomic_cmp_exch";
    ImmAtomicImax "imm_atomic_imax"; ImmAtomicImin "imm_atomic_imin";
    ImmAtomicUmax "imm_atomic_umax"; ImmAtomicUmin "imm_atomic_umin";
    Sync "sync";
    // Textures.
    Ld "ld"; LdMs "ldms"; Sample "sample"; SampleB "sample_b"; SampleL "sample_l";
    SampleD "sample_d"; SampleC "sample_c"; SampleCLz "sample_c_lz";
    Gather4 "gather4"; Gather4C "gather4_c"; Gather4Po "gather4_po"; Gather4PoC "gather4_po_c";
    Resinfo "resinfo"; Lod "lod"; SampleInfo "sampleinfo"; SamplePos "samplepos";
    EvalSnapped "eval_snapped"; EvalSampleIndex "eval_sample_index";
    EvalCentroid "eval_centroid";
    // Tiled-resource (sparse) variants: a second destination receives the access status.
    SampleLS "sample_l_s"; SampleCLzS "sample_c_lz_s"; SampleClS "sample_cl_s";
    SampleBClS "sample_b_cl_s"; SampleDClS "sample_d_cl_s"; SampleCClS "sample_c_cl_s";
    LdS "ld_s"; LdMsS "ldms_s";
    Gather4S "gather4_s"; Gather4CS "gather4_c_s"; Gather4PoS "gather4_po_s";
    Gather4PoCS "gather4_po_c_s";
    LdUavTypedS "ld_uav_typed_s"; LdRawS "ld_raw_s"; LdStructuredS "ld_structured_s";
    CheckAccessFullyMapped "check_access_fully_mapped";
    // Geometry.
    Emit "emit"; Cut "cut"; EmitThenCut "emit_then_cut";
}

impl Op {
    /// The operand counts `(destinations, sources)` every instruction of this operation has.
    pub fn arity(self) -> (usize, usize) {
        use Op::*;
        match self {
            Nop | Else | EndIf | Loop | EndLoop | Break | Continue | Default | EndSwitch | Ret
            | Emit | Cut | EmitThenCut => (0, 0),
            If | Breakc | Continuec | Switch | Case | Retc | Call | Discard => (0, 1),
            Callc => (0, 2),
            Sync => (0, 0),
            Sincos => (2, 1),
            Udiv | Imul | Umul | Uaddc | Usubb => (2, 2),
            Swapc => (2, 3),
            Mad | Imad | Umad | Movc | Dmovc | Dfma | Ubfe | Ibfe | Msad => (1, 3),
            Bfi => (1, 4),
            Add | Mul | Div | Min | Max | Dp2 | Dp3 | Dp4 | Eq | Ne | Lt | Ge | Iadd | Ishl
            | Ishr | Ushr | And | Or | Xor | Imin | Imax | Umin | Umax | Ieq | Ine | Ilt | Ige
            | Ult | Uge | Dadd | Dmul | Dmin | Dmax | Ddiv | Deq | Dne | Dlt | Dge => (1, 2),
            Exp | Log | Frc | Sqrt | Rsq | Rcp | RoundNe | RoundNi | RoundPi | RoundZ | Ftoi
            | Ftou | Itof | Utof | F32tof16 | F16tof32 | DerivRtx | DerivRty | DerivRtxCoarse
            | DerivRtxFine | DerivRtyCoarse | DerivRtyFine | Mov | Ineg | Not | Countbits
            | FirstbitHi | FirstbitLo | FirstbitShi | Bfrev | Drcp | Dmov | Dtof | Ftod | Dtoi
            | Dtou | Itod | Utod => (1, 1),
            LdRaw => (1, 2),
            LdStructured => (1, 3),
            StoreRaw => (1, 2),
            StoreStructured => (1, 3),
            LdUavTyped => (1, 2),
            StoreUavTyped => (1, 2),
            Bufinfo => (1, 1),
            AtomicAnd | AtomicOr | AtomicXor | AtomicIadd | AtomicImax | AtomicImin
            | AtomicUmax | AtomicUmin => (1, 2),
            AtomicCmpStore => (1, 3),
            ImmAtomicAlloc | ImmAtomicConsume => (1, 1),
            ImmAtomicIadd | ImmAtomicAnd | ImmAtomicOr | ImmAtomicXor | ImmAtomicExch
            | ImmAtomicImax | ImmAtomicImin | ImmAtomicUmax | ImmAtomicUmin => (1, 3),
            ImmAtomicCmpExch => (1, 4),
            Ld => (1, 2),
            LdMs => (1, 3),
            Sample => (1, 3),
            SampleB | SampleL | SampleC | SampleCLz => (1, 4),
            SampleD => (1, 5),
            Gather4 => (1, 3),
            Gather4C | Gather4Po => (1, 4),
            Gather4PoC => (1, 5),
            Resinfo => (1, 2),
            Lod => (1, 3),
            SampleInfo => (1, 1),
            SamplePos => (1, 2),
            EvalSnapped | EvalSampleIndex => (1, 2),
            EvalCentroid => (1, 1),
            LdS | LdUavTypedS | LdRawS => (2, 2),
            LdMsS | LdStructuredS | Gather4S => (2, 3),
            SampleLS | SampleCLzS | SampleClS | Gather4CS | Gather4PoS => (2, 4),
            SampleBClS | SampleCClS | Gather4PoCS => (2, 5),
            SampleDClS => (2, 6),
            CheckAccessFullyMapped => (1, 1),
        }
    }

    /// Control-flow operations: constructs, jumps, returns and calls.
    pub fn is_control_flow(self) -> bool {
        matches!(
            self,
            Op::If
                | Op::Else
                | Op::EndIf
                | Op::Loop
                | Op::EndLoop
                | Op::Break
                | Op::Breakc
                | Op::Continue
                | Op::Continuec
                | Op::Switch
                | Op::Case
                | Op::Default
                | Op::EndSwitch
                | Op::Ret
                | Op::Retc
                | Op::Call
                | Op::Callc
                | Op::Nop
        )
    }

    /// Operations that open, split or close a structured control-flow construct.
    pub fn is_block_delimiter(self) -> bool {
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
    /// Extra operation-specific data: the switch table of `switch`; the texel offsets
    /// (`(u,v,w)` 4-bit signed, packed `u | v << 4 | w << 8`) of texture operations, their
    /// `_s` variants included; the return type of `resinfo` (0 float, 1 `_rcpFloat`, 2 `_uint`) and `sampleinfo`
    /// (0 float, 1 `_uint`); the stream of `emit`, `cut` and `emit_then_cut`.
    pub aux: u32,
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
            aux: 0,
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
