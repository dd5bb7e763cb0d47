//! Device images for the runners: creation (optimal tiling, device-local memory), uploads through
//! a staging buffer, read-back of one subresource, image views and samplers.
//!
//! Every image lives in `VK_IMAGE_LAYOUT_GENERAL` from creation on: that layout is valid for
//! sampling, storage, attachments and transfers alike, so the runners only need memory barriers
//! between uses, never layout transitions. (Speed does not matter here; simplicity does.)
//!
//! Upload order (what [`Image::upload`] expects): subresources in D3D's order, array layer by
//! array layer, and within a layer mip level by mip level (D3D's subresource index
//! `mip + layer * mip_levels`); each subresource tightly packed, row after row (and slice after
//! slice for 3-D images), rows left to right.

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::buffer::Buffer;
use crate::gpu::Gpu;
use crate::submit::{after_earlier_writes, any_use, memory_barrier, OneShot, SUBMIT_TIMEOUT};

/// What to create.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    /// 1-D, 2-D or 3-D.
    pub image_type: vk::ImageType,
    /// Cube-compatible (cube and cube-array textures; `layers` is then a multiple of 6).
    pub cube: bool,
    /// The format.
    pub format: vk::Format,
    /// Its aspects (color, or depth and/or stencil).
    pub aspects: vk::ImageAspectFlags,
    /// Width in texels.
    pub width: u32,
    /// Height (1 for 1-D).
    pub height: u32,
    /// Depth (3-D only; else 1).
    pub depth: u32,
    /// Array layers (1 for 3-D).
    pub layers: u32,
    /// Mip levels.
    pub mips: u32,
    /// Samples per texel (1, 2, 4, 8, …).
    pub samples: u32,
    /// Usage flags (transfer source and destination are always added).
    pub usage: vk::ImageUsageFlags,
}

impl ImageDesc {
    /// The size of mip level `mip`: `[width, height, depth]`, each at least 1.
    pub fn mip_extent(&self, mip: u32) -> [u32; 3] {
        mip_extent([self.width, self.height, self.depth], mip)
    }

    /// The Vulkan sample-count flag.
    pub fn sample_flags(&self) -> vk::SampleCountFlags {
        vk::SampleCountFlags::from_raw(self.samples)
    }

    fn flags(&self) -> vk::ImageCreateFlags {
        if self.cube {
            vk::ImageCreateFlags::CUBE_COMPATIBLE
        } else {
            vk::ImageCreateFlags::empty()
        }
    }

    fn full_usage(&self) -> vk::ImageUsageFlags {
        self.usage | vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST
    }
}

/// The size of mip level `mip` of an image whose mip 0 is `size` (`[width, height, depth]`):
/// each halved `mip` times, and at least 1.
pub fn mip_extent(size: [u32; 3], mip: u32) -> [u32; 3] {
    size.map(|n| (n >> mip).max(1))
}

/// Why `gpu` cannot create `desc` (format, usage, sample count, size or layer limits), or
/// `None` when it can.
pub fn unsupported(gpu: &Gpu, desc: &ImageDesc, what: &str) -> Option<String> {
    // SAFETY: plain query on the device's physical device.
    let props = unsafe {
        gpu.instance().get_physical_device_image_format_properties(
            gpu.physical_device(),
            desc.format,
            desc.image_type,
            vk::ImageTiling::OPTIMAL,
            desc.full_usage(),
            desc.flags(),
        )
    };
    let name = &gpu.info().name;
    let props = match props {
        Ok(p) => p,
        Err(e) => {
            return Some(format!(
                "{name} cannot create {what} ({:?}, usage {:?}): {e}",
                desc.format,
                desc.full_usage()
            ))
        }
    };
    let e = props.max_extent;
    if desc.width > e.width || desc.height > e.height || desc.depth > e.depth {
        return Some(format!(
            "{what} is {}x{}x{}; {name} allows {}x{}x{} for {:?}",
            desc.width, desc.height, desc.depth, e.width, e.height, e.depth, desc.format
        ));
    }
    if desc.mips > props.max_mip_levels || desc.layers > props.max_array_layers {
        return Some(format!(
            "{what} has {} mips and {} layers; {name} allows {} and {} for {:?}",
            desc.mips, desc.layers, props.max_mip_levels, props.max_array_layers, desc.format
        ));
    }
    if !props.sample_counts.contains(desc.sample_flags()) {
        return Some(format!(
            "{name} does not support {} samples for {what} ({:?}, usage {:?})",
            desc.samples,
            desc.format,
            desc.full_usage()
        ));
    }
    None
}

