//! Lowering a decoded Direct3D 9 program (vs/ps 1.x–3.0) into the crate's IR, so that D3D9
//! shaders go through the same passes and back end as DXBC (`docs/d3d9.md`).
//!
//! Contract:
//! - **Registers.** `r#` are IR temps of the same number; every other D3D9 register that holds
//!   a value between instructions (`a0`, `aL`, `p0`, loop counters, `vPos`/`vFace`, the
//!   ps_1_x `t#`) gets a fixed IR temp past them, and the operands that need a computed value
//!   (source modifiers IR has no form for, ps_1_x constant clamping, bool constants, result
//!   shifts, predication) go through scratch temps allocated per instruction (`Temps`).
//! - **Constants.** `c#` read constant buffer b0 (`c#` = vector #), `i#` b1 (ivec4 #), `b#`
//!   b2 (bit # mod 32 of dword # / 32). A `def*` value is inlined where the register is read
//!   directly; relative reads see the buffer (the runtime mirrors the definitions there).
//! - **I/O.** Inputs and outputs keep their D3D9 register numbers as IR registers; their Vulkan
//!   locations come from the (usage, index) rule of `io` through
//!   [`ir::Module::input_locations`]/[`ir::Module::output_locations`].
//! - **Functions.** The entry point runs the prologue (`vPos`, `vFace`, default outputs),
//!   D3D9's main program and the epilogue (ps_1_x `r0` → colour, SM1/2 colour clamping);
//!   each `label l#` is an IR function.
//! - Every failure is a typed [`Error`] at the byte offset of the token at fault; an
//!   instruction this lowering does not translate yet is `Unsupported`, naming it.

mod alu;
mod flow;
mod io;
mod level9;
mod operand;
mod ps1;
mod state;
mod texture;

#[cfg(test)]
mod ps1_tests;
#[cfg(test)]
mod sm3_tests;
#[cfg(test)]
mod state_tests;

use crate::d3d9_state::D3d9State;
use crate::error::Error;
use crate::front::d3d9::opcodes::Opcode;
use crate::front::d3d9::program::{Instruction, Program, RegisterType, Version};
use crate::ir;

pub use io::{location_of, usage_name};
pub use level9::{ConstantRange, Level9Layout, SamplerSource};

/// The deepest nesting of `if`, `loop` and `rep` a program may have: above D3D9's own limits
/// in every version (24 static and dynamic `if` levels plus 4 loop levels), so no valid program
/// reaches it, and far below what SPIR-V consumers accept.
const MAX_NESTING: usize = 64;

/// The most `r#` any D3D9 profile has (vs_3_0, ps_3_0, the 2_x caps): r0–r31.
const MAX_TEMPS: u32 = 32;

/// Temps of registers that live across instructions, and the per-instruction scratch pool.
#[derive(Clone, Debug, Default)]
struct Temps {
    /// `r#` count: temps `0..r` are the D3D9 temporaries.
    pub r: u32,
    /// Next fixed temp to hand out.
    next_fixed: u32,
    /// `a0` (integer components).
    pub a0: Option<u32>,
    /// `aL` (integer).
    pub al: Option<u32>,
    /// `p0` (`~0`/`0` per component).
    pub p0: Option<u32>,
    /// `vPos` as D3D9 sees it (pixel centre − 0.5).
    pub vpos: Option<u32>,
    /// `vFace` as ±1.0.
    pub vface: Option<u32>,
    /// Per loop nesting depth: (iteration counter, the outer `aL` kept while the loop runs).
    pub loops: Vec<(u32, u32)>,
    /// ps_1_x `t#` registers, when they are temporaries.
    pub texture: Option<u32>,
    /// First scratch temp.
    scratch_base: u32,
    /// Scratch temps handed out for the current instruction.
    scratch_used: u32,
    /// Most scratch temps any instruction used.
    scratch_max: u32,
}

impl Temps {
    /// A fixed temp (lives for the whole program).
    fn fixed(&mut self) -> u32 {
        let t = self.next_fixed;
        self.next_fixed += 1;
        t
    }

