//! Allocator settings of the worker process. The worker ships mimalloc (freed pages are
//! reused instead of a fresh `mmap` per multi-megabyte buffer), with two changes to its
//! defaults, both measured in docs/performance.md:
//!
//! - no transparent huge pages ([`at_process_start`]): mimalloc asks for them on its
//!   arenas, so a process that touches a few KiB at start faults in (and the kernel zeroes)
//!   whole 2 MiB pages, and a small file's peak RSS rounds up to them;
//! - freed memory kept (mimalloc's purge delay, 1 s in the bundled v3) rather than given
//!   back at once, with one explicit release between the pipeline's phases
//!   ([`between_phases`]) on large inputs, so the peak stays bounded without an
//!   `madvise` per freed buffer.

use std::os::raw::{c_char, c_int, c_long};
use std::sync::atomic::{AtomicU64, Ordering};

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_option_get(option: c_int) -> c_long;
    fn mi_collect(force: bool);
}

/// `mi_option_purge_delay` in the bundled mimalloc v3 (`mimalloc.h`, enum `mi_option_e`);
/// the unit test below pins it by its default in `options.c` (1000 ms).
const MI_OPTION_PURGE_DELAY: c_int = 15;
/// `mi_option_allow_thp` in the bundled mimalloc v3 (default 1 off Android).
const MI_OPTION_ALLOW_THP: c_int = 43;

/// Inputs at least this large (file or decoded bytes) release freed memory between phases.
/// Below it what mimalloc retains fits in the memory target's fixed 32 MiB, and keeping it
/// is what keeps a sweep of small files fast.
pub const RELEASE_BETWEEN_PHASES_FROM_BYTES: u64 = 8 << 20;

/// Largest input size seen by [`configure_for_input`].
static INPUT_BYTES: AtomicU64 = AtomicU64::new(0);

/// A `.preinit_array` entry.
pub type PreInit = extern "C" fn(c_int, *const *const c_char, *const *const c_char);

/// Runs before any constructor (`.preinit_array` of the binaries, which the loader calls
/// with `argc, argv, envp`), so before mimalloc reads its options and maps its first arena:
/// turns transparent huge pages off unless `MIMALLOC_ALLOW_THP` is in the environment.
/// `envp` is read directly: in a dynamically linked binary libc's `environ` is not set yet.
pub extern "C" fn at_process_start(_argc: c_int, _argv: *const *const c_char, envp: *const *const c_char) {
    if !has_variable(envp, b"MIMALLOC_ALLOW_THP=") {
        // SAFETY: mimalloc's option setter takes any option index and value at any time.
        unsafe { mi_option_set(MI_OPTION_ALLOW_THP, 0) };
    }
}

/// True when the NULL-terminated environment block `envp` has an entry starting `prefix`.
fn has_variable(envp: *const *const c_char, prefix: &[u8]) -> bool {
    if envp.is_null() {
        return false;
    }
    let mut at = envp;
    loop {
        // SAFETY: `envp` is the loader's NULL-terminated array of NUL-terminated strings;
        // we stop at its NULL entry.
        let entry = unsafe { *at };
        if entry.is_null() {
            return false;
        }
        // SAFETY: each entry is a NUL-terminated string that outlives this call.
        if unsafe { std::ffi::CStr::from_ptr(entry) }.to_bytes().starts_with(prefix) {
            return true;
        }
        // SAFETY: not past the NULL entry yet, so the next slot exists.
        at = unsafe { at.add(1) };
    }
}

/// Records the input size: called with the file size before it is read, and again with
/// the decoded stream bytes once it is open (gzip streams inflate).
pub fn configure_for_input(bytes: u64) {
    INPUT_BYTES.fetch_max(bytes, Ordering::Relaxed);
}

/// Between the pipeline's phases (input read, T1, T2): on a large input, hands the memory
/// the finished phase freed back to the system, so the next phase's buffers do not add to
/// it at the peak.
pub fn between_phases() {
    if INPUT_BYTES.load(Ordering::Relaxed) >= RELEASE_BETWEEN_PHASES_FROM_BYTES {
        // SAFETY: mi_collect has no preconditions.
        unsafe { mi_collect(true) };
    }
}

/// This process's address-space cap (`RLIMIT_AS` soft limit, which the farm sets from
/// `--memory`), `None` when unlimited: the inflation budget is derived from it.
pub fn address_space_cap() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit struct we own.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
}

/// Current purge delay in milliseconds (for tests and diagnostics).
pub fn purge_delay_ms() -> c_long {
    // SAFETY: reading an option has no preconditions.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
}

/// Whether mimalloc may use transparent huge pages (for tests and diagnostics).
pub fn huge_pages_allowed() -> bool {
    // SAFETY: reading an option has no preconditions.
    unsafe { mi_option_get(MI_OPTION_ALLOW_THP) != 0 }
}

#[cfg(test)]
mod tests {
    #[global_allocator]
    static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

    #[test]
    fn the_option_indices_are_the_purge_delay_and_huge_pages() {
        // Defaults of the bundled mimalloc v3 (`options.c`): purge_delay 1000 ms (the
        // header comment still says 10), allow_thp 1. A version that reorders its options
        // fails here instead of silently setting another option.
        assert_eq!(super::purge_delay_ms(), 1000);
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
            assert!(super::huge_pages_allowed());
            let env = [c"MIMALLOC_ALLOW_THP=1".as_ptr(), std::ptr::null()];
            super::at_process_start(0, std::ptr::null(), env.as_ptr());
            assert!(super::huge_pages_allowed(), "the user's setting wins");
            super::at_process_start(0, std::ptr::null(), [std::ptr::null()].as_ptr());
            assert!(!super::huge_pages_allowed());
        }
    }
}
