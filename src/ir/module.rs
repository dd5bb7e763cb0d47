//! The module: declarations, functions and the instruction arena.

use std::ops::Range;

use super::binding::{BindingTarget, RegisterRange, ResourceKind};
use super::id::FunctionId;
use super::io::{GlobalFlags, InputPrimitive, Interpolation, OutputTopology, SystemValue};
use super::op::Inst;

/// The pipeline stage a module runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Vertex shader.
    Vertex,
    /// Pixel (fragment) shader.
    Pixel,
    /// Geometry shader.
    Geometry,
    /// Hull shader (tessellation control).
    Hull,
    /// Domain shader (tessellation evaluation).
    Domain,
    /// Compute shader.
    Compute,
}

impl Stage {
    /// fxc's profile prefix: `vs`, `ps`, `gs`, `hs`, `ds`, `cs`.
    pub fn prefix(self) -> &'static str {
        match self {
            Stage::Vertex => "vs",
            Stage::Pixel => "ps",
            Stage::Geometry => "gs",
            Stage::Hull => "hs",
            Stage::Domain => "ds",
            Stage::Compute => "cs",
        }
    }
}

/// A translated shader: declarations plus the instruction arena its functions share.
///
/// Every module has a stage, so there is no `Default`: [`Module::new`] makes an empty one.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// Byte offset of the program's version token: where errors about the program as a whole
    /// (a missing declaration the stage needs) point.
    pub program_span: u32,
    /// The stage.
    pub stage: Stage,
    /// Shader model `(major, minor)`.
    pub model: (u8, u8),
    /// The program-wide flags (`dcl_globalFlags`).
    pub global_flags: GlobalFlags,
    /// Number of `r#` registers (`dcl_temps`).
    pub temps: u32,
    /// `x#` arrays, indexed by the `array` of [`Reg::IndexableTemp`](super::Reg::IndexableTemp).
    pub indexable_temps: Vec<IndexableTemp>,
    /// The immediate constant buffer, four dwords per element.
    pub icb: Vec<u32>,
    /// Constant buffers, indexed by the `decl` of [`Reg::ConstantBuffer`](super::Reg::ConstantBuffer).
    pub cbuffers: Vec<CbDecl>,
    /// Shader resource views and UAVs, indexed by the `decl` of [`Reg::Resource`](super::Reg::Resource) /
    /// [`Reg::Uav`](super::Reg::Uav).
    pub resources: Vec<ResourceDecl>,
    /// Samplers, indexed by the `decl` of [`Reg::Sampler`](super::Reg::Sampler).
    pub samplers: Vec<SamplerDecl>,
    /// Thread-group shared memory, indexed by [`Reg::Tgsm`](super::Reg::Tgsm).
    pub tgsm: Vec<Tgsm>,
    /// Declared inputs (`dcl_input*`).
    pub inputs: Vec<IoDecl>,
    /// Declared outputs (`dcl_output*`).
    pub outputs: Vec<IoDecl>,
    /// The input signature (`ISGN`/`ISG1`): what the previous stage or the input layout
    /// provides, per register and component.
    pub input_signature: Vec<SignatureElement>,
    /// The output signature (`OSGN`/`OSG5`/`OSG1`).
    pub output_signature: Vec<SignatureElement>,
    /// Geometry-shader declarations (geometry shaders only).
    pub geometry: GeometryInfo,
    /// Tessellator declarations (hull and domain shaders).
    pub tessellation: TessellationInfo,
    /// The phases of a hull shader, in program order (control point, fork, join).
    pub hull_phases: Vec<HullPhase>,
    /// The tessellation-control entry point of a hull shader (`schedule_hull_phases`).
    pub hull_steps: Vec<HullStep>,
    /// Patch-constant registers: the `o#` of a hull shader's fork and join phases, the `vpc#`
    /// a domain shader (or a join phase) declares.
    pub patch_constants: Vec<IoDecl>,
    /// The patch-constant signature (`PCSG`/`PSG1`).
    pub patch_constant_signature: Vec<SignatureElement>,
    /// Stream output requested by the caller, resolved to registers.
    pub stream_output: Option<StreamOutput>,
    /// `dcl_thread_group x, y, z` (compute only; 0s otherwise).
    pub thread_group: [u32; 3],
    /// Function 0 is the entry point, then one per `label`.
    pub functions: Vec<Function>,
    /// Every instruction of every function.
    pub insts: Vec<Inst>,
    /// Case tables, indexed by the [`SwitchId`](super::SwitchId) in a `switch` instruction's
    /// payload.
    pub switches: Vec<SwitchTable>,
    /// SM5 class linkage (`dcl_interface`): the constant buffer that holds each interface
    /// slot's function-table index and `this` data; `None` for shaders without interfaces.
    pub class_linkage: Option<ClassLinkage>,
    /// Values the runtime provides, indexed by [`Reg::Parameter`](super::Reg::Parameter)
    /// (pipeline state such as Direct3D 9's alpha-test reference); empty for most modules.
    pub parameters: Vec<super::Parameter>,
    /// User input registers whose Vulkan `Location` is not their register number, as
    /// `(register, location)`: a front end whose stages link by semantic rather than by
    /// register (Direct3D 9's usages) places them here. Empty: location = register.
    pub input_locations: Vec<(u32, u32)>,
    /// User output registers whose `Location` is not their register number (as
    /// [`Module::input_locations`]).
    pub output_locations: Vec<(u32, u32)>,
    /// The position output is `Invariant` whatever the options say: Direct3D 9 computes it
    /// bit-identically for the same program and inputs in every pipeline (multipass
    /// rendering relies on it), which Vulkan only promises for invariant outputs.
    pub invariant_position: bool,
}

