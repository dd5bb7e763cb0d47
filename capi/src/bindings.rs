//! Binding maps from C: a binding table, a root signature, or a callback `range → target`.
//!
//! Contract: the table and the root signature become the Rust [`Bindings::Table`] and
//! [`Bindings::RootSignature`] unchanged. The callback is a [`BindingMap`] ([`CallbackMap`])
//! that [`resolve`] hands to the translator as [`Bindings::Custom`]: the translator asks it
//! about every range it looks up and uses its answers as they are (descriptor counts, push
//! constants, heap elements). A binding target is a kind (`DXBC2SPV_BINDING_*`) with the
//! fields of every kind side by side, so a new kind is a new value.

use std::ffi::{c_int, c_void};

use translator::bindings::{
    BindingError, BindingMap, BindingTarget, Bindings, Count, DeviceAddress, HeapBinding,
    PushConstants, RegisterRange, ResourceKind, RootConstantsEntry, TableBindings, TableEntry,
    VulkanBinding,
};
use translator::front::dxbc::{Container, ParseOptions};
use translator::Options;

use crate::options::Converted;
use crate::{slice, Failure};

/// A count with no upper bound (`t10[10:*]`, a runtime array).
pub const DXBC2SPV_UNBOUNDED: u32 = u32::MAX;

/// Constant buffers (`b#`).
pub const DXBC2SPV_RESOURCE_CBV: u32 = 0;
/// Shader-resource views (`t#`).
pub const DXBC2SPV_RESOURCE_SRV: u32 = 1;
/// Unordered-access views (`u#`).
pub const DXBC2SPV_RESOURCE_UAV: u32 = 2;
/// Samplers (`s#`).
pub const DXBC2SPV_RESOURCE_SAMPLER: u32 = 3;
/// The hidden counter of a UAV, bound separately.
pub const DXBC2SPV_RESOURCE_UAV_COUNTER: u32 = 4;

/// A descriptor (array) in a descriptor set.
pub const DXBC2SPV_BINDING_DESCRIPTOR: u32 = 0;
/// Push constants (constant buffers only: D3D12 root constants).
pub const DXBC2SPV_BINDING_PUSH_CONSTANTS: u32 = 1;
/// Elements of a bindless heap (a runtime array at `set`, `binding`): the descriptor index of
/// register `first + i` is the push-constant `u32` at byte `heap_base_offset`, plus
/// `array_offset + i`.
pub const DXBC2SPV_BINDING_HEAP: u32 = 2;
/// A root descriptor (constant buffer, raw or structured SRV or UAV) as a buffer device
/// address: the `u64` address is in the push constants at byte `push_offset` (a multiple of 8).
pub const DXBC2SPV_BINDING_DEVICE_ADDRESS: u32 = 3;

/// A run of D3D registers of one kind in one register space.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct dxbc2spv_register_range {
    /// `DXBC2SPV_RESOURCE_*`.
    pub kind: u32,
    /// The register space (0 before SM5.1).
    pub space: u32,
    /// The first register.
    pub first: u32,
    /// How many registers; [`DXBC2SPV_UNBOUNDED`] for all from `first` on.
    pub count: u32,
}

/// Where a register range lives in Vulkan.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dxbc2spv_binding_target {
    /// `DXBC2SPV_BINDING_*`.
    pub kind: u32,
    /// Descriptor, heap: the set.
    pub set: u32,
    /// Descriptor, heap: the binding.
    pub binding: u32,
    /// Descriptor: the array element of the range's first register; heap: elements from the
    /// table base to the range's first register.
    pub array_offset: u32,
    /// Descriptor: the size of the whole binding; [`DXBC2SPV_UNBOUNDED`] for a runtime array.
    pub descriptor_count: u32,
    /// Push constants: byte offset of the buffer's first value; device address: byte offset of
    /// the `u64` address.
    pub push_offset: u32,
    /// Push constants: size in bytes.
    pub push_size: u32,
    /// Heap: byte offset in the push constants of the `u32` table base index (a multiple of 4).
    pub heap_base_offset: u32,
}

