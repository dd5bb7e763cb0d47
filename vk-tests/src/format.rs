//! Texel formats by their DXGI names (`r32g32b32a32_float`, `r8g8b8a8_unorm`, `d32_float`, …):
//! the Vulkan format, the texel size, and how the channels are stored, so that the runner can
//! decode read-back texels into per-channel values and encode clear values and generated data.
//!
//! Channels are listed in RGBA order. Their bits are packed from the least significant bit of
//! the little-endian texel upwards, in memory order; `b8g8r8a8_unorm` stores blue first.

use anyhow::{anyhow, bail, Result};
use ash::vk;

/// How one channel's bits turn into a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numeric {
    /// IEEE float (16 or 32 bits), or the unsigned 11/10-bit floats of `r11g11b10_float`.
    Float,
    /// Unsigned normalized: `c / (2^n − 1)`.
    Unorm,
    /// Signed normalized: `max(c / (2^(n−1) − 1), −1)`.
    Snorm,
    /// Unsigned integer.
    Uint,
    /// Signed integer (two's complement).
    Sint,
}

impl Numeric {
    /// What a shader reads or writes for this class: float, uint or int.
    pub fn shader_type(self) -> ShaderType {
        match self {
            Numeric::Float | Numeric::Unorm | Numeric::Snorm => ShaderType::Float,
            Numeric::Uint => ShaderType::Uint,
            Numeric::Sint => ShaderType::Sint,
        }
    }
}

/// The component type a shader sees: the sampled type of an image, the type of a fragment
/// output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaderType {
    /// 32-bit float.
    Float,
    /// 32-bit unsigned integer.
    Uint,
    /// 32-bit signed integer.
    Sint,
}

/// A color format (textures, render targets, typed buffers) by its DXGI name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelFormat {
    /// E.g. `r32_uint`.
    pub name: &'static str,
    /// The Vulkan format.
    pub vk: vk::Format,
    /// Bytes per texel.
    pub size: u32,
    /// How the channels are stored.
    pub numeric: Numeric,
    /// Bits per channel, in memory order (lowest bits first).
    pub bits: &'static [u8],
    /// True for `b8g8r8a8`: memory order blue, green, red, alpha.
    pub bgra: bool,
}

macro_rules! formats {
    ($($name:literal $vk:ident $size:literal $num:ident [$($bits:literal),*] $bgra:literal,)*) => {
        /// Every color format cases may name.
        pub const TEXEL_FORMATS: &[TexelFormat] = &[
            $(TexelFormat {
                name: $name,
                vk: vk::Format::$vk,
                size: $size,
                numeric: Numeric::$num,
                bits: &[$($bits),*],
                bgra: $bgra,
            },)*
        ];
    };
}

