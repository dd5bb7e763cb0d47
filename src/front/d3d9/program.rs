//! The decoded form of a Direct3D 9 token stream: version, instructions with their parameters,
//! and comment blocks, each with the byte offset it came from.
//!
//! Contract: the model is lossless for what fxc and the D3D9 runtime read (every field of every
//! token the format defines), so that encoding a decoded program gives back its instruction
//! tokens; it borrows comment data from the input (zero-copy) and holds no IR or text concept.
//! Register numbers are the 11-bit field of the parameter token; the register type is the
//! 5-bit type split over bits 28–30 and 11–12, named per stage ([`RegisterType`]).

use super::opcodes::Opcode;

/// The shader stage of a token stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Vertex shader (version token `0xFFFEmmnn`).
    Vertex,
    /// Pixel shader (version token `0xFFFFmmnn`).
    Pixel,
}

/// A shader version: stage, major and minor (`2_x` is minor 1, the software profiles `2_sw`
/// and `3_sw` minor `0xFF`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    /// The stage.
    pub stage: Stage,
    /// Major version (1–3).
    pub major: u8,
    /// Minor version (0–4, 1 for `2_x`, `0xFF` for `_sw`).
    pub minor: u8,
}

impl Version {
    /// The version a version token holds, if it is one (`0xFFFE` vertex / `0xFFFF` pixel in the
    /// high 16 bits).
    pub const fn from_token(token: u32) -> Option<Version> {
        let stage = match token >> 16 {
            0xfffe => Stage::Vertex,
            0xffff => Stage::Pixel,
            _ => return None,
        };
        Some(Version {
            stage,
            major: (token >> 8) as u8,
            minor: token as u8,
        })
    }

    /// The version token.
    pub const fn token(self) -> u32 {
        let high = match self.stage {
            Stage::Vertex => 0xfffe_0000,
            Stage::Pixel => 0xffff_0000,
        };
        high | (self.major as u32) << 8 | self.minor as u32
    }

    /// The key the opcode table's ranges use: `major << 8 | minor`.
    #[inline]
    pub const fn key(self) -> u16 {
        (self.major as u16) << 8 | self.minor as u16
    }

    /// Whether this is a pixel shader.
    #[inline]
    pub const fn is_pixel(self) -> bool {
        matches!(self.stage, Stage::Pixel)
    }

    /// Whether the version is one the D3D9 runtime defines: 1.0–1.4 (vertex shaders 1.0 and
    /// 1.1 only), 2.0, 2.x, 3.0 and the software profiles.
    pub const fn is_known(self) -> bool {
        matches!(
            (self.stage, self.major, self.minor),
            (Stage::Vertex, 1, 0 | 1)
                | (Stage::Pixel, 1, 0..=4)
                | (_, 2, 0 | 1 | 0xff)
                | (_, 3, 0 | 0xff)
        )
    }

    /// Whether instructions carry their length in bits 24–27 (2.0 and later).
    #[inline]
    pub const fn has_length(self) -> bool {
        self.major >= 2
    }

    /// fxc's profile name: `vs_1_1`, `ps_2_x`, `vs_3_sw`.
    pub fn profile(self) -> String {
        let stage = match self.stage {
            Stage::Vertex => "vs",
            Stage::Pixel => "ps",
        };
        match self.minor {
            1 if self.major == 2 => format!("{stage}_2_x"),
            0xff => format!("{stage}_{}_sw", self.major),
            minor => format!("{stage}_{}_{minor}", self.major),
        }
    }
}

/// The register file a parameter names. Numbers 3 and 6 mean different files per stage and
/// version; the decoder names them by what they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegisterType {
    /// `r#` (0).
    Temp,
    /// `v#` (1).
    Input,
    /// `c#` (2).
    Const,
    /// `a0` in vertex shaders (3).
    Address,
    /// `t#` in pixel shaders (3).
    Texture,
    /// `oPos` (0), `oFog` (1), `oPts` (2) (4).
    RastOut,
    /// `oD#` (5).
    AttrOut,
    /// `oT#` before vs_3_0 (6).
    TexCrdOut,
    /// `o#` in vs_3_0 (6).
    Output,
    /// `i#` (7).
    ConstInt,
    /// `oC#` (8).
    ColorOut,
    /// `oDepth` (9).
    DepthOut,
    /// `s#` (10).
    Sampler,
    /// `c2048`–`c4095` (11).
    Const2,
    /// `c4096`–`c6143` (12).
    Const3,
    /// `c6144`–`c8191` (13).
    Const4,
    /// `b#` (14).
    ConstBool,
    /// `aL` (15).
    Loop,
    /// Half-precision temporaries (16; reserved, never emitted by fxc).
    TempFloat16,
    /// `vPos` (0) and `vFace` (1) (17).
    Misc,
    /// `l#` (18).
    Label,
    /// `p0` (19).
    Predicate,
}

