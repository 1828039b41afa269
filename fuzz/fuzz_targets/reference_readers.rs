#![no_main]
//! Fuzz target `reference_readers`: body in `pmtests::fuzz_targets::reference_readers` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::reference_readers(data));
