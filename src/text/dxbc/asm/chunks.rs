//! The non-program chunks of an assembled container: `RDEF` and the signatures, built from
//! fxc's comment tables ([`super::header`]) or, without them, from the program's declarations.
//!
//! Contract: [`build_chunks`] returns the chunks in fxc's order (`RDEF`, input, then output and
//! patch-constant signatures: `PCSG` before `OSGN` in domain shaders, after it in hull shaders),
//! never the program chunk. Which signature chunks, as fxc writes them (corpus statistics):
//!
//! - `ISG1`/`OSG1`/`PSG1` (32-byte elements with minimum precision) when the shader uses
//!   minimum precision (the `Minimum-precision data types` note, or a `min16f`-style format);
//! - else `OSG5` for Shader Model 5 geometry-shader outputs; else `ISGN`/`OSGN`/`PCSG`;
//! - every stage but function libraries has an input and an output signature (compute shaders'
//!   are empty); hull and domain shaders also have a patch-constant signature.
//!
//! Signature fields from a table row: the `SysValue` column is stored as printed, except the
//! pixel-shader output values (`TARGET`, `DEPTH`, `COVERAGE`, `DEPTHGE`, `DEPTHLE`,
//! `STENCILREF`) that fxc stores as `NONE` and reflection derives from the name. The rw mask is
//! the `Used` column for inputs, and its complement in four bits (`0xf & !used`, components
//! never written) for outputs and a hull shader's patch constants: what fxc stores.
//!
//! Signatures derived from declarations (no table in the text): one element per `dcl_input*` /
//! `dcl_output*` of a `v#`/`o#`-style register, sorted by register and first component.
//! System values get their `SV_` name (`SV_Position`, `SV_TessFactor` with the edge as
//! semantic index, ...); other pixel-shader outputs are `SV_Target<register>`, `oDepth` and the
//! other register-less outputs `SV_Depth`, `SV_Coverage`, ...; every other element is
//! `TEXCOORD<register>` (a second element packed into the same register gets index
//! `register + 32 · k`). Inputs are marked read in every declared component and outputs
//! written, component types are `float` except for the integer system values.
//!
//! `RDEF` (when the text shows reflection, see [`HeaderTables::has_reflection`]): target and
//! program type from the program's version token; creator from the banner (fxc 10.1's when the
//! banner is the disassembler's); compile flags `0x100` (not in the listing); type names the
//! canonical ones ([`TypeDef::name`]: `float4`, `dword` for `uint`); constant-buffer sizes rounded up to 16 bytes
//! (structured-buffer layouts: the element size); structure strides and multisample counts from
//! the program's declarations; the user-packed binding flag set for constant buffers, samplers,
//! textures and structured buffers (fxc sets it for explicit `register()` bindings, which the
//! listing does not show; these are the corpus majorities).

use super::error::{AsmError, Result};
use super::header::{BindingDef, BufferDef, HeaderTables, SignatureEntry, TypeDef};
use crate::front::dxbc::container::FourCc;
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::operand::{Components, Operand, RegisterType};
use crate::front::dxbc::program::{Program, ShaderVersion, Stage};
use crate::front::dxbc::rdef::{
    BufferKind, ConstantBuffer, Member, Rd11Header, ResourceBinding, ResourceDefinitions, Target,
    Type, Variable, VariableResources,
};
use crate::front::dxbc::sfi0::FeatureFlags;
use crate::front::dxbc::signature::{ComponentType, Element, MinPrecision, Signature, SystemValue};
use crate::text::dxbc::encode::{words_to_bytes, write_rdef, write_signature};

/// The creator string written when the listing's banner is not a compiler's.
pub const DEFAULT_CREATOR: &str = "Microsoft (R) HLSL Shader Compiler 10.1";

/// The `RDEF` compile flags written (`D3DCOMPILE_*`; the listing does not show them). 0x100 is
/// the corpus's most common value.
pub const DEFAULT_COMPILE_FLAGS: u32 = 0x100;

