#![no_main]
//! Fuzz target `nel_ig`: body in `pmtests::fuzz_targets::nel_ig` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::nel_ig(data));
