#![no_main]
//! Fuzz target `biped_system`: body in `pmtests::fuzz_targets::biped_system` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::biped_system(data));
