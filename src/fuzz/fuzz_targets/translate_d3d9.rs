//! The whole translation over Direct3D 9 token streams (`dxbc2spv::fuzzing::translate_d3d9`: no
//! panic, no `Internal` error, error offsets inside the input, successes bounded in size and
//! passing `ir::validate`), with the token-aware D3D9 mutator as libFuzzer's custom mutator (one
//! mutation in five is libFuzzer's default byte-level one). Seed it with `.d3d9` streams (the
//! D3D9 corpus, `fixtures/malformed/d3d9/`, `dxbc2spv asm` of `fixtures/d3d9/*.asm`).
#![no_main]

use dxbc2spv::fuzzing::{mutate_d3d9_in_place, translate_d3d9};
use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| {
    translate_d3d9(data);
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    mutate_d3d9_in_place(data, size, max_size, seed)
        .unwrap_or_else(|| fuzzer_mutate(data, size.min(data.len()), max_size.min(data.len())))
});