impl RegisterType {
    /// The type for the 5-bit number `raw` in a shader of `version`, if it is defined.
    pub const fn from_raw(raw: u32, version: Version) -> Option<RegisterType> {
        Some(match raw {
            0 => RegisterType::Temp,
            1 => RegisterType::Input,
            2 => RegisterType::Const,
            3 if version.is_pixel() => RegisterType::Texture,
            3 => RegisterType::Address,
            4 => RegisterType::RastOut,
            5 => RegisterType::AttrOut,
            6 if !version.is_pixel() && version.major >= 3 => RegisterType::Output,
            6 => RegisterType::TexCrdOut,
            7 => RegisterType::ConstInt,
            8 => RegisterType::ColorOut,
            9 => RegisterType::DepthOut,
            10 => RegisterType::Sampler,
            11 => RegisterType::Const2,
            12 => RegisterType::Const3,
            13 => RegisterType::Const4,
            14 => RegisterType::ConstBool,
            15 => RegisterType::Loop,
            16 => RegisterType::TempFloat16,
            17 => RegisterType::Misc,
            18 => RegisterType::Label,
            19 => RegisterType::Predicate,
            _ => return None,
        })
    }

    /// The 5-bit number of the type.
    pub const fn raw(self) -> u32 {
        match self {
            RegisterType::Temp => 0,
            RegisterType::Input => 1,
            RegisterType::Const => 2,
            RegisterType::Address | RegisterType::Texture => 3,
            RegisterType::RastOut => 4,
            RegisterType::AttrOut => 5,
            RegisterType::TexCrdOut | RegisterType::Output => 6,
            RegisterType::ConstInt => 7,
            RegisterType::ColorOut => 8,
            RegisterType::DepthOut => 9,
            RegisterType::Sampler => 10,
            RegisterType::Const2 => 11,
            RegisterType::Const3 => 12,
            RegisterType::Const4 => 13,
            RegisterType::ConstBool => 14,
            RegisterType::Loop => 15,
            RegisterType::TempFloat16 => 16,
            RegisterType::Misc => 17,
            RegisterType::Label => 18,
            RegisterType::Predicate => 19,
        }
    }
}

/// A source modifier (bits 24–27 of a source token).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SrcModifier {
    /// None (0).
    #[default]
    None,
    /// `-x` (1).
    Negate,
    /// `x_bias`: x − 0.5 (2).
    Bias,
    /// `-x_bias` (3).
    BiasNegate,
    /// `x_bx2`: 2x − 1 (4).
    Sign,
    /// `-x_bx2` (5).
    SignNegate,
    /// `1-x` (6).
    Complement,
    /// `x_x2` (7).
    X2,
    /// `-x_x2` (8).
    X2Negate,
    /// `x_dz`: divide by z (9).
    Dz,
    /// `x_dw`: divide by w (10).
    Dw,
    /// `x_abs` (11).
    Abs,
    /// `-x_abs` (12).
    AbsNegate,
    /// `!x` (13, predicates).
    Not,
}

impl SrcModifier {
    /// The modifier with this 4-bit number.
    pub const fn from_raw(raw: u32) -> Option<SrcModifier> {
        Some(match raw {
            0 => SrcModifier::None,
            1 => SrcModifier::Negate,
            2 => SrcModifier::Bias,
            3 => SrcModifier::BiasNegate,
            4 => SrcModifier::Sign,
            5 => SrcModifier::SignNegate,
            6 => SrcModifier::Complement,
            7 => SrcModifier::X2,
            8 => SrcModifier::X2Negate,
            9 => SrcModifier::Dz,
            10 => SrcModifier::Dw,
            11 => SrcModifier::Abs,
            12 => SrcModifier::AbsNegate,
            13 => SrcModifier::Not,
            _ => return None,
        })
    }

    /// The 4-bit number.
    pub const fn raw(self) -> u32 {
        self as u32
    }
}

