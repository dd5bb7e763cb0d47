//! `[descriptors]`: the descriptor-type choices a case asks the translator for
//! (`dxbc2spv::Options::texel_raw_buffers`, `storage_buffer_alignment`, `typed_uav_formats`;
//! docs/runtime.md, "Buffer descriptor types and alignment").
//!
//! ```toml
//! [descriptors]
//! raw_srv_as_texel = true          # raw/structured t# as uniform texel buffers
//! raw_uav_as_texel = true          # raw/structured u# as storage texel buffers
//! min_ssbo_alignment = 256         # fix-up block, bound from the case's cb15 buffer
//! uav_formats = { u0 = "r32f" }    # declared formats of typed UAVs (SPIR-V spelling)
//! uav_format_unlisted = "r32"      # "unknown" (default) or "r32" (R32 of the return type)
//! uav_formats_written_only = false
//! ```
//!
//! Contract: [`parse`] refuses unknown keys, formats and registers; [`CaseDescriptors::apply`]
//! sets the three options (the fix-up block at the stage's default set, binding 15); without
//! the table every option keeps its default.

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Result};
use serde::Deserialize;

use dxbc2spv::bindings::{BindingTarget, Count, VulkanBinding};
use dxbc2spv::{
    FixupBlock, Options, StorageBufferAlignment, TexelRawBuffers, TypedUavFormats, UavFormat,
    UnlistedUavFormat,
};

use crate::compute::DescriptorKind;
use crate::conformance::shader::{
    BindingTarget as ShaderTarget, Register, RegisterClass, ShaderBinding,
};

/// The register the runner binds the fix-up block from: the case's `cb15` buffer (binding 15
/// of the stage's set, which the D3D11 default layout leaves free).
pub const FIXUP_REGISTER: u32 = 15;

/// The `[descriptors]` table as written.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DescriptorsToml {
    #[serde(default)]
    raw_srv_as_texel: bool,
    #[serde(default)]
    raw_uav_as_texel: bool,
    min_ssbo_alignment: Option<u32>,
    #[serde(default)]
    uav_formats: BTreeMap<String, String>,
    uav_format_unlisted: Option<String>,
    #[serde(default)]
    uav_formats_written_only: bool,
}

/// The choices of one case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaseDescriptors {
    /// Raw/structured views as texel buffers.
    pub texel_raw_buffers: TexelRawBuffers,
    /// `minStorageBufferOffsetAlignment` to translate for (the fix-up block).
    pub min_ssbo_alignment: Option<u32>,
    /// Typed UAV formats.
    pub typed_uav_formats: TypedUavFormats,
}

/// Checks and converts the table.
pub fn parse(raw: Option<DescriptorsToml>) -> Result<CaseDescriptors> {
    let Some(raw) = raw else {
        return Ok(CaseDescriptors::default());
    };
    if let Some(a) = raw.min_ssbo_alignment {
        if !a.is_power_of_two() || a > 256 {
            bail!("min_ssbo_alignment {a} is not a power of two up to 256");
        }
    }
    let mut formats = Vec::new();
    for (reg, name) in &raw.uav_formats {
        let r = Register::parse(reg)?;
        if r.class != RegisterClass::Uav {
            bail!("uav_formats: {reg} is not a u# register");
        }
        let f = UavFormat::from_name(name).ok_or_else(|| {
            anyhow!(
                "uav_formats: unknown format {name:?} (SPIR-V spelling: {})",
                UavFormat::ALL.map(|f| f.name()).join(", ")
            )
        })?;
        formats.push(((r.space, r.index), f));
    }
    let unlisted = match raw.uav_format_unlisted.as_deref() {
        None | Some("unknown") => UnlistedUavFormat::Unknown,
        Some("r32") => UnlistedUavFormat::R32OfReturnType,
        Some(other) => bail!("uav_format_unlisted {other:?} is not \"unknown\" or \"r32\""),
    };
    Ok(CaseDescriptors {
        texel_raw_buffers: TexelRawBuffers {
            srv: raw.raw_srv_as_texel,
            uav: raw.raw_uav_as_texel,
        },
        min_ssbo_alignment: raw.min_ssbo_alignment,
        typed_uav_formats: TypedUavFormats {
            formats,
            unlisted,
            written_only: raw.uav_formats_written_only,
        },
    })
}

impl CaseDescriptors {
    /// `options` with these choices; the fix-up block at `set`, binding [`FIXUP_REGISTER`].
    pub fn apply(&self, options: Options, set: u32) -> Options {
        let alignment = self
            .min_ssbo_alignment
            .map(|alignment| StorageBufferAlignment {
                alignment,
                block: BindingTarget::Descriptor(VulkanBinding {
                    set,
                    binding: FIXUP_REGISTER,
                    ..StorageBufferAlignment::DEFAULT_BINDING
                }),
            });
        options
            .with_texel_raw_buffers(self.texel_raw_buffers)
            .with_storage_buffer_alignment(alignment)
            .with_typed_uav_formats(self.typed_uav_formats.clone())
    }
}

/// The runner's binding of a shader's fix-up block: the case's `cb15` buffer (space 0), a
/// uniform buffer at the block's set and binding.
pub fn fixup_binding(block: &FixupBlock) -> Result<ShaderBinding> {
    let BindingTarget::Descriptor(b) = block.target else {
        bail!("the fix-up block is in push constants, which the runner cannot bind");
    };
    Ok(ShaderBinding {
        target: ShaderTarget::Resource(Register {
            class: RegisterClass::Cbv,
            index: FIXUP_REGISTER,
            space: 0,
        }),
        count: Count::Bounded(1),
        set: b.set,
        binding: b.binding,
        array_offset: 0,
        descriptor_count: Count::Bounded(1),
        kind: DescriptorKind::UniformBuffer,
        texel_format: None,
        dimension: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<CaseDescriptors> {
        parse(Some(toml::from_str(text)?))
    }

    #[test]
    fn parses_each_key_and_refuses_bad_values() {
        let d = parse_text(
            "raw_srv_as_texel = true\nmin_ssbo_alignment = 256\n\
             uav_formats = { u0 = \"r32f\", \"u2, space1\" = \"rgba8\" }\nuav_format_unlisted = \"r32\"",
        )
        .expect("parses");
        assert!(d.texel_raw_buffers.srv && !d.texel_raw_buffers.uav);
        assert_eq!(d.min_ssbo_alignment, Some(256));
        assert_eq!(d.typed_uav_formats.listed(0, 0), Some(UavFormat::R32f));
        assert_eq!(d.typed_uav_formats.listed(1, 2), Some(UavFormat::Rgba8));
        assert_eq!(
            d.typed_uav_formats.unlisted,
            UnlistedUavFormat::R32OfReturnType
        );
        for bad in [
            "min_ssbo_alignment = 48",
            "min_ssbo_alignment = 512",
            "uav_formats = { t0 = \"r32f\" }",
            "uav_formats = { u0 = \"bgra8\" }",
            "uav_format_unlisted = \"r16\"",
            "raw_as_texel = true",
        ] {
            assert!(parse_text(bad).is_err(), "{bad} parsed");
        }
        assert_eq!(parse(None).expect("empty"), CaseDescriptors::default());
    }
}
