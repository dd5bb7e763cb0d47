//! Raw bytes through every decoding stage; libFuzzer's own mutations.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dxbc2spv::fuzzing::decode_and_disassemble(data));
