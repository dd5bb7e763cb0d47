//! Scalars of case files: parsing `data`/`values` elements, encoding them as bytes, comparing
//! read-back bits with expectations (exact, ULP or absolute tolerance, any NaN, don't care).
//!
//! An element is a TOML integer, float or string. Strings may start with a type prefix
//! (`"f32:1.5"`, `"i32:-3"`, `"u64:0x1"`) that overrides the list's `type` for that element;
//! the rest is `0x…` (raw bits), a decimal number, `nan`, `inf`, `-inf`, or (in expectations
//! only) `*` for "any value".

use std::fmt;

use anyhow::{anyhow, bail, Result};
use serde::Deserialize;

/// The type of a scalar in a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarType {
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer (two's complement).
    I32,
    /// IEEE-754 binary32.
    F32,
    /// 64-bit unsigned integer (little-endian, two words).
    U64,
    /// 64-bit signed integer.
    I64,
    /// IEEE-754 binary64 (little-endian, two words).
    F64,
}

impl ScalarType {
    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            ScalarType::U32 | ScalarType::I32 | ScalarType::F32 => 4,
            ScalarType::U64 | ScalarType::I64 | ScalarType::F64 => 8,
        }
    }

    /// True for `f32` and `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    /// The name used in case files.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::U32 => "u32",
            ScalarType::I32 => "i32",
            ScalarType::F32 => "f32",
            ScalarType::U64 => "u64",
            ScalarType::I64 => "i64",
            ScalarType::F64 => "f64",
        }
    }

    fn from_name(name: &str) -> Option<ScalarType> {
        [
            ScalarType::U32,
            ScalarType::I32,
            ScalarType::F32,
            ScalarType::U64,
            ScalarType::I64,
            ScalarType::F64,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }

    /// Mask of the type's bits.
    fn mask(self) -> u64 {
        if self.size() == 4 {
            0xffff_ffff
        } else {
            u64::MAX
        }
    }

    /// The quiet NaN written for `nan` in initial data.
    fn canonical_nan(self) -> Option<u64> {
        match self {
            ScalarType::F32 => Some(0x7fc0_0000),
            ScalarType::F64 => Some(0x7ff8_0000_0000_0000),
            _ => None,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one element of a list stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// These exact bits (in the low `size * 8` bits).
    Bits(u64),
    /// Any NaN (expectations); the canonical quiet NaN in data.
    Nan,
    /// Any value (expectations only).
    Any,
}

/// One element of a `data`, `fill` or `values` list: its type and what it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// The element's type (the list's type, or its own prefix).
    pub ty: ScalarType,
    /// The value.
    pub pattern: Pattern,
}

impl Element {
    /// Parses a TOML value as an element of type `default` (unless it has a type prefix).
    pub fn parse(value: &toml::Value, default: ScalarType) -> Result<Element> {
        match value {
            toml::Value::Integer(i) => Ok(Element {
                ty: default,
                pattern: Pattern::Bits(int_bits(i128::from(*i), default)?),
            }),
            toml::Value::Float(f) => float_element(*f, default),
            toml::Value::String(s) => parse_str(s, default),
            other => bail!("expected a number or a string, found {}", other.type_str()),
        }
    }

    /// The element's bytes for initial data (`nan` becomes the canonical quiet NaN).
    pub fn to_bytes(self) -> Result<Vec<u8>> {
        let bits = match self.pattern {
            Pattern::Bits(b) => b,
            Pattern::Nan => self
                .ty
                .canonical_nan()
                .ok_or_else(|| anyhow!("nan is not a {} value", self.ty))?,
            Pattern::Any => bail!("`*` (any value) is only allowed in expectations"),
        };
        Ok(bits.to_le_bytes()[..self.ty.size()].to_vec())
    }
}

fn parse_str(text: &str, default: ScalarType) -> Result<Element> {
    let s = text.trim();
    let (ty, body) = match s.split_once(':') {
        Some((prefix, rest)) => {
            let ty = ScalarType::from_name(prefix.trim()).ok_or_else(|| {
                anyhow!("unknown type prefix {prefix:?} in {text:?} (use u32, i32, f32, u64, i64 or f64)")
            })?;
            (ty, rest.trim())
        }
        None => (default, s),
    };
    let lower = body.to_ascii_lowercase();
    let pattern = match lower.as_str() {
        "*" | "any" => Pattern::Any,
        "nan" | "+nan" | "-nan" => {
            if !ty.is_float() {
                bail!("{text:?}: nan is not a {ty} value");
            }
            Pattern::Nan
        }
        _ => {
            if let Some(hex) = lower.strip_prefix("0x") {
                let bits = u64::from_str_radix(&hex.replace('_', ""), 16)
                    .map_err(|e| anyhow!("{text:?}: bad hex number ({e})"))?;
                if bits & !ty.mask() != 0 {
                    bail!("{text:?}: 0x{bits:x} does not fit in {ty}");
                }
                Pattern::Bits(bits)
            } else if ty.is_float() {
                let v: f64 = match lower.as_str() {
                    "inf" | "+inf" | "infinity" | "+infinity" => f64::INFINITY,
                    "-inf" | "-infinity" => f64::NEG_INFINITY,
                    _ => body
                        .replace('_', "")
                        .parse()
                        .map_err(|e| anyhow!("{text:?}: not a number ({e})"))?,
                };
                return float_element(v, ty);
            } else {
                let v: i128 = body
                    .replace('_', "")
                    .parse()
                    .map_err(|e| anyhow!("{text:?}: not an integer ({e})"))?;
                Pattern::Bits(int_bits(v, ty)?)
            }
        }
    };
    Ok(Element { ty, pattern })
}

/// An integer as `ty`'s bits: two's complement for negative values. Integers go into float
/// types by value.
fn int_bits(v: i128, ty: ScalarType) -> Result<u64> {
    let (lo, hi) = match ty {
        ScalarType::U32 | ScalarType::I32 => (-(1i128 << 31), 1i128 << 32),
        ScalarType::U64 | ScalarType::I64 => (-(1i128 << 63), 1i128 << 64),
        ScalarType::F32 | ScalarType::F64 => {
            let exact = match ty {
                ScalarType::F32 => v as f32 as i128 == v,
                _ => v as f64 as i128 == v,
            };
            return match float_element(v as f64, ty)?.pattern {
                Pattern::Bits(b) if exact => Ok(b),
                _ => bail!("{v} is not exactly representable as {ty}"),
            };
        }
    };
    if v < lo || v >= hi {
        bail!("{v} is out of range for {ty} (allowed: {lo}..{hi}, negative values as two's complement)");
    }
    Ok((v as u64) & ty.mask())
}

/// A float value as an element of type `ty` (rounded to nearest for `f32`).
fn float_element(v: f64, ty: ScalarType) -> Result<Element> {
    let pattern = if v.is_nan() {
        Pattern::Nan
    } else {
        match ty {
            ScalarType::F32 => Pattern::Bits(u64::from((v as f32).to_bits())),
            ScalarType::F64 => Pattern::Bits(v.to_bits()),
            _ => bail!("{v} is a float; a {ty} value must be an integer"),
        }
    };
    Ok(Element { ty, pattern })
}

/// Parses a list of elements of default type `ty`.
pub fn parse_list(values: &[toml::Value], ty: ScalarType) -> Result<Vec<Element>> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| Element::parse(v, ty).map_err(|e| e.context(format!("element {i}"))))
        .collect()
}

