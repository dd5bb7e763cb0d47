//! `write_rdef(parse(RDEF))` over the corpus: fxc's `RDEF` bytes rewritten byte for byte, and no
//! information lost where the layout differs.

use super::{name, Reasons, LAX};
use crate::front::dxbc::container::{Container, FourCc};
use crate::front::dxbc::rdef::ResourceDefinitions;
use crate::test_support;
use crate::text::dxbc::encode::write_rdef;

/// Offset of the first differing byte and the RDEF field it falls in (roughly).
fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

#[test]
fn rdef_writer_round_trips_corpus() {
    let mut total = 0usize;
    let mut exact = 0usize;
    let mut reasons = Reasons::default();
    for path in test_support::corpus_blobs() {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(container) = Container::parse(&bytes, &LAX) else {
            continue;
        };
        let Some(chunk) = container.chunk(&FourCc::RDEF.0) else {
            continue;
        };
        let Ok(rdef) = ResourceDefinitions::parse(chunk) else {
            continue;
        };
        total += 1;
        let written = match write_rdef(&rdef) {
            Ok(w) => w,
            Err(e) => {
                reasons.add(format!("error: {e}"), &path);
                continue;
            }
        };
        let back = ResourceDefinitions::parse(&crate::front::dxbc::container::Chunk {
            fourcc: FourCc::RDEF,
            offset: 0,
            data: &written,
        });
        let same_structure = back
            .as_ref()
            .is_ok_and(|b| rdef_equal_ignoring_offsets(b, &rdef));
        if written == chunk.data {
            exact += 1;
        } else if !same_structure {
            reasons.add("structure differs after rewriting", &path);
        } else {
            let at = first_difference(&written, chunk.data);
            let what = if written.len() != chunk.data.len() {
                "length"
            } else {
                "bytes"
            };
            reasons.add(
                format!(
                    "{what} (first difference in {})",
                    region(&rdef, chunk.data, at)
                ),
                &path,
            );
            if std::env::var("SHOW_ALL").is_ok() {
                eprintln!("RDEF differs: {}", name(&path));
            }
        }
    }
    if total == 0 {
        return;
    }
    let rate = 100.0 * exact as f64 / total as f64;
    eprintln!("RDEF rewritten byte for byte: {exact}/{total} ({rate:.2}%)");
    reasons.print(12);
    // Floor reached (99.15%): the rest use typedefs or interfaces, or come from other tools.
    assert!(rate >= 99.0, "RDEF rewrite rate {rate:.2}% below 99%");
    assert!(
        !reasons
            .0
            .keys()
            .any(|k| k.starts_with("structure") || k.starts_with("error")),
        "write_rdef lost information"
    );
}

/// Equality of two parsed RDEFs, except the interface-pointer words that hold chunk offsets.
fn rdef_equal_ignoring_offsets(a: &ResourceDefinitions<'_>, b: &ResourceDefinitions<'_>) -> bool {
    fn strip<'a>(r: &ResourceDefinitions<'a>) -> ResourceDefinitions<'a> {
        let mut r = r.clone();
        for cb in &mut r.constant_buffers {
            for v in &mut cb.variables {
                strip_type(&mut v.ty);
            }
        }
        r
    }
    strip(a) == strip(b)
}

fn strip_type(t: &mut crate::front::dxbc::rdef::Type<'_>) {
    t.sm5_extra = [0; 4];
    for m in &mut t.members {
        strip_type(&mut m.ty);
    }
}

/// Which part of an fxc RDEF byte `at` lies in: header, binding table, constant-buffer table,
/// or the variable/type/string area.
fn region(rdef: &ResourceDefinitions<'_>, data: &[u8], at: usize) -> &'static str {
    let word = |o: usize| {
        data.get(o..o + 4)
            .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])) as usize
    };
    let (cb_offset, binding_offset) = (word(4), word(12));
    let header = if rdef.rd11.is_some() { 60 } else { 28 };
    if at < header {
        "header"
    } else if binding_offset != 0
        && at >= binding_offset
        && at < binding_offset + 40 * rdef.bindings.len()
    {
        "bindings"
    } else if cb_offset != 0 && at >= cb_offset && at < cb_offset + 24 * rdef.constant_buffers.len()
    {
        "constant buffers"
    } else {
        "variables, types or strings"
    }
}
