//! Stage inputs and outputs: signatures, `dcl_input*`/`dcl_output*`, geometry-shader
//! declarations (`dcl_inputprimitive`, `dcl_outputtopology`, `dcl_maxout`, `dcl_gsinstances`,
//! `dcl_stream`).
//!
//! Contract: signature elements are copied as they are (register, mask, system value, semantic
//! index, component type, stream), their codes converted into the IR's types; declarations
//! record which registers the program reads and writes, their system values and how inputs are
//! interpolated (a system-value name or interpolation mode this crate does not know is kept as
//! [`ir::SystemValue::Unknown`] / [`ir::Interpolation::Undefined`]). A geometry-shader input
//! primitive other than point, line, triangle and their adjacency forms is
//! [`Error::Unsupported`]; an output topology other than a point list, line strip or triangle
//! strip is [`Error::Invalid`]. Special registers (`vPrim`, `oDepth`, ...)
//! need no table entry and are accepted as they are. Limits: 32 `v#`/`o#` registers
//! (D3D11's `D3D11_PS_INPUT_REGISTER_COUNT`; vertex shaders also have 32), 1024 output vertices
//! times components, 32 instances, 4 streams (D3D11.0 functional spec §13.4, §18).
//! [`check_signature`] holds signature chunks to the same 32 registers and to
//! [`MAX_SIGNATURE_ELEMENTS`] elements before anything is built from them.

use super::Error;
use super::Lowerer;
use crate::front::dxbc::decl::{Declaration, Io};
use crate::front::dxbc::operand::RegisterType;
use crate::front::dxbc::reflect::{InputPrimitive, Interpolation, OutputTopology, SystemName};
use crate::front::dxbc::signature::{ComponentType, Layout, Signature, SystemValue};
use crate::front::dxbc::Instruction;
use crate::ir;

pub use crate::ir::MAX_IO_REGISTERS;

/// Most vertices a geometry shader may emit per invocation (`D3D11_GS_MAX_OUTPUT_VERTEX_COUNT_ACROSS_INSTANCES`).
pub const MAX_GS_OUTPUT_VERTICES: u32 = 1024;
/// Most geometry-shader instances (`D3D11_GS_MAX_INSTANCE_COUNT`).
pub const MAX_GS_INSTANCES: u32 = 32;
/// Geometry-shader output streams (`D3D11_SO_STREAM_COUNT`).
pub const MAX_STREAMS: u32 = 4;

/// Most elements of one signature chunk: an element occupies at least one component of one of
/// the 32 registers (× 4 components), in each of the 4 streams of a geometry shader's output.
pub const MAX_SIGNATURE_ELEMENTS: usize = 4 * MAX_IO_REGISTERS as usize * MAX_STREAMS as usize;

/// The register number of elements that have none (`SV_Depth`, `SV_Coverage`, ...).
const NO_REGISTER: u32 = u32::MAX;

/// Checks a signature against the D3D11 limits: at most [`MAX_SIGNATURE_ELEMENTS`] elements,
/// each in one of the [`MAX_IO_REGISTERS`] registers or in none. `chunk_offset` is the byte
/// offset of the chunk's data (its element count); errors point at the count or at the
/// offending element.
pub fn check_signature(signature: &Signature<'_>, chunk_offset: u32) -> Result<(), Error> {
    let count = signature.elements.len();
    if count > MAX_SIGNATURE_ELEMENTS {
        return Err(Error::invalid(
            chunk_offset,
            format!("{count} signature elements exceeds the limit {MAX_SIGNATURE_ELEMENTS}"),
        ));
    }
    let size = Layout::of(signature.fourcc).map_or(24, Layout::element_size);
    for (i, e) in signature.elements.iter().enumerate() {
        if e.register >= MAX_IO_REGISTERS && e.register != NO_REGISTER {
            // The element table follows the count and a reserved dword; i < 512.
            let at = chunk_offset.saturating_add(8 + (i * size) as u32);
            return Err(Error::invalid(
                at,
                format!(
                    "register {} of element {i} ({}{}) exceeds the limit {}",
                    e.register,
                    e.name,
                    e.semantic_index,
                    MAX_IO_REGISTERS - 1
                ),
            ));
        }
    }
    Ok(())
}

