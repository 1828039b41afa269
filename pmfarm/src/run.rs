//! `pmfarm run`: enumerate → schedule one isolated worker per file (or in-process) →
//! journal every result as it arrives → buckets → baseline diff → gates → outputs.
//! Returns the exit code: 0 gates pass, 1 a gate failed or a file lacks a status,
//! 77 nothing runnable, 2 usage or configuration error.

use crate::enumerate::{Corpus, Item};
use crate::journal::{self, Journal};
use crate::limits::Limits;
use crate::progress::Progress;
use crate::results::*;
use crate::supervise::{run_worker, WorkerCommand};
use pmworker::events::Tier;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Exit codes of `pmfarm` (defined in `pmschema`).
pub use pmschema::exit::farm as code;

/// What the worker is asked to do; recorded in the journal and the summary so a
/// resumption runs the same thing.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorkOptions {
    /// Tiers.
    pub tiers: Vec<Tier>,
    /// Exporters.
    pub exports: Vec<pmworker::events::ExportKind>,
    /// Reference folders for T3, in search order (`--reference`, repeatable). Journals
    /// written when this was a single optional folder still read (`null` or one path).
    #[serde(default, deserialize_with = "one_or_many_paths")]
    pub reference: Vec<PathBuf>,
    /// In-process mode (no isolation).
    pub in_process: bool,
}

impl WorkOptions {
    /// Worker command-line arguments before the file.
    pub fn worker_args(&self) -> Vec<String> {
        let mut args = vec!["--tiers".to_string(), self.tiers.iter().map(|t| t.name()).collect::<Vec<_>>().join(",")];
        if !self.exports.is_empty() {
            args.push("--export".into());
            args.push(self.exports.iter().map(|e| e.name()).collect::<Vec<_>>().join(","));
        }
        for r in &self.reference {
            args.push("--reference".into());
            args.push(r.display().to_string());
        }
        args
    }

    fn pipeline_options(&self) -> pmworker::pipeline::Options {
        pmworker::pipeline::Options {
            tiers: self.tiers.clone(),
            exports: self.exports.clone(),
            reference: self.reference.clone(),
            out: None,
            on_decoded: None,
            abort_on_oom: false,
        }
    }
}

/// Reads `reference` as a list, or as the single optional path older journals hold.
fn one_or_many_paths<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Paths {
        Many(Vec<PathBuf>),
        One(Option<PathBuf>),
    }
    Ok(match <Paths as serde::Deserialize>::deserialize(d)? {
        Paths::Many(v) => v,
        Paths::One(p) => p.into_iter().collect(),
    })
}

/// Everything `run` needs.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Output folder.
    pub out: PathBuf,
    /// Worker executable.
    pub worker: PathBuf,
    /// Arguments before the worker's own (`["worker"]` when the farm runs its own binary
    /// as the worker, empty for a separate `pmworker`).
    pub worker_prefix: Vec<String>,
    /// Per-worker limits.
    pub limits: Limits,
    /// What to run.
    pub work: WorkOptions,
    /// Baseline to compare with, and the folder baselines live in.
    pub baseline: Option<String>,
    /// Baselines folder.
    pub baselines_dir: PathBuf,
    /// Gates applied to the results (`--gates DIR`, the workspace's `gates/`, or none).
    pub gates: crate::gates::GateSource,
    /// The shard this run checks (`--shard`), `None` for a whole run: a shard's checks that
    /// need every file wait for `merge`. Recorded in the journal and in `summary.json`.
    pub shard: Option<crate::shard::Shard>,
    /// Write the HTML/JSON report at the end.
    pub report: bool,
    /// JUnit with one test case per file instead of one per bucket.
    pub junit_per_file: bool,
    /// `--resume` runs files whose journaled result is `infra-error` again (the default).
    pub retry_infra_errors: bool,
    /// History file the finished run appends its headline numbers to (`--history`).
    pub history: Option<PathBuf>,
}

