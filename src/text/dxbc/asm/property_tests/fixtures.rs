//! `fixtures/in/`: hand-written shaders of every stage assemble, print as written and
//! reassemble to the same dwords.

use super::{first_difference, listing, to_bytes, LOSSLESS};
use crate::front::dxbc::program::{ShaderVersion, Stage};
use crate::text::dxbc::asm::{assemble, assemble_program};

/// The instruction section of a listing: from the version line on, comments removed,
/// whitespace folded, blank lines dropped.
fn instruction_lines(text: &str) -> Vec<String> {
    let mut started = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let folded = code.split_whitespace().collect::<Vec<_>>().join(" ");
        if folded.is_empty() {
            continue;
        }
        started = started || crate::text::dxbc::asm::program::parse_version(&folded).is_some();
        if started {
            out.push(folded);
        }
    }
    out
}

/// One hand-written shader: assembles, decodes cleanly, prints as written (up to comments and
/// whitespace) and reassembles to the same dwords.
fn check_fixture(path: &std::path::Path) -> Result<ShaderVersion, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let (version, words) = assemble_program(&text).map_err(|e| format!("{name}:{e}"))?;
    let listing = listing(&words, LOSSLESS).map_err(|e| format!("{name}: {e}"))?;
    if listing.contains("unknown(") {
        return Err(format!("{name}: decodes with unknown values:\n{listing}"));
    }
    let (written, printed) = (instruction_lines(&text), instruction_lines(&listing));
    if let Some((i, (a, b))) = written
        .iter()
        .zip(&printed)
        .enumerate()
        .find(|(_, (a, b))| a != b)
    {
        return Err(format!(
            "{name}: instruction line {i} prints differently:\n    written: `{a}`\n    printed: `{b}`"
        ));
    }
    if written.len() != printed.len() {
        return Err(format!(
            "{name}: {} lines written, {} printed",
            written.len(),
            printed.len()
        ));
    }
    let (_, again) = assemble_program(&listing).map_err(|e| format!("{name}: listing: {e}"))?;
    if again != words {
        return Err(format!(
            "{name}: the listing reassembles differently: {}",
            first_difference(&words, &again, LOSSLESS)
        ));
    }
    check_container(&text, &words).map_err(|e| format!("{name}: {e}"))?;
    Ok(version)
}

/// The signature tables of a listing's comment header (title, column heads, rows), trimmed.
fn signature_tables(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_table = false;
    let mut rows = false;
    for line in text.lines().map(str::trim_end) {
        if line.starts_with("// ") && line.ends_with(" signature:") {
            in_table = true;
            rows = false;
        } else if in_table && (line == "//" && rows || !line.starts_with("//")) {
            in_table = false;
        } else if in_table && line.starts_with("// ---") {
            rows = true;
        }
        if in_table && line != "//" {
            out.push(line);
        }
    }
    out
}

/// The whole container (`asm::assemble`) verifies, holds the same program, and its signature
/// chunks print the fixture's tables.
fn check_container(text: &str, words: &[u32]) -> Result<(), String> {
    use crate::front::dxbc::container::{Container, ParseOptions};
    use crate::text::dxbc::disasm::{disassemble, Options};
    let bytes = assemble(text).map_err(|e| format!("container: {e}"))?;
    let container = Container::parse(&bytes, &ParseOptions::default())
        .map_err(|e| format!("container does not verify: {e}"))?;
    let chunk = container
        .shader_chunk()
        .ok_or("container without a program chunk")?;
    if chunk.data != to_bytes(words).as_slice() {
        return Err("the container's program chunk differs from assemble_program's".into());
    }
    let printed = disassemble(&bytes, &Options::default()).map_err(|e| e.to_string())?;
    let (written, printed) = (signature_tables(text), signature_tables(&printed));
    if written != printed {
        return Err(format!(
            "signature tables differ:\n    written: {written:#?}\n    printed: {printed:#?}"
        ));
    }
    Ok(())
}

/// Every `fixtures/in/*.asm` round-trips, and every stage has one.
#[test]
fn fixtures_asm_round_trip() {
    let dir = crate::test_support::fixtures_dir().join("in");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    paths.sort();
    let mut failures = Vec::new();
    let mut stages = Vec::new();
    for path in &paths {
        match check_fixture(path) {
            Ok(v) => stages.push(v),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for stage in [
        Stage::Vertex,
        Stage::Pixel,
        Stage::Geometry,
        Stage::Hull,
        Stage::Domain,
        Stage::Compute,
    ] {
        assert!(
            stages.iter().any(|v| v.stage == stage),
            "no {stage:?} shader in fixtures/in"
        );
    }
    assert!(stages.iter().any(|v| v.is_sm51()), "no SM5.1 shader");
}
