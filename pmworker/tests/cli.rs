//! The worker's command line, through the built binary. Living in this package also makes
//! `cargo test --workspace` build the `pmworker` binary that the cross-crate tests drive.

use std::process::Command;

fn worker() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pmworker"))
}

#[test]
fn help_and_version_exit_0() {
    let help = worker().arg("--help").output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--tiers"));
    let version = worker().arg("--version").output().unwrap();
    assert_eq!(version.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&version.stdout).contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn unreadable_path_and_bad_flags_exit_2() {
    let missing = worker().arg("/nonexistent/file.max").output().unwrap();
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
    assert!(missing.stdout.is_empty(), "no events for a file that cannot be read");
    let bad = worker().args(["--tiers", "t9", "x.max"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn an_empty_file_is_a_skip_with_start_and_end_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.max");
    std::fs::write(&path, b"").unwrap();
    let out = worker().arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.first().unwrap().contains(r#""event":"start""#), "{text}");
    assert!(lines.last().unwrap().contains(r#""status":"skip""#) && text.contains(r#""reason":"empty""#), "{text}");
}
