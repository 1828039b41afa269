#![no_main]
//! Fuzz target `nel_anim`: body in `pmtests::fuzz_targets::nel_anim` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::nel_anim(data));
