//! `pmfarm run` on the real NeL files (`../shared/corpus/nel`): they are enumerated beside
//! `.max` files, every one gets the NeL round trip as its T1 through the worker binary,
//! and they land in the `nel` bucket with their format and class as triage classes.

mod farm_support;
use farm_support::*;

#[test]
fn real_nel_files_pass_the_nel_round_trip_through_the_farm() {
    let Some(root) = pmtests::nel_corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let gates = gates_dir(t.path(), "");
    let (skel, ig) = (root.join("skel"), root.join("ig"));
    let args = ["run", s(&skel), s(&ig), "--out", s(&out), "--gates", s(&gates), "--no-report", "-j", "2"];
    assert_exit(&Farm::new(&args).output(), 0);
    let results = results(&out);
    let listed = pmtests::farm_checked_files(&skel).len() + pmtests::farm_checked_files(&ig).len();
    assert_eq!(results.len(), listed, "one result per .skel and .ig file");
    for (path, r) in &results {
        assert_eq!(r["status"], "pass", "{path}: {r:#}");
        assert_eq!(r["input"], "nel", "{path}");
        let verdicts: Vec<_> =
            r["results"].as_array().unwrap().iter().map(|v| (v["tier"].clone(), v["verdict"].clone())).collect();
        assert_eq!(verdicts, vec![("t1".into(), "pass".into())], "{path}");
        let buckets: Vec<&str> = r["buckets"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
        let class = if path.ends_with(".ig") { "nel-cinstancegroup" } else { "nel-cskeletonshape" };
        assert!(buckets.contains(&"nel") && buckets.contains(&class), "{path}: {buckets:?}");
    }
    let skels = pmtests::farm_checked_files(&skel).len() as u64;
    assert_eq!(summary(&out)["buckets"]["nel-skel"]["files"], skels, "every .skel in the nel-skel bucket");
}
