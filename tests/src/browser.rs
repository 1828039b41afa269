//! Headless Chromium for the report tests: load a page, read the DOM after its script ran
//! and the console messages, or take a screenshot. Started with the flags this machine
//! needs (no sandbox as root, no background networking on a closed network, a fresh
//! profile), under `timeout` so a hang fails the test instead of blocking CI.

use std::path::PathBuf;
use std::process::Command;

/// Seconds before a stuck Chromium is killed.
const CHROMIUM_TIMEOUT_S: &str = "90";

/// A headless Chromium with its own throw-away profile.
pub struct Browser {
    chromium: PathBuf,
    profile: tempfile::TempDir,
}

/// What one headless run printed.
pub struct Run {
    /// The DOM after scripts ran (`--dump-dom`).
    pub dom: String,
    /// Every console message Chromium logged.
    pub console: Vec<String>,
}

impl Browser {
    /// `None` (after saying why) when `chromium` is not on PATH; see [`crate::system_tool`].
    pub fn new() -> Option<Browser> {
        let chromium = crate::system_tool("chromium")?;
        Some(Browser { chromium, profile: tempfile::tempdir().expect("a temporary profile folder") })
    }

    /// Runs Chromium on `url` with `extra` flags; panics when it fails.
    pub fn command(&self, extra: &[String], url: &str) -> std::process::Output {
        let mut cmd = Command::new("timeout");
        cmd.arg(CHROMIUM_TIMEOUT_S).arg(&self.chromium);
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // Containers often give /dev/shm only 64 MB; Chromium then crashes on large pages.
            "--disable-dev-shm-usage",
            "--enable-logging=stderr",
            "--v=0",
        ]);
        cmd.arg(format!("--user-data-dir={}", self.profile.path().display()));
        cmd.args(extra).arg(url);
        let out = cmd.output().expect("chromium runs");
        assert!(
            out.status.success(),
            "chromium failed on {url}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Loads `url`, returns the DOM after scripts ran and every console message.
    pub fn dump(&self, url: &str, extra: &[&str]) -> Run {
        let mut args: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        args.push("--dump-dom".into());
        let out = self.command(&args, url);
        let console = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect();
        Run { dom: String::from_utf8_lossy(&out.stdout).into_owned(), console }
    }
}
