//! pmworker: checks one `.max` (or NeL) file per process and streams JSON Lines events.
//!
//! The library half holds the event contract ([`events`]), shared with `pmfarm`, and the
//! per-file pipeline ([`pipeline`]) that both the binary and the farm's in-process mode run.

pub mod anim;
pub mod cli;
pub mod confine;
pub mod dump;
pub mod emit;
/// The event contract, defined in `pmschema` (re-exported so `pmworker::events` keeps working).
pub use pmschema::events;
pub mod export;
pub mod exporter;
pub mod fault;
// `memory` calls mimalloc's C API (options) and is the binaries' global allocator;
// naming the crate links its native library into every binary that uses this library,
// the test binaries included, whichever global allocator they have.
extern crate mimalloc as _;
pub mod memory;
pub mod nel;
pub mod options;
pub mod pairs;
pub mod pipeline;
pub mod shape;
pub mod skel_biped;
pub mod slot;
pub mod start;
pub mod summary;
pub mod t2;
pub mod t3_triage;
pub mod timing;
pub mod triage;
pub mod wire;
pub mod zygote;
