//! Runtime-provided values ([`ir::Parameter`], read as `Reg::Parameter`).
//!
//! Contract: each parameter reads as a `uvec4` of its bits, components past its count 0.
//! - `Immediate`: an `OpConstantComposite`.
//! - `Spec`: one `OpSpecConstant` of type `uint` per component, decorated `SpecId first_id + c`
//!   and holding the default's bits (the pipeline's `VkSpecializationMapEntry` gives the 4
//!   bytes of the value: a float parameter's IEEE bits), gathered by an
//!   `OpSpecConstantComposite`; declared once, before the functions.
//! - `Push`: the words of the module's one push-constant block (`push_constants.rs` merges
//!   the parameters' bytes with every other push-constant range), loaded at each read.

use spirv::{Decoration, Op};

use super::context::{Emitter, Scalar};
use super::Error;
use crate::ir::{Parameter, ParameterSource};
use crate::spv::Id;

impl Emitter<'_> {
    /// Declares the constants of every immediate and specialization-constant parameter (in
    /// [`Objects::parameters`](super::context::Objects), by position; push-constant ones get
    /// no global).
    pub(super) fn declare_parameters(&mut self) {
        let params = &self.ir.parameters;
        let mut ids = Vec::with_capacity(params.len());
        for p in params {
            ids.push(self.parameter_global(p));
        }
        self.objects.parameters = ids;
    }

    fn parameter_global(&mut self, p: &Parameter) -> Option<Id> {
        let u = self.ty(Scalar::U32, 1);
        let uvec4 = self.ty(Scalar::U32, 4);
        let zero = self.m.constant_bits32(u, 0);
        let count = usize::from(p.count.min(4));
        match p.source {
            ParameterSource::Immediate(bits) => {
                let mut parts = [zero; 4];
                for (part, &b) in parts.iter_mut().zip(&bits).take(count) {
                    *part = self.m.constant_bits32(u, b);
                }
                Some(self.m.constant_composite(uvec4, &parts))
            }
            ParameterSource::Spec { first_id, defaults } => {
                let mut parts = [zero; 4];
                for (c, (part, &b)) in parts.iter_mut().zip(&defaults).take(count).enumerate() {
                    let id = self.m.alloc_id();
                    self.m
                        .global_inst(Op::SpecConstant, Some(u), Some(id), &[b]);
                    self.m
                        .decorate(id, Decoration::SpecId, &[first_id.wrapping_add(c as u32)]);
                    self.m.name(id, p.name);
                    *part = id;
                }
                let c = self.m.alloc_id();
                let words: Vec<u32> = parts.iter().map(|id| id.word()).collect();
                self.m
                    .global_inst(Op::SpecConstantComposite, Some(uvec4), Some(c), &words);
                Some(c)
            }
            ParameterSource::Push { .. } => None,
        }
    }

    /// `param#n` as a `uvec4` of bits.
    pub(super) fn read_parameter(&mut self, span: u32, n: u32) -> Result<Id, Error> {
        let Some(p) = self.ir.parameters.get(n as usize).copied() else {
            return Err(Error::internal(
                span,
                format!("parameter #{n} is not declared"),
            ));
        };
        if let Some(Some(id)) = self.objects.parameters.get(n as usize) {
            return Ok(*id);
        }
        let ParameterSource::Push { offset } = p.source else {
            return Err(Error::internal(
                span,
                format!("parameter #{n} has no constant"),
            ));
        };
        let zero = self.u32_const(0);
        let mut parts = [zero; 4];
        for (c, part) in parts
            .iter_mut()
            .enumerate()
            .take(usize::from(p.count.min(4)))
        {
            let byte = offset.checked_add(4 * c as u32).ok_or_else(|| {
                Error::internal(span, format!("parameter {} past byte 2^32", p.name))
            })?;
            *part = self.push_word(span, byte)?;
        }
        let uvec4 = self.ty(Scalar::U32, 4);
        Ok(self.m.composite_construct(uvec4, &parts))
    }
}
