//! The corpus: every listing's header parses, and signature chunks built from each fxc listing's
//! tables match the blob's byte for byte.

use super::{listings, name, program_words, Reasons, LAX, SIGNATURES};
use crate::front::dxbc::container::{Container, FourCc};
use crate::front::dxbc::signature::Signature;
use crate::test_support;
use crate::text::dxbc::asm::chunks::build_chunks;
use crate::text::dxbc::asm::header::parse_header;

/// Why two signature chunks differ: the first differing element field, or the layout.
fn signature_difference(fourcc: FourCc, ours: &[u8], theirs: &[u8]) -> String {
    let parse = |data| {
        Signature::parse(&crate::front::dxbc::container::Chunk {
            fourcc,
            offset: 0,
            data,
        })
    };
    let (Ok(a), Ok(b)) = (parse(ours), parse(theirs)) else {
        return format!("{fourcc}: unparsable");
    };
    if a.elements.len() != b.elements.len() {
        return format!("{fourcc}: element count");
    }
    for (x, y) in a.elements.iter().zip(&b.elements) {
        let field = if x.name != y.name {
            "name"
        } else if x.semantic_index != y.semantic_index {
            "semantic index"
        } else if x.system_value != y.system_value {
            "system value"
        } else if x.component_type != y.component_type {
            "component type"
        } else if x.register != y.register {
            "register"
        } else if x.mask != y.mask {
            "mask"
        } else if x.rw_mask != y.rw_mask {
            "rw mask"
        } else if x.stream != y.stream {
            "stream"
        } else if x.min_precision != y.min_precision {
            "min precision"
        } else {
            continue;
        };
        return format!("{fourcc}: {field}");
    }
    format!("{fourcc}: bytes (string table or padding)")
}

#[test]
fn signature_chunks_match_fxc() {
    let mut total = 0usize;
    let mut matched = 0usize;
    let mut chunks_total = 0usize;
    let mut chunks_matched = 0usize;
    let mut reasons = Reasons::default();
    let mut rdef_presence = Reasons::default();
    for (path, listing, bytes) in listings() {
        let Ok(container) = Container::parse(&bytes, &LAX) else {
            continue;
        };
        let Some(words) = program_words(&container) else {
            continue;
        };
        total += 1;
        let header = match parse_header(&listing) {
            Ok(h) => h,
            Err(e) => {
                reasons.add(format!("header error: {}", e.message), &path);
                continue;
            }
        };
        let ours = match build_chunks(&header, &words) {
            Ok(c) => c,
            Err(e) => {
                reasons.add(format!("build error: {}", e.message), &path);
                continue;
            }
        };
        let theirs: Vec<_> = container
            .chunks
            .iter()
            .filter(|c| SIGNATURES.contains(&c.fourcc))
            .collect();
        let our_sigs: Vec<_> = ours
            .iter()
            .filter(|(c, _)| SIGNATURES.contains(c))
            .collect();
        let blob_rdef = container.chunk(&FourCc::RDEF.0).is_some();
        if blob_rdef != ours.iter().any(|c| c.0 == FourCc::RDEF) {
            rdef_presence.add(format!("RDEF in the blob: {blob_rdef}"), &path);
        }
        let mut ok = true;
        let their_codes: Vec<FourCc> = theirs.iter().map(|c| c.fourcc).collect();
        let our_codes: Vec<FourCc> = our_sigs.iter().map(|c| c.0).collect();
        if their_codes != our_codes {
            ok = false;
            reasons.add(
                format!("chunks {their_codes:?} built as {our_codes:?}"),
                &path,
            );
        }
        for chunk in &theirs {
            chunks_total += 1;
            match our_sigs.iter().find(|(c, _)| *c == chunk.fourcc) {
                Some((_, data)) if data[..] == *chunk.data => chunks_matched += 1,
                Some((_, data)) => {
                    if ok {
                        reasons.add(signature_difference(chunk.fourcc, data, chunk.data), &path);
                    }
                    ok = false;
                }
                None => ok = false,
            }
        }
        if ok {
            matched += 1;
        }
    }
    if total == 0 {
        return;
    }
    let rate = 100.0 * matched as f64 / total as f64;
    eprintln!(
        "signature chunks from fxc listings: {matched}/{total} files ({rate:.2}%), \
         {chunks_matched}/{chunks_total} chunks byte for byte"
    );
    reasons.print(12);
    eprintln!("  RDEF built where the blob has none, or the reverse:");
    rdef_presence.print(12);
    // Floor reached: every fxc listing of the corpus rebuilds its blob's signature chunks.
    assert_eq!(matched, total, "signature chunks differ from fxc's");
    assert!(rdef_presence.0.is_empty(), "RDEF presence mispredicted");
}

/// Every listing beside a corpus blob (fxc's and the hand-written Wine ones) and every fixture
/// listing has a header this parser accepts.
#[test]
fn every_listing_header_parses() {
    let mut texts: Vec<(String, String)> = test_support::corpus_blobs()
        .iter()
        .filter_map(|p| Some((name(p), test_support::asm_listing(p)?)))
        .collect();
    if let Ok(dir) = std::fs::read_dir(test_support::fixtures_dir().join("samples")) {
        for entry in dir.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "asm") {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    texts.push((path.display().to_string(), text));
                }
            }
        }
    }
    let failures: Vec<String> = texts
        .iter()
        .filter_map(|(n, t)| parse_header(t).err().map(|e| format!("{n}:{e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
