//! Stage-specific operations: `discard`, derivatives, pull-model interpolation (`eval_*`),
//! geometry-shader `emit`/`cut` on streams, and the geometry execution modes.
//!
//! Contract:
//! - `discard` demotes the invocation to a helper (`OpDemoteToHelperInvocation`: D3D keeps the
//!   pixel running for derivatives and drops its outputs and UAV writes), or ends it with
//!   `OpKill` when the caller asked for that; pixel shaders only.
//! - `deriv_rtx/rty` are `OpDPdx/OpDPdy`; `_coarse`/`_fine` need `DerivativeControl`.
//! - `eval_centroid`, `eval_sample_index`, `eval_snapped` interpolate the input variables that
//!   carry the register's components (`InterpolateAtCentroid/Sample/Offset`); `eval_snapped`'s
//!   offset is in 1/16 pixel, 4-bit signed per axis (D3D11.3 §16.5.3).
//! - `emit`/`cut`/`emit_then_cut` copy the outputs of their stream and call
//!   `OpEmitVertex`/`OpEndPrimitive`, or the `Stream` forms when the module uses streams.
//! - A geometry shader that declares no output topology (it emits nothing: fxc compiles one
//!   without an output stream, D3D accepts it) is given `OutputPoints` ([`output_topology`]).
//! - Rasterizer-ordered views (`_rov` UAVs, pixel shaders only) are kept ordered by an ordered
//!   fragment-shader interlock, as [`RovInterlock`] allows: the entry point begins the critical
//!   section right before it calls the shader's main function and ends it right after
//!   ([`Emitter::rov_critical_section`]), so every ROV access is inside it and each bound runs
//!   exactly once, in the entry point's uniform control flow (SPV_EXT_fragment_shader_interlock).
//!   The section also holds the shader's other work (a narrower one would need the accesses in
//!   the entry point itself). `discard` demotes, so the invocation reaches the end; as
//!   `OpKill` it would not, and that combination is `Unsupported`. Without an interlock a ROV
//!   is `Unsupported`, never translated as a plain UAV.
//! - Every operation of the discard, derivative, interpolation and geometry families has its
//!   arm (no catch-all): an operation added to one of them fails to compile until it is here.

use spirv::{Capability, ExecutionMode, GlslStd450Op, Op as SpvOp};

use super::context::{Emitter, Scalar};
use super::io::LinkKind;
use crate::back::spirv::{Error, RovInterlock};
use crate::ir::{
    DerivativeOp, DiscardOp, GeometryInfo, GeometryOp, InputPrimitive, Inst, InterpolationOp, Op,
    OpKind, OutputTopology, Reg, Stage,
};
use crate::spv::Version;

/// The output topology a geometry shader's execution mode names: its `dcl_outputtopology`, or
/// [`OutputTopology::PointList`] when it declares none. Such a shader emits no vertex (it has
/// no output stream; it writes UAVs only), so the topology is never seen; Vulkan still wants
/// exactly one output mode, and points, the simplest, need no adjacency or strip state.
pub(super) fn output_topology(g: &GeometryInfo) -> OutputTopology {
    g.output_topology.unwrap_or(OutputTopology::PointList)
}

