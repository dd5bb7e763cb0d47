//! Fuzz target: the whole translation (decode, lower, passes, validate, emit) over arbitrary
//! bytes, through the token-aware mutator's seeds. It must never panic, and a success must be
//! a SPIR-V module (`dxbc2spv::fuzzing::translate`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    dxbc2spv::fuzzing::translate(data);
});
