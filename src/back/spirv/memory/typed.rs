//! Typed UAVs and typed buffer SRVs: `ld_uav_typed`, `store_uav_typed`, the texel count of
//! `bufinfo`, `ld` on typed buffers, and the texel pointers of typed atomics — on typed
//! buffers (texel buffers) and on `RWTexture1D/2D/3D` and their arrays (storage images).
//!
//! Contract (`ld_uav_typed`/`store_uav_typed (sm5 - asm)`): the address holds the texel
//! coordinates through its swizzle: `.x` for buffers and 1-D, `.xy` for 1-D arrays (x, layer)
//! and 2-D, `.xyz` for 2-D arrays (x, y, layer) and 3-D. Every access is checked against
//! `OpImageQuerySize` (all coordinates, array index included, unsigned, so negative values are
//! out of range): a load out of range gives (0, 0, 0, 1) — the D3D rule "0 in the format's
//! components, the default for missing ones" for the R32 formats D3D11 allows typed UAV loads
//! on (the view format is not known here) — and a store out of range writes nothing (both
//! branch around the access, so nothing out of bounds is ever touched). A load puts texel
//! component `swizzle[c]` into destination component `c`; a store writes all four source
//! components (converted by Vulkan to the view format). Images declared with format
//! `Unknown` need `StorageImageReadWithoutFormat`/`StorageImageWriteWithoutFormat`.

use spirv::{Capability, ImageOperands, StorageClass};

use crate::back::spirv::context::{Emitter, Scalar, Value};
use crate::back::spirv::descriptors::DescriptorKind;
use crate::back::spirv::Error;
use crate::bindings::ResourceKind;
use crate::ir::{Dimension, Index, Inst, Reg, ResourceId, ResourceShape};
use crate::spv::Id;

/// A typed buffer view or storage image ready to be accessed (also for the texture code: `ld`
/// on buffers, `ld_uav_typed_s`).
#[derive(Clone, Copy, Debug)]
pub(in crate::back::spirv) struct TexelBuffer {
    /// Pointer to the image descriptor.
    pub var: Id,
    /// The descriptor is non-uniform (what is derived from it is decorated `NonUniform`).
    pub nonuniform: bool,
    /// The loaded image.
    pub image: Id,
    /// Component type of its texels.
    pub scalar: Scalar,
    /// Declared with a format (no `*WithoutFormat` capability needed).
    pub r32: bool,
    /// Coordinate components of an address (1 for buffers), array index included.
    pub coords: u8,
    /// A buffer (texel buffer) rather than a texture.
    pub buffer: bool,
}

/// Address components of a typed UAV or buffer of dimension `dim` (`None`: not addressable
/// as a typed UAV).
fn address_components(dim: Dimension) -> Option<u8> {
    Some(match dim {
        Dimension::Buffer | Dimension::Texture1D => 1,
        Dimension::Texture1DArray | Dimension::Texture2D => 2,
        Dimension::Texture2DArray | Dimension::Texture3D => 3,
        _ => return None,
    })
}

