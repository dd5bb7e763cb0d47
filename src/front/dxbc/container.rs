//! The DXBC container: header, checksum and chunk table, as a zero-copy list of [`Chunk`]s.
//!
//! Contract: [`Container::parse`] accepts exactly the bytes of one container. It checks the magic,
//! the checksum (unless [`ParseOptions::verify_checksum`] is off), the version (1.0), that the
//! declared total size equals the input's length, and that every chunk lies inside the container
//! after the chunk table. Chunk payloads are borrowed from the input and never interpreted here;
//! unknown chunks are listed like any other. Typed accessors ([`Container::input_signature`],
//! [`Container::resource_definitions`], [`Container::level9`], ...) parse a chunk on demand and return `None` when the
//! container has no such chunk. Layout: `docs/dxbc-format.md`, "Container and chunks".

use std::fmt;

use super::aon9::{Level9, Level9Kind};
use super::checksum;
use super::error::{DecodeError, DecodeErrorKind, Result};
use super::rdef::ResourceDefinitions;
use super::reader::Reader;
use super::sfi0::FeatureFlags;
use super::signature::Signature;

/// A four-character code naming a container or chunk (`DXBC`, `SHEX`, `ISGN`, ...).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCc(pub [u8; 4]);

impl FourCc {
    /// The container magic.
    pub const DXBC: Self = Self(*b"DXBC");
    /// Resource definitions (reflection): constant buffers and resource bindings.
    pub const RDEF: Self = Self(*b"RDEF");
    /// Input signature, 24-byte elements.
    pub const ISGN: Self = Self(*b"ISGN");
    /// Input signature with stream and minimum precision (SM5.1 / fxc 10), 32-byte elements.
    pub const ISG1: Self = Self(*b"ISG1");
    /// Output signature, 24-byte elements.
    pub const OSGN: Self = Self(*b"OSGN");
    /// Geometry-shader output signature with streams, 28-byte elements.
    pub const OSG5: Self = Self(*b"OSG5");
    /// Output signature with stream and minimum precision, 32-byte elements.
    pub const OSG1: Self = Self(*b"OSG1");
    /// Patch-constant signature, 24-byte elements.
    pub const PCSG: Self = Self(*b"PCSG");
    /// Patch-constant signature with stream and minimum precision, 32-byte elements.
    pub const PSG1: Self = Self(*b"PSG1");
    /// Shader Model 4 program.
    pub const SHDR: Self = Self(*b"SHDR");
    /// Shader Model 5 program.
    pub const SHEX: Self = Self(*b"SHEX");
    /// Shader feature flags.
    pub const SFI0: Self = Self(*b"SFI0");
    /// Statistics.
    pub const STAT: Self = Self(*b"STAT");
    /// Class/interface information (SM5 dynamic linkage).
    pub const IFCE: Self = Self(*b"IFCE");
    /// Feature-level-9 program and mappings.
    pub const AON9: Self = Self(*b"Aon9");
    /// XNA shader (level-9 program and mappings, laid out like `Aon9`).
    pub const XNAS: Self = Self(*b"XNAS");
    /// XNA pre-pass shader (level-9 program and mappings, laid out like `Aon9`).
    pub const XNAP: Self = Self(*b"XNAP");
    /// Root signature.
    pub const RTS0: Self = Self(*b"RTS0");
    /// DXIL program (Shader Model 6): not DXBC bytecode.
    pub const DXIL: Self = Self(*b"DXIL");
    /// PDB debug data.
    pub const SPDB: Self = Self(*b"SPDB");
    /// Private application data.
    pub const PRIV: Self = Self(*b"PRIV");
    /// Effects (fx_4/fx_5) data.
    pub const FX10: Self = Self(*b"FX10");

    /// The four bytes.
    pub fn as_bytes(&self) -> &[u8; 4] {
        &self.0
    }

