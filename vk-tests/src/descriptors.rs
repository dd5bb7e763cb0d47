//! Descriptor sets shared by the compute and graphics runners: buffers (storage, uniform, texel),
//! images (sampled, storage) and samplers at any (set, binding), visible to given stages.
//!
//! Sets run from 0 to the largest set used; sets in between are empty. Without an explicit
//! layout each (set, binding) holds one descriptor; with one ([`SetLayoutBinding`]) a binding is
//! an array of descriptors, written element by element ([`Binding::element`]), and may be
//! partially bound (`VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT`: elements no shader reads may
//! stay unwritten).

use anyhow::{bail, Context, Result};
use ash::vk;

use crate::buffer::Buffer;
use crate::compute::DescriptorKind;
use crate::gpu::Gpu;

/// What a binding holds.
#[derive(Clone, Copy)]
pub enum Resource<'a, 'g> {
    /// A buffer, bound whole (offset 0, `VK_WHOLE_SIZE`) or in part (`view`); texel kinds need
    /// a view format.
    Buffer {
        /// The buffer.
        buffer: &'a Buffer<'g>,
        /// Format of the buffer view (texel kinds only).
        texel_format: Option<vk::Format>,
        /// (byte offset, size in bytes) of the part bound; `None`: the whole buffer. The caller
        /// checks the offset against the device's alignment limits.
        view: Option<(u64, u64)>,
    },
    /// An image view, in `VK_IMAGE_LAYOUT_GENERAL` (sampled or storage image).
    Image(vk::ImageView),
    /// A sampler.
    Sampler(vk::Sampler),
}

/// One descriptor and where it is bound.
#[derive(Clone, Copy)]
pub struct Binding<'a, 'g> {
    /// Descriptor set.
    pub set: u32,
    /// Binding in the set.
    pub binding: u32,
    /// Array element (`dstArrayElement`); 0 for a binding of one descriptor.
    pub element: u32,
    /// Descriptor type.
    pub kind: DescriptorKind,
    /// Stages that see it (used where the layout is implied by the bindings).
    pub stages: vk::ShaderStageFlags,
    /// What is bound.
    pub resource: Resource<'a, 'g>,
}

/// One binding of a descriptor-set layout: `count` descriptors of one type, an array when there
/// are more than one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetLayoutBinding {
    /// Descriptor set.
    pub set: u32,
    /// Binding in the set.
    pub binding: u32,
    /// Descriptor type.
    pub kind: DescriptorKind,
    /// Descriptors in the binding (`descriptorCount`), at least 1.
    pub count: u32,
    /// Stages that see it.
    pub stages: vk::ShaderStageFlags,
    /// `VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT` (needs `descriptorBindingPartiallyBound`):
    /// elements that no shader reads may stay unwritten.
    pub partially_bound: bool,
}

/// The layout `bindings` imply on their own: one descriptor at each (set, binding), seen by the
/// binding's stages.
pub fn implied_layout(bindings: &[Binding<'_, '_>]) -> Vec<SetLayoutBinding> {
    bindings
        .iter()
        .map(|b| SetLayoutBinding {
            set: b.set,
            binding: b.binding,
            kind: b.kind,
            count: 1,
            stages: b.stages,
            partially_bound: false,
        })
        .collect()
}

