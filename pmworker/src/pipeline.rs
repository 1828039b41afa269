//! The per-file pipeline: read → classify → facts → T1 → T2 → triage → exports/T3 → end.
//! The binary runs it once per process; the farm's in-process mode runs the same code.

pub use crate::options::Options;
pub use crate::timing::{durations, finish_timing, peak_rss_bytes};
pub use pmschema::hex;

use crate::emit::Sink;
use crate::events::*;
use crate::wire::ToWire;
use pmcore::model::scene_index::SceneTrees;
use pmcore::parsed::ParsedStreams;
use pmcore::verify::StreamVerdict;
use pmcore::{classify, facts::FileFacts, Input, MaxFile};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

/// Ends the process like a failed allocation when a stream could not be inflated for
/// lack of memory under the budget: that is the process's condition, not the file's.
fn abort_if_out_of_memory(file: &MaxFile) {
    for s in &file.streams {
        if let Some(pmcore::compression::DecompressError::OutOfMemory { bytes, .. }) = s.decompress_error() {
            let size = usize::try_from(*bytes).unwrap_or(usize::MAX).max(1);
            let layout = std::alloc::Layout::from_size_align(size, 1).unwrap_or(std::alloc::Layout::new::<u8>());
            std::alloc::handle_alloc_error(layout);
        }
    }
}

/// Tool name and version carried by `start`.
pub fn tool_name() -> String {
    format!("pmworker {}", env!("CARGO_PKG_VERSION"))
}

/// Accumulates verdicts into the `end` event.
#[derive(Default)]
struct Tally {
    counts: EndCounts,
    fail_kinds: BTreeSet<String>,
    first_failure: Option<String>,
}

impl Tally {
    fn add(&mut self, v: &Verdict, stream: &str) {
        match v {
            Verdict::Pass { .. } => self.counts.pass += 1,
            Verdict::Fail(m) => {
                self.counts.fail += 1;
                self.fail_kinds.insert(m.kind.clone());
                self.first_failure.get_or_insert_with(|| format!("{stream}: {}", m.message));
            }
            Verdict::Normalized { .. } => self.counts.normalized += 1,
            Verdict::Degraded { .. } => self.counts.degraded += 1,
            Verdict::Skip { .. } => self.counts.skip += 1,
        }
    }
}

/// Reads `path` and runs the pipeline. `Err` only when the file cannot be read (the
/// caller exits 2: an infrastructure error, not a verdict on the file).
pub fn run_path(path: &Path, opts: &Options, sink: &mut dyn Sink) -> std::io::Result<EndStatus> {
    let started = Instant::now();
    let bytes = read_file(path)?;
    let mut timing = Timing::default();
    timing.durations_ms.insert("read".into(), started.elapsed().as_millis() as u64);
    Ok(run_input(&path.display().to_string(), Cow::Owned(bytes), opts, sink, timing))
}

/// `std::fs::read`, with huge pages asked for on the buffer (`pmcore::pages`).
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX).saturating_add(1))
        .map_err(std::io::Error::other)?;
    pmcore::pages::advise_huge(&bytes);
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Runs the pipeline on bytes already in memory.
pub fn run_bytes(display_path: &str, bytes: &[u8], opts: &Options, sink: &mut dyn Sink, timing: Timing) -> EndStatus {
    run_input(display_path, Cow::Borrowed(bytes), opts, sink, timing)
}

