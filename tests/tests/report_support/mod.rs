//! A fixture run for the report tests: `results.jsonl`, `summary.json`,
//! `baseline-diff.json` and a baseline file, written through the farm's own types so the
//! fixture cannot drift from the schema. It holds one file of every kind a report has to
//! show (pass, T1 mismatch, crash, LFS pointer, MapExt + flare + era-mismatch biped with
//! the real worker's skel T3 counters, a degraded class, a hostile file name) plus enough plain passes to
//! need more than one table page.

#![allow(dead_code)]

use pmfarm::results::*;
use pmworker::events::*;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Plain passing files added to `max-2016` so its table needs pagination (page size 100).
pub const FILLER: usize = 130;
/// The hostile name: markup in a file name must come out as text.
pub const EVIL: &str = "evil/<img src=x onerror=alert(1)>&\"'.max";
/// The file with a T1 mismatch that regressed against the baseline.
pub const REGRESSED: &str = "scenes/broken_scene.max";
/// The file that was failing in the baseline and passes now.
pub const FIXED: &str = "scenes/repaired.max";
/// The file that crashed.
pub const CRASHED: &str = "scenes/crasher.max";
/// The biped / MapExt / flare file.
pub const RYZOM: &str = "stuff/fy_hof_armor.max";
/// The LFS pointer.
pub const LFS: &str = "lfs/cp_fy_hof_species.max";
/// The file with a degraded class.
pub const DEGRADED: &str = "scenes/vray_teapot.max";

/// Paths of the written fixture.
pub struct Fixture {
    /// The run's output folder.
    pub out: PathBuf,
    /// `baselines/fixture.jsonl` (outside `out`).
    pub baseline: PathBuf,
    /// Every result written.
    pub results: Vec<FileResult>,
}

fn t1(stream: &str, verdict: Verdict) -> TierResult {
    TierResult { tier: Tier::T1, stream: stream.into(), verdict, detail: None, triage: None }
}

fn buckets(version: &str, extra: &[&str]) -> Vec<String> {
    let mut b: Vec<String> =
        ["all", "input-ole", version, "t1", &format!("{version}--t1")].iter().map(|s| s.to_string()).collect();
    b.extend(extra.iter().map(|s| s.to_string()));
    b.sort();
    b.dedup();
    b
}

fn plain(path: &str, version: &str, slug: &str, wall_ms: u64) -> FileResult {
    FileResult {
        path: path.into(),
        status: Status::Pass,
        buckets: buckets(slug, &[]),
        sha256: Some(format!("{:064x}", path.len())),
        bytes: 4096,
        input: Some("ole".into()),
        max_version: Some(version.into()),
        root_id: Some("0x2021".into()),
        triage: Some(Triage::default()),
        results: vec![t1("Scene", Verdict::pass()), t1("DllDirectory", Verdict::pass())],
        timing: FileTiming { wall_ms, peak_rss_bytes: 8 << 20, ..Default::default() },
        ..Default::default()
    }
}

/// The worker's own T3 `skel` result for the hand-built rig (`pmtests::rigs`) compared with
/// a reference whose bone offsets are scaled ×1.2.
pub fn real_scaled_skel_t3() -> TierResult {
    let dir = tempfile::tempdir().unwrap();
    let max = pmtests::fixtures::write_file(dir.path(), "rig.max", &pmtests::rigs::rig_max(None));
    let mut bones = pmtests::rigs::expected_bones();
    for b in &mut bones {
        b.pos = b.pos.map(|x| x * 1.2);
    }
    let refs = dir.path().join("ref");
    std::fs::create_dir_all(&refs).unwrap();
    std::fs::write(refs.join("rig.skel"), pmtests::rigs::skel_bytes(&bones)).unwrap();
    let args: Vec<&std::ffi::OsStr> = vec![
        "--tiers".as_ref(),
        "t1".as_ref(),
        "--export".as_ref(),
        "skel".as_ref(),
        "--reference".as_ref(),
        refs.as_os_str(),
        max.as_os_str(),
    ];
    let run = pmtests::fixtures::run(&pmtests::binary("pmworker"), &args, &[]);
    run.lines()
        .iter()
        .find_map(|l| match Event::from_line(l).expect("every worker line is an event") {
            Event::Result(r) if r.tier == Tier::T3 && r.stream == "skel" => Some(r),
            _ => None,
        })
        .expect("the worker emits a T3 skel result")
}

