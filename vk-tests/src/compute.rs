//! Runs one compute shader: buffers bound as storage, uniform or texel buffers (and, through
//! [`run_compute_with`], images and samplers) at any (set, binding), a dispatch, a wait.
//!
//! Every Vulkan object a run creates is destroyed before it returns, on success and on error.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use ash::vk;

use crate::buffer::Buffer;
use crate::descriptors::{self, Binding, Descriptors, Resource, SetLayoutBinding};
use crate::gpu::Gpu;
use crate::submit::{after_earlier_writes, memory_barrier, OneShot};

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
    /// `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE` (texture SRVs).
    SampledImage,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE` (texture UAVs).
    StorageImage,
    /// `VK_DESCRIPTOR_TYPE_SAMPLER` (separate samplers, combined in the shader).
    Sampler,
}

impl DescriptorKind {
    /// All kinds, in declaration order.
    pub const ALL: [DescriptorKind; 7] = [
        DescriptorKind::StorageBuffer,
        DescriptorKind::UniformBuffer,
        DescriptorKind::StorageTexelBuffer,
        DescriptorKind::UniformTexelBuffer,
        DescriptorKind::SampledImage,
        DescriptorKind::StorageImage,
        DescriptorKind::Sampler,
    ];

    /// The Vulkan descriptor type.
    pub fn vk(self) -> vk::DescriptorType {
        match self {
            DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
            DescriptorKind::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            DescriptorKind::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            DescriptorKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
            DescriptorKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
            DescriptorKind::Sampler => vk::DescriptorType::SAMPLER,
        }
    }

    /// True for the four buffer kinds.
    pub fn is_buffer(self) -> bool {
        !matches!(
            self,
            DescriptorKind::SampledImage | DescriptorKind::StorageImage | DescriptorKind::Sampler
        )
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
            DescriptorKind::SampledImage => "sampled_image",
            DescriptorKind::StorageImage => "storage_image",
            DescriptorKind::Sampler => "sampler",
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
    /// The descriptor-set layout (descriptor arrays); `None`: one descriptor at each
    /// (set, binding) of the bindings ([`descriptors::implied_layout`]).
    pub layout: Option<&'a [SetLayoutBinding]>,
    /// Fence wait limit; the run fails with an error when the device takes longer.
    pub timeout: Duration,
    /// Words pushed at byte 0 before the dispatch (a push-constant range of their size in the
    /// pipeline layout); empty: none.
    pub push_constants: &'a [u32],
}

impl<'a> ComputeJob<'a> {
    /// A job with entry point `main` and [`DEFAULT_TIMEOUT`].
    pub fn new(spirv: &'a [u32], groups: [u32; 3]) -> ComputeJob<'a> {
        ComputeJob {
            spirv,
            entry_point: "main",
            groups,
            layout: None,
            timeout: DEFAULT_TIMEOUT,
            push_constants: &[],
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
    for b in bindings {
        if !b.kind.is_buffer() {
            bail!(
                "set {}, binding {}: a {} is not a buffer descriptor",
                b.set,
                b.binding,
                b.kind
            );
        }
    }
    let bindings: Vec<Binding<'_, '_>> = bindings
        .iter()
        .map(|b| Binding {
            set: b.set,
            binding: b.binding,
            element: 0,
            kind: b.kind,
            stages: vk::ShaderStageFlags::COMPUTE,
            resource: Resource::Buffer {
                buffer: b.buffer,
                texel_format: b.texel_format,
                view: None,
            },
        })
        .collect();
    run_compute_with(gpu, job, &bindings)
}

/// Runs `job` with any descriptors (buffers, images, samplers; see [`crate::descriptors`]) and
/// waits for the device to finish. Shader writes are made visible to the host and to later
/// transfers before it returns.
pub fn run_compute_with(
    gpu: &Gpu,
    job: &ComputeJob<'_>,
    bindings: &[Binding<'_, '_>],
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
    descriptors::check(gpu, job.layout, bindings)?;
    let entry_point = std::ffi::CString::new(job.entry_point)
        .context("the entry point name contains a NUL byte")?;
    let mut objects = Objects::new(gpu);
    objects.create(job, &entry_point, bindings)?;
    let what = format!("compute dispatch {:?}", job.groups);
    OneShot::record_and_wait(gpu, job.timeout, &what, |cmd| {
        objects.record(cmd, job);
        Ok(())
    })
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

/// The pipeline objects of one run; handles start null and `Drop` destroys the non-null ones
/// (destroying a null handle is a no-op in Vulkan). Dropped after the submission, which waits.
struct Objects<'g> {
    gpu: &'g Gpu,
    shader: vk::ShaderModule,
    descriptors: Descriptors,
    pipeline_layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl<'g> Objects<'g> {
    fn new(gpu: &'g Gpu) -> Objects<'g> {
        Objects {
            gpu,
            shader: vk::ShaderModule::null(),
            descriptors: Descriptors::default(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
        }
    }

    /// Creates the pipeline and descriptors.
    fn create(
        &mut self,
        job: &ComputeJob<'_>,
        entry_point: &std::ffi::CStr,
        bindings: &[Binding<'_, '_>],
    ) -> Result<()> {
        let device = self.gpu.device();
        let layout = job
            .layout
            .map_or_else(|| descriptors::implied_layout(bindings), <[_]>::to_vec);
        self.descriptors.build(self.gpu, &layout, bindings)?;
        // SAFETY (whole block): every create info is valid and outlives its call; every handle
        // used belongs to this device and is alive.
        unsafe {
            let info = vk::ShaderModuleCreateInfo::default().code(job.spirv);
            self.shader = device
                .create_shader_module(&info, None)
                .context("vkCreateShaderModule failed")?;
            let ranges = push_ranges(job.push_constants, vk::ShaderStageFlags::COMPUTE);
            let info = vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&self.descriptors.layouts)
                .push_constant_ranges(&ranges);
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
        }
        Ok(())
    }

    /// Records the dispatch and a barrier that makes its writes visible to the host and to
    /// transfers.
    fn record(&self, cmd: vk::CommandBuffer, job: &ComputeJob<'_>) {
        let device = self.gpu.device();
        // Earlier submissions (uploads, draws) wrote what the shader may read.
        after_earlier_writes(
            device,
            cmd,
            (
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
            ),
        );
        // SAFETY: `cmd` is recording; the pipeline and sets were made on this device.
        unsafe {
            device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            self.descriptors.bind(
                device,
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.pipeline_layout,
            );
            if !job.push_constants.is_empty() {
                let bytes: Vec<u8> = job
                    .push_constants
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect();
                device.cmd_push_constants(
                    cmd,
                    self.pipeline_layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    &bytes,
                );
            }
            let [x, y, z] = job.groups;
            device.cmd_dispatch(cmd, x, y, z);
        }
        memory_barrier(
            device,
            cmd,
            (
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::AccessFlags::SHADER_WRITE,
            ),
            (
                vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::TRANSFER,
                vk::AccessFlags::HOST_READ | vk::AccessFlags::TRANSFER_READ,
            ),
        );
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let device = self.gpu.device();
        // SAFETY: all handles belong to this device (or are null); the submission that used them
        // was waited for (or never made).
        unsafe {
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_shader_module(self.shader, None);
        }
        self.descriptors.destroy(device);
    }
}

/// The push-constant range of `words` pushed at byte 0 for `stages` (none when empty).
pub fn push_ranges(words: &[u32], stages: vk::ShaderStageFlags) -> Vec<vk::PushConstantRange> {
    if words.is_empty() {
        return Vec::new();
    }
    vec![vk::PushConstantRange::default()
        .stage_flags(stages)
        .offset(0)
        .size((words.len() * 4) as u32)]
}