/// Tolerance for float elements; both zero means bitwise equality.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tolerance {
    /// Largest allowed distance in units in the last place.
    pub ulp: u64,
    /// Largest allowed absolute difference.
    pub abs: f64,
}

impl Tolerance {
    /// True for the exact (bitwise) comparison.
    pub fn is_exact(&self) -> bool {
        self.ulp == 0 && self.abs == 0.0
    }

    /// The tolerance as messages append it: ` ±2 ulp`, ` ±1e-4`, both, or nothing.
    pub fn suffix(&self) -> String {
        let mut tol = String::new();
        if self.ulp > 0 {
            tol.push_str(&format!(" ±{} ulp", self.ulp));
        }
        if self.abs > 0.0 {
            tol.push_str(&format!(" ±{:e}", self.abs));
        }
        tol
    }
}

/// True when the `actual` bits of an element of type `expected.ty` satisfy `expected`.
///
/// Integers and exact floats compare bitwise (so `-0.0` ≠ `0.0`). With a tolerance, two finite
/// floats match when they are at most `ulp` representable values apart (`-0.0` and `0.0` count
/// as one value) or at most `abs` apart; infinities match only themselves and a NaN matches
/// only `nan`.
pub fn matches(expected: Element, actual: u64, tol: Tolerance) -> bool {
    let ty = expected.ty;
    let actual = actual & ty.mask();
    match expected.pattern {
        Pattern::Any => true,
        Pattern::Nan => to_f64(ty, actual).is_some_and(f64::is_nan),
        Pattern::Bits(bits) => {
            if bits == actual {
                return true;
            }
            if !ty.is_float() || tol.is_exact() {
                return false;
            }
            let (Some(e), Some(a)) = (to_f64(ty, bits), to_f64(ty, actual)) else {
                return false;
            };
            if !e.is_finite() || !a.is_finite() {
                return false;
            }
            (tol.abs > 0.0 && (e - a).abs() <= tol.abs)
                || ordered(ty, bits).abs_diff(ordered(ty, actual)) <= u128::from(tol.ulp)
        }
    }
}

