//! D3D10–12 arithmetic on 32-bit register components, written from the D3D11.3 functional
//! specification's instruction reference (not from the translator's lowering).
//!
//! Contract: every function takes and returns raw 32-bit patterns and is total (no panics).
//! Float rules: 32-bit float arithmetic flushes denormal inputs and outputs to sign-preserved
//! zero; `min`/`max` return the other operand when one is NaN; comparisons return 0xffffffff or
//! 0; `ftoi`/`ftou` saturate and turn NaN into 0; shift amounts use their low 5 bits; `udiv`
//! and `urem` by zero give 0xffffffff. [`keep_denormals`] switches the flushing off on the
//! current thread, to model a Vulkan device that cannot flush (no
//! `shaderDenormFlushToZeroFloat32`), for the differential runs' second accepted result.

use std::cell::Cell;

thread_local! {
    static KEEP_DENORMALS: Cell<bool> = const { Cell::new(false) };
    static FOLD_ADD_ZERO: Cell<bool> = const { Cell::new(false) };
    static NEGATED_ZERO_LOST: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the float negate source modifiers (`-x`, `-|x|`) modelling a device that
/// may give `+0` for a negated zero (D3D gives `-0` for `-(+0)`); restores D3D's rule after. For
/// classifying a known driver deviation, never for expected values.
pub fn lose_negated_zero<T>(f: impl FnOnce() -> T) -> T {
    let old = NEGATED_ZERO_LOST.with(|k| k.replace(true));
    let out = f();
    NEGATED_ZERO_LOST.with(|k| k.set(old));
    out
}

/// Whether [`lose_negated_zero`] is running.
pub fn negated_zero_lost() -> bool {
    NEGATED_ZERO_LOST.with(Cell::get)
}

/// Runs `f` with `add` modelling a device that folds `x + 0.0` to `x` (a `+0` operand gives
/// the other operand, so `-0 + +0` is `-0`, where IEEE and D3D give `+0`); restores D3D's rule
/// after. For classifying a known driver deviation, never for expected values.
pub fn fold_add_zero<T>(f: impl FnOnce() -> T) -> T {
    let old = FOLD_ADD_ZERO.with(|k| k.replace(true));
    let out = f();
    FOLD_ADD_ZERO.with(|k| k.set(old));
    out
}

/// Runs `f` with denormal flushing off on this thread (D3D's rule is on); restores it after.
pub fn keep_denormals<T>(f: impl FnOnce() -> T) -> T {
    let old = KEEP_DENORMALS.with(|k| k.replace(true));
    let out = f();
    KEEP_DENORMALS.with(|k| k.set(old));
    out
}

/// Flushes a denormal to zero of the same sign (unless [`keep_denormals`] is running).
pub fn ftz(x: f32) -> f32 {
    if x.is_subnormal() && !KEEP_DENORMALS.with(Cell::get) {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// The bits as a float, denormal flushed (a float instruction's input).
pub fn fin(bits: u32) -> f32 {
    ftz(f32::from_bits(bits))
}

/// A float instruction's result as bits, denormal flushed.
pub fn fout(x: f32) -> u32 {
    ftz(x).to_bits()
}

/// `_sat`: clamps to [0, 1]; NaN becomes 0.
pub fn saturate(bits: u32) -> u32 {
    let x = f32::from_bits(bits);
    if x.is_nan() {
        0
    } else {
        x.clamp(0.0, 1.0).to_bits()
    }
}

/// D3D's boolean: all ones for true.
pub fn bool_bits(b: bool) -> u32 {
    if b {
        u32::MAX
    } else {
        0
    }
}

/// `min`/`max`: a NaN operand yields the other operand.
pub fn fminmax(a: f32, b: f32, max: bool) -> f32 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if max {
        if a >= b {
            a
        } else {
            b
        }
    } else if a <= b {
        a
    } else {
        b
    }
}

/// A unary float operation by mnemonic; `None` when the name is not one.
pub fn float_unary(name: &str, x: f32) -> Option<f32> {
    Some(match name {
        "frc" => x - x.floor(),
        "round_ne" => x.round_ties_even(),
        "round_ni" => x.floor(),
        "round_pi" => x.ceil(),
        "round_z" => x.trunc(),
        "rcp" => 1.0 / x,
        "rsq" => 1.0 / x.sqrt(),
        "sqrt" => x.sqrt(),
        "exp" => x.exp2(),
        "log" => x.log2(),
        _ => return None,
    })
}

/// `ftoi`: truncates; NaN → 0; out of range saturates.
pub fn ftoi(x: f32) -> u32 {
    x as i32 as u32
}

/// `ftou`: truncates; NaN and negatives → 0; too large → 0xffffffff.
pub fn ftou(x: f32) -> u32 {
    x as u32
}

/// `ubfe`: `width` bits of `src` from bit `offset` (both masked to 5 bits), zero-extended.
pub fn ubfe(width: u32, offset: u32, src: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    if w == 0 {
        0
    } else if w + o < 32 {
        (src << (32 - w - o)) >> (32 - w)
    } else {
        src >> o
    }
}

/// `ibfe`: as [`ubfe`], sign-extended.
pub fn ibfe(width: u32, offset: u32, src: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    if w == 0 {
        0
    } else if w + o < 32 {
        (((src << (32 - w - o)) as i32) >> (32 - w)) as u32
    } else {
        ((src as i32) >> o) as u32
    }
}

/// `bfi`: inserts the low `width` bits of `src` at `offset` into `base`.
pub fn bfi(width: u32, offset: u32, src: u32, base: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    let bitmask = (((1u64 << w) - 1) << o) as u32;
    ((src << o) & bitmask) | (base & !bitmask)
}

/// `firstbit_hi`: the bit number of the highest set bit counted from the MSB; 0xffffffff for 0.
pub fn firstbit_hi(x: u32) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.leading_zeros()
    }
}

