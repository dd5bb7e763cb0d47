//! Shader feature flags (`SFI0`): optional device features the program needs.
//!
//! Contract: [`FeatureFlags::parse`] reads the chunk's first 8 bytes as a little-endian u64
//! (`D3D_SHADER_REQUIRES_*`); more bytes are allowed and ignored, fewer are an error. Unknown bits
//! are kept. [`FeatureFlags::fxc_notes`] lists the lines fxc prints under
//! `// Note: shader requires additional functionality:`.

use super::container::Chunk;
use super::error::Result;

/// The `SFI0` feature bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FeatureFlags(pub u64);

/// Each known flag, its `D3D_SHADER_REQUIRES_*` name and the line fxc prints for it.
/// The fxc wording of bits 0x1, 0x8, 0x10 and 0x800 is confirmed by corpus listings; the others
/// follow the d3dcompiler strings and are unconfirmed here.
pub const FLAGS: &[(u64, &str, &str)] = &[
    (0x1, "DOUBLES", "Double-precision floating point"),
    (0x2, "EARLY_DEPTH_STENCIL", "Early depth-stencil"),
    (0x4, "UAVS_AT_EVERY_STAGE", "UAVs at every shader stage"),
    (0x8, "64_UAVS", "64 UAV slots"),
    (0x10, "MINIMUM_PRECISION", "Minimum-precision data types"),
    (
        0x20,
        "11_1_DOUBLE_EXTENSIONS",
        "Double-precision extensions for 11.1",
    ),
    (0x40, "11_1_SHADER_EXTENSIONS", "Shader extensions for 11.1"),
    (
        0x80,
        "LEVEL_9_COMPARISON_FILTERING",
        "Comparison filtering for feature level 9",
    ),
    (0x100, "TILED_RESOURCES", "Tiled resources"),
    (0x200, "STENCIL_REF", "PS Output Stencil Ref"),
    (0x400, "INNER_COVERAGE", "PS Inner Coverage"),
    (
        0x800,
        "TYPED_UAV_LOAD_ADDITIONAL_FORMATS",
        "Typed UAV Load Additional Formats",
    ),
    (0x1000, "ROVS", "Raster Ordered UAVs"),
    (
        0x2000,
        "VIEWPORT_AND_RT_ARRAY_INDEX_FROM_ANY_SHADER_FEEDING_RASTERIZER",
        "SV_RenderTargetArrayIndex or SV_ViewportArrayIndex from any shader feeding rasterizer",
    ),
];

impl FeatureFlags {
    /// `D3D_SHADER_REQUIRES_DOUBLES`.
    pub const DOUBLES: u64 = 0x1;
    /// `D3D_SHADER_REQUIRES_MINIMUM_PRECISION`.
    pub const MINIMUM_PRECISION: u64 = 0x10;

    /// Parses an `SFI0` chunk.
    pub fn parse(chunk: &Chunk<'_>) -> Result<Self> {
        let mut r = chunk.reader();
        let low = r.read_u32().map_err(|e| e.with_context("SFI0"))?;
        let high = r.read_u32().map_err(|e| e.with_context("SFI0"))?;
        Ok(Self(u64::from(low) | u64::from(high) << 32))
    }

    /// True when every bit of `flag` is set.
    pub fn contains(self, flag: u64) -> bool {
        self.0 & flag == flag
    }

    /// The `D3D_SHADER_REQUIRES_*` names of the set bits (unknown bits are not listed).
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        FLAGS
            .iter()
            .filter(move |(bit, _, _)| self.0 & bit != 0)
            .map(|(_, name, _)| *name)
    }

    /// The lines fxc prints for the set bits, in bit order (unknown bits are not listed).
    pub fn fxc_notes(self) -> impl Iterator<Item = &'static str> {
        FLAGS
            .iter()
            .filter(move |(bit, _, _)| self.0 & bit != 0)
            .map(|(_, _, note)| *note)
    }

    /// The set bits this crate has no name for.
    pub fn unknown_bits(self) -> u64 {
        self.0 & !FLAGS.iter().fold(0, |acc, (bit, _, _)| acc | bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::dxbc::container::FourCc;

    fn chunk(data: &[u8]) -> Chunk<'_> {
        Chunk {
            fourcc: FourCc::SFI0,
            offset: 0x30,
            data,
        }
    }

    #[test]
    fn parses_and_names_flags() {
        let data = [0x10, 0x08, 0, 0, 1, 0, 0, 0];
        let f = FeatureFlags::parse(&chunk(&data)).unwrap();
        assert_eq!(f.0, 0x1_0000_0810);
        assert!(f.contains(FeatureFlags::MINIMUM_PRECISION));
        assert_eq!(
            f.fxc_notes().collect::<Vec<_>>(),
            [
                "Minimum-precision data types",
                "Typed UAV Load Additional Formats"
            ]
        );
        assert_eq!(f.names().next(), Some("MINIMUM_PRECISION"));
        assert_eq!(f.unknown_bits(), 0x1_0000_0000);
    }

    #[test]
    fn short_chunk_is_an_error() {
        let e = FeatureFlags::parse(&chunk(&[1, 0, 0, 0, 0])).unwrap_err();
        assert_eq!(e.offset, 0x34);
    }
}