/// One row of a binding table: register `range.first + i` is element `array_offset + i` of
/// (`set`, `binding`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct dxbc2spv_table_entry {
    /// The registers.
    pub range: dxbc2spv_register_range,
    /// The descriptor set.
    pub set: u32,
    /// The binding.
    pub binding: u32,
    /// The array element of the first register.
    pub array_offset: u32,
}

/// A constant buffer read from push constants.
#[repr(C)]
pub struct dxbc2spv_root_constants {
    /// The register space of the `b` register.
    pub space: u32,
    /// The `b` register.
    pub register_: u32,
    /// Byte offset in the push-constant range.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// A binding table (validated: no register mapped twice).
#[repr(C)]
pub struct dxbc2spv_binding_table {
    /// `DXBC2SPV_STRUCTURE_TYPE_BINDING_TABLE`.
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// The rows.
    pub entries: *const dxbc2spv_table_entry,
    /// Rows in `entries`.
    pub entry_count: usize,
    /// Constant buffers in push constants (may be NULL when the count is 0).
    pub root_constants: *const dxbc2spv_root_constants,
    /// Entries in `root_constants`.
    pub root_constant_count: usize,
}

/// Answers one range: fills `target` and returns 0, or returns non-zero for "not mapped"
/// (the translation then fails with `DXBC2SPV_ERROR_BINDING` naming the declaration).
/// Called on the translating thread, during the translate call only.
pub type dxbc2spv_binding_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        range: *const dxbc2spv_register_range,
        target: *mut dxbc2spv_binding_target,
    ) -> c_int,
>;

/// The runtime's own binding map, as a callback.
#[repr(C)]
pub struct dxbc2spv_binding_callback {
    /// `DXBC2SPV_STRUCTURE_TYPE_BINDING_CALLBACK`.
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// The map.
    pub callback: dxbc2spv_binding_fn,
    /// Passed to `callback`.
    pub user_data: *mut c_void,
    /// Bytes that identify the map's answers (a hash of the runtime's pipeline layout):
    /// `dxbc2spv_fingerprint` encodes them, since it cannot call the callback. NULL with
    /// `key_size` 0 is allowed for translation; the fingerprint then fails.
    pub key: *const c_void,
    /// Bytes in `key`.
    pub key_size: usize,
}

/// A root signature, laid out for each shader's stage (D3D12-style runtimes).
#[repr(C)]
pub struct dxbc2spv_root_signature {
    /// `DXBC2SPV_STRUCTURE_TYPE_ROOT_SIGNATURE`.
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// A DXBC container holding an `RTS0` chunk (a compiled root signature, or a shader that
    /// embeds one).
    pub data: *const c_void,
    /// Bytes in `data`.
    pub size: usize,
}

fn kind(code: u32, field: &str) -> Result<ResourceKind, Failure> {
    ResourceKind::ALL
        .into_iter()
        .find(|k| k.index() == code)
        .ok_or_else(|| Failure::invalid_argument(format!("options: {field}.kind = {code}")))
}

fn count(c: u32) -> Count {
    if c == DXBC2SPV_UNBOUNDED {
        Count::Unbounded
    } else {
        Count::Bounded(c)
    }
}

/// The C form of a count.
pub(crate) fn count_code(c: Count) -> u32 {
    c.bounded().unwrap_or(DXBC2SPV_UNBOUNDED)
}

fn range(r: &dxbc2spv_register_range, field: &str) -> Result<RegisterRange, Failure> {
    Ok(RegisterRange::new(
        kind(r.kind, field)?,
        r.space,
        r.first,
        count(r.count),
    ))
}

/// The C form of a range.
pub(crate) fn range_code(r: &RegisterRange) -> dxbc2spv_register_range {
    dxbc2spv_register_range {
        kind: r.kind.index(),
        space: r.space,
        first: r.first,
        count: count_code(r.count),
    }
}

