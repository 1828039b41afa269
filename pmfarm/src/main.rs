//! `pmfarm`: the coordinator CLI. A thin layer over the library: parse, resolve paths,
//! call [`pmfarm::run`], print what comes back; exit codes 0 gates pass, 1 a gate failed,
//! 2 usage or config error, 77 nothing runnable. The only place of pmfarm that prints
//! (besides the progress display): the library hands back values — an
//! [`Outcome`] or a [`FarmError`], and [`Notice`]s while it works.

use clap::{Args, Parser, Subcommand};
use pmfarm::display::{escape_controls, path as shown};
use pmfarm::engine::{FarmError, Outcome, Verdict};
use pmfarm::enumerate::{self, EnumerateError};
use pmfarm::limits::{parse_secs, parse_size, Limits};
use pmfarm::notice::{Notice, Notifier};
use pmfarm::run::{code, RunConfig, WorkOptions};
use pmfarm::run_files::IN_PROGRESS;
use pmfarm::WORKER_ENTRY;
use pmschema::{Checks, ExportKind, Invocation, Tier};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Corpus farm for the headless 3ds Max reader/writer: one isolated pmworker per .max.
#[derive(Parser, Debug)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check a corpus (the embedded demo corpus when no path is given).
    Run(Box<RunArgs>),
    /// Baselines: save a run as a baseline, or promote a newer run over one.
    #[command(subcommand)]
    Baseline(BaselineCommand),
    /// Render the HTML/JSON/JUnit/Markdown report of a finished run.
    Report {
        /// Output folder of the run.
        out: PathBuf,
        /// Baseline whose per-file verdicts the readable diffs are drawn from (a file, or a
        /// bare name looked up as `<name>.jsonl` in the baselines folder).
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// Baselines folder (default: `baselines/` of the workspace, as for `run`).
        #[arg(long)]
        baselines: Option<PathBuf>,
        #[command(flatten)]
        junit: JunitArgs,
        /// History file whose newest runs the index draws as trend charts.
        #[arg(long, value_name = "FILE")]
        history: Option<PathBuf>,
    },
    /// Print a history file (`run --history FILE`): one row per run, oldest first.
    History {
        /// The history file.
        file: PathBuf,
        /// Only the newest N runs.
        #[arg(long, value_name = "N")]
        last: Option<usize>,
    },
    /// Check a run directory's journal and results: every enumerated file has exactly one
    /// status, results.jsonl equals the journal replay, summary counts match (exit 0 ok,
    /// 1 inconsistent, 2 usage).
    VerifyLedger {
        /// Output folder of the run.
        out: PathBuf,
        /// Accept an interrupted run not yet resumed (files without a result are notes).
        #[arg(long)]
        partial: bool,
        /// Print the findings as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the embedded demo corpus into a folder.
    Demo {
        /// Destination folder.
        dir: PathBuf,
    },
    /// Write a synthetic corpus shaped after a manifest (docs/performance.md).
    Synth {
        /// TSV manifest with `path` (or `file`) and `bytes` columns.
        #[arg(long)]
        like: PathBuf,
        /// Share of the manifest's files (0.1 = a tenth; 2 = every file twice).
        #[arg(long, default_value = "1")]
        scale: f64,
        /// Output folder (outside the repository).
        #[arg(long)]
        out: PathBuf,
        /// Generator seed: same seed and manifest, same bytes.
        #[arg(long, default_value = "1")]
        seed: u64,
    },
    /// Combine the output folders of `run --shard` into one run (docs/performance.md).
    Merge {
        /// Shard output folders.
        #[arg(required = true)]
        outs: Vec<PathBuf>,
        /// Merged output folder.
        #[arg(long)]
        out: PathBuf,
        /// Gates folder (default: the one the shards recorded).
        #[arg(long, conflicts_with = "no_gates")]
        gates: Option<PathBuf>,
        /// Merge without gates.
        #[arg(long)]
        no_gates: bool,
        /// Baselines folder for the report's readable diffs (default: `baselines/` of the workspace).
        #[arg(long)]
        baselines: Option<PathBuf>,
        /// Do not render the report.
        #[arg(long)]
        no_report: bool,
        /// Append the merged run's headline numbers to this history file.
        #[arg(long, value_name = "FILE")]
        history: Option<PathBuf>,
    },
}

