//! Operands in fxc syntax: registers (`r0`, `oPos`, `c2048`, `vFace`, `aL`), write masks,
//! swizzles (fxc's short forms: `.x` is `.xxxx`, `.xy` is `.xyyy`), source modifiers (`-x`,
//! `1-x`, `!p0`, `x_bias`, `x_bx2`, `x_x2`, `x_dz`, `x_dw`, `x_abs`), relative addressing
//! (`c[a0.x + 5]`, `c5[a0.x]`, `v[aL]`, `o[aL + 1]`) and literals of `def`/`defi`/`defb`.
//!
//! Contract: register names are the disassembler's, per stage and version (type 3 is `a0`
//! in vertex shaders and `t#` in pixel shaders; type 6 is `oT#` before vs_3_0 and `o#` in it);
//! a relative-address token is written where the decoder reads one (SM2+ sources, SM3
//! destinations), vs_1_x's `a0.x` is implicit. Every error is located; nothing panics.

use super::cursor::Cursor;
use super::AsmError;
use crate::front::d3d9::program::{
    Dst, RegisterType, Relative, Src, SrcModifier, Stage, Version, IDENTITY_SWIZZLE,
};

/// A register: file, number and optional relative address.
struct Register {
    reg: RegisterType,
    num: u32,
    relative: Option<Relative>,
}

/// Parses a destination: register, optional relative address, optional write mask.
pub(super) fn dst(cur: &mut Cursor<'_>, version: Version) -> Result<Dst, AsmError> {
    cur.skip_space();
    let r = register(cur, version, true)?;
    let mask = if cur.peek() == Some('.') {
        cur.bump();
        write_mask(cur)?
    } else {
        0xf
    };
    Ok(Dst {
        reg: r.reg,
        num: r.num,
        mask,
        saturate: false,
        partial_precision: false,
        centroid: false,
        shift: 0,
        relative: r.relative,
        reserved: 0,
        offset: 0,
    })
}

/// Parses a source: prefix modifier, register, relative address, suffix modifier, swizzle
/// (the suffix may also follow the swizzle).
pub(super) fn src(cur: &mut Cursor<'_>, version: Version) -> Result<Src, AsmError> {
    cur.skip_space();
    let start = cur.pos();
    let mut negate = false;
    let mut complement = false;
    let mut not = false;
    if cur.peek() == Some('1') && !cur.peek2().is_some_and(|c| c.is_ascii_alphanumeric()) {
        cur.bump();
        if !cur.eat('-') {
            return Err(cur.error(format!("expected '-' after '1', found {}", cur.found())));
        }
        complement = true;
    } else if cur.eat('-') {
        negate = true;
    } else if cur.eat('!') {
        not = true;
    }
    cur.skip_space();
    let r = register(cur, version, false)?;
    let mut suffix = suffix(cur)?;
    let swizzle = if cur.peek() == Some('.') {
        cur.bump();
        swizzle(cur)?
    } else {
        IDENTITY_SWIZZLE
    };
    if suffix.is_none() {
        suffix = self::suffix(cur)?;
    }
    let modifier = match (negate, complement, not, suffix) {
        (false, false, false, None) => SrcModifier::None,
        (true, _, _, None) => SrcModifier::Negate,
        (_, true, _, None) => SrcModifier::Complement,
        (_, _, true, None) => SrcModifier::Not,
        (false, false, false, Some(m)) => m,
        (true, false, false, Some(SrcModifier::Bias)) => SrcModifier::BiasNegate,
        (true, false, false, Some(SrcModifier::Sign)) => SrcModifier::SignNegate,
        (true, false, false, Some(SrcModifier::X2)) => SrcModifier::X2Negate,
        (true, false, false, Some(SrcModifier::Abs)) => SrcModifier::AbsNegate,
        _ => {
            return Err(cur.error_at(start, "these source modifiers cannot be combined"));
        }
    };
    Ok(Src {
        reg: r.reg,
        num: r.num,
        swizzle,
        modifier,
        relative: r.relative,
        reserved: 0,
        offset: 0,
    })
}

/// A source modifier written after the register (`_bx2`), if one is next.
fn suffix(cur: &mut Cursor<'_>) -> Result<Option<SrcModifier>, AsmError> {
    if cur.peek() != Some('_') {
        return Ok(None);
    }
    let at = cur.pos();
    cur.bump();
    let name = cur.take_while(|c| c.is_ascii_alphanumeric());
    Ok(Some(match name.to_ascii_lowercase().as_str() {
        "bias" => SrcModifier::Bias,
        "bx2" => SrcModifier::Sign,
        "x2" => SrcModifier::X2,
        "dz" | "db" => SrcModifier::Dz,
        "dw" | "da" => SrcModifier::Dw,
        "abs" => SrcModifier::Abs,
        _ => return Err(cur.error_at(at, format!("unknown source modifier '_{name}'"))),
    }))
}

