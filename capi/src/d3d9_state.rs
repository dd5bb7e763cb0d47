//! The Direct3D 9 pipeline-state block: [`dxbc2spv_d3d9_state`] holds every field of the Rust
//! `Options::d3d9_state` ([`D3d9State`]), each runtime value as a [`dxbc2spv_state_value`].
//!
//! Contract: all zero is [`D3d9State::default`] (the form [`DXBC2SPV_STATE_DEFAULT`] and the
//! `has_*` fields 0 take each field's Rust default); every value is checked (an unknown form,
//! enumeration value or flag, a bool that is not 0 or 1, a push offset that is not a multiple
//! of 4, a word the form does not use that is not 0) and a wrong one is an error naming the
//! field.

use std::ffi::c_void;

use translator::d3d9_state::{
    AlphaTest, BumpEnv, ClipPlanes, Fog, FogDepth, FogFunction, FogMode, PointSize, StateBits,
};
use translator::{D3d9State, Options, StateValue};

use crate::Failure;

/// `stype` of [`dxbc2spv_d3d9_state`].
pub const DXBC2SPV_STRUCTURE_TYPE_D3D9_STATE: u32 = 14;

/// The field's Rust default (all of [`dxbc2spv_state_value`] zero).
pub const DXBC2SPV_STATE_DEFAULT: u32 = 0;
/// Known at translation: `bits` (`id_or_offset` 0).
pub const DXBC2SPV_STATE_IMMEDIATE: u32 = 1;
/// A specialization constant: `id_or_offset` is the `SpecId` of the first component,
/// `bits` the default.
pub const DXBC2SPV_STATE_SPEC: u32 = 2;
/// Push-constant words: `id_or_offset` is the byte offset of the first component (a multiple
/// of 4; `bits` 0).
pub const DXBC2SPV_STATE_PUSH: u32 = 3;

/// No fog (the default).
pub const DXBC2SPV_FOG_OFF: u32 = 0;
/// Vertex fog: the factor the vertex shader wrote to `oFog`.
pub const DXBC2SPV_FOG_VERTEX: u32 = 1;
/// Table fog, `D3DFOG_LINEAR`.
pub const DXBC2SPV_FOG_TABLE_LINEAR: u32 = 2;
/// Table fog, `D3DFOG_EXP`.
pub const DXBC2SPV_FOG_TABLE_EXP: u32 = 3;
/// Table fog, `D3DFOG_EXP2`.
pub const DXBC2SPV_FOG_TABLE_EXP2: u32 = 4;

/// Table fog's depth is the window z (the default).
pub const DXBC2SPV_FOG_DEPTH_Z: u32 = 0;
/// Table fog's depth is the clip-space w ("W fog").
pub const DXBC2SPV_FOG_DEPTH_W: u32 = 1;

/// One value of the state (a Rust `StateValue`). Component `c` of a vector is `bits[c]`; a
/// float is its IEEE bits, a bool 0 or 1. All zero: the field's default.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct dxbc2spv_state_value {
    /// `DXBC2SPV_STATE_*`.
    pub form: u32,
    /// `_SPEC`: the first `SpecId`; `_PUSH`: the byte offset; otherwise 0.
    pub id_or_offset: u32,
    /// `_IMMEDIATE`: the value; `_SPEC`: the default; otherwise 0. Components past the
    /// value's count are 0.
    pub bits: [u32; 4],
}

/// Bump-environment state of one texture stage.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct dxbc2spv_bump_env {
    /// `[m00, m01, m10, m11]` (floats).
    pub matrix: dxbc2spv_state_value,
    /// `D3DTSS_BUMPENVLSCALE` (a float).
    pub luminance_scale: dxbc2spv_state_value,
    /// `D3DTSS_BUMPENVLOFFSET` (a float).
    pub luminance_offset: dxbc2spv_state_value,
}

