//! The case's resources on the device: buffers (and UAV counters), textures with their views,
//! samplers; what the device lacks to make them or to draw (targets, vertex formats, limits);
//! reading textures back.

use anyhow::{bail, Context, Result};
use ash::vk;

use super::bind::{Bound, Placement, ResRef};
use super::case::{BufferKind, Case};
use super::draw::DrawSpec;
use super::expect::ReadImage;
use super::textures::{TextureDim, TextureSpec};
use crate::buffer::Buffer;
use crate::compute::DescriptorKind;
use crate::descriptors::{Binding, Resource};
use crate::format::{ChannelValue, ShaderType, TexelFormat};
use crate::gpu::Gpu;
use crate::image::{self, Image, ImageDesc, ImageView, Sampler};
use crate::samples::{read_samples, write_samples};

/// The resources of a case, made on a device.
pub(super) struct Made<'g> {
    /// One per case buffer.
    pub(super) buffers: Vec<Buffer<'g>>,
    /// The part of each case buffer its descriptors see (`None`: all of it).
    pub(super) buffer_views: Vec<Option<(u64, u64)>>,
    /// The UAV counter of each case buffer that has one.
    pub(super) counters: Vec<Option<Buffer<'g>>>,
    /// One per case texture.
    pub(super) textures: Vec<Image<'g>>,
    /// The shader's view of each texture.
    pub(super) views: Vec<ImageView<'g>>,
    /// One per case sampler.
    pub(super) samplers: Vec<Sampler<'g>>,
}

/// How a texture is created.
pub(super) fn texture_desc(t: &TextureSpec) -> ImageDesc {
    let mut usage = if t.register.class == super::shader::RegisterClass::Uav {
        vk::ImageUsageFlags::STORAGE
    } else {
        vk::ImageUsageFlags::SAMPLED
    };
    if t.samples > 1 {
        // Filled sample by sample through a storage image.
        usage |= vk::ImageUsageFlags::STORAGE;
    }
    ImageDesc {
        image_type: t.dim.image_type(),
        cube: t.dim.is_cube(),
        format: t.format.vk,
        aspects: vk::ImageAspectFlags::COLOR,
        width: t.width,
        height: t.height,
        depth: t.depth,
        layers: t.layers,
        mips: t.mips,
        samples: t.samples,
        usage,
    }
}

/// Why the device cannot run the case's resources as placed, or `None`.
pub(super) fn unsupported(gpu: &Gpu, case: &Case, bound: &Bound) -> Option<String> {
    let limits = &gpu.info().limits;
    let name = &gpu.info().name;
    // Sets run from 0 to the highest one used (hs resources are in set 3, ds ones in set 4).
    let sets = bound.layout.iter().map(|l| l.set + 1).max().unwrap_or(0);
    if sets > limits.max_bound_descriptor_sets {
        return Some(format!(
            "the pipeline uses descriptor sets 0 to {}; the device's maxBoundDescriptorSets is {}",
            sets - 1,
            limits.max_bound_descriptor_sets
        ));
    }
    if let Some(why) = array_unsupported(gpu, bound) {
        return Some(why);
    }
    for p in &bound.places {
        let (size, texel) = match p.res {
            ResRef::Buffer(i) => {
                let b = &case.buffers[i];
                let texel = match (b.kind, b.texel_format) {
                    (BufferKind::Typed(f), _) | (_, Some(f)) if Some(f.vk) == p.texel_format => {
                        u64::from(f.size)
                    }
                    _ => 4,
                };
                let size = b.view.map_or(b.contents.len() as u64, |(_, size)| size);
                (size, texel)
            }
            ResRef::Counter(_) => (4, 4),
            ResRef::Texture(_) | ResRef::Sampler(_) => continue,
        };
        let over = |limit: u32, what: &str| {
            (size > u64::from(limit))
                .then(|| format!("a buffer is {size} bytes; the device's {what} is {limit}"))
        };
        let why = match p.kind {
            DescriptorKind::UniformBuffer => {
                over(limits.max_uniform_buffer_range, "maxUniformBufferRange")
            }
            DescriptorKind::StorageBuffer => {
                over(limits.max_storage_buffer_range, "maxStorageBufferRange")
            }
            DescriptorKind::StorageTexelBuffer | DescriptorKind::UniformTexelBuffer => {
                let format = p.texel_format.unwrap_or_default();
                let needed = if p.kind == DescriptorKind::StorageTexelBuffer {
                    vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER
                } else {
                    vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER
                };
                // SAFETY: plain query on the device's physical device.
                let props = unsafe {
                    gpu.instance()
                        .get_physical_device_format_properties(gpu.physical_device(), format)
                };
                if !props.buffer_features.contains(needed) {
                    Some(format!("{name} lacks {format:?} as a {}", p.kind))
                } else {
                    let elements = size / texel.max(1);
                    (elements > u64::from(limits.max_texel_buffer_elements)).then(|| {
                        format!(
                            "a texel buffer has {elements} texels; the device's \
                             maxTexelBufferElements is {}",
                            limits.max_texel_buffer_elements
                        )
                    })
                }
            }
            _ => None,
        };
        if why.is_some() {
            return why;
        }
    }
    for t in &case.textures {
        let desc = texture_desc(t);
        if let Some(why) = image::unsupported(gpu, &desc, &format!("texture {}", t.name)) {
            return Some(why);
        }
        if t.samples > 1 {
            for f in [
                "shaderStorageImageMultisample",
                "shaderStorageImageWriteWithoutFormat",
            ] {
                if !gpu.features().supports(f) {
                    return Some(format!(
                        "{name} lacks {f} (needed to fill the multisampled texture {})",
                        t.name
                    ));
                }
            }
        }
    }
    None
}

