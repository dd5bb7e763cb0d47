//! Per-thread scratch storage that [`translate`](crate::translate) reuses between calls.
//!
//! Contract: a translation borrows its thread's scratch (the IR instruction arena and the
//! SPIR-V module under construction), empties it, builds in it and gives it back, so that a
//! thread translating shaders one after another allocates those buffers once instead of once
//! per shader (and, for large shaders, does not map, fault in and unmap fresh pages every
//! time). Nothing of one translation's result lives in the scratch: it is emptied before use,
//! and a translation that fails or unwinds simply does not give it back. What a thread keeps is
//! bounded by [`KEEP_BYTES`] per buffer; a larger buffer is freed instead of kept, so memory
//! stays bounded however many and however large the shaders a thread sees.

use std::cell::Cell;
use std::mem::size_of;

use crate::ir;

/// The most bytes of each buffer a thread keeps between translations (8 MiB in all): room for
/// the IR and the SPIR-V of all but the very largest shaders of real games (the 99th percentile
/// of the corpus needs under 1 MiB of each; 10 shaders in 7850 need more than 2 MiB).
pub const KEEP_BYTES: usize = 4 << 20;

/// The buffers of one thread.
#[derive(Default)]
pub struct Scratch {
    /// The IR instruction arena ([`ir::Module::insts`]), empty.
    pub insts: Vec<ir::Inst>,
    /// The back end's buffers: the SPIR-V module of the last translation and the emitter's
    /// tables, emptied by the next.
    pub emit: crate::back::spirv::Scratch,
}

thread_local! {
    static SCRATCH: Cell<Scratch> = const {
        Cell::new(Scratch {
            insts: Vec::new(),
            emit: crate::back::spirv::Scratch::EMPTY,
        })
    };
}

/// Frees the buffers this thread keeps for its next translation (at most 8 MiB; see
/// [`translate`](crate::translate)): for a thread that is done translating for a while, or to
/// measure what a translation allocates from nothing. The next translation on the thread
/// allocates them anew.
pub fn release_thread_buffers() {
    drop(Scratch::take());
}

impl Scratch {
    /// Takes this thread's scratch (empty buffers when another translation on this thread
    /// holds it, or the thread is being torn down).
    pub fn take() -> Scratch {
        SCRATCH.try_with(Cell::take).unwrap_or_default()
    }

    /// Gives the scratch back to this thread, dropping whichever buffer is larger than
    /// [`KEEP_BYTES`].
    pub fn give_back(mut self) {
        self.insts.clear();
        if self.insts.capacity() * size_of::<ir::Inst>() > KEEP_BYTES {
            self.insts = Vec::new();
        }
        if self.emit.allocated_bytes() > KEEP_BYTES {
            self.emit = crate::back::spirv::Scratch::default();
        }
        // A thread being torn down has no scratch to keep: the buffers are freed here.
        let _ = SCRATCH.try_with(|cell| cell.set(self));
    }

    /// The bytes this scratch holds allocated.
    #[cfg(test)]
    pub fn allocated_bytes(&self) -> usize {
        self.insts.capacity() * size_of::<ir::Inst>() + self.emit.allocated_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support;

    /// The SPIR-V and reflection of a translation, or its error, as text to compare.
    fn outcome(bytes: &[u8]) -> String {
        match crate::translate(bytes, &crate::Options::default()) {
            Ok(t) => format!("{:?} {:?}", t.spirv, t.info),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn reused_buffers_translate_as_fresh_ones_do() {
        // Every 16th corpus blob, or the repository's samples without the corpus.
        let mut paths: Vec<_> = test_support::corpus_blobs()
            .into_iter()
            .step_by(16)
            .collect();
        if paths.is_empty() {
            eprintln!("corpus absent: comparing on the repository's samples");
            let dir = test_support::fixtures_dir().join("samples");
            paths = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "dxbc"))
                .collect();
        }
        let mut inputs: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
        assert!(inputs.len() > 4, "too few inputs");
        // Largest first: every later translation starts in buffers a larger one filled.
        inputs.sort_by_key(|b| std::cmp::Reverse(b.len()));
        let fresh: Vec<String> = inputs
            .iter()
            .map(|b| {
                // While this holds the thread's scratch, the translation starts from nothing.
                let held = Scratch::take();
                let o = outcome(b);
                held.give_back();
                o
            })
            .collect();
        let mut reused = 0;
        for (b, expected) in inputs.iter().zip(&fresh) {
            assert_eq!(
                &outcome(b),
                expected,
                "a translation in reused buffers differs"
            );
            reused += 1;
        }
        // And in the other order, small shaders before large ones.
        for (b, expected) in inputs.iter().zip(&fresh).rev() {
            assert_eq!(
                &outcome(b),
                expected,
                "a translation in reused buffers differs"
            );
        }
        assert!(
            Scratch::take().allocated_bytes() > 0,
            "nothing was kept for reuse"
        );
        eprintln!("{reused} translations in reused buffers match fresh ones");
    }

    #[test]
    fn a_thread_keeps_small_buffers_and_frees_large_ones() {
        let mut scratch = Scratch::take();
        scratch.insts = Vec::with_capacity(16);
        scratch.emit = crate::back::spirv::Scratch::with_module(crate::spv::Module::new(
            crate::spv::Version::V1_3,
        ));
        let kept = scratch.allocated_bytes();
        assert!(kept > 0 && kept < KEEP_BYTES);
        scratch.give_back();
        let again = Scratch::take();
        assert_eq!(again.allocated_bytes(), kept);
        // While one translation holds the scratch, another on the same thread gets none.
        assert_eq!(Scratch::take().allocated_bytes(), 0);

        let mut large = again;
        large.insts = Vec::with_capacity(KEEP_BYTES / size_of::<ir::Inst>() + 1);
        large.give_back();
        let after = Scratch::take();
        assert!(
            after.insts.capacity() == 0,
            "an arena over the limit is freed"
        );
        assert!(
            after.emit.allocated_bytes() > 0,
            "the module under the limit is kept"
        );
        after.give_back();
        release_thread_buffers();
        assert_eq!(
            Scratch::take().allocated_bytes(),
            0,
            "released buffers are gone"
        );
    }
}