    /// The code as a `'static` string when it is one of the constants above (error contexts
    /// name chunks by it); `None` for other codes.
    pub fn known_name(&self) -> Option<&'static str> {
        const KNOWN: [(FourCc, &str); 22] = [
            (FourCc::DXBC, "DXBC"),
            (FourCc::RDEF, "RDEF"),
            (FourCc::ISGN, "ISGN"),
            (FourCc::ISG1, "ISG1"),
            (FourCc::OSGN, "OSGN"),
            (FourCc::OSG5, "OSG5"),
            (FourCc::OSG1, "OSG1"),
            (FourCc::PCSG, "PCSG"),
            (FourCc::PSG1, "PSG1"),
            (FourCc::SHDR, "SHDR"),
            (FourCc::SHEX, "SHEX"),
            (FourCc::SFI0, "SFI0"),
            (FourCc::STAT, "STAT"),
            (FourCc::IFCE, "IFCE"),
            (FourCc::AON9, "Aon9"),
            (FourCc::XNAS, "XNAS"),
            (FourCc::XNAP, "XNAP"),
            (FourCc::RTS0, "RTS0"),
            (FourCc::DXIL, "DXIL"),
            (FourCc::SPDB, "SPDB"),
            (FourCc::PRIV, "PRIV"),
            (FourCc::FX10, "FX10"),
        ];
        KNOWN
            .iter()
            .find(|(code, _)| code == self)
            .map(|(_, name)| *name)
    }
}

impl fmt::Display for FourCc {
    /// Printable ASCII as is, any other byte as `\xNN`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in &self.0 {
            if b.is_ascii_graphic() || b == b' ' {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FourCc(\"{self}\")")
    }
}

/// One chunk of a container: its code and its payload, borrowed from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// The chunk's four-character code.
    pub fourcc: FourCc,
    /// Absolute offset of the chunk's DATA (just after its 8-byte header) in the container.
    pub offset: u32,
    /// The payload: exactly the size the chunk header declares.
    pub data: &'a [u8],
}

impl<'a> Chunk<'a> {
    /// A reader over the payload whose offsets are absolute container offsets.
    pub fn reader(&self) -> Reader<'a> {
        Reader::new(self.data, self.offset)
    }
}

/// How strictly [`Container::parse`] checks its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Recompute the checksum and fail with [`DecodeErrorKind::ChecksumMismatch`] when it differs
    /// from the stored one (what the D3D runtime does). Default: true.
    pub verify_checksum: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            verify_checksum: true,
        }
    }
}

/// Size of the fixed container header: magic, checksum, version, total size, chunk count.
pub const HEADER_SIZE: usize = 32;

/// A parsed DXBC container: header fields and the chunk list in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container<'a> {
    /// The whole container.
    pub bytes: &'a [u8],
    /// The checksum stored at offset 4.
    pub checksum: [u8; 16],
    /// Container format major version (always 1).
    pub major_version: u16,
    /// Container format minor version (always 0).
    pub minor_version: u16,
    /// Declared total size in bytes (equal to `bytes.len()`).
    pub total_size: u32,
    /// The chunks, in chunk-table order.
    pub chunks: Vec<Chunk<'a>>,
}

impl<'a> Container<'a> {
    /// Parses the container header and chunk table of `bytes`.
    pub fn parse(bytes: &'a [u8], options: &ParseOptions) -> Result<Self> {
        Self::parse_inner(bytes, options).map_err(|e| e.with_context("container header"))
    }