/// The class-linkage data block of a shader that declares interfaces.
///
/// The block is one of [`Module::cbuffers`], laid out as `uvec4[2 × slots]`: element `s`
/// holds the `this` data of interface slot `s` (`this[s]`), element `slots + s` holds in `.x`
/// the index of the function table (`ft#`) bound to slot `s`. Its binding is not asked of the
/// binding map: the pipeline gives it its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassLinkage {
    /// The block's position in [`Module::cbuffers`].
    pub cbuffer: super::CbId,
    /// Interface slots the shader declares: the largest `fp#` + array length.
    pub slots: u32,
}

impl Module {
    /// An empty module of `stage`: no declarations, functions or instructions.
    pub fn new(stage: Stage) -> Module {
        Module {
            program_span: Default::default(),
            stage,
            model: Default::default(),
            global_flags: Default::default(),
            temps: Default::default(),
            indexable_temps: Default::default(),
            icb: Default::default(),
            cbuffers: Default::default(),
            resources: Default::default(),
            samplers: Default::default(),
            tgsm: Default::default(),
            inputs: Default::default(),
            outputs: Default::default(),
            input_signature: Default::default(),
            output_signature: Default::default(),
            geometry: Default::default(),
            tessellation: Default::default(),
            hull_phases: Default::default(),
            hull_steps: Default::default(),
            patch_constants: Default::default(),
            patch_constant_signature: Default::default(),
            stream_output: Default::default(),
            thread_group: Default::default(),
            functions: Default::default(),
            insts: Default::default(),
            switches: Default::default(),
            class_linkage: None,
            parameters: Vec::new(),
            input_locations: Vec::new(),
            output_locations: Vec::new(),
            invariant_position: false,
        }
    }

    /// The `Location` of user input register `register` ([`Module::input_locations`]).
    pub fn input_location(&self, register: u32) -> u32 {
        location_in(&self.input_locations, register)
    }

    /// The `Location` of user output register `register` ([`Module::output_locations`]).
    pub fn output_location(&self, register: u32) -> u32 {
        location_in(&self.output_locations, register)
    }

    /// Every register range the module declares, as a binding map sees them: constant buffers,
    /// SRVs and UAVs, samplers, then the counter range of every UAV (a runtime that builds its
    /// bindings from reflection maps each of these).
    pub fn register_ranges(&self) -> Vec<RegisterRange> {
        let mut ranges: Vec<RegisterRange> = self.cbuffers.iter().map(|c| c.range).collect();
        ranges.extend(self.resources.iter().map(|r| r.range));
        ranges.extend(self.samplers.iter().map(|s| s.range));
        ranges.extend(
            self.resources
                .iter()
                .filter(|r| r.range.kind == ResourceKind::UnorderedAccess)
                .map(|r| r.range.counter()),
        );
        ranges
    }

    /// The id of every function, in order (the entry point first).
    pub fn function_ids(&self) -> impl Iterator<Item = FunctionId> {
        (0..self.functions.len() as u32).map(FunctionId::new)
    }

    /// The instructions of function `f` (empty when out of range).
    pub fn body(&self, f: FunctionId) -> &[Inst] {
        self.functions
            .get(f.index())
            .and_then(|f| self.insts.get(f.body.start as usize..f.body.end as usize))
            .unwrap_or(&[])
    }
}

