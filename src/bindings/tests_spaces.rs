//! Unit tests of the default layout ([`SpacesBindings`]) and of [`Bindings`]' choices. Expected
//! values follow `docs/bindings.md` ("The default layout"): set = space; inside a set `b` at 0,
//! `s` at 16, `t` at 32, `u` at 160, UAV counters at 224 for registers inside D3D11.1's slot
//! counts (14, 16, 128, 64, 64), and `288 + 5·(register − slots) + kind` past them, kind
//! 0 `b`, 1 `t`, 2 `u`, 3 `s`, 4 counter.

use super::*;
use ResourceKind::{
    ConstantBuffer as B, Sampler as S, ShaderResource as T, UavCounter, UnorderedAccess as U,
};

fn desc(set: u32, binding: u32, count: Count) -> BindingTarget {
    BindingTarget::Descriptor(VulkanBinding {
        set,
        binding,
        array_offset: 0,
        descriptor_count: count,
    })
}

#[test]
fn bindings_spaces_single_registers_of_space_0_are_the_d3d11_layout() {
    let spaces = SpacesBindings::default();
    let d3d11 = D3d11Bindings::default();
    for kind in ResourceKind::ALL {
        let (_, slots) = D3d11Bindings::block(kind);
        for register in 0..slots {
            let range = RegisterRange::single(kind, 0, register);
            assert_eq!(spaces.map(&range), d3d11.map(&range), "{range}");
        }
    }
    // By hand: b13 → 13, s0 → 16, t127 → 159, u0 → 160, counter u63 → 287.
    let cases = [
        (RegisterRange::single(B, 0, 13), 13),
        (RegisterRange::single(S, 0, 0), 16),
        (RegisterRange::single(T, 0, 127), 159),
        (RegisterRange::single(U, 0, 0), 160),
        (RegisterRange::single(UavCounter, 0, 63), 287),
    ];
    for (range, binding) in cases {
        assert_eq!(spaces.map(&range), Ok(desc(0, binding, Count::Bounded(1))));
    }
}

#[test]
fn bindings_spaces_set_is_the_space_and_ranges_are_arrays() {
    let m = SpacesBindings::default();
    // t0..t1000 space1: set 1, binding 32, an array of 1001.
    let big = RegisterRange::bounded(T, 1, 0, 1001);
    assert_eq!(m.map(&big), Ok(desc(1, 32, Count::Bounded(1001))));
    // t10.. (unbounded) space3: set 3, binding 42, a runtime array.
    let open = RegisterRange::unbounded(T, 3, 10);
    assert_eq!(m.map(&open), Ok(desc(3, 42, Count::Unbounded)));
    // b0 space1 (the refused shader): set 1, binding 0.
    let cb = RegisterRange::single(B, 1, 0);
    assert_eq!(m.map(&cb), Ok(desc(1, 0, Count::Bounded(1))));
    // u2..u5 counters space2: set 2, binding 226, an array of 4.
    let counters = RegisterRange::bounded(U, 2, 2, 4).counter();
    assert_eq!(m.map(&counters), Ok(desc(2, 226, Count::Bounded(4))));
    // With the first set moved: space 2 is set 7.
    let moved = SpacesBindings::with_first_set(5);
    assert_eq!(moved.map(&cb), Ok(desc(6, 0, Count::Bounded(1))));
}

/// `b16` would be binding 16 by `base + register`, which is `s0`'s; past D3D11's 14 constant
/// buffers it goes to the interleaved region instead, so a shader declaring both binds.
#[test]
fn bindings_spaces_registers_past_the_d3d11_slots_do_not_collide() {
    let m = SpacesBindings::default();
    let at = |range: RegisterRange| m.map(&range).ok().and_then(BindingTarget::descriptor);
    // b16: 288 + 5·(16 − 14) + 0 = 298; s0 stays 16.
    assert_eq!(
        at(RegisterRange::single(B, 0, 16)).map(|b| b.binding),
        Some(298)
    );
    assert_eq!(
        at(RegisterRange::single(S, 0, 0)).map(|b| b.binding),
        Some(16)
    );
    // t128 (would be u0's 160): 288 + 0 + 1 = 289; u64 (would be counter u0's 224): 290;
    // s16: 291; counter u64: 292; t200..t299: 288 + 5·72 + 1 = 649, an array of 100.
    let cases = [
        (RegisterRange::single(T, 0, 128), 289),
        (RegisterRange::single(U, 0, 64), 290),
        (RegisterRange::single(S, 0, 16), 291),
        (RegisterRange::single(UavCounter, 0, 64), 292),
        (RegisterRange::bounded(T, 0, 200, 100), 649),
    ];
    for (range, binding) in cases {
        assert_eq!(at(range).map(|b| b.binding), Some(binding), "{range}");
    }
    // One-to-one over every kind and the first 400 registers.
    let mut seen = std::collections::HashSet::new();
    for kind in ResourceKind::ALL {
        for register in 0..400 {
            let binding = SpacesBindings::binding(kind, register).expect("in range");
            assert!(
                seen.insert(binding),
                "{kind:?} {register} → {binding} twice"
            );
        }
    }
}

