//! The constant table (`CTAB`) that fxc writes into a Direct3D 9 token stream as a comment block.
//!
//! Contract: [`parse`] reads the data of one comment block (starting with the `CTAB` fourcc),
//! borrowing every string and default value from it. After the fourcc comes the
//! `D3DXSHADER_CONSTANTTABLE` header (28 bytes: size, creator, version, constant count, constant
//! offset, flags, target); every offset inside it is relative to the header's first byte, is
//! bounds-checked, and every string must end with a NUL inside the table and be UTF-8. Counts are
//! checked against the table size before anything is allocated; struct members may nest at most
//! [`MAX_MEMBER_DEPTH`] deep and one table may expand to at most [`MAX_TYPE_NODES`] type entries
//! (types are copied per use), so cyclic or exponentially shared type graphs are errors, not
//! hangs. Every error names the absolute byte offset (`base_offset` + position in `data`) of the
//! field at fault; nothing panics on input.

use std::fmt;

/// The fourcc that starts a constant-table comment block.
pub const CTAB_FOURCC: [u8; 4] = *b"CTAB";
/// Deepest nesting of struct members accepted (a top-level struct's members are at depth 1).
pub const MAX_MEMBER_DEPTH: u32 = 32;
/// Most type entries (constant types and member types, counted per use) accepted in one table.
pub const MAX_TYPE_NODES: u32 = 1 << 16;

/// Bytes of the `D3DXSHADER_CONSTANTTABLE` header.
const HEADER_SIZE: u32 = 28;
/// Bytes of one `D3DXSHADER_CONSTANTINFO` entry.
const CONSTANT_INFO_SIZE: u32 = 20;
/// Bytes of one `D3DXSHADER_TYPEINFO` entry.
const TYPE_INFO_SIZE: u32 = 16;
/// Bytes of one `D3DXSHADER_STRUCTMEMBERINFO` entry.
const MEMBER_INFO_SIZE: u32 = 8;

/// A parsed constant table.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantTable<'a> {
    /// The compiler's name and version, e.g. `Microsoft (R) HLSL Shader Compiler 10.1`.
    pub creator: &'a str,
    /// The version token the table was written for (`0xFFFE0300` for vs_3_0).
    pub version: u32,
    /// The target profile as a string, e.g. `vs_3_0`.
    pub target: &'a str,
    /// Compile flags (`D3DXSHADER_*`), as stored.
    pub flags: u32,
    /// The constants, in table order (fxc sorts them by name).
    pub constants: Vec<Constant<'a>>,
}

/// One constant (`D3DXSHADER_CONSTANTINFO`).
#[derive(Clone, Debug, PartialEq)]
pub struct Constant<'a> {
    /// The HLSL name (level-9 style combined sampler names read `sampler+texture`).
    pub name: &'a str,
    /// The register file it lives in.
    pub register_set: RegisterSet,
    /// First register.
    pub register_index: u16,
    /// Number of registers (fxc leaves out trailing registers the program never reads).
    pub register_count: u16,
    /// The `Reserved` field, as stored (fxc writes non-zero values here).
    pub reserved: u16,
    /// The type.
    pub ty: TypeInfo<'a>,
    /// The default value, when the table has one.
    pub default_value: Option<DefaultValue<'a>>,
}

/// A constant's default value: the bytes of [`DefaultValue::len_for`] at its offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultValue<'a> {
    /// Absolute byte offset of the data in the input.
    pub offset: u32,
    /// The data: little-endian 32-bit values (floats, integers or booleans).
    pub data: &'a [u8],
}

