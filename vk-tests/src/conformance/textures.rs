//! `[[texture]]` and `[[sampler]]` tables of a case file (compute and graphics cases alike). See
//! `docs/conformance.md`.
//!
//! Texture data is raw texel memory, typed like buffer data, in D3D's subresource order: array
//! layer by array layer, mip level by mip level within a layer, each subresource tightly packed
//! row by row (slice by slice for 3-D). Multisampled textures list every sample of a texel one
//! after another: layer, row, column, sample.

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use serde::Deserialize;

use super::shader::{Register, RegisterClass, Stage};
use super::value::{parse_list, Element, ScalarType};
use crate::format::{ShaderType, TexelFormat};

/// The dimension of a texture (`dcl_resource_texture2d` and friends).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// `1d`.
    Tex1D,
    /// `1d_array`.
    Tex1DArray,
    /// `2d`.
    Tex2D,
    /// `2d_array`.
    Tex2DArray,
    /// `2d_ms`.
    Tex2DMS,
    /// `2d_ms_array`.
    Tex2DMSArray,
    /// `3d`.
    Tex3D,
    /// `cube`.
    Cube,
    /// `cube_array`.
    CubeArray,
}

impl TextureDim {
    const ALL: [TextureDim; 9] = [
        TextureDim::Tex1D,
        TextureDim::Tex1DArray,
        TextureDim::Tex2D,
        TextureDim::Tex2DArray,
        TextureDim::Tex2DMS,
        TextureDim::Tex2DMSArray,
        TextureDim::Tex3D,
        TextureDim::Cube,
        TextureDim::CubeArray,
    ];

    /// The case-file name, e.g. `2d_array`.
    pub fn name(self) -> &'static str {
        match self {
            TextureDim::Tex1D => "1d",
            TextureDim::Tex1DArray => "1d_array",
            TextureDim::Tex2D => "2d",
            TextureDim::Tex2DArray => "2d_array",
            TextureDim::Tex2DMS => "2d_ms",
            TextureDim::Tex2DMSArray => "2d_ms_array",
            TextureDim::Tex3D => "3d",
            TextureDim::Cube => "cube",
            TextureDim::CubeArray => "cube_array",
        }
    }

    /// The dimension named `name`.
    pub fn from_name(name: &str) -> Result<TextureDim> {
        TextureDim::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| {
                anyhow!(
                    "unknown dimension {name:?} (1d, 1d_array, 2d, 2d_array, 2d_ms, \
                     2d_ms_array, 3d, cube, cube_array; typed buffers are [[buffer]] tables)"
                )
            })
    }

    /// The Vulkan image type.
    pub fn image_type(self) -> vk::ImageType {
        match self {
            TextureDim::Tex1D | TextureDim::Tex1DArray => vk::ImageType::TYPE_1D,
            TextureDim::Tex3D => vk::ImageType::TYPE_3D,
            _ => vk::ImageType::TYPE_2D,
        }
    }

    /// The view type of a shader-resource view.
    pub fn view_type(self) -> vk::ImageViewType {
        match self {
            TextureDim::Tex1D => vk::ImageViewType::TYPE_1D,
            TextureDim::Tex1DArray => vk::ImageViewType::TYPE_1D_ARRAY,
            TextureDim::Tex2D | TextureDim::Tex2DMS => vk::ImageViewType::TYPE_2D,
            TextureDim::Tex2DArray | TextureDim::Tex2DMSArray => vk::ImageViewType::TYPE_2D_ARRAY,
            TextureDim::Tex3D => vk::ImageViewType::TYPE_3D,
            TextureDim::Cube => vk::ImageViewType::CUBE,
            TextureDim::CubeArray => vk::ImageViewType::CUBE_ARRAY,
        }
    }

    /// Multisampled.
    pub fn is_ms(self) -> bool {
        matches!(self, TextureDim::Tex2DMS | TextureDim::Tex2DMSArray)
    }

    /// Cube or cube array.
    pub fn is_cube(self) -> bool {
        matches!(self, TextureDim::Cube | TextureDim::CubeArray)
    }

    /// Has several layers (arrays; cubes have six).
    pub fn is_layered(self) -> bool {
        !matches!(
            self,
            TextureDim::Tex1D | TextureDim::Tex2D | TextureDim::Tex2DMS | TextureDim::Tex3D
        )
    }
}

