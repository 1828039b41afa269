//! The coordinator's command line, through the built binary. Living in this package also
//! makes `cargo test --workspace` build the `pmfarm` binary that the cross-crate tests drive.

use std::process::Command;

fn farm() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pmfarm"))
}

#[test]
fn help_lists_every_subcommand() {
    let out = farm().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    for sub in ["run", "report", "baseline", "verify-ledger", "synth", "merge"] {
        assert!(text.contains(sub), "`{sub}` missing from --help:\n{text}");
    }
}

#[test]
fn unknown_flag_is_a_usage_error_and_an_empty_folder_is_nothing_runnable() {
    let bad = farm().args(["run", "--no-such-flag"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let empty = farm().args(["run"]).arg(dir.path()).arg("--out").arg(&out).output().unwrap();
    assert_eq!(empty.status.code(), Some(77), "{empty:?}");
    assert!(!String::from_utf8_lossy(&empty.stderr).trim().is_empty(), "exit 77 says why on stderr");
}
