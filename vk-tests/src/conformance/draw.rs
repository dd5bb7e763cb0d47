//! The graphics part of a case file: `[draw]`, `[framebuffer]`, `[[vertex_buffer]]`,
//! `[[input]]`, `[[render_target]]`, `[depth]`, `[rasterizer]`, `[[viewport]]`,
//! `[[stream_output]]` and `[[so_buffer]]`. See `docs/conformance.md`, "Graphics cases".

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use serde::Deserialize;

use super::draw_state::{depth_spec, raster_spec, target_spec};
pub use super::draw_state::{DepthSpec, RasterSpec, TargetSpec};
pub(super) use super::draw_state::{DepthToml, RasterizerToml, RenderTargetToml};
use super::value::{parse_list, Element, ScalarType};
use crate::format::TexelFormat;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DrawToml {
    topology: String,
    control_points: Option<u32>,
    vertex_count: Option<u32>,
    instance_count: Option<u32>,
    first_vertex: Option<u32>,
    first_instance: Option<u32>,
    indices: Option<Vec<u32>>,
    first_index: Option<u32>,
    vertex_offset: Option<i32>,
    so_strides: Option<Vec<u32>>,
    rasterized_stream: Option<toml::Value>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct FramebufferToml {
    width: Option<u32>,
    height: Option<u32>,
    samples: Option<u32>,
    layers: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct VertexBufferToml {
    slot: u32,
    stride: u32,
    #[serde(default)]
    per_instance: bool,
    #[serde(rename = "type")]
    ty: Option<ScalarType>,
    #[serde(default)]
    data: Vec<toml::Value>,
    fill: Option<toml::Value>,
    size: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InputToml {
    register: String,
    #[serde(default)]
    slot: u32,
    #[serde(default)]
    offset: u32,
    format: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ViewportToml {
    #[serde(default)]
    x: f32,
    #[serde(default)]
    y: f32,
    width: f32,
    height: f32,
    #[serde(default)]
    min_depth: f32,
    max_depth: Option<f32>,
    scissor: Option<[i64; 4]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StreamOutputToml {
    #[serde(default)]
    stream: u32,
    semantic: Option<String>,
    #[serde(default)]
    semantic_index: u32,
    #[serde(default)]
    start_component: u8,
    component_count: u8,
    #[serde(default)]
    slot: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SoBufferToml {
    slot: u32,
    #[serde(rename = "type")]
    ty: Option<ScalarType>,
    #[serde(default)]
    data: Vec<toml::Value>,
    fill: Option<toml::Value>,
    size: Option<u64>,
}

/// The TOML tables of a graphics case, as read.
pub(super) struct GraphicsTables {
    pub(super) draw: DrawToml,
    pub(super) framebuffer: Option<FramebufferToml>,
    pub(super) vertex_buffers: Vec<VertexBufferToml>,
    pub(super) inputs: Vec<InputToml>,
    pub(super) render_targets: Vec<RenderTargetToml>,
    pub(super) depth: Option<DepthToml>,
    pub(super) rasterizer: Option<RasterizerToml>,
    pub(super) viewports: Vec<ViewportToml>,
    pub(super) stream_output: Vec<StreamOutputToml>,
    pub(super) so_buffers: Vec<SoBufferToml>,
}

/// A vertex buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexBufferSpec {
    /// Input slot.
    pub slot: u32,
    /// Bytes per element.
    pub stride: u32,
    /// Per-instance data.
    pub per_instance: bool,
    /// Contents.
    pub contents: Vec<u8>,
}

/// A vertex attribute: vertex shader input `v<location>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputSpec {
    /// The `v#` register = SPIR-V `Location`.
    pub location: u32,
    /// Vertex buffer slot.
    pub slot: u32,
    /// Byte offset in an element.
    pub offset: u32,
    /// Format.
    pub format: TexelFormat,
}

/// A viewport in D3D terms (top-left origin), with an optional scissor rectangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewportSpec {
    /// Left.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
    /// Depth range.
    pub min_depth: f32,
    /// Depth range.
    pub max_depth: f32,
    /// Scissor rectangle `[x, y, width, height]` (default: the whole render area).
    pub scissor: Option<vk::Rect2D>,
}

/// Which stream reaches the rasterizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RasterizedStream {
    /// This stream (0 by default).
    Stream(u32),
    /// None: `D3D11_SO_NO_RASTERIZED_STREAM` (rasterizer discard).
    None,
}

/// A stream-output buffer (`so<slot>` in expectations).
#[derive(Clone, Debug, PartialEq)]
pub struct SoBufferSpec {
    /// Stream-output slot.
    pub slot: u32,
    /// Initial contents.
    pub contents: Vec<u8>,
}

/// Everything a graphics case draws with, besides shaders and resources.
#[derive(Clone, Debug)]
pub struct DrawSpec {
    /// Topology.
    pub topology: vk::PrimitiveTopology,
    /// Control points per patch, for `patch_list` (`PATCH_LIST`) only.
    pub control_points: Option<u32>,
    /// Vertices (indices, for an indexed draw).
    pub vertex_count: u32,
    /// Instances (default 1).
    pub instance_count: u32,
    /// First vertex (first index, for an indexed draw).
    pub first_vertex: u32,
    /// First instance.
    pub first_instance: u32,
    /// Indices (`u32`) for an indexed draw.
    pub indices: Option<Vec<u32>>,
    /// Added to every index.
    pub vertex_offset: i32,
    /// Render area width (default 4).
    pub width: u32,
    /// Render area height (default 4).
    pub height: u32,
    /// Samples per pixel (default 1).
    pub samples: u32,
    /// Layers of every target (default 1).
    pub layers: u32,
    /// Vertex buffers.
    pub vertex_buffers: Vec<VertexBufferSpec>,
    /// Vertex attributes.
    pub inputs: Vec<InputSpec>,
    /// Render targets.
    pub targets: Vec<TargetSpec>,
    /// Depth/stencil.
    pub depth: Option<DepthSpec>,
    /// Rasterizer.
    pub raster: RasterSpec,
    /// Viewports (default: one covering the render area, depth 0 to 1).
    pub viewports: Vec<ViewportSpec>,
    /// Stream output declaration for the translator (`None` when the case gives no
    /// `[[stream_output]]` entries).
    pub stream_output: Option<dxbc2spv::StreamOutput>,
    /// The rasterized stream.
    pub rasterized_stream: RasterizedStream,
    /// Transform feedback buffers.
    pub so_buffers: Vec<SoBufferSpec>,
}

impl DrawSpec {
    /// The target at `slot`.
    pub fn target(&self, slot: u32) -> Option<&TargetSpec> {
        self.targets.iter().find(|t| t.slot == slot)
    }

    /// Device features the draw state needs (besides `dynamicRendering`).
    pub fn required_features(&self) -> Vec<&'static str> {
        let mut out = vec!["dynamicRendering"];
        if self.control_points.is_some() {
            out.push("tessellationShader");
        }
        if self.raster.sample_shading.is_some() {
            out.push("sampleRateShading");
        }
        if !self.raster.depth_clip {
            out.push("depthClamp");
        }
        if self.raster.wireframe {
            out.push("fillModeNonSolid");
        }
        if self.viewports.len() > 1 {
            out.push("multiViewport");
        }
        if !self.so_buffers.is_empty() {
            out.push("transformFeedback");
        }
        match self.rasterized_stream {
            RasterizedStream::Stream(0) => {}
            RasterizedStream::Stream(_) => {
                out.extend([
                    "geometryStreams",
                    "transformFeedbackRasterizationStreamSelect",
                ]);
            }
            RasterizedStream::None => {}
        }
        if self
            .stream_output
            .as_ref()
            .is_some_and(|so| so.entries.iter().any(|e| e.stream != 0))
        {
            out.push("geometryStreams");
        }
        if self.targets.iter().any(|t| t.blend.is_some()) && self.targets.len() > 1 {
            out.push("independentBlend");
        }
        out
    }
}

fn topology(name: &str) -> Result<vk::PrimitiveTopology> {
    use vk::PrimitiveTopology as T;
    Ok(match name {
        "point_list" => T::POINT_LIST,
        "line_list" => T::LINE_LIST,
        "line_strip" => T::LINE_STRIP,
        "triangle_list" => T::TRIANGLE_LIST,
        "triangle_strip" => T::TRIANGLE_STRIP,
        "line_list_adj" => T::LINE_LIST_WITH_ADJACENCY,
        "line_strip_adj" => T::LINE_STRIP_WITH_ADJACENCY,
        "triangle_list_adj" => T::TRIANGLE_LIST_WITH_ADJACENCY,
        "triangle_strip_adj" => T::TRIANGLE_STRIP_WITH_ADJACENCY,
        "patch_list" => T::PATCH_LIST,
        _ => bail!(
            "unknown topology {name:?} (point_list, line_list, line_strip, triangle_list, \
             triangle_strip, line_list_adj, line_strip_adj, triangle_list_adj, \
             triangle_strip_adj, patch_list)"
        ),
    })
}

/// Raw bytes from `data` (typed by `ty`), padded with `fill` up to `size` (default: the data's
/// length), for vertex and stream-output buffers.
fn contents(
    data: &[toml::Value],
    ty: Option<ScalarType>,
    fill: Option<&toml::Value>,
    size: Option<u64>,
) -> Result<Vec<u8>> {
    let ty = ty.unwrap_or(ScalarType::U32);
    let mut bytes = Vec::new();
    for e in parse_list(data, ty).context("data")? {
        bytes.extend(e.to_bytes()?);
    }
    let fill = match fill {
        Some(v) => Element::parse(v, ty).context("fill")?.to_bytes()?,
        None => vec![0; 4],
    };
    let size = usize::try_from(size.unwrap_or(bytes.len() as u64)).context("size")?;
    if size < bytes.len() {
        bail!(
            "size {size} is smaller than the {} bytes of data",
            bytes.len()
        );
    }
    if size == 0 || size % 4 != 0 {
        bail!("the buffer is {size} bytes; give data or a size, a multiple of 4");
    }
    let mut out: Vec<u8> = fill.iter().copied().cycle().take(size).collect();
    out[..bytes.len()].copy_from_slice(&bytes);
    Ok(out)
}

/// Parses `v3` into 3.
fn input_register(text: &str) -> Result<u32> {
    text.trim()
        .strip_prefix('v')
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| anyhow!("bad input register {text:?}: expected v#"))
}