/// The non-program chunks for `header` and `program` (the assembled program chunk's dwords:
/// version, length, instructions), in fxc's order.
pub fn build_chunks(header: &HeaderTables, program: &[u32]) -> Result<Vec<(FourCc, Vec<u8>)>> {
    let bytes = words_to_bytes(program);
    let at = header.version_line.unwrap_or(1);
    let program = Program::parse(&bytes, 0)
        .map_err(|e| AsmError::new(at, 1, format!("program does not decode: {e}")))?;
    let decls = Declarations::read(&program, at)?;
    let version = program.version;
    let mut chunks = Vec::new();
    if header.has_reflection() {
        let rdef = build_rdef(header, version, &decls)?;
        chunks.push((FourCc::RDEF, rdef));
    }
    if version.stage == Stage::Library {
        return Ok(chunks);
    }
    let min_precision = FeatureFlags(header.feature_flags)
        .contains(FeatureFlags::MINIMUM_PRECISION)
        || [&header.inputs, &header.outputs, &header.patch_constants]
            .iter()
            .filter_map(|t| t.as_ref())
            .flat_map(|t| &t.elements)
            .any(|e| e.min_precision != MinPrecision::Default);
    let codes = |basic: FourCc, full: FourCc| if min_precision { full } else { basic };
    let output_code = if min_precision {
        FourCc::OSG1
    } else if version.stage == Stage::Geometry && version.major >= 5 {
        FourCc::OSG5
    } else {
        FourCc::OSGN
    };
    let hull = version.stage == Stage::Hull;
    let input = signature(
        codes(FourCc::ISGN, FourCc::ISG1),
        header.inputs.as_ref().map(|t| &t.elements[..]),
        &decls.inputs,
        false,
        at,
    )?;
    let output = signature(
        output_code,
        header.outputs.as_ref().map(|t| &t.elements[..]),
        &decls.outputs,
        true,
        at,
    )?;
    chunks.push(input);
    let patch = if matches!(version.stage, Stage::Hull | Stage::Domain) {
        Some(signature(
            codes(FourCc::PCSG, FourCc::PSG1),
            header.patch_constants.as_ref().map(|t| &t.elements[..]),
            &decls.patch_constants,
            hull,
            at,
        )?)
    } else {
        None
    };
    if version.stage == Stage::Domain {
        chunks.extend(patch);
        chunks.push(output);
    } else {
        chunks.push(output);
        chunks.extend(patch);
    }
    Ok(chunks)
}

/// A signature chunk from the table's rows, or from the declarations without a table.
fn signature(
    fourcc: FourCc,
    rows: Option<&[SignatureEntry]>,
    derived: &[Derived],
    is_output: bool,
    at: u32,
) -> Result<(FourCc, Vec<u8>)> {
    let elements: Vec<Element<'_>> = match rows {
        Some(rows) => rows.iter().map(|r| element(r, is_output)).collect(),
        None => derived.iter().map(|d| d.element(is_output)).collect(),
    };
    let mut sig = Signature { fourcc, elements };
    if fourcc == FourCc::ISGN || fourcc == FourCc::OSGN || fourcc == FourCc::PCSG {
        // Streams only exist in the stream layouts; a listing never shows one here.
        for e in &mut sig.elements {
            e.stream = 0;
        }
    }
    let line = rows.and_then(|r| r.first()).map_or(at, |e| e.line);
    let data = write_signature(&sig).map_err(|e| AsmError::new(line, 1, e.to_string()))?;
    Ok((fourcc, data))
}

/// A chunk element from a table row.
fn element(row: &SignatureEntry, is_output: bool) -> Element<'_> {
    let system_value = match row.system_value.raw() {
        64..=69 => SystemValue::Undefined,
        _ => row.system_value,
    };
    let rw_mask = if is_output { 0xf & !row.used } else { row.used };
    Element {
        stream: row.stream,
        name: &row.name,
        semantic_index: row.semantic_index,
        system_value,
        component_type: row.component_type,
        register: row.register.unwrap_or(u32::MAX),
        mask: row.mask,
        rw_mask,
        min_precision: row.min_precision,
    }
}

