//! Runs one compute shader: buffers bound as storage, uniform or texel buffers at any
//! (set, binding), a dispatch, a wait.
//!
//! Every Vulkan object a run creates is destroyed before it returns, on success and on error.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use ash::vk;

use crate::buffer::Buffer;
use crate::gpu::Gpu;

/// How long [`run_compute`] waits for the device before reporting a hang.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How a buffer is bound: the Vulkan descriptor type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER` (SPIR-V `StorageBuffer` block).
    StorageBuffer,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER` (SPIR-V `Uniform` block).
    UniformBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER` (an image of dimension `Buffer`, sampled 2).
    StorageTexelBuffer,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER` (an image of dimension `Buffer`, sampled 1).
    UniformTexelBuffer,
}

impl DescriptorKind {
    /// All kinds, in declaration order.
    pub const ALL: [DescriptorKind; 4] = [
        DescriptorKind::StorageBuffer,
        DescriptorKind::UniformBuffer,
        DescriptorKind::StorageTexelBuffer,
        DescriptorKind::UniformTexelBuffer,
    ];

    /// The Vulkan descriptor type.
    pub fn vk(self) -> vk::DescriptorType {
        match self {
            DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
            DescriptorKind::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            DescriptorKind::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        }
    }

    /// True for the texel-buffer kinds, which are bound through a buffer view with a format.
    pub fn is_texel(self) -> bool {
        matches!(
            self,
            DescriptorKind::StorageTexelBuffer | DescriptorKind::UniformTexelBuffer
        )
    }

    /// The snake-case name used in case files, e.g. `storage_texel_buffer`.
    pub fn name(self) -> &'static str {
        match self {
            DescriptorKind::StorageBuffer => "storage_buffer",
            DescriptorKind::UniformBuffer => "uniform_buffer",
            DescriptorKind::StorageTexelBuffer => "storage_texel_buffer",
            DescriptorKind::UniformTexelBuffer => "uniform_texel_buffer",
        }
    }

    /// The kind named `name` (see [`DescriptorKind::name`]).
    pub fn from_name(name: &str) -> Option<DescriptorKind> {
        DescriptorKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl std::fmt::Display for DescriptorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One buffer and where it is bound.
#[derive(Clone, Copy)]
pub struct BufferBinding<'a, 'g> {
    /// Descriptor set index.
    pub set: u32,
    /// Binding within the set.
    pub binding: u32,
    /// Descriptor type.
    pub kind: DescriptorKind,
    /// The buffer (bound whole: offset 0, `VK_WHOLE_SIZE`).
    pub buffer: &'a Buffer<'g>,
    /// Format of the buffer view; required for the texel kinds, ignored otherwise.
    pub texel_format: Option<vk::Format>,
}

impl<'a, 'g> BufferBinding<'a, 'g> {
    /// `buffer` as a storage buffer at (`set`, `binding`).
    pub fn storage(set: u32, binding: u32, buffer: &'a Buffer<'g>) -> BufferBinding<'a, 'g> {
        BufferBinding {
            set,
            binding,
            kind: DescriptorKind::StorageBuffer,
            buffer,
            texel_format: None,
        }
    }
}

/// One compute dispatch: the shader, its entry point, its buffers and the workgroup counts.
#[derive(Clone, Copy, Debug)]
pub struct ComputeJob<'a> {
    /// The SPIR-V module, as words.
    pub spirv: &'a [u32],
    /// Name of the `GLCompute` entry point.
    pub entry_point: &'a str,
    /// Workgroup counts `(x, y, z)` for `vkCmdDispatch`.
    pub groups: [u32; 3],
    /// Fence wait limit; the run fails with an error when the device takes longer.
    pub timeout: Duration,
}

impl<'a> ComputeJob<'a> {
    /// A job with entry point `main` and [`DEFAULT_TIMEOUT`].
    pub fn new(spirv: &'a [u32], groups: [u32; 3]) -> ComputeJob<'a> {
        ComputeJob {
            spirv,
            entry_point: "main",
            groups,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// Runs `job` with `buffers[i]` bound as a storage buffer at set 0, binding `i`, and waits for
/// the device to finish; afterwards the buffers hold the results (read them with
/// [`Buffer::read`]).
pub fn run_compute(gpu: &Gpu, job: &ComputeJob<'_>, buffers: &[&Buffer<'_>]) -> Result<()> {
    let bindings: Vec<BufferBinding<'_, '_>> = buffers
        .iter()
        .zip(0u32..)
        .map(|(buffer, binding)| BufferBinding::storage(0, binding, buffer))
        .collect();
    run_compute_bound(gpu, job, &bindings)
}

/// Runs `job` with each buffer bound where its [`BufferBinding`] says, and waits for the device
/// to finish. Sets run from 0 to the largest set used (sets in between are empty); each
/// (set, binding) may appear once.
pub fn run_compute_bound(
    gpu: &Gpu,
    job: &ComputeJob<'_>,
    bindings: &[BufferBinding<'_, '_>],
) -> Result<()> {
    if job.spirv.is_empty() {
        bail!("empty SPIR-V module");
    }
    let max = gpu.info().max_compute_work_group_count;
    if job.groups.iter().zip(max).any(|(&g, m)| g > m) {
        bail!(
            "dispatch {:?} exceeds the device's maxComputeWorkGroupCount {max:?}",
            job.groups
        );
    }
    for (i, b) in bindings.iter().enumerate() {
        if !std::ptr::eq(b.buffer.gpu(), gpu) {
            bail!(
                "the buffer at set {}, binding {} was created on a different Gpu",
                b.set,
                b.binding
            );
        }
        if bindings[..i]
            .iter()
            .any(|o| (o.set, o.binding) == (b.set, b.binding))
        {
            bail!("set {}, binding {} is bound twice", b.set, b.binding);
        }
        if b.kind.is_texel() && b.texel_format.is_none() {
            bail!(
                "set {}, binding {}: a {} needs a texel format",
                b.set,
                b.binding,
                b.kind
            );
        }
    }
    let entry_point = std::ffi::CString::new(job.entry_point)
        .context("the entry point name contains a NUL byte")?;
    let mut objects = Objects::new(gpu);
    objects.record_and_submit(job, &entry_point, bindings)?;

    let timeout_ns = u64::try_from(job.timeout.as_nanos()).unwrap_or(u64::MAX);
    // SAFETY: the fence was submitted above.
    unsafe {
        gpu.device()
            .wait_for_fences(&[objects.fence], true, timeout_ns)
    }
    .with_context(|| {
        format!(
            "waiting for the compute dispatch {:?} failed (timeout {:?})",
            job.groups, job.timeout
        )
    })?;
    Ok(())
}

/// Convenience: makes one buffer per entry of `inputs` (initialized with it), runs `job`, and
/// returns every buffer's contents afterwards, as `u32`s.
pub fn run_compute_u32(
    gpu: &Gpu,
    job: &ComputeJob<'_>,
    inputs: &[&[u32]],
) -> Result<Vec<Vec<u32>>> {
    let buffers = inputs
        .iter()
        .enumerate()
        .map(|(i, words)| Buffer::from_u32s(gpu, words, &format!("binding {i}")))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Buffer<'_>> = buffers.iter().collect();
    run_compute(gpu, job, &refs)?;
    buffers.iter().map(Buffer::read_u32s).collect()
}

/// The Vulkan objects of one run; handles start null and `Drop` destroys the non-null ones
/// (destroying a null handle is a no-op in Vulkan).
struct Objects<'g> {
    gpu: &'g Gpu,
    shader: vk::ShaderModule,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    buffer_views: Vec<vk::BufferView>,
    pipeline_layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    descriptor_pool: vk::DescriptorPool,
    command_pool: vk::CommandPool,
    fence: vk::Fence,
    /// Set once the fence was submitted: `Drop` must then wait for the device before destroying.
    submitted: bool,
}

impl<'g> Objects<'g> {
    fn new(gpu: &'g Gpu) -> Objects<'g> {
        Objects {
            gpu,
            shader: vk::ShaderModule::null(),
            set_layouts: Vec::new(),
            buffer_views: Vec::new(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            command_pool: vk::CommandPool::null(),
            fence: vk::Fence::null(),
            submitted: false,
        }
    }

    /// Creates the pipeline and descriptors, records the dispatch and submits it with `fence`.
    fn record_and_submit(
        &mut self,
        job: &ComputeJob<'_>,
        entry_point: &std::ffi::CStr,
        buffers: &[BufferBinding<'_, '_>],
    ) -> Result<()> {
        let device = self.gpu.device();
        let set_count = buffers.iter().map(|b| b.set + 1).max().unwrap_or(0);

        // SAFETY (whole block): every create info is valid and outlives its call; every handle
        // used belongs to this device and is alive.
        unsafe {
            let info = vk::ShaderModuleCreateInfo::default().code(job.spirv);
            self.shader = device
                .create_shader_module(&info, None)
                .context("vkCreateShaderModule failed")?;

            for set in 0..set_count {
                let bindings: Vec<_> = buffers
                    .iter()
                    .filter(|b| b.set == set)
                    .map(|b| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(b.binding)
                            .descriptor_type(b.kind.vk())
                            .descriptor_count(1)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    })
                    .collect();
                let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
                let layout = device
                    .create_descriptor_set_layout(&info, None)
                    .with_context(|| format!("vkCreateDescriptorSetLayout failed for set {set}"))?;
                self.set_layouts.push(layout);
            }

            let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&self.set_layouts);
            self.pipeline_layout = device
                .create_pipeline_layout(&info, None)
                .context("vkCreatePipelineLayout failed")?;

            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(self.shader)
                .name(entry_point);
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(self.pipeline_layout);
            let pipelines = device
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
                .map_err(|(_, e)| e)
                .with_context(|| {
                    format!(
                        "vkCreateComputePipelines failed (entry point {:?})",
                        job.entry_point
                    )
                })?;
            self.pipeline = pipelines.first().copied().unwrap_or_default();

            let mut descriptor_sets = Vec::new();
            if set_count > 0 {
                let sizes: Vec<_> = DescriptorKind::ALL
                    .iter()
                    .filter_map(|&kind| {
                        let n = buffers.iter().filter(|b| b.kind == kind).count();
                        (n > 0).then(|| {
                            vk::DescriptorPoolSize::default()
                                .ty(kind.vk())
                                .descriptor_count(n as u32)
                        })
                    })
                    .collect();
                let info = vk::DescriptorPoolCreateInfo::default()
                    .max_sets(set_count)
                    .pool_sizes(&sizes);
                self.descriptor_pool = device
                    .create_descriptor_pool(&info, None)
                    .context("vkCreateDescriptorPool failed")?;
                let info = vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(self.descriptor_pool)
                    .set_layouts(&self.set_layouts);
                descriptor_sets = device
                    .allocate_descriptor_sets(&info)
                    .context("vkAllocateDescriptorSets failed")?;

                let mut infos = Vec::with_capacity(buffers.len());
                let mut views = Vec::with_capacity(buffers.len());
                for b in buffers {
                    infos.push([vk::DescriptorBufferInfo::default()
                        .buffer(b.buffer.handle())
                        .offset(0)
                        .range(vk::WHOLE_SIZE)]);
                    let mut view = vk::BufferView::null();
                    if let (true, Some(format)) = (b.kind.is_texel(), b.texel_format) {
                        let info = vk::BufferViewCreateInfo::default()
                            .buffer(b.buffer.handle())
                            .format(format)
                            .offset(0)
                            .range(vk::WHOLE_SIZE);
                        view = device.create_buffer_view(&info, None).with_context(|| {
                            format!(
                                "vkCreateBufferView failed ({format:?}, set {}, binding {})",
                                b.set, b.binding
                            )
                        })?;
                        self.buffer_views.push(view);
                    }
                    views.push([view]);
                }
                let writes: Vec<_> = buffers
                    .iter()
                    .zip(infos.iter().zip(&views))
                    .map(|(b, (info, view))| {
                        let write = vk::WriteDescriptorSet::default()
                            .dst_set(descriptor_sets[b.set as usize])
                            .dst_binding(b.binding)
                            .descriptor_type(b.kind.vk());
                        if b.kind.is_texel() {
                            write.texel_buffer_view(view)
                        } else {
                            write.buffer_info(info)
                        }
                    })
                    .collect();
                device.update_descriptor_sets(&writes, &[]);
            }

            let info = vk::CommandPoolCreateInfo::default()
                .flags(vk::CommandPoolCreateFlags::TRANSIENT)
                .queue_family_index(self.gpu.queue_family_index());
            self.command_pool = device
                .create_command_pool(&info, None)
                .context("vkCreateCommandPool failed")?;
            let info = vk::CommandBufferAllocateInfo::default()
                .command_pool(self.command_pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            let cmd = device
                .allocate_command_buffers(&info)
                .context("vkAllocateCommandBuffers failed")?
                .first()
                .copied()
                .unwrap_or_default();

            let info = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            device
                .begin_command_buffer(cmd, &info)
                .context("vkBeginCommandBuffer failed")?;
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            if !descriptor_sets.is_empty() {
                device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    self.pipeline_layout,
                    0,
                    &descriptor_sets,
                    &[],
                );
            }
            let [x, y, z] = job.groups;
            device.cmd_dispatch(cmd, x, y, z);
            // Make shader writes visible to host reads after the fence.
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
            device
                .end_command_buffer(cmd)
                .context("vkEndCommandBuffer failed")?;

            self.fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .context("vkCreateFence failed")?;
            let cmds = [cmd];
            let submit = vk::SubmitInfo::default().command_buffers(&cmds);
            let queue = self.gpu.queue()?;
            device
                .queue_submit(*queue, &[submit], self.fence)
                .context("vkQueueSubmit failed")?;
            self.submitted = true;
        }
        Ok(())
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let device = self.gpu.device();
        // SAFETY: all handles belong to this device (or are null); after the fence wait (or a
        // full device wait, when the fence wait failed) none is in use.
        unsafe {
            if self.submitted
                && device
                    .wait_for_fences(&[self.fence], true, DEFAULT_TIMEOUT.as_nanos() as u64)
                    .is_err()
            {
                let _ = device.device_wait_idle();
            }
            device.destroy_fence(self.fence, None);
            device.destroy_command_pool(self.command_pool, None);
            device.destroy_descriptor_pool(self.descriptor_pool, None);
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            for &layout in &self.set_layouts {
                device.destroy_descriptor_set_layout(layout, None);
            }
            for &view in &self.buffer_views {
                device.destroy_buffer_view(view, None);
            }
            device.destroy_shader_module(self.shader, None);
        }
    }
}
