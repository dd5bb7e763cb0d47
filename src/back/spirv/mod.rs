//! IR → SPIR-V: the back end. Knows the IR and Vulkan, nothing of DXBC.
//!
//! Contract: takes a module that passed [`ir::validate`] with every binding assigned, and
//! returns a SPIR-V module for the requested version that `spirv-val` accepts for the matching
//! Vulkan environment, or an error; it never emits a module it knows to be invalid.
//! Files: `context.rs` (the emitter, register loads/stores), `indexing.rs` (register indices
//! and their bounds), `declare.rs` (registers, constant
//! buffers, built-ins), `resources.rs` (buffers, shared memory), `control_flow.rs`, `alu*.rs`
//! (arithmetic), `memory.rs` (buffer access, atomics), `texture/` (images, samplers, the
//! tiled-resource operations), `io/` (the stage interface), `stage.rs` and `hull.rs` (stage
//! operations and execution modes). Each file owns the part of the emitter's state it writes
//! (see the fields of `Emitter`); the others reach it through the owner's methods.

mod alu;
mod buffer_options;
mod context;
mod control_flow;
mod declare;
mod descriptors;
mod device_address;
mod error;
mod hull;
mod indexing;
#[cfg(test)]
mod interlock_tests;
mod io;
mod memory;
mod options;
mod parameters;
mod push_constants;
mod resources;
mod stage;
mod state;
#[cfg(test)]
mod state_tests;
mod temps;
mod texture;
mod values;
mod warnings;
mod workarounds;

use spirv::{
    AddressingModel, Capability, ExecutionMode, ExecutionModel, FunctionControl, MemoryModel,
};

use crate::ir::{self, Dimension, Family, Op, ResourceShape, Stage};
use crate::spv::{Module, Version};
use crate::warning::Warning;
pub use buffer_options::fixup_entries;
pub use error::Error;

use context::Emitter;
/// [`io::geometry_vertex_map`], for the facade's tests.
#[cfg(test)]
pub(crate) fn geometry_vertex_map_for_tests(
    shader: crate::ir::InputPrimitive,
    draw: crate::ir::InputPrimitive,
) -> Vec<(u32, u32)> {
    io::geometry_vertex_map(shader, draw)
}

pub use options::{
    DomainModes, EmitOptions, FloatControls, FloatEmulation, ForcedBarriers, LinkedInput, Linking,
    RovInterlock, StorageBufferAlignment, TexelRawBuffers, TypedUavFormats, UavFormat,
    UnlistedUavFormat, WorkgroupZeroInit, ENTRY_POINT,
};
pub use push_constants::{push_constant_range, PushConstantRange};
pub use state::{
    parse_swizzle, PipelineState, SpecValue, TargetComponent, TargetSwizzle, IDENTITY_SWIZZLE,
};

/// The entry point's function (the shader's main function; a hull shader's declarations).
const ENTRY: ir::FunctionId = ir::FunctionId::new(0);

/// The default `SpecId` of the specialization constant holding the rasterizer's sample count
/// (`sampleinfo`/`samplepos` on `rasterizer`; default 1), unless
/// [`PipelineState::sample_count`] says otherwise.
pub const RASTERIZER_SAMPLES_SPEC_ID: u32 = 0;

/// The Vulkan descriptor type of a binding the module declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorType {
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`: constant buffers.
    UniformBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`: raw and structured buffers, UAV counters.
    StorageBuffer,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER`: typed buffer SRVs.
    UniformTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER`: typed buffer UAVs.
    StorageTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`: texture SRVs.
    SampledImage,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`: texture UAVs.
    StorageImage,
    /// `VK_DESCRIPTOR_TYPE_SAMPLER`.
    Sampler,
}

/// The descriptor type a `t#`/`u#` declaration is bound as under `options`.
pub fn descriptor_type(decl: &ir::ResourceDecl, options: &EmitOptions) -> DescriptorType {
    let uav = decl.range.kind == crate::bindings::ResourceKind::UnorderedAccess;
    match (decl.shape, uav) {
        (ResourceShape::Raw | ResourceShape::Structured { .. }, _) => {
            match (options.texel_raw_buffers.applies(uav), uav) {
                (false, _) => DescriptorType::StorageBuffer,
                (true, false) => DescriptorType::UniformTexelBuffer,
                (true, true) => DescriptorType::StorageTexelBuffer,
            }
        }
        (
            ResourceShape::Typed {
                dim: Dimension::Buffer,
                ..
            },
            false,
        ) => DescriptorType::UniformTexelBuffer,
        (
            ResourceShape::Typed {
                dim: Dimension::Buffer,
                ..
            },
            true,
        ) => DescriptorType::StorageTexelBuffer,
        (ResourceShape::Typed { .. }, false) => DescriptorType::SampledImage,
        (ResourceShape::Typed { .. }, true) => DescriptorType::StorageImage,
    }
}