/// Checks and converts the graphics tables.
pub(super) fn draw_spec(t: GraphicsTables) -> Result<DrawSpec> {
    let fb = t.framebuffer.unwrap_or_default();
    let (width, height) = (fb.width.unwrap_or(4), fb.height.unwrap_or(4));
    let samples = fb.samples.unwrap_or(1);
    let layers = fb.layers.unwrap_or(1);
    if !(1..=16384).contains(&width) || !(1..=16384).contains(&height) {
        bail!("[framebuffer] width and height are 1 to 16384");
    }
    if !(1..=2048).contains(&layers) {
        bail!("[framebuffer] layers are 1 to 2048");
    }
    if !samples.is_power_of_two() || samples > 64 {
        bail!("[framebuffer] samples must be 1, 2, 4, 8, 16, 32 or 64");
    }
    let d = t.draw;
    let topology = topology(&d.topology).context("[draw]")?;
    let control_points = match (
        topology == vk::PrimitiveTopology::PATCH_LIST,
        d.control_points,
    ) {
        (true, Some(n)) if (1..=32).contains(&n) => Some(n),
        (true, Some(n)) => bail!("[draw] control_points {n}: a patch has 1 to 32 control points"),
        (true, None) => bail!("[draw] topology = \"patch_list\" needs control_points (1 to 32)"),
        (false, Some(_)) => bail!("[draw] control_points applies to topology = \"patch_list\""),
        (false, None) => None,
    };
    let vertex_count = match (&d.indices, d.vertex_count) {
        (_, Some(n)) => n,
        (Some(i), None) => i.len() as u32,
        (None, None) => bail!("[draw] needs vertex_count (or indices)"),
    };
    if d.indices.is_none() && (d.first_index.is_some() || d.vertex_offset.is_some()) {
        bail!("[draw] first_index and vertex_offset apply to indexed draws (indices)");
    }
    if let Some(i) = &d.indices {
        let first = d.first_index.unwrap_or(0);
        if u64::from(first) + u64::from(vertex_count) > i.len() as u64 {
            bail!(
                "[draw] indices {first}..{} are outside the {} indices",
                u64::from(first) + u64::from(vertex_count),
                i.len()
            );
        }
    }
    let mut vertex_buffers = Vec::new();
    for (n, vb) in t.vertex_buffers.into_iter().enumerate() {
        let what = || format!("[[vertex_buffer]] {n} (slot {})", vb.slot);
        if vertex_buffers
            .iter()
            .any(|o: &VertexBufferSpec| o.slot == vb.slot)
        {
            bail!("two vertex buffers at slot {}", vb.slot);
        }
        vertex_buffers.push(VertexBufferSpec {
            slot: vb.slot,
            stride: vb.stride,
            per_instance: vb.per_instance,
            contents: contents(&vb.data, vb.ty, vb.fill.as_ref(), vb.size).with_context(what)?,
        });
    }
    let mut inputs = Vec::new();
    for (n, i) in t.inputs.into_iter().enumerate() {
        let spec = InputSpec {
            location: input_register(&i.register)?,
            slot: i.slot,
            offset: i.offset,
            format: TexelFormat::from_name(&i.format).with_context(|| format!("[[input]] {n}"))?,
        };
        if inputs
            .iter()
            .any(|o: &InputSpec| o.location == spec.location)
        {
            bail!("two [[input]] tables for v{}", spec.location);
        }
        if !vertex_buffers.iter().any(|v| v.slot == spec.slot) {
            bail!(
                "[[input]] v{} reads slot {}, which has no [[vertex_buffer]]",
                spec.location,
                spec.slot
            );
        }
        inputs.push(spec);
    }
    let mut targets = Vec::new();
    for rt in t.render_targets {
        let slot = rt.slot;
        let spec = target_spec(rt).with_context(|| format!("[[render_target]] slot {slot}"))?;
        if targets.iter().any(|o: &TargetSpec| o.slot == slot) {
            bail!("two render targets at slot {slot}");
        }
        if slot >= 8 {
            bail!("render target slots are 0 to 7");
        }
        targets.push(spec);
    }
    let depth = t.depth.map(depth_spec).transpose().context("[depth]")?;
    let raster = raster_spec(t.rasterizer.unwrap_or_default()).context("[rasterizer]")?;
    let viewports = if t.viewports.is_empty() {
        vec![ViewportSpec {
            x: 0.0,
            y: 0.0,
            width: width as f32,
            height: height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
            scissor: None,
        }]
    } else {
        t.viewports
            .into_iter()
            .map(|v| {
                let scissor = v
                    .scissor
                    .map(|[x, y, w, h]| -> Result<vk::Rect2D> {
                        let ok = |n: i64| i32::try_from(n).ok().filter(|&n| n >= 0);
                        let (Some(x), Some(y), Some(w), Some(h)) = (ok(x), ok(y), ok(w), ok(h))
                        else {
                            bail!("scissor values are 0 to 2^31 − 1");
                        };
                        Ok(vk::Rect2D {
                            offset: vk::Offset2D { x, y },
                            extent: vk::Extent2D {
                                width: w as u32,
                                height: h as u32,
                            },
                        })
                    })
                    .transpose()?;
                if v.width <= 0.0 || v.height <= 0.0 {
                    bail!("[[viewport]] width and height must be positive");
                }
                Ok(ViewportSpec {
                    x: v.x,
                    y: v.y,
                    width: v.width,
                    height: v.height,
                    min_depth: v.min_depth,
                    max_depth: v.max_depth.unwrap_or(1.0),
                    scissor,
                })
            })
            .collect::<Result<_>>()?
    };
    let rasterized_stream = match &d.rasterized_stream {
        None => RasterizedStream::Stream(0),
        Some(toml::Value::Integer(n)) if (0..4).contains(n) => RasterizedStream::Stream(*n as u32),
        Some(toml::Value::String(s)) if s == "none" => RasterizedStream::None,
        Some(other) => bail!("[draw] rasterized_stream is 0 to 3 or \"none\", not {other:?}"),
    };
    let mut so_buffers = Vec::new();
    for b in t.so_buffers {
        if b.slot >= 4 {
            bail!("[[so_buffer]] slots are 0 to 3");
        }
        if so_buffers.iter().any(|o: &SoBufferSpec| o.slot == b.slot) {
            bail!("two [[so_buffer]] tables at slot {}", b.slot);
        }
        so_buffers.push(SoBufferSpec {
            slot: b.slot,
            contents: contents(&b.data, b.ty, b.fill.as_ref(), b.size)
                .with_context(|| format!("[[so_buffer]] slot {}", b.slot))?,
        });
    }
    let stream_output = stream_output(
        t.stream_output,
        d.so_strides,
        rasterized_stream,
        &so_buffers,
    )?;
    Ok(DrawSpec {
        topology,
        control_points,
        vertex_count,
        instance_count: d.instance_count.unwrap_or(1),
        first_vertex: d.first_index.or(d.first_vertex).unwrap_or(0),
        first_instance: d.first_instance.unwrap_or(0),
        indices: d.indices,
        vertex_offset: d.vertex_offset.unwrap_or(0),
        width,
        height,
        samples,
        layers,
        vertex_buffers,
        inputs,
        targets,
        depth,
        raster,
        viewports,
        stream_output,
        rasterized_stream,
        so_buffers,
    })
}

