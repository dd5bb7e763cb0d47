//! Operands in fxc syntax → [`Operand`]s, with the encodings fxc chooses for what the text does
//! not show (component counts of unsuffixed registers, selection modes, index representations).
//!
//! The canonical choices were read off the corpus: `+ 0` relative indices are encoded as purely
//! relative and others as immediate + relative; four-value immediates use mask mode with an
//! empty mask; registers printed without components have zero or one component by type.

use super::cursor::Cursor;
use super::error::Result;
use crate::front::dxbc::literal;
use crate::front::dxbc::names::{self, COMPONENTS};
use crate::front::dxbc::operand::{
    Components, Index, IndexRepr, Modifier, Operand, RegisterType, RelativeRegister,
};
use crate::front::dxbc::token::{ExtOperandToken, OperandToken};

/// Where an operand stands, which decides the encodings the text leaves implicit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// An instruction's destination.
    Dst,
    /// An instruction's source.
    Src,
    /// A declared register (`dcl_input v0.xy`, `dcl_resource ... t0`).
    Decl,
}

/// What the surrounding instruction tells the operand parser.
#[derive(Clone, Copy, Debug)]
pub(super) struct Context {
    /// The operand's role.
    pub role: Role,
    /// Shader Model 5.1 (upper-case resource prefixes, swizzled range declarations).
    pub sm51: bool,
    /// The instruction prints its immediates untyped (`l(0,0,0,1.000000)`).
    pub untyped: bool,
}

/// Register prefixes, longest first so that `vicp` wins over `v`.
fn register_for_prefix(prefix: &str, has_number: bool) -> Option<RegisterType> {
    let sm51 = match prefix {
        "CB" => Some(RegisterType::ConstantBuffer),
        "T" => Some(RegisterType::Resource),
        "S" => Some(RegisterType::Sampler),
        "U" => Some(RegisterType::UnorderedAccessView),
        _ => None,
    };
    if sm51.is_some() {
        return sm51;
    }
    if prefix == "l" {
        return has_number.then_some(RegisterType::Label);
    }
    (0..=42u32)
        .filter_map(RegisterType::from_u32)
        .find(|t| t.prefix() == prefix && *t != RegisterType::Immediate32)
}

/// Parses one operand.
pub(super) fn parse_operand(c: &mut Cursor<'_>, ctx: Context) -> Result<Operand> {
    let start = c.pos();
    c.skip_ws();
    let mut modifier = Modifier::None;
    if c.eat('-') {
        modifier = Modifier::Neg;
    }
    let abs = c.eat('|');
    if abs {
        modifier = if modifier == Modifier::Neg {
            Modifier::AbsNeg
        } else {
            Modifier::Abs
        };
    }
    let mut op = Operand::default();
    let ident_pos = c.pos();
    let Some(ident) = c.ident() else {
        return Err(c.error(format!("expected an operand, found {}", c.describe_next())));
    };
    if (ident == "l" || ident == "d") && c.peek_raw() == Some('(') {
        if ctx.role != Role::Src {
            return Err(c.error_at(
                ident_pos,
                "an immediate can only be a source operand, not a destination or a declared register",
            ));
        }
        parse_immediate(c, &mut op, ident == "d", ctx.untyped)?;
    } else {
        parse_register(c, &mut op, ident, ident_pos)?;
        let letters = parse_components(c)?;
        op.components = match letters {
            Some((mask, swizzle, count)) => match ctx.role {
                Role::Dst | Role::Decl => Components::Mask(mask),
                Role::Src => match count {
                    4 => Components::Swizzle(swizzle),
                    1 => Components::Select1(swizzle[0]),
                    _ => Components::Mask(mask),
                },
            },
            None => implied_components(op.ty, ctx),
        };
    }
    if abs {
        c.expect('|')?;
    }
    op.modifier = modifier;
    parse_annotations(c, &mut op)?;
    let _ = start;
    finish_ext(&mut op);
    Ok(op)
}

/// Sets the extended operand token from the typed fields.
pub(super) fn finish_ext(op: &mut Operand) {
    let modifier = match op.modifier {
        Modifier::None => 0,
        Modifier::Neg => 1,
        Modifier::Abs => 2,
        Modifier::AbsNeg => 3,
    };
    if modifier != 0 || op.min_precision != 0 || op.nonuniform {
        op.ext = ExtOperandToken(
            1 | (modifier << 6)
                | ((op.min_precision as u32) << 14)
                | ((op.nonuniform as u32) << 17),
        );
    }
}