/// Every result of the fixture, sorted by path.
pub fn results() -> Vec<FileResult> {
    let mut out = Vec::new();
    for i in 0..FILLER {
        out.push(plain(&format!("bulk/file_{i:03}.max"), "Max 2016", "max-2016", 10 + i as u64));
    }
    out.push(plain(FIXED, "Max 2016", "max-2016", 7));

    let mut regressed = plain(REGRESSED, "Max 2016", "max-2016", 900);
    regressed.status = Status::Fail;
    regressed.reason = Some("t1 Scene: chunk-roundtrip".into());
    regressed.fail_kinds = vec!["chunk-roundtrip".into()];
    regressed.signatures = vec!["t1|Scene|-|0x2021/0x2034[*]|chunk-roundtrip".into()];
    regressed.buckets = buckets("max-2016", &["status-fail"]);
    regressed.results[0] = t1(
        "Scene",
        Verdict::Fail(Mismatch {
            kind: "chunk-roundtrip".into(),
            chunk_path: "Scene/0x2021/0x2034[3]".into(),
            offset: 0x1a2,
            expected_hex: "00 01 02 03 34 20 0e 00 00 00".into(),
            actual_hex: "00 01 02 03 34 20 0f 00 00 00".into(),
            window_start: 0x19c,
            message: "Scene: first difference at byte 418 (expected 9000 bytes, got 9000)".into(),
        }),
    );
    out.push(regressed);

    let mut crashed = plain(CRASHED, "Max 9", "max-9", 1500);
    crashed.status = Status::Crash;
    crashed.reason = Some("panic: index out of bounds".into());
    crashed.fail_kinds = vec!["panic".into()];
    crashed.signatures = vec!["crash|t1|Scene|-||crash".into()];
    crashed.buckets = buckets("max-9", &["status-crash"]);
    crashed.results.truncate(1);
    crashed.last_breadcrumb = Some(Breadcrumb {
        tier: "t1".into(),
        stream: "Scene".into(),
        chunk_path: Some("0x2021/0x0100".into()),
        class: None,
    });
    crashed.panic = Some(PanicReport {
        message: "index out of bounds".into(),
        location: Some("pmcore/src/chunk/parse.rs:10:5".into()),
        last_breadcrumb: None,
    });
    crashed.signal = None;
    crashed.exit_code = Some(101);
    crashed.timing.peak_rss_bytes = 900 << 20;
    out.push(crashed);

    let mut ryzom = plain(RYZOM, "Max 9", "max-9", 60);
    // No `era-mismatch` tag or bucket: the list must come from the farm's own rule (uniform ×1.2 scale).
    ryzom.buckets = buckets("max-9", &["mapext", "flare", "biped", "t3", "max-9--t3", "max-9--t3--mapext"]);
    ryzom.triage = Some(Triage {
        classes: vec!["biped".into(), "flare".into(), "mapext".into()],
        mapext: vec![
            MapExtHit { node: "Box01 <armor>".into(), dll: "mapext.dlm".into(), class_name: "Map Extender".into() },
            MapExtHit { node: "Plane02".into(), dll: "mapext.dlm".into(), class_name: "Map Extender".into() },
        ],
        flare: vec![FlareHit { node: "Flare_sun".into(), first_flare_keep_size: json!(true) }],
        biped: Some(BipedInfo { systems: 1, figure_era: vec![Some(3)] }),
        unused_entries: vec![],
    });
    // The skel T3 result comes from the real worker: the hand-built rig against a reference
    // whose offsets are ×1.2 (a `_big` re-proportioned reference), so the detail is exactly
    // what the worker emits and the era-mismatch listing comes from the farm's own rule.
    ryzom.results.push(real_scaled_skel_t3());
    ryzom.status = Status::Fail;
    ryzom.reason = Some("t3 skel: t3-skel".into());
    ryzom.fail_kinds = vec!["t3-skel".into()];
    ryzom.buckets.push("status-fail".into());
    ryzom.buckets.sort();
    ryzom.timing.peak_rss_bytes = 300 << 20;
    out.push(ryzom);

    let mut degraded = plain(DEGRADED, "Max 2016", "max-2016", 40);
    degraded.results[0] = t1(
        "Scene",
        Verdict::Degraded {
            classes: vec![DegradedClass {
                class_id: [0x1, 0x2],
                superclass: 0x1150,
                name: "VRayZDepth".into(),
                reason: "unknown superclass".into(),
                chunk_path: "0x2021/0x1150[7]".into(),
            }],
        },
    );
    degraded.inventory = Some(Inventory {
        classes: vec![ClassCount {
            class_id: [0x1, 0x2],
            superclass: 0x1150,
            name: "VRayZDepth".into(),
            dll: "vrender.dlr".into(),
            count: 3,
            typed: 0,
            generic: 1,
            degraded: 2,
            resolution: None,
        }],
        typed_coverage: 0.25,
    });
    out.push(degraded);

    let mut evil = plain(EVIL, "Max 2016", "max-2016", 20);
    evil.reason = Some("<b>not bold</b>".into());
    out.push(evil);

    out.push(FileResult {
        path: LFS.into(),
        status: Status::Skip,
        reason: Some("lfs-pointer".into()),
        buckets: vec![
            "all".into(),
            "input-lfs-pointer".into(),
            "lfs-pointer".into(),
            "max-none".into(),
            "status-skip".into(),
        ],
        bytes: 131,
        input: Some("lfs-pointer".into()),
        triage: Some(Triage { classes: vec!["lfs-pointer".into()], ..Default::default() }),
        timing: FileTiming { wall_ms: 3, peak_rss_bytes: 2 << 20, ..Default::default() },
        ..Default::default()
    });
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The baseline as it was: the regressed file passed, the fixed file failed, and one file
/// has since been removed.
pub fn baseline_entries(results: &[FileResult]) -> Vec<BaselineEntry> {
    let mut entries: Vec<BaselineEntry> = results.iter().map(BaselineEntry::of).collect();
    for e in &mut entries {
        if e.path == REGRESSED {
            e.status = "pass".into();
            e.verdicts.insert("t1:Scene".into(), "pass".into());
            e.signatures.clear();
        }
        if e.path == FIXED {
            e.status = "fail".into();
            e.verdicts.insert("t1:Scene".into(), "fail".into());
            e.signatures = vec!["t1|Scene|-|0x2021|chunk-roundtrip".into()];
        }
    }
    entries.push(BaselineEntry { path: "scenes/deleted.max".into(), status: "pass".into(), ..Default::default() });
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    entries
}

/// What `pmfarm run --baseline fixture` would have written as `baseline-diff.json`.
pub fn baseline_diff(results: &[FileResult]) -> BaselineDiff {
    let change = |tier: &str, stream: &str, before: &str, after: &str| Change {
        tier: tier.into(),
        stream: stream.into(),
        before: before.into(),
        after: after.into(),
        kind: (after == "fail").then(|| "to-fail".to_string()),
    };
    let mut files: Vec<FileDiff> = results
        .iter()
        .map(|r| {
            let (class, changes) = match r.path.as_str() {
                REGRESSED => (
                    DiffClass::Regressed,
                    vec![change("file", "", "pass", "fail"), change("t1", "Scene", "pass", "fail")],
                ),
                FIXED => {
                    (DiffClass::Fixed, vec![change("file", "", "fail", "pass"), change("t1", "Scene", "fail", "pass")])
                }
                _ => (DiffClass::Same, vec![]),
            };
            FileDiff { path: r.path.clone(), class, changes }
        })
        .collect();
    files.push(FileDiff {
        path: "scenes/deleted.max".into(),
        class: DiffClass::Removed,
        changes: vec![change("file", "", "pass", "absent")],
    });
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut counts: DiffCounts = DiffClass::ALL.iter().map(|c| (c.name().to_string(), 0)).collect();
    for f in &files {
        *counts.get_mut(f.class.name()).unwrap() += 1;
    }
    BaselineDiff { baseline: "fixture".into(), counts, files }
}

/// `summary.json` for the results.
pub fn summary(results: &[FileResult]) -> Summary {
    let mut status_counts = empty_status_counts();
    let mut buckets: BTreeMap<String, BucketSummary> = BTreeMap::new();
    for r in results {
        *status_counts.get_mut(r.status.name()).unwrap() += 1;
        for b in &r.buckets {
            let s = buckets
                .entry(b.clone())
                .or_insert_with(|| BucketSummary { files: 0, status_counts: empty_status_counts() });
            s.files += 1;
            *s.status_counts.get_mut(r.status.name()).unwrap() += 1;
        }
    }
    Summary {
        tool: "pmfarm 0.1.0".into(),
        schema: RESULTS_SCHEMA,
        options: json!({"tiers": ["t1", "t2", "t3"], "exports": ["skel"]}),
        limits: json!({"jobs": 2, "timeout_s": 300, "memory_cap_bytes": 2147483648u64}),
        corpus_root: "/fixture/corpus".into(),
        corpus_manifest_sha256: "ab".repeat(32),
        files: results.len() as u64,
        status_counts,
        buckets,
        gates: vec![
            GateOutcome {
                name: "default/t1".into(),
                bucket: "all".into(),
                tier: "t1".into(),
                metric: "min_pass_rate".into(),
                threshold: 1.0,
                value: 0.9851,
                passed: false,
                checked: true,
                detail: "t1 pass rate 0.9851 below 1.0".into(),
            },
            GateOutcome {
                name: "default/regressions".into(),
                bucket: "max-9".into(),
                tier: "file".into(),
                metric: "max_regressions".into(),
                threshold: 0.0,
                value: 0.0,
                passed: true,
                checked: true,
                detail: String::new(),
            },
        ],
        baseline: Some(BaselineSummary { name: "fixture".into(), counts: BTreeMap::new() }),
        shard: None,
        timing: json!({"wall_ms": 812}),
    }
}

/// Writes the fixture run into `root/out` and the baseline into `root/baselines/`.
pub fn write(root: &Path, with_diff: bool) -> Fixture {
    let out = root.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let results = results();
    let lines: Vec<String> = results.iter().map(|r| serde_json::to_string(r).unwrap()).collect();
    std::fs::write(out.join(pmschema::files::RESULTS), lines.join("\n") + "\n").unwrap();
    let mut summary = summary(&results);
    if !with_diff {
        summary.baseline = None;
    }
    std::fs::write(out.join(pmschema::files::SUMMARY), serde_json::to_string_pretty(&summary).unwrap()).unwrap();
    if with_diff {
        std::fs::write(
            out.join(pmschema::files::BASELINE_DIFF),
            serde_json::to_string_pretty(&baseline_diff(&results)).unwrap(),
        )
        .unwrap();
    }
    let baseline = root.join("baselines/fixture.jsonl");
    std::fs::create_dir_all(baseline.parent().unwrap()).unwrap();
    let lines: Vec<String> = baseline_entries(&results).iter().map(|e| serde_json::to_string(e).unwrap()).collect();
    std::fs::write(&baseline, lines.join("\n") + "\n").unwrap();
    Fixture { out, baseline, results }
}

/// Every distinct bucket slug of the fixture.
pub fn bucket_slugs(results: &[FileResult]) -> std::collections::BTreeSet<String> {
    results.iter().flat_map(|r| r.buckets.iter().cloned()).collect()
}

/// The JSON Schema embedded in `docs/report-schema.md` (after the `report-json-schema` marker).
pub fn documented_schema() -> serde_json::Value {
    let doc = std::fs::read_to_string(pmtests::workspace_root().join("docs/report-schema.md"))
        .expect("docs/report-schema.md");
    let start = doc.find("<!-- report-json-schema -->").expect("schema marker in docs/report-schema.md");
    let block = &doc[start..];
    let open = block.find("```json\n").expect("json block") + "```json\n".len();
    let close = block[open..].find("\n```").expect("closed block");
    serde_json::from_str(&block[open..open + close]).expect("the documented schema is JSON")
}