formats! {
    "r32g32b32a32_float" R32G32B32A32_SFLOAT 16 Float [32, 32, 32, 32] false,
    "r32g32b32a32_uint" R32G32B32A32_UINT 16 Uint [32, 32, 32, 32] false,
    "r32g32b32a32_sint" R32G32B32A32_SINT 16 Sint [32, 32, 32, 32] false,
    "r32g32_float" R32G32_SFLOAT 8 Float [32, 32] false,
    "r32g32_uint" R32G32_UINT 8 Uint [32, 32] false,
    "r32g32_sint" R32G32_SINT 8 Sint [32, 32] false,
    "r32_float" R32_SFLOAT 4 Float [32] false,
    "r32_uint" R32_UINT 4 Uint [32] false,
    "r32_sint" R32_SINT 4 Sint [32] false,
    "r16g16b16a16_float" R16G16B16A16_SFLOAT 8 Float [16, 16, 16, 16] false,
    "r16g16b16a16_unorm" R16G16B16A16_UNORM 8 Unorm [16, 16, 16, 16] false,
    "r16g16b16a16_snorm" R16G16B16A16_SNORM 8 Snorm [16, 16, 16, 16] false,
    "r16g16b16a16_uint" R16G16B16A16_UINT 8 Uint [16, 16, 16, 16] false,
    "r16g16b16a16_sint" R16G16B16A16_SINT 8 Sint [16, 16, 16, 16] false,
    "r16g16_float" R16G16_SFLOAT 4 Float [16, 16] false,
    "r16g16_unorm" R16G16_UNORM 4 Unorm [16, 16] false,
    "r16g16_snorm" R16G16_SNORM 4 Snorm [16, 16] false,
    "r16g16_uint" R16G16_UINT 4 Uint [16, 16] false,
    "r16g16_sint" R16G16_SINT 4 Sint [16, 16] false,
    "r16_float" R16_SFLOAT 2 Float [16] false,
    "r16_unorm" R16_UNORM 2 Unorm [16] false,
    "r16_snorm" R16_SNORM 2 Snorm [16] false,
    "r16_uint" R16_UINT 2 Uint [16] false,
    "r16_sint" R16_SINT 2 Sint [16] false,
    "r8g8b8a8_unorm" R8G8B8A8_UNORM 4 Unorm [8, 8, 8, 8] false,
    "r8g8b8a8_snorm" R8G8B8A8_SNORM 4 Snorm [8, 8, 8, 8] false,
    "r8g8b8a8_uint" R8G8B8A8_UINT 4 Uint [8, 8, 8, 8] false,
    "r8g8b8a8_sint" R8G8B8A8_SINT 4 Sint [8, 8, 8, 8] false,
    "b8g8r8a8_unorm" B8G8R8A8_UNORM 4 Unorm [8, 8, 8, 8] true,
    "r8g8_unorm" R8G8_UNORM 2 Unorm [8, 8] false,
    "r8g8_snorm" R8G8_SNORM 2 Snorm [8, 8] false,
    "r8g8_uint" R8G8_UINT 2 Uint [8, 8] false,
    "r8g8_sint" R8G8_SINT 2 Sint [8, 8] false,
    "r8_unorm" R8_UNORM 1 Unorm [8] false,
    "r8_snorm" R8_SNORM 1 Snorm [8] false,
    "r8_uint" R8_UINT 1 Uint [8] false,
    "r8_sint" R8_SINT 1 Sint [8] false,
    "r10g10b10a2_unorm" A2B10G10R10_UNORM_PACK32 4 Unorm [10, 10, 10, 2] false,
    "r10g10b10a2_uint" A2B10G10R10_UINT_PACK32 4 Uint [10, 10, 10, 2] false,
    "r11g11b10_float" B10G11R11_UFLOAT_PACK32 4 Float [11, 11, 10] false,
    // 16-bit packed formats: DXGI lists channels from the least significant bit (blue first), so
    // each is the Vulkan `…_PACK16` format that names them from the most significant bit.
    "b5g6r5_unorm" R5G6B5_UNORM_PACK16 2 Unorm [5, 6, 5] true,
    "b5g5r5a1_unorm" A1R5G5B5_UNORM_PACK16 2 Unorm [5, 5, 5, 1] true,
    "b4g4r4a4_unorm" A4R4G4B4_UNORM_PACK16 2 Unorm [4, 4, 4, 4] true,
    // Alpha only: its one channel is alpha; shaders read (0, 0, 0, a). Needs VK_KHR_maintenance5.
    "a8_unorm" A8_UNORM_KHR 1 Unorm [8] false,
}

impl TexelFormat {
    /// True for `a8_unorm`, whose one channel is alpha (`VK_FORMAT_A8_UNORM_KHR`, which needs
    /// the device feature `maintenance5`).
    pub fn alpha_only(&self) -> bool {
        self.vk == vk::Format::A8_UNORM_KHR
    }
}

/// One decoded channel: 32-bit bits of a float (`f32` bits), a `u32` or an `i32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelValue {
    /// Float, uint or sint.
    pub ty: ShaderType,
    /// The value's 32 bits.
    pub bits: u32,
}

