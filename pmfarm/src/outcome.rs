//! From what a worker did to one terminal status: the worker contract's reading of exit
//! codes, signals and events (docs/results.md "Statuses"), plus the failure signatures
//! that group one defect across many files.

use crate::results::{FileResult, FileTiming, Status};
use crate::supervise::{signal_name, KillReason, RawRun};
use pmcore::chunk::mask_positions;
use pmschema::verdict::Verdict;
use pmworker::events::{exit, EndStatus, Event};

/// Rust's message on stderr when an allocation fails (what RLIMIT_AS produces).
const ALLOC_FAILURE: &str = "memory allocation of";

/// Builds the result of one file from a supervised worker run.
pub fn from_run(path: &str, mut run: RawRun, limits: &crate::limits::Limits) -> FileResult {
    let (mut r, end) = collect_events(path, std::mem::take(&mut run.events));
    // The slot holds every breadcrumb, the Scene object ones included: the exact location.
    if let Some(b) = &run.slot_breadcrumb {
        r.last_breadcrumb = Some(b.clone());
    }
    r.exit_code = run.exit_code;
    r.signal = run.signal.map(signal_name);
    r.timing.wall_ms = run.wall_ms;
    if !run.stderr_tail.is_empty() {
        r.stderr_tail = Some(run.stderr_tail.clone());
    }
    let (status, reason) = if let Some(e) = &run.spawn_error {
        (Status::InfraError, e.clone())
    } else if let Some(kill) = &run.killed {
        match kill {
            KillReason::HardTimeout => {
                (Status::Timeout, format!("killed at the hard time limit ({:.1} s)", limits.timeout.as_secs_f64()))
            }
            KillReason::IdleTimeout => {
                (Status::Timeout, format!("killed after {:.1} s without output", limits.idle_timeout.as_secs_f64()))
            }
            KillReason::OutputBound(what) => (Status::Crash, format!("killed: {what}")),
        }
    } else if run.stderr_tail.contains(ALLOC_FAILURE) {
        (Status::Oom, "allocation failed under the memory cap".to_string())
    } else if let Some(p) = &r.panic {
        (Status::Crash, format!("panic: {}", p.message))
    } else if let Some(sig) = run.signal {
        if sig == libc::SIGKILL {
            (Status::Oom, "killed by SIGKILL from outside the farm (memory cap or OOM killer)".to_string())
        } else {
            (Status::Crash, format!("killed by {}", signal_name(sig)))
        }
    } else {
        match (run.exit_code, end.as_ref()) {
            (Some(exit::OK), Some(e)) if e.status == EndStatus::Pass => (Status::Pass, String::new()),
            (Some(exit::OK), Some(e)) if e.status == EndStatus::Skip => {
                (Status::Skip, e.reason.clone().unwrap_or_else(|| "skip".into()))
            }
            (Some(exit::FAIL), Some(e)) if e.status == EndStatus::Fail => {
                (Status::Fail, e.reason.clone().unwrap_or_else(|| "fail".into()))
            }
            (Some(exit::USAGE), _) => (Status::InfraError, first_line(&run.stderr_tail, "worker exit 2")),
            (code, None) => {
                let mut why = format!("exit {} without an end event", code.map_or("?".into(), |c| c.to_string()));
                if run.garbage_lines > 0 {
                    why.push_str(&format!(
                        " ({} unparsable stdout lines, first: {:?})",
                        run.garbage_lines,
                        run.first_garbage.as_deref().unwrap_or("")
                    ));
                }
                (Status::Crash, why)
            }
            (code, Some(e)) => (
                Status::Crash,
                format!("exit {} does not match end status {:?}", code.map_or("?".into(), |c| c.to_string()), e.status),
            ),
        }
    };
    finish(&mut r, status, reason);
    r
}

/// Builds the result of one file run in-process (no isolation: a crash takes the farm down).
pub fn from_events(path: &str, events: Vec<Event>, status: Option<EndStatus>, wall_ms: u64) -> FileResult {
    let (mut r, end) = collect_events(path, events);
    r.timing.wall_ms = wall_ms;
    let reason = end.and_then(|e| e.reason).unwrap_or_default();
    let (status, reason) = match status {
        Some(EndStatus::Pass) => (Status::Pass, reason),
        Some(EndStatus::Fail) => (Status::Fail, reason),
        Some(EndStatus::Skip) => (Status::Skip, reason),
        None => (Status::InfraError, "cannot read the file".to_string()),
    };
    finish(&mut r, status, reason);
    r
}

/// The result of a path enumeration already decided (a special file, a dangling link, a
/// symlink loop: `skip`; an unreadable folder or file: `infra-error`); no worker ran.
pub fn unrunnable(path: &str, status: Status, reason: String) -> FileResult {
    let mut r = FileResult { path: path.to_string(), ..Default::default() };
    finish(&mut r, status, reason);
    r
}

fn first_line(text: &str, fallback: &str) -> String {
    text.lines().find(|l| !l.trim().is_empty()).map(str::to_string).unwrap_or_else(|| fallback.to_string())
}

fn finish(r: &mut FileResult, status: Status, reason: String) {
    r.status = status;
    r.reason = (!reason.is_empty()).then_some(reason);
    if status.is_abnormal() && !r.fail_kinds.contains(&status.name().to_string()) {
        r.fail_kinds.push(status.name().to_string());
        r.fail_kinds.sort();
    }
    if !(status.is_abnormal() || status == Status::Fail) {
        r.last_breadcrumb = None; // the locator is kept only where it explains something
    }
    r.signatures = signatures(r);
}

