//! Host-visible buffers: create, upload, read back.
//!
//! Every buffer can be bound as a storage or uniform buffer, or through a buffer view as a
//! storage or uniform texel buffer.
//!
//! Memory is host-visible and host-coherent (`gpu-allocator`'s `GpuToCpu` location, which
//! prefers host-cached memory for fast read-back), so no explicit flush or invalidate is needed:
//! host writes before a queue submission are visible to the device, and the compute runner puts
//! a shader-write → host-read barrier before its fence.

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use crate::gpu::Gpu;

/// A buffer in host-visible memory, zero-filled on creation.
///
/// Borrows the [`Gpu`] it was made on; the buffer and its memory are released in [`Drop`].
pub struct Buffer<'g> {
    gpu: &'g Gpu,
    buffer: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
}

impl<'g> Buffer<'g> {
    /// Creates a zero-filled buffer of `size` bytes (`size` must not be 0). `name` shows
    /// up in allocator diagnostics.
    pub fn new(gpu: &'g Gpu, size: u64, name: &str) -> Result<Buffer<'g>> {
        Buffer::with_usage(gpu, size, name, vk::BufferUsageFlags::empty())
    }

    /// Like [`Buffer::new`], with `extra` usage flags besides the storage, uniform, texel and
    /// transfer ones (e.g. `VERTEX_BUFFER`, `INDEX_BUFFER`, `TRANSFORM_FEEDBACK_BUFFER_EXT`).
    pub fn with_usage(
        gpu: &'g Gpu,
        size: u64,
        name: &str,
        extra: vk::BufferUsageFlags,
    ) -> Result<Buffer<'g>> {
        if size == 0 {
            bail!("buffer {name:?}: Vulkan buffers cannot be empty (size 0)");
        }
        let device = gpu.device();
        // Every buffer has a device address where the device can (root-descriptor cases).
        let extra = if gpu.enabled_features().any(|f| f == "bufferDeviceAddress") {
            extra | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
        } else {
            extra
        };
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(
                vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::UNIFORM_BUFFER
                    | vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
                    | vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST
                    | extra,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on a live device.
        let buffer = unsafe { device.create_buffer(&info, None) }
            .with_context(|| format!("vkCreateBuffer failed for {name:?} ({size} bytes)"))?;
        // From here on `Drop` cleans up, also on the error paths below.
        let mut this = Buffer {
            gpu,
            buffer,
            allocation: None,
            size,
        };

        // SAFETY: the buffer was just created on this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(buffer) };
        let allocation = gpu
            .allocator()?
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location: MemoryLocation::GpuToCpu,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .with_context(|| {
                format!("allocating {size} bytes of host-visible memory for {name:?}")
            })?;
        // SAFETY: the allocation satisfies the buffer's requirements and is not bound elsewhere.
        let bound =
            unsafe { device.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) };
        this.allocation = Some(allocation);
        bound.with_context(|| format!("vkBindBufferMemory failed for {name:?}"))?;

        this.mapped_mut()?.fill(0);
        Ok(this)
    }

    /// Creates a buffer holding `bytes` (which must not be empty).
    pub fn from_bytes(gpu: &'g Gpu, bytes: &[u8], name: &str) -> Result<Buffer<'g>> {
        Buffer::with_bytes(gpu, bytes, name, vk::BufferUsageFlags::empty())
    }

    /// Like [`Buffer::from_bytes`], with `extra` usage flags (see [`Buffer::with_usage`]).
    pub fn with_bytes(
        gpu: &'g Gpu,
        bytes: &[u8],
        name: &str,
        extra: vk::BufferUsageFlags,
    ) -> Result<Buffer<'g>> {
        let mut buf = Buffer::with_usage(gpu, bytes.len() as u64, name, extra)?;
        buf.write(0, bytes)?;
        Ok(buf)
    }

    /// Creates a buffer holding `words` (little-endian, as the device sees them).
    pub fn from_u32s(gpu: &'g Gpu, words: &[u32], name: &str) -> Result<Buffer<'g>> {
        Buffer::from_bytes(gpu, &u32s_to_bytes(words), name)
    }

    /// The device this buffer lives on.
    pub(crate) fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    /// The Vulkan buffer handle.
    pub fn handle(&self) -> vk::Buffer {
        self.buffer
    }

    /// The buffer's device address (`vkGetBufferDeviceAddress`); the device must have
    /// `bufferDeviceAddress` enabled.
    pub fn device_address(&self) -> Result<u64> {
        if !self
            .gpu
            .enabled_features()
            .any(|f| f == "bufferDeviceAddress")
        {
            bail!("the device has no bufferDeviceAddress: buffers have no device address");
        }
        let info = vk::BufferDeviceAddressInfo::default().buffer(self.buffer);
        // SAFETY: the buffer lives on this device, was created with SHADER_DEVICE_ADDRESS
        // usage and is bound to memory allocated with the device-address flag.
        Ok(unsafe { self.gpu.device().get_buffer_device_address(&info) })
    }

    /// Size in bytes, as requested at creation.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Copies `bytes` into the buffer at byte `offset`.
    pub fn write(&mut self, offset: u64, bytes: &[u8]) -> Result<()> {
        let size = self.size;
        let end = offset
            .checked_add(bytes.len() as u64)
            .filter(|&end| end <= size)
            .ok_or_else(|| {
                anyhow!(
                    "write of {} bytes at offset {offset} overflows a {size}-byte buffer",
                    bytes.len()
                )
            })?;
        // `end <= size`, and `size` fits the mapped slice, so these casts are lossless.
        self.mapped_mut()?[offset as usize..end as usize].copy_from_slice(bytes);
        Ok(())
    }

    /// Copies the whole buffer out. Call only when the device is done writing it (the compute
    /// runner waits for its fence before returning).
    pub fn read(&self) -> Result<Vec<u8>> {
        Ok(self.mapped()?.to_vec())
    }

    /// Copies the whole buffer out as little-endian `u32`s (a trailing partial word is dropped).
    pub fn read_u32s(&self) -> Result<Vec<u32>> {
        Ok(self
            .mapped()?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// The mapped bytes of this buffer (exactly `size` long).
    fn mapped(&self) -> Result<&[u8]> {
        let size = self.size as usize;
        let slice = self
            .allocation
            .as_ref()
            .and_then(Allocation::mapped_slice)
            .ok_or_else(|| anyhow!("buffer memory is not host-mapped"))?;
        slice.get(..size).ok_or_else(|| {
            anyhow!(
                "mapped range ({} bytes) is smaller than the buffer",
                slice.len()
            )
        })
    }

    /// The mapped bytes of this buffer, writable (exactly `size` long).
    fn mapped_mut(&mut self) -> Result<&mut [u8]> {
        let size = self.size as usize;
        let slice = self
            .allocation
            .as_mut()
            .and_then(Allocation::mapped_slice_mut)
            .ok_or_else(|| anyhow!("buffer memory is not host-mapped"))?;
        let len = slice.len();
        slice
            .get_mut(..size)
            .ok_or_else(|| anyhow!("mapped range ({len} bytes) is smaller than the buffer"))
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // SAFETY: the buffer belongs to this device, and users wait for the device before dropping
        // (the compute runner waits on its fence).
        unsafe { self.gpu.device().destroy_buffer(self.buffer, None) };
        if let Some(allocation) = self.allocation.take() {
            self.gpu.free(allocation, "buffer");
        }
    }
}

/// Little-endian bytes of `words`.
pub fn u32s_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
