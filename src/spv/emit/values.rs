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
#[derive(Debug, Default)]
pub struct TempValues {
    /// Per register: the block serial it was remembered in, and the value.
    values: Vec<Option<(u32, Id)>>,
    /// Recent component reads: ((register value, selection, count, type), result), valid in
    /// the block it was made in (`serial`), direct-mapped by a hash of the key.
    reads: Vec<Option<(u32, ReadKey, Id)>>,
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
            Some(&Some((s, id))) if s == serial => Some(id),
            _ => None,
        }
    }

    /// Remembers `value` as the content of `r<n>` in block `serial`.
    pub(super) fn set(&mut self, serial: u32, n: u32, value: Id) {
        let n = n as usize;
        if n >= self.values.len() {
            self.values.resize(n + 1, None);
        }
        self.values[n] = Some((serial, value));
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
        let text = format!("cs_5_0\ndcl_thread_group 1, 1, 1\ndcl_temps 2\n{body}ret\n");
        let bytes = assemble(&text).expect("assembles");
        let spirv = crate::translate(&bytes, &crate::Options::default())
            .expect("translates")
            .spirv;
        let (mut at, mut n) = (5, 0);
        while at < spirv.len() {
            let (count, op) = ((spirv[at] >> 16) as usize, spirv[at] & 0xffff);
            n += usize::from(op == spirv::Op::Load as u32);
            at += count.max(1);
        }
        n
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
