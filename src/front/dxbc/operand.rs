//! Operands: register type, component selection, modifiers, up to three indices (immediate,
//! relative or both) and immediate values, decoded without heap allocation.
//!
//! Spec: "Instruction Operand Format" and "Extended Instruction Operand Format" in the D3D
//! tokenized program format headers.

use super::error::{DecodeErrorKind, Result};
use super::reader::Reader;
use super::token::{ExtOperandToken, OperandToken};

macro_rules! register_types {
    ($($num:literal $variant:ident $prefix:literal;)*) => {
        /// Register files and special registers an operand can name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
        #[repr(u8)]
        pub enum RegisterType {
            $(
                #[doc = concat!("`", $prefix, "`")]
                $variant = $num,
            )*
            /// Placeholder for an absent operand; never decoded.
            #[default]
            Invalid = 0xff,
        }

        impl RegisterType {
            /// The register type with this number, if defined.
            pub fn from_u32(value: u32) -> Option<Self> {
                match value {
                    $($num => Some(Self::$variant),)*
                    _ => None,
                }
            }

            /// fxc's register prefix (SM4.0–5.0 spelling).
            pub fn prefix(self) -> &'static str {
                match self {
                    $(Self::$variant => $prefix,)*
                    Self::Invalid => "?",
                }
            }
        }
    };
}

register_types! {
    0 Temp "r";
    1 Input "v";
    2 Output "o";
    3 IndexableTemp "x";
    4 Immediate32 "l";
    5 Immediate64 "d";
    6 Sampler "s";
    7 Resource "t";
    8 ConstantBuffer "cb";
    9 ImmediateConstantBuffer "icb";
    10 Label "l";
    11 InputPrimitiveId "vPrim";
    12 OutputDepth "oDepth";
    13 Null "null";
    14 Rasterizer "rasterizer";
    15 OutputCoverageMask "oMask";
    16 Stream "m";
    17 FunctionBody "fb";
    18 FunctionTable "ft";
    19 Interface "fp";
    20 FunctionInput "fi";
    21 FunctionOutput "fo";
    22 OutputControlPointId "vOutputControlPointID";
    23 InputForkInstanceId "vForkInstanceID";
    24 InputJoinInstanceId "vJoinInstanceID";
    25 InputControlPoint "vicp";
    26 OutputControlPoint "vocp";
    27 InputPatchConstant "vpc";
    28 InputDomainPoint "vDomain";
    29 ThisPointer "this";
    30 UnorderedAccessView "u";
    31 ThreadGroupSharedMemory "g";
    32 InputThreadId "vThreadID";
    33 InputThreadGroupId "vThreadGroupID";
    34 InputThreadIdInGroup "vThreadIDInGroup";
    35 InputCoverageMask "vCoverage";
    36 InputThreadIdInGroupFlattened "vThreadIDInGroupFlattened";
    37 InputGsInstanceId "vGSInstanceID";
    38 OutputDepthGreaterEqual "oDepthGE";
    39 OutputDepthLessEqual "oDepthLE";
    40 CycleCounter "vCycleCounter";
    41 OutputStencilRef "oStencilRef";
    42 InnerCoverage "vInnerCoverage";
}

/// How an operand selects components of a 4-vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Components {
    /// No components (e.g. samplers in SM4, labels).
    #[default]
    Zero,
    /// A scalar.
    One,
    /// A write mask (bit 0 = x); destinations.
    Mask(u8),
    /// A swizzle: source component for x, y, z, w.
    Swizzle([u8; 4]),
    /// One component, replicated.
    Select1(u8),
    /// N components (defined by the format but never used).
    N,
}

/// Source modifier from the extended operand token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Modifier {
    /// None.
    #[default]
    None,
    /// `-x`
    Neg,
    /// `|x|`
    Abs,
    /// `-|x|`
    AbsNeg,
}

/// How one index of an operand is represented.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum IndexRepr {
    /// A 32-bit immediate.
    #[default]
    Imm32,
    /// A 64-bit immediate (hi:lo).
    Imm64,
    /// A register (relative addressing) only.
    Relative,
    /// A 32-bit immediate plus a register.
    Imm32Relative,
    /// A 64-bit immediate plus a register.
    Imm64Relative,
}

/// The register part of a relative index (`r1.x` in `x0[r1.x + 2]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RelativeRegister {
    /// Byte offset of its operand token.
    pub offset: u32,
    /// Its operand token.
    pub token: OperandToken,
    /// Its extended operand token, or 0.
    pub ext: ExtOperandToken,
    /// Register type.
    pub ty: RegisterType,
    /// Number of immediate indices (0–2).
    pub index_count: u8,
    /// The immediate indices.
    pub indices: [u32; 2],
    /// The selected component (0–3).
    pub component: u8,
}

