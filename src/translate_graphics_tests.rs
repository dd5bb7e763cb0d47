//! End-to-end translation tests over the real corpus for the graphics stages: every vertex,
//! pixel, geometry, hull and domain shader translates and passes `spirv-val`, or the translator refuses it with
//! a typed `Unsupported` naming a feature from a short known list (counted separately).

use std::collections::BTreeMap;

use crate::front::dxbc::container::{Container, ParseOptions};
use crate::front::dxbc::Stage;
use crate::spv::tests::tools;
use crate::test_support::corpus_blobs;
use crate::text::dxbc::disasm::shader_program;
use crate::translate_tests::translate_bound;
use crate::{Error, HullSchedule, Options, Target};

/// The corpus blobs whose program is one of `stages`.
fn blobs_of(stages: &[Stage]) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let opts = ParseOptions {
        verify_checksum: false,
    };
    corpus_blobs()
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            let stage = Container::parse(&bytes, &opts)
                .ok()
                .and_then(|c| shader_program(&c).ok().map(|p| p.version.stage))?;
            stages.contains(&stage).then_some((path, bytes))
        })
        .collect()
}

/// Features that may be refused (counted separately): `abort` (a D3D11.1 debugging
/// instruction with no Vulkan equivalent). Anything else unsupported is a failure, so a
/// regression cannot hide here (class-linkage shaders translate).
fn may_be_unsupported(feature: &str) -> bool {
    feature == "abort"
}

#[test]
fn corpus_graphics_shaders_translate_and_validate() {
    check_corpus(
        &[Stage::Vertex, Stage::Pixel, Stage::Geometry],
        "vertex/pixel/geometry",
        &Options::default(),
    );
}

/// Hull and domain shaders, hull shaders under both schedules.
#[test]
fn corpus_tessellation_shaders_translate_and_validate() {
    for schedule in [HullSchedule::Serial, HullSchedule::Parallel] {
        let options = Options {
            hull_schedule: schedule,
            ..Options::default()
        };
        check_corpus(&[Stage::Hull, Stage::Domain], "hull/domain", &options);
    }
}

/// Translates every corpus blob of `stages` with `base` (target from
/// `DXBC2SPV_CORPUS_TARGET=vulkan1.0|vulkan1.3`, default vulkan1.1) and checks the result with
/// `spirv-val`; reports counts and the commonest failures.
fn check_corpus(stages: &[Stage], label: &str, base: &Options) {
    let blobs = blobs_of(stages);
    if blobs.is_empty() {
        eprintln!("no {label} shaders found (corpus absent?); test did not run");
        return;
    }
    let target = std::env::var("DXBC2SPV_CORPUS_TARGET")
        .ok()
        .and_then(|t| Target::from_name(&t))
        .unwrap_or(Target::Vulkan1_1);
    let options = Options {
        target,
        ..base
            .clone()
            .with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false)
    };
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut reasons: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut reason = |why: String, path: &std::path::Path| {
        let e = reasons
            .entry(why)
            .or_insert((0, path.display().to_string()));
        e.0 += 1;
    };
    let mut valid = 0usize;
    for (path, bytes) in &blobs {
        let result = translate_bound(bytes, &options);
        match result {
            Ok(t) => match tools::validation_error(&t.spirv, target.name()) {
                None => valid += 1,
                Some(why) => {
                    failures.push(format!("{}: spirv-val: {why}", path.display()));
                    reason(format!("spirv-val: {why}"), path);
                }
            },
            Err(Error::Unsupported(e)) => {
                let feature = e.what;
                if !may_be_unsupported(&feature) {
                    failures.push(format!("{}: unsupported {feature}", path.display()));
                    reason(format!("unsupported {feature}"), path);
                }
                *unsupported.entry(feature).or_default() += 1;
            }
            // Inputs of the negative tests of vkd3d: an error is the right answer.
            Err(Error::Invalid { .. }) if path.to_string_lossy().contains("invalid_shaders") => {}
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                let why = e.to_string();
                reason(
                    why.split_once(": ")
                        .map_or(why.clone(), |(_, m)| m.to_owned()),
                    path,
                );
            }
        }
    }
    eprintln!(
        "{label} shaders ({:?}): {} in the corpus, {valid} translated and valid ({}), {} \
         unsupported",
        options.hull_schedule,
        blobs.len(),
        target.name(),
        unsupported.values().sum::<usize>()
    );
    for (feature, n) in &unsupported {
        eprintln!("  unsupported: {n} × {feature}");
    }
    let mut by_count: Vec<_> = reasons.into_iter().collect();
    by_count.sort_by_key(|e| std::cmp::Reverse(e.1 .0));
    for (why, (n, example)) in by_count.iter().take(40) {
        eprintln!("  FAILED {n} × {why} (e.g. {example})");
    }
    assert!(
        failures.is_empty(),
        "{} {label} shaders failed",
        failures.len()
    );
}
