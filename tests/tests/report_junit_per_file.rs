//! `--junit-per-file`: JUnit with one test case per file instead of one per bucket, through
//! the real `pmfarm report` on a real run of the demo corpus.

mod farm_support;
use farm_support::*;

fn testcases(xml: &str) -> Vec<String> {
    xml.match_indices("<testcase ").map(|(i, _)| xml[i..].split('>').next().unwrap_or_default().to_string()).collect()
}

#[test]
fn junit_has_one_case_per_file_with_the_flag_and_per_bucket_without() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("out");
    assert_exit(&Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "-j", "2"]).output(), 0);
    let files: Vec<String> = results(&out).into_keys().collect();
    assert_eq!(files.len(), 14);

    let by_bucket = testcases(&std::fs::read_to_string(out.join("report/junit.xml")).unwrap());
    assert_exit(&Farm::new(&["report", s(&out), "--junit-per-file"]).output(), 0);
    let per_file = testcases(&std::fs::read_to_string(out.join("report/junit.xml")).unwrap());
    for f in &files {
        let name = f.rsplit('/').next().unwrap();
        assert_eq!(per_file.iter().filter(|c| c.contains(name)).count(), 1, "{name} in {per_file:#?}");
    }
    assert!(per_file.len() >= files.len());
    assert_ne!(per_file, by_bucket, "the flag changes the test cases");
}
