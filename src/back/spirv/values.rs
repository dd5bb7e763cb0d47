//! Values the emitter remembers instead of asking for again: store-to-load forwarding of `r#`
//! registers and of component reads within one block ([`TempValues`]), and the most used type
//! and constant ids ([`Memo`]).
//!
//! Contract: a remembered value is only handed out in the block it was computed in (the
//! module's [`block_serial`](crate::spv::Module::block_serial) has not changed: no label,
//! function start or call since), where it dominates every later use, and `r#` registers are
//! written only by `Emitter::store`, which updates the record. So reading a register through
//! this cache gives the value a load would give, with fewer instructions.

use super::context::Scalar;
use crate::spv::Id;

/// The most used type and constant ids of one module.
#[derive(Debug, Default)]
pub struct Memo {
    /// `[scalar][components]` (components 1–4).
    pub(super) types: [[Option<Id>; 5]; 5],
    /// `u32` constants 0–15 (component indices, access-chain indices, small masks).
    pub(super) small_u32: [Option<Id>; 16],
    /// Recent 32-bit splat constants ([`Emitter::splat_bits`](super::context::Emitter) of
    /// F32, U32 or I32), direct-mapped: `(scalar, components, bits)` and the id.
    pub(super) splats: [Option<(SplatKey, Id)>; SPLAT_SLOTS],
    /// Recent loads of constant-buffer registers at constant indices, valid in the block they
    /// were made in (constant buffers are read-only): `(block serial, (buffer, element,
    /// register))` and the loaded `uvec4`, direct-mapped by the register.
    pub(super) cbuffer_loads: [Option<(u32, CbufferKey, Id)>; CBUFFER_SLOTS],
    /// Recent loads of values that cannot change within a block unless the emitter writes
    /// them (input registers at constant indices, image and sampler handles, their sampled
    /// images, compute built-ins): `(block serial, key)` and the id, direct-mapped by the key.
    pub(super) loads: [Option<(u32, LoadKey, Id)>; LOAD_SLOTS],
}

/// What a remembered load read (see [`Memo::loads`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LoadKey {
    /// Input register `v#` at this constant index (forgotten when a pass writes an input).
    Input(u32),
    /// An image or sampler handle, or an input built-in, loaded through this pointer.
    Handle(Id),
    /// `OpSampledImage` of the image and sampler handles loaded through these pointers.
    Sampled(Id, Id),
}

impl LoadKey {
    /// The [`Memo::loads`] slot of the key.
    #[inline]
    pub(super) fn slot(self) -> usize {
        let h = match self {
            LoadKey::Input(i) => i.wrapping_mul(3),
            LoadKey::Handle(p) => p.word().wrapping_mul(5).wrapping_add(1),
            LoadKey::Sampled(a, b) => {
                a.word().wrapping_mul(7) ^ b.word().wrapping_mul(11).wrapping_add(2)
            }
        };
        h as usize % LOAD_SLOTS
    }
}

/// How many loads [`Memo::loads`] remembers.
pub(super) const LOAD_SLOTS: usize = 32;

/// The key of a remembered constant-buffer load: declaration index, array element, register.
pub(super) type CbufferKey = (u32, u32, u32);

/// How many constant-buffer loads [`Memo`] remembers.
pub(super) const CBUFFER_SLOTS: usize = 32;

/// The key of a remembered splat constant: scalar type, component count, bit pattern.
pub(super) type SplatKey = (Scalar, u8, u32);

/// How many splat constants [`Memo`] remembers.
pub(super) const SPLAT_SLOTS: usize = 32;

/// The [`Memo::splats`] slot of a key.
#[inline]
pub(super) fn splat_slot(key: SplatKey) -> usize {
    let (s, n, bits) = key;
    let h = bits ^ (bits >> 13) ^ (bits >> 23) ^ (u32::from(n) << 3) ^ ((s as u32) << 1);
    h as usize % SPLAT_SLOTS
}

