//! The interpreter's machine: threads (registers, `x#` arrays, program counter, call stack),
//! operand reads and writes, control flow, and dispatching thread groups in a fixed order with
//! `sync_g_t`-style barriers honoured.
//!
//! Contract: [`Machine::dispatch`] runs every thread group in x-fastest order, and within a group
//! runs each thread (in flattened-index order) until it reaches a thread barrier or ends; when
//! every thread has stopped, the barrier is released and the round repeats. Instructions it does
//! not model end the dispatch with [`Fault::Unsupported`] naming them; nothing is guessed.
//! Instruction semantics are in [`super::ops`].

use std::collections::HashMap;

use dxbc2spv::front::dxbc::operand::{Index, Modifier, RelativeRegister};
use dxbc2spv::front::dxbc::{Opcode, Operand, RegisterType};

use super::memory::{Resource, Tgsm};
use super::program::{mask, swizzle, Class, DeclKind, Program};
use super::Fault;

/// Instructions one thread may execute in one dispatch before the run is abandoned.
pub const STEP_LIMIT: u64 = 2_000_000;

/// Deepest `call` nesting D3D allows (32 levels).
const CALL_DEPTH: usize = 32;

/// One thread's state.
pub struct Thread {
    /// `r#`.
    pub r: Vec<[u32; 4]>,
    /// `x#` arrays.
    pub x: HashMap<u32, Vec<[u32; 4]>>,
    /// Next instruction.
    pub pc: usize,
    /// Return addresses of the open calls.
    pub calls: Vec<usize>,
    /// Finished (`ret` from the main program, or the end of it).
    pub done: bool,
    /// vThreadID, vThreadGroupID, vThreadIDInGroup, vThreadIDInGroupFlattened.
    pub ids: [[u32; 4]; 4],
    /// Instructions executed.
    pub steps: u64,
}

/// Why a thread stopped running.
enum Stop {
    Barrier,
    Done,
}

/// Where a memory instruction's resource operand points.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// `Machine::resources[i]`, declared as this kind.
    Bound(usize, DeclKind),
    /// A declared resource with nothing bound: reads 0, writes dropped.
    Unbound(DeclKind),
    /// `g#`.
    Tgsm(u32, DeclKind),
}

/// The interpreter: a program, its bound buffers and the current group's TGSM.
pub struct Machine<'p, 'a> {
    /// The program.
    pub prog: &'p Program<'a>,
    /// The case's buffers (contents change as the program writes them).
    pub resources: Vec<Resource>,
    /// (class, space, register) → index into `resources`.
    pub bind: HashMap<(Class, u32, u32), usize>,
    /// TGSM of the group being run.
    pub tgsm: HashMap<u32, Tgsm>,
    /// The case's textures by (class, space, register).
    pub textures: Vec<((Class, u32, u32), crate::conformance::textures::TextureSpec)>,
    /// Instructions one thread may execute in one dispatch before the run is abandoned as
    /// [`Fault::Unsupported`] (default [`STEP_LIMIT`]).
    pub step_limit: u64,
    /// The word every temp, `x#` element and TGSM word holds before the program writes it
    /// (D3D leaves them undefined; default 0). Two runs with different values tell whether a
    /// program reads something it never wrote.
    pub unwritten: u32,
    /// Run the thread groups, and the threads of each group, in reverse order (default
    /// forward). A program without races computes the same either way.
    pub reverse: bool,
}

impl<'p, 'a> Machine<'p, 'a> {
    /// Runs `groups` thread groups.
    pub fn dispatch(&mut self, groups: [u32; 3]) -> Result<(), Fault> {
        let g = self.prog.group;
        if g.contains(&0) {
            return Err(Fault::Invalid("dcl_thread_group with a zero size".into()));
        }
        let mut order = Vec::new();
        for gz in 0..groups[2] {
            for gy in 0..groups[1] {
                for gx in 0..groups[0] {
                    order.push([gx, gy, gz]);
                }
            }
        }
        if self.reverse {
            order.reverse();
        }
        for gid in order {
            self.run_group(gid)?;
        }
        Ok(())
    }