/// How the JUnit file is laid out.
#[derive(Args, Debug, Clone, Copy)]
struct JunitArgs {
    /// JUnit with one test suite per bucket (default: one test case per file).
    #[arg(long)]
    junit_per_bucket: bool,
    /// One test case per file (the default; kept for older scripts).
    #[arg(long, hide = true, conflicts_with = "junit_per_bucket")]
    junit_per_file: bool,
}

impl JunitArgs {
    fn per_file(self) -> bool {
        !self.junit_per_bucket
    }
}

#[derive(Subcommand, Debug)]
enum BaselineCommand {
    /// Save the results of OUT as baseline NAME (refuses to overwrite without --force).
    Save {
        /// Output folder of a finished run.
        out: PathBuf,
        /// Baseline name (a slug).
        name: String,
        /// Overwrite an existing baseline.
        #[arg(long)]
        force: bool,
        /// Baselines folder (default: `baselines/` of the workspace).
        #[arg(long)]
        baselines: Option<PathBuf>,
    },
    /// Rewrite existing baseline NAME from the results of OUT (review it as a text diff).
    Promote {
        /// Output folder of a finished run.
        out: PathBuf,
        /// Baseline name.
        name: String,
        /// Baselines folder (default: `baselines/` of the workspace).
        #[arg(long)]
        baselines: Option<PathBuf>,
    },
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Directories (recursive, *.max case-insensitive) and files.
    paths: Vec<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "pmfarm-out")]
    out: PathBuf,
    /// Complete the interrupted run in this output folder (same files, same options).
    #[arg(long, value_name = "OUT", conflicts_with_all = ["paths", "manifest", "workspace"])]
    resume: Option<PathBuf>,
    /// With --resume: keep journaled `infra-error` results instead of running those files again.
    #[arg(long, requires = "resume")]
    keep_infra_errors: bool,
    /// A list of files (one per line, or a TSV with a `file` column).
    #[arg(long, conflicts_with = "paths")]
    manifest: Option<PathBuf>,
    /// Ryzom workspace folder (its `**/directories.py` lists the source directories).
    #[arg(long, requires_all = ["graphics", "process"], conflicts_with_all = ["paths", "manifest"])]
    workspace: Option<PathBuf>,
    /// Graphics database root the workspace entries are relative to.
    #[arg(long, requires = "workspace")]
    graphics: Option<PathBuf>,
    /// Build process whose `<Process>SourceDirectories` to read (skel, anim, shape, …).
    #[arg(long, requires = "workspace")]
    process: Option<String>,
    /// Value for a name the directories.py files use but do not assign.
    #[arg(long = "define", value_name = "NAME=VALUE")]
    defines: Vec<String>,
    /// Workers at once (default: number of cores).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    /// Hard time limit per file, seconds.
    #[arg(long, default_value = "300")]
    timeout: String,
    /// Time limit without any worker output, seconds.
    #[arg(long, default_value = "60")]
    idle_timeout: String,
    /// Seconds between SIGTERM and SIGKILL.
    #[arg(long, default_value = "2")]
    grace: String,
    /// Address-space cap per worker (RLIMIT_AS): 512M, 4G, none.
    #[arg(long, default_value = "4G")]
    memory: String,
    /// Tiers, comma-separated (`--export` implies t3).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "t1,t2,t3")]
    tiers: Vec<Tier>,
    /// Exporters to run in the worker (obj, obj-base, skel, summary, pairs, shape, anim). With t3 and none
    /// named: `summary`, whose reference (Max's document summary) is inside every `.max`.
    #[arg(long = "export", value_enum, value_delimiter = ',')]
    exports: Vec<ExportKind>,
    /// Reference outputs for T3: a folder of same-named outputs, or a pairs folder (its
    /// `manifest.tsv`, or laid out like one); repeatable, searched in order.
    #[arg(long)]
    reference: Vec<PathBuf>,
    /// A separate worker executable taking `pmworker`'s arguments (default: this binary's
    /// hidden `worker` entry, which runs the same code as `pmworker`).
    #[arg(long)]
    worker: Option<PathBuf>,
    /// How the workers of this binary start: `zygote` (forked, one per file, by one process
    /// the run starts: no program start per file) or `spawn` (each its own program). Either
    /// way every file runs in its own process. A `--worker PATH` is always spawned.
    #[arg(long, value_enum, default_value = "zygote")]
    worker_start: pmfarm::zygote::WorkerStart,
    /// Run files inside this process (rayon; no isolation — for benchmarks).
    #[arg(long)]
    in_process: bool,
    /// Compare with baselines/<NAME>.jsonl.
    #[arg(long)]
    baseline: Option<String>,
    /// Baselines folder (default: `baselines/` of the workspace).
    #[arg(long)]
    baselines: Option<PathBuf>,
    /// Gates folder (default: `gates/` of the workspace this pmfarm belongs to).
    #[arg(long, conflicts_with = "no_gates")]
    gates: Option<PathBuf>,
    /// Run without gates (the exit code then says nothing about the results).
    #[arg(long)]
    no_gates: bool,
    /// Do not render the report.
    #[arg(long)]
    no_report: bool,
    #[command(flatten)]
    junit: JunitArgs,
    /// Append this run's headline numbers (pass rates, typed coverage, T3 summary
    /// agreement, wall time, regressions) as one line to FILE when the run finishes; the
    /// report draws the file's newest runs as trend charts. Nothing is written without it.
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
    /// Check only shard K of N (K 1-based), by a hash of each file's relative path.
    #[arg(long, value_name = "K/N", conflicts_with_all = ["resume", "shard_from_env"])]
    shard: Option<String>,
    /// Like --shard, K from a 0-based environment variable: `JOB_COMPLETION_INDEX/N`.
    #[arg(long, value_name = "VAR/N", conflicts_with = "resume")]
    shard_from_env: Option<String>,
}

