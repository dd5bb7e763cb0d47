//! `translate --bindings` and `--root-signature`: the binding map the options name, read from
//! the files they name (`docs/bindings.md`, "Binding files").
//!
//! Contract: [`choose`] turns the two options into one [`Bindings`], reading and checking any
//! file before a shader is translated, so that a bad file fails the run once, with an error
//! naming the file and, for a table, the line, column and field serde reports. A table file is
//! JSON when its name ends in `.json`, TOML otherwise; unknown fields are errors.

use std::fmt;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use dxbc2spv::bindings::{
    Bindings, Count, D3d11Bindings, PushConstants, RegisterRange, ResourceKind, RootConstantsEntry,
    RootSignatureOptions, SpacesBindings, TableBindings, TableEntry,
};
use dxbc2spv::front::dxbc::rts0::RootSignature;
use dxbc2spv::front::dxbc::{Container, ParseOptions};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// The map `--bindings VALUE` and `--root-signature FILE` ask for: `auto` (or no value),
/// `d3d11`, `spaces`, or a table file; a root signature file goes with `auto` only.
/// `verify_checksum`: check a root-signature container's checksum.
pub fn choose(
    bindings: &str,
    root_signature: Option<&Path>,
    verify_checksum: bool,
) -> Result<Bindings> {
    if let Some(path) = root_signature {
        if bindings != "auto" {
            bail!("--root-signature chooses the bindings itself; leave out --bindings {bindings}");
        }
        return root_signature_file(path, verify_checksum);
    }
    Ok(match bindings {
        "auto" => Bindings::Auto,
        "d3d11" => Bindings::D3d11(D3d11Bindings::default()),
        "spaces" => Bindings::Spaces(SpacesBindings::default()),
        file => Bindings::Table(table_file(Path::new(file))?),
    })
}

/// A root signature from `path`: a DXBC container with an `RTS0` chunk, or the serialized
/// root signature alone. It must lay out (checked here, for every stage at once).
fn root_signature_file(path: &Path, verify_checksum: bool) -> Result<Bindings> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let parsed = if bytes.starts_with(b"DXBC") {
        let container = Container::parse(&bytes, &ParseOptions { verify_checksum })
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        container
            .root_signature()
            .ok_or_else(|| anyhow!("{}: the container has no RTS0 chunk", path.display()))?
    } else {
        RootSignature::parse_bytes(&bytes, 0)
    };
    let root_signature = parsed.map_err(|e| anyhow!("{}: {e}", path.display()))?;
    TableBindings::from_root_signature(&root_signature, &RootSignatureOptions::default())
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(Bindings::RootSignature(Box::new(root_signature)))
}

/// A binding table file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    /// Register ranges → descriptors.
    #[serde(default)]
    range: Vec<RangeRow>,
    /// Constant buffers → push constants.
    #[serde(default)]
    push_constants: Vec<PushRow>,
}

/// One `[[range]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeRow {
    kind: KindField,
    #[serde(default)]
    space: u32,
    first: u32,
    #[serde(default = "one", deserialize_with = "count")]
    count: Count,
    set: u32,
    binding: u32,
    #[serde(default)]
    array_offset: u32,
}

/// One `[[push_constants]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PushRow {
    #[serde(default)]
    space: u32,
    register: u32,
    offset: u32,
    size: u32,
}

/// `kind`: the register letter, or `counter` for UAV counters.
#[derive(Clone, Copy, Debug, Deserialize)]
enum KindField {
    #[serde(rename = "b")]
    B,
    #[serde(rename = "t")]
    T,
    #[serde(rename = "u")]
    U,
    #[serde(rename = "s")]
    S,
    #[serde(rename = "counter")]
    Counter,
}

impl From<KindField> for ResourceKind {
    fn from(k: KindField) -> Self {
        match k {
            KindField::B => ResourceKind::ConstantBuffer,
            KindField::T => ResourceKind::ShaderResource,
            KindField::U => ResourceKind::UnorderedAccess,
            KindField::S => ResourceKind::Sampler,
            KindField::Counter => ResourceKind::UavCounter,
        }
    }
}

fn one() -> Count {
    Count::Bounded(1)
}

/// `count`: a number of registers, or `"unbounded"`.
fn count<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Count, D::Error> {
    struct CountVisitor;
    impl Visitor<'_> for CountVisitor {
        type Value = Count;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number of registers or \"unbounded\"")
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Count, E> {
            u32::try_from(v)
                .map(Count::Bounded)
                .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Count, E> {
            u64::try_from(v)
                .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
                .and_then(|v| self.visit_u64(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Count, E> {
            match v {
                "unbounded" => Ok(Count::Unbounded),
                _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
            }
        }
    }
    d.deserialize_any(CountVisitor)
}

/// The table in `path` (JSON for `*.json`, TOML otherwise), checked by [`TableBindings::new`].
pub fn table_file(path: &Path) -> Result<TableBindings> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the binding table", path.display()))?;
    let json = path.extension().is_some_and(|e| e == "json");
    let file: TableFile = if json {
        serde_json::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?
    } else {
        toml::from_str(&text)
            .map_err(|e| anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?
    };
    let entries = file
        .range
        .iter()
        .map(|r| {
            let range = RegisterRange::new(r.kind.into(), r.space, r.first, r.count);
            TableEntry::new(range, r.set, r.binding, r.array_offset)
        })
        .collect();
    let root_constants = file
        .push_constants
        .iter()
        .map(|p| RootConstantsEntry {
            space: p.space,
            register: p.register,
            push_constants: PushConstants {
                offset: p.offset,
                size: p.size,
            },
        })
        .collect();
    TableBindings::new(entries, root_constants).map_err(|e| anyhow!("{}: {e}", path.display()))
}
