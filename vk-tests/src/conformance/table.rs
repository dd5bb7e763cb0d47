//! Binding tables: a case's `[[binding]]` rows, each one row of a D3D12-style descriptor table
//! (register kind, space and range → Vulkan set, binding and array offset). See
//! `docs/conformance.md`, "Binding tables (SM5.1 cases)".
//!
//! With a table, the translator maps registers with it (`dxbc2spv::Bindings::Table`) for every
//! stage, as a D3D12 root signature serves every stage; the descriptor-set layouts are the
//! table's [`TableBindings::layout`] (arrays, partially bound, seen by every stage of the case);
//! and a resource at register `r` lands at element `array_offset + (r - first)` of the row whose
//! range holds it, its UAV counter likewise through the `uav_counter` rows.

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use serde::Deserialize;

use dxbc2spv::bindings::{
    BindingMap, BindingTarget as VkTarget, Count, RegisterRange, ResourceKind, TableBindings,
    TableEntry,
};

use super::bind::Placement;
use super::case::BufferSpec;
use super::shader::{BindingTarget, Register, RegisterClass};
use super::textures::{SamplerSpec, TextureSpec};
use crate::compute::DescriptorKind;
use crate::descriptors::SetLayoutBinding;

/// A `[[binding]]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BindingToml {
    kind: String,
    #[serde(default)]
    space: u32,
    first: u32,
    count: Option<toml::Value>,
    #[serde(default)]
    set: u32,
    binding: u32,
    #[serde(default)]
    array_offset: u32,
    descriptor_count: Option<u32>,
    descriptor: Option<String>,
    /// A bindless heap row: the push-constant byte of its table base (`push.rs`).
    heap_base: Option<u32>,
}

/// One `[[binding]]` row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindingRow {
    /// The registers and where they go.
    pub entry: TableEntry,
    /// For an unbounded row: how many descriptors its Vulkan binding holds (`descriptor_count`;
    /// otherwise the highest element the case writes, plus one).
    pub descriptor_count: Option<u32>,
    /// The descriptor type of its Vulkan binding (`descriptor`), for a binding that neither a
    /// case resource nor the translator's reflection gives a type.
    pub descriptor: Option<DescriptorKind>,
}

/// A case's binding table: its rows, and the translator's table made of them.
#[derive(Clone, Debug, PartialEq)]
pub struct BindingTable {
    /// The rows, in file order.
    pub rows: Vec<BindingRow>,
    /// The same rows as the translator's binding map.
    pub table: TableBindings,
    /// The case's push-constant words (bindless heap rows read their table bases there).
    pub push: Vec<u32>,
}

/// The row kinds by name, in [`ResourceKind::ALL`] order.
const KIND_NAMES: [&str; 5] = ["cbv", "srv", "uav", "sampler", "uav_counter"];

/// The register kind of a row: `srv`, `uav`, `cbv`, `sampler` or `uav_counter`.
fn resource_kind(name: &str) -> Result<ResourceKind> {
    KIND_NAMES
        .iter()
        .zip(ResourceKind::ALL)
        .find(|(n, _)| **n == name)
        .map(|(_, k)| k)
        .ok_or_else(|| anyhow!("unknown kind {name:?} (srv, uav, cbv, sampler or uav_counter)"))
}

/// The row name of a register kind.
fn kind_name(kind: ResourceKind) -> &'static str {
    KIND_NAMES[kind.index() as usize]
}

/// `count`: a positive integer (default 1) or `"unbounded"`.
fn count(value: Option<&toml::Value>) -> Result<Count> {
    match value {
        None => Ok(Count::Bounded(1)),
        Some(toml::Value::Integer(n)) => match u32::try_from(*n) {
            Ok(n) if n > 0 => Ok(Count::Bounded(n)),
            _ => bail!("count {n} is not 1 to 4294967295"),
        },
        Some(toml::Value::String(s)) if s == "unbounded" => Ok(Count::Unbounded),
        Some(_) => bail!("count is a number of registers (1 or more) or \"unbounded\""),
    }
}