/// The Rust form of a C target; `field` names it in errors.
pub(crate) fn target(t: &dxbc2spv_binding_target, field: &str) -> Result<BindingTarget, Failure> {
    match t.kind {
        DXBC2SPV_BINDING_DESCRIPTOR => Ok(BindingTarget::Descriptor(VulkanBinding {
            set: t.set,
            binding: t.binding,
            array_offset: t.array_offset,
            descriptor_count: count(t.descriptor_count),
        })),
        DXBC2SPV_BINDING_PUSH_CONSTANTS => Ok(BindingTarget::PushConstants(PushConstants {
            offset: t.push_offset,
            size: t.push_size,
        })),
        DXBC2SPV_BINDING_HEAP => Ok(BindingTarget::Heap(HeapBinding {
            set: t.set,
            binding: t.binding,
            base_offset: t.heap_base_offset,
            array_offset: t.array_offset,
        })),
        DXBC2SPV_BINDING_DEVICE_ADDRESS => Ok(BindingTarget::DeviceAddress(DeviceAddress {
            offset: t.push_offset,
        })),
        v => Err(Failure::invalid_argument(format!(
            "options: {field}.kind = {v} is not a known value"
        ))),
    }
}

/// The C form of a target.
pub(crate) fn target_code(t: &BindingTarget) -> dxbc2spv_binding_target {
    match t {
        BindingTarget::Descriptor(b) => dxbc2spv_binding_target {
            kind: DXBC2SPV_BINDING_DESCRIPTOR,
            set: b.set,
            binding: b.binding,
            array_offset: b.array_offset,
            descriptor_count: count_code(b.descriptor_count),
            ..Default::default()
        },
        BindingTarget::PushConstants(p) => dxbc2spv_binding_target {
            kind: DXBC2SPV_BINDING_PUSH_CONSTANTS,
            push_offset: p.offset,
            push_size: p.size,
            ..Default::default()
        },
        BindingTarget::Heap(h) => dxbc2spv_binding_target {
            kind: DXBC2SPV_BINDING_HEAP,
            set: h.set,
            binding: h.binding,
            array_offset: h.array_offset,
            descriptor_count: DXBC2SPV_UNBOUNDED,
            heap_base_offset: h.base_offset,
            ..Default::default()
        },
        BindingTarget::DeviceAddress(d) => dxbc2spv_binding_target {
            kind: DXBC2SPV_BINDING_DEVICE_ADDRESS,
            push_offset: d.offset,
            ..Default::default()
        },
    }
}

fn binding_failure(e: &BindingError) -> Failure {
    Failure::invalid_argument(format!("options: binding table: {e}"))
}

/// # Safety
/// The block's arrays hold their counts of elements.
pub(crate) unsafe fn table(block: &dxbc2spv_binding_table) -> Result<Bindings, Failure> {
    // SAFETY: the caller's contract.
    let entries = unsafe { slice(block.entries, block.entry_count) }
        .ok_or_else(|| Failure::invalid_argument("options: binding_table.entries is NULL"))?;
    // SAFETY: the caller's contract.
    let roots = match unsafe { slice(block.root_constants, block.root_constant_count) } {
        Some(r) => r,
        None if block.root_constant_count == 0 => &[],
        None => {
            return Err(Failure::invalid_argument(
                "options: binding_table.root_constants is NULL",
            ))
        }
    };
    let mut rows = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let r = range(&e.range, &format!("binding_table.entries[{i}].range"))?;
        rows.push(TableEntry::new(r, e.set, e.binding, e.array_offset));
    }
    let roots = roots
        .iter()
        .map(|r| RootConstantsEntry {
            space: r.space,
            register: r.register_,
            push_constants: PushConstants {
                offset: r.offset,
                size: r.size,
            },
        })
        .collect();
    let table = TableBindings::new(rows, roots).map_err(|e| binding_failure(&e))?;
    Ok(Bindings::Table(table))
}

