//! The worker's command line, shared by the `pmworker` binary and `pmfarm worker`: the
//! farm re-executes its own binary as the worker, so one built binary is always complete
//! (a `cargo run -p pmfarm` builds no `pmworker` executable). Like a `main.rs`, this is
//! the one place of the worker that prints and picks exit codes.

use crate::emit::{last_breadcrumb, Sink, StdoutSink};
use crate::events::{exit, EndStatus, Event, ExportKind, PanicReport, Tier};
use crate::pipeline::{run_path, Options};
use clap::Parser;
use std::ffi::OsString;
use std::path::PathBuf;

/// Check one .max file: T1 (chunk round trip), T2 (typed model), T3 (exports vs references).
#[derive(Parser, Debug)]
#[command(name = "pmworker", version, about, long_about = None)]
struct Cli {
    /// The .max file (or NeL .skel/.anim/.shape/.ig file) to check.
    file: PathBuf,
    /// Tiers to run, comma-separated (`--export` implies t3).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "t1,t2")]
    tiers: Vec<Tier>,
    /// Exporters to run inside this process (obj, obj-base, skel, summary, pairs, shape, anim),
    /// comma-separated; `obj-base` writes base objects without their modifier stacks, `pairs`
    /// compares the file with 3ds Max's own exports found through `--reference`, `shape`
    /// writes NeL `CMesh` shapes and compares them with the NeL exporter's (`nel-shape`).
    #[arg(long = "export", value_enum, value_delimiter = ',')]
    exports: Vec<ExportKind>,
    /// Folder of reference outputs for T3, matched by relative name; repeatable (pairs
    /// folders are searched by relative name, then unique base name).
    #[arg(long)]
    reference: Vec<PathBuf>,
    /// Folder for export outputs (default: a temporary folder per exporter).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print a human-readable chunk tree instead of events (diagnostics only).
    #[arg(long)]
    dump: bool,
    /// With --dump: only this stream.
    #[arg(long, requires = "dump")]
    stream: Option<String>,
    /// With --dump: deepest level printed.
    #[arg(long, requires = "dump", default_value_t = 64)]
    depth: usize,
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if pmcore::guard::is_containing() {
            return; // contained at a library boundary and reported as a typed error
        }
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "panic".to_string()
        };
        let location = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
        eprintln!("pmworker: panic: {message} at {}", location.as_deref().unwrap_or("?"));
        StdoutSink.emit(Event::Panic(PanicReport { message, location, last_breadcrumb: last_breadcrumb() }));
    }));
}

/// Runs the worker on `args` (program name first, as `std::env::args_os` gives them) and
/// returns the process exit code (see `docs/events.md`). Installs the worker's panic hook.
/// A worker's `main` (both binaries): one file, or, when the coordinator started this
/// process as its zygote ([`crate::zygote::ZYGOTE_VAR`] names the socket), a zygote that
/// forks one child per file it is sent (`args` are then the arguments before the file).
pub fn worker_main(args: Vec<OsString>) -> i32 {
    match std::env::var_os(crate::zygote::ZYGOTE_VAR) {
        None => main_with_args(args),
        Some(fd) => match fd.to_str().and_then(|s| s.parse::<std::os::fd::RawFd>().ok()) {
            Some(fd) => crate::zygote::serve(args, fd, main_with_args::<Vec<OsString>, OsString>),
            None => {
                eprintln!("pmworker: {} is not a descriptor number", crate::zygote::ZYGOTE_VAR);
                exit::USAGE
            }
        },
    }
}

/// Checks the one file `args` name (program name first) and returns the exit code.
pub fn main_with_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = e.print();
            return code;
        }
    };
    install_panic_hook();
    if cli.dump {
        return match crate::dump::dump_path(&cli.file, cli.stream.as_deref(), cli.depth, &mut std::io::stdout().lock())
        {
            Ok(()) => exit::OK,
            Err(e) => {
                eprintln!("pmworker: {}: {e}", cli.file.display());
                exit::USAGE
            }
        };
    }
    crate::memory::configure_for_input(std::fs::metadata(&cli.file).map(|m| m.len()).unwrap_or(0));
    let opts = Options {
        out: cli.out,
        on_decoded: Some(crate::memory::configure_for_input),
        abort_on_oom: true,
        ..Options::asked(&cli.tiers, &cli.exports, cli.reference)
    };
    match run_path(&cli.file, &opts, &mut StdoutSink) {
        Ok(EndStatus::Pass | EndStatus::Skip) => exit::OK,
        Ok(EndStatus::Fail) => exit::FAIL,
        Err(e) => {
            eprintln!("pmworker: cannot read {}: {e}", cli.file.display());
            exit::USAGE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmschema::work::{Checks, Invocation};

    /// The checks a farm decides, written as the worker's command line, come back from this
    /// command line as the same value: the flags of both sides agree.
    #[test]
    fn the_worker_reads_back_the_checks_the_farm_writes() {
        let cases: [(&[Tier], &[ExportKind]); 4] = [
            (&[Tier::T1, Tier::T2, Tier::T3], &[]),
            (&[Tier::T1, Tier::T2], &[]),
            (&[Tier::T1], &[ExportKind::Skel, ExportKind::Pairs]),
            (&[Tier::T3], &[ExportKind::Obj]),
        ];
        for (tiers, exports) in cases {
            let farm = Checks::asked(tiers, exports, Invocation::Farm);
            let args = farm.worker_args();
            let cli =
                Cli::try_parse_from(["pmworker".to_string()].into_iter().chain(args.clone()).chain(["x.max".into()]))
                    .unwrap_or_else(|e| panic!("{args:?}: {e}"));
            assert_eq!(Options::asked(&cli.tiers, &cli.exports, cli.reference).checks, farm, "{args:?}");
        }
    }
}