/// The Direct3D 9 pipeline state (`docs/d3d9.md`, "Pipeline state parameters"). All zero:
/// the Rust defaults (changes nothing). API version 5.
#[repr(C)]
pub struct dxbc2spv_d3d9_state {
    /// [`DXBC2SPV_STRUCTURE_TYPE_D3D9_STATE`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// Pixel samplers' texture types, two bits each (0 2-D, 1 cube, 2 volume); a u32.
    pub sampler_types: dxbc2spv_state_value,
    /// Vertex samplers 0–3's texture types, packed the same way; a u32.
    pub vertex_sampler_types: dxbc2spv_state_value,
    /// Bit `s`: pixel sampler `s` compares depth; bits 16–19 vertex samplers; a u32.
    pub depth_compare: dxbc2spv_state_value,
    /// Bit `s`: ps_1_1–1_3 stage `s` projects (`D3DTTFF_PROJECTED`); a u32.
    pub projected: dxbc2spv_state_value,
    /// Bit `s`: pixel sampler `s` fetches four texels (Fetch4); a u32.
    pub fetch4: dxbc2spv_state_value,
    /// Bit `s`: nothing is bound at pixel sampler `s` (bits 16–19 vertex samplers); a u32.
    pub null_samplers: dxbc2spv_state_value,
    /// Bump environment of texture stages 0–5.
    pub bump_env: [dxbc2spv_bump_env; 6],
    /// The alpha test's `D3DCMPFUNC` (1–8; default 8, always); a u32.
    pub alpha_test_func: dxbc2spv_state_value,
    /// The alpha test's reference, 0–255 (default 0); a u32.
    pub alpha_test_reference: dxbc2spv_state_value,
    /// 1: `alpha_test_precision_bits` holds the precision; 0: the default, 8.
    pub has_alpha_test_precision_bits: u32,
    /// Bits of alpha in render target 0 (1–16), or 0 for a float target.
    pub alpha_test_precision_bits: u32,
    /// `DXBC2SPV_FOG_*` (default off).
    pub fog_mode: u32,
    /// `DXBC2SPV_FOG_DEPTH_*` (default z).
    pub fog_depth: u32,
    /// The fog colour, r, g, b (floats; default black).
    pub fog_color: dxbc2spv_state_value,
    /// Linear fog's start (a float; default 0).
    pub fog_start: dxbc2spv_state_value,
    /// Linear fog's end (a float; default 1).
    pub fog_end: dxbc2spv_state_value,
    /// Exponential fog's density (a float; default 1).
    pub fog_density: dxbc2spv_state_value,
    /// Bit `i`: user clip plane `i` (0–5) clips (a u32; default none).
    pub clip_planes_enabled: dxbc2spv_state_value,
    /// The planes `(a, b, c, d)` (floats; default zeros).
    pub clip_planes: [dxbc2spv_state_value; 6],
    /// 1: the vertex shader writes the point size below; 0 (the default): `PointSize = 1`
    /// as for any shader (the `point_size*` fields are then 0).
    pub has_point_size: u32,
    /// The size when the shader writes none (a float; default 1).
    pub point_size: dxbc2spv_state_value,
    /// The least size (a float; default 1).
    pub point_size_min: dxbc2spv_state_value,
    /// The largest size (a float; default 64).
    pub point_size_max: dxbc2spv_state_value,
    /// Point sprites (a bool; default false).
    pub point_sprite: dxbc2spv_state_value,
    /// 1: flat shading of the `COLOR` inputs (default 0).
    pub flat_shading: u32,
    /// 1: software vertex processing's constant-set sizes (default 0).
    pub software_vertex_processing: u32,
}

/// A value's type as C words.
trait CBits: StateBits {
    /// The value of `bits`' first `COUNT` words, or `None` when they are not one.
    fn from_bits(bits: [u32; 4]) -> Option<Self>;
}

impl CBits for u32 {
    fn from_bits(bits: [u32; 4]) -> Option<u32> {
        Some(bits[0])
    }
}

