//! Shader reflection derived from the program's declarations: stage, thread-group size, global
//! flags, every declared resource with its D3D kind and register range, TGSM, the immediate
//! constant buffer, per-phase temps and I/O, geometry-shader and tessellation state, and
//! dynamic-linkage counts.
//!
//! Contract: [`Reflection::from_program`] reads only the `dcl_*` instructions (and the
//! hull-shader phase markers and immediate-constant-buffer blocks) of a program, so it works on
//! stripped blobs without `RDEF`. Every declaration is decoded; an instruction that fails to
//! decode, or a declaration whose operand cannot name a register, is a [`ReflectError`] with the
//! instruction's byte offset. Enumerated fields with values this crate does not know are kept
//! as `Unknown(raw)`, never an error. [`Reflection::from_container`] adds the signatures and,
//! when the container has an `RDEF` chunk, the resources' names, matched by (class, space,
//! range ID) in SM5.1 and by (class, register inside the binding's range) before; a resource no
//! binding matches keeps `name: None`.
//!
//! Registers: SM5.0 and earlier declare one register per declaration, so a resource's
//! [`Range`] has `id == lower_bound` and a count of 1 (a constant buffer's size is its second
//! index). SM5.1 declares ranges `T1[4:*]` in a register space: the range ID the program
//! indexes with, the lower bound, the upper bound or unbounded.
//!
//! This module knows nothing of SPIR-V; the translation's binding map consumes what it lists.

mod container;
#[cfg(test)]
mod corpus_tests;
mod decls;
mod enums;
mod resource;
#[cfg(test)]
mod tests;

pub use container::{binding_class, SignatureElement, Signatures, BINDING_UNUSED};
pub use enums::{
    GlobalFlags, InputPrimitive, Interpolation, OutputTopology, ResourceDimension, ReturnType,
    SamplerMode, SystemName, TessDomain, TessOutputPrimitive, TessPartitioning, UavFlags,
};
pub use resource::{Range, Resource, ResourceClass, ResourceKind};

use super::error::DecodeError;
use super::operand::RegisterType;
use super::program::ShaderVersion;

/// Why a program could not be reflected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReflectError {
    /// The container, a chunk or an instruction failed to decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A declaration that decodes but cannot be interpreted (an operand without the indices its
    /// kind needs, an SM5.1 range whose upper bound is below its lower bound, a phase
    /// declaration outside its phase).
    #[error("at 0x{offset:x} ({opcode}): {what}")]
    Malformed {
        /// The declaration's mnemonic.
        opcode: &'static str,
        /// What is wrong.
        what: &'static str,
        /// Byte offset of the instruction in the input.
        offset: u32,
    },
}

impl ReflectError {
    /// Byte offset in the input where the problem was found.
    pub fn offset(&self) -> u32 {
        match self {
            ReflectError::Decode(e) => e.offset,
            ReflectError::Malformed { offset, .. } => *offset,
        }
    }
}

/// Everything the declarations of one program say about its interface.
#[derive(Clone, Debug, PartialEq)]
pub struct Reflection {
    /// Stage and shader model.
    pub version: ShaderVersion,
    /// `dcl_globalFlags` (empty when absent).
    pub global_flags: GlobalFlags,
    /// `dcl_thread_group` (compute shaders).
    pub thread_group_size: Option<[u32; 3]>,
    /// Constant buffers, SRVs, UAVs and samplers, in declaration order.
    pub resources: Vec<Resource>,
    /// Thread-group shared memory (`g#`), in declaration order.
    pub tgsm: Vec<Tgsm>,
    /// The immediate constant buffer (`icb`), when the program has one.
    pub immediate_constant_buffer: Option<ImmediateConstantBuffer>,
    /// Temps and I/O per phase: one [`PhaseKind::Main`] phase, or for hull shaders the
    /// [`PhaseKind::Declarations`] section followed by each phase in program order.
    pub phases: Vec<Phase>,
    /// Geometry-shader state (geometry shaders only).
    pub geometry: Option<Geometry>,
    /// Tessellation state (hull and domain shaders only).
    pub tessellation: Option<Tessellation>,
    /// Dynamic linkage: function bodies, tables and interfaces (SM5 class linkage).
    pub linkage: Linkage,
    /// The signatures; filled only by [`Reflection::from_container`].
    pub signatures: Signatures,
}