    fn parse_inner(bytes: &'a [u8], options: &ParseOptions) -> Result<Self> {
        let mut r = Reader::new(bytes, 0);
        let magic = r.read_array::<4>()?;
        if magic != FourCc::DXBC.0 {
            return Err(DecodeError::new(
                0,
                DecodeErrorKind::BadMagic { found: magic },
            ));
        }
        let checksum = r.read_array::<16>()?;
        let version_offset = r.offset();
        let major_version = r.read_u16()?;
        let minor_version = r.read_u16()?;
        if (major_version, minor_version) != (1, 0) {
            return Err(DecodeError::new(
                version_offset,
                DecodeErrorKind::InvalidValue {
                    what: "container version",
                    value: u32::from(major_version) | u32::from(minor_version) << 16,
                },
            ));
        }
        let size_offset = r.offset();
        let total_size = r.read_u32()?;
        if total_size as usize != bytes.len() {
            return Err(DecodeError::new(
                size_offset,
                DecodeErrorKind::SizeMismatch {
                    what: "container",
                    declared: u64::from(total_size),
                    actual: bytes.len() as u64,
                },
            ));
        }
        if options.verify_checksum {
            let computed = checksum::compute(bytes);
            if computed != checksum {
                return Err(DecodeError::new(
                    4,
                    DecodeErrorKind::ChecksumMismatch {
                        stored: hex(&checksum),
                        computed: hex(&computed),
                    },
                ));
            }
        }
        let count = r.read_u32()?;
        let table = |e: DecodeError| e.with_context("chunk table");
        // Each chunk needs a 4-byte table entry and an 8-byte header.
        let count = r.check_count("chunk count", count, 12).map_err(table)?;
        let table_end = (HEADER_SIZE + 4 * count) as u64;
        let whole = Reader::new(bytes, 0);
        let mut chunks = Vec::with_capacity(count);
        for _ in 0..count {
            let entry_offset = r.offset();
            let chunk_offset = r.read_u32().map_err(table)?;
            if u64::from(chunk_offset) < table_end {
                return Err(table(DecodeError::new(
                    entry_offset,
                    DecodeErrorKind::Malformed("chunk offset points into the container header"),
                )));
            }
            let mut c = whole.at(chunk_offset).map_err(|_| {
                table(DecodeError::new(
                    entry_offset,
                    DecodeErrorKind::LimitExceeded {
                        what: "chunk offset",
                        value: u64::from(chunk_offset),
                        limit: bytes.len() as u64,
                    },
                ))
            })?;
            let header = |e: DecodeError| e.with_context("chunk header");
            let fourcc = FourCc(c.read_array::<4>().map_err(header)?);
            let size = c.read_u32().map_err(header)?;
            let data_offset = c.offset();
            let data = c
                .read_bytes(size as usize)
                .map_err(|e| e.with_context(fourcc.known_name().unwrap_or("chunk header")))?;
            chunks.push(Chunk {
                fourcc,
                offset: data_offset,
                data,
            });
        }
        Ok(Self {
            bytes,
            checksum,
            major_version,
            minor_version,
            total_size,
            chunks,
        })
    }

    /// The first chunk with code `fourcc`.
    pub fn chunk(&self, fourcc: &[u8; 4]) -> Option<&Chunk<'a>> {
        self.chunks.iter().find(|c| &c.fourcc.0 == fourcc)
    }

    /// The first chunk (in file order) whose code is one of `fourccs`.
    pub fn chunk_any(&self, fourccs: &[FourCc]) -> Option<&Chunk<'a>> {
        self.chunks.iter().find(|c| fourccs.contains(&c.fourcc))
    }

    /// The program chunk: `SHEX` (SM5) or `SHDR` (SM4).
    pub fn shader_chunk(&self) -> Option<&Chunk<'a>> {
        self.chunk_any(&[FourCc::SHEX, FourCc::SHDR])
    }

    /// True when the container holds a DXIL (Shader Model 6) program instead of DXBC bytecode.
    pub fn is_dxil(&self) -> bool {
        self.chunk(&FourCc::DXIL.0).is_some()
    }

    /// The input signature (`ISGN` or `ISG1`), parsed.
    pub fn input_signature(&self) -> Option<Result<Signature<'a>>> {
        self.chunk_any(&[FourCc::ISGN, FourCc::ISG1])
            .map(Signature::parse)
    }

    /// The output signature (`OSGN`, `OSG5` or `OSG1`), parsed.
    pub fn output_signature(&self) -> Option<Result<Signature<'a>>> {
        self.chunk_any(&[FourCc::OSGN, FourCc::OSG5, FourCc::OSG1])
            .map(Signature::parse)
    }

    /// The patch-constant signature (`PCSG` or `PSG1`), parsed.
    pub fn patch_constant_signature(&self) -> Option<Result<Signature<'a>>> {
        self.chunk_any(&[FourCc::PCSG, FourCc::PSG1])
            .map(Signature::parse)
    }

    /// The resource definitions (`RDEF`), parsed.
    pub fn resource_definitions(&self) -> Option<Result<ResourceDefinitions<'a>>> {
        self.chunk(&FourCc::RDEF.0).map(ResourceDefinitions::parse)
    }

    /// The shader feature flags (`SFI0`), parsed.
    pub fn feature_info(&self) -> Option<Result<FeatureFlags>> {
        self.chunk(&FourCc::SFI0.0).map(FeatureFlags::parse)
    }

    /// The feature-level-9 part (`Aon9`) of a `4_0_level_9_x` container, parsed: its D3D9
    /// program (undecoded) and mapping tables.
    pub fn level9(&self) -> Option<Result<Level9<'a>>> {
        self.chunk(&FourCc::AON9.0).map(Level9::parse)
    }

    /// Every level-9 part (`Aon9`, `XNAS`, `XNAP` chunks), parsed, in file order.
    pub fn level9_parts(&self) -> Vec<Result<Level9<'a>>> {
        self.chunks
            .iter()
            .filter(|c| Level9Kind::from_fourcc(c.fourcc).is_some())
            .map(Level9::parse)
            .collect()
    }

    /// The root signature (`RTS0`), parsed: embedded in a shader or alone in a
    /// root-signature-only container.
    pub fn root_signature(&self) -> Option<Result<super::rts0::RootSignature>> {
        self.chunk(&FourCc::RTS0.0)
            .map(super::rts0::RootSignature::parse)
    }
}

