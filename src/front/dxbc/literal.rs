//! Immediate values as text: how fxc prints them and how the assembler reads them back.
//!
//! fxc prints floats with C's `%f` (six decimals), which loses bits: `0.000977` may stand for
//! 1/1024 or for the float nearest to 0.000977. [`parse_f32`] recovers the value a compiler most
//! likely stored: among the floats that print as the same text, one with at most
//! [`SIMPLE_MANTISSA_BITS`] significant mantissa bits (a power of two or a short binary fraction,
//! as `1.0/1024` produces) is preferred, then the float nearest to the decimal text. The
//! disassembler's lossless mode prints a float as hex when this recovery would not give its bits
//! back, so that assembling a lossless listing is exact.

/// Mantissa bits (after the implicit one) of the "simple" floats preferred when recovering `%f`.
pub const SIMPLE_MANTISSA_BITS: u32 = 6;

/// Parses a decimal or `0x` hexadecimal unsigned integer; a leading `-` negates in two's
/// complement, as C does.
pub fn parse_uint(text: &str) -> Option<u32> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let value = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16).ok()?
    } else {
        let v: u64 = body.parse().ok()?;
        if (neg && v > 1 << 31) || v > u64::from(u32::MAX) {
            return None;
        }
        v as u32
    };
    Some(if neg { value.wrapping_neg() } else { value })
}

/// True when `text` is written as a float (`1.000000`, `1e-3`, `1.#INF00`).
pub fn is_float_text(text: &str) -> bool {
    !text.starts_with("0x")
        && !text.starts_with("-0x")
        && (text.contains('.') || text.contains('#') || text.contains('e') || text.contains('E'))
}

/// One dword of an `l(...)` immediate: hex as raw bits, floats through [`parse_f32`], integers
/// in two's complement.
pub fn parse_dword(text: &str) -> Option<u32> {
    if is_float_text(text) {
        parse_f32(text).map(f32::to_bits)
    } else {
        parse_uint(text)
    }
}

/// One dword of an untyped immediate (`mov`, `movc`, stores, immediate constant buffers), where
/// fxc prints a dword as a float only when its exponent is neither 0 nor 255: `0.000000` there
/// stands for a tiny normal float, never for zero (which prints `0`), so it reads back as the
/// smallest normal float of that sign.
pub fn parse_untyped_dword(text: &str) -> Option<u32> {
    let bits = parse_dword(text)?;
    if is_float_text(text) && bits & 0x7f80_0000 == 0 && bits != 0x8000_0000 {
        return Some((bits & 0x8000_0000) | 0x0080_0000);
    }
    Some(bits)
}

/// MSVC's spellings of infinities and NaNs.
fn special(text: &str) -> Option<u32> {
    Some(match text {
        "1.#INF00" | "inf" | "1.#INF0" => 0x7f80_0000,
        "-1.#INF00" | "-inf" | "-1.#INF0" => 0xff80_0000,
        "1.#QNAN0" | "nan" | "1.#QNAN" => 0x7fc0_0000,
        "-1.#QNAN0" | "-nan" | "-1.#IND00" | "-1.#IND0" | "-nan(ind)" => 0xffc0_0000,
        _ => return None,
    })
}

