//! The whole translation over corpus blobs mutated token-wise: the `translate` contract
//! (`dxbc2spv::fuzzing::translate`) with the DXBC-aware mutator of `dxbc2spv::fuzzing` as
//! libFuzzer's custom mutator (one mutation in five is libFuzzer's byte-level one).
#![no_main]

use dxbc2spv::fuzzing::{mutate, translate, Rng};
use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| translate(data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let mut rng = Rng::new(u64::from(seed));
    let size = size.min(data.len());
    if rng.percent(20) {
        return fuzzer_mutate(data, size, max_size.min(data.len()));
    }
    let mut bytes = data[..size].to_vec();
    for _ in 0..1 + rng.below(3) {
        mutate(&mut rng, &mut bytes);
    }
    let len = bytes.len().min(max_size).min(data.len());
    data[..len].copy_from_slice(&bytes[..len]);
    len
});
