//! THE opcode table: the single definition of every SM4.0–5.1 opcode.
//!
//! Each row gives the opcode number (from the D3D10/11/12 tokenized program format), the enum
//! variant, fxc's mnemonic, the instruction class and the operand layout that follows the opcode
//! token(s). Rows are keyed by number, never by position. The decoder, the disassembler and the
//! assembler all derive from this table; adding an opcode is one row here.

/// One slot of an instruction's operand layout, in token order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A destination operand.
    Dst,
    /// A source operand.
    Src,
    /// A plain 32-bit immediate dword (count, index, stride...).
    Imm,
    /// A 32-bit float immediate dword.
    Float,
    /// A resource return type token (four 4-bit component types).
    ReturnType,
    /// A system-value name token.
    Name,
    /// SM5.1 only: a constant buffer size dword (absent before 5.1).
    CbSize,
    /// SM5.1 only: a register space dword (absent before 5.1).
    Space,
    /// The rest of the instruction as a list of dwords (function tables, interfaces).
    List,
}

/// The type an instruction interprets its operands as; guides immediate formatting and lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumType {
    /// No numeric interpretation (moves, memory, declarations).
    Untyped,
    /// 32-bit float.
    Float,
    /// 32-bit signed integer.
    Int,
    /// 32-bit unsigned integer (and bit patterns).
    Uint,
    /// 64-bit float in pairs of components.
    Double,
}

/// Broad instruction families, used to dispatch decoding of irregular declarations and lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Arithmetic, logic, comparisons and conversions.
    Alu,
    /// Structured control flow and subroutines.
    ControlFlow,
    /// A declaration (`dcl_*`), including hull-shader phase markers.
    Declaration,
    /// A custom data block (`customdata`, immediate constant buffers).
    CustomData,
    /// Texture sampling, fetch, gather and queries.
    Texture,
    /// Raw, structured and typed buffer/UAV loads and stores, TGSM.
    Memory,
    /// Atomic operations on UAVs and TGSM.
    Atomic,
    /// Pixel-shader specific operations (discard, derivatives, evaluate, sample info).
    Pixel,
    /// Geometry-shader stream operations.
    Geometry,
    /// Barriers and no-ops.
    Sync,
}

macro_rules! define_opcodes {
    ($( $num:literal $variant:ident $name:literal $class:ident $ty:ident [$($slot:ident),*]; )*) => {
        /// Every opcode of SM4.0–5.1, numbered as in the tokenized program format.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant = $num,
            )*
        }

        impl Opcode {
            /// Every opcode, in numeric order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The opcode with this number, if it is defined.
            pub fn from_u32(value: u32) -> Option<Opcode> {
                match value {
                    $($num => Some(Opcode::$variant),)*
                    _ => None,
                }
            }

            /// fxc's mnemonic, without suffixes.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $name,)*
                }
            }

            /// The instruction family.
            #[inline]
            pub fn class(self) -> Class {
                match self {
                    $(Opcode::$variant => Class::$class,)*
                }
            }

            /// How the instruction interprets its operands.
            #[inline]
            pub fn num_type(self) -> NumType {
                match self {
                    $(Opcode::$variant => NumType::$ty,)*
                }
            }

            /// The operand layout following the opcode token(s).
            #[inline]
            pub fn slots(self) -> &'static [Slot] {
                match self {
                    $(Opcode::$variant => &[$(Slot::$slot),*],)*
                }
            }
        }
    };
}

