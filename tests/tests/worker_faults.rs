//! Worker failure modes through the real binary: a hard crash leaves its last
//! breadcrumb on stdout, an uncaught panic becomes a `panic` event, usage errors and
//! unreadable paths exit 2, and a corrupt OLE file is a `fail` with kind `corrupt-input`.
//! Faults are injected with the compiled-in hook (`PMWORKER_FAULT`, pmworker/src/fault.rs)
//! into a file the test assembles itself.

use pmtests::fixtures::{self, Run};
use pmworker::events::{exit, Breadcrumb, EndStatus, Event};
use std::ffi::OsStr;
use std::path::PathBuf;

fn fixture(dir: &tempfile::TempDir) -> PathBuf {
    fixtures::write_file(dir.path(), "box.max", &fixtures::minimal_max())
}

fn events(run: &Run) -> Vec<Event> {
    run.lines().iter().map(|l| Event::from_line(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

fn t1_scene() -> Breadcrumb {
    Breadcrumb { tier: "t1".into(), stream: "Scene".into(), ..Default::default() }
}

#[test]
fn the_unfaulted_fixture_passes() {
    let dir = tempfile::tempdir().unwrap();
    let run = fixtures::run_worker(&fixture(&dir), &[]);
    assert_eq!(run.code, Some(exit::OK), "{}", run.stderr);
    assert!(matches!(events(&run).last(), Some(Event::End(e)) if e.status == EndStatus::Pass));
}

/// Segfault and abort kill the process by a signal; what it said before stays readable and
/// ends with the breadcrumb of the step that died. No `end` event: the farm reads "crash".
#[test]
fn a_hard_crash_leaves_the_last_breadcrumb_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(&dir);
    for (fault, signal) in [("segfault@t1:Scene", libc_signal::SIGSEGV), ("abort@t1:Scene", libc_signal::SIGABRT)] {
        let run = fixtures::run_worker(&path, &[("PMWORKER_FAULT", fault)]);
        assert_eq!(run.code, None, "{fault}: killed by a signal, not an exit");
        assert_eq!(run.signal, Some(signal), "{fault}");
        let events = events(&run);
        assert!(matches!(events.first(), Some(Event::Start(_))), "{fault}");
        assert_eq!(events.last(), Some(&Event::Breadcrumb(t1_scene())), "{fault}: last line");
        assert!(!events.iter().any(|e| matches!(e, Event::End(_))), "{fault}: a crash has no end");
    }
}

/// Signal numbers (Linux), kept here so the tests crate needs no libc.
mod libc_signal {
    pub const SIGABRT: i32 = 6;
    pub const SIGSEGV: i32 = 11;
}

#[test]
fn an_uncaught_panic_reports_itself_with_the_last_breadcrumb() {
    let dir = tempfile::tempdir().unwrap();
    let run = fixtures::run_worker(&fixture(&dir), &[("PMWORKER_FAULT", "panic@t1:Scene")]);
    assert_eq!(run.code, Some(exit::PANIC), "{}", run.stderr);
    let events = events(&run);
    let Some(Event::Panic(p)) = events.last() else { panic!("last event is not panic: {events:?}") };
    assert!(p.message.contains("injected panic"), "{p:?}");
    assert!(p.location.as_deref().is_some_and(|l| l.contains("fault.rs")), "{p:?}");
    assert_eq!(p.last_breadcrumb, Some(t1_scene()));
    assert!(!events.iter().any(|e| matches!(e, Event::End(_))));
}

#[test]
fn usage_errors_and_unreadable_paths_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = fixture(&dir);
    let worker = pmtests::binary("pmworker");
    let missing = dir.path().join("no_such_file.max");
    let cases: Vec<(&str, Vec<&OsStr>)> = vec![
        ("missing file", vec![missing.as_os_str()]),
        ("a directory", vec![dir.path().as_os_str()]),
        ("no file argument", vec![]),
        ("unknown flag", vec![OsStr::new("--bogus"), file.as_os_str()]),
        ("unknown tier", vec![OsStr::new("--tiers"), OsStr::new("t1,t9"), file.as_os_str()]),
        ("unknown exporter", vec![OsStr::new("--export"), OsStr::new("fbx"), file.as_os_str()]),
    ];
    for (what, args) in cases {
        let run = fixtures::run(&worker, &args, &[]);
        assert_eq!(run.code, Some(exit::USAGE), "{what}: stdout {} stderr {}", run.stdout, run.stderr);
        assert!(!run.stderr.trim().is_empty(), "{what}: says why on stderr");
        assert!(!run.lines().iter().any(|l| l.contains("\"event\":\"end\"")), "{what}: no verdict on the file");
    }
    let help = fixtures::run(&worker, &[OsStr::new("--help")], &[]);
    assert_eq!(help.code, Some(exit::OK));
    assert!(help.stdout.contains("--tiers") && help.stdout.contains("--export"), "{}", help.stdout);
}

/// A corrupt OLE file is a verdict on the file: exit 1, `fail`, kind `corrupt-input`.
#[test]
fn corrupt_ole_fails_with_corrupt_input() {
    let dir = tempfile::tempdir().unwrap();
    let whole = fixtures::minimal_max();
    let mut inputs = vec![
        ("magic + garbage", fixtures::corrupt_ole()),
        ("truncated fixture", whole[..whole.len() / 2].to_vec()),
        ("header only", whole[..512].to_vec()),
    ];
    if let Some(corpus) = pmtests::public_corpus() {
        let real = std::fs::read(corpus.join("dakahler__room.max")).unwrap();
        inputs.push(("truncated real file", real[..real.len() / 3].to_vec()));
    }
    for (what, bytes) in inputs {
        let path = fixtures::write_file(dir.path(), "corrupt.max", &bytes);
        let run = fixtures::run_worker(&path, &[]);
        let events = events(&run);
        assert_eq!(run.code, Some(exit::FAIL), "{what}: {}", run.stdout);
        let facts = events.iter().find_map(|e| if let Event::Facts(f) = e { Some(f) } else { None }).unwrap();
        assert_eq!(facts.input, "corrupt-ole", "{what}");
        assert!(facts.error.as_deref().is_some_and(|e| !e.is_empty()), "{what}: says what is broken");
        let triage = events.iter().find_map(|e| if let Event::Triage(t) = e { Some(t) } else { None }).unwrap();
        assert!(triage.classes.contains(&"corrupt-input".to_string()), "{what}");
        let Some(Event::End(end)) = events.last() else { panic!("{what}: no end") };
        assert_eq!(end.status, EndStatus::Fail, "{what}");
        assert_eq!(end.fail_kinds, vec!["corrupt-input".to_string()], "{what}");
    }
}

/// A tier failure is a verdict on the file: exit 1, a `fail` result with its locator,
/// and `end.status = fail` naming the kind.
#[test]
fn a_scene_that_does_not_parse_fails_t1_with_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = fixtures::SceneBuilder::new();
    let node = s.class(-1, [1, 0], 1, "Node");
    s.node(node, "Box01", -1, -1);
    let mut streams = s.streams();
    let scene = &mut streams.iter_mut().find(|(n, _)| n == "Scene").unwrap().1;
    scene.truncate(scene.len() - 3); // the root container now claims 3 bytes it does not have
    let bytes = fixtures::ole_bytes(&streams.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>());
    let run = fixtures::run_worker(&fixtures::write_file(dir.path(), "cut.max", &bytes), &[]);
    assert_eq!(run.code, Some(exit::FAIL), "{}", run.stdout);
    let events = events(&run);
    let failed: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Result(r) if r.verdict.is_fail() => Some(r),
            _ => None,
        })
        .collect();
    // T1 names the broken chunk; T2 then has no typed Scene to prove (missing-scene).
    assert_eq!(failed.len(), 2, "{events:?}");
    assert_eq!((failed[0].tier, failed[0].stream.as_str()), (pmworker::events::Tier::T1, "Scene"));
    let pmschema::events::Verdict::Fail(m) = &failed[0].verdict else { unreachable!() };
    assert_eq!(m.kind, "chunk-parse");
    assert_eq!((failed[1].tier, failed[1].stream.as_str()), (pmworker::events::Tier::T2, "Scene"));
    let pmschema::events::Verdict::Fail(m2) = &failed[1].verdict else { unreachable!() };
    assert_eq!(m2.kind, "missing-scene");
    let Some(Event::End(end)) = events.last() else { panic!("no end") };
    assert_eq!(end.status, EndStatus::Fail);
    assert_eq!(end.fail_kinds, vec!["chunk-parse".to_string(), "missing-scene".to_string()]);
    assert_eq!(end.counts.fail, 2);
}
