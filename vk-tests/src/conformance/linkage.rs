//! Case keys for the translator's runtime-linkage options: `[[class_instance]]` rows (SM5
//! class instances bound at translation time, `dxbc2spv::bindings::ClassLinkage::bound`) and
//! `[custom_map]` (a caller-supplied binding map, `dxbc2spv::bindings::Bindings::from_fn`).
//!
//! Contract: [`linkage`] checks and turns the rows into a [`Linkage`]; the translator applies
//! it with [`Linkage::class_linkage`] and [`Linkage::bindings`]. Without rows, nothing changes.
//! The custom map places every range of the stage's descriptor set at binding
//! `base + 5 × register + kind` (kind 0 `b`, 1 `t`, 2 `u`, 3 `s`, 4 UAV counter): a layout no
//! built-in map gives, which the runner binds from the translation's reflection as usual.

use anyhow::{bail, Result};
use serde::Deserialize;

use dxbc2spv::bindings::{
    BindingError, BindingTarget, Bindings, ClassInstance, ClassLinkage, Count, VulkanBinding,
};

/// `[[class_instance]]`: the instance bound to one interface slot.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassInstanceToml {
    /// The interface slot.
    slot: u32,
    /// The instance's function table (`ft#`); absent: the slot has no instance.
    table: Option<u32>,
    /// Its constant buffer (`cb#`).
    #[serde(default)]
    cb: u32,
    /// Its data's offset in that buffer, in 16-byte vectors.
    #[serde(default)]
    offset: u32,
    /// Its first texture (`t#`).
    #[serde(default)]
    texture: u32,
    /// Its first sampler (`s#`).
    #[serde(default)]
    sampler: u32,
}

/// `[custom_map]`: translate with a caller-supplied map.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomMapToml {
    /// The binding of register 0 of kind 0.
    #[serde(default)]
    base: u32,
}

/// What a case asks of the translator's linkage options.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Linkage {
    /// Bound class instances, by slot (`None`: run-time dispatch).
    pub instances: Option<Vec<Option<ClassInstance>>>,
    /// The custom map's base binding (`None`: the runner's usual map).
    pub custom_base: Option<u32>,
}

/// Checks the rows: each slot once.
pub fn linkage(rows: Vec<ClassInstanceToml>, custom: Option<CustomMapToml>) -> Result<Linkage> {
    let mut instances: Option<Vec<Option<ClassInstance>>> = None;
    let mut seen = Vec::new();
    for row in rows {
        if seen.contains(&row.slot) {
            bail!("[[class_instance]] slot {} is given twice", row.slot);
        }
        seen.push(row.slot);
        let slots = instances.get_or_insert_with(Vec::new);
        let i = row.slot as usize;
        if slots.len() <= i {
            slots.resize(i + 1, None);
        }
        slots[i] = row.table.map(|table| ClassInstance {
            table,
            constant_buffer: row.cb,
            constant_offset: row.offset,
            base_texture: row.texture,
            base_sampler: row.sampler,
        });
    }
    Ok(Linkage {
        instances,
        custom_base: custom.map(|c| c.base),
    })
}

impl Linkage {
    /// The class linkage to translate with, when the case binds instances.
    pub fn class_linkage(&self) -> Option<ClassLinkage> {
        self.instances.clone().map(ClassLinkage::bound)
    }

    /// The custom map for a stage whose descriptor set is `set`, when the case asks for one.
    pub fn bindings(&self, set: u32) -> Option<Bindings> {
        let base = self.custom_base?;
        Some(Bindings::from_fn(move |range| {
            let (Count::Bounded(1), Some(binding)) = (
                range.count,
                (range.first.checked_mul(5))
                    .and_then(|b| b.checked_add(base))
                    .and_then(|b| b.checked_add(range.kind.index())),
            ) else {
                return Err(BindingError::Unmapped { range: *range });
            };
            Ok(BindingTarget::Descriptor(VulkanBinding {
                set,
                binding,
                array_offset: 0,
                descriptor_count: Count::Bounded(1),
            }))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dxbc2spv::bindings::{BindingMap, RegisterRange, ResourceKind};

    fn rows(text: &str) -> Linkage {
        #[derive(Deserialize)]
        struct Rows {
            #[serde(default)]
            class_instance: Vec<ClassInstanceToml>,
            custom_map: Option<CustomMapToml>,
        }
        let rows: Rows = toml::from_str(text).expect("parses");
        linkage(rows.class_instance, rows.custom_map).expect("checks")
    }

    /// Slots by number, a row without `table` leaving its slot empty; a slot twice fails.
    #[test]
    fn class_instance_rows_become_bound_instances_by_slot() {
        let l = rows(
            "[[class_instance]]\nslot = 2\ntable = 1\ncb = 3\noffset = 4\ntexture = 5\n\
             sampler = 6\n[[class_instance]]\nslot = 0\n",
        );
        let expected = ClassInstance {
            table: 1,
            constant_buffer: 3,
            constant_offset: 4,
            base_texture: 5,
            base_sampler: 6,
        };
        assert_eq!(l.instances, Some(vec![None, None, Some(expected)]));
        assert_eq!(rows("").class_linkage(), None);
        let dup = vec![
            ClassInstanceToml {
                slot: 1,
                table: Some(0),
                cb: 0,
                offset: 0,
                texture: 0,
                sampler: 0,
            };
            2
        ];
        assert!(linkage(dup, None).is_err());
    }

    /// The custom map: binding base + 5 × register + kind in the stage's set.
    #[test]
    fn the_custom_map_interleaves_kinds_by_register() {
        let map = rows("[custom_map]\nbase = 3\n").bindings(2).expect("a map");
        let at = |kind, register| {
            map.map(&RegisterRange::single(kind, 0, register))
                .ok()
                .and_then(|t| t.descriptor())
                .map(|b| (b.set, b.binding))
        };
        assert_eq!(at(ResourceKind::ConstantBuffer, 1), Some((2, 8)));
        assert_eq!(at(ResourceKind::ShaderResource, 2), Some((2, 14)));
        assert_eq!(at(ResourceKind::UnorderedAccess, 0), Some((2, 5)));
        assert_eq!(at(ResourceKind::UavCounter, 0), Some((2, 7)));
        assert!(rows("").bindings(0).is_none());
    }
}
