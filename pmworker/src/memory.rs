//! Allocator settings of the worker process. The worker ships mimalloc (freed pages are
//! reused instead of a fresh `mmap` per multi-megabyte buffer), with two changes to its
//! defaults, both measured in docs/performance.md:
//!
//! - no transparent huge pages on the heap ([`at_process_start`]): mimalloc asks for them
//!   on its arenas, whose partly used 2 MiB regions then each count whole towards the peak
//!   RSS (14 real files over the memory bound), although they would halve the kernel's time;
//!   huge pages go to the few large buffers instead ([`configure_for_input`],
//!   `pmcore::pages`), and to the whole heap only from [`HUGE_PAGES_FROM_BYTES`] (off unless
//!   [`HUGE_PAGES_FROM_VAR`] sets it);
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

/// Inputs at least this large (the largest regular file named on the command line) run
/// with transparent huge pages on the whole heap. Off by default (`u64::MAX`): measured in
/// docs/performance.md, whole-heap huge pages halve the kernel's time but put 14 real
/// files over the memory bound (mimalloc's small objects are spread over partly used
/// 2 MiB regions, each counted whole). The worker instead asks for huge pages on its few
/// large buffers only ([`configure_for_input`], `pmcore::pages`).
pub const HUGE_PAGES_FROM_BYTES: u64 = u64::MAX;

/// Environment variable overriding [`HUGE_PAGES_FROM_BYTES`] (a byte count; for
/// benchmarks). `MIMALLOC_ALLOW_THP` in the environment overrides both.
pub const HUGE_PAGES_FROM_VAR: &str = "PMWORKER_HUGE_PAGES_FROM";

/// Runs before any constructor (`.preinit_array` of the binaries, which the loader calls
/// with `argc, argv, envp`), so before mimalloc reads its options and maps its first arena:
/// decides transparent huge pages from the input's size ([`HUGE_PAGES_FROM_BYTES`]) unless
/// `MIMALLOC_ALLOW_THP` is in the environment. `envp` is read directly: in a dynamically
/// linked binary libc's `environ` is not set yet. Nothing here allocates.
pub extern "C" fn at_process_start(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
    if variable(envp, b"MIMALLOC_ALLOW_THP=").is_some() {
        return;
    }
    let from = variable(envp, b"PMWORKER_HUGE_PAGES_FROM=")
        .and_then(|v| std::str::from_utf8(v).ok()?.trim().parse::<u64>().ok())
        .unwrap_or(HUGE_PAGES_FROM_BYTES);
    if largest_file_argument(argc, argv) >= from {
        // A parent that ran without huge pages (the farm's coordinator) passed its
        // `PR_SET_THP_DISABLE` on through fork and exec: clear it, mimalloc's default
        // (huge pages allowed) does the rest.
        // SAFETY: prctl with PR_SET_THP_DISABLE takes plain integers and touches no memory.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0) };
        // SAFETY: as below.
        unsafe { mi_option_set(MI_OPTION_ALLOW_THP, 1) };
    } else {
        // SAFETY: mimalloc's option setter takes any option index and value at any time.
        unsafe { mi_option_set(MI_OPTION_ALLOW_THP, 0) };
    }
}

/// Size of the largest regular file among the command-line arguments that do not start
/// with `-` (0 if none): the worker's input. Folders, option values and missing paths
/// count 0, so the coordinator (`pmfarm run CORPUS`) runs without huge pages.
fn largest_file_argument(argc: c_int, argv: *const *const c_char) -> u64 {
    if argv.is_null() {
        return 0;
    }
    let mut largest = 0;
    for i in 1..usize::try_from(argc).unwrap_or(0) {
        // SAFETY: the loader passes `argc` valid entries in `argv`.
        let arg = unsafe { *argv.add(i) };
        // SAFETY: each entry is NULL or a NUL-terminated string for the process's life.
        if arg.is_null() || unsafe { *arg } == b'-' as c_char {
            continue;
        }
        // SAFETY: an all-zero `stat` is a valid value for the call to overwrite.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `arg` is a NUL-terminated path and `st` a writable stat buffer.
        if unsafe { libc::stat(arg, &mut st) } == 0 && (st.st_mode & libc::S_IFMT) == libc::S_IFREG {
            largest = largest.max(st.st_size as u64);
        }
    }
    largest
}

