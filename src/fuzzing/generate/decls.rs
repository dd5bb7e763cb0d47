//! Declarations shared by every stage: global flags, the immediate constant buffer, constant
//! buffers, samplers, resources, UAVs, interfaces and temps.
//!
//! Contract: every declaration is recorded in the [`Registry`](super::registry::Registry);
//! registers never collide within a register type and space (SM5.1 ranges included, an
//! unbounded range closing its space), and stay within D3D's register counts. The encodable
//! profile also writes values a shader model does not allow (any global flags, empty immediate
//! constant buffers, mixed return types, any sample count, interfaces); the translatable profile
//! keeps to the rules: global flags that enable what the program uses, return types `unorm` to
//! `float`, texture cube arrays from SM4.1, one raw or structured UAV in `cs_4_x`, no class
//! linkage.

use super::registry::{Binding, Cbuffer, IndexableTemp, Resource, Sampler, Shape};
use super::{Gen, TEMPS};
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::operand::{Components, Operand, RegisterType as R};
use crate::front::dxbc::program::Stage;
use crate::front::dxbc::reflect::{ResourceDimension as Dim, ReturnType};
use crate::text::dxbc::encode::token::{self as tok, controls};
use crate::text::dxbc::encode::{reg, OperandBuild, ProgramBuilder};

use Opcode as O;

/// `dcl_globalFlags` bits (in the controls field).
const DOUBLES: u32 = 1 << 1;
const EARLY_DEPTH_STENCIL: u32 = 1 << 2;
const RAW_AND_STRUCTURED_BUFFERS: u32 = 1 << 3;
const MINIMUM_PRECISION: u32 = 1 << 5;
const DOUBLE_EXTENSIONS: u32 = 1 << 6;

/// D3D11's register counts: constant buffers, samplers, shader resource views, UAVs.
const CBUFFER_SLOTS: u32 = 14;
const SAMPLER_SLOTS: u32 = 16;
const SRV_SLOTS: u32 = 128;
const UAV_SLOTS: u32 = 8;

/// A declared binding: what operands name, the declaration's operand and its register space.
struct Declared {
    binding: Binding,
    operand: Operand,
    space: Option<u32>,
}