/// What the emitter knows of the `r#` registers within one block (no label, function start or
/// call since, see [`crate::spv::Module::block_serial`]): their content as values at hand, and
/// the writes not yet stored.
///
/// Writes are deferred: a write only records, per component, the typed value it came from
/// ([`Typed`]); the register's `uvec4` content is built from those values when a read needs it
/// as a whole ([`Emitter::temp_vec`](super::context::Emitter)), and stored to the register's
/// variable once per block, before the block ends or a call
/// ([`Emitter::flush_temps`](super::context::Emitter)). A register written several times in a
/// block is stored once, and a component read back as the type it was written with is the value
/// itself: no shuffle, no bitcast, no load.
#[derive(Debug, Default)]
pub struct TempValues {
    /// Per register: what is known of it, and the block serial it is known in.
    values: Vec<Option<Known>>,
    /// Recent component reads: ((register value, selection, count, type), result), valid in
    /// the block it was made in (`serial`), direct-mapped by a hash of the key.
    reads: Vec<Option<(u32, ReadKey, Id)>>,
    /// Registers with writes not yet stored, all made in block `dirty_serial`.
    dirty: Vec<u32>,
    /// The block of the writes in `dirty`.
    dirty_serial: u32,
    /// Set when a write was recorded in a block while another block's writes were pending:
    /// those were lost (an emitter bug, reported as an error rather than emitted).
    lost: bool,
    /// The blocks whose knowledge block `chain_for` inherits (see [`TempValues::inherit`]),
    /// at most [`MAX_CHAIN`], nearest last.
    chain: Vec<u32>,
    /// The block `chain` is for; in any other block only its own knowledge counts.
    chain_for: u32,
    /// Register writes recorded so far (to tell whether a part of a construct wrote any).
    writes: u32,
    /// Calls made so far (a callee writes registers this record does not see).
    calls: u32,
}

/// The blocks whose register knowledge a block sees: itself and those it inherits from (see
/// [`TempValues::lineage`]), to hand on to blocks it dominates.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lineage {
    blocks: [u32; MAX_CHAIN],
    len: u8,
}

/// The most blocks a block inherits knowledge from: deeper nesting, or longer runs of
/// conditional instructions, only forget the oldest (the lookups stay short).
const MAX_CHAIN: usize = 16;

/// What is known of one register in one block.
#[derive(Clone, Copy, Debug)]
pub(super) struct Known {
    /// The block serial.
    serial: u32,
    /// A `uvec4` holding the register's content in every component not in `pending`; `None`:
    /// those components are the variable's content.
    pub base: Option<Id>,
    /// Per component: the typed value it was written from, when the block wrote it.
    pub typed: [Option<Typed>; 4],
    /// Components written in this block whose content is only in `typed` (not yet in `base`).
    pub pending: u8,
    /// Whether the variable lacks writes of this block.
    dirty: bool,
}

/// Where a register component's content came from: component `pos` of `value`, a value of
/// `n` components of `scalar` (a 32-bit type) whose bits the component holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Typed {
    /// The value written.
    pub value: Id,
    /// Its component type.
    pub scalar: Scalar,
    /// Its component count (1: a scalar, replicated into every written component).
    pub n: u8,
    /// The value's component this register component holds.
    pub pos: u8,
}

/// What a component read of a register value computes: the value, the selected components,
/// their count and the scalar type they are read as.
type ReadKey = (Id, [u8; 4], u8, Scalar);

/// Slots of the read cache (a power of two).
const READ_SLOTS: usize = 64;

impl TempValues {
    /// Nothing known.
    pub(super) const EMPTY: TempValues = TempValues {
        values: Vec::new(),
        reads: Vec::new(),
        dirty: Vec::new(),
        dirty_serial: 0,
        lost: false,
        chain: Vec::new(),
        chain_for: 0,
        writes: 0,
        calls: 0,
    };

    /// Forgets everything, for a new module with `temps` registers, keeping the allocations.
    pub(super) fn reset(&mut self, temps: usize) {
        self.values.clear();
        self.values.resize(temps, None);
        self.reads.fill(None);
        self.dirty.clear();
        self.dirty_serial = 0;
        self.lost = false;
        self.chain.clear();
        self.chain_for = 0;
        self.writes = 0;
        self.calls = 0;
    }

    /// Whether block `serial` sees what was known in block `at`: its own, or one it inherits.
    #[inline]
    fn sees(&self, serial: u32, at: u32) -> bool {
        at == serial || (self.chain_for == serial && self.chain.contains(&at))
    }

    /// Block `child` starts knowing what block `parent` knew (and what `parent` inherited):
    /// `parent` dominates `child` and no instruction runs between them (the first block of an
    /// `if`). Valid until another block starts without inheriting.
    pub(super) fn inherit(&mut self, parent: u32, child: u32) {
        let lineage = self.lineage(parent);
        self.adopt(&lineage, child);
    }

