//! The worker zygote (`--worker-start zygote`, the default): workers forked one per file
//! give the results workers started as programs give, and a zygote killed in the middle of
//! a run costs no file its result — its workers die with it and their files run again,
//! started as programs, with a notice that says so.

mod farm_support;
use farm_support::*;
use std::path::Path;

/// Every result of the run in `out`, without what varies from run to run.
fn stable_results(out: &Path) -> Vec<(String, serde_json::Value)> {
    results(out).into_iter().map(|(k, v)| (k, stable(v))).collect()
}

#[test]
fn forked_and_spawned_workers_give_the_same_results_on_the_public_corpus() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let run = |start: &str| {
        let out = t.path().join(start);
        let done = Farm::new(&["run", s(&corpus), "--out", s(&out), "--no-gates", "--no-report", "-j", "2"])
            .args(["--worker-start", start])
            .output();
        assert_exit(&done, 0);
        let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
        assert!(!stderr.contains("worker zygote:"), "{start}: no zygote notice in a clean run: {stderr}");
        out
    };
    let zygote = stable_results(&run("zygote"));
    let spawn = stable_results(&run("spawn"));
    assert_eq!(zygote.len(), pmtests::farm_checked_files(&corpus).len(), "one result per file");
    assert_eq!(zygote, spawn, "the same result for every file, field by field");
}

/// The processes whose parent is `parent`.
fn children_of(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // `pid (comm) state ppid …`: the command may hold spaces and parentheses.
        let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
        if after.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent) {
            out.push(pid);
        }
    }
    out
}

/// The coordinator's zygote: its child with `PMWORKER_ZYGOTE` in its environment.
fn zygote_of(coordinator: u32) -> Option<u32> {
    children_of(coordinator).into_iter().find(|pid| {
        std::fs::read(format!("/proc/{pid}/environ"))
            .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var.starts_with(b"PMWORKER_ZYGOTE=")))
    })
}

#[test]
fn a_zygote_killed_mid_run_costs_no_file_its_result() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let clean_out = t.path().join("clean");
    let clean = Farm::new(&["run", s(&corpus), "--out", s(&clean_out), "--no-gates", "--no-report", "-j", "1"])
        .args(["--worker-start", "spawn"])
        .output();
    assert_exit(&clean, 0);

    // Each worker sleeps at its first T1 breadcrumb long enough for the zygote to be
    // found and killed while one of its children runs.
    let out = t.path().join("killed");
    let child = Farm::new(&["run", s(&corpus), "--out", s(&out), "--no-gates", "--no-report", "-j", "1"])
        .args(["--timeout", "60", "--idle-timeout", "60"])
        .fault("pause=300@t1", "max")
        .command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let zygote = loop {
        if let Some(z) = zygote_of(child.id()) {
            if !children_of(z).is_empty() {
                break z;
            }
        }
        assert!(started.elapsed().as_secs() < 30, "no zygote with a worker found under {}", child.id());
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    // A forked worker's command line names its file, as a spawned worker's does (`ps`). The
    // child writes it just after the fork, so a look right at the fork may still see the
    // zygote's line: look again until it shows (the worker pauses 300 ms at T1).
    let named = std::time::Instant::now();
    loop {
        let cmdlines: Vec<String> = children_of(zygote)
            .iter()
            .filter_map(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).ok())
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .collect();
        if cmdlines.iter().any(|c| c.contains(s(&corpus))) {
            break;
        }
        assert!(named.elapsed().as_secs() < 10, "no forked worker names its file: {cmdlines:?}");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    // SAFETY: SIGKILL to the zygote process this test found.
    assert_eq!(unsafe { libc::kill(zygote as i32, libc::SIGKILL) }, 0);
    let done = child.wait_with_output().unwrap();
    assert_exit(&done, 0);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(stderr.contains("worker zygote:"), "the run says the zygote is gone: {stderr}");
    assert_eq!(statuses(&out), statuses(&clean_out), "every file has the status it has in a clean run");
}