/// Writes `module` as a SPIR-V module.
pub fn emit(module: &ir::Module, options: &EmitOptions) -> Result<Vec<u32>, Error> {
    emit_reusing(module, options, &mut Scratch::default()).map(|e| e.spirv)
}

/// What [`emit_reusing`] returns: the module and the warnings of its emission.
#[derive(Clone, Debug, PartialEq)]
pub struct Emitted {
    /// The SPIR-V module.
    pub spirv: Vec<u32>,
    /// Where the module does not do exactly what the shader asked (empty, unallocated, when
    /// it does).
    pub warnings: Vec<Warning>,
}

/// The buffers of one emission that the next can reuse: the SPIR-V module under construction
/// and the emitter's tables, emptied before use (see [`emit_reusing`]).
#[derive(Debug, Default)]
pub struct Scratch {
    module: Option<Module>,
    temp_values: values::TempValues,
    temps: Vec<context::Var>,
    functions: Vec<crate::spv::Id>,
    frames: Vec<context::Frame>,
}

impl Scratch {
    /// No buffers.
    pub const EMPTY: Scratch = Scratch {
        module: None,
        temp_values: values::TempValues::EMPTY,
        temps: Vec::new(),
        functions: Vec::new(),
        frames: Vec::new(),
    };

    /// A scratch holding `module` (tests of what is kept).
    #[cfg(test)]
    pub(crate) fn with_module(module: Module) -> Scratch {
        Scratch {
            module: Some(module),
            ..Scratch::default()
        }
    }

    /// The bytes the scratch holds allocated: what keeping it costs.
    pub fn allocated_bytes(&self) -> usize {
        use std::mem::size_of;
        self.module.as_ref().map_or(0, Module::allocated_bytes)
            + self.temp_values.allocated_bytes()
            + self.temps.capacity() * size_of::<context::Var>()
            + self.functions.capacity() * size_of::<crate::spv::Id>()
            + self.frames.capacity() * size_of::<context::Frame>()
    }
}

/// [`emit`], building in `scratch`: what an earlier call left there (emptied first, its
/// allocations kept) or new buffers, left there for the next call. A translator working
/// through many shaders on one thread so allocates its code sections and tables once instead
/// of once per shader.
pub fn emit_reusing(
    module: &ir::Module,
    options: &EmitOptions,
    scratch: &mut Scratch,
) -> Result<Emitted, Error> {
    let stage = module.stage;
    // About 60 words per IR instruction (ALU instructions load, convert, compute and store
    // 4-component registers), bounded by the IR, which is bounded by the input.
    let code = 256 + module.insts.len() * 64;
    let mut m = match scratch.module.take() {
        Some(mut m) => {
            m.clear(options.version);
            m.reserve_code(code);
            m
        }
        None => Module::with_code_capacity(options.version, code),
    };
    m.set_emit_names(options.debug_names);
    m.capability(Capability::Shader);
    m.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    if device_address::uses_device_addresses(module) {
        device_address::enable(&mut m);
    }
    let mut e = Emitter::new(module, m, options, scratch);
    let spirv = e.module(stage).and_then(|()| {
        let mut out = Vec::new();
        e.m.write_into(&mut out)?;
        Ok(out)
    });
    let warnings = e.into_scratch(scratch);
    spirv.map(|spirv| Emitted { spirv, warnings })
}

/// The vector in `v`, emptied, leaving an empty one (no allocation) in its place.
fn take_empty<T>(v: &mut Vec<T>) -> Vec<T> {
    let mut v = std::mem::take(v);
    v.clear();
    v
}