/// A register so high that its binding would pass 2^32 − 1 is the one range the layout cannot
/// place; so is a space past the last set.
#[test]
fn bindings_spaces_overflow_is_invalid_naming_the_range() {
    let m = SpacesBindings::default();
    let high = RegisterRange::single(T, 0, u32::MAX);
    assert_eq!(
        m.map(&high),
        Err(BindingError::Invalid {
            range: high,
            reason: "its binding would be past 4294967295",
        })
    );
    let space = RegisterRange::single(T, 1, 0);
    assert!(matches!(
        SpacesBindings::with_first_set(u32::MAX).map(&space),
        Err(BindingError::Invalid { .. })
    ));
    assert!(m.map(&RegisterRange::bounded(T, 0, 0, 0)).is_err());
}

#[test]
fn bindings_auto_maps_as_the_default_layout_and_is_the_default() {
    assert_eq!(Bindings::default(), Bindings::Auto);
    let range = RegisterRange::bounded(S, 2, 4, 3);
    assert_eq!(
        Bindings::Auto.map(&range),
        SpacesBindings::default().map(&range)
    );
    assert_eq!(
        Bindings::Spaces(SpacesBindings::default()).map(&range),
        Ok(desc(2, 20, Count::Bounded(3)))
    );
}

#[cfg(feature = "dxbc")]
#[test]
fn bindings_auto_resolves_to_the_embedded_root_signature_or_the_default_layout() {
    use crate::front::dxbc::rts0::{RootSignature, RootSignatureFlags, Version};
    use crate::ir::Stage;
    let empty = RootSignature {
        version: Version::V1_0,
        flags: RootSignatureFlags(0),
        parameters: Vec::new(),
        static_samplers: Vec::new(),
    };
    let resolved = Bindings::Auto
        .resolve(Stage::Pixel, None)
        .expect("resolves");
    assert_eq!(*resolved, Bindings::Spaces(SpacesBindings::default()));
    let resolved = Bindings::Auto
        .resolve(Stage::Pixel, Some(&empty))
        .expect("resolves");
    let Bindings::Table(table) = &*resolved else {
        panic!("a table: {resolved:?}");
    };
    assert!(table.entries().is_empty());
    // An explicit choice ignores the embedded root signature.
    let d3d11 = Bindings::D3d11(D3d11Bindings::default());
    let resolved = d3d11.resolve(Stage::Pixel, Some(&empty)).expect("resolves");
    assert_eq!(*resolved, d3d11);
    let given = Bindings::RootSignature(Box::new(empty));
    assert!(matches!(
        *given.resolve(Stage::Compute, None).expect("resolves"),
        Bindings::Table(_)
    ));
}

/// With [`RootConstantsAs::UniformBuffers`] (an option; [`Bindings::Auto`] uses push constants), root constants are
/// root-set uniform buffers numbered with the root descriptors: constants `b0`, then root CBV
/// `b1`, then the static sampler, are bindings 0, 1, 2 of set 0; a pixel shader does not see a
/// vertex-only parameter, but it still counts.
#[cfg(feature = "dxbc")]
#[test]
fn bindings_root_constants_as_uniform_buffers_in_the_root_set() {
    use crate::front::dxbc::rts0::{
        ParameterKind, RootConstants, RootDescriptor, RootParameter, RootSignature,
        RootSignatureFlags, ShaderVisibility, Version,
    };
    use crate::ir::Stage;
    let param = |visibility, kind| RootParameter {
        offset: 0,
        visibility,
        kind,
    };
    let rs = RootSignature {
        version: Version::V1_0,
        flags: RootSignatureFlags(0),
        parameters: vec![
            param(
                ShaderVisibility::Vertex,
                ParameterKind::Cbv(RootDescriptor {
                    offset: 0,
                    register: 5,
                    space: 0,
                    flags: None,
                }),
            ),
            param(
                ShaderVisibility::All,
                ParameterKind::Constants(RootConstants {
                    offset: 0,
                    register: 0,
                    space: 0,
                    count: 4,
                }),
            ),
            param(
                ShaderVisibility::Pixel,
                ParameterKind::Cbv(RootDescriptor {
                    offset: 0,
                    register: 1,
                    space: 0,
                    flags: None,
                }),
            ),
        ],
        static_samplers: Vec::new(),
    };
    assert_eq!(
        RootSignatureOptions::for_stage(Stage::Pixel).root_constants,
        RootConstantsAs::PushConstants
    );
    let options = RootSignatureOptions {
        root_constants: RootConstantsAs::UniformBuffers,
        ..RootSignatureOptions::for_stage(Stage::Pixel)
    };
    let table = TableBindings::from_root_signature(&rs, &options).expect("lays out");
    let b = |register| table.map(&RegisterRange::single(B, 0, register));
    assert_eq!(b(0), Ok(desc(0, 1, Count::Bounded(1))));
    assert_eq!(b(1), Ok(desc(0, 2, Count::Bounded(1))));
    assert_eq!(
        b(5),
        Err(BindingError::Unmapped {
            range: RegisterRange::single(B, 0, 5)
        })
    );
    // The default keeps push constants, off the root bindings.
    let push = TableBindings::from_root_signature(&rs, &RootSignatureOptions::default())
        .expect("lays out");
    assert!(matches!(
        push.map(&RegisterRange::single(B, 0, 0)),
        Ok(BindingTarget::PushConstants(_))
    ));
    assert_eq!(
        push.map(&RegisterRange::single(B, 0, 1)),
        Ok(desc(0, 1, Count::Bounded(1)))
    );
}
