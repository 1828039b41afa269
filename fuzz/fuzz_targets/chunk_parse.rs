#![no_main]
//! Fuzz target `chunk_parse`: body in `pmtests::fuzz_targets::chunk_parse` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::chunk_parse(data));
