//! Test-only fault hook, compiled into every worker so the farm's tests exercise the real
//! binary: `PMWORKER_FAULT=<action>[@<where>]` fires `<action>` at the first breadcrumb
//! whose `tier:stream` contains `<where>` (any breadcrumb when omitted).
//!
//! Actions: `panic`, `abort`, `segfault`, `hang` (silent busy loop), `sleep` (silent
//! sleep), `alloc` (allocate and touch memory without bound), `flood` (endless output on
//! stdout without a newline), `flood-lines` (endless valid breadcrumb events, for the
//! farm's total-bytes bound), `garbage` (non-JSON lines then exit 0), `close-stdout`
//! (close fd 1 and go on), `exit=N` (exit with code N at once), `pause=MS` (sleep MS
//! milliseconds, then go on as if nothing happened).
//! Unset in production; nothing else reads it.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// Environment variable that arms the hook.
pub const FAULT_VAR: &str = "PMWORKER_FAULT";

static FIRED: AtomicBool = AtomicBool::new(false);

/// True when a fault is armed (the variable is set): only then does a breadcrumb build
/// its key for [`at_breadcrumb`].
pub fn armed() -> bool {
    std::env::var_os(FAULT_VAR).is_some()
}

/// Called at every breadcrumb while [`armed`]; fires the armed fault once when `key` matches.
pub fn at_breadcrumb(key: &str) {
    let Ok(spec) = std::env::var(FAULT_VAR) else { return };
    let Some(action) = action_at(&spec, key) else { return };
    if !FIRED.swap(true, Ordering::SeqCst) {
        fire(action);
    }
}

/// The action of `spec` (`action[@where]`) when it applies at breadcrumb `key`
/// (`tier:stream`): `where` is a substring of `key`, or omitted.
fn action_at<'s>(spec: &'s str, key: &str) -> Option<&'s str> {
    let (action, place) = spec.split_once('@').unwrap_or((spec, ""));
    key.contains(place).then_some(action)
}

fn fire(action: &str) {
    match action {
        "panic" => panic!("fault hook: injected panic"),
        "abort" => std::process::abort(),
        "segfault" => unsafe {
            // Rust's stack-overflow handler owns SIGSEGV and ignores a raised one: restore
            // the default action first so the process really dies by the signal.
            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
            libc::raise(libc::SIGSEGV);
        },
        "hang" => {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
        pause if pause.starts_with("pause=") => {
            let ms = pause["pause=".len()..].parse().unwrap_or(0);
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        "sleep" => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        "alloc" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                let mut block = vec![0u8; 64 << 20];
                for i in (0..block.len()).step_by(4096) {
                    block[i] = 1;
                }
                hoard.push(std::hint::black_box(block));
            }
        }
        "flood" => flood(&vec![b'x'; 1 << 16]),
        "flood-lines" => {
            // Well-formed events, so only the farm's total-bytes bound (not the line-length
            // bound, not a parse error) can stop them.
            let line = b"{\"event\":\"breadcrumb\",\"tier\":\"t1\",\"stream\":\"flood\"}\n";
            let block: Vec<u8> = line.iter().copied().cycle().take(line.len() * 1024).collect();
            flood(&block)
        }
        "garbage" => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "this is not json {{{{");
            let _ = writeln!(out, "\u{1}\u{2} more garbage");
            let _ = out.flush();
            std::process::exit(0);
        }
        "close-stdout" => unsafe {
            libc::close(1);
        },
        other => {
            if let Some(code) = other.strip_prefix("exit=").and_then(|c| c.parse().ok()) {
                std::process::exit(code);
            }
            eprintln!("pmworker: unknown {FAULT_VAR} action `{other}` ignored");
        }
    }
}

/// Writes `block` to stdout again and again until the farm stops reading (exit 3 then).
fn flood(block: &[u8]) -> ! {
    let mut out = std::io::stdout().lock();
    loop {
        if out.write_all(block).is_err() {
            std::process::exit(3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::action_at;

    #[test]
    fn a_spec_applies_where_its_place_is_part_of_the_breadcrumb() {
        assert_eq!(action_at("segfault@t1:Scene", "t1:Scene"), Some("segfault"));
        assert_eq!(action_at("segfault@t1:Scene", "t2:Scene"), None);
        assert_eq!(action_at("panic@Scene", "t2:Scene"), Some("panic"));
        assert_eq!(action_at("abort", "open:@container"), Some("abort"));
        assert_eq!(action_at("exit=7@triage", "triage:Scene"), Some("exit=7"));
    }
}
