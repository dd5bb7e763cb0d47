//! D3D9 operands → IR operands: register files, swizzles, relative addressing, constants,
//! source modifiers, and the destination write with saturate, result shift and predicate.
//!
//! Contract: [`Lowering::source`] returns an IR source that reads exactly what D3D9's operand
//! reads (emitting the instructions a modifier or a constant needs into scratch temps first);
//! [`Lowering::write`] stores a computed value the way D3D9's destination token says
//! (`_sat`, `_x2`…`_d8`, `(p0.c)` predication, write mask).

use crate::error::Error;
use crate::front::d3d9::program::{Dst, Instruction, RegisterType, Relative, Src, SrcModifier};
use crate::ir::{self, Index, Inst, Modifier, Op, Reg, Rel, RelFile};

use super::{Defined, Lowering};

/// The D3D9 number of a float constant in one of the four `c#` files.
pub(super) fn constant_number(reg: RegisterType, num: u32) -> u32 {
    match reg {
        RegisterType::Const2 => num + 2048,
        RegisterType::Const3 => num + 4096,
        RegisterType::Const4 => num + 6144,
        _ => num,
    }
}

/// A D3D9 swizzle byte as the IR's per-component selectors.
pub(super) fn swizzle(s: u8) -> [u8; 4] {
    [s & 3, (s >> 2) & 3, (s >> 4) & 3, (s >> 6) & 3]
}

/// A float immediate replicated.
pub(super) fn imm_f(v: f32) -> ir::Src {
    ir::Src::new(Reg::Imm32([v.to_bits(); 4]))
}

/// Four float immediates.
pub(super) fn imm_f4(v: [f32; 4]) -> ir::Src {
    ir::Src::new(Reg::Imm32(v.map(f32::to_bits)))
}

/// An integer immediate replicated.
pub(super) fn imm_u(v: u32) -> ir::Src {
    ir::Src::new(Reg::Imm32([v; 4]))
}

/// A temp read with the identity swizzle.
pub(super) fn temp(t: u32) -> ir::Src {
    ir::Src::new(Reg::Temp(t))
}

/// A temp read through one component.
pub(super) fn temp_c(t: u32, c: u8) -> ir::Src {
    ir::Src {
        swizzle: [c; 4],
        ..temp(t)
    }
}

/// A temp written through `mask`.
pub(super) fn temp_d(t: u32, mask: u8) -> ir::Dst {
    ir::Dst {
        reg: Reg::Temp(t),
        mask,
    }
}

/// `src` negated (composing with its modifier).
pub(super) fn negate(mut src: ir::Src) -> ir::Src {
    src.modifier = match src.modifier {
        Modifier::None => Modifier::Neg,
        Modifier::Neg => Modifier::None,
        Modifier::Abs => Modifier::AbsNeg,
        Modifier::AbsNeg => Modifier::Abs,
    };
    src
}

/// `src` read through `swizzle` after its own swizzle.
pub(super) fn reswizzle(mut src: ir::Src, swizzle: [u8; 4]) -> ir::Src {
    let own = src.swizzle;
    src.swizzle = swizzle.map(|c| own[usize::from(c & 3)]);
    fold_immediate(src)
}

/// `src` with an immediate's swizzle applied to its values (the swizzle then the identity),
/// so that the IR's immediates read as printed.
pub(super) fn fold_immediate(src: ir::Src) -> ir::Src {
    match src.reg {
        Reg::Imm32(v) => ir::Src {
            reg: Reg::Imm32(src.swizzle.map(|c| v[usize::from(c & 3)])),
            swizzle: [0, 1, 2, 3],
            modifier: src.modifier,
        },
        _ => src,
    }
}

/// An instruction of `op` with its operands.
pub(super) fn inst(op: Op, span: u32, dst: &[ir::Dst], src: &[ir::Src]) -> Inst {
    let mut i = Inst::new(op, span);
    for d in dst {
        i.push_dst(*d);
    }
    for s in src {
        i.push_src(*s);
    }
    i
}

/// Whether a write to `d` saturates: its `_sat`, and every `oDepth` write (D3D9 clamps the
/// depth a pixel shader outputs to [0, 1]).
fn saturates(d: &Dst) -> bool {
    d.saturate || d.reg == RegisterType::DepthOut
}

