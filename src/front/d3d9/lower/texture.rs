//! D3D9 samplers and texture instructions → IR: `dcl_2d/cube/volume s#` as an SRV `t#` plus a
//! sampler `s#` of the same number, `texld`/`texldp`/`texldb`/`texldl`/`texldd`, `texkill`.
//!
//! Contract: `texldp` divides the coordinates by w before sampling; `texldb` biases by the
//! coordinates' w, `texldl` takes the LOD from w; a vertex shader's `texld` samples LOD 0; SM3
//! applies the sampler operand's swizzle to the result. `texkill` discards when any of the
//! tested components is negative: x, y, z before ps_2_0, the operand's write mask after; a
//! predicated `texkill` tests a component only where its predicate component is set.
//! Samplers without a `dcl` have the type the pipeline state gives (2D by default); a sampler
//! whose state is not plain (null, depth comparison, Fetch4: `state`) or whose type the state
//! chooses at run time is sampled through [`Lowering::sample_with_state`]. A sampler typed at
//! run time has three declarations of its `t#` (2-D, and cube and volume views of it:
//! `ir::ResourceDecl::view_of`) and one sampler; each read is lowered once per type under an
//! `if` chain on the sampler's type code, all three writing the same scratch temp.

use crate::d3d9_state::TextureType;
use crate::error::Error;
use crate::front::d3d9::opcodes::{Opcode, TEXLD_BIAS, TEXLD_PROJECT};
use crate::front::d3d9::program::{Instruction, RegisterType, SrcModifier};
use crate::ir::binding::{RegisterRange, ResourceKind};
use crate::ir::{self, Index, Op, Reg, ReturnType, Test};

use super::operand::{imm_f, imm_f4, imm_u, inst, reswizzle, swizzle, temp, temp_c, temp_d};
use super::state::{Bit, SamplerState, TypeChoice};
use super::Lowering;