/// The pipeline. Owned input bytes are released as soon as the container has copied the
/// streams out of them: on a 147 MB file that is 147 MB less at the worker's peak.
fn run_input(
    display_path: &str,
    bytes: Cow<'_, [u8]>,
    opts: &Options,
    sink: &mut dyn Sink,
    mut timing: Timing,
) -> EndStatus {
    sink.emit(Event::Start(Start {
        schema: SCHEMA_VERSION,
        path: display_path.to_string(),
        bytes: bytes.len() as u64,
        sha256: hex(&Sha256::digest(&bytes)),
        tool: tool_name(),
    }));
    if pmcore::nel::is_nel_name(display_path) {
        return crate::nel::run(&bytes, opts, sink, timing);
    }
    let mut tally = Tally::default();
    let clock = Instant::now();
    sink.breadcrumb(Breadcrumb { tier: "open".into(), stream: "@container".into(), ..Default::default() });
    let input = classify(&bytes);
    let budget = pmcore::compression::file_budget(bytes.len() as u64, crate::memory::address_space_cap());
    drop(bytes);
    let mut facts = Facts { input: input.class_name().to_string(), ..Default::default() };
    let file = match input {
        Input::Ole(ole) => MaxFile::with_budget(ole, pmcore::compression::Budget::new(budget)),
        Input::LfsPointer(p) => {
            facts.lfs = Some(p.to_wire());
            return finish_skip(sink, facts, "lfs-pointer", timing);
        }
        Input::Empty => return finish_skip(sink, facts, "empty", timing),
        Input::NotOle => return finish_skip(sink, facts, "not-ole", timing),
        Input::CorruptOle(e) => {
            facts.error = Some(e.to_string());
            sink.emit(Event::Facts(facts));
            sink.emit(Event::Triage(Triage { classes: vec!["corrupt-input".into()], ..Default::default() }));
            let end = End {
                status: EndStatus::Fail,
                reason: Some(format!("corrupt OLE: {e}")),
                fail_kinds: vec!["corrupt-input".into()],
                counts: EndCounts { fail: 1, ..Default::default() },
                timing: finish_timing(timing),
            };
            sink.emit(Event::End(end));
            return EndStatus::Fail;
        }
    };
    if opts.abort_on_oom {
        abort_if_out_of_memory(&file);
    }
    if let Some(hook) = opts.on_decoded {
        hook(file.decoded_bytes());
    }
    let file_facts = FileFacts::of(&file);
    fill_facts(&mut facts, &file_facts);
    sink.emit(Event::Facts(facts));
    timing.durations_ms.insert("open".into(), clock.elapsed().as_millis() as u64);
    // Phase boundaries release freed memory on large inputs in a worker process (a no-op
    // in process: only the worker's command line records the input size).
    crate::memory::between_phases();

    // Each chunk stream is parsed once: T1 keeps its trees for T2, and the Scene's move on
    // to triage and the exporters (`pmcore::parsed`).
    let mut parsed = ParsedStreams::default();
    if opts.checks.runs(Tier::T1) {
        let clock = Instant::now();
        let (verdicts, kept) = {
            let mut crumb = |stream: &str| {
                sink.breadcrumb(Breadcrumb { tier: "t1".into(), stream: stream.into(), ..Default::default() })
            };
            pmcore::verify::t1::run_keeping_trees(&file, &mut crumb)
        };
        parsed = kept;
        emit_results(sink, Tier::T1, verdicts, &mut tally);
        timing.durations_ms.insert("t1".into(), clock.elapsed().as_millis() as u64);
        crate::memory::between_phases();
    }
    if opts.checks.runs(Tier::T2) {
        let clock = Instant::now();
        let verdicts = crate::t2::run(&file, &parsed, sink);
        emit_results(sink, Tier::T2, verdicts, &mut tally);
        timing.durations_ms.insert("t2".into(), clock.elapsed().as_millis() as u64);
        crate::memory::between_phases();
    }
    let clock = Instant::now();
    sink.breadcrumb(Breadcrumb { tier: "triage".into(), stream: "Scene".into(), ..Default::default() });
    let scene = SceneTrees::from_parsed(&file, parsed);
    let triage = crate::triage::detect(&file_facts, scene.as_ref());
    sink.emit(Event::Triage(triage));
    timing.durations_ms.insert("triage".into(), clock.elapsed().as_millis() as u64);

    if opts.checks.runs(Tier::T3) {
        let clock = Instant::now();
        let verdicts = crate::export::run(display_path, &file, scene.as_ref(), opts, sink);
        sink.breadcrumb(Breadcrumb { tier: "t3".into(), stream: "@triage".into(), ..Default::default() });
        let classes = crate::t3_triage::triage(&file, &verdicts);
        for (v, triage) in verdicts.into_iter().zip(classes) {
            let verdict = v.verdict.to_wire();
            tally.add(&verdict, &v.stream);
            sink.emit(Event::Result(TierResult {
                tier: Tier::T3,
                stream: v.stream,
                verdict,
                detail: v.detail,
                triage,
            }));
        }
        timing.durations_ms.insert("export".into(), clock.elapsed().as_millis() as u64);
    }

    let status = if tally.counts.fail > 0 { EndStatus::Fail } else { EndStatus::Pass };
    sink.emit(Event::End(End {
        status,
        reason: tally.first_failure,
        fail_kinds: tally.fail_kinds.into_iter().collect(),
        counts: tally.counts,
        timing: finish_timing(timing),
    }));
    crate::memory::discard(scene);
    crate::memory::discard(file);
    status
}

