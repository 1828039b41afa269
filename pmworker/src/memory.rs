//! Allocator settings of the worker process. The worker ships mimalloc (freed pages are
//! reused instead of a fresh `mmap` per multi-megabyte buffer), told to give freed memory
//! back at once: by default it keeps freed pages for 1 s (`options.c` of the bundled v3), so a stream's parsed tree,
//! freed just before the envelope rewrite allocates its buffer, would still count at the
//! worker's peak (147 MB file: 482 MB peak with the delay, 316 MB without).

use std::os::raw::{c_int, c_long};

extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_option_get(option: c_int) -> c_long;
}

/// `mi_option_purge_delay` in the bundled mimalloc v3 (`mimalloc.h`, enum `mi_option_e`);
/// the unit test below pins it by its default in `options.c` (1000 ms).
const MI_OPTION_PURGE_DELAY: c_int = 15;

/// Inputs at least this large purge freed memory at once. Below it the retained pages fit
/// in the memory target's fixed 32 MB, and retaining them is what keeps a sweep of small
/// files fast (1/10 synthetic corpus: 7 s isolated with retention, 10 s purging at once).
pub const PURGE_AT_ONCE_FROM_BYTES: u64 = 8 << 20;

/// Applies the purge policy for an input of `bytes`: called with the file size before it is
/// read, and again with the decoded stream bytes once it is open (gzip streams inflate).
pub fn configure_for_input(bytes: u64) {
    if bytes >= PURGE_AT_ONCE_FROM_BYTES {
        return_freed_memory_at_once();
    }
}

/// Purge freed memory immediately.
pub fn return_freed_memory_at_once() {
    // SAFETY: mimalloc's option setter takes any option index and value at any time.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
}

/// This process's address-space cap (`RLIMIT_AS` soft limit, which the farm sets from
/// `--memory`), `None` when unlimited: the inflation budget is derived from it.
pub fn address_space_cap() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes one rlimit struct we own.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
    (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur as u64)
}

/// Current purge delay in milliseconds (for tests and diagnostics).
pub fn purge_delay_ms() -> c_long {
    // SAFETY: reading an option has no preconditions.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
}

#[cfg(test)]
mod tests {
    #[global_allocator]
    static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

    #[test]
    fn the_option_index_is_the_purge_delay() {
        // The bundled mimalloc v3 sets purge_delay's default to 1000 ms (`options.c`; the
        // header comment still says 10); a version that reorders its options fails here
        // instead of silently setting another option.
        assert_eq!(super::purge_delay_ms(), 1000);
        super::return_freed_memory_at_once();
        assert_eq!(super::purge_delay_ms(), 0);
    }
}
