//! Root descriptors as buffer device addresses in a case (`docs/conformance.md`, "Root
//! descriptors as device addresses"): `[[root_descriptor]]` rows (`register = "u0"`, `offset =
//! 8`) map a case buffer's register to the 64-bit device address at that byte of the push
//! constants (added to the case's binding table as `dxbc2spv::bindings::RootDescriptorEntry`s);
//! before the work the runner writes each buffer's `vkGetBufferDeviceAddress` there (low word
//! first) over the `[push_constants]` words.

use anyhow::{anyhow, bail, Result};
use serde::Deserialize;

use dxbc2spv::bindings::{
    BindingMap, BindingTarget as VkTarget, RegisterRange, ResourceKind, RootDescriptorEntry,
    TableBindings,
};

use super::case::BufferSpec;
use super::shader::{BindingTarget, RegisterClass};
use super::table::{register_in_space, BindingTable};
use crate::buffer::Buffer;

/// A `[[root_descriptor]]` row as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RootDescriptorToml {
    register: String,
    space: Option<u32>,
    offset: u32,
}

/// A case's root descriptors: (index of the case buffer, push-constant byte of its address).
pub type Addresses = Vec<(usize, u32)>;

/// Adds the `[[root_descriptor]]` rows to `table` (a table of them alone without `[[binding]]`
/// rows) and finds each row's case buffer; `push` must hold the 8 bytes of each address.
pub(super) fn add_root_descriptors(
    table: Option<BindingTable>,
    rows: Vec<RootDescriptorToml>,
    push: &[u32],
    buffers: &[BufferSpec],
) -> Result<(Option<BindingTable>, Addresses)> {
    if rows.is_empty() {
        return Ok((table, Vec::new()));
    }
    let mut table = match table {
        Some(t) => t,
        None => BindingTable {
            rows: Vec::new(),
            table: TableBindings::new(Vec::new(), Vec::new())
                .map_err(|e| anyhow!("empty binding table: {e}"))?,
            push: push.to_vec(),
        },
    };
    let mut entries = Vec::new();
    let mut addresses = Vec::new();
    for r in rows {
        let register = register_in_space(&r.register, r.space)?;
        let kind = match register.class {
            RegisterClass::Cbv => ResourceKind::ConstantBuffer,
            RegisterClass::Srv => ResourceKind::ShaderResource,
            RegisterClass::Uav => ResourceKind::UnorderedAccess,
            RegisterClass::Sampler => bail!("[[root_descriptor]] {}: a sampler", r.register),
        };
        let end = r.offset.saturating_add(8) as usize;
        if end > push.len() * 4 {
            bail!(
                "[[root_descriptor]] {}: its address at bytes {}..{end} is past the {} bytes of \
                 [push_constants]",
                r.register,
                r.offset,
                push.len() * 4
            );
        }
        let Some(index) = buffers.iter().position(|b| b.register == register) else {
            bail!(
                "[[root_descriptor]] {}: the case has no such buffer",
                r.register
            );
        };
        entries.push(RootDescriptorEntry {
            range: RegisterRange::single(kind, register.space, register.index),
            offset: r.offset,
        });
        addresses.push((index, r.offset));
    }
    table.table = TableBindings::with_root_descriptors(
        table.table.entries().to_vec(),
        table.table.root_constants().to_vec(),
        entries,
    )
    .map_err(|e| anyhow!("the translator rejects the root descriptors: {e}"))?;
    Ok((Some(table), addresses))
}

/// The push-constant words with each root descriptor's buffer address written at its byte.
pub(super) fn push_with_addresses(
    push: &[u32],
    addresses: &[(usize, u32)],
    buffers: &[Buffer<'_>],
) -> Result<Vec<u32>> {
    let mut words = push.to_vec();
    for &(index, offset) in addresses {
        let buffer = buffers
            .get(index)
            .ok_or_else(|| anyhow!("root descriptor of buffer {index}: no such buffer"))?;
        let address = buffer.device_address()?;
        let at = (offset / 4) as usize;
        match words.get_mut(at..at + 2) {
            Some([lo, hi]) => {
                *lo = address as u32;
                *hi = (address >> 32) as u32;
            }
            _ => bail!("root descriptor address at byte {offset} is past the push constants"),
        }
    }
    Ok(words)
}

impl BindingTable {
    /// True when the table maps `target` to a device address (a root descriptor: no
    /// descriptor to place).
    pub fn is_address(&self, target: BindingTarget) -> bool {
        let (kind, r) = match target {
            BindingTarget::Counter(_) => return false,
            BindingTarget::Resource(r) => (
                match r.class {
                    RegisterClass::Srv => ResourceKind::ShaderResource,
                    RegisterClass::Uav => ResourceKind::UnorderedAccess,
                    RegisterClass::Cbv => ResourceKind::ConstantBuffer,
                    RegisterClass::Sampler => return false,
                },
                r,
            ),
        };
        matches!(
            self.table
                .map(&RegisterRange::single(kind, r.space, r.index)),
            Ok(VkTarget::DeviceAddress(_))
        )
    }
}