impl RunConfig {
    /// `false` for one shard of a sharded run.
    pub fn complete(&self) -> bool {
        self.shard.is_none()
    }

    /// Full worker argument list before the file: the entry prefix, then the work options.
    fn worker_args(&self) -> Vec<String> {
        let mut args = self.worker_prefix.clone();
        args.extend(self.work.worker_args());
        args
    }
}

/// Runs a fresh corpus.
pub fn run(corpus: Corpus, cfg: &RunConfig) -> i32 {
    if corpus.items.is_empty() {
        eprintln!("pmfarm: nothing runnable: no .max files under {}", corpus.root.display());
        return code::NOTHING_RUNNABLE;
    }
    // Everything that can be validated is, before the first worker starts and before the
    // previous outputs are touched.
    let Some((gates, baseline)) = load_config(cfg) else { return code::USAGE };
    if let Err(e) = std::fs::create_dir_all(&cfg.out) {
        eprintln!("pmfarm: cannot create {}: {e}", crate::display::path(&cfg.out));
        return code::USAGE;
    }
    let _lock = match crate::lock::RunLock::acquire(&cfg.out) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pmfarm: {}", crate::display::escape_controls(&e.to_string()));
            return code::USAGE;
        }
    };
    // Outputs of an earlier run in this folder must never pass for this run's if it is
    // interrupted: the folder is marked in progress, then they (the report included) are
    // removed before the first worker starts.
    if let Err(e) = crate::run_folder::begin(&cfg.out, "run") {
        eprintln!("pmfarm: cannot clear the earlier outputs in {}: {e}", crate::display::path(&cfg.out));
        return code::USAGE;
    }
    let mut journal = match Journal::create(&cfg.out) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("pmfarm: cannot write the journal in {}: {e}", cfg.out.display());
            return code::USAGE;
        }
    };
    let record = JournalRecord::Run {
        schema: RESULTS_SCHEMA,
        corpus_root: corpus.root.display().to_string(),
        files: corpus.items.iter().map(|i| i.rel.clone()).collect(),
        options: serde_json::to_value(&cfg.work).unwrap_or_default(),
        resumed: false,
        shard: cfg.shard.map(|s| s.label()),
    };
    if let Err(e) = journal.append(&record) {
        eprintln!("pmfarm: journal: {e}");
        return code::USAGE;
    }
    execute(corpus, BTreeMap::new(), journal, cfg, &gates, baseline)
}

/// Gate rules and baseline entries of a run, validated; `None` after printing why not.
fn load_config(cfg: &RunConfig) -> Option<(crate::gates::Rules, Option<Vec<BaselineEntry>>)> {
    let gates = match crate::gates::load(&cfg.gates) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("pmfarm: gate configuration: {e}");
            return None;
        }
    };
    let baseline = match &cfg.baseline {
        Some(name) => match crate::baseline::load(&crate::baseline::path_of(&cfg.baselines_dir, name)) {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("pmfarm: {e}");
                return None;
            }
        },
        None => None,
    };
    Some((gates, baseline))
}