    fn run_group(&mut self, gid: [u32; 3]) -> Result<(), Fault> {
        let g = self.prog.group;
        self.tgsm = self
            .prog
            .tgsm
            .iter()
            .map(|(&k, &(_, size))| {
                (
                    k,
                    Tgsm {
                        bytes: self
                            .unwritten
                            .to_le_bytes()
                            .into_iter()
                            .cycle()
                            .take(size)
                            .collect(),
                    },
                )
            })
            .collect();
        let mut threads = Vec::new();
        for tz in 0..g[2] {
            for ty in 0..g[1] {
                for tx in 0..g[0] {
                    let flat = tx + ty * g[0] + tz * g[0] * g[1];
                    let tid = [
                        gid[0] * g[0] + tx,
                        gid[1] * g[1] + ty,
                        gid[2] * g[2] + tz,
                        0,
                    ];
                    threads.push(Thread {
                        r: vec![[self.unwritten; 4]; self.prog.temps],
                        x: self
                            .prog
                            .indexable
                            .iter()
                            .map(|(&k, &n)| (k, vec![[self.unwritten; 4]; n]))
                            .collect(),
                        pc: 0,
                        calls: Vec::new(),
                        done: false,
                        ids: [tid, [gid[0], gid[1], gid[2], 0], [tx, ty, tz, 0], [flat; 4]],
                        steps: 0,
                    });
                }
            }
        }
        if self.reverse {
            threads.reverse();
        }
        loop {
            let mut running = false;
            for t in threads.iter_mut().filter(|t| !t.done) {
                match self.run_thread(t)? {
                    Stop::Barrier => running = true,
                    Stop::Done => t.done = true,
                }
            }
            if !running {
                return Ok(());
            }
        }
    }

    fn run_thread(&mut self, t: &mut Thread) -> Result<Stop, Fault> {
        let prog = self.prog;
        loop {
            let Some(inst) = prog.insts.get(t.pc) else {
                return Ok(Stop::Done);
            };
            t.steps += 1;
            if t.steps > self.step_limit {
                return Err(Fault::Unsupported(format!(
                    "more than {} instructions in one thread (an endless loop?)",
                    self.step_limit
                )));
            }
            let pc = t.pc;
            let jump = prog.jump.get(pc).copied().unwrap_or(0);
            t.pc = pc + 1;
            let cond = |m: &Self, t: &Thread, k: usize| -> Result<bool, Fault> {
                let v = m.src(t, inst.operands().get(k), false)?[0];
                Ok((v != 0) == inst.token.test_nonzero())
            };
            match inst.opcode {
                Opcode::If => {
                    if !cond(self, t, 0)? {
                        t.pc = jump;
                    }
                }
                Opcode::Else | Opcode::EndLoop | Opcode::Break | Opcode::Continue => t.pc = jump,
                Opcode::Breakc | Opcode::Continuec => {
                    if cond(self, t, 0)? {
                        t.pc = jump;
                    }
                }
                Opcode::EndIf
                | Opcode::Loop
                | Opcode::Case
                | Opcode::Default
                | Opcode::EndSwitch
                | Opcode::Label
                | Opcode::Nop => {}
                Opcode::Switch => {
                    let v = self.src(t, inst.operands().first(), false)?[0];
                    let table = prog
                        .switches
                        .get(&pc)
                        .ok_or_else(|| Fault::Invalid("switch without a table".into()))?;
                    t.pc = table
                        .cases
                        .iter()
                        .find(|(c, _)| *c == v)
                        .map(|&(_, at)| at)
                        .or(table.default)
                        .unwrap_or(table.end);
                }
                Opcode::Ret => {
                    if let Some(back) = t.calls.pop() {
                        t.pc = back;
                    } else {
                        return Ok(Stop::Done);
                    }
                }
                Opcode::Retc => {
                    if cond(self, t, 0)? {
                        if let Some(back) = t.calls.pop() {
                            t.pc = back;
                        } else {
                            return Ok(Stop::Done);
                        }
                    }
                }
                Opcode::Call | Opcode::Callc => {
                    let (take, label) = if inst.opcode == Opcode::Call {
                        (true, inst.operands().first())
                    } else {
                        (cond(self, t, 0)?, inst.operands().get(1))
                    };
                    if take {
                        let id = label
                            .and_then(|o| o.indices().first())
                            .map(|i| i.imm as u32)
                            .unwrap_or(0);
                        let to = *prog
                            .labels
                            .get(&id)
                            .ok_or_else(|| Fault::Invalid(format!("call to missing label {id}")))?;
                        if t.calls.len() >= CALL_DEPTH {
                            return Err(Fault::Unsupported("call nesting deeper than 32".into()));
                        }
                        t.calls.push(t.pc);
                        t.pc = to;
                    }
                }
                Opcode::Sync => {
                    // Bit 0 of the sync flags: threads in the group wait for each other.
                    if inst.token.sync_flags() & 1 != 0 {
                        return Ok(Stop::Barrier);
                    }
                }
                _ => self.execute(t, inst)?,
            }
        }
    }

