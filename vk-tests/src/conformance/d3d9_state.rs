//! A case's Direct3D 9 pipeline state (`[d3d9_state]`), turned into a `dxbc2spv::D3d9State`
//! for every stage's translation. See `docs/conformance.md`, "Direct3D 9 pipeline state".
//!
//! Each value is written plain (an immediate), as `{ spec = ID, default = V }` (a
//! specialization constant: the case's `[[specialization]]` rows set it) or as
//! `{ push = OFFSET }` (push-constant words: the case's `[push_constants]` data holds them).
//! `[[d3d9_state.bump_env]]` rows give a stage's bump environment.

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use dxbc2spv::d3d9_state::{
    AlphaTest, FogDepth, FogFunction, FogMode, PointSize, StateBits, StateValue,
};
use dxbc2spv::D3d9State;

/// `[d3d9_state]` as written.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct D3d9StateToml {
    /// `D3DCMPFUNC` (1–8).
    alpha_func: Option<toml::Value>,
    /// 0–255.
    alpha_ref: Option<toml::Value>,
    /// Render target 0's alpha bits (default 8; 0: a float target).
    alpha_precision_bits: Option<u8>,
    /// `"off"`, `"vertex"`, `"linear"`, `"exp"`, `"exp2"`.
    fog_mode: Option<String>,
    /// `"z"` or `"w"`.
    fog_depth: Option<String>,
    fog_color: Option<toml::Value>,
    fog_start: Option<toml::Value>,
    fog_end: Option<toml::Value>,
    fog_density: Option<toml::Value>,
    /// Mask of planes 0–5.
    clip_plane_enable: Option<toml::Value>,
    /// Up to six planes, each a value of four floats.
    #[serde(default)]
    clip_planes: Vec<toml::Value>,
    /// Any of the three turns the point-size state on (defaults 1, 1, 64).
    point_size: Option<toml::Value>,
    point_size_min: Option<toml::Value>,
    point_size_max: Option<toml::Value>,
    point_sprite: Option<toml::Value>,
    #[serde(default)]
    flat_shading: bool,
    /// Two bits per pixel sampler (0 2-D, 1 cube, 2 volume).
    sampler_types: Option<toml::Value>,
    /// Two bits per vertex sampler.
    vertex_sampler_types: Option<toml::Value>,
    /// Bit s: sampler s compares (bits 16–19 vertex samplers).
    depth_compare: Option<toml::Value>,
    /// Bit s: ps_1_1–1_3 stage s divides by w.
    projected: Option<toml::Value>,
    /// Bit s: pixel sampler s fetches four texels.
    fetch4: Option<toml::Value>,
    /// Bit s: nothing bound at sampler s (bits 16–19 vertex samplers).
    null_samplers: Option<toml::Value>,
    /// Bump environment per stage.
    #[serde(default)]
    bump_env: Vec<BumpEnvToml>,
    #[serde(default)]
    software_vertex_processing: bool,
}

/// One `[[d3d9_state.bump_env]]` row.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BumpEnvToml {
    /// Texture stage 0–5.
    stage: usize,
    /// `[m00, m01, m10, m11]`.
    matrix: Option<toml::Value>,
    luminance_scale: Option<toml::Value>,
    luminance_offset: Option<toml::Value>,
}

/// A value of the state from TOML: a plain value, or the spec/push table.
trait FromToml: StateBits {
    fn from_toml(v: &toml::Value) -> Result<Self>;
}

impl FromToml for u32 {
    fn from_toml(v: &toml::Value) -> Result<u32> {
        v.as_integer()
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| anyhow!("{v:?} is not a 32-bit unsigned integer"))
    }
}

impl FromToml for bool {
    fn from_toml(v: &toml::Value) -> Result<bool> {
        v.as_bool().ok_or_else(|| anyhow!("{v:?} is not a boolean"))
    }
}

impl FromToml for f32 {
    fn from_toml(v: &toml::Value) -> Result<f32> {
        match v {
            toml::Value::Float(f) => Ok(*f as f32),
            toml::Value::Integer(i) => Ok(*i as f32),
            _ => bail!("{v:?} is not a number"),
        }
    }
}

