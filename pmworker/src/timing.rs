//! The run-to-run varying measurements of a worker (`end.timing`): phase durations and
//! the process's peak resident set.

use crate::events::Timing;
use std::collections::BTreeMap;

/// Adds the peak RSS to the phase durations.
pub fn finish_timing(mut timing: Timing) -> Timing {
    timing.peak_rss_bytes = peak_rss_bytes();
    timing
}

/// Peak RSS of this process in bytes.
pub fn peak_rss_bytes() -> u64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 {
        (usage.ru_maxrss as u64).saturating_mul(1024)
    } else {
        0
    }
}

/// Durations map helper for callers that time their own phases.
pub fn durations(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| ((*k).to_string(), *v)).collect()
}
