//! The ps_1_1–ps_1_4 model → IR: the ps_1_x texture instructions (`tex`, `texcoord`, `texbem`,
//! `texbeml`, `texreg2*`, the `texm3x2*`/`texm3x3*` family, `texdp3*`; ps_1_4's `texcrd`,
//! `texld`, `bem`, `texdepth`) and co-issued pairs (`+`).
//!
//! Contract (`docs/d3d9.md`, section "ps_1_x"):
//! - **Registers.** In ps_1_1–1_3 `t#` are temporaries ([`super::Temps::texture`]) that a
//!   texture instruction fills; the texture coordinates a texture instruction reads are those of
//!   the stage of its destination (`TEXCOORD#` of `t#`), and it samples that stage's sampler. In
//!   ps_1_4 `t#` are read-only texture coordinates and `texld r#` samples stage `#`.
//! - **Runtime state.** Every fact about a texture stage that only the runtime knows (texture
//!   type, `D3DTTFF_PROJECTED`, bump-environment matrix and luminance, null, depth and Fetch4
//!   samplers) comes from the pipeline state through the accessors of `state`
//!   (`Options::d3d9_state`; by default 2-D, not projected, matrix and luminance 0).
//! - **Arithmetic.** Dot products and the bump perturbation use the legacy float ops (D3D9's
//!   `0 × anything = 0`), as the arithmetic instructions do.
//! - **Co-issue.** Both instructions of a pair read their sources before either writes: when
//!   the second reads the register the first writes, it reads a copy taken before the pair.

use crate::error::Error;
use crate::front::d3d9::opcodes::Opcode;
use crate::front::d3d9::program::{Dst, Instruction, Program, RegisterType};
use crate::ir::{self, Index, Op, Reg};

use super::io::usage;
use super::operand::{imm_f, inst, negate, reswizzle, temp, temp_c, temp_d};
use super::state::Bit;
use super::Lowering;

/// Whether a destination in register file `reg` is a temp the copy a co-issued pair needs
/// can read (`r#`, ps_1_1–1_3 `t#`).
fn copyable(reg: RegisterType) -> bool {
    matches!(reg, RegisterType::Temp | RegisterType::Texture)
}