fn row(b: BindingToml) -> Result<BindingRow> {
    let kind = resource_kind(&b.kind)?;
    let count = count(b.count.as_ref())?;
    if let Some(n) = b.descriptor_count {
        if count != Count::Unbounded {
            bail!("descriptor_count sizes unbounded rows only (a bounded row's size is its count)");
        }
        if n == 0 {
            bail!("descriptor_count must be at least 1");
        }
    }
    let descriptor = b
        .descriptor
        .as_deref()
        .map(|d| {
            DescriptorKind::from_name(d).ok_or_else(|| {
                anyhow!(
                    "unknown descriptor {d:?} (storage_buffer, uniform_buffer, \
                     storage_texel_buffer, uniform_texel_buffer, sampled_image, storage_image \
                     or sampler)"
                )
            })
        })
        .transpose()?;
    if let Some(d) = descriptor {
        if (kind == ResourceKind::Sampler) != (d == DescriptorKind::Sampler) {
            bail!("a {} row cannot hold {d} descriptors", b.kind);
        }
    }
    let entry = TableEntry::new(
        RegisterRange::new(kind, b.space, b.first, count),
        b.set,
        b.binding,
        b.array_offset,
    );
    Ok(BindingRow {
        entry: super::push::heap_entry(entry, b.heap_base),
        descriptor_count: b.descriptor_count,
        descriptor,
    })
}