impl DefaultValue<'_> {
    /// How many bytes a default value of `ty` in `set` occupies, as fxc lays it out: bool
    /// constants one 32-bit value per component (`elements × rows × columns × 4`), the other
    /// sets one 16-byte register per row (row-major matrices), column (column-major matrices)
    /// or scalar/vector/object, per element, struct members summed. Saturates instead of
    /// overflowing.
    pub fn len_for(ty: &TypeInfo<'_>, set: RegisterSet) -> u64 {
        let elements = u64::from(ty.elements.max(1));
        let per_element = match ty.class {
            ParameterClass::Struct => ty
                .members
                .iter()
                .fold(0u64, |sum, m| sum.saturating_add(Self::len_for(&m.ty, set))),
            _ if set == RegisterSet::Bool => u64::from(ty.rows) * u64::from(ty.columns) * 4,
            ParameterClass::MatrixColumns => u64::from(ty.columns) * 16,
            ParameterClass::MatrixRows => u64::from(ty.rows) * 16,
            _ => 16,
        };
        elements.saturating_mul(per_element)
    }
}

/// The register file a constant lives in (`D3DXREGISTER_SET`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegisterSet {
    /// `b#` boolean constants.
    Bool,
    /// `i#` integer vector constants.
    Int4,
    /// `c#` float vector constants.
    Float4,
    /// `s#` samplers.
    Sampler,
}

impl RegisterSet {
    /// The register-name prefix fxc prints (`b`, `i`, `c`, `s`).
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Bool => "b",
            Self::Int4 => "i",
            Self::Float4 => "c",
            Self::Sampler => "s",
        }
    }

    fn from_raw(raw: u16) -> Option<Self> {
        Some(match raw {
            0 => Self::Bool,
            1 => Self::Int4,
            2 => Self::Float4,
            3 => Self::Sampler,
            _ => return None,
        })
    }
}

/// A type's class (`D3DXPARAMETER_CLASS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParameterClass {
    /// A scalar.
    Scalar,
    /// A vector (`columns` components).
    Vector,
    /// A row-major matrix (one register per row).
    MatrixRows,
    /// A column-major matrix (one register per column).
    MatrixColumns,
    /// A sampler, texture, string or shader object.
    Object,
    /// A struct (see [`TypeInfo::members`]).
    Struct,
}

impl ParameterClass {
    fn from_raw(raw: u16) -> Option<Self> {
        Some(match raw {
            0 => Self::Scalar,
            1 => Self::Vector,
            2 => Self::MatrixRows,
            3 => Self::MatrixColumns,
            4 => Self::Object,
            5 => Self::Struct,
            _ => return None,
        })
    }
}

/// A type's base type (`D3DXPARAMETER_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParameterType {
    /// `void` (structs).
    Void,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `float`.
    Float,
    /// `string`.
    String,
    /// `texture`.
    Texture,
    /// `texture1D`.
    Texture1D,
    /// `texture2D`.
    Texture2D,
    /// `texture3D`.
    Texture3D,
    /// `textureCUBE`.
    TextureCube,
    /// `sampler`.
    Sampler,
    /// `sampler1D`.
    Sampler1D,
    /// `sampler2D`.
    Sampler2D,
    /// `sampler3D`.
    Sampler3D,
    /// `samplerCUBE`.
    SamplerCube,
    /// `pixelshader`.
    PixelShader,
    /// `vertexshader`.
    VertexShader,
    /// A pixel shader fragment.
    PixelFragment,
    /// A vertex shader fragment.
    VertexFragment,
    /// A type D3DX does not support.
    Unsupported,
}

impl ParameterType {
    fn from_raw(raw: u16) -> Option<Self> {
        use ParameterType::*;
        const ALL: [ParameterType; 20] = [
            Void,
            Bool,
            Int,
            Float,
            String,
            Texture,
            Texture1D,
            Texture2D,
            Texture3D,
            TextureCube,
            Sampler,
            Sampler1D,
            Sampler2D,
            Sampler3D,
            SamplerCube,
            PixelShader,
            VertexShader,
            PixelFragment,
            VertexFragment,
            Unsupported,
        ];
        ALL.get(usize::from(raw)).copied()
    }
}

/// A type (`D3DXSHADER_TYPEINFO`), with its struct members resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeInfo<'a> {
    /// The class.
    pub class: ParameterClass,
    /// The base type.
    pub ty: ParameterType,
    /// Rows (1 for scalars and vectors).
    pub rows: u16,
    /// Columns (vector width; for structs, the struct's size in components).
    pub columns: u16,
    /// Array elements (1 when not an array).
    pub elements: u16,
    /// Struct members, in declaration order (empty unless the class is `Struct`).
    pub members: Vec<StructMember<'a>>,
}

