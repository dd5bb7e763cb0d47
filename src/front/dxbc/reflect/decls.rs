//! [`Reflection::from_program`]: one pass over the instructions, recording each declaration as
//! the front end's shared declaration decoder ([`Declaration::decode`]) reads it.

use super::{
    FunctionTable, Geometry, GlobalFlags, ImmediateConstantBuffer, IndexRange, Interface,
    IoDeclaration, Linkage, Phase, PhaseKind, Range, ReflectError, Reflection, Resource,
    ResourceKind, Signatures, Stream, Tessellation, Tgsm,
};
use crate::front::dxbc::decl::{
    self, Binding, DeclError, Declaration, HullPhase, Indices, InstancedPhase, Io, Shape, View,
};
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::operand::Operand;
use crate::front::dxbc::program::{Program, ShaderVersion, Stage};

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

/// The immediate parts of an operand's indices, each checked to fit 32 bits.
fn indices(inst: &Instruction<'_>, op: &Operand) -> Result<Indices, ReflectError> {
    decl::immediates(op).map_err(|e| decl_error(inst, e))
}

/// The reflection's kind of an SRV or UAV declaration.
fn resource_kind(view: View, shape: Shape) -> ResourceKind {
    match (view, shape) {
        (
            View::ShaderResource,
            Shape::Typed {
                dimension,
                return_types,
                sample_count,
            },
        ) => ResourceKind::TypedSrv {
            dimension,
            return_types,
            sample_count,
        },
        (View::ShaderResource, Shape::Raw) => ResourceKind::RawSrv,
        (View::ShaderResource, Shape::Structured { stride }) => {
            ResourceKind::StructuredSrv { stride }
        }
        (
            View::UnorderedAccess(flags),
            Shape::Typed {
                dimension,
                return_types,
                ..
            },
        ) => ResourceKind::TypedUav {
            dimension,
            return_types,
            flags,
        },
        (View::UnorderedAccess(flags), Shape::Raw) => ResourceKind::RawUav { flags },
        (View::UnorderedAccess(flags), Shape::Structured { stride }) => {
            ResourceKind::StructuredUav { stride, flags }
        }
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
    fn range(&self, inst: &Instruction<'_>, op: &Operand) -> Result<Range, ReflectError> {
        let idx = indices(inst, op)?;
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

    fn resource(
        &mut self,
        inst: &Instruction<'_>,
        op: &Operand,
        kind: ResourceKind,
    ) -> Result<(), ReflectError> {
        let range = self.range(inst, op)?;
        self.r.resources.push(Resource {
            kind,
            range,
            name: None,
            offset: inst.offset,
        });
        Ok(())
    }

    fn io(&self, inst: &Instruction<'_>, io: &Io<'_>) -> Result<IoDeclaration, ReflectError> {
        let op = io.operand;
        let idx = indices(inst, op)?;
        let (array_size, register) = match *idx.as_slice() {
            [] => (None, None),
            [register] => (None, Some(register)),
            [size, .., register] => (Some(size), Some(register)),
        };
        let stream = match (io.output, self.stream) {
            (true, Some(i)) => self.r.geometry.as_ref().map(|g| g.streams[i].index),
            _ => None,
        };
        Ok(IoDeclaration {
            register_type: op.ty,
            register,
            array_size,
            mask: io.mask().unwrap_or(0),
            system_value: io.system_name,
            interpolation: io.interpolation,
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
        count: u32,
    ) -> Result<(), ReflectError> {
        let phase = self.phase();
        if phase.kind != kind {
            return Err(malformed(inst, "instance count outside its phase"));
        }
        phase.instance_count = Some(count);
        Ok(())
    }

    fn declare(&mut self, inst: &Instruction<'_>) -> Result<(), ReflectError> {
        let Some(declaration) = Declaration::decode(inst).map_err(|e| decl_error(inst, e))? else {
            return Ok(());
        };
        match declaration {
            Declaration::ImmediateConstantBuffer(dwords) => {
                self.r.immediate_constant_buffer = Some(ImmediateConstantBuffer {
                    dwords: dwords.len() as u32,
                    offset: inst.offset,
                });
            }
            Declaration::Phase(phase) => {
                let kind = match phase {
                    HullPhase::Declarations => PhaseKind::Declarations,
                    HullPhase::ControlPoint => PhaseKind::ControlPoint,
                    HullPhase::Fork => PhaseKind::Fork,
                    HullPhase::Join => PhaseKind::Join,
                };
                self.start_phase(inst, kind)?
            }
            Declaration::PhaseInstanceCount { phase, count } => {
                let kind = match phase {
                    InstancedPhase::Fork => PhaseKind::Fork,
                    InstancedPhase::Join => PhaseKind::Join,
                };
                self.instance_count(inst, kind, count)?
            }
            Declaration::GlobalFlags(flags) => self.r.global_flags = flags,
            Declaration::ThreadGroup(size) => self.r.thread_group_size = Some(size),
            Declaration::ConstantBuffer {
                operand,
                dynamic_indexed,
                sm51_size,
            } => {
                let size = if self.r.version.is_sm51() {
                    sm51_size.unwrap_or(0)
                } else {
                    match *indices(inst, operand)?.as_slice() {
                        [_, size, ..] => size,
                        _ => return Err(malformed(inst, "constant buffer without a size")),
                    }
                };
                let kind = ResourceKind::ConstantBuffer {
                    size,
                    dynamic_indexed,
                };
                self.resource(inst, operand, kind)?;
            }
            Declaration::Resource {
                operand,
                view,
                shape,
            } => self.resource(inst, operand, resource_kind(view, shape))?,
            Declaration::Sampler { operand, mode } => {
                self.resource(inst, operand, ResourceKind::Sampler { mode })?
            }
            Declaration::Tgsm { operand, kind } => {
                let register = *indices(inst, operand)?
                    .as_slice()
                    .first()
                    .ok_or_else(|| malformed(inst, "g# register without an index"))?;
                self.r.tgsm.push(Tgsm {
                    register,
                    kind,
                    offset: inst.offset,
                });
            }
            Declaration::Temps(n) => self.phase().temps = n,
            Declaration::IndexableTemp(temp) => self.phase().indexable_temps.push(temp),
            Declaration::Io(io) => {
                let declaration = self.io(inst, &io)?;
                let phase = self.phase();
                if io.output {
                    phase.outputs.push(declaration);
                } else {
                    phase.inputs.push(declaration);
                }
            }
            Declaration::IndexRange { operand, count } => {
                let register = *indices(inst, operand)?
                    .as_slice()
                    .last()
                    .ok_or_else(|| malformed(inst, "index range without a register"))?;
                let range = IndexRange {
                    register_type: operand.ty,
                    register,
                    count,
                    mask: decl::write_mask(operand).unwrap_or(0),
                    offset: inst.offset,
                };
                self.phase().index_ranges.push(range);
            }
            Declaration::InputPrimitive(primitive) => {
                self.geometry().input_primitive = Some(primitive);
            }
            Declaration::OutputTopology(topology) => {
                let stream = self.stream;
                let geometry = self.geometry();
                geometry.output_topology.get_or_insert(topology);
                if let Some(stream) = stream.and_then(|i| geometry.streams.get_mut(i)) {
                    stream.output_topology = Some(topology);
                }
            }
            Declaration::MaxOutputVertices(n) => self.geometry().max_output_vertices = Some(n),
            Declaration::GsInstances(n) => self.geometry().instance_count = Some(n),
            Declaration::Stream(operand) => {
                let index = *indices(inst, operand)?
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
            Declaration::InputControlPoints(n) => {
                self.tessellation().input_control_points = Some(n);
            }
            Declaration::OutputControlPoints(n) => {
                self.tessellation().output_control_points = Some(n);
            }
            Declaration::TessDomain(domain) => self.tessellation().domain = Some(domain),
            Declaration::TessPartitioning(partitioning) => {
                self.tessellation().partitioning = Some(partitioning);
            }
            Declaration::TessOutputPrimitive(primitive) => {
                self.tessellation().output_primitive = Some(primitive);
            }
            Declaration::MaxTessFactor(f) => self.tessellation().max_tess_factor = Some(f),
            Declaration::FunctionBody => self.r.linkage.function_bodies += 1,
            Declaration::FunctionTable { id, bodies } => {
                let table = FunctionTable {
                    id,
                    bodies: bodies.iter().collect(),
                };
                self.r.linkage.function_tables.push(table);
            }
            Declaration::Interface {
                id,
                table_length,
                array_length,
                function_tables,
                dynamically_indexed,
            } => {
                let interface = Interface {
                    id,
                    array_length,
                    table_length,
                    function_tables: function_tables.iter().collect(),
                    dynamically_indexed,
                };
                self.r.linkage.interfaces.push(interface);
            }
        }
        Ok(())
    }
}