fn main() {
    let mut args = std::env::args_os();
    if std::env::args_os().nth(1).is_some_and(|a| a == WORKER_ENTRY) {
        let program = args.next().unwrap_or_default();
        let rest = args.skip(1);
        pmworker::memory::exit_worker(pmworker::cli::worker_main(std::iter::once(program).chain(rest).collect()));
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            std::process::exit(if e.use_stderr() { code::USAGE } else { code::OK });
        }
    };
    let exit = match cli.command {
        Command::Run(args) => run(*args),
        Command::Baseline(b) => baseline(b),
        Command::Report { out, baseline, baselines, junit, history } => report(
            &out,
            &pmfarm::report::ReportOptions {
                baseline,
                baselines_dir: Some(pmfarm::locate::baselines_dir(baselines)),
                junit_per_file: junit.per_file(),
                history,
            },
        ),
        Command::History { file, last } => history(&file, last),
        Command::VerifyLedger { out, partial, json } => {
            verify_ledger(&out, pmfarm::verify_ledger::VerifyOptions { partial }, json)
        }
        Command::Synth { like, scale, out, seed } => synth(&like, scale, &out, seed),
        Command::Merge { outs, out, gates, no_gates, baselines, no_report, history } => {
            let baselines = pmfarm::locate::baselines_dir(baselines);
            let gates = match (gates, no_gates) {
                (Some(d), _) => Some(pmfarm::gates::GateSource::Dir(enumerate::absolute(&d))),
                (None, true) => Some(pmfarm::gates::GateSource::Disabled),
                (None, false) => None,
            };
            let merged = pmfarm::merge_command::merge_into(
                &outs,
                &out,
                gates.as_ref(),
                &baselines,
                !no_report,
                history.as_deref(),
            );
            match merged {
                Ok(outcome) => print_merge_outcome(&outcome, outs.len()),
                Err(e) => farm_error("pmfarm merge", &e),
            }
        }
        Command::Demo { dir } => match pmfarm::demo::write(&dir) {
            Ok(n) => {
                println!("pmfarm: wrote {n} demo files into {}", dir.display());
                code::OK
            }
            Err(e) => {
                eprintln!("pmfarm: demo corpus: {e}");
                code::USAGE
            }
        },
    };
    std::process::exit(exit);
}

