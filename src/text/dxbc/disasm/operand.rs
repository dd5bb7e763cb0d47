//! Operand formatting in fxc's syntax: registers, indices, component selection, modifiers,
//! minimum precision and `l(...)`/`d(...)` immediates.

use std::fmt::Write;

use super::Flavor;
use crate::front::dxbc::names::{self, COMPONENTS};
use crate::front::dxbc::opcodes::NumType;
use crate::front::dxbc::operand::{
    Components, Index, Modifier, Operand, RegisterType, RelativeRegister,
};

/// How an operand is being printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Style {
    /// How immediates are interpreted.
    pub num: NumType,
    /// Shader model 5.1 spellings (`T0`, `CB0[0][1]`).
    pub sm51: bool,
    /// Which fxc release's spellings.
    pub dialect: Flavor,
    /// Spaces after commas inside `l(...)` even for untyped values.
    pub spaced: bool,
}

/// The register prefix for an operand of type `ty`.
pub(super) fn prefix(ty: RegisterType, sm51: bool) -> &'static str {
    if sm51 {
        match ty {
            RegisterType::ConstantBuffer => return "CB",
            RegisterType::Resource => return "T",
            RegisterType::Sampler => return "S",
            RegisterType::UnorderedAccessView => return "U",
            _ => {}
        }
    }
    ty.prefix()
}

/// Register types whose first index is printed in brackets (`v[0][1]`, `vicp[4][0]`, `icb[3]`).
fn bracketed_first_index(ty: RegisterType, index_count: u8) -> bool {
    match ty {
        RegisterType::ImmediateConstantBuffer | RegisterType::ThisPointer => true,
        RegisterType::Input
        | RegisterType::Output
        | RegisterType::InputControlPoint
        | RegisterType::OutputControlPoint
        | RegisterType::InputPatchConstant => index_count >= 2,
        _ => false,
    }
}

/// Writes a whole operand.
pub(super) fn write_operand(
    out: &mut String,
    op: &Operand,
    style: Style,
    inst_precision: Option<u8>,
) {
    let (pre, post) = match op.modifier {
        Modifier::None => ("", ""),
        Modifier::Neg => ("-", ""),
        Modifier::Abs => ("|", "|"),
        Modifier::AbsNeg => ("-|", "|"),
    };
    out.push_str(pre);
    match op.ty {
        RegisterType::Immediate32 => write_imm32(out, op, style),
        RegisterType::Immediate64 => write_imm64(out, op, style),
        _ => {
            write_register(out, op, style.sm51);
            write_components(out, op.components);
        }
    }
    out.push_str(post);
    if op.nonuniform {
        // No fxc listing in the corpus shows SM5.1's non-uniform flag; we print it in the brace
        // style fxc uses for minimum precision so that the assembler can read it back.
        out.push_str(" {nonuniform}");
    }
    write_precision(out, op.min_precision, inst_precision);
}

/// Writes ` {min16f}`, or ` {def32 as min16f}` for a source whose precision differs from the
/// instruction's (`inst`, given only where fxc shows conversions).
fn write_precision(out: &mut String, own: u8, inst: Option<u8>) {
    let name = |p: u8| names::lookup(names::MIN_PRECISIONS, p as u32).unwrap_or("?");
    let inst = inst.unwrap_or(own);
    if own == inst {
        if own != 0 {
            let _ = write!(out, " {{{}}}", name(own));
        }
    } else {
        let _ = write!(out, " {{{} as {}}}", name(own), name(inst));
    }
}

/// Writes the register name and its indices (no components).
pub(super) fn write_register(out: &mut String, op: &Operand, sm51: bool) {
    let pre = prefix(op.ty, sm51);
    out.push_str(pre);
    let indices = op.indices();
    let mut rest = indices;
    if let Some(first) = indices.first() {
        let bracket = bracketed_first_index(op.ty, op.index_count) || first.rel.is_some();
        if !bracket {
            let _ = write!(out, "{}", first.imm);
            rest = &indices[1..];
        }
    }
    for index in rest {
        out.push('[');
        write_index(out, index, sm51);
        out.push(']');
    }
}

fn write_index(out: &mut String, index: &Index, sm51: bool) {
    match &index.rel {
        Some(rel) => {
            write_relative(out, rel, sm51);
            let _ = write!(out, " + {}", index.imm);
        }
        None => {
            let _ = write!(out, "{}", index.imm);
        }
    }
}

