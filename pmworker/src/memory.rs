//! Memory of the two kinds of process the binaries run as, chosen before `main`
//! ([`crate::start`]) and fixed for the process's life:
//!
//! - A **one-file worker** (`pmworker`, `pmfarm worker`) starts with an empty heap and exits
//!   after one file, so what it pays for memory is the kernel faulting in and zeroing every
//!   page it touches (4 KiB each; docs/performance.md). It allocates from glibc's malloc:
//!   one contiguous heap, dense from its start, so transparent huge pages on that heap
//!   ([`WORKER_GLIBC_TUNABLES`], which the farm puts in each worker's environment: the
//!   loader reads it before any code of ours runs) cost little beyond the bytes in use —
//!   one fault per 2 MiB instead of 512. Buffers up to [`HEAP_BUFFERS_UP_TO`] stay in that
//!   heap instead of a fresh `mmap` each. Measured: as fast as mimalloc with huge pages, and
//!   every real file within the memory bound, where mimalloc's heap, spread over partly used
//!   2 MiB regions, put 7 real files over it.
//! - A **long-lived** process (the coordinator, `pmfarm run --in-process`) allocates from
//!   mimalloc, which reuses freed pages from one file to the next, without transparent huge
//!   pages on its heap (its partly used 2 MiB regions would each count whole).

use std::alloc::{GlobalAlloc, Layout, System};
use std::os::raw::{c_int, c_long};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_option_get(option: c_int) -> c_long;
}

/// `mi_option_allow_thp` in the bundled mimalloc v3 (`mimalloc.h`, enum `mi_option_e`;
/// default 1 off Android); the unit test below pins it by that default.
const MI_OPTION_ALLOW_THP: c_int = 43;

/// glibc tunables of a one-file worker: transparent huge pages on malloc's heap. The farm
/// adds them to each worker's environment (see [`worker_glibc_tunables`]); a worker run by
/// hand without them works the same, with 4 KiB pages.
pub const WORKER_GLIBC_TUNABLES: &str = "glibc.malloc.hugetlb=1";

/// A one-file worker keeps allocations up to this size in malloc's heap (`M_MMAP_THRESHOLD`;
/// glibc's largest accepted value): stream and inflate buffers are reused there instead of
/// each being a fresh `mmap` faulted in page by page and unmapped when freed.
pub const HEAP_BUFFERS_UP_TO: usize = 32 << 20;

/// Inputs at least this large (file or decoded bytes) hand freed memory back between the
/// pipeline's phases ([`between_phases`]); below it what is kept fits in the memory
/// target's fixed 32 MiB.
pub const RELEASE_BETWEEN_PHASES_FROM_BYTES: u64 = 8 << 20;

/// Largest input size seen by [`configure_for_input`].
static INPUT_BYTES: AtomicU64 = AtomicU64::new(0);

/// Set once before `main` for a one-file worker ([`start_one_file_worker`]), never after.
static ONE_FILE_WORKER: AtomicBool = AtomicBool::new(false);

/// The binaries' global allocator: glibc's malloc in a one-file worker, mimalloc in a
/// long-lived process. The role is set before `main` and never changes, so every block is
/// freed by the allocator that gave it.
pub struct ProcessAllocator;

impl ProcessAllocator {
    #[inline]
    fn one_file_worker() -> bool {
        ONE_FILE_WORKER.load(Ordering::Relaxed)
    }
}

// SAFETY: forwards each call, unchanged, to one of two allocators that implement the
// contract; which one is fixed before the first allocation (see `ONE_FILE_WORKER`).
unsafe impl GlobalAlloc for ProcessAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::one_file_worker() {
            System.alloc(layout)
        } else {
            mimalloc::MiMalloc.alloc(layout)
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::one_file_worker() {
            System.alloc_zeroed(layout)
        } else {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if Self::one_file_worker() {
            System.dealloc(ptr, layout)
        } else {
            mimalloc::MiMalloc.dealloc(ptr, layout)
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if Self::one_file_worker() {
            System.realloc(ptr, layout, new_size)
        } else {
            mimalloc::MiMalloc.realloc(ptr, layout, new_size)
        }
    }
}

/// Before `main` of a one-file worker: glibc's malloc from now on, its heap keeping buffers
/// up to [`HEAP_BUFFERS_UP_TO`], and transparent huge pages allowed again where memory
/// asks for them (the heap with [`WORKER_GLIBC_TUNABLES`], `pmcore::pages` buffers): the
/// coordinator runs with them off (`PR_SET_THP_DISABLE`), which `fork` and `exec` pass on.
pub(crate) fn start_one_file_worker() {
    ONE_FILE_WORKER.store(true, Ordering::Relaxed);
    // SAFETY: mallopt takes plain integers; glibc's malloc is initialised on demand.
    unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, HEAP_BUFFERS_UP_TO as c_int) };
    // SAFETY: prctl with PR_SET_THP_DISABLE takes plain integers and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0) };
}

