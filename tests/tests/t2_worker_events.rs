//! The worker's T2 events on real files: one `t2` result per chunk stream (none failing),
//! breadcrumbs naming stream, chunk path and class before each Scene object, and an
//! `inventory` event whose classes add up and list the unregistered superclass as generic.

use pmtests::harness::Worker;
use pmworker::events::{Event, Tier};

fn events(path: &std::path::Path) -> Vec<Event> {
    let run = Worker::new(path).run();
    assert_eq!(run.code, Some(0), "{}: {}", path.display(), run.stderr);
    run.events
}

#[test]
fn worker_reports_t2_per_chunk_stream_with_breadcrumbs_and_inventory() {
    let Some(corpus) = pmtests::public_corpus() else {
        return;
    };
    // Instantiates a superclass absent from the reference registry (0x1150/0x1180/0x1190).
    let path = corpus.join("nekidaem__01-teapot_no_cams_vray.max");
    let manifest = pmtests::manifest(&corpus);
    let chunk_streams: usize = manifest["nekidaem__01-teapot_no_cams_vray.max"]["chunk_streams"].parse().unwrap();
    let events = events(&path);

    let t2: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Result(r) if r.tier == Tier::T2 => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(t2.len(), chunk_streams, "one T2 verdict per chunk stream");
    assert!(t2.iter().all(|r| r.verdict.name() == "pass"), "{t2:?}");

    let crumbs: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Breadcrumb(b) if b.tier == "t2" => Some(b),
            _ => None,
        })
        .collect();
    let object_crumbs: Vec<_> = crumbs.iter().filter(|b| b.chunk_path.is_some()).collect();
    assert!(object_crumbs.iter().all(|b| b.stream == "Scene" && b.class.is_some()));
    assert!(object_crumbs[0].chunk_path.as_deref().unwrap().starts_with("Scene/0x"), "{:?}", object_crumbs[0]);

    let inventory = events
        .iter()
        .find_map(|e| match e {
            Event::Inventory(i) => Some(i),
            _ => None,
        })
        .expect("an inventory event");
    let objects: u64 = inventory.classes.iter().map(|c| c.count).sum();
    assert_eq!(objects as usize, object_crumbs.len(), "one breadcrumb per Scene object");
    for c in &inventory.classes {
        assert_eq!(c.count, c.typed + c.generic + c.degraded, "{}", c.name);
    }
    let unregistered = inventory
        .classes
        .iter()
        .find(|c| [0x1150, 0x1180, 0x1190].contains(&c.superclass))
        .expect("the unregistered superclass is listed");
    assert_eq!((unregistered.generic, unregistered.resolution.as_deref()), (unregistered.count, Some("generic")));
    assert!(inventory.typed_coverage > 0.0 && inventory.typed_coverage < 1.0, "{}", inventory.typed_coverage);
}