/// One member of a struct type (`D3DXSHADER_STRUCTMEMBERINFO`).
#[derive(Clone, Debug, PartialEq)]
pub struct StructMember<'a> {
    /// The member's name.
    pub name: &'a str,
    /// The member's type.
    pub ty: TypeInfo<'a>,
}

/// A constant table that could not be parsed, with the absolute byte offset of the fault.
///
/// Displays as `at 0x<offset> (CTAB): <kind>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at {offset:#x} (CTAB): {kind}")]
pub struct CtabError {
    /// Absolute byte offset in the input of the field at fault.
    pub offset: u32,
    /// What went wrong.
    pub kind: CtabErrorKind,
}

/// What is wrong with a constant table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CtabErrorKind {
    /// The data does not start with the `CTAB` fourcc.
    #[error("comment does not start with the CTAB fourcc (found {found:02x?})")]
    NotCtab {
        /// The first bytes of the comment (at most four).
        found: Vec<u8>,
    },
    /// A structure runs past the end of the table.
    #[error("{what} needs {needed} bytes but only {available} remain in the table")]
    Truncated {
        /// The structure.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left from its start to the end of the table.
        available: u64,
    },
    /// The header's size field is not 28.
    #[error("header size {0} is not 28")]
    HeaderSize(u32),
    /// An offset field points past the end of the table.
    #[error("{what} offset {value:#x} is past the end of the table ({size} bytes)")]
    OffsetPastEnd {
        /// The field.
        what: &'static str,
        /// Its value (relative to the table header).
        value: u32,
        /// The table's size in bytes (from the header on).
        size: u32,
    },
    /// A string has no NUL before the end of the table.
    #[error("{what} is not NUL-terminated before the end of the table")]
    UnterminatedString {
        /// Which string.
        what: &'static str,
    },
    /// A string is not UTF-8.
    #[error("{what} is not valid UTF-8")]
    InvalidUtf8 {
        /// Which string.
        what: &'static str,
    },
    /// A field holds a value outside its enumeration.
    #[error("invalid {what} {value}")]
    InvalidEnum {
        /// The field (`register set`, `parameter class`, `parameter type`).
        what: &'static str,
        /// Its value.
        value: u16,
    },
    /// A struct type has no members, or a non-struct type has some.
    #[error("{class:?} type with {count} struct members")]
    MemberMismatch {
        /// The type's class.
        class: ParameterClass,
        /// Its member count.
        count: u16,
    },
    /// Struct members nest deeper than [`MAX_MEMBER_DEPTH`].
    #[error("struct members nested deeper than {limit} levels")]
    TooDeep {
        /// The limit.
        limit: u32,
    },
    /// The types expand to more than [`MAX_TYPE_NODES`] entries.
    #[error("types expand to more than {limit} entries")]
    TooManyTypes {
        /// The limit.
        limit: u32,
    },
}

/// The program's constant table: its first comment block whose data starts with `CTAB`,
/// parsed; `None` when it has none.
pub fn of_program<'a>(
    program: &super::program::Program<'a>,
) -> Option<Result<ConstantTable<'a>, CtabError>> {
    let comment = program
        .comments
        .iter()
        .find(|c| c.data.starts_with(&CTAB_FOURCC[..]))?;
    Some(parse(comment.data, comment.offset.saturating_add(4)))
}

