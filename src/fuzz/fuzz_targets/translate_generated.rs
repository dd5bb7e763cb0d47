//! The whole translation over random programs generated from the opcode table: the input bytes
//! seed `dxbc2spv::fuzzing::generate` (`dxbc2spv::fuzzing::translate_generated`), so every input
//! is a well-formed container of some stage and model that reaches lowering and emission.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| dxbc2spv::fuzzing::translate_generated(data));
