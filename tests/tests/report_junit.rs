//! JUnit layout through the real `pmfarm run` and `pmfarm report` on a real run of the
//! demo corpus: one test case per file by default (what a CI dashboard counts: 3 crashed
//! files are 3 failures, not one per bucket they sit in), one suite case per bucket with
//! `--junit-per-bucket`.

mod farm_support;
use farm_support::*;

fn testcases(xml: &str) -> Vec<String> {
    xml.match_indices("<testcase ").map(|(i, _)| xml[i..].split('>').next().unwrap_or_default().to_string()).collect()
}

#[test]
fn junit_has_one_case_per_file_by_default_and_per_bucket_with_the_flag() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("out");
    assert_exit(&Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "-j", "2"]).output(), 0);
    let files: Vec<String> = results(&out).into_keys().collect();
    assert_eq!(files.len(), 14);

    let per_file = testcases(
        &std::fs::read_to_string(out.join(pmschema::files::REPORT).join(pmschema::files::JUNIT_XML)).unwrap(),
    );
    for f in &files {
        let name = f.rsplit('/').next().unwrap();
        assert_eq!(per_file.iter().filter(|c| c.contains(name)).count(), 1, "{name} in {per_file:#?}");
    }
    let failing = std::fs::read_to_string(out.join(pmschema::files::REPORT).join(pmschema::files::JUNIT_XML)).unwrap();
    let statuses = statuses(&out);
    let not_passing = statuses.values().filter(|s| !matches!(s.as_str(), "pass" | "skip")).count();
    assert_eq!(
        failing.matches("<failure").count() + failing.matches("<error").count(),
        not_passing,
        "one failure or error per file that did not pass (gate cases pass here: no rules)"
    );

    assert_exit(&Farm::new(&["report", s(&out), "--junit-per-bucket"]).output(), 0);
    let by_bucket = testcases(
        &std::fs::read_to_string(out.join(pmschema::files::REPORT).join(pmschema::files::JUNIT_XML)).unwrap(),
    );
    assert!(by_bucket.iter().all(|c| c.contains("pmfarm.bucket") || c.contains("pmfarm.gate")), "{by_bucket:#?}");
    assert_ne!(per_file, by_bucket, "the flag changes the test cases");

    // The old flag still means what it meant.
    assert_exit(&Farm::new(&["report", s(&out), "--junit-per-file"]).output(), 0);
    assert_eq!(
        testcases(
            &std::fs::read_to_string(out.join(pmschema::files::REPORT).join(pmschema::files::JUNIT_XML)).unwrap()
        ),
        per_file
    );
}