impl Emitter<'_> {
    /// Element `element` of the typed buffer or typed UAV texture declaration `decl`, loaded.
    pub(in crate::back::spirv) fn texel_buffer(
        &mut self,
        span: u32,
        decl: ResourceId,
        element: &Index,
    ) -> Result<TexelBuffer, Error> {
        let d =
            self.ir.resources.get(decl.index()).ok_or_else(|| {
                Error::internal(span, format!("resource #{decl} is not declared"))
            })?;
        let coords = match d.shape {
            ResourceShape::Typed { dim, .. } => address_components(dim).ok_or_else(|| {
                Error::invalid(span, "typed access to a multisampled or cube texture")
            })?,
            _ => {
                return Err(Error::invalid(
                    span,
                    "typed access to a raw or structured buffer",
                ))
            }
        };
        let buffer = matches!(
            d.shape,
            ResourceShape::Typed {
                dim: Dimension::Buffer,
                ..
            }
        );
        let vars = self.resource_vars(span, decl)?;
        let (Some(var), Some(image_type), Some(scalar)) = (vars.var, vars.image_type, vars.texel)
        else {
            return Err(Error::internal(span, "typed buffer without an image"));
        };
        let uav = d.range.kind == ResourceKind::UnorderedAccess;
        let kind = match (buffer, uav) {
            (true, false) => DescriptorKind::UniformTexelBuffer,
            (true, true) => DescriptorKind::StorageTexelBuffer,
            (false, false) => DescriptorKind::SampledImage,
            (false, true) => DescriptorKind::StorageImage,
        };
        let array = vars.array;
        let desc = self.descriptor_element(
            span,
            var,
            array,
            element,
            StorageClass::UniformConstant,
            image_type,
            kind,
        )?;
        let image = self.m.load(image_type, desc.ptr);
        if desc.nonuniform {
            self.non_uniform(image);
        }
        Ok(TexelBuffer {
            var: desc.ptr,
            nonuniform: desc.nonuniform,
            image,
            scalar,
            r32: vars.r32,
            coords,
            buffer,
        })
    }

    /// The number of texels of element `element` of typed buffer `decl` (`OpImageQuerySize`).
    pub(super) fn texel_count(
        &mut self,
        span: u32,
        decl: ResourceId,
        element: &Index,
    ) -> Result<Id, Error> {
        let tb = self.texel_buffer(span, decl, element)?;
        if !tb.buffer {
            return Err(Error::invalid(span, "`bufinfo` on a texture"));
        }
        Ok(self.query_size(&tb))
    }

    /// `OpImageQuerySize` of a loaded texel buffer or storage image (`coords` components).
    pub(in crate::back::spirv) fn query_size(&mut self, tb: &TexelBuffer) -> Id {
        self.m.capability(Capability::ImageQuery);
        let u = self.ty(Scalar::U32, tb.coords);
        self.m.image_query_size(u, tb.image)
    }

    /// The address in source `i` of a typed access (`tb.coords` unsigned components) and the
    /// size it must be below.
    pub(in crate::back::spirv) fn typed_address(
        &mut self,
        inst: &Inst,
        i: usize,
        tb: &TexelBuffer,
    ) -> Result<(Id, Id), Error> {
        let mask = (1u8 << tb.coords) - 1;
        let coord = self.load_src(inst, i, mask, Scalar::U32)?.id;
        Ok((coord, self.query_size(tb)))
    }

    /// The address in source `i` of a typed access and whether it is inside the view.
    pub(super) fn typed_address_checked(
        &mut self,
        inst: &Inst,
        i: usize,
        tb: &TexelBuffer,
    ) -> Result<(Id, Id), Error> {
        let (coord, size) = self.typed_address(inst, i, tb)?;
        Ok((coord, self.all_less_than(coord, size, tb.coords)))
    }

    /// `ld` from a typed buffer SRV (`Buffer<T>`): `OpImageFetch` of texel `.x`, through the
    /// resource swizzle. Out-of-range texels are not guarded here: D3D's rule (0 in the format's
    /// channels, the default for missing ones) depends on the view format, which only the
    /// runtime knows; Vulkan's robust buffer access (`robustBufferAccess2`/`robustImageAccess2`)
    /// implements exactly that rule, and the runtime enables it (docs/bindings.md).
    pub(in crate::back::spirv) fn ld_typed_buffer(&mut self, inst: &Inst) -> Result<(), Error> {
        let res = *inst
            .src()
            .get(1)
            .ok_or_else(|| Error::internal(inst.span, "missing resource operand"))?;
        let Reg::Resource { decl, element } = res.reg else {
            return Err(Error::invalid(inst.span, "ld without a t# operand"));
        };
        let tb = self.texel_buffer(inst.span, decl, &element)?;
        if !tb.buffer {
            return Err(Error::invalid(inst.span, "typed buffer `ld` on a texture"));
        }
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

    /// The UAV declaration (and descriptor element) a typed instruction's operand names.
    fn typed_uav(&self, span: u32, reg: &Reg) -> Result<(ResourceId, Index), Error> {
        match *reg {
            Reg::Uav { decl, element } => {
                let kind = self.ir.resources.get(decl.index()).map(|d| d.range.kind);
                if kind != Some(ResourceKind::UnorderedAccess) {
                    return Err(Error::invalid(
                        span,
                        "u# operand naming a shader resource view",
                    ));
                }
                Ok((decl, element))
            }
            _ => Err(Error::invalid(
                span,
                "typed UAV access to something other than a u#",
            )),
        }
    }

    /// The loaded typed UAV (buffer or texture) a `u#` operand names.
    pub(in crate::back::spirv) fn typed_uav_operand(
        &mut self,
        span: u32,
        reg: &Reg,
    ) -> Result<TexelBuffer, Error> {
        let (decl, element) = self.typed_uav(span, reg)?;
        let tb = self.texel_buffer(span, decl, &element)?;
        if !tb.r32 {
            self.m.capability(Capability::StorageImageReadWithoutFormat);
        }
        Ok(tb)
    }

    /// What an out-of-range typed UAV load returns: (0, 0, 0, 1).
    pub(in crate::back::spirv) fn typed_default(&mut self, scalar: Scalar) -> Id {
        let vec4 = self.ty(scalar, 4);
        let zero = self.splat_bits(scalar, 1, 0);
        let one_bits = if scalar == Scalar::F32 {
            1f32.to_bits()
        } else {
            1
        };
        let one = self.splat_bits(scalar, 1, one_bits);
        self.m.constant_composite(vec4, &[zero, zero, zero, one])
    }

    /// `ld_uav_typed dst, address, u#`.
    pub(super) fn ld_uav_typed(&mut self, inst: &Inst) -> Result<(), Error> {
        let res = *inst
            .src()
            .get(1)
            .ok_or_else(|| Error::internal(inst.span, "missing resource operand"))?;
        let tb = self.typed_uav_operand(inst.span, &res.reg)?;
        let mask = Self::dst_mask(inst, 0);
        if mask == 0 {
            return Ok(());
        }
        let (coord, ok) = self.typed_address_checked(inst, 0, &tb)?;
        let vec4 = self.ty(tb.scalar, 4);
        let default = self.typed_default(tb.scalar);
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
            .ok_or_else(|| Error::internal(inst.span, "missing destination operand"))?;
        let (decl, element) = self.typed_uav(inst.span, &dst.reg)?;
        let tb = self.texel_buffer(inst.span, decl, &element)?;
        if !tb.r32 {
            self.m
                .capability(Capability::StorageImageWriteWithoutFormat);
        }
        let value = self.load_src(inst, 1, 0xf, tb.scalar)?;
        let (coord, ok) = self.typed_address_checked(inst, 0, &tb)?;
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
        let ptr = self.m.emit(
            spirv::Op::ImageTexelPointer,
            ptr_ty,
            &[tb.var, coord, sample],
        );
        if tb.nonuniform {
            self.non_uniform(ptr);
        }
        ptr
    }
}
