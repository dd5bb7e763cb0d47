//! A binding table laid out from a D3D12 root signature (`docs/bindings.md`, "From a root
//! signature").
//!
//! Layout, chosen so that one pipeline layout serves every stage and a descriptor table copies
//! into Vulkan unchanged:
//! - set `first_set` (the root set): root CBVs, SRVs and UAVs, then static samplers, one binding
//!   each, numbered from 0 in root-parameter order, then stored order; it is reserved even when
//!   empty, so table sets never move;
//! - the k-th descriptor table (counting tables only, in parameter order) is set
//!   `first_set + 1 + k`; each kind has one binding in it, numbered by [`ResourceKind::index`]
//!   (0 `b`, 1 `t`, 2 `u`, 3 `s`, 4 UAV counters), and a range's array offset is its offset in
//!   descriptors from the table start, so the table's descriptor `i` is element `i` of its kind's
//!   binding. A UAV range also maps its counters at the same offset of binding 4. With
//!   [`TableSets::Shared`] every table is in set `first_set + 1` instead, table k's kinds at
//!   bindings `5k + index` (for devices with few descriptor sets: Vulkan guarantees only 4);
//! - root constants are push constants, packed in parameter order (4 bytes per value), or
//!   with [`RootConstantsAs::UniformBuffers`] root-set uniform buffers numbered with the root
//!   descriptors.
//!
//! Numbering counts every parameter whatever its visibility; [`RootSignatureOptions::stage`]
//! only drops what the stage does not see, so per-stage tables (D3D12 allows the same register
//! in two parameters visible to different stages) share one layout.

use super::table::{RootConstantsEntry, TableBindings, TableEntry};
use super::{BindingError, Count, PushConstants, RegisterRange, ResourceKind};
use crate::front::dxbc::rts0::{
    DescriptorRange, DescriptorTable, ParameterKind, RangeType, RootSignature, ShaderVisibility,
};
use crate::ir::Stage;

/// How [`TableBindings::from_root_signature`] lays out a root signature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RootSignatureOptions {
    /// The root set (root descriptors and static samplers); table `k` is set
    /// `first_set + 1 + k`.
    pub first_set: u32,
    /// Keep only parameters and static samplers visible to this stage (`ALL` or the stage
    /// itself); `None` keeps everything.
    pub stage: Option<ShaderVisibility>,
    /// Where descriptor tables go.
    pub tables: TableSets,
    /// What root constants become.
    pub root_constants: RootConstantsAs,
}

/// What [`TableBindings::from_root_signature`] makes of root constants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RootConstantsAs {
    /// Push constants, packed in parameter order (the default).
    #[default]
    PushConstants,
    /// A uniform buffer each, in the root set, numbered with the root descriptors in parameter
    /// order: the runtime writes the values into a buffer of `4 × count` bytes (for a back end
    /// without push-constant blocks).
    UniformBuffers,
}

/// Where [`TableBindings::from_root_signature`] puts descriptor tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TableSets {
    /// Table k is set `first_set + 1 + k`, its kinds at bindings 0–4 (the default).
    #[default]
    PerTable,
    /// Every table is in set `first_set + 1`, table k's kinds at bindings `5k` to `5k + 4`.
    Shared,
}

impl RootSignatureOptions {
    /// The options a D3D12 runtime's layout implies for a shader of `stage`: sets from 0, one
    /// set per table, only what `stage` sees (compute shaders see `ALL` parameters only), root
    /// constants as push constants packed in parameter order (the module's one push-constant
    /// block; set `root_constants` to [`RootConstantsAs::UniformBuffers`] for a runtime that
    /// keeps them in buffers).
    pub fn for_stage(stage: Stage) -> Self {
        let visibility = match stage {
            Stage::Vertex => ShaderVisibility::Vertex,
            Stage::Pixel => ShaderVisibility::Pixel,
            Stage::Geometry => ShaderVisibility::Geometry,
            Stage::Hull => ShaderVisibility::Hull,
            Stage::Domain => ShaderVisibility::Domain,
            Stage::Compute => ShaderVisibility::All,
        };
        Self {
            stage: Some(visibility),
            ..Self::default()
        }
    }

    fn visible(&self, visibility: ShaderVisibility) -> bool {
        match self.stage {
            None => true,
            Some(stage) => visibility == ShaderVisibility::All || visibility == stage,
        }
    }
}

