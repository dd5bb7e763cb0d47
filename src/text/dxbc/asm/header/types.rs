//! Variable and member types of fxc's `Buffer Definitions` blocks.
//!
//! Contract: [`parse_type`] turns fxc's spelling of a non-struct type (`float4`,
//! `row_major float3x4`, `interface IFoo`, `uint`) into a [`TypeDef`] with the
//! `D3D_SHADER_VARIABLE_CLASS`/`TYPE` codes and the name fxc stores; struct types are assembled by
//! [`super::buffers`] from their members. An unknown type is an [`crate::text::dxbc::asm::AsmError`] at
//! its field.

use super::{Field, Line};
use crate::text::dxbc::asm::error::Result;

/// A variable's or member's type.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeDef {
    /// `D3D_SHADER_VARIABLE_CLASS` (0 scalar, 1 vector, 2 row-major, 3 column-major matrix,
    /// 5 struct, 7 interface pointer).
    pub class: u16,
    /// `D3D_SHADER_VARIABLE_TYPE` (0 for structs).
    pub base: u16,
    /// Rows.
    pub rows: u16,
    /// Columns (for structs: filled in by [`crate::text::dxbc::asm::chunks`] from the members).
    pub columns: u16,
    /// Array elements (0 = not an array).
    pub elements: u16,
    /// The type's name as fxc stores it in SM5 `RDEF`s: a struct's or interface's name as
    /// printed (`None` for anonymous structs); for other types the canonical spelling (`float4`,
    /// `float4x4` for both matrix majors, `dword` for a scalar `uint`). A `typedef` name fxc
    /// stored instead is not in the listing.
    pub name: Option<String>,
    /// Struct members.
    pub members: Vec<MemberDef>,
}

/// A struct member.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberDef {
    /// Name.
    pub name: String,
    /// Absolute byte offset in the buffer, as fxc prints it.
    pub offset: u32,
    /// Type.
    pub ty: TypeDef,
}

/// Base types by fxc's spelling (`D3D_SHADER_VARIABLE_TYPE`).
const BASE_TYPES: &[(&str, u16)] = &[
    ("void", 0),
    ("bool", 1),
    ("int", 2),
    ("float", 3),
    ("uint", 19),
    ("uint8", 20),
    ("double", 39),
    ("min8float", 52),
    ("min10float", 53),
    ("min16float", 54),
    ("min12int", 55),
    ("min16int", 56),
    ("min16uint", 57),
    ("int16_t", 58),
    ("uint16_t", 59),
    ("float16_t", 60),
    ("int64_t", 61),
    ("uint64_t", 62),
];

/// `D3D_SVT_INTERFACE_POINTER`.
const INTERFACE_POINTER: u16 = 37;

/// fxc's spelling of a non-struct type (`float4`, `row_major float4x4`, `interface IFoo`,
/// `uint`) → its class, base type, rows and columns.
pub(super) fn parse_type(line: &Line<'_>, f: &[Field<'_>]) -> Result<TypeDef> {
    let simple = |class, base, rows, columns, name: Option<&str>| TypeDef {
        class,
        base,
        rows,
        columns,
        elements: 0,
        name: name.map(str::to_string),
        members: Vec::new(),
    };
    match f {
        [kw, name] if kw.text == "interface" => {
            return Ok(simple(7, INTERFACE_POINTER, 1, 4, Some(name.text)));
        }
        [kw, ty] if kw.text == "row_major" => {
            let t = parse_type(line, &[*ty])?;
            if t.class != 3 {
                return Err(line.error(
                    ty.column,
                    format!("expected a matrix type, found '{}'", ty.text),
                ));
            }
            return Ok(TypeDef { class: 2, ..t });
        }
        [ty] => {
            let (name, base) = BASE_TYPES
                .iter()
                .filter(|(n, _)| ty.text.starts_with(n))
                .max_by_key(|(n, _)| n.len())
                .copied()
                .ok_or_else(|| line.error(ty.column, format!("unknown type '{}'", ty.text)))?;
            let dims = &ty.text[name.len()..];
            let dim = |s: &str| s.parse::<u16>().ok().filter(|n| (1..=4).contains(n));
            let bad = || line.error(ty.column, format!("unknown type '{}'", ty.text));
            let stored = if base == 19 && dims.is_empty() {
                "dword"
            } else {
                ty.text
            };
            return match dims.split_once('x') {
                None if dims.is_empty() => Ok(simple(0, base, 1, 1, Some(stored))),
                None => Ok(simple(1, base, 1, dim(dims).ok_or_else(bad)?, Some(stored))),
                Some((r, c)) => Ok(simple(
                    3,
                    base,
                    dim(r).ok_or_else(bad)?,
                    dim(c).ok_or_else(bad)?,
                    Some(stored),
                )),
            };
        }
        _ => {}
    }
    let text: Vec<&str> = f.iter().map(|x| x.text).collect();
    Err(line.error(f[0].column, format!("unknown type '{}'", text.join(" "))))
}