impl<const N: usize> FromToml for [f32; N] {
    fn from_toml(v: &toml::Value) -> Result<[f32; N]> {
        let list = v
            .as_array()
            .filter(|a| a.len() == N)
            .ok_or_else(|| anyhow!("{v:?} is not a list of {N} numbers"))?;
        let mut out = [0.0; N];
        for (o, e) in out.iter_mut().zip(list) {
            *o = f32::from_toml(e)?;
        }
        Ok(out)
    }
}

/// `v` as a [`StateValue`].
fn value<T: FromToml>(v: &toml::Value) -> Result<StateValue<T>> {
    let Some(table) = v
        .as_table()
        .filter(|t| t.contains_key("spec") || t.contains_key("push"))
    else {
        return Ok(StateValue::Immediate(T::from_toml(v)?));
    };
    let int = |key: &str| -> Result<u32> {
        table
            .get(key)
            .and_then(|i| i.as_integer())
            .and_then(|i| u32::try_from(i).ok())
            .ok_or_else(|| anyhow!("{key} must be a 32-bit unsigned integer"))
    };
    if table.contains_key("push") {
        if table.len() != 1 {
            bail!("{{ push = OFFSET }} takes nothing else");
        }
        return Ok(StateValue::Push {
            offset: int("push")?,
        });
    }
    let default = table
        .get("default")
        .ok_or_else(|| anyhow!("{{ spec = ID }} needs a default"))?;
    if table.len() != 2 {
        bail!("{{ spec = ID, default = V }} takes nothing else");
    }
    Ok(StateValue::Spec {
        id: int("spec")?,
        default: T::from_toml(default)?,
    })
}

/// `field` of the table, parsed when present.
fn opt<T: FromToml>(v: &Option<toml::Value>, field: &str) -> Result<Option<StateValue<T>>> {
    v.as_ref()
        .map(|v| value(v).with_context(|| field.to_owned()))
        .transpose()
}

