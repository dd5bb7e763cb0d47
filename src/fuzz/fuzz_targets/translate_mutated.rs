//! The whole translation over corpus blobs mutated token-wise: the `translate` contract
//! (`dxbc2spv::fuzzing::translate`) with the DXBC-aware mutator of `dxbc2spv::fuzzing` as
//! libFuzzer's custom mutator (one mutation in five is libFuzzer's byte-level one).
#![no_main]

use dxbc2spv::fuzzing::{mutate_in_place, translate};
use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| translate(data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    mutate_in_place(data, size, max_size, seed)
        .unwrap_or_else(|| fuzzer_mutate(data, size.min(data.len()), max_size.min(data.len())))
});