/// Checks that no descriptor is written twice (without a `layout`: no (set, binding) twice, and
/// only element 0), that with a `layout` each binding is in it with its descriptor type and
/// inside its array, and that each resource fits its kind.
pub fn check(
    gpu: &Gpu,
    layout: Option<&[SetLayoutBinding]>,
    bindings: &[Binding<'_, '_>],
) -> Result<()> {
    if let Some(layout) = layout {
        for (i, l) in layout.iter().enumerate() {
            if layout[..i]
                .iter()
                .any(|o| (o.set, o.binding) == (l.set, l.binding))
            {
                bail!(
                    "set {}, binding {} is in the layout twice",
                    l.set,
                    l.binding
                );
            }
            if l.count == 0 {
                bail!("set {}, binding {} holds no descriptors", l.set, l.binding);
            }
        }
    }
    for (i, b) in bindings.iter().enumerate() {
        let at = match layout {
            Some(_) => format!("set {}, binding {}[{}]", b.set, b.binding, b.element),
            None => format!("set {}, binding {}", b.set, b.binding),
        };
        if bindings[..i]
            .iter()
            .any(|o| (o.set, o.binding, o.element) == (b.set, b.binding, b.element))
        {
            bail!("{at} is bound twice");
        }
        match layout {
            None if b.element != 0 => {
                bail!("{at}: array elements need a layout that makes the binding an array")
            }
            None if bindings[..i]
                .iter()
                .any(|o| (o.set, o.binding) == (b.set, b.binding)) =>
            {
                bail!("{at} is bound twice");
            }
            None => {}
            Some(layout) => {
                let Some(l) = layout
                    .iter()
                    .find(|l| (l.set, l.binding) == (b.set, b.binding))
                else {
                    bail!("{at} is not in the descriptor-set layout");
                };
                if l.kind != b.kind {
                    bail!("{at}: a {} in a binding of {}s", b.kind, l.kind);
                }
                if b.element >= l.count {
                    bail!("{at}: the binding holds {} descriptors", l.count);
                }
            }
        }
        match (b.resource, b.kind) {
            (Resource::Buffer { buffer, .. }, _) if !std::ptr::eq(buffer.gpu(), gpu) => {
                bail!("the buffer at {at} was created on a different Gpu")
            }
            (Resource::Buffer { texel_format, .. }, k) if k.is_buffer() => {
                if k.is_texel() && texel_format.is_none() {
                    bail!("{at}: a {k} needs a texel format");
                }
            }
            (Resource::Image(_), DescriptorKind::SampledImage | DescriptorKind::StorageImage) => {}
            (Resource::Sampler(_), DescriptorKind::Sampler) => {}
            (_, k) => bail!("{at}: the resource does not fit a {k} descriptor"),
        }
    }
    Ok(())
}

/// The descriptor objects of one run. Handles start null; [`Descriptors::destroy`] releases what
/// was made (also after a failed [`Descriptors::build`]).
#[derive(Default)]
pub(crate) struct Descriptors {
    pub(crate) layouts: Vec<vk::DescriptorSetLayout>,
    pub(crate) sets: Vec<vk::DescriptorSet>,
    pool: vk::DescriptorPool,
    views: Vec<vk::BufferView>,
}

impl Descriptors {
    /// Records binding every set (from set 0) at `bind_point` with `layout`; nothing when there
    /// are no sets.
    pub(crate) fn bind(
        &self,
        device: &ash::Device,
        cmd: vk::CommandBuffer,
        bind_point: vk::PipelineBindPoint,
        layout: vk::PipelineLayout,
    ) {
        if self.sets.is_empty() {
            return;
        }
        // SAFETY: `cmd` is recording on `device`; the sets and `layout` were made on it, and the
        // layout was created from these sets' layouts.
        unsafe { device.cmd_bind_descriptor_sets(cmd, bind_point, layout, 0, &self.sets, &[]) };
    }

    /// Creates the set layouts of `layout`, the pool and the sets, and writes `bindings` into
    /// them (both checked with [`check`]).
    pub(crate) fn build(
        &mut self,
        gpu: &Gpu,
        layout: &[SetLayoutBinding],
        bindings: &[Binding<'_, '_>],
    ) -> Result<()> {
        let device = gpu.device();
        let set_count = layout.iter().map(|b| b.set + 1).max().unwrap_or(0);
        // SAFETY (whole block): every create info is valid and outlives its call; every handle
        // used belongs to this device and is alive.
        unsafe {
            for set in 0..set_count {
                let in_set: Vec<&SetLayoutBinding> =
                    layout.iter().filter(|b| b.set == set).collect();
                let layout_bindings: Vec<_> = in_set
                    .iter()
                    .map(|b| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(b.binding)
                            .descriptor_type(b.kind.vk())
                            .descriptor_count(b.count)
                            .stage_flags(b.stages)
                    })
                    .collect();
                let flags: Vec<_> = in_set
                    .iter()
                    .map(|b| {
                        if b.partially_bound {
                            vk::DescriptorBindingFlags::PARTIALLY_BOUND
                        } else {
                            vk::DescriptorBindingFlags::empty()
                        }
                    })
                    .collect();
                let mut flags_info =
                    vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
                let mut info =
                    vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
                // Chained only where needed: the structure is core in Vulkan 1.2.
                if in_set.iter().any(|b| b.partially_bound) {
                    info = info.push_next(&mut flags_info);
                }
                let set_layout = device
                    .create_descriptor_set_layout(&info, None)
                    .with_context(|| format!("vkCreateDescriptorSetLayout failed for set {set}"))?;
                self.layouts.push(set_layout);
            }
            if set_count == 0 {
                return Ok(());
            }
            let sizes: Vec<_> = DescriptorKind::ALL
                .iter()
                .filter_map(|&kind| {
                    let n = layout
                        .iter()
                        .filter(|b| b.kind == kind)
                        .fold(0u32, |n, b| n.saturating_add(b.count));
                    (n > 0).then(|| {
                        vk::DescriptorPoolSize::default()
                            .ty(kind.vk())
                            .descriptor_count(n)
                    })
                })
                .collect();
            // A pool needs at least one size; a run whose sets are all empty gets a dummy one.
            let dummy = [vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)];
            let info = vk::DescriptorPoolCreateInfo::default()
                .max_sets(set_count)
                .pool_sizes(if sizes.is_empty() { &dummy } else { &sizes });
            self.pool = device
                .create_descriptor_pool(&info, None)
                .context("vkCreateDescriptorPool failed")?;
            let info = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(self.pool)
                .set_layouts(&self.layouts);
            self.sets = device
                .allocate_descriptor_sets(&info)
                .context("vkAllocateDescriptorSets failed")?;

