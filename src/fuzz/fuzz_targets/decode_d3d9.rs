//! The Direct3D 9 decoder's contract (`dxbc2spv::fuzzing::decode_d3d9`: no panic, every error's
//! offset inside the input), with the token-aware D3D9 mutator as libFuzzer's custom mutator
//! (one mutation in five is libFuzzer's default byte-level one).
#![no_main]

use dxbc2spv::fuzzing::{decode_d3d9, mutate_d3d9_in_place};
use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| {
    decode_d3d9(data);
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    mutate_d3d9_in_place(data, size, max_size, seed)
        .unwrap_or_else(|| fuzzer_mutate(data, size.min(data.len()), max_size.min(data.len())))
});