impl CBits for bool {
    fn from_bits(bits: [u32; 4]) -> Option<bool> {
        match bits[0] {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
}

impl CBits for f32 {
    fn from_bits(bits: [u32; 4]) -> Option<f32> {
        Some(f32::from_bits(bits[0]))
    }
}

impl<const N: usize> CBits for [f32; N] {
    fn from_bits(bits: [u32; 4]) -> Option<[f32; N]> {
        let mut out = [0.0; N];
        for (o, b) in out.iter_mut().zip(bits) {
            *o = f32::from_bits(b);
        }
        (N <= 4).then_some(out)
    }
}

fn bad(field: &str, what: String) -> Failure {
    Failure::invalid_argument(format!("options: d3d9_state.{field}{what}"))
}

/// The Rust value of `v`; `default` for [`DXBC2SPV_STATE_DEFAULT`].
fn value<T: CBits>(
    v: &dxbc2spv_state_value,
    default: StateValue<T>,
    field: &str,
) -> Result<StateValue<T>, Failure> {
    let used = usize::from(T::COUNT);
    let unused_bits = v.bits.iter().skip(used).any(|&b| b != 0);
    let no_bits = v.bits.iter().all(|&b| b == 0);
    let decode = || {
        if unused_bits {
            return Err(bad(
                field,
                format!(".bits = {:?}: only {used} component(s) are used", v.bits),
            ));
        }
        T::from_bits(v.bits).ok_or_else(|| {
            bad(
                field,
                format!(".bits[0] = {} is not a bool (0 or 1)", v.bits[0]),
            )
        })
    };
    match v.form {
        DXBC2SPV_STATE_DEFAULT if v.id_or_offset == 0 && no_bits => Ok(default),
        DXBC2SPV_STATE_DEFAULT => Err(bad(
            field,
            " has form DXBC2SPV_STATE_DEFAULT but non-zero id_or_offset or bits".into(),
        )),
        DXBC2SPV_STATE_IMMEDIATE if v.id_or_offset != 0 => Err(bad(
            field,
            format!(
                ".id_or_offset = {} is not 0 for an immediate",
                v.id_or_offset
            ),
        )),
        DXBC2SPV_STATE_IMMEDIATE => Ok(StateValue::Immediate(decode()?)),
        DXBC2SPV_STATE_SPEC => Ok(StateValue::Spec {
            id: v.id_or_offset,
            default: decode()?,
        }),
        DXBC2SPV_STATE_PUSH if v.id_or_offset % 4 != 0 => Err(bad(
            field,
            format!(
                ".id_or_offset = {} is not a multiple of 4 (a push-constant offset)",
                v.id_or_offset
            ),
        )),
        DXBC2SPV_STATE_PUSH if !no_bits => {
            Err(bad(field, ".bits are not 0 for a push constant".into()))
        }
        DXBC2SPV_STATE_PUSH => Ok(StateValue::Push {
            offset: v.id_or_offset,
        }),
        form => Err(bad(
            field,
            format!(".form = {form} is not a DXBC2SPV_STATE_* value"),
        )),
    }
}

fn flag(v: u32, field: &str) -> Result<bool, Failure> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(bad(field, format!(" = {v} is not 0 or 1"))),
    }
}

