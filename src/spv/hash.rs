//! A small, seeded multiplicative hasher for the type and constant caches.
//!
//! The keys are a few words of ids and bits; the standard library's SipHash would cost more than
//! the instruction a lookup saves. This is the "Fx" scheme (rustc's): rotate, xor, multiply per
//! word, with the final rotation of `rustc-hash` 2 so that the table's bucket index comes from
//! the product's well-mixed high bits (float constants such as 0.5, 1.0, 2.0 differ only in
//! their high bits and would otherwise all probe from the same bucket). Each map starts from a
//! random seed (taken once from the standard library's `RandomState`), so a shader cannot be
//! crafted to make its own constants collide; the seed changes no output, only lookup order.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

const K: u64 = 0xf135_7aea_2e62_a9c5;

/// The hasher state.
#[derive(Clone, Copy)]
pub(crate) struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            self.add(u64::from_le_bytes(b));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn write_isize(&mut self, i: isize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

/// Builds [`FxHasher`]s from one random seed per map.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FxBuildHasher(u64);

impl Default for FxBuildHasher {
    fn default() -> FxBuildHasher {
        FxBuildHasher(RandomState::new().hash_one(0x5eed_u64))
    }
}

impl BuildHasher for FxBuildHasher {
    type Hasher = FxHasher;

    #[inline]
    fn build_hasher(&self) -> FxHasher {
        FxHasher(self.0)
    }
}

/// A `HashMap` with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, FxBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Float bit patterns that differ only in their high bits spread over the low bits.
    #[test]
    fn high_bit_differences_reach_the_low_bits() {
        let b = FxBuildHasher(0); // deterministic
        let mut low: Vec<u64> = [0.5f32, 1.0, 2.0, 4.0, 8.0, -1.0]
            .iter()
            .map(|f| b.hash_one((7u32, u64::from(f.to_bits()))) & 63)
            .collect();
        low.sort_unstable();
        low.dedup();
        assert!(low.len() >= 4, "{low:?}");
    }
}
