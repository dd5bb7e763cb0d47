//! Declarations decoded once, for reflection and lowering alike.
//!
//! Contract: [`Declaration::decode`] reads every token field of a `dcl_*` instruction (and of
//! the hull-shader phase markers and the immediate constant buffer) into a typed value; the
//! reflection and the lowering both consume that value, each doing only its own work
//! (recording, or building IR), with its own checks and order. The declared operand's indices
//! are read by the functions here: its immediate indices and, for CB/SRV/UAV/sampler
//! declarations, the register range it binds (`[id, lower, upper]` plus a register space in
//! SM5.1, one register before). Nothing here allocates; errors are a typed [`DeclError`] that
//! each consumer turns into its own message.

mod declaration;
#[cfg(test)]
mod tests;

pub(crate) use declaration::{
    write_mask, Declaration, Dwords, HullPhase, InstancedPhase, Io, Shape, View,
};

use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::operand::Operand;

/// Why a declaration's operand could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DeclError {
    /// The declaration has no operand.
    NoOperand,
    /// The operand has `found` indices where exactly `expected` are required.
    IndexCount {
        /// Indices present.
        found: usize,
        /// Indices required.
        expected: usize,
    },
    /// An index has a relative (register) part.
    RelativeIndex,
    /// An index's immediate part does not fit 32 bits.
    IndexOver32Bits,
    /// An SM5.1 range's upper bound is below its lower bound.
    UpperBelowLower {
        /// First register of the range.
        lower: u32,
        /// Last register of the range.
        upper: u32,
    },
}

/// The declared operand (the first).
pub(crate) fn operand<'i>(inst: &'i Instruction<'_>) -> Result<&'i Operand, DeclError> {
    inst.operands().first().ok_or(DeclError::NoOperand)
}

/// The immediate parts of an operand's indices (at most 3), no heap.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Indices {
    values: [u32; 3],
    len: usize,
}

impl Indices {
    /// The indices, outermost first.
    pub(crate) fn as_slice(&self) -> &[u32] {
        &self.values[..self.len]
    }
}

/// The immediate parts of every index of `op`, each checked to fit 32 bits; relative parts are
/// not looked at.
pub(crate) fn immediates(op: &Operand) -> Result<Indices, DeclError> {
    let mut out = Indices::default();
    for (slot, index) in out.values.iter_mut().zip(op.indices()) {
        *slot = u32::try_from(index.imm).map_err(|_| DeclError::IndexOver32Bits)?;
        out.len += 1;
    }
    Ok(out)
}

/// Exactly `N` immediate indices: the count is checked first, then each index in order for a
/// relative part and for fitting 32 bits.
pub(crate) fn exact<const N: usize>(op: &Operand) -> Result<[u32; N], DeclError> {
    if op.indices().len() != N {
        return Err(DeclError::IndexCount {
            found: op.indices().len(),
            expected: N,
        });
    }
    let mut out = [0u32; N];
    for (slot, index) in out.iter_mut().zip(op.indices()) {
        if index.rel.is_some() {
            return Err(DeclError::RelativeIndex);
        }
        *slot = u32::try_from(index.imm).map_err(|_| DeclError::IndexOver32Bits)?;
    }
    Ok(out)
}

/// The registers a CB/SRV/UAV/sampler declaration binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Binding {
    /// The id operands name it by: the range id in SM5.1, the register before.
    pub id: u32,
    /// Register space (0 before SM5.1).
    pub space: u32,
    /// First register.
    pub lower: u32,
    /// Registers bound; `None` when unbounded.
    pub count: Option<u32>,
}

impl Binding {
    /// An SM5.1 range `[id, lower, upper]` in the instruction's register space; an upper bound
    /// of `u32::MAX` is unbounded.
    pub(crate) fn sm51(
        inst: &Instruction<'_>,
        [id, lower, upper]: [u32; 3],
    ) -> Result<Self, DeclError> {
        let count = match upper {
            u32::MAX => None,
            upper if upper < lower => return Err(DeclError::UpperBelowLower { lower, upper }),
            upper => Some(upper - lower + 1),
        };
        Ok(Self {
            id,
            space: inst.space.unwrap_or(0),
            lower,
            count,
        })
    }

    /// One register (before SM5.1), named by its number, in space 0.
    pub(crate) fn single(register: u32) -> Self {
        Self {
            id: register,
            space: 0,
            lower: register,
            count: Some(1),
        }
    }
}
