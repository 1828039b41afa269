//! Scale-out: `pmfarm run --shard K/N` on several machines then `pmfarm merge` equals one
//! machine checking everything — results except `timing`, summary except `timing`, the
//! baseline comparison, the gates and the report except its timing-derived sections — and a
//! file keeps its shard while other files come and go.

mod farm_support;
use farm_support::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Drops every key named in `keys`, at any depth.
fn without(mut v: Value, keys: &[&str]) -> Value {
    fn strip(v: &mut Value, keys: &[&str]) {
        match v {
            Value::Object(o) => {
                o.retain(|k, _| !keys.contains(&k.as_str()));
                o.values_mut().for_each(|x| strip(x, keys));
            }
            Value::Array(a) => a.iter_mut().for_each(|x| strip(x, keys)),
            _ => {}
        }
    }
    strip(&mut v, keys);
    v
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Results keyed by path, `timing` removed (the merge contract).
fn untimed_results(out: &Path) -> BTreeMap<String, Value> {
    results(out).into_iter().map(|(k, v)| (k, without(v, &["timing"]))).collect()
}

/// Every JSON file of the rendered report, timing-derived sections removed.
fn untimed_report(out: &Path) -> BTreeMap<String, Value> {
    let dir = out.join(pmschema::files::REPORT);
    let mut docs = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            docs.insert(name, without(json(&path), &["timing", "slowest", "largest_rss", "wall_ms", "peak_rss_bytes"]));
        }
    }
    docs
}

fn run_args<'a>(corpus: &'a str, out: &'a str, gates: &'a str) -> Vec<&'a str> {
    vec!["run", corpus, "--out", out, "--gates", gates, "-j", "2"]
}

#[test]
fn four_shards_merged_equal_the_unsharded_run() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let gates = pmtests::workspace_root().join("gates");
    let baselines = t.path().join("baselines");
    let (corpus, gates_s, baselines_s) = (s(&corpus).to_string(), s(&gates).to_string(), s(&baselines).to_string());

    // A baseline holding shard 1's files plus one file no shard has: merged, shard 1's
    // files compare `same`, the others `new`, and only the absent file is `removed`.
    let seed_out = t.path().join("seed");
    let seed = Farm::new(&run_args(&corpus, s(&seed_out), &gates_s)).args(["--shard", "1/4", "--no-report"]).output();
    assert!(matches!(seed.status.code(), Some(0 | 1)), "{seed:?}");
    assert_exit(&Farm::new(&["baseline", "save", s(&seed_out), "quarter", "--baselines", &baselines_s]).output(), 0);
    let base_file = baselines.join("quarter.jsonl");
    let text = std::fs::read_to_string(&base_file).unwrap();
    let first = text.lines().next().expect("shard 1 of the public corpus is not empty");
    let mut gone: Value = serde_json::from_str(first).unwrap();
    gone["path"] = Value::from("gone/removed-since.max");
    std::fs::write(&base_file, format!("{text}{gone}\n")).unwrap();

    let with_base = |out: &Path| {
        let mut a = run_args(&corpus, s(out), &gates_s);
        a.extend(["--baseline", "quarter", "--baselines", &baselines_s]);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let whole_out = t.path().join("whole");
    let whole = Farm::new(&[]).args(with_base(&whole_out)).output();
    let mut shard_outs = Vec::new();
    for k in 1..=4 {
        let out = t.path().join(format!("shard-{k}"));
        let run = Farm::new(&[]).args(with_base(&out)).args(["--shard", &format!("{k}/4")]).output();
        assert!(matches!(run.status.code(), Some(0 | 1)), "shard {k}: {run:?}");
        shard_outs.push(out);
    }
    let merged_out = t.path().join("merged");
    let mut merge_args = vec!["merge".to_string()];
    merge_args.extend(shard_outs.iter().map(|p| s(p).to_string()));
    merge_args.extend(["--out".into(), s(&merged_out).into(), "--baselines".into(), baselines_s.clone()]);
    let merged = Farm::new(&[]).args(merge_args).output();
    assert_eq!(merged.status.code(), whole.status.code(), "merge exit\n{merged:?}\nwhole run exit\n{whole:?}");

    // Every file in exactly one shard.
    let sizes: Vec<usize> = shard_outs.iter().map(|o| results(o).len()).collect();
    let total = results(&whole_out).len();
    assert_eq!(sizes.iter().sum::<usize>(), total, "shard sizes {sizes:?}");
    assert!(sizes.iter().all(|&n| n > 0 && n < total), "a trivial split proves nothing: {sizes:?}");

    assert_eq!(untimed_results(&merged_out), untimed_results(&whole_out));
    let (ms, ws) = (without(summary(&merged_out), &["timing"]), without(summary(&whole_out), &["timing"]));
    assert_eq!(ms, ws);
    assert!(ws["baseline"]["counts"]["removed"] == 1, "{}", ws["baseline"]);
    assert_eq!(
        json(&merged_out.join(pmschema::files::BASELINE_DIFF)),
        json(&whole_out.join(pmschema::files::BASELINE_DIFF))
    );
    assert_eq!(untimed_report(&merged_out), untimed_report(&whole_out));
    assert!(untimed_report(&whole_out).contains_key(pmschema::files::INDEX_JSON));
}

