//! D3D9 inputs and outputs: `dcl` usages and the implicit registers of SM1/2 → IR I/O
//! declarations, the location rule, the prologue (`vPos`, `vFace`, default outputs) and the
//! epilogue (ps_1_x `r0`, SM1/2 colour clamping).
//!
//! Location rule (`docs/d3d9.md`): a user input or output with usage `(u, i)` gets
//! [`location_of`]`(u, i)`: TEXCOORD i → i (i < 16), COLOR 0/1 → 16/17, FOG → 18, then one
//! fixed location per other usage with index 0 from 19; any other pair the first location
//! from 19 the shader does not use (not stable across stages: a runtime links those with
//! `StageLinking`). Vertex inputs are at their `v#` number. Before SM3 the registers name
//! their usage: pixel `t#` TEXCOORD#, `v#` COLOR#; vertex `oT#` TEXCOORD#, `oD#` COLOR#,
//! `oFog` FOG, `oPts` PSIZE, `oPos` the position.

use crate::error::Error;
use crate::front::d3d9::opcodes::Opcode;
use crate::front::d3d9::program::{Dst, Instruction, Payload, RegisterType};
use crate::front::{Semantic, Semantics};
use crate::ir::{self, Interpolation, IoDecl, Op, Reg, SignatureElement, SystemValue};

use super::operand::{imm_f, imm_f4, inst, temp};
use super::Lowering;

/// D3D9 usage numbers.
pub(super) mod usage {
    pub const POSITION: u32 = 0;
    pub const PSIZE: u32 = 4;
    pub const TEXCOORD: u32 = 5;
    pub const COLOR: u32 = 10;
    pub const FOG: u32 = 11;
}

/// Fixed locations of the usages other than TEXCOORD, COLOR 0/1 and FOG, index 0, from 19.
const OTHER_USAGES: [u32; 11] = [3, 6, 7, 1, 2, 0, 4, 8, 9, 12, 13];

/// The uppercase name of usage `u` (`TEXCOORD`), as signatures spell semantics.
pub fn usage_name(u: u32) -> &'static str {
    const NAMES: [&str; 14] = [
        "POSITION",
        "BLENDWEIGHT",
        "BLENDINDICES",
        "NORMAL",
        "PSIZE",
        "TEXCOORD",
        "TANGENT",
        "BINORMAL",
        "TESSFACTOR",
        "POSITIONT",
        "COLOR",
        "FOG",
        "DEPTH",
        "SAMPLE",
    ];
    NAMES.get(u as usize).copied().unwrap_or("UNKNOWN")
}

/// The fixed location of usage `(u, i)` between the stages, when the rule gives one.
pub fn location_of(u: u32, i: u32) -> Option<u32> {
    match (u, i) {
        (usage::TEXCOORD, i) if i < 16 => Some(i),
        (usage::COLOR, i) if i < 2 => Some(16 + i),
        (usage::FOG, 0) => Some(18),
        (u, 0) => OTHER_USAGES
            .iter()
            .position(|&o| o == u)
            .map(|p| 19 + p as u32),
        _ => None,
    }
}

/// Output registers of SM1/2 vertex shaders in the IR's output file.
const VS_COLOR_BASE: u32 = 8;
const VS_FOG: u32 = 10;
const VS_POSITION: u32 = 11;
const VS_POINT_SIZE: u32 = 12;
/// Input registers of SM1/2 pixel shaders: `t#` at #, `v#` at 8 + #.
const PS_COLOR_BASE: u32 = 8;
/// Registers of `vPos` and `vFace` in the input file (past every user register).
const PS_POSITION: u32 = 30;
const PS_FACE: u32 = 31;

impl Lowering<'_, '_> {
    /// The IR input register of ps_2_x `t#` (TEXCOORD#).
    pub fn texcoord_register(&self, num: u32) -> u32 {
        num
    }

    /// The IR input register of a `v#` source: before ps_3_0 `v#` is COLOR#, at
    /// `PS_COLOR_BASE + #`; otherwise its own number.
    pub fn input_register(&self, num: u32) -> u32 {
        if self.pixel && self.version.major < 3 {
            PS_COLOR_BASE + num
        } else {
            num
        }
    }

