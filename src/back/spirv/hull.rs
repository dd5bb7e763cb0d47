//! Hull shaders → one tessellation-control entry point, and the execution modes of both
//! tessellation stages (`docs/hull-shaders.md`).
//!
//! Contract: the entry point copies the whole input patch into the input file, then emits the
//! steps the `schedule_hull_phases` pass planned ([`HullStep`]): phase calls (a counted loop
//! for a phase whose instances are spread over the invocations, or that has many), the
//! pass-through, the control-point write to element `InvocationId` of the per-vertex outputs,
//! barriers (`OpControlBarrier Workgroup Invocation None`, GLSL's `barrier()` in a
//! tessellation-control shader), the `vocp` load, patch-constant publication and the
//! tessellation levels. `OutputVertices` is `max(1, n)`: D3D allows 0 output points, Vulkan
//! does not.

use spirv::{ExecutionMode, FunctionControl, LoopControl, StorageClass};

use super::context::{Emitter, Scalar};
use crate::back::spirv::Error;
use crate::ir::{HullStep, TessDomain, TessOutputPrimitive, TessPartitioning};
use crate::spv::Id;

/// The invocation id, as loaded (`int`) and as `uint`.
#[derive(Clone, Copy)]
struct Invocation {
    int: Id,
    uint: Id,
}

/// The serial schedule calls a phase once per instance up to this many instances, and loops
/// over more (so code size stays proportional to the program, whatever the instance counts).
const UNROLLED_INSTANCES: u32 = 4;

