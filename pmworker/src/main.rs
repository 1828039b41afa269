//! `pmworker <file.max>` (or a NeL `.skel`/`.anim`/`.shape`/`.ig`): checks one file and streams JSON
//! Lines events on stdout.
//! Exit codes: 0 pass or skip, 1 fail, 2 usage error or unreadable path, 101 panic;
//! any signal is the farm's to read (crash, timeout, oom). See `docs/events.md`.
//! The command line lives in [`pmworker::cli`] so `pmfarm worker` runs the same thing.

fn main() {
    pmworker::memory::exit_worker(pmworker::cli::worker_main(std::env::args_os().collect()));
}

/// glibc's malloc in this one-file worker, with huge pages on its dense heap when the farm
/// asks for them (`pmworker::memory` says why).
#[global_allocator]
static GLOBAL: pmworker::memory::ProcessAllocator = pmworker::memory::ProcessAllocator;

/// Before every constructor: the memory role and the coordinator's limits (`pmworker::start`).
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".preinit_array"]
static PROCESS_START: pmworker::start::PreInit = pmworker::start::worker_binary;
