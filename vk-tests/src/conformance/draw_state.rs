//! The output-merger and rasterizer state of a graphics case: `[[render_target]]` (formats,
//! clear values, blending, write masks), `[depth]` (depth and stencil tests) and `[rasterizer]`.
//! See `docs/conformance.md`, "Graphics cases".

use anyhow::{bail, Context, Result};
use ash::vk;
use serde::Deserialize;

use super::textures::compare_op;
use super::value::{parse_list, ScalarType};
use crate::format::{DepthFormat, ShaderType, TexelFormat};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RenderTargetToml {
    pub(super) slot: u32,
    format: String,
    #[serde(default)]
    clear: Vec<toml::Value>,
    blend: Option<BlendToml>,
    write_mask: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BlendToml {
    src: String,
    dst: String,
    op: Option<String>,
    src_alpha: Option<String>,
    dst_alpha: Option<String>,
    op_alpha: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DepthToml {
    format: String,
    clear: Option<f32>,
    clear_stencil: Option<u32>,
    test: Option<bool>,
    write: Option<bool>,
    compare: Option<String>,
    #[serde(default)]
    stencil: bool,
    stencil_ref: Option<u32>,
    stencil_read_mask: Option<u32>,
    stencil_write_mask: Option<u32>,
    stencil_compare: Option<String>,
    stencil_pass: Option<String>,
    stencil_fail: Option<String>,
    stencil_depth_fail: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RasterizerToml {
    cull: Option<String>,
    front_ccw: Option<bool>,
    fill: Option<String>,
    depth_clip: Option<bool>,
    sample_shading: Option<f32>,
    sample_mask: Option<u32>,
}

/// A render target.
#[derive(Clone, Debug)]
pub struct TargetSpec {
    /// `SV_Target<slot>` = fragment output location.
    pub slot: u32,
    /// Format.
    pub format: TexelFormat,
    /// Clear value: the bits of four `f32`, `u32` or `i32` by the format.
    pub clear: [u32; 4],
    /// Blend state and write mask (`None`: blending off, every channel written).
    pub blend: Option<vk::PipelineColorBlendAttachmentState>,
}

impl TargetSpec {
    /// The clear value for Vulkan.
    pub fn clear_value(&self) -> vk::ClearColorValue {
        match self.format.shader_type() {
            ShaderType::Float => vk::ClearColorValue {
                float32: self.clear.map(f32::from_bits),
            },
            ShaderType::Uint => vk::ClearColorValue { uint32: self.clear },
            ShaderType::Sint => vk::ClearColorValue {
                int32: self.clear.map(|c| c as i32),
            },
        }
    }
}

/// The depth/stencil target and its tests.
#[derive(Clone, Copy, Debug)]
pub struct DepthSpec {
    /// Format.
    pub format: DepthFormat,
    /// Depth clear value (default 1.0).
    pub clear: f32,
    /// Stencil clear value (default 0).
    pub clear_stencil: u32,
    /// Depth test (default on).
    pub test: bool,
    /// Depth writes (default on).
    pub write: bool,
    /// Depth comparison (default `less`, as D3D).
    pub compare: vk::CompareOp,
    /// Stencil test (default off).
    pub stencil_test: bool,
    /// Stencil state of both faces.
    pub stencil: vk::StencilOpState,
}

/// Rasterizer state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterSpec {
    /// Culled faces (default none).
    pub cull: vk::CullModeFlags,
    /// D3D `FrontCounterClockwise` (default false).
    pub front_ccw: bool,
    /// Wireframe instead of solid.
    pub wireframe: bool,
    /// D3D `DepthClipEnable` (default true; false means depth clamp).
    pub depth_clip: bool,
    /// Sample shading with this minimum fraction.
    pub sample_shading: Option<f32>,
    /// Sample mask.
    pub sample_mask: u32,
}

fn blend_factor(name: &str) -> Result<vk::BlendFactor> {
    use vk::BlendFactor as B;
    Ok(match name {
        "zero" => B::ZERO,
        "one" => B::ONE,
        "src_color" => B::SRC_COLOR,
        "inv_src_color" => B::ONE_MINUS_SRC_COLOR,
        "src_alpha" => B::SRC_ALPHA,
        "inv_src_alpha" => B::ONE_MINUS_SRC_ALPHA,
        "dest_color" => B::DST_COLOR,
        "inv_dest_color" => B::ONE_MINUS_DST_COLOR,
        "dest_alpha" => B::DST_ALPHA,
        "inv_dest_alpha" => B::ONE_MINUS_DST_ALPHA,
        "src1_color" => B::SRC1_COLOR,
        "inv_src1_color" => B::ONE_MINUS_SRC1_COLOR,
        "src1_alpha" => B::SRC1_ALPHA,
        "inv_src1_alpha" => B::ONE_MINUS_SRC1_ALPHA,
        _ => bail!("unknown blend factor {name:?} (D3D names in lower case: src_alpha, …)"),
    })
}

fn blend_op(name: Option<&str>) -> Result<vk::BlendOp> {
    Ok(match name.unwrap_or("add") {
        "add" => vk::BlendOp::ADD,
        "subtract" => vk::BlendOp::SUBTRACT,
        "rev_subtract" => vk::BlendOp::REVERSE_SUBTRACT,
        "min" => vk::BlendOp::MIN,
        "max" => vk::BlendOp::MAX,
        other => bail!("unknown blend op {other:?} (add, subtract, rev_subtract, min, max)"),
    })
}

fn write_mask(mask: &str) -> Result<vk::ColorComponentFlags> {
    let mut out = vk::ColorComponentFlags::empty();
    for c in mask.chars() {
        out |= match c {
            'r' => vk::ColorComponentFlags::R,
            'g' => vk::ColorComponentFlags::G,
            'b' => vk::ColorComponentFlags::B,
            'a' => vk::ColorComponentFlags::A,
            _ => bail!("write_mask {mask:?}: use the letters r, g, b, a"),
        };
    }
    Ok(out)
}

fn stencil_op(name: Option<&str>) -> Result<vk::StencilOp> {
    use vk::StencilOp as S;
    Ok(match name.unwrap_or("keep") {
        "keep" => S::KEEP,
        "zero" => S::ZERO,
        "replace" => S::REPLACE,
        "incr_sat" => S::INCREMENT_AND_CLAMP,
        "decr_sat" => S::DECREMENT_AND_CLAMP,
        "invert" => S::INVERT,
        "incr" => S::INCREMENT_AND_WRAP,
        "decr" => S::DECREMENT_AND_WRAP,
        other => bail!(
            "unknown stencil op {other:?} (keep, zero, replace, incr_sat, decr_sat, invert, \
             incr, decr)"
        ),
    })
}

pub(super) fn target_spec(t: RenderTargetToml) -> Result<TargetSpec> {
    let format = TexelFormat::from_name(&t.format)?;
    let ty = match format.shader_type() {
        ShaderType::Float => ScalarType::F32,
        ShaderType::Uint => ScalarType::U32,
        ShaderType::Sint => ScalarType::I32,
    };
    let mut clear = [0u32; 4];
    if t.clear.len() > 4 {
        bail!("clear has at most 4 values");
    }
    for (slot, e) in clear
        .iter_mut()
        .zip(parse_list(&t.clear, ty).context("clear")?)
    {
        let bytes = e.to_bytes()?;
        if bytes.len() != 4 {
            bail!("clear values are 32-bit");
        }
        *slot = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    let mask = t
        .write_mask
        .as_deref()
        .map(write_mask)
        .transpose()?
        .unwrap_or(vk::ColorComponentFlags::RGBA);
    let blend = match t.blend {
        Some(b) => {
            if format.shader_type() != ShaderType::Float {
                bail!("integer render targets cannot blend");
            }
            let src = blend_factor(&b.src)?;
            let dst = blend_factor(&b.dst)?;
            let op = blend_op(b.op.as_deref())?;
            Some(
                vk::PipelineColorBlendAttachmentState::default()
                    .blend_enable(true)
                    .src_color_blend_factor(src)
                    .dst_color_blend_factor(dst)
                    .color_blend_op(op)
                    .src_alpha_blend_factor(
                        b.src_alpha
                            .as_deref()
                            .map(blend_factor)
                            .transpose()?
                            .unwrap_or(src),
                    )
                    .dst_alpha_blend_factor(
                        b.dst_alpha
                            .as_deref()
                            .map(blend_factor)
                            .transpose()?
                            .unwrap_or(dst),
                    )
                    .alpha_blend_op(match b.op_alpha.as_deref() {
                        Some(o) => blend_op(Some(o))?,
                        None => op,
                    })
                    .color_write_mask(mask),
            )
        }
        None if mask != vk::ColorComponentFlags::RGBA => {
            Some(vk::PipelineColorBlendAttachmentState::default().color_write_mask(mask))
        }
        None => None,
    };
    Ok(TargetSpec {
        slot: t.slot,
        format,
        clear,
        blend,
    })
}

pub(super) fn depth_spec(d: DepthToml) -> Result<DepthSpec> {
    let format = DepthFormat::from_name(&d.format)?;
    let uses_stencil = d.stencil
        || d.stencil_ref.is_some()
        || d.stencil_compare.is_some()
        || d.stencil_pass.is_some();
    if uses_stencil && !format.stencil {
        bail!("{} has no stencil", format.name);
    }
    if d.stencil_ref.is_some_and(|r| r > 255) {
        bail!("stencil_ref is 0 to 255");
    }
    let stencil = vk::StencilOpState {
        fail_op: stencil_op(d.stencil_fail.as_deref())?,
        pass_op: stencil_op(d.stencil_pass.as_deref())?,
        depth_fail_op: stencil_op(d.stencil_depth_fail.as_deref())?,
        compare_op: compare_op(d.stencil_compare.as_deref().unwrap_or("always"))?,
        compare_mask: d.stencil_read_mask.unwrap_or(0xff),
        write_mask: d.stencil_write_mask.unwrap_or(0xff),
        reference: d.stencil_ref.unwrap_or(0),
    };
    let clear = d.clear.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&clear) {
        bail!("clear depth {clear} is outside 0 to 1");
    }
    Ok(DepthSpec {
        format,
        clear,
        clear_stencil: d.clear_stencil.unwrap_or(0),
        test: d.test.unwrap_or(true),
        write: d.write.unwrap_or(true),
        compare: compare_op(d.compare.as_deref().unwrap_or("less"))?,
        stencil_test: d.stencil,
        stencil,
    })
}

pub(super) fn raster_spec(r: RasterizerToml) -> Result<RasterSpec> {
    let cull = match r.cull.as_deref().unwrap_or("none") {
        "none" => vk::CullModeFlags::NONE,
        "front" => vk::CullModeFlags::FRONT,
        "back" => vk::CullModeFlags::BACK,
        other => bail!("unknown cull {other:?} (none, front, back)"),
    };
    let wireframe = match r.fill.as_deref().unwrap_or("solid") {
        "solid" => false,
        "wireframe" => true,
        other => bail!("unknown fill {other:?} (solid, wireframe)"),
    };
    if let Some(f) = r.sample_shading {
        if !(0.0..=1.0).contains(&f) {
            bail!("sample_shading is the minimum fraction of samples shaded, 0 to 1");
        }
    }
    Ok(RasterSpec {
        cull,
        front_ccw: r.front_ccw.unwrap_or(false),
        wireframe,
        depth_clip: r.depth_clip.unwrap_or(true),
        sample_shading: r.sample_shading,
        sample_mask: r.sample_mask.unwrap_or(u32::MAX),
    })
}
