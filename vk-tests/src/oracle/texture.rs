//! Texel fetches (`ld` from a `t#` texture): integer coordinates, the mip level in the address's
//! w component, immediate offsets (`_aoffimmi`), the view's component mapping; and `resinfo`.
//!
//! Contract: by the D3D11.3 functional specification's `ld` rules — the address holds the texel
//! coordinates, then the array slice (1-D arrays: y, 2-D arrays: z), and w the mip level; an
//! address outside the mip, the slices or the mips reads 0 in the format's channels and the
//! defaults (0, 0, 1) in the missing ones. Texel data are laid out as the conformance case
//! format says: slice by slice, in each slice mip by mip, each mip tightly packed. Multisampled
//! and cube textures are [`Fault::Unsupported`]. `resinfo` gives (width, height, depth or slices,
//! mip count) of the mip its source names — 0 for the sizes of a mip that does not exist — as
//! floats, reciprocal floats (`_rcpFloat`: the sizes, not the slice count) or integers (`_uint`).

use ash::vk::ComponentSwizzle;
use dxbc2spv::front::dxbc::{Instruction, RegisterType};

use super::exec::{Machine, Thread};
use super::program::{mask, swizzle, Class};
use super::Fault;
use crate::conformance::textures::{TextureDim, TextureSpec};
use crate::format::ShaderType;

impl Machine<'_, '_> {
    /// The `t#` texture an `ld`'s resource operand names, if it is one.
    pub fn texture_of(&self, t: &Thread, inst: &Instruction<'_>) -> Result<Option<usize>, Fault> {
        let Some(op) = inst.operands().get(2) else {
            return Ok(None);
        };
        if op.ty != RegisterType::Resource {
            return Ok(None);
        }
        let id = op.indices().first().map(|i| i.imm as u32).unwrap_or(0);
        let Some(decl) = self.prog.decl(Class::Srv, id) else {
            return Ok(None);
        };
        if decl.kind != super::program::DeclKind::Texture {
            return Ok(None);
        }
        let reg = match (self.prog.sm51, op.indices().get(1)) {
            (true, Some(i)) => self.index(t, i)?,
            _ => id,
        };
        self.textures
            .iter()
            .position(|(k, _)| *k == (Class::Srv, decl.space, reg))
            .map(Some)
            .ok_or_else(|| Fault::Unsupported("ld from an unbound texture".into()))
    }

    /// `resinfo` of texture `index` of [`Machine::textures`].
    pub fn texture_resinfo(
        &self,
        t: &mut Thread,
        inst: &Instruction<'_>,
        index: usize,
    ) -> Result<(), Fault> {
        let ops = inst.operands();
        let spec = &self.textures[index].1;
        let mip = self.src(t, ops.get(1), false)?[0];
        let [w, h, d] = if mip < spec.mips {
            spec.mip_extent(mip)
        } else {
            [0; 3]
        };
        let layers = spec.layers;
        // (value, is a size that `_rcpFloat` reciprocates)
        let dims: [(u32, bool); 3] = match spec.dim {
            TextureDim::Tex1D => [(w, true), (0, false), (0, false)],
            TextureDim::Tex1DArray => [(w, true), (layers, false), (0, false)],
            TextureDim::Tex2D | TextureDim::Tex2DMS | TextureDim::Cube => {
                [(w, true), (h, true), (0, false)]
            }
            TextureDim::Tex2DArray | TextureDim::Tex2DMSArray => {
                [(w, true), (h, true), (layers, false)]
            }
            TextureDim::CubeArray => [(w, true), (h, true), (layers / 6, false)],
            TextureDim::Tex3D => [(w, true), (h, true), (d, true)],
        };
        let all = [dims[0], dims[1], dims[2], (spec.mips, false)];
        let v = all.map(|(x, size)| match inst.token.return_type() {
            2 => x,
            1 if size => (1.0 / x as f32).to_bits(),
            _ => (x as f32).to_bits(),
        });
        let sw = ops
            .get(2)
            .map(|o| swizzle(o.components))
            .unwrap_or([0, 1, 2, 3]);
        self.dst(t, ops.first(), sw.map(|c| v[c]))
    }

