//! Which user (non-system-value) interface variables a stage declares: signature elements
//! covered by declarations, split so that no two overlap.

use crate::ir;

/// One user input or output variable to declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Element {
    /// Register.
    pub register: u32,
    /// Components (contiguous, non-empty).
    pub mask: u8,
    /// Component type.
    pub component_type: ir::ComponentType,
    /// Interpolation mode of the declaration (pixel-shader inputs).
    pub interpolation: ir::Interpolation,
    /// Geometry-shader stream.
    pub stream: u8,
}

/// Signature system values that are plain registers to the shader (none, and `SV_Target`).
fn is_user(system_value: ir::SystemValue) -> bool {
    matches!(
        system_value,
        ir::SystemValue::None | ir::SystemValue::Target
    )
}

/// The user elements of one side. Each declaration without a system value claims the signature
/// elements of its register that it touches (whole elements, so both sides of a stage boundary
/// declare the same variables); components no element covers become float elements of their own.
/// Components claimed twice are dropped from the later element, and every element is split into
/// contiguous runs.
pub(crate) fn user_elements(
    decls: &[ir::IoDecl],
    sig: &[ir::SignatureElement],
    input: bool,
) -> Vec<Element> {
    let mut out: Vec<Element> = Vec::new();
    // Claimed components per (register, stream).
    let mut claimed: Vec<(u32, u8, u8)> = Vec::new();
    let mut claim = |register: u32, stream: u8, mask: u8| -> u8 {
        if let Some(c) = claimed
            .iter_mut()
            .find(|c| c.0 == register && c.1 == stream)
        {
            let free = mask & !c.2;
            c.2 |= free;
            free
        } else {
            claimed.push((register, stream, mask));
            mask
        }
    };
    for d in decls {
        if d.system_value != ir::SystemValue::None {
            continue;
        }
        let stream = if input { 0 } else { d.stream };
        let matching = sig.iter().filter(|e| {
            e.register == d.register
                && e.mask & d.mask != 0
                && is_user(e.system_value)
                && (input || e.stream == stream)
        });
        let mut covered = 0u8;
        for e in matching {
            covered |= e.mask;
            let free = claim(d.register, stream, e.mask & 0xf);
            push_runs(&mut out, d, free, e.component_type, stream);
        }
        let rest = claim(d.register, stream, d.mask & !covered & 0xf);
        push_runs(&mut out, d, rest, ir::ComponentType::Float, stream);
    }
    merge_registers(out)
}

/// One variable per register (and stream): Vulkan requires the variables that share a location
/// to agree in component type and interpolation (the GLSL and Vulkan location-aliasing rules),
/// while D3D packs elements of different types into one register. D3D interpolates a register
/// one way (fxc packs only elements with the same mode together), so the merged variable spans
/// the components from the first to the last claimed one, with the elements' common type, or
/// `uint` when they differ (such registers are `constant`-interpolated: the words pass through
/// bit for bit).
fn merge_registers(elements: Vec<Element>) -> Vec<Element> {
    let mut out: Vec<Element> = Vec::with_capacity(elements.len());
    for e in elements {
        if let Some(m) = out
            .iter_mut()
            .find(|m| m.register == e.register && m.stream == e.stream)
        {
            if m.component_type != e.component_type {
                m.component_type = ir::ComponentType::Uint;
            }
            m.mask |= e.mask;
        } else {
            out.push(e);
        }
    }
    for m in &mut out {
        let lo = m.mask.trailing_zeros();
        let hi = 7 - m.mask.leading_zeros();
        m.mask = (((1u16 << (hi + 1)) - (1u16 << lo)) & 0xf) as u8;
    }
    out
}

/// The contiguous runs of `mask` (bit 0 = x), lowest first.
pub(crate) fn runs(mask: u8) -> Vec<u8> {
    let mut out = Vec::new();
    let mut c = 0;
    while c < 4 {
        if mask & (1 << c) == 0 {
            c += 1;
            continue;
        }
        let start = c;
        while c < 4 && mask & (1 << c) != 0 {
            c += 1;
        }
        out.push(((1u8 << (c - start)) - 1) << start);
    }
    out
}

/// Appends one element per contiguous run of `mask`.
fn push_runs(
    out: &mut Vec<Element>,
    d: &ir::IoDecl,
    mask: u8,
    component_type: ir::ComponentType,
    stream: u8,
) {
    let mut c = 0;
    while c < 4 {
        if mask & (1 << c) == 0 {
            c += 1;
            continue;
        }
        let start = c;
        while c < 4 && mask & (1 << c) != 0 {
            c += 1;
        }
        let run = ((1u8 << (c - start)) - 1) << start;
        out.push(Element {
            register: d.register,
            mask: run,
            component_type,
            interpolation: d.interpolation,
            stream,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ir::Interpolation::{Constant, Linear};

    fn decl(register: u32, mask: u8, interpolation: ir::Interpolation) -> ir::IoDecl {
        ir::IoDecl {
            register,
            mask,
            system_value: ir::SystemValue::None,
            interpolation,
            stream: 0,
            span: 0,
        }
    }

    fn sig(register: u32, mask: u8, t: ir::ComponentType) -> ir::SignatureElement {
        ir::SignatureElement {
            register,
            mask,
            system_value: ir::SystemValue::None,
            semantic_index: 0,
            component_type: t,
            stream: 0,
        }
    }

    #[test]
    fn one_variable_per_register_with_a_common_type() {
        use ir::ComponentType::*;
        // TEXCOORD0 v1.xy float and TEXCOORD1 v1.z uint (both constant); the shader reads v1.x
        // and v1.z: one uint variable over .xyz.
        let sigs = [sig(1, 0b0011, Float), sig(1, 0b0100, Uint)];
        let decls = [decl(1, 0b0001, Constant), decl(1, 0b0100, Constant)];
        let got = user_elements(&decls, &sigs, true);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].mask, got[0].component_type), (0b0111, Uint));
        assert_eq!(got[0].interpolation, Constant);
        // Two float elements stay float.
        let sigs = [sig(2, 0b0011, Float), sig(2, 0b1100, Float)];
        let decls = [decl(2, 0b0011, Linear), decl(2, 0b1000, Linear)];
        let got = user_elements(&decls, &sigs, true);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].mask, got[0].component_type), (0b1111, Float));
    }

    /// Stage linking declares one variable per contiguous run of the written components.
    #[test]
    fn runs_split_a_mask_into_contiguous_pieces() {
        assert_eq!(runs(0b0000), Vec::<u8>::new());
        assert_eq!(runs(0b1111), [0b1111]);
        assert_eq!(runs(0b0101), [0b0001, 0b0100]);
        assert_eq!(runs(0b1101), [0b0001, 0b1100]);
        assert_eq!(runs(0b0110), [0b0110]);
    }

    #[test]
    fn without_signature_a_register_spans_its_declared_components() {
        let decls = [decl(0, 0b1001, Linear), decl(3, 0b0010, Linear)];
        let got = user_elements(&decls, &[], false);
        let masks: Vec<(u32, u8)> = got.iter().map(|e| (e.register, e.mask)).collect();
        assert_eq!(masks, [(0, 0b1111), (3, 0b0010)]);
    }
}