/// The table of a case's `[[binding]]` rows; `None` when it has none.
pub(super) fn binding_table(rows: Vec<BindingToml>) -> Result<Option<BindingTable>> {
    if rows.is_empty() {
        return Ok(None);
    }
    let rows = rows
        .into_iter()
        .enumerate()
        .map(|(i, b)| row(b).with_context(|| format!("[[binding]] row {}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    let table = TableBindings::new(rows.iter().map(|r| r.entry).collect(), Vec::new())
        .map_err(|e| anyhow!("the translator rejects the binding table: {e}"))?;
    Ok(Some(BindingTable {
        rows,
        table,
        push: Vec::new(),
    }))
}

/// A register from `register` text and an optional `space` key; the two must agree when both
/// name a space.
pub(super) fn register_in_space(text: &str, space: Option<u32>) -> Result<Register> {
    let mut register = Register::parse(text)?;
    if let Some(space) = space {
        if register.space != 0 && register.space != space {
            bail!(
                "register {text:?} is in space {}, but space = {space}",
                register.space
            );
        }
        register.space = space;
    }
    Ok(register)
}

/// The translator's register kind of a binding target.
fn target_kind(target: BindingTarget) -> (ResourceKind, Register) {
    match target {
        BindingTarget::Counter(r) => (ResourceKind::UavCounter, r),
        BindingTarget::Resource(r) => (
            match r.class {
                RegisterClass::Srv => ResourceKind::ShaderResource,
                RegisterClass::Uav => ResourceKind::UnorderedAccess,
                RegisterClass::Cbv => ResourceKind::ConstantBuffer,
                RegisterClass::Sampler => ResourceKind::Sampler,
            },
            r,
        ),
    }
}

impl BindingTable {
    /// Where the table puts `target`: (set, binding, array element); `None` when no row holds
    /// its register.
    pub fn locate(&self, target: BindingTarget) -> Option<(u32, u32, u32)> {
        let (kind, r) = target_kind(target);
        match self
            .table
            .map(&RegisterRange::single(kind, r.space, r.index))
        {
            Ok(VkTarget::Descriptor(b)) => Some((b.set, b.binding, b.array_offset)),
            Ok(VkTarget::Heap(h)) => super::push::heap_element(&self.push, h),
            _ => None,
        }
    }

    /// True when the table puts `target` in a bindless heap.
    pub fn is_heap(&self, target: BindingTarget) -> bool {
        let (kind, r) = target_kind(target);
        matches!(
            self.table
                .map(&RegisterRange::single(kind, r.space, r.index)),
            Ok(VkTarget::Heap(_))
        )
    }

    /// The descriptor-set layout: every Vulkan binding of the table that has a descriptor type
    /// (from the resources written there, else the translator's `reflected` bindings, else the
    /// rows' `descriptor` key, else the row kind where it decides: `cbv` uniform buffer,
    /// `sampler` sampler, `uav_counter` storage buffer), seen by `stages`. A bounded binding
    /// holds what the table says; an unbounded one `descriptor_count`, or else the highest
    /// element written plus one. Arrays are partially bound.
    pub fn layout(
        &self,
        places: &[Placement],
        reflected: &[(u32, u32, DescriptorKind)],
        stages: vk::ShaderStageFlags,
    ) -> Result<Vec<SetLayoutBinding>> {
        let mut out = Vec::new();
        for lb in self.table.layout() {
            let at = format!("set {}, binding {}", lb.set, lb.binding);
            let here: Vec<&Placement> = places
                .iter()
                .filter(|p| (p.set, p.binding) == (lb.set, lb.binding))
                .collect();
            let rows: Vec<&BindingRow> = self
                .rows
                .iter()
                .filter(|r| (r.entry.set, r.entry.binding) == (lb.set, lb.binding))
                .collect();
            let written = here.iter().map(|p| p.kind);
            let declared = reflected
                .iter()
                .filter(|r| (r.0, r.1) == (lb.set, lb.binding))
                .map(|r| r.2);
            let asked = rows.iter().filter_map(|r| r.descriptor);
            let kinds: Vec<DescriptorKind> = written.chain(declared).chain(asked).collect();
            let kind = match (kinds.first(), lb.kinds.as_slice()) {
                (Some(&k), _) => {
                    if let Some(other) = kinds.iter().find(|&&o| o != k) {
                        bail!(
                            "{at} would hold both {k} and {other} descriptors (one Vulkan \
                             binding has one descriptor type)"
                        );
                    }
                    k
                }
                (None, [ResourceKind::ConstantBuffer]) => DescriptorKind::UniformBuffer,
                (None, [ResourceKind::Sampler]) => DescriptorKind::Sampler,
                (None, [ResourceKind::UavCounter]) => DescriptorKind::StorageBuffer,
                // Nothing uses it and nothing says what it holds: leave it out.
                (None, _) => continue,
            };
            let needed = here
                .iter()
                .map(|p| p.element.saturating_add(1))
                .max()
                .unwrap_or(1);
            let count = match lb.descriptor_count {
                Count::Bounded(n) => n,
                Count::Unbounded => match rows.iter().filter_map(|r| r.descriptor_count).max() {
                    Some(n) if n < needed => bail!(
                        "{at}: descriptor_count {n} is too small for element {}",
                        needed - 1
                    ),
                    Some(n) => n,
                    None => needed,
                },
            };
            out.push(SetLayoutBinding {
                set: lb.set,
                binding: lb.binding,
                kind,
                count,
                stages,
                partially_bound: count > 1 || lb.descriptor_count == Count::Unbounded,
            });
        }
        Ok(out)
    }
}

/// With a table, every resource (and UAV counter) lies in one of its rows, none gives its own
/// `set`/`binding`, and no two share an array element.
pub(super) fn check_table(
    table: &BindingTable,
    buffers: &[BufferSpec],
    textures: &[TextureSpec],
    samplers: &[SamplerSpec],
) -> Result<()> {
    let mut all: Vec<(String, BindingTarget, bool)> = Vec::new();
    for b in buffers {
        all.push((
            b.name.clone(),
            BindingTarget::Resource(b.register),
            b.placement.is_some(),
        ));
        if let Some(c) = b.counter {
            all.push((
                format!("the counter of {}", b.name),
                BindingTarget::Counter(b.register),
                c.placement.is_some(),
            ));
        }
    }
    for t in textures {
        let target = BindingTarget::Resource(t.register);
        all.push((t.name.clone(), target, t.placement.is_some()));
    }
    for s in samplers {
        let target = BindingTarget::Resource(s.register);
        all.push((s.name.clone(), target, s.placement.is_some()));
    }
    let mut seen: Vec<((u32, u32, u32), &str)> = Vec::new();
    for (name, target, placed) in &all {
        if table.is_address(*target) {
            continue;
        }
        if *placed {
            bail!("{name} gives set/binding, but the case's [[binding]] rows place every resource");
        }
        let Some(at) = table.locate(*target) else {
            let (kind, r) = target_kind(*target);
            bail!(
                "{name}: no [[binding]] row of kind {} holds {r}",
                kind_name(kind)
            );
        };
        if let Some((_, other)) = seen.iter().find(|(a, _)| *a == at) {
            bail!(
                "{name} and {other} are both at set {}, binding {}, element {} (a binding table \
                 serves every stage)",
                at.0,
                at.1,
                at.2
            );
        }
        seen.push((at, name));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
