//! `pmworker <file.max>` (or a NeL `.skel`/`.anim`/`.shape`/`.ig`): checks one file and streams JSON
//! Lines events on stdout.
//! Exit codes: 0 pass or skip, 1 fail, 2 usage error or unreadable path, 101 panic;
//! any signal is the farm's to read (crash, timeout, oom). See `docs/events.md`.
//! The command line lives in [`pmworker::cli`] so `pmfarm worker` runs the same thing.

fn main() {
    pmworker::memory::exit_worker(pmworker::cli::main_with_args(std::env::args_os()));
}

/// mimalloc keeps freed pages for reuse: with glibc's allocator every multi-megabyte stream
/// buffer is a fresh `mmap`, and page faults cost more than parsing (see docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Allocator options that must be set before mimalloc starts (no transparent huge pages):
/// `.preinit_array` runs before every constructor, mimalloc's included.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".preinit_array"]
static ALLOCATOR_OPTIONS: pmworker::memory::PreInit = pmworker::memory::at_process_start;