/// `firstbit_shi`: for negatives the highest clear bit, else the highest set bit, counted from
/// the MSB; 0xffffffff for 0 and -1.
pub fn firstbit_shi(x: u32) -> u32 {
    let v = if (x as i32) < 0 { !x } else { x };
    firstbit_hi(v)
}

/// `firstbit_lo`: the lowest set bit; 0xffffffff for 0.
pub fn firstbit_lo(x: u32) -> u32 {
    if x == 0 {
        u32::MAX
    } else {
        x.trailing_zeros()
    }
}

/// `f32tof16`: the half-precision bits of a float (round to nearest even, denormal halves kept,
/// finite values too large become the largest half, NaN stays NaN), in the low 16 bits.
pub fn f32tof16(bits: u32) -> u32 {
    let x = fin(bits);
    let sign = ((x.to_bits() >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return u32::from(sign | 0x7e00 | ((x.to_bits() >> 13) & 0x1ff) as u16);
    }
    let a = x.abs();
    // Finite values beyond the half range give the largest half, never infinity (D3D11.3
    // 3.2.2 conversion rules); infinity stays infinity.
    let h: u16 = if a.is_infinite() {
        0x7c00
    } else if a > 65504.0 {
        0x7bff
    } else if a < 6.103_515_6e-5 {
        // Denormal half: units of 2^-24, round to nearest even.
        (a as f64 * 16_777_216.0).round_ties_even() as u16
    } else {
        let b = a.to_bits();
        let exp = ((b >> 23) as i32) - 127 + 15;
        let mant = b & 0x7f_ffff;
        let mut h = ((exp as u32) << 10) | (mant >> 13);
        let rest = mant & 0x1fff;
        if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
            h += 1;
        }
        h as u16
    };
    u32::from(sign | h)
}

/// `f16tof32`: the float of the half in the low 16 bits (exact; half denormals kept).
pub fn f16tof32(bits: u32) -> u32 {
    let h = bits & 0xffff;
    let sign = (h & 0x8000) << 16;
    let exp = (h >> 10) & 0x1f;
    let mant = h & 0x3ff;
    let v = match exp {
        0 => (mant as f32) * (1.0 / 16_777_216.0),
        31 => {
            if mant == 0 {
                f32::INFINITY
            } else {
                return sign | 0x7f80_0000 | (mant << 13);
            }
        }
        _ => f32::from_bits(((exp + 127 - 15) << 23) | (mant << 13)),
    };
    sign | v.to_bits()
}

/// `msad`: masked sum of absolute byte differences of `reference` and `source` (bytes of
/// `reference` equal to 0 are skipped), added to `accum`.
pub fn msad(reference: u32, source: u32, accum: u32) -> u32 {
    (0..4).fold(accum, |acc, i| {
        let r = (reference >> (8 * i)) & 0xff;
        let s = (source >> (8 * i)) & 0xff;
        if r == 0 {
            acc
        } else {
            acc.wrapping_add(r.abs_diff(s))
        }
    })
}