    /// What block `serial` sees: itself and what it inherits (the oldest dropped past
    /// [`MAX_CHAIN`]).
    pub(super) fn lineage(&self, serial: u32) -> Lineage {
        let inherited: &[u32] = if self.chain_for == serial {
            &self.chain
        } else {
            &[]
        };
        let skip = (inherited.len() + 1).saturating_sub(MAX_CHAIN);
        let mut lineage = Lineage {
            blocks: [0; MAX_CHAIN],
            len: 0,
        };
        for (slot, &b) in lineage
            .blocks
            .iter_mut()
            .zip(inherited.iter().skip(skip).chain([serial].iter()))
        {
            *slot = b;
            lineage.len += 1;
        }
        lineage
    }

    /// Block `child` sees what `lineage` names: the blocks it came from dominate it, and no
    /// register changed on any way from them to `child` but those whose records were since
    /// made other blocks' (written or read there).
    pub(super) fn adopt(&mut self, lineage: &Lineage, child: u32) {
        self.chain.clear();
        self.chain
            .extend_from_slice(&lineage.blocks[..usize::from(lineage.len)]);
        self.chain_for = child;
    }

    /// Forgets what is known of `r<n>` (its writes were stored).
    pub(super) fn forget(&mut self, n: u32) {
        if let Some(entry) = self.values.get_mut(n as usize) {
            *entry = None;
        }
    }

    /// Records a call: the callee may write any register.
    pub(super) fn note_call(&mut self) {
        self.calls = self.calls.wrapping_add(1);
    }

    /// Calls recorded so far.
    pub(super) fn calls(&self) -> u32 {
        self.calls
    }

    /// Block `to` inherits what block `from` inherited, not what `from` learnt itself: `from`
    /// and `to` have the same dominating blocks, and no register changed on the way from them
    /// to `to` (the merge of a selection whose part wrote no register).
    pub(super) fn pass_on(&mut self, from: u32, to: u32) {
        if self.chain_for == from {
            self.chain_for = to;
        }
    }

    /// Register writes recorded so far.
    pub(super) fn writes(&self) -> u32 {
        self.writes
    }

    /// The bytes held allocated.
    pub(super) fn allocated_bytes(&self) -> usize {
        use std::mem::size_of;
        self.values.capacity() * size_of::<Option<Known>>()
            + self.reads.capacity() * size_of::<Option<(u32, ReadKey, Id)>>()
            + self.dirty.capacity() * size_of::<u32>()
    }

    /// What is known of `r<n>` in block `serial`.
    #[inline]
    pub(super) fn known(&self, serial: u32, n: u32) -> Option<&Known> {
        match self.values.get(n as usize) {
            Some(Some(k)) if self.sees(serial, k.serial) => Some(k),
            _ => None,
        }
    }

    /// The whole `uvec4` content of `r<n>` in block `serial`, when it is at hand (nothing
    /// pending).
    #[inline]
    pub(super) fn vec(&self, serial: u32, n: u32) -> Option<Id> {
        match self.known(serial, n) {
            Some(k) if k.pending == 0 => k.base,
            _ => None,
        }
    }

    /// Remembers `vec` as the whole content of `r<n>` in block `serial` (just loaded, or built
    /// from the pending writes): nothing is pending any more; the typed sources stay.
    pub(super) fn set_vec(&mut self, serial: u32, n: u32, vec: Id) {
        let seen =
            matches!(self.values.get(n as usize), Some(Some(k)) if self.sees(serial, k.serial));
        match self.entry(n) {
            // An inherited record becomes this block's (the inherited version is forgotten).
            Some(k) if seen => {
                k.serial = serial;
                k.base = Some(vec);
                k.pending = 0;
            }
            entry => {
                *entry = Some(Known {
                    serial,
                    base: Some(vec),
                    typed: [None; 4],
                    pending: 0,
                    dirty: false,
                })
            }
        }
    }

