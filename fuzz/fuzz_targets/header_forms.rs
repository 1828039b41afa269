#![no_main]
//! Fuzz target `header_forms`: body in `pmtests::fuzz_targets::header_forms` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::header_forms(data));
