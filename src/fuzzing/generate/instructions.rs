//! Instructions and bodies of the random programs: controls, extended opcode tokens, operands
//! in slot order, balanced structured control flow and subroutine calls.
//!
//! Contract: a body is blocks of random instructions (those [`allowed`] in the stage and model,
//! and in the translatable profile also [`translatable`] and [`Gen::feasible`]) with nested
//! `if`/`loop`/`switch` (at most three deep), `break`/`continue` only inside loops, and a final
//! `ret`. The translatable profile also keeps `case` values of one `switch` distinct, calls
//! only later subroutines (so none recurses), writes only comments as mid-body `customdata`,
//! adds no padding dwords, and gives extended opcode tokens the offsets, dimension and return
//! type of the resource the instruction names.

use super::kinds::{allowed, is_conditional, kinds, translatable, Kind};
use super::registry::Shape;
use super::targets::{Plan, Target};
use super::Gen;
use crate::front::dxbc::opcodes::{Class, NumType, Opcode, Slot};
use crate::front::dxbc::operand::{Components, RegisterType as R};
use crate::front::dxbc::program::Stage;
use crate::front::dxbc::reflect::ResourceDimension as Dim;
use crate::text::dxbc::encode::token::{self as tok, controls};
use crate::text::dxbc::encode::{imm32, ProgramBuilder};

use Opcode as O;

/// Instructions that take immediate texel offsets (`aoffimmi`).
fn takes_offsets(op: Opcode) -> bool {
    matches!(
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
    )
}

/// Texel-offset components of a dimension (none on cubes and buffers).
fn offset_components(dim: Dim) -> u32 {
    match dim {
        Dim::Texture1D | Dim::Texture1DArray => 1,
        Dim::Texture2D | Dim::Texture2DArray | Dim::Texture2DMs | Dim::Texture2DMsArray => 2,
        Dim::Texture3D => 3,
        _ => 0,
    }
}