/// Completes the run recorded in `cfg.out/journal.jsonl`.
pub fn resume(cfg: &RunConfig) -> i32 {
    let _lock = match cfg.out.is_dir().then(|| crate::lock::RunLock::acquire(&cfg.out)) {
        Some(Err(e)) => {
            eprintln!("pmfarm: {}", crate::display::escape_controls(&e.to_string()));
            return code::USAGE;
        }
        held => held,
    };
    let replay = match journal::replay(&cfg.out) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "pmfarm: --resume: cannot read {}: {}",
                crate::display::path(&cfg.out.join(journal::JOURNAL)),
                crate::display::escape_controls(&e.to_string())
            );
            return code::USAGE;
        }
    };
    let Some(JournalRecord::Run { corpus_root, files, options, shard, .. }) = replay.run else {
        eprintln!("pmfarm: --resume: the journal has no run record");
        return code::USAGE;
    };
    let shard = match shard.as_deref().map(crate::shard::Shard::parse_one_based) {
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => {
            eprintln!("pmfarm: --resume: shard in the journal: {e}");
            return code::USAGE;
        }
        None => None,
    };
    let work: WorkOptions = match serde_json::from_value(options) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("pmfarm: --resume: run options in the journal: {e}");
            return code::USAGE;
        }
    };
    let Some((gates, baseline)) = load_config(cfg) else { return code::USAGE };
    let root = PathBuf::from(&corpus_root);
    let corpus = Corpus {
        items: files
            .iter()
            .map(|rel| Item { abs: root.join(crate::enumerate::unescape(rel)), rel: rel.clone(), blocked: None })
            .collect(),
        root,
    };
    if let Err(e) = crate::run_folder::begin(&cfg.out, "resume") {
        eprintln!("pmfarm: --resume: cannot clear the earlier outputs: {e}");
        return code::USAGE;
    }
    let mut journal = match Journal::reopen(&cfg.out) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("pmfarm: --resume: {e}");
            return code::USAGE;
        }
    };
    let enumerated: BTreeSet<&String> = files.iter().collect();
    // An infra error says nothing about the file (the farm could not run it): a resumption
    // runs it again unless told to keep it.
    let (done, retried): (BTreeMap<String, FileResult>, BTreeMap<String, FileResult>) = replay
        .results
        .into_iter()
        .filter(|(p, _)| enumerated.contains(p))
        .partition(|(_, r)| r.status != Status::InfraError || !cfg.retry_infra_errors);
    eprintln!(
        "pmfarm: resuming {}: {} of {} files already done{}{}",
        crate::display::path(&cfg.out),
        done.len(),
        files.len(),
        if retried.is_empty() { String::new() } else { format!(", {} infra error(s) run again", retried.len()) },
        if replay.torn_lines > 0 { " (torn last line ignored)" } else { "" }
    );
    let record = JournalRecord::Run {
        schema: RESULTS_SCHEMA,
        corpus_root,
        files,
        options: serde_json::to_value(&work).unwrap_or_default(),
        resumed: true,
        shard: shard.map(|s| s.label()),
    };
    if let Err(e) = journal.append(&record) {
        eprintln!("pmfarm: journal: {e}");
        return code::USAGE;
    }
    let cfg = RunConfig { work, shard, ..cfg.clone() };
    execute(corpus, done, journal, &cfg, &gates, baseline)
}

