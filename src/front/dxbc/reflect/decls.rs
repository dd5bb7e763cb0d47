//! [`Reflection::from_program`]: one pass over the instructions, interpreting each declaration;
//! operands are decoded by the front end's shared declaration decoder. Also the
//! declaration-token helpers the lowering shares ([`imm`], [`ICB_CLASS`],
//! [`interpolation`], [`system_name`]).

use super::{
    FunctionTable, Geometry, GlobalFlags, ImmediateConstantBuffer, IndexRange, IndexableTemp,
    InputPrimitive, Interface, Interpolation, IoDeclaration, Linkage, OutputTopology, Phase,
    PhaseKind, Range, ReflectError, Reflection, Resource, ResourceDimension, ResourceKind,
    ReturnType, SamplerMode, Signatures, Stream, SystemName, TessDomain, TessOutputPrimitive,
    TessPartitioning, Tessellation, Tgsm, TgsmKind, UavFlags,
};
use crate::front::dxbc::decl::{self, Binding, DeclError, Indices};
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::operand::{Components, Operand};
use crate::front::dxbc::program::{Program, ShaderVersion, Stage};

/// Custom-data class of an immediate constant buffer
/// (`D3D10_SB_CUSTOMDATA_DCL_IMMEDIATE_CONSTANT_BUFFER`).
pub(crate) const ICB_CLASS: u32 = 3;

impl Reflection {
    /// Reflects a program from its declarations alone (no `RDEF` needed). Names and signatures
    /// are left empty; [`Reflection::from_container`] adds them.
    pub fn from_program(program: &Program<'_>) -> Result<Reflection, ReflectError> {
        let mut builder = Builder::new(program.version);
        for inst in program.instructions() {
            builder.declare(&inst?)?;
        }
        Ok(builder.r)
    }
}

/// The reflection being built, and the geometry-shader stream declared last.
struct Builder {
    r: Reflection,
    stream: Option<usize>,
}

/// A [`ReflectError::Malformed`] for `inst`.
fn malformed(inst: &Instruction<'_>, what: &'static str) -> ReflectError {
    ReflectError::Malformed {
        opcode: inst.opcode.name(),
        what,
        offset: inst.offset,
    }
}

/// The `i`th immediate dword of a declaration; the decoder guarantees every slot of the
/// opcode's layout.
pub(crate) fn imm(inst: &Instruction<'_>, i: usize) -> u32 {
    inst.imms().get(i).copied().unwrap_or(0)
}

/// The reflection's message for a shared declaration-decoding error.
fn decl_error(inst: &Instruction<'_>, error: DeclError) -> ReflectError {
    malformed(
        inst,
        match error {
            DeclError::NoOperand => "declaration without an operand",
            DeclError::UpperBelowLower { .. } => "range upper bound below its lower bound",
            // `immediates` reports nothing else; the reflection never asks for `exact`.
            DeclError::IndexOver32Bits
            | DeclError::RelativeIndex
            | DeclError::IndexCount { .. } => "register index over 32 bits",
        },
    )
}

/// The declared operand.
fn operand<'i>(inst: &'i Instruction<'_>) -> Result<&'i Operand, ReflectError> {
    decl::operand(inst).map_err(|e| decl_error(inst, e))
}

/// The immediate parts of an operand's indices, each checked to fit 32 bits.
fn indices(inst: &Instruction<'_>, op: &Operand) -> Result<Indices, ReflectError> {
    decl::immediates(op).map_err(|e| decl_error(inst, e))
}

/// The interpolation mode of a `dcl_input_ps*` declaration; `None` for other declarations and
/// for mode 0 (not given).
pub(crate) fn interpolation(inst: &Instruction<'_>) -> Option<Interpolation> {
    match inst.opcode {
        Opcode::DclInputPs | Opcode::DclInputPsSiv | Opcode::DclInputPsSgv => {
            Some(inst.token.interpolation())
                .filter(|&m| m != 0)
                .map(Interpolation::from_raw)
        }
        _ => None,
    }
}

/// The system-value name of a `_siv`/`_sgv` declaration.
pub(crate) fn system_name(inst: &Instruction<'_>) -> Option<SystemName> {
    inst.name.map(SystemName::from_raw)
}

