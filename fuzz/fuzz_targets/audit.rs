//! Fuzz target `audit`: see `tests/fuzz_targets/mod.rs` for what it runs and its input format.
#![no_main]

#[path = "../../tests/fuzz_targets/mod.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::audit(data));
