//! Operands as fxc prints them: register names per file, write masks, swizzles (a replicated
//! swizzle collapses to one letter, `.xyzw` disappears, any other prints all four), source
//! modifiers around the register (`-r0`, `1 - r0`, `r0_bx2`, `-c2_abs.x`, `!p0`) and relative
//! addressing after the register number (`c5[a0.x]`, `c[aL]` style `c0[aL]`).

use std::fmt::Write;

use crate::front::d3d9::program::{
    Dst, RegisterType, Relative, Src, SrcModifier, IDENTITY_SWIZZLE,
};

use super::{DisasmError, DisasmErrorKind};

const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// Appends the register name: `r0`, `oPos`, `c2050` (a high bank), `aL`, `vFace`.
pub(crate) fn write_register(
    out: &mut String,
    reg: RegisterType,
    num: u32,
    offset: u32,
) -> Result<(), DisasmError> {
    let prefix = match reg {
        RegisterType::Temp => "r",
        RegisterType::Input => "v",
        RegisterType::Const => "c",
        RegisterType::Address => "a",
        RegisterType::Texture => "t",
        RegisterType::RastOut => {
            out.push_str(match num {
                0 => "oPos",
                1 => "oFog",
                2 => "oPts",
                _ => return Err(bad_register(offset, reg, num)),
            });
            return Ok(());
        }
        RegisterType::AttrOut => "oD",
        RegisterType::TexCrdOut => "oT",
        RegisterType::Output => "o",
        RegisterType::ConstInt => "i",
        RegisterType::ColorOut => "oC",
        RegisterType::DepthOut => {
            out.push_str("oDepth");
            return Ok(());
        }
        RegisterType::Sampler => "s",
        RegisterType::Const2 | RegisterType::Const3 | RegisterType::Const4 => {
            let bank = match reg {
                RegisterType::Const2 => 2048,
                RegisterType::Const3 => 4096,
                _ => 6144,
            };
            let _ = write!(out, "c{}", bank + num);
            return Ok(());
        }
        RegisterType::ConstBool => "b",
        RegisterType::Loop => {
            out.push_str("aL");
            return Ok(());
        }
        RegisterType::TempFloat16 => "h",
        RegisterType::Misc => {
            out.push_str(match num {
                0 => "vPos",
                1 => "vFace",
                _ => return Err(bad_register(offset, reg, num)),
            });
            return Ok(());
        }
        RegisterType::Label => "l",
        RegisterType::Predicate => "p",
    };
    let _ = write!(out, "{prefix}{num}");
    Ok(())
}

fn bad_register(offset: u32, reg: RegisterType, num: u32) -> DisasmError {
    DisasmError {
        offset,
        kind: DisasmErrorKind::UndefinedRegister {
            file: crate::front::d3d9::decode::register_name(reg),
            num,
        },
    }
}

/// Appends `[a0.x]` / `[aL]`.
fn write_relative(out: &mut String, rel: &Relative) -> Result<(), DisasmError> {
    out.push('[');
    write_register(out, rel.reg, rel.num, rel.offset)?;
    if rel.reg == RegisterType::Address {
        // fxc's streams replicate one component (`a0.x`); a hand-made token with another
        // swizzle is printed whole, so that assembling the listing gives it back.
        write_swizzle(out, rel.swizzle);
    }
    out.push(']');
    Ok(())
}

fn component(index: u8) -> char {
    COMPONENTS[usize::from(index & 3)]
}

/// Appends a write mask: nothing for `.xyzw` (and for an empty mask), else the components.
pub(crate) fn write_mask(out: &mut String, mask: u8) {
    let mask = mask & 0xf;
    if mask == 0xf || mask == 0 {
        return;
    }
    out.push('.');
    for (i, c) in COMPONENTS.iter().enumerate() {
        if mask & (1 << i) != 0 {
            out.push(*c);
        }
    }
}

/// Appends a swizzle: nothing for `.xyzw`, one letter when all four agree, else four.
pub(crate) fn write_swizzle(out: &mut String, swizzle: u8) {
    if swizzle == IDENTITY_SWIZZLE {
        return;
    }
    let comps = [0, 2, 4, 6].map(|shift| (swizzle >> shift) & 3);
    out.push('.');
    if comps.iter().all(|&c| c == comps[0]) {
        out.push(component(comps[0]));
    } else {
        for c in comps {
            out.push(component(c));
        }
    }
}

/// Appends a destination operand: register, relative address, write mask.
pub(crate) fn write_dst(out: &mut String, dst: &Dst) -> Result<(), DisasmError> {
    write_register(out, dst.reg, dst.num, dst.offset)?;
    if let Some(rel) = &dst.relative {
        write_relative(out, rel)?;
    }
    write_mask(out, dst.mask);
    Ok(())
}

/// Appends a source operand with its modifier, relative address and swizzle.
pub(crate) fn write_src(out: &mut String, src: &Src) -> Result<(), DisasmError> {
    let (prefix, suffix) = match src.modifier {
        SrcModifier::None => ("", ""),
        SrcModifier::Negate => ("-", ""),
        SrcModifier::Bias => ("", "_bias"),
        SrcModifier::BiasNegate => ("-", "_bias"),
        SrcModifier::Sign => ("", "_bx2"),
        SrcModifier::SignNegate => ("-", "_bx2"),
        SrcModifier::Complement => ("1 - ", ""),
        SrcModifier::X2 => ("", "_x2"),
        SrcModifier::X2Negate => ("-", "_x2"),
        SrcModifier::Dz => ("", "_dz"),
        SrcModifier::Dw => ("", "_dw"),
        SrcModifier::Abs => ("", "_abs"),
        SrcModifier::AbsNegate => ("-", "_abs"),
        SrcModifier::Not => ("!", ""),
    };
    out.push_str(prefix);
    write_register(out, src.reg, src.num, src.offset)?;
    if let Some(rel) = &src.relative {
        write_relative(out, rel)?;
    }
    out.push_str(suffix);
    write_swizzle(out, src.swizzle);
    Ok(())
}