/// Declared components (bit 0 = x); 0 without a write mask (scalar special registers).
fn mask(op: &Operand) -> u8 {
    match op.components {
        Components::Mask(m) => m,
        _ => 0,
    }
}

impl Builder {
    fn new(version: ShaderVersion) -> Self {
        let hull = version.stage == Stage::Hull;
        let first = if hull {
            PhaseKind::Declarations
        } else {
            PhaseKind::Main
        };
        let tessellation = matches!(version.stage, Stage::Hull | Stage::Domain);
        Self {
            r: Reflection {
                version,
                global_flags: GlobalFlags::default(),
                thread_group_size: None,
                resources: Vec::new(),
                tgsm: Vec::new(),
                immediate_constant_buffer: None,
                phases: vec![Phase::new(first, None)],
                geometry: (version.stage == Stage::Geometry).then(Geometry::default),
                tessellation: tessellation.then(Tessellation::default),
                linkage: Linkage::default(),
                signatures: Signatures::default(),
            },
            stream: None,
        }
    }

    fn phase(&mut self) -> &mut Phase {
        // `new` creates the first phase and phases are only ever added.
        let last = self.r.phases.len() - 1;
        &mut self.r.phases[last]
    }

    fn geometry(&mut self) -> &mut Geometry {
        self.r.geometry.get_or_insert_with(Geometry::default)
    }

    fn tessellation(&mut self) -> &mut Tessellation {
        self.r
            .tessellation
            .get_or_insert_with(Tessellation::default)
    }

    /// The register range of a CB/SRV/UAV/sampler declaration: `[id, lower, upper]` and the
    /// space in SM5.1, one register (the first index) before.
    fn range(&self, inst: &Instruction<'_>) -> Result<Range, ReflectError> {
        let idx = indices(inst, operand(inst)?)?;
        let binding = if self.r.version.is_sm51() {
            let &[id, lower, upper] = idx.as_slice() else {
                return Err(malformed(inst, "SM5.1 resource range without 3 indices"));
            };
            Binding::sm51(inst, [id, lower, upper]).map_err(|e| decl_error(inst, e))?
        } else {
            let &register = idx
                .as_slice()
                .first()
                .ok_or_else(|| malformed(inst, "resource register without an index"))?;
            Binding::single(register)
        };
        Ok(Range {
            id: binding.id,
            space: binding.space,
            lower_bound: binding.lower,
            count: binding.count,
        })
    }

    fn resource(&mut self, inst: &Instruction<'_>, kind: ResourceKind) -> Result<(), ReflectError> {
        let range = self.range(inst)?;
        self.r.resources.push(Resource {
            kind,
            range,
            name: None,
            offset: inst.offset,
        });
        Ok(())
    }

    fn io(&self, inst: &Instruction<'_>, output: bool) -> Result<IoDeclaration, ReflectError> {
        let op = operand(inst)?;
        let idx = indices(inst, op)?;
        let (array_size, register) = match *idx.as_slice() {
            [] => (None, None),
            [register] => (None, Some(register)),
            [size, .., register] => (Some(size), Some(register)),
        };
        let interpolation = interpolation(inst);
        let stream = match (output, self.stream) {
            (true, Some(i)) => self.r.geometry.as_ref().map(|g| g.streams[i].index),
            _ => None,
        };
        Ok(IoDeclaration {
            register_type: op.ty,
            register,
            array_size,
            mask: mask(op),
            system_value: system_name(inst),
            interpolation,
            stream,
            offset: inst.offset,
        })
    }

    fn start_phase(&mut self, inst: &Instruction<'_>, kind: PhaseKind) -> Result<(), ReflectError> {
        if self.r.version.stage != Stage::Hull {
            return Err(malformed(inst, "hull-shader phase outside a hull shader"));
        }
        if kind == PhaseKind::Declarations {
            if self.r.phases.len() > 1 || self.r.phases[0].offset.is_some() {
                return Err(malformed(inst, "hs_decls after the first phase"));
            }
            self.r.phases[0].offset = Some(inst.offset);
        } else {
            self.r.phases.push(Phase::new(kind, Some(inst.offset)));
        }
        Ok(())
    }

