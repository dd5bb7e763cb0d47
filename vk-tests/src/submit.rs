//! One-shot command buffers: record, submit to the [`Gpu`]'s queue, wait on a fence.
//!
//! The command pool, command buffer and fence are destroyed when the [`OneShot`] is dropped; if
//! it was submitted, the drop waits for the device first.

use std::time::Duration;

use anyhow::{Context, Result};
use ash::vk;

use crate::gpu::Gpu;

/// How long a one-shot submission may take before the wait fails.
pub const SUBMIT_TIMEOUT: Duration = Duration::from_secs(60);

/// A primary command buffer in recording state, then submitted once.
pub struct OneShot<'g> {
    gpu: &'g Gpu,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    submitted: bool,
}

impl<'g> OneShot<'g> {
    /// Creates a command pool and buffer on `gpu`'s queue family and begins recording.
    pub fn begin(gpu: &'g Gpu) -> Result<OneShot<'g>> {
        let device = gpu.device();
        let mut this = OneShot {
            gpu,
            pool: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            submitted: false,
        };
        // SAFETY: valid create infos on a live device; `Drop` destroys what was made.
        unsafe {
            let info = vk::CommandPoolCreateInfo::default()
                .flags(vk::CommandPoolCreateFlags::TRANSIENT)
                .queue_family_index(gpu.queue_family_index());
            this.pool = device
                .create_command_pool(&info, None)
                .context("vkCreateCommandPool failed")?;
            let info = vk::CommandBufferAllocateInfo::default()
                .command_pool(this.pool)
                .level(vk::CommandBufferLevel::PRIMARY)
                .command_buffer_count(1);
            this.cmd = device
                .allocate_command_buffers(&info)
                .context("vkAllocateCommandBuffers failed")?
                .first()
                .copied()
                .unwrap_or_default();
            let info = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            device
                .begin_command_buffer(this.cmd, &info)
                .context("vkBeginCommandBuffer failed")?;
        }
        Ok(this)
    }

    /// Begins a command buffer on `gpu`, lets `record` fill it, then submits it and waits up to
    /// `timeout` (see [`OneShot::submit_and_wait`]).
    pub fn record_and_wait(
        gpu: &Gpu,
        timeout: Duration,
        what: &str,
        record: impl FnOnce(vk::CommandBuffer) -> Result<()>,
    ) -> Result<()> {
        let mut submit = OneShot::begin(gpu)?;
        record(submit.cmd())?;
        submit.submit_and_wait(timeout, what)
    }

    /// The command buffer being recorded.
    pub fn cmd(&self) -> vk::CommandBuffer {
        self.cmd
    }

    /// Ends recording, submits, and waits up to `timeout` for the device to finish.
    pub fn submit_and_wait(&mut self, timeout: Duration, what: &str) -> Result<()> {
        let device = self.gpu.device();
        // SAFETY: the command buffer is in recording state and belongs to this device; the
        // fence is new.
        unsafe {
            device
                .end_command_buffer(self.cmd)
                .with_context(|| format!("vkEndCommandBuffer failed ({what})"))?;
            self.fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .context("vkCreateFence failed")?;
            let cmds = [self.cmd];
            let submit = vk::SubmitInfo::default().command_buffers(&cmds);
            {
                let queue = self.gpu.queue()?;
                device
                    .queue_submit(*queue, &[submit], self.fence)
                    .with_context(|| format!("vkQueueSubmit failed ({what})"))?;
            }
            self.submitted = true;
            let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
            device
                .wait_for_fences(&[self.fence], true, ns)
                .with_context(|| {
                    format!("waiting for the device failed ({what}, timeout {timeout:?})")
                })?;
        }
        Ok(())
    }
}

impl Drop for OneShot<'_> {
    fn drop(&mut self) {
        let device = self.gpu.device();
        // SAFETY: handles belong to this device or are null; after the waits none is in use.
        unsafe {
            if self.submitted
                && device
                    .wait_for_fences(&[self.fence], true, SUBMIT_TIMEOUT.as_nanos() as u64)
                    .is_err()
            {
                let _ = device.device_wait_idle();
            }
            device.destroy_fence(self.fence, None);
            device.destroy_command_pool(self.pool, None);
        }
    }
}

/// A global memory barrier from `src` to `dst` (stages and accesses).
pub fn memory_barrier(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    src: (vk::PipelineStageFlags, vk::AccessFlags),
    dst: (vk::PipelineStageFlags, vk::AccessFlags),
) {
    let barrier = vk::MemoryBarrier::default()
        .src_access_mask(src.1)
        .dst_access_mask(dst.1);
    // SAFETY: `cmd` is recording on `device`.
    unsafe {
        device.cmd_pipeline_barrier(
            cmd,
            src.0,
            dst.0,
            vk::DependencyFlags::empty(),
            &[barrier],
            &[],
            &[],
        );
    }
}

/// Every later use: all stages, reading and writing memory.
pub fn any_use() -> (vk::PipelineStageFlags, vk::AccessFlags) {
    (
        vk::PipelineStageFlags::ALL_COMMANDS,
        vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
    )
}

/// A global memory barrier that makes every earlier write (uploads, draws, dispatches,
/// transfers of earlier submissions) visible to `dst` (stages and accesses).
pub fn after_earlier_writes(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    dst: (vk::PipelineStageFlags, vk::AccessFlags),
) {
    memory_barrier(
        device,
        cmd,
        (
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::MEMORY_WRITE,
        ),
        dst,
    );
}