/// A signature element derived from a declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Derived {
    stream: u32,
    name: &'static str,
    semantic_index: u32,
    system_value: SystemValue,
    component_type: ComponentType,
    /// `None`: no register (`oDepth`, `vPrim`, ...).
    register: Option<u32>,
    mask: u8,
}

impl Derived {
    fn element(&self, is_output: bool) -> Element<'static> {
        let rw_mask = if is_output {
            0xf & !self.mask
        } else {
            self.mask
        };
        Element {
            stream: self.stream,
            name: self.name,
            semantic_index: self.semantic_index,
            system_value: self.system_value,
            component_type: self.component_type,
            register: self.register.unwrap_or(u32::MAX),
            mask: self.mask,
            rw_mask,
            min_precision: MinPrecision::Default,
        }
    }
}

/// What the program's declarations say: derived signature elements, structure strides and
/// sample counts of resources.
#[derive(Default)]
struct Declarations {
    inputs: Vec<Derived>,
    outputs: Vec<Derived>,
    patch_constants: Vec<Derived>,
    /// (register type `t`/`u`, space, first register) → structure stride.
    strides: Vec<(RegisterType, u32, u32, u32)>,
    /// (space, first register) → sample count of multisampled textures.
    samples: Vec<(u32, u32, u32)>,
}

impl Declarations {
    fn read(program: &Program<'_>, at: u32) -> Result<Self> {
        let version = program.version;
        let mut d = Declarations::default();
        let mut stream = 0;
        let mut patch_phase = false;
        for inst in program.instructions() {
            let inst =
                inst.map_err(|e| AsmError::new(at, 1, format!("program does not decode: {e}")))?;
            match inst.opcode {
                Opcode::HsForkPhase | Opcode::HsJoinPhase => patch_phase = true,
                Opcode::HsControlPointPhase => patch_phase = false,
                Opcode::DclStream => {
                    stream = inst.operands().first().map_or(0, first_index);
                }
                Opcode::DclResourceStructured | Opcode::DclUavStructured => {
                    let stride = inst.imms().first().copied().unwrap_or(0);
                    if let Some(op) = inst.operands().first() {
                        let (space, reg) = binding_register(&inst, op, version);
                        d.strides.push((op.ty, space, reg, stride));
                    }
                }
                Opcode::DclResource => {
                    let dim = inst.token.resource_dimension();
                    if let (4 | 9, Some(op)) = (dim, inst.operands().first()) {
                        let (space, reg) = binding_register(&inst, op, version);
                        d.samples.push((space, reg, inst.token.sample_count()));
                    }
                }
                _ => {}
            }
            let Some(input) = io_direction(inst.opcode) else {
                continue;
            };
            let Some(op) = inst.operands().first() else {
                continue;
            };
            let Some(mut el) = derive(&inst, op, input, version.stage) else {
                continue;
            };
            el.stream = stream;
            let list = match (version.stage, input, op.ty) {
                (Stage::Domain, true, RegisterType::InputPatchConstant) => &mut d.patch_constants,
                (Stage::Hull, false, _) if patch_phase => &mut d.patch_constants,
                (_, true, _) => &mut d.inputs,
                (_, false, _) => &mut d.outputs,
            };
            if !list.contains(&el) {
                list.push(el);
            }
        }
        for list in [&mut d.inputs, &mut d.outputs, &mut d.patch_constants] {
            finish_derived(list);
        }
        Ok(d)
    }
}

/// `Some(true)` for input declarations, `Some(false)` for outputs.
fn io_direction(opcode: Opcode) -> Option<bool> {
    match opcode {
        Opcode::DclInput
        | Opcode::DclInputSgv
        | Opcode::DclInputSiv
        | Opcode::DclInputPs
        | Opcode::DclInputPsSgv
        | Opcode::DclInputPsSiv => Some(true),
        Opcode::DclOutput | Opcode::DclOutputSgv | Opcode::DclOutputSiv => Some(false),
        _ => None,
    }
}

fn first_index(op: &Operand) -> u32 {
    op.indices().first().map_or(0, |i| i.imm as u32)
}

