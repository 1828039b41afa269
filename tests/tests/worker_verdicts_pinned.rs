//! Issue #43's guard for speed work: on every real `.max` the corpus manifests list
//! (public, wild, biped, pairs, nel), the worker as the farm starts it (tiers t1,t2,t3 and
//! the summary exporter) gives the same exit code, end status, per-stream verdicts and
//! number of events of each kind as the code before the speed cuts did. The expectations
//! are `baselines/worker-verdicts.jsonl`, written by the worker of main at dbd2511
//! (before issue #43's first cut) with `PMFARM_SAVE_VERDICTS=1 PMWORKER=<that binary>`.
//! One row changed since, on purpose: `wild/erbolvov1989__1.max` T2 Scene `degraded` →
//! `pass` (issue #42: the SceneImpl's slot count follows the saving release, 13 in Max 2013).
//! T3 rows changed since, on purpose — `t3:summary/mesh-totals` `skip` → `pass` where the
//! evaluated totals now equal the Mesh Totals Max saved in the file (issue #42, geometry
//! breadth; T1 / T2 verdicts and event counts unchanged):
//! - Teapot: `public/alexbabushkin__teapot.max`, `public/nekidaem__01-teapot_no_cams_vray.max`,
//!   `wild/pycz__test.max`, `wild/systemsoftware__teapot.max`; ChamferBox:
//!   `public/rabidchinchilla__kenji's_sofa.max`; Hose: `wild/aliensowo__1111.max`;
//! - Extrude (and MapScaler's tri output): `wild/seanconway512__myfieldhq_containers_and_terrain.max`
//!   (11,785 / 11,806);
//! - Hedra: the ten `nel/max` snow scenes with 16 Hedras each;
//! - Edit Poly cap and delete edge: `wild/danshaub__weaponrack.max` (304 / 428).
//!
//! A change that is meant to alter a verdict re-saves the file in the same commit and says
//! why; a speed cut never does.
//!
//! Long mode only (`PMFARM_LONG_TESTS=1`): one worker run per real file.

use pmtests::harness::Worker;
use pmtests::{corpus_files, long_tests, notice, shared_corpus, shared_root, workspace_root};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const CORPORA: [&str; 5] = ["public", "wild", "biped", "pairs", "nel"];
const BASELINE: &str = "baselines/worker-verdicts.jsonl";

/// What a run of one file is pinned by: exit code, end status, `tier:stream=verdict` in
/// emission order, and the number of events of each kind.
fn summary(file: &Path, worker: &Path, out: &Path) -> Value {
    let run = Worker::at(worker).args(["--tiers", "t1,t2,t3", "--export", "summary", "--out"]).args([out, file]).run();
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut verdicts = Vec::new();
    let mut status = Value::Null;
    for event in &run.events {
        let line: Value = serde_json::from_str(&event.to_line()).expect("an event is JSON");
        let kind = line["event"].as_str().unwrap_or("?").to_string();
        match kind.as_str() {
            "result" => {
                verdicts.push(format!("{}:{}={}", text(&line["tier"]), text(&line["stream"]), text(&line["verdict"])))
            }
            "end" => status = line["status"].clone(),
            _ => {}
        }
        *counts.entry(kind).or_default() += 1;
    }
    let rel = file.strip_prefix(shared_root().join("corpus")).unwrap_or(file);
    json!({"file": rel.to_string_lossy(), "exit": run.code, "status": status, "verdicts": verdicts, "events": counts})
}

/// A JSON string's text, anything else as JSON.
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

fn real_files() -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    for name in CORPORA {
        files.extend(corpus_files(&shared_corpus(name)?));
    }
    files.sort();
    files.dedup();
    Some(files)
}

#[test]
fn verdicts_and_event_counts_match_the_code_before_the_speed_cuts() {
    if !long_tests() {
        notice("SKIP: worker_verdicts_pinned runs every real file (set PMFARM_LONG_TESTS=1)");
        return;
    }
    let Some(files) = real_files() else { return };
    let worker = std::env::var_os("PMWORKER").map_or_else(|| pmtests::binary("pmworker"), PathBuf::from);
    let out = tempfile::tempdir().expect("temp dir");
    let got: Vec<Value> = files.iter().map(|f| summary(f, &worker, out.path())).collect();
    let baseline = workspace_root().join(BASELINE);
    if std::env::var("PMFARM_SAVE_VERDICTS").is_ok_and(|v| v == "1") {
        let text: String = got.iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(&baseline, text).expect("baseline written");
        notice(&format!("saved {} rows to {}", got.len(), baseline.display()));
        return;
    }
    let text = std::fs::read_to_string(&baseline).expect("baselines/worker-verdicts.jsonl is readable");
    let want: BTreeMap<String, Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a baseline row is JSON"))
        .map(|v| (v["file"].as_str().unwrap_or_default().to_string(), v))
        .collect();
    let mut differ = Vec::new();
    for row in &got {
        let file = row["file"].as_str().unwrap_or_default();
        match want.get(file) {
            Some(w) if w == row => {}
            Some(w) => differ.push(format!("{file}:\n  was {w}\n  now {row}")),
            None => differ.push(format!("{file}: not in {BASELINE} (a new corpus file: re-save the baseline)")),
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} files differ from {BASELINE}:\n{}",
        differ.len(),
        got.len(),
        differ.join("\n")
    );
    notice(&format!("worker_verdicts_pinned: {} real files as before", got.len()));
}
