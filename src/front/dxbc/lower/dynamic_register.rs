//! SM5.0 operands whose register number is dynamic: `t[r0.w + 0]`, `s[r1.x + 2]`,
//! `cb[r1.y + 0][r1.x + 0]`. fxc writes them in class-linkage function bodies, where a class
//! instance's textures, samplers and data start at a base the runtime chooses (the `this` data).
//!
//! Contract:
//! - An instruction with one such operand becomes a `switch` on the register part of its index
//!   with one `case` per register the D3D11 API can bind (`t0..t127`, `s0..s15`, `cb0..cb13`),
//!   each holding the instruction with that register; a value naming no register runs nothing.
//!   Each register the shader does not declare is declared here, as the instruction uses it:
//!   `t#` with the instruction's resource dimension and return type (its extended opcode
//!   tokens), `s#` as a default sampler, `cb#` with the largest D3D11 size, 4096 vectors. A
//!   declared `t#` of another dimension is left out of the switch.
//! - With class instances bound at translation time, the lowering knows, within straight-line
//!   code, the temp components a plain `mov` last set from `this[s]` (constant then) or an
//!   immediate; control flow, labels, calls and any other write forget them. An instruction
//!   whose every dynamic operand is indexed by such a known component uses the registers
//!   directly (declared as above), no switch; a register outside the API's slots, or declared
//!   in another shape, runs nothing. Any other dynamic operand keeps the switch.
//! - More than one dynamic register operand in one instruction (unless all are resolved as
//!   above), a `t#` without a resource dimension token, a register part that is not `r#` or
//!   `v#`, or a dynamic `u#` is [`Error::Unsupported`] naming the feature. SM5.1 operands never
//!   reach here (their ranges are indexed by the element, not the register).

use std::collections::BTreeMap;

use super::{Error, Lowerer};
use crate::front::dxbc::opcodes::{Class, Opcode};
use crate::front::dxbc::operand::{Components, Modifier, Operand, RegisterType, RelativeRegister};
use crate::front::dxbc::reflect::{ResourceDimension, ReturnType};
use crate::front::dxbc::token::ext_opcode;
use crate::front::dxbc::Instruction;
use crate::ir::binding::{RegisterRange, ResourceKind};
use crate::ir::{self, Op};

/// Constant-buffer slots of the D3D11 API.
const CB_SLOTS: u32 = 14;
/// Shader-resource slots of the D3D11 API.
const SRV_SLOTS: u32 = 128;
/// Sampler slots of the D3D11 API.
const SAMPLER_SLOTS: u32 = 16;
/// The largest constant buffer, in vectors (D3D11).
const MAX_CB_VECTORS: u32 = 4096;

/// The register each kind of dynamic operand stands for while one instruction is lowered with
/// fixed registers (one case of a switch, or registers resolved from bound class instances).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RegisterOverride {
    cb: Option<u32>,
    t: Option<u32>,
    s: Option<u32>,
}

impl RegisterOverride {
    /// The register a dynamic operand of type `ty` stands for now.
    #[inline]
    pub(super) fn get(&self, ty: RegisterType) -> Option<u32> {
        match ty {
            RegisterType::ConstantBuffer => self.cb,
            RegisterType::Resource => self.t,
            RegisterType::Sampler => self.s,
            _ => None,
        }
    }

    fn set(&mut self, ty: RegisterType, register: Option<u32>) {
        match ty {
            RegisterType::ConstantBuffer => self.cb = register,
            RegisterType::Resource => self.t = register,
            RegisterType::Sampler => self.s = register,
            _ => {}
        }
    }
}

/// Temp components with a value known at translation time: `(r#, component)` → bits.
pub(super) type KnownConstants = BTreeMap<(u32, u8), u32>;

/// The dynamic register operand of `inst`, if it has one (SM5.0 `t`, `s`, `cb`, `u`).
#[inline]
pub(super) fn dynamic_operand<'i>(inst: &'i Instruction<'_>) -> Option<&'i Operand> {
    inst.operands().iter().find(|op| dynamic_operand_of(op))
}

