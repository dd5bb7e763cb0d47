//! One section's words, and the encoding of instructions into them (SPIR-V spec §2.3).
//!
//! Fixed-size instructions are written with one `push` of the first word and one
//! `extend_from_slice` of an array; variable-size ones with [`Words::begin`], pushes, and
//! [`Words::end`], which patches the word count into the first word.

use spirv::Op;

use super::{Error, Id, MAX_INSTRUCTION_WORDS};

/// The words of one logical-layout section.
#[derive(Clone, Debug, Default)]
pub(crate) struct Words(pub(crate) Vec<u32>);

impl Words {
    /// Empty, with room for `words` words.
    pub(crate) fn with_capacity(words: usize) -> Words {
        Words(Vec::with_capacity(words))
    }

    /// An instruction with exactly `N` (at most 7) operand words, appended with one copy.
    #[inline]
    pub(crate) fn inst<const N: usize>(&mut self, op: Op, operands: [u32; N]) {
        const { assert!(N < 8) };
        let mut buf = [0u32; 8];
        buf[0] = ((N as u32 + 1) << 16) | op as u32;
        buf[1..=N].copy_from_slice(&operands);
        self.0.extend_from_slice(&buf[..=N]);
    }

    /// Starts a variable-size instruction; returns its start for [`Words::end`].
    #[inline]
    pub(crate) fn begin(&mut self, op: Op) -> usize {
        let start = self.0.len();
        self.0.push(op as u32);
        start
    }

    /// One operand word.
    #[inline]
    pub(crate) fn push(&mut self, word: u32) {
        self.0.push(word);
    }

    /// Operand words.
    #[inline]
    pub(crate) fn extend(&mut self, words: &[u32]) {
        self.0.extend_from_slice(words);
    }

    /// Id operands.
    #[inline]
    pub(crate) fn ids(&mut self, ids: &[Id]) {
        self.0.extend(ids.iter().map(|id| id.word()));
    }

    /// A literal string: UTF-8 bytes, NUL-terminated, padded with NULs to a word boundary, packed
    /// little-endian (spec §2.2.1). A NUL inside `s` is an error, and nothing is written.
    pub(crate) fn string(&mut self, op: Op, s: &str) -> Result<(), Error> {
        let bytes = s.as_bytes();
        if let Some(position) = bytes.iter().position(|&b| b == 0) {
            return Err(Error::NulInString { op, position });
        }
        self.0.reserve(bytes.len() / 4 + 1);
        let mut chunks = bytes.chunks_exact(4);
        for c in &mut chunks {
            self.0.push(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
        // The tail (0..=3 bytes) plus the terminating NUL always fit in one more word.
        let mut last = [0u8; 4];
        let tail = chunks.remainder();
        last[..tail.len()].copy_from_slice(tail);
        self.0.push(u32::from_le_bytes(last));
        Ok(())
    }

    /// A whole instruction `op [result type] [result] operands...`.
    #[inline]
    pub(crate) fn instruction(
        &mut self,
        op: Op,
        result_type: Option<Id>,
        result: Option<Id>,
        operands: &[u32],
    ) -> Result<(), Error> {
        let start = self.begin(op);
        if let Some(t) = result_type {
            self.push(t.word());
        }
        if let Some(r) = result {
            self.push(r.word());
        }
        self.extend(operands);
        self.end(start)
    }

    /// Finishes the instruction begun at `start` by writing its word count. An instruction over
    /// [`MAX_INSTRUCTION_WORDS`] is removed and reported.
    #[inline]
    pub(crate) fn end(&mut self, start: usize) -> Result<(), Error> {
        let count = self.0.len() - start;
        let Some(first) = self.0.get_mut(start) else {
            return Ok(());
        };
        if count > MAX_INSTRUCTION_WORDS {
            let op = *first & 0xFFFF;
            self.0.truncate(start);
            return Err(Error::InstructionTooLong {
                op: op_from_word(op),
                words: count,
            });
        }
        *first |= (count as u32) << 16;
        Ok(())
    }

    /// Drops an instruction begun at `start` (after a failed operand).
    pub(crate) fn cancel(&mut self, start: usize) {
        self.0.truncate(start);
    }

    /// Number of words.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Removes every word, keeping the allocation.
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }
}

/// The `Op` of an opcode number this module wrote (used only to name it in an error).
fn op_from_word(word: u32) -> Op {
    Op::from_u32(word).unwrap_or(Op::Nop)
}
