//! Runtime-provided values: pipeline state a shader depends on that the runtime gives when it
//! creates or draws with the pipeline ([`Parameter`], read through
//! [`Reg::Parameter`](super::Reg::Parameter)).
//!
//! Contract: a parameter is up to four 32-bit components of one [`ComponentType`], named by its
//! meaning ([`Parameter::name`]), and comes from one [`ParameterSource`]: bits fixed at
//! translation, specialization constants (one `SpecId` per component: `first_id + c`), or
//! words of the push-constant block (component `c` at byte `offset + 4·c`). Reading
//! `Reg::Parameter(i)` gives the words of parameter `i` as a register does; components past
//! [`Parameter::count`] read 0.

use super::module::ComponentType;

/// Where a [`Parameter`]'s value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParameterSource {
    /// Fixed at translation: these bits (an `OpConstant`).
    Immediate([u32; 4]),
    /// Specialization constants: component `c` is the `OpSpecConstant` decorated
    /// `SpecId first_id + c`, holding `defaults[c]` unless the pipeline specializes it.
    Spec {
        /// The `SpecId` of component 0.
        first_id: u32,
        /// The bits each component holds when the pipeline does not set it.
        defaults: [u32; 4],
    },
    /// Push constants: component `c` is the 32-bit word at byte `offset + 4·c` of the
    /// push-constant block (`offset` a multiple of 4).
    Push {
        /// Byte offset of component 0.
        offset: u32,
    },
}

/// A value the runtime provides (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Parameter {
    /// What it is (`alpha_ref`, `fog_color`, ...): names the value in the printed IR, in
    /// errors and as the SPIR-V debug name.
    pub name: &'static str,
    /// The type of its components.
    pub component_type: ComponentType,
    /// Its components (1–4).
    pub count: u8,
    /// Where it comes from.
    pub source: ParameterSource,
}

impl Parameter {
    /// The SpecIds it uses (empty unless it is a specialization constant).
    pub fn spec_ids(&self) -> std::ops::Range<u32> {
        match self.source {
            ParameterSource::Spec { first_id, .. } => {
                first_id..first_id.saturating_add(u32::from(self.count))
            }
            _ => 0..0,
        }
    }

    /// The push-constant bytes it reads, `(offset, size)`, when it comes from push constants.
    pub fn push_range(&self) -> Option<(u32, u32)> {
        match self.source {
            ParameterSource::Push { offset } => Some((offset, 4 * u32::from(self.count))),
            _ => None,
        }
    }
}
