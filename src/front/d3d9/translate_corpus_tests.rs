//! Translation against the D3D9 corpus: every standalone stream and every level-9 part of a
//! DXBC container translates with default parameters, and `spirv-val` accepts the result; so
//! does every standalone stream with the sampler-related pipeline state given at run time.
//!
//! The counts are reported by error message (the profile and register numbers stripped), so a
//! run shows which gap blocks how many shaders. The only failures allowed are the corpus's
//! invalid programs listed in [`INVALID`], each with the D3D9 rule it breaks, and the features
//! in [`PENDING`] that another part of the work is adding; any other error, and any program
//! listed as invalid that translates, fails the test.

use std::collections::BTreeMap;

use super::corpus_tests::{index_rows, level9_program};
use crate::spv::tests::tools;
use crate::test_support;
use crate::{translate, Error, Options, Target};

/// Corpus streams that break a D3D9 rule (Wine's assembler tests feed them on purpose), by file
/// prefix: (file, the rule, a fragment of the expected message).
const INVALID: &[(&str, &str, &str)] = &[
    (
        "wine/d3dcompiler_43.asm.vs_2_0_test.tests_29.d3d9",
        "`call` names a label the program defines (no `label l2047` here)",
        "call to l2047, which is not defined",
    ),
    (
        "wine/d3dcompiler_43.asm.ps_3_0_test.tests_9.d3d9",
        "`texldd`'s second source is a sampler `s#` (here `r2`)",
        "second source is not a sampler",
    ),
];

/// Unsupported features another part of the D3D9 work is adding, by a fragment of the message:
/// counted and printed, not failed. Remove a row when its feature lands.
const PENDING: &[(&str, &str)] = &[];

/// `message` with its digits replaced, so messages differing only in numbers count together.
fn generic(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut digits = false;
    for c in message.chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push('#');
            }
            digits = true;
        } else {
            digits = false;
            out.push(c);
        }
    }
    out
}

/// The message of an error without its location, generalised.
fn message(e: &Error) -> String {
    let kind = format!("{:?}", e.kind());
    let what = match e {
        Error::Invalid(l) | Error::Unsupported(l) | Error::Internal(l) => l.what.clone(),
        other => other.to_string(),
    };
    format!("{kind}: {}", generic(&what).replace("D#D#", "D3D9"))
}

#[test]
fn every_corpus_stream_translates_and_validates() {
    let Some(dir) = test_support::corpus_d3d9_dir() else {
        return;
    };
    let target = Target::Vulkan1_1;
    let options = Options {
        target,
        ..Options::default()
    };
    let rows = index_rows(&dir);
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut pending: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    let (mut valid, mut expected_invalid, mut unchecked) = (0usize, 0usize, 0usize);
    for (file, origin, chunk) in &rows {
        let Ok(bytes) = std::fs::read(dir.join(file)) else {
            failures.push(format!("{file}: unreadable"));
            continue;
        };
        let stream = if origin == "aon9" {
            match level9_program(&bytes, chunk) {
                Some((stream, _)) => stream,
                None => {
                    failures.push(format!("{file}: no {chunk} program"));
                    continue;
                }
            }
        } else {
            bytes
        };
        let invalid = INVALID.iter().find(|(f, _, _)| file == f);
        match translate(&stream, &options) {
            Ok(t) => {
                if invalid.is_some() {
                    failures.push(format!("{file}: invalid, but translated"));
                }
                match tools::is_valid(&t.spirv, target.name()) {
                    Some(true) => valid += 1,
                    None => unchecked += 1,
                    Some(false) => {
                        let e = tools::validation_error(&t.spirv, target.name());
                        failures.push(format!("{file}: spirv-val: {}", e.unwrap_or_default()));
                    }
                }
            }
            Err(e) => match invalid {
                Some((_, _, expected)) if e.to_string().contains(expected) => expected_invalid += 1,
                _ if matches!(e, Error::Unsupported(_))
                    && PENDING.iter().any(|(m, _)| e.to_string().contains(m)) =>
                {
                    pending
                        .entry(message(&e))
                        .or_default()
                        .push(format!("{file}: {e}"));
                }
                _ => {
                    errors
                        .entry(message(&e))
                        .or_default()
                        .push(format!("{file}: {e}"));
                }
            },
        }
    }
    eprintln!(
        "D3D9 corpus: {} programs, {valid} translated and valid ({}), {expected_invalid} \
         invalid as listed, {} pending (listed features), {unchecked} not validated (no \
         spirv-val), {} failed",
        rows.len(),
        target.name(),
        pending.values().map(Vec::len).sum::<usize>(),
        errors.values().map(Vec::len).sum::<usize>() + failures.len()
    );
    for (msg, files) in &pending {
        eprintln!("  {:5} × pending: {msg}", files.len());
    }
    let mut by_count: Vec<_> = errors.iter().collect();
    by_count.sort_by_key(|(_, files)| std::cmp::Reverse(files.len()));
    for (msg, files) in &by_count {
        eprintln!("  {:5} × {msg}", files.len());
        for f in files.iter().take(2) {
            eprintln!("          e.g. {f}");
        }
    }
    for f in failures.iter().take(20) {
        eprintln!("  FAILED {f}");
    }
    assert!(
        errors.is_empty() && failures.is_empty(),
        "{} D3D9 corpus programs failed to translate or validate",
        errors.values().map(Vec::len).sum::<usize>() + failures.len()
    );
}