/// The location `map` gives `register`, else the register itself.
fn location_in(map: &[(u32, u32)], register: u32) -> u32 {
    map.iter()
        .find(|&&(r, _)| r == register)
        .map_or(register, |&(_, location)| location)
}

/// One function: the entry point or a `label l#` subroutine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// The DXBC label number (`l#`, or `fb#` for a class-linkage function body); `None` for
    /// the entry point.
    pub label: Option<u32>,
    /// Its instructions in [`Module::insts`].
    pub body: Range<u32>,
    /// Byte offset of the `label` instruction (or of the first instruction).
    pub span: u32,
}

/// An indexable temp array `dcl_indexableTemp x#[len], components`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexableTemp {
    /// The `x#` register number.
    pub register: u32,
    /// Number of elements.
    pub len: u32,
    /// Components per element (1–4).
    pub components: u8,
}

/// A constant buffer declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CbDecl {
    /// Register range (kind `ConstantBuffer`), space included.
    pub range: RegisterRange,
    /// The DXBC operand id: the register (SM5.0) or range id (SM5.1).
    pub id: u32,
    /// Size in 16-byte vectors.
    pub size: u32,
    /// `dynamicIndexed` rather than `immediateIndexed`.
    pub dynamic: bool,
    /// Where the binding map put it (set by the `assign_bindings` pass).
    pub binding: Option<BindingTarget>,
    /// Byte offset of the declaration.
    pub span: u32,
}

/// Element type of a typed resource, per component (`dcl_resource_* (float,float,float,float)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReturnType {
    /// UNORM: float in [0, 1].
    Unorm,
    /// SNORM: float in [-1, 1].
    Snorm,
    /// Signed integer.
    Sint,
    /// Unsigned integer.
    Uint,
    /// 32-bit float.
    Float,
    /// Mixed (not a single type).
    Mixed,
    /// Double (two components per value).
    Double,
    /// Continuation of a double.
    Continued,
    /// Unused component.
    Unused,
}

impl ReturnType {
    /// The lowercase spelling fxc uses.
    pub fn name(self) -> &'static str {
        match self {
            Self::Unorm => "unorm",
            Self::Snorm => "snorm",
            Self::Sint => "sint",
            Self::Uint => "uint",
            Self::Float => "float",
            Self::Mixed => "mixed",
            Self::Double => "double",
            Self::Continued => "continued",
            Self::Unused => "unused",
        }
    }
}

/// Shape of a typed resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dimension {
    /// Typed buffer (texel buffer).
    Buffer,
    /// 1-D texture.
    Texture1D,
    /// 1-D texture array.
    Texture1DArray,
    /// 2-D texture.
    Texture2D,
    /// 2-D texture array.
    Texture2DArray,
    /// Multisampled 2-D texture.
    Texture2DMS,
    /// Multisampled 2-D texture array.
    Texture2DMSArray,
    /// 3-D texture.
    Texture3D,
    /// Cube texture.
    TextureCube,
    /// Cube texture array.
    TextureCubeArray,
}

/// What a `t#`/`u#` declaration holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceShape {
    /// Byte-addressed buffer (`_raw`).
    Raw,
    /// Structured buffer with this stride in bytes.
    Structured {
        /// Bytes per element (a multiple of 4).
        stride: u32,
    },
    /// Typed buffer or texture.
    Typed {
        /// Dimension.
        dim: Dimension,
        /// Per-component return type.
        ret: [ReturnType; 4],
        /// Sample count of multisampled textures (0 otherwise).
        samples: u32,
    },
}

/// A shader resource view (`t#`) or unordered access view (`u#`) declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceDecl {
    /// Register range; the kind tells SRV from UAV.
    pub range: RegisterRange,
    /// The DXBC operand id: the register (SM5.0) or range id (SM5.1).
    pub id: u32,
    /// Raw, structured or typed.
    pub shape: ResourceShape,
    /// UAV declared `_glc` (globally coherent).
    pub coherent: bool,
    /// UAV declared `_rov` (rasterizer ordered).
    pub rasterizer_ordered: bool,
    /// UAV with a hidden counter (`imm_atomic_alloc/consume` use it; set by a pass).
    pub counter: bool,
    /// Where the binding map put it (set by the `assign_bindings` pass).
    pub binding: Option<BindingTarget>,
    /// Where the binding map put its counter, when it has one (set by `assign_bindings`).
    pub counter_binding: Option<BindingTarget>,
    /// Another view of declaration `N`'s descriptor: the same register range (so the same
    /// binding), a typed shape of another dimension. A Direct3D 9 sampler whose texture type
    /// the runtime chooses when it compiles the pipeline has one declaration per dimension;
    /// the program reads, at any one run, only the view whose dimension matches what is bound
    /// (its reads are selected by the texture-type parameter). The back end declares a
    /// variable of this view's type at the binding; reflection reports the binding once, as
    /// declaration `N`. `None` for every other declaration.
    pub view_of: Option<super::ResourceId>,
    /// Byte offset of the declaration.
    pub span: u32,
}

