//! `ld` and `ldms` on textures (and their `_s` forms): unfiltered texel fetches with D3D's
//! out-of-bounds rule made explicit.
//!
//! Contract (`ld (sm4 - asm)`, `ld2dms (sm4.1 - asm)`):
//! - `ld dst, address, t#`: the address's first components are the texel coordinates, the
//!   array index last among them (integers; 1-D: `.x`, 1-D array/2-D: `.xy`, 2-D array/3-D:
//!   `.xyz`); its `.w` (through the swizzle, D3D's "POS-swizzle `.a`") is the mip level,
//!   relative to the view. Cubes cannot be loaded; multisampled views use `ldms`.
//! - `ldms dst, address, t#, sampleIndex`: the coordinates (no mip level) and the sample. On
//!   a view the runtime bound single-sampled (`PipelineState::single_sampled_srvs`) it reads
//!   mip 0, and only sample 0 is in bounds.
//! - Immediate offsets (`_aoffimmi`) are added to the coordinates (not the array index)
//!   before the check.
//! - Out of bounds (a coordinate ≥ the mip's size, which also catches negative values read as
//!   unsigned, an array index ≥ the layer count, a mip ≥ the level count, a sample ≥ the sample
//!   count) the result is 0 in every component. D3D returns 0 in the format's channels and
//!   the default (1 for alpha) in missing ones; the view format is not known to the shader,
//!   so a format without alpha reads (0, 0, 0, 0) here instead of (0, 0, 0, 1).
//! - The check is explicit rather than left to the device: without `robustImageAccess`
//!   Vulkan leaves an out-of-bounds fetch undefined. The fetch itself is made at the
//!   address clamped into the view (mip, coordinates, sample), so it is always defined, and
//!   its result is replaced by zero with a select (no branch).

use spirv::{ImageOperands, Op as SpvOp};

use super::sample::immediate_offset;
use super::{first, Texture};
use crate::back::spirv::context::{Emitter, Scalar, Value};
use crate::back::spirv::Error;
use crate::ir::{Inst, Payload};
use crate::spv::Id;