/// An image in device memory, in `VK_IMAGE_LAYOUT_GENERAL`. Released in [`Drop`].
pub struct Image<'g> {
    gpu: &'g Gpu,
    handle: vk::Image,
    allocation: Option<Allocation>,
    desc: ImageDesc,
    name: String,
}

impl<'g> Image<'g> {
    /// Creates the image, its memory, and moves it to `GENERAL` layout (contents undefined).
    pub fn new(gpu: &'g Gpu, desc: &ImageDesc, name: &str) -> Result<Image<'g>> {
        let device = gpu.device();
        if desc.samples > 1 && (desc.mips != 1 || desc.image_type != vk::ImageType::TYPE_2D) {
            bail!("{name}: multisampled images are 2-D with one mip level");
        }
        let info = vk::ImageCreateInfo::default()
            .flags(desc.flags())
            .image_type(desc.image_type)
            .format(desc.format)
            .extent(vk::Extent3D {
                width: desc.width,
                height: desc.height,
                depth: desc.depth,
            })
            .mip_levels(desc.mips)
            .array_layers(desc.layers)
            .samples(desc.sample_flags())
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(desc.full_usage())
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info on a live device.
        let handle = unsafe { device.create_image(&info, None) }
            .with_context(|| format!("vkCreateImage failed for {name} ({desc:?})"))?;
        let mut this = Image {
            gpu,
            handle,
            allocation: None,
            desc: *desc,
            name: name.to_owned(),
        };
        // SAFETY: the image was just created on this device.
        let requirements = unsafe { device.get_image_memory_requirements(handle) };
        let allocation = gpu
            .allocator()?
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .with_context(|| format!("allocating memory for image {name}"))?;
        // SAFETY: the allocation satisfies the requirements and is not bound elsewhere.
        let bound =
            unsafe { device.bind_image_memory(handle, allocation.memory(), allocation.offset()) };
        this.allocation = Some(allocation);
        bound.with_context(|| format!("vkBindImageMemory failed for {name}"))?;

        let mut submit = OneShot::begin(gpu)?;
        let barrier = vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::empty())
            .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::GENERAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(handle)
            .subresource_range(this.range(desc.aspects));
        // SAFETY: recording on this device; the image is ours.
        unsafe {
            device.cmd_pipeline_barrier(
                submit.cmd(),
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier],
            );
        }
        submit.submit_and_wait(SUBMIT_TIMEOUT, &format!("layout of {name}"))?;
        Ok(this)
    }

    /// The Vulkan handle.
    pub fn handle(&self) -> vk::Image {
        self.handle
    }

    /// What it was created as.
    pub fn desc(&self) -> &ImageDesc {
        &self.desc
    }

    /// The name given at creation.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every mip and layer of `aspects`.
    pub fn range(&self, aspects: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: aspects,
            base_mip_level: 0,
            level_count: self.desc.mips,
            base_array_layer: 0,
            layer_count: self.desc.layers,
        }
    }

    /// Bytes of one subresource at `mip` with `texel_size`-byte texels, tightly packed.
    pub fn subresource_size(&self, mip: u32, texel_size: u32) -> u64 {
        let [w, h, d] = self.desc.mip_extent(mip);
        u64::from(w) * u64::from(h) * u64::from(d) * u64::from(texel_size)
    }

    /// Bytes of the whole image (every layer and mip) with `texel_size`-byte texels.
    pub fn total_size(&self, texel_size: u32) -> u64 {
        let per_layer: u64 = (0..self.desc.mips)
            .map(|m| self.subresource_size(m, texel_size))
            .sum();
        per_layer * u64::from(self.desc.layers)
    }

    /// Copies `bytes` (every subresource in the order of the module documentation, exactly
    /// [`Image::total_size`] bytes) into the color aspect. Single-sampled images only.
    pub fn upload(&self, bytes: &[u8], texel_size: u32) -> Result<()> {
        if self.desc.samples > 1 {
            bail!(
                "{}: multisampled images are filled through a shader",
                self.name
            );
        }
        let total = self.total_size(texel_size);
        if bytes.len() as u64 != total {
            bail!(
                "{}: {} bytes of data for {total} bytes of texels",
                self.name,
                bytes.len()
            );
        }
        let mut staging = Buffer::new(self.gpu, total, &format!("{} upload", self.name))?;
        staging.write(0, bytes)?;
        let mut regions = Vec::new();
        let mut offset = 0u64;
        for layer in 0..self.desc.layers {
            for mip in 0..self.desc.mips {
                regions.push(self.region(offset, vk::ImageAspectFlags::COLOR, mip, layer));
                offset += self.subresource_size(mip, texel_size);
            }
        }
        self.transfer(
            "upload",
            vk::AccessFlags::TRANSFER_WRITE,
            any_use(),
            |device, cmd| {
                // SAFETY: recording; the regions lie inside both the buffer and the image.
                unsafe {
                    device.cmd_copy_buffer_to_image(
                        cmd,
                        staging.handle(),
                        self.handle,
                        vk::ImageLayout::GENERAL,
                        &regions,
                    );
                }
            },
        )
    }

    /// Fills every subresource with `value` (`vkCmdClearColorImage`; multisampled images too).
    pub fn clear_color(&self, value: vk::ClearColorValue) -> Result<()> {
        self.transfer(
            "clear",
            vk::AccessFlags::TRANSFER_WRITE,
            any_use(),
            |device, cmd| {
                // SAFETY: recording; the range covers the image.
                unsafe {
                    device.cmd_clear_color_image(
                        cmd,
                        self.handle,
                        vk::ImageLayout::GENERAL,
                        &value,
                        &[self.range(vk::ImageAspectFlags::COLOR)],
                    );
                }
            },
        )
    }

    /// Copies one subresource (one aspect; for 3-D images every slice) to the host:
    /// `texel_size` bytes per texel as `vkCmdCopyImageToBuffer` writes them (4 for the depth of
    /// `D24_UNORM_S8_UINT`, 1 for stencil). Single-sampled images only.
    pub fn read(
        &self,
        aspect: vk::ImageAspectFlags,
        mip: u32,
        layer: u32,
        texel_size: u32,
    ) -> Result<Vec<u8>> {
        if self.desc.samples > 1 {
            bail!(
                "{}: multisampled images are read through a shader",
                self.name
            );
        }
        if mip >= self.desc.mips || layer >= self.desc.layers {
            bail!(
                "{}: mip {mip}, layer {layer} is outside {} mips and {} layers",
                self.name,
                self.desc.mips,
                self.desc.layers
            );
        }
        let size = self.subresource_size(mip, texel_size);
        let out = Buffer::new(self.gpu, size, &format!("{} read-back", self.name))?;
        self.transfer(
            "read-back",
            vk::AccessFlags::TRANSFER_READ,
            (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ),
            |device, cmd| {
                // SAFETY: recording; the region lies inside the image and the buffer.
                unsafe {
                    device.cmd_copy_image_to_buffer(
                        cmd,
                        self.handle,
                        vk::ImageLayout::GENERAL,
                        out.handle(),
                        &[self.region(0, aspect, mip, layer)],
                    );
                }
            },
        )?;
        out.read()
    }

    /// Records `op` (a transfer command on this image) after a barrier that makes earlier
    /// writes visible to transfers doing `access`, and a barrier that makes its writes visible
    /// to `after`; then submits and waits (`what` names the operation in errors).
    fn transfer(
        &self,
        what: &str,
        access: vk::AccessFlags,
        after: (vk::PipelineStageFlags, vk::AccessFlags),
        op: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> Result<()> {
        let device = self.gpu.device();
        let what = format!("{what} of {}", self.name);
        OneShot::record_and_wait(self.gpu, SUBMIT_TIMEOUT, &what, |cmd| {
            after_earlier_writes(device, cmd, (vk::PipelineStageFlags::TRANSFER, access));
            op(device, cmd);
            memory_barrier(
                device,
                cmd,
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                ),
                after,
            );
            Ok(())
        })
    }

    fn region(
        &self,
        offset: u64,
        aspect: vk::ImageAspectFlags,
        mip: u32,
        layer: u32,
    ) -> vk::BufferImageCopy {
        let [w, h, d] = self.desc.mip_extent(mip);
        vk::BufferImageCopy {
            buffer_offset: offset,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: vk::ImageSubresourceLayers {
                aspect_mask: aspect,
                mip_level: mip,
                base_array_layer: layer,
                layer_count: 1,
            },
            image_offset: vk::Offset3D::default(),
            image_extent: vk::Extent3D {
                width: w,
                height: h,
                depth: d,
            },
        }
    }

    /// A view of `range` as `view_type`.
    pub fn view(
        &self,
        view_type: vk::ImageViewType,
        range: vk::ImageSubresourceRange,
    ) -> Result<ImageView<'g>> {
        self.view_swizzled(view_type, range, vk::ComponentMapping::default())
    }

    /// A view of `range` as `view_type` whose red, green, blue and alpha come from
    /// `components` (`VkComponentMapping`; the default is identity).
    pub fn view_swizzled(
        &self,
        view_type: vk::ImageViewType,
        range: vk::ImageSubresourceRange,
        components: vk::ComponentMapping,
    ) -> Result<ImageView<'g>> {
        let info = vk::ImageViewCreateInfo::default()
            .image(self.handle)
            .view_type(view_type)
            .format(self.desc.format)
            .components(components)
            .subresource_range(range);
        // SAFETY: valid create info for this image.
        let handle =
            unsafe { self.gpu.device().create_image_view(&info, None) }.with_context(|| {
                format!("vkCreateImageView failed for {} ({view_type:?})", self.name)
            })?;
        Ok(ImageView {
            gpu: self.gpu,
            handle,
        })
    }
}