/// Moves the worker's events into a result (status decided by the caller); the last `end`
/// comes back beside it.
fn collect_events(path: &str, events: Vec<Event>) -> (FileResult, Option<pmworker::events::End>) {
    let mut r = FileResult { path: path.to_string(), ..Default::default() };
    let mut last_end = None;
    for e in events {
        match e {
            Event::Start(s) => {
                r.sha256 = Some(s.sha256);
                r.bytes = s.bytes;
            }
            Event::Facts(f) => {
                r.input = Some(f.input);
                r.max_version = f.max_version;
                r.root_id = f.root_id;
                r.saving_release = f.saving_release;
            }
            Event::Breadcrumb(b) => r.last_breadcrumb = Some(b),
            Event::Result(t) => r.results.push(t),
            Event::Inventory(i) => r.inventory = Some(i),
            Event::Triage(t) => r.triage = Some(t),
            Event::Export(x) => r.exports.push(x),
            Event::End(end) => last_end = Some(end),
            Event::Panic(p) => {
                if r.last_breadcrumb.is_none() {
                    r.last_breadcrumb = p.last_breadcrumb.clone();
                }
                r.panic = Some(p);
            }
        }
    }
    if let Some(end) = &last_end {
        r.fail_kinds = end.fail_kinds.clone();
        r.timing = FileTiming {
            wall_ms: 0,
            durations_ms: end.timing.durations_ms.clone(),
            peak_rss_bytes: end.timing.peak_rss_bytes,
        };
    }
    (r, last_end)
}

/// Failure signatures from the input structure: one per failed verdict
/// (`tier|stream|class|masked-path|kind`), one per degraded class, and one for an
/// abnormal end (`tier|stream|class|masked-path|status`, from the last breadcrumb).
/// Class identity is the ClassId pair + superclass, never a per-file directory index.
pub fn signatures(r: &FileResult) -> Vec<String> {
    let mut out = Vec::new();
    for t in &r.results {
        match &t.verdict {
            Verdict::Fail(m) => {
                out.push(format!("{}|{}|-|{}|{}", t.tier.name(), t.stream, mask_positions(&m.chunk_path), m.kind))
            }
            Verdict::Degraded { classes } => {
                for c in classes {
                    out.push(format!(
                        "{}|{}|0x{:08x}-0x{:08x}/0x{:x}|{}|degraded",
                        t.tier.name(),
                        t.stream,
                        c.class_id[0],
                        c.class_id[1],
                        c.superclass,
                        mask_positions(&c.chunk_path)
                    ));
                }
            }
            _ => {}
        }
    }
    if r.status == Status::Fail && out.is_empty() {
        for kind in &r.fail_kinds {
            out.push(format!("file|-|-|-|{kind}"));
        }
    }
    if r.status.is_abnormal() {
        let (tier, stream, path, class) = match &r.last_breadcrumb {
            Some(b) => (
                b.tier.as_str(),
                b.stream.as_str(),
                b.chunk_path.as_deref().map(mask_positions).unwrap_or_default(),
                b.class.clone().unwrap_or_else(|| "-".into()),
            ),
            None => ("-", "-", String::new(), "-".into()),
        };
        out.push(format!("{tier}|{stream}|{class}|{path}|{}", r.status.name()));
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limits;
    use pmworker::events::{End, EndCounts, Timing};

    fn end(status: EndStatus) -> Event {
        Event::End(End {
            status,
            reason: None,
            fail_kinds: Vec::new(),
            counts: EndCounts::default(),
            timing: Timing::default(),
        })
    }

    fn status_of(run: RawRun) -> Status {
        from_run("x.max", run, &Limits::default()).status
    }

    #[test]
    fn worker_contract_mapping() {
        let ok = |events: Vec<Event>, code: i32| RawRun { events, exit_code: Some(code), ..Default::default() };
        assert_eq!(status_of(ok(vec![end(EndStatus::Pass)], 0)), Status::Pass);
        assert_eq!(status_of(ok(vec![end(EndStatus::Skip)], 0)), Status::Skip);
        assert_eq!(status_of(ok(vec![end(EndStatus::Fail)], 1)), Status::Fail);
        assert_eq!(status_of(ok(vec![], 2)), Status::InfraError);
        assert_eq!(status_of(ok(vec![], 0)), Status::Crash, "no end event is never a pass");
        assert_eq!(status_of(ok(vec![end(EndStatus::Pass)], 1)), Status::Crash, "exit and end disagree");
        assert_eq!(status_of(ok(vec![end(EndStatus::Fail)], 0)), Status::Crash, "exit and end disagree");
        let signal = |sig: i32, stderr: &str| RawRun {
            signal: Some(sig),
            stderr_tail: stderr.to_string(),
            ..Default::default()
        };
        assert_eq!(status_of(signal(libc::SIGSEGV, "")), Status::Crash);
        assert_eq!(status_of(signal(libc::SIGABRT, "memory allocation of 67108864 bytes failed\n")), Status::Oom);
        assert_eq!(status_of(signal(libc::SIGKILL, "")), Status::Oom);
        let killed = |k: KillReason| RawRun { killed: Some(k), signal: Some(libc::SIGTERM), ..Default::default() };
        assert_eq!(status_of(killed(KillReason::HardTimeout)), Status::Timeout);
        assert_eq!(status_of(killed(KillReason::IdleTimeout)), Status::Timeout);
        assert_eq!(status_of(killed(KillReason::OutputBound("line".into()))), Status::Crash);
        let spawn = RawRun { spawn_error: Some("no such file".into()), ..Default::default() };
        assert_eq!(status_of(spawn), Status::InfraError);
    }
}