    /// The IR output register a D3D9 output destination writes.
    pub fn output_register(&self, d: &Dst) -> Result<u32, Error> {
        Ok(match d.reg {
            RegisterType::Output | RegisterType::ColorOut => d.num,
            RegisterType::TexCrdOut => d.num,
            RegisterType::AttrOut => VS_COLOR_BASE + d.num,
            RegisterType::RastOut => match d.num {
                0 => VS_POSITION,
                1 => VS_FOG,
                _ => VS_POINT_SIZE,
            },
            _ => return Err(Error::internal(d.offset, "not an output register")),
        })
    }

    /// Declares the inputs, outputs and samplers the program uses.
    pub(super) fn declare(&mut self) -> Result<(), Error> {
        let program = self.program;
        let sm3 = self.version.major >= 3;
        // Explicit declarations.
        for i in &program.instructions {
            if i.opcode != Opcode::Dcl {
                continue;
            }
            let (Some(d), Payload::Dcl(token)) = (i.dst, i.payload) else {
                return Err(Error::internal(i.offset, "dcl without its register"));
            };
            match d.reg {
                RegisterType::Sampler => self.declare_sampler(i, d.num, token.texture_type())?,
                RegisterType::Input if !self.pixel => {
                    self.input(
                        d.num,
                        d.mask,
                        SystemValue::None,
                        Interpolation::Undefined,
                        i.offset,
                    );
                    self.input_usage(d.num, token.usage(), token.usage_index());
                }
                RegisterType::Input if sm3 => {
                    let (u, index) = (token.usage(), token.usage_index());
                    let interpolation = if d.centroid || u == usage::COLOR {
                        Interpolation::LinearCentroid
                    } else {
                        Interpolation::Linear
                    };
                    self.input(d.num, 0xf, SystemValue::None, interpolation, i.offset);
                    self.input_usage(d.num, u, index);
                }
                RegisterType::Output => {
                    let (u, index) = (token.usage(), token.usage_index());
                    // POSITION0 and PSIZE0 are the rasterizer's; others are user outputs.
                    let sv = match (u, index) {
                        (usage::POSITION, 0) => SystemValue::Position,
                        (usage::PSIZE, 0) => SystemValue::PointSize,
                        _ => SystemValue::None,
                    };
                    self.output(d.num, 0xf, sv, i.offset);
                    self.output_usage(d.num, u, index);
                }
                // ps_2_x `dcl t#`/`dcl v#`, ps_3_0 `dcl vPos`/`vFace`: declared by use below.
                RegisterType::Input | RegisterType::Texture | RegisterType::Misc => {}
                _ => {
                    return Err(Error::invalid(
                        i.offset,
                        format!("dcl of a {:?} register", d.reg),
                    ))
                }
            }
        }
        // Registers declared by use.
        for i in &program.instructions {
            self.declare_used(i)?;
        }
        if self.pixel {
            if self.temps.vpos.is_some() {
                self.input(
                    PS_POSITION,
                    0xf,
                    SystemValue::Position,
                    Interpolation::LinearNoPerspective,
                    program.base_offset,
                );
            }
            if self.temps.vface.is_some() {
                self.input(
                    PS_FACE,
                    0x1,
                    SystemValue::IsFrontFace,
                    Interpolation::Constant,
                    program.base_offset,
                );
            }
            if self.version.major < 2 {
                // The result is r0 → render target 0.
                self.target(0, program.base_offset);
            }
        } else if !sm3 {
            // SM1/2 vertex shaders: colour outputs have defaults the pixel shader may read.
            for c in 0..2 {
                self.pre_sm3_output(VS_COLOR_BASE + c, program.base_offset);
            }
        }
        self.assign_locations();
        Ok(())
    }

