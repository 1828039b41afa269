#![no_main]
//! Fuzz target `biped_keytracks`: body in `pmtests::fuzz_targets::biped_keytracks` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::biped_keytracks(data));