    /// A scratch temp, free again at the next instruction.
    pub fn scratch(&mut self) -> u32 {
        let t = self.scratch_base + self.scratch_used;
        self.scratch_used += 1;
        self.scratch_max = self.scratch_max.max(self.scratch_used);
        t
    }

    /// Frees every scratch temp (between instructions).
    fn release_scratch(&mut self) {
        self.scratch_used = 0;
    }

    /// Every temp the module uses.
    fn count(&self) -> u32 {
        self.scratch_base + self.scratch_max
    }
}

/// A `def`, `defi` or `defb` value, by register.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Defined {
    /// `def c#`: four floats, as bits.
    Float([u32; 4]),
    /// `defi i#`.
    Int([i32; 4]),
    /// `defb b#`.
    Bool(bool),
}

/// Positions of the constant buffers in [`ir::Module::cbuffers`].
#[derive(Clone, Copy, Debug, Default)]
struct ConstantBuffers {
    /// `c#` (b0).
    pub float: Option<ir::CbId>,
    /// `i#` (b1).
    pub int: Option<ir::CbId>,
    /// `b#` (b2).
    pub bool: Option<ir::CbId>,
}

/// The label number of D3D9's main program when it is a function of its own (past D3D9's
/// labels `l0`–`l2047`).
const MAIN_LABEL: u32 = 0x1_0000;

/// Whether `main` (D3D9's main program, up to the first `label`) has a `ret` inside flow
/// control, which must return from main without skipping the entry point's epilogue.
fn early_return(main: &[Instruction]) -> bool {
    let mut depth = 0usize;
    for i in main {
        match i.opcode {
            Opcode::If | Opcode::Ifc | Opcode::Loop | Opcode::Rep => depth += 1,
            Opcode::Endif | Opcode::Endloop | Opcode::Endrep => depth = depth.saturating_sub(1),
            Opcode::Ret if depth > 0 => return true,
            Opcode::Ret => return false,
            _ => {}
        }
    }
    false
}

/// `call` of function `f`.
fn inst_call(f: ir::FunctionId, span: u32) -> ir::Inst {
    let mut i = ir::Inst::new(ir::Op::Call, span);
    i.push_src(ir::Src::new(ir::Reg::Function(f)));
    i
}

/// The state of one lowering.
struct Lowering<'p, 'a> {
    /// The program.
    pub program: &'p Program<'a>,
    /// Its version.
    pub version: Version,
    /// Pixel shader.
    pub pixel: bool,
    /// Version key (`major << 8 | minor`).
    pub key: u16,
    /// The module being built.
    pub module: ir::Module,
    /// Temps.
    pub temps: Temps,
    /// `def*` values by (register file, number).
    pub defs: Vec<(RegisterType, u32, Defined)>,
    /// The constant buffers.
    pub cbuffers: ConstantBuffers,
    /// `label` number → IR function.
    pub labels: Vec<(u32, ir::FunctionId)>,
    /// Loop nesting depth at the current instruction.
    pub loop_depth: usize,
    /// Control-flow nesting depth (`if`, `loop`, `rep`) at the current instruction.
    pub nesting: usize,
    /// Sampler declarations by `s#`: (texture type from `dcl`, resource, sampler).
    pub samplers: Vec<(u32, texture::SamplerType, ir::ResourceId, ir::SamplerId)>,
    /// Inside D3D9's main program (not a subroutine).
    pub in_main: bool,
    /// Open loops: (`loop` rather than `rep`, the integer constant operand).
    pub loop_stack: Vec<(bool, crate::front::d3d9::program::Src)>,
    /// Usages of the inputs and outputs.
    pub usages: io::Usages,
    /// The level-9 part's constant and sampler sources (`None`: a standalone D3D9 shader).
    pub level9: Option<&'p Level9Layout>,
    /// The pipeline state (read through `state`'s accessors).
    pub state: &'p D3d9State,
}

/// Lowers `program` into a module whose instructions are built in `arena`, with the
/// semantics of its inputs and outputs.
pub fn lower(
    program: &Program<'_>,
    arena: Vec<ir::Inst>,
) -> Result<(ir::Module, crate::front::Semantics), Error> {
    lower_with(program, None, &D3d9State::default(), arena)
}

