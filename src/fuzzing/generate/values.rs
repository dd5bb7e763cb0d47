//! Immediate values, component selections and masks of the random programs.
//!
//! Contract: without `lossless`, every value prints exactly in every disassembler dialect
//! (floats k/4, integers an integer spelling reads back as); with it, any 32-bit pattern
//! (NaNs, denormals) may appear. The translatable profile selects source components only by
//! swizzle or select-1 (never a source mask) and uses minimum precision only where the global
//! flags enable it.

use super::{Gen, Profile};
use crate::front::dxbc::opcodes::{NumType, Opcode};
use crate::front::dxbc::operand::{Components, Operand, RegisterType as R};

impl Gen<'_> {
    /// A float whose `%f` spelling is exact in every dialect (k/4).
    pub(super) fn exact_float(&mut self) -> u32 {
        let k = self.rng.below32(8193) as i32 - 4096;
        (k as f32 / 4.0).to_bits()
    }

    /// An integer every dialect prints as an integer, typed or untyped (exponent 0 or 255).
    pub(super) fn exact_int(&mut self) -> u32 {
        match self.rng.below32(4) {
            0 => self.rng.below32(41).wrapping_sub(20),
            1 => self.rng.below32(20001).wrapping_sub(10000),
            2 => self.rng.below32(0x80_0000),
            _ => 0xff80_0000 | self.rng.below32(0x80_0000),
        }
    }

    /// One dword of an immediate; `float` when the instruction prints it as a float.
    pub(super) fn value32(&mut self, float: bool) -> u32 {
        if !self.lossless {
            return if float {
                self.exact_float()
            } else {
                self.exact_int()
            };
        }
        match self.rng.below32(10) {
            0..=2 => self.exact_int(),
            3..=5 => self.exact_float(),
            6 => self.rng.pick(&[
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0xffc0_0000,
                0x7fa0_0001,
                0x8000_0000,
                0,
                1,
                0x007f_ffff,
                0x0080_0000,
                0xffff_ffff,
                0x3f80_0000,
                0x7f7f_ffff,
                0x3dcc_cccd,
                0x3eaa_aaab,
            ]),
            7 => ((self.rng.next_u32() as f32 / 65536.0) - 32768.0).to_bits(),
            8 => (self.rng.next_u32() as f32 * 1.0e-9).to_bits(),
            _ => self.rng.next_u32(),
        }
    }

    fn value64(&mut self) -> u64 {
        if !self.lossless || self.rng.chance(40) {
            let k = self.rng.below32(8193) as i32 - 4096;
            return (f64::from(k) / 4.0).to_bits();
        }
        // Infinities and NaNs are left out: their listing does not assemble (see
        // `gap_double_infinity_and_nan`).
        let bits = match self.rng.below32(4) {
            0 => self.rng.pick(&[
                (-0.0f64).to_bits(),
                f64::MAX.to_bits(),
                f64::MIN_POSITIVE.to_bits(),
                0.1f64.to_bits(),
                1.0e300f64.to_bits(),
                1,
            ]),
            1 => (self.rng.next_u32() as f64 / 1024.0 - 1.0e6).to_bits(),
            _ => self.rng.next_u64(),
        };
        if f64::from_bits(bits).is_finite() {
            bits
        } else {
            bits & !(1 << 62)
        }
    }

    /// `l(a)`, `l(a, b, c, d)`, `d(a)` or `d(a, b)`, as the assembler encodes them (one
    /// component, or four in mask mode with an empty mask).
    pub(super) fn immediate(&mut self, op: Opcode, double: bool) -> Operand {
        let float = matches!(op.num_type(), NumType::Float | NumType::Double);
        let one = self.rng.chance(50);
        let mut imm = [0u32; 4];
        let ty = if double {
            for pair in 0..if one { 1 } else { 2 } {
                let bits = self.value64();
                imm[2 * pair] = bits as u32;
                imm[2 * pair + 1] = (bits >> 32) as u32;
            }
            R::Immediate64
        } else {
            for v in imm.iter_mut().take(if one { 1 } else { 4 }) {
                *v = self.value32(float);
            }
            R::Immediate32
        };
        Operand {
            ty,
            components: if one {
                Components::One
            } else {
                Components::Mask(0)
            },
            imm,
            min_precision: self.min_precision(),
            ..Operand::default()
        }
    }

    /// `l(n)`: one integer immediate.
    pub(super) fn immediate_int(&mut self, value: u32) -> Operand {
        Operand {
            ty: R::Immediate32,
            components: Components::One,
            imm: [value, 0, 0, 0],
            ..Operand::default()
        }
    }

    // ---- components and masks

    pub(super) fn mask(&mut self, double: bool) -> u8 {
        if double {
            self.rng.pick(&[0x3, 0xc, 0xf])
        } else {
            self.rng.range(1, 15) as u8
        }
    }

    /// A mask of the first one to four components (`.x`, `.xy`, `.xyz`, `.xyzw`): what stores
    /// of raw and structured memory write.
    pub(super) fn leading_mask(&mut self) -> u8 {
        self.rng.pick(&[0x1, 0x3, 0x7, 0xf])
    }

    /// A mask of one or two components: 32-bit results of double operations.
    pub(super) fn narrow_mask(&mut self) -> u8 {
        self.rng
            .pick(&[0x1, 0x2, 0x4, 0x8, 0x3, 0x5, 0x9, 0x6, 0xa, 0xc])
    }

    /// A non-empty mask within `declared` (a declared output's components).
    pub(super) fn mask_within(&mut self, declared: u8) -> u8 {
        loop {
            let mask = self.rng.range(1, 15) as u8 & declared;
            if mask != 0 {
                return mask;
            }
        }
    }

    pub(super) fn swizzle(&mut self) -> [u8; 4] {
        if self.rng.chance(40) {
            return self
                .rng
                .pick(&[[0, 1, 2, 3], [0, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 1]]);
        }
        [0; 4].map(|_| self.rng.below32(4) as u8)
    }

    /// A swizzle over the first `width` components (`vThreadID`: x, y, z).
    pub(super) fn swizzle_within(&mut self, width: u8) -> [u8; 4] {
        [0; 4].map(|_| self.rng.below32(u32::from(width)) as u8)
    }

    /// Source selection: swizzle, select-1 or (rarely, encodable profile) a 2–3 component mask.
    pub(super) fn src_components(&mut self, double: bool) -> Components {
        if double {
            return Components::Swizzle(self.rng.pick(&[
                [0, 1, 0, 1],
                [2, 3, 2, 3],
                [0, 1, 2, 3],
                [2, 3, 0, 1],
            ]));
        }
        let masks = if self.profile == Profile::Encodable {
            100
        } else {
            92
        };
        match self.rng.below32(masks) {
            0..=54 => Components::Swizzle(self.swizzle()),
            55..=91 => Components::Select1(self.rng.below32(4) as u8),
            _ => {
                let mut mask = self.rng.range(1, 15) as u8;
                while !(2..=3).contains(&mask.count_ones()) {
                    mask = self.rng.range(1, 15) as u8;
                }
                Components::Mask(mask)
            }
        }
    }

    pub(super) fn min_precision(&mut self) -> u8 {
        if self.min_precision && self.rng.chance(8) {
            self.rng.pick(&[1, 2, 4, 5])
        } else {
            0
        }
    }
}
