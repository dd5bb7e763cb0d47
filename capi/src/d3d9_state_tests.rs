//! Conversion of [`dxbc2spv_d3d9_state`]: all zero is the Rust default, each form converts to
//! its `StateValue`, and bad values are errors naming the field.

use super::*;

fn zero() -> dxbc2spv_d3d9_state {
    // SAFETY: every field is an integer, an array of them or a pointer, for which all-zero
    // bytes are valid (NULL).
    let mut b: dxbc2spv_d3d9_state = unsafe { std::mem::zeroed() };
    b.stype = DXBC2SPV_STRUCTURE_TYPE_D3D9_STATE;
    b
}

fn v(form: u32, id_or_offset: u32, bits: [u32; 4]) -> dxbc2spv_state_value {
    dxbc2spv_state_value {
        form,
        id_or_offset,
        bits,
    }
}

fn error(b: &dxbc2spv_d3d9_state) -> String {
    d3d9_state(b).err().map(|f| f.message).unwrap_or_default()
}

#[test]
fn all_zero_is_the_rust_default() {
    let s = d3d9_state(&zero()).map_err(|f| f.message);
    assert_eq!(s, Ok(D3d9State::default()));
    // The defaults that are not zero come through the zero form.
    let s = s.unwrap_or_default();
    assert_eq!(s.alpha_test.precision_bits, 8);
    assert_eq!(s.alpha_test.func, StateValue::Immediate(8));
    assert_eq!(s.fog.end, StateValue::Immediate(1.0));
    assert_eq!(s.point_size, None);
}

#[test]
fn each_form_converts() {
    let mut b = zero();
    b.sampler_types = v(DXBC2SPV_STATE_IMMEDIATE, 0, [0b0110, 0, 0, 0]);
    b.fetch4 = v(DXBC2SPV_STATE_PUSH, 16, [0; 4]);
    b.alpha_test_func = v(DXBC2SPV_STATE_SPEC, 7, [5, 0, 0, 0]);
    b.has_alpha_test_precision_bits = 1;
    b.alpha_test_precision_bits = 0;
    b.fog_mode = DXBC2SPV_FOG_TABLE_EXP2;
    b.fog_depth = DXBC2SPV_FOG_DEPTH_W;
    b.fog_color = v(
        DXBC2SPV_STATE_IMMEDIATE,
        0,
        [0.5f32.to_bits(), 1.0f32.to_bits(), 0.25f32.to_bits(), 0],
    );
    b.fog_density = v(DXBC2SPV_STATE_SPEC, 3, [2.0f32.to_bits(), 0, 0, 0]);
    b.clip_planes[2] = v(DXBC2SPV_STATE_PUSH, 32, [0; 4]);
    b.bump_env[5].matrix = v(
        DXBC2SPV_STATE_IMMEDIATE,
        0,
        [1.0f32.to_bits(), 0, 0, 1.0f32.to_bits()],
    );
    b.has_point_size = 1;
    b.point_size_max = v(DXBC2SPV_STATE_IMMEDIATE, 0, [256.0f32.to_bits(), 0, 0, 0]);
    b.point_sprite = v(DXBC2SPV_STATE_SPEC, 9, [1, 0, 0, 0]);
    b.flat_shading = 1;
    let s = d3d9_state(&b).map_err(|f| f.message);
    assert!(s.is_ok(), "{s:?}");
    let s = s.unwrap_or_default();
    assert_eq!(s.sampler_types, StateValue::Immediate(0b0110));
    assert_eq!(s.fetch4, StateValue::Push { offset: 16 });
    assert_eq!(s.alpha_test.func, StateValue::Spec { id: 7, default: 5 });
    assert_eq!(s.alpha_test.precision_bits, 0);
    assert_eq!(s.fog.mode, FogMode::Table(FogFunction::Exp2));
    assert_eq!(s.fog.depth, FogDepth::W);
    assert_eq!(s.fog.color, StateValue::Immediate([0.5, 1.0, 0.25]));
    assert_eq!(
        s.fog.density,
        StateValue::Spec {
            id: 3,
            default: 2.0
        }
    );
    assert_eq!(s.clip_planes.planes[2], StateValue::Push { offset: 32 });
    assert_eq!(s.clip_planes.planes[1], StateValue::Immediate([0.0; 4]));
    assert_eq!(
        s.bump_env[5].matrix,
        StateValue::Immediate([1.0, 0.0, 0.0, 1.0])
    );
    let ps = s.point_size.unwrap_or_default();
    assert_eq!(ps.size, StateValue::Immediate(1.0), "D3D9's default size");
    assert_eq!(ps.min, StateValue::Immediate(1.0));
    assert_eq!(ps.max, StateValue::Immediate(256.0));
    assert_eq!(
        s.point_sprite,
        StateValue::Spec {
            id: 9,
            default: true
        }
    );
    assert!(s.flat_shading && !s.software_vertex_processing);
}

#[test]
fn bad_values_are_named() {
    let mut b = zero();
    b.fog_start.form = 4;
    assert_eq!(
        error(&b),
        "options: d3d9_state.fog_start.form = 4 is not a DXBC2SPV_STATE_* value"
    );
    let mut b = zero();
    b.bump_env[3].luminance_offset = v(DXBC2SPV_STATE_PUSH, 6, [0; 4]);
    assert!(
        error(&b).contains("d3d9_state.bump_env[3].luminance_offset.id_or_offset = 6"),
        "{}",
        error(&b)
    );
    let mut b = zero();
    b.point_sprite = v(DXBC2SPV_STATE_IMMEDIATE, 0, [2, 0, 0, 0]);
    assert!(error(&b).contains("point_sprite.bits[0] = 2 is not a bool"));
    let mut b = zero();
    b.fog_color = v(DXBC2SPV_STATE_IMMEDIATE, 0, [0, 0, 0, 1]);
    assert!(error(&b).contains("fog_color.bits"), "{}", error(&b));
    let mut b = zero();
    b.depth_compare = v(DXBC2SPV_STATE_DEFAULT, 0, [1, 0, 0, 0]);
    assert!(error(&b).contains("depth_compare has form DXBC2SPV_STATE_DEFAULT"));
    let mut b = zero();
    b.fog_mode = 5;
    assert!(error(&b).contains("d3d9_state.fog_mode = 5"));
    let mut b = zero();
    b.has_alpha_test_precision_bits = 1;
    b.alpha_test_precision_bits = 17;
    assert!(error(&b).contains("alpha_test_precision_bits = 17 exceeds 16"));
    let mut b = zero();
    b.point_size_min = v(DXBC2SPV_STATE_IMMEDIATE, 0, [0; 4]);
    assert!(error(&b).contains("point_size_min is set without has_point_size"));
    let mut b = zero();
    b.software_vertex_processing = 2;
    assert!(error(&b).contains("software_vertex_processing = 2 is not 0 or 1"));
}
