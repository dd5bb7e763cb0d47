//! Random programs from the opcode table, for the assembler's property tests and the
//! `translate_generated` fuzz target.
//!
//! Contract: [`generate`] builds one encodable program of a given version from a seeded [`Rng`]:
//! every opcode the stage and model allow ([`Opcode::ALL`], [`Opcode::slots`],
//! [`Opcode::class`], refined into operand kinds by `kinds`), operands of the right kinds over
//! declared registers (16 temps, inputs, outputs, resources, indexable temps, an immediate
//! constant buffer), balanced structured control flow, subroutines, interfaces and hull-shader
//! phases (`decls`). The programs are valid token streams; most are valid shaders, but the
//! generator does not track everything a shader model requires (it may read an output, or use
//! class linkage), so translation may refuse some. The same seed gives the same program.
//! [`generate_container`] wraps one in a container whose signatures and `RDEF` are derived from
//! its declarations.

mod decls;
mod kinds;

use self::kinds::{allowed, doubles, is_conditional, kinds, Kind};
use super::Rng;
use crate::dxbc::encode::token::{self as tok, controls};
use crate::dxbc::encode::{imm32, reg, relative, OperandBuild, ProgramBuilder};
use crate::dxbc::opcodes::{Class, NumType, Opcode, Slot};
use crate::dxbc::operand::{Components, Modifier, Operand, RegisterType as R, RelativeRegister};
use crate::dxbc::program::{ShaderVersion, Stage};

use Opcode as O;

/// Hull-shader phases (`Main` for every other stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    Main,
    ControlPoint,
    Fork,
    Join,
}

/// Registers every generated program declares, so that instructions can use them.
pub(super) const TEMPS: u32 = 16;
const INPUTS: u32 = 8;

/// Generates one random program.
pub(super) struct Gen<'a> {
    pub(super) rng: &'a mut Rng,
    pub(super) v: ShaderVersion,
    /// Any 32-bit pattern as immediates (else only values every dialect prints exactly).
    pub(super) lossless: bool,
    pub(super) phase: Phase,
    /// Declared indexable temps: (register, size).
    pub(super) xs: Vec<(u32, u32)>,
    subroutines: u32,
    /// Declared interfaces: (fp id, array size, table length).
    pub(super) interfaces: Vec<(u32, u32, u32)>,
    pub(super) has_icb: bool,
    /// Opcode hits, indexed by number.
    pub(super) coverage: &'a mut [u32],
}