impl Drop for Image<'_> {
    fn drop(&mut self) {
        // SAFETY: users wait for the device before dropping images (every submission here waits).
        unsafe { self.gpu.device().destroy_image(self.handle, None) };
        if let Some(allocation) = self.allocation.take() {
            self.gpu.free(allocation, "image");
        }
    }
}

/// An image view; destroyed in [`Drop`].
pub struct ImageView<'g> {
    gpu: &'g Gpu,
    handle: vk::ImageView,
}

impl ImageView<'_> {
    /// The Vulkan handle.
    pub fn handle(&self) -> vk::ImageView {
        self.handle
    }
}

impl Drop for ImageView<'_> {
    fn drop(&mut self) {
        // SAFETY: the view belongs to this device and the work using it has finished.
        unsafe { self.gpu.device().destroy_image_view(self.handle, None) };
    }
}

/// A sampler; destroyed in [`Drop`].
pub struct Sampler<'g> {
    gpu: &'g Gpu,
    handle: vk::Sampler,
}

impl<'g> Sampler<'g> {
    /// Creates a sampler from `info`.
    pub fn new(gpu: &'g Gpu, info: &vk::SamplerCreateInfo<'_>) -> Result<Sampler<'g>> {
        // SAFETY: valid create info on a live device.
        let handle = unsafe { gpu.device().create_sampler(info, None) }
            .map_err(|e| anyhow!("vkCreateSampler failed: {e}"))?;
        Ok(Sampler { gpu, handle })
    }

    /// The Vulkan handle.
    pub fn handle(&self) -> vk::Sampler {
        self.handle
    }
}

impl Drop for Sampler<'_> {
    fn drop(&mut self) {
        // SAFETY: the sampler belongs to this device and the work using it has finished.
        unsafe { self.gpu.device().destroy_sampler(self.handle, None) };
    }
}
