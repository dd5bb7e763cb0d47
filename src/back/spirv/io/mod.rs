//! Stage inputs and outputs: the Vulkan interface of vertex, pixel and geometry shaders.
//!
//! Contract (`docs/stage-io.md` has the full mapping):
//! - The shader reads `v#` and writes `o#` through Private register files (`uvec4[n]`; geometry
//!   inputs `uvec4[vertices][n]`), so relative indexing works as in D3D. The entry point is a
//!   wrapper that copies the Vulkan inputs into the input file, calls the shader's main
//!   function, and copies the output file to the Vulkan outputs; geometry shaders copy the
//!   outputs of a stream at each `emit`.
//! - User inputs and outputs: one variable per register (`Location` = register, `Component` =
//!   first component), spanning the signature elements its declarations touch, typed by their
//!   common component type or `uint` when they differ: Vulkan wants the variables of a location
//!   to agree in type and interpolation ([`elements`]). Vertex-shader inputs are one `vec4` per
//!   register (Vulkan fills missing attribute components with (0, 0, 0, 1) as D3D does).
//!   Without a signature, declared components count as float.
//! - System values map to built-ins ([`builtins`]): positions, clip and cull distances packed
//!   into arrays in (register, component) order, vertex and instance ids relative to the draw's
//!   base (D3D counts from 0), front facing as `~0`/`0`, `SV_Position.w` in pixel shaders as
//!   `1/w` of `FragCoord`, and the pixel-shader special outputs (`oDepth*`, `oMask`,
//!   `oStencilRef`).
//! - Outputs of geometry-shader streams other than the rasterized one get locations past every
//!   location the rasterized stream uses (they only feed transform feedback).

mod builtins;
mod copy;
mod elements;
mod patch;
mod targets;

pub(crate) use patch::PatchIo;

use spirv::{BuiltIn, Capability, Decoration, StorageClass};

use super::context::{Emitter, Scalar};
use crate::back::spirv::Error;
use crate::ir::{self, Reg, Stage};
use crate::spv::{Id, Version};

/// How an interface variable's value becomes register words and back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinkKind {
    /// A scalar or vector of the link's scalar type.
    Plain,
    /// `FragCoord`: the register's w is `1 / FragCoord.w`.
    FragCoord,
    /// A boolean built-in: `~0` when true, else 0.
    Bool,
    /// Element `n` of a float array built-in (clip and cull distances).
    ArrayElement(u32),
    /// An integer built-in minus another (`VertexIndex - BaseVertex`).
    MinusBase(Id),
    /// Element 0 of an `int[1]` (`SampleMask`).
    MaskArray,
}

/// Where a link's register words live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Home {
    /// Register `n` of the input or output file.
    Register(u32),
    /// A Private `uvec4` of its own (pixel-shader special outputs), component x.
    Private(Id),
}

/// One interface variable and the register components it carries.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Link {
    /// The Input/Output variable.
    pub var: Id,
    /// Where its words live.
    pub home: Home,
    /// The register component that the variable's component 0 carries.
    pub first: u8,
    /// Register components copied (bit 0 = x).
    pub mask: u8,
    /// Component type of the variable.
    pub scalar: Scalar,
    /// Components of the variable (1 = scalar).
    pub width: u8,
    /// Conversion.
    pub kind: LinkKind,
    /// Geometry-shader output stream.
    pub stream: u8,
}