define_opcodes! {
    0x00 Add "add" Alu Float [Dst, Src, Src];
    0x01 And "and" Alu Uint [Dst, Src, Src];
    0x02 Break "break" ControlFlow Untyped [];
    0x03 Breakc "breakc" ControlFlow Uint [Src];
    0x04 Call "call" ControlFlow Untyped [Src];
    0x05 Callc "callc" ControlFlow Uint [Src, Src];
    0x06 Case "case" ControlFlow Int [Src];
    0x07 Continue "continue" ControlFlow Untyped [];
    0x08 Continuec "continuec" ControlFlow Uint [Src];
    0x09 Cut "cut" Geometry Untyped [];
    0x0a Default "default" ControlFlow Untyped [];
    0x0b DerivRtx "deriv_rtx" Pixel Float [Dst, Src];
    0x0c DerivRty "deriv_rty" Pixel Float [Dst, Src];
    0x0d Discard "discard" Pixel Uint [Src];
    0x0e Div "div" Alu Float [Dst, Src, Src];
    0x0f Dp2 "dp2" Alu Float [Dst, Src, Src];
    0x10 Dp3 "dp3" Alu Float [Dst, Src, Src];
    0x11 Dp4 "dp4" Alu Float [Dst, Src, Src];
    0x12 Else "else" ControlFlow Untyped [];
    0x13 Emit "emit" Geometry Untyped [];
    0x14 EmitThenCut "emit_then_cut" Geometry Untyped [];
    0x15 EndIf "endif" ControlFlow Untyped [];
    0x16 EndLoop "endloop" ControlFlow Untyped [];
    0x17 EndSwitch "endswitch" ControlFlow Untyped [];
    0x18 Eq "eq" Alu Float [Dst, Src, Src];
    0x19 Exp "exp" Alu Float [Dst, Src];
    0x1a Frc "frc" Alu Float [Dst, Src];
    0x1b Ftoi "ftoi" Alu Float [Dst, Src];
    0x1c Ftou "ftou" Alu Float [Dst, Src];
    0x1d Ge "ge" Alu Float [Dst, Src, Src];
    0x1e Iadd "iadd" Alu Int [Dst, Src, Src];
    0x1f If "if" ControlFlow Uint [Src];
    0x20 Ieq "ieq" Alu Int [Dst, Src, Src];
    0x21 Ige "ige" Alu Int [Dst, Src, Src];
    0x22 Ilt "ilt" Alu Int [Dst, Src, Src];
    0x23 Imad "imad" Alu Int [Dst, Src, Src, Src];
    0x24 Imax "imax" Alu Int [Dst, Src, Src];
    0x25 Imin "imin" Alu Int [Dst, Src, Src];
    0x26 Imul "imul" Alu Int [Dst, Dst, Src, Src];
    0x27 Ine "ine" Alu Int [Dst, Src, Src];
    0x28 Ineg "ineg" Alu Int [Dst, Src];
    0x29 Ishl "ishl" Alu Int [Dst, Src, Src];
    0x2a Ishr "ishr" Alu Int [Dst, Src, Src];
    0x2b Itof "itof" Alu Int [Dst, Src];
    0x2c Label "label" ControlFlow Untyped [Src];
    0x2d Ld "ld" Texture Untyped [Dst, Src, Src];
    0x2e LdMs "ldms" Texture Untyped [Dst, Src, Src, Src];
    0x2f Log "log" Alu Float [Dst, Src];
    0x30 Loop "loop" ControlFlow Untyped [];
    0x31 Lt "lt" Alu Float [Dst, Src, Src];
    0x32 Mad "mad" Alu Float [Dst, Src, Src, Src];
    0x33 Min "min" Alu Float [Dst, Src, Src];
    0x34 Max "max" Alu Float [Dst, Src, Src];
    0x35 CustomData "customdata" CustomData Untyped [];
    0x36 Mov "mov" Alu Untyped [Dst, Src];
    0x37 Movc "movc" Alu Untyped [Dst, Src, Src, Src];
    0x38 Mul "mul" Alu Float [Dst, Src, Src];
    0x39 Ne "ne" Alu Float [Dst, Src, Src];
    0x3a Nop "nop" Sync Untyped [];
    0x3b Not "not" Alu Uint [Dst, Src];
    0x3c Or "or" Alu Uint [Dst, Src, Src];
    0x3d Resinfo "resinfo" Texture Untyped [Dst, Src, Src];
    0x3e Ret "ret" ControlFlow Untyped [];
    0x3f Retc "retc" ControlFlow Uint [Src];
    0x40 RoundNe "round_ne" Alu Float [Dst, Src];
    0x41 RoundNi "round_ni" Alu Float [Dst, Src];
    0x42 RoundPi "round_pi" Alu Float [Dst, Src];
    0x43 RoundZ "round_z" Alu Float [Dst, Src];
    0x44 Rsq "rsq" Alu Float [Dst, Src];
    0x45 Sample "sample" Texture Float [Dst, Src, Src, Src];
    0x46 SampleC "sample_c" Texture Float [Dst, Src, Src, Src, Src];
    0x47 SampleCLz "sample_c_lz" Texture Float [Dst, Src, Src, Src, Src];
    0x48 SampleL "sample_l" Texture Float [Dst, Src, Src, Src, Src];
    0x49 SampleD "sample_d" Texture Float [Dst, Src, Src, Src, Src, Src];
    0x4a SampleB "sample_b" Texture Float [Dst, Src, Src, Src, Src];
    0x4b Sqrt "sqrt" Alu Float [Dst, Src];
    0x4c Switch "switch" ControlFlow Int [Src];
    0x4d Sincos "sincos" Alu Float [Dst, Dst, Src];
    0x4e Udiv "udiv" Alu Uint [Dst, Dst, Src, Src];
    0x4f Ult "ult" Alu Uint [Dst, Src, Src];
    0x50 Uge "uge" Alu Uint [Dst, Src, Src];
    0x51 Umul "umul" Alu Uint [Dst, Dst, Src, Src];
    0x52 Umad "umad" Alu Uint [Dst, Src, Src, Src];
    0x53 Umax "umax" Alu Uint [Dst, Src, Src];
    0x54 Umin "umin" Alu Uint [Dst, Src, Src];
    0x55 Ushr "ushr" Alu Uint [Dst, Src, Src];
    0x56 Utof "utof" Alu Uint [Dst, Src];
    0x57 Xor "xor" Alu Uint [Dst, Src, Src];
    0x58 DclResource "dcl_resource" Declaration Untyped [Dst, ReturnType, Space];
    0x59 DclConstantBuffer "dcl_constantbuffer" Declaration Untyped [Src, CbSize, Space];
    0x5a DclSampler "dcl_sampler" Declaration Untyped [Dst, Space];
    0x5b DclIndexRange "dcl_indexrange" Declaration Untyped [Dst, Imm];
    0x5c DclOutputTopology "dcl_outputtopology" Declaration Untyped [];
    0x5d DclInputPrimitive "dcl_inputprimitive" Declaration Untyped [];
    0x5e DclMaxOutputVertexCount "dcl_maxout" Declaration Untyped [Imm];
    0x5f DclInput "dcl_input" Declaration Untyped [Dst];
    0x60 DclInputSgv "dcl_input_sgv" Declaration Untyped [Dst, Name];
    0x61 DclInputSiv "dcl_input_siv" Declaration Untyped [Dst, Name];
    0x62 DclInputPs "dcl_input_ps" Declaration Untyped [Dst];
    0x63 DclInputPsSgv "dcl_input_ps_sgv" Declaration Untyped [Dst, Name];
    0x64 DclInputPsSiv "dcl_input_ps_siv" Declaration Untyped [Dst, Name];
    0x65 DclOutput "dcl_output" Declaration Untyped [Dst];
    0x66 DclOutputSgv "dcl_output_sgv" Declaration Untyped [Dst, Name];
    0x67 DclOutputSiv "dcl_output_siv" Declaration Untyped [Dst, Name];
    0x68 DclTemps "dcl_temps" Declaration Untyped [Imm];
    0x69 DclIndexableTemp "dcl_indexableTemp" Declaration Untyped [Imm, Imm, Imm];
    0x6a DclGlobalFlags "dcl_globalFlags" Declaration Untyped [];
    0x6c Lod "lod" Texture Float [Dst, Src, Src, Src];
    0x6d Gather4 "gather4" Texture Float [Dst, Src, Src, Src];
    0x6e SamplePos "samplepos" Pixel Untyped [Dst, Src, Src];
    0x6f SampleInfo "sampleinfo" Pixel Untyped [Dst, Src];
    0x71 HsDecls "hs_decls" Declaration Untyped [];
    0x72 HsControlPointPhase "hs_control_point_phase" Declaration Untyped [];
    0x73 HsForkPhase "hs_fork_phase" Declaration Untyped [];
    0x74 HsJoinPhase "hs_join_phase" Declaration Untyped [];
    0x75 EmitStream "emit_stream" Geometry Untyped [Dst];
    0x76 CutStream "cut_stream" Geometry Untyped [Dst];
    0x77 EmitThenCutStream "emit_then_cut_stream" Geometry Untyped [Dst];
    0x78 InterfaceCall "fcall" ControlFlow Untyped [Imm, Src];
    0x79 Bufinfo "bufinfo" Memory Untyped [Dst, Src];
    0x7a DerivRtxCoarse "deriv_rtx_coarse" Pixel Float [Dst, Src];
    0x7b DerivRtxFine "deriv_rtx_fine" Pixel Float [Dst, Src];
    0x7c DerivRtyCoarse "deriv_rty_coarse" Pixel Float [Dst, Src];
    0x7d DerivRtyFine "deriv_rty_fine" Pixel Float [Dst, Src];
    0x7e Gather4C "gather4_c" Texture Float [Dst, Src, Src, Src, Src];
    0x7f Gather4Po "gather4_po" Texture Float [Dst, Src, Src, Src, Src];
    0x80 Gather4PoC "gather4_po_c" Texture Float [Dst, Src, Src, Src, Src, Src];
    0x81 Rcp "rcp" Alu Float [Dst, Src];
    0x82 F32tof16 "f32tof16" Alu Float [Dst, Src];
    0x83 F16tof32 "f16tof32" Alu Uint [Dst, Src];
    0x84 Uaddc "uaddc" Alu Uint [Dst, Dst, Src, Src];
    0x85 Usubb "usubb" Alu Uint [Dst, Dst, Src, Src];
    0x86 Countbits "countbits" Alu Uint [Dst, Src];
    0x87 FirstbitHi "firstbit_hi" Alu Uint [Dst, Src];
    0x88 FirstbitLo "firstbit_lo" Alu Uint [Dst, Src];
    0x89 FirstbitShi "firstbit_shi" Alu Int [Dst, Src];
    0x8a Ubfe "ubfe" Alu Uint [Dst, Src, Src, Src];
    0x8b Ibfe "ibfe" Alu Int [Dst, Src, Src, Src];
    0x8c Bfi "bfi" Alu Uint [Dst, Src, Src, Src, Src];
    0x8d Bfrev "bfrev" Alu Uint [Dst, Src];
    0x8e Swapc "swapc" Alu Untyped [Dst, Dst, Src, Src, Src];
    0x8f DclStream "dcl_stream" Declaration Untyped [Dst];
    0x90 DclFunctionBody "dcl_function_body" Declaration Untyped [Imm];
    0x91 DclFunctionTable "dcl_function_table" Declaration Untyped [Imm, Imm, List];
    0x92 DclInterface "dcl_interface" Declaration Untyped [Imm, Imm, Imm, List];
    0x93 DclInputControlPointCount "dcl_input_control_point_count" Declaration Untyped [];
    0x94 DclOutputControlPointCount "dcl_output_control_point_count" Declaration Untyped [];
    0x95 DclTessDomain "dcl_tessellator_domain" Declaration Untyped [];
    0x96 DclTessPartitioning "dcl_tessellator_partitioning" Declaration Untyped [];
    0x97 DclTessOutputPrimitive "dcl_tessellator_output_primitive" Declaration Untyped [];
    0x98 DclHsMaxTessFactor "dcl_hs_max_tessfactor" Declaration Untyped [Float];
    0x99 DclHsForkPhaseInstanceCount "dcl_hs_fork_phase_instance_count" Declaration Untyped [Imm];
    0x9a DclHsJoinPhaseInstanceCount "dcl_hs_join_phase_instance_count" Declaration Untyped [Imm];
    0x9b DclThreadGroup "dcl_thread_group" Declaration Untyped [Imm, Imm, Imm];
    0x9c DclUavTyped "dcl_uav_typed" Declaration Untyped [Dst, ReturnType, Space];
    0x9d DclUavRaw "dcl_uav_raw" Declaration Untyped [Dst, Space];
    0x9e DclUavStructured "dcl_uav_structured" Declaration Untyped [Dst, Imm, Space];
    0x9f DclTgsmRaw "dcl_tgsm_raw" Declaration Untyped [Dst, Imm];
    0xa0 DclTgsmStructured "dcl_tgsm_structured" Declaration Untyped [Dst, Imm, Imm];
    0xa1 DclResourceRaw "dcl_resource_raw" Declaration Untyped [Dst, Space];
    0xa2 DclResourceStructured "dcl_resource_structured" Declaration Untyped [Dst, Imm, Space];
    0xa3 LdUavTyped "ld_uav_typed" Memory Untyped [Dst, Src, Src];
    0xa4 StoreUavTyped "store_uav_typed" Memory Untyped [Dst, Src, Src];
    0xa5 LdRaw "ld_raw" Memory Untyped [Dst, Src, Src];
    0xa6 StoreRaw "store_raw" Memory Untyped [Dst, Src, Src];
    0xa7 LdStructured "ld_structured" Memory Untyped [Dst, Src, Src, Src];
    0xa8 StoreStructured "store_structured" Memory Untyped [Dst, Src, Src, Src];
    0xa9 AtomicAnd "atomic_and" Atomic Uint [Dst, Src, Src];
    0xaa AtomicOr "atomic_or" Atomic Uint [Dst, Src, Src];
    0xab AtomicXor "atomic_xor" Atomic Uint [Dst, Src, Src];
    0xac AtomicCmpStore "atomic_cmp_store" Atomic Uint [Dst, Src, Src, Src];
    0xad AtomicIadd "atomic_iadd" Atomic Int [Dst, Src, Src];
    0xae AtomicImax "atomic_imax" Atomic Int [Dst, Src, Src];
    0xaf AtomicImin "atomic_imin" Atomic Int [Dst, Src, Src];
    0xb0 AtomicUmax "atomic_umax" Atomic Uint [Dst, Src, Src];
    0xb1 AtomicUmin "atomic_umin" Atomic Uint [Dst, Src, Src];
    0xb2 ImmAtomicAlloc "imm_atomic_alloc" Atomic Uint [Dst, Src];
    0xb3 ImmAtomicConsume "imm_atomic_consume" Atomic Uint [Dst, Src];
    0xb4 ImmAtomicIadd "imm_atomic_iadd" Atomic Int [Dst, Dst, Src, Src];
    0xb5 ImmAtomicAnd "imm_atomic_and" Atomic Uint [Dst, Dst, Src, Src];
    0xb6 ImmAtomicOr "imm_atomic_or" Atomic Uint [Dst, Dst, Src, Src];
    0xb7 ImmAtomicXor "imm_atomic_xor" Atomic Uint [Dst, Dst, Src, Src];
    0xb8 ImmAtomicExch "imm_atomic_exch" Atomic Uint [Dst, Dst, Src, Src];
    0xb9 ImmAtomicCmpExch "imm_atomic_cmp_exch" Atomic Uint [Dst, Dst, Src, Src, Src];
    0xba ImmAtomicImax "imm_atomic_imax" Atomic Int [Dst, Dst, Src, Src];
    0xbb ImmAtomicImin "imm_atomic_imin" Atomic Int [Dst, Dst, Src, Src];
    0xbc ImmAtomicUmax "imm_atomic_umax" Atomic Uint [Dst, Dst, Src, Src];
    0xbd ImmAtomicUmin "imm_atomic_umin" Atomic Uint [Dst, Dst, Src, Src];
    0xbe Sync "sync" Sync Untyped [];
    0xbf Dadd "dadd" Alu Double [Dst, Src, Src];
    0xc0 Dmax "dmax" Alu Double [Dst, Src, Src];
    0xc1 Dmin "dmin" Alu Double [Dst, Src, Src];
    0xc2 Dmul "dmul" Alu Double [Dst, Src, Src];
    0xc3 Deq "deq" Alu Double [Dst, Src, Src];
    0xc4 Dge "dge" Alu Double [Dst, Src, Src];
    0xc5 Dlt "dlt" Alu Double [Dst, Src, Src];
    0xc6 Dne "dne" Alu Double [Dst, Src, Src];
    0xc7 Dmov "dmov" Alu Double [Dst, Src];
    0xc8 Dmovc "dmovc" Alu Double [Dst, Src, Src, Src];
    0xc9 Dtof "dtof" Alu Double [Dst, Src];
    0xca Ftod "ftod" Alu Float [Dst, Src];
    0xcb EvalSnapped "eval_snapped" Pixel Untyped [Dst, Src, Src];
    0xcc EvalSampleIndex "eval_sample_index" Pixel Untyped [Dst, Src, Src];
    0xcd EvalCentroid "eval_centroid" Pixel Untyped [Dst, Src];
    0xce DclGsInstanceCount "dcl_gsinstances" Declaration Untyped [Imm];
    0xcf Abort "abort" Sync Untyped [];
    0xd0 DebugBreak "debug_break" Sync Untyped [];
    0xd2 Ddiv "ddiv" Alu Double [Dst, Src, Src];
    0xd3 Dfma "dfma" Alu Double [Dst, Src, Src, Src];
    0xd4 Drcp "drcp" Alu Double [Dst, Src];
    0xd5 Msad "msad" Alu Uint [Dst, Src, Src, Src];
    0xd6 Dtoi "dtoi" Alu Double [Dst, Src];
    0xd7 Dtou "dtou" Alu Double [Dst, Src];
    0xd8 Itod "itod" Alu Int [Dst, Src];
    0xd9 Utod "utod" Alu Uint [Dst, Src];
    0xdb Gather4S "gather4_s" Texture Float [Dst, Dst, Src, Src, Src];
    0xdc Gather4CS "gather4_c_s" Texture Float [Dst, Dst, Src, Src, Src, Src];
    0xdd Gather4PoS "gather4_po_s" Texture Float [Dst, Dst, Src, Src, Src, Src];
    0xde Gather4PoCS "gather4_po_c_s" Texture Float [Dst, Dst, Src, Src, Src, Src, Src];
    0xdf LdS "ld_s" Texture Untyped [Dst, Dst, Src, Src];
    0xe0 LdMsS "ldms_s" Texture Untyped [Dst, Dst, Src, Src, Src];
    0xe1 LdUavTypedS "ld_uav_typed_s" Memory Untyped [Dst, Dst, Src, Src];
    0xe2 LdRawS "ld_raw_s" Memory Untyped [Dst, Dst, Src, Src];
    0xe3 LdStructuredS "ld_structured_s" Memory Untyped [Dst, Dst, Src, Src, Src];
    0xe4 SampleLS "sample_l_s" Texture Float [Dst, Dst, Src, Src, Src, Src];
    0xe5 SampleCLzS "sample_c_lz_s" Texture Float [Dst, Dst, Src, Src, Src, Src];
    0xe6 SampleClS "sample_cl_s" Texture Float [Dst, Dst, Src, Src, Src, Src];
    0xe7 SampleBClS "sample_b_cl_s" Texture Float [Dst, Dst, Src, Src, Src, Src, Src];
    0xe8 SampleDClS "sample_d_cl_s" Texture Float [Dst, Dst, Src, Src, Src, Src, Src, Src];
    0xe9 SampleCClS "sample_c_cl_s" Texture Float [Dst, Dst, Src, Src, Src, Src, Src];
    0xea CheckAccessFullyMapped "check_access_fully_mapped" Alu Uint [Dst, Src];
}