/// [`lower`] with the Direct3D 9 pipeline state `state`: the sampler fields, the bump
/// environment and software vertex processing (`docs/d3d9.md`, "Pipeline state parameters";
/// the rest is applied by the passes).
pub fn lower_with_state(
    program: &Program<'_>,
    state: &D3d9State,
    arena: Vec<ir::Inst>,
) -> Result<(ir::Module, crate::front::Semantics), Error> {
    lower_with(program, None, state, arena)
}

/// [`lower`] for the level-9 part of a DXBC container, whose constants and samplers are the
/// container's Shader Model 4 resources as `layout` maps them.
pub fn lower_level9(
    program: &Program<'_>,
    layout: &Level9Layout,
    arena: Vec<ir::Inst>,
) -> Result<(ir::Module, crate::front::Semantics), Error> {
    lower_with(program, Some(layout), &D3d9State::default(), arena)
}

fn lower_with(
    program: &Program<'_>,
    level9: Option<&Level9Layout>,
    state: &D3d9State,
    mut arena: Vec<ir::Inst>,
) -> Result<(ir::Module, crate::front::Semantics), Error> {
    arena.clear();
    // Sized once: most instructions lower to one or two IR instructions (declarations to
    // none), plus the prologue and epilogue. Not `reserve`: that would copy the old allocation.
    let capacity = program.instructions.len() * 2 + 16;
    if arena.capacity() < capacity {
        arena = Vec::with_capacity(capacity);
    }
    let version = program.version;
    let pixel = version.is_pixel();
    let stage = if pixel {
        ir::Stage::Pixel
    } else {
        ir::Stage::Vertex
    };
    let span = program.base_offset;
    if !version.is_known() {
        return Err(Error::unsupported(
            span,
            format!("the Direct3D 9 profile {}", version.profile()),
        ));
    }
    let mut module = ir::Module::new(stage);
    module.insts = arena;
    module.program_span = span;
    module.model = (version.major, version.minor.min(9));
    module.invariant_position = !pixel;
    let mut lowering = Lowering {
        program,
        version,
        pixel,
        key: version.key(),
        module,
        temps: Temps::default(),
        defs: Vec::new(),
        cbuffers: ConstantBuffers::default(),
        labels: Vec::new(),
        loop_depth: 0,
        nesting: 0,
        samplers: Vec::new(),
        in_main: true,
        loop_stack: Vec::new(),
        usages: io::Usages::default(),
        level9,
        state,
    };
    lowering.prescan()?;
    lowering.declare()?;
    lowering.body()?;
    lowering.module.temps = lowering.temps.count();
    let semantics = lowering.semantics();
    Ok((lowering.module, semantics))
}