impl Lowerer {
    /// Lowers `inst`, whose `operand` has a dynamic register number, as a switch over the
    /// registers it may name.
    pub(super) fn dynamic_register(
        &mut self,
        inst: &Instruction<'_>,
        operand: &Operand,
    ) -> Result<(), Error> {
        let at = inst.offset;
        if self.class_linkage.bound.is_some() && self.resolve_statically(inst)? {
            return Ok(());
        }
        let dynamic = inst
            .operands()
            .iter()
            .filter(|op| dynamic_operand_of(op))
            .count();
        if dynamic > 1 {
            return Err(Error::unsupported(
                at,
                "several dynamically indexed resource registers in one instruction",
            ));
        }
        let Some(index) = operand.indices().first() else {
            return Err(Error::invalid(at, "operand without an index"));
        };
        let Some(rel) = &index.rel else {
            return Err(Error::invalid(at, "register index is not dynamic"));
        };
        let base = u32::try_from(index.imm)
            .map_err(|_| Error::invalid(at, "register index over 32 bits"))?;
        let selector = selector(rel, at)?;
        let mut registers = Vec::new();
        let slots = api_slots(operand.ty, at)?;
        for register in 0..slots {
            if self.declare_implicit(inst, operand.ty, register)? {
                registers.push(register);
            }
        }
        if registers.is_empty() {
            // Every register is declared in a shape this instruction cannot use.
            return Ok(());
        }
        self.track_nesting(Op::Switch, at)?;
        let mut switch = ir::Inst::new(Op::Switch, at);
        switch.push_src(selector);
        switch.payload = ir::Payload::Switch(self.new_switch_table()?);
        self.module.insts.push(switch);
        for register in registers {
            let mut case = ir::Inst::new(Op::Case, at);
            case.push_src(ir::Src::new(ir::Reg::Imm32(
                [register.wrapping_sub(base); 4],
            )));
            self.module.insts.push(case);
            self.register_override.set(operand.ty, Some(register));
            let lowered = self.executable_op(inst);
            self.register_override = RegisterOverride::default();
            lowered?;
            self.module.insts.push(ir::Inst::new(Op::Break, at));
        }
        self.module.insts.push(ir::Inst::new(Op::EndSwitch, at));
        self.track_nesting(Op::EndSwitch, at)
    }

    /// Bound class instances: lowers `inst` with its registers fixed when every dynamic operand
    /// is indexed by a temp component of known value; false (nothing done) otherwise.
    fn resolve_statically(&mut self, inst: &Instruction<'_>) -> Result<bool, Error> {
        let at = inst.offset;
        let mut fixed = RegisterOverride::default();
        let mut runs = true;
        for op in inst.operands().iter().filter(|op| dynamic_operand_of(op)) {
            let Some(index) = op.indices().first() else {
                return Ok(false);
            };
            let Some(rel) = &index.rel else {
                return Ok(false);
            };
            if rel.ty != RegisterType::Temp || rel.index_count != 1 {
                return Ok(false);
            }
            let Some(&value) = self
                .class_linkage
                .constants
                .get(&(rel.indices[0], rel.component & 3))
            else {
                return Ok(false);
            };
            let base = u32::try_from(index.imm)
                .map_err(|_| Error::invalid(at, "register index over 32 bits"))?;
            let register = base.wrapping_add(value);
            // A register the API does not have, or one declared in another shape: no access.
            runs &=
                register < api_slots(op.ty, at)? && self.declare_implicit(inst, op.ty, register)?;
            fixed.set(op.ty, Some(register));
        }
        if runs {
            self.register_override = fixed;
            let lowered = self.executable_op(inst);
            self.register_override = RegisterOverride::default();
            lowered?;
        }
        Ok(true)
    }

    /// Bound class instances: updates the known temp components after `inst` (`mov` of a
    /// constant sets them; any other write, control flow or declaration forgets them).
    #[inline]
    pub(super) fn track_constants(&mut self, inst: &Instruction<'_>) {
        if self.class_linkage.bound.is_some() {
            self.track_bound_constants(inst);
        }
    }

