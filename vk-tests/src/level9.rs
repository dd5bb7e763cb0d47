//! The two-part differential check of `4_0_level_9_x` pixel and vertex shaders: a container
//! holds the SM4 program and the level-9 (`Aon9`) program fxc compiled from the same HLSL;
//! both translations run one small draw with the same inputs and their results must agree
//! (vertex shaders: `vertex`, their outputs captured by transform feedback).
//!
//! Contract of [`check_container`] for pixel shaders:
//! - both parts are translated (checksum not verified); a part that does not translate, a stage
//!   other than pixel or vertex, inputs that do not pair, or resources this harness does not
//!   make give [`Verdict::Skipped`] with a cause (one line, the same for every container
//!   sharing it);
//! - inputs pair in order: the `k`-th SM4 input register other than a system value is the
//!   level-9 program's `t{k}` (fxc's numbering; `TEXCOORD k`, location `k`), laid out as fxc
//!   links level-9 parts (a two-component element packed in `.zw` is stored reversed, see
//!   `level9_swizzle`); a generated pass-through vertex shader (a vs_3_0 stream, translated
//!   by the crate) writes the same values to the locations each pixel shader reads;
//! - the resources are the SM4 module's (the level-9 module must name the same set and
//!   binding for each of its own: one layout serves both parts, `docs/d3d9.md`): constant
//!   buffers of floats in [0.1, 1.0], 4×4 2-D float textures with values in [0, 1], linear
//!   wrapping samplers;
//! - one triangle covers the 4×4 float render targets (the SM4 outputs `SV_Target#`); the two
//!   draws' texels compare within [`TOLERANCE`] ([`Verdict::Mismatch`] names the first texel
//!   that does not).

use anyhow::{anyhow, Context, Result};
use ash::vk;
use dxbc2spv::bindings::ResourceKind;
use dxbc2spv::ir::{Dimension, ResourceShape, Stage};
use dxbc2spv::{OptionFlags, Options, Semantic, Translation};

use crate::buffer::Buffer;
use crate::compute::DescriptorKind;
use crate::descriptors::{Binding, Resource};
use crate::gpu::Gpu;
use crate::graphics::{
    d3d_viewport, run_graphics, ColorTarget, DrawCall, GraphicsJob, Raster, StageModule,
    VertexAttribute, VertexBuffer, DEFAULT_TIMEOUT,
};
use crate::image::{Image, ImageDesc, Sampler};

mod vertex;

/// How far the two parts' results may be apart, per channel: `|a − b| ≤ ABS + REL × max(|a|,
/// |b|)`. Level-9 hardware computes in at least fp24 (D3D9's ps_2_0 minimum, 16 mantissa bits)
/// and fxc marks partial precision (`_pp`, fp16: 10 mantissa bits, relative error 2⁻¹¹) where
/// the HLSL uses `min16float`/`half`; D3D9's `rcp`/`rsq`/`exp`/`log` need only 2⁻²¹–2⁻¹⁰
/// relative precision, and fxc writes the two parts with different instruction sequences
/// (fused or not, other evaluation orders). 2⁻⁹ relative plus 2⁻⁹ absolute (for results
/// near 0 from cancellation) covers fp16 rounding of one or two steps and nothing coarser.
pub const TOLERANCE: (f32, f32) = (1.0 / 512.0, 1.0 / 512.0);

/// Render-target size (texels per side).
const SIZE: u32 = 4;

/// What one container's check found.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Both draws ran and agree.
    Match,
    /// Both draws ran and disagree: where and by how much.
    Mismatch(String),
    /// Not compared, and why (a cause shared by every container it applies to).
    Skipped(String),
}

/// The cause of a failed translation: the message without offsets and numbers, so that
/// containers failing the same way count together.
pub fn cause_of(part: &str, error: &dxbc2spv::Error) -> String {
    let text = error.to_string();
    // `at 0x1a4 (mul): the D3D9 operation `mul_legacy` is not supported` → after the location.
    let text = match text.find("): ") {
        Some(i) if text.starts_with("at ") => &text[i + 3..],
        _ => &text[..],
    };
    // Numbers become `#`, except inside names such as `D3D9` (digits after a capital).
    let mut generic = String::with_capacity(text.len());
    let mut keep = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            generic.push(if keep { c } else { '#' });
        } else {
            keep = c.is_ascii_uppercase();
            generic.push(c);
        }
    }
    format!("{part}: {generic}")
}