impl Lowering<'_, '_> {
    /// Sizes the register files, collects definitions and labels, and reserves the fixed temps.
    fn prescan(&mut self) -> Result<(), Error> {
        let mut r = 0u32;
        let mut uses = [false; 4]; // a0, aL, p0, t# as temps
        let mut depth = 0usize;
        let mut max_depth = 0usize;
        let mut flow = 0usize;
        let ps1 = self.pixel && self.version.major < 2;
        for inst in &self.program.instructions {
            let mut see = |reg: RegisterType, num: u32| match reg {
                RegisterType::Temp => r = r.max(num.saturating_add(1)),
                RegisterType::Address => uses[0] = true,
                RegisterType::Loop => uses[1] = true,
                RegisterType::Predicate => uses[2] = true,
                // ps_1_1–1_3 `t#` are temporaries; ps_1_4's are texture coordinates.
                RegisterType::Texture if ps1 && self.version.minor < 4 => uses[3] = true,
                _ => {}
            };
            if let Some(d) = &inst.dst {
                see(d.reg, d.num);
                if let Some(rel) = &d.relative {
                    see(rel.reg, rel.num);
                }
            }
            for s in inst.sources().iter().chain(inst.predicate.iter()) {
                see(s.reg, s.num);
                if let Some(rel) = &s.relative {
                    see(rel.reg, rel.num);
                }
            }
            match inst.opcode {
                Opcode::Loop | Opcode::Rep => {
                    depth += 1;
                    max_depth = max_depth.max(depth);
                    flow += 1;
                }
                Opcode::If | Opcode::Ifc => flow += 1,
                Opcode::Endloop | Opcode::Endrep => {
                    depth = depth.saturating_sub(1);
                    flow = flow.saturating_sub(1);
                }
                Opcode::Endif => flow = flow.saturating_sub(1),
                Opcode::Def | Opcode::Defi | Opcode::Defb => self.define(inst)?,
                _ => {}
            }
            if flow > MAX_NESTING {
                return Err(Error::invalid(
                    inst.offset,
                    format!("{flow} nested flow-control blocks exceeds the limit {MAX_NESTING}"),
                ));
            }
        }
        if r > MAX_TEMPS {
            return Err(Error::invalid(
                self.program.base_offset,
                format!("{r} temporaries exceeds the limit {MAX_TEMPS}"),
            ));
        }
        if ps1 {
            // The result is r0, written or not.
            r = r.max(1);
        }
        self.temps.r = r;
        self.temps.next_fixed = r;
        if uses[0] {
            self.temps.a0 = Some(self.temps.fixed());
        }
        if uses[1] || max_depth > 0 {
            self.temps.al = Some(self.temps.fixed());
        }
        if uses[2] {
            self.temps.p0 = Some(self.temps.fixed());
        }
        if uses[3] {
            let first = self.temps.next_fixed;
            self.temps.next_fixed += 8;
            self.temps.texture = Some(first);
        }
        for _ in 0..max_depth {
            let pair = (self.temps.fixed(), self.temps.fixed());
            self.temps.loops.push(pair);
        }
        if self.pixel {
            let misc = |n: u32| {
                self.program.instructions.iter().any(|i| {
                    i.sources()
                        .iter()
                        .any(|s| s.reg == RegisterType::Misc && s.num == n)
                })
            };
            let (pos, face) = (misc(0), misc(1));
            if pos {
                self.temps.vpos = Some(self.temps.fixed());
            }
            if face {
                self.temps.vface = Some(self.temps.fixed());
            }
        }
        self.temps.scratch_base = self.temps.next_fixed;
        Ok(())
    }

    /// Records a `def*`.
    fn define(&mut self, inst: &Instruction) -> Result<(), Error> {
        use crate::front::d3d9::program::Payload;
        let Some(dst) = inst.dst else {
            return Err(Error::internal(
                inst.offset,
                "a definition without a register",
            ));
        };
        let clamp = self.pixel && self.version.major < 2;
        let value = match inst.payload {
            Payload::Float4(v) if clamp => {
                Defined::Float(v.map(|b| f32::from_bits(b).clamp(-1.0, 1.0).to_bits()))
            }
            Payload::Float4(v) => Defined::Float(v),
            Payload::Int4(v) => Defined::Int(v),
            Payload::Bool(v) => Defined::Bool(v != 0),
            _ => {
                return Err(Error::internal(
                    inst.offset,
                    "a definition without its values",
                ))
            }
        };
        let reg = match dst.reg {
            RegisterType::Const2 | RegisterType::Const3 | RegisterType::Const4 => {
                RegisterType::Const
            }
            r => r,
        };
        let num = operand::constant_number(dst.reg, dst.num);
        self.defs.retain(|d| !(d.0 == reg && d.1 == num));
        self.defs.push((reg, num, value));
        Ok(())
    }

    /// The `def*` value of a register, if it has one.
    pub fn defined(&self, reg: RegisterType, num: u32) -> Option<Defined> {
        self.defs
            .iter()
            .find(|d| d.0 == reg && d.1 == num)
            .map(|d| d.2)
    }

    /// Appends an instruction.
    #[inline]
    pub fn push(&mut self, inst: ir::Inst) {
        self.module.insts.push(inst);
    }