/// A relative-address register: `a0.x`, `aL`, or vs_1_1's implicit `a0.x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Relative {
    /// The register (`Address` or `Loop`).
    pub reg: RegisterType,
    /// Its number (0).
    pub num: u32,
    /// The swizzle of the address token (its first component selects).
    pub swizzle: u8,
    /// Whether a relative-address token carried it (false: vs_1_x's implicit `a0.x`).
    pub token: bool,
    /// Byte offset of the relative-address token (of the parameter when implicit).
    pub offset: u32,
}

impl Relative {
    /// The component the address reads (0 = x).
    #[inline]
    pub const fn component(&self) -> u8 {
        self.swizzle & 3
    }
}

/// A destination parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dst {
    /// Register file.
    pub reg: RegisterType,
    /// Register number.
    pub num: u32,
    /// Write mask (bit 0 = x).
    pub mask: u8,
    /// `_sat` (bit 20).
    pub saturate: bool,
    /// `_pp` (bit 21).
    pub partial_precision: bool,
    /// `_centroid` (bit 22).
    pub centroid: bool,
    /// Result shift (bits 24–27, signed: 1 `_x2`, 2 `_x4`, 3 `_x8`, −1 `_d2`, −2 `_d4`,
    /// −3 `_d8`).
    pub shift: i8,
    /// Relative addressing (SM3 output registers).
    pub relative: Option<Relative>,
    /// The token's reserved bits ([`DST_RESERVED_BITS`]) as written (fxc sets bit 14 in some
    /// min-precision level-9 programs), kept so that encoding gives the token back.
    pub reserved: u32,
    /// Byte offset of the parameter token.
    pub offset: u32,
}

/// The bits of a destination token the format reserves: 14, 15 and 23.
pub const DST_RESERVED_BITS: u32 = 0x0080_c000;
/// The bits of a source token the format reserves: 14 and 15.
pub const SRC_RESERVED_BITS: u32 = 0x0000_c000;

/// A source parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Src {
    /// Register file.
    pub reg: RegisterType,
    /// Register number.
    pub num: u32,
    /// Swizzle, two bits per component (x in bits 0–1); `0xE4` is `.xyzw`.
    pub swizzle: u8,
    /// Source modifier.
    pub modifier: SrcModifier,
    /// Relative addressing.
    pub relative: Option<Relative>,
    /// The token's reserved bits ([`SRC_RESERVED_BITS`]) as written, kept so that encoding
    /// gives the token back.
    pub reserved: u32,
    /// Byte offset of the parameter token.
    pub offset: u32,
}

/// The identity swizzle `.xyzw`.
pub const IDENTITY_SWIZZLE: u8 = 0xe4;

impl Default for Src {
    fn default() -> Self {
        Src {
            reg: RegisterType::Temp,
            num: 0,
            swizzle: IDENTITY_SWIZZLE,
            modifier: SrcModifier::None,
            relative: None,
            reserved: 0,
            offset: 0,
        }
    }
}

/// What follows the operands of some instructions: the `dcl` token or `def*` literals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Payload {
    /// Nothing.
    #[default]
    None,
    /// The `dcl` token (usage in bits 0–4, usage index 16–19, sampler texture type 27–30).
    Dcl(DclToken),
    /// `def`: four floats, as bits.
    Float4([u32; 4]),
    /// `defi`: four signed integers.
    Int4([i32; 4]),
    /// `defb`: the boolean dword.
    Bool(u32),
}

/// The `dcl` token, kept whole (bit 31 included) so encoding gives it back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DclToken(pub u32);

impl DclToken {
    /// The usage (bits 0–4): 0 POSITION … 13 SAMPLE.
    #[inline]
    pub const fn usage(self) -> u32 {
        self.0 & 0x1f
    }

    /// The usage index (bits 16–19).
    #[inline]
    pub const fn usage_index(self) -> u32 {
        (self.0 >> 16) & 0xf
    }

    /// A sampler's texture type (bits 27–30): 1 1D, 2 2D, 3 cube, 4 volume; 0 unknown.
    #[inline]
    pub const fn texture_type(self) -> u32 {
        (self.0 >> 27) & 0xf
    }
}

/// Usage names, indexed by usage number.
pub const USAGE_NAMES: [&str; 14] = [
    "position",
    "blendweight",
    "blendindices",
    "normal",
    "psize",
    "texcoord",
    "tangent",
    "binormal",
    "tessfactor",
    "positiont",
    "color",
    "fog",
    "depth",
    "sample",
];

