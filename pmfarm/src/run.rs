//! `pmfarm run`: enumerate → schedule one isolated worker per file (or in-process) →
//! journal every result as it arrives → buckets → baseline diff → gates → outputs.
//! Returns an [`Outcome`] once the results are written (its exit code: 0 gates pass, 1 a
//! gate failed or a file lacks a status, 77 nothing runnable, 2 something asked for not
//! written) or a [`FarmError`]; prints nothing (notices go through a [`Notifier`]).

use crate::engine::{FarmError, Outcome};
use crate::enumerate::{Corpus, Item};
use crate::journal::{self, Journal};
use crate::limits::Limits;
use crate::notice::{Notice, Notifier};
use crate::progress::Progress;
use crate::results::*;
use crate::supervise::{run_worker, WorkerCommand};
use crate::tally::skip_reasons;
use pmworker::confine::Confinement;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Exit codes of `pmfarm` (defined in `pmschema`).
pub use pmschema::exit::farm as code;

/// What the worker is asked to do; recorded in the journal and the summary so a
/// resumption runs the same thing.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorkOptions {
    /// Tiers and exporters (recorded as `tiers` and `exports`), decided once by
    /// `Checks::asked` for a farm run.
    #[serde(flatten)]
    pub checks: pmschema::Checks,
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
        let mut args = self.checks.worker_args();
        for r in &self.reference {
            args.push("--reference".into());
            args.push(r.display().to_string());
        }
        args
    }

    /// What a worker given [`WorkOptions::worker_args`] would run.
    fn pipeline_options(&self) -> pmworker::pipeline::Options {
        pmworker::pipeline::Options::asked(self.checks.tiers(), self.checks.exports(), self.reference.clone())
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
    /// How the workers of the farm's own binary start (`--worker-start`); any other worker
    /// executable is always started as a program of its own.
    pub worker_start: crate::zygote::WorkerStart,
}

impl RunConfig {
    /// `false` for one shard of a sharded run.
    pub fn complete(&self) -> bool {
        self.shard.is_none()
    }

    /// The farm's own binary (`pmfarm worker …`) confines itself before `main`; any other
    /// worker executable is confined between `fork` and `exec`.
    fn worker_confinement(&self) -> Confinement {
        if self.worker_prefix.first().map(String::as_str) == Some(crate::WORKER_ENTRY) {
            Confinement::InWorker
        } else {
            Confinement::BeforeExec
        }
    }

    /// Full worker argument list before the file: the entry prefix, then the work options.
    fn worker_args(&self) -> Vec<String> {
        let mut args = self.worker_prefix.clone();
        args.extend(self.work.worker_args());
        args
    }

    /// How this run starts a worker: forked by `zygote`, or (with `None`, or once it is
    /// gone) started as a program of its own.
    fn worker_command(&self, zygote: Option<Arc<crate::zygote::Zygote>>) -> WorkerCommand {
        WorkerCommand {
            exe: self.worker.clone(),
            args: self.worker_args(),
            confinement: self.worker_confinement(),
            zygote,
        }
    }
}

/// Runs a fresh corpus.
pub fn run(corpus: Corpus, cfg: &RunConfig, notify: &Notifier) -> Result<Outcome, FarmError> {
    if corpus.items.is_empty() {
        return Err(FarmError::NoMaxFiles(corpus.root));
    }
    // Everything that can be validated is, before the first worker starts and before the
    // previous outputs are touched.
    let (gates, baseline) = load_config(cfg)?;
    std::fs::create_dir_all(&cfg.out).map_err(|source| FarmError::CreateOut { out: cfg.out.clone(), source })?;
    let _lock = crate::lock::RunLock::acquire(&cfg.out)?;
    // Outputs of an earlier run in this folder must never pass for this run's if it is
    // interrupted: the folder is marked in progress, then they (the report included) are
    // removed before the first worker starts.
    crate::output_set::begin(&cfg.out, "run")
        .map_err(|source| FarmError::ClearEarlierOutputs { out: cfg.out.clone(), source })?;
    let mut journal =
        Journal::create(&cfg.out).map_err(|source| FarmError::CreateJournal { out: cfg.out.clone(), source })?;
    let record = JournalRecord::Run {
        schema: RESULTS_SCHEMA,
        corpus_root: corpus.root.display().to_string(),
        files: corpus.items.iter().map(|i| i.rel.clone()).collect(),
        options: serde_json::to_value(&cfg.work).unwrap_or_default(),
        resumed: false,
        shard: cfg.shard.map(|s| s.label()),
    };
    journal.append(&record).map_err(FarmError::Journal)?;
    execute(corpus, BTreeMap::new(), journal, cfg, &gates, baseline, notify)
}