    /// Declares what instruction `i` uses without a `dcl`.
    fn declare_used(&mut self, i: &Instruction) -> Result<(), Error> {
        let sm3 = self.version.major >= 3;
        if let Some(d) = &i.dst {
            if i.opcode != Opcode::Dcl
                && !matches!(i.opcode, Opcode::Def | Opcode::Defi | Opcode::Defb)
            {
                match d.reg {
                    RegisterType::ColorOut => self.target(d.num, i.offset),
                    RegisterType::TexCrdOut | RegisterType::AttrOut | RegisterType::RastOut
                        if !sm3 =>
                    {
                        let r = self.output_register(d)?;
                        self.pre_sm3_output(r, i.offset);
                    }
                    _ => {}
                }
            }
        }
        if sm3 || !self.pixel {
            // Registers read or written without a `dcl` (fxc always declares them; hand-written
            // shaders may not): at their register's location, without a usage.
            let killed = i
                .dst
                .filter(|_| i.opcode == Opcode::Texkill)
                .map(|d| (d.reg, d.num));
            let read = i.sources().iter().map(|s| (s.reg, s.num)).chain(killed);
            for (reg, num) in read {
                if reg == RegisterType::Input
                    && !self.module.inputs.iter().any(|d| d.register == num)
                {
                    let interpolation = if self.pixel {
                        Interpolation::Linear
                    } else {
                        Interpolation::Undefined
                    };
                    self.input(num, 0xf, SystemValue::None, interpolation, i.offset);
                }
            }
            if let Some(d) = &i.dst {
                if sm3
                    && d.reg == RegisterType::Output
                    && i.opcode != Opcode::Dcl
                    && !self.module.outputs.iter().any(|o| o.register == d.num)
                {
                    self.output(d.num, 0xf, SystemValue::None, i.offset);
                }
            }
        }
        if self.pixel && !sm3 {
            for s in i.sources() {
                match s.reg {
                    RegisterType::Input => self.pre_sm3_input(usage::COLOR, s.num, i.offset),
                    RegisterType::Texture if self.temps.texture.is_none() => {
                        self.pre_sm3_input(usage::TEXCOORD, s.num, i.offset)
                    }
                    _ => {}
                }
            }
            if self.temps.texture.is_some() {
                // ps_1_x: t# registers the texture instructions read are texture coordinates.
                if let Some(d) = &i.dst {
                    if d.reg == RegisterType::Texture && i.opcode != Opcode::Dcl {
                        self.pre_sm3_input(usage::TEXCOORD, d.num, i.offset);
                    }
                }
            }
        }
        Ok(())
    }

    /// Declares the ps_1_x/2_x input of usage `(u, index)` on first use.
    pub fn pre_sm3_input(&mut self, u: u32, index: u32, span: u32) {
        let register = if u == usage::COLOR {
            PS_COLOR_BASE + index
        } else {
            index
        };
        if self.module.inputs.iter().any(|d| d.register == register) {
            return;
        }
        let interpolation = if u == usage::COLOR {
            Interpolation::LinearCentroid
        } else {
            Interpolation::Linear
        };
        self.input(register, 0xf, SystemValue::None, interpolation, span);
        self.input_usage(register, u, index);
    }

    /// Declares an SM1/2 vertex output register on first use.
    fn pre_sm3_output(&mut self, register: u32, span: u32) {
        if self.module.outputs.iter().any(|d| d.register == register) {
            return;
        }
        let (u, index) = match register {
            VS_POSITION => (usage::POSITION, 0),
            VS_FOG => (usage::FOG, 0),
            VS_POINT_SIZE => (usage::PSIZE, 0),
            r if r >= VS_COLOR_BASE => (usage::COLOR, r - VS_COLOR_BASE),
            r => (usage::TEXCOORD, r),
        };
        let sv = match register {
            VS_POSITION => SystemValue::Position,
            VS_POINT_SIZE => SystemValue::PointSize,
            _ => SystemValue::None,
        };
        self.output(register, 0xf, sv, span);
        self.output_usage(register, u, index);
    }

    /// Declares pixel-shader output `oC#` (render target #).
    fn target(&mut self, n: u32, span: u32) {
        if self.module.outputs.iter().any(|d| d.register == n) {
            return;
        }
        self.output(n, 0xf, SystemValue::None, span);
        self.module.output_signature.push(SignatureElement {
            register: n,
            mask: 0xf,
            system_value: SystemValue::Target,
            semantic_index: n,
            component_type: ir::ComponentType::Float,
            stream: 0,
        });
    }

