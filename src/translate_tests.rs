//! End-to-end translation tests over the real corpus: every compute shader translates and the
//! result passes `spirv-val`, or the translator names the later-issue feature it lacks.

use std::collections::BTreeMap;

use crate::bindings::{Bindings, TableBindings};
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::front::dxbc::lower;
use crate::front::dxbc::Stage;
use crate::spv::tests::tools;
use crate::test_support::corpus_blobs;
use crate::text::dxbc::disasm::shader_program;
use crate::{translate, Error, Options, Target};

/// A binding map with one binding per declared range (and per possible UAV counter), in set 0:
/// what a D3D12-style runtime derives from the shader's own reflection (tests of tables).
pub(crate) fn own_bindings(bytes: &[u8]) -> Option<Bindings> {
    let opts = ParseOptions {
        verify_checksum: false,
    };
    let container = Container::parse(bytes, &opts).ok()?;
    let module = lower::lower(&shader_program(&container).ok()?).ok()?;
    let ranges = module.register_ranges();
    TableBindings::one_binding_per_range(0, ranges)
        .ok()
        .map(Bindings::Table)
}

/// Translates with `options` as the command line does: with its default bindings
/// ([`Bindings::Auto`]: the embedded root signature, else set = register space), no per-test
/// table.
pub(crate) fn translate_bound(
    bytes: &[u8],
    options: &Options,
) -> Result<crate::Translation, Error> {
    debug_assert_eq!(options.bindings, Bindings::Auto);
    translate(bytes, options)
}

/// The corpus blobs whose program is a compute shader.
fn compute_blobs() -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for path in corpus_blobs() {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let opts = ParseOptions {
            verify_checksum: false,
        };
        let is_compute = Container::parse(&bytes, &opts)
            .ok()
            .and_then(|c| shader_program(&c).ok().map(|p| p.version.stage))
            == Some(Stage::Compute);
        if is_compute {
            out.push((path, bytes));
        }
    }
    out
}

#[test]
fn corpus_compute_shaders_translate_and_validate() {
    let blobs = compute_blobs();
    if blobs.is_empty() {
        eprintln!("no compute shaders found (corpus absent?); test did not run");
        return;
    }
    let target = Target::Vulkan1_1;
    let options = Options {
        target,
        ..Options::default()
    };
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut valid = 0usize;
    for (path, bytes) in &blobs {
        let result = translate_bound(bytes, &options);
        match result {
            Ok(t) => match tools::is_valid(&t.spirv, target.name()) {
                Some(true) => valid += 1,
                Some(false) => failures.push(format!("{}: spirv-val rejected it", path.display())),
                None => {}
            },
            Err(Error::Unsupported(e)) => {
                *unsupported.entry(e.what).or_default() += 1;
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "compute shaders: {} in the corpus, {valid} translated and valid ({}), {} unsupported",
        blobs.len(),
        target.name(),
        unsupported.values().sum::<usize>()
    );
    for (feature, n) in &unsupported {
        eprintln!("  unsupported: {n} × {feature}");
    }
    // Nothing a compute shader of the corpus uses may be unsupported.
    for feature in unsupported.keys() {
        failures.push(format!("unsupported feature: {feature}"));
    }
    for f in failures.iter().take(20) {
        eprintln!("  FAILED {f}");
    }
    assert!(
        failures.is_empty(),
        "{} compute shaders failed",
        failures.len()
    );
}