/// `pmfarm report OUT`: exit 0 with the index path, 2 with why not.
fn report(out: &Path, opts: &pmfarm::report::ReportOptions) -> i32 {
    match pmfarm::report_of_finished_run(out, opts) {
        Ok(index) => {
            println!("pmfarm: report: {}", pmfarm::display::path(&index.index_html()));
            code::OK
        }
        Err(e) => {
            eprintln!("pmfarm: report: {}", pmfarm::display::escape_controls(&e));
            code::USAGE
        }
    }
}

/// `pmfarm verify-ledger OUT [--json]`: prints the findings; exit 0 consistent, 1 not, 2
/// when the folder cannot be read.
fn verify_ledger(out: &Path, opts: pmfarm::verify_ledger::VerifyOptions, json: bool) -> i32 {
    match pmfarm::verify_ledger::verify(out, opts) {
        Ok(rep) => {
            if json {
                println!("{}", serde_json::to_string_pretty(&rep).unwrap_or_default());
            } else {
                print!("{}", pmfarm::verify_ledger::render(&rep));
            }
            if rep.consistent() {
                code::OK
            } else {
                code::INCONSISTENT
            }
        }
        Err(e) => {
            eprintln!("pmfarm: verify-ledger: {e}");
            code::USAGE
        }
    }
}

fn synth(like: &Path, scale: f64, out: &Path, seed: u64) -> i32 {
    if !(scale.is_finite() && scale > 0.0) {
        return usage(format!("--scale must be a positive number, not {scale}"));
    }
    match pmfarm::synth::synthesize(like, scale, seed, out) {
        Ok(w) => {
            println!("pmfarm: wrote {} synthetic files ({} bytes) into {}", w.files, w.bytes, out.display());
            code::OK
        }
        Err(e) => usage(format!("synth: {e}")),
    }
}

fn history(file: &Path, last: Option<usize>) -> i32 {
    match pmfarm::history::read(file) {
        Ok(entries) if entries.is_empty() => {
            println!("pmfarm: {} holds no runs yet", file.display());
            code::OK
        }
        Ok(entries) => {
            let shown = pmfarm::history::newest(&entries, last.unwrap_or(entries.len()));
            print!("{}", pmfarm::history::table(shown));
            code::OK
        }
        Err(e) => usage(e),
    }
}

fn usage(message: impl std::fmt::Display) -> i32 {
    eprintln!("pmfarm: {message}");
    code::USAGE
}

