//! The real translator behind [`DxbcTranslator`]: `dxbc2spv::translate`, with the case's
//! binding table (`[[binding]]` rows, D3D12 style, the same for every stage) or else its
//! requested placements layered over the D3D11-style default binding map (in the stage's own
//! descriptor set, [`super::shader::Stage::d3d11_set`]), stream output and the hull-shader
//! schedule passed through, and the translation's reflection turned into the runner's
//! [`ShaderBinding`]s (register ranges with their array elements).

use anyhow::{anyhow, Context, Result};

use dxbc2spv::back::spirv::DescriptorType;
use dxbc2spv::bindings::{
    BindingTarget as VkTarget, Bindings, D3d11Bindings, RegisterRange, ResourceKind, TableBindings,
    TableEntry,
};
use dxbc2spv::ir::{Dimension, ResourceShape};
use dxbc2spv::{FloatControls, OptionFlags, Options, RovInterlock, Target};

use super::shader::{
    BindingTarget, CompiledShader, DxbcInput, DxbcTranslator, Register, RegisterClass,
    RequestedBinding, ShaderBinding,
};
use super::textures::TextureDim;
use crate::compute::DescriptorKind;

/// `dxbc2spv::translate` as a [`DxbcTranslator`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Dxbc2Spv;

impl DxbcTranslator for Dxbc2Spv {
    fn translate(&self, input: &DxbcInput<'_>) -> Result<CompiledShader> {
        let target = Target::from_name(input.target_env)
            .or(match input.target_env {
                "vulkan1.1spv1.4" => Some(Target::Vulkan1_1),
                _ => None,
            })
            .ok_or_else(|| anyhow!("no dxbc2spv target for {}", input.target_env))?;
        // What a D3D runtime asks of the device: IEEE specials, fp32 denormal flush, fp64
        // denormals kept, wherever the device can promise them.
        let has = |name: &str| input.features.is_some_and(|f| f.supports(name));
        let options = Options::default()
            .with_bindings(match input.table {
                Some(table) => Bindings::Table(table.clone()),
                None => binding_map(input.requested_bindings, input.set)?,
            })
            .with_target(target)
            .with_float_controls(FloatControls {
                preserve_inf_nan_f32: has("shaderSignedZeroInfNanPreserveFloat32"),
                preserve_inf_nan_f64: has("shaderSignedZeroInfNanPreserveFloat64"),
                flush_denorm_f32: has("shaderDenormFlushToZeroFloat32"),
                preserve_denorm_f64: has("shaderDenormPreserveFloat64"),
            })
            .with_stream_output(input.stream_output.cloned())
            // D3D's discard keeps the pixel running as a helper; that needs
            // shaderDemoteToHelperInvocation (enabled whenever the device has it).
            .with_flag(
                OptionFlags::DEMOTE_TO_HELPER,
                input.features.is_none() || has("shaderDemoteToHelperInvocation"),
            )
            // Point-emitting geometry shaders write PointSize exactly when the runner enabled
            // shaderTessellationAndGeometryPointSize (it does whenever the device has it).
            .with_flag(
                OptionFlags::GEOMETRY_POINT_SIZE,
                input.features.is_none() || has("shaderTessellationAndGeometryPointSize"),
            )
            // Rasterizer-ordered views: the interlock the device has (the runner enables it
            // whenever the device has it); none: a ROV shader fails to translate.
            .with_rov_interlock(match input.features {
                None => RovInterlock::Pixel,
                Some(_)
                    if has("fragmentShaderPixelInterlock")
                        && has("fragmentShaderSampleInterlock") =>
                {
                    RovInterlock::PixelAndSample
                }
                Some(_) if has("fragmentShaderPixelInterlock") => RovInterlock::Pixel,
                Some(_) => RovInterlock::Off,
            })
            // The runner runs cases with a translated hull shader once per schedule.
            .with_hull_schedule(input.hull_schedule)
            .with_pipeline_state(input.pipeline_state.copied().unwrap_or_default())
            .with_d3d9_state(input.d3d9_state.copied().unwrap_or_default());
        let options = match input.linking {
            Some((linking, workarounds)) => options
                .with_linking(linking.clone())
                .with_workarounds(workarounds),
            None => options,
        };
        let options = match input.descriptors {
            Some(d) => d.apply(options, input.set),
            None => options,
        };
        // A case's bound class instances and custom map (`linkage.rs`).
        let linkage = input.linkage.cloned().unwrap_or_default();
        let options = match linkage.class_linkage() {
            Some(c) => options.with_class_linkage(c),
            None => options,
        };
        let options = match linkage.bindings(input.set) {
            Some(b) => options.with_bindings(b),
            None => options,
        };
        let translation = dxbc2spv::translate(input.dxbc, &options)
            .map_err(|e| anyhow!("dxbc2spv: {e}"))
            .with_context(|| format!("translating {}", input.origin.display()))?;
        let mut bindings = Vec::new();
        for r in &translation.info.resources {
            let b = match r.target {
                VkTarget::Descriptor(b) => b,
                // Root constants: the case's [push_constants] words (push.rs).
                VkTarget::PushConstants(_) => continue,
                // A root descriptor: its device address is a push constant (address.rs).
                VkTarget::DeviceAddress(_) => continue,
                // A bindless heap: a runtime array; the case's table places the descriptors.
                VkTarget::Heap(h) => dxbc2spv::bindings::VulkanBinding {
                    set: h.set,
                    binding: h.binding,
                    array_offset: h.array_offset,
                    descriptor_count: dxbc2spv::bindings::Count::Unbounded,
                },
            };
            let class = match r.kind {
                ResourceKind::ConstantBuffer => RegisterClass::Cbv,
                ResourceKind::ShaderResource => RegisterClass::Srv,
                ResourceKind::UnorderedAccess | ResourceKind::UavCounter => RegisterClass::Uav,
                ResourceKind::Sampler => RegisterClass::Sampler,
            };
            let register = Register {
                class,
                index: r.register,
                space: r.space,
            };
            let target = if r.kind == ResourceKind::UavCounter {
                BindingTarget::Counter(register)
            } else {
                BindingTarget::Resource(register)
            };
            let kind = match r.descriptor {
                DescriptorType::UniformBuffer => DescriptorKind::UniformBuffer,
                DescriptorType::StorageBuffer => DescriptorKind::StorageBuffer,
                DescriptorType::UniformTexelBuffer => DescriptorKind::UniformTexelBuffer,
                DescriptorType::StorageTexelBuffer => DescriptorKind::StorageTexelBuffer,
                DescriptorType::SampledImage => DescriptorKind::SampledImage,
                DescriptorType::StorageImage => DescriptorKind::StorageImage,
                DescriptorType::Sampler => DescriptorKind::Sampler,
            };
            let dimension = match r.shape {
                // Several views (a D3D9 sampler typed at run time): any of them may be bound.
                _ if r.other_views.iter().any(Option::is_some) => None,
                Some(ResourceShape::Typed { dim, .. }) => texture_dim(dim),
                _ => None,
            };
            bindings.push(ShaderBinding {
                target,
                count: r.count,
                set: b.set,
                binding: b.binding,
                array_offset: b.array_offset,
                descriptor_count: b.descriptor_count,
                kind,
                // A raw or structured view the translator made a texel buffer: 32-bit words.
                texel_format: matches!(
                    (r.shape, r.descriptor),
                    (
                        Some(ResourceShape::Raw | ResourceShape::Structured { .. }),
                        DescriptorType::UniformTexelBuffer | DescriptorType::StorageTexelBuffer
                    )
                )
                .then_some(ash::vk::Format::R32_UINT),
                dimension,
            });
        }
        if let Some(block) = &translation.info.buffer_fixups {
            bindings.push(super::case::descriptors::fixup_binding(block)?);
        }
        Ok(CompiledShader {
            spirv: translation.spirv,
            entry_point: translation.info.entry_point.to_owned(),
            bindings: Some(bindings),
        })
    }
}