    /// Records a write in block `serial` of `value` (`n` components of the 32-bit `scalar`,
    /// or one replicated) into register components `comps` of `r<n>`, to be stored later.
    pub(super) fn write(&mut self, serial: u32, n: u32, value: (Id, Scalar, u8), comps: &[u8]) {
        if self.dirty.is_empty() {
            self.dirty_serial = serial;
        } else if self.dirty_serial != serial {
            self.lost = true;
        }
        self.writes = self.writes.wrapping_add(1);
        // Updated in place: a copy out and back would go through memory in pieces the
        // processor cannot forward (this runs at every register write).
        let seen =
            matches!(self.values.get(n as usize), Some(Some(k)) if self.sees(serial, k.serial));
        let entry = self.entry(n);
        if !seen {
            *entry = Some(Known {
                serial,
                base: None,
                typed: [None; 4],
                pending: 0,
                dirty: false,
            });
        }
        let Some(known) = entry.as_mut() else {
            return;
        };
        // An inherited record becomes this block's (the inherited version is forgotten).
        known.serial = serial;
        let (id, scalar, count) = value;
        for (k, &c) in comps.iter().enumerate() {
            if let Some(slot) = known.typed.get_mut(c as usize) {
                *slot = Some(Typed {
                    value: id,
                    scalar,
                    n: count,
                    pos: if count == 1 { 0 } else { k as u8 },
                });
                known.pending |= 1 << c;
            }
        }
        let newly_dirty = !known.dirty;
        known.dirty = true;
        if newly_dirty {
            self.dirty.push(n);
        }
    }

    /// The registers with writes to store, emptied (the list is handed back with
    /// [`TempValues::stored`]).
    pub(super) fn take_dirty(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.dirty)
    }

    /// Marks the registers of `list` (from [`TempValues::take_dirty`]) stored in block
    /// `serial`, and keeps the list's allocation.
    pub(super) fn stored(&mut self, serial: u32, mut list: Vec<u32>) {
        for &n in &list {
            if let Some(Some(k)) = self.values.get_mut(n as usize) {
                if k.serial == serial {
                    k.dirty = false;
                }
            }
        }
        list.clear();
        self.dirty = list;
    }

    /// Drops the writes not yet stored (their registers die with the invocation or function).
    pub(super) fn forget_writes(&mut self) {
        for &n in &self.dirty {
            if let Some(Some(k)) = self.values.get_mut(n as usize) {
                k.dirty = false;
            }
        }
        self.dirty.clear();
    }

    /// Whether writes were lost: recorded in an earlier block than `serial` and never stored,
    /// or overtaken by a write in another block.
    pub(super) fn lost_writes(&self, serial: u32) -> bool {
        self.lost || (!self.dirty.is_empty() && self.dirty_serial != serial)
    }

    /// The typed value register components `comps` of `r<n>` were all written from in block
    /// `serial` (one value for all), and the position in it of each component.
    pub(super) fn typed(&self, serial: u32, n: u32, comps: &[u8]) -> Option<(Typed, [u8; 4])> {
        let known = match self.values.get(n as usize) {
            Some(Some(k)) if self.sees(serial, k.serial) => k,
            _ => return None,
        };
        let (&first, rest) = comps.split_first()?;
        let source = (*known.typed.get(first as usize)?)?;
        let mut positions = [source.pos, 0, 0, 0];
        for (p, &c) in positions.iter_mut().skip(1).zip(rest) {
            let other = (*known.typed.get(c as usize)?)?;
            if other.value != source.value {
                return None;
            }
            *p = other.pos;
        }
        Some((source, positions))
    }

    fn entry(&mut self, n: u32) -> &mut Option<Known> {
        let n = n as usize;
        if n >= self.values.len() {
            self.values.resize(n + 1, None);
        }
        &mut self.values[n]
    }

    fn slot(key: &ReadKey) -> usize {
        let (id, sel, n, ty) = *key;
        let mut h = id.word().wrapping_mul(0x9e37_79b9);
        h ^= u32::from_le_bytes(sel).wrapping_mul(0x85eb_ca6b);
        h ^= ((u32::from(n) << 8) | ty as u32).wrapping_mul(0xc2b2_ae35);
        (h >> 26) as usize % READ_SLOTS
    }

    /// The result of the read `key` made earlier in block `serial`.
    pub(super) fn read(&self, serial: u32, key: &ReadKey) -> Option<Id> {
        match self.reads.get(Self::slot(key)) {
            Some(Some((s, k, id))) if k == key && self.sees(serial, *s) => Some(*id),
            _ => None,
        }
    }

    /// Remembers the result of the read `key` in block `serial`.
    pub(super) fn remember_read(&mut self, serial: u32, key: ReadKey, result: Id) {
        if self.reads.is_empty() {
            self.reads = vec![None; READ_SLOTS];
        }
        let slot = Self::slot(&key);
        self.reads[slot] = Some((serial, key, result));
    }
}

