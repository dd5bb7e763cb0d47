//! Workaround switches a runtime turns on for games that depend on what their D3D driver
//! happened to do (`Linking` in the options; `docs/runtime.md`, "Stage linking and
//! workarounds"): zeroed shared memory, barriers after shared-memory and UAV writes, and an
//! invariant position.
//!
//! Contract: with every switch off nothing here emits anything. `g#` zeroing by stores runs at
//! the start of the compute entry function: each invocation zeroes the words `i`,
//! `i + invocations`, ... (`i` = `LocalInvocationIndex`) of every `g#`, then one
//! `OpControlBarrier` (workgroup execution, `g#` memory) makes the zeros visible before the
//! shader's first access. A forced barrier after a write is an execution barrier only where
//! every invocation of the group reaches it (the entry function's top level, in a function
//! with no `retc` and no `ret` inside a construct); elsewhere it is a memory barrier over the
//! same memory.

use spirv::{LoopControl, MemorySemantics, Scope, StorageClass};

use super::context::{Emitter, Scalar};
use super::options::{ForcedBarriers, WorkgroupZeroInit};
use crate::back::spirv::Error;
use crate::ir::{self, Op, Reg, Stage};

impl Emitter<'_> {
    /// Whether the compute shader zeroes `g#` with stores at its start (it then reads
    /// `LocalInvocationIndex`).
    pub(super) fn zeroes_workgroup_by_stores(&self) -> bool {
        self.ir.stage == Stage::Compute
            && !self.ir.tgsm.is_empty()
            && self.options.linking.workgroup_zero_init == WorkgroupZeroInit::Stores
    }

    /// The entry function's prologue: zeroes every `g#` word by word across the group, then
    /// waits for the whole group (see the module contract).
    pub(super) fn zero_workgroup_memory(&mut self) -> Result<(), Error> {
        if !self.zeroes_workgroup_by_stores() {
            return Ok(());
        }
        let index_var = self.regs.builtin(3).ok_or_else(|| {
            Error::internal(self.ir.program_span, "LocalInvocationIndex not declared")
        })?;
        let [x, y, z] = self.ir.thread_group;
        let invocations = x.max(1).saturating_mul(y.max(1)).saturating_mul(z.max(1));
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let ptr_u = self.m.type_pointer(StorageClass::Workgroup, u);
        let zero = self.u32_const(0);
        let step = self.u32_const(invocations);
        let counter = self.m.variable(u, None);
        let arrays: Vec<_> = self
            .ir
            .tgsm
            .iter()
            .zip(self.objects.tgsm.iter())
            .map(|(g, &var)| (g.words, var))
            .collect();
        for (words, var) in arrays {
            let first = self.m.load(u, index_var);
            self.m.store(counter, first);
            let header = self.m.alloc_id();
            let body = self.m.alloc_id();
            let next = self.m.alloc_id();
            let merge = self.m.alloc_id();
            self.m.branch(header);
            self.m.label(header);
            let i = self.m.load(u, counter);
            let limit = self.u32_const(words);
            let more = self.m.u_less_than(b, i, limit);
            self.m.loop_merge(merge, next, LoopControl::NONE);
            self.m.branch_conditional(more, body, merge);
            self.m.label(body);
            let p = self.m.access_chain(ptr_u, var, &[i]);
            self.m.store(p, zero);
            self.m.branch(next);
            self.m.label(next);
            let i = self.m.load(u, counter);
            let i = self.m.i_add(u, i, step);
            self.m.store(counter, i);
            self.m.branch(header);
            self.m.label(merge);
        }
        let scope = self.u32_const(Scope::Workgroup as u32);
        let semantics = MemorySemantics::WORKGROUP_MEMORY | MemorySemantics::ACQUIRE_RELEASE;
        let sem = self.u32_const(semantics.bits());
        self.m.control_barrier(scope, scope, sem);
        Ok(())
    }

    /// After a memory instruction of a compute shader: the barrier [`ForcedBarriers`] asks for
    /// when `inst` writes `g#` (or a UAV).
    pub(super) fn forced_barrier(&mut self, inst: &ir::Inst) {
        let mode = self.options.linking.forced_barriers;
        if mode == ForcedBarriers::Off || self.ir.stage != Stage::Compute {
            return;
        }
        let tgsm = inst.dst().iter().any(|d| matches!(d.reg, Reg::Tgsm(_)));
        let uav = inst.dst().iter().any(|d| matches!(d.reg, Reg::Uav { .. }));
        let mut semantics = MemorySemantics::empty();
        let mut memory_scope = Scope::Workgroup;
        if tgsm || (uav && mode == ForcedBarriers::TgsmAndUav) {
            semantics |= MemorySemantics::WORKGROUP_MEMORY;
        }
        if uav && mode == ForcedBarriers::TgsmAndUav {
            semantics |= MemorySemantics::UNIFORM_MEMORY | MemorySemantics::IMAGE_MEMORY;
            memory_scope = Scope::Device;
        }
        if semantics.is_empty() || !self.m.in_block() {
            return;
        }
        semantics |= MemorySemantics::ACQUIRE_RELEASE;
        let scope = self.u32_const(memory_scope as u32);
        let sem = self.u32_const(semantics.bits());
        if self.group_uniform_here() {
            let exec = self.u32_const(Scope::Workgroup as u32);
            self.m.control_barrier(exec, scope, sem);
        } else {
            self.m.memory_barrier(scope, sem);
        }
    }

    /// Whether every invocation of the group reaches the current instruction: the top level of
    /// the entry function, which no `retc` and no `ret` inside a construct can leave early.
    fn group_uniform_here(&self) -> bool {
        if !self.flow.frames.is_empty() {
            return false;
        }
        let entry = self.ir.body(super::ENTRY);
        if !std::ptr::eq(entry, self.flow.body) {
            return false;
        }
        let mut depth = 0u32;
        for inst in entry {
            match inst.op {
                Op::If | Op::Loop | Op::Switch => depth += 1,
                Op::EndIf | Op::EndLoop | Op::EndSwitch => depth = depth.saturating_sub(1),
                Op::Retc => return false,
                Op::Ret if depth > 0 => return false,
                _ => {}
            }
        }
        true
    }
}
