//! Confining a worker, and the environment a coordinator starts one with: the one place
//! for both, read by the worker before `main`, by its zygote, and by `pmfarm`.
//!
//! The limits ([`confine`]): the address-space cap (`RLIMIT_AS`, from `pmfarm --memory`)
//! and death with the coordinator (`PR_SET_PDEATHSIG`). A worker of the farm's own binary
//! applies them to itself at start when [`CONFINE_VAR`] asks ([`Confinement::InWorker`]),
//! rather than between `fork` and `exec`, so the farm can start it with `posix_spawn`: a
//! `fork` of the coordinator copies its page tables and makes its memory copy-on-write,
//! which cost the coordinator ≈ 1.3 ms of system time per file (docs/performance.md). A
//! worker executable that does not read the variable (`pmfarm run --worker PATH`) is
//! confined by the coordinator between `fork` and `exec` ([`before_exec`]); a child of the
//! zygote ties itself to the zygote the same way.
//!
//! `apply` runs in `.preinit_array` (`crate::start`), before `main` and before any code
//! of ours allocates, so the cap holds before the first input byte is read, as with `fork`.

use std::os::raw::c_char;

/// Environment variable: `<coordinator pid>:<address-space cap in bytes, 0 = none>`.
pub const CONFINE_VAR: &str = "PMWORKER_CONFINE";

/// Exit code of a worker whose coordinator is gone before it could be tied to it, or whose
/// cap could not be set: the same code the coordinator's `fork` path uses.
pub const NOT_CONFINED_EXIT: i32 = 125;

/// The variable's value for a worker of coordinator `pid`, capped at `address_space` bytes.
fn value(coordinator: u32, address_space: Option<u64>) -> String {
    format!("{coordinator}:{}", address_space.unwrap_or(0))
}

/// The two numbers of a [`CONFINE_VAR`] value; `None` when it is not `u32:u64`.
/// Parsed without allocating (it runs before `main`).
fn parse(value: &[u8]) -> Option<(u32, u64)> {
    let colon = value.iter().position(|&b| b == b':')?;
    let pid = u32::try_from(number(&value[..colon])?).ok()?;
    Some((pid, number(&value[colon + 1..])?))
}

fn number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits
        .iter()
        .try_fold(0u64, |n, &d| d.is_ascii_digit().then(|| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))?)
}

/// How a worker gets its address-space cap and its death with the coordinator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Confinement {
    /// The worker sets them itself before `main` (`apply`, the farm's own binary), so it
    /// is started with `posix_spawn`: no `fork` of the coordinator, whose page tables and
    /// copy-on-write faults cost ≈ 1.3 ms of system time per file.
    InWorker,
    /// Set between `fork` and `exec` ([`before_exec`]): any `--worker` executable.
    BeforeExec,
}

/// Why a process could not be confined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotConfined {
    /// The kernel refused the address-space cap (`setrlimit`'s errno).
    Cap(i32),
    /// The kernel refused to tie the process to its parent (`prctl`'s errno).
    Tie(i32),
    /// The parent is not `parent` any more: it died before the tie held, so no signal will
    /// come when it goes.
    Orphaned,
}

/// Caps this process's address space at `cap` bytes (no cap for `None`), has it die
/// (SIGKILL) with its parent, and checks that its parent is still `parent`. Async-signal-safe
/// and allocation-free: it runs before `main`, between `fork` and `exec`, and in a
/// zygote's child.
pub fn confine(parent: u32, cap: Option<u64>) -> Result<(), NotConfined> {
    let errno = || std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
    if let Some(bytes) = cap {
        let lim = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
        // SAFETY: setrlimit reads one rlimit struct we own.
        if unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) } != 0 {
            return Err(NotConfined::Cap(errno()));
        }
    }
    // Die with the parent, even when it is SIGKILLed: no orphans keep running.
    // SAFETY: prctl with PR_SET_PDEATHSIG takes plain integers and touches no memory.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
        return Err(NotConfined::Tie(errno()));
    }
    // A parent that died before the prctl sends no signal: this process has been
    // re-parented already, so it must go instead of running unsupervised.
    // SAFETY: getppid has no preconditions.
    if u32::try_from(unsafe { libc::getppid() }).ok() != Some(parent) {
        return Err(NotConfined::Orphaned);
    }
    Ok(())
}

