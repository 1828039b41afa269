//! `pmfarm synth`: a seeded synthetic corpus that follows a manifest's layout, is the same
//! bytes for the same seed, and that the real farm checks file by file — every scene file
//! passes T1 and T2, pointers skip, truncated files fail as corrupt input.

mod farm_support;
use farm_support::*;
use std::collections::BTreeMap;
use std::path::Path;

/// A manifest in the Ryzom layout: folders, sizes from 150 KB to 2.5 MB.
fn manifest(dir: &Path) -> std::path::PathBuf {
    let mut tsv = String::from("path\tbytes\tlfs_sha256\n");
    let sizes = [150_000u64, 420_000, 900_000, 1_700_000, 2_500_000, 610_000];
    for i in 0..24 {
        let folder = ["stuff/fyros/agents", "landscape/ligo/desert", "sfx/fx", "interfaces/anims_max"][i % 4];
        tsv.push_str(&format!("{folder}/file_{i:02}.max\t{}\t-\n", sizes[i % sizes.len()]));
    }
    let path = dir.join("manifest.tsv");
    std::fs::write(&path, tsv).unwrap();
    path
}

fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn synth_is_deterministic_follows_the_layout_and_passes_the_farm() {
    let t = tempfile::tempdir().unwrap();
    let like = manifest(t.path());
    let synth = |out: &Path, seed: &str| {
        let o = Farm::new(&["synth", "--like", s(&like), "--scale", "0.5", "--seed", seed, "--out", s(out)]).output();
        assert_exit(&o, 0);
        tree(out)
    };
    let a = synth(&t.path().join("a"), "7");
    assert_eq!(a, synth(&t.path().join("b"), "7"), "same seed, same bytes");
    assert_ne!(a, synth(&t.path().join("c"), "8"), "another seed, another corpus");

    let max_files: Vec<&String> = a.keys().filter(|k| k.ends_with(".max")).collect();
    assert_eq!(max_files.len(), 12, "scale 0.5 of 24 rows");
    assert!(max_files.iter().all(|p| ["stuff/", "landscape/", "sfx/", "interfaces/"].iter().any(|f| p.starts_with(f))));

    // Expected status per file from the corpus's own manifest.
    let listing = String::from_utf8(a["synth-manifest.tsv"].clone()).unwrap();
    let expected: BTreeMap<String, &str> = listing
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let status = match f[2] {
                "LfsPointer" => "skip",
                "Corrupt" => "fail",
                _ => "pass",
            };
            (f[0].to_string(), status)
        })
        .collect();
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("run");
    let corpus = t.path().join("a");
    let run =
        Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--no-report", "-j", "2"]).output();
    assert_exit(&run, 0);
    let got = results(&out);
    assert_eq!(got.len(), expected.len());
    for (path, status) in &expected {
        let r = &got[path];
        assert_eq!(r["status"], *status, "{path}: {r}");
        if *status == "pass" {
            // T1 and T2 pass; the default T3 (`summary`) skips: a synthetic file carries no
            // document summary written by Max, so every section is absent-in-file.
            let verdicts: Vec<(&str, &str)> = r["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| (v["tier"].as_str().unwrap(), v["verdict"].as_str().unwrap()))
                .collect();
            assert!(
                verdicts.iter().all(|(tier, v)| if *tier == "t3" { *v == "skip" } else { *v == "pass" }),
                "{path}: {verdicts:?}"
            );
            let tiers: Vec<&str> =
                r["results"].as_array().unwrap().iter().map(|v| v["tier"].as_str().unwrap()).collect();
            assert!(tiers.contains(&"t1") && tiers.contains(&"t2"), "{path}: {tiers:?}");
        }
    }
}

#[test]
fn synth_refuses_a_manifest_without_sizes() {
    let t = tempfile::tempdir().unwrap();
    let like = t.path().join("bad.tsv");
    std::fs::write(&like, "name\tsize\na.max\t1\n").unwrap();
    let o = Farm::new(&["synth", "--like", s(&like), "--out", s(&t.path().join("o"))]).output();
    assert_exit(&o, 2);
    let o = Farm::new(&["synth", "--like", s(&like), "--scale=0", "--out", s(&t.path().join("o"))]).output();
    assert_exit(&o, 2);
}
