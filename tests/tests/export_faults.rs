//! An exporter crash is a crash of that file only, and it names the exporter: the worker
//! binary, armed with the fault hook at the exporter's breadcrumb, dies (panic → exit 101
//! with a `panic` event; segfault → killed by the signal), the last breadcrumb it wrote is
//! tier `export` / stream = exporter, no `end` event claims a verdict, and the same file
//! without the fault still exports.

use pmtests::fixtures;
use pmworker::events::{Event, PanicReport};
use std::ffi::OsStr;
use std::path::Path;

fn run_export(file: &Path, exporter: &str, fault: Option<&str>) -> fixtures::Run {
    let args =
        [OsStr::new("--tiers"), OsStr::new("t1"), OsStr::new("--export"), OsStr::new(exporter), file.as_os_str()];
    let env: Vec<(&str, &str)> = fault.map(|f| ("PMWORKER_FAULT", f)).into_iter().collect();
    fixtures::run(&pmtests::binary("pmworker"), &args, &env)
}

fn events(run: &fixtures::Run) -> Vec<Event> {
    run.lines().iter().map(|l| Event::from_line(l).expect("every line is an event")).collect()
}

fn last_breadcrumb(events: &[Event]) -> Option<(String, String)> {
    events.iter().rev().find_map(|e| match e {
        Event::Breadcrumb(b) => Some((b.tier.clone(), b.stream.clone())),
        _ => None,
    })
}

fn public_mesh_file() -> Option<std::path::PathBuf> {
    Some(pmtests::public_corpus()?.join("kevinvandecar__default.max"))
}

#[test]
fn exporter_panic_dies_with_101_and_the_exporter_as_last_breadcrumb() {
    let Some(file) = public_mesh_file() else { return };
    for exporter in ["obj", "skel"] {
        let run = run_export(&file, exporter, Some(&format!("panic@export:{exporter}")));
        assert_eq!(run.code, Some(101), "{exporter}: {}", run.stderr);
        let ev = events(&run);
        let panic: &PanicReport = ev
            .iter()
            .find_map(|e| match e {
                Event::Panic(p) => Some(p),
                _ => None,
            })
            .expect("panic event");
        let crumb = panic.last_breadcrumb.as_ref().expect("last breadcrumb in the panic event");
        assert_eq!((crumb.tier.as_str(), crumb.stream.as_str()), ("export", exporter));
        assert_eq!(last_breadcrumb(&ev), Some(("export".into(), exporter.into())));
        assert!(!ev.iter().any(|e| matches!(e, Event::End(_) | Event::Export(_))), "a crash never reads as a verdict");
    }
}

#[test]
fn exporter_segfault_is_a_signal_death_after_the_exporter_breadcrumb() {
    let Some(file) = public_mesh_file() else { return };
    let run = run_export(&file, "obj", Some("segfault@export:obj"));
    assert_eq!(run.code, None);
    assert_eq!(run.signal, Some(11), "SIGSEGV");
    let ev = events(&run);
    assert_eq!(last_breadcrumb(&ev), Some(("export".into(), "obj".into())));
    assert!(!ev.iter().any(|e| matches!(e, Event::End(_))));
}

#[test]
fn a_fault_armed_for_another_exporter_leaves_this_one_alone() {
    let Some(file) = public_mesh_file() else { return };
    let run = run_export(&file, "obj", Some("panic@export:skel"));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ev = events(&run);
    assert!(ev.iter().any(|e| matches!(e, Event::Export(x) if x.exporter == "obj" && x.status == "ok")));
    assert!(ev.iter().any(|e| matches!(e, Event::End(_))));
}
