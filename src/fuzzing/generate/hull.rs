//! Hull shaders: the `hs_decls` section, an optional control-point phase, fork phases and an
//! optional join phase, in that order.
//!
//! Contract: the patch constants are the tess factors of the declared domain (`o0`… with
//! `.x`, edges then insides) and a few plain registers after them; each phase writes its own
//! group of them (a fork phase over scalar tess factors runs once per factor, with a
//! `dcl_indexrange` over them), and the join phase reads the earlier phases' registers as
//! `vpc#`. Each phase declares its own inputs (`v[n][#]` of the input patch in the
//! control-point phase, `vicp`/`vocp` in the others) and system registers, and starts a new
//! [`Io`]. The translatable profile keeps to D3D's rules: 1 to 32 control points in and out,
//! an output primitive that suits the domain, `dcl_hs_max_tessfactor` in [1, 64].

use super::registry::Io;
use super::stages::{tess_factors, CONTROL_POINT_OUTPUTS};
use super::{Gen, Phase};
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::operand::RegisterType as R;
use crate::front::dxbc::reflect::SystemName as N;
use crate::text::dxbc::encode::ProgramBuilder;

use Opcode as O;

/// Patch-constant registers one phase writes: `(register, tess factor)`.
type Group = Vec<(u32, Option<N>)>;

