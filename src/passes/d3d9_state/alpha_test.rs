//! The alpha test: at the end of a pixel shader, discard the pixel when the alpha of render
//! target 0 (`o0.w`) fails `alpha FUNC reference` (`D3DCMPFUNC`).
//!
//! Contract: with `n = precision_bits > 0` both sides are quantised as a UNORM target of `n`
//! bits holds them: `a = round_ne(saturate(alpha) · (2^n − 1))`,
//! `r = round_ne(reference · (2^n − 1) / 255)` (the reference itself for 8 bits); with 0 the
//! alpha is compared as is with `reference / 255`. The outcome of the comparison is one bit
//! (less 1, equal 2, greater 4; unordered none), passed when it is in `func − 1` (Vulkan's
//! `VkCompareOp` numbering, `D3DCMPFUNC − 1`), or when `func` is `ALWAYS`. A shader that writes
//! no `o0` is left alone (D3D leaves the test undefined there).

use super::{comp, dst, imm_f, imm_u, rc, Builder};
use crate::d3d9_state::{cmp_func, AlphaTest, StateValue};
use crate::ir::{Index, Op, Reg, Test};
use crate::passes::Error;

/// Adds the alpha test to the epilogue when `test` can discard.
pub(super) fn alpha_test(b: &mut Builder<'_>, test: &AlphaTest) -> Result<(), Error> {
    if !test.enabled() {
        return Ok(());
    }
    if let StateValue::Immediate(f) = test.func {
        if !(cmp_func::NEVER..=cmp_func::ALWAYS).contains(&f) {
            return Err(super::caller(format!(
                "alpha test function {f} is not a D3DCMPFUNC (1 to 8)"
            )));
        }
    }
    if let StateValue::Immediate(r) = test.reference {
        if r > 255 {
            return Err(super::caller(format!("alpha reference {r} is past 255")));
        }
    }
    if test.precision_bits > 16 {
        return Err(super::caller(format!(
            "alpha precision of {} bits (at most 16)",
            test.precision_bits
        )));
    }
    let m = &*b.module;
    let writes_o0 = m.outputs.iter().any(|d| d.register == 0)
        || m.output_signature.iter().any(|e| e.register == 0);
    if !writes_o0 {
        return Ok(());
    }
    b.write_prologue(false);
    let func = b.param("alpha_func", test.func)?;
    let reference = b.param("alpha_ref", test.reference)?;
    let t = Reg::Temp(b.temp());
    let (x, y, z, w) = (1, 2, 4, 8);
    let (tx, ty, tz, tw) = (rc(t, 0), rc(t, 1), rc(t, 2), rc(t, 3));
    let alpha = rc(Reg::Output(Index::imm(0)), 3);
    let n = test.precision_bits;
    // t.x = the alpha, t.y = the reference, on one scale.
    b.emit(Op::Utof, dst(t, y), &[comp(reference, 0)], false);
    if n == 0 {
        b.emit(Op::Mov, dst(t, x), &[alpha], false);
        b.emit(Op::Div, dst(t, y), &[ty, imm_f(255.0)], false);
    } else {
        let scale = ((1u32 << n) - 1) as f32;
        b.emit(Op::Mov, dst(t, x), &[alpha], true);
        b.emit(Op::Mul, dst(t, x), &[tx, imm_f(scale)], false);
        b.emit(Op::RoundNe, dst(t, x), &[tx], false);
        if n != 8 {
            b.emit(Op::Mul, dst(t, y), &[ty, imm_f(scale)], false);
            b.emit(Op::Div, dst(t, y), &[ty, imm_f(255.0)], false);
            b.emit(Op::RoundNe, dst(t, y), &[ty], false);
        }
    }
    // t.z = the outcome's bit: less 1, equal 2, greater 4.
    b.emit(Op::Lt, dst(t, z), &[tx, ty], false);
    b.emit(Op::And, dst(t, z), &[tz, imm_u(1)], false);
    b.emit(Op::Eq, dst(t, w), &[tx, ty], false);
    b.emit(Op::And, dst(t, w), &[tw, imm_u(2)], false);
    b.emit(Op::Or, dst(t, z), &[tz, tw], false);
    b.emit(Op::Lt, dst(t, w), &[ty, tx], false);
    b.emit(Op::And, dst(t, w), &[tw, imm_u(4)], false);
    b.emit(Op::Or, dst(t, z), &[tz, tw], false);
    // Passed when the bit is in func − 1, or func is ALWAYS (an unordered outcome).
    let f = comp(func, 0);
    b.emit(Op::Iadd, dst(t, w), &[f, imm_u(u32::MAX)], false);
    b.emit(Op::And, dst(t, z), &[tz, tw], false);
    b.emit(Op::Ieq, dst(t, w), &[f, imm_u(cmp_func::ALWAYS)], false);
    b.emit(Op::Or, dst(t, z), &[tz, tw], false);
    b.emit(Op::Discard, None, &[tz], false);
    if let Some(d) = b.last_mut() {
        d.flags.test = Test::Zero;
    }
    Ok(())
}