/// Components of a register printed without a `.xyzw` suffix, as fxc encodes them.
fn implied_components(ty: RegisterType, ctx: Context) -> Components {
    use RegisterType as R;
    let one = Components::One;
    match ctx.role {
        Role::Decl => match ty {
            R::OutputDepth
            | R::OutputDepthGreaterEqual
            | R::OutputDepthLessEqual
            | R::OutputStencilRef
            | R::InputCoverageMask => one,
            R::ConstantBuffer => Components::Swizzle([0, 1, 2, 3]),
            R::Resource | R::Sampler | R::UnorderedAccessView if ctx.sm51 => {
                Components::Swizzle([0, 1, 2, 3])
            }
            _ => Components::Zero,
        },
        Role::Dst | Role::Src => match ty {
            R::InputPrimitiveId
            | R::OutputControlPointId
            | R::OutputCoverageMask
            | R::OutputDepth
            | R::OutputDepthGreaterEqual
            | R::OutputDepthLessEqual
            | R::OutputStencilRef
            | R::InputCoverageMask
            | R::InputForkInstanceId
            | R::InputJoinInstanceId
            | R::InputGsInstanceId
            | R::InputThreadIdInGroupFlattened
            | R::CycleCounter
            | R::InnerCoverage => one,
            _ => Components::Zero,
        },
    }
}

fn parse_register(
    c: &mut Cursor<'_>,
    op: &mut Operand,
    ident: &str,
    ident_pos: usize,
) -> Result<()> {
    let digits = ident.len() - ident.trim_end_matches(|ch: char| ch.is_ascii_digit()).len();
    let (prefix, number) = if let Some(ty) = register_for_prefix(ident, false) {
        op.ty = ty;
        (ident, None)
    } else {
        let prefix = &ident[..ident.len() - digits];
        let ty = register_for_prefix(prefix, digits > 0)
            .ok_or_else(|| c.error_at(ident_pos, format!("unknown register '{ident}'")))?;
        op.ty = ty;
        let number = literal::parse_uint(&ident[prefix.len()..]).ok_or_else(|| {
            c.error_at(ident_pos, format!("invalid register number in '{ident}'"))
        })?;
        (prefix, Some(number))
    };
    let _ = prefix;
    let mut count = 0usize;
    if let Some(n) = number {
        op.indices[0] = Index {
            repr: IndexRepr::Imm32,
            imm: n as u64,
            rel: None,
        };
        count = 1;
    }
    while c.peek_raw() == Some('[') {
        c.expect('[')?;
        if count == 3 {
            return Err(c.error("more than three register indices"));
        }
        op.indices[count] = parse_index(c)?;
        count += 1;
        c.expect(']')?;
    }
    op.index_count = count as u8;
    Ok(())
}

/// One bracketed index: `N`, `r0.x + N` (or `r0.x`).
fn parse_index(c: &mut Cursor<'_>) -> Result<Index> {
    match c.peek() {
        Some(ch) if ch.is_ascii_alphabetic() => {
            let rel = parse_relative(c)?;
            let imm = if c.eat('+') { c.uint()? } else { 0 };
            Ok(Index {
                repr: if imm == 0 {
                    IndexRepr::Relative
                } else {
                    IndexRepr::Imm32Relative
                },
                imm: imm as u64,
                rel: Some(rel),
            })
        }
        _ => Ok(Index {
            repr: IndexRepr::Imm32,
            imm: c.uint()? as u64,
            rel: None,
        }),
    }
}

fn parse_relative(c: &mut Cursor<'_>) -> Result<RelativeRegister> {
    let pos = c.pos();
    let ident = c.ident().ok_or_else(|| c.error("expected a register"))?;
    let mut op = Operand::default();
    parse_register(c, &mut op, ident, pos)?;
    let mut rel = RelativeRegister {
        ty: op.ty,
        index_count: op.index_count,
        ..RelativeRegister::default()
    };
    for (i, index) in op.indices().iter().enumerate() {
        if index.rel.is_some() || i >= 2 {
            return Err(c.error_at(pos, "nested relative addressing is not supported"));
        }
        rel.indices[i] = index.imm as u32;
    }
    if c.peek_raw() == Some('.') {
        let Some((_, swizzle, count)) = parse_components(c)? else {
            return Err(c.error("expected a component"));
        };
        if count != 1 {
            return Err(c.error("a relative index selects one component"));
        }
        rel.component = swizzle[0];
        // Select-1 of a 4-component register, as fxc encodes relative indices.
        rel.token = OperandToken(2 | (2 << 2));
    }
    Ok(rel)
}

