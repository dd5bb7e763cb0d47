//! A fixed seed range of the differential run (`vk-tests differential`): generated compute
//! programs whose result D3D defines (`dxbc2spv::fuzzing::generate::Profile::Defined`), run on
//! the reference interpreter and, translated, on the Vulkan device; any difference fails.
//! Skipped without a device.

use vk_tests::conformance::{default_translator, Case, Outcome, Runner};
use vk_tests::gpu_or_skip;
use vk_tests::oracle::differential::{generate_case, Generated};
use vk_tests::watchdog::Watchdog;

/// The seeds run (50 programs; about half a minute on lavapipe in a release build).
const SEEDS: std::ops::Range<u64> = 1000..1050;

#[test]
fn generated_programs_agree_with_the_oracle() {
    let gpu = match gpu_or_skip() {
        Ok(Some(gpu)) => gpu,
        Ok(None) => return, // skip printed by gpu_or_skip
        Err(e) => panic!("{e:#}"),
    };
    eprintln!("device: {}", gpu.info());
    let denormals_kept = !gpu.features().supports("shaderDenormFlushToZeroFloat32");
    let dir =
        std::env::temp_dir().join(format!("dxbc2spv-differential-test-{}", std::process::id()));
    let mut runner =
        Runner::new(gpu, None, default_translator()).with_watchdog(Watchdog::from_env());
    let (mut compared, mut failed) = (0, Vec::new());
    for seed in SEEDS {
        let path = match generate_case(seed, &dir, denormals_kept) {
            Ok(Generated::Case(path)) => path,
            Ok(Generated::Skip(why)) => {
                eprintln!("SKIP seed {seed}: {why}");
                continue;
            }
            Err(e) => panic!("seed {seed}: {e}"),
        };
        let case = Case::load(&path).unwrap_or_else(|e| panic!("{e:#}"));
        // A case the device cannot run is not compared (and counts against the minimum).
        match runner.run_case(&case) {
            Outcome::Pass { .. } => compared += 1,
            Outcome::Skip(why) => eprintln!("SKIP seed {seed}: device: {why}"),
            Outcome::Fail(why) => {
                compared += 1;
                eprintln!("MISMATCH seed {seed} ({}): {why}", path.display());
                failed.push(seed);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "differential: {compared} compared, {} mismatches",
        failed.len()
    );
    assert!(compared > 40, "only {compared} of the seeds made a program");
    assert!(
        failed.is_empty(),
        "seeds whose device result differs: {failed:?}"
    );
}
