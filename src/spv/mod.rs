//! The SPIR-V writer: the back end's lowest layer, which knows nothing of DXBC or the IR.
//!
//! [`Module`] allocates ids, keeps each section of the SPIR-V logical layout (spec §2.4) in its own
//! word vector, writes every instruction straight into the vector of its section (word count and
//! opcode first, then the operands, literal strings packed per spec §2.2.1), and concatenates the
//! sections in the required order in [`Module::finish`], after a header with the caller's
//! [`Version`], generator 0 and the id bound. See `docs/spirv-writer.md`.
//!
//! Contract:
//! - **Caches.** Non-aggregate types and pointers are deduplicated by their operands
//!   ([`Module::type_int`], [`Module::type_vector`], ...), as SPIR-V requires for non-aggregate
//!   types. Structs are always fresh ([`Module::type_struct`]), and arrays meant to carry an
//!   `ArrayStride` come from [`Module::type_array_unique`] /
//!   [`Module::type_runtime_array_unique`]; decorating a cached type is an error
//!   ([`Error::DecoratedSharedType`]), so a decoration never leaks onto another user of a type.
//!   Scalar, null and small composite constants are deduplicated by (type, bits), capabilities,
//!   extensions and ext-inst imports by value.
//! - **Functions.** [`Module::begin_function`] takes a function type from
//!   [`Module::type_function`] and declares the parameters itself; [`Module::variable`] places
//!   function variables at the start of the entry block whenever it is called; the block
//!   structure (label, body, merge instruction right before its branch, one terminator) is tracked.
//! - **Errors.** Emission never fails at the call: the first misuse (an instruction outside a
//!   block, an unterminated block, an instruction over 65,535 words, a NUL in a literal string,
//!   ...) is recorded and returned by [`Module::finish`] as a typed [`Error`]; later misuses are
//!   dropped. Nothing panics, whatever the operands.
//! - **Cost.** No heap allocation per instruction beyond the amortized growth of the section
//!   vectors; [`Module::clear`] keeps every allocation for the next module.
//!
//! SPIR-V numbers (opcodes, capabilities, decorations, ...) are the `spirv` crate's enums.

use std::fmt;
use std::num::NonZeroU32;

use spirv::{Decoration, Op};

mod constants;
mod function;
mod hash;
mod module;
mod ops;
#[cfg(any(test, feature = "spirv-text"))]
pub mod text;
mod types;
mod words;

pub use module::Module;
pub use types::ImageType;

#[cfg(test)]
pub(crate) mod tests;

/// The largest id bound every Vulkan implementation accepts (SPIR-V spec §2.17, "Universal
/// Limits": `Result <id>` bound 4,194,303); [`Module::alloc_id`] reports
/// [`Error::IdBoundExceeded`] past it.
pub const MAX_ID_BOUND: u32 = 4_194_303;

/// The most words one instruction may have (its word count is a 16-bit field).
pub const MAX_INSTRUCTION_WORDS: usize = 0xFFFF;

/// A SPIR-V result id, allocated by [`Module::alloc_id`] or returned by an emitting call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Id(NonZeroU32);

impl Id {
    /// The id as an operand word.
    #[inline]
    pub fn word(self) -> u32 {
        self.0.get()
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// The SPIR-V version written in the module header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// SPIR-V 1.0 (Vulkan 1.0).
    V1_0,
    /// SPIR-V 1.1.
    V1_1,
    /// SPIR-V 1.2.
    V1_2,
    /// SPIR-V 1.3 (Vulkan 1.1).
    V1_3,
    /// SPIR-V 1.4: entry points list every global variable they use, not only inputs/outputs.
    V1_4,
    /// SPIR-V 1.5 (Vulkan 1.2).
    V1_5,
    /// SPIR-V 1.6 (Vulkan 1.3).
    V1_6,
}

impl Version {
    /// The minor version number (the major is always 1).
    pub fn minor(self) -> u32 {
        self as u32
    }

    /// The header's version word: `0 | major << 16 | minor << 8 | 0`.
    pub fn word(self) -> u32 {
        (1 << 16) | (self.minor() << 8)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor())
    }
}

