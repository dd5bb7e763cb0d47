//! The pipeline state a Direct3D 9 shader depends on ([`D3d9State`], `Options::d3d9_state`):
//! render state that D3D9 applies around the shader and Vulkan leaves to it, given by the
//! runtime per value as an immediate, a specialization constant or a push-constant word
//! ([`StateValue`]). `docs/d3d9.md`, "Pipeline state parameters", lists each one.
//!
//! Contract: [`D3d9State::default`] changes nothing: every module is the same bytes as without
//! it, and any shader translates. The fixed-function fields (alpha test, fog, clip planes,
//! point size and sprites) are applied by the passes of `passes::d3d9_state`, flat shading by
//! the stage linking; the sampler fields are read by the Direct3D 9 lowering. Values are
//! checked when a pass uses them (a reference past 255, a function outside `D3DCMPFUNC`, a
//! push offset that is not a multiple of 4 are errors naming `Options::d3d9_state`).

/// One value of the state, as the runtime gives it.
///
/// A vector value (`[f32; N]`) takes `N` consecutive specialization-constant ids (component
/// `c` is `id + c`) or `N` consecutive push-constant words (`offset + 4·c`). Specialization
/// constants are 32-bit: the pipeline's `VkSpecializationMapEntry` gives 4 bytes per
/// component, a float's IEEE bits, a bool as 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StateValue<T> {
    /// Known at translation: folded into the module.
    Immediate(T),
    /// A specialization constant the pipeline sets (`VkSpecializationInfo`), `default` unless
    /// it does.
    Spec {
        /// The `SpecId` of the first component.
        id: u32,
        /// The value when the pipeline does not specialize it.
        default: T,
    },
    /// Push-constant words the runtime writes before each draw (the module's one push-constant
    /// block; its byte range is in `ShaderInfo::push_constants`).
    Push {
        /// Byte offset of the first component (a multiple of 4).
        offset: u32,
    },
}

impl<T: Copy> StateValue<T> {
    /// The value when it is known at translation.
    pub fn immediate(&self) -> Option<T> {
        match *self {
            StateValue::Immediate(v) => Some(v),
            _ => None,
        }
    }
}

impl<T: StateBits> StateValue<T> {
    /// The [`Parameter`](crate::ir::Parameter) named `name` that reads this value, or a message
    /// naming `name` when its `SpecId` range or push-constant offset is out of range.
    pub fn parameter(&self, name: &'static str) -> Result<crate::ir::Parameter, String> {
        use crate::ir::ParameterSource;
        let source = match *self {
            StateValue::Immediate(v) => ParameterSource::Immediate(v.bits()),
            StateValue::Spec { id, default } => {
                if id.checked_add(u32::from(T::COUNT)).is_none() {
                    return Err(format!("{name}: SpecId {id} leaves no room"));
                }
                ParameterSource::Spec {
                    first_id: id,
                    defaults: default.bits(),
                }
            }
            StateValue::Push { offset } => {
                if offset % 4 != 0 || offset.checked_add(16).is_none() {
                    return Err(format!(
                        "{name}: push-constant offset {offset} is not a multiple of 4 below 2^32"
                    ));
                }
                ParameterSource::Push { offset }
            }
        };
        Ok(crate::ir::Parameter {
            name,
            component_type: if T::FLOAT {
                crate::ir::ComponentType::Float
            } else {
                crate::ir::ComponentType::Uint
            },
            count: T::COUNT,
            source,
        })
    }
}

/// A value of the state as 32-bit words (what a specialization constant or a push-constant word
/// holds).
pub trait StateBits: Copy {
    /// Components: 1 for scalars, `N` for `[f32; N]`.
    const COUNT: u8;
    /// Whether the components are floats (else unsigned integers).
    const FLOAT: bool;
    /// The bits of each component (`COUNT` of them, the rest 0).
    fn bits(self) -> [u32; 4];
}

impl StateBits for u32 {
    const COUNT: u8 = 1;
    const FLOAT: bool = false;
    fn bits(self) -> [u32; 4] {
        [self, 0, 0, 0]
    }
}

impl StateBits for bool {
    const COUNT: u8 = 1;
    const FLOAT: bool = false;
    fn bits(self) -> [u32; 4] {
        [u32::from(self), 0, 0, 0]
    }
}

