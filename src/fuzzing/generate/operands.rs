//! Operands of the random programs: registers, relative indices and resource operands.
//!
//! Contract: in the encodable profile operands name any register of the right kind (resources
//! `t0`–`t7`, inputs `v0`–`v7`, any constant-buffer slot), relative indices add any offset. In
//! the translatable profile they name only what the program declared ([`super::registry`]):
//! constant buffers, the immediate constant buffer and indexable temps within their size,
//! SM5.1 ranges at a register between their bounds (relative indices add the lower bound),
//! inputs, outputs (within their declared components) and system registers of the current
//! phase, inputs and outputs indexed relatively only inside a declared `dcl_indexrange`, and
//! the resource and sampler the instruction's [`Plan`] picked.

use super::kinds::{doubles, Kind};
use super::registry::{Binding, IoRegister};
use super::targets::{Plan, Target};
use super::{Gen, Phase, Profile, INPUTS, TEMPS};
use crate::front::dxbc::opcodes::{Class, NumType, Opcode, Slot};
use crate::front::dxbc::operand::{
    Components, Modifier, Operand, RegisterType as R, RelativeRegister,
};
use crate::front::dxbc::program::Stage;
use crate::text::dxbc::encode::{imm32, reg, relative, OperandBuild};

use Opcode as O;