impl Gen<'_> {
    /// The shape of a planned `t#`/`u#`.
    fn planned_shape(&self, plan: &Plan) -> Option<Shape> {
        match plan.target? {
            Target::Srv(i) => Some(self.declared.srvs[i].shape),
            Target::Uav(i) => Some(self.declared.uavs[i].shape),
            Target::Shared(_) | Target::Rasterizer => None,
        }
    }

    /// Extended opcode tokens in fxc's order: texel offsets, resource dimension, return type.
    fn extended(&mut self, b: &mut ProgramBuilder, op: Opcode, plan: &Plan) {
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
        let shape = self.planned_shape(plan);
        let valid = self.valid();
        // Offset components the resource takes (all three in the encodable profile).
        let offsets = match shape.and_then(Shape::dim) {
            _ if !valid => 3,
            Some(dim) => offset_components(dim),
            None => 0,
        };
        if takes_offsets(op) && offsets > 0 && self.rng.chance(30) {
            let mut o = |k: u32| {
                let v = self.rng.below32(16) as i32 - 8;
                if k < offsets {
                    v
                } else {
                    0
                }
            };
            let (u, v, w) = (o(0), o(1), o(2));
            b.ext(tok::sample_offsets(u, v, w).expect("offsets in -8..7"));
        }
        if typed && (shape.is_some() || !valid) && self.rng.chance(35) {
            let (dim, stride) = match shape {
                Some(Shape::Typed { dim, .. }) => (dim.raw(), 0),
                Some(Shape::Raw) => (Dim::RawBuffer.raw(), 0),
                Some(Shape::Structured { stride, .. }) => (Dim::StructuredBuffer.raw(), stride),
                None => {
                    let dim = self.rng.range(1, 12);
                    (dim, if dim == 12 { self.rng.below32(4096) } else { 0 })
                }
            };
            b.ext(tok::resource_dimension(dim, stride).expect("dimension"));
        }
        let ret = match shape {
            Some(Shape::Typed { ret, .. }) => Some(ret.raw()),
            _ => None,
        };
        if typed && (ret.is_some() || !valid) && self.rng.chance(30) {
            let types = match ret {
                Some(ret) => [ret; 4],
                None => [0; 4].map(|_| self.rng.range(1, 9)),
            };
            let packed = tok::return_types(types).expect("return types");
            b.ext(tok::resource_return_type(packed).expect("return type"));
        }
    }

    pub(super) fn instruction(&mut self, b: &mut ProgramBuilder, op: Opcode) {
        let plan = self.plan(op);
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
                if self.valid() && self.v.stage != Stage::Compute {
                    // Outside compute shaders only UAV memory is shared beyond the invocation.
                    bits = controls::SYNC_UAV_GLOBAL;
                }
            }
            _ => {}
        }
        self.op(b, op, bits);
        self.extended(b, op, &plan);
        if op == O::InterfaceCall {
            let (_, _, table) = self.rng.pick(&self.interfaces);
            let function = self.rng.below32(table);
            let target = self.operand(op, Kind::Interface, 0, &plan);
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
            let operand = self.operand(op, kind, i, &plan);
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
        } else if self.lossless
            && !self.valid()
            && bits & controls::precise(0xf) == 0
            && self.rng.chance(3)
        {
            // `[padding(...)]` after `[precise]` does not assemble: `gap_precise_then_padding`.
            for _ in 0..self.rng.range(1, 2) {
                b.padding(self.rng.next_u32());
            }
        }
    }

    /// `case l(N)`; the translatable profile keeps the values of one `switch` distinct.
    fn case(&mut self, b: &mut ProgramBuilder, used: &mut Vec<u32>) {
        let mut value = self.exact_int();
        while self.valid() && used.contains(&value) {
            value = self.exact_int();
        }
        used.push(value);
        let mut o = imm32([value, 0, 0, 0]);
        o.components = Components::One;
        self.op(b, O::Case, 0);
        b.src(o);
    }

    /// The first label a call may name: any in the main body, only later ones in a subroutine
    /// of the translatable profile (recursion is invalid).
    fn first_callable(&self) -> u32 {
        match self.current_label {
            Some(label) if self.valid() => label + 1,
            _ => 0,
        }
    }

    /// The label a `call`/`callc` names.
    pub(super) fn call_target(&mut self) -> u32 {
        let first = self.first_callable();
        first
            + self
                .rng
                .below32(self.subroutines.saturating_sub(first).max(1))
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
                let mut cases = Vec::new();
                for _ in 0..self.rng.range(1, 3) {
                    self.case(b, &mut cases);
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
            } else if roll < 18 && self.first_callable() < self.subroutines {
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
                // Mid-body, a translatable program holds comments only.
                let class = if self.valid() { 0 } else { class };
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

    /// The instructions a body of the current phase draws from.
    fn instruction_set(&self) -> Vec<Opcode> {
        Opcode::ALL
            .iter()
            .copied()
            .filter(|&op| allowed(op, self.v))
            .filter(|&op| !self.valid() || translatable(op, self.doubles))
            .filter(|&op| self.feasible(op))
            .collect()
    }

    /// A phase or main body: blocks until `budget` is spent, then `ret`.
    pub(super) fn body(&mut self, b: &mut ProgramBuilder, budget: u32) {
        let ops = self.instruction_set();
        let mut budget = budget;
        while budget > 0 {
            self.block(b, &ops, 0, false, &mut budget);
        }
        self.op(b, O::Ret, 0);
    }

    /// The subroutines `l0`…: a label, a block of about `budget` instructions, `ret`.
    pub(super) fn subroutines(&mut self, b: &mut ProgramBuilder, budget: u32) {
        let ops = self.instruction_set();
        for i in 0..self.subroutines {
            self.current_label = Some(i);
            self.op(b, O::Label, 0);
            b.src(crate::text::dxbc::encode::reg(R::Label, &[i]));
            let mut budget = budget;
            self.block(b, &ops, 1, false, &mut budget);
            self.op(b, O::Ret, 0);
        }
        self.current_label = None;
    }
}
