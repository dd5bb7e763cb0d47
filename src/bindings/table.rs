//! The table form of a binding map (D3D12-style runtimes): a validated list of register ranges,
//! each mapped to (set, binding, array offset), plus constant buffers mapped to push constants.

use super::{
    BindingError, BindingMap, BindingTarget, Count, DeviceAddress, HeapBinding, PushConstants,
    RegisterRange, ResourceKind, VulkanBinding,
};

/// One row of a binding table: register `range.first + i` is element `array_offset + i` of the
/// descriptor array at (`set`, `binding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableEntry {
    /// The registers mapped.
    pub range: RegisterRange,
    /// The descriptor set.
    pub set: u32,
    /// The binding in that set.
    pub binding: u32,
    /// The array element of the range's first register (in a heap: from the table base).
    pub array_offset: u32,
    /// In a bindless heap: the byte offset in the push constants of the `u32` that holds the
    /// heap index of the table's first descriptor ([`BindingTarget::Heap`]); `None`: a plain
    /// descriptor array.
    pub heap_base: Option<u32>,
}

impl TableEntry {
    /// `range` at element `array_offset` of (`set`, `binding`).
    pub fn new(range: RegisterRange, set: u32, binding: u32, array_offset: u32) -> Self {
        Self {
            range,
            set,
            binding,
            array_offset,
            heap_base: None,
        }
    }

    /// The entry in the bindless heap at (`set`, `binding`): element `push[base_offset] +
    /// array_offset + i` holds register `first + i`.
    #[must_use]
    pub fn in_heap(mut self, base_offset: u32) -> Self {
        self.heap_base = Some(base_offset);
        self
    }

    /// One past the last array element, or `None` when unbounded (may be 2^32).
    fn array_end(&self) -> Option<u64> {
        self.range
            .count
            .bounded()
            .map(|n| u64::from(self.array_offset) + u64::from(n))
    }
}

/// A constant buffer read from push constants (a D3D12 root-constants parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RootConstantsEntry {
    /// The register space of the `b` register.
    pub space: u32,
    /// The `b` register.
    pub register: u32,
    /// Where its values are in the push-constant range.
    pub push_constants: PushConstants,
}

impl RootConstantsEntry {
    /// The single constant-buffer register it stands for.
    pub fn range(&self) -> RegisterRange {
        RegisterRange::single(ResourceKind::ConstantBuffer, self.space, self.register)
    }
}

/// A root descriptor read through a buffer device address (a D3D12 root CBV, SRV or UAV):
/// register `range` (a single register) is the buffer whose 64-bit address is the push constant
/// at byte `offset` ([`BindingTarget::DeviceAddress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RootDescriptorEntry {
    /// The single `b`, `t` or `u` register.
    pub range: RegisterRange,
    /// Byte offset of the address in the push constants (a multiple of 8).
    pub offset: u32,
}

/// One Vulkan binding a table uses, for building descriptor-set layouts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LayoutBinding {
    /// The descriptor set.
    pub set: u32,
    /// The binding.
    pub binding: u32,
    /// The register kinds mapped to it (sorted, no repeats); more than one kind on one binding
    /// needs descriptor types they can share (or `VK_EXT_mutable_descriptor_type`).
    pub kinds: Vec<ResourceKind>,
    /// Descriptors it must hold: the largest array offset + count of its entries, or
    /// `Unbounded` when an entry is unbounded.
    pub descriptor_count: Count,
}