/// A thread-group shared memory declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tgsm {
    /// The `g#` register.
    pub register: u32,
    /// Raw or structured, with its size.
    pub kind: TgsmKind,
    /// Byte offset of the declaration.
    pub offset: u32,
}

impl Tgsm {
    /// Size in bytes.
    pub fn size_bytes(&self) -> u64 {
        match self.kind {
            TgsmKind::Raw { bytes } => u64::from(bytes),
            TgsmKind::Structured { stride, count } => u64::from(stride) * u64::from(count),
        }
    }
}

/// The layout of thread-group shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TgsmKind {
    /// `dcl_tgsm_raw g#, bytes`.
    Raw {
        /// Size in bytes.
        bytes: u32,
    },
    /// `dcl_tgsm_structured g#, stride, count`.
    Structured {
        /// Bytes per element.
        stride: u32,
        /// Number of elements.
        count: u32,
    },
}

/// The immediate constant buffer (`dcl_immediateConstantBuffer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImmediateConstantBuffer {
    /// Size in dwords (a multiple of 4 as fxc writes it).
    pub dwords: u32,
    /// Byte offset of the custom-data block.
    pub offset: u32,
}

impl ImmediateConstantBuffer {
    /// Size in 16-byte vectors, rounded up.
    pub fn vec4s(&self) -> u32 {
        self.dwords.div_ceil(4)
    }
}

/// Which part of a program a [`Phase`] describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhaseKind {
    /// The whole program of a stage other than hull.
    Main,
    /// A hull shader's global declarations (`hs_decls`, and anything before the first phase).
    Declarations,
    /// `hs_control_point_phase`.
    ControlPoint,
    /// `hs_fork_phase`.
    Fork,
    /// `hs_join_phase`.
    Join,
}

impl PhaseKind {
    /// `main`, `hs_decls`, `control_point`, `fork`, `join`.
    pub fn name(self) -> &'static str {
        match self {
            PhaseKind::Main => "main",
            PhaseKind::Declarations => "hs_decls",
            PhaseKind::ControlPoint => "control_point",
            PhaseKind::Fork => "fork",
            PhaseKind::Join => "join",
        }
    }
}

/// The declarations of one phase (the whole program outside hull shaders).
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    /// Which phase.
    pub kind: PhaseKind,
    /// Byte offset of the phase marker (`hs_fork_phase`, ...); `None` for [`PhaseKind::Main`]
    /// and for hull-shader declarations without an `hs_decls` marker.
    pub offset: Option<u32>,
    /// `dcl_hs_fork_phase_instance_count` / `dcl_hs_join_phase_instance_count`, when declared.
    pub instance_count: Option<u32>,
    /// `dcl_temps` (0 when absent).
    pub temps: u32,
    /// `dcl_indexableTemp` declarations.
    pub indexable_temps: Vec<IndexableTemp>,
    /// `dcl_input*` declarations, in order.
    pub inputs: Vec<IoDeclaration>,
    /// `dcl_output*` declarations, in order.
    pub outputs: Vec<IoDeclaration>,
    /// `dcl_indexrange` declarations.
    pub index_ranges: Vec<IndexRange>,
}

impl Phase {
    pub(crate) fn new(kind: PhaseKind, offset: Option<u32>) -> Self {
        Self {
            kind,
            offset,
            instance_count: None,
            temps: 0,
            indexable_temps: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            index_ranges: Vec::new(),
        }
    }

    /// How many times a fork or join phase runs: its declared instance count, else 1.
    pub fn instances(&self) -> u32 {
        self.instance_count.unwrap_or(1)
    }
}

/// `dcl_indexableTemp x#[size], components`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexableTemp {
    /// The `x#` register.
    pub register: u32,
    /// Number of elements.
    pub size: u32,
    /// Components per element (1–4).
    pub components: u32,
}

/// One input or output declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDeclaration {
    /// The register file: `v`, `o`, `vicp`, `vpc`, or a special register (`vThreadID`,
    /// `vPrim`, `oDepth`, ...).
    pub register_type: RegisterType,
    /// The register number; `None` for special registers without an index.
    pub register: Option<u32>,
    /// For two-dimensional registers (`v[3][0]`, `vicp[32][1]`): the vertex or control-point
    /// count.
    pub array_size: Option<u32>,
    /// Declared components (bit 0 = x); 0 for registers without a write mask (scalar special
    /// registers such as `vPrim`, `vForkInstanceID`, `oDepth`).
    pub mask: u8,
    /// The system value of `_siv`/`_sgv` declarations.
    pub system_value: Option<SystemName>,
    /// The interpolation mode of pixel-shader inputs (`dcl_input_ps*`).
    pub interpolation: Option<Interpolation>,
    /// For geometry-shader outputs: the stream declared before it (`dcl_stream m#`).
    pub stream: Option<u32>,
    /// Byte offset of the declaration.
    pub offset: u32,
}

