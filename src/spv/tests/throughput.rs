//! MEASUREMENT, NOT A TEST: how fast the writer produces words. `#[ignore]`d; run by hand with
//!
//! ```text
//! cargo test --release --lib spv::tests::throughput -- --ignored --nocapture
//! ```
//!
//! and see `docs/spirv-writer.md` for the figures measured.

use std::hint::black_box;
use std::time::Instant;

use super::modules::compute_module;
use super::unit::instructions;
use crate::spv::{Module, Version};

fn measure(names: bool, reuse: bool) {
    let mut m = Module::new(Version::V1_3);
    let mut out = Vec::new();
    let run = |m: &mut Module, out: &mut Vec<u32>| {
        if reuse {
            m.clear(Version::V1_3);
        } else {
            *m = Module::new(Version::V1_3);
            *out = Vec::new();
        }
        m.set_emit_names(names);
        compute_module(m);
        out.clear();
        m.write_into(out).expect("valid module");
        black_box(&*out);
    };
    for _ in 0..1_000 {
        run(&mut m, &mut out);
    }
    let words = out.len();
    let insts = instructions(&out).len();
    // The best of several rounds: the machine is shared, and the minimum is the least noisy.
    let iterations = 5_000u32;
    let mut per_module = f64::INFINITY;
    for _ in 0..10 {
        let start = Instant::now();
        for _ in 0..iterations {
            run(&mut m, &mut out);
        }
        let t = start.elapsed().as_secs_f64() * 1e6 / f64::from(iterations);
        per_module = per_module.min(t);
    }
    println!(
        "names {names}, Module reused {reuse}: {words} words, {insts} instructions per module; \
         {per_module:.3} µs per module (build + finish, best of 10 rounds); {:.0} words/µs, {:.0} instructions/µs",
        words as f64 / per_module,
        insts as f64 / per_module,
    );
}

#[test]
#[ignore = "measurement, run by hand with --release -- --ignored --nocapture"]
fn writer_throughput() {
    measure(true, true);
    measure(false, true);
    measure(true, false);
}
