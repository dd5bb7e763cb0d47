//! The Direct3D 9 pipeline state the lowering reads ([`D3d9State`]): per-sampler bits (null
//! samplers, depth comparison, Fetch4, projected coordinates), the texture types of samplers
//! the shader does not declare, the bump environment and software vertex processing
//! (`docs/d3d9.md`, "Pipeline state parameters").
//!
//! Contract: an immediate value is folded into the module (an immediate operand, or code left
//! out), so [`D3d9State::default`] lowers to the same module as no state; a specialization
//! constant or push-constant value becomes an [`ir::Parameter`] read through
//! `Reg::Parameter` (one per value: two reads of one value share it), and a bit of it selects
//! at run time between the code for either value. `sampler_types` / `vertex_sampler_types`
//! given at run time make an undeclared sampler's type a [`TypeChoice::Runtime`]: the
//! sampler gets a declaration per type at one binding (`texture`), and each read selects by
//! the sampler's two bits of the parameter (`Lowering::sampler_type_code`).

use crate::d3d9_state::{D3d9State, StateBits, StateValue, TextureType};
use crate::error::Error;
use crate::ir::{self, Op, Reg};

use super::operand::{imm_u, inst, temp_c, temp_d};
use super::texture::SamplerType;
use super::Lowering;

/// The names of the bump-environment parameters of stages 0–5: matrix, luminance scale,
/// luminance offset.
const BUMP_NAMES: [[&str; 3]; 6] = [
    ["bump_env_matrix0", "bump_env_lscale0", "bump_env_loffset0"],
    ["bump_env_matrix1", "bump_env_lscale1", "bump_env_loffset1"],
    ["bump_env_matrix2", "bump_env_lscale2", "bump_env_loffset2"],
    ["bump_env_matrix3", "bump_env_lscale3", "bump_env_loffset3"],
    ["bump_env_matrix4", "bump_env_lscale4", "bump_env_loffset4"],
    ["bump_env_matrix5", "bump_env_lscale5", "bump_env_loffset5"],
];

/// One bit of a per-sampler mask of the state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Bit {
    /// Known at translation.
    Known(bool),
    /// Known at run time: component x of the source is `~0` when set, else 0.
    Runtime(ir::Src),
}

/// The texture type of a sampler the shader does not declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TypeChoice {
    /// Known at translation.
    Known(SamplerType),
    /// Chosen at run time by the sampler's two-bit field of the specialization constant or
    /// push constant (`TextureType::code`).
    Runtime,
}

/// What the state says about the reads of one sampler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SamplerState {
    /// `null_samplers`: reads return (0, 0, 0, 1).
    pub null: Bit,
    /// `depth_compare`: reads compare the coordinate's z (w for cubes) with the texel.
    pub compare: Bit,
    /// `fetch4`: 2-D reads return the four texels of the bilinear footprint.
    pub fetch4: Bit,
}

impl SamplerState {
    /// Whether reads are plain samples (the state changes nothing).
    pub fn plain(&self) -> bool {
        [self.null, self.compare, self.fetch4]
            .iter()
            .all(|b| *b == Bit::Known(false))
    }
}

/// The bump environment of a stage, as sources: the matrix `(m00, m01, m10, m11)`, the
/// luminance scale and offset (replicated).
#[derive(Clone, Copy, Debug)]
pub(super) struct Bump {
    /// `D3DTSS_BUMPENVMAT00`…`11`.
    pub matrix: ir::Src,
    /// `D3DTSS_BUMPENVLSCALE`.
    pub scale: ir::Src,
    /// `D3DTSS_BUMPENVLOFFSET`.
    pub offset: ir::Src,
}

impl Lowering<'_, '_> {
    /// The pipeline state.
    fn state(&self) -> &D3d9State {
        self.state
    }

    /// A source reading `value`: its bits as an immediate, or the parameter `name` (declared
    /// on first use).
    pub(super) fn state_value<T: StateBits>(
        &mut self,
        name: &'static str,
        value: StateValue<T>,
        span: u32,
    ) -> Result<ir::Src, Error> {
        if let StateValue::Immediate(v) = value {
            // A scalar is replicated, as a parameter's read through `.xxxx` would be.
            let bits = v.bits();
            let bits = if T::COUNT == 1 { [bits[0]; 4] } else { bits };
            return Ok(ir::Src::new(Reg::Imm32(bits)));
        }
        let parameter = value
            .parameter(name)
            .map_err(|m| Error::invalid(span, format!("Options::d3d9_state: {m}")))?;
        let params = &mut self.module.parameters;
        let n = match params.iter().position(|p| *p == parameter) {
            Some(n) => n,
            None => {
                params.push(parameter);
                params.len() - 1
            }
        };
        Ok(ir::Src::new(Reg::Parameter(n as u32)))
    }

    /// Bit `bit` of the mask `value` (the parameter `name`): known, or tested into a scratch
    /// temp.
    pub(super) fn state_bit(
        &mut self,
        name: &'static str,
        value: StateValue<u32>,
        bit: u32,
        span: u32,
    ) -> Result<Bit, Error> {
        if let StateValue::Immediate(v) = value {
            return Ok(Bit::Known(v.checked_shr(bit).unwrap_or(0) & 1 != 0));
        }
        let mask = 1u32.checked_shl(bit).unwrap_or(0);
        let p = self.state_value(name, value, span)?;
        let t = self.temps.scratch();
        self.push(inst(Op::And, span, &[temp_d(t, 0x1)], &[p, imm_u(mask)]));
        self.push(inst(
            Op::Ine,
            span,
            &[temp_d(t, 0x1)],
            &[temp_c(t, 0), imm_u(0)],
        ));
        Ok(Bit::Runtime(temp_c(t, 0)))
    }

