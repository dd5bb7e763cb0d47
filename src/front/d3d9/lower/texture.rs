//! D3D9 samplers and texture instructions → IR: `dcl_2d/cube/volume s#` as an SRV `t#` plus a
//! sampler `s#` of the same number, `texld`/`texldp`/`texldb`/`texldl`/`texldd`, `texkill`.
//!
//! Contract: `texldp` divides the coordinates by w before sampling; `texldb` biases by the
//! coordinates' w, `texldl` takes the LOD from w; a vertex shader's `texld` samples LOD 0; SM3
//! applies the sampler operand's swizzle to the result. `texkill` discards when any of the
//! tested components is negative: x, y, z before ps_2_0, the operand's write mask after.
//! Samplers without a `dcl` are 2D.

use crate::error::Error;
use crate::front::d3d9::opcodes::{Opcode, TEXLD_BIAS, TEXLD_PROJECT};
use crate::front::d3d9::program::{Instruction, RegisterType};
use crate::ir::binding::{RegisterRange, ResourceKind};
use crate::ir::{self, Index, Op, Reg, ReturnType, Test};

use super::operand::{imm_f, inst, reswizzle, swizzle, temp, temp_c, temp_d};
use super::Lowering;

/// A sampler's texture type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SamplerType {
    /// 2D (also D3D9's unknown and 1D).
    Tex2D,
    /// Cube.
    Cube,
    /// Volume.
    Volume,
}

impl SamplerType {
    /// From the `dcl` token's texture type.
    fn from_token(t: u32) -> SamplerType {
        match t {
            3 => SamplerType::Cube,
            4 => SamplerType::Volume,
            _ => SamplerType::Tex2D,
        }
    }

    fn dimension(self) -> ir::Dimension {
        match self {
            SamplerType::Tex2D => ir::Dimension::Texture2D,
            SamplerType::Cube => ir::Dimension::TextureCube,
            SamplerType::Volume => ir::Dimension::Texture3D,
        }
    }
}

impl Lowering<'_, '_> {
    /// Declares sampler `s#` with the `dcl` texture type `ty`.
    pub(super) fn declare_sampler(
        &mut self,
        i: &Instruction,
        num: u32,
        ty: u32,
    ) -> Result<(), Error> {
        if self.samplers.iter().any(|s| s.0 == num) {
            return Err(Error::invalid(i.offset, format!("s{num} declared twice")));
        }
        self.add_sampler(num, SamplerType::from_token(ty), i.offset);
        Ok(())
    }

    fn add_sampler(
        &mut self,
        num: u32,
        ty: SamplerType,
        span: u32,
    ) -> (ir::ResourceId, ir::SamplerId) {
        let resource = ir::ResourceId::new(self.module.resources.len() as u32);
        self.module.resources.push(ir::ResourceDecl {
            range: RegisterRange::single(ResourceKind::ShaderResource, 0, num),
            id: num,
            shape: ir::ResourceShape::Typed {
                dim: ty.dimension(),
                ret: [ReturnType::Float; 4],
                samples: 0,
            },
            coherent: false,
            rasterizer_ordered: false,
            counter: false,
            binding: None,
            counter_binding: None,
            span,
        });
        let sampler = ir::SamplerId::new(self.module.samplers.len() as u32);
        self.module.samplers.push(ir::SamplerDecl {
            range: RegisterRange::single(ResourceKind::Sampler, 0, num),
            id: num,
            comparison: false,
            binding: None,
            span,
        });
        self.samplers.push((num, ty, resource, sampler));
        (resource, sampler)
    }

    /// The resource and sampler operands of `s#` (declared 2D on first use when undeclared),
    /// the resource read through `swizzle`.
    pub(super) fn sampler(&mut self, num: u32, swizzle: [u8; 4], span: u32) -> [ir::Src; 2] {
        let (resource, sampler) = match self.samplers.iter().find(|s| s.0 == num) {
            Some(&(_, _, r, s)) => (r, s),
            None => self.add_sampler(num, SamplerType::Tex2D, span),
        };
        [
            ir::Src {
                swizzle,
                ..ir::Src::new(Reg::Resource {
                    decl: resource,
                    element: Index::imm(0),
                })
            },
            ir::Src::new(Reg::Sampler {
                decl: sampler,
                element: Index::imm(0),
            }),
        ]
    }