impl Emitter<'_> {
    /// Everything of the module, up to [`Module::write_into`].
    fn module(&mut self, stage: Stage) -> Result<(), Error> {
        self.program_warnings();
        self.declare_registers()?;
        self.declare_builtins()?;
        self.declare_io()?;
        self.declare_resources()?;
        let interlock = self.rov_critical_section()?;
        let void = self.m.type_void();
        let fn_ty = self.m.type_function(void, &[]);
        self.declare_functions();
        for f in self.ir.function_ids() {
            self.function(f, fn_ty)?;
        }
        let main = match stage {
            Stage::Compute => self.function_id(self.ir.program_span, ENTRY)?,
            Stage::Hull => self.hull_main(fn_ty)?,
            _ => self.wrapper(fn_ty, interlock)?,
        };
        let model = match stage {
            Stage::Vertex => ExecutionModel::Vertex,
            Stage::Pixel => ExecutionModel::Fragment,
            Stage::Geometry => ExecutionModel::Geometry,
            Stage::Hull => ExecutionModel::TessellationControl,
            Stage::Domain => ExecutionModel::TessellationEvaluation,
            Stage::Compute => ExecutionModel::GLCompute,
        };
        let interface: Vec<_> = self.m.interface_variables().collect();
        self.m.entry_point(model, main, ENTRY_POINT, &interface);
        self.execution_modes(stage, main)?;
        let float_controls = self.options.float_controls;
        self.float_modes(main, &float_controls);
        Ok(())
    }

    /// The entry point of a graphics stage: copy the inputs in, run the shader (inside the
    /// interlock critical section when it has rasterizer-ordered views), copy the outputs out
    /// (geometry shaders copy at each `emit`).
    fn wrapper(&mut self, fn_ty: crate::spv::Id, interlock: bool) -> Result<crate::spv::Id, Error> {
        let shader = self.function_id(self.ir.program_span, ENTRY)?;
        let void = self.m.type_void();
        let id = self.m.begin_function(fn_ty, FunctionControl::NONE);
        self.m.new_block();
        self.copy_inputs();
        self.load_patch_constants(spirv::StorageClass::Input);
        if interlock {
            self.interlock(true);
        }
        self.m.function_call(void, shader, &[]);
        if interlock {
            self.interlock(false);
        }
        if self.ir.stage != Stage::Geometry {
            self.copy_outputs(None, None);
        }
        self.m.ret();
        self.m.end_function();
        self.m.name(id, "main");
        Ok(id)
    }

    /// The stage's execution modes.
    fn execution_modes(&mut self, stage: Stage, main: crate::spv::Id) -> Result<(), Error> {
        match stage {
            Stage::Compute => {
                let [x, y, z] = self.ir.thread_group;
                self.m.local_size(main, x.max(1), y.max(1), z.max(1));
            }
            Stage::Pixel => {
                self.m
                    .execution_mode(main, ExecutionMode::OriginUpperLeft, &[]);
                self.interlock_mode(main);
                if self
                    .ir
                    .global_flags
                    .contains(ir::GlobalFlags::EARLY_DEPTH_STENCIL)
                {
                    self.m
                        .execution_mode(main, ExecutionMode::EarlyFragmentTests, &[]);
                }
                if let Some(depth) = self.depth_output() {
                    self.m
                        .execution_mode(main, ExecutionMode::DepthReplacing, &[]);
                    match depth {
                        ir::DepthOutput::Any => {}
                        ir::DepthOutput::GreaterEqual => {
                            self.m
                                .execution_mode(main, ExecutionMode::DepthGreater, &[])
                        }
                        ir::DepthOutput::LessEqual => {
                            self.m.execution_mode(main, ExecutionMode::DepthLess, &[])
                        }
                    }
                }
            }
            Stage::Geometry => self.geometry_modes(main)?,
            Stage::Hull => self.tessellation_modes(main, true)?,
            Stage::Domain => self.tessellation_modes(main, false)?,
            Stage::Vertex => {}
        }
        if self.ir.stream_output.is_some() {
            self.m.execution_mode(main, ExecutionMode::Xfb, &[]);
        }
        Ok(())
    }

    /// Declares the float execution modes the device supports (SPIR-V 1.4 core, else the
    /// `SPV_KHR_float_controls` extension); 64-bit modes only in modules that use doubles.
    fn float_modes(&mut self, main: crate::spv::Id, fc: &FloatControls) {
        let doubles = self.m.has_capability(Capability::Float64);
        let modes = [
            (
                fc.preserve_inf_nan_f32,
                ExecutionMode::SignedZeroInfNanPreserve,
                Capability::SignedZeroInfNanPreserve,
                32,
            ),
            (
                fc.preserve_inf_nan_f64 && doubles,
                ExecutionMode::SignedZeroInfNanPreserve,
                Capability::SignedZeroInfNanPreserve,
                64,
            ),
            (
                fc.flush_denorm_f32,
                ExecutionMode::DenormFlushToZero,
                Capability::DenormFlushToZero,
                32,
            ),
            (
                fc.preserve_denorm_f64 && doubles,
                ExecutionMode::DenormPreserve,
                Capability::DenormPreserve,
                64,
            ),
        ];
        for (on, mode, cap, width) in modes {
            if !on {
                continue;
            }
            if self.m.version() < Version::V1_4 {
                self.m.extension("SPV_KHR_float_controls");
            }
            self.m.capability(cap);
            self.m.execution_mode(main, mode, &[width]);
        }
    }

    fn function(&mut self, f: ir::FunctionId, fn_ty: crate::spv::Id) -> Result<(), Error> {
        let id = self.function_id(self.ir.program_span, f)?;
        self.m
            .begin_function_with_id(id, fn_ty, FunctionControl::NONE);
        self.m.new_block();
        if f == ENTRY {
            self.init_function_registers();
            self.zero_workgroup_memory()?;
        }
        self.flow.frames.clear();
        self.flow.after_case = false;
        self.flow.dead = None;
        let body = self.ir.body(f);
        self.flow.body = body;
        for (position, inst) in body.iter().enumerate() {
            self.flow.span = inst.span;
            self.flow.position = position;
            self.instruction(inst)?;
            self.check_temp_writes(inst.span)?;
        }
        if !self.flow.frames.is_empty() {
            let span = body.last().map_or(0, |i| i.span);
            return Err(Error::internal(
                span,
                "function ends inside an open construct",
            ));
        }
        if self.m.in_block() {
            self.end_with_return()?;
        }
        self.m.end_function();
        Ok(())
    }

    /// `ld` from a typed buffer SRV (a memory operation; `ld` on textures is a texture one).
    fn is_typed_buffer_load(&self, inst: &ir::Inst) -> bool {
        let resource = inst.op.source(ir::Role::Resource);
        let Some(ir::Reg::Resource { decl, .. }) =
            resource.and_then(|k| inst.src().get(k)).map(|s| s.reg)
        else {
            return false;
        };
        matches!(
            self.ir.resources.get(decl.index()).map(|r| r.shape),
            Some(ResourceShape::Typed {
                dim: Dimension::Buffer,
                ..
            })
        )
    }

    /// Whether `inst` is unreachable code to skip: what follows a terminator up to the next
    /// part of the enclosing construct (`else`, `case`, `default`, or its end). SPIR-V wants
    /// no branch from an unreachable block into a construct it is not in (a loop's continue
    /// target, a merge), so such code is not emitted at all.
    fn skips(&mut self, op: Op) -> bool {
        use Op::*;
        let resumes = matches!(op, Else | EndIf | EndLoop | Case | Default | EndSwitch);
        match self.flow.dead {
            None if self.m.in_block() || resumes || self.flow.frames.is_empty() && op == Nop => {
                false
            }
            None => {
                // The first instruction after a terminator.
                self.flow.dead = Some(u32::from(matches!(op, If | Loop | Switch)));
                true
            }
            Some(depth) => {
                match op {
                    If | Loop | Switch => self.flow.dead = Some(depth + 1),
                    EndIf | EndLoop | EndSwitch if depth > 0 => self.flow.dead = Some(depth - 1),
                    Else | Case | Default if depth > 0 => {}
                    _ if resumes => {
                        self.flow.dead = None;
                        return false;
                    }
                    _ => {}
                }
                true
            }
        }
    }

    /// One instruction, routed by its [`Family`]. Inlined into the loop over a function's
    /// instructions: the call's prologue and epilogue cost more than the routing.
    #[inline(always)]
    fn instruction(&mut self, inst: &ir::Inst) -> Result<(), Error> {
        if self.skips(inst.op) {
            self.flow.after_case = false;
            return Ok(());
        }
        if !inst.op.is_control_flow() {
            // Any instruction between two case labels ends the label run.
            self.flow.after_case = false;
        }
        // Every family is routed (no catch-all): a new family fails to compile until it is.
        match inst.op.family() {
            Family::ControlFlow => self.control_flow(inst),
            Family::Buffer | Family::Atomic | Family::Sync => {
                self.ensure_block();
                self.memory(inst)?;
                self.forced_barrier(inst);
                Ok(())
            }
            Family::TextureLoad if inst.op == Op::Ld && self.is_typed_buffer_load(inst) => {
                self.ensure_block();
                self.memory(inst)
            }
            Family::TextureLoad
            | Family::Sample
            | Family::Gather
            | Family::Query
            | Family::Sparse => {
                self.ensure_block();
                self.texture(inst)
            }
            Family::Discard | Family::Derivative | Family::Interpolation | Family::Geometry => {
                self.ensure_block();
                self.stage_op(inst)
            }
            Family::Move
            | Family::Float
            | Family::Integer
            | Family::Bits
            | Family::Double
            | Family::Legacy => {
                self.ensure_block();
                self.alu(inst)
            }
        }
    }
}
