//! fxc's spelling of `def` literals: C's `%.9g` as the Microsoft C runtime prints it (at least
//! three exponent digits, `1.1920929e-007`), which gives every 32-bit float back exactly.

use std::fmt::Write;

/// Appends `value` as fxc prints a `def` component.
pub(crate) fn write_float(out: &mut String, value: f32) {
    if value.is_nan() {
        out.push_str(if value.is_sign_negative() {
            "-1.#QNAN"
        } else {
            "1.#QNAN"
        });
        return;
    }
    if value.is_infinite() {
        out.push_str(if value < 0.0 { "-1.#INF" } else { "1.#INF" });
        return;
    }
    if value == 0.0 {
        out.push_str(if value.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    const PRECISION: i32 = 9;
    let x = f64::from(value);
    // `%e` with PRECISION significant digits decides the exponent (after rounding).
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, x);
    let Some((mantissa, exponent)) = scientific.split_once('e') else {
        out.push_str(&scientific);
        return;
    };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..PRECISION).contains(&exponent) {
        out.push_str(strip_zeros(mantissa));
        let sign = if exponent < 0 { '-' } else { '+' };
        let _ = write!(out, "e{sign}{:03}", exponent.unsigned_abs());
    } else {
        let decimals = (PRECISION - 1 - exponent).max(0) as usize;
        let fixed = format!("{x:.decimals$}");
        out.push_str(strip_zeros(&fixed));
    }
}

/// `%g`'s removal of trailing fraction zeros (and of a bare decimal point).
fn strip_zeros(s: &str) -> &str {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.')
}

#[cfg(test)]
mod tests {
    use super::write_float;

    fn g(v: f32) -> String {
        let mut s = String::new();
        write_float(&mut s, v);
        s
    }

    #[test]
    fn floats_print_as_msvc_percent_nine_g() {
        // Expected strings are C's `%.9g` of the float widened to double, with the
        // Microsoft runtime's three-digit exponent.
        assert_eq!(g(1.0), "1");
        assert_eq!(g(-1.0), "-1");
        assert_eq!(g(0.5), "0.5");
        assert_eq!(g(255.0), "255");
        assert_eq!(g(-0.0), "-0");
        assert_eq!(g(0.0), "0");
        assert_eq!(g(0.3), "0.300000012");
        assert_eq!(g(-0.01), "-0.00999999978");
        assert_eq!(g(1.0 / 255.0), "0.00392156886");
        assert_eq!(g(f32::EPSILON), "1.1920929e-007");
        assert_eq!(g(1e-4), "9.99999975e-005");
        assert_eq!(g(1e9), "1e+009");
        assert_eq!(g(123456789.0), "123456792");
        assert_eq!(g(0.0001), "9.99999975e-005");
        assert_eq!(g(0.001), "0.00100000005");
        assert_eq!(g(f32::INFINITY), "1.#INF");
    }
}
