//! Operand resolution: DXBC operands → [`ir::Src`] / [`ir::Dst`].
//!
//! Contract:
//! - Registers that name declarations resolve to the declaration's position: `x#` through the
//!   indexable temps, `g#` through shared memory, `cb#`/`t#`/`u#`/`s#` through the constant
//!   buffers, resources and samplers. In SM5.0 the operand's first index is the register, which
//!   is the declaration's id; in SM5.1 the first index is the range id and the second the
//!   absolute register, so the descriptor element is `absolute − lower bound` (relative and
//!   `nonuniform` indices allowed; with a relative part the subtraction wraps, as the sum does
//!   at run time). A register that is not declared is [`Error::Invalid`].
//! - Components: a source's swizzle comes from its `Swizzle` or `Select1` selection (replicated);
//!   scalar registers read `[0; 4]`; masks on sources and registers without a selection read
//!   the identity. A destination's mask is its write mask, 1 for scalar registers and `xyzw`
//!   for registers without one (`u0` of an atomic). A scalar `l(5)` is replicated to four lanes.
//! - `this[s]` reads the class-linkage block (`class_linkage.rs`); the other class-linkage
//!   registers (`fb#`, `ft#`, `fp#`) as operands of ordinary instructions are [`Error::Invalid`].
//! - Registers of features not translated (graphics-stage special registers) are
//!   [`Error::Unsupported`]; label operands are resolved by `control_flow.rs`.

use std::collections::BTreeMap;

use super::Error;
use super::Lowerer;
use crate::front::dxbc::operand::{
    Components, Index as DxbcIndex, Modifier as DxbcModifier, Operand, RegisterType,
    RelativeRegister,
};
use crate::ir;

/// The identity swizzle.
const IDENTITY: [u8; 4] = [0, 1, 2, 3];

/// The read swizzle of a source selection.
fn swizzle(components: Components) -> [u8; 4] {
    match components {
        Components::Swizzle(s) => s.map(|c| c & 3),
        Components::Select1(c) => [c & 3; 4],
        Components::One => [0; 4],
        Components::Mask(_) | Components::Zero | Components::N => IDENTITY,
    }
}

fn modifier(m: DxbcModifier) -> ir::Modifier {
    match m {
        DxbcModifier::None => ir::Modifier::None,
        DxbcModifier::Neg => ir::Modifier::Neg,
        DxbcModifier::Abs => ir::Modifier::Abs,
        DxbcModifier::AbsNeg => ir::Modifier::AbsNeg,
    }
}

/// The operand's indices, checked to be exactly `n`.
fn indices(op: &Operand, n: usize, at: u32) -> Result<&[DxbcIndex], Error> {
    let idx = op.indices();
    if idx.len() != n {
        return Err(Error::invalid(
            at,
            format!(
                "{} operand with {} indices, expected {n}",
                op.ty.prefix(),
                idx.len()
            ),
        ));
    }
    Ok(idx)
}

/// An index that must be an immediate fitting 32 bits (register numbers, range ids).
fn immediate(index: &DxbcIndex, at: u32) -> Result<u32, Error> {
    if index.rel.is_some() {
        return Err(Error::invalid(
            at,
            "relative index where a register number is required",
        ));
    }
    u32::try_from(index.imm).map_err(|_| Error::invalid(at, "register index over 32 bits"))
}

/// Position of `id` in a lookup, or an "undeclared" error naming the register.
fn find(lookup: &BTreeMap<u32, u32>, id: u32, letter: &str, at: u32) -> Result<u32, Error> {
    lookup
        .get(&id)
        .copied()
        .ok_or_else(|| Error::invalid(at, format!("{letter}{id} is not declared")))
}

/// Which declaration table a descriptor operand names.
#[derive(Clone, Copy)]
enum Table {
    Cbuffer,
    Srv,
    Uav,
    Sampler,
}

impl Lowerer {
    /// A source operand, written into `out` field by field (an operand built elsewhere and
    /// copied in is read back before its bytes settle: a measurable stall per operand).
    #[inline(always)]
    pub(super) fn src_into(&self, op: &Operand, at: u32, out: &mut ir::Src) -> Result<(), Error> {
        out.reg = self.reg(op, at)?;
        out.swizzle = match out.reg {
            ir::Reg::Imm32(_) | ir::Reg::Imm64(_) => IDENTITY,
            _ => swizzle(op.components),
        };
        out.modifier = modifier(op.modifier);
        Ok(())
    }