    /// Lowers a texture instruction.
    pub(super) fn texture(&mut self, i: &Instruction) -> Result<(), Error> {
        let span = i.offset;
        match i.opcode {
            Opcode::Texkill => self.texkill(i),
            Opcode::Tex | Opcode::Texldl | Opcode::Texldd if self.version.major >= 2 => {
                let (Some(coord), Some(s)) = (i.srcs.first(), i.srcs.get(1)) else {
                    return Err(Error::internal(span, "texld without operands"));
                };
                if s.reg != RegisterType::Sampler {
                    return Err(Error::invalid(
                        s.offset,
                        "texld's second source is not a sampler",
                    ));
                }
                let coord = self.source(coord)?;
                let result_swizzle = if self.version.major >= 3 {
                    swizzle(s.swizzle)
                } else {
                    [0, 1, 2, 3]
                };
                let [res, smp] = self.sampler(s.num, result_swizzle, s.offset);
                let w = reswizzle(coord, [3; 4]);
                match i.opcode {
                    Opcode::Texldl => self.emit(i, Op::SampleL, &[coord, res, smp, w]),
                    Opcode::Texldd => {
                        let (Some(dx), Some(dy)) = (i.srcs.get(2), i.srcs.get(3)) else {
                            return Err(Error::internal(span, "texldd without gradients"));
                        };
                        let (dx, dy) = (self.source(dx)?, self.source(dy)?);
                        self.emit(i, Op::SampleD, &[coord, res, smp, dx, dy])
                    }
                    _ if !self.pixel => self.emit(i, Op::SampleL, &[coord, res, smp, imm_f(0.0)]),
                    _ if i.controls == TEXLD_PROJECT => {
                        let t = self.temps.scratch();
                        self.push(inst(Op::Div, span, &[temp_d(t, 0xf)], &[coord, w]));
                        self.emit(i, Op::Sample, &[temp(t), res, smp])
                    }
                    _ if i.controls == TEXLD_BIAS => {
                        self.emit(i, Op::SampleB, &[coord, res, smp, w])
                    }
                    _ => self.emit(i, Op::Sample, &[coord, res, smp]),
                }
            }
            _ => Err(self.unsupported(i, "the ps_1_x texture instructions")),
        }
    }

    /// `texkill`: discard when a tested component is negative.
    fn texkill(&mut self, i: &Instruction) -> Result<(), Error> {
        let span = i.offset;
        let Some(d) = i.dst else {
            return Err(Error::internal(span, "texkill without operand"));
        };
        let sm1 = self.version.major < 2;
        let (reg, mask) = match d.reg {
            RegisterType::Temp => (Reg::Temp(d.num), d.mask),
            RegisterType::Texture => {
                if self.version.major < 2 || self.temps.texture.is_none() {
                    self.pre_sm3_input(super::io::usage::TEXCOORD, d.num, span);
                }
                (
                    Reg::Input(Index::imm(self.texcoord_register(d.num))),
                    d.mask,
                )
            }
            RegisterType::Input => (Reg::Input(Index::imm(d.num)), d.mask),
            _ => {
                return Err(Error::invalid(
                    span,
                    "texkill of a register that is not r# or t#",
                ))
            }
        };
        let mask = if sm1 { 0x7 } else { mask };
        let t = self.temps.scratch();
        self.push(inst(
            Op::Lt,
            span,
            &[temp_d(t, mask)],
            &[ir::Src::new(reg), imm_f(0.0)],
        ));
        let first = mask.trailing_zeros() as u8;
        for c in first + 1..4 {
            if mask & (1 << c) != 0 {
                self.push(inst(
                    Op::Or,
                    span,
                    &[temp_d(t, 1 << first)],
                    &[temp_c(t, first), temp_c(t, c)],
                ));
            }
        }
        if mask == 0 {
            return Ok(());
        }
        let mut x = inst(Op::Discard, span, &[], &[temp_c(t, first)]);
        x.flags.test = Test::NonZero;
        self.push(x);
        Ok(())
    }
}
