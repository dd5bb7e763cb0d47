//! [`Declaration::decode`]: the one reading of a declaration's tokens.
//!
//! Contract: every field that the opcode token, the extra tokens (return type, system-value
//! name, SM5.1 constant-buffer size) and the immediate dwords of a `dcl_*` instruction, a
//! hull-shader phase marker or an immediate-constant-buffer block carry is decoded here, once,
//! into a typed value; enumerated fields keep values this crate does not know as `Unknown(raw)`
//! (the types of [`crate::front::dxbc::reflect`]), so decoding never fails on a field value.
//! The declared operand is handed over as decoded by the operand decoder: how strictly its
//! indices are read (how many, relative parts) is each consumer's policy, through the helpers
//! of [`super`]. Nothing is allocated; list payloads are borrowed from the instruction.

use super::{operand, DeclError};
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::operand::{Components, Operand};
use crate::front::dxbc::reflect::{
    GlobalFlags, IndexableTemp, InputPrimitive, Interpolation, OutputTopology, ResourceDimension,
    ReturnType, SamplerMode, SystemName, TessDomain, TessOutputPrimitive, TessPartitioning,
    TgsmKind, UavFlags,
};

/// Custom-data class of an immediate constant buffer
/// (`D3D10_SB_CUSTOMDATA_DCL_IMMEDIATE_CONSTANT_BUFFER`).
pub(super) const ICB_CLASS: u32 = 3;

/// The `i`th immediate dword of a declaration; the instruction decoder guarantees every slot of
/// the opcode's layout.
fn imm(inst: &Instruction<'_>, i: usize) -> u32 {
    inst.imms().get(i).copied().unwrap_or(0)
}

/// The dword list of a declaration (`dcl_function_table`, `dcl_interface`) or the payload of an
/// immediate constant buffer, borrowed from its instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dwords<'i>(&'i Instruction<'i>);

impl<'i> Dwords<'i> {
    /// The dwords in order.
    pub(crate) fn iter(self) -> impl ExactSizeIterator<Item = u32> + 'i {
        self.0.data()
    }

    /// How many dwords.
    pub(crate) fn len(self) -> usize {
        self.0.data_bytes().len() / 4
    }
}

/// A `dcl_input*` / `dcl_output*` declaration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Io<'i> {
    /// The declared register (`v#`, `o#`, `vicp[n][#]`, a special register, ...).
    pub operand: &'i Operand,
    /// `dcl_output*` (else `dcl_input*`).
    pub output: bool,
    /// The system-value name of a `_siv`/`_sgv` declaration (`D3D10_SB_NAME`).
    pub system_name: Option<SystemName>,
    /// The interpolation mode of a `dcl_input_ps*` declaration (opcode token bits 11–14);
    /// `None` for other declarations and for mode 0 (not given).
    pub interpolation: Option<Interpolation>,
}

impl Io<'_> {
    /// The declared components; see [`write_mask`].
    pub(crate) fn mask(&self) -> Option<u8> {
        write_mask(self.operand)
    }
}

/// The components a declared register covers (bit 0 = x), as its write mask says; `None` when
/// the operand has no write mask (scalar special registers).
pub(crate) fn write_mask(op: &Operand) -> Option<u8> {
    match op.components {
        Components::Mask(m) => Some(m),
        _ => None,
    }
}

/// How a resource declaration is accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    /// `dcl_resource*`: a shader resource view.
    ShaderResource,
    /// `dcl_uav_*`: an unordered access view, with its flags (opcode token bit 16 globally
    /// coherent, bit 17 rasterizer ordered, bit 23 hidden counter of a structured UAV).
    UnorderedAccess(UavFlags),
}

/// What a resource declaration's elements are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `dcl_resource` / `dcl_uav_typed`: a typed buffer or texture.
    Typed {
        /// Opcode token bits 11–15.
        dimension: ResourceDimension,
        /// The four components' return types (the return-type token, 4 bits each, x first).
        return_types: [ReturnType; 4],
        /// Samples per pixel (opcode token bits 16–22) of a multisampled shader resource;
        /// `None` for other dimensions and for UAVs.
        sample_count: Option<u32>,
    },
    /// `dcl_resource_raw` / `dcl_uav_raw`: a byte-address buffer.
    Raw,
    /// `dcl_resource_structured` / `dcl_uav_structured`.
    Structured {
        /// Bytes per structure.
        stride: u32,
    },
}