impl Lowering<'_, '_> {
    /// The relative part of an operand: `a0.c` or `aL` as an IR register part.
    fn relative(&self, rel: &Relative) -> Result<Rel, Error> {
        let register = match rel.reg {
            RegisterType::Address => self.temps.a0,
            RegisterType::Loop => self.temps.al,
            _ => None,
        };
        let Some(register) = register else {
            return Err(Error::invalid(
                rel.offset,
                "relative addressing through a register that is not a0 or aL",
            ));
        };
        let component = if rel.reg == RegisterType::Loop {
            0
        } else {
            rel.component()
        };
        Ok(Rel {
            file: RelFile::Temp,
            register: u16::try_from(register).map_err(|_| {
                Error::invalid(rel.offset, "too many temporaries for relative addressing")
            })?,
            element: 0,
            component,
        })
    }

    /// The index of register `num`, relative when the operand is.
    pub fn index(&self, num: u32, rel: Option<&Relative>, span: u32) -> Result<Index, Error> {
        match rel {
            None => Ok(Index::imm(num)),
            Some(r) => Index::relative(num, self.relative(r)?)
                .ok_or_else(|| Error::invalid(span, "relative index out of range")),
        }
    }

    /// The IR register a D3D9 source register reads (before swizzle and modifier), or a
    /// temp holding its value.
    fn source_reg(&mut self, s: &Src) -> Result<Reg, Error> {
        let span = s.offset;
        Ok(match s.reg {
            RegisterType::Temp => Reg::Temp(s.num),
            RegisterType::Input => {
                let register = self.input_register(s.num);
                Reg::Input(self.index(register, s.relative.as_ref(), span)?)
            }
            RegisterType::Const
            | RegisterType::Const2
            | RegisterType::Const3
            | RegisterType::Const4 => {
                let num = constant_number(s.reg, s.num);
                if s.relative.is_none() {
                    if let Some(Defined::Float(v)) = self.defined(RegisterType::Const, num) {
                        return Ok(Reg::Imm32(v));
                    }
                }
                if let Some(layout) = self.level9 {
                    return self.level9_constant(layout, num, s.relative.as_ref(), span);
                }
                let decl = self.float_constants(span)?;
                let reg = Reg::ConstantBuffer {
                    decl,
                    element: Index::imm(0),
                    slot: self.index(num, s.relative.as_ref(), span)?,
                };
                if self.pixel && self.version.major < 2 {
                    // ps_1_x reads constants clamped to [-1, 1].
                    let t = self.temps.scratch();
                    self.push(inst(
                        Op::Max,
                        span,
                        &[temp_d(t, 0xf)],
                        &[ir::Src::new(reg), imm_f(-1.0)],
                    ));
                    self.push(inst(
                        Op::Min,
                        span,
                        &[temp_d(t, 0xf)],
                        &[temp(t), imm_f(1.0)],
                    ));
                    Reg::Temp(t)
                } else {
                    reg
                }
            }
            RegisterType::ConstInt => {
                if let Some(Defined::Int(v)) = self.defined(RegisterType::ConstInt, s.num) {
                    return Ok(Reg::Imm32(v.map(|x| x as u32)));
                }
                let decl = self.int_constants(span)?;
                Reg::ConstantBuffer {
                    decl,
                    element: Index::imm(0),
                    slot: Index::imm(s.num),
                }
            }
            RegisterType::ConstBool => {
                // As a value: ~0 when set (callers test it).
                let t = self.bool_constant(s.num, span)?;
                Reg::Temp(t)
            }
            RegisterType::Address | RegisterType::Loop => {
                // The integer address as a float.
                let a = if s.reg == RegisterType::Loop {
                    self.temps.al
                } else {
                    self.temps.a0
                };
                let a = a.ok_or_else(|| Error::internal(span, "address register without temp"))?;
                let t = self.temps.scratch();
                self.push(inst(Op::Itof, span, &[temp_d(t, 0xf)], &[temp(a)]));
                Reg::Temp(t)
            }
            RegisterType::Predicate => Reg::Temp(
                self.temps
                    .p0
                    .ok_or_else(|| Error::internal(span, "p0 without temp"))?,
            ),
            RegisterType::Texture => self.texture_source(s)?,
            RegisterType::Misc => {
                let t = if s.num == 0 {
                    self.temps.vpos
                } else {
                    self.temps.vface
                };
                Reg::Temp(t.ok_or_else(|| {
                    Error::invalid(
                        span,
                        format!("misc register {} is not vPos or vFace", s.num),
                    )
                })?)
            }
            RegisterType::Output
            | RegisterType::RastOut
            | RegisterType::AttrOut
            | RegisterType::TexCrdOut
            | RegisterType::ColorOut
            | RegisterType::DepthOut
            | RegisterType::Sampler
            | RegisterType::Label
            | RegisterType::TempFloat16 => {
                return Err(Error::invalid(
                    span,
                    format!("{:?} register read as a source", s.reg),
                ))
            }
        })
    }