/// Checks one container (see the module documentation).
pub fn check_container(gpu: &Gpu, bytes: &[u8]) -> Result<Verdict> {
    let options = Options::default().with_flag(OptionFlags::VERIFY_CHECKSUM, false);
    let sm4 = match dxbc2spv::translate(bytes, &options) {
        Ok(t) => t,
        Err(e) => return Ok(Verdict::Skipped(cause_of("sm4", &e))),
    };
    let l9_options = options.clone().with_flag(OptionFlags::LEVEL9, true);
    let l9 = match dxbc2spv::translate(bytes, &l9_options) {
        Ok(t) => t,
        Err(e) => return Ok(Verdict::Skipped(cause_of("level9", &e))),
    };
    if sm4.info.stage == Stage::Vertex && l9.info.stage == Stage::Vertex {
        return vertex::check(gpu, &sm4, &l9);
    }
    if sm4.info.stage != Stage::Pixel || l9.info.stage != Stage::Pixel {
        return Ok(Verdict::Skipped(
            "neither a pixel nor a vertex shader".into(),
        ));
    }
    let pairs = match pair_inputs(&sm4.info.inputs, &l9.info.inputs) {
        Ok(p) => p,
        Err(cause) => return Ok(Verdict::Skipped(cause)),
    };
    if let Some(cause) = layout_difference(&sm4, &l9) {
        return Ok(Verdict::Mismatch(cause));
    }
    let targets: Vec<u32> = sm4
        .info
        .outputs
        .iter()
        .filter(|o| o.name.eq_ignore_ascii_case("SV_Target"))
        .map(|o| o.register)
        .collect();
    if targets.is_empty() {
        return Ok(Verdict::Skipped("no render target output".into()));
    }
    let made = match Made::new(gpu, &sm4)? {
        Ok(m) => m,
        Err(cause) => return Ok(Verdict::Skipped(cause)),
    };
    let sm4_feeds: Vec<(u32, &str)> = pairs.iter().map(|p| (p.sm4, "")).collect();
    let l9_feeds: Vec<(u32, &str)> = pairs.iter().map(|p| (p.level9, p.level9_swizzle)).collect();
    let a = draw(gpu, &made, &sm4, &sm4_feeds, &targets).context("the SM4 part's draw")?;
    let b = draw(gpu, &made, &l9, &l9_feeds, &targets).context("the level-9 part's draw")?;
    Ok(compare(&targets, &a, &b))
}

/// One pixel-shader input as the two parts read it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pair {
    /// The SM4 part's location (its `v#`).
    sm4: u32,
    /// The level-9 part's location (its `t#`, `TEXCOORD k`).
    level9: u32,
    /// The vs_3_0 source swizzle that turns the SM4 layout of the register into the level-9
    /// one (`""` when they are the same).
    level9_swizzle: &'static str,
}

/// How fxc lays out one SM4 input register's elements in the level-9 link, as the swizzle that
/// turns the SM4 layout into it, or why this harness does not know.
///
/// ps_2_0 has no arbitrary swizzles: a source swizzle is the identity, a replicate, `.yzxw`,
/// `.zxyw` or `.wzyx` (D3D9 reference, "Source Register Swizzling";
/// `D3DPS20CAPS_ARBITRARYSWIZZLE` is a ps_2_x option). To move a two-component element packed
/// in `.zw` (`TEXCOORD1` beside `TEXCOORD0.xy`) to `.xy` for `texld`, fxc's level-9 pixel
/// programs read `t#.wzyx`, so its level-9 vertex programs write such an element reversed
/// (`mov oT#.zw, v#.xyyx`: `.x` in `w`, `.y` in `z`; every `.zw` write of the corpus's level-9
/// vertex programs does so). Elements starting at `.x` and single components keep their place;
/// a two-component element in `.yz` is written in order (`mov oT#.yz, v#.xxyw`, the corpus's
/// Stride sprite shaders). Other packings do not occur in the corpus's level-9 programs.
fn level9_swizzle(elements: &[&Semantic]) -> Result<&'static str, String> {
    let mut swizzle = "";
    for s in elements {
        match s.mask {
            0b1100 => swizzle = ".xywz",
            m if m & 1 == 1 || m.count_ones() == 1 || m == 0b0110 => {}
            m => {
                return Err(format!(
                    "an input packed in mask {m:#06b} (level-9 layout unknown)"
                ))
            }
        }
    }
    Ok(swizzle)
}

