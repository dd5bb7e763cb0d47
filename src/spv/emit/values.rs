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
}

/// Store-to-load forwarding for `r#`: within one block (no label, function start or call since,
/// see [`crate::spv::Module::block_serial`]), a register read after a load or store of it uses the value
/// already at hand instead of loading it again. Temps are invocation-private and written only
/// by `Emitter::store`, so the remembered value is the register's content.
///
/// Besides the register's `uvec4` content, each component remembers the typed value it was
/// last stored from ([`Typed`]): reading it back as the same type takes that value directly,
/// with no shuffle and no bitcast.
#[derive(Debug, Default)]
pub struct TempValues {
    /// Per register: what is known of it, and the block serial it is known in.
    values: Vec<Option<Known>>,
    /// Recent component reads: ((register value, selection, count, type), result), valid in
    /// the block it was made in (`serial`), direct-mapped by a hash of the key.
    reads: Vec<Option<(u32, ReadKey, Id)>>,
}

/// What is known of one register in one block.
#[derive(Clone, Copy, Debug)]
struct Known {
    /// The block serial.
    serial: u32,
    /// The register's content (`uvec4`).
    vec: Id,
    /// Per component: the typed value it was stored from, when the block stored it.
    typed: [Option<Typed>; 4],
}

/// Where a register component's content came from: component `pos` of `value`, a value of
/// `n` components of `scalar` (a 32-bit type) whose bits the component holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Typed {
    /// The value stored.
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
    /// The value of `r<n>` known in block `serial`.
    pub(super) fn get(&self, serial: u32, n: u32) -> Option<Id> {
        match self.values.get(n as usize) {
            Some(Some(k)) if k.serial == serial => Some(k.vec),
            _ => None,
        }
    }

    /// Remembers `vec`, just loaded, as the content of `r<n>` in block `serial`.
    pub(super) fn set_loaded(&mut self, serial: u32, n: u32, vec: Id) {
        *self.entry(n) = Some(Known {
            serial,
            vec,
            typed: [None; 4],
        });
    }

    /// Remembers `vec` as the content of `r<n>` in block `serial` after a store of
    /// `value` (`n` components of `scalar`, or one replicated) into register components
    /// `comps`. A 64-bit `value` records no typed source.
    pub(super) fn set_stored(
        &mut self,
        serial: u32,
        n: u32,
        vec: Id,
        value: (Id, Scalar, u8),
        comps: &[u8],
    ) {
        let entry = self.entry(n);
        let mut typed = match entry {
            Some(k) if k.serial == serial => k.typed,
            _ => [None; 4],
        };
        let (id, scalar, count) = value;
        for (k, &c) in comps.iter().enumerate() {
            let source = (scalar != Scalar::F64).then_some(Typed {
                value: id,
                scalar,
                n: count,
                pos: if count == 1 { 0 } else { k as u8 },
            });
            if let Some(slot) = typed.get_mut(c as usize) {
                *slot = source;
            }
        }
        *entry = Some(Known { serial, vec, typed });
    }

    /// The typed value register components `comps` of `r<n>` were all stored from in block
    /// `serial` (one value for all), and the position in it of each component.
    pub(super) fn typed(&self, serial: u32, n: u32, comps: &[u8]) -> Option<(Typed, [u8; 4])> {
        let known = match self.values.get(n as usize) {
            Some(Some(k)) if k.serial == serial => k,
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
            Some(Some((s, k, id))) if *s == serial && k == key => Some(*id),
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

#[cfg(test)]
mod tests {
    use crate::dxbc::asm::assemble;

    /// `OpLoad`s in the translation of `body` (a compute shader with two temps): each is a load
    /// of a register, as the program reads nothing else from memory.
    fn loads(body: &str) -> usize {
        count(body, spirv::Op::Load)
    }

    /// Instructions `op` in the translation of `body` (a compute shader with two temps).
    fn count(body: &str, op: spirv::Op) -> usize {
        let text = format!("cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_temps 2\n{body}ret\n");
        let bytes = assemble(&text).expect("assembles");
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
    fn forwarding_ends_at_block_boundaries() {
        // r0 is known in the entry block; the `if` body and the block after `endif` must load
        // it again (each is reached from elsewhere), and the loop header too.
        let branches = "mov r0.xyzw, l(1, 2, 3, 4)\nif_nz r0.x\nmov r1.xyzw, r0.xyzw\nendif\n\
                        mov r1.xyzw, r0.xyzw\n";
        assert_eq!(loads(branches), 2);
        let looped = "mov r0.xyzw, l(0, 0, 0, 0)\nloop\nbreakc_nz r0.x\n\
                      iadd r0.x, r0.x, l(1)\nendloop\n";
        assert!(loads(looped) >= 1, "the loop body must reload r0");
    }
}