    /// Appends `op` with its destinations and sources, built in place in the module (no
    /// instruction built on the stack and copied in); returns it for its flags.
    pub fn push_new(
        &mut self,
        op: ir::Op,
        span: u32,
        dst: &[ir::Dst],
        src: &[ir::Src],
    ) -> Option<&mut ir::Inst> {
        self.module.insts.push(ir::Inst::new(op, span));
        let x = self.module.insts.last_mut()?;
        for d in dst {
            x.push_dst(*d);
        }
        for s in src {
            x.push_src(*s);
        }
        Some(x)
    }

    /// Lowers every instruction: the entry point (prologue, main, epilogue), then one function
    /// per `label`.
    fn body(&mut self) -> Result<(), Error> {
        let program = self.program;
        let instructions = &program.instructions;
        let main_end = instructions
            .iter()
            .position(|i| i.opcode == Opcode::Label)
            .unwrap_or(instructions.len());
        let (main, subroutines) = instructions.split_at(main_end);
        // A `ret` inside main's flow control returns from D3D9's main program, and the
        // epilogue must still run: main becomes function 1, which the entry point calls.
        let wrapped = early_return(main);
        let main_function = ir::FunctionId::new(1);
        // Labels: every `label` starts a function; main ends at the first.
        let mut next = if wrapped { 2u32 } else { 1 };
        for inst in instructions.iter().filter(|i| i.opcode == Opcode::Label) {
            let Some(l) = inst.srcs.first().map(|s| s.num) else {
                continue;
            };
            if self.labels.iter().any(|&(n, _)| n == l) {
                return Err(Error::invalid(
                    inst.offset,
                    format!("label l{l} defined twice"),
                ));
            }
            self.labels.push((l, ir::FunctionId::new(next)));
            next += 1;
        }
        // The entry point.
        let start = self.module.insts.len() as u32;
        self.prologue()?;
        if wrapped {
            self.push(inst_call(main_function, program.base_offset));
            self.epilogue()?;
            self.push(ir::Inst::new(ir::Op::Ret, program.end_offset));
            self.module.functions.push(ir::Function {
                label: None,
                body: start..self.module.insts.len() as u32,
                span: program.base_offset,
            });
        }
        let main_start = self.module.insts.len() as u32;
        self.in_main = !wrapped;
        let mut ended = false;
        for inst in main {
            if ended {
                // Code after main's closing `ret` is unreachable (fxc emits none).
                break;
            }
            if inst.opcode == Opcode::Ret && self.nesting == 0 {
                ended = true;
                continue;
            }
            self.instruction(inst)?;
        }
        self.check_closed(program.end_offset)?;
        if wrapped {
            self.push(ir::Inst::new(ir::Op::Ret, program.end_offset));
            self.module.functions.push(ir::Function {
                label: Some(MAIN_LABEL),
                body: main_start..self.module.insts.len() as u32,
                span: program.base_offset,
            });
        } else {
            self.epilogue()?;
            self.push(ir::Inst::new(ir::Op::Ret, program.end_offset));
            self.module.functions.push(ir::Function {
                label: None,
                body: start..self.module.insts.len() as u32,
                span: program.base_offset,
            });
        }
        // Subroutines: from each `label` to the next.
        self.in_main = false;
        let mut rest = subroutines;
        while let Some((label, tail)) = rest.split_first() {
            let end = tail
                .iter()
                .position(|i| i.opcode == Opcode::Label)
                .unwrap_or(tail.len());
            let (body, after) = tail.split_at(end);
            let start = self.module.insts.len() as u32;
            for inst in body {
                if inst.opcode == Opcode::Ret && self.nesting == 0 {
                    // The function's end; what follows up to the next label is unreachable.
                    break;
                }
                self.instruction(inst)?;
            }
            self.check_closed(label.offset)?;
            self.push(ir::Inst::new(ir::Op::Ret, label.offset));
            self.module.functions.push(ir::Function {
                label: label.srcs.first().map(|s| s.num),
                body: start..self.module.insts.len() as u32,
                span: label.offset,
            });
            rest = after;
        }
        Ok(())
    }