/// The IR's system value for a signature's (`D3D_NAME`).
fn signature_system_value(value: SystemValue) -> ir::SystemValue {
    use ir::SystemValue as S;
    match value {
        SystemValue::Undefined => S::None,
        SystemValue::Position => S::Position,
        SystemValue::ClipDistance => S::ClipDistance,
        SystemValue::CullDistance => S::CullDistance,
        SystemValue::RenderTargetArrayIndex => S::RenderTargetArrayIndex,
        SystemValue::ViewportArrayIndex => S::ViewportArrayIndex,
        SystemValue::VertexId => S::VertexId,
        SystemValue::PrimitiveId => S::PrimitiveId,
        SystemValue::InstanceId => S::InstanceId,
        SystemValue::IsFrontFace => S::IsFrontFace,
        SystemValue::SampleIndex => S::SampleIndex,
        SystemValue::FinalQuadEdgeTessFactor => S::QuadEdgeTessFactors,
        SystemValue::FinalQuadInsideTessFactor => S::QuadInsideTessFactors,
        SystemValue::FinalTriEdgeTessFactor => S::TriEdgeTessFactors,
        SystemValue::FinalTriInsideTessFactor => S::TriInsideTessFactors,
        SystemValue::FinalLineDetailTessFactor => S::LineDetailTessFactors,
        SystemValue::FinalLineDensityTessFactor => S::LineDensityTessFactors,
        SystemValue::Target => S::Target,
        SystemValue::Depth => S::Depth,
        SystemValue::Coverage => S::Coverage,
        SystemValue::DepthGreaterEqual => S::DepthGreaterEqual,
        SystemValue::DepthLessEqual => S::DepthLessEqual,
        SystemValue::StencilRef => S::StencilRef,
        SystemValue::InnerCoverage => S::InnerCoverage,
        // SM6-only values and values this crate does not know.
        other => S::Unknown(other.raw()),
    }
}

/// The IR's system value for a declaration's system-value name; `None` without one.
fn declared_system_value(name: Option<SystemName>) -> ir::SystemValue {
    use ir::SystemValue as S;
    let Some(name) = name else {
        return S::None;
    };
    match name {
        SystemName::Undefined => S::None,
        SystemName::Position => S::Position,
        SystemName::ClipDistance => S::ClipDistance,
        SystemName::CullDistance => S::CullDistance,
        SystemName::RenderTargetArrayIndex => S::RenderTargetArrayIndex,
        SystemName::ViewportArrayIndex => S::ViewportArrayIndex,
        SystemName::VertexId => S::VertexId,
        SystemName::PrimitiveId => S::PrimitiveId,
        SystemName::InstanceId => S::InstanceId,
        SystemName::IsFrontFace => S::IsFrontFace,
        SystemName::SampleIndex => S::SampleIndex,
        SystemName::QuadUEq0EdgeTessFactor => S::QuadUEq0EdgeTessFactor,
        SystemName::QuadVEq0EdgeTessFactor => S::QuadVEq0EdgeTessFactor,
        SystemName::QuadUEq1EdgeTessFactor => S::QuadUEq1EdgeTessFactor,
        SystemName::QuadVEq1EdgeTessFactor => S::QuadVEq1EdgeTessFactor,
        SystemName::QuadUInsideTessFactor => S::QuadUInsideTessFactor,
        SystemName::QuadVInsideTessFactor => S::QuadVInsideTessFactor,
        SystemName::TriUEq0EdgeTessFactor => S::TriUEq0EdgeTessFactor,
        SystemName::TriVEq0EdgeTessFactor => S::TriVEq0EdgeTessFactor,
        SystemName::TriWEq0EdgeTessFactor => S::TriWEq0EdgeTessFactor,
        SystemName::TriInsideTessFactor => S::TriInsideTessFactor,
        SystemName::LineDetailTessFactor => S::LineDetailTessFactor,
        SystemName::LineDensityTessFactor => S::LineDensityTessFactor,
        SystemName::Unknown(other) => S::Unknown(other),
    }
}