            let mut buffer_infos = Vec::with_capacity(bindings.len());
            let mut image_infos = Vec::with_capacity(bindings.len());
            let mut views = Vec::with_capacity(bindings.len());
            for b in bindings {
                let mut buffer_info = vk::DescriptorBufferInfo::default();
                let mut image_info = vk::DescriptorImageInfo::default();
                let mut view = vk::BufferView::null();
                match b.resource {
                    Resource::Buffer {
                        buffer,
                        texel_format,
                        view: part,
                    } => {
                        let (offset, range) = part.unwrap_or((0, vk::WHOLE_SIZE));
                        buffer_info = buffer_info
                            .buffer(buffer.handle())
                            .offset(offset)
                            .range(range);
                        if let (true, Some(format)) = (b.kind.is_texel(), texel_format) {
                            let info = vk::BufferViewCreateInfo::default()
                                .buffer(buffer.handle())
                                .format(format)
                                .offset(offset)
                                .range(range);
                            view = device.create_buffer_view(&info, None).with_context(|| {
                                format!(
                                    "vkCreateBufferView failed ({format:?}, set {}, binding {})",
                                    b.set, b.binding
                                )
                            })?;
                            self.views.push(view);
                        }
                    }
                    Resource::Image(image_view) => {
                        image_info = image_info
                            .image_view(image_view)
                            .image_layout(vk::ImageLayout::GENERAL);
                    }
                    Resource::Sampler(sampler) => image_info = image_info.sampler(sampler),
                }
                buffer_infos.push([buffer_info]);
                image_infos.push([image_info]);
                views.push([view]);
            }
            let writes: Vec<_> = bindings
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let write = vk::WriteDescriptorSet::default()
                        .dst_set(self.sets[b.set as usize])
                        .dst_binding(b.binding)
                        .dst_array_element(b.element)
                        .descriptor_type(b.kind.vk());
                    match b.resource {
                        Resource::Buffer { .. } if b.kind.is_texel() => {
                            write.texel_buffer_view(&views[i])
                        }
                        Resource::Buffer { .. } => write.buffer_info(&buffer_infos[i]),
                        Resource::Image(_) | Resource::Sampler(_) => {
                            write.image_info(&image_infos[i])
                        }
                    }
                })
                .collect();
            device.update_descriptor_sets(&writes, &[]);
        }
        Ok(())
    }

    /// Destroys what [`Descriptors::build`] made. The device must be done with it.
    pub(crate) fn destroy(&mut self, device: &ash::Device) {
        // SAFETY: the handles belong to `device` (or are null) and are no longer in use.
        unsafe {
            device.destroy_descriptor_pool(self.pool, None);
            for &layout in &self.layouts {
                device.destroy_descriptor_set_layout(layout, None);
            }
            for &view in &self.views {
                device.destroy_buffer_view(view, None);
            }
        }
        *self = Descriptors::default();
    }
}