/// The translator's Direct3D 9 state from `[d3d9_state]`.
pub(super) fn d3d9_state(t: D3d9StateToml) -> Result<D3d9State> {
    let mut s = D3d9State::default();
    let defaults = AlphaTest::default();
    s.alpha_test = AlphaTest {
        func: opt(&t.alpha_func, "alpha_func")?.unwrap_or(defaults.func),
        reference: opt(&t.alpha_ref, "alpha_ref")?.unwrap_or(defaults.reference),
        precision_bits: t.alpha_precision_bits.unwrap_or(defaults.precision_bits),
    };
    s.fog.mode = match t.fog_mode.as_deref() {
        None | Some("off") => FogMode::Off,
        Some("vertex") => FogMode::Vertex,
        Some("linear") => FogMode::Table(FogFunction::Linear),
        Some("exp") => FogMode::Table(FogFunction::Exp),
        Some("exp2") => FogMode::Table(FogFunction::Exp2),
        Some(m) => bail!("fog_mode {m:?}: off, vertex, linear, exp or exp2"),
    };
    s.fog.depth = match t.fog_depth.as_deref() {
        None | Some("z") => FogDepth::Z,
        Some("w") => FogDepth::W,
        Some(d) => bail!("fog_depth {d:?}: z or w"),
    };
    if let Some(v) = opt(&t.fog_color, "fog_color")? {
        s.fog.color = v;
    }
    if let Some(v) = opt(&t.fog_start, "fog_start")? {
        s.fog.start = v;
    }
    if let Some(v) = opt(&t.fog_end, "fog_end")? {
        s.fog.end = v;
    }
    if let Some(v) = opt(&t.fog_density, "fog_density")? {
        s.fog.density = v;
    }
    if let Some(v) = opt(&t.clip_plane_enable, "clip_plane_enable")? {
        s.clip_planes.enabled = v;
    }
    if t.clip_planes.len() > 6 {
        bail!("clip_planes: at most 6");
    }
    for (i, (slot, v)) in s
        .clip_planes
        .planes
        .iter_mut()
        .zip(&t.clip_planes)
        .enumerate()
    {
        *slot = value(v).with_context(|| format!("clip_planes[{i}]"))?;
    }
    let size = opt(&t.point_size, "point_size")?;
    let min = opt(&t.point_size_min, "point_size_min")?;
    let max = opt(&t.point_size_max, "point_size_max")?;
    if size.is_some() || min.is_some() || max.is_some() {
        let d = PointSize::default();
        s.point_size = Some(PointSize {
            size: size.unwrap_or(d.size),
            min: min.unwrap_or(d.min),
            max: max.unwrap_or(d.max),
        });
    }
    if let Some(v) = opt(&t.point_sprite, "point_sprite")? {
        s.point_sprite = v;
    }
    s.flat_shading = t.flat_shading;
    for (field, v, slot) in [
        ("sampler_types", &t.sampler_types, &mut s.sampler_types),
        (
            "vertex_sampler_types",
            &t.vertex_sampler_types,
            &mut s.vertex_sampler_types,
        ),
        ("depth_compare", &t.depth_compare, &mut s.depth_compare),
        ("projected", &t.projected, &mut s.projected),
        ("fetch4", &t.fetch4, &mut s.fetch4),
        ("null_samplers", &t.null_samplers, &mut s.null_samplers),
    ] {
        if let Some(v) = opt(v, field)? {
            *slot = v;
        }
    }
    for b in &t.bump_env {
        let env = s
            .bump_env
            .get_mut(b.stage)
            .ok_or_else(|| anyhow!("bump_env: stage {} is not 0-5", b.stage))?;
        if let Some(v) = opt(&b.matrix, "bump_env.matrix")? {
            env.matrix = v;
        }
        if let Some(v) = opt(&b.luminance_scale, "bump_env.luminance_scale")? {
            env.luminance_scale = v;
        }
        if let Some(v) = opt(&b.luminance_offset, "bump_env.luminance_offset")? {
            env.luminance_offset = v;
        }
    }
    s.software_vertex_processing = t.software_vertex_processing;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<D3d9State> {
        d3d9_state(toml::from_str(text)?)
    }

    #[test]
    fn each_form_parses() {
        let s = parsed(
            "alpha_func = 5\nalpha_ref = { spec = 3, default = 128 }\n\
             fog_mode = \"exp2\"\nfog_color = { push = 16 }\nfog_density = 0.5\n\
             clip_plane_enable = 2\nclip_planes = [[0, 0, 0, 0], [1.0, 0, 0, 0.5]]\n\
             point_size = 4.0\npoint_sprite = true\n",
        )
        .expect("parses");
        assert_eq!(s.alpha_test.func, StateValue::Immediate(5));
        assert_eq!(
            s.alpha_test.reference,
            StateValue::Spec {
                id: 3,
                default: 128
            }
        );
        assert_eq!(s.fog.mode, FogMode::Table(FogFunction::Exp2));
        assert_eq!(s.fog.color, StateValue::Push { offset: 16 });
        assert_eq!(s.fog.density, StateValue::Immediate(0.5));
        assert_eq!(
            s.clip_planes.planes[1],
            StateValue::Immediate([1.0, 0.0, 0.0, 0.5])
        );
        assert_eq!(
            s.point_size.map(|p| p.size),
            Some(StateValue::Immediate(4.0))
        );
        assert_eq!(s.point_sprite, StateValue::Immediate(true));
        assert_eq!(parsed("").expect("empty"), D3d9State::default());
        let s = parsed(
            "sampler_types = 4\nprojected = { push = 0 }\nnull_samplers = 2\n\
             software_vertex_processing = true\n\
             [[bump_env]]\nstage = 2\nmatrix = [1.0, 0, 0, 1.0]\n\
             luminance_scale = { spec = 9, default = 0.0 }\n",
        )
        .expect("parses");
        assert_eq!(s.sampler_types, StateValue::Immediate(4));
        assert_eq!(s.projected, StateValue::Push { offset: 0 });
        assert_eq!(s.null_samplers, StateValue::Immediate(2));
        assert!(s.software_vertex_processing);
        assert_eq!(
            s.bump_env[2].matrix,
            StateValue::Immediate([1.0, 0.0, 0.0, 1.0])
        );
        assert_eq!(
            s.bump_env[2].luminance_scale,
            StateValue::Spec {
                id: 9,
                default: 0.0
            }
        );
        assert!(parsed("[[bump_env]]\nstage = 6\n").is_err());
    }

    #[test]
    fn mistakes_are_refused() {
        for text in [
            "alpha_func = -1",
            "alpha_ref = { spec = 1 }",
            "fog_mode = \"table\"",
            "fog_color = [1.0, 2.0]",
            "clip_planes = [[1, 2, 3, 4]]\nclip_plane_enable = { push = 4, spec = 2 }",
            "unknown = 1",
        ] {
            assert!(parsed(text).is_err(), "{text}");
        }
    }
}
