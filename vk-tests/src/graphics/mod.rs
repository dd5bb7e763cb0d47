//! Runs one draw: vertex, tessellation, geometry and pixel shaders into color and depth/stencil
//! targets, with vertex and index buffers, descriptors for every stage, several viewports, MSAA
//! and transform feedback, then waits for the device.
//!
//! Tessellation keeps Vulkan's default domain origin, upper-left, which is D3D's.
//!
//! Rendering uses dynamic rendering (Vulkan 1.3 core); every image stays in
//! `VK_IMAGE_LAYOUT_GENERAL` ([`crate::image`]). Targets are cleared when rendering begins,
//! unless the job keeps them (`load_targets`).
//!
//! Coordinates follow D3D: [`d3d_viewport`] turns a D3D viewport (origin top-left, y down) into
//! a Vulkan viewport with negative height (`VK_KHR_maintenance1`, core in 1.1), so clip-space
//! positions land on the same pixels as in D3D, and triangles that are clockwise on screen
//! (D3D's default front face) are clockwise in Vulkan's framebuffer coordinates as well: use
//! `vk::FrontFace::CLOCKWISE` for D3D's `FrontCounterClockwise = FALSE`.
//!
//! Every Vulkan object a run creates is destroyed before it returns, on success and on error.

mod pipeline;

use std::time::Duration;

use anyhow::{bail, Context, Result};
use ash::vk;

use crate::buffer::Buffer;
use crate::descriptors::{self, Binding, SetLayoutBinding};
use crate::gpu::Gpu;
use crate::image::{Image, ImageView};
use crate::submit::{after_earlier_writes, any_use, memory_barrier, OneShot};

pub use pipeline::Pipeline;

/// How long [`run_graphics`] waits for the device before reporting a hang.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// One shader stage of the pipeline.
#[derive(Clone, Copy, Debug)]
pub struct StageModule<'a> {
    /// `VERTEX`, `TESSELLATION_CONTROL`, `TESSELLATION_EVALUATION`, `GEOMETRY` or `FRAGMENT`.
    pub stage: vk::ShaderStageFlags,
    /// The SPIR-V module.
    pub spirv: &'a [u32],
    /// The entry point.
    pub entry_point: &'a str,
}

/// A vertex buffer bound at a slot (Vulkan vertex binding = D3D input slot).
#[derive(Clone, Copy)]
pub struct VertexBuffer<'a, 'g> {
    /// Input slot.
    pub slot: u32,
    /// The buffer (created with `VERTEX_BUFFER` usage), bound from offset 0.
    pub buffer: &'a Buffer<'g>,
    /// Bytes between elements.
    pub stride: u32,
    /// Advance once per instance (D3D `D3D11_INPUT_PER_INSTANCE_DATA`, step rate 1) instead of
    /// once per vertex.
    pub per_instance: bool,
}

/// One vertex attribute (D3D input element): vertex shader input `location`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexAttribute {
    /// Shader input location (the `v#` register).
    pub location: u32,
    /// Input slot it reads.
    pub slot: u32,
    /// Element format.
    pub format: vk::Format,
    /// Byte offset in the element.
    pub offset: u32,
}

/// The draw call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawCall {
    /// Vertices (or indices, for an indexed draw).
    pub vertex_count: u32,
    /// Instances.
    pub instance_count: u32,
    /// First vertex (or first index).
    pub first_vertex: u32,
    /// First instance.
    pub first_instance: u32,
    /// For an indexed draw: added to each index.
    pub vertex_offset: i32,
}

/// A color target: the attachment at `location` (D3D `SV_Target<location>`).
#[derive(Clone, Copy)]
pub struct ColorTarget<'a, 'g> {
    /// Fragment output location.
    pub location: u32,
    /// The image (`COLOR_ATTACHMENT` usage).
    pub image: &'a Image<'g>,
    /// Cleared to this when rendering begins.
    pub clear: vk::ClearColorValue,
    /// Blend state and write mask (`None`: no blending, every channel written).
    pub blend: Option<vk::PipelineColorBlendAttachmentState>,
}

