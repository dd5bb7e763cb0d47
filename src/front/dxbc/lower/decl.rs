//! Declarations (`dcl_*` and the immediate constant buffer) → the module's tables.
//!
//! Contract: each declaration appends to one table of [`ir::Module`] and records the DXBC id it
//! is named by (register number in SM5.0, range id in SM5.1) in the matching lookup of the
//! [`Lowerer`], so that operands resolve to table positions. A declaration that names an id
//! twice, exceeds a D3D11 limit (temps, indexable-temp elements, immediate constant buffer,
//! shared memory, thread-group size, constant-buffer size) or carries an unknown dimension or
//! return type is [`Error::Invalid`]; class linkage (`dcl_function_body`, `dcl_function_table`,
//! `dcl_interface`) is recorded by `class_linkage.rs`. Inputs and outputs of every stage, geometry-shader
//! and tessellator declarations and hull-shader phases are recorded (`io.rs`, `hull.rs`).
//! Every declaration's tokens are read by the front end's shared decoder
//! ([`Declaration::decode`], the reflection's too) and converted into the IR's types here.

use std::collections::BTreeMap;

use super::Error;
use super::{
    Lowerer, MAX_ICB_VEC4S, MAX_INDEXABLE_ELEMENTS, MAX_TEMPS, MAX_TGSM_BYTES,
    MAX_THREADS_PER_GROUP,
};
use crate::front::dxbc::decl::{self, Binding, DeclError, Declaration, Dwords, Shape, View};
use crate::front::dxbc::opcodes::{Class, Opcode};
use crate::front::dxbc::operand::Operand;
use crate::front::dxbc::reflect::{
    GlobalFlags, IndexableTemp, ResourceDimension, ReturnType, SamplerMode, TgsmKind,
};
use crate::front::dxbc::Instruction;
use crate::ir;
use crate::ir::binding::{Count, RegisterRange, ResourceKind};

/// Largest constant buffer, in 16-byte vectors (D3D11: 4096).
const MAX_CB_VEC4S: u32 = 4096;

/// Largest structure stride of structured buffers (D3D11: 2048 bytes).
const MAX_STRIDE: u32 = 2048;

/// True for the opcodes [`Lowerer::declare`] handles (`dcl_*`, hull-shader phase markers).
pub(super) fn is_declaration(opcode: Opcode) -> bool {
    opcode.class() == Class::Declaration
}

/// The lowering's message for a shared declaration-decoding error.
fn decl_error(at: u32, error: DeclError) -> Error {
    match error {
        DeclError::NoOperand => Error::invalid(at, "declaration without an operand"),
        DeclError::IndexCount { found, expected } => Error::invalid(
            at,
            format!("operand has {found} indices, expected {expected}"),
        ),
        DeclError::RelativeIndex => Error::invalid(at, "relative index in a declaration"),
        DeclError::IndexOver32Bits => Error::invalid(at, "index over 32 bits"),
        DeclError::UpperBelowLower { lower, upper } => {
            Error::invalid(at, format!("range [{lower}:{upper}] ends before it starts"))
        }
    }
}

/// The immediate indices of a declared operand (exactly `N`, no relative parts, each fitting
/// 32 bits).
fn indices<const N: usize>(inst: &Instruction<'_>, op: &Operand) -> Result<[u32; N], Error> {
    decl::exact::<N>(op).map_err(|e| decl_error(inst.offset, e))
}

/// Records `id → position` in `lookup`; a second declaration of `id` is invalid.
fn record(
    lookup: &mut BTreeMap<u32, u32>,
    id: u32,
    position: usize,
    inst: &Instruction<'_>,
    what: &str,
) -> Result<u32, Error> {
    let position = u32::try_from(position)
        .map_err(|_| Error::invalid(inst.offset, "too many declarations"))?;
    if lookup.insert(id, position).is_some() {
        return Err(Error::invalid(
            inst.offset,
            format!("{what}{id} is declared twice"),
        ));
    }
    Ok(position)
}

