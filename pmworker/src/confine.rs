//! Limits a worker puts on itself at start when its coordinator asks for them
//! ([`CONFINE_VAR`]): the address-space cap (`RLIMIT_AS`, from `pmfarm --memory`) and death
//! with the coordinator (`PR_SET_PDEATHSIG`). Applied by the worker rather than between
//! `fork` and `exec` so the farm can start its own workers with `posix_spawn`: a `fork` of
//! the coordinator copies its page tables and makes its memory copy-on-write, which cost
//! the coordinator ≈ 1.3 ms of system time per file (docs/performance.md). A worker
//! executable that does not read the variable (`pmfarm run --worker PATH`) is still
//! confined by the coordinator between `fork` and `exec`.
//!
//! Runs in `.preinit_array` ([`crate::start`]), before `main` and before any code of ours
//! allocates, so the cap holds before the first input byte is read, as with `fork`.

use std::os::raw::c_char;

/// Environment variable: `<coordinator pid>:<address-space cap in bytes, 0 = none>`.
pub const CONFINE_VAR: &str = "PMWORKER_CONFINE";

/// Exit code of a worker whose coordinator is gone before it could be tied to it, or whose
/// cap could not be set: the same code the coordinator's `fork` path uses.
pub const NOT_CONFINED_EXIT: i32 = 125;

/// The variable's value for a worker of coordinator `pid`, capped at `address_space` bytes.
pub fn value(coordinator: u32, address_space: Option<u64>) -> String {
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

/// Applies the limits [`CONFINE_VAR`] in `envp` asks for; nothing without it. A value that
/// does not parse, a cap the kernel refuses, or a coordinator already gone ends the
/// process with [`NOT_CONFINED_EXIT`] and a line on stderr: an unconfined worker never runs.
pub(crate) fn apply(envp: *const *const c_char) {
    let Some(value) = crate::start::variable(envp, b"PMWORKER_CONFINE=") else { return };
    let Some((coordinator, cap)) = parse(value) else { refuse(b"pmworker: PMWORKER_CONFINE is not PID:BYTES\n") };
    if cap > 0 {
        let lim = libc::rlimit { rlim_cur: cap as libc::rlim_t, rlim_max: cap as libc::rlim_t };
        // SAFETY: setrlimit reads one rlimit struct we own.
        if unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) } != 0 {
            refuse(b"pmworker: cannot set the address-space cap the coordinator asked for\n");
        }
    }
    // Die with the coordinator, even when it is SIGKILLed: no orphans keep running.
    // SAFETY: prctl with PR_SET_PDEATHSIG takes plain integers and touches no memory.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
        refuse(b"pmworker: cannot tie this worker to its coordinator\n");
    }
    // A coordinator that died before the prctl sends no signal: this worker has been
    // re-parented already, so it goes now instead of running unsupervised.
    // SAFETY: getppid has no preconditions.
    if u32::try_from(unsafe { libc::getppid() }).ok() != Some(coordinator) {
        // SAFETY: _exit ends the process at once.
        unsafe { libc::_exit(NOT_CONFINED_EXIT) }
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
    fn without_the_variable_nothing_is_applied() {
        let before = crate::memory::address_space_cap();
        apply([std::ptr::null()].as_ptr());
        assert_eq!(crate::memory::address_space_cap(), before);
    }
}