impl Gen<'_> {
    /// Reserves a binding of `ty` numbered `id` below register `slots`: in SM5.1 a range
    /// `T#[lower:upper]` (unbounded at times) in a random space, before it the next free
    /// register. `None` when no register is left.
    fn reserve(&mut self, ty: R, id: u32, slots: u32) -> Option<Declared> {
        let gap = self.rng.below32(3);
        if !self.sm51() {
            let register = self.declared.reserve(ty, 0, gap, Some(1))?;
            return (register < slots).then(|| Declared {
                binding: Binding {
                    id: register,
                    lower: register,
                    count: Some(1),
                },
                operand: reg(ty, &[register]),
                space: None,
            });
        }
        let space = self.rng.pick(&[0, 0, 1, 2, 7, 1000]);
        let count = if self.rng.chance(25) {
            None
        } else {
            Some(1 + self.rng.below32(8))
        };
        let lower = self.declared.reserve(ty, space, gap, count)?;
        let upper = count.map_or(u32::MAX, |n| lower + n - 1);
        let mut operand = reg(ty, &[id, lower, upper]);
        operand.components = Components::Swizzle([0, 1, 2, 3]);
        Some(Declared {
            binding: Binding { id, lower, count },
            operand,
            space: Some(space),
        })
    }

    /// The packed return type of a typed declaration, and the type of its first component.
    fn return_type(&mut self) -> (u32, ReturnType) {
        if self.valid() {
            let ty = self.rng.range(1, 5);
            return (
                tok::return_types([ty; 4]).expect("return types"),
                ReturnType::from_raw(ty),
            );
        }
        let ty = self.rng.range(1, 9);
        let types = if self.rng.chance(70) {
            [ty; 4]
        } else {
            [0; 4].map(|_| self.rng.range(1, 9))
        };
        let packed = tok::return_types(types).expect("return types");
        (packed, ReturnType::from_raw(types[0]))
    }

    /// The `dcl_globalFlags` bits: any in the encodable profile, else those the program needs.
    fn global_flags(&mut self) -> u32 {
        if !self.valid() {
            return self.rng.range(1, 0x1ff);
        }
        let mut flags = self.rng.below32(2) * controls::REFACTORING_ALLOWED;
        if self.doubles {
            flags |= DOUBLES | DOUBLE_EXTENSIONS;
        }
        if self.min_precision {
            flags |= MINIMUM_PRECISION;
        }
        if self.v.stage == Stage::Pixel && self.rng.chance(20) {
            flags |= EARLY_DEPTH_STENCIL;
        }
        if self.v.stage == Stage::Compute && self.v.major == 4 {
            flags |= RAW_AND_STRUCTURED_BUFFERS;
        }
        flags
    }

    /// Declarations shared by every stage (`dcl_globalFlags`, buffers, textures, samplers,
    /// UAVs, the immediate constant buffer, interfaces).
    pub(super) fn resource_decls(&mut self, b: &mut ProgramBuilder) {
        if self.rng.chance(70) || (self.valid() && self.needs_global_flags()) {
            let flags = self.global_flags();
            if flags != 0 {
                self.op(b, O::DclGlobalFlags, flags);
            }
        }
        if self.rng.chance(30) {
            let rows = self.rng.range(u32::from(self.valid()), 4);
            let payload: Vec<u32> = (0..rows * 4)
                .map(|_| {
                    if self.lossless {
                        self.value32(false)
                    } else if self.rng.chance(50) {
                        self.exact_float()
                    } else {
                        self.exact_int()
                    }
                })
                .collect();
            self.coverage[O::CustomData as usize] += 1;
            b.custom_data(3, &payload);
            self.declared.icb_rows = rows;
        }
        self.constant_buffers(b);
        self.sampler_decls(b);
        self.typed_resources(b);
        if self.v.major >= 5 || self.v.stage == Stage::Compute {
            self.buffers(b);
            self.uavs(b);
        }
        if (self.v.major, self.v.minor) == (5, 0) && !self.valid() && self.rng.chance(30) {
            self.interface_decls(b);
        }
    }

    /// Whether the translatable program needs `dcl_globalFlags` whatever the draw.
    fn needs_global_flags(&self) -> bool {
        self.doubles || self.min_precision || (self.v.stage, self.v.major) == (Stage::Compute, 4)
    }

    fn constant_buffers(&mut self, b: &mut ProgramBuilder) {
        for _ in 0..self.rng.below32(3) {
            let id = self.declared.cbuffers.len() as u32;
            let dynamic = if self.rng.chance(30) {
                controls::CB_DYNAMIC
            } else {
                0
            };
            let vectors = self.rng.range(1, 4096);
            let Some(d) = self.reserve(R::ConstantBuffer, id, CBUFFER_SLOTS) else {
                continue;
            };
            self.op(b, O::DclConstantBuffer, dynamic);
            if self.sm51() {
                b.src(d.operand).cb_size(vectors);
            } else {
                let register = d.binding.id;
                b.src(reg(R::ConstantBuffer, &[register, vectors]).swizzle([0, 1, 2, 3]));
            }
            self.space(b, d.space);
            self.declared.cbuffers.push(Cbuffer {
                binding: d.binding,
                vectors,
            });
        }
    }

    fn space(&mut self, b: &mut ProgramBuilder, space: Option<u32>) {
        if let Some(space) = space {
            b.space(space);
        }
    }

    fn sampler_decls(&mut self, b: &mut ProgramBuilder) {
        for _ in 0..self.rng.below32(3) {
            let id = self.declared.samplers.len() as u32;
            let mode = self.rng.below32(if self.valid() { 2 } else { 3 });
            let Some(d) = self.reserve(R::Sampler, id, SAMPLER_SLOTS) else {
                continue;
            };
            self.op(b, O::DclSampler, mode);
            b.dst(d.operand);
            self.space(b, d.space);
            self.declared.samplers.push(Sampler {
                binding: d.binding,
                comparison: mode == 1,
            });
        }
    }

    /// `dcl_resource`: typed buffers and textures.
    fn typed_resources(&mut self, b: &mut ProgramBuilder) {
        for _ in 0..self.rng.below32(4) {
            let id = self.declared.srvs.len() as u32;
            let cube_arrays = !self.valid() || (self.v.major, self.v.minor) >= (4, 1);
            let dim = self.rng.range(1, if cube_arrays { 10 } else { 9 });
            let mut bits = controls::resource_dimension(dim);
            if Dim::from_raw(dim).is_multisampled() {
                let samples = if self.valid() {
                    self.rng.pick(&[1, 2, 4, 8, 16])
                } else {
                    self.rng.below32(33)
                };
                bits |= controls::sample_count(samples);
            }
            let Some(d) = self.reserve(R::Resource, id, SRV_SLOTS) else {
                continue;
            };
            let (packed, ret) = self.return_type();
            self.op(b, O::DclResource, bits);
            b.dst(d.operand).return_type(packed);
            self.space(b, d.space);
            let shape = Shape::Typed {
                dim: Dim::from_raw(dim),
                ret,
            };
            self.declared.srvs.push(Resource {
                binding: d.binding,
                shape,
            });
        }
    }

    /// `dcl_resource_raw`, `dcl_resource_structured`.
    fn buffers(&mut self, b: &mut ProgramBuilder) {
        for _ in 0..self.rng.below32(3) {
            let id = self.declared.srvs.len() as u32;
            let Some(d) = self.reserve(R::Resource, id, SRV_SLOTS) else {
                continue;
            };
            let shape = if self.rng.chance(50) {
                self.op(b, O::DclResourceRaw, 0);
                b.dst(d.operand);
                Shape::Raw
            } else {
                let stride = 4 * self.rng.range(1, 512);
                self.op(b, O::DclResourceStructured, 0);
                b.dst(d.operand).imm(stride);
                Shape::Structured {
                    stride,
                    counter: false,
                }
            };
            self.space(b, d.space);
            self.declared.srvs.push(Resource {
                binding: d.binding,
                shape,
            });
        }
    }

    /// `dcl_uav_raw`, `dcl_uav_structured`, `dcl_uav_typed` (`cs_4_x`: one raw or structured
    /// UAV, `u0`, in the translatable profile).
    fn uavs(&mut self, b: &mut ProgramBuilder) {
        let v = self.v;
        let sm4 = v.major == 4;
        let count = self.rng.below32(4);
        let count = if sm4 && self.valid() {
            count.min(1)
        } else {
            count
        };
        for _ in 0..count {
            let id = self.declared.uavs.len() as u32;
            let slots = if sm4 && self.valid() { 1 } else { UAV_SLOTS };
            let Some(d) = self.reserve(R::UnorderedAccessView, id, slots) else {
                continue;
            };
            let mut bits = 0;
            if self.rng.chance(30) {
                bits |= controls::GLOBALLY_COHERENT;
            }
            if v.stage == Stage::Pixel && v.major >= 5 && self.rng.chance(20) {
                bits |= controls::RASTERIZER_ORDERED;
            }
            let shape = match self.rng.below32(if sm4 { 2 } else { 3 }) {
                0 => {
                    self.op(b, O::DclUavRaw, bits);
                    b.dst(d.operand);
                    Shape::Raw
                }
                1 => {
                    let counter = self.rng.chance(30);
                    if counter {
                        bits |= controls::UAV_HAS_COUNTER;
                    }
                    let stride = 4 * self.rng.range(1, 512);
                    self.op(b, O::DclUavStructured, bits);
                    b.dst(d.operand).imm(stride);
                    Shape::Structured { stride, counter }
                }
                _ => {
                    let dim = self.rng.pick(&[1, 2, 3, 5, 7, 8]);
                    bits |= controls::resource_dimension(dim);
                    let (packed, ret) = self.return_type();
                    self.op(b, O::DclUavTyped, bits);
                    b.dst(d.operand).return_type(packed);
                    Shape::Typed {
                        dim: Dim::from_raw(dim),
                        ret,
                    }
                }
            };
            self.space(b, d.space);
            self.declared.uavs.push(Resource {
                binding: d.binding,
                shape,
            });
        }
    }

    /// `dcl_function_body`, `dcl_function_table`, `dcl_interface` (SM5.0 only).
    fn interface_decls(&mut self, b: &mut ProgramBuilder) {
        let bodies = self.rng.range(1, 4);
        for i in 0..bodies {
            self.op(b, O::DclFunctionBody, 0);
            b.imm(i);
        }
        let tables = self.rng.range(1, 3);
        for t in 0..tables {
            let list: Vec<u32> = (0..self.rng.range(1, 3))
                .map(|_| self.rng.below32(bodies))
                .collect();
            self.op(b, O::DclFunctionTable, 0);
            b.imm(t).imm(list.len() as u32).list(&list);
        }
        for id in 0..self.rng.range(1, 2) {
            let array = self.rng.range(1, 3);
            let table_len = self.rng.range(1, 3);
            let list: Vec<u32> = (0..self.rng.range(1, 3))
                .map(|_| self.rng.below32(tables))
                .collect();
            let indexed = u32::from(self.rng.chance(50));
            self.op(b, O::DclInterface, indexed);
            b.imm(id)
                .imm(table_len)
                .imm((array << 16) | list.len() as u32)
                .list(&list);
            self.interfaces.push((id, array, table_len));
        }
    }

    /// `dcl_temps` and `dcl_indexableTemp`.
    pub(super) fn temp_decls(&mut self, b: &mut ProgramBuilder) {
        self.op(b, O::DclTemps, 0);
        b.imm(TEMPS + self.rng.below32(8));
        self.xs.clear();
        for x in 0..self.rng.below32(3) {
            let size = self.rng.range(1, 32);
            let components = self.rng.range(1, 4);
            self.op(b, O::DclIndexableTemp, 0);
            b.imm(x).imm(size).imm(components);
            self.xs.push(IndexableTemp {
                register: x,
                size,
                components: components as u8,
            });
        }
    }
}