/// What D3D9 reads from a sampler with nothing bound.
const NULL_TEXEL: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// Fetch4's order: the result's (r, g, b, a) are `gather4`'s (z, x, y, w), that is the texels
/// right of, below, and below-right of the top-left one, then the top-left one.
const FETCH4_ORDER: [u8; 4] = [2, 0, 1, 3];

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

    /// Declares the texture `t#` of sampler `num` with texture type `ty`, a view of `view_of`'s
    /// binding when given.
    fn add_texture(
        &mut self,
        num: u32,
        ty: SamplerType,
        view_of: Option<ir::ResourceId>,
        span: u32,
    ) -> ir::ResourceId {
        // A level-9 part names the SM4 program's t# and s# (its sampler table).
        let (t, _) = self.sampler_source(num);
        let resource = ir::ResourceId::new(self.module.resources.len() as u32);
        self.module.resources.push(ir::ResourceDecl {
            range: RegisterRange::single(ResourceKind::ShaderResource, 0, t),
            id: t,
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
            view_of,
            span,
        });
        resource
    }

    /// Declares sampler `s#` (and its texture `t#`) with texture type `ty`.
    pub(super) fn add_sampler(
        &mut self,
        num: u32,
        ty: SamplerType,
        span: u32,
    ) -> (ir::ResourceId, ir::SamplerId) {
        let (_, s) = self.sampler_source(num);
        let resource = self.add_texture(num, ty, None, span);
        let sampler = ir::SamplerId::new(self.module.samplers.len() as u32);
        self.module.samplers.push(ir::SamplerDecl {
            range: RegisterRange::single(ResourceKind::Sampler, 0, s),
            id: s,
            comparison: false,
            binding: None,
            span,
        });
        self.samplers.push((num, ty, resource, sampler));
        (resource, sampler)
    }

    /// The resource and sampler operands of `s#` (declared on first use when undeclared, with
    /// the type the state gives), the resource read through `swizzle`.
    pub(super) fn sampler(
        &mut self,
        num: u32,
        swizzle: [u8; 4],
        span: u32,
    ) -> Result<[ir::Src; 2], Error> {
        let (resource, sampler) = match self.samplers.iter().find(|s| s.0 == num) {
            Some(&(_, _, r, s)) => (r, s),
            None => match self.undeclared_type(num) {
                TypeChoice::Known(ty) => self.add_sampler(num, ty, span),
                TypeChoice::Runtime => self.add_runtime_sampler(num, span),
            },
        };
        Ok(Self::sampler_operands(resource, sampler, swizzle))
    }

    /// Declares sampler `s#` whose texture type the state chooses at run time: its texture
    /// `t#` once per type, the cube and volume declarations views of the 2-D one's binding.
    fn add_runtime_sampler(&mut self, num: u32, span: u32) -> (ir::ResourceId, ir::SamplerId) {
        let (resource, sampler) = self.add_sampler(num, SamplerType::Tex2D, span);
        for ty in [SamplerType::Cube, SamplerType::Volume] {
            let view = self.add_texture(num, ty, Some(resource), span);
            self.samplers.push((num, ty, view, sampler));
        }
        (resource, sampler)
    }

    /// The resource and sampler operands of sampler `s#`'s declaration of type `ty` (declared
    /// before), the resource read through `swizzle`.
    fn typed_sampler(
        &self,
        num: u32,
        ty: SamplerType,
        swizzle: [u8; 4],
        span: u32,
    ) -> Result<[ir::Src; 2], Error> {
        let Some(&(_, _, resource, sampler)) =
            self.samplers.iter().find(|s| s.0 == num && s.1 == ty)
        else {
            return Err(Error::internal(
                span,
                format!("s{num} has no declaration of type {ty:?}"),
            ));
        };
        Ok(Self::sampler_operands(resource, sampler, swizzle))
    }

    /// Whether sampler `s#`'s texture type is chosen at run time (declared so, or undeclared
    /// with its type a specialization constant or push constant).
    pub(super) fn runtime_typed(&self, num: u32) -> bool {
        match self.samplers.iter().filter(|s| s.0 == num).count() {
            0 => self.undeclared_type(num) == TypeChoice::Runtime,
            n => n > 1,
        }
    }

    /// The operands of `resource` (read through `swizzle`) and `sampler`.
    fn sampler_operands(
        resource: ir::ResourceId,
        sampler: ir::SamplerId,
        swizzle: [u8; 4],
    ) -> [ir::Src; 2] {
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

    /// Samples `s#` with `op` at `coord` (then `extra`: bias, LOD or gradients) into a new
    /// scratch temp, as the sampler's `state` says: (0, 0, 0, 1) for a null sampler, the
    /// comparison of the reference with the texel for a depth sampler (replicated), the four
    /// texels of the footprint for Fetch4, else the texel. The result is in texture order
    /// (SM3's sampler swizzle not applied). A sampler typed at run time is read once per type
    /// (`sample_typed`), under an `if` on its type code: 1 cube, 2 volume, else 2-D.
    pub(super) fn sample_with_state(
        &mut self,
        num: u32,
        state: SamplerState,
        op: Op,
        coord: ir::Src,
        extra: &[ir::Src],
        span: u32,
    ) -> Result<u32, Error> {
        let t = self.temps.scratch();
        if state.null == Bit::Known(true) {
            // Nothing is bound: D3D9 reads (0, 0, 0, 1).
            self.push(inst(
                Op::Mov,
                span,
                &[temp_d(t, 0xf)],
                &[imm_f4(NULL_TEXEL)],
            ));
            return Ok(t);
        }
        self.sampler(num, [0, 1, 2, 3], span)?;
        let mut types = self.samplers.iter().filter(|s| s.0 == num).map(|s| s.1);
        match (types.next(), types.next()) {
            (Some(ty), None) => self.sample_typed(t, num, ty, state, op, coord, extra, span)?,
            _ => {
                // One sample per type, selected by the sampler's two-bit type code.
                let code = self.sampler_type_code(num, span)?;
                let is = |l: &mut Self, ty: TextureType| {
                    let k = l.temps.scratch();
                    l.push(inst(
                        Op::Ieq,
                        span,
                        &[temp_d(k, 0x1)],
                        &[code, imm_u(ty.code())],
                    ));
                    Bit::Runtime(temp_c(k, 0))
                };
                let cube = is(self, TextureType::Cube);
                let sample =
                    |l: &mut Self, ty| l.sample_typed(t, num, ty, state, op, coord, extra, span);
                self.select_on(
                    cube,
                    span,
                    |l| sample(l, SamplerType::Cube),
                    |l| {
                        let volume = is(l, TextureType::Volume);
                        l.select_on(
                            volume,
                            span,
                            |l| sample(l, SamplerType::Volume),
                            |l| sample(l, SamplerType::Tex2D),
                        )
                    },
                )?;
            }
        }
        if let Bit::Runtime(c) = state.null {
            self.push(inst(
                Op::Movc,
                span,
                &[temp_d(t, 0xf)],
                &[c, imm_f4(NULL_TEXEL), temp(t)],
            ));
        }
        Ok(t)
    }

    /// [`Lowering::sample_with_state`] for sampler `s#`'s declaration of type `ty`, into temp
    /// `t`.
    #[allow(clippy::too_many_arguments)]
    fn sample_typed(
        &mut self,
        t: u32,
        num: u32,
        ty: SamplerType,
        state: SamplerState,
        op: Op,
        coord: ir::Src,
        extra: &[ir::Src],
        span: u32,
    ) -> Result<(), Error> {
        let [res, smp] = self.typed_sampler(num, ty, [0, 1, 2, 3], span)?;
        // Volume textures have no depth formats; Fetch4 reads 2-D textures only.
        let compare = if ty == SamplerType::Volume {
            Bit::Known(false)
        } else {
            state.compare
        };
        let fetch4 = if ty == SamplerType::Tex2D {
            state.fetch4
        } else {
            Bit::Known(false)
        };
        if compare == Bit::Known(true) {
            if let Some(&(_, _, _, id)) = self.samplers.iter().find(|s| s.0 == num) {
                if let Some(decl) = self.module.samplers.get_mut(id.index()) {
                    decl.comparison = true;
                }
            }
        }
        let texture = [coord, res, smp];
        self.select_on(
            compare,
            span,
            |l| l.compare_sample(t, op, ty, texture, span),
            |l| {
                l.select_on(
                    fetch4,
                    span,
                    |l| l.fetch4_sample(t, texture, span),
                    |l| {
                        let mut srcs = texture.to_vec();
                        srcs.extend_from_slice(extra);
                        l.push(inst(op, span, &[temp_d(t, 0xf)], &srcs));
                        Ok(())
                    },
                )
            },
        )
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
                let state = self.sampler_state(s.num, s.offset)?;
                if !state.plain() || self.runtime_typed(s.num) {
                    return self.texld_with_state(i, s.num, state, coord, result_swizzle);
                }
                let [res, smp] = self.sampler(s.num, result_swizzle, s.offset)?;
                let w = reswizzle(coord, [3; 4]);
                match i.opcode {
                    Opcode::Texldl => self.emit(i, Op::SampleL, &[coord, res, smp, w]),
                    Opcode::Texldd => {
                        let (dx, dy) = self.gradients(i)?;
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
            _ => self.ps1_texture(i),
        }
    }

    /// A depth comparison into temp `t` (for `op`, a sample of a `ty` texture): the reference
    /// is z (w for a cube), the result replicated.
    fn compare_sample(
        &mut self,
        t: u32,
        op: Op,
        ty: SamplerType,
        [coord, res, smp]: [ir::Src; 3],
        span: u32,
    ) -> Result<(), Error> {
        let dref = reswizzle(coord, [if ty == SamplerType::Cube { 3 } else { 2 }; 4]);
        let implicit = self.pixel && matches!(op, Op::Sample | Op::SampleB | Op::SampleD);
        let op = if implicit { Op::SampleC } else { Op::SampleCLz };
        self.push(inst(op, span, &[temp_d(t, 0x1)], &[coord, res, smp, dref]));
        self.push(inst(Op::Mov, span, &[temp_d(t, 0xf)], &[temp_c(t, 0)]));
        Ok(())
    }

    /// Fetch4 into temp `t`: the red channels of the 2x2 footprint whose top-left texel holds
    /// the coordinate (moved by half a texel), in D3D9's order (`docs/d3d9.md`).
    fn fetch4_sample(
        &mut self,
        t: u32,
        [coord, res, smp]: [ir::Src; 3],
        span: u32,
    ) -> Result<(), Error> {
        let r = self.temps.scratch();
        let mut q = inst(Op::Resinfo, span, &[temp_d(r, 0x3)], &[imm_u(0), res]);
        q.payload = ir::Payload::Resinfo(ir::ResinfoReturn::RcpFloat);
        self.push(q);
        let c = self.temps.scratch();
        self.push(inst(Op::Mov, span, &[temp_d(c, 0xf)], &[coord]));
        self.push(inst(
            Op::Mad,
            span,
            &[temp_d(c, 0x3)],
            &[temp(r), imm_f(0.5), temp(c)],
        ));
        let g = self.temps.scratch();
        let red = ir::Src {
            swizzle: [0; 4],
            ..smp
        };
        self.push(inst(
            Op::Gather4,
            span,
            &[temp_d(g, 0xf)],
            &[temp(c), res, red],
        ));
        self.push(inst(
            Op::Mov,
            span,
            &[temp_d(t, 0xf)],
            &[reswizzle(temp(g), FETCH4_ORDER)],
        ));
        Ok(())
    }

    /// `texldd`'s gradients.
    fn gradients(&mut self, i: &Instruction) -> Result<(ir::Src, ir::Src), Error> {
        let (Some(dx), Some(dy)) = (i.srcs.get(2), i.srcs.get(3)) else {
            return Err(Error::internal(i.offset, "texldd without gradients"));
        };
        Ok((self.source(dx)?, self.source(dy)?))
    }

    /// An SM2/SM3 `texld*` of a sampler whose state changes its reads
    /// ([`Lowering::sample_with_state`]).
    fn texld_with_state(
        &mut self,
        i: &Instruction,
        num: u32,
        state: SamplerState,
        coord: ir::Src,
        result_swizzle: [u8; 4],
    ) -> Result<(), Error> {
        let span = i.offset;
        let Some(d) = i.dst else {
            return Err(Error::internal(span, "texld without destination"));
        };
        let w = reswizzle(coord, [3; 4]);
        let (op, coord, extra) = match i.opcode {
            Opcode::Texldl => (Op::SampleL, coord, vec![w]),
            Opcode::Texldd => {
                let (dx, dy) = self.gradients(i)?;
                (Op::SampleD, coord, vec![dx, dy])
            }
            _ if !self.pixel => (Op::SampleL, coord, vec![imm_f(0.0)]),
            _ if i.controls == TEXLD_PROJECT => {
                let t = self.temps.scratch();
                self.push(inst(Op::Div, span, &[temp_d(t, 0xf)], &[coord, w]));
                (Op::Sample, temp(t), Vec::new())
            }
            _ if i.controls == TEXLD_BIAS => (Op::SampleB, coord, vec![w]),
            _ => (Op::Sample, coord, Vec::new()),
        };
        let mut t = self.sample_with_state(num, state, op, coord, &extra, span)?;
        if result_swizzle != [0, 1, 2, 3] {
            let u = self.temps.scratch();
            self.push(inst(
                Op::Mov,
                span,
                &[temp_d(u, 0xf)],
                &[reswizzle(temp(t), result_swizzle)],
            ));
            t = u;
        }
        let dst = self.destination(&d)?;
        self.finish(i, &d, dst, t)
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
            RegisterType::Input => (Reg::Input(Index::imm(self.input_register(d.num))), d.mask),
            _ => {
                return Err(Error::invalid(
                    span,
                    "texkill of a register that is not r# or t#",
                ))
            }
        };
        let mask = if sm1 { 0x7 } else { mask };
        if mask == 0 {
            return Ok(());
        }
        let t = self.temps.scratch();
        self.push(inst(
            Op::Lt,
            span,
            &[temp_d(t, mask)],
            &[ir::Src::new(reg), imm_f(0.0)],
        ));
        if i.predicated {
            // `(p0.swz) texkill`: component c counts only where p0.swz[c] is set (clear for
            // `!p0`).
            let Some(p) = i.predicate else {
                return Err(Error::internal(
                    span,
                    "a predicated texkill without predicate",
                ));
            };
            let p0 = self
                .temps
                .p0
                .ok_or_else(|| Error::invalid(span, "predicated texkill without p0"))?;
            let mut cond = ir::Src {
                swizzle: swizzle(p.swizzle),
                ..temp(p0)
            };
            if p.modifier == SrcModifier::Not {
                let u = self.temps.scratch();
                self.push(inst(Op::Not, span, &[temp_d(u, mask)], &[cond]));
                cond = temp(u);
            }
            self.push(inst(Op::And, span, &[temp_d(t, mask)], &[temp(t), cond]));
        }
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
        let mut x = inst(Op::Discard, span, &[], &[temp_c(t, first)]);
        x.flags.test = Test::NonZero;
        self.push(x);
        Ok(())
    }
}
