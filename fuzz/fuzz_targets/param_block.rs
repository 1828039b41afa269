#![no_main]
//! Fuzz target `param_block`: body in `pmtests::fuzz_targets::param_block` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::param_block(data));