fn run(a: RunArgs) -> i32 {
    let mut limits = Limits::default();
    if let Some(j) = a.jobs {
        if j == 0 {
            return usage("-j must be at least 1");
        }
        limits.jobs = j;
    }
    let secs = |flag: &str, v: &str| parse_secs(v).map_err(|e| format!("--{flag}: {e}"));
    let parsed: Result<(Duration, Duration, Duration), String> =
        (|| Ok((secs("timeout", &a.timeout)?, secs("idle-timeout", &a.idle_timeout)?, secs("grace", &a.grace)?)))();
    match parsed {
        Ok((t, i, g)) => (limits.timeout, limits.idle_timeout, limits.grace) = (t, i, g),
        Err(e) => return usage(e),
    }
    match parse_size(&a.memory) {
        Ok(m) => limits.memory_bytes = m,
        Err(e) => return usage(format!("--memory: {e}")),
    }
    if let Some(name) = &a.baseline {
        if !pmfarm::baseline::valid_name(name) {
            return usage(format!("--baseline: `{name}` is not a slug ([a-z0-9-])"));
        }
    }
    let (worker, worker_prefix) = match &a.worker {
        Some(w) => (w.clone(), Vec::new()),
        None => match std::env::current_exe() {
            Ok(p) => (p, vec![WORKER_ENTRY.to_string()]),
            Err(e) => return usage(format!("cannot locate this executable to run workers ({e}); pass --worker PATH")),
        },
    };
    if !a.in_process && !worker.is_file() {
        return usage(format!("worker binary {} not found (build it, or pass --worker PATH)", worker.display()));
    }
    let shard = match (&a.shard, &a.shard_from_env) {
        (Some(spec), _) => match pmfarm::shard::Shard::parse_one_based(spec) {
            Ok(s) => Some(s),
            Err(e) => return usage(format!("--shard: {e}")),
        },
        (None, Some(spec)) => match pmfarm::shard::Shard::from_env(spec, |name| std::env::var(name).ok()) {
            Ok(s) => Some(s),
            Err(e) => return usage(format!("--shard-from-env: {e}")),
        },
        (None, None) => None,
    };
    if shard.is_some() && a.history.is_some() {
        return usage("--history with --shard would append one line per shard: give --history to `pmfarm merge`");
    }
    let gates = match pmfarm::locate::gate_source(a.gates.as_deref(), a.no_gates) {
        Ok(g) => g,
        Err(e) => return usage(e),
    };
    let cfg = RunConfig {
        out: enumerate::absolute(&a.resume.clone().unwrap_or_else(|| a.out.clone())),
        worker: enumerate::absolute(&worker),
        worker_prefix,
        limits,
        work: WorkOptions {
            checks: Checks::asked(&a.tiers, &a.exports, Invocation::Farm),
            reference: a.reference.clone(),
            in_process: a.in_process,
        },
        baseline: a.baseline.clone(),
        baselines_dir: pmfarm::locate::baselines_dir(a.baselines.clone()),
        gates,
        shard,
        report: !a.no_report,
        junit_per_file: a.junit.per_file(),
        retry_infra_errors: !a.keep_infra_errors,
        history: a.history.as_ref().map(|h| enumerate::absolute(h)),
        worker_start: a.worker_start,
    };
    if let Some(h) = &cfg.history {
        // A damaged history is found before any file runs, not after the night's work.
        if let Err(e) = pmfarm::history::read(h) {
            return usage(e);
        }
    }
    let notify = Notifier::new(print_notice);
    if a.resume.is_some() {
        return match pmfarm::run::resume(&cfg, &notify) {
            Ok(outcome) => print_run_outcome(&outcome),
            Err(e) => farm_error("pmfarm", &e),
        };
    }
    let corpus = if let Some(ws) = &a.workspace {
        let mut defines = BTreeMap::new();
        for d in &a.defines {
            match d.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => {
                    defines.insert(k.trim().to_string(), v.to_string());
                }
                _ => return usage(format!("--define `{d}`: expected NAME=VALUE")),
            }
        }
        let graphics = a.graphics.clone().unwrap_or_default();
        enumerate::from_workspace(ws, &graphics, a.process.as_deref().unwrap_or_default(), &defines, &notify)
    } else if let Some(m) = &a.manifest {
        enumerate::from_manifest(m)
    } else if !a.paths.is_empty() {
        enumerate::from_paths(&a.paths)
    } else {
        let dir = cfg.out.join("demo-corpus");
        match pmfarm::demo::write(&dir) {
            Ok(n) => {
                eprintln!("pmfarm: no paths given: checking the embedded demo corpus ({n} files in {})", dir.display())
            }
            Err(e) => return usage(format!("cannot write the demo corpus: {e}")),
        }
        enumerate::from_paths(&[dir])
    };
    let corpus = corpus.map(|c| match shard {
        Some(s) => {
            let all = c.items.len();
            let c = pmfarm::shard::filter(c, s);
            eprintln!("pmfarm: shard {}: {} of {all} files", s.label(), c.items.len());
            c
        }
        None => c,
    });
    match corpus {
        Ok(c) => match pmfarm::run::run(c, &cfg, &notify) {
            Ok(outcome) => print_run_outcome(&outcome),
            Err(e) => farm_error("pmfarm", &e),
        },
        Err(EnumerateError::Missing(p)) => {
            eprintln!("pmfarm: nothing runnable: corpus path {} does not exist", p.display());
            code::NOTHING_RUNNABLE
        }
        Err(EnumerateError::Config(e)) => usage(format!("enumeration failed:\n{e}")),
    }
}