impl<'p> Lowering<'p, '_> {
    /// The instruction co-issued with `first` (the next one, when it has the co-issue bit).
    pub(super) fn coissue_partner(&self, first: &Instruction) -> Option<&'p Instruction> {
        let program: &'p Program<'_> = self.program;
        let list = &program.instructions;
        let at = list
            .binary_search_by_key(&first.offset, |i| i.offset)
            .ok()?;
        list.get(at + 1).filter(|n| n.coissue)
    }

    /// Whether `second` was lowered with the instruction before it (its co-issue partner).
    pub(super) fn is_coissued_second(&self, second: &Instruction) -> bool {
        second.coissue
            && self
                .program
                .instructions
                .first()
                .is_some_and(|f| f.offset < second.offset)
    }

    /// Lowers a co-issued pair: `second` reads what `first` overwrites from a copy taken
    /// before either writes.
    pub(super) fn coissued(
        &mut self,
        first: &Instruction,
        second: &Instruction,
    ) -> Result<(), Error> {
        let mut second = *second;
        if let Some(d) = first.dst.filter(|d| copyable(d.reg)) {
            let count = usize::from(second.src_count).min(second.srcs.len());
            let reads = second.srcs[..count]
                .iter()
                .any(|s| s.reg == d.reg && s.num == d.num);
            if reads {
                let register = self.destination(&d)?.reg;
                let copy = self.temps.scratch();
                self.push(inst(
                    Op::Mov,
                    first.offset,
                    &[temp_d(copy, 0xf)],
                    &[ir::Src::new(register)],
                ));
                for s in second.srcs[..count].iter_mut() {
                    if s.reg == d.reg && s.num == d.num {
                        s.reg = RegisterType::Temp;
                        s.num = copy;
                    }
                }
            }
        }
        self.dispatch(first)?;
        self.dispatch(&second)
    }

    /// Texture coordinates `TEXCOORD#` of stage `m` (declared on first use).
    fn texcoord(&mut self, m: u32, span: u32) -> ir::Src {
        self.pre_sm3_input(usage::TEXCOORD, m, span);
        ir::Src::new(Reg::Input(Index::imm(self.texcoord_register(m))))
    }

    /// The temp of ps_1_1–1_3 `t#`.
    fn texture_temp(&self, n: u32, span: u32) -> Result<u32, Error> {
        let first = self
            .temps
            .texture
            .ok_or_else(|| Error::internal(span, "ps_1_x t# without temps"))?;
        if n >= 8 {
            return Err(Error::invalid(span, format!("t{n} exceeds the limit t7")));
        }
        Ok(first + n)
    }

    /// `x` of the temp of `t(m − back)`, the result of an earlier `texm3x*pad`.
    fn pad_result(&self, m: u32, back: u32, span: u32) -> Result<ir::Src, Error> {
        let n = m.checked_sub(back).ok_or_else(|| {
            Error::invalid(
                span,
                "a texm3x* instruction without its texm3x*pad before it",
            )
        })?;
        Ok(temp_c(self.texture_temp(n, span)?, 0))
    }

    /// Samples stage `stage` at `coord` into a new scratch temp, as the state says.
    fn stage_sample(&mut self, stage: u32, coord: ir::Src, span: u32) -> Result<u32, Error> {
        let state = self.sampler_state(stage, span)?;
        self.sample_with_state(stage, state, Op::Sample, coord, &[], span)
    }

    /// The coordinates ps_1_1–1_3 `tex`/`texbem*` use at stage `m`: its texture coordinates,
    /// divided by w when the stage is projected (a select on the bit when it is known at run
    /// time).
    fn stage_coordinates(&mut self, m: u32, span: u32) -> Result<ir::Src, Error> {
        let tc = self.texcoord(m, span);
        let projected = self.projected_bit(m, span)?;
        if projected == Bit::Known(false) {
            return Ok(tc);
        }
        let t = self.temps.scratch();
        self.push(inst(
            Op::Div,
            span,
            &[temp_d(t, 0xf)],
            &[tc, reswizzle(tc, [3; 4])],
        ));
        if let Bit::Runtime(c) = projected {
            self.push(inst(Op::Movc, span, &[temp_d(t, 0xf)], &[c, temp(t), tc]));
        }
        Ok(temp(t))
    }

    /// A three-component dot product (D3D9's legacy rule) into `dst`.
    fn dot3(&mut self, span: u32, dst: ir::Dst, a: ir::Src, b: ir::Src) {
        self.push(inst(Op::Dp3Legacy, span, &[dst], &[a, b]));
    }

    /// Writes the value in temp `t` to the instruction's destination.
    fn write_result(&mut self, i: &Instruction, d: &Dst, t: u32) -> Result<(), Error> {
        let dst = self.destination(d)?;
        self.finish(i, d, dst, t)
    }

    /// The first source of `i`, converted.
    fn first_source(&mut self, i: &Instruction) -> Result<ir::Src, Error> {
        let s = i
            .sources()
            .first()
            .copied()
            .ok_or_else(|| Error::internal(i.offset, "a texture instruction without source"))?;
        self.source(&s)
    }

    /// Lowers a ps_1_x texture instruction.
    pub(super) fn ps1_texture(&mut self, i: &Instruction) -> Result<(), Error> {
        let span = i.offset;
        let Some(d) = i.dst else {
            return Err(Error::internal(
                span,
                "a texture instruction without destination",
            ));
        };
        if self.key >= 0x0104 {
            return match i.opcode {
                Opcode::Tex => self.texld_14(i, &d),
                Opcode::Texcoord => {
                    // texcrd: the coordinates as they are (no clamping); w undefined in D3D9.
                    let s = self.first_source(i)?;
                    self.emit(i, Op::Mov, &[s])
                }
                Opcode::Bem => self.bem(i, &d),
                Opcode::Texdepth => self.texdepth(i, &d),
                _ => Err(self.unsupported(i, "not a ps_1_4 instruction")),
            };
        }
        if d.reg != RegisterType::Texture {
            return Err(Error::invalid(
                d.offset,
                "the destination of a ps_1_1–1_3 texture instruction is not t#",
            ));
        }
        let m = d.num;
        match i.opcode {
            Opcode::Tex => {
                let c = self.stage_coordinates(m, span)?;
                let t = self.stage_sample(m, c, span)?;
                self.write_result(i, &d, t)
            }
            Opcode::Texcoord => {
                // The coordinates clamped to [0, 1], w = 1.
                let tc = self.texcoord(m, span);
                let t = self.temps.scratch();
                let mut x = inst(Op::Mov, span, &[temp_d(t, 0x7)], &[tc]);
                x.flags.saturate = true;
                self.push(x);
                self.push(inst(Op::Mov, span, &[temp_d(t, 0x8)], &[imm_f(1.0)]));
                self.write_result(i, &d, t)
            }
            Opcode::Texbem | Opcode::Texbeml => self.texbem(i, &d),
            Opcode::Texreg2ar | Opcode::Texreg2gb | Opcode::Texreg2rgb => {
                let s = self.first_source(i)?;
                let swizzle = match i.opcode {
                    Opcode::Texreg2ar => [3, 0, 0, 0],
                    Opcode::Texreg2gb => [1, 2, 2, 2],
                    _ => [0, 1, 2, 2],
                };
                let t = self.stage_sample(m, reswizzle(s, swizzle), span)?;
                self.write_result(i, &d, t)
            }
            Opcode::Texm3x2pad | Opcode::Texm3x3pad | Opcode::Texdp3 => {
                // The dot product of the stage's coordinates and the source, replicated.
                let s = self.first_source(i)?;
                let tc = self.texcoord(m, span);
                let t = self.temps.scratch();
                self.dot3(span, temp_d(t, 0xf), tc, s);
                self.write_result(i, &d, t)
            }
            Opcode::Texdp3tex => {
                let s = self.first_source(i)?;
                let tc = self.texcoord(m, span);
                let c = self.temps.scratch();
                self.push(inst(Op::Mov, span, &[temp_d(c, 0xf)], &[imm_f(0.0)]));
                self.dot3(span, temp_d(c, 0x1), tc, s);
                let t = self.stage_sample(m, temp(c), span)?;
                self.write_result(i, &d, t)
            }
            Opcode::Texm3x2tex | Opcode::Texm3x2depth => self.texm3x2(i, &d),
            Opcode::Texm3x3 | Opcode::Texm3x3tex | Opcode::Texm3x3spec | Opcode::Texm3x3vspec => {
                self.texm3x3(i, &d)
            }
            Opcode::Texm3x3diff => Err(self.unsupported(
                i,
                "texm3x3diff is reserved: Direct3D 9 defines no meaning for it",
            )),
            _ => Err(self.unsupported(i, "not a ps_1_1–1_3 texture instruction")),
        }
    }

    /// `texbem`/`texbeml t(m), t(n)`: the stage's coordinates perturbed by the bump matrix
    /// applied to t(n).rg, sampled; `texbeml` scales the result by t(n).b × scale + offset.
    fn texbem(&mut self, i: &Instruction, d: &Dst) -> Result<(), Error> {
        let span = i.offset;
        let m = d.num;
        let s = self.first_source(i)?;
        let bump = self.bump_env(m, span)?;
        let c = self.stage_coordinates(m, span)?;
        let t = self.temps.scratch();
        self.push(inst(Op::Mov, span, &[temp_d(t, 0xf)], &[c]));
        // u' = u + M00·du + M10·dv; v' = v + M01·du + M11·dv.
        self.push(inst(
            Op::MadLegacy,
            span,
            &[temp_d(t, 0x3)],
            &[reswizzle(s, [0; 4]), bump.matrix, temp(t)],
        ));
        self.push(inst(
            Op::MadLegacy,
            span,
            &[temp_d(t, 0x3)],
            &[
                reswizzle(s, [1; 4]),
                reswizzle(bump.matrix, [2, 3, 2, 3]),
                temp(t),
            ],
        ));
        let r = self.stage_sample(m, temp(t), span)?;
        if i.opcode == Opcode::Texbeml {
            let l = self.temps.scratch();
            self.push(inst(
                Op::MadLegacy,
                span,
                &[temp_d(l, 0xf)],
                &[reswizzle(s, [2; 4]), bump.scale, bump.offset],
            ));
            self.push(inst(
                Op::MulLegacy,
                span,
                &[temp_d(r, 0xf)],
                &[temp(r), temp(l)],
            ));
        }
        self.write_result(i, d, r)
    }

    /// `texm3x2tex`/`texm3x2depth t(m+1), t(n)` after `texm3x2pad t(m), t(n)`.
    fn texm3x2(&mut self, i: &Instruction, d: &Dst) -> Result<(), Error> {
        let span = i.offset;
        let m = d.num;
        let s = self.first_source(i)?;
        let first = self.pad_result(m, 1, span)?;
        let tc = self.texcoord(m, span);
        let t = self.temps.scratch();
        self.push(inst(Op::Mov, span, &[temp_d(t, 0xf)], &[first]));
        self.dot3(span, temp_d(t, 0x2), tc, s);
        if i.opcode == Opcode::Texm3x2tex {
            let r = self.stage_sample(m, temp(t), span)?;
            return self.write_result(i, d, r);
        }
        // Depth: z / w (z from the pad, w this row), 1 when w = 0; clamped to [0, 1].
        let q = self.temps.scratch();
        self.push(inst(
            Op::Div,
            span,
            &[temp_d(q, 0xf)],
            &[temp_c(t, 0), temp_c(t, 1)],
        ));
        self.push(inst(
            Op::Eq,
            span,
            &[temp_d(t, 0x4)],
            &[temp_c(t, 1), imm_f(0.0)],
        ));
        self.push(inst(
            Op::Movc,
            span,
            &[temp_d(q, 0xf)],
            &[temp_c(t, 2), imm_f(1.0), temp(q)],
        ));
        self.depth_output(temp_c(q, 0), span);
        self.write_result(i, d, q)
    }

    /// Writes `value` to `oDepth`, clamped to [0, 1] (D3D9 leaves values outside undefined).
    fn depth_output(&mut self, value: ir::Src, span: u32) {
        let mut x = inst(
            Op::Mov,
            span,
            &[ir::Dst {
                reg: Reg::OutputDepth(ir::DepthOutput::Any),
                mask: 0x1,
            }],
            &[value],
        );
        x.flags.saturate = true;
        self.push(x);
    }

    /// `texm3x3`, `texm3x3tex`, `texm3x3spec`, `texm3x3vspec t(m+2), t(n)` after two
    /// `texm3x3pad`: N = (pad₁, pad₂, this row).
    fn texm3x3(&mut self, i: &Instruction, d: &Dst) -> Result<(), Error> {
        let span = i.offset;
        let m = d.num;
        let s = self.first_source(i)?;
        let first = self.pad_result(m, 2, span)?;
        let second = self.pad_result(m, 1, span)?;
        let tc = self.texcoord(m, span);
        let n = self.temps.scratch();
        self.push(inst(Op::Mov, span, &[temp_d(n, 0x1)], &[first]));
        self.push(inst(Op::Mov, span, &[temp_d(n, 0x2)], &[second]));
        self.dot3(span, temp_d(n, 0x4), tc, s);
        self.push(inst(Op::Mov, span, &[temp_d(n, 0x8)], &[imm_f(1.0)]));
        let eye = match i.opcode {
            Opcode::Texm3x3 => return self.write_result(i, d, n),
            Opcode::Texm3x3tex => {
                let r = self.stage_sample(m, temp(n), span)?;
                return self.write_result(i, d, r);
            }
            Opcode::Texm3x3spec => {
                let e =
                    i.sources().get(1).copied().ok_or_else(|| {
                        Error::internal(span, "texm3x3spec without its eye vector")
                    })?;
                self.source(&e)?
            }
            _ => {
                // vspec: the eye vector is the w of the three rows' coordinates.
                let e = self.temps.scratch();
                for (c, row) in [(0u8, 2u32), (1, 1), (2, 0)] {
                    let stage = m.checked_sub(row).ok_or_else(|| {
                        Error::invalid(span, "texm3x3vspec without its texm3x3pad before it")
                    })?;
                    let tc = self.texcoord(stage, span);
                    self.push(inst(
                        Op::Mov,
                        span,
                        &[temp_d(e, 1 << c)],
                        &[reswizzle(tc, [3; 4])],
                    ));
                }
                temp(e)
            }
        };
        // R = 2 (N·E) / (N·N) N − E.
        let k = self.temps.scratch();
        self.dot3(span, temp_d(k, 0x1), temp(n), eye);
        self.dot3(span, temp_d(k, 0x2), temp(n), temp(n));
        self.push(inst(
            Op::Div,
            span,
            &[temp_d(k, 0x1)],
            &[temp_c(k, 0), temp_c(k, 1)],
        ));
        self.push(inst(
            Op::Add,
            span,
            &[temp_d(k, 0x1)],
            &[temp_c(k, 0), temp_c(k, 0)],
        ));
        self.push(inst(
            Op::MadLegacy,
            span,
            &[temp_d(k, 0x7)],
            &[temp_c(k, 0), temp(n), negate(eye)],
        ));
        let r = self.stage_sample(m, temp(k), span)?;
        self.write_result(i, d, r)
    }

    /// ps_1_4 `texld r#, t#/r#`: samples stage # (the destination's number) at the source.
    fn texld_14(&mut self, i: &Instruction, d: &Dst) -> Result<(), Error> {
        if d.reg != RegisterType::Temp {
            return Err(Error::invalid(d.offset, "texld's destination is not r#"));
        }
        let s = self.first_source(i)?;
        let t = self.stage_sample(d.num, s, i.offset)?;
        self.write_result(i, d, t)
    }

    /// ps_1_4 `bem r#.xy, src0, src1`: src0.xy plus stage #'s bump matrix applied to src1.xy.
    fn bem(&mut self, i: &Instruction, d: &Dst) -> Result<(), Error> {
        let span = i.offset;
        let (Some(a), Some(b)) = (i.sources().first().copied(), i.sources().get(1).copied()) else {
            return Err(Error::internal(span, "bem without its sources"));
        };
        let (a, b) = (self.source(&a)?, self.source(&b)?);
        let bump = self.bump_env(d.num, span)?.matrix;
        let t = self.temps.scratch();
        self.push(inst(
            Op::MadLegacy,
            span,
            &[temp_d(t, 0x3)],
            &[reswizzle(b, [0; 4]), bump, a],
        ));
        self.push(inst(
            Op::MadLegacy,
            span,
            &[temp_d(t, 0x3)],
            &[reswizzle(b, [1; 4]), reswizzle(bump, [2, 3, 2, 3]), temp(t)],
        ));
        let d = Dst {
            mask: d.mask & 0x3,
            ..*d
        };
        self.write_result(i, &d, t)
    }

    /// ps_1_4 `texdepth r5`: depth = r5.r / r5.g (1 when r5.g = 0), clamped to [0, 1].
    fn texdepth(&mut self, i: &Instruction, d: &Dst) -> Result<(), Error> {
        let span = i.offset;
        if d.reg != RegisterType::Temp {
            return Err(Error::invalid(d.offset, "texdepth's operand is not r#"));
        }
        let r = temp(d.num);
        let q = self.temps.scratch();
        self.push(inst(
            Op::Div,
            span,
            &[temp_d(q, 0x1)],
            &[reswizzle(r, [0; 4]), reswizzle(r, [1; 4])],
        ));
        self.push(inst(
            Op::Eq,
            span,
            &[temp_d(q, 0x2)],
            &[reswizzle(r, [1; 4]), imm_f(0.0)],
        ));
        self.push(inst(
            Op::Movc,
            span,
            &[temp_d(q, 0x1)],
            &[temp_c(q, 1), imm_f(1.0), temp_c(q, 0)],
        ));
        self.depth_output(temp_c(q, 0), span);
        Ok(())
    }
}
