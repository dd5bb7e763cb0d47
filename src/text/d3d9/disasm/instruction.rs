//! One instruction line as fxc prints it: the co-issue `+`, the predicate `(p0)`, the
//! mnemonic with its spelling for the version and controls and the destination's modifiers
//! (`_x2`, `_sat`, `_pp`, `_centroid`), then the operands; `dcl` spells its usage or texture
//! type into the mnemonic, `def*` print their literals.

use std::fmt::Write;

use crate::front::d3d9::program::{
    DclToken, Dst, Instruction, Payload, RegisterType, Version, USAGE_NAMES,
};

use super::number::write_float;
use super::operand::{write_dst, write_src};
use super::{DisasmError, DisasmErrorKind};

/// Appends one instruction (without indentation or line end).
pub(crate) fn write_instruction(
    out: &mut String,
    inst: &Instruction,
    version: Version,
) -> Result<(), DisasmError> {
    if inst.coissue {
        out.push('+');
    }
    if let Some(predicate) = &inst.predicate {
        out.push('(');
        write_src(out, predicate)?;
        out.push_str(") ");
    }
    let spelling = inst
        .opcode
        .spelling(version.is_pixel(), version.key(), inst.controls)
        .ok_or(DisasmError {
            offset: inst.offset,
            kind: DisasmErrorKind::BadComparison(inst.controls),
        })?;
    let _ = write!(out, "{spelling}");
    if let Payload::Dcl(token) = inst.payload {
        write_dcl_suffix(out, inst, token, version)?;
    }
    if let Some(dst) = &inst.dst {
        write_dst_modifiers(out, dst);
    }
    let mut first = true;
    let mut sep = |out: &mut String| {
        out.push_str(if first { " " } else { ", " });
        first = false;
    };
    if let Some(dst) = &inst.dst {
        sep(out);
        write_dst(out, dst)?;
    }
    for src in inst.sources() {
        sep(out);
        write_src(out, src)?;
    }
    match inst.payload {
        Payload::None | Payload::Dcl(_) => {}
        Payload::Float4(bits) => {
            for b in bits {
                sep(out);
                write_float(out, f32::from_bits(b));
            }
        }
        Payload::Int4(values) => {
            for v in values {
                sep(out);
                let _ = write!(out, "{v}");
            }
        }
        Payload::Bool(value) => {
            sep(out);
            out.push_str(if value != 0 { "true" } else { "false" });
        }
    }
    Ok(())
}

/// `_x2` … `_d8`, `_sat`, `_pp`, `_centroid`, in that order.
fn write_dst_modifiers(out: &mut String, dst: &Dst) {
    match dst.shift {
        1 => out.push_str("_x2"),
        2 => out.push_str("_x4"),
        3 => out.push_str("_x8"),
        -1 => out.push_str("_d2"),
        -2 => out.push_str("_d4"),
        -3 => out.push_str("_d8"),
        _ => {}
    }
    if dst.saturate {
        out.push_str("_sat");
    }
    if dst.partial_precision {
        out.push_str("_pp");
    }
    if dst.centroid {
        out.push_str("_centroid");
    }
}

/// `dcl`'s suffix: the sampler's texture type (`_2d`, `_cube`, `_volume`), or the usage and
/// its index (`_texcoord1`) for the `v#`/`o#` registers of shaders that declare semantics
/// (vertex shaders, ps_3_0); ps_2_x and earlier declare `t#`/`v#` by register alone.
fn write_dcl_suffix(
    out: &mut String,
    inst: &Instruction,
    token: DclToken,
    version: Version,
) -> Result<(), DisasmError> {
    let Some(dst) = &inst.dst else {
        return Ok(());
    };
    match dst.reg {
        RegisterType::Sampler => {
            out.push_str(match token.texture_type() {
                0 => "",
                1 => "_1d",
                2 => "_2d",
                3 => "_cube",
                4 => "_volume",
                other => {
                    return Err(DisasmError {
                        offset: inst.offset,
                        kind: DisasmErrorKind::UnknownTextureType(other),
                    })
                }
            });
        }
        RegisterType::Input | RegisterType::Output
            if !(version.is_pixel() && version.major < 3) =>
        {
            let usage = token.usage();
            let name = USAGE_NAMES.get(usage as usize).ok_or(DisasmError {
                offset: inst.offset,
                kind: DisasmErrorKind::UnknownUsage(usage),
            })?;
            let _ = write!(out, "_{name}");
            if token.usage_index() != 0 {
                let _ = write!(out, "{}", token.usage_index());
            }
        }
        _ => {}
    }
    Ok(())
}