/// The IR's interpolation mode for a declaration's (none given and unknown modes are
/// undefined).
fn interpolation(mode: Option<Interpolation>) -> ir::Interpolation {
    use ir::Interpolation as I;
    let Some(mode) = mode else {
        return I::Undefined;
    };
    match mode {
        Interpolation::Constant => I::Constant,
        Interpolation::Linear => I::Linear,
        Interpolation::LinearCentroid => I::LinearCentroid,
        Interpolation::LinearNoPerspective => I::LinearNoPerspective,
        Interpolation::LinearNoPerspectiveCentroid => I::LinearNoPerspectiveCentroid,
        Interpolation::LinearSample => I::LinearSample,
        Interpolation::LinearNoPerspectiveSample => I::LinearNoPerspectiveSample,
        Interpolation::Unknown(_) => I::Undefined,
    }
}

/// A decoded signature as the IR keeps it.
pub fn signature(sig: &Signature<'_>) -> Vec<ir::SignatureElement> {
    sig.elements
        .iter()
        .map(|e| ir::SignatureElement {
            register: e.register,
            mask: e.mask & 0xf,
            system_value: signature_system_value(e.effective_system_value()),
            semantic_index: e.semantic_index,
            component_type: match e.component_type {
                ComponentType::Uint32 => ir::ComponentType::Uint,
                ComponentType::Sint32 => ir::ComponentType::Sint,
                _ => ir::ComponentType::Float,
            },
            stream: (e.stream & 3) as u8,
        })
        .collect()
}

impl Lowerer {
    /// `dcl_input*`/`dcl_output*` of `v#`/`o#` (in geometry shaders `v[n][#]`; in hull and
    /// domain shaders also `vicp[n][#]` and `vpc#`, and the `o#` of fork and join phases, which
    /// are patch constants).
    pub(super) fn io(&mut self, inst: &Instruction<'_>, io: &Io<'_>) -> Result<(), Error> {
        let (op, output) = (io.operand, io.output);
        #[derive(PartialEq)]
        enum Table {
            Inputs,
            Outputs,
            PatchConstants,
        }
        let patch_phase = matches!(self.phase, Some(ir::PhaseKind::Fork | ir::PhaseKind::Join));
        let table = match (op.ty, output) {
            (RegisterType::Input | RegisterType::InputControlPoint, false) => Table::Inputs,
            (RegisterType::InputPatchConstant, false) => Table::PatchConstants,
            (RegisterType::Output, true) if patch_phase => Table::PatchConstants,
            (RegisterType::Output, true) => Table::Outputs,
            _ => return Ok(()),
        };
        let Some(last) = op.indices().last() else {
            return Err(Error::invalid(inst.offset, "i/o register without an index"));
        };
        if last.rel.is_some() {
            return Err(Error::invalid(
                inst.offset,
                "relative index in a declaration",
            ));
        }
        let register = u32::try_from(last.imm)
            .ok()
            .filter(|r| *r < MAX_IO_REGISTERS)
            .ok_or_else(|| {
                Error::invalid(
                    inst.offset,
                    format!(
                        "{}{} is past the {MAX_IO_REGISTERS} registers of a stage",
                        op.ty.prefix(),
                        last.imm
                    ),
                )
            })?;
        let interpolation = interpolation(io.interpolation);
        let mask = io.mask().map_or(0xf, |m| m & 0xf);
        let mut system_value = declared_system_value(io.system_name);
        let tessellation = matches!(self.module.stage, ir::Stage::Hull | ir::Stage::Domain);
        let domain_output = output && self.module.stage == ir::Stage::Domain;
        if tessellation
            && system_value == ir::SystemValue::None
            && table != Table::PatchConstants
            && !domain_output
        {
            // Control points: positions and clip/cull distances travel in built-ins, which
            // the signature names even where the declaration does not.
            system_value = self.control_point_system_value(register, mask, output);
        }
        let decl = ir::IoDecl {
            register,
            mask,
            system_value,
            interpolation,
            stream: if output { self.stream } else { 0 },
            span: inst.offset,
        };
        match table {
            Table::Inputs => self.module.inputs.push(decl),
            Table::Outputs => self.module.outputs.push(decl),
            Table::PatchConstants => self.module.patch_constants.push(decl),
        }
        Ok(())
    }

