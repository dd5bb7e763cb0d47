//! Texture queries: `resinfo`, `sampleinfo`, `samplepos`.
//!
//! Contract (`resinfo (sm4 - asm)`, `sampleinfo (sm4.1 - asm)`, `samplepos (sm4.1 - asm)`):
//! - `resinfo[_uint|_rcpFloat] dst, mipLevel, t#/u#` computes (width, height, depth or array
//!   size, mip count) of the view at `mipLevel`: 1-D (w, 0, 0), 1-D array (w, layers, 0),
//!   2-D, 2-D MS and cube (w, h, 0), 2-D array, 2-D MS array (w, h, layers), cube array
//!   (w, h, cubes), 3-D (w, h, d). A mip level past the last gives 0 in x, y, z; the mip count
//!   is always returned (1 for UAVs and multisampled views). Float by default, integers with
//!   `_uint`; `_rcpFloat` returns the reciprocal of width, height and depth (INF for a zero
//!   size past the last mip), not of array sizes or the zeros of missing dimensions. The
//!   resource swizzle reorders the vector.
//! - `sampleinfo[_uint] dst, t#` computes (sample count, 0, 0, 0), float unless `_uint`, on a
//!   multisampled view (1 on one the runtime bound single-sampled,
//!   `PipelineState::single_sampled_srvs`).
//! - `samplepos dst, t#, sampleIndex` computes (x, y, 0, 0), the position of the sample
//!   relative to the pixel centre, from D3D's standard patterns for 1, 2, 4, 8 and 16 samples
//!   (Vulkan's standard sample locations are the same; the shader cannot query a device's
//!   custom pattern). An index past the count, or another count, gives zeros.
//! - The rasterizer operand of `sampleinfo`/`samplepos` is a pixel-stage register (not
//!   handled here).

use spirv::StorageClass;

use super::Texture;
use crate::back::spirv::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{Dimension, Inst, Payload, ResinfoReturn, SampleinfoReturn};
use crate::spv::Id;

/// D3D's standard sample positions in 1/16 pixel, for 1, 2, 4, 8 and 16 samples, one pattern
/// after the other: the pattern of `n` samples starts at entry `n − 1`.
const SAMPLE_POSITIONS: [(i8, i8); 31] = [
    (0, 0),
    (4, 4),
    (-4, -4),
    (-2, -6),
    (6, -2),
    (-6, 2),
    (2, 6),
    (1, -3),
    (-1, 3),
    (5, 1),
    (-3, -5),
    (-5, 5),
    (-7, -1),
    (3, 7),
    (7, -7),
    (1, 1),
    (-1, -3),
    (-3, 2),
    (4, -1),
    (-5, -2),
    (2, 5),
    (5, 3),
    (3, -5),
    (-2, 6),
    (0, -7),
    (-4, -6),
    (-6, 4),
    (-8, 0),
    (7, -4),
    (6, 7),
    (-7, -8),
];

/// What `resinfo` returns in x, y and z.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// A size component (reciprocal under `_rcpFloat`), from this component of the query.
    Size(u8),
    /// An array size, from this component of the query.
    Layers(u8),
    /// Always 0.
    Zero,
}

fn resinfo_parts(dim: Dimension) -> [Part; 3] {
    use Part::*;
    match dim {
        Dimension::Buffer | Dimension::Texture1D => [Size(0), Zero, Zero],
        Dimension::Texture1DArray => [Size(0), Layers(1), Zero],
        Dimension::Texture2D | Dimension::Texture2DMS | Dimension::TextureCube => {
            [Size(0), Size(1), Zero]
        }
        Dimension::Texture2DArray | Dimension::Texture2DMSArray | Dimension::TextureCubeArray => {
            [Size(0), Size(1), Layers(2)]
        }
        Dimension::Texture3D => [Size(0), Size(1), Size(2)],
    }
}