/// Checks every buffer bound at an offset (`view_offset`) against the device's alignment limit
/// of its descriptor type: `minStorageBufferOffsetAlignment`, `minUniformBufferOffsetAlignment`
/// or `minTexelBufferOffsetAlignment`. An offset the device cannot honour fails the case (it
/// is not skipped: the case asks for a binding Vulkan forbids on this device).
pub(super) fn check_buffer_views(gpu: &Gpu, case: &Case, bound: &Bound) -> Result<()> {
    let limits = &gpu.info().limits;
    for p in &bound.places {
        let ResRef::Buffer(i) = p.res else { continue };
        let b = &case.buffers[i];
        let Some((offset, _)) = b.view else { continue };
        let (align, what) = match p.kind {
            DescriptorKind::StorageBuffer => (
                limits.min_storage_buffer_offset_alignment,
                "minStorageBufferOffsetAlignment",
            ),
            DescriptorKind::UniformBuffer => (
                limits.min_uniform_buffer_offset_alignment,
                "minUniformBufferOffsetAlignment",
            ),
            DescriptorKind::StorageTexelBuffer | DescriptorKind::UniformTexelBuffer => (
                limits.min_texel_buffer_offset_alignment,
                "minTexelBufferOffsetAlignment",
            ),
            _ => continue,
        };
        if align > 0 && !offset.is_multiple_of(align) {
            bail!(
                "buffer {}: view_offset {offset} is not a multiple of the device's {what} \
                 ({align}), so {} cannot bind it as a {} there; use an offset the device allows",
                b.name,
                gpu.info().name,
                p.kind
            );
        }
    }
    Ok(())
}

/// Whether the case uses `a8_unorm` (a texture, typed buffer or render target). That format
/// (`VK_FORMAT_A8_UNORM_KHR`) exists only with `VK_KHR_maintenance5`: without the device feature
/// `maintenance5` the case fails with a message that says so, and is never skipped.
pub(super) fn check_a8(gpu: &Gpu, case: &Case) -> Result<bool> {
    let textures = case.textures.iter().map(|t| t.format);
    let buffers = case.buffers.iter().filter_map(|b| b.texel_format);
    let targets = case
        .draw()
        .into_iter()
        .flat_map(|d| d.targets.iter().map(|t| t.format));
    let uses = textures
        .chain(buffers)
        .chain(targets)
        .any(|f| f.alpha_only());
    if uses && !gpu.features().supports("maintenance5") {
        bail!(
            "the case uses a8_unorm (VK_FORMAT_A8_UNORM_KHR), which needs VK_KHR_maintenance5; \
             {} lacks the maintenance5 feature",
            gpu.info().name
        );
    }
    Ok(uses)
}

/// Why the device cannot hold the descriptor arrays of `bound` (partially bound bindings need
/// `descriptorBindingPartiallyBound`; each binding must fit the per-stage limit of its type),
/// or `None`.
fn array_unsupported(gpu: &Gpu, bound: &Bound) -> Option<String> {
    let limits = &gpu.info().limits;
    let name = &gpu.info().name;
    let feature = "descriptorBindingPartiallyBound";
    if let Some(l) = bound.layout.iter().find(|l| l.partially_bound) {
        if !gpu.features().supports(feature) {
            return Some(format!(
                "{name} lacks {feature} (set {}, binding {} is an array of {} descriptors whose \
                 unwritten elements stay unbound)",
                l.set, l.binding, l.count
            ));
        }
    }
    for l in &bound.layout {
        let (limit, what) = match l.kind {
            DescriptorKind::UniformBuffer => (
                limits.max_per_stage_descriptor_uniform_buffers,
                "maxPerStageDescriptorUniformBuffers",
            ),
            DescriptorKind::StorageBuffer => (
                limits.max_per_stage_descriptor_storage_buffers,
                "maxPerStageDescriptorStorageBuffers",
            ),
            DescriptorKind::SampledImage | DescriptorKind::UniformTexelBuffer => (
                limits.max_per_stage_descriptor_sampled_images,
                "maxPerStageDescriptorSampledImages",
            ),
            DescriptorKind::StorageImage | DescriptorKind::StorageTexelBuffer => (
                limits.max_per_stage_descriptor_storage_images,
                "maxPerStageDescriptorStorageImages",
            ),
            DescriptorKind::Sampler => (
                limits.max_per_stage_descriptor_samplers,
                "maxPerStageDescriptorSamplers",
            ),
        };
        if l.count > limit {
            return Some(format!(
                "set {}, binding {} holds {} {} descriptors; the device's {what} is {limit}",
                l.set, l.binding, l.count, l.kind
            ));
        }
    }
    None
}

