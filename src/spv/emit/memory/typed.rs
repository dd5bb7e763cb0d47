//! Typed buffers: `ld_uav_typed`, `store_uav_typed`, the texel count of `bufinfo`, and the
//! texel pointers of typed atomics.
//!
//! Contract (`ld_uav_typed`/`store_uav_typed (sm5 - asm)`): the address is the texel index
//! (component `.x` of the address operand, through its swizzle). Every access is checked
//! against `OpImageQuerySize`: a load out of range gives (0, 0, 0, 1) — the D3D rule "0 in the
//! format's components, the default for missing ones" for the R32 formats D3D11 allows typed
//! UAV loads on (the view format is not known here) — and a store out of range writes nothing.
//! A load puts texel component `swizzle[c]` into destination component `c`; a store writes
//! all four source components (converted by Vulkan to the view format). Images declared with
//! format `Unknown` need `StorageImageReadWithoutFormat`/`StorageImageWriteWithoutFormat`.
//! Typed textures are not supported yet.

use spirv::{Capability, ImageOperands, StorageClass};

use crate::bindings::ResourceKind;
use crate::error::Error;
use crate::ir::{Dimension, Inst, Reg, ResourceShape};
use crate::spv::emit::context::{Emitter, Scalar, Value};
use crate::spv::Id;

/// A typed buffer view ready to be accessed (also for the texture code: `ld` on buffers).
#[derive(Clone, Copy, Debug)]
pub(in crate::spv::emit) struct TexelBuffer {
    /// The image variable.
    pub var: Id,
    /// The loaded image.
    pub image: Id,
    /// Component type of its texels.
    pub scalar: Scalar,
    /// Declared R32 (no `*WithoutFormat` capability needed).
    pub r32: bool,
}