impl Emitter<'_> {
    /// `resinfo dst, mipLevel, t#/u#`.
    pub(super) fn resinfo(&mut self, inst: &Inst) -> Result<(), Error> {
        let res = Self::operand(inst, 1)?;
        let tex = self.texture_operand(inst.span, &res, true)?;
        let ret = match inst.payload {
            Payload::Resinfo(ret) => ret,
            _ => ResinfoReturn::Float,
        };
        if ret == ResinfoReturn::Reserved {
            return Err(Error::invalid(inst.span, "unknown resinfo return type"));
        }
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        let mip = self.load_src(inst, 0, 1, Scalar::U32)?.id;
        self.image_query();
        let image = self.load_image(&tex);
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let n = tex.shape.size;
        let size_ty = self.ty(Scalar::U32, n);
        let zero = self.u32_const(0);
        let (levels, size, ok) = if tex.uav || tex.shape.ms {
            // One level: only mip 0 exists.
            let size = if tex.demoted {
                self.m.image_query_size_lod(size_ty, image, zero)
            } else {
                self.m.image_query_size(size_ty, image)
            };
            let ok = self.m.i_equal(b, mip, zero);
            (self.u32_const(1), size, ok)
        } else {
            let levels = self.m.image_query_levels(u, image);
            let ok = self.m.u_less_than(b, mip, levels);
            let lod = self.clamp_below(mip, levels, 1);
            let size = self.mip_size(&tex, image, lod);
            (levels, size, ok)
        };
        let size = Value {
            id: size,
            scalar: Scalar::U32,
            n,
        };
        let size = self.zero_unless(ok, size);
        let f = self.ty(Scalar::F32, 1);
        let one = self.splat_bits(Scalar::F32, 1, 1f32.to_bits());
        let mut parts = [zero; 4];
        for (k, part) in resinfo_parts(tex.dim).into_iter().enumerate() {
            let (c, rcp) = match part {
                Part::Size(c) => (c, true),
                Part::Layers(c) => (c, false),
                Part::Zero => {
                    parts[k] = match ret {
                        ResinfoReturn::Uint => zero,
                        _ => self.splat_bits(Scalar::F32, 1, 0),
                    };
                    continue;
                }
            };
            let v = self.extract(size, c).id;
            parts[k] = match ret {
                ResinfoReturn::Uint => v,
                ResinfoReturn::RcpFloat if rcp => {
                    let v = self.m.convert_u_to_f(f, v);
                    self.m.f_div(f, one, v)
                }
                _ => self.m.convert_u_to_f(f, v),
            };
        }
        parts[3] = match ret {
            ResinfoReturn::Uint => levels,
            _ => self.m.convert_u_to_f(f, levels),
        };
        let scalar = if ret == ResinfoReturn::Uint {
            Scalar::U32
        } else {
            Scalar::F32
        };
        let v = self.compose(scalar, &parts);
        self.store_swizzled(inst, v, tex.swizzle)
    }

    /// The multisampled texture SRV of `sampleinfo`/`samplepos` (source `i`).
    fn multisampled(&mut self, inst: &Inst, i: usize) -> Result<Texture, Error> {
        let res = Self::operand(inst, i)?;
        let tex = self.texture_operand(inst.span, &res, false)?;
        if !tex.shape.ms {
            return Err(Error::invalid(
                inst.span,
                format!("`{}` on a texture that is not multisampled", inst.op.name()),
            ));
        }
        Ok(tex)
    }

    /// The sample count `sampleinfo`/`samplepos` ask about (source 0: a multisampled `t#`, or
    /// `rasterizer`) and the source's swizzle.
    fn sample_count(&mut self, inst: &Inst) -> Result<(Id, [u8; 4]), Error> {
        let src = Self::operand(inst, 0)?;
        if src.reg == crate::ir::Reg::Rasterizer {
            return Ok((self.rasterizer_samples(), src.swizzle));
        }
        let tex = self.multisampled(inst, 0)?;
        if tex.demoted {
            // The runtime bound a single-sampled view.
            return Ok((self.u32_const(1), tex.swizzle));
        }
        self.image_query();
        let image = self.load_image(&tex);
        let u = self.ty(Scalar::U32, 1);
        Ok((self.m.image_query_samples(u, image), tex.swizzle))
    }

    /// The render target's sample count: Vulkan has no built-in for it, so it is
    /// [`PipelineState::sample_count`](crate::back::spirv::PipelineState::sample_count): by
    /// default the specialization constant
    /// [`RASTERIZER_SAMPLES_SPEC_ID`](crate::back::spirv::RASTERIZER_SAMPLES_SPEC_ID)
    /// (default 1), which the runtime sets from the pipeline's `rasterizationSamples`.
    fn rasterizer_samples(&mut self) -> Id {
        if let Some(id) = self.textures.rasterizer_samples {
            return id;
        }
        let count = self.options.pipeline_state.sample_count;
        let id = self.spec_u32(count, "rasterizer_samples");
        self.textures.rasterizer_samples = Some(id);
        id
    }

    /// `sampleinfo[_uint] dst, t#`.
    pub(super) fn sampleinfo(&mut self, inst: &Inst) -> Result<(), Error> {
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        let (samples, swizzle) = self.sample_count(inst)?;
        let v = if inst.payload == Payload::Sampleinfo(SampleinfoReturn::Uint) {
            let zero = self.u32_const(0);
            self.compose(Scalar::U32, &[samples, zero, zero, zero])
        } else {
            let f = self.ty(Scalar::F32, 1);
            let s = self.m.convert_u_to_f(f, samples);
            let zero = self.splat_bits(Scalar::F32, 1, 0);
            self.compose(Scalar::F32, &[s, zero, zero, zero])
        };
        self.store_swizzled(inst, v, swizzle)
    }

    /// `samplepos dst, t#, sampleIndex`.
    pub(super) fn samplepos(&mut self, inst: &Inst) -> Result<(), Error> {
        if Self::dst_mask(inst, 0) == 0 {
            return Ok(());
        }
        let index = self.load_src(inst, 1, 1, Scalar::U32)?.id;
        let (count, swizzle) = self.sample_count(inst)?;
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        // A standard count is a power of two up to 16; its pattern starts at count − 1.
        let bits = self.m.bit_count(u, count);
        let one = self.u32_const(1);
        let pow2 = self.m.i_equal(b, bits, one);
        let c16 = self.u32_const(16);
        let small = self.m.u_less_than_equal(b, count, c16);
        let in_count = self.m.u_less_than(b, index, count);
        let ok = self.m.logical_and(b, pow2, small);
        let ok = self.m.logical_and(b, ok, in_count);
        let base = self.m.i_sub(u, count, one);
        let slot = self.m.i_add(u, base, index);
        let none = self.u32_const(SAMPLE_POSITIONS.len() as u32);
        let slot = self.m.select(u, ok, slot, none);
        let table = self.sample_position_table();
        let vec2 = self.ty(Scalar::F32, 2);
        let ptr_ty = self.m.type_pointer(StorageClass::Private, vec2);
        let ptr = self.m.access_chain(ptr_ty, table, &[slot]);
        let xy = self.m.load(vec2, ptr);
        let f = self.ty(Scalar::F32, 1);
        let x = self.m.composite_extract(f, xy, &[0]);
        let y = self.m.composite_extract(f, xy, &[1]);
        let zero = self.splat_bits(Scalar::F32, 1, 0);
        let v = self.compose(Scalar::F32, &[x, y, zero, zero]);
        self.store_swizzled(inst, v, swizzle)
    }

    /// The Private `vec2[32]` of [`SAMPLE_POSITIONS`] in pixels, plus a zero entry for
    /// indices out of range (declared on first use).
    fn sample_position_table(&mut self) -> Id {
        if let Some(t) = self.textures.sample_positions {
            return t;
        }
        let vec2 = self.ty(Scalar::F32, 2);
        let mut entries = Vec::with_capacity(SAMPLE_POSITIONS.len() + 1);
        for (x, y) in SAMPLE_POSITIONS.into_iter().chain([(0, 0)]) {
            let x = self.m.constant_f32(f32::from(x) / 16.0);
            let y = self.m.constant_f32(f32::from(y) / 16.0);
            entries.push(self.m.constant_composite(vec2, &[x, y]));
        }
        let ty = self.m.type_array_len(vec2, entries.len() as u32);
        let init = self.m.constant_composite(ty, &entries);
        let var = self
            .m
            .global_variable(StorageClass::Private, ty, Some(init));
        self.m.name(var, "sample_positions");
        self.textures.sample_positions = Some(var);
        var
    }
}