    /// `ld` from texture `index` of [`Machine::textures`].
    pub fn texture_ld(
        &self,
        t: &mut Thread,
        inst: &Instruction<'_>,
        index: usize,
    ) -> Result<(), Fault> {
        let ops = inst.operands();
        let spec = &self.textures[index].1;
        let a = self.src(t, ops.get(1), false)?;
        let off = inst.texel_offsets().unwrap_or([0; 3]);
        let add = |c: u32, o: i32| c.wrapping_add(o as u32);
        let (xyz, layer) = match spec.dim {
            TextureDim::Tex1D => ([add(a[0], off[0]), 0, 0], 0),
            TextureDim::Tex1DArray => ([add(a[0], off[0]), 0, 0], a[1]),
            TextureDim::Tex2D => ([add(a[0], off[0]), add(a[1], off[1]), 0], 0),
            TextureDim::Tex2DArray => ([add(a[0], off[0]), add(a[1], off[1]), 0], a[2]),
            TextureDim::Tex3D => ([add(a[0], off[0]), add(a[1], off[1]), add(a[2], off[2])], 0),
            other => return Err(Fault::Unsupported(format!("ld from a {other:?} texture"))),
        };
        let texel = fetch(spec, xyz, layer, a[3]);
        let sw = ops
            .get(2)
            .map(|o| swizzle(o.components))
            .unwrap_or([0, 1, 2, 3]);
        let m = ops.first().map(|o| mask(o.components)).unwrap_or(0xf);
        let v = [0, 1, 2, 3].map(|c| if m & (1 << c) != 0 { texel[sw[c]] } else { 0 });
        self.dst(t, ops.first(), v)
    }
}

/// The four channels a shader reads at `xyz` of slice `layer`, mip `mip`.
fn fetch(spec: &TextureSpec, xyz: [u32; 3], layer: u32, mip: u32) -> [u32; 4] {
    let f = spec.format;
    let one = match f.shader_type() {
        ShaderType::Float => 1.0f32.to_bits(),
        ShaderType::Uint | ShaderType::Sint => 1,
    };
    let defaults = [0, 0, 0, one];
    let channels = f.channels().min(4);
    let mut out = defaults;
    let size = f.size as usize;
    // The mip is checked before its extent is computed (the extent of a mip beyond the 32nd
    // is not defined).
    let inside = mip < spec.mips && layer < spec.layers;
    let extent = if inside { spec.mip_extent(mip) } else { [0; 3] };
    if !inside || xyz.iter().zip(extent).any(|(&c, e)| c >= e) {
        for slot in out.iter_mut().take(channels) {
            *slot = 0;
        }
        return mapped(spec, out, one);
    }
    let mip_bytes = |m: u32| {
        let [w, h, d] = spec.mip_extent(m);
        w as usize * h as usize * d as usize * size
    };
    let slice: usize = (0..spec.mips).map(mip_bytes).sum();
    let start = layer as usize * slice + (0..mip).map(mip_bytes).sum::<usize>();
    let [w, h, _] = extent;
    let at = start
        + ((xyz[2] as usize * h as usize + xyz[1] as usize) * w as usize + xyz[0] as usize) * size;
    if let Some(bytes) = spec.contents.get(at..at + size) {
        for (i, c) in f.decode(bytes).into_iter().enumerate().take(4) {
            out[i] = c.bits;
        }
        if f.alpha_only() {
            out = [0, 0, 0, out[0]];
        }
    } else {
        out = [0; 4];
    }
    mapped(spec, out, one)
}

/// Applies the view's component mapping.
fn mapped(spec: &TextureSpec, v: [u32; 4], one: u32) -> [u32; 4] {
    let Some(map) = spec.swizzle else {
        return v;
    };
    let mut out = v;
    for (i, s) in map.iter().enumerate() {
        out[i] = match *s {
            ComponentSwizzle::ZERO => 0,
            ComponentSwizzle::ONE => one,
            ComponentSwizzle::R => v[0],
            ComponentSwizzle::G => v[1],
            ComponentSwizzle::B => v[2],
            ComponentSwizzle::A => v[3],
            _ => v[i],
        };
    }
    out
}