    /// [`Lowerer::track_constants`] once instances are bound.
    fn track_bound_constants(&mut self, inst: &Instruction<'_>) {
        if matches!(
            inst.opcode.class(),
            Class::ControlFlow | Class::Declaration | Class::CustomData
        ) {
            self.class_linkage.constants.clear();
            return;
        }
        if inst.opcode == Opcode::Mov && !inst.token.saturate() {
            if let [dst, src] = inst.operands() {
                if let (RegisterType::Temp, Components::Mask(mask), [index]) =
                    (dst.ty, dst.components, dst.indices())
                {
                    if index.rel.is_none() {
                        let register = u32::try_from(index.imm).unwrap_or(u32::MAX);
                        let values = self.constant_source(src);
                        for c in 0..4u8 {
                            if mask & (1 << c) == 0 {
                                continue;
                            }
                            let value = values.map(|v| v[c as usize]);
                            let known = &mut self.class_linkage.constants;
                            match value {
                                Some(v) => known.insert((register, c), v),
                                None => known.remove(&(register, c)),
                            };
                        }
                        return;
                    }
                }
            }
        }
        for op in inst.operands() {
            if let (RegisterType::Temp, Components::Mask(mask)) = (op.ty, op.components) {
                let register = op
                    .indices()
                    .first()
                    .and_then(|i| u32::try_from(i.imm).ok())
                    .unwrap_or(u32::MAX);
                for c in (0..4u8).filter(|c| mask & (1 << c) != 0) {
                    self.class_linkage.constants.remove(&(register, c));
                }
            }
        }
    }

    /// The value of each destination component a `mov` from `src` writes, when `src` is an
    /// immediate or `this[s]` of a bound instance, without modifier.
    fn constant_source(&self, src: &Operand) -> Option<[u32; 4]> {
        if src.modifier != Modifier::None {
            return None;
        }
        let vector = match src.ty {
            RegisterType::Immediate32 => match src.components {
                Components::One => [src.imm[0]; 4],
                _ => src.imm,
            },
            RegisterType::ThisPointer => {
                let [index] = src.indices() else { return None };
                if index.rel.is_some() {
                    return None;
                }
                let slot = u32::try_from(index.imm).ok()?;
                self.bound_instance(slot)
                    .map(|i| i.this_data())
                    .unwrap_or_default()
            }
            _ => return None,
        };
        Some(super::class_linkage::read_order(src, vector))
    }

    /// Declares `register` of `ty` as `inst` uses it, unless it is declared; false when it is
    /// declared in a shape `inst` cannot use.
    fn declare_implicit(
        &mut self,
        inst: &Instruction<'_>,
        ty: RegisterType,
        register: u32,
    ) -> Result<bool, Error> {
        let at = inst.offset;
        match ty {
            RegisterType::ConstantBuffer => {
                if !self.lookup_cbuffer.contains_key(&register) {
                    let position = self.next_position(self.module.cbuffers.len(), at)?;
                    self.lookup_cbuffer.insert(register, position);
                    self.module.cbuffers.push(ir::CbDecl {
                        range: RegisterRange::single(ResourceKind::ConstantBuffer, 0, register),
                        id: register,
                        size: MAX_CB_VECTORS,
                        dynamic: true,
                        binding: None,
                        span: at,
                    });
                }
                Ok(true)
            }
            RegisterType::Sampler => {
                if !self.lookup_sampler.contains_key(&register) {
                    let position = self.next_position(self.module.samplers.len(), at)?;
                    self.lookup_sampler.insert(register, position);
                    self.module.samplers.push(ir::SamplerDecl {
                        range: RegisterRange::single(ResourceKind::Sampler, 0, register),
                        id: register,
                        comparison: false,
                        binding: None,
                        span: at,
                    });
                }
                Ok(true)
            }
            _ => {
                let shape = resource_shape(inst)?;
                if let Some(&position) = self.lookup_srv.get(&register) {
                    let declared = self.module.resources.get(position as usize);
                    return Ok(declared.is_some_and(|d| same_kind(d.shape, shape)));
                }
                let position = self.next_position(self.module.resources.len(), at)?;
                self.lookup_srv.insert(register, position);
                self.module.resources.push(ir::ResourceDecl {
                    range: RegisterRange::single(ResourceKind::ShaderResource, 0, register),
                    id: register,
                    shape,
                    coherent: false,
                    rasterizer_ordered: false,
                    counter: false,
                    binding: None,
                    counter_binding: None,
                    view_of: None,
                    span: at,
                });
                Ok(true)
            }
        }
    }

