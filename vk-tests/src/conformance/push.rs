//! Push constants in a case (`docs/conformance.md`, "Push constants and root constants"):
//! `[push_constants] data = [...]`, the 32-bit words the runner pushes (from byte 0) before the
//! dispatch, and `[[root_constants]]` rows, constant buffers the translator reads from them
//! (D3D12 root constants; added to the case's binding table as
//! `dxbc2spv::bindings::RootConstantsEntry`s).

use anyhow::{anyhow, bail, Result};
use serde::Deserialize;

use dxbc2spv::bindings::{
    HeapBinding, PushConstants, RootConstantsEntry, TableBindings, TableEntry,
};

use super::table::BindingTable;
use super::value::parse_list;

/// `[push_constants]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PushConstantsToml {
    /// The words: integers, or floats (their `f32` bits).
    data: Vec<toml::Value>,
}

/// A `[[root_constants]]` row as written: constant buffer `b<register>` in `space` reads the
/// `count` words at byte `offset` of the push constants.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RootConstantsToml {
    register: u32,
    #[serde(default)]
    space: u32,
    offset: u32,
    count: u32,
}

/// The most push-constant bytes Vulkan guarantees (`maxPushConstantsSize`).
const MAX_BYTES: usize = 128;

/// The words of `[push_constants]` (empty without one).
pub(super) fn push_words(toml: Option<PushConstantsToml>) -> Result<Vec<u32>> {
    let Some(t) = toml else {
        return Ok(Vec::new());
    };
    let mut words = Vec::with_capacity(t.data.len());
    for v in &t.data {
        let ty = match v {
            toml::Value::Float(_) => super::value::ScalarType::F32,
            _ => super::value::ScalarType::U32,
        };
        let e = parse_list(std::slice::from_ref(v), ty)?;
        let bytes = match e.first() {
            Some(e) => e.to_bytes()?,
            None => bail!("[push_constants]: empty value"),
        };
        let word: [u8; 4] = bytes
            .try_into()
            .map_err(|_| anyhow!("[push_constants] data are 32-bit words"))?;
        words.push(u32::from_le_bytes(word));
    }
    if words.is_empty() || words.len() * 4 > MAX_BYTES {
        bail!("[push_constants] data holds 1 to 32 words ({MAX_BYTES} bytes, Vulkan's minimum maxPushConstantsSize)");
    }
    Ok(words)
}

/// Adds the `[[root_constants]]` rows to `table` (a table of them alone without `[[binding]]`
/// rows: every other resource of the case then needs a row) and checks that `push` covers
/// them.
pub(super) fn add_root_constants(
    table: Option<BindingTable>,
    rows: Vec<RootConstantsToml>,
    push: &[u32],
) -> Result<Option<BindingTable>> {
    if rows.is_empty() {
        return Ok(table.map(|mut t| {
            t.push = push.to_vec();
            t
        }));
    }
    // Without [[binding]] rows the table holds the root constants alone.
    let mut table = match table {
        Some(t) => t,
        None => BindingTable {
            rows: Vec::new(),
            table: TableBindings::new(Vec::new(), Vec::new())
                .map_err(|e| anyhow!("empty binding table: {e}"))?,
            push: Vec::new(),
        },
    };
    let mut roots = Vec::new();
    for r in rows {
        let size = r
            .count
            .checked_mul(4)
            .ok_or_else(|| anyhow!("[[root_constants]] b{}: count too large", r.register))?;
        let end = r.offset.saturating_add(size) as usize;
        if end > push.len() * 4 {
            bail!(
                "[[root_constants]] b{} reads bytes {}..{end}, past the {} bytes of [push_constants]",
                r.register,
                r.offset,
                push.len() * 4
            );
        }
        roots.push(RootConstantsEntry {
            space: r.space,
            register: r.register,
            push_constants: PushConstants {
                offset: r.offset,
                size,
            },
        });
    }
    table.push = push.to_vec();
    table.table = TableBindings::new(table.rows.iter().map(|r| r.entry).collect(), roots)
        .map_err(|e| anyhow!("the translator rejects the binding table: {e}"))?;
    Ok(Some(table))
}

/// A `[[binding]]` row's entry, in a bindless heap when the row has `heap_base` (the byte of
/// its table's base index in `[push_constants]`).
pub(super) fn heap_entry(entry: TableEntry, heap_base: Option<u32>) -> TableEntry {
    match heap_base {
        Some(b) => entry.in_heap(b),
        None => entry,
    }
}

/// Where a heap target lands: (set, binding, `push[base] + array_offset`); `None` when the push
/// constants do not hold the base or the element is past 2^32 − 1.
pub(super) fn heap_element(push: &[u32], h: HeapBinding) -> Option<(u32, u32, u32)> {
    if !h.base_offset.is_multiple_of(4) {
        return None;
    }
    let base = *push.get((h.base_offset / 4) as usize)?;
    Some((h.set, h.binding, base.checked_add(h.array_offset)?))
}
