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
        }
    }

    /// Records one finished file.
    pub fn file_done(&mut self, r: &FileResult) {
        self.done += 1;
        self.bytes += r.bytes;
        if !matches!(r.status, Status::Pass | Status::Skip) {
            self.failures += 1;
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
                    eprintln!("pmfarm: {}/{} files  {msg}", self.done, self.total);
                    self.last_line = Instant::now();
                }
            }
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