/// # Safety
/// `block.data` holds `block.size` bytes.
pub(crate) unsafe fn root_signature(block: &dxbc2spv_root_signature) -> Result<Bindings, Failure> {
    // SAFETY: the caller's contract.
    let bytes = unsafe { slice(block.data.cast::<u8>(), block.size) }
        .ok_or_else(|| Failure::invalid_argument("options: root_signature.data is NULL"))?;
    let parse = ParseOptions {
        verify_checksum: false,
    };
    let container = Container::parse(bytes, &parse)
        .map_err(|e| Failure::invalid_argument(format!("options: root_signature: {e}")))?;
    let rs = container
        .root_signature()
        .ok_or_else(|| {
            Failure::invalid_argument("options: root_signature: the container has no RTS0 chunk")
        })?
        .map_err(|e| Failure::invalid_argument(format!("options: root_signature: {e}")))?;
    Ok(Bindings::RootSignature(Box::new(rs)))
}

/// A C callback as a [`BindingMap`].
#[derive(Clone, Debug)]
pub(crate) struct CallbackMap {
    callback: unsafe extern "C" fn(
        *mut c_void,
        *const dxbc2spv_register_range,
        *mut dxbc2spv_binding_target,
    ) -> c_int,
    user_data: *mut c_void,
    /// The caller's key bytes (for the fingerprint), if given.
    pub(crate) key: Option<Vec<u8>>,
}

/// # Safety
/// `block.key` is NULL or holds `block.key_size` bytes.
pub(crate) fn callback(block: &dxbc2spv_binding_callback) -> Result<CallbackMap, Failure> {
    let callback = block
        .callback
        .ok_or_else(|| Failure::invalid_argument("options: binding_callback.callback is NULL"))?;
    // SAFETY: the header's contract for `key`/`key_size`.
    let key = unsafe { slice(block.key.cast::<u8>(), block.key_size) }
        .filter(|k| !k.is_empty())
        .map(<[u8]>::to_vec);
    Ok(CallbackMap {
        callback,
        user_data: block.user_data,
        key,
    })
}

impl BindingMap for CallbackMap {
    fn map(&self, range: &RegisterRange) -> Result<BindingTarget, BindingError> {
        let c_range = range_code(range);
        let mut out = dxbc2spv_binding_target::default();
        // SAFETY: the caller gave a callback that takes its own user data, a range and a
        // writable target, valid for the call.
        let status = unsafe { (self.callback)(self.user_data, &c_range, &mut out) };
        if status != 0 {
            return Err(BindingError::Unmapped { range: *range });
        }
        target(&out, "binding callback's target").map_err(|_| BindingError::Invalid {
            range: *range,
            reason: "the binding callback answered an unknown target kind",
        })
    }
}

// SAFETY: a `CallbackMap` is only reachable from the `Options` of one translate call (built
// by `resolve` for that call and dropped with it); the translator calls it on the calling
// thread, during the call, as the header promises the caller.
unsafe impl Send for CallbackMap {}
// SAFETY: as for `Send`: the map is never used from two threads.
unsafe impl Sync for CallbackMap {}