/// `p` padded with zeros to four entries (built in a register: a byte-wise copy read back as
/// a word at once stalls).
#[inline]
pub(super) fn pad(p: &[u8]) -> [u8; 4] {
    let word = p
        .iter()
        .take(4)
        .enumerate()
        .fold(0u32, |w, (k, &v)| w | u32::from(v) << (8 * k));
    word.to_le_bytes()
}

#[cfg(test)]
mod tests {
    use crate::test_support::assemble;

    /// `OpLoad`s in the translation of `body` (see [`count`]): each is a load of a register, as
    /// the program reads nothing else from memory.
    fn loads(body: &str) -> usize {
        count(body, spirv::Op::Load)
    }

    /// Instructions `op` in the translation of `body`, run as a subroutine of a compute shader
    /// with two temps: the registers are Private variables its caller could read after the
    /// call, so every register the body writes is stored by its return.
    fn count(body: &str, op: spirv::Op) -> usize {
        count_in(&format!("call l0\nret\nlabel l0\n{body}ret\n"), op)
    }

    /// Instructions `op` in the translation of `program`, the body of a compute shader with
    /// two temps.
    fn count_in(program: &str, op: spirv::Op) -> usize {
        let text = format!("cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_temps 2\n{program}");
        let bytes = assemble(&text);
        let spirv = crate::translate(&bytes, &crate::Options::default())
            .expect("translates")
            .spirv;
        let (mut at, mut n) = (5, 0);
        while at < spirv.len() {
            let (words, code) = ((spirv[at] >> 16) as usize, spirv[at] & 0xffff);
            n += usize::from(code == op as u32);
            at += words.max(1);
        }
        n
    }

    #[test]
    fn writes_are_stored_once_per_block() {
        // r0 written three times and r1 once: one store each, at the return.
        let straight = "mov r0.x, l(1)\nmov r0.y, l(2)\nmov r1.xyzw, l(1, 2, 3, 4)\n\
                        mov r0.x, l(3)\n";
        assert_eq!(count(straight, spirv::Op::Store), 2);
        // The write before the `if` is stored before its branch, the one inside before the
        // branch to the merge block.
        let branch = "mov r0.x, l(1)\nif_nz r1.x\nmov r0.x, l(2)\nmov r0.y, l(2)\nendif\n";
        assert_eq!(count(branch, spirv::Op::Store), 2);
        // Before a call, the callee reads the registers.
        let call = "mov r0.x, l(1)\ncall l1\nmov r0.x, l(2)\nret\nlabel l1\n\
                    iadd r1.x, r0.x, l(1)\n";
        assert_eq!(
            count(call, spirv::Op::Store),
            3,
            "r0 before the call, r0 and r1 after"
        );
        // The entry function's own registers die when it returns: nothing reads these writes.
        assert_eq!(
            count_in("mov r0.x, l(1)\nmov r1.x, l(2)\nret\n", spirv::Op::Store),
            0
        );
    }

    #[test]
    fn typed_values_are_reused_without_bitcasts() {
        // Each float result is bitcast once, to be stored; reading r0.xyz back as float takes
        // the mul's value itself: no shuffle, no bitcast.
        let same = "mul r0.xyz, l(1.0, 2.0, 3.0, 0.0), l(2.0, 2.0, 2.0, 0.0)\n\
                    add r1.xyz, r0.xyzx, r0.xyzx\n";
        assert_eq!(count(same, spirv::Op::Bitcast), 2);

        // Read as integers, r0 is read from the register: a shuffle and a bitcast.
        let retyped = "mul r0.xyz, l(1.0, 2.0, 3.0, 0.0), l(2.0, 2.0, 2.0, 0.0)\n\
                       iadd r1.xyz, r0.xyzx, r0.xyzx\n";
        assert_eq!(
            count(retyped, spirv::Op::Bitcast),
            3,
            "mul store, iadd read, iadd store"
        );
        // r0.y overwritten by an integer operation: r0.xy read as float again comes from two
        // values, so it is read from the register (one shuffle and one bitcast more).
        let mixed = "mul r0.xyz, l(1.0, 2.0, 3.0, 0.0), l(2.0, 2.0, 2.0, 0.0)\n\
                     iadd r0.y, r0.y, l(1)\n\
                     add r1.xy, r0.xyxx, r0.xyxx\n";
        let bitcasts = count(mixed, spirv::Op::Bitcast);
        assert_eq!(
            bitcasts, 5,
            "mul store, iadd read + store, add read + store"
        );
    }

