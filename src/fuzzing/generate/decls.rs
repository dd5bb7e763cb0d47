//! Declarations of the random programs: resources, interfaces, stage inputs and outputs,
//! and the phases of hull shaders.

use super::{Gen, Phase, TEMPS};
use crate::dxbc::encode::token::{self as tok, controls};
use crate::dxbc::encode::{reg, OperandBuild, ProgramBuilder};
use crate::dxbc::opcodes::Opcode;
use crate::dxbc::operand::{Components, Operand, RegisterType as R};
use crate::dxbc::program::Stage;

use Opcode as O;

const SIV_OUT: &[u32] = &[1, 2, 3, 4, 5];
const SGV_PS: &[u32] = &[7, 9, 10];
/// The tessellation-factor system values (first, last).
const TESS_FACTORS: (u32, u32) = (11, 22);

impl Gen<'_> {
    /// A declared SM5.0 register or SM5.1 range `T#[lower:upper]` (unbounded at times).
    fn decl_binding(&mut self, ty: R, id: u32) -> Operand {
        if self.sm51() {
            let lower = self.rng.below32(16);
            let upper = if self.rng.chance(25) {
                u32::MAX
            } else {
                lower + self.rng.below32(8)
            };
            let mut op = reg(ty, &[id, lower, upper]);
            op.components = Components::Swizzle([0, 1, 2, 3]);
            op
        } else {
            reg(ty, &[id])
        }
    }

    fn space(&mut self, b: &mut ProgramBuilder) {
        if self.sm51() {
            let space = self.rng.pick(&[0, 0, 1, 2, 7, 1000]);
            b.space(space);
        }
    }

    fn return_type(&mut self) -> u32 {
        let ty = self.rng.range(1, 9);
        let types = if self.rng.chance(70) {
            [ty; 4]
        } else {
            [0; 4].map(|_| self.rng.range(1, 9))
        };
        tok::return_types(types).expect("return types")
    }

    /// A declared register with a mask (or with none, as fxc writes scalar system registers).
    fn decl_reg(&mut self, ty: R, indices: &[u32]) -> Operand {
        let mut op = reg(ty, indices);
        op.components = Components::Mask(self.mask(false));
        op
    }

    fn float_value(&mut self) -> u32 {
        if self.lossless && self.rng.chance(50) {
            self.value32(true)
        } else {
            self.exact_float()
        }
    }

    /// Declarations shared by every stage (`dcl_globalFlags`, buffers, textures, samplers,
    /// UAVs, the immediate constant buffer, interfaces).
    pub(super) fn resource_decls(&mut self, b: &mut ProgramBuilder) {
        let v = self.v;
        if self.rng.chance(70) {
            let flags = self.rng.range(1, 0x1ff);
            self.op(b, O::DclGlobalFlags, flags);
        }
        if self.rng.chance(30) {
            let rows = self.rng.range(0, 4);
            let payload: Vec<u32> = (0..rows * 4)
                .map(|_| {
                    if self.lossless {
                        self.value32(false)
                    } else if self.rng.chance(50) {
                        self.exact_float()
                    } else {
                        self.exact_int()
                    }
                })
                .collect();
            self.coverage[O::CustomData as usize] += 1;
            b.custom_data(3, &payload);
            self.has_icb = rows > 0;
        }
        let slot0 = self.rng.below32(4);
        for id in 0..self.rng.below32(3) {
            let dynamic = if self.rng.chance(30) {
                controls::CB_DYNAMIC
            } else {
                0
            };
            let size = self.rng.range(1, 4096);
            if self.sm51() {
                let op = self.decl_binding(R::ConstantBuffer, id);
                self.op(b, O::DclConstantBuffer, dynamic);
                b.src(op).cb_size(size);
                self.space(b);
            } else {
                let op = reg(R::ConstantBuffer, &[slot0 + id, size]).swizzle([0, 1, 2, 3]);
                self.op(b, O::DclConstantBuffer, dynamic);
                b.src(op);
            }
        }
        for id in 0..self.rng.below32(3) {
            let mode = self.rng.below32(3);
            let op = self.decl_binding(R::Sampler, slot0 + id);
            self.op(b, O::DclSampler, mode);
            b.dst(op);
            self.space(b);
        }
        for id in 0..self.rng.below32(4) {
            let dim = self.rng.range(1, 10);
            let mut bits = controls::resource_dimension(dim);
            if matches!(dim, 4 | 9) {
                bits |= controls::sample_count(self.rng.below32(33));
            }
            let op = self.decl_binding(R::Resource, slot0 + id);
            let ret = self.return_type();
            self.op(b, O::DclResource, bits);
            b.dst(op).return_type(ret);
            self.space(b);
        }
        let memory = v.major >= 5 || v.stage == Stage::Compute;
        if memory {
            for id in 4..4 + self.rng.below32(3) {
                let op = self.decl_binding(R::Resource, id);
                if self.rng.chance(50) {
                    self.op(b, O::DclResourceRaw, 0);
                    b.dst(op);
                } else {
                    let stride = 4 * self.rng.range(1, 512);
                    self.op(b, O::DclResourceStructured, 0);
                    b.dst(op).imm(stride);
                }
                self.space(b);
            }
            for id in 0..self.rng.below32(4) {
                let op = self.decl_binding(R::UnorderedAccessView, id);
                let mut bits = 0;
                if self.rng.chance(30) {
                    bits |= controls::GLOBALLY_COHERENT;
                }
                if v.stage == Stage::Pixel && v.major >= 5 && self.rng.chance(20) {
                    bits |= controls::RASTERIZER_ORDERED;
                }
                let typed = v.major >= 5;
                match self.rng.below32(if typed { 3 } else { 2 }) {
                    0 => {
                        self.op(b, O::DclUavRaw, bits);
                        b.dst(op);
                    }
                    1 => {
                        if self.rng.chance(30) {
                            bits |= controls::UAV_HAS_COUNTER;
                        }
                        let stride = 4 * self.rng.range(1, 512);
                        self.op(b, O::DclUavStructured, bits);
                        b.dst(op).imm(stride);
                    }
                    _ => {
                        let dim = self.rng.pick(&[1, 2, 3, 5, 7, 8]);
                        bits |= controls::resource_dimension(dim);
                        let ret = self.return_type();
                        self.op(b, O::DclUavTyped, bits);
                        b.dst(op).return_type(ret);
                    }
                }
                self.space(b);
            }
        }
        if (v.major, v.minor) == (5, 0) && self.rng.chance(30) {
            self.interface_decls(b);
        }
    }

    /// `dcl_function_body`, `dcl_function_table`, `dcl_interface` (SM5.0 only).
    fn interface_decls(&mut self, b: &mut ProgramBuilder) {
        let bodies = self.rng.range(1, 4);
        for i in 0..bodies {
            self.op(b, O::DclFunctionBody, 0);
            b.imm(i);
        }
        let tables = self.rng.range(1, 3);
        for t in 0..tables {
            let list: Vec<u32> = (0..self.rng.range(1, 3))
                .map(|_| self.rng.below32(bodies))
                .collect();
            self.op(b, O::DclFunctionTable, 0);
            b.imm(t).imm(list.len() as u32).list(&list);
        }
        for id in 0..self.rng.range(1, 2) {
            let array = self.rng.range(1, 3);
            let table_len = self.rng.range(1, 3);
            let list: Vec<u32> = (0..self.rng.range(1, 3))
                .map(|_| self.rng.below32(tables))
                .collect();
            let indexed = u32::from(self.rng.chance(50));
            self.op(b, O::DclInterface, indexed);
            b.imm(id)
                .imm(table_len)
                .imm((array << 16) | list.len() as u32)
                .list(&list);
            self.interfaces.push((id, array, table_len));
        }
    }

    /// `dcl_temps` and `dcl_indexableTemp`.
    pub(super) fn temp_decls(&mut self, b: &mut ProgramBuilder) {
        self.op(b, O::DclTemps, 0);
        b.imm(TEMPS + self.rng.below32(8));
        self.xs.clear();
        for x in 0..self.rng.below32(3) {
            let size = self.rng.range(1, 32);
            self.op(b, O::DclIndexableTemp, 0);
            b.imm(x).imm(size).imm(self.rng.range(1, 4));
            self.xs.push((x, size));
        }
    }

    fn outputs(&mut self, b: &mut ProgramBuilder, first: u32, siv: &[u32]) {
        for n in first..first + self.rng.range(1, 4) {
            let op = self.decl_reg(R::Output, &[n]);
            match self.rng.below32(4) {
                0 if !siv.is_empty() => {
                    let name = self.rng.pick(siv);
                    self.op(b, O::DclOutputSiv, 0);
                    b.dst(op).name(name);
                }
                1 => {
                    let name = self.rng.pick(&[0, 7, 9]);
                    self.op(b, O::DclOutputSgv, 0);
                    b.dst(op).name(name);
                }
                _ => {
                    self.op(b, O::DclOutput, 0);
                    b.dst(op);
                }
            }
        }
        if self.rng.chance(30) {
            let op = self.decl_reg(R::Output, &[first]);
            self.op(b, O::DclIndexRange, 0);
            b.dst(op).imm(self.rng.range(2, 4));
        }
    }

    /// A system register declared with `dcl_input` (no mask for scalars, as fxc writes them).
    fn system_input(&mut self, b: &mut ProgramBuilder, ty: R, masked: bool) {
        let mut op = reg(ty, &[]);
        op.components = if masked {
            Components::Mask(self.mask(false))
        } else if ty == R::InputCoverageMask {
            Components::One
        } else {
            Components::Zero
        };
        self.op(b, O::DclInput, 0);
        b.dst(op);
    }

    pub(super) fn stage_decls(&mut self, b: &mut ProgramBuilder) {
        let sm5 = self.v.major >= 5;
        match self.v.stage {
            Stage::Vertex => {
                for n in 0..self.rng.range(1, 4) {
                    let op = self.decl_reg(R::Input, &[n]);
                    if self.rng.chance(25) {
                        let name = self.rng.pick(&[6, 8]);
                        self.op(b, O::DclInputSgv, 0);
                        b.dst(op).name(name);
                    } else {
                        self.op(b, O::DclInput, 0);
                        b.dst(op);
                    }
                }
                if self.rng.chance(20) {
                    let op = self.decl_reg(R::Input, &[0]);
                    self.op(b, O::DclIndexRange, 0);
                    b.dst(op).imm(self.rng.range(2, 4));
                }
                self.outputs(b, 0, SIV_OUT);
            }
            Stage::Pixel => {
                for n in 0..self.rng.range(1, 5) {
                    let op = self.decl_reg(R::Input, &[n]);
                    let mode = self.rng.below32(8);
                    match self.rng.below32(4) {
                        0 => {
                            let name = self.rng.pick(SIV_OUT);
                            self.op(b, O::DclInputPsSiv, controls::interpolation(mode));
                            b.dst(op).name(name);
                        }
                        1 => {
                            let name = self.rng.pick(SGV_PS);
                            self.op(b, O::DclInputPsSgv, controls::interpolation(mode));
                            b.dst(op).name(name);
                        }
                        _ => {
                            self.op(b, O::DclInputPs, controls::interpolation(mode));
                            b.dst(op);
                        }
                    }
                }
                if sm5 && self.rng.chance(30) {
                    self.system_input(b, R::InputCoverageMask, false);
                }
                if sm5 && self.rng.chance(10) {
                    self.system_input(b, R::InnerCoverage, false);
                }
                self.outputs(b, 0, &[]);
                let mut special = vec![R::OutputDepth, R::OutputCoverageMask];
                if sm5 {
                    special.extend([
                        R::OutputDepthGreaterEqual,
                        R::OutputDepthLessEqual,
                        R::OutputStencilRef,
                    ]);
                }
                if self.rng.chance(40) {
                    let ty = self.rng.pick(&special);
                    let mut op = reg(ty, &[]);
                    op.components = if ty == R::OutputCoverageMask {
                        Components::Zero
                    } else {
                        Components::One
                    };
                    self.op(b, O::DclOutput, 0);
                    b.dst(op);
                }
            }
            Stage::Geometry => {
                let vertices = self.rng.range(1, 6);
                for n in 0..self.rng.range(1, 4) {
                    let op = self.decl_reg(R::Input, &[vertices, n]);
                    if n == 0 && self.rng.chance(50) {
                        self.op(b, O::DclInputSiv, 0);
                        b.dst(op).name(1);
                    } else {
                        self.op(b, O::DclInput, 0);
                        b.dst(op);
                    }
                }
                if self.rng.chance(20) {
                    let op = self.decl_reg(R::Input, &[vertices, 0]);
                    self.op(b, O::DclIndexRange, 0);
                    b.dst(op).imm(self.rng.range(2, 4));
                }
                if self.rng.chance(30) {
                    self.system_input(b, R::InputPrimitiveId, false);
                }
                let mut primitives = vec![1, 2, 3, 6, 7];
                if sm5 {
                    primitives.push(self.rng.range(8, 39));
                    if self.rng.chance(30) {
                        self.system_input(b, R::InputGsInstanceId, false);
                        self.op(b, O::DclGsInstanceCount, 0);
                        b.imm(self.rng.range(1, 32));
                    }
                }
                let p = self.rng.pick(&primitives);
                self.op(b, O::DclInputPrimitive, controls::primitive(p));
                if sm5 {
                    for m in 0..self.rng.below32(3) {
                        self.op(b, O::DclStream, 0);
                        b.dst(reg(R::Stream, &[m]));
                        self.outputs(b, 4 * m, SIV_OUT);
                    }
                } else {
                    self.outputs(b, 0, SIV_OUT);
                }
                let topology = self.rng.pick(&[1, 3, 5]);
                self.op(b, O::DclOutputTopology, controls::primitive(topology));
                self.op(b, O::DclMaxOutputVertexCount, 0);
                b.imm(self.rng.range(1, 1024));
            }
            Stage::Domain => {
                let domain = self.rng.range(1, 3);
                let value = self.rng.range(1, 32);
                self.op(b, O::DclInputControlPointCount, value);
                self.op(b, O::DclTessDomain, domain);
                let mut op = reg(R::InputDomainPoint, &[]);
                op.components = Components::Mask(if domain == 2 { 0x7 } else { 0x3 });
                self.op(b, O::DclInput, 0);
                b.dst(op);
                for n in 0..self.rng.range(1, 3) {
                    let count = self.rng.range(1, 32);
                    let op = self.decl_reg(R::InputControlPoint, &[count, n]);
                    self.op(b, O::DclInput, 0);
                    b.dst(op);
                }
                for n in 0..self.rng.range(1, 4) {
                    let op = self.decl_reg(R::InputPatchConstant, &[n]);
                    if self.rng.chance(50) {
                        self.op(b, O::DclInputSiv, 0);
                        b.dst(op).name(self.rng.range(11, 22));
                    } else {
                        self.op(b, O::DclInput, 0);
                        b.dst(op);
                    }
                }
                if self.rng.chance(30) {
                    self.system_input(b, R::InputPrimitiveId, false);
                }
                self.outputs(b, 0, SIV_OUT);
            }
            Stage::Compute => {
                for ty in [
                    R::InputThreadId,
                    R::InputThreadGroupId,
                    R::InputThreadIdInGroup,
                ] {
                    if self.rng.chance(50) {
                        self.system_input(b, ty, true);
                    }
                }
                if self.rng.chance(50) {
                    self.system_input(b, R::InputThreadIdInGroupFlattened, false);
                }
                for g in 0..self.rng.below32(3) {
                    let op = reg(R::ThreadGroupSharedMemory, &[g]);
                    if self.rng.chance(50) {
                        self.op(b, O::DclTgsmRaw, 0);
                        b.dst(op).imm(4 * self.rng.range(1, 1024));
                    } else {
                        self.op(b, O::DclTgsmStructured, 0);
                        b.dst(op)
                            .imm(4 * self.rng.range(1, 64))
                            .imm(self.rng.range(1, 256));
                    }
                }
                self.op(b, O::DclThreadGroup, 0);
                b.imm(self.rng.range(1, 64))
                    .imm(self.rng.range(1, 16))
                    .imm(self.rng.range(1, 4));
            }
            Stage::Hull | Stage::Library => unreachable!("hull shaders have their own layout"),
        }
    }

    /// A hull shader: declarations, an optional control-point phase, fork phases (instance
    /// counts, index ranges over tess factors) and an optional join phase.
    pub(super) fn hull(&mut self, b: &mut ProgramBuilder, budget: u32) {
        self.op(b, O::HsDecls, 0);
        let value = self.rng.range(0, 32);
        self.op(b, O::DclInputControlPointCount, value);
        let value = self.rng.range(0, 32);
        self.op(b, O::DclOutputControlPointCount, value);
        let value = self.rng.range(1, 3);
        self.op(b, O::DclTessDomain, value);
        let value = self.rng.range(1, 4);
        self.op(b, O::DclTessPartitioning, value);
        let value = self.rng.range(1, 4);
        self.op(b, O::DclTessOutputPrimitive, value);
        let factor = self.float_value();
        self.op(b, O::DclHsMaxTessFactor, 0);
        b.imm(factor);
        self.resource_decls(b);
        let phases = self.rng.range(1, 4);
        let share = budget / phases;
        if self.rng.chance(70) {
            self.phase = Phase::ControlPoint;
            self.op(b, O::HsControlPointPhase, 0);
            self.system_input(b, R::OutputControlPointId, false);
            for n in 0..self.rng.range(1, 3) {
                let count = self.rng.range(1, 32);
                let op = self.decl_reg(R::Input, &[count, n]);
                self.op(b, O::DclInput, 0);
                b.dst(op);
            }
            self.outputs(b, 0, &[]);
            self.temp_decls(b);
            self.body(b, share);
        }
        let mut first = 0;
        for _ in 0..self.rng.range(1, 2) {
            self.phase = Phase::Fork;
            self.op(b, O::HsForkPhase, 0);
            let instances = self.rng.range(1, 4);
            self.op(b, O::DclHsForkPhaseInstanceCount, 0);
            b.imm(instances);
            self.system_input(b, R::InputForkInstanceId, false);
            let count = self.rng.range(1, 32);
            let op = self.decl_reg(R::InputControlPoint, &[count, 0]);
            self.op(b, O::DclInput, 0);
            b.dst(op);
            for n in first..first + instances {
                let mut op = reg(R::Output, &[n]);
                op.components = Components::Mask(1);
                self.op(b, O::DclOutputSiv, 0);
                b.dst(op)
                    .name(self.rng.range(TESS_FACTORS.0, TESS_FACTORS.1));
            }
            if instances > 1 {
                let mut op = reg(R::Output, &[first]);
                op.components = Components::Mask(1);
                self.op(b, O::DclIndexRange, 0);
                b.dst(op).imm(instances);
            }
            first += instances;
            self.temp_decls(b);
            self.body(b, share);
        }
        if self.rng.chance(60) {
            self.phase = Phase::Join;
            self.op(b, O::HsJoinPhase, 0);
            if self.rng.chance(50) {
                self.op(b, O::DclHsJoinPhaseInstanceCount, 0);
                b.imm(self.rng.range(1, 2));
                self.system_input(b, R::InputJoinInstanceId, false);
            }
            for n in 0..first.min(3) {
                let op = self.decl_reg(R::InputPatchConstant, &[n]);
                self.op(b, O::DclInput, 0);
                b.dst(op);
            }
            let count = self.rng.range(1, 32);
            let op = self.decl_reg(R::OutputControlPoint, &[count, 0]);
            self.op(b, O::DclInput, 0);
            b.dst(op);
            self.outputs(b, first, &[20]);
            self.temp_decls(b);
            self.body(b, share);
        }
    }
}