/// The depth/stencil target and its tests.
#[derive(Clone, Copy)]
pub struct DepthTarget<'a, 'g> {
    /// The image (`DEPTH_STENCIL_ATTACHMENT` usage).
    pub image: &'a Image<'g>,
    /// True when the format has stencil.
    pub has_stencil: bool,
    /// Depth clear value.
    pub clear_depth: f32,
    /// Stencil clear value.
    pub clear_stencil: u32,
    /// Depth test on.
    pub depth_test: bool,
    /// Depth writes on.
    pub depth_write: bool,
    /// Depth comparison.
    pub depth_compare: vk::CompareOp,
    /// Stencil test on.
    pub stencil_test: bool,
    /// Front-face stencil state (`reference` is the stencil reference value).
    pub front: vk::StencilOpState,
    /// Back-face stencil state.
    pub back: vk::StencilOpState,
}

/// Rasterizer and multisample state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Raster {
    /// Faces culled.
    pub cull: vk::CullModeFlags,
    /// The front face (D3D default: `CLOCKWISE`, see the module documentation).
    pub front_face: vk::FrontFace,
    /// Fill (`FILL`) or wireframe (`LINE`).
    pub polygon_mode: vk::PolygonMode,
    /// Depth clamp instead of depth clipping (D3D `DepthClipEnable = FALSE`).
    pub depth_clamp: bool,
    /// Rasterizer discard (D3D `D3D11_SO_NO_RASTERIZED_STREAM`).
    pub discard: bool,
    /// The vertex stream rasterized, when not 0 (`VK_EXT_transform_feedback`).
    pub stream: u32,
    /// Sample shading with this minimum fraction (`None`: off).
    pub min_sample_shading: Option<f32>,
    /// The sample mask (bit per sample).
    pub sample_mask: u32,
}

impl Default for Raster {
    fn default() -> Raster {
        Raster {
            cull: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::CLOCKWISE,
            polygon_mode: vk::PolygonMode::FILL,
            depth_clamp: false,
            discard: false,
            stream: 0,
            min_sample_shading: None,
            sample_mask: u32::MAX,
        }
    }
}

/// A transform feedback buffer at a D3D stream-output slot, written from offset 0.
#[derive(Clone, Copy)]
pub struct XfbBuffer<'a, 'g> {
    /// The slot (transform feedback binding).
    pub slot: u32,
    /// The buffer (`TRANSFORM_FEEDBACK_BUFFER_EXT` usage).
    pub buffer: &'a Buffer<'g>,
}

/// Everything one draw needs.
#[derive(Clone)]
pub struct GraphicsJob<'a, 'g> {
    /// The stages (a vertex shader at least).
    pub stages: Vec<StageModule<'a>>,
    /// Primitive topology.
    pub topology: vk::PrimitiveTopology,
    /// Control points per patch, with `PATCH_LIST` (and tessellation shaders) only.
    pub patch_control_points: Option<u32>,
    /// Vertex buffers.
    pub vertex_buffers: Vec<VertexBuffer<'a, 'g>>,
    /// Vertex attributes.
    pub attributes: Vec<VertexAttribute>,
    /// For an indexed draw: the `u32` index buffer (`INDEX_BUFFER` usage).
    pub index_buffer: Option<&'a Buffer<'g>>,
    /// The draw.
    pub draw: DrawCall,
    /// Render area width.
    pub width: u32,
    /// Render area height.
    pub height: u32,
    /// Layers rendered (render-target arrays).
    pub layers: u32,
    /// Samples per pixel of every target.
    pub samples: u32,
    /// Specialization constants `(constantID, 32-bit value)` every stage gets, besides (or,
    /// for id 0, instead of) the sample count at id 0.
    pub specializations: Vec<(u32, u32)>,
    /// Color targets.
    pub color_targets: Vec<ColorTarget<'a, 'g>>,
    /// Depth/stencil target.
    pub depth: Option<DepthTarget<'a, 'g>>,
    /// Keep the targets' contents (`VK_ATTACHMENT_LOAD_OP_LOAD`: a later draw of several in
    /// order) instead of clearing them to their clear values.
    pub load_targets: bool,
    /// Rasterizer state.
    pub raster: Raster,
    /// Viewports, already in Vulkan form (see [`d3d_viewport`]); at least one.
    pub viewports: Vec<vk::Viewport>,
    /// One scissor rectangle per viewport.
    pub scissors: Vec<vk::Rect2D>,
    /// Descriptors of every stage.
    pub bindings: Vec<Binding<'a, 'g>>,
    /// The descriptor-set layout (descriptor arrays); `None`: one descriptor at each
    /// (set, binding) of `bindings` ([`descriptors::implied_layout`]).
    pub layout: Option<Vec<SetLayoutBinding>>,
    /// Transform feedback buffers; non-empty turns transform feedback on.
    pub xfb: Vec<XfbBuffer<'a, 'g>>,
    /// Streams whose primitive counts are queried (`VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT`).
    pub xfb_queries: Vec<u32>,
    /// Fence wait limit.
    pub timeout: Duration,
    /// Words pushed at byte 0 for every graphics stage before the draw; empty: none.
    pub push_constants: Vec<u32>,
}