/// The IR dimension of a typed resource declaration.
pub(super) fn dimension(dimension: ResourceDimension, at: u32) -> Result<ir::Dimension, Error> {
    use ir::Dimension as D;
    Ok(match dimension {
        ResourceDimension::Buffer => D::Buffer,
        ResourceDimension::Texture1D => D::Texture1D,
        ResourceDimension::Texture1DArray => D::Texture1DArray,
        ResourceDimension::Texture2D => D::Texture2D,
        ResourceDimension::Texture2DArray => D::Texture2DArray,
        ResourceDimension::Texture2DMs => D::Texture2DMS,
        ResourceDimension::Texture2DMsArray => D::Texture2DMSArray,
        ResourceDimension::Texture3D => D::Texture3D,
        ResourceDimension::TextureCube => D::TextureCube,
        ResourceDimension::TextureCubeArray => D::TextureCubeArray,
        other => {
            return Err(Error::invalid(
                at,
                format!("typed resource of dimension {other}"),
            ))
        }
    })
}

/// The IR's return types of a typed resource declaration.
pub(super) fn return_types(types: [ReturnType; 4], at: u32) -> Result<[ir::ReturnType; 4], Error> {
    let mut out = [ir::ReturnType::Float; 4];
    for (slot, ret) in out.iter_mut().zip(types) {
        *slot = match ret {
            ReturnType::Unorm => ir::ReturnType::Unorm,
            ReturnType::Snorm => ir::ReturnType::Snorm,
            ReturnType::Sint => ir::ReturnType::Sint,
            ReturnType::Uint => ir::ReturnType::Uint,
            ReturnType::Float => ir::ReturnType::Float,
            ReturnType::Mixed => ir::ReturnType::Mixed,
            ReturnType::Double => ir::ReturnType::Double,
            ReturnType::Continued => ir::ReturnType::Continued,
            ReturnType::Unused => ir::ReturnType::Unused,
            ReturnType::Unknown(code) => {
                return Err(Error::invalid(at, format!("resource return type {code}")))
            }
        };
    }
    Ok(out)
}

/// The IR's flags for a `dcl_globalFlags` declaration; bits no flag names are dropped.
fn global_flags(flags: GlobalFlags) -> ir::GlobalFlags {
    use ir::GlobalFlags as F;
    let mut out = F::NONE;
    for (set, flag) in [
        (flags.refactoring_allowed(), F::REFACTORING_ALLOWED),
        (flags.double_precision(), F::DOUBLES),
        (flags.force_early_depth_stencil(), F::EARLY_DEPTH_STENCIL),
        (
            flags.raw_and_structured_buffers(),
            F::RAW_AND_STRUCTURED_BUFFERS,
        ),
        (flags.skip_optimization(), F::SKIP_OPTIMIZATION),
        (flags.minimum_precision(), F::MINIMUM_PRECISION),
        (flags.double_extensions_11_1(), F::DOUBLE_EXTENSIONS_11_1),
        (flags.shader_extensions_11_1(), F::SHADER_EXTENSIONS_11_1),
        (flags.all_resources_bound(), F::ALL_RESOURCES_BOUND),
    ] {
        if set {
            out.insert(flag);
        }
    }
    out
}

/// Checks a structure stride: a positive multiple of 4, at most `max`.
fn check_stride(stride: u32, max: u32, at: u32) -> Result<u32, Error> {
    if stride == 0 || stride % 4 != 0 || stride > max {
        return Err(Error::invalid(
            at,
            format!("structure stride {stride} (must be a multiple of 4 from 4 to {max})"),
        ));
    }
    Ok(stride)
}