fn execute(
    corpus: Corpus,
    mut done: BTreeMap<String, FileResult>,
    journal: Journal,
    cfg: &RunConfig,
    gates: &[(String, crate::gates::GateFile)],
    baseline: Option<Vec<BaselineEntry>>,
) -> i32 {
    let started = Instant::now();
    let (blocked, pending): (Vec<Item>, Vec<Item>) =
        corpus.items.iter().filter(|i| !done.contains_key(&i.rel)).cloned().partition(|i| i.blocked.is_some());
    let progress = Arc::new(Mutex::new(Progress::new(corpus.items.len() as u64, done.len() as u64)));
    let journal = Arc::new(Mutex::new(journal));
    // Paths enumeration already judged (special files, dangling links, loops, unreadable
    // folders) get their status without a worker.
    for item in &blocked {
        let Some(b) = &item.blocked else { continue };
        let r = crate::outcome::unrunnable(&item.rel, b.status, b.reason.clone());
        match record_result(r, &journal, &progress) {
            Ok(r) => {
                done.insert(r.path.clone(), r);
            }
            Err(e) => {
                eprintln!("pmfarm: journal: {e}");
                return code::USAGE;
            }
        }
    }
    let fresh = if cfg.work.in_process {
        run_in_process(&pending, cfg, &journal, &progress)
    } else {
        match run_isolated(&pending, cfg, &journal, &progress) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("pmfarm: scheduler: {e}");
                return code::USAGE;
            }
        }
    };
    progress.lock().map(|p| p.finish()).ok();
    for r in fresh {
        done.insert(r.path.clone(), r);
    }

    // Completeness invariant: every enumerated file has exactly one terminal result.
    let missing: Vec<&str> =
        corpus.items.iter().filter(|i| !done.contains_key(&i.rel)).map(|i| i.rel.as_str()).collect();
    let mut results: Vec<FileResult> =
        corpus.items.iter().filter_map(|i| done.get(&i.rel).cloned()).collect::<Vec<_>>();
    results.sort_by(|a, b| a.path.cmp(&b.path));

    let mut diff = None;
    if let (Some(name), Some(base)) = (&cfg.baseline, &baseline) {
        let by_rel: BTreeMap<&str, &Item> = corpus.items.iter().map(|i| (i.rel.as_str(), i)).collect();
        let d = crate::baseline::compare(name, base, &mut results, |r| {
            let item = by_rel.get(r.path.as_str())?;
            eprintln!("pmfarm: re-running {} alone ({})", crate::display::escape_controls(&r.path), r.status);
            let alone = RunConfig { limits: Limits { jobs: 1, ..cfg.limits.clone() }, ..cfg.clone() };
            let mut again = run_one_blocking(item, &alone)?;
            again.buckets = crate::buckets::buckets_of(&again);
            Some(again)
        });
        diff = Some(d);
    }

    let ctx = crate::gates::Context {
        diff: diff.as_ref().map(|d| d.files.as_slice()),
        tiers: &cfg.work.tiers,
        complete: cfg.complete(),
    };
    let gate_outcomes = crate::gates::evaluate(gates, &results, ctx);
    let summary = summarize(&corpus, cfg, &results, gate_outcomes, diff.as_ref(), started.elapsed().as_millis());
    if let Err(e) = crate::run_dir::RunDir::new(&cfg.out).write_outputs(&results, &summary, diff.as_ref()) {
        eprintln!("pmfarm: cannot write outputs in {}: {e}", crate::display::path(&cfg.out));
        return code::USAGE;
    }
    if let Ok(mut j) = journal.lock() {
        let _ = j.append(&JournalRecord::Finished { files: results.len() as u64 });
    }
    print_summary(&summary, &cfg.out);
    // The history line is appended before the report, which draws it.
    let mut history_failed = false;
    if let Some(h) = &cfg.history {
        match crate::report::record_history(&cfg.out, h) {
            Ok(_) => println!("pmfarm: history: appended to {}", crate::display::path(h)),
            Err(e) => {
                eprintln!("pmfarm: history not written: {}", crate::display::escape_controls(&e));
                history_failed = true;
            }
        }
    }
    let report_written = !cfg.report || render_report(cfg);
    // The results are complete (and stay, whatever happened to the report).
    if let Err(e) = crate::run_folder::finish(&cfg.out) {
        eprintln!("pmfarm: cannot clear the in-progress mark in {}: {e}", crate::display::path(&cfg.out));
        return code::USAGE;
    }
    if history_failed {
        return code::USAGE;
    }
    if !report_written {
        eprintln!(
            "pmfarm: FAILED: the report was not written; the results are complete in {} \
             (render it again with `pmfarm report`)",
            crate::display::path(&cfg.out)
        );
        return code::USAGE;
    }

    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().map(|m| crate::display::escape_controls(m).into_owned()).collect();
        eprintln!("pmfarm: FAILED: {} file(s) ended without a status: {}", missing.len(), shown.join(", "));
        return code::GATE_FAILED;
    }
    let runnable = results.iter().filter(|r| r.status != Status::Skip).count();
    if runnable == 0 {
        eprintln!("pmfarm: nothing runnable: all {} file(s) were skipped ({})", results.len(), skip_reasons(&results));
        return code::NOTHING_RUNNABLE;
    }
    let failures = crate::gates::failures(&summary.gates, !gates.is_empty() && cfg.complete());
    if failures.is_empty() {
        code::OK
    } else {
        for f in &failures {
            eprintln!("pmfarm: {}", crate::display::escape_controls(f));
        }
        code::GATE_FAILED
    }
}