    /// `t#` read as a source: an input (ps_2_x, TEXCOORD#) or the ps_1_x temporary.
    fn texture_source(&mut self, s: &Src) -> Result<Reg, Error> {
        match self.temps.texture {
            Some(first) => Ok(Reg::Temp(first + s.num)),
            None => Ok(Reg::Input(Index::imm(self.texcoord_register(s.num)))),
        }
    }

    /// A source operand, with its swizzle and modifier applied (modifiers IR has no form for
    /// are computed into a scratch temp first).
    pub fn source(&mut self, s: &Src) -> Result<ir::Src, Error> {
        let reg = self.source_reg(s)?;
        let sw = swizzle(s.swizzle);
        let plain = fold_immediate(ir::Src {
            reg,
            swizzle: sw,
            modifier: Modifier::None,
        });
        let span = s.offset;
        let computed = |l: &mut Self, op: Op, srcs: &[ir::Src]| -> ir::Src {
            let t = l.temps.scratch();
            l.push(inst(op, span, &[temp_d(t, 0xf)], srcs));
            temp(t)
        };
        Ok(match s.modifier {
            SrcModifier::None => plain,
            SrcModifier::Negate => negate(plain),
            SrcModifier::Abs => ir::Src {
                modifier: Modifier::Abs,
                ..plain
            },
            SrcModifier::AbsNegate => ir::Src {
                modifier: Modifier::AbsNeg,
                ..plain
            },
            SrcModifier::Bias => computed(self, Op::Add, &[plain, imm_f(-0.5)]),
            SrcModifier::BiasNegate => negate(computed(self, Op::Add, &[plain, imm_f(-0.5)])),
            SrcModifier::Sign => computed(self, Op::Mad, &[plain, imm_f(2.0), imm_f(-1.0)]),
            SrcModifier::SignNegate => {
                negate(computed(self, Op::Mad, &[plain, imm_f(2.0), imm_f(-1.0)]))
            }
            SrcModifier::Complement => computed(self, Op::Add, &[negate(plain), imm_f(1.0)]),
            SrcModifier::X2 => computed(self, Op::Add, &[plain, plain]),
            SrcModifier::X2Negate => negate(computed(self, Op::Add, &[plain, plain])),
            SrcModifier::Dz | SrcModifier::Dw => {
                // Divides x and y by z (w) before the swizzle.
                let by = if s.modifier == SrcModifier::Dz { 2 } else { 3 };
                let t = self.temps.scratch();
                let whole = ir::Src::new(reg);
                self.push(inst(Op::Mov, span, &[temp_d(t, 0xf)], &[whole]));
                self.push(inst(
                    Op::Div,
                    span,
                    &[temp_d(t, 0x3)],
                    &[whole, reswizzle(whole, [by; 4])],
                ));
                ir::Src {
                    reg: Reg::Temp(t),
                    swizzle: sw,
                    modifier: Modifier::None,
                }
            }
            SrcModifier::Not => {
                // Predicates and bools: the complement of the ~0/0 value.
                computed(self, Op::Not, &[plain])
            }
        })
    }