/// The value of float bits (`None` for integer types).
fn to_f64(ty: ScalarType, bits: u64) -> Option<f64> {
    match ty {
        ScalarType::F32 => Some(f64::from(f32::from_bits(bits as u32))),
        ScalarType::F64 => Some(f64::from_bits(bits)),
        _ => None,
    }
}

/// Maps float bits to integers that are consecutive for consecutive representable values
/// (`-0.0` and `0.0` both map to 0).
fn ordered(ty: ScalarType, bits: u64) -> i128 {
    let (sign, magnitude) = match ty {
        ScalarType::F32 => (bits & 0x8000_0000 != 0, bits & 0x7fff_ffff),
        _ => (bits >> 63 != 0, bits & !(1 << 63)),
    };
    if sign {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    }
}

/// Formats bits of type `ty` for messages: hex for unsigned, value and hex otherwise.
pub fn format_bits(ty: ScalarType, bits: u64) -> String {
    match ty {
        ScalarType::U32 => format!("0x{bits:08x}"),
        ScalarType::U64 => format!("0x{bits:016x}"),
        ScalarType::I32 => format!("{} (0x{bits:08x})", bits as u32 as i32),
        ScalarType::I64 => format!("{} (0x{bits:016x})", bits as i64),
        ScalarType::F32 => format!("{:?} (0x{bits:08x})", f32::from_bits(bits as u32)),
        ScalarType::F64 => format!("{:?} (0x{bits:016x})", f64::from_bits(bits)),
    }
}