/// The texture dimension of a typed resource (`None` for typed buffers).
fn texture_dim(dim: Dimension) -> Option<TextureDim> {
    Some(match dim {
        Dimension::Buffer => return None,
        Dimension::Texture1D => TextureDim::Tex1D,
        Dimension::Texture1DArray => TextureDim::Tex1DArray,
        Dimension::Texture2D => TextureDim::Tex2D,
        Dimension::Texture2DArray => TextureDim::Tex2DArray,
        Dimension::Texture2DMS => TextureDim::Tex2DMS,
        Dimension::Texture2DMSArray => TextureDim::Tex2DMSArray,
        Dimension::Texture3D => TextureDim::Tex3D,
        Dimension::TextureCube => TextureDim::Cube,
        Dimension::TextureCubeArray => TextureDim::CubeArray,
    })
}

/// The D3D11-style default map in set `set`, or (when the case asks for placements) a table
/// with the requested registers where asked and every other register where the default puts it.
fn binding_map(requested: &[RequestedBinding], set: u32) -> Result<Bindings> {
    if requested.is_empty() {
        return Ok(Bindings::D3d11(D3d11Bindings::with_set(set)));
    }
    let kind_of = |t: &BindingTarget| {
        let (reg, counter) = match t {
            BindingTarget::Resource(r) => (r, false),
            BindingTarget::Counter(r) => (r, true),
        };
        let kind = match (reg.class, counter) {
            (_, true) => ResourceKind::UavCounter,
            (RegisterClass::Cbv, _) => ResourceKind::ConstantBuffer,
            (RegisterClass::Srv, _) => ResourceKind::ShaderResource,
            (RegisterClass::Uav, _) => ResourceKind::UnorderedAccess,
            (RegisterClass::Sampler, _) => ResourceKind::Sampler,
        };
        (kind, reg.space, reg.index)
    };
    let mut entries = Vec::new();
    let mut taken = Vec::new();
    for r in requested {
        let (kind, space, register) = kind_of(&r.target);
        entries.push(TableEntry::new(
            RegisterRange::single(kind, space, register),
            r.set,
            r.binding,
            0,
        ));
        taken.push((kind, space, register));
    }
    let default = D3d11Bindings::with_set(set);
    for (range, base) in default.ranges() {
        let count = range.count.bounded().unwrap_or(0);
        for register in 0..count {
            if taken.contains(&(range.kind, 0, register)) {
                continue;
            }
            entries.push(TableEntry::new(
                RegisterRange::single(range.kind, 0, register),
                default.set,
                base + register,
                0,
            ));
        }
    }
    let table = TableBindings::new(entries, Vec::new()).map_err(|e| anyhow!("binding map: {e}"))?;
    Ok(Bindings::Table(table))
}