/// At most this many source parameters follow an instruction token (`texldd`).
pub const MAX_SOURCES: usize = 4;

/// One decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// Byte offset of the instruction token.
    pub offset: u32,
    /// The opcode.
    pub opcode: Opcode,
    /// Controls (bits 16–23): a comparison or `texld`'s project/bias mode.
    pub controls: u8,
    /// Predicated (bit 28): a predicate source follows the destination.
    pub predicated: bool,
    /// Co-issued with the previous instruction (bit 30, ps_1_x `+`).
    pub coissue: bool,
    /// The destination, if the layout has one.
    pub dst: Option<Dst>,
    /// The predicate source (`(p0.x)` / `(!p0)`), when predicated.
    pub predicate: Option<Src>,
    /// Source parameters; only the first `src_count` are meaningful.
    pub srcs: [Src; MAX_SOURCES],
    /// How many of `srcs` the instruction has.
    pub src_count: u8,
    /// The `dcl` token or `def*` literals.
    pub payload: Payload,
    /// Number of dwords the instruction occupies, its token included.
    pub dwords: u32,
    /// The length field (bits 24–27) as the stream wrote it (0 before SM2).
    pub length_field: u8,
}

impl Instruction {
    /// The source parameters.
    #[inline]
    pub fn sources(&self) -> &[Src] {
        &self.srcs[..usize::from(self.src_count).min(MAX_SOURCES)]
    }
}

/// A comment block (`0xFFFE` token, data dwords).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comment<'a> {
    /// Byte offset of the comment token.
    pub offset: u32,
    /// Index of the instruction the comment precedes (`instructions.len()` when it is last).
    pub position: u32,
    /// The data dwords' bytes (a FOURCC first, by convention: `CTAB`, `DBUG`, `FXLC`…).
    pub data: &'a [u8],
}

impl Comment<'_> {
    /// The block's FOURCC (its first data dword), when it has one.
    pub fn fourcc(&self) -> Option<[u8; 4]> {
        let bytes = self.data.get(..4)?;
        let mut out = [0; 4];
        out.copy_from_slice(bytes);
        Some(out)
    }
}

/// A decoded Direct3D 9 token stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Program<'a> {
    /// The version token's meaning.
    pub version: Version,
    /// Instructions in stream order (comments and the end token excluded).
    pub instructions: Vec<Instruction>,
    /// Comment blocks in stream order.
    pub comments: Vec<Comment<'a>>,
    /// Byte offset of the end token.
    pub end_offset: u32,
    /// Base offset added to every offset (the program's position in a container).
    pub base_offset: u32,
}

impl Program<'_> {
    /// The first comment block with this FOURCC.
    pub fn comment(&self, fourcc: &[u8; 4]) -> Option<&Comment<'_>> {
        self.comments.iter().find(|c| c.fourcc() == Some(*fourcc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_name_their_profiles() {
        let v = |t| Version::from_token(t).map(|v| v.profile());
        assert_eq!(v(0xfffe_0101).as_deref(), Some("vs_1_1"));
        assert_eq!(v(0xffff_0201).as_deref(), Some("ps_2_x"));
        assert_eq!(v(0xfffe_03ff).as_deref(), Some("vs_3_sw"));
        assert_eq!(v(0x0000_ffff), None);
        let ps14 = Version::from_token(0xffff_0104);
        assert_eq!(ps14.map(|v| v.token()), Some(0xffff_0104));
        assert!(ps14.is_some_and(Version::is_known));
        assert!(!Version::from_token(0xfffe_0104).is_some_and(Version::is_known));
    }

    #[test]
    fn register_types_are_named_per_stage() {
        let vs = Version::from_token(0xfffe_0300).unwrap();
        let ps = Version::from_token(0xffff_0200).unwrap();
        assert_eq!(RegisterType::from_raw(3, vs), Some(RegisterType::Address));
        assert_eq!(RegisterType::from_raw(3, ps), Some(RegisterType::Texture));
        assert_eq!(RegisterType::from_raw(6, vs), Some(RegisterType::Output));
        assert_eq!(RegisterType::from_raw(20, vs), None);
        for raw in 0..20 {
            let t = RegisterType::from_raw(raw, vs).unwrap();
            assert_eq!(t.raw(), raw);
        }
    }
}