#[test]
fn merge_refuses_overlapping_shards() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("one");
    let run = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--tiers", "t1", "--no-report"])
        .args(["--shard", "1/2"])
        .output();
    assert!(matches!(run.status.code(), Some(0 | 77)), "{run:?}");
    let merged = Farm::new(&["merge", s(&out), s(&out), "--out", s(&t.path().join("m"))]).output();
    assert_exit(&merged, 2);
    assert!(String::from_utf8_lossy(&merged.stderr).contains("was checked by both"), "{merged:?}");
}

/// Shard membership of every file of `corpus` among `n`, read back from real shard runs.
fn membership(t: &Path, corpus: &Path, n: u64, tag: &str) -> BTreeMap<String, u64> {
    let gates = gates_dir(t, "");
    let mut owner = BTreeMap::new();
    for k in 1..=n {
        let out = t.join(format!("{tag}-{k}"));
        let run =
            Farm::new(&["run", s(corpus), "--out", s(&out), "--gates", s(&gates), "--tiers", "t1", "--no-report"])
                .args(["--shard", &format!("{k}/{n}")])
                .output();
        assert!(matches!(run.status.code(), Some(0 | 1 | 77)), "{run:?}");
        if !out.join(pmschema::files::RESULTS).exists() {
            continue; // an empty shard writes nothing (exit 77)
        }
        for path in results(&out).into_keys() {
            assert!(owner.insert(path.clone(), k).is_none(), "{path} in two shards");
        }
    }
    owner
}

#[test]
fn files_keep_their_shard_when_others_come_and_go() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let before = membership(t.path(), &corpus, 3, "before");
    assert_eq!(before.len(), pmtests::farm_checked_files(&corpus).len());

    // Remove two files, add four (one in a new sub-folder, one with a non-ASCII name).
    let names: Vec<String> = before.keys().cloned().collect();
    for gone in &names[..2] {
        std::fs::remove_file(corpus.join(gone)).unwrap();
    }
    std::fs::create_dir_all(corpus.join("added/deeper")).unwrap();
    for (i, new) in ["added/a.max", "added/deeper/b.max", "added/caf\u{e9}.max", "z_last.max"].iter().enumerate() {
        std::fs::copy(corpus.join(&names[2 + i]), corpus.join(new)).unwrap();
    }
    let after = membership(t.path(), &corpus, 3, "after");
    assert_eq!(after.len(), before.len() - 2 + 4);
    for (path, shard) in &before {
        if let Some(now) = after.get(path) {
            assert_eq!(now, shard, "{path} moved from shard {shard} to {now}");
        }
    }
    assert!(after.contains_key("added/deeper/b.max"));
    assert!(!after.contains_key(&names[0]));
    // The Kubernetes form: JOB_COMPLETION_INDEX=0 is shard 1.
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("k8s");
    let run = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--tiers", "t1", "--no-report"])
        .args(["--shard-from-env", "JOB_COMPLETION_INDEX/3"])
        .command()
        .env("JOB_COMPLETION_INDEX", "0")
        .output()
        .unwrap();
    assert!(matches!(run.status.code(), Some(0 | 1 | 77)), "{run:?}");
    let k8s: Vec<String> =
        if out.join(pmschema::files::RESULTS).exists() { results(&out).into_keys().collect() } else { vec![] };
    let first: Vec<String> = after.iter().filter(|(_, &k)| k == 1).map(|(p, _)| p.clone()).collect();
    assert_eq!(k8s, first);
}
