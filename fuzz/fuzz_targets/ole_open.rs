#![no_main]
//! Fuzz target `ole_open`: body in `pmtests::fuzz_targets::ole_open` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::ole_open(data));