fn emit_results(sink: &mut dyn Sink, tier: Tier, verdicts: Vec<StreamVerdict>, tally: &mut Tally) {
    for v in verdicts {
        let verdict = v.verdict.to_wire();
        tally.add(&verdict, &v.stream);
        sink.emit(Event::Result(TierResult { tier, stream: v.stream, verdict, detail: None, triage: None }));
    }
}

fn fill_facts(facts: &mut Facts, f: &FileFacts) {
    facts.root_id = f.root_id.map(|id| format!("0x{id:04x}"));
    facts.max_version = f.max_version.clone();
    facts.saving_release = f.saving_release.clone();
    facts.saved_as = f.saved_as.clone();
    facts.build = f.build.clone();
    facts.streams = f.streams.iter().cloned().map(ToWire::to_wire).collect();
    facts.clsid = Some(f.clsid.clone());
    facts.headers_6 = Some(f.headers_6);
    facts.headers_14 = Some(f.headers_14);
    facts.compression = f.compression.clone();
}

fn finish_skip(sink: &mut dyn Sink, facts: Facts, reason: &str, timing: Timing) -> EndStatus {
    sink.emit(Event::Facts(facts));
    sink.emit(Event::Triage(Triage { classes: vec![reason.to_string()], ..Default::default() }));
    sink.emit(Event::End(End {
        status: EndStatus::Skip,
        reason: Some(reason.to_string()),
        fail_kinds: Vec::new(),
        counts: EndCounts::default(),
        timing: finish_timing(timing),
    }));
    EndStatus::Skip
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::VecSink;

    fn run(bytes: &[u8]) -> (EndStatus, Vec<Event>) {
        let mut sink = VecSink::default();
        let status = run_bytes("x.max", bytes, &Options::default(), &mut sink, Timing::default());
        (status, sink.events)
    }

    #[test]
    fn non_ole_inputs_are_skipped_with_their_class_as_reason() {
        let lfs = b"version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 3\n".as_slice();
        for (bytes, class) in [(b"".as_slice(), "empty"), (b"plain text".as_slice(), "not-ole"), (lfs, "lfs-pointer")] {
            let (status, events) = run(bytes);
            assert_eq!(status, EndStatus::Skip, "{class}");
            assert!(matches!(events.first(), Some(Event::Start(s)) if s.bytes == bytes.len() as u64));
            let Some(Event::End(end)) = events.last() else { panic!("{class}: no end") };
            assert_eq!(end.reason.as_deref(), Some(class));
            assert!(events.iter().any(|e| matches!(e, Event::Facts(f) if f.input == class)), "{class}");
        }
    }

    #[test]
    fn corrupt_ole_is_a_fail_with_kind_corrupt_input() {
        let mut bytes = vec![0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
        bytes.extend([0x5a; 600]);
        let (status, events) = run(&bytes);
        assert_eq!(status, EndStatus::Fail);
        let Some(Event::End(end)) = events.last() else { panic!("no end") };
        assert_eq!(end.fail_kinds, vec!["corrupt-input".to_string()]);
    }
}
