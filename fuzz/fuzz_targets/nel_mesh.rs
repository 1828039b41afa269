#![no_main]
//! Fuzz target `nel_mesh`: body in `pmtests::fuzz_targets::nel_mesh` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::nel_mesh(data));