/// A sampler declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDecl {
    /// Register range (kind `Sampler`).
    pub range: RegisterRange,
    /// The DXBC operand id.
    pub id: u32,
    /// Comparison sampler (`mode_comparison`).
    pub comparison: bool,
    /// Where the binding map put it (set by the `assign_bindings` pass).
    pub binding: Option<BindingTarget>,
    /// Byte offset of the declaration.
    pub span: u32,
}

/// Thread-group shared memory `g#`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tgsm {
    /// The `g#` register number.
    pub register: u32,
    /// Structure stride in bytes; 0 for raw memory.
    pub stride: u32,
    /// Size in 32-bit words.
    pub words: u32,
    /// Byte offset of the declaration.
    pub span: u32,
}

/// An input or output register declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDecl {
    /// Register number (`v#`/`o#`).
    pub register: u32,
    /// Declared component mask.
    pub mask: u8,
    /// System value; [`SystemValue::None`] for a user register.
    pub system_value: SystemValue,
    /// Interpolation mode (pixel-shader inputs; [`Interpolation::Undefined`] elsewhere).
    pub interpolation: Interpolation,
    /// Geometry-shader output stream (the last `dcl_stream` before it), else 0.
    pub stream: u8,
    /// Byte offset of the declaration.
    pub span: u32,
}

/// The data type of a signature element's components.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ComponentType {
    /// 32-bit float (also what an unknown type is read as).
    #[default]
    Float,
    /// 32-bit unsigned integer.
    Uint,
    /// 32-bit signed integer.
    Sint,
}

/// One element of an input or output signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignatureElement {
    /// Register (`v#`/`o#`); `u32::MAX` for registers without a number (`oDepth`).
    pub register: u32,
    /// Components of the register the element occupies.
    pub mask: u8,
    /// System value, as the signature names it (`Target`, `Depth`, ... for pixel-shader
    /// outputs; tess factors by group).
    pub system_value: SystemValue,
    /// Semantic index (`SV_Target3` → 3, `TEXCOORD1` → 1).
    pub semantic_index: u32,
    /// Component data type.
    pub component_type: ComponentType,
    /// Geometry-shader output stream.
    pub stream: u8,
}

/// Geometry-shader declarations: `dcl_inputprimitive`, `dcl_outputtopology`,
/// `dcl_maxout`, `dcl_gsinstances`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GeometryInfo {
    /// Input primitive; `None` when undeclared.
    pub input_primitive: Option<InputPrimitive>,
    /// Output topology; `None` when undeclared.
    pub output_topology: Option<OutputTopology>,
    /// `dcl_maxout`.
    pub max_output_vertices: u32,
    /// `dcl_gsinstances` (0 when undeclared: one instance).
    pub instances: u32,
}

impl GeometryInfo {
    /// Vertices per input primitive, when the primitive is declared.
    pub fn input_vertices(&self) -> Option<u32> {
        self.input_primitive.map(InputPrimitive::vertices)
    }
}

/// The tessellator domain (`dcl_tessellator_domain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessDomain {
    /// Isolines: `(u, v)`, `v` the line, `u` along it.
    Isoline,
    /// Triangles: barycentric `(u, v, w)`.
    Triangle,
    /// Quads: `(u, v)`.
    Quad,
}

/// How the tessellator spaces its subdivisions (`dcl_tessellator_partitioning`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessPartitioning {
    /// Factors rounded up to integers, equal segments.
    Integer,
    /// Factors rounded up to powers of two, equal segments.
    Pow2,
    /// Odd fractional factors.
    FractionalOdd,
    /// Even fractional factors.
    FractionalEven,
}

/// What the tessellator emits (`dcl_tessellator_output_primitive`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessOutputPrimitive {
    /// Points.
    Point,
    /// Lines (isolines).
    Line,
    /// Triangles wound clockwise.
    TriangleCw,
    /// Triangles wound counter-clockwise.
    TriangleCcw,
}