    /// A destination operand, written into `out` field by field (see [`Lowerer::src_into`]).
    #[inline(always)]
    pub(super) fn dst_into(&self, op: &Operand, at: u32, out: &mut ir::Dst) -> Result<(), Error> {
        out.reg = self.reg(op, at)?;
        let reg = out.reg;
        let writable = matches!(
            reg,
            ir::Reg::Null
                | ir::Reg::Temp(_)
                | ir::Reg::IndexableTemp { .. }
                | ir::Reg::Output(_)
                | ir::Reg::PatchConstant(_)
                | ir::Reg::OutputDepth(_)
                | ir::Reg::OutputCoverage
                | ir::Reg::OutputStencilRef
                | ir::Reg::Uav { .. }
                | ir::Reg::Tgsm(_)
        );
        if !writable {
            return Err(Error::invalid(
                at,
                format!("{} register as a destination", op.ty.prefix()),
            ));
        }
        let mask = match (reg, op.components) {
            (ir::Reg::Null, _) => 0,
            (_, Components::Mask(m)) => m & 0xf,
            (_, Components::One) => 1,
            (_, Components::Zero | Components::N) => 0xf,
            (_, Components::Swizzle(_) | Components::Select1(_)) => {
                return Err(Error::invalid(at, "destination with a swizzle"))
            }
        };
        out.mask = mask;
        Ok(())
    }

    /// The register an operand names, resolved against the declarations, and checked to
    /// exist in the program's stage.
    #[inline(always)]
    fn reg(&self, op: &Operand, at: u32) -> Result<ir::Reg, Error> {
        let reg = self.resolve(op, at)?;
        match (self.module.stage, stage_of(&reg)) {
            (stage, Some(allowed)) if !allowed.contains(&stage) => Err(Error::invalid(
                at,
                format!("{} in a {} shader", op.ty.prefix(), stage.prefix()),
            )),
            _ => Ok(reg),
        }
    }

    /// The register an operand names, resolved against the declarations.
    #[inline(always)]
    fn resolve(&self, op: &Operand, at: u32) -> Result<ir::Reg, Error> {
        use RegisterType as R;
        Ok(match op.ty {
            R::Null => ir::Reg::Null,
            R::Temp => ir::Reg::Temp(immediate(&indices(op, 1, at)?[0], at)?),
            R::Input => match op.indices() {
                [i] => ir::Reg::Input(self.index(i, at)?),
                [vertex, register]
                    if matches!(self.module.stage, ir::Stage::Geometry | ir::Stage::Hull) =>
                {
                    ir::Reg::VertexInput {
                        vertex: self.index(vertex, at)?,
                        register: self.index(register, at)?,
                    }
                }
                _ => {
                    return Err(Error::invalid(
                        at,
                        format!("v# with {} indices", op.indices().len()),
                    ))
                }
            },
            R::InputControlPoint => {
                let idx = indices(op, 2, at)?;
                ir::Reg::VertexInput {
                    vertex: self.index(&idx[0], at)?,
                    register: self.index(&idx[1], at)?,
                }
            }
            R::OutputControlPoint => {
                let idx = indices(op, 2, at)?;
                ir::Reg::OutputControlPoint {
                    vertex: self.index(&idx[0], at)?,
                    register: self.index(&idx[1], at)?,
                }
            }
            R::InputPatchConstant => {
                ir::Reg::PatchConstant(self.index(&indices(op, 1, at)?[0], at)?)
            }
            R::OutputControlPointId => ir::Reg::OutputControlPointId,
            R::InputForkInstanceId => ir::Reg::ForkInstanceId,
            R::InputJoinInstanceId => ir::Reg::JoinInstanceId,
            R::InputDomainPoint => ir::Reg::DomainLocation,
            R::InputPrimitiveId => ir::Reg::PrimitiveId,
            R::InputGsInstanceId => ir::Reg::GsInstanceId,
            R::InputCoverageMask => ir::Reg::InputCoverage,
            R::InnerCoverage => ir::Reg::InnerCoverage,
            R::OutputDepth => ir::Reg::OutputDepth(ir::DepthOutput::Any),
            R::OutputDepthGreaterEqual => ir::Reg::OutputDepth(ir::DepthOutput::GreaterEqual),
            R::OutputDepthLessEqual => ir::Reg::OutputDepth(ir::DepthOutput::LessEqual),
            R::OutputCoverageMask => ir::Reg::OutputCoverage,
            R::OutputStencilRef => ir::Reg::OutputStencilRef,
            R::Rasterizer => ir::Reg::Rasterizer,
            R::Output => {
                let index = self.index(&indices(op, 1, at)?[0], at)?;
                if matches!(self.phase, Some(ir::PhaseKind::Fork | ir::PhaseKind::Join)) {
                    ir::Reg::PatchConstant(index)
                } else {
                    ir::Reg::Output(index)
                }
            }
            R::IndexableTemp => {
                let idx = indices(op, 2, at)?;
                let register = immediate(&idx[0], at)?;
                ir::Reg::IndexableTemp {
                    array: ir::IndexableId::new(find(&self.lookup_indexable, register, "x", at)?),
                    index: self.index(&idx[1], at)?,
                }
            }
            R::ImmediateConstantBuffer => {
                if self.module.icb.is_empty() {
                    return Err(Error::invalid(
                        at,
                        "icb read without an immediate constant buffer",
                    ));
                }
                ir::Reg::ImmediateConstantBuffer(self.index(&indices(op, 1, at)?[0], at)?)
            }
            R::Immediate32 => ir::Reg::Imm32(match op.components {
                Components::One => [op.imm[0]; 4],
                _ => op.imm,
            }),
            R::Immediate64 => {
                let first = u64::from(op.imm[0]) | u64::from(op.imm[1]) << 32;
                let second = u64::from(op.imm[2]) | u64::from(op.imm[3]) << 32;
                ir::Reg::Imm64(match op.components {
                    Components::One => [first; 2],
                    _ => [first, second],
                })
            }
            R::ConstantBuffer => {
                let (decl, element, slot) = self.descriptor(op, Table::Cbuffer, at)?;
                let slot = slot.ok_or_else(|| Error::invalid(at, "cb operand without a slot"))?;
                ir::Reg::ConstantBuffer {
                    decl: ir::CbId::new(decl),
                    element,
                    slot: self.index(slot, at)?,
                }
            }
            R::Resource => {
                let (decl, element, _) = self.descriptor(op, Table::Srv, at)?;
                ir::Reg::Resource {
                    decl: ir::ResourceId::new(decl),
                    element,
                }
            }
            R::UnorderedAccessView => {
                let (decl, element, _) = self.descriptor(op, Table::Uav, at)?;
                ir::Reg::Uav {
                    decl: ir::ResourceId::new(decl),
                    element,
                }
            }
            R::Sampler => {
                let (decl, element, _) = self.descriptor(op, Table::Sampler, at)?;
                ir::Reg::Sampler {
                    decl: ir::SamplerId::new(decl),
                    element,
                }
            }
            R::ThreadGroupSharedMemory => {
                let register = immediate(&indices(op, 1, at)?[0], at)?;
                ir::Reg::Tgsm(ir::TgsmId::new(find(&self.lookup_tgsm, register, "g", at)?))
            }
            R::InputThreadId => ir::Reg::ThreadId,
            R::InputThreadGroupId => ir::Reg::ThreadGroupId,
            R::InputThreadIdInGroup => ir::Reg::ThreadIdInGroup,
            R::InputThreadIdInGroupFlattened => ir::Reg::ThreadIdInGroupFlattened,
            R::Label => return Err(Error::invalid(at, "label operand outside call/callc")),
            R::FunctionInput | R::FunctionOutput => {
                return Err(Error::unsupported(
                    at,
                    format!("class linkage {}# registers", op.ty.prefix()),
                ))
            }
            R::FunctionBody | R::FunctionTable | R::Interface => {
                return Err(Error::invalid(
                    at,
                    format!("{} operand outside a declaration or fcall", op.ty.prefix()),
                ))
            }
            R::ThisPointer => {
                self.this_pointer(op, self.index(&indices(op, 1, at)?[0], at)?, at)?
            }
            other => {
                return Err(Error::unsupported(
                    at,
                    format!("the {} register", other.prefix()),
                ))
            }
        })
    }