/// A write mask after the `.`: components in order, each at most once.
fn write_mask(cur: &mut Cursor<'_>) -> Result<u8, AsmError> {
    let at = cur.pos();
    let text = cur.take_while(|c| c.is_ascii_alphabetic());
    let mut mask = 0u8;
    let mut last = None;
    for c in text.chars() {
        let i = component(c)
            .ok_or_else(|| cur.error_at(at, format!("invalid write mask '.{text}'")))?;
        if last.is_some_and(|l| i <= l) {
            return Err(cur.error_at(
                at,
                format!("invalid write mask '.{text}': components must be in xyzw order"),
            ));
        }
        last = Some(i);
        mask |= 1 << i;
    }
    if mask == 0 {
        return Err(cur.error_at(at, "expected a write mask after '.'"));
    }
    Ok(mask)
}

/// A swizzle after the `.`: one to four components, the last one repeated.
fn swizzle(cur: &mut Cursor<'_>) -> Result<u8, AsmError> {
    let at = cur.pos();
    let text = cur.take_while(|c| c.is_ascii_alphabetic());
    let mut comps = Vec::with_capacity(4);
    for c in text.chars() {
        comps.push(
            component(c).ok_or_else(|| cur.error_at(at, format!("invalid swizzle '.{text}'")))?,
        );
    }
    if comps.is_empty() || comps.len() > 4 {
        return Err(cur.error_at(at, format!("invalid swizzle '.{text}'")));
    }
    let last = comps.last().copied().unwrap_or(0);
    let mut swizzle = 0u8;
    for i in 0..4 {
        swizzle |= comps.get(i).copied().unwrap_or(last) << (2 * i);
    }
    Ok(swizzle)
}

fn component(c: char) -> Option<u8> {
    match c {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    }
}

/// Parses a register name and number, with an optional `[…]` relative address.
fn register(cur: &mut Cursor<'_>, version: Version, is_dst: bool) -> Result<Register, AsmError> {
    let at = cur.pos();
    let name = cur.take_while(|c| c.is_ascii_alphabetic());
    let digits = cur.take_while(|c| c.is_ascii_digit());
    if name.is_empty() {
        return Err(cur.error_at(at, format!("expected a register, found {}", cur.found())));
    }
    let full = format!("{name}{digits}");
    let unknown = || cur.error_at(at, format!("unknown register '{full}'"));
    let pixel = version.stage == Stage::Pixel;
    let lower = name.to_ascii_lowercase();
    // Registers named without a number.
    let fixed = match lower.as_str() {
        "opos" => Some((RegisterType::RastOut, 0)),
        "ofog" => Some((RegisterType::RastOut, 1)),
        "opts" => Some((RegisterType::RastOut, 2)),
        "odepth" => Some((RegisterType::DepthOut, 0)),
        "al" => Some((RegisterType::Loop, 0)),
        "vpos" => Some((RegisterType::Misc, 0)),
        "vface" => Some((RegisterType::Misc, 1)),
        _ => None,
    };
    let (reg, mut num) = if let Some((reg, num)) = fixed {
        if !digits.is_empty() {
            return Err(unknown());
        }
        (reg, num)
    } else {
        let reg = match lower.as_str() {
            "r" => RegisterType::Temp,
            "v" => RegisterType::Input,
            "c" => RegisterType::Const,
            "a" if !pixel => RegisterType::Address,
            "t" if pixel => RegisterType::Texture,
            "od" => RegisterType::AttrOut,
            "ot" if version.major < 3 || pixel => RegisterType::TexCrdOut,
            "o" if version.major >= 3 && !pixel => RegisterType::Output,
            "i" => RegisterType::ConstInt,
            "oc" => RegisterType::ColorOut,
            "s" => RegisterType::Sampler,
            "b" => RegisterType::ConstBool,
            "l" => RegisterType::Label,
            "p" => RegisterType::Predicate,
            _ => return Err(unknown()),
        };
        // A number may be left out before a relative address (`c[a0.x + 5]`).
        if digits.is_empty() && cur.peek() != Some('[') {
            return Err(cur.error_at(at, format!("register '{name}' needs a number")));
        }
        let num = if digits.is_empty() {
            0
        } else {
            digits
                .parse::<u32>()
                .map_err(|_| cur.error_at(at, format!("register number too large in '{full}'")))?
        };
        (reg, num)
    };
    let relative = if cur.peek() == Some('[') {
        let (rel, extra) = relative(cur, version, is_dst)?;
        num = num
            .checked_add(extra)
            .ok_or_else(|| cur.error_at(at, "register number too large"))?;
        rel
    } else {
        None
    };
    let (reg, num) = bank(reg, num);
    if num > 0x7ff {
        return Err(cur.error_at(
            at,
            format!("register number {num} out of range in '{full}'"),
        ));
    }
    Ok(Register { reg, num, relative })
}

/// `c2048`… live in the high constant banks.
fn bank(reg: RegisterType, num: u32) -> (RegisterType, u32) {
    match (reg, num / 2048) {
        (RegisterType::Const, 1) => (RegisterType::Const2, num - 2048),
        (RegisterType::Const, 2) => (RegisterType::Const3, num - 4096),
        (RegisterType::Const, 3) => (RegisterType::Const4, num - 6144),
        _ => (reg, num),
    }
}