impl StateBits for f32 {
    const COUNT: u8 = 1;
    const FLOAT: bool = true;
    fn bits(self) -> [u32; 4] {
        [self.to_bits(), 0, 0, 0]
    }
}

impl<const N: usize> StateBits for [f32; N] {
    const COUNT: u8 = if N < 4 { N as u8 } else { 4 };
    const FLOAT: bool = true;
    fn bits(self) -> [u32; 4] {
        let mut out = [0; 4];
        for (o, v) in out.iter_mut().zip(self) {
            *o = v.to_bits();
        }
        out
    }
}

/// The texture type bound at a sampler (what `D3DSAMPLER_TEXTURE_TYPE` would declare), two bits
/// per sampler in [`D3d9State::sampler_types`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureType {
    /// A 2-D texture (code 0, the default).
    #[default]
    Texture2D,
    /// A cube texture (code 1).
    Cube,
    /// A volume (3-D) texture (code 2).
    Volume,
}

impl TextureType {
    /// The two-bit code.
    pub fn code(self) -> u32 {
        match self {
            TextureType::Texture2D => 0,
            TextureType::Cube => 1,
            TextureType::Volume => 2,
        }
    }

    /// The type of a two-bit code (3, reserved, reads as 2-D).
    pub fn from_code(code: u32) -> TextureType {
        match code & 3 {
            1 => TextureType::Cube,
            2 => TextureType::Volume,
            _ => TextureType::Texture2D,
        }
    }

    /// Packs per-sampler types into [`D3d9State::sampler_types`]'s word: sampler `s` at bits
    /// `2s..2s+1` (at most 16 samplers).
    pub fn pack(types: &[TextureType]) -> u32 {
        types
            .iter()
            .take(16)
            .enumerate()
            .fold(0, |w, (s, t)| w | t.code() << (2 * s))
    }

    /// Sampler `s`'s type in a packed word.
    pub fn unpack(word: u32, s: u32) -> TextureType {
        TextureType::from_code(word.checked_shr(2 * s).unwrap_or(0))
    }
}

/// `D3DCMPFUNC`: the alpha-test comparison (`alpha FUNC reference` passes).
pub mod cmp_func {
    /// Never passes.
    pub const NEVER: u32 = 1;
    /// `alpha < reference`.
    pub const LESS: u32 = 2;
    /// `alpha == reference`.
    pub const EQUAL: u32 = 3;
    /// `alpha <= reference`.
    pub const LESS_EQUAL: u32 = 4;
    /// `alpha > reference`.
    pub const GREATER: u32 = 5;
    /// `alpha != reference`.
    pub const NOT_EQUAL: u32 = 6;
    /// `alpha >= reference`.
    pub const GREATER_EQUAL: u32 = 7;
    /// Always passes (the default: no test).
    pub const ALWAYS: u32 = 8;
}

/// The alpha test (`D3DRS_ALPHATESTENABLE`, `D3DRS_ALPHAFUNC`, `D3DRS_ALPHAREF`): pixel
/// shaders discard the pixel when `SV_Target0`'s alpha fails the comparison with the
/// reference. Off (the default) is the function [`cmp_func::ALWAYS`] as an immediate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AlphaTest {
    /// The comparison, a `D3DCMPFUNC` (1–8; [`cmp_func`]). A runtime that disables the test
    /// with a specialization constant or a push constant gives 8.
    pub func: StateValue<u32>,
    /// The reference, 0–255 (`D3DRS_ALPHAREF`).
    pub reference: StateValue<u32>,
    /// Bits of alpha in render target 0 (1–16), or 0 for a float target. With `n` bits D3D
    /// compares quantised values: the shader's alpha clamped to [0, 1] and rounded to the
    /// nearest of `2^n − 1` steps, against the reference scaled the same way
    /// (`round(reference · (2^n − 1) / 255)`; with 8 bits the reference itself). With 0 the
    /// alpha is compared unclamped with `reference / 255`. Default 8 (UNORM8 targets).
    pub precision_bits: u8,
}

impl Default for AlphaTest {
    fn default() -> AlphaTest {
        AlphaTest {
            func: StateValue::Immediate(cmp_func::ALWAYS),
            reference: StateValue::Immediate(0),
            precision_bits: 8,
        }
    }
}

