//! Reliability: hostile inputs derived from public files at test time go through the
//! whole worker pipeline in process (T1, T2, triage, exports). For each: no panic, an
//! `end` event, a failure that names where it happened, and no single allocation larger
//! than the input justifies.

use pmtests::hostile::{cases_from, Rng};
use pmworker::emit::VecSink;
use pmworker::events::{EndStatus, Event, ExportKind, Tier, Timing};
use pmworker::pipeline::{run_bytes, Options};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Records the largest single allocation while armed.
struct Tracking;
static LARGEST: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// Generous but bounded: a parsed tree costs a small multiple of its bytes; inflation
/// is bounded separately by `pmcore::compression::inflate_limit`.
fn allocation_bound(input: usize) -> usize {
    32 * input + (4 << 20)
}

const SEEDS: &[&str] = &["dakahler__room.max", "nekidaem__01-teapot_no_cams_vray.max", "fhqht12331__box.max"];

#[test]
fn hostile_inputs_never_panic_and_fail_with_a_locator() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let opts = Options::asked(&[Tier::T1, Tier::T2, Tier::T3], &[ExportKind::Obj, ExportKind::Skel], Vec::new());
    let mut rng = Rng::new(0x5EED);
    let (mut total, mut failed, mut passed) = (0, 0, 0);
    let mut problems = Vec::new();
    for seed in SEEDS {
        let bytes = std::fs::read(corpus.join(seed)).expect("seed readable");
        for case in cases_from(seed, &bytes, &mut rng) {
            total += 1;
            LARGEST.store(0, Ordering::Relaxed);
            let mut sink = VecSink::default();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_bytes(&case.name, &case.bytes, &opts, &mut sink, Timing::default())
            }));
            let largest = LARGEST.load(Ordering::Relaxed);
            let status = match outcome {
                Ok(s) => s,
                Err(_) => {
                    problems.push(format!("{}: PANIC", case.name));
                    continue;
                }
            };
            if largest > allocation_bound(case.bytes.len()) {
                problems.push(format!(
                    "{}: allocation of {largest} bytes for a {}-byte input",
                    case.name,
                    case.bytes.len()
                ));
            }
            let end = sink.events.iter().find_map(|e| if let Event::End(e) = e { Some(e.clone()) } else { None });
            let Some(end) = end else {
                problems.push(format!("{}: no end event", case.name));
                continue;
            };
            assert_eq!(end.status, status);
            match status {
                EndStatus::Fail => {
                    failed += 1;
                    // Every failure names where: a locator in some result, or the corrupt container.
                    let located = sink.events.iter().any(|e| match e {
                        Event::Result(r) => match &r.verdict {
                            pmschema::events::Verdict::Fail(m) => !m.chunk_path.is_empty() && !m.kind.is_empty(),
                            _ => false,
                        },
                        Event::Facts(f) => f.error.is_some(),
                        _ => false,
                    });
                    if !located {
                        problems.push(format!("{}: fail without a locator", case.name));
                    }
                }
                EndStatus::Pass => {
                    passed += 1;
                    if std::env::var_os("HOSTILE_VERBOSE").is_some() {
                        println!("still passes: {}", case.name);
                    }
                }
                EndStatus::Skip => {}
            }
        }
    }
    println!("hostile inputs: {total} cases, {failed} failed with a locator, {passed} still passed (mutations that kept the file valid)");
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(failed > total / 2, "most hostile inputs must be detected ({failed} of {total})");
}