impl TableBindings {
    /// The table for `root_signature`, laid out as the module documentation describes. Errors:
    /// an unknown range type, an `APPEND` range after an unbounded one, descriptor offsets past
    /// 2^32 − 1 ([`BindingError::RootSignature`]), an empty range or one past the last register
    /// (also `RootSignature`), or two visible parameters mapping one register
    /// ([`BindingError::Overlap`]).
    pub fn from_root_signature(
        root_signature: &RootSignature,
        options: &RootSignatureOptions,
    ) -> Result<Self, BindingError> {
        let root_set = options.first_set;
        let mut entries = Vec::new();
        let mut root_constants = Vec::new();
        let (mut root_binding, mut push_offset, mut tables) = (0u32, 0u32, 0u32);
        for p in &root_signature.parameters {
            let visible = options.visible(p.visibility);
            let descriptor = match &p.kind {
                ParameterKind::DescriptorTable(table) => {
                    let k = tables;
                    tables = next(tables, p.offset, "descriptor table")?;
                    let place = match options.tables {
                        TableSets::PerTable => root_set.checked_add(tables).map(|set| (set, 0)),
                        TableSets::Shared => root_set
                            .checked_add(1)
                            .zip(k.checked_mul(5).filter(|b| b.checked_add(4).is_some())),
                    };
                    let Some((set, base)) = place else {
                        return Err(rts0_error(
                            p.offset,
                            "descriptor set past 4294967295".into(),
                        ));
                    };
                    if visible {
                        add_table(table, set, base, &mut entries)?;
                    }
                    continue;
                }
                ParameterKind::Constants(c)
                    if options.root_constants == RootConstantsAs::UniformBuffers =>
                {
                    if visible {
                        let range = RegisterRange::single(
                            ResourceKind::ConstantBuffer,
                            c.space,
                            c.register,
                        );
                        entries.push(TableEntry::new(range, root_set, root_binding, 0));
                    }
                    root_binding = next(root_binding, p.offset, "root binding")?;
                    continue;
                }
                ParameterKind::Constants(c) => {
                    let size = c.count.checked_mul(4);
                    let end = size.and_then(|s| s.checked_add(push_offset));
                    let (Some(size), Some(end)) = (size, end) else {
                        return Err(rts0_error(p.offset, "push constants past 4 GiB".into()));
                    };
                    if visible {
                        root_constants.push(RootConstantsEntry {
                            space: c.space,
                            register: c.register,
                            push_constants: PushConstants {
                                offset: push_offset,
                                size,
                            },
                        });
                    }
                    push_offset = end;
                    continue;
                }
                ParameterKind::Cbv(d) => (ResourceKind::ConstantBuffer, d),
                ParameterKind::Srv(d) => (ResourceKind::ShaderResource, d),
                ParameterKind::Uav(d) => (ResourceKind::UnorderedAccess, d),
            };
            let (kind, d) = descriptor;
            if visible {
                let range = RegisterRange::single(kind, d.space, d.register);
                entries.push(TableEntry::new(range, root_set, root_binding, 0));
            }
            root_binding = next(root_binding, p.offset, "root binding")?;
        }
        for s in &root_signature.static_samplers {
            if options.visible(s.visibility) {
                let range = RegisterRange::single(ResourceKind::Sampler, s.space, s.register);
                entries.push(TableEntry::new(range, root_set, root_binding, 0));
            }
            root_binding = next(root_binding, s.offset, "root binding")?;
        }
        Self::new(entries, root_constants)
    }
}

/// `n + 1`, or an error naming `what` at `offset`.
fn next(n: u32, offset: u32, what: &str) -> Result<u32, BindingError> {
    n.checked_add(1)
        .ok_or_else(|| rts0_error(offset, format!("{what} past 4294967295")))
}

fn rts0_error(offset: u32, reason: String) -> BindingError {
    BindingError::RootSignature { offset, reason }
}

/// The entries of one descriptor table in `set`, its bindings from `base`.
fn add_table(
    table: &DescriptorTable,
    set: u32,
    base: u32,
    entries: &mut Vec<TableEntry>,
) -> Result<(), BindingError> {
    // Descriptors from the table start to the end of the previous range (`None`: unbounded).
    let mut end = Some(0u32);
    for r in &table.ranges {
        let kind = kind_of(r)?;
        let count = if r.is_unbounded() {
            Count::Unbounded
        } else {
            Count::Bounded(r.count)
        };
        let range = RegisterRange::new(kind, r.space, r.base_register, count);
        range
            .check()
            .map_err(|e| rts0_error(r.offset, e.to_string()))?;
        let offset = match (r.is_append(), end) {
            (false, _) => r.table_offset,
            (true, Some(e)) => e,
            (true, None) => {
                return Err(rts0_error(
                    r.offset,
                    format!("{range} is appended after an unbounded range"),
                ))
            }
        };
        end = match count {
            Count::Unbounded => None,
            Count::Bounded(n) => Some(offset.checked_add(n).ok_or_else(|| {
                rts0_error(r.offset, format!("{range} runs past descriptor 4294967295"))
            })?),
        };
        entries.push(TableEntry::new(range, set, base + kind.index(), offset));
        if kind == ResourceKind::UnorderedAccess {
            let counter = range.counter();
            let binding = base + counter.kind.index();
            entries.push(TableEntry::new(counter, set, binding, offset));
        }
    }
    Ok(())
}

fn kind_of(r: &DescriptorRange) -> Result<ResourceKind, BindingError> {
    Ok(match r.range_type {
        RangeType::Cbv => ResourceKind::ConstantBuffer,
        RangeType::Srv => ResourceKind::ShaderResource,
        RangeType::Uav => ResourceKind::UnorderedAccess,
        RangeType::Sampler => ResourceKind::Sampler,
        RangeType::Unknown(raw) => {
            return Err(rts0_error(
                r.offset,
                format!("unknown descriptor range type {raw}"),
            ))
        }
    })
}