impl GraphicsJob<'_, '_> {
    /// Color attachment slots: one past the highest target location (0 without targets).
    pub fn color_slots(&self) -> usize {
        self.color_targets
            .iter()
            .map(|t| t.location + 1)
            .max()
            .unwrap_or(0) as usize
    }
}

/// What a draw reports besides the images and buffers it wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphicsResult {
    /// For each queried stream: (stream, primitives written, primitives needed).
    pub xfb_primitives: Vec<(u32, u64, u64)>,
}

/// The Vulkan viewport for a D3D viewport (top-left `x`, `y`, `width`, `height` in pixels,
/// depth range): `y + height` and a negative height, so D3D's NDC `+y` (up) maps to the top.
pub fn d3d_viewport(
    x: f32,
    y: f32,
    width: f32,
    height: f32,
    min_depth: f32,
    max_depth: f32,
) -> vk::Viewport {
    vk::Viewport {
        x,
        y: y + height,
        width,
        height: -height,
        min_depth,
        max_depth,
    }
}

/// Draws `job` and waits for the device. Afterwards the targets, storage resources and transform
/// feedback buffers hold the results; writes are visible to transfers, shaders and the host.
pub fn run_graphics(gpu: &Gpu, job: &GraphicsJob<'_, '_>) -> Result<GraphicsResult> {
    check(gpu, job)?;
    let xfb = if job.xfb.is_empty() && job.xfb_queries.is_empty() {
        None
    } else {
        Some(ash::ext::transform_feedback::Device::new(
            gpu.instance(),
            gpu.device(),
        ))
    };
    let pipeline = Pipeline::new(gpu, job)?;
    let views = attachment_views(job)?;
    let mut queries = QueryPool::new(gpu, job.xfb_queries.len() as u32)?;

    let what = format!("draw ({:?})", job.topology);
    OneShot::record_and_wait(gpu, job.timeout, &what, |cmd| {
        record(gpu, job, &pipeline, &views, &queries, xfb.as_ref(), cmd)
    })?;

    let mut result = GraphicsResult::default();
    if !job.xfb_queries.is_empty() {
        let mut data = vec![[0u64; 2]; job.xfb_queries.len()];
        // SAFETY: the pool has one query per stream, all ended in the finished submission.
        unsafe {
            gpu.device().get_query_pool_results(
                queries.pool,
                0,
                &mut data,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .context("vkGetQueryPoolResults failed for the transform feedback queries")?;
        result.xfb_primitives = job
            .xfb_queries
            .iter()
            .zip(data)
            .map(|(&s, [written, needed])| (s, written, needed))
            .collect();
    }
    queries.destroy();
    Ok(result)
}

fn check(gpu: &Gpu, job: &GraphicsJob<'_, '_>) -> Result<()> {
    descriptors::check(gpu, job.layout.as_deref(), &job.bindings)?;
    if !job
        .stages
        .iter()
        .any(|s| s.stage == vk::ShaderStageFlags::VERTEX)
    {
        bail!("a graphics pipeline needs a vertex shader");
    }
    let patches = job.topology == vk::PrimitiveTopology::PATCH_LIST;
    if patches != job.patch_control_points.is_some() {
        bail!("a PATCH_LIST draw gives patch_control_points, and no other draw does");
    }
    let tessellation = [
        vk::ShaderStageFlags::TESSELLATION_CONTROL,
        vk::ShaderStageFlags::TESSELLATION_EVALUATION,
    ]
    .map(|t| job.stages.iter().any(|s| s.stage == t));
    if tessellation != [patches; 2] {
        bail!("a PATCH_LIST draw needs both tessellation stages, and no other draw takes them");
    }
    if job.viewports.is_empty() || job.viewports.len() != job.scissors.len() {
        bail!("give one scissor per viewport, and at least one viewport");
    }
    for t in &job.color_targets {
        let d = t.image.desc();
        if d.samples != job.samples || d.width < job.width || d.height < job.height {
            bail!(
                "render target {} ({}x{}, {} samples) does not fit the {}x{} render area with {} samples",
                t.location, d.width, d.height, d.samples, job.width, job.height, job.samples
            );
        }
    }
    if let Some(d) = &job.depth {
        let desc = d.image.desc();
        if desc.samples != job.samples {
            bail!(
                "the depth target has {} samples, the color targets {}",
                desc.samples,
                job.samples
            );
        }
    }
    for (i, t) in job.color_targets.iter().enumerate() {
        if job.color_targets[..i]
            .iter()
            .any(|o| o.location == t.location)
        {
            bail!("two render targets at location {}", t.location);
        }
    }
    Ok(())
}

/// Image views of the color targets (by location) and of the depth target.
struct AttachmentViews<'g> {
    color: Vec<(u32, ImageView<'g>)>,
    depth: Option<ImageView<'g>>,
}

fn attachment_views<'g>(job: &GraphicsJob<'_, 'g>) -> Result<AttachmentViews<'g>> {
    let view_type = if job.layers > 1 {
        vk::ImageViewType::TYPE_2D_ARRAY
    } else {
        vk::ImageViewType::TYPE_2D
    };
    let range = |image: &Image<'_>, aspects| vk::ImageSubresourceRange {
        aspect_mask: aspects,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: job.layers.min(image.desc().layers),
    };
    let mut color = Vec::new();
    for t in &job.color_targets {
        let r = range(t.image, vk::ImageAspectFlags::COLOR);
        color.push((t.location, t.image.view(view_type, r)?));
    }
    let depth = match &job.depth {
        Some(d) => Some(
            d.image
                .view(view_type, range(d.image, d.image.desc().aspects))?,
        ),
        None => None,
    };
    Ok(AttachmentViews { color, depth })
}

/// A query pool for transform feedback stream queries (none when `count` is 0).
struct QueryPool<'g> {
    gpu: &'g Gpu,
    pool: vk::QueryPool,
}

