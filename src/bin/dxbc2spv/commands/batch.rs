//! Running one job per input file on several threads, with results handled on the calling
//! thread as they finish; and the progress bar of a batch run.
//!
//! Contract of [`run_jobs`]: every job is passed to `work` exactly once (unless `on_done` fails,
//! which stops the run), and every result is passed to `on_done` on the calling thread, so
//! `on_done` may write to the console without locking. With one thread the jobs run on the
//! calling thread in order; with more, on a rayon pool, and results arrive in the order they
//! finish. At most `2 × threads` finished results wait for `on_done` at any time: memory is
//! bounded by the threads, not by the number of jobs.
//!
//! [`Progress`] draws on the process's stderr only when told it is a terminal; it is updated on
//! the calling thread only (no ticker thread), so it never waits for a lock another thread holds.

use std::io;
use std::num::NonZeroUsize;
use std::sync::mpsc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

/// Runs `work` over `jobs` on `threads` threads (`None`: rayon's default, one per core or
/// `RAYON_NUM_THREADS`), passing each result to `on_done` on the calling thread as it finishes.
/// The first error of `on_done` stops the run (jobs not yet started are skipped) and is
/// returned.
pub fn run_jobs<J, R>(
    jobs: Vec<J>,
    threads: Option<NonZeroUsize>,
    work: impl Fn(J) -> R + Sync,
    mut on_done: impl FnMut(R) -> io::Result<()>,
) -> io::Result<()>
where
    J: Send,
    R: Send,
{
    if threads.is_some_and(|n| n.get() == 1) || jobs.len() <= 1 {
        return jobs.into_iter().try_for_each(|job| on_done(work(job)));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.map_or(0, NonZeroUsize::get))
        .thread_name(|index| format!("dxbc2spv-worker-{index}"))
        .build()
        .map_err(|e| io::Error::other(format!("cannot start the worker threads: {e}")))?;
    let (sender, receiver) = mpsc::sync_channel(2 * pool.current_num_threads());
    std::thread::scope(|scope| {
        let work = &work;
        scope.spawn(move || {
            pool.install(|| {
                // A failed send means the receiver is gone (`on_done` failed): stop.
                jobs.into_par_iter()
                    .try_for_each_with(sender, |sender, job| sender.send(work(job)))
            })
        });
        // Takes the receiver by value: when `on_done` fails, it is dropped on return, which
        // wakes and stops the workers before the scope waits for them.
        receive(receiver, &mut on_done)
    })
}

/// Passes every result to `on_done` until the workers are done or `on_done` fails.
fn receive<R>(
    receiver: mpsc::Receiver<R>,
    on_done: &mut impl FnMut(R) -> io::Result<()>,
) -> io::Result<()> {
    receiver.into_iter().try_for_each(on_done)
}

/// The progress bar of a batch run: files done of the total, rate and time left; nothing at all
/// when stderr is not a terminal.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar over `total` files, drawn on stderr when `stderr_is_terminal`.
    pub fn new(total: usize, stderr_is_terminal: bool) -> Self {
        if !stderr_is_terminal {
            return Self(None);
        }
        let bar = ProgressBar::with_draw_target(
            Some(u64::try_from(total).unwrap_or(u64::MAX)),
            ProgressDrawTarget::stderr(),
        );
        // The template is a constant; should indicatif ever refuse it, keep its default look.
        if let Ok(style) =
            ProgressStyle::with_template("{wide_bar} {pos}/{len} files  {per_sec}  ETA {eta}")
        {
            bar.set_style(style);
        }
        Self(Some(bar))
    }

    /// Counts one file done.
    pub fn file_done(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    /// Runs `print` with the bar hidden, so that lines written to the terminal do not mix with
    /// it.
    pub fn suspend<T>(&self, print: impl FnOnce() -> T) -> T {
        match &self.0 {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(self) {
        if let Some(bar) = self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::io;
    use std::num::NonZeroUsize;

    use super::run_jobs;

    fn threads(n: usize) -> Option<NonZeroUsize> {
        NonZeroUsize::new(n)
    }

    #[test]
    fn one_thread_runs_the_jobs_in_order() {
        let mut seen = Vec::new();
        let result = run_jobs(
            (0..50).collect(),
            threads(1),
            |n: u32| n * 3,
            |r| {
                seen.push(r);
                Ok(())
            },
        );
        assert!(result.is_ok());
        assert_eq!(seen, (0..50).map(|n| n * 3).collect::<Vec<_>>());
    }

    #[test]
    fn several_threads_run_every_job_once() {
        let mut seen = Vec::new();
        let result = run_jobs(
            (0..500).collect(),
            threads(3),
            |n: u32| n + 1000,
            |r| {
                seen.push(r);
                Ok(())
            },
        );
        assert!(result.is_ok());
        assert_eq!(seen.len(), 500);
        let distinct: BTreeSet<u32> = seen.into_iter().collect();
        assert_eq!(distinct, (1000..1500).collect());
    }

    #[test]
    fn a_failing_consumer_stops_the_run_with_its_error() {
        let mut calls = 0;
        let result = run_jobs(
            (0..10_000).collect(),
            threads(2),
            |n: u32| n,
            |_| {
                calls += 1;
                if calls == 3 {
                    return Err(io::Error::new(io::ErrorKind::BrokenPipe, "reader gone"));
                }
                Ok(())
            },
        );
        let error = result.expect_err("the consumer's error");
        assert_eq!(error.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(calls, 3, "no result is handled after the error");
    }
}