    fn instance_count(
        &mut self,
        inst: &Instruction<'_>,
        kind: PhaseKind,
    ) -> Result<(), ReflectError> {
        let phase = self.phase();
        if phase.kind != kind {
            return Err(malformed(inst, "instance count outside its phase"));
        }
        phase.instance_count = Some(imm(inst, 0));
        Ok(())
    }

    fn declare(&mut self, inst: &Instruction<'_>) -> Result<(), ReflectError> {
        let token = inst.token;
        match inst.opcode {
            Opcode::CustomData if inst.custom_class == ICB_CLASS => {
                self.r.immediate_constant_buffer = Some(ImmediateConstantBuffer {
                    dwords: (inst.data_bytes().len() / 4) as u32,
                    offset: inst.offset,
                });
            }
            Opcode::HsDecls => self.start_phase(inst, PhaseKind::Declarations)?,
            Opcode::HsControlPointPhase => self.start_phase(inst, PhaseKind::ControlPoint)?,
            Opcode::HsForkPhase => self.start_phase(inst, PhaseKind::Fork)?,
            Opcode::HsJoinPhase => self.start_phase(inst, PhaseKind::Join)?,
            Opcode::DclHsForkPhaseInstanceCount => self.instance_count(inst, PhaseKind::Fork)?,
            Opcode::DclHsJoinPhaseInstanceCount => self.instance_count(inst, PhaseKind::Join)?,
            Opcode::DclGlobalFlags => self.r.global_flags = GlobalFlags::from_token(token.0),
            Opcode::DclThreadGroup => {
                self.r.thread_group_size = Some([imm(inst, 0), imm(inst, 1), imm(inst, 2)]);
            }
            Opcode::DclConstantBuffer => {
                let size = if self.r.version.is_sm51() {
                    inst.cb_size.unwrap_or(0)
                } else {
                    match *indices(inst, operand(inst)?)?.as_slice() {
                        [_, size, ..] => size,
                        _ => return Err(malformed(inst, "constant buffer without a size")),
                    }
                };
                let kind = ResourceKind::ConstantBuffer {
                    size,
                    dynamic_indexed: token.cb_dynamic(),
                };
                self.resource(inst, kind)?;
            }
            Opcode::DclResource => {
                let dimension = ResourceDimension::from_raw(token.resource_dimension());
                let kind = ResourceKind::TypedSrv {
                    dimension,
                    return_types: ReturnType::unpack(inst.return_type.unwrap_or(0)),
                    sample_count: dimension.is_multisampled().then(|| token.sample_count()),
                };
                self.resource(inst, kind)?;
            }
            Opcode::DclResourceRaw => self.resource(inst, ResourceKind::RawSrv)?,
            Opcode::DclResourceStructured => {
                let kind = ResourceKind::StructuredSrv {
                    stride: imm(inst, 0),
                };
                self.resource(inst, kind)?;
            }
            Opcode::DclUavTyped | Opcode::DclUavRaw | Opcode::DclUavStructured => {
                let flags = UavFlags {
                    globally_coherent: token.globally_coherent(),
                    rasterizer_ordered: token.rasterizer_ordered(),
                    counter: inst.opcode == Opcode::DclUavStructured && token.uav_has_counter(),
                };
                let kind = match inst.opcode {
                    Opcode::DclUavTyped => ResourceKind::TypedUav {
                        dimension: ResourceDimension::from_raw(token.resource_dimension()),
                        return_types: ReturnType::unpack(inst.return_type.unwrap_or(0)),
                        flags,
                    },
                    Opcode::DclUavRaw => ResourceKind::RawUav { flags },
                    _ => ResourceKind::StructuredUav {
                        stride: imm(inst, 0),
                        flags,
                    },
                };
                self.resource(inst, kind)?;
            }
            Opcode::DclSampler => {
                let mode = SamplerMode::from_raw(token.sampler_mode());
                self.resource(inst, ResourceKind::Sampler { mode })?;
            }
            Opcode::DclTgsmRaw | Opcode::DclTgsmStructured => {
                let register = *indices(inst, operand(inst)?)?
                    .as_slice()
                    .first()
                    .ok_or_else(|| malformed(inst, "g# register without an index"))?;
                let kind = if inst.opcode == Opcode::DclTgsmRaw {
                    TgsmKind::Raw {
                        bytes: imm(inst, 0),
                    }
                } else {
                    TgsmKind::Structured {
                        stride: imm(inst, 0),
                        count: imm(inst, 1),
                    }
                };
                self.r.tgsm.push(Tgsm {
                    register,
                    kind,
                    offset: inst.offset,
                });
            }
            Opcode::DclTemps => self.phase().temps = imm(inst, 0),
            Opcode::DclIndexableTemp => {
                let temp = IndexableTemp {
                    register: imm(inst, 0),
                    size: imm(inst, 1),
                    components: imm(inst, 2),
                };
                self.phase().indexable_temps.push(temp);
            }
            Opcode::DclInput
            | Opcode::DclInputSgv
            | Opcode::DclInputSiv
            | Opcode::DclInputPs
            | Opcode::DclInputPsSgv
            | Opcode::DclInputPsSiv => {
                let io = self.io(inst, false)?;
                self.phase().inputs.push(io);
            }
            Opcode::DclOutput | Opcode::DclOutputSgv | Opcode::DclOutputSiv => {
                let io = self.io(inst, true)?;
                self.phase().outputs.push(io);
            }
            Opcode::DclIndexRange => {
                let op = operand(inst)?;
                let register = *indices(inst, op)?
                    .as_slice()
                    .last()
                    .ok_or_else(|| malformed(inst, "index range without a register"))?;
                let range = IndexRange {
                    register_type: op.ty,
                    register,
                    count: imm(inst, 0),
                    mask: mask(op),
                    offset: inst.offset,
                };
                self.phase().index_ranges.push(range);
            }
            Opcode::DclInputPrimitive => {
                self.geometry().input_primitive = Some(InputPrimitive::from_raw(token.primitive()));
            }
            Opcode::DclOutputTopology => {
                let topology = OutputTopology::from_raw(token.topology());
                let stream = self.stream;
                let geometry = self.geometry();
                geometry.output_topology.get_or_insert(topology);
                if let Some(stream) = stream.and_then(|i| geometry.streams.get_mut(i)) {
                    stream.output_topology = Some(topology);
                }
            }
            Opcode::DclMaxOutputVertexCount => {
                self.geometry().max_output_vertices = Some(imm(inst, 0));
            }
            Opcode::DclGsInstanceCount => self.geometry().instance_count = Some(imm(inst, 0)),
            Opcode::DclStream => {
                let index = *indices(inst, operand(inst)?)?
                    .as_slice()
                    .first()
                    .ok_or_else(|| malformed(inst, "stream without an index"))?;
                let geometry = self.geometry();
                geometry.streams.push(Stream {
                    index,
                    output_topology: None,
                });
                self.stream = Some(geometry.streams.len() - 1);
            }
            Opcode::DclInputControlPointCount => {
                self.tessellation().input_control_points = Some(token.primitive());
            }
            Opcode::DclOutputControlPointCount => {
                self.tessellation().output_control_points = Some(token.primitive());
            }
            Opcode::DclTessDomain => {
                self.tessellation().domain = Some(TessDomain::from_raw(token.tess_domain()));
            }
            Opcode::DclTessPartitioning => {
                let partitioning = TessPartitioning::from_raw(token.tess_mode());
                self.tessellation().partitioning = Some(partitioning);
            }
            Opcode::DclTessOutputPrimitive => {
                let primitive = TessOutputPrimitive::from_raw(token.tess_mode());
                self.tessellation().output_primitive = Some(primitive);
            }
            Opcode::DclHsMaxTessFactor => {
                self.tessellation().max_tess_factor = Some(f32::from_bits(imm(inst, 0)));
            }
            Opcode::DclFunctionBody => self.r.linkage.function_bodies += 1,
            Opcode::DclFunctionTable => {
                let table = FunctionTable {
                    id: imm(inst, 0),
                    bodies: inst.data().collect(),
                };
                self.r.linkage.function_tables.push(table);
            }
            Opcode::DclInterface => {
                let interface = Interface {
                    id: imm(inst, 0),
                    array_length: imm(inst, 2) >> 16,
                    table_length: imm(inst, 1),
                    function_tables: inst.data().collect(),
                    dynamically_indexed: token.interface_indexed(),
                };
                self.r.linkage.interfaces.push(interface);
            }
            _ => {}
        }
        Ok(())
    }
}
