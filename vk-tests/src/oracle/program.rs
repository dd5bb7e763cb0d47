//! A decoded compute program made ready to interpret: its declarations (temporaries, `x#`
//! arrays, thread-group size, resources, TGSM, the immediate constant buffer) and the static
//! structure of its control flow (where each `if`, `loop`, `switch`, `break`, `continue` and
//! `label` leads).
//!
//! Contract: [`Program::new`] either returns a program whose every jump target is an index into
//! [`Program::insts`] (or one past the end), or an [`Fault`]; nothing here executes code.

use std::collections::HashMap;

use dxbc2spv::front::dxbc::{
    operand::Components, shader_program, Container, Instruction, Opcode, ParseOptions,
    RegisterType, Stage,
};

use super::Fault;

/// What kind of memory a declared resource or TGSM region is, from the shader's declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclKind {
    /// A raw (byte-address) buffer or TGSM region.
    Raw,
    /// A structured buffer or TGSM region with this stride in bytes.
    Structured(u32),
    /// A typed buffer (`Buffer<T>`): elements converted through the view's format.
    TypedBuffer,
    /// A texture of any other dimension.
    Texture,
    /// A constant buffer.
    Constant,
}

/// The register files a resource operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `t#`
    Srv,
    /// `u#`
    Uav,
    /// `cb#`
    Cb,
}

/// One resource declaration: the id operands use, and where it is bound.
#[derive(Clone, Copy, Debug)]
pub struct ResourceDecl {
    /// Its register file.
    pub class: Class,
    /// The id operands name it by (the register before SM 5.1, the range id in SM 5.1).
    pub id: u32,
    /// Register space.
    pub space: u32,
    /// First register of the range.
    pub lower: u32,
    /// What the declaration says it holds.
    pub kind: DeclKind,
    /// Typed views: the return type token (4 bits per component: 1 unorm, 2 snorm, 3 sint,
    /// 4 uint, 5 float); 0 otherwise.
    pub return_type: u32,
    /// Constant buffers: the declared size in 16-byte registers; 0 otherwise.
    pub cb_vec4s: u32,
    /// Typed views: the resource dimension field of the declaration (1 buffer, 2 1-D, 3 2-D,
    /// 4 2-D MS, 5 3-D, 6 cube, 7 1-D array, 8 2-D array, 9 2-D MS array, 10 cube array).
    pub dimension: u32,
    /// UAVs: declared with a hidden counter (`imm_atomic_alloc`/`consume`).
    pub has_counter: bool,
}

/// A `switch` block: where each `case` value and `default` lead, and where it ends.
#[derive(Clone, Debug, Default)]
pub struct SwitchTable {
    /// `(value, index of the case instruction)`, in program order.
    pub cases: Vec<(u32, usize)>,
    /// Index of the `default` instruction.
    pub default: Option<usize>,
    /// Index of the `endswitch` instruction.
    pub end: usize,
}

/// A program ready for [`super::exec`].
pub struct Program<'a> {
    /// The executable instructions (declarations removed), in program order.
    pub insts: Vec<Instruction<'a>>,
    /// Per instruction: the jump target its control flow uses (`if` → its `else`+1 or `endif`,
    /// `else` → `endif`, `loop` → after `endloop`, `endloop` → after `loop`, `break` → after the
    /// enclosing `endloop`/`endswitch`, `continue` → the enclosing `loop`'s `endloop`); 0 when
    /// unused.
    pub jump: Vec<usize>,
    /// `switch` tables by the index of their `switch` instruction.
    pub switches: HashMap<usize, SwitchTable>,
    /// `label l#` → index of the instruction after the label.
    pub labels: HashMap<u32, usize>,
    /// `dcl_temps`.
    pub temps: usize,
    /// `x#` arrays: register → number of elements.
    pub indexable: HashMap<u32, usize>,
    /// `dcl_thread_group`.
    pub group: [u32; 3],
    /// Resource declarations.
    pub resources: Vec<ResourceDecl>,
    /// TGSM regions: `g#` → (kind, size in bytes).
    pub tgsm: HashMap<u32, (DeclKind, usize)>,
    /// The immediate constant buffer, as 4-component registers.
    pub icb: Vec<[u32; 4]>,
    /// Shader Model 5.1 operand layout (resource ranges).
    pub sm51: bool,
    /// Declared samplers (`s#` ids).
    pub samplers: Vec<u32>,
}

const ICB_CLASS: u32 = 3;

fn unsupported(what: impl Into<String>) -> Fault {
    Fault::Unsupported(what.into())
}