fn skip_reasons(results: &[FileResult]) -> String {
    let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
    for r in results {
        *reasons.entry(r.reason.clone().unwrap_or_else(|| "skip".into())).or_default() += 1;
    }
    reasons.iter().map(|(k, v)| format!("{v} {}", crate::display::escape_controls(k))).collect::<Vec<_>>().join(", ")
}

fn record_result(
    mut r: FileResult,
    journal: &Mutex<Journal>,
    progress: &Mutex<Progress>,
) -> Result<FileResult, std::io::Error> {
    r.buckets = crate::buckets::buckets_of(&r);
    if let Ok(mut j) = journal.lock() {
        j.append(&JournalRecord::Result(Box::new(r.clone())))?;
    }
    if let Ok(mut p) = progress.lock() {
        p.file_done(&r);
    }
    Ok(r)
}

fn record_start(path: &str, journal: &Mutex<Journal>) {
    if let Ok(mut j) = journal.lock() {
        if let Err(e) = j.append(&JournalRecord::Started { path: path.to_string() }) {
            eprintln!("pmfarm: journal: {e}");
        }
    }
}

fn runtime(jobs: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(jobs.clamp(1, 4)).enable_all().build()
}

/// Runs each pending file in its own worker process, `jobs` at a time.
fn run_isolated(
    pending: &[Item],
    cfg: &RunConfig,
    journal: &Arc<Mutex<Journal>>,
    progress: &Arc<Mutex<Progress>>,
) -> std::io::Result<Vec<FileResult>> {
    let rt = runtime(cfg.limits.jobs)?;
    let cmd = Arc::new(WorkerCommand { exe: cfg.worker.clone(), args: cfg.worker_args() });
    let limits = Arc::new(cfg.limits.clone());
    rt.block_on(async {
        let slots = Arc::new(Concurrency::new(cfg.limits.jobs.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        for item in pending.iter().cloned() {
            let (slots, cmd, limits, journal, progress) =
                (slots.clone(), cmd.clone(), limits.clone(), journal.clone(), progress.clone());
            tasks.spawn(async move {
                let mut permit = slots.acquire().await;
                record_start(&item.rel, &journal);
                let mut attempt = 1;
                let mut raw = run_worker(&cmd, &item.abs, &limits).await;
                // The coordinator ran short (descriptors, processes, memory): that says
                // nothing about the file. Fewer workers at once, a pause, and again.
                while raw.exhausted && attempt < SPAWN_ATTEMPTS {
                    permit = slots.lower(permit, attempt, raw.spawn_error.as_deref().unwrap_or_default()).await;
                    attempt += 1;
                    raw = run_worker(&cmd, &item.abs, &limits).await;
                }
                drop(permit);
                if raw.exhausted {
                    let why = raw.spawn_error.take().unwrap_or_default();
                    raw.spawn_error = Some(format!(
                        "{why} (coordinator out of resources after {attempt} attempts, {} worker(s) at once)",
                        slots.current()
                    ));
                }
                let r = crate::outcome::from_run(&item.rel, raw, &limits);
                record_result(r, &journal, &progress)
            });
        }
        let mut out = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok(Ok(r)) => out.push(r),
                Ok(Err(e)) => return Err(e),
                Err(e) => return Err(std::io::Error::other(e)),
            }
        }
        Ok(out)
    })
}

/// Starts of one file tried before a shortage of coordinator resources becomes its
/// `infra-error` (with pauses of 50 ms, 100 ms, … up to 1.6 s between them: ~6 s in all).
pub const SPAWN_ATTEMPTS: u32 = 8;

/// The number of workers at once: a semaphore that can shrink (never below one) when the
/// coordinator runs out of descriptors, processes or memory starting them.
struct Concurrency {
    slots: Arc<tokio::sync::Semaphore>,
    current: std::sync::atomic::AtomicUsize,
}

