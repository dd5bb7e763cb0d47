//! The constant cache: OpConstant*, OpConstantNull and OpUndef, deduplicated by (type, bits).
//!
//! Floats are keyed by their bits, so `0.0` and `-0.0` (and NaNs with different payloads) stay
//! distinct. Composites of up to four constituents (every vector) are deduplicated; larger ones
//! (arrays such as an immediate constant buffer) are written fresh, which SPIR-V allows, so that
//! a lookup never allocates.

use spirv::Op;

use super::hash::FxHashMap;
use super::{Error, Id, Module};

/// The most constituents of a composite constant the cache keys on.
const MAX_CACHED_CONSTITUENTS: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum ConstantKey {
    Null(Id),
    Undef(Id),
    Composite(Id, u8, [u32; MAX_CACHED_CONSTITUENTS]),
}

/// The cached constants.
#[derive(Clone, Debug, Default)]
pub(super) struct ConstantCache {
    /// Scalars by (type, bits): the most frequent lookup, kept on the smallest key.
    scalars: FxHashMap<(u32, u64), Id>,
    /// `false`, `true`.
    bools: [Option<Id>; 2],
    /// Null, undef and composite constants.
    map: FxHashMap<ConstantKey, Id>,
}

impl ConstantCache {
    /// The bytes the cache holds allocated.
    pub(super) fn allocated_bytes(&self) -> usize {
        use std::mem::size_of;
        self.scalars.capacity() * (size_of::<((u32, u64), Id)>() + 1)
            + self.map.capacity() * (size_of::<(ConstantKey, Id)>() + 1)
    }

    /// Empty, with room for `n` scalar constants.
    pub(super) fn with_capacity(n: usize) -> ConstantCache {
        ConstantCache {
            scalars: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            ..ConstantCache::default()
        }
    }

    pub(super) fn clear(&mut self) {
        self.scalars.clear();
        self.bools = [None; 2];
        self.map.clear();
    }
}

impl Module {
    /// The cached constant for `key`, or a new `op ty id operands`.
    fn cached_constant(&mut self, key: ConstantKey, op: Op, ty: Id, operands: &[u32]) -> Id {
        if let Some(&id) = self.constants.map.get(&key) {
            return id;
        }
        let id = self.new_constant(op, ty, operands);
        self.constants.map.insert(key, id);
        id
    }

    /// The cached scalar OpConstant of `ty` with `bits`, or a new one with `words`.
    #[inline]
    fn cached_scalar(&mut self, ty: Id, bits: u64, words: &[u32]) -> Id {
        if let Some(&id) = self.constants.scalars.get(&(ty.word(), bits)) {
            return id;
        }
        let id = self.new_constant(Op::Constant, ty, words);
        self.constants.scalars.insert((ty.word(), bits), id);
        id
    }

    /// Writes `op ty %new operands` among the global values.
    fn new_constant(&mut self, op: Op, ty: Id, operands: &[u32]) -> Id {
        let id = self.alloc_id();
        let start = self.globals.begin(op);
        self.globals.extend(&[ty.word(), id.word()]);
        self.globals.extend(operands);
        let r = self.globals.end(start);
        self.check(r);
        id
    }

    /// An OpConstant of a scalar type of at most 32 bits with the literal word `bits` (for a
    /// narrower signed type, sign-extended to 32 bits as the spec requires).
    pub fn constant_bits32(&mut self, ty: Id, bits: u32) -> Id {
        self.cached_scalar(ty, u64::from(bits), &[bits])
    }

    /// An OpConstant of a 64-bit scalar type with the literal `bits` (low word first).
    pub fn constant_bits64(&mut self, ty: Id, bits: u64) -> Id {
        self.cached_scalar(ty, bits, &[bits as u32, (bits >> 32) as u32])
    }

    /// A `uint` constant.
    pub fn constant_u32(&mut self, value: u32) -> Id {
        let ty = self.type_u32();
        self.constant_bits32(ty, value)
    }

    /// An `int` constant.
    pub fn constant_i32(&mut self, value: i32) -> Id {
        let ty = self.type_i32();
        self.constant_bits32(ty, value as u32)
    }

    /// A `float` constant (keyed by its bits).
    pub fn constant_f32(&mut self, value: f32) -> Id {
        let ty = self.type_f32();
        self.constant_bits32(ty, value.to_bits())
    }

    /// A `double` constant (keyed by its bits; declares Float64).
    pub fn constant_f64(&mut self, value: f64) -> Id {
        let ty = self.type_float(64);
        self.constant_bits64(ty, value.to_bits())
    }

    /// OpConstantTrue or OpConstantFalse.
    pub fn constant_bool(&mut self, value: bool) -> Id {
        let slot = usize::from(value);
        if let Some(Some(id)) = self.constants.bools.get(slot) {
            return *id;
        }
        let ty = self.type_bool();
        let op = if value {
            Op::ConstantTrue
        } else {
            Op::ConstantFalse
        };
        let id = self.new_constant(op, ty, &[]);
        if let Some(b) = self.constants.bools.get_mut(slot) {
            *b = Some(id);
        }
        id
    }

    /// OpConstantComposite of `ty` from constant `constituents` (cached up to four constituents).
    pub fn constant_composite(&mut self, ty: Id, constituents: &[Id]) -> Id {
        if constituents.len() <= MAX_CACHED_CONSTITUENTS {
            let mut parts = [0u32; MAX_CACHED_CONSTITUENTS];
            for (p, c) in parts.iter_mut().zip(constituents) {
                *p = c.word();
            }
            let key = ConstantKey::Composite(ty, constituents.len() as u8, parts);
            let words = &parts[..constituents.len()];
            return self.cached_constant(key, Op::ConstantComposite, ty, words);
        }
        let id = self.alloc_id();
        let start = self.globals.begin(Op::ConstantComposite);
        self.globals.extend(&[ty.word(), id.word()]);
        self.globals.ids(constituents);
        let r = self.globals.end(start);
        self.check(r);
        id
    }

    /// A vector constant whose components are all `component`.
    pub fn constant_splat(&mut self, vector_ty: Id, component: Id, count: u32) -> Id {
        let parts = [component; 16];
        match parts.get(..count as usize) {
            Some(parts) if count >= 2 => self.constant_composite(vector_ty, parts),
            _ => {
                let what = "a vector has 2 to 16 components";
                self.fail(Error::InvalidOperand {
                    op: Op::ConstantComposite,
                    what,
                });
                self.alloc_id()
            }
        }
    }

    /// OpConstantNull of `ty`.
    pub fn constant_null(&mut self, ty: Id) -> Id {
        self.cached_constant(ConstantKey::Null(ty), Op::ConstantNull, ty, &[])
    }

    /// OpUndef of `ty`, declared once per type among the global values.
    pub fn undef(&mut self, ty: Id) -> Id {
        self.cached_constant(ConstantKey::Undef(ty), Op::Undef, ty, &[])
    }
}