impl Lowerer {
    /// Lowers one declaration. Kept out of line: declarations are few, and inlined into the
    /// per-instruction loop they slow the lowering of every executable instruction.
    #[inline(never)]
    pub(super) fn declare(&mut self, inst: &Instruction<'_>) -> Result<(), Error> {
        let at = inst.offset;
        let Some(declaration) = Declaration::decode(inst).map_err(|e| decl_error(at, e))? else {
            return Err(Error::invalid(
                at,
                format!("{} is not a declaration", inst.opcode.name()),
            ));
        };
        match declaration {
            Declaration::ImmediateConstantBuffer(dwords) => {
                self.immediate_constant_buffer(inst, dwords)?
            }
            Declaration::Temps(n) => {
                if n > MAX_TEMPS {
                    return Err(Error::invalid(
                        at,
                        format!("{n} temps exceeds the limit {MAX_TEMPS}"),
                    ));
                }
                self.module.temps = self.module.temps.max(n);
            }
            Declaration::IndexableTemp(temp) => self.indexable_temp(inst, temp)?,
            Declaration::GlobalFlags(flags) => self.module.global_flags = global_flags(flags),
            Declaration::ThreadGroup(size) => self.thread_group(inst, size)?,
            Declaration::ConstantBuffer {
                operand,
                dynamic_indexed,
                sm51_size,
            } => self.constant_buffer(inst, operand, dynamic_indexed, sm51_size)?,
            Declaration::Resource {
                operand,
                view,
                shape,
            } => self.resource(inst, operand, view, shape)?,
            Declaration::Sampler { operand, mode } => self.sampler(inst, operand, mode)?,
            Declaration::Tgsm { operand, kind } => self.tgsm(inst, operand, kind)?,
            Declaration::Io(io) => self.io(inst, &io)?,
            // A hint that a range of inputs or outputs is indexed dynamically; operands carry
            // their own indices.
            Declaration::IndexRange { .. } => {}
            Declaration::InputPrimitive(_)
            | Declaration::OutputTopology(_)
            | Declaration::MaxOutputVertices(_)
            | Declaration::GsInstances(_)
            | Declaration::Stream(_) => self.geometry_declaration(inst, &declaration)?,
            Declaration::Phase(kind) => self.phase(inst, kind)?,
            Declaration::PhaseInstanceCount { .. }
            | Declaration::MaxTessFactor(_)
            | Declaration::TessPartitioning(_)
            | Declaration::TessOutputPrimitive(_)
            | Declaration::OutputControlPoints(_)
            | Declaration::TessDomain(_)
            | Declaration::InputControlPoints(_) => {
                self.tessellation_declaration(inst, &declaration)?
            }
            // Bodies are numbered by their `label fb#`; tables name them.
            Declaration::FunctionBody => {}
            Declaration::FunctionTable { id, bodies } => {
                self.function_table(inst, id, bodies.iter())?
            }
            Declaration::Interface {
                id,
                table_length,
                array_length,
                function_tables,
                dynamically_indexed: _,
            } => self.interface(inst, id, array_length, table_length, function_tables.iter())?,
        }
        Ok(())
    }

    /// `customdata`: the immediate constant buffer; comments, debug info and other blocks are
    /// dropped.
    pub(super) fn custom_data(&mut self, inst: &Instruction<'_>) -> Result<(), Error> {
        match Declaration::decode(inst).map_err(|e| decl_error(inst.offset, e))? {
            Some(Declaration::ImmediateConstantBuffer(dwords)) => {
                self.immediate_constant_buffer(inst, dwords)
            }
            _ => Ok(()),
        }
    }

    fn immediate_constant_buffer(
        &mut self,
        inst: &Instruction<'_>,
        dwords: Dwords<'_>,
    ) -> Result<(), Error> {
        if !self.module.icb.is_empty() {
            return Err(Error::invalid(
                inst.offset,
                "second immediate constant buffer",
            ));
        }
        let vec4s = dwords.len().div_ceil(4);
        if vec4s > MAX_ICB_VEC4S {
            return Err(Error::invalid(
                inst.offset,
                format!(
                    "{vec4s} immediate constant buffer vectors exceeds the limit {MAX_ICB_VEC4S}"
                ),
            ));
        }
        if vec4s == 0 {
            return Err(Error::invalid(
                inst.offset,
                "empty immediate constant buffer",
            ));
        }
        self.module.icb.reserve_exact(vec4s * 4);
        self.module.icb.extend(dwords.iter());
        self.module.icb.resize(vec4s * 4, 0);
        Ok(())
    }