/// Tessellator declarations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TessellationInfo {
    /// The domain (hull and domain shaders).
    pub domain: Option<TessDomain>,
    /// The partitioning (hull shaders).
    pub partitioning: Option<TessPartitioning>,
    /// The output primitive (hull shaders).
    pub output_primitive: Option<TessOutputPrimitive>,
    /// Control points of the input patch: a hull shader's input, a domain shader's (the hull
    /// shader's output).
    pub input_control_points: u32,
    /// Control points a hull shader outputs (may be 0).
    pub output_control_points: u32,
    /// `dcl_hs_max_tessfactor`, when declared.
    pub max_tess_factor: Option<f32>,
}

/// Which part of a hull shader a phase is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhaseKind {
    /// `hs_control_point_phase`: one invocation per output control point.
    ControlPoint,
    /// `hs_fork_phase`: patch constants, instances independent of each other.
    Fork,
    /// `hs_join_phase`: patch constants that read the fork phases' results (`vpc#`).
    Join,
}

/// One phase of a hull shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HullPhase {
    /// Which kind.
    pub kind: PhaseKind,
    /// Its function in [`Module::functions`].
    pub function: FunctionId,
    /// Instances (`dcl_hs_fork_phase_instance_count` / `dcl_hs_join_phase_instance_count`;
    /// 1 for the control-point phase).
    pub instances: u32,
}

/// Which tessellation-control invocations run a hull shader's fork and join phases
/// (`docs/hull-shaders.md`). Both give the same results; they differ in speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HullSchedule {
    /// Invocation 0 runs every instance of every fork phase, then every join phase: the
    /// patch-constant code runs once per patch, as in D3D (default).
    #[default]
    Serial,
    /// Instance `k` of a phase runs on invocation `k mod N` (`N` output control points), in a
    /// loop when a phase has more instances than there are invocations, with a barrier between
    /// phases.
    Parallel,
}

/// One step of the tessellation-control entry point a hull shader becomes: the
/// `schedule_hull_phases` pass writes them, the back end emits them in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HullStep {
    /// Calls the control-point phase (a function).
    ControlPoint(FunctionId),
    /// Without a control-point phase: output point `i` is input point `i` (zeros past the
    /// input patch).
    PassThrough,
    /// Writes this invocation's output control point.
    WriteControlPoint,
    /// A barrier among the patch's invocations (output writes before it are visible after it).
    Barrier,
    /// Copies every output control point into the `vocp` file.
    LoadOutputPoints,
    /// Runs instances `first, first + step, …` below `instances` of a fork or join phase, the
    /// instance id set for each; `first` is the invocation id or 0.
    Phase {
        /// The phase's function.
        function: FunctionId,
        /// Its instance count.
        instances: u32,
        /// Start at the invocation id (else at 0).
        from_invocation: bool,
        /// Distance between the instances one invocation runs.
        step: u32,
    },
    /// Stores the patch-constant components this invocation wrote since the last publication
    /// (other invocations write the others).
    PublishPatchConstants,
    /// Reloads the patch-constant file from what every invocation published.
    ReloadPatchConstants,
    /// Stores the whole patch-constant file to the patch outputs.
    WritePatchConstants,
    /// Writes the tessellation levels from the tess factors.
    WriteTessLevels,
    /// Steps only invocation 0 runs.
    FirstInvocation(Vec<HullStep>),
}

/// Stream output (transform feedback), resolved against the output signature.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamOutput {
    /// What is captured.
    pub entries: Vec<StreamOutputEntry>,
    /// Byte stride of each buffer.
    pub strides: [u32; 4],
    /// The stream the rasterizer sees; `None`: rasterization is off.
    pub rasterized_stream: Option<u8>,
}

/// One captured run of output components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamOutputEntry {
    /// Stream.
    pub stream: u8,
    /// Output register (`o#`); the system values are captured from their registers too.
    pub register: u32,
    /// First component.
    pub first: u8,
    /// Components (1–4).
    pub count: u8,
    /// Buffer.
    pub buffer: u8,
    /// Byte offset in the buffer's vertex record.
    pub offset: u32,
}

/// The case labels of one `switch`: which block each value starts, and where `default` is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwitchTable {
    /// `(case value, block number)`, in program order.
    pub cases: Vec<(u32, u32)>,
    /// Block number of `default`, when present.
    pub default: Option<u32>,
    /// Number of case blocks (runs of labels with their code).
    pub blocks: u32,
}
