//! Progress on stderr: an indicatif bar (files done, MB/s, ETA, failures so far) on a
//! terminal, plain periodic lines otherwise (CI logs stay readable).

use crate::results::{FileResult, Status};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Seconds between plain lines.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// Progress of one run.
pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    bytes: u64,
    failures: u64,
    started: Instant,
    last_line: Instant,
    /// Files done when this process started (a resumption): ETA counts only this run's pace.
    already: u64,
    /// The slowest file of this run so far: path and farm wall time.
    slowest: Option<(String, u64)>,
}

impl Progress {
    /// Starts reporting on `total` files of which `already` are done (a resumption).
    pub fn new(total: u64, already: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} files  {msg}  ETA {eta}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_position(already);
            bar
        });
        Progress {
            bar,
            total,
            done: already,
            bytes: 0,
            failures: 0,
            started: Instant::now(),
            last_line: Instant::now(),
            already,
            slowest: None,
        }
    }

    /// Records one finished file.
    pub fn file_done(&mut self, r: &FileResult) {
        self.done += 1;
        self.bytes += r.bytes;
        if !matches!(r.status, Status::Pass | Status::Skip) {
            self.failures += 1;
        }
        if self.slowest.as_ref().is_none_or(|(_, ms)| r.timing.wall_ms > *ms) {
            self.slowest = Some((r.path.clone(), r.timing.wall_ms));
        }
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = self.bytes as f64 / secs / 1e6;
        let msg = format!("{rate:.1} MB/s  {} not passing", self.failures);
        match &self.bar {
            Some(bar) => {
                bar.set_message(msg);
                bar.inc(1);
            }
            None => {
                if self.last_line.elapsed() >= PLAIN_EVERY || self.done == self.total {
                    eprintln!("{}", self.plain_line(secs, &msg));
                    self.last_line = Instant::now();
                }
            }
        }
    }

    /// One plain progress line (what CI logs show): count, elapsed, ETA, rate, not passing.
    fn plain_line(&self, elapsed_secs: f64, msg: &str) -> String {
        let ran = self.done.saturating_sub(self.already);
        let left = self.total.saturating_sub(self.done);
        let eta = if left == 0 {
            "done".to_string()
        } else if ran == 0 {
            "ETA unknown".to_string()
        } else {
            format!("ETA {}", clock(elapsed_secs / ran as f64 * left as f64))
        };
        format!("pmfarm: {}/{} files  elapsed {}  {eta}  {msg}", self.done, self.total, clock(elapsed_secs))
    }

    /// Clears the bar and names the slowest file of the run (the first place to look when
    /// a sweep got slower).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if let Some((path, ms)) = &self.slowest {
            eprintln!("pmfarm: slowest file: {} ({})", path.escape_debug(), clock(*ms as f64 / 1000.0));
        }
    }
}

/// `12.3 s`, `4m05s`, `1h02m`.
fn clock(secs: f64) -> String {
    let secs = secs.max(0.0);
    if secs < 60.0 {
        format!("{secs:.1} s")
    } else if secs < 3600.0 {
        let s = secs.round() as u64;
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        let m = (secs / 60.0).round() as u64;
        format!("{}h{:02}m", m / 60, m % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_like_a_person_writes_it() {
        assert_eq!(clock(2.345), "2.3 s");
        assert_eq!(clock(245.0), "4m05s");
        assert_eq!(clock(3720.0), "1h02m");
    }

    #[test]
    fn plain_lines_carry_elapsed_time_eta_and_the_not_passing_count() {
        let mut p = Progress::new(10, 2);
        p.bar = None;
        p.done = 6; // 4 done by this run, 4 left
        let line = p.plain_line(8.0, "1.0 MB/s  1 not passing");
        assert_eq!(line, "pmfarm: 6/10 files  elapsed 8.0 s  ETA 8.0 s  1.0 MB/s  1 not passing");
        p.done = 10;
        assert!(p.plain_line(9.0, "x").contains("done"));
    }
}
