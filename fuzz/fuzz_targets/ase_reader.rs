#![no_main]
//! Fuzz target `ase_reader`: body in `pmtests::fuzz_targets::ase_reader` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::ase_reader(data));
