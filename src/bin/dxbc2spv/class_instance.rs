//! `translate --class-instance SLOT=TABLE[,CB,OFFSET,TEXTURE,SAMPLER]`: the SM5 class
//! instances bound per interface slot (`docs/runtime.md`, "Class linkage"), parsed into the
//! library's [`ClassLinkage::bound`]. `SLOT=none` leaves a slot without an instance; slots not
//! named have none either.

use anyhow::{anyhow, bail, Context, Result};
use dxbc2spv::bindings::{ClassInstance, ClassLinkage};

/// One `--class-instance` value: the slot and its instance (`None` for `none`).
pub fn parse(text: &str) -> Result<(u32, Option<ClassInstance>)> {
    let (slot, rest) = text
        .split_once('=')
        .ok_or_else(|| anyhow!("{text:?}: expected SLOT=TABLE[,CB,OFFSET,TEXTURE,SAMPLER]"))?;
    let number = |what: &str, s: &str| -> Result<u32> {
        s.trim()
            .parse::<u32>()
            .with_context(|| format!("{text:?}: {what} {s:?} is not a number"))
    };
    let slot = number("slot", slot)?;
    if rest.trim() == "none" {
        return Ok((slot, None));
    }
    let fields: Vec<&str> = rest.split(',').collect();
    if fields.len() != 1 && fields.len() != 5 {
        bail!("{text:?}: expected TABLE or TABLE,CB,OFFSET,TEXTURE,SAMPLER");
    }
    let field =
        |i: usize, what: &str| -> Result<u32> { fields.get(i).map_or(Ok(0), |s| number(what, s)) };
    Ok((
        slot,
        Some(ClassInstance {
            table: field(0, "table")?,
            constant_buffer: field(1, "constant buffer")?,
            constant_offset: field(2, "offset")?,
            base_texture: field(3, "texture")?,
            base_sampler: field(4, "sampler")?,
        }),
    ))
}

/// The class linkage the `--class-instance` values give: run-time dispatch (the default) when
/// there are none, else the instances by slot. A slot given twice is an error.
pub fn linkage(values: &[(u32, Option<ClassInstance>)]) -> Result<ClassLinkage> {
    if values.is_empty() {
        return Ok(ClassLinkage::default());
    }
    let mut slots: Vec<Option<Option<ClassInstance>>> = Vec::new();
    for &(slot, instance) in values {
        let i = usize::try_from(slot)?;
        if slots.len() <= i {
            slots.resize(i + 1, None);
        }
        if slots[i].replace(instance).is_some() {
            bail!("interface slot {slot} is given twice");
        }
    }
    Ok(ClassLinkage::bound(slots.into_iter().map(Option::flatten)))
}