impl Gen<'_> {
    pub(super) fn sm51(&self) -> bool {
        self.v.is_sm51()
    }

    pub(super) fn op(&mut self, b: &mut ProgramBuilder, op: Opcode, controls: u32) {
        self.coverage[op as usize] += 1;
        b.op(op, controls);
    }

    // ---- values

    /// A float whose `%f` spelling is exact in every dialect (k/4).
    pub(super) fn exact_float(&mut self) -> u32 {
        let k = self.rng.below32(8193) as i32 - 4096;
        (k as f32 / 4.0).to_bits()
    }

    /// An integer every dialect prints as an integer, typed or untyped (exponent 0 or 255).
    pub(super) fn exact_int(&mut self) -> u32 {
        match self.rng.below32(4) {
            0 => self.rng.below32(41).wrapping_sub(20),
            1 => self.rng.below32(20001).wrapping_sub(10000),
            2 => self.rng.below32(0x80_0000),
            _ => 0xff80_0000 | self.rng.below32(0x80_0000),
        }
    }

    /// One dword of an immediate; `float` when the instruction prints it as a float.
    pub(super) fn value32(&mut self, float: bool) -> u32 {
        if !self.lossless {
            return if float {
                self.exact_float()
            } else {
                self.exact_int()
            };
        }
        match self.rng.below32(10) {
            0..=2 => self.exact_int(),
            3..=5 => self.exact_float(),
            6 => self.rng.pick(&[
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc0_0000,
                0x7fa0_0001,
                0x8000_0000,
                0,
                1,
                0x007f_ffff,
                0x0080_0000,
                0xffff_ffff,
                0x3f80_0000,
                0x7f7f_ffff,
                0x3dcc_cccd,
                0x3eaa_aaab,
            ]),
            7 => ((self.rng.next_u32() as f32 / 65536.0) - 32768.0).to_bits(),
            8 => (self.rng.next_u32() as f32 * 1.0e-9).to_bits(),
            _ => self.rng.next_u32(),
        }
    }

    fn value64(&mut self) -> u64 {
        if !self.lossless || self.rng.chance(40) {
            let k = self.rng.below32(8193) as i32 - 4096;
            return (f64::from(k) / 4.0).to_bits();
        }
        // Infinities and NaNs are left out: their listing does not assemble (see
        // `gap_double_infinity_and_nan`).
        let bits = match self.rng.below32(4) {
            0 => self.rng.pick(&[
                (-0.0f64).to_bits(),
                f64::MAX.to_bits(),
                f64::MIN_POSITIVE.to_bits(),
                0.1f64.to_bits(),
                1.0e300f64.to_bits(),
                1,
            ]),
            1 => (self.rng.next_u32() as f64 / 1024.0 - 1.0e6).to_bits(),
            _ => self.rng.next_u64(),
        };
        if f64::from_bits(bits).is_finite() {
            bits
        } else {
            bits & !(1 << 62)
        }
    }

    /// `l(a)`, `l(a, b, c, d)`, `d(a)` or `d(a, b)`, as the assembler encodes them (one
    /// component, or four in mask mode with an empty mask).
    fn immediate(&mut self, op: Opcode, double: bool) -> Operand {
        let float = matches!(op.num_type(), NumType::Float | NumType::Double);
        let one = self.rng.chance(50);
        let mut imm = [0u32; 4];
        let ty = if double {
            for pair in 0..if one { 1 } else { 2 } {
                let bits = self.value64();
                imm[2 * pair] = bits as u32;
                imm[2 * pair + 1] = (bits >> 32) as u32;
            }
            R::Immediate64
        } else {
            for v in imm.iter_mut().take(if one { 1 } else { 4 }) {
                *v = self.value32(float);
            }
            R::Immediate32
        };
        Operand {
            ty,
            components: if one {
                Components::One
            } else {
                Components::Mask(0)
            },
            imm,
            min_precision: self.min_precision(),
            ..Operand::default()
        }
    }

    // ---- components, modifiers, indices

    pub(super) fn mask(&mut self, double: bool) -> u8 {
        if double {
            self.rng.pick(&[0x3, 0xc, 0xf])
        } else {
            self.rng.range(1, 15) as u8
        }
    }

    pub(super) fn swizzle(&mut self) -> [u8; 4] {
        if self.rng.chance(40) {
            return self
                .rng
                .pick(&[[0, 1, 2, 3], [0, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 1]]);
        }
        [0; 4].map(|_| self.rng.below32(4) as u8)
    }

    /// Source selection: swizzle, select-1 or (rarely) a 2–3 component mask.
    fn src_components(&mut self, double: bool) -> Components {
        if double {
            return Components::Swizzle(self.rng.pick(&[
                [0, 1, 0, 1],
                [2, 3, 2, 3],
                [0, 1, 2, 3],
                [2, 3, 0, 1],
            ]));
        }
        match self.rng.below32(100) {
            0..=54 => Components::Swizzle(self.swizzle()),
            55..=91 => Components::Select1(self.rng.below32(4) as u8),
            _ => {
                let mut mask = self.rng.range(1, 15) as u8;
                while !(2..=3).contains(&mask.count_ones()) {
                    mask = self.rng.range(1, 15) as u8;
                }
                Components::Mask(mask)
            }
        }
    }

    fn min_precision(&mut self) -> u8 {
        if self.rng.chance(8) {
            self.rng.pick(&[1, 2, 4, 5])
        } else {
            0
        }
    }

    /// The register of a relative index: `r#.c` or `x#[n].c`.
    fn rel(&mut self) -> RelativeRegister {
        let component = self.rng.below32(4) as u8;
        if !self.xs.is_empty() && self.rng.chance(15) {
            let (x, size) = self.rng.pick(&self.xs);
            relative(R::IndexableTemp, &[x, self.rng.below32(size)], component)
        } else {
            relative(R::Temp, &[self.rng.below32(TEMPS)], component)
        }
    }

    /// Makes index `i` relative with probability `percent`; `+ 0` is encoded purely relative.
    fn maybe_rel(&mut self, op: Operand, i: usize, percent: u32) -> Operand {
        if !self.rng.chance(percent) {
            return op;
        }
        let imm = if self.rng.chance(30) {
            0
        } else {
            self.rng.range(1, 40)
        };
        let rel = self.rel();
        op.relative_index(i, (imm != 0).then_some(imm), rel)
    }

    // ---- registers

    fn temp(&mut self) -> Operand {
        reg(R::Temp, &[self.rng.below32(TEMPS)])
    }

    fn has_outputs(&self) -> bool {
        self.v.stage != Stage::Compute
    }

    /// An input attribute of the stage (and phase), if it has any.
    fn input(&mut self) -> Option<Operand> {
        let n = self.rng.below32(INPUTS);
        let vertex = self.rng.below32(3);
        Some(match (self.v.stage, self.phase) {
            (Stage::Compute, _) => return None,
            (Stage::Geometry, _) | (Stage::Hull, Phase::ControlPoint) => {
                let op = reg(R::Input, &[vertex, n]);
                self.maybe_rel(op, 0, 25)
            }
            (Stage::Hull, _) | (Stage::Domain, _) => {
                let r = self.rng.below32(100);
                if r < 30 && matches!(self.phase, Phase::Join | Phase::Main) {
                    let op = reg(R::InputPatchConstant, &[n]);
                    self.maybe_rel(op, 0, 15)
                } else {
                    let ty = if r < 60 && self.phase != Phase::Main {
                        R::OutputControlPoint
                    } else {
                        R::InputControlPoint
                    };
                    let op = reg(ty, &[vertex, n]);
                    let op = self.maybe_rel(op, 0, 15);
                    self.maybe_rel(op, 1, 5)
                }
            }
            _ => {
                let op = reg(R::Input, &[n]);
                self.maybe_rel(op, 0, 8)
            }
        })
    }

    /// Scalar system registers readable here (read without components or as `.x`).
    fn scalar_inputs(&self) -> Vec<R> {
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

    /// Four-component system registers readable here.
    fn vector_inputs(&self) -> Vec<R> {
        match self.v.stage {
            Stage::Compute => vec![
                R::InputThreadId,
                R::InputThreadGroupId,
                R::InputThreadIdInGroup,
            ],
            Stage::Domain => vec![R::InputDomainPoint],
            _ => vec![],
        }
    }

    fn cbuffer(&mut self) -> Operand {
        if self.sm51() {
            let op = reg(
                R::ConstantBuffer,
                &[
                    self.rng.below32(3),
                    self.rng.below32(8),
                    self.rng.below32(64),
                ],
            );
            let mut op = self.maybe_rel(op, 1, 10);
            op.nonuniform = op.indices[1].rel.is_some() && self.rng.chance(50);
            self.maybe_rel(op, 2, 20)
        } else {
            let op = reg(
                R::ConstantBuffer,
                &[self.rng.below32(4), self.rng.below32(64)],
            );
            self.maybe_rel(op, 1, 20)
        }
    }

    /// A source register of the general kind, without components.
    fn src_register(&mut self) -> (Operand, bool) {
        let roll = self.rng.below32(100);
        let op = match roll {
            0..=44 => self.temp(),
            45..=59 => match self.input() {
                Some(op) => op,
                None => self.temp(),
            },
            60..=74 => self.cbuffer(),
            75..=79 if self.has_icb => {
                let op = reg(R::ImmediateConstantBuffer, &[self.rng.below32(4)]);
                self.maybe_rel(op, 0, 50)
            }
            80..=87 if !self.xs.is_empty() => {
                let (x, size) = self.rng.pick(&self.xs);
                let op = reg(R::IndexableTemp, &[x, self.rng.below32(size)]);
                self.maybe_rel(op, 1, 50)
            }
            88..=93 => {
                let regs = self.scalar_inputs();
                if regs.is_empty() {
                    self.temp()
                } else {
                    return (reg(self.rng.pick(&regs), &[]), true);
                }
            }
            _ => {
                let regs = self.vector_inputs();
                if regs.is_empty() {
                    self.temp()
                } else {
                    reg(self.rng.pick(&regs), &[])
                }
            }
        };
        (op, false)
    }

    pub(super) fn src(&mut self, op: Opcode, double: bool) -> Operand {
        if self.rng.chance(22) {
            return self.immediate(op, double);
        }
        let (mut o, scalar) = self.src_register();
        o.components = if scalar {
            if self.rng.chance(50) {
                Components::One
            } else {
                Components::Select1(0)
            }
        } else {
            self.src_components(double)
        };
        if op.class() == Class::Alu && self.rng.chance(15) {
            o.modifier = self
                .rng
                .pick(&[Modifier::Neg, Modifier::Abs, Modifier::AbsNeg]);
        }
        o.min_precision = self.min_precision();
        o
    }

    fn cond(&mut self) -> Operand {
        if self.rng.chance(10) {
            let mut o = self.cbuffer();
            o.components = Components::Select1(self.rng.below32(4) as u8);
            return o;
        }
        let mut o = self.temp();
        o.components = Components::Select1(self.rng.below32(4) as u8);
        o.min_precision = self.min_precision();
        o
    }

    pub(super) fn dst(&mut self, op: Opcode, double: bool, allow_null: bool) -> Operand {
        if allow_null && self.rng.chance(10) {
            return reg(R::Null, &[]);
        }
        let roll = self.rng.below32(100);
        let mut o = if roll < 12 && self.has_outputs() {
            let o = reg(R::Output, &[self.rng.below32(INPUTS)]);
            self.maybe_rel(o, 0, 8)
        } else if roll < 20 && !self.xs.is_empty() {
            let (x, size) = self.rng.pick(&self.xs);
            let o = reg(R::IndexableTemp, &[x, self.rng.below32(size)]);
            self.maybe_rel(o, 1, 50)
        } else if roll < 24 && self.v.stage == Stage::Pixel && op.class() == Class::Alu {
            let mut regs = vec![R::OutputDepth, R::OutputCoverageMask];
            if self.v.major >= 5 {
                regs.extend([
                    R::OutputDepthGreaterEqual,
                    R::OutputDepthLessEqual,
                    R::OutputStencilRef,
                ]);
            }
            let mut o = reg(self.rng.pick(&regs), &[]);
            o.components = Components::One;
            o.min_precision = self.min_precision();
            return o;
        } else {
            self.temp()
        };
        o.components = Components::Mask(self.mask(double));
        o.min_precision = self.min_precision();
        o
    }

    /// `t#`/`s#`/`u#` (SM5.1: `T#[index]`, relative and `nonuniform` at times) as a source.
    fn resource(&mut self, ty: R) -> Operand {
        let mut op = if self.sm51() {
            let op = reg(ty, &[self.rng.below32(4), self.rng.below32(16)]);
            let mut op = self.maybe_rel(op, 1, 30);
            op.nonuniform = op.indices[1].rel.is_some() && self.rng.chance(50);
            op
        } else {
            reg(ty, &[self.rng.below32(8)])
        };
        if ty != R::Sampler {
            op.components = if self.rng.chance(70) {
                Components::Swizzle([0, 1, 2, 3])
            } else {
                Components::Swizzle(self.swizzle())
            };
        }
        op
    }

    /// `u#` or `g#` as a destination; atomics name it without components, as fxc does.
    fn memory_dst(&mut self, op: Opcode, tgsm: bool) -> Operand {
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

    fn operand(&mut self, op: Opcode, kind: Kind, index: usize) -> Operand {
        let (double_dst, double_src) = doubles(op);
        let dsts = op.slots().iter().filter(|s| **s == Slot::Dst).count();
        match kind {
            Kind::Dst => self.dst(op, double_dst, dsts == 2 && index < 2),
            Kind::Src => self.src(op, double_src),
            Kind::Cond => self.cond(),
            Kind::CaseValue => {
                let mut o = imm32([self.exact_int(), 0, 0, 0]);
                o.components = Components::One;
                o
            }
            Kind::Texture => self.resource(R::Resource),
            Kind::Sampler => self.resource(R::Sampler),
            Kind::Uav => {
                let mut o = self.resource(R::UnorderedAccessView);
                if op.class() == Class::Atomic && self.rng.chance(70) {
                    o.components = Components::Zero;
                }
                o
            }
            Kind::TextureOrUav => {
                let ty = self.rng.pick(&[R::Resource, R::UnorderedAccessView]);
                self.resource(ty)
            }
            Kind::Readable => {
                if self.v.stage == Stage::Compute && self.rng.chance(30) {
                    let mut o = reg(R::ThreadGroupSharedMemory, &[self.rng.below32(4)]);
                    o.components = Components::Swizzle(self.swizzle());
                    o
                } else {
                    let ty = self.rng.pick(&[R::Resource, R::UnorderedAccessView]);
                    self.resource(ty)
                }
            }
            Kind::TextureOrRasterizer => {
                if self.rng.chance(50) {
                    self.resource(R::Resource)
                } else {
                    let mut o = reg(R::Rasterizer, &[]);
                    o.components = self.src_components(false);
                    o
                }
            }
            Kind::Attribute => {
                let mut o = reg(R::Input, &[self.rng.below32(INPUTS)]);
                o.components = self.src_components(false);
                o
            }
            Kind::Label => reg(R::Label, &[self.rng.below32(self.subroutines.max(1))]),
            Kind::Stream => reg(R::Stream, &[self.rng.below32(4)]),
            Kind::MemDst => self.memory_dst(op, true),
            Kind::UavDst => self.memory_dst(op, false),
            Kind::Interface => {
                let (id, array, _) = self.rng.pick(&self.interfaces);
                let o = reg(R::Interface, &[id, self.rng.below32(array)]);
                self.maybe_rel(o, 1, 30)
            }
        }
    }

    // ---- instructions

    /// Extended opcode tokens in fxc's order: texel offsets, resource dimension, return type.
    fn extended(&mut self, b: &mut ProgramBuilder, op: Opcode) {
        let offsets = matches!(
            op,
            O::Sample
                | O::SampleB
                | O::SampleL
                | O::SampleC
                | O::SampleCLz
                | O::SampleD
                | O::Ld
                | O::LdMs
                | O::Gather4
                | O::Gather4C
                | O::Gather4S
                | O::Gather4CS
                | O::LdS
                | O::LdMsS
                | O::SampleLS
                | O::SampleCLzS
                | O::SampleClS
                | O::SampleBClS
                | O::SampleDClS
                | O::SampleCClS
        );
        let typed = self.v.major >= 5
            && (op.class() == Class::Texture
                || matches!(
                    op,
                    O::LdRaw
                        | O::LdStructured
                        | O::LdUavTyped
                        | O::LdRawS
                        | O::LdStructuredS
                        | O::LdUavTypedS
                        | O::SampleInfo
                        | O::SamplePos
                ));
        if offsets && self.rng.chance(30) {
            let mut o = || self.rng.below32(16) as i32 - 8;
            let (u, v, w) = (o(), o(), o());
            b.ext(tok::sample_offsets(u, v, w).expect("offsets in -8..7"));
        }
        if typed && self.rng.chance(35) {
            let dim = self.rng.range(1, 12);
            let stride = if dim == 12 { self.rng.below32(4096) } else { 0 };
            b.ext(tok::resource_dimension(dim, stride).expect("dimension"));
        }
        if typed && self.rng.chance(30) {
            let types = [0; 4].map(|_| self.rng.range(1, 9));
            let packed = tok::return_types(types).expect("return types");
            b.ext(tok::resource_return_type(packed).expect("return type"));
        }
    }

    fn instruction(&mut self, b: &mut ProgramBuilder, op: Opcode) {
        let mut bits = 0;
        if op.class() == Class::Alu {
            let saturates = (op.num_type() == NumType::Float
                && !matches!(op, O::Ftoi | O::Ftou | O::F32tof16 | O::Ftod))
                || matches!(op, O::Mov | O::Movc);
            if saturates && self.rng.chance(15) {
                bits |= controls::SATURATE;
            }
            if self.rng.chance(8) {
                bits |= controls::precise(self.rng.range(1, 15));
            }
        }
        if is_conditional(op) && self.rng.chance(50) {
            bits |= controls::TEST_NONZERO;
        }
        match op {
            O::Resinfo => bits |= self.rng.below32(3),
            O::SampleInfo => bits |= self.rng.below32(2),
            O::Sync => {
                let scope =
                    self.rng
                        .pick(&[0, controls::SYNC_UAV_GROUP, controls::SYNC_UAV_GLOBAL]);
                bits |= scope | self.rng.below32(4);
                if bits == 0 {
                    bits = controls::SYNC_THREADS;
                }
            }
            _ => {}
        }
        self.op(b, op, bits);
        self.extended(b, op);
        if op == O::InterfaceCall {
            let (_, _, table) = self.rng.pick(&self.interfaces);
            let function = self.rng.below32(table);
            let target = self.operand(op, Kind::Interface, 0);
            b.imm(function).src(target);
            return;
        }
        let slots: Vec<bool> = op
            .slots()
            .iter()
            .filter(|s| matches!(s, Slot::Dst | Slot::Src))
            .map(|s| *s == Slot::Dst)
            .collect();
        let mut texture_samplepos = false;
        for (i, (kind, is_dst)) in kinds(op).into_iter().zip(slots).enumerate() {
            let operand = self.operand(op, kind, i);
            texture_samplepos |= op == O::SamplePos && operand.ty == R::Resource;
            if is_dst {
                b.dst(operand);
            } else {
                b.src(operand);
            }
        }
        if texture_samplepos {
            // fxc pads `samplepos` of a texture with one zero dword; the assembler does too
            // (other padding there: `gap_samplepos_extra_padding`).
            b.padding(0);
        } else if self.lossless && bits & controls::precise(0xf) == 0 && self.rng.chance(3) {
            // `[padding(...)]` after `[precise]` does not assemble: `gap_precise_then_padding`.
            for _ in 0..self.rng.range(1, 2) {
                b.padding(self.rng.next_u32());
            }
        }
    }

    /// A block of `budget` instructions at most, with nested control flow.
    fn block(
        &mut self,
        b: &mut ProgramBuilder,
        ops: &[Opcode],
        depth: u32,
        in_loop: bool,
        budget: &mut u32,
    ) {
        for _ in 0..self.rng.range(1, 10) {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let roll = self.rng.below32(100);
            let nest = depth < 3;
            if roll < 6 && nest {
                self.instruction(b, O::If);
                self.block(b, ops, depth + 1, in_loop, budget);
                if self.rng.chance(40) {
                    self.op(b, O::Else, 0);
                    self.block(b, ops, depth + 1, in_loop, budget);
                }
                self.op(b, O::EndIf, 0);
            } else if roll < 10 && nest {
                self.op(b, O::Loop, 0);
                self.block(b, ops, depth + 1, true, budget);
                self.instruction(b, O::Breakc);
                self.op(b, O::EndLoop, 0);
            } else if roll < 12 && nest {
                self.instruction(b, O::Switch);
                for _ in 0..self.rng.range(1, 3) {
                    self.instruction(b, O::Case);
                    self.block(b, ops, depth + 1, in_loop, budget);
                    self.op(b, O::Break, 0);
                }
                if self.rng.chance(60) {
                    self.op(b, O::Default, 0);
                    self.block(b, ops, depth + 1, in_loop, budget);
                    self.op(b, O::Break, 0);
                }
                self.op(b, O::EndSwitch, 0);
            } else if roll < 16 && in_loop {
                match self.rng.below32(4) {
                    0 => self.op(b, O::Break, 0),
                    1 => self.op(b, O::Continue, 0),
                    2 => self.instruction(b, O::Breakc),
                    _ => self.instruction(b, O::Continuec),
                }
            } else if roll < 18 && self.subroutines > 0 {
                let op = if self.rng.chance(50) {
                    O::Call
                } else {
                    O::Callc
                };
                self.instruction(b, op);
            } else if roll < 20 && !self.interfaces.is_empty() {
                self.instruction(b, O::InterfaceCall);
            } else if roll < 21 {
                let payload: Vec<u32> = (0..self.rng.below32(5))
                    .map(|_| self.rng.next_u32())
                    .collect();
                let class = self.rng.pick(&[0, 1, 2, 4, 5]);
                self.coverage[O::CustomData as usize] += 1;
                b.custom_data(class, &payload);
            } else if roll < 22 && depth > 0 {
                self.op(b, O::Ret, 0);
            } else {
                let op = self.rng.pick(ops);
                self.instruction(b, op);
            }
        }
    }

    /// A phase or main body: blocks until `budget` is spent, then `ret`.
    pub(super) fn body(&mut self, b: &mut ProgramBuilder, budget: u32) {
        let ops: Vec<Opcode> = Opcode::ALL
            .iter()
            .copied()
            .filter(|&op| allowed(op, self.v))
            .collect();
        let mut budget = budget;
        while budget > 0 {
            self.block(b, &ops, 0, false, &mut budget);
        }
        self.op(b, O::Ret, 0);
    }

    fn subroutines(&mut self, b: &mut ProgramBuilder, budget: u32) {
        let ops: Vec<Opcode> = Opcode::ALL
            .iter()
            .copied()
            .filter(|&op| allowed(op, self.v))
            .collect();
        for i in 0..self.subroutines {
            self.op(b, O::Label, 0);
            b.src(reg(R::Label, &[i]));
            let mut budget = budget;
            self.block(b, &ops, 1, false, &mut budget);
            self.op(b, O::Ret, 0);
        }
    }
}

/// One random program of `v`, about `budget` instructions long: the program chunk's dwords
/// (version and length tokens first). `lossless`: immediates take any 32-bit pattern (else only
/// values every disassembler dialect prints exactly). `coverage[opcode]` counts the opcodes
/// written, indexed by opcode number (give it 256 entries).
pub fn generate(
    rng: &mut Rng,
    v: ShaderVersion,
    lossless: bool,
    budget: u32,
    coverage: &mut [u32],
) -> Vec<u32> {
    let mut g = Gen {
        rng,
        v,
        lossless,
        phase: Phase::Main,
        xs: Vec::new(),
        subroutines: 0,
        interfaces: Vec::new(),
        has_icb: false,
        coverage,
    };
    let mut b = ProgramBuilder::new(v);
    if v.stage == Stage::Hull {
        g.hull(&mut b, budget);
    } else {
        g.resource_decls(&mut b);
        g.stage_decls(&mut b);
        g.temp_decls(&mut b);
        g.subroutines = if g.rng.chance(30) {
            g.rng.range(1, 3)
        } else {
            0
        };
        g.body(&mut b, budget);
        g.subroutines(&mut b, budget / 8);
    }
    b.finish()
        .unwrap_or_else(|e| panic!("{v}: the generator built an unencodable program: {e}"))
}

/// A container around one random program: the version picked by `rng` among every stage and
/// model (hull and domain shaders from 5.0), about `budget` instructions, signatures and `RDEF`
/// derived from the declarations ([`crate::dxbc::asm::container_of_program`]). `None` only when
/// the container cannot be written (a generator bug the caller reports).
pub fn generate_container(rng: &mut Rng, budget: u32) -> Option<Vec<u8>> {
    let stages = [
        Stage::Vertex,
        Stage::Pixel,
        Stage::Geometry,
        Stage::Hull,
        Stage::Domain,
        Stage::Compute,
    ];
    let stage = rng.pick(&stages);
    let models: &[(u8, u8)] = if matches!(stage, Stage::Hull | Stage::Domain) {
        &[(5, 0), (5, 1)]
    } else {
        &[(4, 0), (4, 1), (5, 0), (5, 1)]
    };
    let (major, minor) = rng.pick(models);
    let v = ShaderVersion {
        stage,
        major,
        minor,
    };
    let mut coverage = [0u32; 256];
    let lossless = rng.percent(50);
    let words = generate(rng, v, lossless, budget, &mut coverage);
    crate::dxbc::asm::container_of_program(&words).ok()
}