/// One index of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Index {
    /// Representation in the token stream.
    pub repr: IndexRepr,
    /// Immediate part (0 when purely relative).
    pub imm: u64,
    /// Register part, for relative representations.
    pub rel: Option<RelativeRegister>,
}

/// A decoded operand. `Copy`, no heap. Equality compares the meaningful indices only.
#[derive(Clone, Copy, Debug, Eq, Default)]
pub struct Operand {
    /// Byte offset of the operand token in the input.
    pub offset: u32,
    /// The operand token as stored.
    pub token: OperandToken,
    /// The first extended operand token, or 0.
    pub ext: ExtOperandToken,
    /// Register type.
    pub ty: RegisterType,
    /// Component selection.
    pub components: Components,
    /// Source modifier.
    pub modifier: Modifier,
    /// Minimum precision (0 default, 1 f16, 2 f2.8, 4 i16, 5 u16).
    pub min_precision: u8,
    /// SM5.1 `nonuniform` index.
    pub nonuniform: bool,
    /// Number of indices (0–3).
    pub index_count: u8,
    /// The indices; only the first `index_count` are meaningful.
    pub indices: [Index; 3],
    /// Immediate values (`l(...)`: up to 4 dwords; `d(...)`: 2 doubles as lo/hi dword pairs).
    pub imm: [u32; 4],
}

impl PartialEq for Operand {
    fn eq(&self, other: &Operand) -> bool {
        self.offset == other.offset
            && self.token == other.token
            && self.ext == other.ext
            && self.ty == other.ty
            && self.components == other.components
            && self.modifier == other.modifier
            && self.min_precision == other.min_precision
            && self.nonuniform == other.nonuniform
            && self.indices() == other.indices()
            && self.imm == other.imm
    }
}

impl Operand {
    /// The meaningful indices.
    pub fn indices(&self) -> &[Index] {
        &self.indices[..self.index_count as usize]
    }

    /// Number of immediate dwords (for `l(...)`/`d(...)` operands).
    pub fn imm_count(&self) -> usize {
        let n = match self.components {
            Components::Zero => 0,
            Components::One => 1,
            _ => 4,
        };
        match self.ty {
            RegisterType::Immediate32 => n,
            RegisterType::Immediate64 => n * 2,
            _ => 0,
        }
        .min(4)
    }

    /// Decodes one operand at the reader's position.
    pub fn decode(r: &mut Reader<'_>) -> Result<Operand> {
        let mut op = Operand::default();
        op.decode_into(r)?;
        Ok(op)
    }

    /// [`Operand::decode`] into `self`, overwriting every field (the decoder fills the operand
    /// arrays of one reused instruction this way, without moving operands).
    pub fn decode_into(&mut self, r: &mut Reader<'_>) -> Result<()> {
        let offset = r.offset();
        let token = OperandToken(r.read_u32()?);
        // Every field but the indices past `index_count` (never read, and left out of
        // equality): writing the whole 160-byte operand per operand is measurable.
        let op = self;
        op.offset = offset;
        op.token = token;
        op.ext = ExtOperandToken::default();
        op.ty = RegisterType::default();
        op.components = Components::default();
        op.modifier = Modifier::None;
        op.min_precision = 0;
        op.nonuniform = false;
        op.index_count = 0;
        op.imm = [0; 4];
        op.ty = RegisterType::from_u32(token.register_type()).ok_or_else(|| {
            super::DecodeError::new(
                offset,
                DecodeErrorKind::InvalidValue {
                    what: "register type",
                    value: token.register_type(),
                },
            )
        })?;
        op.components = decode_components(token, offset)?;
        if token.extended() {
            let ext_offset = r.offset();
            let ext = read_extensions(r)?;
            op.ext = ext;
            if ext.kind() == 1 {
                op.modifier = match ext.modifier() {
                    0 => Modifier::None,
                    1 => Modifier::Neg,
                    2 => Modifier::Abs,
                    3 => Modifier::AbsNeg,
                    value => {
                        return Err(super::DecodeError::new(
                            ext_offset,
                            DecodeErrorKind::InvalidValue {
                                what: "operand modifier",
                                value,
                            },
                        ))
                    }
                };
                op.min_precision = ext.min_precision() as u8;
                op.nonuniform = ext.nonuniform();
            }
        }
        let dims = token.index_dimension();
        if matches!(op.ty, RegisterType::Immediate32 | RegisterType::Immediate64) {
            if dims != 0 {
                return Err(super::DecodeError::new(
                    offset,
                    DecodeErrorKind::Malformed("immediate operand with indices"),
                ));
            }
            if matches!(op.components, Components::N) {
                return Err(super::DecodeError::new(
                    offset,
                    DecodeErrorKind::Malformed("N-component immediate"),
                ));
            }
            for i in 0..op.imm_count() {
                op.imm[i] = r.read_u32()?;
            }
            return Ok(());
        }
        op.index_count = dims as u8;
        for i in 0..dims {
            let repr = token.index_representation(i);
            decode_index_into(r, repr, offset, &mut op.indices[i as usize])?;
        }
        Ok(())
    }
}