/// Prints a notice the farm sends while it works (stderr, as it happens).
fn print_notice(notice: Notice) {
    eprintln!("pmfarm: {notice}");
}

/// Prints why a run or merge stopped (`prefix`: `pmfarm` or `pmfarm merge`); its exit code.
fn farm_error(prefix: &str, e: &FarmError) -> i32 {
    eprintln!("{prefix}: {e}");
    e.exit_code()
}

/// `status_counts` as `N name, …`, statuses with no file left out.
fn nonzero_counts(s: &pmfarm::results::Summary) -> String {
    let counts: Vec<String> =
        s.status_counts.iter().filter(|(_, n)| **n > 0).map(|(k, n)| format!("{n} {k}")).collect();
    counts.join(", ")
}

/// The end of `pmfarm run` (and `--resume`): counts, baseline, gates and where the
/// results, history and report went on stdout; what failed on stderr. Returns the exit code.
fn print_run_outcome(o: &Outcome) -> i32 {
    let s = &o.summary;
    println!("pmfarm: {} files: {}", s.files, nonzero_counts(s));
    if let Some(b) = &s.baseline {
        let c: Vec<String> = b.counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        println!("pmfarm: baseline {}: {}", b.name, c.join(", "));
    }
    let failed = s.gates.iter().filter(|g| !g.passed).count();
    let checked = s.gates.iter().filter(|g| g.checked).count();
    match s.options.get("gates_dir").and_then(|v| v.as_str()) {
        Some(dir) => println!(
            "pmfarm: gates ({}): {checked} checked, {} not checked, {failed} failed",
            escape_controls(dir),
            s.gates.len() - checked
        ),
        None => println!("pmfarm: gates: none (--no-gates)"),
    }
    // A rule that could not be judged is named with its reason, so "not checked" is never a
    // count the user has to dig out of summary.json.
    for g in s.gates.iter().filter(|g| !g.checked) {
        println!("pmfarm: gate {} not checked: {}", escape_controls(&g.name), escape_controls(&g.detail));
    }
    println!("pmfarm: results in {}", shown(&o.results_file));
    match &o.history {
        Some(Ok(h)) => println!("pmfarm: history: appended to {}", shown(h)),
        Some(Err(e)) => eprintln!("pmfarm: history not written: {}", escape_controls(e)),
        None => {}
    }
    match &o.report {
        Some(Ok(index)) => println!("pmfarm: report: {}", shown(index)),
        Some(Err(e)) => eprintln!("pmfarm: report not written: {}", escape_controls(e)),
        None => {}
    }
    match o.verdict() {
        Verdict::Unfinished(e) => {
            eprintln!("pmfarm: cannot clear the {IN_PROGRESS} mark in {}: {e}", shown(&o.out))
        }
        Verdict::HistoryNotWritten | Verdict::Passed => {}
        Verdict::ReportNotWritten => eprintln!(
            "pmfarm: FAILED: the report was not written; the results are complete in {} \
             (render it again with `pmfarm report`)",
            shown(&o.out)
        ),
        Verdict::WithoutStatus(missing) => {
            let names: Vec<String> = missing.iter().map(|m| escape_controls(m).into_owned()).collect();
            eprintln!("pmfarm: FAILED: {} file(s) ended without a status: {}", missing.len(), names.join(", "));
        }
        Verdict::NothingRunnable => {
            let reasons: Vec<String> =
                o.skip_reasons.iter().map(|(k, v)| format!("{v} {}", escape_controls(k))).collect();
            eprintln!("pmfarm: nothing runnable: all {} file(s) were skipped ({})", s.files, reasons.join(", "));
        }
        Verdict::GatesFailed(failures) => {
            for f in failures {
                eprintln!("pmfarm: {}", escape_controls(f));
            }
        }
    }
    o.exit_code()
}