/// How a render target (or the depth target) of `d` is created.
pub(super) fn target_desc(
    d: &DrawSpec,
    format: vk::Format,
    aspects: vk::ImageAspectFlags,
    usage: vk::ImageUsageFlags,
) -> ImageDesc {
    let mut usage = usage;
    if d.samples > 1 {
        // Samples are read back through a sampled view.
        usage |= vk::ImageUsageFlags::SAMPLED;
    }
    ImageDesc {
        image_type: vk::ImageType::TYPE_2D,
        cube: false,
        format,
        aspects,
        width: d.width,
        height: d.height,
        depth: 1,
        layers: d.layers,
        mips: 1,
        samples: d.samples,
        usage,
    }
}

/// Why the device cannot draw `d` (formats, sample counts, limits), or `None`.
pub(super) fn draw_unsupported(gpu: &Gpu, d: &DrawSpec) -> Option<String> {
    for t in &d.targets {
        let desc = target_desc(
            d,
            t.format.vk,
            vk::ImageAspectFlags::COLOR,
            vk::ImageUsageFlags::COLOR_ATTACHMENT,
        );
        if let Some(why) = image::unsupported(gpu, &desc, &format!("render target {}", t.slot)) {
            return Some(why);
        }
    }
    if let Some(depth) = &d.depth {
        let desc = target_desc(
            d,
            depth.format.vk,
            depth.format.aspects(),
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        );
        if let Some(why) = image::unsupported(gpu, &desc, "the depth target") {
            return Some(why);
        }
    }
    for i in &d.inputs {
        // SAFETY: plain query on the device's physical device.
        let props = unsafe {
            gpu.instance()
                .get_physical_device_format_properties(gpu.physical_device(), i.format.vk)
        };
        if !props
            .buffer_features
            .contains(vk::FormatFeatureFlags::VERTEX_BUFFER)
        {
            return Some(format!(
                "{} lacks {} as a vertex format (v{})",
                gpu.info().name,
                i.format.name,
                i.location
            ));
        }
    }
    let limits = &gpu.info().limits;
    if d.viewports.len() as u32 > limits.max_viewports {
        return Some(format!(
            "{} viewports; the device's maxViewports is {}",
            d.viewports.len(),
            limits.max_viewports
        ));
    }
    if let Some(n) = d
        .control_points
        .filter(|&n| n > limits.max_tessellation_patch_size)
    {
        return Some(format!(
            "patches of {n} control points; the device's maxTessellationPatchSize is {}",
            limits.max_tessellation_patch_size
        ));
    }
    None
}

/// Four words per texel for [`write_samples`]: the channels, then 0, 0, 0 and 1 for the
/// missing ones.
fn sample_words(format: TexelFormat, contents: &[u8]) -> Vec<u32> {
    let one = match format.shader_type() {
        ShaderType::Float => 1.0f32.to_bits(),
        _ => 1,
    };
    contents
        .chunks_exact(format.size as usize)
        .flat_map(|texel| {
            let mut words = [0, 0, 0, one];
            for (w, c) in words.iter_mut().zip(format.decode(texel)) {
                *w = c.bits;
            }
            words
        })
        .collect()
}