/// A section of a hull shader, as its marker opcode starts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HullPhase {
    /// `hs_decls`: the global declarations.
    Declarations,
    /// `hs_control_point_phase`.
    ControlPoint,
    /// `hs_fork_phase`.
    Fork,
    /// `hs_join_phase`.
    Join,
}

/// A hull-shader phase that runs as several instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InstancedPhase {
    /// `hs_fork_phase`.
    Fork,
    /// `hs_join_phase`.
    Join,
}

/// One declaration, its tokens decoded.
#[derive(Clone, Debug)]
pub(crate) enum Declaration<'i> {
    /// `customdata` of class [`ICB_CLASS`]: `dcl_immediateConstantBuffer` and its dwords.
    ImmediateConstantBuffer(Dwords<'i>),
    /// `dcl_globalFlags` (opcode token bits 11–23).
    GlobalFlags(GlobalFlags),
    /// `dcl_temps N`.
    Temps(u32),
    /// `dcl_indexableTemp x#[size], components`.
    IndexableTemp(IndexableTemp),
    /// `dcl_thread_group x, y, z`.
    ThreadGroup([u32; 3]),
    /// `dcl_constantbuffer`.
    ConstantBuffer {
        /// `cb#[size]` before SM5.1, `CB#[lower:upper]` in SM5.1.
        operand: &'i Operand,
        /// `dynamicIndexed` (opcode token bit 11; else `immediateIndexed`).
        dynamic_indexed: bool,
        /// The size in 16-byte vectors that SM5.1 stores in its own dword; `None` before.
        sm51_size: Option<u32>,
    },
    /// `dcl_resource*` and `dcl_uav_*`.
    Resource {
        /// `t#` or `u#` (a range in SM5.1).
        operand: &'i Operand,
        /// Shader resource or unordered access, with its flags.
        view: View,
        /// Typed, raw or structured.
        shape: Shape,
    },
    /// `dcl_sampler`.
    Sampler {
        /// `s#` (a range in SM5.1).
        operand: &'i Operand,
        /// Default, comparison or mono (opcode token bits 11–14).
        mode: SamplerMode,
    },
    /// `dcl_tgsm_raw` / `dcl_tgsm_structured`.
    Tgsm {
        /// `g#`.
        operand: &'i Operand,
        /// Size in bytes, or stride and count.
        kind: TgsmKind,
    },
    /// `dcl_input*` / `dcl_output*`.
    Io(Io<'i>),
    /// `dcl_indexrange`.
    IndexRange {
        /// The first register of the range.
        operand: &'i Operand,
        /// Registers in the range.
        count: u32,
    },
    /// `dcl_inputprimitive` (opcode token bits 11–16).
    InputPrimitive(InputPrimitive),
    /// `dcl_outputtopology` (opcode token bits 11–17).
    OutputTopology(OutputTopology),
    /// `dcl_maxout N`.
    MaxOutputVertices(u32),
    /// `dcl_gsinstances N`.
    GsInstances(u32),
    /// `dcl_stream m#`.
    Stream(&'i Operand),
    /// `hs_decls` and the hull-shader phase starts.
    Phase(HullPhase),
    /// `dcl_hs_fork_phase_instance_count` / `dcl_hs_join_phase_instance_count`.
    PhaseInstanceCount {
        /// The phase whose instances are counted.
        phase: InstancedPhase,
        /// Instances.
        count: u32,
    },
    /// `dcl_input_control_point_count` (opcode token bits 11–16).
    InputControlPoints(u32),
    /// `dcl_output_control_point_count` (opcode token bits 11–16).
    OutputControlPoints(u32),
    /// `dcl_tessellator_domain` (opcode token bits 11–12).
    TessDomain(TessDomain),
    /// `dcl_tessellator_partitioning` (opcode token bits 11–13).
    TessPartitioning(TessPartitioning),
    /// `dcl_tessellator_output_primitive` (opcode token bits 11–13).
    TessOutputPrimitive(TessOutputPrimitive),
    /// `dcl_hs_max_tessfactor`: the float's value.
    MaxTessFactor(f32),
    /// `dcl_function_body fb#` (its number is not needed: bodies are counted).
    FunctionBody,
    /// `dcl_function_table ft# = {fb#, ...}`.
    FunctionTable {
        /// The table's number.
        id: u32,
        /// The function bodies.
        bodies: Dwords<'i>,
    },
    /// `dcl_interface fp#[array][table length] = {ft#, ...}`.
    Interface {
        /// The interface's number.
        id: u32,
        /// Entries of each function table.
        table_length: u32,
        /// Array length (high half of the third dword).
        array_length: u32,
        /// The function tables.
        function_tables: Dwords<'i>,
        /// `dynamicIndexed` (opcode token bit 11).
        dynamically_indexed: bool,
    },
}

impl<'i> Declaration<'i> {
    /// Decodes `inst`; `None` for instructions that declare nothing (executable instructions,
    /// `customdata` other than an immediate constant buffer). The only error is a declaration
    /// without the operand its layout has, which the instruction decoder never produces.
    pub(crate) fn decode(inst: &'i Instruction<'_>) -> Result<Option<Self>, DeclError> {
        let inst: &'i Instruction<'i> = inst;
        let token = inst.token;
        let io = |output: bool| -> Result<Declaration<'i>, DeclError> {
            let interpolation = match inst.opcode {
                Opcode::DclInputPs | Opcode::DclInputPsSiv | Opcode::DclInputPsSgv => {
                    Some(token.interpolation())
                        .filter(|&m| m != 0)
                        .map(Interpolation::from_raw)
                }
                _ => None,
            };
            Ok(Declaration::Io(Io {
                operand: operand(inst)?,
                output,
                system_name: inst.name.map(SystemName::from_raw),
                interpolation,
            }))
        };
        let resource = |view: View, shape: Shape| -> Result<Declaration<'i>, DeclError> {
            Ok(Declaration::Resource {
                operand: operand(inst)?,
                view,
                shape,
            })
        };
        let typed = |view: View| {
            let dimension = ResourceDimension::from_raw(token.resource_dimension());
            let srv = view == View::ShaderResource;
            Shape::Typed {
                dimension,
                return_types: ReturnType::unpack(inst.return_type.unwrap_or(0)),
                sample_count: (srv && dimension.is_multisampled()).then(|| token.sample_count()),
            }
        };
        let structured = || Shape::Structured {
            stride: imm(inst, 0),
        };
        let srv = View::ShaderResource;
        let uav = || {
            View::UnorderedAccess(UavFlags {
                globally_coherent: token.globally_coherent(),
                rasterizer_ordered: token.rasterizer_ordered(),
                counter: inst.opcode == Opcode::DclUavStructured && token.uav_has_counter(),
            })
        };
        Ok(Some(match inst.opcode {
            Opcode::CustomData if inst.custom_class == ICB_CLASS => {
                Declaration::ImmediateConstantBuffer(Dwords(inst))
            }
            Opcode::HsDecls => Declaration::Phase(HullPhase::Declarations),
            Opcode::HsControlPointPhase => Declaration::Phase(HullPhase::ControlPoint),
            Opcode::HsForkPhase => Declaration::Phase(HullPhase::Fork),
            Opcode::HsJoinPhase => Declaration::Phase(HullPhase::Join),
            Opcode::DclHsForkPhaseInstanceCount => Declaration::PhaseInstanceCount {
                phase: InstancedPhase::Fork,
                count: imm(inst, 0),
            },
            Opcode::DclHsJoinPhaseInstanceCount => Declaration::PhaseInstanceCount {
                phase: InstancedPhase::Join,
                count: imm(inst, 0),
            },
            Opcode::DclGlobalFlags => Declaration::GlobalFlags(GlobalFlags::from_token(token.0)),
            Opcode::DclThreadGroup => {
                Declaration::ThreadGroup([imm(inst, 0), imm(inst, 1), imm(inst, 2)])
            }
            Opcode::DclConstantBuffer => Declaration::ConstantBuffer {
                operand: operand(inst)?,
                dynamic_indexed: token.cb_dynamic(),
                sm51_size: inst.cb_size,
            },
            Opcode::DclResource => resource(srv, typed(srv))?,
            Opcode::DclResourceRaw => resource(srv, Shape::Raw)?,
            Opcode::DclResourceStructured => resource(srv, structured())?,
            Opcode::DclUavTyped => resource(uav(), typed(uav()))?,
            Opcode::DclUavRaw => resource(uav(), Shape::Raw)?,
            Opcode::DclUavStructured => resource(uav(), structured())?,
            Opcode::DclSampler => Declaration::Sampler {
                operand: operand(inst)?,
                mode: SamplerMode::from_raw(token.sampler_mode()),
            },
            Opcode::DclTgsmRaw => Declaration::Tgsm {
                operand: operand(inst)?,
                kind: TgsmKind::Raw {
                    bytes: imm(inst, 0),
                },
            },
            Opcode::DclTgsmStructured => Declaration::Tgsm {
                operand: operand(inst)?,
                kind: TgsmKind::Structured {
                    stride: imm(inst, 0),
                    count: imm(inst, 1),
                },
            },
            Opcode::DclTemps => Declaration::Temps(imm(inst, 0)),
            Opcode::DclIndexableTemp => Declaration::IndexableTemp(IndexableTemp {
                register: imm(inst, 0),
                size: imm(inst, 1),
                components: imm(inst, 2),
            }),
            Opcode::DclInput
            | Opcode::DclInputSgv
            | Opcode::DclInputSiv
            | Opcode::DclInputPs
            | Opcode::DclInputPsSgv
            | Opcode::DclInputPsSiv => io(false)?,
            Opcode::DclOutput | Opcode::DclOutputSgv | Opcode::DclOutputSiv => io(true)?,
            Opcode::DclIndexRange => Declaration::IndexRange {
                operand: operand(inst)?,
                count: imm(inst, 0),
            },
            Opcode::DclInputPrimitive => {
                Declaration::InputPrimitive(InputPrimitive::from_raw(token.primitive()))
            }
            Opcode::DclOutputTopology => {
                Declaration::OutputTopology(OutputTopology::from_raw(token.topology()))
            }
            Opcode::DclMaxOutputVertexCount => Declaration::MaxOutputVertices(imm(inst, 0)),
            Opcode::DclGsInstanceCount => Declaration::GsInstances(imm(inst, 0)),
            Opcode::DclStream => Declaration::Stream(operand(inst)?),
            Opcode::DclInputControlPointCount => Declaration::InputControlPoints(token.primitive()),
            Opcode::DclOutputControlPointCount => {
                Declaration::OutputControlPoints(token.primitive())
            }
            Opcode::DclTessDomain => {
                Declaration::TessDomain(TessDomain::from_raw(token.tess_domain()))
            }
            Opcode::DclTessPartitioning => {
                Declaration::TessPartitioning(TessPartitioning::from_raw(token.tess_mode()))
            }
            Opcode::DclTessOutputPrimitive => {
                Declaration::TessOutputPrimitive(TessOutputPrimitive::from_raw(token.tess_mode()))
            }
            Opcode::DclHsMaxTessFactor => Declaration::MaxTessFactor(f32::from_bits(imm(inst, 0))),
            Opcode::DclFunctionBody => Declaration::FunctionBody,
            Opcode::DclFunctionTable => Declaration::FunctionTable {
                id: imm(inst, 0),
                bodies: Dwords(inst),
            },
            Opcode::DclInterface => Declaration::Interface {
                id: imm(inst, 0),
                table_length: imm(inst, 1),
                array_length: imm(inst, 2) >> 16,
                function_tables: Dwords(inst),
                dynamically_indexed: token.interface_indexed(),
            },
            _ => return Ok(None),
        }))
    }
}