    fn indexable_temp(&mut self, inst: &Instruction<'_>, temp: IndexableTemp) -> Result<(), Error> {
        let at = inst.offset;
        let IndexableTemp {
            register,
            size: len,
            components,
        } = temp;
        if len == 0 || !(1..=4).contains(&components) {
            return Err(Error::invalid(
                at,
                format!("dcl_indexableTemp x{register}[{len}], {components}"),
            ));
        }
        self.indexable_elements += u64::from(len);
        if self.indexable_elements > MAX_INDEXABLE_ELEMENTS {
            return Err(Error::invalid(
                at,
                format!(
                    "{} indexable temp elements in all exceeds the limit {MAX_INDEXABLE_ELEMENTS}",
                    self.indexable_elements
                ),
            ));
        }
        let position = self.module.indexable_temps.len();
        record(&mut self.lookup_indexable, register, position, inst, "x")?;
        self.module.indexable_temps.push(ir::IndexableTemp {
            register,
            len,
            components: components as u8,
        });
        Ok(())
    }

    fn thread_group(&mut self, inst: &Instruction<'_>, size: [u32; 3]) -> Result<(), Error> {
        let at = inst.offset;
        if self.thread_group_at.replace(at).is_some() {
            return Err(Error::invalid(at, "second dcl_thread_group"));
        }
        let [x, y, z] = size.map(u64::from);
        if x == 0 || y == 0 || z == 0 {
            return Err(Error::invalid(
                at,
                format!("thread group {x} × {y} × {z} has no threads"),
            ));
        }
        let fits = x <= 1024 && y <= 1024 && z <= 64 && x * y * z <= MAX_THREADS_PER_GROUP;
        if !fits {
            return Err(Error::invalid(
                at,
                format!(
                    "thread group {x} × {y} × {z} exceeds the limits 1024 × 1024 × 64 and \
                     {MAX_THREADS_PER_GROUP} threads in all"
                ),
            ));
        }
        self.module.thread_group = size;
        Ok(())
    }

    /// The DXBC id and register range of a CB/SRV/UAV/sampler declaration: `[id][lower][upper]`
    /// in a register space in SM5.1, the register itself before (plus the size of a constant
    /// buffer as a second index).
    fn range(
        &self,
        inst: &Instruction<'_>,
        op: &Operand,
        kind: ResourceKind,
    ) -> Result<(u32, RegisterRange), Error> {
        if self.version.is_sm51() {
            let binding = Binding::sm51(inst, indices::<3>(inst, op)?)
                .map_err(|e| decl_error(inst.offset, e))?;
            let count = match binding.count {
                None => Count::Unbounded,
                Some(n) => Count::Bounded(n),
            };
            let range = RegisterRange::new(kind, binding.space, binding.lower, count);
            return Ok((binding.id, range));
        }
        let register = if kind == ResourceKind::ConstantBuffer {
            indices::<2>(inst, op)?[0]
        } else {
            indices::<1>(inst, op)?[0]
        };
        let binding = Binding::single(register);
        Ok((
            binding.id,
            RegisterRange::single(kind, binding.space, binding.lower),
        ))
    }

    fn constant_buffer(
        &mut self,
        inst: &Instruction<'_>,
        op: &Operand,
        dynamic: bool,
        sm51_size: Option<u32>,
    ) -> Result<(), Error> {
        let at = inst.offset;
        let (id, range) = self.range(inst, op, ResourceKind::ConstantBuffer)?;
        let size = if self.version.is_sm51() {
            sm51_size.unwrap_or(0)
        } else {
            indices::<2>(inst, op)?[1]
        };
        if size > MAX_CB_VEC4S {
            return Err(Error::invalid(
                at,
                format!("{size} constant buffer vectors exceeds the limit {MAX_CB_VEC4S}"),
            ));
        }
        let position = self.module.cbuffers.len();
        record(&mut self.lookup_cbuffer, id, position, inst, "cb")?;
        self.module.cbuffers.push(ir::CbDecl {
            range,
            id,
            size,
            dynamic,
            binding: None,
            span: at,
        });
        Ok(())
    }