impl Concurrency {
    fn new(jobs: usize) -> Concurrency {
        Concurrency { slots: Arc::new(tokio::sync::Semaphore::new(jobs)), current: jobs.into() }
    }

    async fn acquire(&self) -> tokio::sync::OwnedSemaphorePermit {
        self.slots.clone().acquire_owned().await.expect("semaphore is never closed")
    }

    fn current(&self) -> usize {
        self.current.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Gives up `permit` for good when more than one worker may run (one fewer at once
    /// from now on), pauses (50 ms after the first attempt, doubling up to 1.6 s), and
    /// waits for a slot again.
    async fn lower(
        &self,
        permit: tokio::sync::OwnedSemaphorePermit,
        attempt: u32,
        why: &str,
    ) -> tokio::sync::OwnedSemaphorePermit {
        use std::sync::atomic::Ordering;
        let lowered = self.current.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| (c > 1).then(|| c - 1));
        match lowered {
            Ok(was) => {
                permit.forget();
                eprintln!("pmfarm: {why}: {} worker(s) at once from now on", was - 1);
            }
            Err(_) => drop(permit),
        }
        let pause = (50u64 << attempt.saturating_sub(1).min(5)).min(1600);
        tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
        self.acquire().await
    }
}

/// Runs one file alone (baseline re-runs of timeouts and infra errors).
fn run_one_blocking(item: &Item, cfg: &RunConfig) -> Option<FileResult> {
    if cfg.work.in_process {
        return Some(in_process_one(item, &cfg.work));
    }
    let rt = runtime(1).ok()?;
    let cmd = WorkerCommand { exe: cfg.worker.clone(), args: cfg.worker_args() };
    let raw = rt.block_on(run_worker(&cmd, &item.abs, &cfg.limits));
    Some(crate::outcome::from_run(&item.rel, raw, &cfg.limits))
}

fn in_process_one(item: &Item, work: &WorkOptions) -> FileResult {
    let clock = Instant::now();
    let mut sink = pmworker::emit::VecSink::default();
    let status = pmworker::pipeline::run_path(&item.abs, &work.pipeline_options(), &mut sink).ok();
    crate::outcome::from_events(&item.rel, &sink.events, status, clock.elapsed().as_millis() as u64)
}

/// Runs every pending file in this process on rayon's pool: the same pipeline code,
/// no isolation (a crash ends the farm). For benchmarks.
fn run_in_process(
    pending: &[Item],
    cfg: &RunConfig,
    journal: &Arc<Mutex<Journal>>,
    progress: &Arc<Mutex<Progress>>,
) -> Vec<FileResult> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cfg.limits.jobs.max(1)).build();
    let work = |item: &Item| {
        record_start(&item.rel, journal);
        let r = in_process_one(item, &cfg.work);
        record_result(r, journal, progress).ok()
    };
    match pool {
        Ok(pool) => pool.install(|| pending.par_iter().filter_map(work).collect()),
        Err(_) => pending.iter().filter_map(work).collect(),
    }
}

/// What `summary.json` counts from the per-file results: one function for a run and for a
/// merge of shards, so a merged run cannot count differently from an unsharded one.
pub(crate) struct Tally {
    /// Files per status (every status present, zeros included).
    pub status_counts: BTreeMap<String, u64>,
    /// Files and statuses per bucket.
    pub buckets: BTreeMap<String, BucketSummary>,
    /// SHA-256 of the `path\tsha256` lines, in result order.
    pub corpus_manifest_sha256: String,
    /// Input bytes over all files.
    pub bytes: u64,
}

