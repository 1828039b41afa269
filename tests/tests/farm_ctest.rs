//! The CMake file of docs/ctest.md, copied out of the document as a user would copy it,
//! under real cmake and ctest: a green corpus is Passed, a regressed one Failed, an absent
//! corpus and an unset Ryzom workspace Skipped (pmfarm exits 77 and `SKIP_RETURN_CODE 77`
//! says so). Skips without cmake unless `PMFARM_REQUIRE_TOOLS=1`.

mod farm_support;
use farm_support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The one ```cmake block of docs/ctest.md, written as `dir/CMakeLists.txt`.
fn documented_cmake_project(dir: &Path) -> PathBuf {
    let doc = std::fs::read_to_string(pmtests::workspace_root().join("docs/ctest.md")).unwrap();
    let blocks: Vec<&str> = doc.split("```cmake\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    assert_eq!(blocks.len(), 1, "docs/ctest.md holds exactly one cmake block");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("CMakeLists.txt"), blocks[0]).unwrap();
    dir.to_path_buf()
}

/// Configures the documented project into `build` and runs ctest; returns its stdout.
fn ctest(cmake: &Path, ctest: &Path, source: &Path, build: &Path, defines: &[String]) -> (bool, String) {
    let configure = Command::new(cmake).arg("-S").arg(source).arg("-B").arg(build).args(defines).output().unwrap();
    assert!(configure.status.success(), "cmake: {}", String::from_utf8_lossy(&configure.stderr));
    let out = Command::new(ctest).arg("--test-dir").arg(build).arg("--output-on-failure").output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn line<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines().find(|l| l.contains(name) && l.contains("Test #")).unwrap_or("")
}

fn skipped(text: &str, name: &str) -> bool {
    let l = line(text, name);
    l.contains("Skipped") || l.contains("Not Run")
}

#[test]
fn the_documented_snippet_reports_passed_failed_and_skipped() {
    let (Some(cmake), Some(ctest_bin)) = (pmtests::system_tool("cmake"), pmtests::system_tool("ctest")) else {
        return;
    };
    let t = tempfile::tempdir().unwrap();
    let source = documented_cmake_project(&t.path().join("project"));
    let green = demo_corpus(t.path());

    // A pmfarm "checkout" for PMFARM_HOME: the real gates, and a `public` baseline saved
    // from a green run of the demo corpus.
    let home = t.path().join("home");
    let gates = home.join("gates");
    std::fs::create_dir_all(&gates).unwrap();
    for e in std::fs::read_dir(pmtests::workspace_root().join("gates")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), gates.join(e.file_name())).unwrap();
    }
    let first = t.path().join("first");
    let run = Farm::new(&["run", s(&green), "--out", s(&first), "--gates", s(&gates), "--no-report"]).output();
    assert_exit(&run, 0);
    let save = Farm::new(&["baseline", "save", s(&first), "public", "--baselines", s(&home.join("baselines"))]);
    assert_exit(&save.output(), 0);

    // The regressed corpus: the same files, one of them now corrupt.
    let regressed = t.path().join("regressed");
    std::fs::create_dir_all(&regressed).unwrap();
    for e in std::fs::read_dir(&green).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), regressed.join(e.file_name())).unwrap();
    }
    std::fs::copy(green.join("corrupt.max"), regressed.join(VICTIM)).unwrap();

    let defines = |corpus: &Path| {
        vec![
            format!("-DPMFARM={}", s(&pmtests::binary("pmfarm"))),
            format!("-DPMFARM_HOME={}", s(&home)),
            format!("-DPMFARM_PUBLIC_CORPUS={}", s(corpus)),
        ]
    };

    let (ok, text) = ctest(cmake.as_path(), ctest_bin.as_path(), &source, &t.path().join("b-green"), &defines(&green));
    assert!(ok, "a green corpus and an unset workspace leave ctest green:\n{text}");
    assert!(line(&text, "pmfarm_public_corpus").contains("Passed"), "{text}");
    assert!(skipped(&text, "pmfarm_skel_corpus"), "no RYZOM_WORKSPACE: Skipped, not Failed:\n{text}");

    let (ok, text) =
        ctest(cmake.as_path(), ctest_bin.as_path(), &source, &t.path().join("b-regressed"), &defines(&regressed));
    assert!(!ok, "a failed test fails ctest:\n{text}");
    assert!(line(&text, "pmfarm_public_corpus").contains("Failed"), "{text}");
    assert!(text.contains("GATE FAILED"), "the failing gate is in the ctest log:\n{text}");

    let absent = t.path().join("absent-corpus");
    let (ok, text) =
        ctest(cmake.as_path(), ctest_bin.as_path(), &source, &t.path().join("b-absent"), &defines(&absent));
    assert!(ok, "{text}");
    assert!(skipped(&text, "pmfarm_public_corpus"), "an absent corpus is Skipped:\n{text}");
}
