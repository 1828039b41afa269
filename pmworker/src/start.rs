//! What the binaries do before `main`: `.preinit_array` entries (the loader calls them with
//! `argc, argv, envp` before every constructor, the allocators' included) that pick the
//! process's memory role ([`crate::memory`]) and, for a worker its coordinator started,
//! apply the limits it asked for ([`crate::confine`]). Nothing here allocates.

use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// The process's argument strings, contiguous in memory (what `/proc/PID/cmdline` and `ps`
/// read): start and length, recorded before `main` for [`set_last_argument`].
static ARGS_AREA: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static ARGS_LEN: AtomicUsize = AtomicUsize::new(0);

/// A `.preinit_array` entry.
pub type PreInit = extern "C" fn(c_int, *const *const c_char, *const *const c_char);

/// `pmworker`: always a one-file worker.
pub extern "C" fn worker_binary(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
    record_args_area(argc, argv);
    start_worker(envp);
}

/// `pmfarm`: a one-file worker when its first argument is `entry` (`pmfarm worker …`, how
/// the coordinator re-executes itself), else a long-lived coordinator or in-process sweep.
pub fn farm_binary(entry: &[u8], argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
    if first_argument(argc, argv) == Some(entry) {
        record_args_area(argc, argv);
        start_worker(envp);
    } else {
        crate::memory::start_long_lived();
    }
}

fn start_worker(envp: *const *const c_char) {
    crate::memory::start_one_file_worker();
    crate::confine::apply(envp);
}

/// Records where the argument strings lie when they are contiguous (as the kernel lays
/// them out at `exec`); nothing otherwise, and [`set_last_argument`] then does nothing.
fn record_args_area(argc: c_int, argv: *const *const c_char) {
    if argc < 1 || argv.is_null() {
        return;
    }
    // SAFETY: the loader passes `argc` valid entries in `argv`, each NUL-terminated.
    unsafe {
        let start = *argv as *mut u8;
        let mut end = start;
        for i in 0..argc as usize {
            let arg = *argv.add(i) as *mut u8;
            if arg != end {
                return;
            }
            end = end.add(std::ffi::CStr::from_ptr(arg.cast()).to_bytes().len() + 1);
        }
        ARGS_LEN.store(end.offset_from(start) as usize, Ordering::Relaxed);
        ARGS_AREA.store(start, Ordering::Relaxed);
    }
}

/// Writes `last` over this process's last argument, as `/proc/PID/cmdline` and `ps` show
/// it, in the room that argument took at `exec` (cut short when `last` needs more): a worker
/// the zygote forked replaces the zygote's room-holding last argument with its file, so
/// its command line reads as that of a worker started as a program. The string
/// `std::env::args` would read there changes, so only a process that has taken its
/// arguments already may call it (the zygote's children do). Returns whether it could.
pub fn set_last_argument(last: &std::ffi::OsStr) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (start, len) = (ARGS_AREA.load(Ordering::Relaxed), ARGS_LEN.load(Ordering::Relaxed));
    if start.is_null() || len < 2 {
        return false;
    }
    // SAFETY: [start, start + len) is the argument area recorded before `main`; it lives
    // (on the initial stack) for the whole process, and ends with the last argument's NUL.
    let area = unsafe { std::slice::from_raw_parts_mut(start, len) };
    let from = area[..len - 1].iter().rposition(|&b| b == 0).map_or(0, |i| i + 1);
    let room = &mut area[from..];
    room.fill(0);
    let bytes = last.as_bytes();
    let n = bytes.len().min(room.len() - 1); // the area always ends with a NUL
    room[..n].copy_from_slice(&bytes[..n]);
    true
}

/// `argv[1]`, when there is one.
fn first_argument<'a>(argc: c_int, argv: *const *const c_char) -> Option<&'a [u8]> {
    if argc < 2 || argv.is_null() {
        return None;
    }
    // SAFETY: the loader passes `argc` valid entries in `argv`.
    let arg = unsafe { *argv.add(1) };
    // SAFETY: each entry is NULL or a NUL-terminated string for the process's life.
    (!arg.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(arg) }.to_bytes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_argument_is_read_without_libc() {
        let null = std::ptr::null();
        let argv = [c"pmfarm".as_ptr(), c"worker".as_ptr(), null];
        assert_eq!(super::first_argument(2, argv.as_ptr()), Some(&b"worker"[..]));
        assert_eq!(super::first_argument(1, argv.as_ptr()), None);
    }
}