/// The elements of an SM4 signature other than `SV_Position`, by register, and their registers
/// (each once, in order); another system value (`what`: "input" or "output") is why the two
/// parts do not pair.
fn user_registers<'s>(
    signature: &'s [Semantic],
    what: &str,
) -> Result<(Vec<&'s Semantic>, Vec<u32>), String> {
    let mut elements: Vec<&Semantic> = Vec::new();
    for s in signature {
        let upper = s.name.to_ascii_uppercase();
        if upper == "SV_POSITION" {
            continue;
        }
        if upper.starts_with("SV_") {
            return Err(format!("system-value {what} {upper}"));
        }
        elements.push(s);
    }
    elements.sort_by_key(|s| s.register);
    let mut registers: Vec<u32> = elements.iter().map(|s| s.register).collect();
    registers.dedup();
    Ok((elements, registers))
}

/// Each pixel-shader input pair, or why they do not pair. fxc numbers the level-9 inputs `t0,
/// t1, …` in the order of the SM4 input signature's registers without its system values,
/// whether the program reads them or not (so `TEXCOORD k`, location `k`, pairs with the `k`-th
/// such SM4 register).
fn pair_inputs(sm4: &[Semantic], l9: &[Semantic]) -> Result<Vec<Pair>, String> {
    let (a, registers) = user_registers(sm4, "input")?;
    if registers.len() > 16 || registers.iter().any(|&r| r > 15) {
        return Err("an input past the generated vertex shader's locations".into());
    }
    let n = registers.len() as u32;
    if let Some(s) = l9.iter().find(|s| s.register >= n) {
        return Err(format!(
            "a level-9 input ({} {}) with no SM4 input to pair",
            s.name, s.index
        ));
    }
    registers
        .iter()
        .zip(0..)
        .map(|(&register, k)| {
            let elements: Vec<&Semantic> = a
                .iter()
                .copied()
                .filter(|s| s.register == register)
                .collect();
            Ok(Pair {
                sm4: register,
                level9: k,
                level9_swizzle: level9_swizzle(&elements)?,
            })
        })
        .collect()
}

/// Where the level-9 module binds a resource differently from the SM4 module (or binds one
/// the SM4 module does not have).
fn layout_difference(sm4: &Translation, l9: &Translation) -> Option<String> {
    for r in &l9.info.resources {
        let same = sm4
            .info
            .resources
            .iter()
            .find(|s| s.kind == r.kind && s.space == r.space && s.register == r.register);
        match same {
            None => {
                return Some(format!(
                    "level-9 binds {:?} {} that SM4 does not",
                    r.kind, r.register
                ))
            }
            Some(s) if s.target != r.target => {
                return Some(format!(
                    "{:?} {} is bound elsewhere by the two parts",
                    r.kind, r.register
                ))
            }
            Some(_) => {}
        }
    }
    None
}

