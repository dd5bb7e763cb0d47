//! Operand kinds of every opcode, and which opcodes a stage and model allow.

use crate::front::dxbc::opcodes::{Class, NumType, Opcode, Slot};
use crate::front::dxbc::program::{ShaderVersion, Stage};

use Opcode as O;

/// What an operand slot holds, refined from the table's Dst/Src by the instruction's meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Dst,
    Src,
    /// A byte offset into raw memory or into a structure (`ld_raw`, `store_structured`, ...).
    ByteOffset,
    /// A scalar condition or selector (`if_nz r0.x`, `switch`).
    Cond,
    /// `case l(N)`.
    CaseValue,
    Texture,
    Sampler,
    Uav,
    TextureOrUav,
    /// `t#`, `u#` or (compute) `g#`.
    Readable,
    TextureOrRasterizer,
    /// A pixel-shader input attribute (`eval_*`).
    Attribute,
    Label,
    Stream,
    /// `u#` or (compute) `g#` as destination.
    MemDst,
    UavDst,
    /// `fp#[array]` of `fcall`.
    Interface,
}

fn set(kinds: &mut [Kind], pairs: &[(usize, Kind)]) {
    for &(i, kind) in pairs {
        kinds[i] = kind;
    }
}

/// The operand kinds of `op`, in slot order.
pub(super) fn kinds(op: Opcode) -> Vec<Kind> {
    use Kind::*;
    let mut k: Vec<Kind> = op
        .slots()
        .iter()
        .filter_map(|s| match s {
            Slot::Dst => Some(Dst),
            Slot::Src => Some(Src),
            _ => None,
        })
        .collect();
    let dsts = op.slots().iter().filter(|s| **s == Slot::Dst).count();
    match op {
        O::Sample
        | O::SampleB
        | O::SampleL
        | O::SampleC
        | O::SampleCLz
        | O::SampleD
        | O::Lod
        | O::Gather4
        | O::Gather4C => set(&mut k, &[(2, Texture), (3, Sampler)]),
        O::Gather4Po | O::Gather4PoC => set(&mut k, &[(3, Texture), (4, Sampler)]),
        O::Gather4S
        | O::Gather4CS
        | O::SampleLS
        | O::SampleCLzS
        | O::SampleClS
        | O::SampleBClS
        | O::SampleDClS
        | O::SampleCClS => set(&mut k, &[(3, Texture), (4, Sampler)]),
        O::Gather4PoS | O::Gather4PoCS => set(&mut k, &[(4, Texture), (5, Sampler)]),
        O::Ld | O::LdMs => set(&mut k, &[(2, Texture)]),
        O::LdS | O::LdMsS => set(&mut k, &[(3, Texture)]),
        O::Resinfo => set(&mut k, &[(2, TextureOrUav)]),
        O::SamplePos | O::SampleInfo => set(&mut k, &[(1, TextureOrRasterizer)]),
        O::EvalSnapped | O::EvalSampleIndex | O::EvalCentroid => set(&mut k, &[(1, Attribute)]),
        O::LdUavTyped => set(&mut k, &[(2, Uav)]),
        O::LdUavTypedS => set(&mut k, &[(3, Uav)]),
        O::StoreUavTyped => set(&mut k, &[(0, UavDst)]),
        O::LdRaw => set(&mut k, &[(1, ByteOffset), (2, Readable)]),
        O::LdStructured => set(&mut k, &[(2, ByteOffset), (3, Readable)]),
        O::LdRawS => set(&mut k, &[(2, ByteOffset), (3, TextureOrUav)]),
        O::LdStructuredS => set(&mut k, &[(3, ByteOffset), (4, TextureOrUav)]),
        O::StoreRaw => set(&mut k, &[(0, MemDst), (1, ByteOffset)]),
        O::StoreStructured => set(&mut k, &[(0, MemDst), (2, ByteOffset)]),
        O::Bufinfo => set(&mut k, &[(1, TextureOrUav)]),
        O::ImmAtomicAlloc | O::ImmAtomicConsume => set(&mut k, &[(1, Uav)]),
        O::Call | O::Label => set(&mut k, &[(0, Label)]),
        O::Callc => set(&mut k, &[(0, Cond), (1, Label)]),
        O::InterfaceCall => set(&mut k, &[(0, Interface)]),
        O::EmitStream | O::CutStream | O::EmitThenCutStream => set(&mut k, &[(0, Stream)]),
        O::If | O::Breakc | O::Continuec | O::Retc | O::Discard | O::Switch => {
            set(&mut k, &[(0, Cond)])
        }
        O::Case => set(&mut k, &[(0, CaseValue)]),
        _ if op.class() == Class::Atomic => set(&mut k, &[(dsts - 1, MemDst)]),
        _ => {}
    }
    k
}