impl Gen<'_> {
    fn float_value(&mut self) -> u32 {
        if self.lossless && self.rng.chance(50) {
            self.value32(true)
        } else {
            self.exact_float()
        }
    }

    /// Starts a phase: its opcode, a fresh [`Io`], `vPrim` at times.
    fn start_phase(&mut self, b: &mut ProgramBuilder, phase: Phase, opcode: Opcode) {
        self.phase = phase;
        self.io = Io::default();
        self.op(b, opcode, 0);
        if self.rng.chance(30) {
            self.system_input(b, R::InputPrimitiveId, None);
        }
    }

    /// `dcl_input vicp[n][#]` and `dcl_input vocp[n][#]` of a fork or join phase, at times.
    fn patch_inputs(&mut self, b: &mut ProgramBuilder, points: (u32, u32)) {
        for (ty, count) in [
            (R::InputControlPoint, points.0),
            (R::OutputControlPoint, points.1),
        ] {
            if count == 0 || !self.rng.chance(50) {
                continue;
            }
            if ty == R::InputControlPoint {
                self.io.input_points.0 = count;
            } else {
                self.io.output_points.0 = count;
            }
            for n in 0..self.rng.range(1, 2) {
                let mask = self.mask(false);
                let op = self.decl_reg(ty, &[count, n], mask);
                self.io_decl(b, O::DclInput, 0, op, None);
            }
        }
    }

    /// The outputs of a fork or join phase.
    fn patch_outputs(&mut self, b: &mut ProgramBuilder, group: &Group) {
        for &(register, name) in group {
            match name {
                Some(name) => {
                    let op = self.decl_reg(R::Output, &[register], 0x1);
                    self.io_decl(b, O::DclOutputSiv, 0, op, Some(name));
                }
                None => {
                    let mask = self.mask(false);
                    let op = self.decl_reg(R::Output, &[register], mask);
                    self.io_decl(b, O::DclOutput, 0, op, None);
                }
            }
        }
    }

    /// The patch constants of `domain`, grouped by the phase that writes them: edge factors,
    /// inside factors, plain registers.
    fn patch_constant_groups(&mut self, domain: u32) -> Vec<Group> {
        let (edges, insides) = tess_factors(domain);
        let mut register = 0;
        let mut groups = Vec::new();
        for names in [edges, insides] {
            let group: Group = names
                .iter()
                .map(|&n| {
                    register += 1;
                    (register - 1, Some(n))
                })
                .collect();
            if !group.is_empty() {
                groups.push(group);
            }
        }
        let plain = self.rng.below32(3);
        if plain > 0 {
            groups.push((register..register + plain).map(|r| (r, None)).collect());
        }
        groups
    }

    /// A hull shader: declarations, an optional control-point phase, fork phases (instance
    /// counts, index ranges over tess factors) and an optional join phase.
    pub(super) fn hull(&mut self, b: &mut ProgramBuilder, budget: u32) {
        let valid = self.valid();
        self.op(b, O::HsDecls, 0);
        let points_in = self.rng.range(u32::from(valid), 32);
        self.op(b, O::DclInputControlPointCount, points_in);
        let points_out = self.rng.range(u32::from(valid), 32);
        self.op(b, O::DclOutputControlPointCount, points_out);
        let domain = self.rng.range(1, 3);
        self.op(b, O::DclTessDomain, domain);
        let partitioning = self.rng.range(1, 4);
        self.op(b, O::DclTessPartitioning, partitioning);
        // Points, lines (isolines only), clockwise or counter-clockwise triangles (no isolines).
        let primitive = match (valid, domain) {
            (false, _) => self.rng.range(1, 4),
            (true, 1) => self.rng.range(1, 2),
            (true, _) => self.rng.pick(&[1, 3, 4]),
        };
        self.op(b, O::DclTessOutputPrimitive, primitive);
        let factor = if valid {
            (self.rng.range(4, 256) as f32 / 4.0).to_bits()
        } else {
            self.float_value()
        };
        self.op(b, O::DclHsMaxTessFactor, 0);
        b.imm(factor);
        self.resource_decls(b);
        let phases = self.rng.range(1, 4);
        let share = budget / phases;
        if self.rng.chance(70) {
            self.start_phase(b, Phase::ControlPoint, O::HsControlPointPhase);
            self.system_input(b, R::OutputControlPointId, None);
            self.io.vertices = points_in.max(1);
            for n in 0..self.rng.range(1, 3) {
                let mask = self.mask(false);
                let op = self.decl_reg(R::Input, &[points_in, n], mask);
                self.io_decl(b, O::DclInput, 0, op, None);
            }
            self.outputs(b, 0, CONTROL_POINT_OUTPUTS);
            self.temp_decls(b);
            self.body(b, share);
        }
        let mut groups = self.patch_constant_groups(domain).into_iter();
        let forks = self.rng.range(1, 2);
        let join = self.rng.chance(60);
        let mut written: Vec<(u32, u8)> = Vec::new();
        for fork in 0..forks {
            // The last phase takes every group left.
            let last = fork + 1 == forks && !join;
            let mut group = groups.next().unwrap_or_default();
            if last {
                group.extend(groups.by_ref().flatten());
            }
            self.start_phase(b, Phase::Fork, O::HsForkPhase);
            let factors = group.len() as u32;
            let scalar = factors > 1 && group.iter().all(|(_, n)| n.is_some());
            let instances = match (valid, scalar) {
                (false, _) => self.rng.range(1, 4),
                (true, true) if self.rng.chance(50) => factors,
                (true, _) => 1,
            };
            self.op(b, O::DclHsForkPhaseInstanceCount, 0);
            b.imm(instances);
            if instances > 1 || self.rng.chance(50) {
                self.system_input(b, R::InputForkInstanceId, None);
            }
            self.patch_inputs(b, (points_in, points_out));
            self.patch_outputs(b, &group);
            if instances > 1 && (scalar || !valid) {
                let first = group.first().map_or(0, |g| g.0);
                let op = self.decl_reg(R::Output, &[first], 0x1);
                self.op(b, O::DclIndexRange, 0);
                let count = if valid { factors } else { instances };
                b.dst(op).imm(count);
                self.io.output_range = Some((first, count));
            }
            written.extend(self.io.outputs.iter().map(|r| (r.register, r.mask)));
            self.temp_decls(b);
            self.body(b, share);
        }
        if join {
            self.start_phase(b, Phase::Join, O::HsJoinPhase);
            if self.rng.chance(50) {
                self.op(b, O::DclHsJoinPhaseInstanceCount, 0);
                b.imm(if valid { 1 } else { self.rng.range(1, 2) });
                self.system_input(b, R::InputJoinInstanceId, None);
            }
            for &(register, mask) in written.iter().take(3) {
                let op = self.decl_reg(R::InputPatchConstant, &[register], mask);
                self.io_decl(b, O::DclInput, 0, op, None);
            }
            self.patch_inputs(b, (points_in, points_out));
            let group: Group = groups.flatten().collect();
            self.patch_outputs(b, &group);
            self.temp_decls(b);
            self.body(b, share);
        }
    }
}