/// Parses a constant table from a comment block's `data` (starting with the `CTAB` fourcc);
/// `base_offset` is the absolute byte offset of `data` in the input, used in errors and in
/// [`DefaultValue::offset`].
pub fn parse(data: &[u8], base_offset: u32) -> Result<ConstantTable<'_>, CtabError> {
    let Some(table) = data.strip_prefix(&CTAB_FOURCC[..]) else {
        return Err(CtabError {
            offset: base_offset,
            kind: CtabErrorKind::NotCtab {
                found: data.iter().take(4).copied().collect(),
            },
        });
    };
    let r = Reader {
        table,
        base: base_offset.saturating_add(4),
        size: u32::try_from(table.len()).unwrap_or(u32::MAX),
    };
    r.need(0, u64::from(HEADER_SIZE), "header")?;
    let size = r.u32(0)?;
    if size != HEADER_SIZE {
        return Err(r.err(0, CtabErrorKind::HeaderSize(size)));
    }
    let creator = r.string(r.u32(4)?, 4, "creator string")?;
    let version = r.u32(8)?;
    let count = r.u32(12)?;
    let constants_at = r.offset(r.u32(16)?, 16, "constant info")?;
    let flags = r.u32(20)?;
    let target = r.string(r.u32(24)?, 24, "target string")?;
    r.need(
        constants_at,
        u64::from(count) * u64::from(CONSTANT_INFO_SIZE),
        "constant info array",
    )?;
    let mut budget = MAX_TYPE_NODES;
    let mut constants = Vec::with_capacity(count as usize);
    for i in 0..count {
        let at = constants_at + i * CONSTANT_INFO_SIZE;
        constants.push(r.constant(at, &mut budget)?);
    }
    Ok(ConstantTable {
        creator,
        version,
        target,
        flags,
        constants,
    })
}

/// Bounds-checked reads from the table (positions relative to the header's first byte).
struct Reader<'a> {
    table: &'a [u8],
    /// Absolute offset of `table[0]`.
    base: u32,
    size: u32,
}

impl<'a> Reader<'a> {
    fn err(&self, at: u32, kind: CtabErrorKind) -> CtabError {
        CtabError {
            offset: self.base.saturating_add(at),
            kind,
        }
    }

    /// Checks that `len` bytes starting at `at` lie inside the table.
    fn need(&self, at: u32, len: u64, what: &'static str) -> Result<(), CtabError> {
        let available = u64::from(self.size.saturating_sub(at));
        if len > available {
            return Err(self.err(
                at,
                CtabErrorKind::Truncated {
                    what,
                    needed: len,
                    available,
                },
            ));
        }
        Ok(())
    }

    fn u16(&self, at: u32) -> Result<u16, CtabError> {
        self.need(at, 2, "16-bit field")?;
        let i = at as usize;
        match self.table.get(i..i + 2) {
            Some(&[a, b]) => Ok(u16::from_le_bytes([a, b])),
            _ => Err(self.err(at, truncated("16-bit field", 2))),
        }
    }

    fn u32(&self, at: u32) -> Result<u32, CtabError> {
        self.need(at, 4, "32-bit field")?;
        let i = at as usize;
        match self.table.get(i..i + 4) {
            Some(&[a, b, c, d]) => Ok(u32::from_le_bytes([a, b, c, d])),
            _ => Err(self.err(at, truncated("32-bit field", 4))),
        }
    }

    /// Checks an offset field's value (read at `field`) lies inside the table.
    fn offset(&self, value: u32, field: u32, what: &'static str) -> Result<u32, CtabError> {
        if value >= self.size {
            return Err(self.err(
                field,
                CtabErrorKind::OffsetPastEnd {
                    what,
                    value,
                    size: self.size,
                },
            ));
        }
        Ok(value)
    }

