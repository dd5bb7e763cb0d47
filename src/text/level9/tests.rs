//! The level-9 listing against fxc's level-9 sections in the corpus listings.

use super::write_listing;
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::test_support;

/// fxc's level-9 section of `listing`: from the `//` line before the first level-9 title to
/// the line before the DXBC program's version line.
fn fxc_section(listing: &str) -> Option<Vec<String>> {
    const TITLES: [&str; 4] = [
        "// Constant buffer to DX9 shader constant mappings:",
        "// Sampler/Resource to DX9 shader sampler mappings:",
        "// Runtime generated constant mappings:",
        "// Level9 shader bytecode:",
    ];
    let lines: Vec<&str> = listing.lines().map(str::trim_end).collect();
    let first = lines.iter().position(|l| TITLES.contains(l))?;
    let start = first.checked_sub(1)?;
    let rest = lines.get(start..)?;
    let end = rest
        .iter()
        .position(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()))
        .unwrap_or(rest.len());
    Some(normalize(rest.get(..end)?.iter().copied()))
}

/// Lines without the debug annotations fxc adds for programs compiled with debug information
/// (`#line` directives, trailing `// name<components>` comments) and without empty lines.
fn normalize<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<String> {
    lines
        .filter(|l| !l.trim().is_empty() && !l.starts_with("#line"))
        .map(
            |l| match l.starts_with("    ").then(|| l.find("  //")).flatten() {
                Some(i) => l[..i].trim_end().to_string(),
                None => l.trim_end().to_string(),
            },
        )
        .collect()
}

#[test]
fn level9_sections_match_fxc() {
    let blobs = test_support::corpus_blobs();
    if blobs.is_empty() {
        return;
    }
    let lax = ParseOptions {
        verify_checksum: false,
    };
    let (mut listings, mut matched) = (0, 0);
    let mut failures = Vec::new();
    for path in &blobs {
        let Ok(text) = std::fs::read_to_string(path.with_extension("asm")) else {
            continue;
        };
        let Some(expected) = fxc_section(&text) else {
            continue;
        };
        listings += 1;
        let name = path.display();
        let Ok(bytes) = std::fs::read(path) else {
            failures.push(format!("{name}: unreadable"));
            continue;
        };
        let Some(Ok(l9)) = Container::parse(&bytes, &lax).ok().and_then(|c| c.level9()) else {
            failures.push(format!("{name}: no level-9 part"));
            continue;
        };
        let mut ours = String::new();
        if let Err(e) = write_listing(&mut ours, &l9) {
            failures.push(format!("{name}: {e}"));
            continue;
        }
        let ours = normalize(ours.lines());
        if ours == expected {
            matched += 1;
        } else {
            let at = expected
                .iter()
                .zip(&ours)
                .position(|(e, o)| e != o)
                .unwrap_or(expected.len().min(ours.len()));
            failures.push(format!(
                "{name}: line {at}: fxc {:?}, ours {:?}",
                expected.get(at),
                ours.get(at)
            ));
        }
    }
    println!("level-9 listings: {matched}/{listings} sections equal fxc's");
    assert!(
        listings > 0,
        "no fxc listing with a level-9 section in the corpus"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
