//! The CMake snippet of docs/ctest.md (`tests/cmake/CMakeLists.txt`) under real ctest:
//! a green corpus is Passed, a regressed one Failed, an absent one Skipped (pmfarm exits
//! 77 and `SKIP_RETURN_CODE 77` says so). Skips without cmake unless
//! `PMFARM_REQUIRE_TOOLS=1`.

mod farm_support;
use farm_support::*;
use std::process::Command;

#[test]
fn ctest_reports_passed_failed_and_skipped() {
    let (Some(cmake), Some(ctest)) = (pmtests::system_tool("cmake"), pmtests::system_tool("ctest")) else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let green = demo_corpus(t.path());
    let baselines = t.path().join("baselines");
    let gates = pmtests::workspace_root().join("gates");
    let first = t.path().join("first");
    let run = Farm::new(&["run", s(&green), "--out", s(&first), "--gates", s(&gates), "--no-report"]).output();
    assert_exit(&run, 0);
    assert_exit(&Farm::new(&["baseline", "save", s(&first), "demo", "--baselines", s(&baselines)]).output(), 0);

    // The regressed corpus: the same files, one of them now corrupt.
    let regressed = t.path().join("regressed");
    std::fs::create_dir_all(&regressed).unwrap();
    for e in std::fs::read_dir(&green).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), regressed.join(e.file_name())).unwrap();
    }
    std::fs::copy(green.join("corrupt.max"), regressed.join(VICTIM)).unwrap();
    let absent = t.path().join("absent-corpus");

    let build = t.path().join("build");
    let corpora = format!(
        "-DPMFARM_CORPORA=farm_green={}=demo;farm_regressed={}=demo;farm_absent={}=demo",
        s(&green),
        s(&regressed),
        s(&absent)
    );
    let configure = Command::new(cmake)
        .arg("-S")
        .arg(pmtests::workspace_root().join("tests/cmake"))
        .arg("-B")
        .arg(&build)
        .arg(format!("-DPMFARM={}", s(&pmtests::binary("pmfarm"))))
        .arg(format!("-DPMFARM_BASELINES={}", s(&baselines)))
        .arg(format!("-DPMFARM_GATES={}", s(&gates)))
        .arg(corpora)
        .output()
        .unwrap();
    assert!(configure.status.success(), "cmake: {}", String::from_utf8_lossy(&configure.stderr));
    let out = Command::new(ctest).arg("--test-dir").arg(&build).arg("--output-on-failure").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "a failed test fails ctest:\n{text}");
    let line = |name: &str| text.lines().find(|l| l.contains(name) && l.contains("Test #")).unwrap_or("").to_string();
    assert!(line("farm_green").contains("Passed"), "{text}");
    assert!(line("farm_regressed").contains("Failed"), "{text}");
    let absent_line = line("farm_absent");
    assert!(absent_line.contains("Skipped") || absent_line.contains("Not Run"), "{text}");
    assert!(text.contains("GATE FAILED"), "the failing gate is in the ctest log:\n{text}");
}