/// The options to translate with: `converted.options`, with a callback's map as
/// [`Bindings::Custom`] (asked about every range; its answers are used as they are).
pub(crate) fn resolve(converted: &Converted) -> Options {
    let mut options = converted.options.clone();
    if let Some(map) = &converted.callback {
        options.bindings = Bindings::custom(map.clone());
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{
        convert, dxbc2spv_class_linkage, dxbc2spv_options, dxbc2spv_stream_output,
        dxbc2spv_stream_output_entry, DXBC2SPV_STRUCTURE_TYPE_BINDING_TABLE,
        DXBC2SPV_STRUCTURE_TYPE_CLASS_LINKAGE, DXBC2SPV_STRUCTURE_TYPE_STREAM_OUTPUT,
    };

    fn defaults() -> dxbc2spv_options {
        let mut c = std::mem::MaybeUninit::<dxbc2spv_options>::uninit();
        // SAFETY: writable.
        unsafe { crate::dxbc2spv_options_init(c.as_mut_ptr()) };
        // SAFETY: initialised.
        unsafe { c.assume_init() }
    }

    /// A table, stream output and class-linkage block chained together reach the Rust options.
    #[test]
    fn chained_blocks_reach_the_rust_options() {
        let entries = [dxbc2spv_table_entry {
            range: dxbc2spv_register_range {
                kind: DXBC2SPV_RESOURCE_SRV,
                space: 1,
                first: 10,
                count: DXBC2SPV_UNBOUNDED,
            },
            set: 2,
            binding: 3,
            array_offset: 4,
        }];
        let roots = [dxbc2spv_root_constants {
            space: 0,
            register_: 1,
            offset: 16,
            size: 32,
        }];
        let so_entries = [dxbc2spv_stream_output_entry {
            stream: 0,
            semantic_name: c"SV_Position".as_ptr(),
            semantic_index: 0,
            start_component: 0,
            component_count: 4,
            output_slot: 1,
        }];
        let linkage = dxbc2spv_class_linkage {
            stype: DXBC2SPV_STRUCTURE_TYPE_CLASS_LINKAGE,
            next: std::ptr::null(),
            block: dxbc2spv_binding_target {
                kind: DXBC2SPV_BINDING_DESCRIPTOR,
                set: 7,
                binding: 8,
                descriptor_count: 1,
                ..Default::default()
            },
        };
        let so = dxbc2spv_stream_output {
            stype: DXBC2SPV_STRUCTURE_TYPE_STREAM_OUTPUT,
            next: std::ptr::from_ref(&linkage).cast(),
            entries: so_entries.as_ptr(),
            entry_count: 1,
            strides: [0, 16, 0, 0],
            rasterized_stream: -1,
        };
        let table = dxbc2spv_binding_table {
            stype: DXBC2SPV_STRUCTURE_TYPE_BINDING_TABLE,
            next: std::ptr::from_ref(&so).cast(),
            entries: entries.as_ptr(),
            entry_count: 1,
            root_constants: roots.as_ptr(),
            root_constant_count: 1,
        };
        let mut c = defaults();
        c.next = std::ptr::from_ref(&table).cast();
        // SAFETY: a valid chain.
        let o = unsafe { convert(&c) }
            .map_err(|f| f.message)
            .expect("converts")
            .options;
        let t = o
            .bindings
            .map(&RegisterRange::single(ResourceKind::ShaderResource, 1, 12));
        let expected = VulkanBinding {
            set: 2,
            binding: 3,
            array_offset: 6,
            descriptor_count: Count::Unbounded,
        };
        assert_eq!(t, Ok(BindingTarget::Descriptor(expected)));
        let cb = o
            .bindings
            .map(&RegisterRange::single(ResourceKind::ConstantBuffer, 0, 1));
        let push = PushConstants {
            offset: 16,
            size: 32,
        };
        assert_eq!(cb, Ok(BindingTarget::PushConstants(push)));
        let so = o.stream_output.expect("stream output");
        assert_eq!(so.strides, [0, 16, 0, 0]);
        assert_eq!(so.rasterized_stream, None);
        assert_eq!(so.entries[0].semantic_name.as_deref(), Some("SV_Position"));
        assert_eq!(so.entries[0].output_slot, 1);
        let block = VulkanBinding {
            set: 7,
            binding: 8,
            array_offset: 0,
            descriptor_count: Count::Bounded(1),
        };
        assert_eq!(o.class_linkage.block, BindingTarget::Descriptor(block));

        // Two binding maps exclude each other; an overlapping table is named.
        let second = dxbc2spv_binding_table {
            next: std::ptr::null(),
            stype: DXBC2SPV_STRUCTURE_TYPE_BINDING_TABLE,
            ..table
        };
        let callback = dxbc2spv_binding_callback {
            stype: crate::options::DXBC2SPV_STRUCTURE_TYPE_BINDING_CALLBACK,
            next: std::ptr::from_ref(&second).cast(),
            callback: None,
            user_data: std::ptr::null_mut(),
            key: std::ptr::null(),
            key_size: 0,
        };
        c.next = std::ptr::from_ref(&callback).cast();
        // SAFETY: a valid chain.
        let e = unsafe { convert(&c) }
            .err()
            .map(|f| f.message)
            .unwrap_or_default();
        assert_eq!(e, "options: binding_callback.callback is NULL");
        let overlapping = [entries[0], entries[0]];
        let bad = dxbc2spv_binding_table {
            entries: overlapping.as_ptr(),
            entry_count: 2,
            ..second
        };
        c.next = std::ptr::from_ref(&bad).cast();
        // SAFETY: a valid chain.
        let e = unsafe { convert(&c) }
            .err()
            .map(|f| f.message)
            .unwrap_or_default();
        assert!(
            e.starts_with("options: binding table: binding table maps t10"),
            "{e}"
        );
    }

    /// Every target kind survives C → Rust → C; a heap target keeps its table base offset and
    /// reads as an unbounded runtime array; an unknown kind is named.
    #[test]
    fn target_kinds_round_trip() {
        let heap = dxbc2spv_binding_target {
            kind: DXBC2SPV_BINDING_HEAP,
            set: 1,
            binding: 2,
            array_offset: 5,
            heap_base_offset: 8,
            ..Default::default()
        };
        let rust = target(&heap, "t").map_err(|f| f.message).expect("converts");
        let expected = HeapBinding {
            set: 1,
            binding: 2,
            base_offset: 8,
            array_offset: 5,
        };
        assert_eq!(rust, BindingTarget::Heap(expected));
        let back = target_code(&rust);
        assert_eq!(
            back,
            dxbc2spv_binding_target {
                descriptor_count: DXBC2SPV_UNBOUNDED,
                ..heap
            }
        );
        let address = dxbc2spv_binding_target {
            kind: DXBC2SPV_BINDING_DEVICE_ADDRESS,
            push_offset: 16,
            ..Default::default()
        };
        let rust = target(&address, "t")
            .map_err(|f| f.message)
            .expect("converts");
        assert_eq!(
            rust,
            BindingTarget::DeviceAddress(DeviceAddress { offset: 16 })
        );
        assert_eq!(target_code(&rust), address);
        let e = target(&dxbc2spv_binding_target { kind: 9, ..heap }, "x")
            .err()
            .map(|f| f.message);
        assert_eq!(
            e.as_deref(),
            Some("options: x.kind = 9 is not a known value")
        );
    }

    /// A root-signature block needs a container with an `RTS0` chunk; what is wrong is named.
    #[test]
    fn root_signature_block_names_what_is_wrong() {
        let sample = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/samples/vs40_passthrough.dxbc"
        ))
        .expect("sample");
        let block = |data: &[u8]| dxbc2spv_root_signature {
            stype: crate::options::DXBC2SPV_STRUCTURE_TYPE_ROOT_SIGNATURE,
            next: std::ptr::null(),
            data: data.as_ptr().cast(),
            size: data.len(),
        };
        // SAFETY: the block's data holds its size.
        let e = unsafe { root_signature(&block(&sample)) }
            .err()
            .map(|f| f.message);
        assert_eq!(
            e.as_deref(),
            Some("options: root_signature: the container has no RTS0 chunk")
        );
        // SAFETY: as above.
        let e = unsafe { root_signature(&block(b"DXBC")) }
            .err()
            .map(|f| f.message);
        assert!(e.is_some_and(|e| e.starts_with("options: root_signature: at 0x")));
    }
}