/// [`confine`] for a worker the coordinator `coordinator` has forked and is about to
/// `exec` ([`Confinement::BeforeExec`]): a refused limit fails the start with its error;
/// a coordinator already gone ends the child with [`NOT_CONFINED_EXIT`]. Async-signal-safe.
pub fn before_exec(coordinator: u32, cap: Option<u64>) -> std::io::Result<()> {
    match confine(coordinator, cap) {
        Ok(()) => Ok(()),
        Err(NotConfined::Cap(errno) | NotConfined::Tie(errno)) => Err(std::io::Error::from_raw_os_error(errno)),
        // SAFETY: _exit ends the forked child at once.
        Err(NotConfined::Orphaned) => unsafe { libc::_exit(NOT_CONFINED_EXIT) },
    }
}

/// Applies the limits [`CONFINE_VAR`] in `envp` asks for; nothing without it. A value that
/// does not parse or a limit the kernel refuses ends the process with [`NOT_CONFINED_EXIT`]
/// and a line on stderr, a coordinator already gone with that code alone: an unconfined
/// worker never runs.
pub(crate) fn apply(envp: *const *const c_char) {
    let Some(value) = variable(envp, b"PMWORKER_CONFINE=") else { return };
    let Some((coordinator, cap)) = parse(value) else { refuse(b"pmworker: PMWORKER_CONFINE is not PID:BYTES\n") };
    match confine(coordinator, (cap > 0).then_some(cap)) {
        Ok(()) => {}
        Err(NotConfined::Cap(_)) => refuse(b"pmworker: cannot set the address-space cap the coordinator asked for\n"),
        Err(NotConfined::Tie(_)) => refuse(b"pmworker: cannot tie this worker to its coordinator\n"),
        // SAFETY: _exit ends the process at once.
        Err(NotConfined::Orphaned) => unsafe { libc::_exit(NOT_CONFINED_EXIT) },
    }
}

/// The environment a coordinator (`coordinator`, its pid) adds for each worker it starts,
/// and for its zygote: huge pages on the worker's malloc heap (`GLIBC_TUNABLES`, read by
/// the loader; `crate::memory`), and, for [`Confinement::InWorker`], the limits the
/// worker applies itself (`memory`: the address-space cap in bytes).
pub fn worker_environment(
    coordinator: u32,
    confinement: Confinement,
    memory: Option<u64>,
) -> Vec<(&'static str, String)> {
    let tunables = crate::memory::worker_glibc_tunables(std::env::var("GLIBC_TUNABLES").ok().as_deref());
    let mut env = vec![("GLIBC_TUNABLES", tunables)];
    if confinement == Confinement::InWorker {
        env.push((CONFINE_VAR, value(coordinator, memory)));
    }
    env
}

/// The value of the first entry of the NULL-terminated environment block `envp` that
/// starts with `prefix` (`NAME=`), without the prefix. `envp` is read directly: before
/// `main` of a dynamically linked binary, libc's `environ` is not set yet.
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

fn refuse(message: &[u8]) -> ! {
    // SAFETY: write to stderr from a buffer we own, then _exit: nothing else runs.
    unsafe {
        libc::write(2, message.as_ptr().cast(), message.len());
        libc::_exit(NOT_CONFINED_EXIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_round_trips_and_bad_values_are_refused() {
        assert_eq!(parse(value(4242, Some(512 << 20)).as_bytes()), Some((4242, 512 << 20)));
        assert_eq!(parse(value(7, None).as_bytes()), Some((7, 0)));
        for bad in [&b""[..], b"12", b":5", b"12:", b"x:5", b"1:5x", b"4294967296:1", b"1:18446744073709551616"] {
            assert_eq!(parse(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn the_environment_is_read_without_libc() {
        let env = [c"A=1".as_ptr(), c"PMWORKER_CONFINE=7:0".as_ptr(), std::ptr::null()];
        assert_eq!(variable(env.as_ptr(), b"PMWORKER_CONFINE="), Some(&b"7:0"[..]));
        assert_eq!(variable(env.as_ptr(), b"B="), None);
        assert_eq!(variable(std::ptr::null(), b"A="), None);
    }

    #[test]
    fn the_environment_confines_in_the_worker_only_when_asked() {
        let names = |c| worker_environment(42, c, Some(1 << 30)).into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        assert_eq!(names(Confinement::InWorker), ["GLIBC_TUNABLES", CONFINE_VAR]);
        assert_eq!(names(Confinement::BeforeExec), ["GLIBC_TUNABLES"]);
        assert_eq!(worker_environment(42, Confinement::InWorker, Some(1 << 30))[1].1, value(42, Some(1 << 30)));
    }

    #[test]
    fn without_the_variable_nothing_is_applied() {
        let before = crate::memory::address_space_cap();
        apply([std::ptr::null()].as_ptr());
        assert_eq!(crate::memory::address_space_cap(), before);
    }
}