/// Instructions generated only as part of a structure (blocks, subroutines, interfaces).
fn structural(op: Opcode) -> bool {
    matches!(
        op,
        O::If
            | O::Else
            | O::EndIf
            | O::Loop
            | O::EndLoop
            | O::Break
            | O::Breakc
            | O::Continue
            | O::Continuec
            | O::Switch
            | O::Case
            | O::Default
            | O::EndSwitch
            | O::Label
            | O::Call
            | O::Callc
            | O::Ret
            | O::InterfaceCall
            | O::CustomData
    )
}

pub(super) fn is_conditional(op: Opcode) -> bool {
    matches!(
        op,
        O::Breakc | O::Continuec | O::If | O::Retc | O::Discard | O::Callc
    )
}

/// Sampling with implicit derivatives: pixel shaders only.
fn implicit_derivatives(op: Opcode) -> bool {
    matches!(
        op,
        O::Sample | O::SampleB | O::SampleC | O::Lod | O::SampleClS | O::SampleBClS | O::SampleCClS
    )
}

/// Whether a non-declaration `op` is valid in a `v` program (model and stage).
pub(super) fn allowed(op: Opcode, v: ShaderVersion) -> bool {
    let n = op as u32;
    let cs4_memory = matches!(
        op,
        O::LdRaw | O::StoreRaw | O::LdStructured | O::StoreStructured | O::Sync
    );
    let model_ok = match n {
        0..=0x6a => true,
        0x6c..=0x6f => (v.major, v.minor) >= (4, 1),
        _ => v.major >= 5 || (v.stage == Stage::Compute && cs4_memory),
    };
    if !model_ok || op.class() == Class::Declaration || structural(op) {
        return false;
    }
    let stage = v.stage;
    match op.class() {
        Class::Geometry => stage == Stage::Geometry,
        Class::Pixel => stage == Stage::Pixel,
        // Barriers are for compute shaders; pixel shaders (SM5) may also wait for UAV writes.
        Class::Sync if op == O::Sync => {
            stage == Stage::Compute || (stage == Stage::Pixel && v.major >= 5)
        }
        Class::Memory | Class::Atomic => v.major >= 5 || stage == Stage::Compute,
        Class::Texture if implicit_derivatives(op) => stage == Stage::Pixel,
        _ => true,
    }
}

/// Whether a translatable program may hold `op` (beyond [`allowed`]): no `abort` or
/// `debug_break` (the translator refuses them), double-precision operations only where the
/// global flags enable them (`doubles`).
pub(super) fn translatable(op: Opcode, doubles: bool) -> bool {
    let double = op.num_type() == NumType::Double || matches!(op, O::Ftod | O::Itod | O::Utod);
    !matches!(op, O::Abort | O::DebugBreak) && (doubles || !double)
}

/// Operands with 64-bit components (destination, sources).
pub(super) fn doubles(op: Opcode) -> (bool, bool) {
    let src = op.num_type() == NumType::Double;
    let dst = match op {
        O::Ftod | O::Itod | O::Utod => true,
        O::Dtof | O::Dtoi | O::Dtou | O::Deq | O::Dge | O::Dlt | O::Dne => false,
        _ => src,
    };
    (dst, src)
}