    #[test]
    fn registers_are_forwarded_within_a_block() {
        // Written whole, then read three times and partly rewritten: no load at all.
        let straight = "mov r0.xyzw, l(1, 2, 3, 4)\nadd r1.xyzw, r0.xyzw, r0.xyzw\n\
                        mul r1.xy, r1.xyxx, r0.zwzz\nmov r0.x, r1.y\n";
        assert_eq!(loads(straight), 0);
        // Read before any write in the block: one load, then forwarded.
        assert_eq!(
            loads("add r1.xyzw, r0.xyzw, r0.xyzw\nmul r1.xyzw, r1.xyzw, r0.xyzw\n"),
            1
        );
    }

    #[test]
    fn forwarding_follows_dominance() {
        // r0 is known in the entry block, which dominates both parts of the `if` and the block
        // after `endif`, and no part writes r0: nothing loads it.
        let branches = "mov r0.xyzw, l(1, 2, 3, 4)\nif_nz r0.x\nmov r1.xyzw, r0.xyzw\nelse\n\
                        mov r1.xyzw, r0.zwxy\nendif\nmov r1.xyzw, r0.xyzw\n";
        assert_eq!(loads(branches), 0);
        // The loop header is reached from the back edge: the body loads r0 once, for the
        // `breakc`, and the block after the `breakc` (reached from that one alone, which wrote
        // no register) reads it from there.
        let looped = "mov r0.xyzw, l(0, 0, 0, 0)\nloop\nbreakc_nz r0.x\n\
                      iadd r0.x, r0.x, l(1)\nendloop\n";
        assert_eq!(loads(looped), 1);
        // A register the loop does not write (r1) is known all through it and after it: only
        // r0, which the loop writes, is loaded, in the body and for the partial write after.
        let invariant = "mov r1.xyzw, l(5, 5, 5, 5)\nmov r0.xyzw, l(0, 0, 0, 0)\nloop\n\
                         uge r0.y, r0.x, r1.x\nbreakc_nz r0.y\niadd r0.x, r0.x, r1.y\n\
                         endloop\niadd r0.z, r1.x, r1.w\n";
        assert_eq!(loads(invariant), 2);
        // A loop that calls a subroutine (which may write r1) reloads everything.
        let calling = "mov r1.xyzw, l(5, 5, 5, 5)\nloop\nbreakc_nz r1.x\ncall l1\nendloop\n\
                       mov r0.xyzw, r1.xyzw\nret\nlabel l1\nmov r1.x, l(0)\n";
        assert_eq!(
            loads(calling),
            3,
            "r1 in the body and after the loop; r1 in l1"
        );
        // A register the first part writes: its record becomes that part's, which neither the
        // `else` part nor the block after `endif` sees; both load it.
        let rewritten = "mov r0.xyzw, l(1, 2, 3, 4)\nif_nz r0.x\nmov r0.x, l(5)\n\
                         iadd r1.xyzw, r0.xxxx, r0.yyyy\nelse\nmov r1.xyzw, r0.xyzw\nendif\n\
                         mov r1.xyzw, r0.xyzw\n";
        assert_eq!(loads(rewritten), 2, "in the else part and after endif");
    }

    #[test]
    fn a_call_ends_what_a_selection_passes_on() {
        // A call in the first part of an `if` may write r0: the block after `endif` loads it
        // again; the `else` part, not reached through the call, does not.
        let program = "mov r0.xyzw, l(1, 2, 3, 4)\nif_nz r1.x\ncall l0\nelse\n\
                       mov r1.xyzw, r0.xyzw\nendif\nmov r1.xyzw, r0.xyzw\nret\n\
                       label l0\nmov r0.xyzw, l(7, 7, 7, 7)\nret\n";
        // r1.x for the condition, r0 after `endif`.
        assert_eq!(count_in(program, spirv::Op::Load), 2);
        // `callc` runs a subroutine that may write every register: after it, r0 is loaded
        // again although the entry block knew it.
        let program = "mov r0.xyzw, l(1, 2, 3, 4)\ncallc_nz r1.x, l0\nmov r1.xyzw, r0.xyzw\nret\n\
                       label l0\nmov r0.x, l(7)\nret\n";
        // r1.x for the condition and r0 after the call; in the subroutine, r0's other
        // components for its partial write.
        assert_eq!(count_in(program, spirv::Op::Load), 3);
    }
}