    fn input(
        &mut self,
        register: u32,
        mask: u8,
        sv: SystemValue,
        interpolation: Interpolation,
        span: u32,
    ) {
        if let Some(d) = self
            .module
            .inputs
            .iter_mut()
            .find(|d| d.register == register)
        {
            d.mask |= mask;
            return;
        }
        self.module.inputs.push(IoDecl {
            register,
            mask,
            system_value: sv,
            interpolation,
            stream: 0,
            span,
        });
    }

    fn output(&mut self, register: u32, mask: u8, sv: SystemValue, span: u32) {
        if let Some(d) = self
            .module
            .outputs
            .iter_mut()
            .find(|d| d.register == register)
        {
            d.mask |= mask;
            return;
        }
        self.module.outputs.push(IoDecl {
            register,
            mask,
            system_value: sv,
            interpolation: Interpolation::Undefined,
            stream: 0,
            span,
        });
    }

    /// Records an input's usage (its location is assigned by [`Lowering::assign_locations`]).
    fn input_usage(&mut self, register: u32, u: u32, index: u32) {
        self.usages.inputs.push((register, u, index));
    }

    /// Records an output's usage (its location is assigned by [`Lowering::assign_locations`]).
    fn output_usage(&mut self, register: u32, u: u32, index: u32) {
        self.usages.outputs.push((register, u, index));
    }

    /// Gives every user input (pixel shaders) and output with a usage its location: the
    /// rule's ([`location_of`]); for a pair the rule has no place for, the slot of its
    /// usage's index 0 plus its index (the rule's table, wrapping within 19–31), or when the
    /// shader uses that location, the next one it does not. Registers without a usage keep
    /// their number and go first.
    fn assign_locations(&mut self) {
        for input in [true, false] {
            if input && !self.pixel {
                continue;
            }
            let (usages, decls) = if input {
                (&self.usages.inputs, &self.module.inputs)
            } else {
                (&self.usages.outputs, &self.module.outputs)
            };
            let user = |r: u32| {
                decls
                    .iter()
                    .any(|d| d.register == r && d.system_value == SystemValue::None)
            };
            let mut used: u32 = 0;
            let mut map: Vec<(u32, u32)> = Vec::new();
            let with_usage = |r: u32| usages.iter().any(|&(reg, _, _)| reg == r);
            for d in decls.iter().filter(|d| d.system_value == SystemValue::None) {
                if !with_usage(d.register) && d.register < 32 {
                    used |= 1 << d.register;
                }
            }
            let mut later = Vec::new();
            for &(r, u, i) in usages.iter().filter(|&&(r, _, _)| user(r)) {
                match location_of(u, i) {
                    Some(l) if used & (1 << l) == 0 => {
                        used |= 1 << l;
                        map.push((r, l));
                    }
                    _ => later.push((r, u, i)),
                }
            }
            for (r, u, i) in later {
                let table = OTHER_USAGES.iter().position(|&o| o == u).unwrap_or(0) as u32;
                let span = ir::MAX_IO_REGISTERS - 19;
                let preferred = (table + i) % span;
                let free = (0..ir::MAX_IO_REGISTERS)
                    .map(|k| {
                        if k < span {
                            19 + (preferred + k) % span
                        } else {
                            k - span
                        }
                    })
                    .find(|&l| used & (1 << l) == 0)
                    .unwrap_or(ir::MAX_IO_REGISTERS - 1);
                used |= 1 << free;
                map.push((r, free));
            }
            map.retain(|&(r, l)| r != l);
            if input {
                self.module.input_locations = map;
            } else {
                self.module.output_locations = map;
            }
        }
    }