impl AlphaTest {
    /// Whether the test can discard anything (not `ALWAYS` as an immediate).
    pub fn enabled(&self) -> bool {
        self.func != StateValue::Immediate(cmp_func::ALWAYS)
    }
}

/// Where the fog factor comes from (pixel shaders before `ps_3_0`; D3D9 blends fog after
/// them, SM3 shaders do their own).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FogMode {
    /// No fog (the default).
    #[default]
    Off,
    /// Vertex fog: the factor the vertex shader wrote to `oFog` (the input at location 18,
    /// the `FOG` location, component x).
    Vertex,
    /// Table (pixel) fog: the factor computed per pixel from the depth.
    Table(FogFunction),
}

/// `D3DFOGMODE` of table fog; `d` is the pixel's depth ([`FogDepth`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FogFunction {
    /// `(end − d) / (end − start)`.
    Linear,
    /// `e^(−density · d)`.
    Exp,
    /// `e^(−(density · d)²)`.
    Exp2,
}

/// The depth table fog uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FogDepth {
    /// The pixel's window z (`FragCoord.z`; the default).
    #[default]
    Z,
    /// The pixel's clip-space w (`1 / FragCoord.w`): "W fog", which D3D uses when the
    /// projection matrix is perspective.
    W,
}

/// Fog (`D3DRS_FOGENABLE`, `D3DRS_FOGTABLEMODE`, `D3DRS_FOGCOLOR`, ...): the colour of render
/// target 0 becomes `lerp(colour, rgb, f)` (`f` clamped to [0, 1], a NaN factor counts as 1:
/// no fog), alpha unchanged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fog {
    /// Off (the default), vertex or table fog.
    pub mode: FogMode,
    /// Table fog's depth.
    pub depth: FogDepth,
    /// The fog colour (r, g, b in [0, 1]; `D3DRS_FOGCOLOR`). Default black.
    pub color: StateValue<[f32; 3]>,
    /// Linear fog's start (`D3DRS_FOGSTART`, default 0).
    pub start: StateValue<f32>,
    /// Linear fog's end (`D3DRS_FOGEND`, default 1).
    pub end: StateValue<f32>,
    /// Exponential fog's density (`D3DRS_FOGDENSITY`, default 1).
    pub density: StateValue<f32>,
}

impl Default for Fog {
    fn default() -> Fog {
        Fog {
            mode: FogMode::Off,
            depth: FogDepth::Z,
            color: StateValue::Immediate([0.0; 3]),
            start: StateValue::Immediate(0.0),
            end: StateValue::Immediate(1.0),
            density: StateValue::Immediate(1.0),
        }
    }
}

/// User clip planes (`D3DRS_CLIPPLANEENABLE`, `SetClipPlane`): vertex shaders write
/// `ClipDistance[i] = dot(position, plane i)` (clip space, as D3D9 takes planes with a vertex
/// shader); Vulkan drops what is below 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipPlanes {
    /// Bit `i`: plane `i` (0–5) clips. With an immediate, only the enabled planes are
    /// written; otherwise all six are, a disabled one as 0. Default `Immediate(0)`: none.
    pub enabled: StateValue<u32>,
    /// The planes `(a, b, c, d)`: a position `p` is kept where `dot(p, plane) >= 0`.
    pub planes: [StateValue<[f32; 4]>; 6],
}

impl Default for ClipPlanes {
    fn default() -> ClipPlanes {
        ClipPlanes {
            enabled: StateValue::Immediate(0),
            planes: [StateValue::Immediate([0.0; 4]); 6],
        }
    }
}

/// Point size (`D3DRS_POINTSIZE`, `_MIN`, `_MAX`): vertex shaders write `PointSize`, the
/// shader's own size (a point-size output) or `size` when it writes none, clamped to
/// `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointSize {
    /// The size when the shader writes none (default 1).
    pub size: StateValue<f32>,
    /// The least size (default 1).
    pub min: StateValue<f32>,
    /// The largest size (default 64, D3D9's default `D3DRS_POINTSIZE_MAX`).
    pub max: StateValue<f32>,
}