    /// The IR destination of a D3D9 destination register.
    pub fn destination(&mut self, d: &Dst) -> Result<ir::Dst, Error> {
        let span = d.offset;
        let reg = match d.reg {
            RegisterType::Temp => Reg::Temp(d.num),
            RegisterType::Texture => match self.temps.texture {
                Some(first) => Reg::Temp(first + d.num),
                None => {
                    return Err(Error::invalid(
                        span,
                        "t# written in a shader model where it is an input",
                    ))
                }
            },
            RegisterType::Predicate => Reg::Temp(
                self.temps
                    .p0
                    .ok_or_else(|| Error::internal(span, "p0 without temp"))?,
            ),
            RegisterType::Address => Reg::Temp(
                self.temps
                    .a0
                    .ok_or_else(|| Error::internal(span, "a0 without temp"))?,
            ),
            RegisterType::Output
            | RegisterType::RastOut
            | RegisterType::AttrOut
            | RegisterType::TexCrdOut
            | RegisterType::ColorOut => {
                let register = self.output_register(d)?;
                Reg::Output(self.index(register, d.relative.as_ref(), span)?)
            }
            RegisterType::DepthOut => Reg::OutputDepth(ir::DepthOutput::Any),
            _ => {
                return Err(Error::invalid(
                    span,
                    format!("{:?} register written as a destination", d.reg),
                ))
            }
        };
        Ok(ir::Dst { reg, mask: d.mask })
    }

    /// Writes `value` (computed by `op` from `srcs`) to the instruction's destination with
    /// D3D9's destination rules: result shift, saturate, predicate, write mask.
    pub fn emit(&mut self, i: &Instruction, op: Op, srcs: &[ir::Src]) -> Result<(), Error> {
        let Some(d) = i.dst else {
            return Err(Error::internal(
                i.offset,
                "an arithmetic instruction without destination",
            ));
        };
        let dst = self.destination(&d)?;
        let direct = d.shift == 0 && !i.predicated;
        if direct {
            let saturate = saturates(&d);
            if let Some(x) = self.push_new(op, i.offset, &[dst], srcs) {
                x.flags.saturate = saturate;
            }
            return Ok(());
        }
        let t = self.temps.scratch();
        self.push_new(op, i.offset, &[temp_d(t, d.mask)], srcs);
        self.finish(i, &d, dst, t)
    }

    /// Moves a result computed into temp `t` to `dst` with the result shift, saturate and
    /// predicate of destination `d`.
    pub fn finish(&mut self, i: &Instruction, d: &Dst, dst: ir::Dst, t: u32) -> Result<(), Error> {
        let span = i.offset;
        if d.shift != 0 {
            let factor = if d.shift > 0 {
                (1u32 << d.shift.min(3)) as f32
            } else {
                1.0 / (1u32 << (-d.shift).min(3)) as f32
            };
            self.push(inst(
                Op::Mul,
                span,
                &[temp_d(t, d.mask)],
                &[temp(t), imm_f(factor)],
            ));
        }
        if i.predicated {
            let Some(p) = i.predicate else {
                return Err(Error::internal(
                    span,
                    "a predicated instruction without predicate",
                ));
            };
            let p0 = self
                .temps
                .p0
                .ok_or_else(|| Error::invalid(span, "predicated instruction without p0"))?;
            let cond = ir::Src {
                swizzle: swizzle(p.swizzle),
                ..temp(p0)
            };
            let test = if p.modifier == SrcModifier::Not {
                ir::Test::Zero
            } else {
                ir::Test::NonZero
            };
            if !matches!(dst.reg, Reg::Temp(_) | Reg::Output(_)) {
                // A register the IR cannot read back (oDepth): one `if` per component.
                for c in 0..4u8 {
                    if dst.mask & (1 << c) == 0 {
                        continue;
                    }
                    let mut x = inst(Op::If, span, &[], &[reswizzle(cond, [c; 4])]);
                    x.flags.test = test;
                    self.push(x);
                    let mut x = inst(
                        Op::Mov,
                        span,
                        &[ir::Dst {
                            mask: 1 << c,
                            ..dst
                        }],
                        &[temp(t)],
                    );
                    x.flags.saturate = saturates(d);
                    self.push(x);
                    self.push(Inst::new(Op::EndIf, span));
                }
                return Ok(());
            }
            let old = ir::Src::new(dst.reg);
            let (a, b) = if p.modifier == SrcModifier::Not {
                (old, temp(t))
            } else {
                (temp(t), old)
            };
            let mut x = inst(Op::Movc, span, &[dst], &[cond, a, b]);
            if saturates(d) {
                // Saturate the new value only: clamp it before selecting.
                self.push({
                    let mut s = inst(Op::Mov, span, &[temp_d(t, d.mask)], &[temp(t)]);
                    s.flags.saturate = true;
                    s
                });
                x.flags.saturate = false;
            }
            self.push(x);
            return Ok(());
        }
        let mut x = inst(Op::Mov, span, &[dst], &[temp(t)]);
        x.flags.saturate = saturates(d);
        self.push(x);
        Ok(())
    }