/// A binding table: register ranges → (set, binding, array offset), validated so that no
/// register is mapped twice.
///
/// Several ranges may share one Vulkan binding at different array offsets, of the same kind or
/// not, and a range may start at any register. A lookup must fall inside one entry, or run on
/// through entries that continue both the registers and the array elements of the same binding;
/// otherwise it is [`BindingError::PartiallyMapped`] or [`BindingError::Unmapped`].
#[derive(Clone, Debug, PartialEq)]
pub struct TableBindings {
    entries: Vec<TableEntry>,
    root_constants: Vec<RootConstantsEntry>,
    layout: Vec<LayoutBinding>,
    /// Entries and root constants, sorted by (kind, space, first register).
    slots: Vec<Slot>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Slot {
    range: RegisterRange,
    target: SlotTarget,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum SlotTarget {
    Descriptor {
        set: u32,
        binding: u32,
        array_offset: u32,
        heap_base: Option<u32>,
    },
    Push(PushConstants),
    Address(DeviceAddress),
}

impl TableBindings {
    /// A table of `entries` and `root_constants`. Errors: an empty range, a range or array
    /// offset running past 2^32 − 1 ([`BindingError::Invalid`]), or two rows mapping one
    /// register ([`BindingError::Overlap`]).
    pub fn new(
        entries: Vec<TableEntry>,
        root_constants: Vec<RootConstantsEntry>,
    ) -> Result<Self, BindingError> {
        Self::with_root_descriptors(entries, root_constants, Vec::new())
    }

    /// A table of `entries`, `root_constants` and `root_descriptors` (buffer device addresses
    /// in push constants). Errors as [`TableBindings::new`], and [`BindingError::Invalid`] for
    /// a root descriptor that is not one `b`, `t` or `u` register or whose address is not at a
    /// multiple of 8 bytes.
    pub fn with_root_descriptors(
        entries: Vec<TableEntry>,
        root_constants: Vec<RootConstantsEntry>,
        root_descriptors: Vec<RootDescriptorEntry>,
    ) -> Result<Self, BindingError> {
        for d in &root_descriptors {
            d.range.check()?;
            let reason = if d.range.count != Count::Bounded(1) {
                "a root descriptor is a single register"
            } else if !matches!(
                d.range.kind,
                ResourceKind::ConstantBuffer
                    | ResourceKind::ShaderResource
                    | ResourceKind::UnorderedAccess
            ) {
                "root descriptors are constant buffers, SRVs and UAVs"
            } else if d.offset % 8 != 0 || d.offset > u32::MAX - 8 {
                "a device address is 8-byte aligned in push constants"
            } else {
                continue;
            };
            return Err(BindingError::Invalid {
                range: d.range,
                reason,
            });
        }
        for e in &entries {
            e.range.check()?;
            if e.array_end().is_some_and(|end| end > u64::from(u32::MAX)) {
                return Err(BindingError::Invalid {
                    range: e.range,
                    reason: "its binding would need more than 4294967295 descriptors",
                });
            }
        }
        let mut slots: Vec<Slot> = entries
            .iter()
            .map(|e| Slot {
                range: e.range,
                target: SlotTarget::Descriptor {
                    set: e.set,
                    binding: e.binding,
                    array_offset: e.array_offset,
                    heap_base: e.heap_base,
                },
            })
            .chain(root_constants.iter().map(|r| Slot {
                range: r.range(),
                target: SlotTarget::Push(r.push_constants),
            }))
            .chain(root_descriptors.iter().map(|d| Slot {
                range: d.range,
                target: SlotTarget::Address(DeviceAddress { offset: d.offset }),
            }))
            .collect();
        slots.sort_by_key(|s| (s.range.kind, s.range.space, s.range.first));
        // Sorted by first register, any overlap shows between neighbours.
        for pair in slots.windows(2) {
            if pair[0].range.overlaps(&pair[1].range) {
                return Err(BindingError::Overlap {
                    first: pair[0].range,
                    second: pair[1].range,
                });
            }
        }
        let layout = layout(&entries);
        Ok(Self {
            entries,
            root_constants,
            layout,
            slots,
        })
    }

    /// Each range at its own binding of `set`, numbered from 0 in the order given, array offset
    /// 0: a map a test or tool can derive from a shader's own reflection.
    pub fn one_binding_per_range(
        set: u32,
        ranges: impl IntoIterator<Item = RegisterRange>,
    ) -> Result<Self, BindingError> {
        let entries = (0..)
            .zip(ranges)
            .map(|(binding, range)| TableEntry::new(range, set, binding, 0))
            .collect();
        Self::new(entries, Vec::new())
    }

    /// The rows, in the order given.
    pub fn entries(&self) -> &[TableEntry] {
        &self.entries
    }

    /// The constant buffers read from push constants, in the order given.
    pub fn root_constants(&self) -> &[RootConstantsEntry] {
        &self.root_constants
    }

    /// The root descriptors read through device addresses, by (kind, space, register).
    pub fn root_descriptors(&self) -> impl Iterator<Item = RootDescriptorEntry> + '_ {
        self.slots.iter().filter_map(|s| match s.target {
            SlotTarget::Address(a) => Some(RootDescriptorEntry {
                range: s.range,
                offset: a.offset,
            }),
            SlotTarget::Descriptor { .. } | SlotTarget::Push(_) => None,
        })
    }

    /// Every Vulkan binding the entries use, sorted by (set, binding).
    pub fn layout(&self) -> &[LayoutBinding] {
        &self.layout
    }

    /// Bytes of push constants the root constants and device addresses need (0 when there are
    /// none).
    pub fn push_constants_size(&self) -> u32 {
        self.root_constants
            .iter()
            .map(|r| {
                r.push_constants
                    .offset
                    .saturating_add(r.push_constants.size)
            })
            .chain(self.root_descriptors().map(|d| d.offset.saturating_add(8)))
            .max()
            .unwrap_or(0)
    }

    fn descriptor_count(&self, set: u32, binding: u32) -> Count {
        self.layout
            .binary_search_by_key(&(set, binding), |b| (b.set, b.binding))
            .map_or(Count::Unbounded, |i| self.layout[i].descriptor_count)
    }
}

/// The bindings `entries` use, sorted by (set, binding), each with its kinds and size.
fn layout(entries: &[TableEntry]) -> Vec<LayoutBinding> {
    let mut out: Vec<LayoutBinding> = Vec::new();
    let mut sorted: Vec<&TableEntry> = entries.iter().collect();
    sorted.sort_by_key(|e| (e.set, e.binding));
    for e in sorted {
        let size = match e.array_end() {
            // A heap's size is the runtime's: a runtime array.
            _ if e.heap_base.is_some() => Count::Unbounded,
            Some(end) => Count::Bounded(u32::try_from(end).unwrap_or(u32::MAX)),
            None => Count::Unbounded,
        };
        match out.last_mut() {
            Some(b) if (b.set, b.binding) == (e.set, e.binding) => {
                if !b.kinds.contains(&e.range.kind) {
                    b.kinds.push(e.range.kind);
                    b.kinds.sort();
                }
                b.descriptor_count = match (b.descriptor_count, size) {
                    (Count::Bounded(a), Count::Bounded(c)) => Count::Bounded(a.max(c)),
                    _ => Count::Unbounded,
                };
            }
            _ => out.push(LayoutBinding {
                set: e.set,
                binding: e.binding,
                kinds: vec![e.range.kind],
                descriptor_count: size,
            }),
        }
    }
    out
}

/// True when a span ending at `end` reaches `request_end` (`None`: unbounded).
fn covers(end: Option<u64>, request_end: Option<u64>) -> bool {
    match (end, request_end) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(e), Some(r)) => r <= e,
    }
}