impl Default for PointSize {
    fn default() -> PointSize {
        PointSize {
            size: StateValue::Immediate(1.0),
            min: StateValue::Immediate(1.0),
            max: StateValue::Immediate(64.0),
        }
    }
}

/// Bump-environment state of one texture stage (`D3DTSS_BUMPENVMAT00`…`11`,
/// `D3DTSS_BUMPENVLSCALE`, `D3DTSS_BUMPENVLOFFSET`), read by `texbem`, `texbeml` and `bem`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BumpEnv {
    /// `[m00, m01, m10, m11]` (default zeros).
    pub matrix: StateValue<[f32; 4]>,
    /// Luminance scale (default 0).
    pub luminance_scale: StateValue<f32>,
    /// Luminance offset (default 0).
    pub luminance_offset: StateValue<f32>,
}

impl Default for BumpEnv {
    fn default() -> BumpEnv {
        BumpEnv {
            matrix: StateValue::Immediate([0.0; 4]),
            luminance_scale: StateValue::Immediate(0.0),
            luminance_offset: StateValue::Immediate(0.0),
        }
    }
}

/// The Direct3D 9 pipeline state a translation depends on (see the module documentation and
/// `docs/d3d9.md`). The default changes nothing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct D3d9State {
    /// Pixel samplers 0–15: the texture type bound at each, two bits per sampler
    /// ([`TextureType::pack`]), for samplers the shader does not declare (ps_1_x, undeclared
    /// `s#`). Default `Immediate(0)`: 2-D everywhere. Given as a specialization or push
    /// constant, each such sampler gets a 2-D, a cube and a 3-D view at its binding and every
    /// read selects by the sampler's two bits (`docs/d3d9.md`, "Sampler state and bump
    /// environment"; reflection: `BoundResource::other_views`).
    pub sampler_types: StateValue<u32>,
    /// Vertex samplers 0–3 (`D3DVERTEXTEXTURESAMPLER0`…`3`), packed the same way.
    pub vertex_sampler_types: StateValue<u32>,
    /// Bit `s`: pixel sampler `s` has a depth format and samples as a depth comparison
    /// (shadow map); bits 16–19: vertex samplers 0–3. Default 0.
    pub depth_compare: StateValue<u32>,
    /// Bit `s`: ps_1_1–1_3 `tex`/`texbem` of stage `s` divides by the last coordinate
    /// (`D3DTTFF_PROJECTED`). Default 0.
    pub projected: StateValue<u32>,
    /// Bit `s`: pixel sampler `s` fetches four texels as `gather` does (Fetch4,
    /// `D3DFMT_GET4`). Default 0.
    pub fetch4: StateValue<u32>,
    /// Bit `s`: nothing is bound at pixel sampler `s` (bits 16–19: vertex samplers); its
    /// reads return (0, 0, 0, 1) as D3D9 does. Default 0.
    pub null_samplers: StateValue<u32>,
    /// Bump environment of texture stages 0–5.
    pub bump_env: [BumpEnv; 6],
    /// The alpha test.
    pub alpha_test: AlphaTest,
    /// Fog.
    pub fog: Fog,
    /// User clip planes.
    pub clip_planes: ClipPlanes,
    /// Point size; `None` (the default): the module writes `PointSize = 1` as for any shader.
    pub point_size: Option<PointSize>,
    /// Point sprites (`D3DRS_POINTSPRITEENABLE`): pixel shaders read the position inside the
    /// point (`PointCoord`: x, y, 0, 1) instead of every `TEXCOORD` input (locations 0–15).
    /// Default `Immediate(false)`.
    pub point_sprite: StateValue<bool>,
    /// Flat shading (`D3DSHADE_FLAT`): pixel shaders' `COLOR` inputs (locations 16 and 17)
    /// take the provoking vertex's value. Default off.
    pub flat_shading: bool,
    /// Software vertex processing: the vertex shader's constant sets have the software sizes
    /// (8192 float, 2048 int and bool constants) instead of the hardware ones. Default off.
    pub software_vertex_processing: bool,
}