    /// `len` as a table position.
    fn next_position(&self, len: usize, at: u32) -> Result<u32, Error> {
        u32::try_from(len).map_err(|_| Error::invalid(at, "too many declarations"))
    }
}

/// True for an operand [`dynamic_operand`] finds.
#[inline]
fn dynamic_operand_of(op: &Operand) -> bool {
    matches!(
        op.ty,
        RegisterType::Resource
            | RegisterType::Sampler
            | RegisterType::ConstantBuffer
            | RegisterType::UnorderedAccessView
    ) && op.indices().first().is_some_and(|i| i.rel.is_some())
}

/// The registers of `ty` the D3D11 API can bind.
fn api_slots(ty: RegisterType, at: u32) -> Result<u32, Error> {
    match ty {
        RegisterType::ConstantBuffer => Ok(CB_SLOTS),
        RegisterType::Sampler => Ok(SAMPLER_SLOTS),
        RegisterType::Resource => Ok(SRV_SLOTS),
        _ => Err(Error::unsupported(
            at,
            format!("dynamically indexed {}# registers", ty.prefix()),
        )),
    }
}

/// The switch selector: the register part of the index, one component.
pub(super) fn selector(rel: &RelativeRegister, at: u32) -> Result<ir::Src, Error> {
    let reg = match (rel.ty, rel.index_count) {
        (RegisterType::Temp, 1) => ir::Reg::Temp(rel.indices[0]),
        (RegisterType::Input, 1) => ir::Reg::Input(ir::Index::imm(rel.indices[0])),
        _ => {
            return Err(Error::unsupported(
                at,
                format!(
                    "a resource register indexed by {}# (class linkage)",
                    rel.ty.prefix()
                ),
            ))
        }
    };
    Ok(ir::Src {
        swizzle: [rel.component & 3; 4],
        ..ir::Src::new(reg)
    })
}

/// The resource shape a `t[...]` operand of `inst` names: its resource-dimension and
/// return-type extended tokens.
fn resource_shape(inst: &Instruction<'_>) -> Result<ir::ResourceShape, Error> {
    let at = inst.offset;
    let Some(dim) = inst.extension(ext_opcode::RESOURCE_DIM) else {
        return Err(Error::unsupported(
            at,
            "a dynamically indexed t# without a resource dimension (class linkage)",
        ));
    };
    let ret = inst
        .extension(ext_opcode::RESOURCE_RETURN_TYPE)
        .map(|e| ReturnType::unpack(e.return_types()))
        .unwrap_or([ReturnType::Float; 4]);
    Ok(
        match ResourceDimension::from_raw(dim.resource_dimension()) {
            ResourceDimension::RawBuffer => ir::ResourceShape::Raw,
            ResourceDimension::StructuredBuffer => ir::ResourceShape::Structured {
                stride: dim.structure_stride(),
            },
            other => ir::ResourceShape::Typed {
                dim: super::decl::dimension(other, at)?,
                ret: super::decl::return_types(ret, at)?,
                samples: 0,
            },
        },
    )
}

/// Whether a declared resource of shape `declared` serves an access of shape `used`.
fn same_kind(declared: ir::ResourceShape, used: ir::ResourceShape) -> bool {
    use ir::ResourceShape as S;
    match (declared, used) {
        (S::Raw, S::Raw) | (S::Structured { .. }, S::Structured { .. }) => true,
        (S::Typed { dim: a, .. }, S::Typed { dim: b, .. }) => a == b,
        _ => false,
    }
}