    fn resource(
        &mut self,
        inst: &Instruction<'_>,
        op: &Operand,
        view: View,
        shape: Shape,
    ) -> Result<(), Error> {
        let at = inst.offset;
        let (kind, flags) = match view {
            View::ShaderResource => (ResourceKind::ShaderResource, None),
            View::UnorderedAccess(flags) => (ResourceKind::UnorderedAccess, Some(flags)),
        };
        let shape = match shape {
            Shape::Typed {
                dimension: dim,
                return_types: ret,
                sample_count,
            } => ir::ResourceShape::Typed {
                dim: dimension(dim, at)?,
                ret: return_types(ret, at)?,
                samples: sample_count.unwrap_or(0),
            },
            Shape::Raw => ir::ResourceShape::Raw,
            Shape::Structured { stride } => ir::ResourceShape::Structured {
                stride: check_stride(stride, MAX_STRIDE, at)?,
            },
        };
        let (id, range) = self.range(inst, op, kind)?;
        let position = self.module.resources.len();
        let (lookup, letter) = match view {
            View::UnorderedAccess(_) => (&mut self.lookup_uav, "u"),
            View::ShaderResource => (&mut self.lookup_srv, "t"),
        };
        record(lookup, id, position, inst, letter)?;
        self.module.resources.push(ir::ResourceDecl {
            range,
            id,
            shape,
            coherent: flags.is_some_and(|f| f.globally_coherent),
            rasterizer_ordered: flags.is_some_and(|f| f.rasterizer_ordered),
            // Set where the shader uses the counter.
            counter: false,
            binding: None,
            counter_binding: None,
            view_of: None,
            span: at,
        });
        Ok(())
    }

    fn sampler(
        &mut self,
        inst: &Instruction<'_>,
        op: &Operand,
        mode: SamplerMode,
    ) -> Result<(), Error> {
        let (id, range) = self.range(inst, op, ResourceKind::Sampler)?;
        let position = self.module.samplers.len();
        record(&mut self.lookup_sampler, id, position, inst, "s")?;
        self.module.samplers.push(ir::SamplerDecl {
            range,
            id,
            comparison: mode == SamplerMode::Comparison,
            binding: None,
            span: inst.offset,
        });
        Ok(())
    }

    fn tgsm(&mut self, inst: &Instruction<'_>, op: &Operand, kind: TgsmKind) -> Result<(), Error> {
        let at = inst.offset;
        if self.module.stage != ir::Stage::Compute {
            return Err(Error::invalid(
                at,
                "thread-group shared memory outside a compute shader",
            ));
        }
        let [register] = indices::<1>(inst, op)?;
        let (stride, bytes) = match kind {
            TgsmKind::Raw { bytes } => {
                if bytes == 0 || bytes % 4 != 0 {
                    return Err(Error::invalid(
                        at,
                        format!(
                            "shared memory of {bytes} bytes (must be a positive multiple of 4)"
                        ),
                    ));
                }
                (0, u64::from(bytes))
            }
            TgsmKind::Structured { stride, count } => {
                // Shared memory is bounded as a whole, not per structure.
                let stride = check_stride(stride, MAX_TGSM_BYTES as u32, at)?;
                if count == 0 {
                    return Err(Error::invalid(at, "shared memory of 0 structures"));
                }
                (stride, u64::from(stride) * u64::from(count))
            }
        };
        self.tgsm_bytes += bytes;
        if self.tgsm_bytes > MAX_TGSM_BYTES {
            return Err(Error::invalid(
                at,
                format!(
                    "{} shared memory bytes in all exceeds the limit {MAX_TGSM_BYTES}",
                    self.tgsm_bytes
                ),
            ));
        }
        let position = self.module.tgsm.len();
        record(&mut self.lookup_tgsm, register, position, inst, "g")?;
        self.module.tgsm.push(ir::Tgsm {
            register,
            stride,
            // At most MAX_TGSM_BYTES / 4, so it fits.
            words: (bytes / 4) as u32,
            span: at,
        });
        Ok(())
    }
}