/// The stage interface of a module.
#[derive(Clone, Debug, Default)]
pub(crate) struct Io {
    /// Private input file: `uvec4[inputs]` (geometry: `uvec4[vertices][inputs]`).
    inputs: Option<Id>,
    /// Registers in the input file.
    input_count: u32,
    /// Vertices per input primitive (geometry shaders), else 0.
    vertices: u32,
    /// Vertices of the per-vertex Input variables: [`Io::vertices`], or those of the draw's
    /// primitive when the caller rewrites a geometry shader's input primitive.
    draw_vertices: u32,
    /// Private output file `uvec4[outputs + 1]` (the spare element takes out-of-range writes).
    outputs: Option<Id>,
    /// Registers in the output file.
    output_count: u32,
    /// The depth output the program writes (pixel shaders), found with the other special
    /// registers.
    depth: Option<ir::DepthOutput>,
    /// Links copied in at entry.
    input_links: Vec<Link>,
    /// Links copied out at exit or `emit`.
    output_links: Vec<Link>,
    /// Special input registers read in place: `vPrim`, `vGSInstanceID`, `vCoverage`,
    /// `vInnerCoverage`.
    special_inputs: [Option<Link>; 4],
    /// `oDepth*`, `oMask`, `oStencilRef`: their Private `uvec4`s.
    special_outputs: [Option<Id>; 3],
    /// `PointSize` output (vertex shaders, geometry shaders that emit points): D3D points are
    /// one pixel, and Vulkan requires the last pre-rasterization stage to write the size.
    point_size: Option<Id>,
    /// Geometry shaders: Private count of the vertices emitted so far (D3D drops emits past
    /// `dcl_maxout`; Vulkan leaves them undefined).
    emitted: Option<Id>,
    /// The geometry shader uses streams other than 0 (`emit_stream` and friends use the
    /// `Stream` instructions).
    streams: bool,
    /// Hull shaders: control points per output patch (`OutputVertices`), the length of the
    /// arrayed per-vertex outputs; else 0.
    output_vertices: u32,
    /// Hull shaders: the `InvocationId` input (`vOutputControlPointID`).
    invocation: Option<Id>,
    /// Hull shaders: Private `uvec4[output_vertices][outputs]` copy of the output control
    /// points for the fork and join phases (`vocp`), when they read it.
    output_points: Option<Id>,
    /// Hull shaders: Private `u32` instance id of the running fork or join phase.
    phase_instance: Option<Id>,
    /// Domain shaders: the `TessCoord` input (`vDomain`).
    tess_coord: Option<Id>,
    /// Patch constants (hull and domain shaders).
    patch: PatchIo,
}

impl Io {
    /// Hull shaders: the `InvocationId` input (`vOutputControlPointID`).
    pub(crate) fn invocation(&self) -> Option<Id> {
        self.invocation
    }

    /// Hull shaders: the Private `u32` instance id of the running fork or join phase.
    pub(crate) fn phase_instance(&self) -> Option<Id> {
        self.phase_instance
    }

    /// The geometry shader uses streams other than 0.
    pub(crate) fn streams(&self) -> bool {
        self.streams
    }

    /// The input links that carry register `v<register>`.
    pub(crate) fn register_inputs(&self, register: u32) -> impl Iterator<Item = &Link> {
        self.input_links
            .iter()
            .filter(move |l| l.home == Home::Register(register))
    }
}

/// Index of a special input in [`Io::special_inputs`].
pub(crate) fn special_input_slot(reg: &Reg) -> Option<usize> {
    match reg {
        Reg::PrimitiveId => Some(0),
        Reg::GsInstanceId => Some(1),
        Reg::InputCoverage => Some(2),
        Reg::InnerCoverage => Some(3),
        _ => None,
    }
}

/// Index of a special output in [`Io::special_outputs`].
pub(crate) fn special_output_slot(reg: &Reg) -> Option<usize> {
    match reg {
        Reg::OutputDepth(_) => Some(0),
        Reg::OutputCoverage => Some(1),
        Reg::OutputStencilRef => Some(2),
        _ => None,
    }
}