/// A relative address `[a0.x + 5]`, `[aL]`, `[5 + a0.x]`: the address register (none for an
/// index of numbers only, `c[2 + 3]`) and the number to add to the register's.
fn relative(
    cur: &mut Cursor<'_>,
    version: Version,
    is_dst: bool,
) -> Result<(Option<Relative>, u32), AsmError> {
    cur.bump(); // '['
    let mut extra: u32 = 0;
    let mut address: Option<(RegisterType, u8)> = None;
    loop {
        cur.skip_space();
        let at = cur.pos();
        if cur.peek().is_some_and(|c| c.is_ascii_digit()) {
            let digits = cur.take_while(|c| c.is_ascii_digit());
            let n = digits
                .parse::<u32>()
                .map_err(|_| cur.error_at(at, "offset too large"))?;
            extra = extra
                .checked_add(n)
                .ok_or_else(|| cur.error_at(at, "offset too large"))?;
        } else {
            let name = cur.take_while(|c| c.is_ascii_alphanumeric());
            let reg = match name.to_ascii_lowercase().as_str() {
                "a0" if !version.is_pixel() => RegisterType::Address,
                "al" => RegisterType::Loop,
                _ => {
                    return Err(cur.error_at(
                        at,
                        format!("expected a0 or aL in a relative address, found '{name}'"),
                    ))
                }
            };
            if address.is_some() {
                return Err(cur.error_at(at, "a relative address takes one address register"));
            }
            let swizzle = if cur.peek() == Some('.') {
                cur.bump();
                self::swizzle(cur)?
            } else {
                // The native assembler writes `.xyzw` for a bare a0 or aL.
                IDENTITY_SWIZZLE
            };
            address = Some((reg, swizzle));
        }
        if cur.eat('+') {
            continue;
        }
        if cur.eat(']') {
            break;
        }
        return Err(cur.error(format!("expected '+' or ']', found {}", cur.found())));
    }
    // Only numbers: an absolute index written as `c[2 + 10]` or `c4[2]`.
    let Some((reg, swizzle)) = address else {
        return Ok((None, extra));
    };
    let token = if is_dst {
        version.major >= 3
    } else {
        version.major >= 2
    };
    if !token && (reg != RegisterType::Address || swizzle & 3 != 0) {
        return Err(cur.error(format!(
            "{} addresses relative registers only through a0.x",
            version.profile()
        )));
    }
    Ok((
        Some(Relative {
            reg,
            num: 0,
            swizzle: if token { swizzle } else { 0 },
            token,
            offset: 0,
        }),
        extra,
    ))
}

/// A literal's sign: `-` or `+`, possibly followed by blanks (`- 1`).
fn sign(cur: &mut Cursor<'_>) -> &'static str {
    cur.skip_space();
    let sign = match cur.peek() {
        Some('-') => "-",
        Some('+') => "",
        _ => return "",
    };
    cur.bump();
    cur.skip_space();
    sign
}

/// A `def` float: a decimal number (C's `1.0f` suffix allowed), or fxc's `1.#INF`, `-1.#INF`,
/// `1.#QNAN`, `-1.#IND`.
pub(super) fn float(cur: &mut Cursor<'_>) -> Result<u32, AsmError> {
    cur.skip_space();
    let at = cur.pos();
    let sign = sign(cur);
    let body = cur.take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '#'));
    let text = format!("{sign}{body}");
    let value = match text.to_ascii_uppercase().as_str() {
        "1.#INF" | "INF" => Some(f32::INFINITY.to_bits()),
        "-1.#INF" | "-INF" => Some(f32::NEG_INFINITY.to_bits()),
        "1.#QNAN" | "NAN" => Some(0x7fc0_0000),
        "-1.#QNAN" | "-1.#IND" => Some(0xffc0_0000),
        _ => None,
    };
    if let Some(bits) = value {
        return Ok(bits);
    }
    let number = text
        .strip_suffix(['f', 'F'])
        .filter(|t| t.contains('.'))
        .unwrap_or(&text);
    if number.contains(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E') {
        return Err(cur.error_at(at, format!("expected a number, found '{text}'")));
    }
    number
        .parse::<f32>()
        .map(f32::to_bits)
        .map_err(|_| cur.error_at(at, format!("expected a number, found '{text}'")))
}

/// A `defi` integer.
pub(super) fn int(cur: &mut Cursor<'_>) -> Result<i32, AsmError> {
    cur.skip_space();
    let at = cur.pos();
    let sign = sign(cur);
    let digits = cur.take_while(|c| c.is_ascii_digit());
    format!("{sign}{digits}").parse::<i32>().map_err(|_| {
        cur.error_at(
            at,
            format!("expected an integer, found '{sign}{digits}{}'", cur.word()),
        )
    })
}

/// A `defb` boolean: `true`/`false` (or 1/0).
pub(super) fn boolean(cur: &mut Cursor<'_>) -> Result<u32, AsmError> {
    cur.skip_space();
    let at = cur.pos();
    let text = cur.take_while(|c| c.is_ascii_alphanumeric());
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" => Ok(1),
        "false" | "0" => Ok(0),
        _ => Err(cur.error_at(at, format!("expected true or false, found '{text}'"))),
    }
}