impl Emitter<'_> {
    /// `ld` / `ld_s` on a texture SRV.
    pub(super) fn ld(&mut self, inst: &Inst, status: bool) -> Result<(), Error> {
        let span = inst.span;
        let res = Self::operand(inst, 1)?;
        let tex = self.texture_operand(span, &res, false)?;
        if tex.shape.ms {
            return Err(Error::invalid(
                span,
                "`ld` on a multisampled texture (ldms reads those)",
            ));
        }
        if tex.shape.dim == spirv::Dim::DimCube {
            return Err(Error::invalid(span, "`ld` on a cube texture"));
        }
        if !self.has_result(inst, status) {
            return Ok(());
        }
        let n = tex.shape.coords;
        let coord = self.load_src(inst, 0, first(n), Scalar::U32)?.id;
        let coord = self.offset_address(inst.payload, &tex, coord);
        let mip = self.load_src(inst, 0, 0b1000, Scalar::U32)?.id;
        self.image_query();
        let image = self.load_image(&tex);
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let levels = self.m.image_query_levels(u, image);
        let mip_ok = self.m.u_less_than(b, mip, levels);
        let lod = self.clamp_below(mip, levels, 1);
        let size = self.mip_size(&tex, image, lod);
        let coord_ok = self.all_less_than(coord, size, n);
        let ok = self.m.logical_and(b, mip_ok, coord_ok);
        let at = self.clamp_below(coord, size, n);
        let ops = super::sample::Operands {
            lod: Some(lod),
            ..Default::default()
        };
        self.fetch(inst, &tex, image, at, ops, ok, status)
    }

    /// `ldms` / `ldms_s` on a multisampled texture SRV.
    pub(super) fn ldms(&mut self, inst: &Inst, status: bool) -> Result<(), Error> {
        let span = inst.span;
        let res = Self::operand(inst, 1)?;
        let tex = self.texture_operand(span, &res, false)?;
        if !tex.shape.ms {
            return Err(Error::invalid(
                span,
                "`ldms` on a texture that is not multisampled",
            ));
        }
        if !self.has_result(inst, status) {
            return Ok(());
        }
        let n = tex.shape.coords;
        let coord = self.load_src(inst, 0, first(n), Scalar::U32)?.id;
        let coord = self.offset_address(inst.payload, &tex, coord);
        let sample = self.load_src(inst, 2, 1, Scalar::U32)?.id;
        self.image_query();
        let image = self.load_image(&tex);
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let (sample_ok, size, ops) = if tex.demoted {
            // A single-sampled view: sample 0 of mip 0.
            let zero = self.u32_const(0);
            let sample_ok = self.m.i_equal(b, sample, zero);
            let size_ty = self.ty(Scalar::U32, n);
            let size = self.m.image_query_size_lod(size_ty, image, zero);
            let ops = super::sample::Operands {
                lod: Some(zero),
                ..Default::default()
            };
            (sample_ok, size, ops)
        } else {
            let samples = self.m.image_query_samples(u, image);
            let sample_ok = self.m.u_less_than(b, sample, samples);
            let sample = self.clamp_below(sample, samples, 1);
            let size_ty = self.ty(Scalar::U32, n);
            let size = self.m.image_query_size(size_ty, image);
            let ops = super::sample::Operands {
                sample: Some(sample),
                ..Default::default()
            };
            (sample_ok, size, ops)
        };
        let coord_ok = self.all_less_than(coord, size, n);
        let ok = self.m.logical_and(b, sample_ok, coord_ok);
        let at = self.clamp_below(coord, size, n);
        self.fetch(inst, &tex, image, at, ops, ok, status)
    }

    /// Whether a load writes anything: its destination, or (`_s`) its status.
    fn has_result(&self, inst: &Inst, status: bool) -> bool {
        Self::dst_mask(inst, 0) != 0 || (status && Self::dst_mask(inst, 1) != 0)
    }

    /// `coord` plus the immediate offsets of `payload` (none on the array index).
    fn offset_address(&mut self, payload: Payload, tex: &Texture, coord: Id) -> Id {
        let n = tex.shape.coords;
        let k = tex.shape.offsets;
        if (0..k).all(|c| immediate_offset(payload, c) == 0) {
            return coord;
        }
        let u = self.ty(Scalar::U32, 1);
        let mut parts = [u; 4];
        for c in 0..n {
            let v = if c < k {
                immediate_offset(payload, c)
            } else {
                0
            };
            parts[c as usize] = self.m.constant_bits32(u, v as u32);
        }
        let offset = if n == 1 {
            parts[0]
        } else {
            let ty = self.ty(Scalar::U32, n);
            self.m.constant_composite(ty, &parts[..n as usize])
        };
        let ty = self.ty(Scalar::U32, n);
        self.m.i_add(ty, coord, offset)
    }

    /// Fetches at the clamped address `at`, zeroes the texel unless `ok`, writes it through the
    /// resource swizzle and (`status`) writes the status.
    #[allow(clippy::too_many_arguments)]
    fn fetch(
        &mut self,
        inst: &Inst,
        tex: &Texture,
        image: Id,
        at: Id,
        ops: super::sample::Operands,
        ok: Id,
        status: bool,
    ) -> Result<(), Error> {
        let texel_ty = self.ty(tex.scalar, 4);
        let sparse = status && self.textures.sparse;
        let (op, ty) = if sparse {
            (SpvOp::ImageSparseFetch, self.residency_type(texel_ty))
        } else {
            (SpvOp::ImageFetch, texel_ty)
        };
        let (mask, ids, n): (ImageOperands, _, _) = ops.build(at);
        let result = self.m.image_op(op, ty, image, at, None, mask, &ids[..n]);
        let (texel, code) = if sparse {
            self.split_residency(result, texel_ty)
        } else {
            (result, self.fully_mapped())
        };
        let texel = Value {
            id: texel,
            scalar: tex.scalar,
            n: 4,
        };
        let texel = self.zero_unless(ok, texel);
        self.store_swizzled(inst, texel, tex.swizzle)?;
        if status {
            self.store_status(inst, code)?;
        }
        Ok(())
    }
}
