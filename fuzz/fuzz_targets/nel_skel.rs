#![no_main]
//! Fuzz target `nel_skel`: body in `pmtests::fuzz_targets::nel_skel` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::nel_skel(data));