    /// The value of an index: its immediate plus its register part.
    pub fn index(&self, t: &Thread, i: &Index) -> Result<u32, Fault> {
        let mut v = i.imm as u32;
        if let Some(rel) = &i.rel {
            v = v.wrapping_add(self.relative(t, rel)?);
        }
        Ok(v)
    }

    fn relative(&self, t: &Thread, rel: &RelativeRegister) -> Result<u32, Fault> {
        let c = rel.component as usize & 3;
        let reg = match rel.ty {
            RegisterType::Temp => t.r.get(rel.indices[0] as usize).copied(),
            RegisterType::IndexableTemp => {
                t.x.get(&rel.indices[0])
                    .and_then(|a| a.get(rel.indices[1] as usize))
                    .copied()
            }
            other => {
                return Err(Fault::Unsupported(format!(
                    "relative index in {}",
                    other.prefix()
                )))
            }
        };
        reg.map(|r| r[c])
            .ok_or_else(|| Fault::Invalid("relative index register out of range".into()))
    }

    fn operand_index(&self, t: &Thread, op: &Operand, k: usize) -> Result<u32, Fault> {
        match op.indices().get(k) {
            Some(i) => self.index(t, i),
            None => Err(Fault::Invalid(format!(
                "{} operand without index {k}",
                op.ty.prefix()
            ))),
        }
    }

    /// The four components of a register before swizzle and modifiers.
    fn fetch(&self, t: &Thread, op: &Operand) -> Result<[u32; 4], Fault> {
        Ok(match op.ty {
            RegisterType::Temp => {
                let i = self.operand_index(t, op, 0)? as usize;
                *t.r.get(i)
                    .ok_or_else(|| Fault::Invalid(format!("r{i} beyond dcl_temps")))?
            }
            RegisterType::IndexableTemp => {
                let a = self.operand_index(t, op, 0)?;
                let i = self.operand_index(t, op, 1)? as usize;
                let arr =
                    t.x.get(&a)
                        .ok_or_else(|| Fault::Invalid(format!("x{a} not declared")))?;
                *arr.get(i).ok_or_else(|| {
                    Fault::Unsupported(format!("x{a}[{i}] out of range (undefined in D3D)"))
                })?
            }
            RegisterType::Immediate32 | RegisterType::Immediate64 => match op.components {
                dxbc2spv::front::dxbc::operand::Components::One => [op.imm[0]; 4],
                _ => op.imm,
            },
            RegisterType::ImmediateConstantBuffer => {
                let i = self.operand_index(t, op, 0)? as usize;
                self.prog.icb.get(i).copied().unwrap_or([0; 4])
            }
            RegisterType::ConstantBuffer => {
                let (space, reg, vec) = if self.prog.sm51 {
                    let id = self.operand_index(t, op, 0)?;
                    let space = self.prog.decl(Class::Cb, id).map(|d| d.space).unwrap_or(0);
                    (
                        space,
                        self.operand_index(t, op, 1)?,
                        self.operand_index(t, op, 2)?,
                    )
                } else {
                    (
                        0,
                        self.operand_index(t, op, 0)?,
                        self.operand_index(t, op, 1)?,
                    )
                };
                match self.bind.get(&(Class::Cb, space, reg)) {
                    Some(&r) => {
                        let res = &self.resources[r];
                        let base = u64::from(vec) * 16;
                        [0, 1, 2, 3].map(|c| res.word(base + 4 * c))
                    }
                    None => [0; 4],
                }
            }
            RegisterType::InputThreadId => t.ids[0],
            RegisterType::InputThreadGroupId => t.ids[1],
            RegisterType::InputThreadIdInGroup => t.ids[2],
            RegisterType::InputThreadIdInGroupFlattened => t.ids[3],
            other => {
                return Err(Fault::Unsupported(format!(
                    "source register {}",
                    other.prefix()
                )))
            }
        })
    }