fn stream_output(
    entries: Vec<StreamOutputToml>,
    strides: Option<Vec<u32>>,
    rasterized: RasterizedStream,
    buffers: &[SoBufferSpec],
) -> Result<Option<dxbc2spv::StreamOutput>> {
    if entries.is_empty() {
        if strides.is_some() {
            bail!("[draw] so_strides applies with [[stream_output]] entries");
        }
        return Ok(None);
    }
    let mut out = dxbc2spv::StreamOutput {
        entries: Vec::new(),
        strides: [0; 4],
        rasterized_stream: match rasterized {
            RasterizedStream::Stream(n) => Some(n),
            RasterizedStream::None => None,
        },
    };
    if let Some(s) = strides {
        if s.len() > 4 {
            bail!("so_strides has at most 4 values");
        }
        out.strides[..s.len()].copy_from_slice(&s);
    }
    for (n, e) in entries.into_iter().enumerate() {
        if e.stream >= 4 || e.slot >= 4 || e.start_component >= 4 {
            bail!("[[stream_output]] {n}: stream, slot and start_component are 0 to 3");
        }
        if e.component_count == 0 || e.start_component + e.component_count > 4 {
            bail!("[[stream_output]] {n}: component_count is 1 to 4 from start_component");
        }
        if !buffers.iter().any(|b| b.slot == u32::from(e.slot)) {
            bail!(
                "[[stream_output]] {n} writes slot {}, which has no [[so_buffer]]",
                e.slot
            );
        }
        out.entries.push(dxbc2spv::StreamOutputEntry {
            stream: e.stream,
            semantic_name: e.semantic,
            semantic_index: e.semantic_index,
            start_component: e.start_component,
            component_count: e.component_count,
            output_slot: e.slot,
        });
    }
    Ok(Some(out))
}