impl Emitter<'_> {
    /// Declares the interface variables and register files of a vertex, pixel or geometry
    /// shader.
    pub fn declare_io(&mut self) -> Result<(), Error> {
        let ir = self.ir;
        let stage = ir.stage;
        if stage == Stage::Compute {
            return Ok(());
        }
        let uvec4 = self.ty(Scalar::U32, 4);
        self.io.vertices = match stage {
            Stage::Geometry => ir.geometry.input_vertices().ok_or_else(|| {
                Error::invalid(
                    self.ir.program_span,
                    "geometry shader without dcl_inputprimitive",
                )
            })?,
            Stage::Hull | Stage::Domain => ir.tessellation.input_control_points.max(1),
            _ => 0,
        };
        self.io.draw_vertices = match (stage, self.options.linking.geometry_input) {
            (Stage::Geometry, Some(draw)) => draw.vertices(),
            _ => self.io.vertices,
        };
        if stage == Stage::Hull {
            self.io.output_vertices = ir.tessellation.output_control_points.max(1);
        }
        // Register files.
        let input_count = register_count(&ir.inputs, &ir.input_signature);
        let output_count = register_count(&ir.outputs, &ir.output_signature);
        if input_count > 0 {
            let mut ty = self.m.type_array_len(uvec4, input_count);
            if self.io.vertices > 0 {
                ty = self.m.type_array_len(ty, self.io.vertices);
            }
            let null = self.m.constant_null(ty);
            let var = self
                .m
                .global_variable(StorageClass::Private, ty, Some(null));
            self.m.name(var, "v");
            self.io.inputs = Some(var);
            self.io.input_count = input_count;
        }
        if output_count > 0 {
            let ty = self.m.type_array_len(uvec4, output_count + 1);
            let null = self.m.constant_null(ty);
            let var = self
                .m
                .global_variable(StorageClass::Private, ty, Some(null));
            self.m.name(var, "o");
            self.io.outputs = Some(var);
            self.io.output_count = output_count;
        }
        self.io.streams = stage == Stage::Geometry
            && (ir.outputs.iter().any(|d| d.stream != 0)
                || ir.insts.iter().any(|i| {
                    matches!(i.op, ir::Op::Emit | ir::Op::Cut | ir::Op::EmitThenCut)
                        && i.payload.stream() != 0
                }));
        if self.io.streams {
            self.m.capability(Capability::GeometryStreams);
        }
        let reads_vocp = stage == Stage::Hull
            && ir.insts.iter().any(|i| {
                i.src()
                    .iter()
                    .any(|s| matches!(s.reg, Reg::OutputControlPoint { .. }))
            });
        if stage == Stage::Hull && reads_vocp {
            let per_point = self.m.type_array_len(uvec4, output_count.max(1));
            let ty = self.m.type_array_len(per_point, self.io.output_vertices);
            let null = self.m.constant_null(ty);
            let var = self
                .m
                .global_variable(StorageClass::Private, ty, Some(null));
            self.m.name(var, "vocp");
            self.io.output_points = Some(var);
        }
        if stage == Stage::Geometry {
            let u = self.ty(Scalar::U32, 1);
            let zero = self.u32_const(0);
            let var = self.m.global_variable(StorageClass::Private, u, Some(zero));
            self.m.name(var, "emitted");
            self.io.emitted = Some(var);
        }
        self.declare_inputs(stage)?;
        self.declare_outputs(stage)?;
        self.declare_forced_sample_rate();
        self.declare_special_registers(stage)?;
        if matches!(stage, Stage::Hull | Stage::Domain) {
            self.declare_patch_io(stage)?;
        }
        Ok(())
    }

    /// A new Input or Output variable of type `ty`, arrayed per vertex for the inputs of
    /// geometry, hull and domain shaders and the outputs of hull shaders.
    pub(crate) fn interface_var(&mut self, storage: StorageClass, ty: Id) -> Id {
        let vertices = if storage == StorageClass::Input {
            self.io.draw_vertices
        } else {
            self.io.output_vertices
        };
        let ty = if vertices > 0 {
            self.m.type_array_len(ty, vertices)
        } else {
            ty
        };
        self.m.global_variable(storage, ty, None)
    }

    fn declare_inputs(&mut self, stage: Stage) -> Result<(), Error> {
        let ir = self.ir;
        let linking = self.options.linking;
        let elements = elements::user_elements(&ir.inputs, &ir.input_signature, true);
        for e in elements {
            let (location, written) = match linking.inputs {
                Some(inputs) => inputs
                    .get(e.register as usize)
                    .map_or((e.register, 0), |l| (l.location, l.written & 0xf)),
                None => (ir.input_location(e.register), 0xf),
            };
            // Components the previous stage does not write are not declared: the register
            // file starts as zeros, so they read 0 as in D3D.
            let runs = if stage == Stage::Vertex {
                // Vulkan fills the components a vertex format lacks with (0, 0, 0, 1) as D3D
                // does; only an attribute the input layout lacks altogether reads 0.
                if written == 0 {
                    Vec::new()
                } else {
                    vec![e.mask]
                }
            } else {
                elements::runs(e.mask & written)
            };
            let scalar = linking
                .input_types
                .get(location as usize)
                .copied()
                .flatten()
                .map_or(scalar_of(e.component_type), scalar_of);
            let flat = 1u32
                .checked_shl(location)
                .is_some_and(|bit| linking.flat_locations & bit != 0);
            let interpolation = if flat {
                ir::Interpolation::Constant
            } else {
                e.interpolation
            };
            for run in runs {
                let (width, first, mask) = if stage == Stage::Vertex {
                    // One vec4 per attribute register.
                    (4, 0, run)
                } else {
                    (run.count_ones() as u8, run.trailing_zeros() as u8, run)
                };
                let ty = self.ty(scalar, width);
                let var = self.interface_var(StorageClass::Input, ty);
                self.m.decorate_location(var, location);
                if first != 0 {
                    self.m
                        .decorate(var, Decoration::Component, &[u32::from(first)]);
                }
                if stage == Stage::Pixel {
                    self.interpolation(var, interpolation, scalar);
                }
                self.name_indexed(var, "in", e.register);
                self.io.input_links.push(Link {
                    var,
                    home: Home::Register(e.register),
                    first,
                    mask,
                    scalar,
                    width,
                    kind: LinkKind::Plain,
                    stream: 0,
                });
            }
        }
        self.declare_input_builtins(stage)
    }

    fn declare_outputs(&mut self, stage: Stage) -> Result<(), Error> {
        let ir = self.ir;
        let rasterized = self.rasterized_stream();
        let elements = elements::user_elements(&ir.outputs, &ir.output_signature, false);
        // Locations of streams that are not rasterized go past every rasterized one.
        let mut spare_location = elements
            .iter()
            .filter(|e| e.stream == rasterized)
            .map(|e| ir.output_location(e.register) + 1)
            .max()
            .unwrap_or(0);
        let multi_stream = self.io.streams;
        let mut whole_targets = Vec::new();
        for e in elements {
            // Pixel shaders: where the pipeline state puts the render target (none: dropped).
            let target = if stage == Stage::Pixel {
                match self.target_place(e.register)? {
                    Some(t) => Some(t),
                    None => continue,
                }
            } else {
                None
            };
            let mut width = e.mask.count_ones() as u8;
            let mut first = e.mask.trailing_zeros() as u8;
            let mut mask = e.mask;
            if target.is_some_and(|t| t.whole) {
                // A swizzled target is written as a whole vec4, once per register.
                if whole_targets.contains(&e.register) {
                    continue;
                }
                whole_targets.push(e.register);
                (width, first, mask) = (4, 0, 0xf);
            }
            let scalar = scalar_of(e.component_type);
            let ty = self.ty(scalar, width);
            let var = self.interface_var(StorageClass::Output, ty);
            let location = if let Some(t) = target {
                t.location
            } else if e.stream == rasterized {
                ir.output_location(e.register)
            } else {
                spare_location += 1;
                spare_location - 1
            };
            self.m.decorate_location(var, location);
            if let Some(index) = target.and_then(|t| t.index) {
                self.m.decorate(var, Decoration::Index, &[index]);
            }
            if first != 0 {
                self.m
                    .decorate(var, Decoration::Component, &[u32::from(first)]);
            }
            if multi_stream {
                self.m.capability(Capability::GeometryStreams);
                self.m
                    .decorate(var, Decoration::Stream, &[u32::from(e.stream)]);
            }
            self.name_indexed(var, "out", e.register);
            self.io.output_links.push(Link {
                var,
                home: Home::Register(e.register),
                first,
                mask,
                scalar,
                width,
                kind: LinkKind::Plain,
                stream: e.stream,
            });
        }
        self.declare_stream_output(spare_location);
        let points = stage == Stage::Vertex
            || stage == Stage::Geometry
                && super::stage::output_topology(&ir.geometry) == ir::OutputTopology::PointList
                && self.options.geometry_point_size
            // A domain shader does not know whether the tessellator emits points; writing the
            // size is harmless for other primitives.
            || stage == Stage::Domain && self.options.geometry_point_size;
        if points {
            let f = self.ty(Scalar::F32, 1);
            let var = self.m.global_variable(StorageClass::Output, f, None);
            self.m.decorate_builtin(var, BuiltIn::PointSize);
            if self.io.streams {
                let stream = u32::from(self.rasterized_stream());
                self.m.decorate(var, Decoration::Stream, &[stream]);
            }
            self.io.point_size = Some(var);
        }
        self.declare_output_builtins(stage)
    }

    /// Transform feedback: one output variable per captured run of components, at locations
    /// past every other output, decorated with its buffer, stride and offset.
    fn declare_stream_output(&mut self, mut location: u32) {
        let Some(so) = self.ir.stream_output.as_ref() else {
            return;
        };
        self.m.capability(Capability::TransformFeedback);
        for entry in &so.entries {
            let scalar = self
                .ir
                .output_signature
                .iter()
                .find(|e| e.register == entry.register && e.mask & (1 << entry.first) != 0)
                .map_or(Scalar::F32, |e| scalar_of(e.component_type));
            let ty = self.ty(scalar, entry.count);
            let var = self.m.global_variable(StorageClass::Output, ty, None);
            self.m.decorate_location(var, location);
            location += 1;
            let buffer = usize::from(entry.buffer);
            self.m
                .decorate(var, Decoration::XfbBuffer, &[u32::from(entry.buffer)]);
            self.m
                .decorate(var, Decoration::XfbStride, &[so.strides[buffer]]);
            self.m.decorate(var, Decoration::Offset, &[entry.offset]);
            if self.io.streams {
                self.m
                    .decorate(var, Decoration::Stream, &[u32::from(entry.stream)]);
            }
            self.name_indexed(var, "xfb", entry.register);
            let mask = ((1u8 << entry.count) - 1) << entry.first;
            self.io.output_links.push(Link {
                var,
                home: Home::Register(entry.register),
                first: entry.first,
                mask,
                scalar,
                width: entry.count,
                kind: LinkKind::Plain,
                stream: entry.stream,
            });
        }
    }

    /// The stream the rasterizer sees (0 unless the caller's stream output says otherwise).
    pub(crate) fn rasterized_stream(&self) -> u8 {
        self.ir
            .stream_output
            .as_ref()
            .and_then(|so| so.rasterized_stream)
            .unwrap_or(0)
    }

    /// Interpolation decorations of a pixel-shader input.
    fn interpolation(&mut self, var: Id, mode: ir::Interpolation, scalar: Scalar) {
        let flat = mode == ir::Interpolation::Constant || scalar != Scalar::F32;
        if flat {
            self.m.decorate(var, Decoration::Flat, &[]);
            return;
        }
        if mode.no_perspective() {
            self.m.decorate(var, Decoration::NoPerspective, &[]);
        }
        let forced = self.forced_sample_rate();
        if mode.centroid() && !forced {
            self.m.decorate(var, Decoration::Centroid, &[]);
        }
        if mode.sample() || forced {
            self.m.capability(Capability::SampleRateShading);
            self.m.decorate(var, Decoration::Sample, &[]);
        }
    }

    /// A built-in variable of type `ty`.
    pub(crate) fn builtin_var(&mut self, storage: StorageClass, ty: Id, builtin: BuiltIn) -> Id {
        let var = self.interface_var(storage, ty);
        self.m.decorate_builtin(var, builtin);
        var
    }

    /// Declares an extension when the SPIR-V version does not have it in core.
    pub(crate) fn extension_before(&mut self, core: Version, name: &str) {
        if self.m.version() < core {
            self.m.extension(name);
        }
    }
}

