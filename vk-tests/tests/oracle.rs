//! The reference interpreter (`vk_tests::oracle`) against every compute conformance case: it
//! must agree with each case's expected values (worked out by hand from D3D's rules), or say
//! which feature it does not model. Needs no Vulkan device.

use std::collections::BTreeMap;
use std::path::Path;

use vk_tests::conformance::{discover, Case};
use vk_tests::oracle::{check_case, Verdict};

#[test]
fn oracle_agrees_with_the_compute_conformance_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/conformance");
    let files = discover(&root).unwrap_or_else(|e| panic!("{e:#}"));
    let (mut agree, mut unsupported, mut disagree) = (0usize, BTreeMap::new(), Vec::new());
    for file in &files {
        let case = Case::load(&file.path).unwrap_or_else(|e| panic!("{e:#}"));
        if case.draw().is_some() {
            continue;
        }
        match check_case(&case) {
            Verdict::Agree => agree += 1,
            Verdict::Unsupported(why) => {
                eprintln!("UNSUPPORTED {}: {why}", file.name);
                *unsupported.entry(why).or_insert(0usize) += 1;
            }
            Verdict::Disagree(msgs) => {
                eprintln!("DISAGREE {}: {}", file.name, msgs.join("; "));
                disagree.push(file.name.clone());
            }
        }
    }
    let reasons: Vec<String> = unsupported
        .iter()
        .map(|(why, n)| format!("{n}× {why}"))
        .collect();
    let total: usize = unsupported.values().sum();
    println!(
        "oracle: {agree} cases agree, {total} unsupported ({}), {} disagree",
        reasons.join(", "),
        disagree.len()
    );
    assert!(agree > 0, "no case ran");
    assert!(disagree.is_empty(), "cases that disagree: {disagree:?}");
}
