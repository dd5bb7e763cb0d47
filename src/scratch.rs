//! The per-thread [`Translator`] that the free [`translate`](crate::translate) uses, so that a
//! thread translating shaders one after another reuses its buffers as an explicit
//! [`Translator`] does.
//!
//! Contract: a translation borrows its thread's translator and gives it back; while one
//! translation holds it (a translation cannot nest, but a thread being torn down has none), a
//! translation gets a fresh one, so nothing is ever shared. A translation that fails gives it
//! back too (its buffers emptied and bounded as after any translation, see
//! [`crate::KEEP_BYTES`]); one that unwinds does not. [`release_thread_buffers`] frees the
//! buffers of the calling thread; a thread's buffers are freed when it exits.

// Built without any front end (every front-end feature off), nothing calls the pipeline.
#![cfg_attr(not(feature = "dxbc"), allow(dead_code))]

use std::cell::Cell;

use crate::Translator;

thread_local! {
    static TRANSLATOR: Cell<Translator> = const { Cell::new(Translator::new()) };
}

/// Frees the buffers this thread keeps for its next translation (at most 8 MiB; see
/// [`translate`](crate::translate)): for a thread that is done translating for a while, or to
/// measure what a translation allocates from nothing. The next translation on the thread
/// allocates them anew.
pub fn release_thread_buffers() {
    drop(take());
}

/// Runs `f` with this thread's translator.
pub(crate) fn with_thread_translator<R>(f: impl FnOnce(&mut Translator) -> R) -> R {
    let mut translator = take();
    let result = f(&mut translator);
    // A thread being torn down has no translator to keep: the buffers are freed here.
    let _ = TRANSLATOR.try_with(|cell| cell.set(translator));
    result
}

/// Takes this thread's translator (a fresh one when another translation on this thread holds
/// it, or the thread is being torn down).
fn take() -> Translator {
    TRANSLATOR.try_with(Cell::take).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{test_support, KEEP_BYTES};
    use std::mem::size_of;

    /// The SPIR-V and reflection of a translation, or its error, as text to compare.
    fn outcome(result: Result<crate::Translation, crate::Error>) -> String {
        match result {
            Ok(t) => format!("{:?} {:?}", t.spirv, t.info),
            Err(e) => e.to_string(),
        }
    }

    /// Every 16th corpus blob, or the repository's samples without the corpus; largest first.
    fn inputs() -> Vec<Vec<u8>> {
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
        inputs
    }

    /// A reused [`Translator`], and the free `translate` (the thread's translator), give what
    /// fresh translators give, large shaders before small ones and the other way round.
    #[test]
    fn reused_buffers_translate_as_fresh_ones_do() {
        let options = crate::Options::default();
        let inputs = inputs();
        let fresh: Vec<String> = inputs
            .iter()
            .map(|b| outcome(Translator::new().translate(b, &options)))
            .collect();
        let mut translator = Translator::new();
        let order: Vec<usize> = (0..inputs.len()).chain((0..inputs.len()).rev()).collect();
        for &i in &order {
            assert_eq!(
                outcome(translator.translate(&inputs[i], &options)),
                fresh[i],
                "a translation in a reused translator differs"
            );
            assert_eq!(
                outcome(crate::translate(&inputs[i], &options)),
                fresh[i],
                "a translation in the thread's reused buffers differs"
            );
        }
        assert!(
            translator.allocated_bytes() > 0,
            "nothing was kept for reuse"
        );
        assert!(
            take().allocated_bytes() > 0,
            "the thread kept nothing for reuse"
        );
        // Moved to another thread, it goes on translating the same.
        let first = inputs[0].clone();
        let expected = fresh[0].clone();
        std::thread::spawn(move || {
            assert_eq!(outcome(translator.translate(&first, &options)), expected);
            translator.release_buffers();
            assert_eq!(translator.allocated_bytes(), 0);
        })
        .join()
        .expect("the other thread translates");
        eprintln!(
            "{} translations in reused buffers match fresh ones",
            order.len()
        );
    }

    #[test]
    fn a_translator_keeps_small_buffers_and_frees_large_ones() {
        let small = Translator::with_buffers(
            Vec::with_capacity(16),
            crate::back::spirv::Scratch::with_module(crate::spv::Module::new(
                crate::spv::Version::V1_3,
            )),
        );
        let kept = small.allocated_bytes();
        assert!(kept > 0 && kept < KEEP_BYTES);
        let small = small.trimmed();
        assert_eq!(small.allocated_bytes(), kept);

        with_thread_translator(|t| *t = small);
        assert_eq!(take().allocated_bytes(), kept);
        // While one translation holds the thread's translator, another gets a fresh one.
        with_thread_translator(|held| {
            *held = Translator::with_buffers(Vec::with_capacity(16), Default::default());
            assert_eq!(take().allocated_bytes(), 0);
        });

        let large = Translator::with_buffers(
            Vec::with_capacity(KEEP_BYTES / size_of::<crate::ir::Inst>() + 1),
            crate::back::spirv::Scratch::with_module(crate::spv::Module::new(
                crate::spv::Version::V1_3,
            )),
        )
        .trimmed();
        assert!(
            large.allocated_bytes() > 0 && large.allocated_bytes() < KEEP_BYTES,
            "an arena over the limit is freed, the module under the limit is kept"
        );
        with_thread_translator(|t| *t = large);
        release_thread_buffers();
        assert_eq!(take().allocated_bytes(), 0, "released buffers are gone");
    }
}
