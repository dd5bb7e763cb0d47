//! Stage declarations of the random programs (every stage but the hull shader, whose phases
//! are in `hull`): inputs, outputs and system values, geometry-shader primitives and streams,
//! the tessellator domain of domain shaders, compute thread groups and shared memory.
//!
//! Contract: each register is declared once, with the system values its stage has (each at
//! most once: `position` with all four components, scalar values with `.x`), plain registers
//! before system values so that a `dcl_indexrange` covers plain registers only; the
//! declarations are recorded in [`Io`](super::registry::Io) and the registry. Geometry shaders
//! read as many vertices as their input primitive has, domain shaders as many control points as
//! they declare and the tess factors of their domain. The translatable profile also keeps to
//! D3D's limits: interpolation modes that suit each input, supported input primitives, point
//! lists with several streams, `dcl_maxout` within 1024 output components, thread groups within
//! 1024 threads (768 and one layer in `cs_4_x`), shared memory within 32 KiB (16 KiB).

use super::registry::IoRegister;
use super::Gen;
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::operand::{Components, Operand, RegisterType as R};
use crate::front::dxbc::program::Stage;
use crate::front::dxbc::reflect::{InputPrimitive, Interpolation as I, SystemName as N};
use crate::text::dxbc::encode::token::controls;
use crate::text::dxbc::encode::{reg, ProgramBuilder};

use Opcode as O;

/// Output system values of vertex and domain shaders.
pub(super) const VERTEX_OUTPUTS: &[N] = &[
    N::Position,
    N::ClipDistance,
    N::CullDistance,
    N::RenderTargetArrayIndex,
    N::ViewportArrayIndex,
];
/// Output system values of geometry shaders (`primitive_id` is an `_sgv`).
const GEOMETRY_OUTPUTS: &[N] = &[
    N::Position,
    N::ClipDistance,
    N::CullDistance,
    N::RenderTargetArrayIndex,
    N::ViewportArrayIndex,
    N::PrimitiveId,
];
/// Output system values of hull-shader control points.
pub(super) const CONTROL_POINT_OUTPUTS: &[N] = &[N::Position, N::ClipDistance, N::CullDistance];

/// Shared memory a compute shader may declare in all (`cs_4_x`, `cs_5_x`).
const SHARED_BYTES: [u32; 2] = [16 * 1024, 32 * 1024];

/// The tessellator domain of `dcl_tessellator_domain` and its tess factors (`D3D10_SB_NAME`),
/// edges first.
pub(super) fn tess_factors(domain: u32) -> (&'static [N], &'static [N]) {
    match domain {
        1 => (&[N::LineDetailTessFactor, N::LineDensityTessFactor], &[]),
        2 => (
            &[
                N::TriUEq0EdgeTessFactor,
                N::TriVEq0EdgeTessFactor,
                N::TriWEq0EdgeTessFactor,
            ],
            &[N::TriInsideTessFactor],
        ),
        _ => (
            &[
                N::QuadUEq0EdgeTessFactor,
                N::QuadVEq0EdgeTessFactor,
                N::QuadUEq1EdgeTessFactor,
                N::QuadVEq1EdgeTessFactor,
            ],
            &[N::QuadUInsideTessFactor, N::QuadVInsideTessFactor],
        ),
    }
}

/// The components a system value takes.
fn system_value_mask(name: N) -> Option<u8> {
    match name {
        N::Position => Some(0xf),
        N::ClipDistance | N::CullDistance => None,
        _ => Some(0x1),
    }
}

