//! Unordered record expectations: a buffer that shaders append records to, with a `u32` record
//! count the shaders incremented (one record per domain-shader invocation, say, whose order and
//! number neither D3D nor Vulkan define: a point may be shaded more than once).
//!
//! The check reads the count, takes that many records from the record area, drops records with
//! identical bits when `distinct` (a point shaded twice), and then either compares the number of
//! records (`record_count`) or matches the records one-to-one, in any order, against the
//! expected set (`records`): a maximum bipartite matching, so that an expected record with a
//! tolerance or a `"*"` cannot take the record another expected record needs.

use std::collections::HashSet;

use anyhow::{anyhow, bail, Context, Result};

use super::value::{format_bits, matches, Element, Pattern, ScalarType, Tolerance};

/// At most this many missing and this many extra records are spelled out in a failure.
const MAX_SHOWN: usize = 4;

/// What the records must be.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordWant {
    /// Exactly these records, in any order (one element per field, typed by the fields).
    Records(Vec<Vec<Element>>),
    /// This many records.
    Count(u64),
}

/// An unordered record expectation on a buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordCheck {
    /// Byte offset of the `u32` record count.
    pub count_offset: u64,
    /// Byte offset of record 0.
    pub offset: u64,
    /// The type of each field of a record; a record is their sizes together.
    pub fields: Vec<ScalarType>,
    /// Records with identical bits count once.
    pub distinct: bool,
    /// The expected records or their number.
    pub want: RecordWant,
    /// Tolerance for float fields.
    pub tolerance: Tolerance,
}

impl RecordCheck {
    /// Bytes per record.
    pub fn record_size(&self) -> usize {
        self.fields.iter().map(|t| t.size()).sum()
    }
}

/// The keys of a record expectation, as read from an `[[expect]]` table.
pub(super) struct RecordKeys<'a> {
    pub(super) count_offset: Option<u64>,
    pub(super) offset: Option<u64>,
    pub(super) record: Option<usize>,
    pub(super) ty: Option<ScalarType>,
    pub(super) types: Option<&'a [ScalarType]>,
    pub(super) distinct: Option<bool>,
    pub(super) records: Option<&'a [Vec<toml::Value>]>,
    pub(super) record_count: Option<u64>,
    pub(super) tolerance: Tolerance,
}

impl RecordKeys<'_> {
    /// True when the expectation checks records (`records` or `record_count`).
    pub(super) fn wanted(&self) -> bool {
        self.records.is_some() || self.record_count.is_some()
    }

    /// True when any key that only records take is given (`type`, `offset` and the tolerance
    /// serve other expectations too).
    pub(super) fn any(&self) -> bool {
        self.wanted()
            || self.count_offset.is_some()
            || self.record.is_some()
            || self.types.is_some()
            || self.distinct.is_some()
    }
}

/// Checks the keys of a record expectation on a buffer of `size` bytes.
pub(super) fn record_check(k: RecordKeys<'_>, size: u64) -> Result<RecordCheck> {
    let count_offset = k
        .count_offset
        .ok_or_else(|| anyhow!("records and record_count need count_offset"))?;
    let offset = k.offset.unwrap_or(0);
    if !count_offset.is_multiple_of(4) || !offset.is_multiple_of(4) {
        bail!("count_offset and offset must be multiples of 4");
    }
    if count_offset + 4 > size || offset > size {
        bail!("count_offset {count_offset} or offset {offset} is outside the {size}-byte buffer");
    }
    let fields: Vec<ScalarType> = match (k.types, k.ty, k.record) {
        (Some(_), Some(_), _) => bail!("give type or types, not both"),
        (Some([]), _, _) => bail!("types is empty"),
        (Some(t), None, Some(n)) if t.len() != n => {
            bail!("record = {n}, but types lists {} types", t.len())
        }
        (Some(t), None, _) => t.to_vec(),
        (None, _, None) => bail!("give record (elements per record) or types"),
        (None, _, Some(0)) => bail!("record must be at least 1"),
        (None, ty, Some(n)) => vec![ty.unwrap_or(ScalarType::U32); n],
    };
    let want = match (k.records, k.record_count) {
        (Some(_), Some(_)) | (None, None) => bail!("give either records or record_count"),
        (None, Some(n)) => {
            if !k.tolerance.is_exact() {
                bail!("ulp/abs apply to records, not to record_count");
            }
            RecordWant::Count(n)
        }
        (Some(rows), None) => RecordWant::Records(
            rows.iter()
                .enumerate()
                .map(|(i, row)| record(row, &fields).with_context(|| format!("records[{i}]")))
                .collect::<Result<_>>()?,
        ),
    };
    if !k.tolerance.is_exact() && !fields.iter().any(|t| t.is_float()) {
        bail!("ulp/abs apply to f32/f64 fields, and there are none");
    }
    Ok(RecordCheck {
        count_offset,
        offset,
        fields,
        distinct: k.distinct.unwrap_or(true),
        want,
        tolerance: k.tolerance,
    })
}

