//! Panic containment at library boundaries we do not own (the `cfb` crate has known
//! panics on malformed input). A contained panic becomes a typed error; the worker's
//! panic hook asks [`is_containing`] so it does not report a panic that was handled.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

thread_local! {
    static CONTAINING: Cell<u32> = const { Cell::new(0) };
}

/// True while the current thread runs inside [`contain`].
pub fn is_containing() -> bool {
    CONTAINING.with(|c| c.get() > 0)
}

/// Runs `f`; a panic inside it is returned as `Err(message)` instead of unwinding.
pub(crate) fn contain<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    CONTAINING.with(|c| c.set(c.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    CONTAINING.with(|c| c.set(c.get() - 1));
    result.map_err(|payload| {
        if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "panic with a non-text payload".to_string()
        }
    })
}
