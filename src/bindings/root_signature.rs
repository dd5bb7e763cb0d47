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
//!   descriptors;
//! - with [`TableSets::Heap`] (bindless) every table's ranges are elements of one heap array
//!   per kind in set `first_set + 1`, indexed from the table's base index, a 32-bit push
//!   constant packed with the root constants in parameter order.
//!
//! - with [`RootDescriptorsAs::DeviceAddresses`] root CBVs, SRVs and UAVs take no binding:
//!   each is a 64-bit buffer device address in the push constants
//!   ([`crate::bindings::BindingTarget::DeviceAddress`]), placed after every root constant and
//!   table base (the end of those rounded up to 8 bytes), 8 bytes each in parameter order; the
//!   static samplers are then numbered from 0 in the root set.
//!
//! Numbering counts every parameter whatever its visibility; [`RootSignatureOptions::stage`]
//! only drops what the stage does not see, so per-stage tables (D3D12 allows the same register
//! in two parameters visible to different stages) share one layout.

use super::table::{RootConstantsEntry, RootDescriptorEntry, TableBindings, TableEntry};
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
    /// What root CBVs, SRVs and UAVs become.
    pub root_descriptors: RootDescriptorsAs,
}

/// What [`TableBindings::from_root_signature`] makes of root CBVs, SRVs and UAVs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RootDescriptorsAs {
    /// A descriptor each in the root set, numbered in parameter order (the default).
    #[default]
    Descriptors,
    /// A 64-bit buffer device address each in the push constants, after the root constants
    /// and table bases (rounded up to 8 bytes), 8 bytes each in parameter order
    /// ([`crate::bindings::BindingTarget::DeviceAddress`]; vkd3d-proton's root descriptors).
    DeviceAddresses,
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
    /// Bindless (vkd3d-proton's model): set `first_set + 1` holds one heap array per kind, at
    /// binding [`ResourceKind::index`] (0 `b`, 1 `t`, 2 `u`, 3 `s`, 4 UAV counters), each a
    /// runtime array; each table takes one 32-bit push constant, packed with the root
    /// constants in parameter order, that holds the heap index of its first descriptor
    /// ([`crate::bindings::BindingTarget::Heap`]).
    Heap,
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
        // Root descriptors read through device addresses: (range, visible, parameter offset), in
        // parameter order.
        let mut addressed = Vec::new();
        let (mut root_binding, mut push_offset, mut tables) = (0u32, 0u32, 0u32);
        for p in &root_signature.parameters {
            let visible = options.visible(p.visibility);
            let descriptor = match &p.kind {
                ParameterKind::DescriptorTable(table) if options.tables == TableSets::Heap => {
                    let base = push_offset;
                    push_offset = push_offset
                        .checked_add(4)
                        .ok_or_else(|| rts0_error(p.offset, "push constants past 4 GiB".into()))?;
                    let set = root_set.checked_add(1).ok_or_else(|| {
                        rts0_error(p.offset, "descriptor set past 4294967295".into())
                    })?;
                    if visible {
                        add_table(table, set, 0, Some(base), &mut entries)?;
                    }
                    continue;
                }
                ParameterKind::DescriptorTable(table) => {
                    let k = tables;
                    tables = next(tables, p.offset, "descriptor table")?;
                    let place = match options.tables {
                        TableSets::PerTable => root_set.checked_add(tables).map(|set| (set, 0)),
                        TableSets::Shared | TableSets::Heap => root_set
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
                        add_table(table, set, base, None, &mut entries)?;
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
            if options.root_descriptors == RootDescriptorsAs::DeviceAddresses {
                addressed.push((
                    RegisterRange::single(kind, d.space, d.register),
                    visible,
                    p.offset,
                ));
                continue;
            }
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
        let mut root_descriptors = Vec::new();
        let mut address = push_offset.div_ceil(8).checked_mul(8);
        for (range, visible, at) in addressed {
            let Some(offset) = address.filter(|a| a.checked_add(8).is_some()) else {
                return Err(rts0_error(at, "push constants past 4 GiB".into()));
            };
            if visible {
                root_descriptors.push(RootDescriptorEntry { range, offset });
            }
            address = offset.checked_add(8);
        }
        Self::with_root_descriptors(entries, root_constants, root_descriptors)
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

/// The entries of one descriptor table in `set`, its bindings from `base`; in a bindless heap
/// whose table base index is the push constant at byte `heap_base`, when given.
fn add_table(
    table: &DescriptorTable,
    set: u32,
    base: u32,
    heap_base: Option<u32>,
    entries: &mut Vec<TableEntry>,
) -> Result<(), BindingError> {
    let place = |e: TableEntry| match heap_base {
        Some(b) => e.in_heap(b),
        None => e,
    };
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
        entries.push(place(TableEntry::new(
            range,
            set,
            base + kind.index(),
            offset,
        )));
        if kind == ResourceKind::UnorderedAccess {
            let counter = range.counter();
            let binding = base + counter.kind.index();
            entries.push(place(TableEntry::new(counter, set, binding, offset)));
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

#[cfg(test)]
mod heap_tests {
    use super::*;
    use crate::bindings::{BindingMap, BindingTarget, HeapBinding};
    use crate::front::dxbc::rts0::{
        RootConstants, RootParameter, RootSignatureFlags, ShaderVisibility, Version,
    };

    fn range(
        range_type: RangeType,
        count: u32,
        base_register: u32,
        table_offset: u32,
    ) -> DescriptorRange {
        DescriptorRange {
            offset: 0,
            range_type,
            count,
            base_register,
            space: 0,
            flags: None,
            table_offset,
        }
    }

    /// Root constants (2 values, bytes 0..7), table A (t0..t3 at 0, s0 after: APPEND), table B
    /// (u0..u1 at 5): with `TableSets::Heap` table A's base word is byte 8, table B's byte 12;
    /// each kind is its heap binding in set 1, elements from the table start.
    #[test]
    fn heap_tables_take_a_push_word_each() {
        let param = |kind| RootParameter {
            offset: 0,
            visibility: ShaderVisibility::All,
            kind,
        };
        let table = |ranges| ParameterKind::DescriptorTable(DescriptorTable { offset: 0, ranges });
        let rs = RootSignature {
            version: Version::V1_0,
            flags: RootSignatureFlags(0),
            parameters: vec![
                param(ParameterKind::Constants(RootConstants {
                    offset: 0,
                    register: 0,
                    space: 0,
                    count: 2,
                })),
                param(table(vec![
                    range(RangeType::Srv, 4, 0, 0),
                    range(RangeType::Sampler, 1, 0, DescriptorRange::APPEND),
                ])),
                param(table(vec![range(RangeType::Uav, 2, 0, 5)])),
            ],
            static_samplers: Vec::new(),
        };
        let options = RootSignatureOptions {
            tables: TableSets::Heap,
            ..RootSignatureOptions::default()
        };
        let t = TableBindings::from_root_signature(&rs, &options).expect("lays out");
        let heap = |binding, base_offset, array_offset| {
            Ok(BindingTarget::Heap(HeapBinding {
                set: 1,
                binding,
                base_offset,
                array_offset,
            }))
        };
        let one = |kind, register| RegisterRange::single(kind, 0, register);
        assert_eq!(t.map(&one(ResourceKind::ShaderResource, 2)), heap(1, 8, 2));
        assert_eq!(t.map(&one(ResourceKind::Sampler, 0)), heap(3, 8, 4));
        assert_eq!(
            t.map(&one(ResourceKind::UnorderedAccess, 1)),
            heap(2, 12, 6)
        );
        assert_eq!(t.map(&one(ResourceKind::UavCounter, 0)), heap(4, 12, 5));
        assert!(matches!(
            t.map(&one(ResourceKind::ConstantBuffer, 0)),
            Ok(BindingTarget::PushConstants(PushConstants {
                offset: 0,
                size: 8
            }))
        ));
        assert!(t
            .layout()
            .iter()
            .all(|b| b.set == 1 && b.descriptor_count == Count::Unbounded));
    }
    /// Root constants (3 values, bytes 0..11), root CBV b0, a table (heap base word at byte
    /// 12), root SRV t1, root UAV u2 with `RootDescriptorsAs::DeviceAddresses`: the push
    /// words end at byte 16, so the addresses are at 16 (b0), 24 (t1) and 32 (u2), in
    /// parameter order; they take no binding, and a pixel-only root UAV keeps its offset
    /// but is dropped for a compute stage.
    #[test]
    fn root_descriptors_as_device_addresses_follow_the_push_words() {
        use crate::bindings::DeviceAddress;
        use crate::front::dxbc::rts0::RootDescriptor;
        let param = |visibility, kind| RootParameter {
            offset: 0,
            visibility,
            kind,
        };
        let root = |register| RootDescriptor {
            offset: 0,
            register,
            space: 0,
            flags: None,
        };
        let table = ParameterKind::DescriptorTable(DescriptorTable {
            offset: 0,
            ranges: vec![range(RangeType::Srv, 1, 0, 0)],
        });
        let rs = RootSignature {
            version: Version::V1_0,
            flags: RootSignatureFlags(0),
            parameters: vec![
                param(
                    ShaderVisibility::All,
                    ParameterKind::Constants(RootConstants {
                        offset: 0,
                        register: 1,
                        space: 0,
                        count: 3,
                    }),
                ),
                param(ShaderVisibility::All, ParameterKind::Cbv(root(0))),
                param(ShaderVisibility::All, table),
                param(ShaderVisibility::All, ParameterKind::Srv(root(1))),
                param(ShaderVisibility::Pixel, ParameterKind::Uav(root(2))),
            ],
            static_samplers: Vec::new(),
        };
        let options = RootSignatureOptions {
            tables: TableSets::Heap,
            root_descriptors: RootDescriptorsAs::DeviceAddresses,
            ..RootSignatureOptions::default()
        };
        let t = TableBindings::from_root_signature(&rs, &options).expect("lays out");
        let one = |kind, register| RegisterRange::single(kind, 0, register);
        let at = |offset| Ok(BindingTarget::DeviceAddress(DeviceAddress { offset }));
        assert_eq!(t.map(&one(ResourceKind::ConstantBuffer, 0)), at(16));
        assert_eq!(t.map(&one(ResourceKind::ShaderResource, 1)), at(24));
        assert_eq!(t.map(&one(ResourceKind::UnorderedAccess, 2)), at(32));
        assert_eq!(t.push_constants_size(), 40);
        assert!(t.layout().iter().all(|b| b.set == 1));
        let compute = RootSignatureOptions {
            stage: Some(ShaderVisibility::All),
            ..options
        };
        let t = TableBindings::from_root_signature(&rs, &compute).expect("lays out");
        assert_eq!(t.map(&one(ResourceKind::ShaderResource, 1)), at(24));
        assert!(t.map(&one(ResourceKind::UnorderedAccess, 2)).is_err());
    }
}