/// The largest number of operands (Dst/Src slots) any opcode has.
pub const MAX_OPERANDS: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &op in Opcode::ALL {
            assert!(seen.insert(op as u32), "duplicate number for {op:?}");
            assert_eq!(Opcode::from_u32(op as u32), Some(op));
        }
        assert_eq!(Opcode::ALL.len(), 0xeb - 4);
    }

    #[test]
    fn every_number_is_defined_or_reserved() {
        // The only gaps below the end of the table are the reserved numbers of the format.
        let reserved = [0x6b, 0x70, 0xd1, 0xda];
        for n in 0..=0xea_u32 {
            assert_eq!(
                Opcode::from_u32(n).is_none(),
                reserved.contains(&n),
                "opcode {n:#x}"
            );
        }
        assert_eq!(Opcode::from_u32(0xeb), None);
    }

    #[test]
    fn operand_counts_fit() {
        for &op in Opcode::ALL {
            let n = op
                .slots()
                .iter()
                .filter(|s| matches!(s, Slot::Dst | Slot::Src))
                .count();
            assert!(n <= MAX_OPERANDS, "{op:?}");
        }
    }

    #[test]
    fn names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &op in Opcode::ALL {
            assert!(seen.insert(op.name()), "duplicate name {}", op.name());
        }
    }
}
