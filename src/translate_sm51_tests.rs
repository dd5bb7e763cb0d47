//! End-to-end translation tests over the real corpus for Shader Model 5.1: every SM5.1 blob, of
//! every stage, translates and passes `spirv-val` with the command line's default bindings
//! ([`Bindings::Auto`]), and with mappings derived from its own declarations, the way a D3D12
//! runtime builds them from reflection: one binding per range, and every range of a kind
//! packed into one binding at consecutive array offsets (several ranges sharing a binding).

use std::collections::BTreeMap;

use crate::bindings::{Bindings, Count, TableBindings, TableEntry};
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::front::dxbc::lower;
use crate::spv::tests::tools;
use crate::test_support::corpus_blobs;
use crate::text::dxbc::disasm::shader_program;
use crate::translate_tests::own_bindings;
use crate::{translate, Error, Options, Target};

/// The SM5.1 blobs of the corpus.
fn sm51_blobs() -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let opts = ParseOptions {
        verify_checksum: false,
    };
    corpus_blobs()
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            let sm51 = Container::parse(&bytes, &opts)
                .ok()
                .and_then(|c| shader_program(&c).ok().map(|p| p.version.is_sm51()))?;
            sm51.then_some((path, bytes))
        })
        .collect()
}

/// Every range of a kind in one binding (set 0, binding = kind), bounded ranges at consecutive
/// array offsets; an unbounded range gets a binding of its own past the kinds' (it must end its
/// array).
fn packed_bindings(bytes: &[u8]) -> Option<Bindings> {
    let opts = ParseOptions {
        verify_checksum: false,
    };
    let container = Container::parse(bytes, &opts).ok()?;
    let module = lower::lower(&shader_program(&container).ok()?).ok()?;
    let ranges = module.register_ranges();
    let mut next: BTreeMap<u32, u32> = BTreeMap::new();
    let mut spare = 16;
    let mut entries = Vec::new();
    for range in ranges {
        match range.count {
            Count::Bounded(n) => {
                let offset = next.entry(range.kind.index()).or_insert(0);
                entries.push(TableEntry::new(range, 0, range.kind.index(), *offset));
                *offset += n;
            }
            Count::Unbounded => {
                entries.push(TableEntry::new(range, 0, spare, 0));
                spare += 1;
            }
        }
    }
    TableBindings::new(entries, Vec::new())
        .ok()
        .map(Bindings::Table)
}

#[test]
fn corpus_sm51_shaders_translate_and_validate_with_their_own_ranges() {
    let blobs = sm51_blobs();
    if blobs.is_empty() {
        eprintln!("no SM5.1 shaders found (corpus absent?); test did not run");
        return;
    }
    // DXBC2SPV_CORPUS_TARGET=vulkan1.0|vulkan1.3 checks another target (default vulkan1.1).
    let target = std::env::var("DXBC2SPV_CORPUS_TARGET")
        .ok()
        .and_then(|t| Target::from_name(&t))
        .unwrap_or(Target::Vulkan1_1);
    let mut failures = Vec::new();
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (path, bytes) in &blobs {
        for (how, bindings) in [
            // The command line's default.
            ("auto (the default)", Some(Bindings::Auto)),
            ("one binding per range", own_bindings(bytes)),
            ("ranges packed per kind", packed_bindings(bytes)),
        ] {
            let Some(bindings) = bindings else {
                failures.push(format!("{}: {how}: no mapping", path.display()));
                continue;
            };
            let options = Options {
                bindings,
                target,
                ..Options::default().with_flag(crate::OptionFlags::VERIFY_CHECKSUM, false)
            };
            let entry = counts.entry(how).or_default();
            match translate(bytes, &options) {
                Ok(t) => match tools::validation_error(&t.spirv, target.name()) {
                    None => entry.0 += 1,
                    Some(why) => failures.push(format!("{}: {how}: {why}", path.display())),
                },
                // Class linkage and `abort` have no Vulkan equivalent (counted, not failed).
                Err(Error::Unsupported(e))
                    if e.what.contains("class linkage") || e.what == "abort" =>
                {
                    entry.1 += 1
                }
                Err(e) => failures.push(format!("{}: {how}: {e}", path.display())),
            }
        }
    }
    for (how, (valid, unsupported)) in &counts {
        eprintln!(
            "SM5.1 shaders, {how}: {} in the corpus, {valid} translated and valid, {unsupported} \
             unsupported",
            blobs.len()
        );
    }
    for f in failures.iter().take(20) {
        eprintln!("  FAILED {f}");
    }
    assert!(failures.is_empty(), "{} SM5.1 failures", failures.len());
}
