#![no_main]
//! Fuzz target `property_set`: body in `pmtests::fuzz_targets::property_set` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::property_set(data));