/// (space, first register) of a resource declaration's operand.
fn binding_register(inst: &Instruction<'_>, op: &Operand, version: ShaderVersion) -> (u32, u32) {
    if version.is_sm51() {
        let reg = op.indices().get(1).map_or(0, |i| i.imm as u32);
        (inst.space.unwrap_or(0), reg)
    } else {
        (0, first_index(op))
    }
}

/// The element a `dcl_input*`/`dcl_output*` declares, if it is a signature register.
fn derive(inst: &Instruction<'_>, op: &Operand, input: bool, stage: Stage) -> Option<Derived> {
    let mask = match op.components {
        Components::Mask(m) => m,
        _ => 1,
    };
    let register = op.indices().last().map(|i| i.imm as u32);
    let no_register = |name, system_value, component_type| Derived {
        stream: 0,
        name,
        semantic_index: 0,
        system_value,
        component_type,
        register: None,
        mask: 1,
    };
    match op.ty {
        RegisterType::Input
        | RegisterType::Output
        | RegisterType::InputControlPoint
        | RegisterType::InputPatchConstant => {}
        RegisterType::InputPrimitiveId if stage == Stage::Geometry => {
            return Some(no_register(
                "SV_PrimitiveID",
                SystemValue::PrimitiveId,
                ComponentType::Uint32,
            ));
        }
        RegisterType::OutputDepth => {
            return Some(no_register(
                "SV_Depth",
                SystemValue::Undefined,
                ComponentType::Float32,
            ));
        }
        RegisterType::OutputDepthGreaterEqual => {
            return Some(no_register(
                "SV_DepthGreaterEqual",
                SystemValue::Undefined,
                ComponentType::Float32,
            ));
        }
        RegisterType::OutputDepthLessEqual => {
            return Some(no_register(
                "SV_DepthLessEqual",
                SystemValue::Undefined,
                ComponentType::Float32,
            ));
        }
        RegisterType::OutputCoverageMask => {
            return Some(no_register(
                "SV_Coverage",
                SystemValue::Undefined,
                ComponentType::Uint32,
            ));
        }
        RegisterType::OutputStencilRef => {
            return Some(no_register(
                "SV_StencilRef",
                SystemValue::Undefined,
                ComponentType::Uint32,
            ));
        }
        _ => return None,
    }
    let (name, semantic_index, system_value, component_type) = match inst.name.unwrap_or(0) {
        0 if !input && stage == Stage::Pixel => (
            "SV_Target",
            register.unwrap_or(0),
            SystemValue::Undefined,
            ComponentType::Float32,
        ),
        0 => (
            "TEXCOORD",
            register.unwrap_or(0),
            SystemValue::Undefined,
            ComponentType::Float32,
        ),
        name => {
            let (n, index, sv, ty) = system_value_element(name)?;
            (n, index, SystemValue::from_raw(sv), ty)
        }
    };
    Some(Derived {
        stream: 0,
        name,
        semantic_index,
        system_value,
        component_type,
        register,
        mask,
    })
}

/// A declaration's system-value name token → (semantic name, index, signature system value,
/// component type). The token numbers tessellation factors per edge; the signature per kind.
fn system_value_element(name: u32) -> Option<(&'static str, u32, u32, ComponentType)> {
    use ComponentType::{Float32 as F, Uint32 as U};
    Some(match name {
        1 => ("SV_Position", 0, 1, F),
        2 => ("SV_ClipDistance", 0, 2, F),
        3 => ("SV_CullDistance", 0, 3, F),
        4 => ("SV_RenderTargetArrayIndex", 0, 4, U),
        5 => ("SV_ViewportArrayIndex", 0, 5, U),
        6 => ("SV_VertexID", 0, 6, U),
        7 => ("SV_PrimitiveID", 0, 7, U),
        8 => ("SV_InstanceID", 0, 8, U),
        9 => ("SV_IsFrontFace", 0, 9, U),
        10 => ("SV_SampleIndex", 0, 10, U),
        11..=14 => ("SV_TessFactor", name - 11, 11, F),
        15 | 16 => ("SV_InsideTessFactor", name - 15, 12, F),
        17..=19 => ("SV_TessFactor", name - 17, 13, F),
        20 => ("SV_InsideTessFactor", 0, 14, F),
        // Isolines: SV_TessFactor[0] is the density, [1] the detail.
        21 => ("SV_TessFactor", 1, 15, F),
        22 => ("SV_TessFactor", 0, 16, F),
        _ => return None,
    })
}