impl Emitter<'_> {
    /// The typed buffer declaration `decl`, loaded (Unsupported for textures).
    pub(in crate::spv::emit) fn texel_buffer(
        &mut self,
        span: u32,
        decl: u32,
    ) -> Result<TexelBuffer, Error> {
        let d = self
            .ir
            .resources
            .get(decl as usize)
            .ok_or_else(|| Error::invalid(span, format!("resource #{decl} is not declared")))?;
        match d.shape {
            ResourceShape::Typed {
                dim: Dimension::Buffer,
                ..
            } => {}
            ResourceShape::Typed { .. } => {
                return Err(Error::unsupported(
                    span,
                    "typed UAV textures (graphics issue)",
                ))
            }
            _ => {
                return Err(Error::invalid(
                    span,
                    "typed access to a raw or structured buffer",
                ))
            }
        }
        let vars = self.resource_vars(span, decl)?;
        let (Some(var), Some(image_type), Some(scalar)) = (vars.var, vars.image_type, vars.texel)
        else {
            return Err(Error::invalid(span, "typed buffer without an image"));
        };
        let image = self.m.load(image_type, var);
        Ok(TexelBuffer {
            var,
            image,
            scalar,
            r32: vars.r32,
        })
    }

    /// The number of texels of typed buffer `decl` (`OpImageQuerySize`).
    pub(super) fn texel_count(&mut self, span: u32, decl: u32) -> Result<Id, Error> {
        let tb = self.texel_buffer(span, decl)?;
        Ok(self.query_size(&tb))
    }

    /// `OpImageQuerySize` of a loaded texel buffer.
    pub(in crate::spv::emit) fn query_size(&mut self, tb: &TexelBuffer) -> Id {
        self.m.capability(Capability::ImageQuery);
        let u = self.ty(Scalar::U32, 1);
        self.m.image_query_size(u, tb.image)
    }

    /// `ld` from a typed buffer SRV (`Buffer<T>`): `OpImageFetch` of texel `.x`, through the
    /// resource swizzle. Out-of-range texels are not guarded here: D3D's rule (0 in the format's
    /// channels, the default for missing ones) depends on the view format, which only the
    /// runtime knows; Vulkan's robust buffer access (`robustBufferAccess2`/`robustImageAccess2`)
    /// implements exactly that rule, and the runtime enables it (docs/bindings.md).
    pub(in crate::spv::emit) fn ld_typed_buffer(&mut self, inst: &Inst) -> Result<(), Error> {
        let res = *inst
            .src()
            .get(1)
            .ok_or_else(|| Error::invalid(inst.span, "missing resource operand"))?;
        let Reg::Resource { decl, element } = res.reg else {
            return Err(Error::invalid(inst.span, "ld without a t# operand"));
        };
        Self::single_element(inst.span, &element)?;
        let tb = self.texel_buffer(inst.span, decl)?;
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let coord = self.load_src(inst, 0, 1, Scalar::U32)?.id;
        let vec4 = self.ty(tb.scalar, 4);
        let texel = self.m.image_op(
            spirv::Op::ImageFetch,
            vec4,
            tb.image,
            coord,
            None,
            ImageOperands::NONE,
            &[],
        );
        self.store_texel(inst, &res, tb.scalar, texel, mask)
    }

    /// Writes the components of a loaded 4-component `texel` that destination 0's `mask`
    /// selects through the resource operand's swizzle.
    fn store_texel(
        &mut self,
        inst: &Inst,
        res: &crate::ir::Src,
        scalar: Scalar,
        texel: Id,
        mask: u8,
    ) -> Result<(), Error> {
        let texel = Value {
            id: texel,
            scalar,
            n: 4,
        };
        let mut parts = [texel.id; 4];
        let mut n = 0;
        for c in Self::mask_components(mask) {
            parts[n] = self.extract(texel, res.swizzle[c as usize] & 3).id;
            n += 1;
        }
        let value = self.compose(scalar, &parts[..n]);
        self.store_dst(inst, 0, value)
    }

    /// The UAV declaration a typed instruction's operand names.
    fn typed_uav(&self, span: u32, reg: &Reg) -> Result<u32, Error> {
        match *reg {
            Reg::Uav { decl, element } => {
                Self::single_element(span, &element)?;
                let kind = self.ir.resources.get(decl as usize).map(|d| d.range.kind);
                if kind != Some(ResourceKind::UnorderedAccess) {
                    return Err(Error::invalid(
                        span,
                        "u# operand naming a shader resource view",
                    ));
                }
                Ok(decl)
            }
            _ => Err(Error::invalid(
                span,
                "typed UAV access to something other than a u#",
            )),
        }
    }

    /// `ld_uav_typed dst, address, u#`.
    pub(super) fn ld_uav_typed(&mut self, inst: &Inst) -> Result<(), Error> {
        let res = *inst
            .src()
            .get(1)
            .ok_or_else(|| Error::invalid(inst.span, "missing resource operand"))?;
        let decl = self.typed_uav(inst.span, &res.reg)?;
        let tb = self.texel_buffer(inst.span, decl)?;
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        if !tb.r32 {
            self.m.capability(Capability::StorageImageReadWithoutFormat);
        }
        let coord = self.load_src(inst, 0, 1, Scalar::U32)?.id;
        let size = self.query_size(&tb);
        let b = self.ty(Scalar::Bool, 1);
        let ok = self.m.u_less_than(b, coord, size);
        let vec4 = self.ty(tb.scalar, 4);
        let zero = self.splat_bits(tb.scalar, 1, 0);
        let one_bits = if tb.scalar == Scalar::F32 {
            1f32.to_bits()
        } else {
            1
        };
        let one = self.splat_bits(tb.scalar, 1, one_bits);
        let default = self.m.constant_composite(vec4, &[zero, zero, zero, one]);
        let image = tb.image;
        let texel = self.guarded_value(ok, vec4, default, |e| {
            Ok(e.m.image_op(
                spirv::Op::ImageRead,
                vec4,
                image,
                coord,
                None,
                ImageOperands::NONE,
                &[],
            ))
        })?;
        self.store_texel(inst, &res, tb.scalar, texel, mask)
    }

    /// `store_uav_typed u#.xyzw, address, value`.
    pub(super) fn store_uav_typed(&mut self, inst: &Inst) -> Result<(), Error> {
        let dst = *inst
            .dst()
            .first()
            .ok_or_else(|| Error::invalid(inst.span, "missing destination operand"))?;
        let decl = self.typed_uav(inst.span, &dst.reg)?;
        let tb = self.texel_buffer(inst.span, decl)?;
        if !tb.r32 {
            self.m
                .capability(Capability::StorageImageWriteWithoutFormat);
        }
        let coord = self.load_src(inst, 0, 1, Scalar::U32)?.id;
        let value = self.load_src(inst, 1, 0xf, tb.scalar)?;
        let size = self.query_size(&tb);
        let b = self.ty(Scalar::Bool, 1);
        let ok = self.m.u_less_than(b, coord, size);
        let image = tb.image;
        self.guarded(ok, |e| {
            e.m.image_write(image, coord, value.id, ImageOperands::NONE, &[]);
            Ok(())
        })
    }

    /// A pointer to texel `coord` of a typed UAV, for atomics (`OpImageTexelPointer`).
    pub(super) fn texel_pointer(&mut self, tb: &TexelBuffer, coord: Id) -> Id {
        let scalar = self.ty(tb.scalar, 1);
        let ptr_ty = self.m.type_pointer(StorageClass::Image, scalar);
        let sample = self.u32_const(0);
        self.m.emit(
            spirv::Op::ImageTexelPointer,
            ptr_ty,
            &[tb.var, coord, sample],
        )
    }
}