fn write_relative(out: &mut String, rel: &RelativeRegister, sm51: bool) {
    out.push_str(prefix(rel.ty, sm51));
    let indices = &rel.indices[..rel.index_count as usize];
    if let Some((first, rest)) = indices.split_first() {
        if bracketed_first_index(rel.ty, rel.index_count) {
            let _ = write!(out, "[{first}]");
        } else {
            let _ = write!(out, "{first}");
        }
        for i in rest {
            let _ = write!(out, "[{i}]");
        }
    }
    if rel.token.num_components() == 2 {
        out.push('.');
        out.push(COMPONENTS[rel.component as usize & 3]);
    }
}

/// Writes `.xyzw`-style component selection.
pub(super) fn write_components(out: &mut String, components: Components) {
    match components {
        Components::Mask(mask) => {
            if mask != 0 {
                out.push('.');
                for (i, c) in COMPONENTS.iter().enumerate() {
                    if mask & (1 << i) != 0 {
                        out.push(*c);
                    }
                }
            }
        }
        Components::Swizzle(s) => {
            out.push('.');
            for c in s {
                out.push(COMPONENTS[c as usize & 3]);
            }
        }
        Components::Select1(c) => {
            out.push('.');
            out.push(COMPONENTS[c as usize & 3]);
        }
        Components::Zero | Components::One | Components::N => {}
    }
}

/// Formats a float as MSVC's `printf("%f")` does: six decimals, ties rounded away from zero,
/// and no more than 17 significant digits (the rest printed as zeros).
pub(super) fn write_float(out: &mut String, value: f32, dialect: Flavor) {
    let start = out.len();
    write_float_text(out, value, dialect);
    if dialect.lossless && !crate::front::dxbc::literal::f32_round_trips(value, &out[start..]) {
        out.truncate(start);
        let _ = write!(out, "0x{:08x}", value.to_bits());
    }
}

fn write_float_text(out: &mut String, value: f32, dialect: Flavor) {
    out.push_str(&crate::front::dxbc::literal::format_f32(
        value,
        dialect.ucrt_floats(),
    ));
}

/// Formats an integer the way fxc does: small values in decimal, others as `0x%08x`.
pub(super) fn write_int(out: &mut String, value: u32, signed: bool) {
    let as_signed = value as i32;
    if signed && (-10000..=10000).contains(&as_signed) {
        let _ = write!(out, "{as_signed}");
    } else if !signed && value <= 10000 {
        let _ = write!(out, "{value}");
    } else {
        let _ = write!(out, "0x{value:08x}");
    }
}

/// Formats one dword of an untyped immediate: a normal float as a float, else as an integer.
pub(super) fn write_untyped(out: &mut String, value: u32, dialect: Flavor) {
    let exponent = (value >> 23) & 0xff;
    if (exponent != 0 && exponent != 0xff) || value == 0x8000_0000 {
        write_float(out, f32::from_bits(value), dialect);
    } else {
        write_int(out, value, true);
    }
}

fn write_imm32(out: &mut String, op: &Operand, style: Style) {
    out.push_str("l(");
    let count = op.imm_count();
    let sep = if style.num == NumType::Untyped && !style.spaced {
        ","
    } else {
        ", "
    };
    for (i, &value) in op.imm[..count].iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        match style.num {
            NumType::Float | NumType::Double => {
                write_float(out, f32::from_bits(value), style.dialect)
            }
            NumType::Int => write_int(out, value, true),
            NumType::Uint => write_int(out, value, true),
            NumType::Untyped => write_untyped(out, value, style.dialect),
        }
    }
    out.push(')');
}

fn write_imm64(out: &mut String, op: &Operand, style: Style) {
    out.push_str("d(");
    let count = op.imm_count() / 2;
    for i in 0..count {
        if i > 0 {
            out.push_str(", ");
        }
        let bits = (op.imm[2 * i] as u64) | ((op.imm[2 * i + 1] as u64) << 32);
        let value = f64::from_bits(bits);
        let text = if value.is_finite() {
            format!("{value:.6}")
        } else {
            // MSVC's spellings, which the assembler reads back.
            crate::front::dxbc::literal::format_f32(value as f32, style.dialect.ucrt_floats())
        };
        let exact = crate::front::dxbc::literal::parse_f64_bits(&text) == Some(bits);
        if style.dialect.lossless && !exact {
            let _ = write!(out, "0x{bits:016x}");
        } else {
            out.push_str(&text);
        }
    }
    out.push(')');
}