/// Every standalone stream of the corpus with the sampler state, the bump environment and the
/// projected stages given at run time (specialization and push constants: every bit tested in
/// the module), Fetch4, depth-compare and null samplers, and software vertex processing, with
/// the undeclared samplers' types 2-D, cube, and chosen at run time (a specialization constant
/// for pixel samplers and a push constant for vertex samplers, and the other way round):
/// translates (the programs [`INVALID`] lists excepted) and `spirv-val` accepts the result.
#[test]
fn every_corpus_stream_translates_with_runtime_sampler_state() {
    use crate::d3d9_state::{BumpEnv, D3d9State, StateValue};
    let Some(dir) = test_support::corpus_d3d9_dir() else {
        return;
    };
    let target = Target::Vulkan1_1;
    let mut state = D3d9State {
        depth_compare: StateValue::Spec {
            id: 1,
            default: 0x5,
        },
        projected: StateValue::Push { offset: 0 },
        fetch4: StateValue::Push { offset: 4 },
        null_samplers: StateValue::Spec {
            id: 2,
            default: 0x1_0002,
        },
        software_vertex_processing: true,
        ..D3d9State::default()
    };
    for (s, env) in state.bump_env.iter_mut().enumerate() {
        *env = BumpEnv {
            matrix: StateValue::Push {
                offset: 16 + 16 * s as u32,
            },
            luminance_scale: StateValue::Spec {
                id: 10 + 2 * s as u32,
                default: 1.0,
            },
            luminance_offset: StateValue::Immediate(0.5),
        };
    }
    let cube = D3d9State {
        sampler_types: StateValue::Immediate(0x5555_5555),
        vertex_sampler_types: StateValue::Immediate(0x55),
        ..state
    };
    // The undeclared samplers' types as a specialization constant (pixel) and a push constant
    // (vertex), then the other way round: every undeclared sampler has a view per type.
    let spec_types = D3d9State {
        sampler_types: StateValue::Spec {
            id: 30,
            default: 0x9,
        },
        vertex_sampler_types: StateValue::Push { offset: 8 },
        ..state
    };
    let push_types = D3d9State {
        sampler_types: StateValue::Push { offset: 8 },
        vertex_sampler_types: StateValue::Spec {
            id: 31,
            default: 0x6,
        },
        ..state
    };
    let mut failures = Vec::new();
    let mut valid = 0usize;
    let rows = index_rows(&dir);
    for (state, (file, origin, _)) in [state, cube, spec_types, push_types]
        .into_iter()
        .flat_map(|s| rows.iter().map(move |r| (s, r)))
    {
        if origin == "aon9" || INVALID.iter().any(|(f, _, _)| file == f) {
            continue;
        }
        let Ok(bytes) = std::fs::read(dir.join(file)) else {
            failures.push(format!("{file}: unreadable"));
            continue;
        };
        let options = Options {
            target,
            d3d9_state: state,
            ..Options::default()
        };
        match translate(&bytes, &options) {
            Ok(t) => match tools::is_valid(&t.spirv, target.name()) {
                Some(false) => {
                    let e = tools::validation_error(&t.spirv, target.name());
                    failures.push(format!("{file}: spirv-val: {}", e.unwrap_or_default()));
                }
                _ => valid += 1,
            },
            Err(e) => failures.push(format!("{file}: {e}")),
        }
    }
    eprintln!("D3D9 corpus with runtime sampler state: {valid} translated and valid");
    for f in failures.iter().take(20) {
        eprintln!("  FAILED {f}");
    }
    assert!(failures.is_empty(), "{} failed", failures.len());
}