/// The value of the first entry of the NULL-terminated environment block `envp` that
/// starts with `prefix` (`NAME=`), without the prefix.
fn variable<'a>(envp: *const *const c_char, prefix: &[u8]) -> Option<&'a [u8]> {
    if envp.is_null() {
        return None;
    }
    let mut at = envp;
    loop {
        // SAFETY: `envp` is the loader's NULL-terminated array of NUL-terminated strings;
        // we stop at its NULL entry.
        let entry = unsafe { *at };
        if entry.is_null() {
            return None;
        }
        // SAFETY: each entry is a NUL-terminated string that outlives the process's start.
        let bytes = unsafe { std::ffi::CStr::from_ptr(entry) }.to_bytes();
        if let Some(value) = bytes.strip_prefix(prefix) {
            return Some(value);
        }
        // SAFETY: not past the NULL entry yet, so the next slot exists.
        at = unsafe { at.add(1) };
    }
}

/// Records the input size: called with the file size before it is read, and again with
/// the decoded stream bytes once it is open (gzip streams inflate). The first call lets
/// the buffers `pmcore::pages` advises get huge pages (`allow_advised_huge_pages`).
pub fn configure_for_input(bytes: u64) {
    if INPUT_BYTES.fetch_max(bytes, Ordering::Relaxed) == 0 {
        allow_advised_huge_pages();
    }
}

/// `PR_THP_DISABLE_EXCEPT_ADVISED` (Linux 6.18, `include/uapi/linux/prctl.h`): with
/// `PR_SET_THP_DISABLE`, huge pages stay off except where `madvise(MADV_HUGEPAGE)` asked.
const PR_THP_DISABLE_EXCEPT_ADVISED: libc::c_ulong = 1 << 1;

/// mimalloc (option `allow_thp` 0) turned transparent huge pages off for the whole process
/// (`PR_SET_THP_DISABLE`, also inherited from the farm's coordinator). Turns them back on
/// for advised memory only: the heap is not advised, the large buffers are. Kernels before
/// 6.18 lack that mode; there the flag is cleared when the system mode is `madvise` (only
/// advised memory gets huge pages anyway) and left set otherwise.
fn allow_advised_huge_pages() {
    // SAFETY: prctl with PR_SET_THP_DISABLE takes plain integers and touches no memory.
    let except_advised = unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0) } == 0;
    if !except_advised && system_mode_is_madvise() {
        // SAFETY: as above.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0) };
    }
}

fn system_mode_is_madvise() -> bool {
    std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").is_ok_and(|m| m.contains("[madvise]"))
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

/// Ends the worker process with `code` without running exit handlers. mimalloc's handler
/// collects its whole heap and hands every span back to the system (an `madvise` each,
/// ≈ 4 % of an isolated sweep's CPU in `perf`) just before the kernel frees the address
/// space anyway. stdout and stderr are flushed first: the events are the worker's output.
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
            let null = std::ptr::null();
            let env = [c"MIMALLOC_ALLOW_THP=1".as_ptr(), null];
            super::at_process_start(0, std::ptr::null(), env.as_ptr());
            assert!(super::huge_pages_allowed(), "the user's setting wins");
            super::at_process_start(0, std::ptr::null(), [null].as_ptr());
            assert!(!super::huge_pages_allowed(), "no input: no huge pages");

            // By default no input turns them on for the whole heap; a threshold in the
            // environment does for a file of that size named on the command line (after
            // options and a folder, as `pmfarm worker --tiers t1 FILE` names it).
            let dir = std::env::temp_dir().join(format!("pmworker-thp-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let big = dir.join("big.max");
            std::fs::File::create(&big).unwrap().set_len(4096).unwrap();
            let dir_c = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
            let big_c = std::ffi::CString::new(big.to_str().unwrap()).unwrap();
            let argv = [c"pmworker".as_ptr(), c"--tiers".as_ptr(), dir_c.as_ptr(), big_c.as_ptr(), null];
            super::at_process_start(4, argv.as_ptr(), [null].as_ptr());
            assert!(!super::huge_pages_allowed(), "default: not on the whole heap");
            let from_4k = [c"PMWORKER_HUGE_PAGES_FROM=4096".as_ptr(), null];
            super::at_process_start(4, argv.as_ptr(), from_4k.as_ptr());
            assert!(super::huge_pages_allowed(), "input at the threshold: on the whole heap");
            let from_8k = [c"PMWORKER_HUGE_PAGES_FROM=8192".as_ptr(), null];
            super::at_process_start(4, argv.as_ptr(), from_8k.as_ptr());
            assert!(!super::huge_pages_allowed(), "input below the threshold: off");
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}