/// One texture of a case.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureSpec {
    /// Name for expectations and messages (the register unless `name` is given).
    pub name: String,
    /// `t#` (sampled image) or `u#` (storage image).
    pub register: Register,
    /// The stages that see it (`None`: every stage that uses the register).
    pub stages: Option<Vec<Stage>>,
    /// Explicit (set, binding).
    pub placement: Option<(u32, u32)>,
    /// The dimension.
    pub dim: TextureDim,
    /// The format.
    pub format: TexelFormat,
    /// Width of mip 0.
    pub width: u32,
    /// Height of mip 0 (1 for 1-D).
    pub height: u32,
    /// Depth of mip 0 (3-D; else 1).
    pub depth: u32,
    /// Array layers; cube faces count as layers (6 per cube).
    pub layers: u32,
    /// Mip levels.
    pub mips: u32,
    /// Samples (multisampled dimensions; else 1).
    pub samples: u32,
    /// Every subresource's texels (see the module documentation).
    pub contents: Vec<u8>,
    /// The component mapping of the shader's view (`swizzle`), red, green, blue, alpha;
    /// `None`: identity.
    pub swizzle: Option<[vk::ComponentSwizzle; 4]>,
}

impl TextureSpec {
    /// The size of mip `mip`.
    pub fn mip_extent(&self, mip: u32) -> [u32; 3] {
        crate::image::mip_extent([self.width, self.height, self.depth], mip)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TextureToml {
    pub(super) register: String,
    space: Option<u32>,
    name: Option<String>,
    stages: Option<Vec<String>>,
    set: Option<u32>,
    binding: Option<u32>,
    dimension: String,
    format: String,
    width: u32,
    height: Option<u32>,
    depth: Option<u32>,
    array_layers: Option<u32>,
    mip_levels: Option<u32>,
    samples: Option<u32>,
    #[serde(rename = "type")]
    ty: Option<ScalarType>,
    #[serde(default)]
    data: Vec<toml::Value>,
    fill: Option<toml::Value>,
    pattern: Option<String>,
    swizzle: Option<String>,
}

/// Parses `swizzle = "bgra"`: four of `r`, `g`, `b`, `a`, `0` and `1`, the source of the
/// view's red, green, blue and alpha (`VkComponentMapping`).
pub fn parse_swizzle(text: &str) -> Result<[vk::ComponentSwizzle; 4]> {
    let parts: Vec<vk::ComponentSwizzle> = text
        .chars()
        .map(|c| match c {
            'r' => Ok(vk::ComponentSwizzle::R),
            'g' => Ok(vk::ComponentSwizzle::G),
            'b' => Ok(vk::ComponentSwizzle::B),
            'a' => Ok(vk::ComponentSwizzle::A),
            '0' => Ok(vk::ComponentSwizzle::ZERO),
            '1' => Ok(vk::ComponentSwizzle::ONE),
            other => Err(anyhow!(
                "swizzle {text:?}: {other:?} is not one of r, g, b, a, 0, 1"
            )),
        })
        .collect::<Result<_>>()?;
    parts.try_into().map_err(|_| {
        anyhow!("swizzle {text:?} needs four sources, one each for red, green, blue and alpha")
    })
}

/// Parses `stages = ["vs", "ps"]`.
pub(super) fn parse_stages(stages: Option<Vec<String>>) -> Result<Option<Vec<Stage>>> {
    let Some(names) = stages else {
        return Ok(None);
    };
    if names.is_empty() {
        bail!("stages is empty");
    }
    names
        .iter()
        .map(|n| {
            Stage::from_name(n)
                .ok_or_else(|| anyhow!("unknown stage {n:?} (vs, hs, ds, gs, ps or cs)"))
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// Parses `set`/`binding`.
pub(super) fn placement(set: Option<u32>, binding: Option<u32>) -> Result<Option<(u32, u32)>> {
    match (set, binding) {
        (set, Some(binding)) => Ok(Some((set.unwrap_or(0), binding))),
        (Some(_), None) => bail!("set without binding"),
        (None, None) => Ok(None),
    }
}

pub(super) fn texture_spec(t: TextureToml) -> Result<TextureSpec> {
    let register = super::table::register_in_space(&t.register, t.space)?;
    if !matches!(register.class, RegisterClass::Srv | RegisterClass::Uav) {
        bail!("a texture takes a t# or u# register, not {register}");
    }
    let dim = TextureDim::from_name(&t.dimension)?;
    let format = TexelFormat::from_name(&t.format)?;
    let height = t.height.unwrap_or(1);
    let depth = t.depth.unwrap_or(1);
    let default_layers = if dim.is_cube() { 6 } else { 1 };
    let layers = t.array_layers.unwrap_or(default_layers);
    let mips = t.mip_levels.unwrap_or(1);
    let samples = t.samples.unwrap_or(if dim.is_ms() { 0 } else { 1 });
    if t.width == 0 || height == 0 || depth == 0 || layers == 0 || mips == 0 {
        bail!("width, height, depth, array_layers and mip_levels must be at least 1");
    }
    match dim {
        TextureDim::Tex1D | TextureDim::Tex1DArray if height != 1 => {
            bail!("a 1-D texture has height 1")
        }
        TextureDim::Tex3D if layers != 1 => bail!("a 3-D texture has one layer"),
        _ if dim != TextureDim::Tex3D && depth != 1 => bail!("depth applies to 3-D textures"),
        _ if !dim.is_layered() && layers != 1 => {
            bail!("array_layers applies to array and cube textures")
        }
        _ if dim.is_cube() && (!layers.is_multiple_of(6) || t.width != height) => {
            bail!("a cube texture is square and has 6 layers per cube (array_layers counts faces)")
        }
        TextureDim::Cube if layers != 6 => bail!("a cube texture has 6 layers"),
        _ => {}
    }
    if dim.is_ms() {
        if !samples.is_power_of_two() || samples < 2 {
            bail!("a multisampled texture needs samples = 2, 4, 8 or 16");
        }
        if mips != 1 {
            bail!("a multisampled texture has one mip level");
        }
        if register.class == RegisterClass::Uav {
            bail!("multisampled textures cannot be UAVs");
        }
    } else if samples != 1 {
        bail!("samples applies to 2d_ms and 2d_ms_array textures");
    }
    if register.class == RegisterClass::Uav && dim.is_cube() {
        bail!("cube textures cannot be UAVs (use 2d_array)");
    }
    if mips > 16 || (mips > 1 && (t.width.max(height).max(depth) >> (mips - 1)) == 0) {
        bail!(
            "{mips} mip levels are too many for {}x{height}x{depth}",
            t.width
        );
    }

    let swizzle = t.swizzle.as_deref().map(parse_swizzle).transpose()?;
    if swizzle.is_some() && register.class != RegisterClass::Srv {
        bail!("swizzle applies to shader resources (t#): Vulkan storage images need identity");
    }
    let mut spec = TextureSpec {
        name: t.name.unwrap_or_else(|| register.to_string()),
        register,
        stages: parse_stages(t.stages)?,
        placement: placement(t.set, t.binding)?,
        dim,
        format,
        width: t.width,
        height,
        depth,
        layers,
        mips,
        samples,
        contents: Vec::new(),
        swizzle,
    };
    let texels: u64 = (0..mips)
        .map(|m| {
            let [w, h, d] = spec.mip_extent(m);
            u64::from(w) * u64::from(h) * u64::from(d)
        })
        .sum::<u64>()
        * u64::from(layers)
        * u64::from(spec.samples);
    let size = usize::try_from(texels * u64::from(format.size)).context("texture size")?;
    if size > 64 << 20 {
        bail!("the texture is {size} bytes; keep test textures under 64 MiB");
    }
    spec.contents = match t.pattern.as_deref() {
        Some(p) => {
            if !t.data.is_empty() || t.fill.is_some() || t.ty.is_some() {
                bail!("pattern replaces data, fill and type");
            }
            pattern(&spec, p)?
        }
        None => {
            let ty = t.ty.unwrap_or(ScalarType::U32);
            let mut data = Vec::new();
            for e in parse_list(&t.data, ty).context("data")? {
                data.extend(e.to_bytes()?);
            }
            if data.len() > size {
                bail!("{} bytes of data for a {size}-byte texture", data.len());
            }
            let fill = match &t.fill {
                Some(v) => Element::parse(v, ty).context("fill")?.to_bytes()?,
                None => vec![0; 4],
            };
            let mut contents: Vec<u8> = fill.iter().copied().cycle().take(size).collect();
            contents[..data.len()].copy_from_slice(&data);
            contents
        }
    };
    Ok(spec)
}

/// `pattern = "coords"`: every texel holds (x, y, z or layer, mip) — (x, y, layer, sample) in a
/// multisampled texture — as floats or integers by the format, in as many channels as it has.
fn pattern(spec: &TextureSpec, name: &str) -> Result<Vec<u8>> {
    if name != "coords" {
        bail!("unknown pattern {name:?} (coords)");
    }
    let f = spec.format;
    let encode = |v: [u32; 4]| -> Result<Vec<u8>> {
        let words = v.map(|c| match f.shader_type() {
            ShaderType::Float => (c as f32).to_bits(),
            _ => c,
        });
        f.encode_32bit(&words)
    };
    let mut out = Vec::new();
    for layer in 0..spec.layers {
        for mip in 0..spec.mips {
            let [w, h, d] = spec.mip_extent(mip);
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        for s in 0..spec.samples {
                            let v = if spec.dim.is_ms() {
                                [x, y, layer, s]
                            } else if spec.dim == TextureDim::Tex3D {
                                [x, y, z, mip]
                            } else {
                                [x, y, layer, mip]
                            };
                            out.extend(encode(v)?);
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Sampler state: D3D11's `D3D11_SAMPLER_DESC`, in Vulkan terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerState {
    /// Magnification filter.
    pub mag: vk::Filter,
    /// Minification filter.
    pub min: vk::Filter,
    /// Mip filter.
    pub mip: vk::SamplerMipmapMode,
    /// Address modes u, v, w.
    pub address: [vk::SamplerAddressMode; 3],
    /// Border color.
    pub border: vk::BorderColor,
    /// LOD bias.
    pub mip_lod_bias: f32,
    /// LOD clamp.
    pub min_lod: f32,
    /// LOD clamp.
    pub max_lod: f32,
    /// Anisotropic filtering with this maximum (needs `samplerAnisotropy`).
    pub max_anisotropy: Option<f32>,
    /// Comparison sampler (`sample_c`).
    pub compare: Option<vk::CompareOp>,
}

impl SamplerState {
    /// The Vulkan create info.
    pub fn create_info(&self) -> vk::SamplerCreateInfo<'static> {
        vk::SamplerCreateInfo::default()
            .mag_filter(self.mag)
            .min_filter(self.min)
            .mipmap_mode(self.mip)
            .address_mode_u(self.address[0])
            .address_mode_v(self.address[1])
            .address_mode_w(self.address[2])
            .mip_lod_bias(self.mip_lod_bias)
            .anisotropy_enable(self.max_anisotropy.is_some())
            .max_anisotropy(self.max_anisotropy.unwrap_or(1.0))
            .compare_enable(self.compare.is_some())
            .compare_op(self.compare.unwrap_or(vk::CompareOp::NEVER))
            .min_lod(self.min_lod)
            .max_lod(self.max_lod)
            .border_color(self.border)
            .unnormalized_coordinates(false)
    }

    /// Device features the state needs.
    pub fn required_features(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self
            .address
            .contains(&vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE)
        {
            out.push("samplerMirrorClampToEdge");
        }
        if self.max_anisotropy.is_some() {
            out.push("samplerAnisotropy");
        }
        out
    }
}

/// One sampler of a case.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerSpec {
    /// Name for messages.
    pub name: String,
    /// `s#`.
    pub register: Register,
    /// The stages that see it (`None`: every stage that uses the register).
    pub stages: Option<Vec<Stage>>,
    /// Explicit (set, binding).
    pub placement: Option<(u32, u32)>,
    /// The state.
    pub state: SamplerState,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SamplerToml {
    pub(super) register: String,
    space: Option<u32>,
    name: Option<String>,
    stages: Option<Vec<String>>,
    set: Option<u32>,
    binding: Option<u32>,
    filter: Option<String>,
    min_filter: Option<String>,
    mag_filter: Option<String>,
    mip_filter: Option<String>,
    address: Option<String>,
    address_u: Option<String>,
    address_v: Option<String>,
    address_w: Option<String>,
    border_color: Option<String>,
    mip_lod_bias: Option<f32>,
    min_lod: Option<f32>,
    max_lod: Option<f32>,
    max_anisotropy: Option<f32>,
    comparison: Option<String>,
}

fn filter(name: &str) -> Result<vk::Filter> {
    match name {
        "point" => Ok(vk::Filter::NEAREST),
        "linear" => Ok(vk::Filter::LINEAR),
        _ => bail!("unknown filter {name:?} (point or linear)"),
    }
}

fn address(name: &str) -> Result<vk::SamplerAddressMode> {
    Ok(match name {
        "wrap" => vk::SamplerAddressMode::REPEAT,
        "mirror" => vk::SamplerAddressMode::MIRRORED_REPEAT,
        "clamp" => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        "border" => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        "mirror_once" => vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE,
        _ => bail!("unknown address mode {name:?} (wrap, mirror, clamp, border, mirror_once)"),
    })
}

/// A comparison function by its D3D name: `never`, `less`, `equal`, `less_equal`, `greater`,
/// `not_equal`, `greater_equal`, `always`.
pub fn compare_op(name: &str) -> Result<vk::CompareOp> {
    Ok(match name {
        "never" => vk::CompareOp::NEVER,
        "less" => vk::CompareOp::LESS,
        "equal" => vk::CompareOp::EQUAL,
        "less_equal" => vk::CompareOp::LESS_OR_EQUAL,
        "greater" => vk::CompareOp::GREATER,
        "not_equal" => vk::CompareOp::NOT_EQUAL,
        "greater_equal" => vk::CompareOp::GREATER_OR_EQUAL,
        "always" => vk::CompareOp::ALWAYS,
        _ => bail!(
            "unknown comparison {name:?} (never, less, equal, less_equal, greater, not_equal, \
             greater_equal, always)"
        ),
    })
}

pub(super) fn sampler_spec(s: SamplerToml) -> Result<SamplerSpec> {
    let register = super::table::register_in_space(&s.register, s.space)?;
    if register.class != RegisterClass::Sampler {
        bail!("a sampler takes an s# register, not {register}");
    }
    // D3D11's default sampler: linear filtering, clamp, opaque white border (its default
    // border color is (1, 1, 1, 1)), no LOD limits.
    let (mut mag, mut min, mut mip) = (
        vk::Filter::LINEAR,
        vk::Filter::LINEAR,
        vk::SamplerMipmapMode::LINEAR,
    );
    let mut max_anisotropy = s.max_anisotropy;
    if let Some(f) = s.filter.as_deref() {
        if f == "anisotropic" {
            max_anisotropy = Some(max_anisotropy.unwrap_or(16.0));
        } else {
            let v = filter(f)?;
            (mag, min) = (v, v);
            mip = if v == vk::Filter::LINEAR {
                vk::SamplerMipmapMode::LINEAR
            } else {
                vk::SamplerMipmapMode::NEAREST
            };
        }
    }
    if let Some(f) = s.mag_filter.as_deref() {
        mag = filter(f)?;
    }
    if let Some(f) = s.min_filter.as_deref() {
        min = filter(f)?;
    }
    if let Some(f) = s.mip_filter.as_deref() {
        mip = match filter(f)? {
            vk::Filter::LINEAR => vk::SamplerMipmapMode::LINEAR,
            _ => vk::SamplerMipmapMode::NEAREST,
        };
    }
    let all = s.address.as_deref().map(address).transpose()?;
    let mut modes = [all.unwrap_or(vk::SamplerAddressMode::CLAMP_TO_EDGE); 3];
    for (mode, name) in modes
        .iter_mut()
        .zip([&s.address_u, &s.address_v, &s.address_w])
    {
        if let Some(n) = name.as_deref() {
            *mode = address(n)?;
        }
    }
    let border = match s.border_color.as_deref().unwrap_or("opaque_white") {
        "transparent_black" => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
        "opaque_black" => vk::BorderColor::FLOAT_OPAQUE_BLACK,
        "opaque_white" => vk::BorderColor::FLOAT_OPAQUE_WHITE,
        "int_transparent_black" => vk::BorderColor::INT_TRANSPARENT_BLACK,
        "int_opaque_black" => vk::BorderColor::INT_OPAQUE_BLACK,
        "int_opaque_white" => vk::BorderColor::INT_OPAQUE_WHITE,
        other => bail!(
            "unknown border_color {other:?} (transparent_black, opaque_black, opaque_white, or \
             int_… for integer textures)"
        ),
    };
    if let Some(a) = max_anisotropy {
        if !(1.0..=16.0).contains(&a) {
            bail!("max_anisotropy must be 1 to 16");
        }
    }
    let min_lod = s.min_lod.unwrap_or(0.0);
    let max_lod = s.max_lod.unwrap_or(vk::LOD_CLAMP_NONE);
    if min_lod.partial_cmp(&max_lod) == Some(std::cmp::Ordering::Greater) || min_lod.is_nan() {
        bail!("min_lod {min_lod} is above max_lod {max_lod}");
    }
    Ok(SamplerSpec {
        name: s.name.unwrap_or_else(|| register.to_string()),
        register,
        stages: parse_stages(s.stages)?,
        placement: placement(s.set, s.binding)?,
        state: SamplerState {
            mag,
            min,
            mip,
            address: modes,
            border,
            mip_lod_bias: s.mip_lod_bias.unwrap_or(0.0),
            min_lod,
            max_lod,
            max_anisotropy,
            compare: s.comparison.as_deref().map(compare_op).transpose()?,
        },
    })
}