/// `dcl_indexrange`: registers the program indexes dynamically.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexRange {
    /// The register file (`v`, `o`, `vicp`, `vpc`, ...).
    pub register_type: RegisterType,
    /// First register.
    pub register: u32,
    /// Number of registers.
    pub count: u32,
    /// Components (bit 0 = x).
    pub mask: u8,
    /// Byte offset of the declaration.
    pub offset: u32,
}

/// Geometry-shader declarations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Geometry {
    /// `dcl_inputprimitive`.
    pub input_primitive: Option<InputPrimitive>,
    /// `dcl_outputtopology` (the first one; per stream in [`Geometry::streams`]).
    pub output_topology: Option<OutputTopology>,
    /// `dcl_maxout`.
    pub max_output_vertices: Option<u32>,
    /// `dcl_gsinstances`.
    pub instance_count: Option<u32>,
    /// `dcl_stream m#` declarations (SM5), in order.
    pub streams: Vec<Stream>,
}

/// A geometry-shader output stream (`dcl_stream m#`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    /// The stream index.
    pub index: u32,
    /// The output topology declared after it.
    pub output_topology: Option<OutputTopology>,
}

/// Hull- and domain-shader tessellation declarations (what a runtime needs for execution modes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tessellation {
    /// `dcl_tessellator_domain`.
    pub domain: Option<TessDomain>,
    /// `dcl_tessellator_partitioning` (hull shaders).
    pub partitioning: Option<TessPartitioning>,
    /// `dcl_tessellator_output_primitive` (hull shaders).
    pub output_primitive: Option<TessOutputPrimitive>,
    /// `dcl_input_control_point_count`.
    pub input_control_points: Option<u32>,
    /// `dcl_output_control_point_count` (hull shaders).
    pub output_control_points: Option<u32>,
    /// `dcl_hs_max_tessfactor`.
    pub max_tess_factor: Option<f32>,
}

/// SM5 dynamic linkage (classes and interfaces).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linkage {
    /// Number of `dcl_function_body` declarations.
    pub function_bodies: u32,
    /// `dcl_function_table` declarations.
    pub function_tables: Vec<FunctionTable>,
    /// `dcl_interface` declarations.
    pub interfaces: Vec<Interface>,
}

/// `dcl_function_table ft# = {fb#, ...}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionTable {
    /// The table's ID.
    pub id: u32,
    /// The function bodies it lists.
    pub bodies: Vec<u32>,
}

/// `dcl_interface fp#[array][length] = {ft#, ...}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    /// The interface pointer's ID.
    pub id: u32,
    /// Array length (fxc's first bracket).
    pub array_length: u32,
    /// Entries of each function table (fxc's second bracket).
    pub table_length: u32,
    /// The function tables of the classes that may implement it.
    pub function_tables: Vec<u32>,
    /// `dcl_interface_dynamicindexed`.
    pub dynamically_indexed: bool,
}

impl Reflection {
    /// The first phase of `kind`, if any.
    pub fn phase(&self, kind: PhaseKind) -> Option<&Phase> {
        self.phases.iter().find(|p| p.kind == kind)
    }

    /// The instance counts of the fork phases, in order (1 where undeclared).
    pub fn fork_instance_counts(&self) -> Vec<u32> {
        self.instance_counts(PhaseKind::Fork)
    }

    /// The instance counts of the join phases, in order (1 where undeclared).
    pub fn join_instance_counts(&self) -> Vec<u32> {
        self.instance_counts(PhaseKind::Join)
    }

    fn instance_counts(&self, kind: PhaseKind) -> Vec<u32> {
        self.phases
            .iter()
            .filter(|p| p.kind == kind)
            .map(Phase::instances)
            .collect()
    }

    /// The largest `dcl_temps` of any phase.
    pub fn max_temps(&self) -> u32 {
        self.phases.iter().map(|p| p.temps).max().unwrap_or(0)
    }

    /// The resources of one class, in declaration order.
    pub fn resources_of(&self, class: ResourceClass) -> impl Iterator<Item = &Resource> {
        self.resources.iter().filter(move |r| r.class() == class)
    }
}
