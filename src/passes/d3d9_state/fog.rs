//! Fog blending of pixel shaders before `ps_3_0` (Direct3D 9 blends fog after those; SM3
//! shaders fog themselves, and D3D10+ models have no fixed-function fog).
//!
//! Contract: at the end of the shader `o0.rgb = lerp(colour, o0.rgb, f)`, alpha unchanged,
//! with the factor `f`:
//! - vertex fog: the user input at location 18 (the `FOG` location), component x, declared
//!   (perspective-interpolated) when the shader does not declare it;
//! - table fog from the depth `d` (`FragCoord.z`, or clip-space w = `1 / FragCoord.w`):
//!   linear `(end − d) / (end − start)`, exp `2^(−density·d·log2 e)`, exp2
//!   `2^(−(density·d)²·log2 e)`; the position input is declared when the shader has none.
//!
//! `f` is clamped to [0, 1] and a NaN factor counts as 1 (no fog). A shader that writes no `o0`
//! is left alone.

use super::{dst, free_register, imm_f, io_decl, neg, rc, swz, Builder};
use crate::d3d9_state::{Fog, FogDepth, FogFunction, FogMode};
use crate::ir::{Index, Interpolation, Op, Reg, SystemValue};
use crate::passes::Error;

/// The `FOG` location.
pub(super) const FOG_LOCATION: u32 = 18;

/// Adds fog blending to the epilogue when `fog` asks for it and the shader model has it.
pub(super) fn fog(b: &mut Builder<'_>, fog: &Fog) -> Result<(), Error> {
    if fog.mode == FogMode::Off || b.module.model.0 >= 3 {
        return Ok(());
    }
    let m = &*b.module;
    let writes_o0 = m.outputs.iter().any(|d| d.register == 0)
        || m.output_signature.iter().any(|e| e.register == 0);
    if !writes_o0 {
        return Ok(());
    }
    b.write_prologue(false);
    let t = Reg::Temp(b.temp());
    let (tx, ty) = (rc(t, 0), rc(t, 1));
    match fog.mode {
        FogMode::Off => return Ok(()),
        FogMode::Vertex => {
            let input = fog_input(b)?;
            b.emit(Op::Mov, dst(t, 1), &[rc(input, 0)], false);
        }
        FogMode::Table(function) => {
            let (position, c) = depth_input(b, fog.depth)?;
            let d = rc(position, c);
            match function {
                FogFunction::Linear => {
                    let start = b.param("fog_start", fog.start)?;
                    let end = b.param("fog_end", fog.end)?;
                    b.emit(Op::Add, dst(t, 1), &[rc(end.reg, 0), neg(d)], false);
                    b.emit(
                        Op::Add,
                        dst(t, 2),
                        &[rc(end.reg, 0), neg(rc(start.reg, 0))],
                        false,
                    );
                    b.emit(Op::Div, dst(t, 1), &[tx, ty], false);
                }
                FogFunction::Exp | FogFunction::Exp2 => {
                    let density = b.param("fog_density", fog.density)?;
                    b.emit(Op::Mul, dst(t, 1), &[rc(density.reg, 0), d], false);
                    if function == FogFunction::Exp2 {
                        b.emit(Op::Mul, dst(t, 1), &[tx, tx], false);
                    }
                    b.emit(
                        Op::Mul,
                        dst(t, 1),
                        &[tx, imm_f(-std::f32::consts::LOG2_E)],
                        false,
                    );
                    b.emit(Op::Exp, dst(t, 1), &[tx], false);
                }
            }
        }
    }
    // NaN → 1, then clamp.
    b.emit(Op::Ne, dst(t, 2), &[tx, tx], false);
    b.emit(Op::Movc, dst(t, 1), &[ty, imm_f(1.0), tx], false);
    b.emit(Op::Mov, dst(t, 1), &[tx], true);
    // o0.rgb = colour + f · (o0.rgb − colour)
    let colour = b.param("fog_color", fog.color)?;
    let o0 = Reg::Output(Index::imm(0));
    let xyz = [0, 1, 2, 2];
    b.emit(
        Op::Add,
        dst(t, 0b1110),
        &[swz(o0, [0, 0, 1, 2]), neg(swz(colour.reg, [0, 0, 1, 2]))],
        false,
    );
    b.emit(
        Op::Mad,
        dst(o0, 0b0111),
        &[swz(t, [1, 2, 3, 3]), tx, swz(colour.reg, xyz)],
        false,
    );
    Ok(())
}

/// The register of the `FOG` input (the user input at location 18), declared when the shader
/// does not declare it: at register 18 when that is free, else at a free register mapped to
/// location 18 ([`Module::input_locations`](crate::ir::Module::input_locations)).
fn fog_input(b: &mut Builder<'_>) -> Result<Reg, Error> {
    let m = &mut *b.module;
    let declared = m
        .inputs
        .iter()
        .position(|d| d.system_value == SystemValue::None && m.input_location(d.register) == 18);
    if let Some(d) = declared.and_then(|k| m.inputs.get_mut(k)) {
        d.mask |= 1;
        return Ok(Reg::Input(Index::imm(d.register)));
    }
    let free = |r: u32| {
        !m.inputs.iter().any(|d| d.register == r)
            && !m.input_signature.iter().any(|e| e.register == r)
    };
    let r = if free(FOG_LOCATION) && m.input_location(FOG_LOCATION) == FOG_LOCATION {
        FOG_LOCATION
    } else {
        free_register(&m.inputs, &m.input_signature).ok_or_else(|| {
            Error::unsupported(m.program_span, "vertex fog: no input register left")
        })?
    };
    if r != FOG_LOCATION {
        m.input_locations.push((r, FOG_LOCATION));
    }
    let mut d = io_decl(m, r, 1, SystemValue::None);
    d.interpolation = Interpolation::Linear;
    m.inputs.push(d);
    Ok(Reg::Input(Index::imm(r)))
}

/// The position input and the component of the depth, declared when the shader has none.
fn depth_input(b: &mut Builder<'_>, depth: FogDepth) -> Result<(Reg, u8), Error> {
    let c = match depth {
        FogDepth::Z => 2,
        FogDepth::W => 3,
    };
    let m = &mut *b.module;
    if let Some(d) = m
        .inputs
        .iter_mut()
        .find(|d| d.system_value == SystemValue::Position)
    {
        d.mask |= 1 << c;
        return Ok((Reg::Input(Index::imm(d.register)), c));
    }
    let r = free_register(&m.inputs, &m.input_signature)
        .ok_or_else(|| Error::unsupported(m.program_span, "table fog: no input register left"))?;
    let mut d = io_decl(m, r, 1 << c, SystemValue::Position);
    d.interpolation = Interpolation::LinearNoPerspective;
    m.inputs.push(d);
    Ok((Reg::Input(Index::imm(r)), c))
}