    /// A source operand: swizzled, with its modifier applied as a float (`float`) or integer
    /// operation.
    pub fn src(&self, t: &Thread, op: Option<&Operand>, float: bool) -> Result<[u32; 4], Fault> {
        let op = op.ok_or_else(|| Fault::Invalid("missing operand".into()))?;
        let raw = self.fetch(t, op)?;
        let sw = swizzle(op.components);
        let v = sw.map(|c| raw[c]);
        let lost = super::alu::negated_zero_lost();
        Ok(v.map(|x| match (op.modifier, float) {
            (Modifier::None, _) => x,
            (Modifier::Neg | Modifier::AbsNeg, true) if lost && x & 0x7fff_ffff == 0 => 0,
            (Modifier::Neg, true) => x ^ 0x8000_0000,
            (Modifier::Abs, true) => x & 0x7fff_ffff,
            (Modifier::AbsNeg, true) => x | 0x8000_0000,
            (Modifier::Neg, false) => x.wrapping_neg(),
            (Modifier::Abs, false) => (x as i32).wrapping_abs() as u32,
            (Modifier::AbsNeg, false) => (x as i32).wrapping_abs().wrapping_neg() as u32,
        }))
    }

    /// Writes the components of `v` that the destination's mask selects.
    pub fn dst(&self, t: &mut Thread, op: Option<&Operand>, v: [u32; 4]) -> Result<(), Fault> {
        let op = op.ok_or_else(|| Fault::Invalid("missing operand".into()))?;
        let m = mask(op.components);
        let reg: &mut [u32; 4] = match op.ty {
            RegisterType::Null => return Ok(()),
            RegisterType::Temp => {
                let i = self.operand_index(t, op, 0)? as usize;
                t.r.get_mut(i)
                    .ok_or_else(|| Fault::Invalid(format!("r{i} beyond dcl_temps")))?
            }
            RegisterType::IndexableTemp => {
                let a = self.operand_index(t, op, 0)?;
                let i = self.operand_index(t, op, 1)? as usize;
                let arr =
                    t.x.get_mut(&a)
                        .ok_or_else(|| Fault::Invalid(format!("x{a} not declared")))?;
                arr.get_mut(i).ok_or_else(|| {
                    Fault::Unsupported(format!("x{a}[{i}] out of range (undefined in D3D)"))
                })?
            }
            other => {
                return Err(Fault::Unsupported(format!(
                    "destination register {}",
                    other.prefix()
                )))
            }
        };
        for c in 0..4 {
            if m & (1 << c) != 0 {
                reg[c] = v[c];
            }
        }
        Ok(())
    }

    /// Where a `t#`, `u#` or `g#` operand points.
    pub fn target(&self, t: &Thread, op: Option<&Operand>) -> Result<Target, Fault> {
        let op = op.ok_or_else(|| Fault::Invalid("missing resource operand".into()))?;
        let class = match op.ty {
            RegisterType::Resource => Class::Srv,
            RegisterType::UnorderedAccessView => Class::Uav,
            RegisterType::ThreadGroupSharedMemory => {
                let g = self.operand_index(t, op, 0)?;
                let (kind, _) = self
                    .prog
                    .tgsm
                    .get(&g)
                    .ok_or_else(|| Fault::Invalid(format!("g{g} not declared")))?;
                return Ok(Target::Tgsm(g, *kind));
            }
            other => {
                return Err(Fault::Unsupported(format!(
                    "resource operand {}",
                    other.prefix()
                )))
            }
        };
        let id = self.operand_index(t, op, 0)?;
        let decl = self
            .prog
            .decl(class, id)
            .ok_or_else(|| Fault::Invalid(format!("{}{id} not declared", op.ty.prefix())))?;
        let reg = if self.prog.sm51 {
            self.operand_index(t, op, 1)?
        } else {
            id
        };
        if decl.kind == DeclKind::Texture {
            return Err(Fault::Unsupported("textures".into()));
        }
        Ok(match self.bind.get(&(class, decl.space, reg)) {
            Some(&i) => Target::Bound(i, decl.kind),
            None => Target::Unbound(decl.kind),
        })
    }
}
