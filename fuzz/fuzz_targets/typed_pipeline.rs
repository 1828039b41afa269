#![no_main]
//! Fuzz target `typed_pipeline`: body in `pmtests::fuzz_targets::typed_pipeline` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::typed_pipeline(data));