impl<'g> Made<'g> {
    /// Creates and fills every resource of `case`.
    pub(super) fn new(gpu: &'g Gpu, case: &Case) -> Result<Made<'g>> {
        let mut made = Made {
            buffers: Vec::new(),
            buffer_views: case.buffers.iter().map(|b| b.view).collect(),
            counters: Vec::new(),
            textures: Vec::new(),
            views: Vec::new(),
            samplers: Vec::new(),
        };
        for b in &case.buffers {
            made.buffers
                .push(Buffer::from_bytes(gpu, &b.contents, &b.name)?);
            made.counters.push(match b.counter {
                Some(c) => Some(Buffer::from_u32s(
                    gpu,
                    &[c.initial],
                    &format!("{} counter", b.name),
                )?),
                None => None,
            });
        }
        for t in &case.textures {
            let image = Image::new(gpu, &texture_desc(t), &t.name)?;
            if t.samples > 1 {
                write_samples(
                    gpu,
                    &image,
                    t.format.shader_type(),
                    &sample_words(t.format, &t.contents),
                )?;
            } else {
                image.upload(&t.contents, t.format.size)?;
            }
            let uav = t.register.class == super::shader::RegisterClass::Uav;
            let mut range = image.range(vk::ImageAspectFlags::COLOR);
            if uav {
                // A UAV sees one mip level (D3D's MipSlice; here mip 0).
                range.level_count = 1;
            }
            let components = t
                .swizzle
                .map_or_else(vk::ComponentMapping::default, |[r, g, b, a]| {
                    vk::ComponentMapping { r, g, b, a }
                });
            made.views
                .push(image.view_swizzled(t.dim.view_type(), range, components)?);
            made.textures.push(image);
        }
        for s in &case.samplers {
            made.samplers.push(
                Sampler::new(gpu, &s.state.create_info())
                    .with_context(|| format!("sampler {}", s.name))?,
            );
        }
        Ok(made)
    }

    /// The descriptors for `places`.
    pub(super) fn bindings(&self, places: &[Placement]) -> Result<Vec<Binding<'_, 'g>>> {
        places
            .iter()
            .map(|p| {
                let resource = match p.res {
                    ResRef::Buffer(i) => Resource::Buffer {
                        buffer: &self.buffers[i],
                        texel_format: p.texel_format,
                        view: self.buffer_views[i],
                    },
                    ResRef::Counter(i) => Resource::Buffer {
                        buffer: self.counters[i]
                            .as_ref()
                            .context("internal: a counter placement without a counter")?,
                        texel_format: None,
                        view: None,
                    },
                    ResRef::Texture(i) => Resource::Image(self.views[i].handle()),
                    ResRef::Sampler(i) => Resource::Sampler(self.samplers[i].handle()),
                };
                Ok(Binding {
                    set: p.set,
                    binding: p.binding,
                    element: p.element,
                    kind: p.kind,
                    stages: p.stages,
                    resource,
                })
            })
            .collect()
    }
}

/// Reads one subresource of a texture (for 3-D textures, slice `layer` of mip `mip`).
pub(super) fn read_texture(
    gpu: &Gpu,
    image: &Image<'_>,
    spec: &TextureSpec,
    mip: u32,
    layer: u32,
) -> Result<ReadImage> {
    let [w, h, _] = spec.mip_extent(mip);
    if spec.samples > 1 {
        return read_color_samples(gpu, image, spec.format, layer);
    }
    let (read_layer, slice) = if spec.dim == TextureDim::Tex3D {
        (0, layer)
    } else {
        (layer, 0)
    };
    let bytes = image.read(
        vk::ImageAspectFlags::COLOR,
        mip,
        read_layer,
        spec.format.size,
    )?;
    let texel = spec.format.size as usize;
    let per_slice = w as usize * h as usize * texel;
    let Some(slice) = bytes.get(slice as usize * per_slice..(slice as usize + 1) * per_slice)
    else {
        bail!("{}: slice {slice} was not read back", spec.name);
    };
    Ok(ReadImage {
        width: w,
        samples: 1,
        texels: slice
            .chunks_exact(texel)
            .map(|t| spec.format.decode(t))
            .collect(),
    })
}

/// Every sample of one layer of a multisampled color image, as channel values.
pub(super) fn read_color_samples(
    gpu: &Gpu,
    image: &Image<'_>,
    format: TexelFormat,
    layer: u32,
) -> Result<ReadImage> {
    let d = *image.desc();
    let words = read_samples(
        gpu,
        image,
        vk::ImageAspectFlags::COLOR,
        format.shader_type(),
    )?;
    let ty = format.shader_type();
    Ok(ReadImage {
        width: d.width,
        samples: d.samples,
        texels: layer_words(&words, &d, layer)
            .chunks_exact(4)
            .map(|c| {
                c.iter()
                    .take(format.channels())
                    .map(|&bits| ChannelValue { ty, bits })
                    .collect()
            })
            .collect(),
    })
}

/// The words of one layer of a [`read_samples`] result.
pub(super) fn layer_words<'w>(words: &'w [u32], d: &ImageDesc, layer: u32) -> &'w [u32] {
    let per_layer = d.width as usize * d.height as usize * d.samples as usize * 4;
    let start = (layer as usize * per_layer).min(words.len());
    &words[start..(start + per_layer).min(words.len())]
}