/// One expected record: an element per field, typed by the field (a type prefix may
/// reinterpret a field of the same size).
fn record(row: &[toml::Value], fields: &[ScalarType]) -> Result<Vec<Element>> {
    if row.len() != fields.len() {
        bail!("{} values for a record of {}", row.len(), fields.len());
    }
    row.iter()
        .zip(fields)
        .enumerate()
        .map(|(i, (v, &ty))| {
            let el = Element::parse(v, ty).with_context(|| format!("element {i}"))?;
            if el.ty.size() != ty.size() {
                bail!("element {i} is a {}, in a {ty} field", el.ty);
            }
            Ok(el)
        })
        .collect()
}

/// Appends a message to `out` when the records of `bytes` (the buffer `name`) do not satisfy
/// `check`.
pub fn compare_records(name: &str, check: &RecordCheck, bytes: &[u8], out: &mut Vec<String>) {
    let at = check.count_offset as usize;
    let Some(count) = bytes.get(at..at + 4) else {
        out.push(format!(
            "buffer {name}: the record count at byte {at} is past the end"
        ));
        return;
    };
    let n = u32::from_le_bytes([count[0], count[1], count[2], count[3]]) as usize;
    let size = check.record_size();
    let start = check.offset as usize;
    let end = start + n * size;
    let says =
        || format!("the count at byte {at} says {n} records of {size} bytes from byte {start}");
    if end > bytes.len() {
        out.push(format!(
            "buffer {name}: {}, up to byte {end}, past the end of the {}-byte buffer",
            says(),
            bytes.len()
        ));
        return;
    }
    if at + 4 > start && at < end {
        out.push(format!(
            "buffer {name}: {}, up to byte {end}, over the count itself",
            says()
        ));
        return;
    }
    let mut records: Vec<&[u8]> = bytes[check.offset as usize..end]
        .chunks_exact(size)
        .collect();
    let read = if check.distinct {
        let mut seen = HashSet::new();
        records.retain(|r| seen.insert(*r));
        format!("{} distinct records ({n} written)", records.len())
    } else {
        format!("{n} records")
    };
    match &check.want {
        RecordWant::Count(want) => {
            if records.len() as u64 != *want {
                out.push(format!("buffer {name}: {read}, expected {want}"));
            }
        }
        RecordWant::Records(want) => {
            let actual: Vec<Vec<u64>> = records.iter().map(|r| fields(r, &check.fields)).collect();
            let (missing, extra) = unmatched(want, &actual, check.tolerance);
            if missing.is_empty() && extra.is_empty() {
                return;
            }
            let missing: Vec<String> = missing.iter().map(|&i| show_expected(&want[i])).collect();
            let extra: Vec<String> = extra
                .iter()
                .map(|&j| show_actual(&actual[j], &check.fields))
                .collect();
            let tol = check.tolerance.suffix();
            out.push(format!(
                "buffer {name}: {read}, expected {}{tol}: missing {}; extra {}",
                want.len(),
                list(&missing),
                list(&extra)
            ));
        }
    }
}

/// The fields of one record as bits.
fn fields(record: &[u8], types: &[ScalarType]) -> Vec<u64> {
    let mut at = 0;
    types
        .iter()
        .map(|t| {
            let mut word = [0u8; 8];
            word[..t.size()].copy_from_slice(&record[at..at + t.size()]);
            at += t.size();
            u64::from_le_bytes(word)
        })
        .collect()
}

