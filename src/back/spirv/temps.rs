//! `r#` registers: deferred writes, the register content built from them, and the stores that
//! end a block.
//!
//! Contract: a write to `r#` emits nothing; it is recorded in [`TempValues`] with the typed
//! value it came from. [`Emitter::temp_vec`] gives a register's `uvec4` content in the current
//! block (building it from the recorded writes over the loaded or known content), and
//! [`Emitter::flush_temps`] stores every register written in the block. Every point where the
//! block ends or other code may read the variables flushes first: control-flow instructions
//! (before their condition's branch), [`Emitter::guarded`] and
//! [`Emitter::guarded_value`], and the end of a function. A `ret` drops the writes instead when
//! the registers are the function's own variables (they die with it). A write recorded while
//! another block's writes are pending is an emitter bug, reported by
//! [`Emitter::check_temp_writes`] as an error rather than emitted as wrong code.
//!
//! [`TempValues`]: super::values::TempValues

use super::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::spv::Id;

impl Emitter<'_> {
    /// Records the write of `value` (32-bit components; a scalar is replicated) to register
    /// components `comps` of `r<n>`.
    pub(super) fn write_temp(
        &mut self,
        span: u32,
        n: u32,
        value: Value,
        comps: &[u8],
    ) -> Result<(), Error> {
        self.temp(span, n)?;
        if value.n != 1 && value.n as usize != comps.len() {
            return Err(Error::internal(
                span,
                "value width does not match the write mask",
            ));
        }
        let serial = self.m.block_serial();
        self.temp_values
            .write(serial, n, (value.id, value.scalar, value.n), comps);
        Ok(())
    }

    /// The content of `r<n>` in the current block as a `uvec4`: the value at hand, or the
    /// variable's (loaded) with this block's writes put in.
    #[inline]
    pub(super) fn temp_vec(&mut self, span: u32, n: u32) -> Result<Id, Error> {
        match self.temp_values.vec(self.m.block_serial(), n) {
            Some(vec) => Ok(vec),
            None => self.build_temp_vec(span, n),
        }
    }

    /// [`Emitter::temp_vec`] when the content is not at hand: loaded, and the pending writes
    /// put in.
    fn build_temp_vec(&mut self, span: u32, n: u32) -> Result<Id, Error> {
        let var = self.temp(span, n)?;
        let serial = self.m.block_serial();
        let (base, pending, typed) = match self.temp_values.known(serial, n) {
            Some(k) => (k.base, k.pending, k.typed),
            None => (None, 0, [None; 4]),
        };
        if let (Some(base), 0) = (base, pending) {
            return Ok(base);
        }
        let uvec4 = self.ty(Scalar::U32, 4);
        let mut acc = match base {
            Some(base) => Some(base),
            None if pending != 0xf => Some(self.m.load(uvec4, var.id)),
            None => None,
        };
        // One group per value written: its bits put into the components it wrote.
        let mut left = pending;
        while left != 0 {
            let first = left.trailing_zeros() as usize;
            let Some(source) = typed.get(first).copied().flatten() else {
                return Err(Error::internal(
                    span,
                    "pending register write without a value",
                ));
            };
            let mut group = 0u8;
            let mut sel = [0u32, 1, 2, 3];
            for (c, t) in typed.iter().enumerate() {
                match t {
                    Some(t) if left & (1 << c) != 0 && t.value == source.value => {
                        group |= 1 << c;
                        sel[c] = 4 + u32::from(t.pos);
                    }
                    _ => {}
                }
            }
            left &= !group;
            let bits = if source.scalar == Scalar::U32 {
                source.value
            } else {
                let t = self.ty(Scalar::U32, source.n);
                self.m.bitcast(t, source.value)
            };
            acc = Some(match (acc, source.n) {
                (None, 1) => self.m.composite_construct(uvec4, &[bits; 4]),
                (Some(mut vec), 1) => {
                    for c in 0..4u32 {
                        if group & (1 << c) != 0 {
                            vec = self.m.composite_insert(uvec4, bits, vec, &[c]);
                        }
                    }
                    vec
                }
                (Some(vec), _) => self.m.vector_shuffle(uvec4, vec, bits, &sel),
                (None, width) => {
                    // Nothing else known yet: the components outside the group are filled
                    // by later groups, so any component of `bits` will do for them.
                    let own = sel.map(|s| s.saturating_sub(4));
                    if width == 4 && own == [0, 1, 2, 3] {
                        bits
                    } else {
                        self.m.vector_shuffle(uvec4, bits, bits, &own)
                    }
                }
            });
        }
        let vec = acc.ok_or_else(|| Error::internal(span, "register content unknown"))?;
        self.temp_values.set_vec(serial, n, vec);
        Ok(vec)
    }

    /// Stores every register written in the current block.
    pub fn flush_temps(&mut self) -> Result<(), Error> {
        let span = self.flow.span;
        let list = self.temp_values.take_dirty();
        if list.is_empty() {
            return Ok(());
        }
        let serial = self.m.block_serial();
        for &n in &list {
            let vec = self.temp_vec(span, n)?;
            let var = self.temp(span, n)?;
            self.m.store(var.id, vec);
        }
        self.temp_values.stored(serial, list);
        Ok(())
    }

    /// Drops the writes not yet stored: the code that follows returns from the function that
    /// owns the registers, so nothing reads them again.
    pub fn forget_temp_writes(&mut self) {
        self.temp_values.forget_writes();
    }

    /// An error when register writes were recorded and never stored (a block ended without
    /// [`Emitter::flush_temps`]).
    pub fn check_temp_writes(&self, span: u32) -> Result<(), Error> {
        if self.temp_values.lost_writes(self.m.block_serial()) {
            return Err(Error::internal(
                span,
                "register writes were not stored before their block ended",
            ));
        }
        Ok(())
    }
}