    /// Every construct opened in the function is closed.
    fn check_closed(&mut self, span: u32) -> Result<(), Error> {
        if self.nesting != 0 {
            return Err(Error::invalid(
                span,
                "a function ends inside an `if`, `loop` or `rep`",
            ));
        }
        Ok(())
    }

    /// Lowers one instruction (ps_1_x: a co-issued pair together).
    fn instruction(&mut self, inst: &Instruction) -> Result<(), Error> {
        self.temps.release_scratch();
        if self.pixel && self.version.major < 2 {
            if self.is_coissued_second(inst) {
                // Lowered with the instruction before it.
                return Ok(());
            }
            if let Some(second) = self.coissue_partner(inst) {
                return self.coissued(inst, second);
            }
        }
        self.dispatch(inst)
    }

    /// Lowers one instruction into the current scratch pool.
    fn dispatch(&mut self, inst: &Instruction) -> Result<(), Error> {
        match inst.opcode {
            Opcode::Nop | Opcode::Phase => Ok(()),
            // Handled by `prescan` and `declare`.
            Opcode::Dcl | Opcode::Def | Opcode::Defi | Opcode::Defb => Ok(()),
            Opcode::Mov
            | Opcode::Add
            | Opcode::Sub
            | Opcode::Mad
            | Opcode::Mul
            | Opcode::Rcp
            | Opcode::Rsq
            | Opcode::Dp3
            | Opcode::Dp4
            | Opcode::Min
            | Opcode::Max
            | Opcode::Slt
            | Opcode::Sge
            | Opcode::Exp
            | Opcode::Log
            | Opcode::Lit
            | Opcode::Dst
            | Opcode::Lrp
            | Opcode::Frc
            | Opcode::M4x4
            | Opcode::M4x3
            | Opcode::M3x4
            | Opcode::M3x3
            | Opcode::M3x2
            | Opcode::Pow
            | Opcode::Crs
            | Opcode::Sgn
            | Opcode::Abs
            | Opcode::Nrm
            | Opcode::Sincos
            | Opcode::Mova
            | Opcode::Expp
            | Opcode::Logp
            | Opcode::Cnd
            | Opcode::Cmp
            | Opcode::Dp2add
            | Opcode::Dsx
            | Opcode::Dsy => self.alu(inst),
            Opcode::Call
            | Opcode::Callnz
            | Opcode::Loop
            | Opcode::Ret
            | Opcode::Endloop
            | Opcode::Label
            | Opcode::Rep
            | Opcode::Endrep
            | Opcode::If
            | Opcode::Ifc
            | Opcode::Else
            | Opcode::Endif
            | Opcode::Break
            | Opcode::Breakc
            | Opcode::Breakp
            | Opcode::Setp => self.flow(inst),
            Opcode::Tex | Opcode::Texldd | Opcode::Texldl | Opcode::Texkill => self.texture(inst),
            Opcode::Texcoord
            | Opcode::Texbem
            | Opcode::Texbeml
            | Opcode::Texreg2ar
            | Opcode::Texreg2gb
            | Opcode::Texm3x2pad
            | Opcode::Texm3x2tex
            | Opcode::Texm3x3pad
            | Opcode::Texm3x3tex
            | Opcode::Texm3x3diff
            | Opcode::Texm3x3spec
            | Opcode::Texm3x3vspec
            | Opcode::Texreg2rgb
            | Opcode::Texdp3tex
            | Opcode::Texm3x2depth
            | Opcode::Texdp3
            | Opcode::Texm3x3
            | Opcode::Texdepth
            | Opcode::Bem => self.texture(inst),
        }
    }

    /// The error for an instruction this lowering does not translate.
    pub fn unsupported(&self, inst: &Instruction, what: &str) -> Error {
        let name = inst
            .opcode
            .spelling(self.pixel, self.key, inst.controls)
            .map_or_else(|| inst.opcode.name().to_owned(), |s| s.to_string());
        Error::unsupported(
            inst.offset,
            format!("`{name}` in {} ({what})", self.version.profile()),
        )
    }
}
