//! Running one case: compile and validate every shader, check what the device lacks, place and
//! make the resources, dispatch or draw, read back and compare.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use anyhow::{Context, Result};
use ash::vk;
use dxbc2spv::HullSchedule;

use super::bind::placements;
use super::case::{Case, Work};
use super::draw::{DrawSpec, RasterizedStream};
use super::expect::{compare_buffer, compare_image, BufferRef, Expectation, ImageRef, ReadImage};
use super::resources::{
    check_a8, check_buffer_views, draw_unsupported, layer_words, read_color_samples, read_texture,
    target_desc, unsupported, Made,
};
use super::shader::{compile, CompileOptions, CompiledShader, DxbcTranslator, Stage};
use super::spirv_scan::scan;
use super::steps::{DrawChange, Step};
use crate::buffer::Buffer;
use crate::compute::{run_compute_with, ComputeJob};
use crate::format::{ChannelValue, ShaderType};
use crate::gpu::Gpu;
use crate::graphics::{
    d3d_viewport, run_graphics, ColorTarget, DepthTarget, DrawCall, GraphicsJob, GraphicsResult,
    Raster, StageModule, VertexAttribute, VertexBuffer, XfbBuffer, DEFAULT_TIMEOUT,
};
use crate::image::Image;
use crate::samples::read_samples;
use crate::spirv_val::validate;

/// What running a case gave, before `expect_failure` is applied.
pub(super) enum Executed {
    /// Ran; these expectations failed (empty: all held); the note (where pictures of the
    /// targets were written) goes after them.
    Ran(Vec<String>, Option<String>),
    /// The device lacks a feature, format or limit the case needs.
    Unsupported(String),
}

