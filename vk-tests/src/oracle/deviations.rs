//! Known driver deviations: devices that compute a generated program differently from what
//! SPIR-V and Vulkan require of the translated module, each proved by a minimal SPIR-V case.
//!
//! Contract: [`DEVIATIONS`] lists each deviation with the device it applies to (a
//! case-insensitive part of the device name), why it is the driver's, and an oracle model of it
//! ([`Deviation::model`]). A differential mismatch is put down to a deviation only when the
//! device's result equals the oracle's on every word the model leaves unchanged (the words it
//! changes may hold either result); anything else stays a mismatch. A model may cover more
//! than the driver does (the driver deviates only where it folds constants, which the oracle
//! cannot tell): it only loosens the words it changes.
//!
//! Proved but not listed: llvmpipe turns an integer `OpSelect`/`OpPhi` of `0xbf800000` and 0
//! into `-b2f`, giving `0x80000000` for 0
//! (fixtures/conformance/differential/driver_llvmpipe_select_minus_one.toml, seed 1159); no
//! oracle model can say where that happens, so such programs stay mismatches.

use super::alu;

/// One known deviation.
#[derive(Clone, Copy, Debug)]
pub struct Deviation {
    /// A part of the device name it applies to (case-insensitive).
    pub device: &'static str,
    /// A short name, for the summary.
    pub name: &'static str,
    /// What the driver does and why it is wrong, with the minimal proof.
    pub reason: &'static str,
    model: Model,
}

#[derive(Clone, Copy, Debug)]
enum Model {
    FoldAddZero,
    NegatedZeroLost,
}

/// The known deviations.
pub const DEVIATIONS: &[Deviation] = &[
    Deviation {
        device: "llvmpipe",
        name: "fadd-zero-fold",
        reason: "folds `OpFAdd x, 0.0` (a +0.0 known at compile time, also through constant \
             folding) to `x`, so -0 + +0 gives -0, although the module declares \
             `SignedZeroInfNanPreserve 32` and IEEE 754 round-to-nearest gives +0; proved by \
             fixtures/conformance/differential/driver_llvmpipe_fadd_zero.toml (plain SPIR-V, no \
             translator)",
        model: Model::FoldAddZero,
    },
    Deviation {
        device: "llvmpipe",
        name: "fneg-zero-lost",
        reason:
            "gives +0 for `OpFNegate` of a vector lane that is +0 (seen after a bitwise and with \
             a constant, the translator's `-|x|`), although negation flips a zero's sign and the \
             module declares `SignedZeroInfNanPreserve 32`; proved by \
             fixtures/conformance/differential/driver_llvmpipe_fneg_zero.toml (plain SPIR-V, no \
             translator, no FAbs)",
        model: Model::NegatedZeroLost,
    },
];

impl Deviation {
    /// Runs `f` with the oracle computing as the deviating device does.
    pub fn model<T>(&self, f: impl FnOnce() -> T) -> T {
        match self.model {
            Model::FoldAddZero => alu::fold_add_zero(f),
            Model::NegatedZeroLost => alu::lose_negated_zero(f),
        }
    }

    /// Whether it applies to the device named `device`.
    pub fn applies_to(&self, device: &str) -> bool {
        device.to_lowercase().contains(&self.device.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fold_model_changes_only_adds_of_a_positive_zero() {
        let d = DEVIATIONS[0];
        assert!(d.applies_to("llvmpipe (LLVM 15.0.6, 256 bits)"));
        assert!(!d.applies_to("NVIDIA H200"));
        let add = |a: f32, b: f32| alu::float_binary("add", a, b);
        assert_eq!(d.model(|| add(-0.0, 0.0)), Some(0x8000_0000));
        assert_eq!(d.model(|| add(-0.0, -0.0)), Some(0x8000_0000));
        assert_eq!(d.model(|| add(1.5, 2.0)), add(1.5, 2.0));
        assert_eq!(add(-0.0, 0.0), Some(0));
    }

    #[test]
    fn every_deviation_is_named_once_and_applies_to_its_device() {
        for (i, d) in DEVIATIONS.iter().enumerate() {
            assert!(d.applies_to(&d.device.to_uppercase()), "{}", d.name);
            assert!(
                DEVIATIONS[..i].iter().all(|e| e.name != d.name),
                "{} twice",
                d.name
            );
        }
        assert!(!alu::negated_zero_lost());
        assert!(DEVIATIONS[1].model(alu::negated_zero_lost));
    }
}
