//! The pipeline of a NeL file (`.skel`, `.anim`, `.shape`, `.ig`, chosen by extension):
//! facts (`input: nel`, format, class, typed bytes), the NeL round trip as T1, triage
//! classes `nel-<format>` and `nel-<class>` (the farm's version bucket is `nel`), then `end`. T2 and T3 are defined on the
//! Max typed model and exports, so a NeL file has no results for them; asked for them
//! alone, it ends `skip`.

use crate::emit::Sink;
use crate::events::*;
use crate::options::Options;
use crate::timing::finish_timing;
use crate::wire::ToWire;
use pmcore::verify::Verdict;
use std::time::Instant;

/// Runs T1 (when asked) on NeL `bytes` and emits every event up to `end`.
pub fn run(bytes: &[u8], opts: &Options, sink: &mut dyn Sink, mut timing: Timing) -> EndStatus {
    let clock = Instant::now();
    sink.breadcrumb(Breadcrumb { tier: "t1".into(), stream: pmcore::nel::t1::STREAM.into(), ..Default::default() });
    let (rt, verdict) = pmcore::nel::t1::run(bytes);
    let mut facts = Facts { input: "nel".into(), ..Default::default() };
    let mut classes = Vec::new();
    if let Some(rt) = &rt {
        let opaque: usize = rt.opaque_runs.iter().map(|r| r.1).sum();
        facts.nel = Some(NelFacts {
            format: rt.format.clone(),
            class: rt.class.clone(),
            typed_bytes: rt.typed_bytes as u64,
            opaque_bytes: opaque as u64,
        });
        classes.push(format!("nel-{}", rt.format));
        classes.push(format!("nel-{}", pmcore::slug(&rt.class)));
    } else if let Verdict::Fail(m) = &verdict.verdict {
        facts.error = Some(m.message.clone());
    }
    sink.emit(Event::Facts(facts));
    sink.emit(Event::Triage(Triage { classes, ..Default::default() }));
    let mut counts = EndCounts::default();
    let mut reason = None;
    let mut fail_kinds = Vec::new();
    if opts.checks.runs(Tier::T1) {
        match &verdict.verdict {
            Verdict::Pass { .. } => counts.pass += 1,
            Verdict::Degraded { .. } => counts.degraded += 1,
            Verdict::Fail(m) => {
                counts.fail += 1;
                fail_kinds.push(m.kind.clone());
                reason = Some(format!("{}: {}", verdict.stream, m.message));
            }
            Verdict::Normalized { .. } => counts.normalized += 1,
            Verdict::Skip { .. } => counts.skip += 1,
        }
        sink.emit(Event::Result(TierResult {
            tier: Tier::T1,
            stream: verdict.stream,
            verdict: verdict.verdict.to_wire(),
            detail: None,
            triage: None,
        }));
    }
    timing.durations_ms.insert("t1".into(), clock.elapsed().as_millis() as u64);
    let status = if counts.fail > 0 {
        EndStatus::Fail
    } else if !opts.checks.runs(Tier::T1) {
        // Nothing that applies to a NeL file was asked for: a skip, never a silent pass.
        reason = Some("nel: only t1 applies to NeL files".into());
        EndStatus::Skip
    } else {
        EndStatus::Pass
    };
    sink.emit(Event::End(End { status, reason, fail_kinds, counts, timing: finish_timing(timing) }));
    status
}

#[cfg(test)]
mod tests {
    use crate::emit::VecSink;
    use crate::events::*;
    use crate::pipeline::{run_bytes, Options};
    use pmcore::nel::skel::{write, Bone, Skeleton};

    #[test]
    fn a_skel_file_gets_nel_facts_a_t1_pass_and_nel_triage_classes() {
        let bytes =
            write(&Skeleton::build(vec![Bone::new("Bip01"), Bone { father_id: 0, ..Bone::new("Bip01 Pelvis") }]));
        let mut sink = VecSink::default();
        let status = run_bytes("rig.skel", &bytes, &Options::default(), &mut sink, Timing::default());
        assert_eq!(status, EndStatus::Pass);
        let facts = sink.events.iter().find_map(|e| if let Event::Facts(f) = e { Some(f.clone()) } else { None });
        let facts = facts.unwrap();
        assert_eq!(facts.input, "nel");
        assert_eq!(facts.nel.as_ref().unwrap().typed_bytes, bytes.len() as u64);
        let results: Vec<_> =
            sink.events.iter().filter_map(|e| if let Event::Result(r) = e { Some(r.clone()) } else { None }).collect();
        assert_eq!(results.len(), 1);
        assert_eq!((results[0].tier, results[0].verdict.name()), (Tier::T1, "pass"));
        assert!(sink
            .events
            .iter()
            .any(|e| matches!(e, Event::Triage(t) if t.classes.contains(&"nel-cskeletonshape".to_string()))));
    }

    #[test]
    fn without_t1_a_nel_file_is_skipped_not_passed() {
        let bytes = write(&Skeleton::build(vec![Bone::new("Bip01")]));
        let mut sink = VecSink::default();
        let opts = Options::asked(&[Tier::T2], &[], Vec::new());
        assert_eq!(run_bytes("rig.skel", &bytes, &opts, &mut sink, Timing::default()), EndStatus::Skip);
        assert!(!sink.events.iter().any(|e| matches!(e, Event::Result(_))));
    }

    #[test]
    fn a_cut_nel_file_fails_with_its_offset_and_a_non_nel_one_with_nel_parse() {
        let mut sink = VecSink::default();
        let status = run_bytes("x.anim", b"garbage", &Options::default(), &mut sink, Timing::default());
        assert_eq!(status, EndStatus::Fail);
        let Some(Event::End(end)) = sink.events.last() else { panic!("no end") };
        assert_eq!(end.fail_kinds, vec!["nel-parse".to_string()]);
    }
}
