//! The assembler over fxc-syntax text (`dxbc2spv::fuzzing::assemble`): never panics, and what it
//! accepts decodes and round-trips. Seeds are listings (the corpus's `.asm` files and
//! `fixtures/in/`); the token-aware text mutator of `dxbc2spv::fuzzing` does most mutations.
#![no_main]

use dxbc2spv::fuzzing::{assemble, mutate_text, Rng};
use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};

fuzz_target!(|data: &[u8]| assemble(data));

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let mut rng = Rng::new(u64::from(seed));
    let size = size.min(data.len());
    let Ok(text) = std::str::from_utf8(&data[..size]) else {
        return fuzzer_mutate(data, size, max_size.min(data.len()));
    };
    if rng.percent(10) {
        return fuzzer_mutate(data, size, max_size.min(data.len()));
    }
    let mut text = text.to_owned();
    for _ in 0..1 + rng.below(3) {
        mutate_text(&mut rng, &mut text);
    }
    // Cut at a character boundary so that the stored input stays UTF-8.
    let mut len = text.len().min(max_size).min(data.len());
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    data[..len].copy_from_slice(&text.as_bytes()[..len]);
    len
});
