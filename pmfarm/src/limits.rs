//! Per-worker limits: time, silence, memory and output size. One struct so the summary
//! can record exactly what every worker ran under.

use serde::Serialize;
use std::time::Duration;

/// Everything that bounds one worker process.
#[derive(Clone, Debug, Serialize)]
pub struct Limits {
    /// Workers running at once.
    pub jobs: usize,
    /// Hard wall-clock limit per file.
    #[serde(serialize_with = "secs")]
    pub timeout: Duration,
    /// Limit on time without any output (stdout or stderr).
    #[serde(serialize_with = "secs")]
    pub idle_timeout: Duration,
    /// Time between SIGTERM and SIGKILL of the worker's process group.
    #[serde(serialize_with = "secs")]
    pub grace: Duration,
    /// Address-space cap (RLIMIT_AS) in bytes; `None` = no cap.
    pub memory_bytes: Option<u64>,
    /// Longest accepted stdout line.
    pub max_line_bytes: usize,
    /// Most stdout bytes accepted from one worker.
    pub max_output_bytes: u64,
    /// Most events other than breadcrumbs kept from one worker (a breadcrumb replaces the
    /// one before it): bounds the farm's memory, since a parsed event outweighs its line.
    pub max_events: usize,
    /// Bytes of stderr kept (the tail).
    pub stderr_tail_bytes: usize,
}

fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            jobs: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2),
            timeout: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(60),
            grace: Duration::from_secs(2),
            memory_bytes: Some(4 << 30),
            max_line_bytes: 4 << 20,
            max_output_bytes: 256 << 20,
            max_events: 1 << 16,
            stderr_tail_bytes: 4096,
        }
    }
}

/// Parses a size such as `512M`, `4G`, `1048576` or `none`.
pub fn parse_size(text: &str) -> Result<Option<u64>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") || t == "0" {
        return Ok(None);
    }
    let (digits, shift) = match t.as_bytes().last().map(u8::to_ascii_uppercase) {
        Some(b'K') => (&t[..t.len() - 1], 10),
        Some(b'M') => (&t[..t.len() - 1], 20),
        Some(b'G') => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_shl(shift))
        .map(Some)
        .ok_or_else(|| format!("`{text}` is not a size (use e.g. 512M, 4G or none)"))
}

/// Parses seconds (`30`, `2.5`).
pub fn parse_secs(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("`{text}` is not a positive number of seconds"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_seconds() {
        assert_eq!(parse_size("512M"), Ok(Some(512 << 20)));
        assert_eq!(parse_size("4g"), Ok(Some(4 << 30)));
        assert_eq!(parse_size("none"), Ok(None));
        assert!(parse_size("lots").is_err());
        assert_eq!(parse_secs("2.5"), Ok(Duration::from_millis(2500)));
        assert!(parse_secs("-1").is_err());
    }
}