/// Formats an expected element for messages.
pub fn format_expected(e: Element, tol: Tolerance) -> String {
    let mut s = match e.pattern {
        Pattern::Bits(bits) => format_bits(e.ty, bits),
        Pattern::Nan => "NaN".to_owned(),
        Pattern::Any => "any".to_owned(),
    };
    if e.ty.is_float() && matches!(e.pattern, Pattern::Bits(_)) {
        if tol.ulp > 0 {
            s.push_str(&format!(" ±{} ulp", tol.ulp));
        }
        if tol.abs > 0.0 {
            s.push_str(&format!(" ±{:e}", tol.abs));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(v: toml::Value, ty: ScalarType) -> Element {
        Element::parse(&v, ty).unwrap_or_else(|e| panic!("{e:#}"))
    }

    fn s(text: &str) -> toml::Value {
        toml::Value::String(text.to_owned())
    }

    fn bits(e: Element) -> u64 {
        match e.pattern {
            Pattern::Bits(b) => b,
            p => panic!("not bits: {p:?}"),
        }
    }

    #[test]
    fn integers() {
        use ScalarType::*;
        assert_eq!(bits(el(toml::Value::Integer(-1), U32)), 0xffff_ffff);
        assert_eq!(
            bits(el(toml::Value::Integer(0xffff_ffff), I32)),
            0xffff_ffff
        );
        assert_eq!(bits(el(toml::Value::Integer(-5), I64)), (-5i64) as u64);
        assert_eq!(bits(el(s("0xdead_beef"), U32)), 0xdead_beef);
        assert_eq!(bits(el(s("u64:0xffffffffffffffff"), U32)), u64::MAX);
        assert_eq!(el(s("u64:1"), U32).ty, U64);
        assert!(Element::parse(&toml::Value::Integer(1 << 32), U32).is_err());
        assert!(Element::parse(&toml::Value::Integer(-(1 << 31) - 1), I32).is_err());
        assert!(Element::parse(&toml::Value::Float(1.5), U32).is_err());
        assert!(Element::parse(&s("0x1_0000_0000"), U32).is_err());
        assert!(Element::parse(&s("nan"), I32).is_err());
        assert!(Element::parse(&s("q32:1"), U32).is_err());
    }

    #[test]
    fn floats() {
        use ScalarType::*;
        assert_eq!(bits(el(toml::Value::Float(1.5), F32)), 0x3fc0_0000);
        assert_eq!(bits(el(toml::Value::Integer(2), F32)), 0x4000_0000);
        assert_eq!(bits(el(s("-0.0"), F32)), 0x8000_0000);
        assert_eq!(bits(el(s("-inf"), F32)), 0xff80_0000);
        assert_eq!(bits(el(s("0x7f800001"), F32)), 0x7f80_0001);
        assert_eq!(bits(el(s("f32:0.1"), U32)), 0x3dcc_cccd);
        assert_eq!(bits(el(s("1e-3"), F64)), 1e-3f64.to_bits());
        assert_eq!(el(s("NaN"), F32).pattern, Pattern::Nan);
        assert_eq!(el(toml::Value::Float(f64::NAN), F64).pattern, Pattern::Nan);
        assert_eq!(el(s("*"), F32).pattern, Pattern::Any);
        // 2^24 + 1 is not an f32.
        assert!(Element::parse(&toml::Value::Integer((1 << 24) + 1), F32).is_err());
        assert_eq!(
            el(s("nan"), F32).to_bytes().unwrap(),
            0x7fc0_0000u32.to_le_bytes()
        );
        assert!(el(s("*"), F32).to_bytes().is_err());
    }

    #[test]
    fn comparisons() {
        use ScalarType::*;
        let exact = Tolerance::default();
        let ulp2 = Tolerance { ulp: 2, abs: 0.0 };
        let one = el(toml::Value::Float(1.0), F32);
        assert!(matches(one, 0x3f80_0000, exact));
        assert!(!matches(one, 0x3f80_0001, exact));
        assert!(matches(one, 0x3f80_0002, ulp2));
        assert!(matches(one, 0x3f7f_fffe, ulp2));
        assert!(!matches(one, 0x3f80_0003, ulp2));
        // ±0 are one apart from the smallest denormals, zero apart from each other.
        let zero = el(toml::Value::Float(0.0), F32);
        assert!(!matches(zero, 0x8000_0000, exact));
        assert!(matches(zero, 0x8000_0000, Tolerance { ulp: 1, abs: 0.0 }));
        assert!(matches(zero, 0x8000_0001, Tolerance { ulp: 1, abs: 0.0 }));
        assert!(!matches(zero, 0x8000_0002, Tolerance { ulp: 1, abs: 0.0 }));
        // Infinity is not within an ulp of FLT_MAX.
        let inf = el(s("inf"), F32);
        assert!(matches(inf, 0x7f80_0000, ulp2));
        assert!(!matches(inf, 0x7f7f_ffff, ulp2));
        // NaN.
        let nan = el(s("nan"), F32);
        assert!(matches(nan, 0x7fc0_0000, exact));
        assert!(matches(nan, 0xffc0_1234, exact));
        assert!(matches(nan, 0x7f80_0001, exact));
        assert!(!matches(nan, 0x7f80_0000, exact));
        assert!(!matches(one, 0x7fc0_0000, Tolerance { ulp: 100, abs: 1e9 }));
        // Absolute tolerance.
        let abs = Tolerance { ulp: 0, abs: 0.01 };
        assert!(matches(one, 1.009f32.to_bits().into(), abs));
        assert!(!matches(one, 1.02f32.to_bits().into(), abs));
        // f64 ulps.
        let d = el(toml::Value::Float(1.0), F64);
        assert!(matches(d, 1.0f64.to_bits() + 2, ulp2));
        assert!(!matches(d, 1.0f64.to_bits() + 3, ulp2));
        // Integers ignore tolerances; `*` matches anything.
        let i = el(toml::Value::Integer(5), I32);
        assert!(!matches(i, 6, Tolerance { ulp: 5, abs: 5.0 }));
        assert!(matches(el(s("*"), U32), 0x1234, exact));
    }

    #[test]
    fn formatting() {
        use ScalarType::*;
        assert_eq!(format_bits(U32, 11), "0x0000000b");
        assert_eq!(format_bits(I32, 0xffff_fffb), "-5 (0xfffffffb)");
        assert_eq!(format_bits(F32, 0x3fc0_0000), "1.5 (0x3fc00000)");
        let e = el(toml::Value::Float(0.5), F32);
        assert_eq!(
            format_expected(e, Tolerance { ulp: 3, abs: 0.0 }),
            "0.5 (0x3f000000) ±3 ulp"
        );
    }
}