    /// The geometry-shader declarations.
    pub(super) fn geometry_declaration(
        &mut self,
        inst: &Instruction<'_>,
        declaration: &Declaration<'_>,
    ) -> Result<(), Error> {
        let at = inst.offset;
        let g = &mut self.module.geometry;
        match *declaration {
            Declaration::InputPrimitive(primitive) => {
                g.input_primitive = Some(match primitive {
                    InputPrimitive::Point => ir::InputPrimitive::Point,
                    InputPrimitive::Line => ir::InputPrimitive::Line,
                    InputPrimitive::Triangle => ir::InputPrimitive::Triangle,
                    InputPrimitive::LineAdj => ir::InputPrimitive::LineAdj,
                    InputPrimitive::TriangleAdj => ir::InputPrimitive::TriangleAdj,
                    InputPrimitive::Patch(_) | InputPrimitive::Unknown(_) => {
                        return Err(Error::unsupported(
                            at,
                            format!("geometry-shader input primitive {}", primitive.raw()),
                        ))
                    }
                });
            }
            Declaration::OutputTopology(topology) => {
                g.output_topology = Some(match topology {
                    OutputTopology::PointList => ir::OutputTopology::PointList,
                    OutputTopology::LineStrip => ir::OutputTopology::LineStrip,
                    OutputTopology::TriangleStrip => ir::OutputTopology::TriangleStrip,
                    _ => {
                        return Err(Error::invalid(
                            at,
                            format!("geometry-shader output topology {}", topology.raw()),
                        ))
                    }
                });
            }
            Declaration::MaxOutputVertices(value) => {
                if value > MAX_GS_OUTPUT_VERTICES {
                    return Err(Error::invalid(
                        at,
                        format!(
                            "{value} output vertices exceeds the limit {MAX_GS_OUTPUT_VERTICES}"
                        ),
                    ));
                }
                g.max_output_vertices = value;
            }
            Declaration::GsInstances(value) => {
                if value == 0 || value > MAX_GS_INSTANCES {
                    return Err(Error::invalid(
                        at,
                        format!("{value} instances is not in 1..={MAX_GS_INSTANCES}"),
                    ));
                }
                g.instances = value;
            }
            Declaration::Stream(_) => self.stream = self.stream_operand(inst)?,
            _ => {
                return Err(Error::invalid(
                    at,
                    format!("{} is not a geometry declaration", inst.opcode.name()),
                ))
            }
        }
        Ok(())
    }

    /// The `m#` operand of `dcl_stream` and `emit_stream`/`cut_stream`.
    pub(super) fn stream_operand(&self, inst: &Instruction<'_>) -> Result<u8, Error> {
        let stream = inst
            .operands()
            .first()
            .filter(|op| op.ty == RegisterType::Stream)
            .and_then(|op| op.indices().first())
            .filter(|i| i.rel.is_none() && i.imm < u64::from(MAX_STREAMS))
            .ok_or_else(|| {
                Error::invalid(
                    inst.offset,
                    format!("{} needs a stream m0..m3", inst.opcode.name()),
                )
            })?;
        Ok(stream.imm as u8)
    }
}