impl<'a> Program<'a> {
    /// Decodes the compute program in `dxbc` and builds its tables.
    pub fn new(dxbc: &'a [u8]) -> Result<Program<'a>, Fault> {
        let container = Container::parse(
            dxbc,
            &ParseOptions {
                verify_checksum: false,
            },
        )
        .map_err(|e| Fault::Invalid(format!("container: {e}")))?;
        let program =
            shader_program(&container).map_err(|e| Fault::Invalid(format!("program: {e}")))?;
        if program.version.stage != Stage::Compute {
            return Err(unsupported(format!("stage {}", program.version)));
        }
        let mut p = Program {
            insts: Vec::new(),
            jump: Vec::new(),
            switches: HashMap::new(),
            labels: HashMap::new(),
            temps: 0,
            indexable: HashMap::new(),
            group: [1, 1, 1],
            resources: Vec::new(),
            tgsm: HashMap::new(),
            icb: Vec::new(),
            sm51: program.version.is_sm51(),
            samplers: Vec::new(),
        };
        for inst in program.instructions() {
            let inst = inst.map_err(|e| Fault::Invalid(format!("decode: {e}")))?;
            p.take(inst)?;
        }
        p.structure()?;
        Ok(p)
    }

    fn take(&mut self, inst: Instruction<'a>) -> Result<(), Fault> {
        let imm = |i: usize| inst.imms().get(i).copied().unwrap_or(0);
        let op0 = inst.operands().first().copied();
        let index = |k: usize| -> u32 {
            op0.and_then(|o| o.indices().get(k).map(|i| i.imm as u32))
                .unwrap_or(0)
        };
        let (class, kind) = match inst.opcode {
            Opcode::DclTemps => {
                self.temps = imm(0) as usize;
                return Ok(());
            }
            Opcode::DclIndexableTemp => {
                self.indexable.insert(imm(0), imm(1) as usize);
                return Ok(());
            }
            Opcode::DclThreadGroup => {
                self.group = [imm(0), imm(1), imm(2)];
                return Ok(());
            }
            Opcode::DclTgsmRaw => {
                self.tgsm.insert(index(0), (DeclKind::Raw, imm(0) as usize));
                return Ok(());
            }
            Opcode::DclTgsmStructured => {
                let size = imm(0) as usize * imm(1) as usize;
                self.tgsm
                    .insert(index(0), (DeclKind::Structured(imm(0)), size));
                return Ok(());
            }
            Opcode::CustomData => {
                if inst.custom_class == ICB_CLASS {
                    let words: Vec<u32> = inst.data().collect();
                    self.icb = words
                        .chunks(4)
                        .map(|c| {
                            let mut v = [0u32; 4];
                            v[..c.len()].copy_from_slice(c);
                            v
                        })
                        .collect();
                }
                return Ok(());
            }
            Opcode::DclResourceRaw => (Class::Srv, DeclKind::Raw),
            Opcode::DclUavRaw => (Class::Uav, DeclKind::Raw),
            Opcode::DclResourceStructured => (Class::Srv, DeclKind::Structured(imm(0))),
            Opcode::DclUavStructured => (Class::Uav, DeclKind::Structured(imm(0))),
            Opcode::DclResource | Opcode::DclUavTyped => {
                let class = if inst.opcode == Opcode::DclResource {
                    Class::Srv
                } else {
                    Class::Uav
                };
                // Resource dimension 1 is a buffer.
                let kind = if inst.token.resource_dimension() == 1 {
                    DeclKind::TypedBuffer
                } else {
                    DeclKind::Texture
                };
                (class, kind)
            }
            Opcode::DclConstantBuffer => (Class::Cb, DeclKind::Constant),
            Opcode::DclSampler => {
                self.samplers.push(index(0));
                return Ok(());
            }
            Opcode::DclFunctionBody | Opcode::DclFunctionTable | Opcode::DclInterface => {
                return Err(unsupported("interfaces (dcl_function_body/table, fcall)"))
            }
            op if op.name().starts_with("dcl_") || op == Opcode::DclGlobalFlags => return Ok(()),
            _ => {
                self.insts.push(inst);
                return Ok(());
            }
        };
        let (id, lower) = if self.sm51 {
            (index(0), index(1))
        } else {
            (index(0), index(0))
        };
        let cb_vec4s = match (class, inst.cb_size) {
            (Class::Cb, Some(n)) => n,
            (Class::Cb, None) => index(1),
            _ => 0,
        };
        self.resources.push(ResourceDecl {
            class,
            id,
            space: inst.space.unwrap_or(0),
            lower,
            kind,
            return_type: inst.return_type.unwrap_or(0),
            cb_vec4s,
            dimension: inst.token.resource_dimension(),
            has_counter: class == Class::Uav && inst.token.uav_has_counter(),
        });
        Ok(())
    }

    /// Fills [`Program::jump`], [`Program::switches`] and [`Program::labels`].
    fn structure(&mut self) -> Result<(), Fault> {
        enum Open {
            If(usize, Option<usize>),
            Loop(usize, Vec<usize>, Vec<usize>),
            Switch(usize, Vec<usize>),
        }
        let n = self.insts.len();
        self.jump = vec![0; n];
        let mut stack: Vec<Open> = Vec::new();
        let bad = |what: &str, at: usize| Fault::Invalid(format!("{what} at instruction {at}"));
        for i in 0..n {
            let inst = self.insts[i];
            match inst.opcode {
                Opcode::If => stack.push(Open::If(i, None)),
                Opcode::Else => match stack.last_mut() {
                    Some(Open::If(_, e @ None)) => *e = Some(i),
                    _ => return Err(bad("else without if", i)),
                },
                Opcode::EndIf => match stack.pop() {
                    Some(Open::If(start, els)) => {
                        match els {
                            Some(e) => {
                                self.jump[start] = e + 1;
                                self.jump[e] = i;
                            }
                            None => self.jump[start] = i,
                        };
                    }
                    _ => return Err(bad("endif without if", i)),
                },
                Opcode::Loop => stack.push(Open::Loop(i, Vec::new(), Vec::new())),
                Opcode::EndLoop => match stack.pop() {
                    Some(Open::Loop(start, breaks, continues)) => {
                        self.jump[start] = i + 1;
                        self.jump[i] = start + 1;
                        for b in breaks {
                            self.jump[b] = i + 1;
                        }
                        for c in continues {
                            self.jump[c] = i;
                        }
                    }
                    _ => return Err(bad("endloop without loop", i)),
                },
                Opcode::Switch => {
                    stack.push(Open::Switch(i, Vec::new()));
                    self.switches.insert(i, SwitchTable::default());
                }
                Opcode::Case | Opcode::Default => {
                    let start = match stack.last() {
                        Some(Open::Switch(start, _)) => *start,
                        _ => return Err(bad("case outside switch", i)),
                    };
                    let table = self.switches.entry(start).or_default();
                    if inst.opcode == Opcode::Default {
                        table.default = Some(i);
                    } else {
                        let value = inst.operands().first().map(|o| o.imm[0]).unwrap_or(0);
                        table.cases.push((value, i));
                    }
                }
                Opcode::EndSwitch => match stack.pop() {
                    Some(Open::Switch(start, breaks)) => {
                        self.switches.entry(start).or_default().end = i;
                        for b in breaks {
                            self.jump[b] = i + 1;
                        }
                    }
                    _ => return Err(bad("endswitch without switch", i)),
                },
                Opcode::Break | Opcode::Breakc => {
                    match stack.iter_mut().rev().find(|o| !matches!(o, Open::If(..))) {
                        Some(Open::Loop(_, breaks, _)) | Some(Open::Switch(_, breaks)) => {
                            breaks.push(i)
                        }
                        _ => return Err(bad("break outside loop and switch", i)),
                    }
                }
                Opcode::Continue | Opcode::Continuec => {
                    match stack.iter_mut().rev().find(|o| matches!(o, Open::Loop(..))) {
                        Some(Open::Loop(_, _, continues)) => continues.push(i),
                        _ => return Err(bad("continue outside loop", i)),
                    }
                }
                Opcode::Label => {
                    let id = inst
                        .operands()
                        .first()
                        .and_then(|o| o.indices().first())
                        .map(|x| x.imm as u32)
                        .unwrap_or(0);
                    self.labels.insert(id, i + 1);
                }
                _ => {}
            }
        }
        if !stack.is_empty() {
            return Err(Fault::Invalid("unclosed control flow block".into()));
        }
        Ok(())
    }

    /// The declaration of the resource an operand names, by class and id.
    pub fn decl(&self, class: Class, id: u32) -> Option<&ResourceDecl> {
        self.resources
            .iter()
            .find(|r| r.class == class && r.id == id)
    }
}

/// The four source components an operand's selection reads, in x, y, z, w order.
pub fn swizzle(c: Components) -> [usize; 4] {
    match c {
        Components::Swizzle(s) => s.map(|x| x as usize & 3),
        Components::Select1(x) => [x as usize & 3; 4],
        Components::Mask(_) | Components::One | Components::Zero | Components::N => [0, 1, 2, 3],
    }
}

/// The write mask of a destination operand (bit 0 = x); a scalar writes x.
pub fn mask(c: Components) -> u8 {
    match c {
        Components::Mask(m) => m & 0xf,
        Components::One => 1,
        _ => 0xf,
    }
}

/// True for the register types that hold thread IDs in a compute shader.
pub fn is_thread_input(t: RegisterType) -> bool {
    matches!(
        t,
        RegisterType::InputThreadId
            | RegisterType::InputThreadGroupId
            | RegisterType::InputThreadIdInGroup
            | RegisterType::InputThreadIdInGroupFlattened
    )
}
