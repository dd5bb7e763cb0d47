//! The CLI's global allocator: the system allocator, counting the bytes in use and their peak,
//! so that `bench` can report the peak heap memory of one translation.
//!
//! Contract: every allocation goes to [`System`] unchanged. Only while [`peak_during`] runs are
//! they counted (relaxed atomics, a few instructions per allocation; otherwise one relaxed
//! load, so that `bench`'s timed rounds pay nothing a library user would not): it measures the
//! largest number of bytes in use, above what was in use before, while a closure runs on this
//! thread (other threads' allocations count too; `bench` runs on one thread).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// The counting allocator.
pub struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Whether allocations are counted (while [`peak_during`] runs).
static COUNTING: AtomicBool = AtomicBool::new(false);

fn grew(bytes: usize) {
    if !COUNTING.load(Relaxed) {
        return;
    }
    let now = IN_USE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

fn shrank(bytes: usize) {
    if COUNTING.load(Relaxed) {
        // Saturating: a block allocated before counting started may be freed during it.
        let _ = IN_USE.fetch_update(Relaxed, Relaxed, |n| Some(n.saturating_sub(bytes)));
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments, so `System`'s
// guarantees hold; the counters do not touch the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}

/// Runs `f` and returns its result with the peak number of heap bytes in use during it, above
/// those in use when it started.
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    IN_USE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    COUNTING.store(true, Relaxed);
    let out = f();
    COUNTING.store(false, Relaxed);
    (out, PEAK.load(Relaxed))
}

#[cfg(test)]
mod tests {
    #[test]
    fn peak_counts_what_a_closure_holds_at_once() {
        let ((), peak) = super::peak_during(|| {
            let a = vec![0u8; 1 << 20];
            drop(a);
            let b = vec![0u8; 1 << 19];
            drop(b);
        });
        // The first megabyte was the most held at once (the test harness may allocate a little).
        assert!((1 << 20..(1 << 20) + (1 << 16)).contains(&peak), "{peak}");
    }
}