/// Compiles (translated shaders with `hull_schedule`), validates, binds, runs and compares.
pub(super) fn execute(
    gpu: &Gpu,
    translator: &dyn DxbcTranslator,
    case: &Case,
    hull_schedule: HullSchedule,
) -> Result<Executed> {
    let device = &gpu.info().name;
    if let Some(missing) = lacking(gpu, case.implied_requirements()) {
        return Ok(Executed::Unsupported(format!(
            "{device} lacks {missing} (the case's draw state, samplers or stages need it)"
        )));
    }

    let last_vertex_stage = case
        .shaders
        .iter()
        .filter(|s| matches!(s.stage, Stage::Vertex | Stage::Domain | Stage::Geometry))
        .map(|s| s.stage)
        .max();
    let mut compiled = Vec::new();
    for s in &case.shaders {
        let requested = case.requested_bindings(s.stage);
        let stream_output = case
            .draw()
            .and_then(|d| d.stream_output.as_ref())
            .filter(|_| Some(s.stage) == last_vertex_stage);
        let linking = case.linking.stage(s.stage);
        let options = CompileOptions {
            requested_bindings: &requested,
            target_env: &case.target_env,
            features: Some(gpu.features()),
            set: s.stage.d3d11_set(),
            table: case.table.as_ref().map(|t| &t.table),
            stream_output,
            hull_schedule,
            pipeline_state: case.pipeline_state.as_ref(),
            d3d9_state: case.d3d9_state.as_ref(),
            linking: Some((&linking, case.linking.workarounds)),
            descriptors: Some(&case.descriptors),
            linkage: Some(&case.linkage),
        };
        let shader = compile(&s.source, s.entry_point.as_deref(), translator, &options)
            .with_context(|| format!("{} shader", s.stage))?;
        validate(&shader.spirv, &case.target_env).with_context(|| format!("{} shader", s.stage))?;
        let facts = scan(&shader.spirv);
        facts
            .check_stage(&shader.entry_point, s.stage)
            .with_context(|| format!("{} shader", s.stage))?;
        case.linking
            .check_module(s.stage, &shader.spirv)
            .with_context(|| format!("{} shader", s.stage))?;
        if s.stage == Stage::Pixel {
            super::pipeline_state::check_module(case.pipeline_state.as_ref(), &shader.spirv)
                .with_context(|| format!("{} shader", s.stage))?;
        }
        if let Some(missing) = lacking(gpu, facts.required_features()) {
            return Ok(Executed::Unsupported(format!(
                "{device} lacks {missing} (the {} shader's SPIR-V capabilities or dynamically \
                 indexed descriptor arrays need it)",
                s.stage
            )));
        }
        if let Some(missing) = lacking(gpu, facts.store_feature(s.stage).into_iter().collect()) {
            return Ok(Executed::Unsupported(format!(
                "{device} lacks {missing} (the {} shader writes storage buffers or images)",
                s.stage
            )));
        }
        compiled.push((s.stage, shader));
    }
    let refs: Vec<(Stage, &CompiledShader)> = compiled.iter().map(|(s, c)| (*s, c)).collect();
    let bound = placements(case, &refs)?;
    check_buffer_views(gpu, case, &bound)?;
    let a8 = check_a8(gpu, case)?;
    let why = unsupported(gpu, case, &bound)
        .or_else(|| case.draw().and_then(|d| draw_unsupported(gpu, d)));
    if let Some(why) = why {
        if a8 {
            anyhow::bail!(
                "{why} (the case uses a8_unorm, whose support a runtime must check: it fails \
                 instead of skipping)"
            );
        }
        return Ok(Executed::Unsupported(why));
    }

    let mut made = Made::new(gpu, case)?;
    let push_constants = super::address::push_with_addresses(
        &case.push_constants,
        &case.root_descriptors,
        &made.buffers,
    )?;
    let once = [Step {
        dispatch: None,
        draw: DrawChange::default(),
        writes: Vec::new(),
        expectations: Vec::new(),
    }];
    let steps: &[Step] = if case.steps.is_empty() {
        &once
    } else {
        &case.steps
    };
    let queries: Vec<u32> = case
        .all_expectations()
        .filter_map(|e| match e {
            Expectation::Primitives { stream, .. } => Some(*stream),
            _ => None,
        })
        .collect();
    let targets = match case.draw() {
        Some(draw) => Some(DrawTargets::new(gpu, draw)?),
        None => None,
    };
    let mut mismatches = Vec::new();
    let mut note = None;
    for (n, step) in steps.iter().enumerate() {
        let last = n + 1 == steps.len();
        let at = || format!("step {}", n + 1);
        for w in &step.writes {
            made.buffers[w.buffer]
                .write(w.offset, &w.bytes)
                .with_context(at)?;
        }
        let bindings = made.bindings(&bound.places)?;
        // Mismatches of the step's own expectations, and of the case's after the last step.
        let mut found = Vec::new();
        let mut after = Vec::new();
        match (&case.work, &targets) {
            (Work::Dispatch(groups), _) => {
                let shader = &compiled[0].1;
                let job = ComputeJob {
                    entry_point: &shader.entry_point,
                    layout: Some(&bound.layout),
                    push_constants: &push_constants,
                    ..ComputeJob::new(&shader.spirv, step.dispatch.unwrap_or(*groups))
                };
                run_compute_with(gpu, &job, &bindings).with_context(at)?;
                check(gpu, case, &made, None, &step.expectations, &mut found)?;
                if last {
                    check(gpu, case, &made, None, &case.expectations, &mut after)?;
                }
            }
            (Work::Draw(draw), Some(targets)) => {
                let descriptors = (bindings, bound.layout.clone());
                let run = DrawRun {
                    change: step.draw,
                    load_targets: n > 0,
                    queries: queries.clone(),
                    specializations: case
                        .specializations
                        .iter()
                        .map(|s| (s.id, s.bits))
                        .collect(),
                    push_constants: push_constants.clone(),
                };
                let result =
                    draw_case(gpu, draw, &compiled, descriptors, targets, run).with_context(at)?;
                let drawn = Some((targets, &result));
                check(gpu, case, &made, drawn, &step.expectations, &mut found)?;
                if last {
                    check(gpu, case, &made, drawn, &case.expectations, &mut after)?;
                }
                let pictures = !draw.targets.is_empty() || draw.depth.is_some();
                let failed = !found.is_empty() || !after.is_empty();
                if failed && !case.expect_failure && pictures && note.is_none() {
                    note = Some(match dump_targets(gpu, case, &made, targets) {
                        Ok(dir) => format!("pictures of the targets: {}", dir.display()),
                        Err(e) => format!("no pictures of the targets: {e:#}"),
                    });
                }
            }
            (Work::Draw(_), None) => anyhow::bail!("internal: a draw without targets"),
        }
        if case.steps.len() > 1 {
            // Name the step where several run.
            for m in &mut found {
                *m = format!("after step {}: {m}", n + 1);
            }
        }
        mismatches.extend(found);
        mismatches.extend(after);
    }
    Ok(Executed::Ran(mismatches, note))
}

