//! The summary a batch `translate` prints: per shader stage, how many files translated, were
//! unsupported or failed; then the total, the wall time and the throughput.
//!
//! Contract: [`Summary`] holds counts only, so its size does not depend on the number of files.
//! Rows come in pipeline order (`vs`, `hs`, `ds`, `gs`, `ps`, `cs`), then `lib` (function-linking
//! libraries) and `unknown` (files with no readable program); a stage appears when it had files,
//! the `total` row always. Sizes are in MB of 10^6 bytes.

use std::io::{self, Write};
use std::time::Duration;

use dxbc2spv::front::dxbc::Stage;

/// What became of one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The module was written (and validated, when asked).
    Translated,
    /// The translator reported a feature it does not translate (`Error::Unsupported`).
    Unsupported,
    /// Anything else: unreadable, invalid input, a rejected module, a write error.
    Failed,
}

/// Row labels, in print order; `unknown` is the last.
const ROWS: [&str; 8] = ["vs", "hs", "ds", "gs", "ps", "cs", "lib", "unknown"];

/// The counts of one row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    translated: u64,
    unsupported: u64,
    failed: u64,
}

impl Counts {
    fn files(&self) -> u64 {
        self.translated + self.unsupported + self.failed
    }

    fn add(&mut self, other: &Counts) {
        self.translated += other.translated;
        self.unsupported += other.unsupported;
        self.failed += other.failed;
    }
}

/// Counts of a batch run so far.
#[derive(Debug, Default)]
pub struct Summary {
    rows: [Counts; ROWS.len()],
    input_bytes: u64,
}

impl Summary {
    /// Counts one file of `stage` (`None`: unknown) holding `input_bytes` bytes.
    pub fn count(&mut self, stage: Option<Stage>, input_bytes: u64, verdict: Verdict) {
        let row = &mut self.rows[row_of(stage)];
        match verdict {
            Verdict::Translated => row.translated += 1,
            Verdict::Unsupported => row.unsupported += 1,
            Verdict::Failed => row.failed += 1,
        }
        self.input_bytes += input_bytes;
    }

    /// Writes the table and the throughput line for a run that took `elapsed`.
    pub fn write(&self, out: &mut dyn Write, elapsed: Duration) -> io::Result<()> {
        let line = |out: &mut dyn Write, label: &str, c: &Counts| {
            writeln!(
                out,
                "{label:<8}{:>9}{:>9}{:>13}{:>9}",
                c.files(),
                c.translated,
                c.unsupported,
                c.failed
            )
        };
        writeln!(
            out,
            "{:<8}{:>9}{:>9}{:>13}{:>9}",
            "stage", "files", "ok", "unsupported", "failed"
        )?;
        let mut total = Counts::default();
        for (label, counts) in ROWS.iter().zip(&self.rows) {
            total.add(counts);
            if counts.files() > 0 {
                line(out, label, counts)?;
            }
        }
        line(out, "total", &total)?;
        let seconds = elapsed.as_secs_f64();
        let megabytes = self.input_bytes as f64 / 1e6;
        let (files_per_second, megabytes_per_second) = if seconds > 0.0 {
            (total.files() as f64 / seconds, megabytes / seconds)
        } else {
            (0.0, 0.0)
        };
        writeln!(
            out,
            "translate: {} files ({megabytes:.2} MB) in {seconds:.2} s: \
             {files_per_second:.1} files/s, {megabytes_per_second:.2} MB/s",
            total.files()
        )
    }
}

/// The row of a stage: its index in [`ROWS`].
fn row_of(stage: Option<Stage>) -> usize {
    match stage {
        Some(Stage::Vertex) => 0,
        Some(Stage::Hull) => 1,
        Some(Stage::Domain) => 2,
        Some(Stage::Geometry) => 3,
        Some(Stage::Pixel) => 4,
        Some(Stage::Compute) => 5,
        Some(Stage::Library) => 6,
        None => 7,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use dxbc2spv::front::dxbc::Stage;

    use super::{Summary, Verdict, ROWS};

    fn text(summary: &Summary, elapsed: Duration) -> String {
        let mut out = Vec::new();
        summary.write(&mut out, elapsed).expect("writing to a Vec");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn rows_follow_the_pipeline_and_only_stages_with_files_appear() {
        let mut summary = Summary::default();
        summary.count(Some(Stage::Pixel), 1_000_000, Verdict::Translated);
        summary.count(Some(Stage::Vertex), 500_000, Verdict::Translated);
        summary.count(Some(Stage::Pixel), 250_000, Verdict::Unsupported);
        summary.count(None, 250_000, Verdict::Failed);
        // 4 files, 2 MB in 0.5 s: 8 files/s and 4 MB/s.
        let expected = "\
stage       files       ok  unsupported   failed
vs              1        1            0        0
ps              2        1            1        0
unknown         1        0            0        1
total           4        2            1        1
translate: 4 files (2.00 MB) in 0.50 s: 8.0 files/s, 4.00 MB/s
";
        assert_eq!(text(&summary, Duration::from_millis(500)), expected);
    }

    #[test]
    fn every_stage_has_its_row() {
        let stages = [
            (Stage::Vertex, "vs"),
            (Stage::Hull, "hs"),
            (Stage::Domain, "ds"),
            (Stage::Geometry, "gs"),
            (Stage::Pixel, "ps"),
            (Stage::Compute, "cs"),
            (Stage::Library, "lib"),
        ];
        for (stage, label) in stages {
            assert_eq!(ROWS[super::row_of(Some(stage))], label);
        }
        assert_eq!(ROWS[super::row_of(None)], "unknown");
    }

    #[test]
    fn an_empty_run_has_a_total_and_no_rate() {
        let expected = "\
stage       files       ok  unsupported   failed
total           0        0            0        0
translate: 0 files (0.00 MB) in 0.00 s: 0.0 files/s, 0.00 MB/s
";
        assert_eq!(text(&Summary::default(), Duration::ZERO), expected);
    }
}
