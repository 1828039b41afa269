//! pmcore: everything about one `.max` file — what the input is, the OLE envelope,
//! compression, the lossless chunk layer, file facts and the tier verdicts.
//!
//! No processes and no I/O beyond the bytes handed in: the worker owns files, the farm
//! owns scheduling.
//!
//! The public API is what other crates use (pmref, pmworker, pmfarm, the `pmtests`
//! crate, and pmcore's own benches and examples): the `pub` modules and re-exports below,
//! and inside them only the items those crates name and the types their signatures need.
//! Everything else is `pub(crate)`; `unreachable_pub` keeps a new `pub` from leaking out
//! of a private module.

#![warn(unreachable_pub)]

pub mod chunk;
pub mod classes;
pub mod compression;
pub mod container;
pub mod eval;
pub mod export;
pub mod facts;
pub mod guard;
pub mod input;
mod maxfile;
pub mod model;
pub mod nel;
pub mod pages;
pub mod parsed;
pub mod synth;
pub mod triage;
pub mod verify;

pub use input::{classify, Input};
pub use maxfile::{logical_name as stream_logical_name, MaxFile, StreamKind};

/// Lower-case slug of `text` (`[a-z0-9-]`, runs of anything else become one `-`):
/// the one spelling of bucket names.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}
