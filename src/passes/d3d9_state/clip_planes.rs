//! User clip planes of vertex shaders: `ClipDistance[k] = dot(position, plane i)`.
//!
//! Contract: with an immediate enable mask, one distance per enabled plane, in plane order;
//! otherwise six, plane `i`'s distance 0 (nothing clipped) when bit `i` of the mask is clear.
//! The distances go to new output registers with the clip-distance system value (four per
//! register); the position is the output with the position system value, read back at the end
//! of the shader. A shader without a position output is left alone.

use super::{dst, free_register, imm_u, io_decl, rc, Builder};
use crate::d3d9_state::{ClipPlanes, StateValue};
use crate::ir::{Index, Op, Reg, Src, SystemValue};
use crate::passes::Error;

/// Adds the clip distances to the epilogue when some plane can be enabled.
pub(super) fn clip_planes(b: &mut Builder<'_>, clip: &ClipPlanes) -> Result<(), Error> {
    let planes: Vec<usize> = match clip.enabled {
        StateValue::Immediate(mask) => (0..6).filter(|i| mask & (1 << i) != 0).collect(),
        _ => (0..6).collect(),
    };
    if planes.is_empty() {
        return Ok(());
    }
    let m = &*b.module;
    let Some(position) = m
        .outputs
        .iter()
        .find(|d| d.system_value == SystemValue::Position)
        .map(|d| d.register)
    else {
        return Ok(());
    };
    b.write_prologue(false);
    let dynamic = clip.enabled.immediate().is_none();
    let mask = if dynamic {
        Some(b.param("clip_plane_enable", clip.enabled)?)
    } else {
        None
    };
    let pos = Src::new(Reg::Output(Index::imm(position)));
    let mut registers = Vec::new();
    for chunk in planes.chunks(4) {
        let m = &mut *b.module;
        let r = free_register(&m.outputs, &m.output_signature).ok_or_else(|| {
            Error::unsupported(m.program_span, "clip planes: no output register left")
        })?;
        let bits = (1u8 << chunk.len()) - 1;
        let d = io_decl(m, r, bits, SystemValue::ClipDistance);
        m.outputs.push(d);
        registers.push(r);
    }
    let t = Reg::Temp(b.temp());
    for (k, &i) in planes.iter().enumerate() {
        let Some(&r) = registers.get(k / 4) else {
            continue;
        };
        let out = Reg::Output(Index::imm(r));
        let c = (k % 4) as u8;
        let plane = b.param(PLANE_NAMES[i], clip.planes[i])?;
        b.emit(Op::Dp4, dst(out, 1 << c), &[pos, plane], false);
        if let Some(mask) = mask {
            b.emit(Op::And, dst(t, 1), &[rc(mask.reg, 0), imm_u(1 << i)], false);
            b.emit(
                Op::Movc,
                dst(out, 1 << c),
                &[rc(t, 0), rc(out, c), imm_u(0)],
                false,
            );
        }
    }
    Ok(())
}

const PLANE_NAMES: [&str; 6] = [
    "clip_plane0",
    "clip_plane1",
    "clip_plane2",
    "clip_plane3",
    "clip_plane4",
    "clip_plane5",
];