impl Gen<'_> {
    /// A declared register with a mask.
    pub(super) fn decl_reg(&mut self, ty: R, indices: &[u32], mask: u8) -> Operand {
        let mut op = reg(ty, indices);
        op.components = Components::Mask(mask);
        op
    }

    /// Declares a `v#`/`o#`-style register (`dcl_input*`/`dcl_output*`, with the system value
    /// `name`) and records it.
    pub(super) fn io_decl(
        &mut self,
        b: &mut ProgramBuilder,
        opcode: Opcode,
        bits: u32,
        op: Operand,
        name: Option<N>,
    ) {
        let register = op.indices().last().map_or(0, |i| i.imm as u32);
        let mask = match op.components {
            Components::Mask(m) => m,
            _ => 0xf,
        };
        let io = IoRegister {
            register,
            mask,
            interpolated: false,
        };
        match op.ty {
            R::Input => self.io.inputs.push(io),
            R::Output => self.io.outputs.push(io),
            R::InputControlPoint => self.io.input_points.1.push(register),
            R::OutputControlPoint => self.io.output_points.1.push(register),
            R::InputPatchConstant => self.io.patch_constants.push(register),
            _ => {}
        }
        self.op(b, opcode, bits);
        b.dst(op);
        if let Some(name) = name {
            b.name(name.raw());
        }
    }

    /// A system register declared with `dcl_input`: `mask` for vectors (`width` components),
    /// none for scalars (`vCoverage` as a scalar), as fxc writes them.
    pub(super) fn system_input(&mut self, b: &mut ProgramBuilder, ty: R, width: Option<u8>) {
        let mut op = reg(ty, &[]);
        match width {
            // The translatable profile reads only the leading components it declared.
            Some(width) if self.valid() => {
                let declared = self.rng.range(1, u32::from(width)) as u8;
                op.components = Components::Mask((1 << declared) - 1);
                self.io.vectors.push((ty, declared));
            }
            Some(width) => {
                op.components = Components::Mask(self.mask(false));
                self.io.vectors.push((ty, width));
            }
            None => {
                op.components = if ty == R::InputCoverageMask {
                    Components::One
                } else {
                    Components::Zero
                };
                self.io.scalars.push(ty);
            }
        }
        self.op(b, O::DclInput, 0);
        b.dst(op);
    }

    /// `dcl_indexrange` from register `first` (of `ty`, per-vertex with `vertices`) over some of
    /// the `plain` registers declared from there (at least two).
    fn index_range(
        &mut self,
        b: &mut ProgramBuilder,
        ty: R,
        vertices: Option<u32>,
        first: u32,
        plain: u32,
    ) {
        let count = if self.valid() {
            self.rng.range(2, plain.max(2))
        } else {
            self.rng.range(2, 4)
        };
        let mask = self.mask(false);
        let indices = match vertices {
            Some(v) => vec![v, first],
            None => vec![first],
        };
        let op = self.decl_reg(ty, &indices, mask);
        self.op(b, O::DclIndexRange, 0);
        b.dst(op).imm(count);
        if ty == R::Output {
            self.io.output_range = Some((first, count));
        } else {
            self.io.input_range = Some((first, count));
        }
    }

    /// Picks up to `most` distinct system values of `names`.
    fn system_values(&mut self, names: &[N], most: u32) -> Vec<N> {
        let mut picked = Vec::new();
        if names.is_empty() {
            return picked;
        }
        for _ in 0..self.rng.below32(most + 1) {
            let name = self.rng.pick(names);
            if !picked.contains(&name) {
                picked.push(name);
            }
        }
        picked
    }

    /// Plain outputs `o<first>`… (an index range over them at times), then outputs with some
    /// of the system values `names`; returns how many registers it declared.
    pub(super) fn outputs(&mut self, b: &mut ProgramBuilder, first: u32, names: &[N]) -> u32 {
        let plain = self.rng.range(1, 4);
        for n in first..first + plain {
            let mask = self.mask(false);
            let op = self.decl_reg(R::Output, &[n], mask);
            self.io_decl(b, O::DclOutput, 0, op, None);
        }
        if plain >= 2 && self.rng.chance(30) {
            self.index_range(b, R::Output, None, first, plain);
        }
        let mut n = first + plain;
        for name in self.system_values(names, 2) {
            let mask = system_value_mask(name).unwrap_or_else(|| self.mask(false));
            let op = self.decl_reg(R::Output, &[n], mask);
            let opcode = if name == N::PrimitiveId {
                O::DclOutputSgv
            } else {
                O::DclOutputSiv
            };
            self.io_decl(b, opcode, 0, op, Some(name));
            n += 1;
        }
        n - first
    }

    pub(super) fn stage_decls(&mut self, b: &mut ProgramBuilder) {
        match self.v.stage {
            Stage::Vertex => self.vertex_decls(b),
            Stage::Pixel => self.pixel_decls(b),
            Stage::Geometry => self.geometry_decls(b),
            Stage::Domain => self.domain_decls(b),
            Stage::Compute => self.compute_decls(b),
            Stage::Hull | Stage::Library => unreachable!("hull shaders have their own layout"),
        }
    }

    fn vertex_decls(&mut self, b: &mut ProgramBuilder) {
        let n = self.rng.range(1, 4);
        for r in 0..n {
            let mask = self.mask(false);
            let op = self.decl_reg(R::Input, &[r], mask);
            self.io_decl(b, O::DclInput, 0, op, None);
        }
        if n >= 2 && self.rng.chance(20) {
            self.index_range(b, R::Input, None, 0, n);
        }
        if self.rng.chance(25) {
            let name = self.rng.pick(&[N::VertexId, N::InstanceId]);
            let op = self.decl_reg(R::Input, &[n], 0x1);
            self.io_decl(b, O::DclInputSgv, 0, op, Some(name));
        }
        self.outputs(b, 0, VERTEX_OUTPUTS);
    }

    /// An interpolation mode for a plain pixel-shader input.
    fn interpolation(&mut self) -> I {
        if !self.valid() {
            return I::from_raw(self.rng.below32(8));
        }
        let mut modes = vec![
            I::Constant,
            I::Linear,
            I::LinearCentroid,
            I::LinearNoPerspective,
            I::LinearNoPerspectiveCentroid,
        ];
        if (self.v.major, self.v.minor) >= (4, 1) {
            modes.extend([I::LinearSample, I::LinearNoPerspectiveSample]);
        }
        self.rng.pick(&modes)
    }

    fn pixel_decls(&mut self, b: &mut ProgramBuilder) {
        let sm5 = self.v.major >= 5;
        let mut used = Vec::new();
        let mut sgv = vec![N::PrimitiveId, N::IsFrontFace];
        if (self.v.major, self.v.minor) >= (4, 1) {
            sgv.push(N::SampleIndex);
        }
        let n = self.rng.range(1, 5);
        for r in 0..n {
            let roll = self.rng.below32(4);
            let name = match roll {
                0 => self.rng.pick(VERTEX_OUTPUTS),
                1 => self.rng.pick(&sgv),
                _ => N::Undefined,
            };
            let name = if self.valid() && used.contains(&name) {
                N::Undefined
            } else {
                name
            };
            used.push(name);
            let mode = match name {
                N::Undefined => self.interpolation(),
                _ if !self.valid() => I::from_raw(self.rng.below32(8)),
                N::Position => self
                    .rng
                    .pick(&[I::LinearNoPerspective, I::LinearNoPerspectiveCentroid]),
                N::ClipDistance | N::CullDistance => I::Linear,
                _ => I::Constant,
            };
            let mask = match name {
                N::Undefined => self.mask(false),
                _ if !self.valid() => self.mask(false),
                name => system_value_mask(name).unwrap_or_else(|| self.mask(false)),
            };
            let op = self.decl_reg(R::Input, &[r], mask);
            let bits = controls::interpolation(mode.raw());
            match name {
                N::Undefined => {
                    self.io_decl(b, O::DclInputPs, bits, op, None);
                    let last = self.io.inputs.len() - 1;
                    self.io.inputs[last].interpolated = !matches!(mode.raw(), 0 | 1);
                }
                _ if roll == 1 => self.io_decl(b, O::DclInputPsSgv, bits, op, Some(name)),
                _ => self.io_decl(b, O::DclInputPsSiv, bits, op, Some(name)),
            }
        }
        if sm5 {
            if self.rng.chance(30) {
                self.system_input(b, R::InputCoverageMask, None);
            } else if self.rng.chance(10) {
                self.system_input(b, R::InnerCoverage, None);
            }
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
            self.io.special_outputs.push(ty);
        }
    }

    fn geometry_decls(&mut self, b: &mut ProgramBuilder) {
        let sm5 = self.v.major >= 5;
        let mut primitives = vec![1, 2, 3, 6, 7];
        if sm5 && !self.valid() {
            primitives.push(self.rng.range(8, 39));
        }
        let primitive = self.rng.pick(&primitives);
        let vertices = InputPrimitive::from_raw(primitive)
            .vertex_count()
            .unwrap_or(1);
        self.io.vertices = vertices;
        let n = self.rng.range(1, 4);
        let position = self.rng.chance(50);
        for r in 0..n {
            if r + 1 == n && position {
                let op = self.decl_reg(R::Input, &[vertices, r], 0xf);
                self.io_decl(b, O::DclInputSiv, 0, op, Some(N::Position));
            } else {
                let mask = self.mask(false);
                let op = self.decl_reg(R::Input, &[vertices, r], mask);
                self.io_decl(b, O::DclInput, 0, op, None);
            }
        }
        if n - u32::from(position) >= 2 && self.rng.chance(20) {
            self.index_range(b, R::Input, Some(vertices), 0, n - u32::from(position));
        }
        if self.rng.chance(30) {
            self.system_input(b, R::InputPrimitiveId, None);
        }
        if sm5 && self.rng.chance(30) {
            self.system_input(b, R::InputGsInstanceId, None);
            self.op(b, O::DclGsInstanceCount, 0);
            b.imm(self.rng.range(1, 32));
        }
        self.op(b, O::DclInputPrimitive, controls::primitive(primitive));
        let mut registers = 0;
        if sm5 {
            let streams = if self.valid() {
                self.rng.range(1, 3)
            } else {
                self.rng.below32(3)
            };
            for m in 0..streams {
                self.op(b, O::DclStream, 0);
                b.dst(reg(R::Stream, &[m]));
                self.declared.streams.push(m);
                let names = if m == 0 { GEOMETRY_OUTPUTS } else { &[] };
                registers += self.outputs(b, 4 * m, names);
            }
        } else {
            registers = self.outputs(b, 0, GEOMETRY_OUTPUTS);
        }
        let topology = if self.valid() && self.declared.streams.len() > 1 {
            1
        } else {
            self.rng.pick(&[1, 3, 5])
        };
        self.op(b, O::DclOutputTopology, controls::primitive(topology));
        // D3D: at most 1024 output components in all the vertices of one invocation.
        let most = if self.valid() {
            (1024 / (4 * registers.max(1))).max(1)
        } else {
            1024
        };
        self.op(b, O::DclMaxOutputVertexCount, 0);
        b.imm(self.rng.range(1, most));
    }

    fn domain_decls(&mut self, b: &mut ProgramBuilder) {
        let domain = self.rng.range(1, 3);
        let points = self.rng.range(1, 32);
        self.op(b, O::DclInputControlPointCount, points);
        self.op(b, O::DclTessDomain, domain);
        let width = if domain == 2 { 3 } else { 2 };
        let mut op = reg(R::InputDomainPoint, &[]);
        op.components = Components::Mask((1 << width) - 1);
        self.op(b, O::DclInput, 0);
        b.dst(op);
        self.io.vectors.push((R::InputDomainPoint, width));
        self.io.input_points.0 = points;
        for n in 0..self.rng.range(1, 3) {
            let mask = self.mask(false);
            let op = self.decl_reg(R::InputControlPoint, &[points, n], mask);
            self.io_decl(b, O::DclInput, 0, op, None);
        }
        let mut register = 0;
        if self.rng.chance(50) {
            let (edges, insides) = tess_factors(domain);
            for &name in edges.iter().chain(insides) {
                let op = self.decl_reg(R::InputPatchConstant, &[register], 0x1);
                self.io_decl(b, O::DclInputSiv, 0, op, Some(name));
                register += 1;
            }
        }
        for n in register..register + self.rng.below32(3) {
            let mask = self.mask(false);
            let op = self.decl_reg(R::InputPatchConstant, &[n], mask);
            self.io_decl(b, O::DclInput, 0, op, None);
        }
        if self.rng.chance(30) {
            self.system_input(b, R::InputPrimitiveId, None);
        }
        self.outputs(b, 0, VERTEX_OUTPUTS);
    }

    fn compute_decls(&mut self, b: &mut ProgramBuilder) {
        let sm4 = self.v.major == 4;
        for ty in [
            R::InputThreadId,
            R::InputThreadGroupId,
            R::InputThreadIdInGroup,
        ] {
            if self.rng.chance(50) {
                self.system_input(b, ty, Some(3));
            }
        }
        if self.rng.chance(50) {
            self.system_input(b, R::InputThreadIdInGroupFlattened, None);
        }
        let limit = SHARED_BYTES[usize::from(!sm4)];
        for g in 0..self.rng.below32(3) {
            let op = reg(R::ThreadGroupSharedMemory, &[g]);
            let left = limit.saturating_sub(self.declared.shared_bytes);
            let (stride, bytes) = if self.rng.chance(50) {
                let mut bytes = 4 * self.rng.range(1, 1024);
                if self.valid() {
                    bytes = bytes.min(left & !3);
                }
                (None, bytes)
            } else {
                let stride = 4 * self.rng.range(1, 64);
                let mut count = self.rng.range(1, 256);
                if self.valid() {
                    count = count.min(left / stride);
                }
                (Some(stride), stride * count)
            };
            if bytes == 0 {
                continue;
            }
            match stride {
                None => {
                    self.op(b, O::DclTgsmRaw, 0);
                    b.dst(op).imm(bytes);
                }
                Some(stride) => {
                    self.op(b, O::DclTgsmStructured, 0);
                    b.dst(op).imm(stride).imm(bytes / stride);
                }
            }
            self.declared.shared_bytes += bytes;
            self.declared.shared.push(super::registry::SharedMemory {
                register: g,
                stride,
            });
        }
        let (x, y, z) = if self.valid() {
            // D3D: 1024 threads in all (cs_4_x: 768, in one layer).
            let threads = if sm4 { 768 } else { 1024 };
            let x = self.rng.range(1, 64);
            let y = self.rng.range(1, (threads / x).min(16));
            let layers = if sm4 { 1 } else { 4 };
            let z = self.rng.range(1, (threads / (x * y)).clamp(1, layers));
            (x, y, z)
        } else {
            (
                self.rng.range(1, 64),
                self.rng.range(1, 16),
                self.rng.range(1, 4),
            )
        };
        self.op(b, O::DclThreadGroup, 0);
        b.imm(x).imm(y).imm(z);
    }
}