/// The resources both draws bind.
struct Made<'g> {
    buffers: Vec<(u32, u32, Buffer<'g>)>,
    images: Vec<(u32, u32, Image<'g>, crate::image::ImageView<'g>)>,
    samplers: Vec<(u32, u32, Sampler<'g>)>,
}

impl<'g> Made<'g> {
    /// Makes the SM4 module's resources; `Ok(Err(cause))` when one is of a kind this harness
    /// does not make.
    fn new(gpu: &'g Gpu, sm4: &Translation) -> Result<Result<Made<'g>, String>> {
        let mut made = Made {
            buffers: Vec::new(),
            images: Vec::new(),
            samplers: Vec::new(),
        };
        for r in &sm4.info.resources {
            let Some(target) = r.target.descriptor() else {
                return Ok(Err("a resource outside descriptor sets".into()));
            };
            let (set, binding) = (target.set, target.binding);
            match (r.kind, r.shape) {
                (ResourceKind::ConstantBuffer, _) => {
                    // 4096 registers: the most a constant buffer has.
                    let words: Vec<u8> = (0..4096u32 * 4)
                        .flat_map(|w| constant_value(r.register, w).to_le_bytes())
                        .collect();
                    let buffer = Buffer::with_bytes(
                        gpu,
                        &words,
                        "cb",
                        vk::BufferUsageFlags::UNIFORM_BUFFER,
                    )?;
                    made.buffers.push((set, binding, buffer));
                }
                (
                    ResourceKind::ShaderResource,
                    Some(ResourceShape::Typed {
                        dim:
                            dim @ (Dimension::Texture2D | Dimension::TextureCube | Dimension::Texture3D),
                        ..
                    }),
                ) => {
                    let (image, view) = texture(gpu, r.register, dim)?;
                    made.images.push((set, binding, image, view));
                }
                (ResourceKind::Sampler, _) => {
                    let info = vk::SamplerCreateInfo::default()
                        .mag_filter(vk::Filter::LINEAR)
                        .min_filter(vk::Filter::LINEAR)
                        .address_mode_u(vk::SamplerAddressMode::REPEAT)
                        .address_mode_v(vk::SamplerAddressMode::REPEAT)
                        .address_mode_w(vk::SamplerAddressMode::REPEAT)
                        .max_lod(vk::LOD_CLAMP_NONE);
                    made.samplers
                        .push((set, binding, Sampler::new(gpu, &info)?));
                }
                (kind, shape) => {
                    return Ok(Err(format!(
                        "a resource this harness does not make ({kind:?}, {shape:?})"
                    )))
                }
            }
        }
        Ok(Ok(made))
    }

    /// The descriptors, visible to `stages`.
    fn bindings(&self, stages: vk::ShaderStageFlags) -> Vec<Binding<'_, 'g>> {
        let mut out = Vec::new();
        for (set, binding, buffer) in &self.buffers {
            out.push(Binding {
                set: *set,
                binding: *binding,
                element: 0,
                kind: DescriptorKind::UniformBuffer,
                stages,
                resource: Resource::Buffer {
                    buffer,
                    texel_format: None,
                    view: None,
                },
            });
        }
        for (set, binding, _, view) in &self.images {
            out.push(Binding {
                set: *set,
                binding: *binding,
                element: 0,
                kind: DescriptorKind::SampledImage,
                stages,
                resource: Resource::Image(view.handle()),
            });
        }
        for (set, binding, sampler) in &self.samplers {
            out.push(Binding {
                set: *set,
                binding: *binding,
                element: 0,
                kind: DescriptorKind::Sampler,
                stages,
                resource: Resource::Sampler(sampler.handle()),
            });
        }
        out
    }
}

/// Word `w` of constant buffer `cb#`: a float in [0.1, 1.0] (positive, so that functions
/// whose HLSL meaning is undefined for negatives — `rsqrt`, `log`, `pow` — agree).
fn constant_value(cb: u32, w: u32) -> u32 {
    let n = (w.wrapping_mul(37).wrapping_add(cb.wrapping_mul(11))) % 10;
    (0.1 + 0.1 * n as f32).to_bits()
}

/// A 4×4 RGBA32F texture for `t#` (2-D, cube: six faces, or 3-D: four slices) with values
/// in [0, 1].
fn texture(
    gpu: &Gpu,
    register: u32,
    dim: Dimension,
) -> Result<(Image<'_>, crate::image::ImageView<'_>)> {
    let (image_type, view_type, cube, depth, layers) = match dim {
        Dimension::TextureCube => (vk::ImageType::TYPE_2D, vk::ImageViewType::CUBE, true, 1, 6),
        Dimension::Texture3D => (
            vk::ImageType::TYPE_3D,
            vk::ImageViewType::TYPE_3D,
            false,
            SIZE,
            1,
        ),
        _ => (
            vk::ImageType::TYPE_2D,
            vk::ImageViewType::TYPE_2D,
            false,
            1,
            1,
        ),
    };
    let desc = ImageDesc {
        image_type,
        cube,
        format: vk::Format::R32G32B32A32_SFLOAT,
        aspects: vk::ImageAspectFlags::COLOR,
        width: SIZE,
        height: SIZE,
        depth,
        layers,
        mips: 1,
        samples: 1,
        usage: vk::ImageUsageFlags::SAMPLED,
    };
    let image = Image::new(gpu, &desc, &format!("t{register}"))?;
    let bytes: Vec<u8> = (0..SIZE * SIZE * 4 * depth * layers)
        .flat_map(|i| ((((i * 7 + register * 3) % 16) as f32) / 15.0).to_le_bytes())
        .collect();
    image.upload(&bytes, 16)?;
    let view = image.view(view_type, image.range(vk::ImageAspectFlags::COLOR))?;
    Ok((image, view))
}

/// The vs_3_0 stream that writes vertex input `v{k+1}`, swizzled by `feeds[k].1`, to location
/// `feeds[k].0` and `v0` to the position.
fn vertex_shader(feeds: &[(u32, &str)]) -> Result<Vec<u32>> {
    let mut text = String::from("vs_3_0\ndcl_position v0\ndcl_position o0\n");
    for (k, &(l, _)) in feeds.iter().enumerate() {
        let usage = match l {
            16 => "color0".to_string(),
            17 => "color1".to_string(),
            _ => format!("texcoord{l}"),
        };
        text += &format!("dcl_texcoord{k} v{}\ndcl_{usage} o{}\n", k + 1, k + 1);
    }
    text += "mov o0, v0\n";
    for (k, (_, swizzle)) in feeds.iter().enumerate() {
        text += &format!("mov o{}, v{}{swizzle}\n", k + 1, k + 1);
    }
    let bytes = dxbc2spv::text::d3d9::asm::assemble_bytes(&text)
        .map_err(|e| anyhow!("the generated vertex shader: {e:?}"))?;
    Ok(dxbc2spv::translate(&bytes, &Options::default())
        .context("translating the generated vertex shader")?
        .spirv)
}

/// The vertex data: position, then one vec4 per input pair; three vertices of one triangle
/// covering the viewport, each input ranging over [0.1, 0.95] across it.
fn vertices(pairs: usize) -> Vec<u8> {
    let positions = [[-1.0f32, -1.0], [3.0, -1.0], [-1.0, 3.0]];
    let mut out = Vec::new();
    for (v, [x, y]) in positions.iter().enumerate() {
        for f in [*x, *y, 0.5, 1.0] {
            out.extend_from_slice(&f.to_le_bytes());
        }
        for k in 0..pairs {
            for c in 0..4 {
                let base = 0.1 + 0.05 * ((k * 4 + c) % 7) as f32;
                let (dx, dy) = (0.25 + 0.02 * c as f32, 0.2 - 0.02 * c as f32);
                let value = match v {
                    0 => base,
                    1 => base + 2.0 * dx,
                    _ => base + 2.0 * dy,
                };
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
    }
    out
}

/// One draw of `ps` fed at `feeds` (location, swizzle; [`vertex_shader`]); the texels of each
/// target, in `targets` order.
fn draw(
    gpu: &Gpu,
    made: &Made<'_>,
    ps: &Translation,
    feeds: &[(u32, &str)],
    targets: &[u32],
) -> Result<Vec<Vec<f32>>> {
    let vs = vertex_shader(feeds)?;
    let data = vertices(feeds.len());
    let vb = Buffer::with_bytes(gpu, &data, "vertices", vk::BufferUsageFlags::VERTEX_BUFFER)?;
    let stride = 16 * (1 + feeds.len() as u32);
    let attributes = (0..=feeds.len() as u32)
        .map(|l| VertexAttribute {
            location: l,
            slot: 0,
            format: vk::Format::R32G32B32A32_SFLOAT,
            offset: 16 * l,
        })
        .collect();
    let desc = ImageDesc {
        image_type: vk::ImageType::TYPE_2D,
        cube: false,
        format: vk::Format::R32G32B32A32_SFLOAT,
        aspects: vk::ImageAspectFlags::COLOR,
        width: SIZE,
        height: SIZE,
        depth: 1,
        layers: 1,
        mips: 1,
        samples: 1,
        usage: vk::ImageUsageFlags::COLOR_ATTACHMENT,
    };
    let images = targets
        .iter()
        .map(|t| Image::new(gpu, &desc, &format!("o{t}")))
        .collect::<Result<Vec<_>>>()?;
    let color_targets = targets
        .iter()
        .zip(&images)
        .map(|(&location, image)| ColorTarget {
            location,
            image,
            clear: vk::ClearColorValue { float32: [-7.0; 4] },
            blend: None,
        })
        .collect();
    let job = GraphicsJob {
        stages: vec![
            StageModule {
                stage: vk::ShaderStageFlags::VERTEX,
                spirv: &vs,
                entry_point: dxbc2spv::ENTRY_POINT,
            },
            StageModule {
                stage: vk::ShaderStageFlags::FRAGMENT,
                spirv: &ps.spirv,
                entry_point: dxbc2spv::ENTRY_POINT,
            },
        ],
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        patch_control_points: None,
        vertex_buffers: vec![VertexBuffer {
            slot: 0,
            buffer: &vb,
            stride,
            per_instance: false,
        }],
        attributes,
        index_buffer: None,
        draw: DrawCall {
            vertex_count: 3,
            instance_count: 1,
            first_vertex: 0,
            first_instance: 0,
            vertex_offset: 0,
        },
        width: SIZE,
        height: SIZE,
        layers: 1,
        samples: 1,
        specializations: Vec::new(),
        color_targets,
        depth: None,
        load_targets: false,
        raster: Raster::default(),
        viewports: vec![d3d_viewport(0.0, 0.0, SIZE as f32, SIZE as f32, 0.0, 1.0)],
        scissors: vec![vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: SIZE,
                height: SIZE,
            },
        }],
        bindings: made.bindings(vk::ShaderStageFlags::FRAGMENT),
        layout: None,
        xfb: Vec::new(),
        xfb_queries: Vec::new(),
        timeout: DEFAULT_TIMEOUT,
        push_constants: Vec::new(),
    };
    run_graphics(gpu, &job)?;
    images
        .iter()
        .map(|image| {
            let bytes = image.read(vk::ImageAspectFlags::COLOR, 0, 0, 16)?;
            Ok(bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect())
        })
        .collect()
}

/// Whether two channel values agree within [`TOLERANCE`] (NaN agrees with NaN).
pub fn close(a: f32, b: f32) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a == b {
        return true;
    }
    let (abs, rel) = TOLERANCE;
    (a - b).abs() <= abs + rel * a.abs().max(b.abs())
}

/// The verdict on two draws' texels.
fn compare(targets: &[u32], a: &[Vec<f32>], b: &[Vec<f32>]) -> Verdict {
    for ((t, x), y) in targets.iter().zip(a).zip(b) {
        for (i, (p, q)) in x.iter().zip(y).enumerate() {
            if !close(*p, *q) {
                let texel = i / 4;
                return Verdict::Mismatch(format!(
                    "SV_Target{t} texel ({}, {}) channel {}: SM4 {p} vs level-9 {q}",
                    texel as u32 % SIZE,
                    texel as u32 / SIZE,
                    i % 4
                ));
            }
        }
    }
    Verdict::Match
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_admits_fp16_rounding_and_nothing_coarser() {
        // One fp16 rounding of 0.7 (relative 2^-11).
        assert!(close(0.7, 0.7 * (1.0 + 1.0 / 2048.0)));
        assert!(!close(0.7, 0.71));
        assert!(close(f32::NAN, f32::NAN));
        assert!(!close(f32::NAN, 0.0));
        assert!(close(0.0, 1.0e-3));
        assert!(!close(0.0, 1.0e-2));
    }

    fn input(name: &str, index: u32, register: u32, mask: u8) -> Semantic {
        Semantic {
            name: name.into(),
            index,
            register,
            mask,
            stream: 0,
        }
    }

    #[test]
    fn a_zw_packed_pair_is_reversed_in_the_level9_link() {
        // DualTextureEffect's pixel shader: COLOR v0, TEXCOORD0 v1.xy, TEXCOORD1 v1.zw; its
        // level-9 part reads t0 and t1, TEXCOORD1 through `t1.wzyx`.
        let sm4 = [
            input("SV_Position", 0, 0, 0b1111),
            input("COLOR", 0, 1, 0b1111),
            input("TEXCOORD", 0, 2, 0b0011),
            input("TEXCOORD", 1, 2, 0b1100),
        ];
        let l9 = [
            input("TEXCOORD", 0, 0, 0b1111),
            input("TEXCOORD", 1, 1, 0b1111),
        ];
        let pairs = pair_inputs(&sm4, &l9).expect("pairs");
        let expected = [(1, 0, ""), (2, 1, ".xywz")];
        assert_eq!(pairs.len(), expected.len());
        for (p, (sm4, level9, swizzle)) in pairs.iter().zip(expected) {
            assert_eq!((p.sm4, p.level9, p.level9_swizzle), (sm4, level9, swizzle));
        }
        // `.yz` keeps its order; `.yzw` is not a layout this harness knows.
        assert_eq!(level9_swizzle(&[&input("TEXCOORD", 1, 1, 0b0110)]), Ok(""));
        assert!(level9_swizzle(&[&input("TEXCOORD", 1, 1, 0b1110)]).is_err());
    }
}