    /// An index: immediate part (fitting 32 bits) and optional register part.
    pub(super) fn index(&self, index: &DxbcIndex, at: u32) -> Result<ir::Index, Error> {
        let imm = u32::try_from(index.imm)
            .map_err(|_| Error::invalid(at, "register index over 32 bits"))?;
        match &index.rel {
            None => Ok(ir::Index::imm(imm)),
            // `rel` checked the limits `relative` packs to.
            Some(r) => ir::Index::relative(imm, self.rel(r, at)?)
                .ok_or_else(|| Error::invalid(at, "relative index past the IR's limits")),
        }
    }

    /// The register part of a relative index.
    fn rel(&self, r: &RelativeRegister, at: u32) -> Result<ir::Rel, Error> {
        let first = || {
            if r.index_count == 1 {
                Ok(r.indices[0])
            } else {
                Err(Error::invalid(
                    at,
                    format!(
                        "relative index register {} without one index",
                        r.ty.prefix()
                    ),
                ))
            }
        };
        let (file, register, element) = match r.ty {
            RegisterType::Temp => (ir::RelFile::Temp, first()?, 0),
            RegisterType::Input => (ir::RelFile::Input, first()?, 0),
            RegisterType::IndexableTemp => {
                if r.index_count != 2 {
                    return Err(Error::invalid(
                        at,
                        "relative index through x# without two indices",
                    ));
                }
                let array = find(&self.lookup_indexable, r.indices[0], "x", at)?;
                (ir::RelFile::IndexableTemp, array, r.indices[1])
            }
            other => {
                return Err(Error::unsupported(
                    at,
                    format!("relative indexing through {} registers", other.prefix()),
                ))
            }
        };
        // D3D's limits keep the register far below 2^15 and the element below 2^12 (validation
        // checks both against the declarations); a larger number cannot name anything declared.
        let narrow = |n: u32, limit: u32, what: &str| match u16::try_from(n) {
            Ok(n16) if n < limit => Ok(n16),
            _ => Err(Error::invalid(
                at,
                format!("{n} relative index {what} exceeds the limit {}", limit - 1),
            )),
        };
        Ok(ir::Rel {
            file,
            register: narrow(register, ir::Rel::REGISTER_LIMIT, "register number")?,
            element: narrow(element, ir::Rel::ELEMENT_LIMIT, "element")?,
            component: r.component & 3,
        })
    }