impl Default for D3d9State {
    fn default() -> D3d9State {
        D3d9State {
            sampler_types: StateValue::Immediate(0),
            vertex_sampler_types: StateValue::Immediate(0),
            depth_compare: StateValue::Immediate(0),
            projected: StateValue::Immediate(0),
            fetch4: StateValue::Immediate(0),
            null_samplers: StateValue::Immediate(0),
            bump_env: [BumpEnv::default(); 6],
            alpha_test: AlphaTest::default(),
            fog: Fog::default(),
            clip_planes: ClipPlanes::default(),
            point_size: None,
            point_sprite: StateValue::Immediate(false),
            flat_shading: false,
            software_vertex_processing: false,
        }
    }
}

/// `COLOR0`/`COLOR1`'s input locations (bits 16 and 17), which flat shading makes `Flat`.
pub const COLOR_LOCATIONS: u32 = (1 << 16) | (1 << 17);

impl D3d9State {
    /// `Unsupported` at `offset` when a field the Direct3D 9 lowering reads is set, for a
    /// front end (`shader`, e.g. "a DXBC shader", and `why` it has no such state) that cannot
    /// apply it.
    #[cfg(feature = "dxbc")]
    pub(crate) fn refuse_lowering_fields(
        &self,
        offset: u32,
        shader: &str,
        why: &str,
    ) -> Result<(), crate::error::Error> {
        match self.lowering_field_set() {
            None => Ok(()),
            Some(field) => Err(crate::error::Error::unsupported(
                offset,
                format!("Options::d3d9_state.{field} with {shader} ({why})"),
            )),
        }
    }

    /// The first field the Direct3D 9 lowering reads (sampler state, bump environment,
    /// software vertex processing) that differs from its default, by name: a front end without
    /// D3D9 samplers and constant sets cannot apply it and says so instead of ignoring it.
    pub fn lowering_field_set(&self) -> Option<&'static str> {
        let d = D3d9State::default();
        [
            ("sampler_types", self.sampler_types != d.sampler_types),
            (
                "vertex_sampler_types",
                self.vertex_sampler_types != d.vertex_sampler_types,
            ),
            ("depth_compare", self.depth_compare != d.depth_compare),
            ("projected", self.projected != d.projected),
            ("fetch4", self.fetch4 != d.fetch4),
            ("null_samplers", self.null_samplers != d.null_samplers),
            ("bump_env", self.bump_env != d.bump_env),
            (
                "software_vertex_processing",
                self.software_vertex_processing != d.software_vertex_processing,
            ),
        ]
        .into_iter()
        .find(|&(_, set)| set)
        .map(|(field, _)| field)
    }

    /// The input locations of a `stage` shader that flat shading makes `Flat` (bit n =
    /// location n): [`COLOR_LOCATIONS`] for pixel shaders with [`D3d9State::flat_shading`].
    pub fn flat_locations(&self, stage: crate::ir::Stage) -> u32 {
        if self.flat_shading && stage == crate::ir::Stage::Pixel {
            COLOR_LOCATIONS
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_types_pack_two_bits_per_sampler() {
        use TextureType::*;
        let w = TextureType::pack(&[Texture2D, Cube, Volume, Cube]);
        assert_eq!(w, 0b01_10_01_00);
        assert_eq!(TextureType::unpack(w, 1), Cube);
        assert_eq!(TextureType::unpack(w, 2), Volume);
        assert_eq!(TextureType::unpack(w, 15), Texture2D);
        assert_eq!(TextureType::unpack(u32::MAX, 40), Texture2D);
    }

    #[test]
    fn values_become_words() {
        assert_eq!(1.0f32.bits(), [0x3f80_0000, 0, 0, 0]);
        assert_eq!(<[f32; 3]>::COUNT, 3);
        assert_eq!([0.5f32, 1.0, 2.0].bits()[2], 0x4000_0000);
        assert_eq!(true.bits()[0], 1);
        assert!(!D3d9State::default().alpha_test.enabled());
    }

    #[test]
    fn lowering_fields_are_named_when_set() {
        assert_eq!(D3d9State::default().lowering_field_set(), None);
        let state = D3d9State {
            fetch4: StateValue::Immediate(1),
            ..D3d9State::default()
        };
        assert_eq!(state.lowering_field_set(), Some("fetch4"));
        let state = D3d9State {
            software_vertex_processing: true,
            ..D3d9State::default()
        };
        assert_eq!(
            state.lowering_field_set(),
            Some("software_vertex_processing")
        );
    }
}