/// Lower-case hex digits of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::build_container as build;

    #[test]
    fn parses_chunks_with_absolute_offsets() {
        let bytes = build(&[(b"STAT", &[1, 2, 3, 4]), (b"ABCD", &[])]);
        let c = Container::parse(&bytes, &ParseOptions::default()).unwrap();
        assert_eq!(c.chunks.len(), 2);
        assert_eq!(c.chunks[0].fourcc, FourCc::STAT);
        assert_eq!(c.chunks[0].offset, 32 + 8 + 8);
        assert_eq!(c.chunks[0].data, &[1, 2, 3, 4]);
        assert_eq!(c.chunk(b"ABCD").unwrap().data, &[] as &[u8]);
        assert!(c.shader_chunk().is_none());
        assert!(c.input_signature().is_none());
        assert!(!c.is_dxil());
        assert_eq!(format!("{}", FourCc(*b"A\x13b ")), "A\\x13b ");
    }

    #[test]
    fn rejects_bad_magic_size_and_checksum() {
        let good = build(&[(b"STAT", &[0; 8])]);
        let opts = ParseOptions::default();

        let mut bad = good.clone();
        bad[0] = b'X';
        let e = Container::parse(&bad, &opts).unwrap_err();
        assert!(matches!(e.kind, DecodeErrorKind::BadMagic { .. }));

        let mut longer = good.clone();
        longer.push(0);
        let e = Container::parse(&longer, &opts).unwrap_err();
        assert_eq!(e.offset, 24);
        assert!(matches!(e.kind, DecodeErrorKind::SizeMismatch { .. }));

        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        let e = Container::parse(&flipped, &opts).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(matches!(e.kind, DecodeErrorKind::ChecksumMismatch { .. }));
        let lax = ParseOptions {
            verify_checksum: false,
        };
        assert!(Container::parse(&flipped, &lax).is_ok());
    }

    #[test]
    fn rejects_bad_chunk_tables() {
        let lax = ParseOptions {
            verify_checksum: false,
        };
        let good = build(&[(b"STAT", &[0; 8])]);
        // Chunk count larger than the data could hold.
        let mut bad = good.clone();
        bad[28..32].copy_from_slice(&1000u32.to_le_bytes());
        let e = Container::parse(&bad, &lax).unwrap_err();
        assert_eq!(e.offset, 32);
        // Chunk offset into the header, and past the end.
        for (offset, at) in [(8u32, 32), (10_000, 32)] {
            let mut bad = good.clone();
            bad[32..36].copy_from_slice(&offset.to_le_bytes());
            assert_eq!(Container::parse(&bad, &lax).unwrap_err().offset, at);
        }
        // Chunk size past the end.
        let mut bad = good.clone();
        bad[40..44].copy_from_slice(&9u32.to_le_bytes());
        let e = Container::parse(&bad, &lax).unwrap_err();
        assert_eq!(e.offset, 44);
        assert!(matches!(e.kind, DecodeErrorKind::UnexpectedEof { .. }));
        // Wrong container version.
        let mut bad = good.clone();
        bad[20] = 2;
        assert_eq!(Container::parse(&bad, &lax).unwrap_err().offset, 20);
    }

    #[test]
    fn truncations_and_garbage_never_panic() {
        let good = build(&[(b"STAT", &[0; 8]), (b"RDEF", &[0; 28])]);
        let lax = ParseOptions {
            verify_checksum: false,
        };
        for len in 0..good.len() {
            assert!(Container::parse(&good[..len], &lax).is_err());
        }
        let mut state = 0x1234_5678u32;
        for _ in 0..2000 {
            let mut bytes = good.clone();
            for _ in 0..4 {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let i = (state >> 8) as usize % bytes.len();
                bytes[i] = (state >> 24) as u8;
            }
            if let Ok(c) = Container::parse(&bytes, &lax) {
                let _ = c.resource_definitions();
                let _ = c.input_signature();
            }
        }
    }
}