/// Gate rules and baseline entries of a run, validated.
fn load_config(cfg: &RunConfig) -> Result<(crate::gates::Rules, Option<Vec<BaselineEntry>>), FarmError> {
    let gates = crate::gates::load(&cfg.gates).map_err(FarmError::Gates)?;
    let baseline = match &cfg.baseline {
        Some(name) => Some(
            crate::baseline::load(&crate::baseline::path_of(&cfg.baselines_dir, name)).map_err(FarmError::Baseline)?,
        ),
        None => None,
    };
    Ok((gates, baseline))
}

/// Completes the run recorded in `cfg.out/journal.jsonl`.
pub fn resume(cfg: &RunConfig, notify: &Notifier) -> Result<Outcome, FarmError> {
    let _lock = cfg.out.is_dir().then(|| crate::lock::RunLock::acquire(&cfg.out)).transpose()?;
    let replay = journal::replay(&cfg.out)
        .map_err(|source| FarmError::ResumeRead { journal: cfg.out.join(journal::JOURNAL), source })?;
    let Some(JournalRecord::Run { corpus_root, files, options, shard, .. }) = replay.run else {
        return Err(FarmError::ResumeNoRunRecord);
    };
    let shard =
        shard.as_deref().map(crate::shard::Shard::parse_one_based).transpose().map_err(FarmError::ResumeShard)?;
    let work: WorkOptions = serde_json::from_value(options).map_err(FarmError::ResumeOptions)?;
    let (gates, baseline) = load_config(cfg)?;
    let root = PathBuf::from(&corpus_root);
    let corpus = Corpus {
        items: files
            .iter()
            .map(|rel| Item { abs: root.join(crate::enumerate::unescape(rel)), rel: rel.clone(), blocked: None })
            .collect(),
        root,
    };
    crate::output_set::begin(&cfg.out, "resume").map_err(FarmError::ResumeClear)?;
    let mut journal = Journal::reopen(&cfg.out).map_err(FarmError::ResumeReopen)?;
    let enumerated: BTreeSet<&String> = files.iter().collect();
    // An infra error says nothing about the file (the farm could not run it): a resumption
    // runs it again unless told to keep it.
    let (done, retried): (BTreeMap<String, FileResult>, BTreeMap<String, FileResult>) = replay
        .results
        .into_iter()
        .filter(|(p, _)| enumerated.contains(p))
        .partition(|(_, r)| r.status != Status::InfraError || !cfg.retry_infra_errors);
    notify.send(Notice::Resuming {
        out: cfg.out.clone(),
        done: done.len(),
        files: files.len(),
        retried: retried.len(),
        torn_line: replay.torn_lines > 0,
    });
    let record = JournalRecord::Run {
        schema: RESULTS_SCHEMA,
        corpus_root,
        files,
        options: serde_json::to_value(&work).unwrap_or_default(),
        resumed: true,
        shard: shard.map(|s| s.label()),
    };
    journal.append(&record).map_err(FarmError::Journal)?;
    let cfg = RunConfig { work, shard, ..cfg.clone() };
    execute(corpus, done, journal, &cfg, &gates, baseline, notify)
}

