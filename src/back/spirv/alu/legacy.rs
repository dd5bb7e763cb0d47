//! Direct3D 9's float arithmetic ([`LegacyOp`]): the legacy multiply, `log`/`rsq` of `|x|`,
//! `lit`, `dst`, `nrm`, `expp`/`logp` (the rules in `docs/d3d9.md`).
//!
//! Contract: every operation of the family has its arm; one not emitted yet is a typed
//! `Unsupported` naming it, never invalid SPIR-V.

use super::super::context::Emitter;
use crate::back::spirv::Error;
use crate::ir::{Inst, LegacyOp};

impl Emitter<'_> {
    /// Emits one operation of the legacy (D3D9) float family.
    pub(super) fn legacy_alu(&mut self, inst: &Inst, op: LegacyOp) -> Result<(), Error> {
        match op {
            LegacyOp::MulLegacy
            | LegacyOp::MadLegacy
            | LegacyOp::Dp2AddLegacy
            | LegacyOp::Dp3Legacy
            | LegacyOp::Dp4Legacy
            | LegacyOp::PowLegacy
            | LegacyOp::ExpLegacy
            | LegacyOp::LogLegacy
            | LegacyOp::RcpLegacy
            | LegacyOp::RsqLegacy
            | LegacyOp::NrmLegacy
            | LegacyOp::Lit
            | LegacyOp::DistVec
            | LegacyOp::ExppSm1
            | LegacyOp::LogpSm1 => Err(Error::unsupported(
                inst.span,
                format!("the D3D9 operation `{}`", inst.op.name()),
            )),
        }
    }
}