impl BindingMap for TableBindings {
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        range.check()?;
        let key = (range.kind, range.space);
        let lo = self
            .slots
            .partition_point(|s| (s.range.kind, s.range.space) < key);
        let hi = self
            .slots
            .partition_point(|s| (s.range.kind, s.range.space) <= key);
        let group = &self.slots[lo..hi];
        // The slot holding the first register, or else the first slot starting inside the range.
        let after = group.partition_point(|s| s.range.first <= range.first);
        let start = match after.checked_sub(1) {
            Some(i) if group[i].range.contains_register(range.first) => i,
            _ if after < group.len() && range.contains_register(group[after].range.first) => after,
            _ => return Err(BindingError::Unmapped { range: *range }),
        };
        let first = &group[start];
        let from = range.first.max(first.range.first);
        // Run on through slots continuing both the registers and the array elements.
        let mut end = first.range.end();
        let mut last = first;
        for next in &group[start + 1..] {
            if covers(end, range.end()) || end != Some(u64::from(next.range.first)) {
                break;
            }
            let continues =
                match (last.target, next.target) {
                    (
                        SlotTarget::Descriptor {
                            set,
                            binding,
                            array_offset,
                            heap_base,
                        },
                        SlotTarget::Descriptor {
                            set: s,
                            binding: b,
                            array_offset: o,
                            heap_base: h,
                        },
                    ) => {
                        (set, binding, heap_base) == (s, b, h)
                            && last.range.count.bounded().is_some_and(|n| {
                                u64::from(array_offset) + u64::from(n) == u64::from(o)
                            })
                    }
                    _ => false,
                };
            if !continues {
                break;
            }
            end = next.range.end();
            last = next;
        }
        if from == range.first && covers(end, range.end()) {
            return match first.target {
                SlotTarget::Descriptor {
                    set,
                    binding,
                    array_offset,
                    heap_base,
                } => {
                    // Only an unbounded entry can reach past the last array element.
                    let array_offset = array_offset
                        .checked_add(range.first - first.range.first)
                        .ok_or(BindingError::Invalid {
                            range: *range,
                            reason: "its array element would be past 4294967295",
                        })?;
                    Ok(match heap_base {
                        Some(base_offset) => BindingTarget::Heap(HeapBinding {
                            set,
                            binding,
                            base_offset,
                            array_offset,
                        }),
                        None => BindingTarget::Descriptor(VulkanBinding {
                            set,
                            binding,
                            array_offset,
                            descriptor_count: self.descriptor_count(set, binding),
                        }),
                    })
                }
                SlotTarget::Push(p) => Ok(BindingTarget::PushConstants(p)),
                SlotTarget::Address(a) => Ok(BindingTarget::DeviceAddress(a)),
            };
        }
        let mapped_end = match (end, range.end()) {
            (Some(e), Some(r)) => Some(e.min(r)),
            (e, r) => e.or(r),
        };
        let count = mapped_end
            .and_then(|e| u32::try_from(e - u64::from(from)).ok())
            .map_or(Count::Unbounded, Count::Bounded);
        Err(BindingError::PartiallyMapped {
            range: *range,
            mapped: RegisterRange::new(range.kind, range.space, from, count),
        })
    }
}