impl<'g> QueryPool<'g> {
    fn new(gpu: &'g Gpu, count: u32) -> Result<QueryPool<'g>> {
        let mut this = QueryPool {
            gpu,
            pool: vk::QueryPool::null(),
        };
        if count > 0 {
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT)
                .query_count(count);
            // SAFETY: valid create info; the transform feedback extension is enabled (the case
            // requires it).
            this.pool = unsafe { gpu.device().create_query_pool(&info, None) }
                .context("vkCreateQueryPool failed (transform feedback stream queries)")?;
        }
        Ok(this)
    }

    fn destroy(&mut self) {
        // SAFETY: the pool is no longer in use (the submission finished) or null.
        unsafe { self.gpu.device().destroy_query_pool(self.pool, None) };
        self.pool = vk::QueryPool::null();
    }
}

impl Drop for QueryPool<'_> {
    fn drop(&mut self) {
        self.destroy();
    }
}

/// Records the whole draw into `cmd`.
fn record(
    gpu: &Gpu,
    job: &GraphicsJob<'_, '_>,
    pipeline: &Pipeline<'_>,
    views: &AttachmentViews<'_>,
    queries: &QueryPool<'_>,
    xfb: Option<&ash::ext::transform_feedback::Device>,
    cmd: vk::CommandBuffer,
) -> Result<()> {
    let device = gpu.device();
    after_earlier_writes(device, cmd, any_use());
    let load_op = if job.load_targets {
        vk::AttachmentLoadOp::LOAD
    } else {
        vk::AttachmentLoadOp::CLEAR
    };
    let mut color = vec![vk::RenderingAttachmentInfo::default(); job.color_slots()];
    for (t, (_, view)) in job.color_targets.iter().zip(&views.color) {
        color[t.location as usize] = vk::RenderingAttachmentInfo::default()
            .image_view(view.handle())
            .image_layout(vk::ImageLayout::GENERAL)
            .load_op(load_op)
            .store_op(vk::AttachmentStoreOp::STORE)
            .clear_value(vk::ClearValue { color: t.clear });
    }
    let depth_attachment = job
        .depth
        .as_ref()
        .zip(views.depth.as_ref())
        .map(|(d, view)| {
            vk::RenderingAttachmentInfo::default()
                .image_view(view.handle())
                .image_layout(vk::ImageLayout::GENERAL)
                .load_op(load_op)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue {
                        depth: d.clear_depth,
                        stencil: d.clear_stencil,
                    },
                })
        });
    let mut rendering = vk::RenderingInfo::default()
        .render_area(vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: job.width,
                height: job.height,
            },
        })
        .layer_count(job.layers.max(1))
        .color_attachments(&color);
    if let Some(d) = depth_attachment.as_ref() {
        rendering = rendering.depth_attachment(d);
        if job.depth.as_ref().is_some_and(|d| d.has_stencil) {
            rendering = rendering.stencil_attachment(d);
        }
    }

    let query_count = job.xfb_queries.len() as u32;
    // SAFETY (whole block): `cmd` is recording on this device; every handle is alive; the
    // transform feedback commands are only recorded when the extension is loaded.
    unsafe {
        if query_count > 0 {
            device.cmd_reset_query_pool(cmd, queries.pool, 0, query_count);
        }
        if let Some(x) = xfb {
            for (i, &stream) in job.xfb_queries.iter().enumerate() {
                (x.fp().cmd_begin_query_indexed_ext)(
                    cmd,
                    queries.pool,
                    i as u32,
                    vk::QueryControlFlags::empty(),
                    stream,
                );
            }
        }
        device.cmd_begin_rendering(cmd, &rendering);
        device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline.pipeline);
        pipeline.descriptors.bind(
            device,
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            pipeline.layout,
        );
        if !job.push_constants.is_empty() {
            let bytes: Vec<u8> = job
                .push_constants
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let stages = vk::ShaderStageFlags::ALL_GRAPHICS;
            device.cmd_push_constants(cmd, pipeline.layout, stages, 0, &bytes);
        }
        for vb in &job.vertex_buffers {
            device.cmd_bind_vertex_buffers(cmd, vb.slot, &[vb.buffer.handle()], &[0]);
        }
        if let Some(x) = xfb {
            for b in &job.xfb {
                (x.fp().cmd_bind_transform_feedback_buffers_ext)(
                    cmd,
                    b.slot,
                    1,
                    &b.buffer.handle(),
                    &0,
                    &vk::WHOLE_SIZE,
                );
            }
            if !job.xfb.is_empty() {
                (x.fp().cmd_begin_transform_feedback_ext)(
                    cmd,
                    0,
                    0,
                    std::ptr::null(),
                    std::ptr::null(),
                );
            }
        }
        let d = job.draw;
        match job.index_buffer {
            Some(indices) => {
                device.cmd_bind_index_buffer(cmd, indices.handle(), 0, vk::IndexType::UINT32);
                device.cmd_draw_indexed(
                    cmd,
                    d.vertex_count,
                    d.instance_count,
                    d.first_vertex,
                    d.vertex_offset,
                    d.first_instance,
                );
            }
            None => device.cmd_draw(
                cmd,
                d.vertex_count,
                d.instance_count,
                d.first_vertex,
                d.first_instance,
            ),
        }
        if let Some(x) = xfb {
            if !job.xfb.is_empty() {
                (x.fp().cmd_end_transform_feedback_ext)(
                    cmd,
                    0,
                    0,
                    std::ptr::null(),
                    std::ptr::null(),
                );
            }
        }
        device.cmd_end_rendering(cmd);
        if let Some(x) = xfb {
            for (i, &stream) in job.xfb_queries.iter().enumerate() {
                (x.fp().cmd_end_query_indexed_ext)(cmd, queries.pool, i as u32, stream);
            }
        }
    }
    let (mut stages, mut access) = (
        vk::PipelineStageFlags::ALL_COMMANDS,
        vk::AccessFlags::MEMORY_WRITE,
    );
    if xfb.is_some() {
        stages |= vk::PipelineStageFlags::TRANSFORM_FEEDBACK_EXT;
        access |= vk::AccessFlags::TRANSFORM_FEEDBACK_WRITE_EXT;
    }
    memory_barrier(
        device,
        cmd,
        (stages, access),
        (
            vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::ALL_COMMANDS,
            vk::AccessFlags::HOST_READ | vk::AccessFlags::MEMORY_READ,
        ),
    );
    Ok(())
}
