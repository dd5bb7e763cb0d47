//! Points: the size a vertex shader gives them, and point sprites in pixel shaders.
//!
//! Contract:
//! - Point size (vertex shaders, when the state has one): the output with the point-size
//!   system value (a user output at the `PSIZE` location 25, Direct3D 9's `oPts`, becomes
//!   one), or a new one holding the state's size when the shader writes none, clamped
//!   to `[min, max]` (`max(size, min)` then `min(·, max)`) at the end of the shader.
//! - Point sprites (pixel shaders, unless off as an immediate): at the start of the shader,
//!   every user input at locations 0–15 (the `TEXCOORD` locations) becomes
//!   `(PointCoord.x, PointCoord.y, 0, 1)` where sprites are on; `PointCoord` is a new input
//!   with the point-coordinate system value.

use super::{dst, free_register, io_decl, rc, swz, Builder};
use crate::d3d9_state::{D3d9State, PointSize, StateValue};
use crate::ir::{Index, Op, Reg, Src, SystemValue};
use crate::passes::Error;

/// `TEXCOORD0`…`15`'s locations.
const TEXCOORDS: std::ops::Range<u32> = 0..16;

/// `PSIZE`'s location (the Direct3D 9 lowering's table, `docs/d3d9.md`).
const PSIZE_LOCATION: u32 = 25;

/// Adds the clamped point size to a vertex shader's epilogue.
pub(super) fn point_size(b: &mut Builder<'_>, size: Option<&PointSize>) -> Result<(), Error> {
    let Some(size) = size else {
        return Ok(());
    };
    b.write_prologue(false);
    let m = &mut *b.module;
    // A user output at the PSIZE location (Direct3D 9 `oPts`) becomes the point size.
    let psize = m.outputs.iter().position(|d| {
        d.system_value == SystemValue::None && m.output_location(d.register) == PSIZE_LOCATION
    });
    if let Some(d) = psize.and_then(|k| m.outputs.get_mut(k)) {
        d.system_value = SystemValue::PointSize;
    }
    let written = m
        .outputs
        .iter()
        .find(|d| d.system_value == SystemValue::PointSize)
        .map(|d| {
            (
                d.register,
                (0..4u8).find(|c| d.mask & (1 << c) != 0).unwrap_or(0),
            )
        });
    let (r, c) = match written {
        Some(rc) => rc,
        None => {
            let r = free_register(&m.outputs, &m.output_signature).ok_or_else(|| {
                Error::unsupported(m.program_span, "point size: no output register left")
            })?;
            let d = io_decl(m, r, 1, SystemValue::PointSize);
            m.outputs.push(d);
            (r, 0)
        }
    };
    let out = Reg::Output(Index::imm(r));
    if written.is_none() {
        let value = b.param("point_size", size.size)?;
        b.emit(Op::Mov, dst(out, 1 << c), &[rc(value.reg, 0)], false);
    }
    let min = b.param("point_size_min", size.min)?;
    let max = b.param("point_size_max", size.max)?;
    b.emit(
        Op::Max,
        dst(out, 1 << c),
        &[rc(out, c), rc(min.reg, 0)],
        false,
    );
    b.emit(
        Op::Min,
        dst(out, 1 << c),
        &[rc(out, c), rc(max.reg, 0)],
        false,
    );
    Ok(())
}

/// Replaces the `TEXCOORD` inputs of a pixel shader with the point coordinate where sprites
/// are on.
pub(super) fn sprites(b: &mut Builder<'_>, state: &D3d9State) -> Result<(), Error> {
    if state.point_sprite == StateValue::Immediate(false) {
        return Ok(());
    }
    let m = &*b.module;
    let mut texcoords: Vec<u32> = m
        .inputs
        .iter()
        .filter(|d| {
            d.system_value == SystemValue::None && TEXCOORDS.contains(&m.input_location(d.register))
        })
        .map(|d| d.register)
        .collect();
    texcoords.sort_unstable();
    texcoords.dedup();
    if texcoords.is_empty() {
        return Ok(());
    }
    b.write_prologue(true);
    let m = &mut *b.module;
    let r = free_register(&m.inputs, &m.input_signature).ok_or_else(|| {
        Error::unsupported(m.program_span, "point sprites: no input register left")
    })?;
    let d = io_decl(m, r, 0b11, SystemValue::PointCoord);
    m.inputs.push(d);
    let t = Reg::Temp(b.temp());
    let pc = Reg::Input(Index::imm(r));
    b.emit(Op::Mov, dst(t, 0b0011), &[swz(pc, [0, 1, 1, 1])], false);
    b.emit(
        Op::Mov,
        dst(t, 0b1100),
        &[Src::new(Reg::Imm32([0, 0, 0, 1f32.to_bits()]))],
        false,
    );
    let sprite = match state.point_sprite {
        StateValue::Immediate(true) => None,
        value => Some(b.param("point_sprite", value)?),
    };
    for tc in texcoords {
        let input = Reg::Input(Index::imm(tc));
        match sprite {
            None => b.emit(Op::Mov, dst(input, 0xf), &[Src::new(t)], false),
            Some(on) => b.emit(
                Op::Movc,
                dst(input, 0xf),
                &[rc(on.reg, 0), Src::new(t), Src::new(input)],
                false,
            ),
        }
    }
    b.write_prologue(false);
    Ok(())
}