/// A two-operand integer or bit operation by mnemonic; `None` when the name is not one.
pub fn int_binary(name: &str, a: u32, b: u32) -> Option<u32> {
    Some(match name {
        "iadd" => a.wrapping_add(b),
        "and" => a & b,
        "or" => a | b,
        "xor" => a ^ b,
        "ishl" => a << (b & 31),
        "ishr" => ((a as i32) >> (b & 31)) as u32,
        "ushr" => a >> (b & 31),
        "imin" => (a as i32).min(b as i32) as u32,
        "imax" => (a as i32).max(b as i32) as u32,
        "umin" => a.min(b),
        "umax" => a.max(b),
        "ieq" => bool_bits(a == b),
        "ine" => bool_bits(a != b),
        "ilt" => bool_bits((a as i32) < (b as i32)),
        "ige" => bool_bits((a as i32) >= (b as i32)),
        "ult" => bool_bits(a < b),
        "uge" => bool_bits(a >= b),
        _ => return None,
    })
}

/// A one-operand integer or bit operation by mnemonic; `None` when the name is not one.
pub fn int_unary(name: &str, a: u32) -> Option<u32> {
    Some(match name {
        "not" => !a,
        "ineg" => a.wrapping_neg(),
        "countbits" => a.count_ones(),
        "bfrev" => a.reverse_bits(),
        "firstbit_hi" => firstbit_hi(a),
        "firstbit_lo" => firstbit_lo(a),
        "firstbit_shi" => firstbit_shi(a),
        "itof" => fout(a as i32 as f32),
        "utof" => fout(a as f32),
        "f16tof32" => f16tof32(a),
        _ => return None,
    })
}

/// A two-operand float operation by mnemonic (inputs already flushed); `None` when the name is
/// not one. Comparisons return D3D booleans as bits; the others a float.
pub fn float_binary(name: &str, a: f32, b: f32) -> Option<u32> {
    Some(match name {
        "add" if FOLD_ADD_ZERO.with(Cell::get) && b.to_bits() == 0 => fout(a),
        "add" if FOLD_ADD_ZERO.with(Cell::get) && a.to_bits() == 0 => fout(b),
        "add" => fout(a + b),
        "mul" => fout(a * b),
        "div" => fout(a / b),
        "min" => fout(fminmax(a, b, false)),
        "max" => fout(fminmax(a, b, true)),
        "eq" => bool_bits(a == b),
        "ne" => bool_bits(a != b),
        "lt" => bool_bits(a < b),
        "ge" => bool_bits(a >= b),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_of_zeros_is_ieee_unless_the_fold_is_modelled() {
        // IEEE 754 (and D3D): -0 + +0 = +0 in round-to-nearest.
        assert_eq!(float_binary("add", -0.0, 0.0), Some(0));
        assert_eq!(
            fold_add_zero(|| float_binary("add", -0.0, 0.0)),
            Some(0x8000_0000)
        );
        assert_eq!(float_binary("add", -0.0, 0.0), Some(0));
    }

    #[test]
    fn shifts_use_five_bits() {
        assert_eq!(int_binary("ishl", 1, 33), Some(2));
        assert_eq!(int_binary("ushr", 0x8000_0000, 63), Some(1));
        assert_eq!(int_binary("ishr", 0x8000_0000, 31), Some(u32::MAX));
    }

    #[test]
    fn bit_fields_follow_the_spec() {
        assert_eq!(ubfe(4, 4, 0xabcd), 0xc);
        assert_eq!(ibfe(4, 4, 0xabcd), 0xffff_fffc);
        assert_eq!(ubfe(0, 4, 0xabcd), 0);
        assert_eq!(ubfe(8, 28, 0xabcd_0000), 0xa);
        assert_eq!(bfi(8, 8, 0x12, 0xffff_ffff), 0xffff_12ff);
        assert_eq!(firstbit_hi(1), 31);
        assert_eq!(firstbit_shi(u32::MAX), u32::MAX);
        assert_eq!(firstbit_lo(0), u32::MAX);
    }

    #[test]
    fn conversions_saturate_and_nan_is_zero() {
        assert_eq!(ftoi(f32::NAN), 0);
        assert_eq!(ftoi(1e10), 0x7fff_ffff);
        assert_eq!(ftou(-3.0), 0);
        assert_eq!(ftou(1e10), u32::MAX);
        assert_eq!(f32tof16(1.0f32.to_bits()), 0x3c00);
        assert_eq!(f32tof16(1e6f32.to_bits()), 0x7bff);
        assert_eq!(f32tof16(f32::INFINITY.to_bits()), 0x7c00);
        assert_eq!(f16tof32(0x3c00), 1.0f32.to_bits());
        assert_eq!(f16tof32(1), (1.0f32 / 16_777_216.0).to_bits());
    }

    #[test]
    fn min_max_prefer_numbers_and_denormals_flush() {
        assert_eq!(fminmax(f32::NAN, 2.0, false), 2.0);
        assert_eq!(fminmax(3.0, f32::NAN, true), 3.0);
        assert_eq!(fin(1), 0.0);
        assert_eq!(fin(0x8000_0001).to_bits(), 0x8000_0000);
    }
}