/// Which vertex of the draw's primitive each vertex of a geometry shader's declared primitive
/// reads, as `(shader vertex, draw vertex)`; vertices not listed read 0. The same primitive
/// maps vertex to vertex; a primitive and its adjacency form map the primitive's own vertices
/// (line `0, 1` = line-with-adjacency `1, 2`; triangle `0, 1, 2` = triangle-with-adjacency
/// `0, 2, 4`, as D3D and Vulkan order them); any other pair maps vertex `i` to vertex `i`
/// for the vertices both have.
pub(crate) fn geometry_vertex_map(
    shader: ir::InputPrimitive,
    draw: ir::InputPrimitive,
) -> Vec<(u32, u32)> {
    use ir::InputPrimitive::{Line, LineAdj, Triangle, TriangleAdj};
    match (shader, draw) {
        (Line, LineAdj) => vec![(0, 1), (1, 2)],
        (LineAdj, Line) => vec![(1, 0), (2, 1)],
        (Triangle, TriangleAdj) => vec![(0, 0), (1, 2), (2, 4)],
        (TriangleAdj, Triangle) => vec![(0, 0), (2, 1), (4, 2)],
        _ => (0..shader.vertices().min(draw.vertices()))
            .map(|v| (v, v))
            .collect(),
    }
}

/// Registers in a file: one past the highest declared or signature register.
fn register_count(decls: &[ir::IoDecl], sig: &[ir::SignatureElement]) -> u32 {
    let declared = decls.iter().map(|d| d.register + 1).max().unwrap_or(0);
    let signed = sig
        .iter()
        .filter(|e| e.register < ir::MAX_IO_REGISTERS)
        .map(|e| e.register + 1)
        .max()
        .unwrap_or(0);
    declared.max(signed)
}

/// The variable type of a signature component type.
pub(crate) fn scalar_of(t: ir::ComponentType) -> Scalar {
    match t {
        ir::ComponentType::Float => Scalar::F32,
        ir::ComponentType::Uint => Scalar::U32,
        ir::ComponentType::Sint => Scalar::I32,
    }
}

#[cfg(test)]
mod tests;