/// `.xyzw` → (mask, swizzle padded with the last letter, letter count).
fn parse_components(c: &mut Cursor<'_>) -> Result<Option<(u8, [u8; 4], usize)>> {
    if c.peek_raw() != Some('.') {
        return Ok(None);
    }
    let dot = c.pos();
    c.expect('.')?;
    let word: String = c
        .rest()
        .chars()
        .take_while(|ch| ch.is_ascii_alphabetic())
        .collect();
    if word.is_empty() || word.len() > 4 {
        return Err(c.error_at(dot, format!("invalid component selection '.{word}'")));
    }
    let mut mask = 0u8;
    let mut swizzle = [0u8; 4];
    for (i, ch) in word.chars().enumerate() {
        let comp = COMPONENTS
            .iter()
            .position(|&x| x == ch)
            .ok_or_else(|| c.error_at(dot, format!("invalid component '{ch}'")))?;
        mask |= 1 << comp;
        swizzle[i] = comp as u8;
    }
    for i in word.len()..4 {
        swizzle[i] = swizzle[word.len() - 1];
    }
    let _ = c.ident();
    Ok(Some((mask, swizzle, word.len())))
}

fn parse_immediate(
    c: &mut Cursor<'_>,
    op: &mut Operand,
    double: bool,
    untyped: bool,
) -> Result<()> {
    c.expect('(')?;
    let mut values: Vec<u64> = Vec::with_capacity(4);
    loop {
        let pos = c.pos();
        let Some(text) = c.number_text() else {
            return Err(c.error(format!("expected a number, found {}", c.describe_next())));
        };
        let value = if double {
            literal::parse_f64_bits(text)
        } else {
            if untyped {
                literal::parse_untyped_dword(text).map(u64::from)
            } else {
                literal::parse_dword(text).map(u64::from)
            }
        };
        values.push(value.ok_or_else(|| c.error_at(pos, format!("invalid immediate '{text}'")))?);
        if !c.eat(',') {
            break;
        }
    }
    c.expect(')')?;
    let per_value = if double { 2 } else { 1 };
    let dwords = values.len() * per_value;
    if !(dwords == per_value || dwords == 4) || values.len() > 4 {
        return Err(c.error(format!(
            "an immediate has 1 or {} values, not {}",
            4 / per_value,
            values.len()
        )));
    }
    op.ty = if double {
        RegisterType::Immediate64
    } else {
        RegisterType::Immediate32
    };
    op.components = if values.len() == 1 && !double || double && values.len() == 1 {
        Components::One
    } else {
        Components::Mask(0)
    };
    let mut i = 0;
    for v in values {
        if double {
            op.imm[i] = v as u32;
            op.imm[i + 1] = (v >> 32) as u32;
            i += 2;
        } else {
            op.imm[i] = v as u32;
            i += 1;
        }
    }
    Ok(())
}

/// ` {min16f}`, ` {def32 as min16f}`, ` {nonuniform}` after an operand.
fn parse_annotations(c: &mut Cursor<'_>, op: &mut Operand) -> Result<()> {
    while c.peek() == Some('{') {
        let save = c.clone();
        c.expect('{')?;
        let Some(word) = c.ident() else {
            *c = save;
            return Ok(());
        };
        if word == "nonuniform" {
            op.nonuniform = true;
        } else {
            let own = names::reverse(names::MIN_PRECISIONS, word)
                .ok_or_else(|| c.error(format!("unknown annotation '{word}'")))?;
            op.min_precision = own as u8;
            if c.eat_str("as") {
                let pos = c.pos();
                let inst = c.ident().unwrap_or("");
                if names::reverse(names::MIN_PRECISIONS, inst).is_none() {
                    return Err(c.error_at(pos, format!("unknown precision '{inst}'")));
                }
            }
        }
        c.expect('}')?;
    }
    Ok(())
}
