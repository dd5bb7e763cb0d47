//! Stage linking and workaround switches a runtime sets per pipeline ([`StageLinking`],
//! [`Workarounds`]; `docs/runtime.md`, "Stage linking and workarounds"), and their resolution
//! against the shader's signatures into the back end's [`Linking`].
//!
//! Contract: the defaults resolve to [`Linking::default`], which changes no byte of any module.
//! With [`StageLinking::previous_outputs`] set, every user input register gets the location and
//! the written components of what the previous stage (a vertex shader: the input layout) writes:
//! by register, or by semantic (name case-insensitively, and index, as D3D matches them) with
//! [`StageLinking::remap_by_semantic`]. The caller's mistakes are errors named
//! `Options::linking`.

use crate::back::spirv::{ForcedBarriers, LinkedInput, Linking, WorkgroupZeroInit};
use crate::error::Error;
use crate::front::{Semantic, Semantics};
use crate::ir::{ComponentType, InputPrimitive, MAX_IO_REGISTERS};

/// How a shader's inputs link to the stage before it (D3D rules in `docs/runtime.md`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageLinking {
    /// What the previous stage writes: its output signature ([`crate::ShaderInfo::outputs`]
    /// of its translation), or, for a vertex shader, the input layout's elements (`register`
    /// = the attribute location, `mask` = the components the format has, name and index = the
    /// element's semantic). Inputs nothing here writes read 0, as in D3D, instead of the
    /// undefined values (or invalid pipeline) Vulkan gives; a vertex-shader input is either
    /// there (Vulkan fills the components the format lacks with (0, 0, 0, 1), as D3D does) or
    /// reads 0. `None` (the default): every input is declared at its register's location.
    pub previous_outputs: Option<Vec<Semantic>>,
    /// Pair inputs with [`StageLinking::previous_outputs`] by semantic: an input reads the
    /// location of the output with its semantic name and index instead of its own register
    /// number. The components keep their place in the register.
    pub remap_by_semantic: bool,
    /// Pixel-shader input locations (bit n = location n) to declare `Flat` whatever their
    /// interpolation mode (D3D9-style flat shading, integer data in a float input).
    pub flat_locations: u32,
    /// Input locations whose variable is declared with another component type than the
    /// signature's, as `(location, type)`: a vertex input fed by an integer format while the
    /// shader declares float, or the reverse (Vulkan requires the numeric types to match). The
    /// shader sees the bits: D3D10+'s input assembler never converts between integer and
    /// float.
    pub input_types: Vec<(u32, ComponentType)>,
    /// Geometry shaders: the primitive the draw feeds, when it differs from
    /// `dcl_inputprimitive`. The module declares the draw's primitive; each vertex the shader
    /// declares reads the draw's vertex `crate::back::spirv` maps it to (same primitive:
    /// vertex to vertex; a primitive and its adjacency form: the primitive's own vertices;
    /// otherwise vertex `i` for the vertices both have), the others read 0.
    pub geometry_input: Option<InputPrimitive>,
}

/// Workarounds for games that depend on what their D3D driver did where D3D leaves the result
/// undefined. All off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Workarounds {
    /// Zero-initialise thread-group shared memory (`g#`), and how.
    pub workgroup_zero_init: WorkgroupZeroInit,
    /// Barriers after `g#` (and UAV) writes in compute shaders.
    pub forced_barriers: ForcedBarriers,
    /// Decorate the `Position` output `Invariant` (positions computed the same way in two
    /// pipelines are bit-identical, as depth-prepass techniques expect).
    pub invariant_position: bool,
}

/// The back end's [`Linking`] for a module with `semantics`.
pub(crate) fn resolve(
    linking: &StageLinking,
    workarounds: &Workarounds,
    semantics: &Semantics,
) -> Result<Linking, Error> {
    let mut input_types = [None; 32];
    for &(location, t) in &linking.input_types {
        let slot = input_types
            .get_mut(location as usize)
            .ok_or_else(|| caller(format!("input type for location {location} (at most 31)")))?;
        *slot = Some(t);
    }
    let inputs = match &linking.previous_outputs {
        None => None,
        Some(previous) => Some(linked_inputs(
            previous,
            linking.remap_by_semantic,
            &semantics.inputs,
        )?),
    };
    Ok(Linking {
        inputs,
        flat_locations: linking.flat_locations,
        input_types,
        geometry_input: linking.geometry_input,
        workgroup_zero_init: workarounds.workgroup_zero_init,
        forced_barriers: workarounds.forced_barriers,
        invariant_position: workarounds.invariant_position,
    })
}

/// An error in the caller's linking options.
fn caller(message: String) -> Error {
    Error::invalid(0, message).with_instruction("Options::linking")
}

/// Per input register: its location and the components written there.
fn linked_inputs(
    previous: &[Semantic],
    by_semantic: bool,
    inputs: &[Semantic],
) -> Result<[LinkedInput; 32], Error> {
    // Inputs the signature does not describe (no ISGN) keep their register and read what the
    // previous stage writes there.
    let by_semantic = by_semantic && !inputs.is_empty();
    let mut out = [LinkedInput::default(); 32];
    for (r, slot) in (0..MAX_IO_REGISTERS).zip(out.iter_mut()) {
        slot.location = r;
        if !by_semantic {
            slot.written = previous
                .iter()
                .filter(|o| o.register == r)
                .fold(0, |m, o| m | o.mask);
            continue;
        }
        let mut location = None;
        for input in inputs.iter().filter(|i| i.register == r) {
            // System values are built-ins, not locations.
            if input
                .name
                .get(..3)
                .is_some_and(|p| p.eq_ignore_ascii_case("SV_"))
            {
                continue;
            }
            let Some(output) = previous
                .iter()
                .find(|o| o.index == input.index && o.name.eq_ignore_ascii_case(&input.name))
            else {
                continue;
            };
            if location.is_some_and(|l| l != output.register) {
                return Err(Error::unsupported(
                    0,
                    format!(
                        "stage linking: input register v{r} packs semantics the previous \
                         stage writes to different registers"
                    ),
                )
                .with_instruction("Options::linking"));
            }
            location = Some(output.register);
            slot.written |= output.mask & input.mask;
        }
        if let Some(l) = location {
            slot.location = l;
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "linking_tests.rs"]
mod tests;