    /// A `cb`/`t`/`u`/`s` operand: the declaration's position, the descriptor element in its
    /// range, and the index after the register (a constant buffer's slot), if any.
    fn descriptor<'o>(
        &self,
        op: &'o Operand,
        table: Table,
        at: u32,
    ) -> Result<(u32, ir::Index, Option<&'o DxbcIndex>), Error> {
        let (lookup, letter) = match (table, self.version.is_sm51()) {
            (Table::Cbuffer, false) => (&self.lookup_cbuffer, "cb"),
            (Table::Cbuffer, true) => (&self.lookup_cbuffer, "CB"),
            (Table::Srv, false) => (&self.lookup_srv, "t"),
            (Table::Srv, true) => (&self.lookup_srv, "T"),
            (Table::Uav, false) => (&self.lookup_uav, "u"),
            (Table::Uav, true) => (&self.lookup_uav, "U"),
            (Table::Sampler, false) => (&self.lookup_sampler, "s"),
            (Table::Sampler, true) => (&self.lookup_sampler, "S"),
        };
        let idx = op.indices();
        let first_index = idx
            .first()
            .ok_or_else(|| Error::invalid(at, format!("{letter} operand without an index")))?;
        // A dynamic SM5.0 register number is lowered once per register (`dynamic_register.rs`).
        // The override is looked up only for a relative register number (rare), not per operand.
        let overridden = match first_index.rel {
            Some(_) => self.register_override.get(op.ty),
            None => None,
        };
        let id = match overridden {
            Some(register) => register,
            None => immediate(first_index, at)?,
        };
        let decl = find(lookup, id, letter, at)?;
        if !self.version.is_sm51() {
            return Ok((decl, ir::Index::imm(0), idx.get(1)));
        }
        let absolute = idx.get(1).ok_or_else(|| {
            Error::invalid(at, format!("{letter}{id} operand without a register index"))
        })?;
        let first = match table {
            Table::Cbuffer => self
                .module
                .cbuffers
                .get(decl as usize)
                .map(|d| d.range.first),
            Table::Srv | Table::Uav => self
                .module
                .resources
                .get(decl as usize)
                .map(|d| d.range.first),
            Table::Sampler => self
                .module
                .samplers
                .get(decl as usize)
                .map(|d| d.range.first),
        }
        .unwrap_or(0);
        let mut element = self.index(absolute, at)?;
        element.imm = match element.rel() {
            Some(_) => element.imm.wrapping_sub(first),
            None => element.imm.checked_sub(first).ok_or_else(|| {
                Error::invalid(
                    at,
                    format!(
                        "{letter}{id}[{}] is below the range's first register {first}",
                        element.imm
                    ),
                )
            })?,
        };
        element.set_nonuniform(op.nonuniform);
        Ok((decl, element, idx.get(2)))
    }
}

/// The stages a stage-specific register exists in (`None`: every stage).
fn stage_of(reg: &ir::Reg) -> Option<&'static [ir::Stage]> {
    use ir::Reg as R;
    use ir::Stage::*;
    Some(match reg {
        R::ThreadId
        | R::ThreadGroupId
        | R::ThreadIdInGroup
        | R::ThreadIdInGroupFlattened
        | R::Tgsm(_) => &[Compute],
        R::OutputControlPoint { .. }
        | R::OutputControlPointId
        | R::ForkInstanceId
        | R::JoinInstanceId => &[Hull],
        R::PatchConstant(_) => &[Hull, Domain],
        R::DomainLocation => &[Domain],
        R::VertexInput { .. } => &[Geometry, Hull, Domain],
        R::PrimitiveId => &[Geometry, Hull, Domain, Pixel],
        R::GsInstanceId => &[Geometry],
        R::InputCoverage
        | R::InnerCoverage
        | R::OutputDepth(_)
        | R::OutputCoverage
        | R::OutputStencilRef
        | R::Rasterizer => &[Pixel],
        R::Input(_) | R::Output(_) => &[Vertex, Pixel, Geometry, Hull, Domain],
        _ => return None,
    })
}