impl Emitter<'_> {
    /// One stage-specific operation.
    pub(super) fn stage_op(&mut self, inst: &Inst) -> Result<(), Error> {
        let stage = self.ir.stage;
        let pixel_only = |what: &str| {
            Error::invalid(
                inst.span,
                format!("{what} outside a pixel shader ({} shader)", stage.prefix()),
            )
        };
        // Every family, and every operation of the stage families, has its arm (no
        // catch-all): an operation added to the table fails to compile until it is emitted.
        match inst.op.kind() {
            OpKind::Discard(DiscardOp::Discard) => {
                if stage != Stage::Pixel {
                    return Err(pixel_only("discard"));
                }
                let cond = self.condition(inst, 0)?;
                self.guarded(cond, |e| {
                    e.discard();
                    Ok(())
                })
            }
            OpKind::Derivative(op) => {
                if stage != Stage::Pixel {
                    return Err(pixel_only("a derivative"));
                }
                self.derivative(inst, op)
            }
            OpKind::Interpolation(op) => {
                if stage != Stage::Pixel {
                    return Err(pixel_only("pull-model interpolation"));
                }
                self.eval(inst, op)
            }
            OpKind::Geometry(op) => {
                if stage != Stage::Geometry {
                    return Err(Error::invalid(
                        inst.span,
                        format!("{} outside a geometry shader", inst.op.name()),
                    ));
                }
                self.emit_cut(inst, op);
                Ok(())
            }
            OpKind::Move(_)
            | OpKind::Float(_)
            | OpKind::Legacy(_)
            | OpKind::Integer(_)
            | OpKind::Bits(_)
            | OpKind::Double(_)
            | OpKind::ControlFlow(_)
            | OpKind::Buffer(_)
            | OpKind::Atomic(_)
            | OpKind::Sync(_)
            | OpKind::TextureLoad(_)
            | OpKind::Sample(_)
            | OpKind::Gather(_)
            | OpKind::Query(_)
            | OpKind::Sparse(_) => Err(Error::internal(
                inst.span,
                format!("{} is not a stage operation", inst.op.name()),
            )),
        }
    }

    /// `deriv_rt[xy][_coarse|_fine]`: `OpDPdx/OpDPdy` and their `DerivativeControl` forms.
    fn derivative(&mut self, inst: &Inst, op: DerivativeOp) -> Result<(), Error> {
        let (op, control) = match op {
            DerivativeOp::DerivRtx => (SpvOp::DPdx, false),
            DerivativeOp::DerivRty => (SpvOp::DPdy, false),
            DerivativeOp::DerivRtxCoarse => (SpvOp::DPdxCoarse, true),
            DerivativeOp::DerivRtxFine => (SpvOp::DPdxFine, true),
            DerivativeOp::DerivRtyCoarse => (SpvOp::DPdyCoarse, true),
            DerivativeOp::DerivRtyFine => (SpvOp::DPdyFine, true),
        };
        if control {
            self.m.capability(Capability::DerivativeControl);
        }
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let v = self.load_src(inst, 0, mask, Scalar::F32)?;
        let ty = self.ty(Scalar::F32, v.n);
        let id = self.m.emit(op, ty, &[v.id]);
        self.store_dst(inst, 0, super::context::Value { id, ..v })
    }

    /// `emit`/`cut`/`emit_then_cut` on the instruction's stream (geometry shaders only).
    fn emit_cut(&mut self, inst: &Inst, op: GeometryOp) {
        let (emit, cut) = match op {
            GeometryOp::Emit => (true, false),
            GeometryOp::Cut => (false, true),
            GeometryOp::EmitThenCut => (true, true),
        };
        let stream = inst.payload.stream().min(3);
        let streams = self.io.streams();
        let s = self.u32_const(u32::from(stream));
        if emit {
            self.copy_outputs(Some(stream), None);
            if streams {
                self.m
                    .inst(SpvOp::EmitStreamVertex, None, None, &[s.word()]);
            } else {
                self.m.inst(SpvOp::EmitVertex, None, None, &[]);
            }
        }
        if cut {
            if streams {
                self.m
                    .inst(SpvOp::EndStreamPrimitive, None, None, &[s.word()]);
            } else {
                self.m.inst(SpvOp::EndPrimitive, None, None, &[]);
            }
        }
    }

    /// Whether the entry point wraps the shader's main function in an interlock critical
    /// section: the module declares a rasterizer-ordered view. Errors when the module cannot
    /// keep its ordering: no interlock was allowed, the shader is not a pixel shader, or
    /// `discard` would end the invocation inside the section (`OpKill`).
    pub(super) fn rov_critical_section(&mut self) -> Result<bool, Error> {
        let Some(rov) = self.ir.resources.iter().find(|r| r.rasterizer_ordered) else {
            return Ok(false);
        };
        if self.ir.stage != Stage::Pixel {
            return Err(Error::invalid(
                rov.span,
                format!(
                    "rasterizer-ordered view u{} in a {} shader (pixel shaders only)",
                    rov.id,
                    self.ir.stage.prefix()
                ),
            ));
        }
        if self.options.rov_interlock == RovInterlock::Off {
            return Err(Error::unsupported(
                rov.span,
                format!(
                    "rasterizer-ordered views (u{}) without fragment-shader interlock: enable the \
                     rov_interlock option (VK_EXT_fragment_shader_interlock) to keep their order",
                    rov.id
                ),
            ));
        }
        if !self.options.demote_to_helper && self.ir.insts.iter().any(|i| i.op == Op::Discard) {
            return Err(Error::unsupported(
                rov.span,
                "rasterizer-ordered views with discard as OpKill, which would leave the \
                 interlock's critical section unended: let discard demote to a helper",
            ));
        }
        self.m.extension("SPV_EXT_fragment_shader_interlock");
        Ok(true)
    }

    /// Begins (`begin`) or ends the interlock critical section.
    pub(super) fn interlock(&mut self, begin: bool) {
        let op = if begin {
            SpvOp::BeginInvocationInterlockEXT
        } else {
            SpvOp::EndInvocationInterlockEXT
        };
        self.m.inst(op, None, None, &[]);
    }

    /// The ordered interlock execution mode of a pixel shader with rasterizer-ordered views:
    /// per sample when the device allows it and the shader runs per sample (it declared
    /// `SampleRateShading`, so call this after the stage interface), else per pixel.
    pub(super) fn interlock_mode(&mut self, main: crate::spv::Id) {
        if !self.ir.resources.iter().any(|r| r.rasterizer_ordered) {
            return;
        }
        let per_sample = self.m.has_capability(Capability::SampleRateShading);
        let (mode, cap) = match self.options.rov_interlock {
            RovInterlock::Off => return,
            RovInterlock::PixelAndSample if per_sample => (
                ExecutionMode::SampleInterlockOrderedEXT,
                Capability::FragmentShaderSampleInterlockEXT,
            ),
            RovInterlock::Pixel | RovInterlock::PixelAndSample => (
                ExecutionMode::PixelInterlockOrderedEXT,
                Capability::FragmentShaderPixelInterlockEXT,
            ),
        };
        self.m.capability(cap);
        self.m.execution_mode(main, mode, &[]);
    }

    /// Demote or kill (the block stays open after a demote; a kill ends it).
    fn discard(&mut self) {
        if self.options.demote_to_helper {
            if self.m.version() < Version::V1_6 {
                self.m.extension("SPV_EXT_demote_to_helper_invocation");
            }
            self.m.capability(Capability::DemoteToHelperInvocation);
            self.m
                .inst(SpvOp::DemoteToHelperInvocation, None, None, &[]);
        } else {
            self.m.kill();
        }
    }

    /// `eval_*`: interpolates the inputs that carry register `v#` and stores the swizzled
    /// result.
    fn eval(&mut self, inst: &Inst, op: InterpolationOp) -> Result<(), Error> {
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let src = *inst
            .src()
            .first()
            .ok_or_else(|| Error::internal(inst.span, "eval without a source"))?;
        let Reg::Input(index) = src.reg else {
            return Err(Error::invalid(
                inst.span,
                "eval of a register that is not v#",
            ));
        };
        let register = index
            .constant()
            .ok_or_else(|| Error::unsupported(inst.span, "eval_* of a relatively indexed input"))?;
        self.m.capability(Capability::InterpolationFunction);
        let (glsl_op, extra) = match op {
            InterpolationOp::EvalCentroid => (GlslStd450Op::InterpolateAtCentroid, None),
            InterpolationOp::EvalSampleIndex => (
                GlslStd450Op::InterpolateAtSample,
                Some(self.load_src(inst, 1, 1, Scalar::I32)?.id),
            ),
            InterpolationOp::EvalSnapped => {
                // Offsets: low 4 bits signed, in 1/16 pixel.
                let v = self.load_src(inst, 1, 0b11, Scalar::I32)?;
                let i2 = self.ty(Scalar::I32, 2);
                let shift = self.splat_bits(Scalar::I32, 2, 28);
                let up = self.m.shift_left_logical(i2, v.id, shift);
                let signed = self.m.shift_right_arithmetic(i2, up, shift);
                let f2 = self.ty(Scalar::F32, 2);
                let f = self.m.convert_s_to_f(f2, signed);
                let sixteenth = self.splat_bits(Scalar::F32, 2, (1.0f32 / 16.0).to_bits());
                (
                    GlslStd450Op::InterpolateAtOffset,
                    Some(self.m.f_mul(f2, f, sixteenth)),
                )
            }
        };
        // Gather the register's four words; components no interpolable input carries read 0.
        let u = self.ty(Scalar::U32, 1);
        let zero = self.u32_const(0);
        let mut words = [zero; 4];
        let links: Vec<_> = self.io.register_inputs(register).copied().collect();
        for link in links {
            let value = if link.scalar == Scalar::F32 && link.kind == LinkKind::Plain {
                let ty = self.ty(Scalar::F32, link.width);
                let mut args = vec![link.var];
                args.extend(extra);
                let id = self.glsl(ty, glsl_op, &args);
                let v = super::context::Value {
                    id,
                    scalar: Scalar::F32,
                    n: link.width,
                };
                self.bitcast(v, Scalar::U32)
            } else {
                // Flat and built-in inputs do not vary over the pixel.
                self.read_link(&link, None)
            };
            for c in 0..4u8 {
                if link.mask & (1 << c) == 0 || c < link.first || c - link.first >= value.n {
                    continue;
                }
                words[c as usize] = if value.n == 1 {
                    value.id
                } else {
                    self.m
                        .composite_extract(u, value.id, &[u32::from(c - link.first)])
                };
            }
        }
        let mut parts = [zero; 4];
        let mut n = 0;
        for c in Self::mask_components(mask) {
            parts[n] = words[(src.swizzle[c as usize] & 3) as usize];
            n += 1;
        }
        let v = self.compose(Scalar::U32, &parts[..n]);
        let v = self.bitcast(v, Scalar::F32);
        let v = match src.modifier {
            crate::ir::Modifier::None => v,
            _ => {
                return Err(Error::unsupported(
                    inst.span,
                    "a modifier on the source of eval_*",
                ))
            }
        };
        self.store_dst(inst, 0, v)
    }

    /// Geometry-shader execution modes: input primitive, output topology ([`output_topology`]:
    /// `OutputPoints` when the shader declares none), vertex count (`OutputVertices` at least
    /// 1: Vulkan wants a positive count, D3D allows `dcl_maxout 0`), instances.
    pub(super) fn geometry_modes(&mut self, main: crate::spv::Id) -> Result<(), Error> {
        let g = self.ir.geometry;
        self.m.capability(Capability::Geometry);
        // The draw's primitive when the caller rewrites it (`Linking::geometry_input`).
        let declared = g.input_primitive.and(self.options.linking.geometry_input);
        let input = match declared.or(g.input_primitive) {
            Some(InputPrimitive::Point) => ExecutionMode::InputPoints,
            Some(InputPrimitive::Line) => ExecutionMode::InputLines,
            Some(InputPrimitive::Triangle) => ExecutionMode::Triangles,
            Some(InputPrimitive::LineAdj) => ExecutionMode::InputLinesAdjacency,
            Some(InputPrimitive::TriangleAdj) => ExecutionMode::InputTrianglesAdjacency,
            None => {
                return Err(Error::invalid(
                    self.ir.program_span,
                    "geometry shader without an input primitive",
                ))
            }
        };
        let output = match output_topology(&g) {
            OutputTopology::PointList => ExecutionMode::OutputPoints,
            OutputTopology::LineStrip => ExecutionMode::OutputLineStrip,
            OutputTopology::TriangleStrip => ExecutionMode::OutputTriangleStrip,
        };
        self.m.execution_mode(main, input, &[]);
        self.m.execution_mode(main, output, &[]);
        self.m.execution_mode(
            main,
            ExecutionMode::OutputVertices,
            &[g.max_output_vertices.max(1)],
        );
        self.m
            .execution_mode(main, ExecutionMode::Invocations, &[g.instances.max(1)]);
        Ok(())
    }
}