/// The end of `pmfarm merge` over `shards` folders. Returns the exit code.
fn print_merge_outcome(o: &Outcome, shards: usize) -> i32 {
    let s = &o.summary;
    println!("pmfarm merge: {shards} shard(s), {} files: {}", s.files, nonzero_counts(s));
    println!("pmfarm merge: results in {}", o.results_file.display());
    match &o.history {
        Some(Ok(h)) => println!("pmfarm merge: history: appended to {}", h.display()),
        Some(Err(e)) => eprintln!("pmfarm merge: history not written: {}", escape_controls(e)),
        None => {}
    }
    if let Some(Err(e)) = &o.report {
        eprintln!("pmfarm merge: report not written: {}", escape_controls(e));
    }
    match o.verdict() {
        Verdict::Unfinished(e) => eprintln!("pmfarm merge: cannot clear the {IN_PROGRESS} mark: {e}"),
        Verdict::GatesFailed(failures) => {
            for f in failures {
                eprintln!("pmfarm merge: {f}");
            }
        }
        _ => {}
    }
    o.exit_code()
}

fn baseline(cmd: BaselineCommand) -> i32 {
    let (out, name, dir, promote, force) = match cmd {
        BaselineCommand::Save { out, name, force, baselines } => (out, name, baselines, false, force),
        BaselineCommand::Promote { out, name, baselines } => (out, name, baselines, true, true),
    };
    if !pmfarm::baseline::valid_name(&name) {
        return usage(format!("baseline name `{name}` is not a slug ([a-z0-9-])"));
    }
    let dir = pmfarm::locate::baselines_dir(dir);
    let _lock = match pmfarm::lock_consistent_run(&out) {
        Ok(l) => l,
        Err(e) => return usage(format!("baseline: {e}")),
    };
    let path = pmfarm::baseline::path_of(&dir, &name);
    let results = match pmfarm::read_results(&out) {
        Ok(r) => r,
        Err(e) => return usage(e),
    };
    let old = pmfarm::baseline::load(&path).ok();
    match (promote, old.is_some(), force) {
        (true, false, _) => return usage(format!("{} does not exist; use `pmfarm baseline save`", path.display())),
        (false, true, false) => {
            return usage(format!("{} exists; use `pmfarm baseline promote` or --force", path.display()))
        }
        _ => {}
    }
    match pmfarm::baseline::save(&path, &results, old.as_deref()) {
        Ok(n) => {
            println!("pmfarm: baseline {} ← {} ({n} files)", path.display(), out.display());
            if let Some(old) = old {
                let mut r = results.clone();
                let d = pmfarm::baseline::compare(&name, &old, &mut r, |_| None);
                let c: Vec<String> = d.counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
                println!("pmfarm: against the previous baseline: {}", c.join(", "));
            }
            code::OK
        }
        Err(e) => usage(format!("cannot write {}: {e}", path.display())),
    }
}

/// mimalloc for the coordinator and in-process sweeps (freed pages reused from file to
/// file), glibc's malloc when this binary runs as a one-file worker (`pmworker::memory`).
#[global_allocator]
static GLOBAL: pmworker::memory::ProcessAllocator = pmworker::memory::ProcessAllocator;

/// Before every constructor: the memory role from the first argument ([`WORKER_ENTRY`]) and,
/// in a worker, the coordinator's limits (`pmworker::start`).
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".preinit_array"]
static PROCESS_START: pmworker::start::PreInit = process_start;

#[cfg(target_os = "linux")]
extern "C" fn process_start(
    argc: std::os::raw::c_int,
    argv: *const *const std::os::raw::c_char,
    envp: *const *const std::os::raw::c_char,
) {
    pmworker::start::farm_binary(WORKER_ENTRY.as_bytes(), argc, argv, envp);
}