/// Sorts derived elements as fxc does (by stream, register, then first component;
/// register-less elements last) and makes semantic indices unique.
fn finish_derived(list: &mut [Derived]) {
    list.sort_by_key(|e| {
        (
            e.stream,
            e.register.is_none(),
            e.register,
            e.mask.trailing_zeros(),
        )
    });
    for i in 0..list.len() {
        // Clip and cull distances are numbered in order.
        if matches!(list[i].system_value.raw(), 2 | 3) {
            let sv = list[i].system_value;
            list[i].semantic_index =
                list[..i].iter().filter(|e| e.system_value == sv).count() as u32;
        }
        let mut k = 0;
        while list[..i]
            .iter()
            .any(|e| e.name == list[i].name && e.semantic_index == list[i].semantic_index)
        {
            k += 1;
            list[i].semantic_index = list[i].register.unwrap_or(0) + 32 * k;
        }
    }
}

/// The `RDEF` chunk for the listing's tables.
fn build_rdef(
    header: &HeaderTables,
    version: ShaderVersion,
    decls: &Declarations,
) -> Result<Vec<u8>> {
    let sm5 = version.major >= 5;
    let program_type = match version.stage {
        Stage::Pixel => 0xffff,
        Stage::Vertex => 0xfffe,
        Stage::Geometry => 0x4753,
        Stage::Hull => 0x4853,
        Stage::Domain => 0x4453,
        Stage::Compute => 0x4353,
        Stage::Library => 0x4c46,
    };
    let creator = header
        .generator
        .as_deref()
        .filter(|g| g.starts_with(super::header::COMPILER_BANNER))
        .unwrap_or(DEFAULT_CREATOR);
    let rd11 = sm5.then(|| Rd11Header {
        tag: if version.is_sm51() {
            [0x13, 0x13, 0x44, 0x25]
        } else {
            *b"RD11"
        },
        header_size: 60,
        constant_buffer_size: 24,
        binding_size: if version.is_sm51() { 40 } else { 32 },
        variable_size: 40,
        type_size: 36,
        member_size: 12,
        interface_slot_count: header.interface_slots,
    });
    let constant_buffers = header
        .buffers
        .iter()
        .map(|b| constant_buffer(b, sm5))
        .collect();
    let mut ids: Vec<(u32, u32)> = Vec::new();
    let bindings = header
        .bindings
        .iter()
        .map(|b| binding(b, header, decls, version, &mut ids))
        .collect();
    let rdef = ResourceDefinitions {
        constant_buffers,
        bindings,
        target: Target {
            major: version.major,
            minor: version.minor,
            program_type,
        },
        flags: DEFAULT_COMPILE_FLAGS,
        creator,
        rd11,
    };
    let line = header.buffers.first().map_or(1, |b| b.line);
    write_rdef(&rdef).map_err(|e| AsmError::new(line, 1, e.to_string()))
}

fn constant_buffer(b: &BufferDef, sm5: bool) -> ConstantBuffer<'_> {
    let end = b
        .variables
        .iter()
        .map(|v| v.offset.saturating_add(v.size))
        .max()
        .unwrap_or(0);
    let size = match b.kind {
        BufferKind::ResourceBindInfo => end,
        _ => end.div_ceil(16).saturating_mul(16),
    };
    let variables = b
        .variables
        .iter()
        .map(|v| {
            let mut flags = if v.used { 2 } else { 0 };
            if v.ty.class == 7 {
                flags |= 4;
            }
            Variable {
                name: &v.name,
                offset: v.offset,
                size: v.size,
                flags,
                ty: rdef_type(&v.ty, v.offset, sm5),
                default_value: v.default_value.as_deref(),
                resources: sm5.then_some(VariableResources {
                    texture_start: u32::MAX,
                    texture_count: 0,
                    sampler_start: u32::MAX,
                    sampler_count: 0,
                }),
            }
        })
        .collect();
    ConstantBuffer {
        name: &b.name,
        variables,
        size,
        flags: 0,
        kind: b.kind,
    }
}