fn execute(
    corpus: Corpus,
    mut done: BTreeMap<String, FileResult>,
    journal: Journal,
    cfg: &RunConfig,
    gates: &[(String, crate::gates::GateFile)],
    baseline: Option<Vec<BaselineEntry>>,
    notify: &Notifier,
) -> Result<Outcome, FarmError> {
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
        let r = record_result(r, &journal, &progress).map_err(FarmError::Journal)?;
        done.insert(r.path.clone(), r);
    }
    let fresh = if cfg.work.in_process {
        run_in_process(&pending, cfg, &journal, &progress, notify)
    } else {
        run_isolated(&largest_first(pending), cfg, &journal, &progress, notify).map_err(FarmError::Scheduler)?
    };
    progress.lock().map(|p| p.finish()).ok();
    for r in fresh {
        done.insert(r.path.clone(), r);
    }

    // Completeness invariant: every enumerated file has exactly one terminal result.
    let missing: Vec<String> =
        corpus.items.iter().filter(|i| !done.contains_key(&i.rel)).map(|i| i.rel.clone()).collect();
    let mut results: Vec<FileResult> = corpus.items.iter().filter_map(|i| done.remove(&i.rel)).collect::<Vec<_>>();
    results.sort_by(|a, b| a.path.cmp(&b.path));

    let mut diff = None;
    if let (Some(name), Some(base)) = (&cfg.baseline, &baseline) {
        let by_rel: BTreeMap<&str, &Item> = corpus.items.iter().map(|i| (i.rel.as_str(), i)).collect();
        let d = crate::baseline::compare(name, base, &mut results, |r| {
            let item = by_rel.get(r.path.as_str())?;
            notify.send(Notice::RerunningAlone { path: r.path.clone(), status: r.status });
            let alone = RunConfig { limits: Limits { jobs: 1, ..cfg.limits.clone() }, ..cfg.clone() };
            let mut again = run_one_blocking(item, &alone)?;
            again.buckets = crate::buckets::buckets_of(&again);
            Some(again)
        });
        diff = Some(d);
    }

    let ctx = crate::gates::Context {
        diff: diff.as_ref().map(|d| d.files.as_slice()),
        tiers: cfg.work.checks.tiers(),
        complete: cfg.complete(),
    };
    let gate_outcomes = crate::gates::evaluate(gates, &results, ctx);
    let summary = summarize(&corpus, cfg, &results, gate_outcomes, diff.as_ref(), started.elapsed().as_millis());
    let run_dir = crate::run_files::RunDir::new(&cfg.out);
    run_dir
        .write_outputs(&results, &summary, diff.as_ref())
        .map_err(|source| FarmError::WriteOutputs { out: cfg.out.clone(), source })?;
    if let Ok(mut j) = journal.lock() {
        let _ = j.append(&JournalRecord::Finished { files: results.len() as u64 });
    }
    // The history line is appended before the report, which draws it.
    let history = cfg.history.as_ref().map(|h| crate::report::record_history(&cfg.out, h).map(|_| h.clone()));
    let report = cfg.report.then(|| render_report(cfg));
    // The results are complete (and stay, whatever happened to the report).
    let unfinished = crate::output_set::finish(&cfg.out).err();
    let gate_failures = crate::gates::failures(&summary.gates, !gates.is_empty() && cfg.complete());
    Ok(Outcome {
        out: cfg.out.clone(),
        results_file: run_dir.results(),
        skip_reasons: skip_reasons(&results),
        summary,
        history,
        report,
        unfinished,
        missing,
        gate_failures,
    })
}

fn record_result(
    mut r: FileResult,
    journal: &Mutex<Journal>,
    progress: &Mutex<Progress>,
) -> Result<FileResult, std::io::Error> {
    r.buckets = crate::buckets::buckets_of(&r);
    // The record is written from the result itself, which then comes back out of it.
    let record = JournalRecord::Result(Box::new(r));
    if let Ok(mut j) = journal.lock() {
        j.append(&record)?;
    }
    let JournalRecord::Result(r) = record else { unreachable!("built as a result above") };
    if let Ok(mut p) = progress.lock() {
        p.file_done(&r);
    }
    Ok(*r)
}

/// Files in the order they are handed to worker processes: largest first (longest processing
/// time first), so a sweep does not end with one large file checked while the other workers
/// sit idle; paths in their enumerated order among files of one size. Results are reported in
/// path order whatever the order they finish in. The in-process sweep (a benchmark
/// reference) keeps the enumerated order and rayon's own balancing.
fn largest_first(mut pending: Vec<Item>) -> Vec<Item> {
    pending.sort_by_cached_key(|i| std::cmp::Reverse(std::fs::metadata(&i.abs).map(|m| m.len()).unwrap_or(0)));
    pending
}

