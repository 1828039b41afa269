//! Exit codes of both binaries, in one place: the farm reads the worker's together with
//! its `end` event, and scripts read the farm's.

/// `pmworker` (and `pmfarm worker`).
pub mod worker {
    /// `end.status` is `pass` or `skip`.
    pub const OK: i32 = 0;
    /// `end.status` is `fail`.
    pub const FAIL: i32 = 1;
    /// Usage error or unreadable path: an infrastructure error, not a verdict on the file.
    pub const USAGE: i32 = 2;
    /// Exit code of a panic nothing caught (Rust's default for a panicking main thread).
    pub const PANIC: i32 = 101;
}

/// `pmfarm`.
pub mod farm {
    /// Every gate passed.
    pub const OK: i32 = 0;
    /// A gate failed, or a file ended without a status.
    pub const GATE_FAILED: i32 = 1;
    /// Usage or configuration error.
    pub const USAGE: i32 = 2;
    /// Nothing runnable: no corpus, or only pointers and skips.
    pub const NOTHING_RUNNABLE: i32 = 77;
    /// `verify-ledger`: the run folder is not consistent.
    pub const INCONSISTENT: i32 = 1;
}