/// Counts `results` (sorted by path) for the summary.
pub(crate) fn tally(results: &[FileResult]) -> Tally {
    let mut status_counts = empty_status_counts();
    let mut buckets: BTreeMap<String, BucketSummary> = BTreeMap::new();
    let mut manifest = String::new();
    let mut bytes = 0u64;
    for r in results {
        *status_counts.entry(r.status.name().to_string()).or_default() += 1;
        for b in &r.buckets {
            let e = buckets
                .entry(b.clone())
                .or_insert_with(|| BucketSummary { files: 0, status_counts: empty_status_counts() });
            e.files += 1;
            *e.status_counts.entry(r.status.name().to_string()).or_default() += 1;
        }
        manifest.push_str(&format!("{}\t{}\n", r.path, r.sha256.as_deref().unwrap_or("-")));
        bytes += r.bytes;
    }
    let corpus_manifest_sha256 = pmschema::hex(&Sha256::digest(manifest.as_bytes()));
    Tally { status_counts, buckets, corpus_manifest_sha256, bytes }
}

fn summarize(
    corpus: &Corpus,
    cfg: &RunConfig,
    results: &[FileResult],
    gates: Vec<GateOutcome>,
    diff: Option<&BaselineDiff>,
    wall_ms: u128,
) -> Summary {
    let Tally { status_counts, buckets, corpus_manifest_sha256, bytes } = tally(results);
    Summary {
        tool: format!("pmfarm {}", env!("CARGO_PKG_VERSION")),
        schema: RESULTS_SCHEMA,
        options: serde_json::json!({
            "work": cfg.work,
            "worker": cfg.worker.display().to_string(),
            "baseline": cfg.baseline,
            "gates_dir": match &cfg.gates {
                crate::gates::GateSource::Dir(d) => Some(d.display().to_string()),
                crate::gates::GateSource::Disabled => None,
            },
        }),
        limits: serde_json::to_value(&cfg.limits).unwrap_or_default(),
        corpus_root: corpus.root.display().to_string(),
        corpus_manifest_sha256,
        files: results.len() as u64,
        status_counts,
        buckets,
        gates,
        baseline: diff.map(|d| BaselineSummary { name: d.baseline.clone(), counts: d.counts.clone() }),
        shard: cfg.shard.map(|s| s.label()),
        timing: serde_json::json!({
            "wall_ms": wall_ms,
            "bytes": bytes,
            "run_id": crate::run_folder::new_run_id(),
            "finished": crate::history::utc_now(),
        }),
    }
}

fn print_summary(s: &Summary, out: &Path) {
    let counts: Vec<String> =
        s.status_counts.iter().filter(|(_, n)| **n > 0).map(|(k, n)| format!("{n} {k}")).collect();
    println!("pmfarm: {} files: {}", s.files, counts.join(", "));
    if let Some(b) = &s.baseline {
        let c: Vec<String> = b.counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        println!("pmfarm: baseline {}: {}", b.name, c.join(", "));
    }
    let failed = s.gates.iter().filter(|g| !g.passed).count();
    let checked = s.gates.iter().filter(|g| g.checked).count();
    match s.options.get("gates_dir").and_then(|v| v.as_str()) {
        Some(dir) => println!(
            "pmfarm: gates ({}): {checked} checked, {} not checked, {failed} failed",
            crate::display::escape_controls(dir),
            s.gates.len() - checked
        ),
        None => println!("pmfarm: gates: none (--no-gates)"),
    }
    println!("pmfarm: results in {}", crate::display::path(&crate::run_dir::RunDir::new(out).results()));
}

/// Renders the report (the reports module owns its content); false when it could not be
/// written (the run then exits non-zero, its results kept).
fn render_report(cfg: &RunConfig) -> bool {
    let baseline = cfg.baseline.as_ref().map(|n| crate::baseline::path_of(&cfg.baselines_dir, n));
    let opts = crate::report::ReportOptions {
        baseline,
        baselines_dir: Some(cfg.baselines_dir.clone()),
        junit_per_file: cfg.junit_per_file,
        history: cfg.history.clone(),
    };
    match crate::report::render(&cfg.out, &opts) {
        Ok(index) => {
            println!("pmfarm: report: {}", crate::display::path(&index.index_html()));
            true
        }
        Err(e) => {
            eprintln!("pmfarm: report not written: {}", crate::display::escape_controls(&e.to_string()));
            false
        }
    }
}