/// Before `main` of a long-lived process: mimalloc without transparent huge pages on its
/// heap (it then sets `PR_SET_THP_DISABLE` for the process when it starts).
pub(crate) fn start_long_lived() {
    // SAFETY: mimalloc's option setter takes any option index and value at any time.
    unsafe { mi_option_set(MI_OPTION_ALLOW_THP, 0) };
}

/// The `GLIBC_TUNABLES` value for a worker of a coordinator whose own is `current`:
/// [`WORKER_GLIBC_TUNABLES`] added, unless `current` already says how malloc's heap pages
/// are to be (the user's setting wins).
pub fn worker_glibc_tunables(current: Option<&str>) -> String {
    match current {
        Some(c) if c.contains("glibc.malloc.hugetlb") => c.to_string(),
        Some(c) if !c.is_empty() => format!("{c}:{WORKER_GLIBC_TUNABLES}"),
        _ => WORKER_GLIBC_TUNABLES.to_string(),
    }
}

/// Records the input size: called with the file size before it is read, and again with
/// the decoded stream bytes once it is open (gzip streams inflate).
pub fn configure_for_input(bytes: u64) {
    INPUT_BYTES.fetch_max(bytes, Ordering::Relaxed);
}

/// Between the pipeline's phases (input read, T1, T2): on a large input, a one-file worker
/// hands the memory the finished phase freed back to the system (`malloc_trim`), so the
/// next phase's buffers do not add to it at the peak.
pub fn between_phases() {
    if ProcessAllocator::one_file_worker() && INPUT_BYTES.load(Ordering::Relaxed) >= RELEASE_BETWEEN_PHASES_FROM_BYTES {
        // SAFETY: malloc_trim has no preconditions.
        unsafe { libc::malloc_trim(0) };
    }
}

/// Lets go of what the pipeline holds at its end: dropped in a long-lived process; left to
/// the kernel in a one-file worker, which exits right after the file — freeing a Scene tree
/// node by node only to exit was ≈ 2–3 % of a worker's CPU (issue #43, docs/performance.md).
/// Only for the end: memory freed between phases is reused by the next phase.
pub fn discard<T>(value: T) {
    if ProcessAllocator::one_file_worker() {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

/// Ends the worker process with `code` without running exit handlers (mimalloc's, when the
/// `pmfarm` binary runs as a worker, would collect and purge a heap the kernel is about to
/// free anyway: ≈ 4 % of an isolated sweep's CPU in `perf`). stdout and stderr are flushed
/// first: the events are the worker's output.
/// For the worker's `main` only (both binaries); everything else is dropped by then.
pub fn exit_worker(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: _exit ends the process at once; nothing of ours is left to run or drop.
    unsafe { libc::_exit(code) }
}

/// This process's address-space cap (`RLIMIT_AS` soft limit, which the farm sets from
/// `--memory`), `None` when unlimited: the inflation budget is derived from it.
pub fn address_space_cap() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit struct we own.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
}

/// Whether this process is a one-file worker (glibc's malloc); for tests and diagnostics.
pub fn is_one_file_worker() -> bool {
    ProcessAllocator::one_file_worker()
}

/// Whether mimalloc may use transparent huge pages (for tests and diagnostics).
pub fn huge_pages_allowed() -> bool {
    // SAFETY: reading an option has no preconditions.
    unsafe { mi_option_get(MI_OPTION_ALLOW_THP) != 0 }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_lived_process_runs_mimalloc_without_huge_pages() {
        // Default of the bundled mimalloc v3 (`options.c`): allow_thp 1. A version that
        // reorders its options fails here instead of silently setting another option.
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
            assert!(super::huge_pages_allowed());
            super::start_long_lived();
            assert!(!super::huge_pages_allowed());
        }
        assert!(!super::is_one_file_worker(), "the role is only set before main");
    }

    #[test]
    fn the_users_tunables_are_kept() {
        let ours = super::WORKER_GLIBC_TUNABLES;
        assert_eq!(super::worker_glibc_tunables(None), ours);
        assert_eq!(super::worker_glibc_tunables(Some("")), ours);
        assert_eq!(
            super::worker_glibc_tunables(Some("glibc.malloc.arena_max=1")),
            format!("glibc.malloc.arena_max=1:{ours}")
        );
        assert_eq!(super::worker_glibc_tunables(Some("glibc.malloc.hugetlb=0")), "glibc.malloc.hugetlb=0");
    }
}