/// The expected records (indices into `want`) and the actual records (indices into `actual`)
/// that a maximum one-to-one matching leaves unmatched.
pub fn unmatched(
    want: &[Vec<Element>],
    actual: &[Vec<u64>],
    tolerance: Tolerance,
) -> (Vec<usize>, Vec<usize>) {
    let fits = |w: &[Element], a: &[u64]| w.iter().zip(a).all(|(&e, &b)| matches(e, b, tolerance));
    let candidates: Vec<Vec<usize>> = want
        .iter()
        .map(|w| (0..actual.len()).filter(|&j| fits(w, &actual[j])).collect())
        .collect();
    // owner[j]: the expected record that actual record j is matched to.
    let mut owner: Vec<Option<usize>> = vec![None; actual.len()];
    let mut matched = vec![false; want.len()];
    // A greedy pass first: most records have one candidate.
    for (i, c) in candidates.iter().enumerate() {
        if let Some(&j) = c.iter().find(|&&j| owner[j].is_none()) {
            owner[j] = Some(i);
            matched[i] = true;
        }
    }
    // Then augmenting paths (Kuhn's algorithm) for the rest.
    for (i, done) in matched.iter_mut().enumerate() {
        if !*done {
            let mut visited = vec![false; actual.len()];
            *done = augment(i, &candidates, &mut owner, &mut visited);
        }
    }
    let missing = (0..want.len()).filter(|&i| !matched[i]).collect();
    let extra = (0..actual.len()).filter(|&j| owner[j].is_none()).collect();
    (missing, extra)
}

/// Finds an actual record for expected record `i`, moving earlier matches along an augmenting
/// path; true when it succeeded.
fn augment(
    i: usize,
    candidates: &[Vec<usize>],
    owner: &mut [Option<usize>],
    visited: &mut [bool],
) -> bool {
    for &j in &candidates[i] {
        if visited[j] {
            continue;
        }
        visited[j] = true;
        let free = match owner[j] {
            None => true,
            Some(k) => augment(k, candidates, owner, visited),
        };
        if free {
            owner[j] = Some(i);
            return true;
        }
    }
    false
}

/// `n: [a], [b], …` with at most [`MAX_SHOWN`] records spelled out.
fn list(records: &[String]) -> String {
    let mut text = records.len().to_string();
    if records.is_empty() {
        return text;
    }
    text.push_str(": ");
    text.push_str(
        &records
            .iter()
            .take(MAX_SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", "),
    );
    if records.len() > MAX_SHOWN {
        text.push_str(&format!(", … {} more", records.len() - MAX_SHOWN));
    }
    text
}

/// An actual record for messages: `[0.5, 1.0, 7]`.
fn show_actual(record: &[u64], types: &[ScalarType]) -> String {
    let fields: Vec<String> = record
        .iter()
        .zip(types)
        .map(|(&bits, &ty)| show_field(ty, bits))
        .collect();
    format!("[{}]", fields.join(", "))
}

/// An expected record for messages, spelled like [`show_actual`] (`NaN` for any NaN, `*`).
fn show_expected(record: &[Element]) -> String {
    let fields: Vec<String> = record
        .iter()
        .map(|el| match el.pattern {
            Pattern::Bits(bits) => show_field(el.ty, bits),
            Pattern::Nan => "NaN".to_owned(),
            Pattern::Any => "*".to_owned(),
        })
        .collect();
    format!("[{}]", fields.join(", "))
}

