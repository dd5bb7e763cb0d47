//! The intermediate representation: the contract between the DXBC front end
//! (`front::dxbc::lower`) and the SPIR-V back end (`back::spirv`). See `docs/ir.md`.
//!
//! The IR stays close to DXBC: one [`Inst`] per executable DXBC
//! instruction, with the same register files, swizzles and write masks, but with every name
//! resolved against the declarations. A register operand is a [`Reg`]; a resource operand names a
//! declaration by its position in [`Module::resources`] (or `cbuffers`, `samplers`, `tgsm`), never
//! by a DXBC register number. Control flow is DXBC's structured form (`if`/`else`/`endif`,
//! `loop`/`endloop`, `switch`/`case`/`endswitch`), with switch case tables collected by a pass.
//!
//! Contract:
//! - **Arena.** All instructions of all functions live in [`Module::insts`]; a [`Function`] is a
//!   contiguous range of it. Function 0 is the entry point; `label l#` subroutines follow.
//! - **Spans.** Every instruction carries the byte offset of the DXBC instruction it came from
//!   ([`Inst::span`]); later errors report it.
//! - **Validity.** [`validate()`] checks what the back end relies on: balanced and well-nested
//!   control flow, operand counts per opcode, every register and declaration index in range,
//!   call targets that exist, no recursion and at most [`MAX_CALL_DEPTH`] nested calls. Tests
//!   run it after every pass.
//! - **Self-contained.** The IR names everything by meaning (system values, interpolation
//!   modes, primitives, flags: [`SystemValue`], ...; bindings: [`binding`]) and imports nothing
//!   outside itself; the front end converts its encodings into these types.
//! - **Printing.** [`print()`] writes a stable, fxc-like text form for snapshots and debugging.

pub mod binding;
mod id;
mod io;
mod located;
mod module;
mod op;
mod operand;
mod parameter;
mod print;
mod stream_output;
mod validate;

pub use id::{CbId, FunctionId, IndexableId, ResourceId, SamplerId, TgsmId};
pub use io::{
    GlobalFlags, InputPrimitive, Interpolation, OutputTopology, SystemValue, MAX_IO_REGISTERS,
};
pub(crate) use located::located_constructors;
pub use located::Located;
pub use module::{
    CbDecl, ClassLinkage, ComponentType, Dimension, Function, GeometryInfo, HullPhase,
    HullSchedule, HullStep, IndexableTemp, IoDecl, Module, PhaseKind, ResourceDecl, ResourceShape,
    ReturnType, SamplerDecl, SignatureElement, Stage, StreamOutput, StreamOutputEntry, SwitchTable,
    TessDomain, TessOutputPrimitive, TessPartitioning, TessellationInfo, Tgsm,
};
pub use op::{
    AtomicOp, BitsOp, BufferOp, ControlFlowOp, DerivativeOp, DiscardOp, DoubleOp, Family, FloatOp,
    GatherOp, GeometryOp, Inst, InstFlags, IntegerOp, InterpolationOp, LegacyOp, MoveOp, Op,
    OpKind, Payload, QueryOp, ResinfoReturn, Role, SampleOp, SampleinfoReturn, SparseOp, SwitchId,
    SyncOp, Test, TextureLoadOp,
};
pub use operand::{DepthOutput, Dst, Index, Modifier, Reg, Rel, RelFile, Src};
pub use parameter::{Parameter, ParameterSource};
pub use print::{print, register_name};
pub use stream_output::{StreamOutputRequest, StreamOutputRequestEntry};
pub use validate::{validate, ValidationError, MAX_CALL_DEPTH};

#[cfg(test)]
mod tests;