    /// The entry point's first instructions: `vPos`, `vFace` and SM1/2 vertex defaults.
    pub(super) fn prologue(&mut self) -> Result<(), Error> {
        let span = self.program.base_offset;
        if let Some(t) = self.temps.vpos {
            // D3D9 pixel centres are integers: vPos = FragCoord − 0.5.
            self.push(inst(
                Op::Add,
                span,
                &[super::operand::temp_d(t, 0xf)],
                &[
                    ir::Src::new(Reg::Input(ir::Index::imm(PS_POSITION))),
                    imm_f4([-0.5, -0.5, 0.0, 0.0]),
                ],
            ));
        }
        if let Some(t) = self.temps.vface {
            let face = ir::Src {
                swizzle: [0; 4],
                ..ir::Src::new(Reg::Input(ir::Index::imm(PS_FACE)))
            };
            self.push(inst(
                Op::Movc,
                span,
                &[super::operand::temp_d(t, 0xf)],
                &[face, imm_f(1.0), imm_f(-1.0)],
            ));
        }
        if !self.pixel && self.version.major < 3 {
            // Unwritten colour outputs read (1, 1, 1, 1) and (0, 0, 0, 1); an output every
            // run of the shader writes whole needs none.
            let written = self.colours_always_written();
            for (c, v) in [(0, [1.0; 4]), (1, [0.0, 0.0, 0.0, 1.0])] {
                if written[c as usize] == 0xf {
                    continue;
                }
                self.push(inst(
                    Op::Mov,
                    span,
                    &[ir::Dst {
                        reg: Reg::Output(ir::Index::imm(VS_COLOR_BASE + c)),
                        mask: 0xf,
                    }],
                    &[imm_f4(v)],
                ));
            }
        }
        Ok(())
    }

    /// The components of `oD0` and `oD1` that every run of the main program writes: the
    /// write masks of the unpredicated writes outside any `if`, `loop` or `rep`, before the
    /// first `ret` or `label` (a later write may be skipped by a return).
    fn colours_always_written(&self) -> [u8; 2] {
        let mut written = [0u8; 2];
        let mut depth = 0usize;
        for i in &self.program.instructions {
            match i.opcode {
                Opcode::Ret | Opcode::Label => break,
                Opcode::If | Opcode::Ifc | Opcode::Loop | Opcode::Rep => depth += 1,
                Opcode::Endif | Opcode::Endloop | Opcode::Endrep => depth = depth.saturating_sub(1),
                _ => {}
            }
            let Some(d) = &i.dst else { continue };
            if depth == 0 && !i.predicated && d.reg == RegisterType::AttrOut && d.relative.is_none()
            {
                if let Some(w) = written.get_mut(d.num as usize) {
                    *w |= d.mask;
                }
            }
        }
        written
    }

    /// The entry point's last instructions before it returns.
    pub(super) fn epilogue(&mut self) -> Result<(), Error> {
        let span = self.program.end_offset;
        if self.pixel && self.version.major < 2 {
            self.push(inst(
                Op::Mov,
                span,
                &[ir::Dst {
                    reg: Reg::Output(ir::Index::imm(0)),
                    mask: 0xf,
                }],
                &[temp(0)],
            ));
        }
        if !self.pixel && self.version.major < 3 {
            // SM1/2 vertex colour outputs are clamped to [0, 1].
            for c in 0..2 {
                let o = Reg::Output(ir::Index::imm(VS_COLOR_BASE + c));
                let mut x = inst(
                    Op::Mov,
                    span,
                    &[ir::Dst { reg: o, mask: 0xf }],
                    &[ir::Src::new(o)],
                );
                x.flags.saturate = true;
                self.push(x);
            }
        }
        Ok(())
    }

    /// The shader's semantics, for linking and reflection.
    pub fn semantics(&self) -> Semantics {
        let list = |v: &[(u32, u32, u32)], decls: &[IoDecl]| -> Vec<Semantic> {
            v.iter()
                .map(|&(register, u, index)| Semantic {
                    name: usage_name(u).to_owned(),
                    index,
                    register,
                    mask: decls
                        .iter()
                        .find(|d| d.register == register)
                        .map_or(0xf, |d| d.mask),
                    stream: 0,
                })
                .collect()
        };
        Semantics {
            inputs: list(&self.usages.inputs, &self.module.inputs),
            outputs: list(&self.usages.outputs, &self.module.outputs),
        }
    }
}

/// The (register, usage, index) of every input and output with a usage.
#[derive(Clone, Debug, Default)]
pub(super) struct Usages {
    /// Inputs.
    pub inputs: Vec<(u32, u32, u32)>,
    /// Outputs.
    pub outputs: Vec<(u32, u32, u32)>,
}