fn decode_components(token: OperandToken, offset: u32) -> Result<Components> {
    Ok(match token.num_components() {
        0 => Components::Zero,
        1 => Components::One,
        2 => {
            let sel = token.selection();
            match token.selection_mode() {
                0 => Components::Mask((sel & 0xf) as u8),
                1 => Components::Swizzle([
                    (sel & 3) as u8,
                    ((sel >> 2) & 3) as u8,
                    ((sel >> 4) & 3) as u8,
                    ((sel >> 6) & 3) as u8,
                ]),
                2 => Components::Select1((sel & 3) as u8),
                value => {
                    return Err(super::DecodeError::new(
                        offset,
                        DecodeErrorKind::InvalidValue {
                            what: "component selection mode",
                            value,
                        },
                    ))
                }
            }
        }
        _ => Components::N,
    })
}

/// Reads the chain of extended operand tokens; returns the first (the only one defined).
fn read_extensions(r: &mut Reader<'_>) -> Result<ExtOperandToken> {
    let first = ExtOperandToken(r.read_u32()?);
    let mut cur = first;
    // Each further token costs a dword, so the chain is bounded by the instruction length.
    while cur.extended() {
        cur = ExtOperandToken(r.read_u32()?);
    }
    Ok(first)
}

/// Decodes one index into `out`, field by field: building an [`Index`] and copying it would
/// go through memory in pieces the processor cannot forward (this is the decoder's hottest
/// loop).
fn decode_index_into(
    r: &mut Reader<'_>,
    repr: u32,
    token_offset: u32,
    out: &mut Index,
) -> Result<()> {
    let read_imm64 = |r: &mut Reader<'_>| -> Result<u64> {
        let hi = r.read_u32()? as u64;
        let lo = r.read_u32()? as u64;
        Ok((hi << 32) | lo)
    };
    let (repr, imm, relative) = match repr {
        0 => (IndexRepr::Imm32, r.read_u32()? as u64, false),
        1 => (IndexRepr::Imm64, read_imm64(r)?, false),
        2 => (IndexRepr::Relative, 0, true),
        3 => (IndexRepr::Imm32Relative, r.read_u32()? as u64, true),
        4 => (IndexRepr::Imm64Relative, read_imm64(r)?, true),
        value => {
            return Err(super::DecodeError::new(
                token_offset,
                DecodeErrorKind::InvalidValue {
                    what: "index representation",
                    value,
                },
            ))
        }
    };
    out.repr = repr;
    out.imm = imm;
    out.rel = if relative {
        Some(decode_relative(r)?)
    } else {
        None
    };
    Ok(())
}

/// Decodes the register of a relative index: a scalar operand with at most two immediate
/// indices. Relative addressing inside a relative index is rejected.
fn decode_relative(r: &mut Reader<'_>) -> Result<RelativeRegister> {
    let offset = r.offset();
    let token = OperandToken(r.read_u32()?);
    let ty = RegisterType::from_u32(token.register_type()).ok_or_else(|| {
        super::DecodeError::new(
            offset,
            DecodeErrorKind::InvalidValue {
                what: "register type",
                value: token.register_type(),
            },
        )
    })?;
    let ext = if token.extended() {
        read_extensions(r)?
    } else {
        ExtOperandToken(0)
    };
    let component = match decode_components(token, offset)? {
        Components::Select1(c) => c,
        Components::Swizzle(s) => s[0],
        Components::Mask(m) => m.trailing_zeros().min(3) as u8,
        Components::One | Components::Zero | Components::N => 0,
    };
    let dims = token.index_dimension();
    if dims > 2 {
        return Err(super::DecodeError::new(
            offset,
            DecodeErrorKind::Malformed("relative index register with more than two indices"),
        ));
    }
    let mut indices = [0u32; 2];
    for (i, slot) in indices.iter_mut().enumerate().take(dims as usize) {
        if token.index_representation(i as u32) != 0 {
            return Err(super::DecodeError::new(
                offset,
                DecodeErrorKind::Malformed("nested relative addressing"),
            ));
        }
        *slot = r.read_u32()?;
    }
    Ok(RelativeRegister {
        offset,
        token,
        ext,
        ty,
        index_count: dims as u8,
        indices,
        component,
    })
}