    /// The NUL-terminated string at offset `value` (read from the field at `field`).
    fn string(&self, value: u32, field: u32, what: &'static str) -> Result<&'a str, CtabError> {
        let at = self.offset(value, field, what)?;
        let rest = self.table.get(at as usize..).unwrap_or_default();
        let Some(len) = rest.iter().position(|&b| b == 0) else {
            return Err(self.err(at, CtabErrorKind::UnterminatedString { what }));
        };
        std::str::from_utf8(rest.get(..len).unwrap_or_default())
            .map_err(|_| self.err(at, CtabErrorKind::InvalidUtf8 { what }))
    }

    fn constant(&self, at: u32, budget: &mut u32) -> Result<Constant<'a>, CtabError> {
        let name = self.string(self.u32(at)?, at, "constant name")?;
        let raw_set = self.u16(at + 4)?;
        let register_set = RegisterSet::from_raw(raw_set).ok_or_else(|| {
            self.err(
                at + 4,
                CtabErrorKind::InvalidEnum {
                    what: "register set",
                    value: raw_set,
                },
            )
        })?;
        let register_index = self.u16(at + 6)?;
        let register_count = self.u16(at + 8)?;
        let reserved = self.u16(at + 10)?;
        let type_at = self.offset(self.u32(at + 12)?, at + 12, "type info")?;
        let ty = self.type_info(type_at, 0, budget)?;
        let default_at = self.u32(at + 16)?;
        let default_value = if default_at == 0 {
            None
        } else {
            let start = self.offset(default_at, at + 16, "default value")?;
            let len = DefaultValue::len_for(&ty, register_set);
            self.need(start, len, "default value")?;
            let data = self
                .table
                .get(start as usize..start as usize + len as usize)
                .unwrap_or_default();
            Some(DefaultValue {
                offset: self.base.saturating_add(start),
                data,
            })
        };
        Ok(Constant {
            name,
            register_set,
            register_index,
            register_count,
            reserved,
            ty,
            default_value,
        })
    }

    fn type_info(&self, at: u32, depth: u32, budget: &mut u32) -> Result<TypeInfo<'a>, CtabError> {
        if depth > MAX_MEMBER_DEPTH {
            return Err(self.err(
                at,
                CtabErrorKind::TooDeep {
                    limit: MAX_MEMBER_DEPTH,
                },
            ));
        }
        if *budget == 0 {
            return Err(self.err(
                at,
                CtabErrorKind::TooManyTypes {
                    limit: MAX_TYPE_NODES,
                },
            ));
        }
        *budget -= 1;
        self.need(at, u64::from(TYPE_INFO_SIZE), "type info")?;
        let raw_class = self.u16(at)?;
        let class = ParameterClass::from_raw(raw_class).ok_or_else(|| {
            self.err(
                at,
                CtabErrorKind::InvalidEnum {
                    what: "parameter class",
                    value: raw_class,
                },
            )
        })?;
        let raw_type = self.u16(at + 2)?;
        let ty = ParameterType::from_raw(raw_type).ok_or_else(|| {
            self.err(
                at + 2,
                CtabErrorKind::InvalidEnum {
                    what: "parameter type",
                    value: raw_type,
                },
            )
        })?;
        let rows = self.u16(at + 4)?;
        let columns = self.u16(at + 6)?;
        let elements = self.u16(at + 8)?;
        let member_count = self.u16(at + 10)?;
        if (class == ParameterClass::Struct) != (member_count > 0) {
            return Err(self.err(
                at + 10,
                CtabErrorKind::MemberMismatch {
                    class,
                    count: member_count,
                },
            ));
        }
        let mut members = Vec::new();
        if member_count > 0 {
            let members_at = self.offset(self.u32(at + 12)?, at + 12, "struct member info")?;
            self.need(
                members_at,
                u64::from(member_count) * u64::from(MEMBER_INFO_SIZE),
                "struct member info array",
            )?;
            members.reserve(usize::from(member_count));
            for i in 0..u32::from(member_count) {
                let m = members_at + i * MEMBER_INFO_SIZE;
                let name = self.string(self.u32(m)?, m, "member name")?;
                let member_type = self.offset(self.u32(m + 4)?, m + 4, "member type info")?;
                let ty = self.type_info(member_type, depth + 1, budget)?;
                members.push(StructMember { name, ty });
            }
        }
        Ok(TypeInfo {
            class,
            ty,
            rows,
            columns,
            elements,
            members,
        })
    }
}

fn truncated(what: &'static str, needed: u64) -> CtabErrorKind {
    CtabErrorKind::Truncated {
        what,
        needed,
        available: 0,
    }
}

impl fmt::Display for RegisterSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.prefix())
    }
}

#[cfg(test)]
#[path = "ctab_tests.rs"]
mod tests;