impl Emitter<'_> {
    /// The hull shader's entry point: the input patch copied in, then the steps of
    /// [`ir::Module::hull_steps`](crate::ir::Module::hull_steps).
    pub(super) fn hull_main(&mut self, fn_ty: Id) -> Result<Id, Error> {
        let u = self.ty(Scalar::U32, 1);
        let i = self.ty(Scalar::I32, 1);
        let id = self.m.begin_function(fn_ty, FunctionControl::NONE);
        self.m.new_block();
        let invocation_var = self.io.invocation().ok_or_else(|| {
            Error::internal(self.ir.program_span, "hull shader without InvocationId")
        })?;
        let inv_i = self.m.load(i, invocation_var);
        let invocation = self.m.bitcast(u, inv_i);
        self.copy_inputs();
        let steps = self.ir.hull_steps.clone();
        self.hull_steps(
            &steps,
            Invocation {
                int: inv_i,
                uint: invocation,
            },
        )?;
        self.m.ret();
        self.m.end_function();
        self.m.name(id, "main");
        Ok(id)
    }

    fn hull_steps(&mut self, steps: &[HullStep], inv: Invocation) -> Result<(), Error> {
        let void = self.m.type_void();
        for step in steps {
            match step {
                HullStep::ControlPoint(f) => {
                    let f = self.function_id(self.ir.program_span, *f)?;
                    self.m.function_call(void, f, &[]);
                }
                HullStep::PassThrough => self.pass_through(inv.uint),
                HullStep::WriteControlPoint => self.copy_outputs(None, Some(inv.int)),
                HullStep::Barrier => self.barrier(),
                HullStep::LoadOutputPoints => self.copy_output_points(),
                HullStep::Phase {
                    function,
                    instances,
                    from_invocation,
                    step,
                } => {
                    let f = self.function_id(self.ir.program_span, *function)?;
                    if !from_invocation && *instances <= UNROLLED_INSTANCES {
                        for k in 0..*instances {
                            self.set_phase_instance(k);
                            self.m.function_call(void, f, &[]);
                        }
                    } else {
                        let first = if *from_invocation {
                            inv.uint
                        } else {
                            self.u32_const(0)
                        };
                        self.spread(first, *instances, (*step).max(1), |e| {
                            e.m.function_call(void, f, &[]);
                        });
                    }
                }
                HullStep::PublishPatchConstants => self.publish_patch_constants()?,
                HullStep::ReloadPatchConstants => self.load_patch_constants(StorageClass::Output),
                HullStep::WritePatchConstants => self.write_patch_constants(),
                HullStep::WriteTessLevels => self.write_tess_levels(),
                HullStep::FirstInvocation(inner) => {
                    let zero = self.u32_const(0);
                    let b = self.ty(Scalar::Bool, 1);
                    let first = self.m.i_equal(b, inv.uint, zero);
                    self.guarded(first, |e| e.hull_steps(inner, inv))?;
                }
            }
        }
        Ok(())
    }

    /// `OpControlBarrier Workgroup Invocation None`: what GLSL's `barrier()` is in a
    /// tessellation-control shader; it also makes the output writes before it visible to the
    /// patch's other invocations.
    fn barrier(&mut self) {
        let workgroup = self.u32_const(spirv::Scope::Workgroup as u32);
        let invocation = self.u32_const(spirv::Scope::Invocation as u32);
        let none = self.u32_const(0);
        self.m.control_barrier(workgroup, invocation, none);
    }

    /// Sets the fork/join instance id the next call reads.
    fn set_phase_instance(&mut self, k: u32) {
        if let Some(var) = self.io.phase_instance() {
            let c = self.u32_const(k);
            self.m.store(var, c);
        }
    }

    /// `for (k = invocation; k < instances; k += n) { instance = k; body }`.
    fn spread(&mut self, invocation: Id, instances: u32, n: u32, body: impl FnOnce(&mut Self)) {
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let counter = self.m.variable(u, None);
        self.m.store(counter, invocation);
        let header = self.m.alloc_id();
        let check = self.m.alloc_id();
        let body_block = self.m.alloc_id();
        let continue_block = self.m.alloc_id();
        let merge = self.m.alloc_id();
        self.m.branch(header);
        self.m.label(header);
        self.m.loop_merge(merge, continue_block, LoopControl::NONE);
        self.m.branch(check);
        self.m.label(check);
        let k = self.m.load(u, counter);
        let limit = self.u32_const(instances);
        let more = self.m.u_less_than(b, k, limit);
        self.m.branch_conditional(more, body_block, merge);
        self.m.label(body_block);
        if let Some(var) = self.io.phase_instance() {
            self.m.store(var, k);
        }
        body(self);
        self.m.branch(continue_block);
        self.m.label(continue_block);
        let step = self.u32_const(n);
        let next = self.m.i_add(u, k, step);
        self.m.store(counter, next);
        self.m.branch(header);
        self.m.label(merge);
    }

    /// Execution modes of a hull shader (all tessellator modes) or a domain shader (its domain,
    /// and the hull shader's modes when the caller passed them).
    pub(super) fn tessellation_modes(&mut self, main: Id, hull: bool) -> Result<(), Error> {
        let t = self.ir.tessellation;
        let domain = t.domain.ok_or_else(|| {
            Error::invalid(self.ir.program_span, "tessellation stage without a domain")
        })?;
        self.m.execution_mode(
            main,
            match domain {
                TessDomain::Isoline => ExecutionMode::Isolines,
                TessDomain::Triangle => ExecutionMode::Triangles,
                TessDomain::Quad => ExecutionMode::Quads,
            },
            &[],
        );
        let modes = if hull {
            self.m.execution_mode(
                main,
                ExecutionMode::OutputVertices,
                &[t.output_control_points.max(1)],
            );
            t.partitioning.zip(t.output_primitive)
        } else {
            self.options
                .domain_modes
                .map(|d| (d.partitioning, d.output_primitive))
        };
        let Some((partitioning, primitive)) = modes else {
            return Ok(());
        };
        let spacing = match partitioning {
            // D3D's reference tessellator treats pow2 as integer partitioning (rounding to powers
            // of two is what fxc's ProcessTessFactors code does in the shader).
            TessPartitioning::Integer | TessPartitioning::Pow2 => ExecutionMode::SpacingEqual,
            TessPartitioning::FractionalOdd => ExecutionMode::SpacingFractionalOdd,
            TessPartitioning::FractionalEven => ExecutionMode::SpacingFractionalEven,
        };
        self.m.execution_mode(main, spacing, &[]);
        let order = match primitive {
            TessOutputPrimitive::TriangleCcw => ExecutionMode::VertexOrderCcw,
            _ => ExecutionMode::VertexOrderCw,
        };
        self.m.execution_mode(main, order, &[]);
        if primitive == TessOutputPrimitive::Point {
            self.m.execution_mode(main, ExecutionMode::PointMode, &[]);
        }
        Ok(())
    }
}