/// The chunk type for a listing type at absolute offset `base` (members' offsets become
/// relative to it).
fn rdef_type(t: &TypeDef, base: u32, sm5: bool) -> Type<'_> {
    let members: Vec<Member<'_>> = t
        .members
        .iter()
        .map(|m| Member {
            name: &m.name,
            offset: m.offset.wrapping_sub(base),
            ty: rdef_type(&m.ty, m.offset, sm5),
        })
        .collect();
    let columns = if t.class == 5 {
        members.iter().map(|m| components(&m.ty)).sum::<u32>() as u16
    } else {
        t.columns
    };
    Type {
        class: t.class,
        base: t.base,
        rows: t.rows,
        columns,
        elements: t.elements,
        name: if sm5 { t.name.as_deref() } else { None },
        members,
        sm5_extra: [0; 4],
    }
}

/// Scalars a type holds (struct types' `columns` is the sum over their members).
fn components(t: &Type<'_>) -> u32 {
    let one = if t.class == 5 {
        u32::from(t.columns)
    } else {
        u32::from(t.rows) * u32::from(t.columns)
    };
    one * u32::from(t.elements.max(1))
}

fn binding<'h>(
    b: &'h BindingDef,
    header: &'h HeaderTables,
    decls: &Declarations,
    version: ShaderVersion,
    ids: &mut Vec<(u32, u32)>,
) -> ResourceBinding<'h> {
    let class = match b.input_type {
        0 => 0,
        3 => 1,
        2 | 5 | 7 | 1 | 12 => 2,
        _ => 3,
    };
    let num_samples = match b.input_type {
        2 if matches!(b.dimension, 6 | 7) => decls
            .samples
            .iter()
            .find(|(s, r, _)| (*s, *r) == (b.space, b.bind_point))
            .map_or(0, |(_, _, n)| *n),
        2 | 4 => u32::MAX,
        5 | 6 | 9 | 10 | 11 => {
            let ty = if b.input_type == 5 {
                RegisterType::Resource
            } else {
                RegisterType::UnorderedAccessView
            };
            decls
                .strides
                .iter()
                .find(|(t, s, r, _)| (*t, *s, *r) == (ty, b.space, b.bind_point))
                .map(|d| d.3)
                .or_else(|| element_size(header, &b.name))
                .unwrap_or(0)
        }
        _ => 0,
    };
    let user_packed = u32::from(matches!(b.input_type, 0 | 2 | 3 | 5 | 6));
    let mut flags = user_packed | if b.comparison { 2 } else { 0 };
    if matches!(b.input_type, 2 | 4) {
        flags |= (b.components.clamp(1, 4) - 1) << 2;
    }
    // Without an ID column, number the ranges of each register class in order.
    let id =
        b.id.unwrap_or_else(|| ids.iter().filter(|(c, _)| *c == class).count() as u32);
    ids.push((class, id));
    ResourceBinding {
        name: &b.name,
        input_type: b.input_type,
        return_type: b.return_type,
        dimension: b.dimension,
        num_samples,
        bind_point: b.bind_point,
        bind_count: b.bind_count,
        flags,
        space: version.is_sm51().then_some(b.space),
        id: version.is_sm51().then_some(id),
    }
}

/// The element size of structured buffer `name` from its `Resource bind info` block.
fn element_size(header: &HeaderTables, name: &str) -> Option<u32> {
    header
        .buffers
        .iter()
        .find(|b| b.kind == BufferKind::ResourceBindInfo && b.name == name)
        .and_then(|b| b.variables.first())
        .map(|v| v.size)
}