    /// The bit of sampler `num` in the per-sampler masks (pixel samplers at bit `num`, vertex
    /// samplers at `16 + num`).
    fn sampler_bit(&self, num: u32) -> u32 {
        if self.pixel {
            num
        } else {
            num.saturating_add(16)
        }
    }

    /// What the state says about reads of sampler `num`.
    pub(super) fn sampler_state(&mut self, num: u32, span: u32) -> Result<SamplerState, Error> {
        let bit = self.sampler_bit(num);
        let state = *self.state();
        if self.level9.is_some() {
            return Ok(SamplerState {
                null: Bit::Known(false),
                compare: Bit::Known(false),
                fetch4: Bit::Known(false),
            });
        }
        let null = self.state_bit("null_samplers", state.null_samplers, bit, span)?;
        let compare = self.state_bit("depth_compare", state.depth_compare, bit, span)?;
        // Fetch4 is a pixel-sampler state (`D3DSAMP_MIPMAPLODBIAS` of a pixel sampler).
        let fetch4 = if self.pixel {
            self.state_bit("fetch4", state.fetch4, bit, span)?
        } else {
            Bit::Known(false)
        };
        Ok(SamplerState {
            null,
            compare,
            fetch4,
        })
    }

    /// The field of the texture types of the stage's undeclared samplers, and its value.
    fn sampler_types(&self) -> (&'static str, StateValue<u32>) {
        if self.pixel {
            ("sampler_types", self.state.sampler_types)
        } else {
            ("vertex_sampler_types", self.state.vertex_sampler_types)
        }
    }

    /// The texture type of sampler `num`, which the shader does not declare
    /// (`sampler_types`, `vertex_sampler_types`): known, or chosen at run time.
    pub(super) fn undeclared_type(&self, num: u32) -> TypeChoice {
        if self.level9.is_some() {
            return TypeChoice::Known(SamplerType::Tex2D);
        }
        let value = self.sampler_types().1;
        if num >= 16 {
            // Past the word's 16 fields: 2-D, as `TextureType::unpack` reads it.
            return TypeChoice::Known(SamplerType::Tex2D);
        }
        let StateValue::Immediate(word) = value else {
            return TypeChoice::Runtime;
        };
        TypeChoice::Known(match TextureType::unpack(word, num) {
            TextureType::Texture2D => SamplerType::Tex2D,
            TextureType::Cube => SamplerType::Cube,
            TextureType::Volume => SamplerType::Volume,
        })
    }

    /// Sampler `num`'s two-bit texture-type code ([`TextureType::code`]), read from the
    /// parameter into a scratch temp (component x).
    pub(super) fn sampler_type_code(&mut self, num: u32, span: u32) -> Result<ir::Src, Error> {
        let (field, value) = self.sampler_types();
        let p = self.state_value(field, value, span)?;
        let k = self.temps.scratch();
        let shift = num.saturating_mul(2);
        self.push(inst(Op::Ushr, span, &[temp_d(k, 0x1)], &[p, imm_u(shift)]));
        self.push(inst(
            Op::And,
            span,
            &[temp_d(k, 0x1)],
            &[temp_c(k, 0), imm_u(3)],
        ));
        Ok(temp_c(k, 0))
    }

    /// Texture stage `stage`'s `D3DTTFF_PROJECTED` bit (`projected`).
    pub(super) fn projected_bit(&mut self, stage: u32, span: u32) -> Result<Bit, Error> {
        let value = self.state.projected;
        self.state_bit("projected", value, stage, span)
    }

    /// Texture stage `stage`'s bump environment (stages past 5: D3D9's defaults, zeros).
    pub(super) fn bump_env(&mut self, stage: u32, span: u32) -> Result<Bump, Error> {
        let (Some(env), Some(names)) = (
            self.state.bump_env.get(stage as usize).copied(),
            BUMP_NAMES.get(stage as usize),
        ) else {
            let zero = ir::Src::new(Reg::Imm32([0; 4]));
            return Ok(Bump {
                matrix: zero,
                scale: zero,
                offset: zero,
            });
        };
        let [m, s, o] = *names;
        let matrix = self.state_value(m, env.matrix, span)?;
        let scale = self.state_value(s, env.luminance_scale, span)?;
        let offset = self.state_value(o, env.luminance_offset, span)?;
        let x = |src: ir::Src| ir::Src {
            swizzle: [0; 4],
            ..src
        };
        Ok(Bump {
            matrix,
            scale: x(scale),
            offset: x(offset),
        })
    }

    /// Lowers `on` where `bit` is set and `off` where it is clear: one of them when the bit is
    /// known, else both, under an `if` on it.
    pub(super) fn select_on(
        &mut self,
        bit: Bit,
        span: u32,
        on: impl FnOnce(&mut Self) -> Result<(), Error>,
        off: impl FnOnce(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        match bit {
            Bit::Known(true) => on(self),
            Bit::Known(false) => off(self),
            Bit::Runtime(c) => {
                let mut x = inst(Op::If, span, &[], &[c]);
                x.flags.test = ir::Test::NonZero;
                self.push(x);
                on(self)?;
                self.push(ir::Inst::new(Op::Else, span));
                off(self)?;
                self.push(ir::Inst::new(Op::EndIf, span));
                Ok(())
            }
        }
    }

    /// Software vertex processing: a vertex shader's constant sets have the software sizes.
    pub(super) fn software_vertex_processing(&self) -> bool {
        !self.pixel && self.level9.is_none() && self.state.software_vertex_processing
    }
}
