//! Helpers shared by the `reliability_*` fault-injection tests: the ledger checks every
//! test ends with (`pmfarm verify-ledger`, an independent journal replay, the report),
//! a tiny tmpfs for disk-full faults, and the farm's peak memory. Everything drives the
//! built `pmfarm` and `pmworker` binaries; nothing here fakes a result.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `pmfarm verify-ledger OUT --json [--partial]`: exit code and the parsed findings.
pub fn verify_ledger(out: &Path, partial: bool) -> (i32, Value) {
    let partial = if partial { &["--partial"][..] } else { &[] };
    let o = pmtests::harness::Farm::new(&["verify-ledger", out.to_str().unwrap(), "--json"]).args(partial).output();
    let report = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    (o.status.code().unwrap_or(-1), report)
}

/// The ledger of a finished run is consistent: exit 0, every enumerated file exactly one result.
pub fn assert_ledger_complete(out: &Path, files: u64) -> Value {
    let (code, rep) = verify_ledger(out, false);
    assert_eq!(code, 0, "verify-ledger {}: {rep:#}", out.display());
    assert_eq!(rep["files"], files, "{rep:#}");
    assert_eq!(rep["results"], files, "{rep:#}");
    assert_eq!(rep["missing"].as_array().map(Vec::len), Some(0), "{rep:#}");
    rep
}

/// Journal lines that parse (a torn last line is skipped, as `--resume` does).
pub fn journal_records(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join(pmschema::files::JOURNAL)).unwrap_or_default();
    let complete = text.rfind('\n').map_or("", |i| &text[..i]);
    complete.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// Replays the journal independently of pmfarm's own code: the `result` records per path
/// (the `record` tag removed, so each is a `results.jsonl` line). Panics when a path has
/// two results (it ran twice).
pub fn journal_replay(out: &Path) -> BTreeMap<String, Value> {
    let mut results = BTreeMap::new();
    for mut r in journal_records(out).into_iter().filter(|r| r["record"] == "result") {
        r.as_object_mut().unwrap().remove("record");
        let path = r["path"].as_str().unwrap().to_string();
        assert!(results.insert(path.clone(), r).is_none(), "{path} has two results in the journal");
    }
    results
}

/// `results.jsonl` keyed by path.
pub fn results_file(out: &Path) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(out.join(pmschema::files::RESULTS)).expect("results.jsonl");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("result line parses"))
        .map(|v| (v["path"].as_str().unwrap().to_string(), v))
        .collect()
}

/// The journal replays to exactly `results.jsonl`.
pub fn assert_replay_equals_results(out: &Path) {
    let replay = journal_replay(out);
    let results = results_file(out);
    assert_eq!(replay.keys().collect::<Vec<_>>(), results.keys().collect::<Vec<_>>());
    for (path, r) in &results {
        assert_eq!(&replay[path], r, "{path}: results.jsonl differs from the journal");
    }
}

/// The HTML report was rendered.
pub fn assert_report_written(out: &Path) {
    let index = out.join(pmschema::files::REPORT).join(pmschema::files::INDEX_HTML);
    let len = std::fs::metadata(&index).map(|m| m.len()).unwrap_or(0);
    assert!(len > 0, "{} was not written", index.display());
}

/// A result with what varies run to run removed (timing, stderr).
pub fn stable(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("timing");
        o.remove("stderr_tail");
    }
    v
}

/// Every result of `results.jsonl` in its stable form.
pub fn stable_results(out: &Path) -> BTreeMap<String, Value> {
    results_file(out).into_iter().map(|(k, v)| (k, stable(v))).collect()
}

/// Peak resident memory (`VmHWM`) of a live process, in bytes.
pub fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
}

/// Pids of live worker processes whose command line mentions `needle`: a `pmworker`, or
/// `pmfarm worker …` (the coordinator runs its own executable as the worker by default).
pub fn workers_mentioning(needle: &str) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let text = String::from_utf8_lossy(&cmdline);
            let args: Vec<&str> = text.split('\0').collect();
            // A worker is `pmworker …` or the farm re-executing itself as `pmfarm worker …`.
            let is_worker = args[0].ends_with("pmworker")
                || (args[0].ends_with("pmfarm") && args.get(1).is_some_and(|a| *a == "worker"));
            is_worker && text.contains(needle)
        })
        .collect()
}

/// A small tmpfs mounted for one test and unmounted when dropped: the only honest way to
/// get ENOSPC. `None` (after printing why) when mounting is not permitted; panics instead
/// when `PMFARM_REQUIRE_TOOLS=1`.
pub struct TinyFs {
    /// Mount point.
    pub dir: PathBuf,
}

impl TinyFs {
    /// Mounts a tmpfs of `bytes` (rounded up to pages by the kernel) at `dir`.
    pub fn mount(dir: &Path, bytes: u64) -> Option<TinyFs> {
        std::fs::create_dir_all(dir).unwrap();
        let mount = pmtests::system_tool("mount")?;
        let out = Command::new(mount)
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs", dir.to_str().unwrap()])
            .output()
            .expect("mount starts");
        if out.status.success() {
            return Some(TinyFs { dir: dir.to_path_buf() });
        }
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        if std::env::var("PMFARM_REQUIRE_TOOLS").is_ok_and(|v| v == "1") {
            panic!("PMFARM_REQUIRE_TOOLS=1 but mounting a tmpfs failed: {why}");
        }
        eprintln!("SKIP: cannot mount a tmpfs ({why}); run as root, or set PMFARM_REQUIRE_TOOLS=1 to fail");
        None
    }

    /// Fills the file system with `filler` until at most `leave` bytes are free.
    pub fn fill_leaving(&self, leave: u64) -> PathBuf {
        let filler = self.dir.join("filler");
        let free = self.free_bytes();
        let size = free.saturating_sub(leave);
        std::fs::write(&filler, vec![0xA5u8; size as usize]).expect("filler fits");
        filler
    }

    /// Free bytes as `df` sees them.
    pub fn free_bytes(&self) -> u64 {
        let out = Command::new("df").args(["-B1", "--output=avail", self.dir.to_str().unwrap()]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).lines().nth(1).and_then(|l| l.trim().parse().ok()).expect("df output")
    }
}

impl Drop for TinyFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}