/// One field, short: floats by value (NaNs with their bits), integers in decimal (large
/// unsigned ones, such as sentinels, in hex).
fn show_field(ty: ScalarType, bits: u64) -> String {
    match ty {
        ScalarType::F32 if f32::from_bits(bits as u32).is_nan() => format_bits(ty, bits),
        ScalarType::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        ScalarType::F64 if f64::from_bits(bits).is_nan() => format_bits(ty, bits),
        ScalarType::F64 => format!("{:?}", f64::from_bits(bits)),
        ScalarType::U32 | ScalarType::U64 if bits >= 0x10000 => format!("0x{bits:x}"),
        ScalarType::U32 | ScalarType::U64 => bits.to_string(),
        ScalarType::I32 => (bits as u32 as i32).to_string(),
        ScalarType::I64 => (bits as i64).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: f32) -> toml::Value {
        toml::Value::Float(f64::from(v))
    }

    fn i(v: i64) -> toml::Value {
        toml::Value::Integer(v)
    }

    /// A check of (f32, f32, u32) records from byte 16, count at byte 0.
    fn check(rows: &[Vec<toml::Value>], distinct: bool, abs: f64) -> RecordCheck {
        let types = [ScalarType::F32, ScalarType::F32, ScalarType::U32];
        record_check(
            RecordKeys {
                count_offset: Some(0),
                offset: Some(16),
                record: None,
                ty: None,
                types: Some(&types),
                distinct: Some(distinct),
                records: Some(rows),
                record_count: None,
                tolerance: Tolerance { ulp: 0, abs },
            },
            1024,
        )
        .unwrap_or_else(|e| panic!("{e:#}"))
    }

    /// A buffer holding `records` (u, v, id) from byte 16, with the count at byte 0.
    fn buffer(records: &[(f32, f32, u32)]) -> Vec<u8> {
        let mut bytes = vec![0u8; 16];
        bytes[..4].copy_from_slice(&(records.len() as u32).to_le_bytes());
        for &(u, v, id) in records {
            bytes.extend(u.to_le_bytes());
            bytes.extend(v.to_le_bytes());
            bytes.extend(id.to_le_bytes());
        }
        bytes.resize(1024, 0xee);
        bytes
    }

    fn run(check: &RecordCheck, bytes: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        compare_records("points", check, bytes, &mut out);
        out
    }

    fn grid() -> Vec<(f32, f32, u32)> {
        let mut g = Vec::new();
        for v in [0.0, 0.5, 1.0] {
            for u in [0.0, 0.5, 1.0] {
                g.push((u, v, 0));
            }
        }
        g
    }

    fn rows(records: &[(f32, f32, u32)]) -> Vec<Vec<toml::Value>> {
        records
            .iter()
            .map(|&(u, v, id)| vec![f(u), f(v), i(i64::from(id))])
            .collect()
    }

    #[test]
    fn any_order_and_duplicates_pass() {
        let want = check(&rows(&grid()), true, 0.0);
        let mut got = grid();
        got.reverse();
        got.push(got[3]); // one point shaded twice
        assert_eq!(run(&want, &buffer(&got)), Vec::<String>::new());
    }

    #[test]
    fn one_differing_record_fails() {
        let want = check(&rows(&grid()), true, 0.0);
        let mut got = grid();
        got[4] = (0.5, 0.25, 0);
        let out = run(&want, &buffer(&got));
        assert_eq!(
            out,
            [
                "buffer points: 9 distinct records (9 written), expected 9: missing 1: \
              [0.5, 0.5, 0]; extra 1: [0.5, 0.25, 0]"
            ]
        );
    }

    #[test]
    fn missing_and_extra_records_are_counted() {
        let want = check(&rows(&grid()), true, 0.0);
        let got = &grid()[..7];
        let out = run(&want, &buffer(got));
        assert_eq!(
            out,
            [
                "buffer points: 7 distinct records (7 written), expected 9: missing 2: \
              [0.5, 1.0, 0], [1.0, 1.0, 0]; extra 0"
            ]
        );
        let mut more = grid();
        more.extend((0..6).map(|k| (2.0, 2.0, k)));
        let out = run(&want, &buffer(&more));
        assert_eq!(out.len(), 1);
        assert!(
            out[0].ends_with(
                "missing 0; extra 6: [2.0, 2.0, 0], [2.0, 2.0, 1], [2.0, 2.0, 2], \
                 [2.0, 2.0, 3], … 2 more"
            ),
            "{}",
            out[0]
        );
    }

    #[test]
    fn duplicates_count_without_distinct() {
        let want = check(&rows(&grid()), false, 0.0);
        let mut got = grid();
        got.push(got[0]);
        let out = run(&want, &buffer(&got));
        assert_eq!(
            out,
            ["buffer points: 10 records, expected 9: missing 0; extra 1: [0.0, 0.0, 0]"]
        );
        // Expected duplicates are matched one by one.
        let mut twice = rows(&grid());
        twice.push(twice[0].clone());
        assert!(run(&check(&twice, false, 0.0), &buffer(&got)).is_empty());
    }

    #[test]
    fn tolerance_and_wildcards_match_one_to_one() {
        // Expected: a wildcard record and an exact one. Greedy matching would give the only
        // record that fits the exact one to the wildcard; the matching must not.
        let want = check(
            &[
                vec![toml::Value::String("*".into()), f(0.5), i(0)],
                vec![f(0.25), f(0.5), i(0)],
            ],
            true,
            1e-6,
        );
        let got = [(0.25 + 1e-7, 0.5, 0), (0.75, 0.5, 0)];
        assert!(run(&want, &buffer(&got)).is_empty());
        let far = [(0.25 + 1e-5, 0.5, 0), (0.75, 0.5, 0)];
        let out = run(&want, &buffer(&far));
        assert_eq!(out.len(), 1);
        assert!(
            out[0].contains("±1e-6: missing 1: [0.25, 0.5, 0]"),
            "{}",
            out[0]
        );
    }

    #[test]
    fn counts_and_bounds() {
        let types = [ScalarType::F32; 2];
        let count = |n| {
            record_check(
                RecordKeys {
                    count_offset: Some(4),
                    offset: Some(16),
                    record: Some(3),
                    ty: Some(ScalarType::F32),
                    types: None,
                    distinct: None,
                    records: None,
                    record_count: Some(n),
                    tolerance: Tolerance::default(),
                },
                1024,
            )
            .unwrap_or_else(|e| panic!("{e:#}"))
        };
        let mut bytes = buffer(&grid());
        bytes.copy_within(0..4, 4);
        assert!(run(&count(9), &bytes).is_empty());
        assert_eq!(
            run(&count(8), &bytes),
            ["buffer points: 9 distinct records (9 written), expected 8"]
        );
        // A count past the end of the buffer.
        bytes[4..8].copy_from_slice(&1000u32.to_le_bytes());
        let out = run(&count(9), &bytes);
        assert!(out[0].contains("says 1000 records of 12 bytes"), "{out:?}");
        // Keys that do not fit.
        let bad = |k: RecordKeys<'_>| match record_check(k, 64) {
            Ok(c) => panic!("accepted {c:?}"),
            Err(e) => format!("{e:#}"),
        };
        let keys = || RecordKeys {
            count_offset: Some(0),
            offset: Some(16),
            record: Some(3),
            ty: None,
            types: Some(&types),
            distinct: None,
            records: None,
            record_count: Some(1),
            tolerance: Tolerance::default(),
        };
        assert!(bad(keys()).contains("record = 3, but types lists 2"));
        let e = bad(RecordKeys {
            count_offset: Some(64),
            ..keys()
        });
        assert!(e.contains("outside the 64-byte buffer"), "{e}");
        // The count after the records (record area from byte 0) is fine, until they reach it.
        let mut tail = record_check(
            RecordKeys {
                count_offset: Some(1020),
                offset: None,
                record: None,
                ..keys()
            },
            1024,
        )
        .unwrap_or_else(|e| panic!("{e:#}"));
        tail.fields = vec![ScalarType::U32];
        let mut words = vec![0u8; 1024];
        words[1020..].copy_from_slice(&1u32.to_le_bytes());
        assert!(run(&tail, &words).is_empty());
        words[1020..].copy_from_slice(&256u32.to_le_bytes());
        let out = run(&tail, &words);
        assert!(
            out[0].ends_with("up to byte 1024, over the count itself"),
            "{out:?}"
        );
        let e = bad(RecordKeys {
            count_offset: None,
            ..keys()
        });
        assert!(e.contains("need count_offset"), "{e}");
        let e = bad(RecordKeys {
            record: None,
            types: None,
            ..keys()
        });
        assert!(e.contains("give record"), "{e}");
        let row = [vec![f(1.0)]];
        let e = bad(RecordKeys {
            record: None,
            records: Some(&row),
            record_count: None,
            ..keys()
        });
        assert!(e.contains("1 values for a record of 2"), "{e}");
    }
}