/// The features of `required` that `gpu` lacks, joined with commas; `None` when it has them all.
fn lacking(gpu: &Gpu, required: Vec<&str>) -> Option<String> {
    let missing: Vec<&str> = required
        .into_iter()
        .filter(|f| !gpu.features().supports(f))
        .collect();
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// What a draw renders into and captures.
pub(super) struct DrawTargets<'g> {
    /// (slot, image) per render target.
    colors: Vec<(u32, Image<'g>)>,
    depth: Option<Image<'g>>,
    vertex_buffers: Vec<Buffer<'g>>,
    index_buffer: Option<Buffer<'g>>,
    /// (slot, buffer) per stream-output buffer.
    so_buffers: Vec<(u32, Buffer<'g>)>,
}

impl<'g> DrawTargets<'g> {
    fn new(gpu: &'g Gpu, d: &DrawSpec) -> Result<DrawTargets<'g>> {
        let mut colors = Vec::new();
        for t in &d.targets {
            let desc = target_desc(
                d,
                t.format.vk,
                vk::ImageAspectFlags::COLOR,
                vk::ImageUsageFlags::COLOR_ATTACHMENT,
            );
            colors.push((
                t.slot,
                Image::new(gpu, &desc, &format!("target {}", t.slot))?,
            ));
        }
        let depth = match &d.depth {
            Some(depth) => {
                let desc = target_desc(
                    d,
                    depth.format.vk,
                    depth.format.aspects(),
                    vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
                );
                Some(Image::new(gpu, &desc, "depth")?)
            }
            None => None,
        };
        let mut vertex_buffers = Vec::new();
        for vb in &d.vertex_buffers {
            vertex_buffers.push(Buffer::with_bytes(
                gpu,
                &vb.contents,
                &format!("vertex buffer {}", vb.slot),
                vk::BufferUsageFlags::VERTEX_BUFFER,
            )?);
        }
        let index_buffer = match &d.indices {
            Some(indices) if !indices.is_empty() => {
                let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
                Some(Buffer::with_bytes(
                    gpu,
                    &bytes,
                    "index buffer",
                    vk::BufferUsageFlags::INDEX_BUFFER,
                )?)
            }
            _ => None,
        };
        let mut so_buffers = Vec::new();
        for so in &d.so_buffers {
            let b = Buffer::with_bytes(
                gpu,
                &so.contents,
                &format!("so{}", so.slot),
                vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
            )?;
            so_buffers.push((so.slot, b));
        }
        Ok(DrawTargets {
            colors,
            depth,
            vertex_buffers,
            index_buffer,
            so_buffers,
        })
    }
}

/// How one draw of a case differs from the case's: a step's changes to the draw call, whether
/// it keeps the targets of the draw before, and the streams whose primitives it counts.
struct DrawRun {
    change: DrawChange,
    load_targets: bool,
    queries: Vec<u32>,
    /// The case's specialization constants (`[[specialization]]`).
    specializations: Vec<(u32, u32)>,
    push_constants: Vec<u32>,
}

/// Builds the [`GraphicsJob`] of a case and runs it.
fn draw_case<'a, 'g>(
    gpu: &'g Gpu,
    d: &DrawSpec,
    compiled: &'a [(Stage, CompiledShader)],
    (bindings, layout): (
        Vec<crate::descriptors::Binding<'a, 'g>>,
        Vec<crate::descriptors::SetLayoutBinding>,
    ),
    t: &'a DrawTargets<'g>,
    run: DrawRun,
) -> Result<GraphicsResult> {
    let c = run.change;
    let stages = compiled
        .iter()
        .map(|(stage, s)| StageModule {
            stage: stage.vk(),
            spirv: &s.spirv,
            entry_point: &s.entry_point,
        })
        .collect();
    let color_targets = d
        .targets
        .iter()
        .zip(&t.colors)
        .map(|(spec, (slot, image))| ColorTarget {
            location: *slot,
            image,
            clear: spec.clear_value(),
            blend: spec.blend,
        })
        .collect();
    let depth = d
        .depth
        .as_ref()
        .zip(t.depth.as_ref())
        .map(|(spec, image)| DepthTarget {
            image,
            has_stencil: spec.format.stencil,
            clear_depth: spec.clear,
            clear_stencil: spec.clear_stencil,
            depth_test: spec.test,
            depth_write: spec.write,
            depth_compare: spec.compare,
            stencil_test: spec.stencil_test,
            front: spec.stencil,
            back: spec.stencil,
        });
    let r = &d.raster;
    let raster = Raster {
        cull: r.cull,
        front_face: if r.front_ccw {
            vk::FrontFace::COUNTER_CLOCKWISE
        } else {
            vk::FrontFace::CLOCKWISE
        },
        polygon_mode: if r.wireframe {
            vk::PolygonMode::LINE
        } else {
            vk::PolygonMode::FILL
        },
        depth_clamp: !r.depth_clip,
        discard: d.rasterized_stream == RasterizedStream::None,
        stream: match d.rasterized_stream {
            RasterizedStream::Stream(n) => n,
            RasterizedStream::None => 0,
        },
        min_sample_shading: r.sample_shading,
        sample_mask: r.sample_mask,
    };
    let full = vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: d.width,
            height: d.height,
        },
    };
    let job = GraphicsJob {
        stages,
        topology: d.topology,
        patch_control_points: d.control_points,
        vertex_buffers: d
            .vertex_buffers
            .iter()
            .zip(&t.vertex_buffers)
            .map(|(spec, buffer)| VertexBuffer {
                slot: spec.slot,
                buffer,
                stride: spec.stride,
                per_instance: spec.per_instance,
            })
            .collect(),
        attributes: d
            .inputs
            .iter()
            .map(|i| VertexAttribute {
                location: i.location,
                slot: i.slot,
                format: i.format.vk,
                offset: i.offset,
            })
            .collect(),
        index_buffer: t.index_buffer.as_ref(),
        draw: DrawCall {
            vertex_count: c.vertex_count.unwrap_or(d.vertex_count),
            instance_count: c.instance_count.unwrap_or(d.instance_count),
            first_vertex: c.first_vertex.unwrap_or(d.first_vertex),
            first_instance: c.first_instance.unwrap_or(d.first_instance),
            vertex_offset: d.vertex_offset,
        },
        width: d.width,
        height: d.height,
        layers: d.layers,
        samples: d.samples,
        specializations: run.specializations,
        color_targets,
        depth,
        load_targets: run.load_targets,
        raster,
        viewports: d
            .viewports
            .iter()
            .map(|v| d3d_viewport(v.x, v.y, v.width, v.height, v.min_depth, v.max_depth))
            .collect(),
        scissors: d
            .viewports
            .iter()
            .map(|v| v.scissor.unwrap_or(full))
            .collect(),
        bindings,
        layout: Some(layout),
        xfb: t
            .so_buffers
            .iter()
            .map(|(slot, buffer)| XfbBuffer {
                slot: *slot,
                buffer,
            })
            .collect(),
        xfb_queries: run.queries,
        timeout: DEFAULT_TIMEOUT,
        push_constants: run.push_constants,
    };
    run_graphics(gpu, &job)
}

/// Reads back what `expectations` look at and compares.
fn check(
    gpu: &Gpu,
    case: &Case,
    made: &Made<'_>,
    draw: Option<(&DrawTargets<'_>, &GraphicsResult)>,
    expectations: &[Expectation],
    out: &mut Vec<String>,
) -> Result<()> {
    let mut images: HashMap<(ImageRef, u32, u32), ReadImage> = HashMap::new();
    let mut ctx = CheckContext {
        gpu,
        case,
        made,
        draw,
        images: &mut images,
    };
    for e in expectations {
        ctx.check_one(e, out)?;
    }
    Ok(())
}

/// What [`check`] reads from, with the images it has read back so far.
struct CheckContext<'c, 'g> {
    gpu: &'g Gpu,
    case: &'c Case,
    made: &'c Made<'g>,
    draw: Option<(&'c DrawTargets<'g>, &'c GraphicsResult)>,
    images: &'c mut HashMap<(ImageRef, u32, u32), ReadImage>,
}

impl CheckContext<'_, '_> {
    /// Appends a message to `out` for each way `e` does not hold.
    fn check_one(&mut self, e: &Expectation, out: &mut Vec<String>) -> Result<()> {
        let (gpu, case, made, draw) = (self.gpu, self.case, self.made, self.draw);
        match e {
            Expectation::Buffer { buffer, check } => {
                let (name, buffer) = match *buffer {
                    BufferRef::Case(i) => {
                        let b = match check {
                            super::expect::Check::Counter(_) => made.counters[i]
                                .as_ref()
                                .context("internal: a counter expectation without a counter")?,
                            super::expect::Check::Values { .. }
                            | super::expect::Check::Records(_) => &made.buffers[i],
                        };
                        (case.buffers[i].name.clone(), b)
                    }
                    BufferRef::StreamOut(slot) => {
                        let b = draw
                            .and_then(|(t, _)| t.so_buffers.iter().find(|(s, _)| *s == slot))
                            .map(|(_, b)| b)
                            .context("internal: no stream-output buffer")?;
                        (format!("so{slot}"), b)
                    }
                };
                compare_buffer(&name, check, &buffer.read()?, out);
            }
            Expectation::Image(c) => {
                let key = (c.image, c.mip, c.layer);
                let image = match self.images.entry(key) {
                    Entry::Occupied(e) => e.into_mut(),
                    Entry::Vacant(e) => e.insert(
                        read_image(
                            gpu,
                            case,
                            made,
                            draw.map(|(t, _)| t),
                            c.image,
                            c.mip,
                            c.layer,
                        )
                        .with_context(|| format!("reading back {}", c.name))?,
                    ),
                };
                compare_image(c, image, out);
            }
            Expectation::Primitives {
                stream,
                written,
                needed,
            } => {
                let got = draw
                    .and_then(|(_, r)| r.xfb_primitives.iter().find(|(s, _, _)| s == stream))
                    .context("internal: no query for the stream")?;
                for (what, want, have) in [("written", written, got.1), ("needed", needed, got.2)] {
                    if let Some(want) = want.filter(|&w| w != have) {
                        out.push(format!(
                            "stream {stream}: {have} primitives {what}, expected {want}"
                        ));
                    }
                }
            }
            Expectation::OneOf(alternatives) => {
                let mut missed = Vec::new();
                for alt in alternatives {
                    let mut failed = Vec::new();
                    self.check_one(alt, &mut failed)?;
                    if failed.is_empty() {
                        return Ok(());
                    }
                    missed.push(one_of_miss(&failed));
                }
                out.push(format!(
                    "none of the {} one_of alternatives holds: {}",
                    alternatives.len(),
                    missed.join(" | ")
                ));
            }
        }
        Ok(())
    }
}

/// How one `one_of` alternative failed, for the message: its first mismatch and how many more.
fn one_of_miss(failed: &[String]) -> String {
    match failed {
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
        [] => String::new(),
    }
}

/// One subresource of an image, as channel values.
fn read_image(
    gpu: &Gpu,
    case: &Case,
    made: &Made<'_>,
    targets: Option<&DrawTargets<'_>>,
    image: ImageRef,
    mip: u32,
    layer: u32,
) -> Result<ReadImage> {
    let graphics = || {
        targets
            .zip(case.draw())
            .context("internal: a target expectation without a draw")
    };
    match image {
        ImageRef::Texture(i) => read_texture(gpu, &made.textures[i], &case.textures[i], mip, layer),
        ImageRef::Target(slot) => {
            let (t, d) = graphics()?;
            let (_, img) = t
                .colors
                .iter()
                .find(|(s, _)| *s == slot)
                .context("internal: no such target")?;
            let format = d.target(slot).context("internal: no such target")?.format;
            if d.samples > 1 {
                return read_color_samples(gpu, img, format, layer);
            }
            let bytes = img.read(vk::ImageAspectFlags::COLOR, 0, layer, format.size)?;
            Ok(ReadImage {
                width: d.width,
                samples: 1,
                texels: bytes
                    .chunks_exact(format.size as usize)
                    .map(|x| format.decode(x))
                    .collect(),
            })
        }
        ImageRef::Depth | ImageRef::Stencil => {
            let (t, d) = graphics()?;
            let img = t.depth.as_ref().context("internal: no depth target")?;
            let spec = d.depth.context("internal: no depth target")?;
            let stencil = image == ImageRef::Stencil;
            let (aspect, ty) = if stencil {
                (vk::ImageAspectFlags::STENCIL, ShaderType::Uint)
            } else {
                (vk::ImageAspectFlags::DEPTH, ShaderType::Float)
            };
            let texels: Vec<Vec<ChannelValue>> = if d.samples > 1 {
                let words = read_samples(gpu, img, aspect, ty)?;
                layer_words(&words, img.desc(), layer)
                    .chunks_exact(4)
                    .map(|c| vec![ChannelValue { ty, bits: c[0] }])
                    .collect()
            } else if stencil {
                img.read(aspect, 0, layer, 1)?
                    .into_iter()
                    .map(|b| {
                        vec![ChannelValue {
                            ty,
                            bits: u32::from(b),
                        }]
                    })
                    .collect()
            } else {
                let size = spec.format.depth_copy_size();
                img.read(aspect, 0, layer, size as u32)?
                    .chunks_exact(size)
                    .map(|b| {
                        vec![ChannelValue {
                            ty,
                            bits: spec.format.decode_depth(b),
                        }]
                    })
                    .collect()
            };
            Ok(ReadImage {
                width: d.width,
                samples: d.samples,
                texels,
            })
        }
    }
}

/// Writes every render target (layer 0, sample 0) and the depth and stencil of a failed draw as
/// PNG files into a folder below the system's temporary folder, and returns the folder. Float
/// channels are clamped to 0..1; integer channels show their low 8 bits; missing channels are
/// 0, alpha 1.
fn dump_targets(
    gpu: &Gpu,
    case: &Case,
    made: &Made<'_>,
    targets: &DrawTargets<'_>,
) -> Result<std::path::PathBuf> {
    let d = case.draw().context("internal: no draw")?;
    let stem = |p: &std::path::Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let area = case.path.parent().map(stem).unwrap_or_default();
    let dir = std::env::temp_dir()
        .join("dxbc2spv-conformance")
        .join(format!("{area}-{}", stem(&case.path)));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut images: Vec<(String, ImageRef)> = d
        .targets
        .iter()
        .map(|t| (format!("target{}", t.slot), ImageRef::Target(t.slot)))
        .collect();
    if let Some(depth) = &d.depth {
        images.push(("depth".to_owned(), ImageRef::Depth));
        if depth.format.stencil {
            images.push(("stencil".to_owned(), ImageRef::Stencil));
        }
    }
    for (name, image) in images {
        let read = read_image(gpu, case, made, Some(targets), image, 0, 0)?;
        let mut rgba = Vec::with_capacity(d.width as usize * d.height as usize * 4);
        for texel in read.texels.iter().step_by(read.samples.max(1) as usize) {
            let mut px = [0u8, 0, 0, 255];
            for (out, c) in px.iter_mut().zip(texel) {
                *out = match c.ty {
                    ShaderType::Float => {
                        (f32::from_bits(c.bits).clamp(0.0, 1.0) * 255.0).round() as u8
                    }
                    _ if image == ImageRef::Stencil => c.bits as u8,
                    _ => (c.bits & 0xff) as u8,
                };
            }
            if texel.len() == 1 {
                px = [px[0], px[0], px[0], 255];
            }
            rgba.extend(px);
        }
        crate::png::write_rgba(&dir.join(format!("{name}.png")), d.width, d.height, &rgba)?;
    }
    Ok(dir)
}