impl Gen<'_> {
    /// The register of a relative index: `r#.c` or `x#[n].c`.
    fn rel(&mut self) -> RelativeRegister {
        let component = self.rng.below32(4) as u8;
        if !self.xs.is_empty() && self.rng.chance(15) {
            let x = self.rng.pick(&self.xs);
            let component = if self.valid() {
                component % x.components
            } else {
                component
            };
            relative(
                R::IndexableTemp,
                &[x.register, self.rng.below32(x.size)],
                component,
            )
        } else {
            relative(R::Temp, &[self.rng.below32(TEMPS)], component)
        }
    }

    /// Makes index `i` relative with probability `percent`; `+ 0` is encoded purely relative.
    /// In the translatable profile the offset stays below `limit`.
    fn maybe_rel(&mut self, op: Operand, i: usize, percent: u32, limit: u32) -> Operand {
        if !self.rng.chance(percent) {
            return op;
        }
        let imm = if self.valid() {
            self.rng.below32(limit.max(1))
        } else if self.rng.chance(30) {
            0
        } else {
            self.rng.range(1, 40)
        };
        self.relative_at(op, i, imm)
    }

    /// Makes index `i` relative: `[rel + offset]`.
    fn relative_at(&mut self, op: Operand, i: usize, offset: u32) -> Operand {
        let rel = self.rel();
        op.relative_index(i, (offset != 0).then_some(offset), rel)
    }

    fn temp(&mut self) -> Operand {
        reg(R::Temp, &[self.rng.below32(TEMPS)])
    }

    fn has_outputs(&self) -> bool {
        self.v.stage != Stage::Compute
    }

    /// An input attribute of the stage (and phase), if it has any.
    fn input(&mut self) -> Option<Operand> {
        if self.valid() {
            return self.declared_input();
        }
        let n = self.rng.below32(INPUTS);
        let vertex = self.rng.below32(3);
        Some(match (self.v.stage, self.phase) {
            (Stage::Compute, _) => return None,
            (Stage::Geometry, _) | (Stage::Hull, Phase::ControlPoint) => {
                let op = reg(R::Input, &[vertex, n]);
                self.maybe_rel(op, 0, 25, 0)
            }
            (Stage::Hull, _) | (Stage::Domain, _) => {
                let r = self.rng.below32(100);
                if r < 30 && matches!(self.phase, Phase::Join | Phase::Main) {
                    let op = reg(R::InputPatchConstant, &[n]);
                    self.maybe_rel(op, 0, 15, 0)
                } else {
                    let ty = if r < 60 && self.phase != Phase::Main {
                        R::OutputControlPoint
                    } else {
                        R::InputControlPoint
                    };
                    let op = reg(ty, &[vertex, n]);
                    let op = self.maybe_rel(op, 0, 15, 0);
                    self.maybe_rel(op, 1, 5, 0)
                }
            }
            _ => {
                let op = reg(R::Input, &[n]);
                self.maybe_rel(op, 0, 8, 0)
            }
        })
    }

    /// A declared input register of the current phase (translatable profile).
    fn declared_input(&mut self) -> Option<Operand> {
        let io = &self.io;
        let mut files = Vec::new();
        if !io.inputs.is_empty() {
            files.push(R::Input);
        }
        if !io.input_points.1.is_empty() {
            files.push(R::InputControlPoint);
        }
        if !io.output_points.1.is_empty() {
            files.push(R::OutputControlPoint);
        }
        if !io.patch_constants.is_empty() {
            files.push(R::InputPatchConstant);
        }
        if files.is_empty() {
            return None;
        }
        Some(match self.rng.pick(&files) {
            R::Input => {
                let n = self.rng.pick(&self.io.inputs).register;
                let range = self.io.input_range;
                let vertices = self.io.vertices;
                let (op, register_index) = if vertices > 0 {
                    let op = reg(R::Input, &[self.rng.below32(vertices), n]);
                    (self.maybe_rel(op, 0, 25, 1), 1)
                } else {
                    (reg(R::Input, &[n]), 0)
                };
                match range {
                    Some((first, _)) if self.rng.chance(10) => {
                        self.relative_at(op, register_index, first)
                    }
                    _ => op,
                }
            }
            R::InputControlPoint => {
                let (points, ref regs) = self.io.input_points;
                let n = self.rng.pick(regs);
                let op = reg(R::InputControlPoint, &[self.rng.below32(points), n]);
                self.maybe_rel(op, 0, 15, 1)
            }
            R::OutputControlPoint => {
                let (points, ref regs) = self.io.output_points;
                let n = self.rng.pick(regs);
                let op = reg(R::OutputControlPoint, &[self.rng.below32(points), n]);
                self.maybe_rel(op, 0, 15, 1)
            }
            _ => reg(
                R::InputPatchConstant,
                &[self.rng.pick(&self.io.patch_constants)],
            ),
        })
    }

    /// Scalar system registers readable here (read without components or as `.x`).
    fn scalar_inputs(&self) -> Vec<R> {
        if self.valid() {
            return self.io.scalars.clone();
        }
        let sm5 = self.v.major >= 5;
        match (self.v.stage, self.phase) {
            (Stage::Pixel, _) if sm5 => vec![R::InputCoverageMask, R::InnerCoverage],
            (Stage::Geometry, _) if sm5 => vec![R::InputPrimitiveId, R::InputGsInstanceId],
            (Stage::Geometry, _) => vec![R::InputPrimitiveId],
            (Stage::Hull, Phase::ControlPoint) => {
                vec![R::InputPrimitiveId, R::OutputControlPointId]
            }
            (Stage::Hull, Phase::Fork) => vec![R::InputPrimitiveId, R::InputForkInstanceId],
            (Stage::Hull, Phase::Join) => vec![R::InputPrimitiveId, R::InputJoinInstanceId],
            (Stage::Domain, _) => vec![R::InputPrimitiveId],
            (Stage::Compute, _) => vec![R::InputThreadIdInGroupFlattened],
            _ => vec![],
        }
    }

    /// Vector system registers readable here, with their component count.
    fn vector_inputs(&self) -> Vec<(R, u8)> {
        if self.valid() {
            return self.io.vectors.clone();
        }
        match self.v.stage {
            Stage::Compute => vec![
                (R::InputThreadId, 4),
                (R::InputThreadGroupId, 4),
                (R::InputThreadIdInGroup, 4),
            ],
            Stage::Domain => vec![(R::InputDomainPoint, 4)],
            _ => vec![],
        }
    }

    /// A constant-buffer operand; `None` when the translatable program declared none.
    fn cbuffer(&mut self) -> Option<Operand> {
        if self.valid() {
            if self.declared.cbuffers.is_empty() {
                return None;
            }
            let cb = self.rng.pick(&self.declared.cbuffers);
            let slot = self.rng.below32(cb.vectors.min(64));
            let op = if self.sm51() {
                let register = self.range_register(cb.binding);
                let op = reg(R::ConstantBuffer, &[cb.binding.id, register, slot]);
                let op = self.maybe_relative_range(op, cb.binding, 10);
                self.maybe_rel(op, 2, 20, cb.vectors)
            } else {
                let op = reg(R::ConstantBuffer, &[cb.binding.id, slot]);
                self.maybe_rel(op, 1, 20, cb.vectors)
            };
            return Some(op);
        }
        Some(if self.sm51() {
            let op = reg(
                R::ConstantBuffer,
                &[
                    self.rng.below32(3),
                    self.rng.below32(8),
                    self.rng.below32(64),
                ],
            );
            let mut op = self.maybe_rel(op, 1, 10, 0);
            op.nonuniform = op.indices[1].rel.is_some() && self.rng.chance(50);
            self.maybe_rel(op, 2, 20, 0)
        } else {
            let op = reg(
                R::ConstantBuffer,
                &[self.rng.below32(4), self.rng.below32(64)],
            );
            self.maybe_rel(op, 1, 20, 0)
        })
    }

    /// A register of an SM5.1 range, between its bounds (the first eight of an unbounded one).
    fn range_register(&mut self, binding: Binding) -> u32 {
        binding.lower + self.rng.below32(binding.count.unwrap_or(8).min(8))
    }

    /// Makes the register index of an SM5.1 range operand relative (`[r + lower]`, `nonuniform`
    /// at times) with probability `percent`.
    fn maybe_relative_range(&mut self, op: Operand, binding: Binding, percent: u32) -> Operand {
        if !self.rng.chance(percent) {
            return op;
        }
        let mut op = self.relative_at(op, 1, binding.lower);
        op.nonuniform = self.rng.chance(50);
        op
    }

    /// An indexable-temp element `x#[n]` (relative at times), if any is declared, and its
    /// components (the translatable profile uses no others).
    fn indexable(&mut self, percent: u32) -> Option<(Operand, u8)> {
        if self.xs.is_empty() {
            return None;
        }
        let x = self.rng.pick(&self.xs);
        let op = reg(R::IndexableTemp, &[x.register, self.rng.below32(x.size)]);
        let components = if self.valid() { x.components } else { 4 };
        Some((self.maybe_rel(op, 1, percent, x.size), components))
    }

    /// A source register of the general kind, without components; `true` for scalar system
    /// registers. The second value is the component count of a vector system register.
    fn src_register(&mut self, double: bool) -> (Operand, bool, u8) {
        let roll = self.rng.below32(100);
        let op = match roll {
            0..=44 => self.temp(),
            45..=59 => match self.input() {
                Some(op) => op,
                None => self.temp(),
            },
            60..=74 => match self.cbuffer() {
                Some(op) => op,
                None => self.temp(),
            },
            75..=79 if self.declared.icb_rows > 0 => {
                let rows = self.declared.icb_rows;
                let index = if self.valid() {
                    self.rng.below32(rows)
                } else {
                    self.rng.below32(4)
                };
                let op = reg(R::ImmediateConstantBuffer, &[index]);
                self.maybe_rel(op, 0, 50, rows)
            }
            80..=87 if !self.xs.is_empty() => match self.indexable(50) {
                // Doubles read component pairs: whole elements only.
                Some((op, components)) if !double || components == 4 => {
                    return (op, false, components)
                }
                _ => self.temp(),
            },
            88..=93 if !(double && self.valid()) => {
                let regs = self.scalar_inputs();
                if regs.is_empty() {
                    self.temp()
                } else {
                    return (reg(self.rng.pick(&regs), &[]), true, 1);
                }
            }
            _ => {
                let regs = self.vector_inputs();
                if regs.is_empty() || (double && self.valid()) {
                    self.temp()
                } else {
                    let (ty, width) = self.rng.pick(&regs);
                    return (reg(ty, &[]), false, width);
                }
            }
        };
        (op, false, 4)
    }

    pub(super) fn src(&mut self, op: Opcode, double: bool) -> Operand {
        if self.rng.chance(22) {
            return self.immediate(op, double);
        }
        let (mut o, scalar, width) = self.src_register(double);
        o.components = if scalar {
            if self.rng.chance(50) {
                Components::One
            } else {
                Components::Select1(0)
            }
        } else if width < 4 && self.valid() {
            Components::Swizzle(self.swizzle_within(width))
        } else {
            self.src_components(double)
        };
        if op.class() == Class::Alu && self.rng.chance(15) {
            let integer = matches!(op.num_type(), NumType::Int | NumType::Uint);
            o.modifier = if self.valid() && integer {
                Modifier::Neg
            } else {
                self.rng
                    .pick(&[Modifier::Neg, Modifier::Abs, Modifier::AbsNeg])
            };
        }
        o.min_precision = self.min_precision();
        o
    }

    fn cond(&mut self) -> Operand {
        if self.rng.chance(10) {
            if let Some(mut o) = self.cbuffer() {
                o.components = Components::Select1(self.rng.below32(4) as u8);
                return o;
            }
        }
        let mut o = self.temp();
        o.components = Components::Select1(self.rng.below32(4) as u8);
        o.min_precision = self.min_precision();
        o
    }

    /// Register-less pixel-shader outputs writable here.
    fn special_outputs(&self) -> Vec<R> {
        if self.valid() {
            return self.io.special_outputs.clone();
        }
        let mut regs = vec![R::OutputDepth, R::OutputCoverageMask];
        if self.v.major >= 5 {
            regs.extend([
                R::OutputDepthGreaterEqual,
                R::OutputDepthLessEqual,
                R::OutputStencilRef,
            ]);
        }
        regs
    }

    /// An output register (and, in the translatable profile, the components it declared).
    fn output(&mut self) -> Option<(Operand, u8)> {
        if !self.valid() {
            if !self.has_outputs() {
                return None;
            }
            let o = reg(R::Output, &[self.rng.below32(INPUTS)]);
            return Some((self.maybe_rel(o, 0, 8, 0), 0xf));
        }
        if self.io.outputs.is_empty() {
            return None;
        }
        let IoRegister { register, mask, .. } = self.rng.pick(&self.io.outputs);
        let o = reg(R::Output, &[register]);
        if let Some((first, count)) = self.io.output_range {
            // Relative writes reach any register of the range: only the components all declare.
            let common = (self.io.outputs.iter())
                .filter(|r| (first..first + count).contains(&r.register))
                .fold(0xf, |m, r| m & r.mask);
            if common != 0 && self.rng.chance(8) {
                return Some((self.relative_at(o, 0, first), common));
            }
        }
        Some((o, mask))
    }

    pub(super) fn dst(&mut self, op: Opcode, double: bool, allow_null: bool) -> Operand {
        if allow_null && self.rng.chance(10) {
            return reg(R::Null, &[]);
        }
        let roll = self.rng.below32(100);
        let mut declared = 0xf;
        // Doubles and 32-bit results of doubles take particular masks: temps only.
        let narrow = self.valid() && doubles(op) == (false, true);
        let temps_only = self.valid() && (double || narrow);
        let mut o = if roll < 12 && !temps_only {
            match self.output() {
                Some((o, mask)) => {
                    declared = mask;
                    o
                }
                None => self.temp(),
            }
        } else if roll < 20 && !self.xs.is_empty() {
            match self.indexable(50) {
                Some((o, 4)) => o,
                Some((o, components)) if !temps_only => {
                    declared = (1 << components) - 1;
                    o
                }
                _ => self.temp(),
            }
        } else if roll < 24
            && self.v.stage == Stage::Pixel
            && op.class() == Class::Alu
            && !temps_only
        {
            let regs = self.special_outputs();
            if regs.is_empty() {
                self.temp()
            } else {
                let mut o = reg(self.rng.pick(&regs), &[]);
                o.components = Components::One;
                o.min_precision = self.min_precision();
                return o;
            }
        } else {
            self.temp()
        };
        let mask = if narrow {
            self.narrow_mask()
        } else {
            self.mask(double)
        };
        o.components = Components::Mask(if self.valid() && declared != 0xf {
            self.mask_within(declared)
        } else {
            mask
        });
        o.min_precision = self.min_precision();
        o
    }

    /// `t#`/`s#`/`u#` (SM5.1: `T#[index]`, relative and `nonuniform` at times) as a source,
    /// naming any register (encodable profile).
    fn resource(&mut self, ty: R) -> Operand {
        let mut op = if self.sm51() {
            let op = reg(ty, &[self.rng.below32(4), self.rng.below32(16)]);
            let mut op = self.maybe_rel(op, 1, 30, 0);
            op.nonuniform = op.indices[1].rel.is_some() && self.rng.chance(50);
            op
        } else {
            reg(ty, &[self.rng.below32(8)])
        };
        if ty != R::Sampler {
            op.components = self.resource_swizzle();
        }
        op
    }

    fn resource_swizzle(&mut self) -> Components {
        if self.rng.chance(70) {
            Components::Swizzle([0, 1, 2, 3])
        } else {
            Components::Swizzle(self.swizzle())
        }
    }

    /// A declared `t#`/`s#`/`u#` binding as an operand.
    fn binding_operand(&mut self, ty: R, binding: Binding) -> Operand {
        let mut op = if self.sm51() {
            let register = self.range_register(binding);
            let op = reg(ty, &[binding.id, register]);
            self.maybe_relative_range(op, binding, 30)
        } else {
            reg(ty, &[binding.id])
        };
        if ty != R::Sampler {
            op.components = self.resource_swizzle();
        }
        op
    }

    /// The operand of a planned resource.
    fn target(&mut self, target: Target) -> Operand {
        match target {
            Target::Srv(i) => self.binding_operand(R::Resource, self.declared.srvs[i].binding),
            Target::Uav(i) => {
                self.binding_operand(R::UnorderedAccessView, self.declared.uavs[i].binding)
            }
            Target::Shared(i) => {
                let mut o = reg(
                    R::ThreadGroupSharedMemory,
                    &[self.declared.shared[i].register],
                );
                o.components = Components::Swizzle(self.swizzle());
                o
            }
            Target::Rasterizer => {
                let mut o = reg(R::Rasterizer, &[]);
                o.components = self.src_components(false);
                o
            }
        }
    }

    /// `u#` or `g#` as a destination; atomics name it without components, as fxc does.
    fn memory_dst(&mut self, op: Opcode, tgsm: bool, plan: &Plan) -> Operand {
        if let Some(target) = plan.target {
            let mut o = self.target(target);
            o.components = match op {
                _ if op.class() == Class::Atomic => Components::Zero,
                O::StoreUavTyped => Components::Mask(0xf),
                _ => Components::Mask(self.leading_mask()),
            };
            return o;
        }
        let mut o = if tgsm && self.v.stage == Stage::Compute && self.rng.chance(40) {
            reg(R::ThreadGroupSharedMemory, &[self.rng.below32(4)])
        } else {
            self.resource(R::UnorderedAccessView)
        };
        o.components = if op.class() == Class::Atomic && self.rng.chance(70) {
            Components::Zero
        } else {
            Components::Mask(self.mask(false))
        };
        o
    }

    /// A byte offset into raw or structured memory: an aligned immediate at times in the
    /// translatable profile (inside the structure), else any source.
    fn byte_offset(&mut self, op: Opcode, plan: &Plan) -> Operand {
        let Some(target) = plan.target else {
            return self.src(op, false);
        };
        if self.rng.chance(50) {
            return self.src(op, false);
        }
        let stride = match target {
            Target::Srv(i) => self.declared.srvs[i].shape.stride(),
            Target::Uav(i) => self.declared.uavs[i].shape.stride(),
            Target::Shared(i) => self.declared.shared[i].stride,
            Target::Rasterizer => None,
        };
        let words = stride.map_or(64, |s| s / 4);
        let offset = 4 * self.rng.below32(words);
        self.immediate_int(offset)
    }

    pub(super) fn operand(&mut self, op: Opcode, kind: Kind, index: usize, plan: &Plan) -> Operand {
        let (double_dst, double_src) = doubles(op);
        let dsts = op.slots().iter().filter(|s| **s == Slot::Dst).count();
        match (kind, plan.target) {
            (Kind::Dst, _) => self.dst(op, double_dst, dsts == 2 && index < 2),
            (Kind::Src, _) => self.src(op, double_src),
            (Kind::ByteOffset, _) => self.byte_offset(op, plan),
            (Kind::Cond, _) => self.cond(),
            (Kind::CaseValue, _) => {
                let mut o = imm32([self.exact_int(), 0, 0, 0]);
                o.components = Components::One;
                o
            }
            (Kind::Sampler, _) => match plan.sampler {
                Some(i) => self.binding_operand(R::Sampler, self.declared.samplers[i].binding),
                None => self.resource(R::Sampler),
            },
            (
                Kind::Texture
                | Kind::Uav
                | Kind::TextureOrUav
                | Kind::Readable
                | Kind::TextureOrRasterizer,
                Some(target),
            ) => {
                let mut o = self.target(target);
                if op.class() == Class::Atomic {
                    o.components = Components::Zero;
                }
                o
            }
            (Kind::Texture, None) => self.resource(R::Resource),
            (Kind::Uav, None) => {
                let mut o = self.resource(R::UnorderedAccessView);
                if op.class() == Class::Atomic && self.rng.chance(70) {
                    o.components = Components::Zero;
                }
                o
            }
            (Kind::TextureOrUav, None) => {
                let ty = self.rng.pick(&[R::Resource, R::UnorderedAccessView]);
                self.resource(ty)
            }
            (Kind::Readable, None) => {
                if self.v.stage == Stage::Compute && self.rng.chance(30) {
                    let mut o = reg(R::ThreadGroupSharedMemory, &[self.rng.below32(4)]);
                    o.components = Components::Swizzle(self.swizzle());
                    o
                } else {
                    let ty = self.rng.pick(&[R::Resource, R::UnorderedAccessView]);
                    self.resource(ty)
                }
            }
            (Kind::TextureOrRasterizer, None) => {
                if self.rng.chance(50) {
                    self.resource(R::Resource)
                } else {
                    self.target(Target::Rasterizer)
                }
            }
            (Kind::Attribute, _) => {
                let n = if self.valid() {
                    let interpolated: Vec<u32> = (self.io.inputs.iter())
                        .filter(|r| r.interpolated)
                        .map(|r| r.register)
                        .collect();
                    self.rng.pick(&interpolated)
                } else {
                    self.rng.below32(INPUTS)
                };
                let mut o = reg(R::Input, &[n]);
                o.components = self.src_components(false);
                o
            }
            (Kind::Label, _) => {
                let label = self.call_target();
                reg(R::Label, &[label])
            }
            (Kind::Stream, _) => {
                let stream = if self.valid() {
                    self.rng.pick(&self.declared.streams)
                } else {
                    self.rng.below32(4)
                };
                reg(R::Stream, &[stream])
            }
            (Kind::MemDst, _) => self.memory_dst(op, true, plan),
            (Kind::UavDst, _) => self.memory_dst(op, false, plan),
            (Kind::Interface, _) => {
                let (id, array, _) = self.rng.pick(&self.interfaces);
                let o = reg(R::Interface, &[id, self.rng.below32(array)]);
                self.maybe_rel(o, 1, 30, 0)
            }
        }
    }

    /// Whether the translatable profile applies.
    pub(super) fn valid(&self) -> bool {
        self.profile == Profile::Translatable
    }
}