/// The Rust state of the block.
pub(crate) fn d3d9_state(b: &dxbc2spv_d3d9_state) -> Result<D3d9State, Failure> {
    let d = D3d9State::default();
    let mut bump_env = d.bump_env;
    for (i, (out, c)) in bump_env.iter_mut().zip(&b.bump_env).enumerate() {
        let def = BumpEnv::default();
        *out = BumpEnv {
            matrix: value(&c.matrix, def.matrix, &format!("bump_env[{i}].matrix"))?,
            luminance_scale: value(
                &c.luminance_scale,
                def.luminance_scale,
                &format!("bump_env[{i}].luminance_scale"),
            )?,
            luminance_offset: value(
                &c.luminance_offset,
                def.luminance_offset,
                &format!("bump_env[{i}].luminance_offset"),
            )?,
        };
    }
    let at = AlphaTest::default();
    let precision_bits = match (b.has_alpha_test_precision_bits, b.alpha_test_precision_bits) {
        (0, 0) => at.precision_bits,
        (0, v) => {
            return Err(bad(
                "alpha_test_precision_bits",
                format!(" = {v} without has_alpha_test_precision_bits"),
            ))
        }
        (1, v) => u8::try_from(v)
            .ok()
            .filter(|&v| v <= 16)
            .ok_or_else(|| bad("alpha_test_precision_bits", format!(" = {v} exceeds 16")))?,
        (v, _) => {
            return Err(bad(
                "has_alpha_test_precision_bits",
                format!(" = {v} is not 0 or 1"),
            ))
        }
    };
    let fog = Fog::default();
    let mode = match b.fog_mode {
        DXBC2SPV_FOG_OFF => FogMode::Off,
        DXBC2SPV_FOG_VERTEX => FogMode::Vertex,
        DXBC2SPV_FOG_TABLE_LINEAR => FogMode::Table(FogFunction::Linear),
        DXBC2SPV_FOG_TABLE_EXP => FogMode::Table(FogFunction::Exp),
        DXBC2SPV_FOG_TABLE_EXP2 => FogMode::Table(FogFunction::Exp2),
        v => {
            return Err(bad(
                "fog_mode",
                format!(" = {v} is not a DXBC2SPV_FOG_* value"),
            ))
        }
    };
    let depth = match b.fog_depth {
        DXBC2SPV_FOG_DEPTH_Z => FogDepth::Z,
        DXBC2SPV_FOG_DEPTH_W => FogDepth::W,
        v => {
            return Err(bad(
                "fog_depth",
                format!(" = {v} is not a DXBC2SPV_FOG_DEPTH_* value"),
            ))
        }
    };
    let cp = ClipPlanes::default();
    let mut planes = cp.planes;
    for (i, (out, c)) in planes.iter_mut().zip(&b.clip_planes).enumerate() {
        *out = value(c, *out, &format!("clip_planes[{i}]"))?;
    }
    let ps = PointSize::default();
    let point_size = if flag(b.has_point_size, "has_point_size")? {
        Some(PointSize {
            size: value(&b.point_size, ps.size, "point_size")?,
            min: value(&b.point_size_min, ps.min, "point_size_min")?,
            max: value(&b.point_size_max, ps.max, "point_size_max")?,
        })
    } else {
        let zero = dxbc2spv_state_value::default();
        for (field, v) in [
            ("point_size", &b.point_size),
            ("point_size_min", &b.point_size_min),
            ("point_size_max", &b.point_size_max),
        ] {
            if v.form != 0 || v.id_or_offset != 0 || v.bits != zero.bits {
                return Err(bad(field, " is set without has_point_size".into()));
            }
        }
        None
    };
    Ok(D3d9State {
        sampler_types: value(&b.sampler_types, d.sampler_types, "sampler_types")?,
        vertex_sampler_types: value(
            &b.vertex_sampler_types,
            d.vertex_sampler_types,
            "vertex_sampler_types",
        )?,
        depth_compare: value(&b.depth_compare, d.depth_compare, "depth_compare")?,
        projected: value(&b.projected, d.projected, "projected")?,
        fetch4: value(&b.fetch4, d.fetch4, "fetch4")?,
        null_samplers: value(&b.null_samplers, d.null_samplers, "null_samplers")?,
        bump_env,
        alpha_test: AlphaTest {
            func: value(&b.alpha_test_func, at.func, "alpha_test_func")?,
            reference: value(
                &b.alpha_test_reference,
                at.reference,
                "alpha_test_reference",
            )?,
            precision_bits,
        },
        fog: Fog {
            mode,
            depth,
            color: value(&b.fog_color, fog.color, "fog_color")?,
            start: value(&b.fog_start, fog.start, "fog_start")?,
            end: value(&b.fog_end, fog.end, "fog_end")?,
            density: value(&b.fog_density, fog.density, "fog_density")?,
        },
        clip_planes: ClipPlanes {
            enabled: value(&b.clip_planes_enabled, cp.enabled, "clip_planes_enabled")?,
            planes,
        },
        point_size,
        point_sprite: value(&b.point_sprite, d.point_sprite, "point_sprite")?,
        flat_shading: flag(b.flat_shading, "flat_shading")?,
        software_vertex_processing: flag(
            b.software_vertex_processing,
            "software_vertex_processing",
        )?,
    })
}

/// Sets the block's state on `o`.
pub(crate) fn apply(b: &dxbc2spv_d3d9_state, o: &mut Options) -> Result<(), Failure> {
    o.d3d9_state = d3d9_state(b)?;
    Ok(())
}

#[cfg(test)]
#[path = "d3d9_state_tests.rs"]
mod tests;
