//! A watchdog for conformance runs: a case that runs longer than a limit stops the whole run
//! with a `FAIL` line naming it.
//!
//! A shader that never terminates (a loop whose exit condition a translation bug breaks) keeps
//! the device busy forever. A GPU driver eventually reports the device lost, but lavapipe runs
//! the shader on the CPU until it ends, and Vulkan offers no way to cancel submitted work: the
//! waits of [`crate::submit`] time out, but destroying what the work uses is not allowed until
//! it finishes. So the run itself cannot go on; the watchdog prints which case hung and exits
//! the process with a failure, instead of leaving CI to hang without a word.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Environment variable: the limit per case in seconds (default [`DEFAULT_CASE_LIMIT`]).
pub const CASE_LIMIT_ENV: &str = "VK_TESTS_CASE_LIMIT_S";

/// The default limit per case: far above the slowest case on lavapipe on two cores (seconds).
pub const DEFAULT_CASE_LIMIT: Duration = Duration::from_secs(600);

/// The case running now and when it started (`None` between cases).
type Current = Arc<Mutex<Option<(String, Instant)>>>;

/// Watches the case running now from a background thread (see the module docs).
#[derive(Clone)]
pub struct Watchdog {
    current: Current,
}

impl Watchdog {
    /// Starts watching with the limit from [`CASE_LIMIT_ENV`], or [`DEFAULT_CASE_LIMIT`].
    pub fn from_env() -> Watchdog {
        let limit = std::env::var(CASE_LIMIT_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(DEFAULT_CASE_LIMIT, Duration::from_secs);
        Watchdog::start(limit)
    }

    /// Starts watching: a case running longer than `limit` ends the process (exit status 1)
    /// after a line `FAIL <case>: ...` on standard output.
    pub fn start(limit: Duration) -> Watchdog {
        let current: Current = Arc::new(Mutex::new(None));
        let watched = Arc::clone(&current);
        let tick = limit.min(Duration::from_secs(1));
        std::thread::spawn(move || loop {
            std::thread::sleep(tick);
            let guard = watched.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(line) = overdue(guard.as_ref(), limit, Instant::now()) {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
                eprintln!("vk-tests: {line} (limit per case: {CASE_LIMIT_ENV})");
                std::process::exit(1);
            }
        });
        Watchdog { current }
    }

    /// Marks the start of case `name` (ending the previous one).
    pub fn begin(&self, name: &str) {
        let mut guard = self.current.lock().unwrap_or_else(|e| e.into_inner());
        *guard = Some((name.to_owned(), Instant::now()));
    }

    /// Marks the end of the case running now.
    pub fn end(&self) {
        let mut guard = self.current.lock().unwrap_or_else(|e| e.into_inner());
        *guard = None;
    }
}

/// The `FAIL` line for the case in `current` when it has run longer than `limit` at `now`.
fn overdue(current: Option<&(String, Instant)>, limit: Duration, now: Instant) -> Option<String> {
    let (name, since) = current?;
    (now.saturating_duration_since(*since) > limit).then(|| {
        format!(
            "FAIL {name}: no result after {} s (a shader that never ends?); the device cannot \
             be stopped, so the run stops here",
            limit.as_secs()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_case_past_the_limit_is_overdue() {
        let start = Instant::now();
        let case = ("compute/spin".to_owned(), start);
        let limit = Duration::from_secs(5);
        assert_eq!(overdue(None, limit, start + Duration::from_secs(60)), None);
        assert_eq!(
            overdue(Some(&case), limit, start + Duration::from_secs(5)),
            None
        );
        let line = overdue(Some(&case), limit, start + Duration::from_secs(6));
        assert_eq!(
            line.as_deref(),
            Some(
                "FAIL compute/spin: no result after 5 s (a shader that never ends?); the device \
                 cannot be stopped, so the run stops here"
            )
        );
    }
}