fn record_start(path: &str, journal: &Mutex<Journal>, notify: &Notifier) {
    if let Ok(mut j) = journal.lock() {
        if let Err(e) = j.append(&JournalRecord::Started { path: path.to_string() }) {
            notify.send(Notice::JournalStart(e));
        }
    }
}

/// The coordinator's runtime: up to [`ONE_THREAD_UP_TO_JOBS`] workers at once, one thread
/// watches them all — with the workers on every core, each wake-up of a second coordinator
/// thread is a context switch on a core a worker uses (measured, 1/20 corpus, `-j 2`: wall
/// 6.36–6.50 s instead of 6.72–7.08 s, coordinator CPU 0.54–0.57 s instead of 0.63–0.68 s);
/// more workers than that get up to four threads, so the watching keeps up.
fn runtime(jobs: usize) -> std::io::Result<tokio::runtime::Runtime> {
    if jobs <= ONE_THREAD_UP_TO_JOBS {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(jobs.div_ceil(8).clamp(2, 4)).enable_all().build()
    }
}

/// Workers at once that one coordinator thread watches (see [`runtime`]).
const ONE_THREAD_UP_TO_JOBS: usize = 8;

/// Runs each pending file in its own worker process, `jobs` at a time.
fn run_isolated(
    pending: &[Item],
    cfg: &RunConfig,
    journal: &Arc<Mutex<Journal>>,
    progress: &Arc<Mutex<Progress>>,
    notify: &Notifier,
) -> std::io::Result<Vec<FileResult>> {
    // Started from this thread, which outlives the run: the zygote's PR_SET_PDEATHSIG
    // follows the thread that started it.
    let zygote = start_zygote(cfg, notify);
    let rt = runtime(cfg.limits.jobs)?;
    let cmd = Arc::new(cfg.worker_command(zygote));
    let limits = Arc::new(cfg.limits.clone());
    rt.block_on(async {
        let slots = Arc::new(Concurrency::new(cfg.limits.jobs.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        for item in pending.iter().cloned() {
            let (slots, cmd, limits, journal, progress, notify) =
                (slots.clone(), cmd.clone(), limits.clone(), journal.clone(), progress.clone(), notify.clone());
            tasks.spawn(async move {
                let mut permit = slots.acquire().await;
                record_start(&item.rel, &journal, &notify);
                let mut attempt = 1;
                let mut raw = run_worker(&cmd, &item.abs, &limits).await;
                if raw.zygote_lost {
                    // Its worker died with the zygote: nothing about the file. Again, alone.
                    if let Some(why) = cmd.zygote.as_ref().and_then(|z| z.loss_to_report()) {
                        notify.send(Notice::ZygoteLost { why });
                    }
                    raw = run_worker(&cmd, &item.abs, &limits).await;
                }
                // The coordinator ran short (descriptors, processes, memory): that says
                // nothing about the file. Fewer workers at once, a pause, and again.
                while raw.exhausted && attempt < SPAWN_ATTEMPTS {
                    let why = raw.spawn_error.as_deref().unwrap_or_default();
                    permit = slots.lower(permit, attempt, why, &notify).await;
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

/// The run's worker zygote, when its workers are the farm's own binary and
/// `--worker-start zygote` (the default); `None`, with a notice, when it cannot start.
fn start_zygote(cfg: &RunConfig, notify: &Notifier) -> Option<Arc<crate::zygote::Zygote>> {
    if cfg.worker_start != crate::zygote::WorkerStart::Zygote || cfg.worker_confinement() != Confinement::InWorker {
        return None;
    }
    let env = pmworker::confine::worker_environment(std::process::id(), Confinement::InWorker, cfg.limits.memory_bytes);
    let mut args = cfg.worker_args();
    args.push(pmworker::zygote::command_line_room());
    match crate::zygote::Zygote::start(&cfg.worker, &args, &env) {
        Ok(z) => Some(Arc::new(z)),
        Err(e) => {
            notify.send(Notice::ZygoteLost { why: format!("cannot start it: {e}") });
            None
        }
    }
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
        notify: &Notifier,
    ) -> tokio::sync::OwnedSemaphorePermit {
        use std::sync::atomic::Ordering;
        let lowered = self.current.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| (c > 1).then(|| c - 1));
        match lowered {
            Ok(was) => {
                permit.forget();
                notify.send(Notice::FewerWorkers { why: why.to_string(), now: was - 1 });
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
    let cmd = cfg.worker_command(None);
    let raw = rt.block_on(run_worker(&cmd, &item.abs, &cfg.limits));
    Some(crate::outcome::from_run(&item.rel, raw, &cfg.limits))
}

fn in_process_one(item: &Item, work: &WorkOptions) -> FileResult {
    let clock = Instant::now();
    let mut sink = pmworker::emit::VecSink::default();
    let status = pmworker::pipeline::run_path(&item.abs, &work.pipeline_options(), &mut sink).ok();
    crate::outcome::from_events(&item.rel, sink.events, status, clock.elapsed().as_millis() as u64)
}

/// Runs every pending file in this process on rayon's pool: the same pipeline code,
/// no isolation (a crash ends the farm). For benchmarks.
fn run_in_process(
    pending: &[Item],
    cfg: &RunConfig,
    journal: &Arc<Mutex<Journal>>,
    progress: &Arc<Mutex<Progress>>,
    notify: &Notifier,
) -> Vec<FileResult> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cfg.limits.jobs.max(1)).build();
    let work = |item: &Item| {
        record_start(&item.rel, journal, notify);
        let r = in_process_one(item, &cfg.work);
        record_result(r, journal, progress).ok()
    };
    match pool {
        Ok(pool) => pool.install(|| pending.par_iter().filter_map(work).collect()),
        Err(_) => pending.iter().filter_map(work).collect(),
    }
}

/// The run's summary ([`crate::run_summary`], shared with `pmfarm merge`).
fn summarize(
    corpus: &Corpus,
    cfg: &RunConfig,
    results: &[FileResult],
    gates: Vec<GateOutcome>,
    diff: Option<&BaselineDiff>,
    wall_ms: u128,
) -> Summary {
    let header = crate::run_summary::RunHeader {
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
        shard: cfg.shard.map(|s| s.label()),
    };
    let timing = crate::run_summary::RunTiming { wall_ms: u64::try_from(wall_ms).unwrap_or(u64::MAX), shards: None };
    crate::run_summary::summarize(header, results, gates, diff, timing)
}

/// Renders the report (the reports module owns its content): its `index.html`, or why it
/// could not be written (the run then exits non-zero, its results kept).
fn render_report(cfg: &RunConfig) -> Result<PathBuf, String> {
    let baseline = cfg.baseline.as_ref().map(|n| crate::baseline::path_of(&cfg.baselines_dir, n));
    let opts = crate::report::ReportOptions {
        baseline,
        baselines_dir: Some(cfg.baselines_dir.clone()),
        junit_per_file: cfg.junit_per_file,
        history: cfg.history.clone(),
    };
    crate::report::render(&cfg.out, &opts).map(|index| index.index_html()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::WorkOptions;
    use pmschema::{Checks, ExportKind, Invocation, Tier};
    use serde_json::json;

    /// `options.work` keeps its recorded form (`tiers`, `exports` beside `reference` and
    /// `in_process`), and journals from before `reference` was a list still read.
    #[test]
    fn work_options_keep_their_recorded_form() {
        let work = WorkOptions {
            checks: Checks::asked(&[Tier::T1, Tier::T2, Tier::T3], &[], Invocation::Farm),
            reference: vec!["refs".into()],
            in_process: false,
        };
        let recorded =
            json!({ "tiers": ["t1", "t2", "t3"], "exports": ["summary"], "reference": ["refs"], "in_process": false });
        assert_eq!(serde_json::to_value(&work).unwrap(), recorded);
        assert_eq!(serde_json::from_value::<WorkOptions>(recorded).unwrap(), work);
        assert_eq!(work.worker_args(), ["--tiers", "t1,t2,t3", "--export", "summary", "--reference", "refs"]);
        for (reference, read) in [(json!(null), vec![]), (json!("one"), vec![std::path::PathBuf::from("one")])] {
            let old = json!({ "tiers": ["t1"], "exports": ["obj"], "reference": reference, "in_process": true });
            let work: WorkOptions = serde_json::from_value(old).unwrap();
            assert_eq!((work.checks.tiers(), work.checks.exports()), (&[Tier::T1][..], &[ExportKind::Obj][..]));
            assert_eq!(work.reference, read);
        }
    }
}