/// Formats a float as MSVC's `printf("%f")` does: six decimals; with the Universal CRT (`ucrt`)
/// exact digits and ties to even, with the older runtime ties away from zero and no more than 17
/// significant digits (the rest printed as zeros). Infinities and NaNs in MSVC's spelling.
pub fn format_f32(value: f32, ucrt: bool) -> String {
    let mut out = String::new();
    if value.is_nan() {
        out.push_str(if value.is_sign_negative() {
            "-1.#QNAN0"
        } else {
            "1.#QNAN0"
        });
        return out;
    }
    if value.is_infinite() {
        out.push_str(if value < 0.0 { "-1.#INF00" } else { "1.#INF00" });
        return out;
    }
    if ucrt {
        return format!("{value:.6}");
    }
    // f32 values are exact in 150 decimals; 40 suffice to see a tie at the 7th decimal (ties
    // have at most 7 fractional digits), and the integer part is exact.
    let exact = format!("{:.40}", (value as f64).abs());
    let (int_part, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    let mut digits: Vec<u8> = int_part
        .bytes()
        .chain(frac.bytes().take(6))
        .map(|b| b - b'0')
        .collect();
    let rest = &frac.as_bytes()[6.min(frac.len())..];
    let round_up = rest.first().is_some_and(|&d| d >= b'5');
    if round_up {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, 1);
                break;
            }
            i -= 1;
            if digits[i] == 9 {
                digits[i] = 0;
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let int_len = digits.len() - 6;
    // MSVC prints at most 17 significant digits, then zeros.
    let first_nonzero = digits.iter().position(|&d| d != 0).unwrap_or(digits.len());
    if digits.len() - first_nonzero > 17 && int_len > 17 {
        let cut = first_nonzero + 17;
        let round = digits[cut] >= 5;
        for d in &mut digits[cut..] {
            *d = 0;
        }
        if round {
            let mut i = cut;
            while i > 0 {
                i -= 1;
                if digits[i] == 9 {
                    digits[i] = 0;
                } else {
                    digits[i] += 1;
                    break;
                }
            }
        }
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    for (i, d) in digits.iter().enumerate() {
        if i == int_len {
            out.push('.');
        }
        out.push((b'0' + d) as char);
    }
    out
}

/// Reads a float written by `%f` (or any decimal), recovering the most likely stored value.
pub fn parse_f32(text: &str) -> Option<f32> {
    if let Some(bits) = special(text) {
        return Some(f32::from_bits(bits));
    }
    let decimal: f64 = text.parse().ok()?;
    let nearest = decimal as f32;
    let decimals = text.split_once('.').map_or(0, |(_, f)| f.len());
    if decimals != 6 || !nearest.is_finite() {
        return Some(nearest);
    }
    // Same text both ways, ignoring how the producing CRT broke exact ties.
    let same = |v: f32| format_f32(v, true) == text || format_f32(v, false) == text;
    let binary = |max_bits: u32| {
        (0..=max_bits)
            .map(|bits| round_mantissa(nearest, bits))
            .find(|c| c.is_finite() && *c != 0.0 && same(*c))
    };
    // Reciprocals of small integers (1/255, 1/3...) are common shader constants.
    let reciprocal = || {
        if nearest == 0.0 {
            return None;
        }
        let n = (1.0 / f64::from(nearest)).round();
        if !(2.0..=65536.0).contains(&n.abs()) {
            return None;
        }
        (-2..=2)
            .map(|d| (1.0 / (n + f64::from(d))) as f32)
            .find(|c| same(*c))
    };
    // A short decimal (`0.000100`, `0.250000`) is most likely what the source said.
    let significant = text
        .trim_start_matches('-')
        .replace('.', "")
        .trim_start_matches('0')
        .trim_end_matches('0')
        .len();
    if significant <= 1 {
        return Some(nearest);
    }
    binary(4)
        .or_else(reciprocal)
        .or_else(|| binary(SIMPLE_MANTISSA_BITS))
        .or(Some(nearest))
}

/// `value` rounded to `bits` significant mantissa bits (after the implicit one).
fn round_mantissa(value: f32, bits: u32) -> f32 {
    let raw = value.to_bits();
    let exponent = (raw >> 23) & 0xff;
    if exponent == 0 || exponent == 0xff || bits >= 23 {
        return value;
    }
    let shift = 23 - bits;
    let half = 1u32 << (shift - 1);
    let rounded = ((raw & 0x7fff_ffff) + half) >> shift << shift;
    f32::from_bits(rounded | (raw & 0x8000_0000))
}

/// True when the `%f` text of `value` reads back as exactly `value`.
pub fn f32_round_trips(value: f32, text: &str) -> bool {
    parse_f32(text).is_some_and(|v| v.to_bits() == value.to_bits())
}

/// Reads a `d(...)` value: a decimal, or `0x` hex raw bits.
pub fn parse_f64_bits(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    if let Some(bits) = special(text) {
        return Some(f64::from(f32::from_bits(bits)).to_bits());
    }
    text.parse::<f64>().ok().map(f64::to_bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_simple_binary_fractions() {
        assert_eq!(parse_f32("0.000977"), Some(1.0 / 1024.0));
        assert_eq!(parse_f32("0.000031"), Some(1.0 / 32768.0));
        assert_eq!(parse_f32("0.500000"), Some(0.5));
        assert_eq!(parse_f32("-2.000000"), Some(-2.0));
    }

    #[test]
    fn keeps_decimal_constants() {
        assert_eq!(parse_f32("0.100000"), Some(0.1));
        assert_eq!(parse_f32("0.003922"), Some(1.0 / 255.0));
        assert_eq!(parse_f32("0.333333"), Some(1.0 / 3.0));
        assert_eq!(
            parse_f32("340282346638528860000000000000000000000.000000"),
            Some(f32::MAX)
        );
    }

    #[test]
    fn integers_and_specials() {
        assert_eq!(parse_uint("-1"), Some(u32::MAX));
        assert_eq!(parse_uint("0x00ffffff"), Some(0xff_ffff));
        assert_eq!(parse_uint("4294967296"), None);
        assert_eq!(parse_dword("1.#INF00"), Some(0x7f80_0000));
        assert_eq!(parse_dword("-0.000000"), Some(0x8000_0000));
        assert_eq!(parse_dword("16"), Some(16));
    }
}