impl TexelFormat {
    /// The format named `name`.
    pub fn from_name(name: &str) -> Result<TexelFormat> {
        TEXEL_FORMATS
            .iter()
            .copied()
            .find(|f| f.name == name)
            .ok_or_else(|| {
                anyhow!(
                    "unknown format {name:?}; known: {}",
                    TEXEL_FORMATS
                        .iter()
                        .map(|f| f.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }

    /// Number of channels (1 to 4).
    pub fn channels(&self) -> usize {
        self.bits.len()
    }

    /// The component type shaders use with this format.
    pub fn shader_type(&self) -> ShaderType {
        self.numeric.shader_type()
    }

    /// Decodes one texel (`bytes` is exactly [`TexelFormat::size`] long) into its channels, in
    /// RGBA order.
    pub fn decode(&self, bytes: &[u8]) -> Vec<ChannelValue> {
        let mut raw = [0u8; 16];
        let n = bytes.len().min(16);
        raw[..n].copy_from_slice(&bytes[..n]);
        let texel = u128::from_le_bytes(raw);
        let mut shift = 0u32;
        let mut out: Vec<ChannelValue> = self
            .bits
            .iter()
            .map(|&bits| {
                let bits = u32::from(bits);
                let mask = if bits == 32 {
                    u32::MAX
                } else {
                    (1 << bits) - 1
                };
                let c = ((texel >> shift) as u32) & mask;
                shift += bits;
                decode_channel(self.numeric, bits, c)
            })
            .collect();
        if self.bgra && out.len() >= 3 {
            out.swap(0, 2);
        }
        out
    }

    /// Encodes channel values (RGBA order, each the 32 bits of an `f32`, `u32` or `i32` as the
    /// format's [`ShaderType`]) into one texel; only formats with 32-bit channels are supported.
    pub fn encode_32bit(&self, channels: &[u32]) -> Result<Vec<u8>> {
        if self.bits.iter().any(|&b| b != 32) {
            bail!(
                "{} does not have 32-bit channels; give raw data instead",
                self.name
            );
        }
        Ok(channels
            .iter()
            .take(self.channels())
            .flat_map(|c| c.to_le_bytes())
            .collect())
    }
}

fn decode_channel(numeric: Numeric, bits: u32, c: u32) -> ChannelValue {
    let float = |v: f32| ChannelValue {
        ty: ShaderType::Float,
        bits: v.to_bits(),
    };
    match numeric {
        Numeric::Float => match bits {
            32 => ChannelValue {
                ty: ShaderType::Float,
                bits: c,
            },
            16 => float(f16_to_f32(c as u16)),
            // Unsigned small floats: 5-bit exponent (bias 15), 6- or 5-bit mantissa.
            _ => float(small_float(c, bits - 5)),
        },
        Numeric::Unorm => float((f64::from(c) / ((1u64 << bits) - 1) as f64) as f32),
        Numeric::Snorm => {
            let signed = sign_extend(c, bits);
            let max = ((1i64 << (bits - 1)) - 1) as f64;
            float((f64::from(signed) / max).max(-1.0) as f32)
        }
        Numeric::Uint => ChannelValue {
            ty: ShaderType::Uint,
            bits: c,
        },
        Numeric::Sint => ChannelValue {
            ty: ShaderType::Sint,
            bits: sign_extend(c, bits) as u32,
        },
    }
}

fn sign_extend(c: u32, bits: u32) -> i32 {
    if bits >= 32 {
        c as i32
    } else {
        ((c << (32 - bits)) as i32) >> (32 - bits)
    }
}

/// An IEEE half as an `f32` (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = u32::from((h >> 10) & 0x1f);
    let mant = u32::from(h & 0x3ff);
    match exp {
        0 => sign * mant as f32 * 2f32.powi(-24),
        0x1f if mant == 0 => sign * f32::INFINITY,
        0x1f => f32::NAN,
        _ => sign * (1.0 + mant as f32 / 1024.0) * 2f32.powi(exp as i32 - 15),
    }
}

/// An unsigned float with a 5-bit exponent (bias 15) and `mant_bits` of mantissa, as an `f32`.
fn small_float(c: u32, mant_bits: u32) -> f32 {
    let mant = c & ((1 << mant_bits) - 1);
    let exp = c >> mant_bits;
    let scale = (1u32 << mant_bits) as f32;
    match exp {
        0 => mant as f32 / scale * 2f32.powi(-14),
        0x1f if mant == 0 => f32::INFINITY,
        0x1f => f32::NAN,
        _ => (1.0 + mant as f32 / scale) * 2f32.powi(exp as i32 - 15),
    }
}

/// A depth (and stencil) format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthFormat {
    /// E.g. `d32_float`.
    pub name: &'static str,
    /// The Vulkan format.
    pub vk: vk::Format,
    /// Bits of depth (32 for float depth).
    pub depth_bits: u32,
    /// True when depth is a 32-bit float (else unorm).
    pub float: bool,
    /// True when the format has a stencil aspect.
    pub stencil: bool,
}

/// Depth formats a case may name.
pub const DEPTH_FORMATS: &[DepthFormat] = &[
    DepthFormat {
        name: "d32_float",
        vk: vk::Format::D32_SFLOAT,
        depth_bits: 32,
        float: true,
        stencil: false,
    },
    DepthFormat {
        name: "d32_float_s8_uint",
        vk: vk::Format::D32_SFLOAT_S8_UINT,
        depth_bits: 32,
        float: true,
        stencil: true,
    },
    DepthFormat {
        name: "d24_unorm_s8_uint",
        vk: vk::Format::D24_UNORM_S8_UINT,
        depth_bits: 24,
        float: false,
        stencil: true,
    },
    DepthFormat {
        name: "d16_unorm",
        vk: vk::Format::D16_UNORM,
        depth_bits: 16,
        float: false,
        stencil: false,
    },
];

impl DepthFormat {
    /// The format named `name`.
    pub fn from_name(name: &str) -> Result<DepthFormat> {
        DEPTH_FORMATS
            .iter()
            .copied()
            .find(|f| f.name == name)
            .ok_or_else(|| {
                anyhow!(
                    "unknown depth format {name:?}; known: {}",
                    DEPTH_FORMATS
                        .iter()
                        .map(|f| f.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }

    /// The aspects of the format.
    pub fn aspects(&self) -> vk::ImageAspectFlags {
        if self.stencil {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        } else {
            vk::ImageAspectFlags::DEPTH
        }
    }

    /// Bytes per texel of the depth aspect when copied to a buffer (`vkCmdCopyImageToBuffer`).
    pub fn depth_copy_size(&self) -> usize {
        if self.depth_bits == 16 {
            2
        } else {
            4
        }
    }

    /// Decodes one depth texel as copied to a buffer into the depth value (`f32` bits).
    pub fn decode_depth(&self, bytes: &[u8]) -> u32 {
        let mut raw = [0u8; 4];
        let n = bytes.len().min(4);
        raw[..n].copy_from_slice(&bytes[..n]);
        let word = u32::from_le_bytes(raw);
        if self.float {
            word
        } else {
            let max = (1u64 << self.depth_bits) - 1;
            let c = u64::from(word) & max;
            ((c as f64 / max as f64) as f32).to_bits()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(name: &str, bytes: &[u8]) -> Vec<u32> {
        TexelFormat::from_name(name)
            .unwrap_or_else(|e| panic!("{e:#}"))
            .decode(bytes)
            .into_iter()
            .map(|c| c.bits)
            .collect()
    }

    #[test]
    fn decodes_packed_16_bit_and_alpha_formats() {
        let f = |v: [f32; 4]| v.map(f32::to_bits);
        // B5G6R5: blue in bits 0..4, green 5..10, red 11..15 (DXGI order from the low bit).
        assert_eq!(
            values("b5g6r5_unorm", &[0x00, 0xf8])[..],
            f([1.0, 0.0, 0.0, 0.0])[..3]
        );
        assert_eq!(
            values("b5g6r5_unorm", &[0xe0, 0x07])[..],
            f([0.0, 1.0, 0.0, 0.0])[..3]
        );
        assert_eq!(
            values("b5g6r5_unorm", &[0x1f, 0x00])[..],
            f([0.0, 0.0, 1.0, 0.0])[..3]
        );
        // B5G5R5A1: alpha is the top bit; B4G4R4A4: alpha the top nibble.
        assert_eq!(
            values("b5g5r5a1_unorm", &[0x00, 0x80]),
            f([0.0, 0.0, 0.0, 1.0])
        );
        assert_eq!(
            values("b5g5r5a1_unorm", &[0x00, 0x7c]),
            f([1.0, 0.0, 0.0, 0.0])
        );
        assert_eq!(
            values("b4g4r4a4_unorm", &[0x0f, 0x00]),
            f([0.0, 0.0, 1.0, 0.0])
        );
        assert_eq!(
            values("b4g4r4a4_unorm", &[0x00, 0xf0]),
            f([0.0, 0.0, 0.0, 1.0])
        );
        // A8: one channel, alpha.
        let a8 = TexelFormat::from_name("a8_unorm").unwrap_or_else(|e| panic!("{e:#}"));
        assert!(a8.alpha_only());
        assert_eq!(a8.vk, vk::Format::A8_UNORM_KHR);
        assert_eq!(values("a8_unorm", &[0xff]), [1.0f32.to_bits()]);
        assert!(!TexelFormat::from_name("r8_unorm")
            .unwrap_or_else(|e| panic!("{e:#}"))
            .alpha_only());
    }

    #[test]
    fn decodes() {
        assert_eq!(
            values("r8g8b8a8_unorm", &[0, 255, 51, 128]),
            [0.0f32, 1.0, 0.2, (128.0f64 / 255.0) as f32].map(f32::to_bits)
        );
        assert_eq!(
            values("b8g8r8a8_unorm", &[255, 0, 0, 0]),
            [0.0f32, 0.0, 1.0, 0.0].map(f32::to_bits)
        );
        assert_eq!(
            values("r8g8_snorm", &[0x80, 0x81]),
            [-1.0f32, -1.0].map(f32::to_bits)
        );
        assert_eq!(values("r16_sint", &[0xfe, 0xff]), [(-2i32) as u32]);
        assert_eq!(
            values("r16g16_float", &[0x00, 0x3c, 0x00, 0xc0]),
            [1.0f32, -2.0].map(f32::to_bits)
        );
        // r10g10b10a2_uint: r = 1, g = 2, b = 3, a = 1.
        let w: u32 = 1 | (2 << 10) | (3 << 20) | (1 << 30);
        assert_eq!(values("r10g10b10a2_uint", &w.to_le_bytes()), [1, 2, 3, 1]);
        // r11g11b10_float: r = 1.0 (exp 15, mantissa 0), g = 0.5, b = 2.0.
        let w: u32 = (15 << 6) | ((14 << 6) << 11) | ((16 << 5) << 22);
        assert_eq!(
            values("r11g11b10_float", &w.to_le_bytes()),
            [1.0f32, 0.5, 2.0].map(f32::to_bits)
        );
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    }

    #[test]
    fn depth() {
        let d24 = DepthFormat::from_name("d24_unorm_s8_uint").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            d24.decode_depth(&[0xff, 0xff, 0xff, 0x00]),
            1.0f32.to_bits()
        );
        assert_eq!(d24.decode_depth(&[0, 0, 0, 0xff]), 0.0f32.to_bits());
        assert!(DepthFormat::from_name("d33").is_err());
    }
}
