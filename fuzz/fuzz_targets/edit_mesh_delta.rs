#![no_main]
//! Fuzz target `edit_mesh_delta`: body in `pmtests::fuzz_targets::edit_mesh_delta` (replayed in CI on stable).
libfuzzer_sys::fuzz_target!(|data: &[u8]| pmtests::fuzz_targets::edit_mesh_delta(data));