    /// The float constant buffer (b0), declared on first use.
    pub fn float_constants(&mut self, span: u32) -> Result<ir::CbId, Error> {
        if let Some(id) = self.cbuffers.float {
            return Ok(id);
        }
        let size = self.float_constant_count();
        let id = self.constant_buffer(0, size, span);
        self.cbuffers.float = Some(id);
        Ok(id)
    }

    /// The int constant buffer (b1), declared on first use.
    pub fn int_constants(&mut self, span: u32) -> Result<ir::CbId, Error> {
        if let Some(id) = self.cbuffers.int {
            return Ok(id);
        }
        let size = if self.software_vertex_processing() {
            2048
        } else {
            16
        };
        let id = self.constant_buffer(1, size, span);
        self.cbuffers.int = Some(id);
        Ok(id)
    }

    /// The bool constant buffer (b2), declared on first use.
    pub fn bool_constants(&mut self, span: u32) -> Result<ir::CbId, Error> {
        if let Some(id) = self.cbuffers.bool {
            return Ok(id);
        }
        // 2048 booleans under software vertex processing: 16 vectors of 128 bits.
        let size = if self.software_vertex_processing() {
            16
        } else {
            1
        };
        let id = self.constant_buffer(2, size, span);
        self.cbuffers.bool = Some(id);
        Ok(id)
    }

    /// `b#` as `~0`/`0` in component x of a scratch temp.
    pub fn bool_constant(&mut self, num: u32, span: u32) -> Result<u32, Error> {
        let t = self.temps.scratch();
        if let Some(Defined::Bool(v)) = self.defined(RegisterType::ConstBool, num) {
            self.push(inst(
                Op::Mov,
                span,
                &[temp_d(t, 0xf)],
                &[imm_u(if v { !0 } else { 0 })],
            ));
            return Ok(t);
        }
        if num >= 2048 {
            return Err(Error::invalid(
                span,
                format!("b{num} exceeds the limit 2047"),
            ));
        }
        let decl = self.bool_constants(span)?;
        if let Some(cb) = self.module.cbuffers.get_mut(decl.index()) {
            cb.size = cb.size.max(num / 128 + 1);
        }
        let word = ir::Src {
            reg: Reg::ConstantBuffer {
                decl,
                element: Index::imm(0),
                slot: Index::imm(num / 128),
            },
            swizzle: [((num / 32) % 4) as u8; 4],
            modifier: Modifier::None,
        };
        self.push(inst(
            Op::And,
            span,
            &[temp_d(t, 0xf)],
            &[word, imm_u(1 << (num % 32))],
        ));
        self.push(inst(Op::Ine, span, &[temp_d(t, 0xf)], &[temp(t), imm_u(0)]));
        Ok(t)
    }

    /// Declares constant buffer `b<register>` of `size` vectors.
    fn constant_buffer(&mut self, register: u32, size: u32, span: u32) -> ir::CbId {
        let id = ir::CbId::new(self.module.cbuffers.len() as u32);
        self.module.cbuffers.push(ir::CbDecl {
            range: ir::binding::RegisterRange::single(
                ir::binding::ResourceKind::ConstantBuffer,
                0,
                register,
            ),
            id: register,
            size,
            dynamic: true,
            binding: None,
            span,
        });
        id
    }

    /// How many `c#` the stage has: D3D9's count for the version, 8192 under software vertex
    /// processing or when the program reads past the count.
    fn float_constant_count(&self) -> u32 {
        if self.software_vertex_processing() {
            return 8192;
        }
        let base = match (self.pixel, self.version.major) {
            (true, 1) => 8,
            (true, 2) => 32,
            (true, _) => 224,
            (false, _) => 256,
        };
        let highest = self
            .program
            .instructions
            .iter()
            .flat_map(|i| i.sources().iter())
            .filter(|s| {
                matches!(
                    s.reg,
                    RegisterType::Const
                        | RegisterType::Const2
                        | RegisterType::Const3
                        | RegisterType::Const4
                )
            })
            .map(|s| constant_number(s.reg, s.num) + 1)
            .max()
            .unwrap_or(0);
        if highest > base {
            8192
        } else {
            base
        }
    }
}
