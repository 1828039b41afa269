//! The limits a worker sets on itself before `main` when its coordinator asks
//! (`PMWORKER_CONFINE`, pmworker/src/confine.rs), through both worker binaries: the farm
//! starts its own binary with `posix_spawn` and relies on them (its `fork` path, for other
//! `--worker` executables, is covered by farm_faults and reliability_resume).

use pmtests::fixtures;
use pmtests::harness::Worker;
use pmworker::confine::{CONFINE_VAR, NOT_CONFINED_EXIT};
use std::path::{Path, PathBuf};

fn fixture(dir: &tempfile::TempDir) -> PathBuf {
    fixtures::write_file(dir.path(), "box.max", &fixtures::minimal_max())
}

/// Both ways the farm can start a worker: `pmworker FILE` and `pmfarm worker FILE`.
fn workers(file: &Path) -> [Worker; 2] {
    [Worker::new(file), Worker::at(&pmtests::binary("pmfarm")).args(["worker".as_ref(), file.as_os_str()])]
}

#[test]
fn a_worker_whose_coordinator_is_not_its_parent_never_runs() {
    let dir = tempfile::tempdir().unwrap();
    // Pid 1 is not this test: the worker was re-parented, as when its coordinator died
    // before the worker could tie itself to it.
    for worker in workers(&fixture(&dir)) {
        let out = worker.env(CONFINE_VAR, "1:0").output();
        assert_eq!(out.status.code(), Some(NOT_CONFINED_EXIT));
        assert!(out.stdout.is_empty(), "no event: {}", String::from_utf8_lossy(&out.stdout));
    }
}

#[test]
fn a_malformed_request_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    for worker in workers(&fixture(&dir)) {
        let out = worker.env(CONFINE_VAR, "12-0").output();
        assert_eq!(out.status.code(), Some(NOT_CONFINED_EXIT));
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).contains("PMWORKER_CONFINE is not PID:BYTES"));
    }
}

#[test]
fn the_cap_holds_from_the_start_and_a_confined_worker_checks_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = fixture(&dir);
    let me = std::process::id();
    for worker in workers(&file) {
        // This test is the coordinator: the worker runs, and passes, under a 1 GiB cap.
        let run = worker.env(CONFINE_VAR, format!("{me}:{}", 1u64 << 30)).run();
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    for worker in workers(&file) {
        // Memory without bound (the fault hook) under a 256 MiB cap: the allocation fails
        // instead of the machine's memory running out; no pass, no hang.
        let out = worker.env(CONFINE_VAR, format!("{me}:{}", 256u64 << 20)).env("PMWORKER_FAULT", "alloc").output();
        assert_ne!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
}