/// A misuse of the [`Module`] API that would have produced invalid SPIR-V; the first one is
/// returned by [`Module::finish`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// More ids were allocated than [`MAX_ID_BOUND`] allows.
    #[error("the module needs more than {MAX_ID_BOUND} ids")]
    IdBoundExceeded,
    /// An instruction would need more words than its 16-bit word count can say.
    #[error("Op{op:?} would need {words} words; an instruction has at most 65535")]
    InstructionTooLong {
        /// The instruction.
        op: Op,
        /// The words it would have needed.
        words: usize,
    },
    /// A literal string contains a NUL byte, which would end it early.
    #[error("a literal string of Op{op:?} contains a NUL byte at byte {position}")]
    NulInString {
        /// The instruction holding the string.
        op: Op,
        /// Byte index of the first NUL.
        position: usize,
    },
    /// A function-body instruction was emitted outside any function.
    #[error("Op{op:?} emitted outside a function")]
    NotInFunction {
        /// The instruction.
        op: Op,
    },
    /// A function-body instruction was emitted where no block is open (before the first label
    /// or after a terminator).
    #[error("Op{op:?} emitted outside a block (no label since the last terminator)")]
    NotInBlock {
        /// The instruction.
        op: Op,
    },
    /// [`Module::label`] was called while the current block has no terminator yet.
    #[error("label {label} starts a block while the previous block is not terminated")]
    UnterminatedBlock {
        /// The new block's label.
        label: Id,
    },
    /// A merge instruction was not immediately followed by a branch it may precede
    /// (OpSelectionMerge: OpBranchConditional or OpSwitch; OpLoopMerge: OpBranch or
    /// OpBranchConditional).
    #[error("Op{merge:?} must immediately precede a branch, not Op{next:?}")]
    MisplacedMerge {
        /// The merge instruction.
        merge: Op,
        /// The instruction that followed it.
        next: Op,
    },
    /// [`Module::begin_function`] was called while a function is open.
    #[error("function {function} begun while another function is open")]
    NestedFunction {
        /// The new function.
        function: Id,
    },
    /// [`Module::end_function`] was called with no function open.
    #[error("end_function called with no function open")]
    NoOpenFunction,
    /// A function ended without any block, or with its last block not terminated.
    #[error("function {function} ended {what}")]
    IncompleteFunction {
        /// The function.
        function: Id,
        /// "without blocks" or "with an unterminated block".
        what: &'static str,
    },
    /// [`Module::finish`] was called while a function is open.
    #[error("finish called while function {function} is open")]
    UnfinishedFunction {
        /// The open function.
        function: Id,
    },
    /// A function's type is not one returned by [`Module::type_function`].
    #[error("{id} is not a function type made by type_function")]
    UnknownFunctionType {
        /// The id given as the function type.
        id: Id,
    },
    /// OpReturn in a function returning a value, or OpReturnValue in a void function.
    #[error("Op{op:?} does not match the return type of function {function}")]
    ReturnMismatch {
        /// OpReturn or OpReturnValue.
        op: Op,
        /// The function.
        function: Id,
    },
    /// An opcode that has a dedicated method was given to a generic emitter.
    #[error("Op{op:?} must be emitted with {method}")]
    ReservedOp {
        /// The instruction.
        op: Op,
        /// The method to use instead.
        method: &'static str,
    },
    /// A decoration was put on a deduplicated (shared) type, which would decorate every user.
    #[error("{target} is a shared (cached) type and cannot carry {decoration:?}; make it with a *_unique constructor")]
    DecoratedSharedType {
        /// The cached type.
        target: Id,
        /// The decoration.
        decoration: Decoration,
    },
    /// Two specialization constants were given the same `SpecId`: the pipeline's one value
    /// for that id would specialize both.
    #[error("SpecId {spec_id} is given to both {first} and {second}: each specialized value needs its own id")]
    DuplicateSpecId {
        /// The id given twice.
        spec_id: u32,
        /// The constant that holds it first.
        first: Id,
        /// The constant it was given to again.
        second: Id,
    },
    /// An argument outside what SPIR-V allows (a vector of 5 components, an integer of width 7,
    /// a global variable in the Function storage class, ...).
    #[error("invalid operand for Op{op:?}: {what}")]
    InvalidOperand {
        /// The instruction.
        op: Op,
        /// What is wrong.
        what: &'static str,
    },
    /// The instruction needs a newer SPIR-V version than the module's.
    #[error("Op{op:?} needs SPIR-V {needed}, the module is {version}")]
    VersionTooLow {
        /// The instruction.
        op: Op,
        /// The version it needs.
        needed: Version,
        /// The module's version.
        version: Version,
    },
}
