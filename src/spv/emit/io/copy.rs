//! Moving words between the interface variables and the register files: copy-in at entry,
//! copy-out at exit and `emit`, and the register accesses the instructions make.

use spirv::{GlslStd450Op, StorageClass};

use super::{Home, Link, LinkKind};
use crate::error::Error;
use crate::ir::Reg;
use crate::spv::emit::context::{Emitter, Scalar, Value};
use crate::spv::Id;

impl Emitter<'_> {
    /// Pointer to an element of an interface variable: `[vertex]` for per-vertex inputs, then
    /// `[element]` for array built-ins; the variable itself when neither applies.
    fn link_ptr(&mut self, link: &Link, storage: StorageClass, vertex: Option<u32>) -> (Id, Id) {
        let comp_ty = self.ty(link.scalar, 1);
        let value_ty = if matches!(link.kind, LinkKind::ArrayElement(_) | LinkKind::MaskArray) {
            comp_ty
        } else {
            self.ty(link.scalar, link.width)
        };
        let mut idx = Vec::with_capacity(2);
        if let Some(v) = vertex {
            idx.push(self.u32_const(v));
        }
        match link.kind {
            LinkKind::ArrayElement(n) => idx.push(self.u32_const(n)),
            LinkKind::MaskArray => idx.push(self.u32_const(0)),
            _ => {}
        }
        if idx.is_empty() {
            return (link.var, value_ty);
        }
        let ptr_ty = self.m.type_pointer(storage, value_ty);
        (self.m.access_chain(ptr_ty, link.var, &idx), value_ty)
    }

    /// Reads a link's value as `u32` words, one per variable component.
    pub(crate) fn read_link(&mut self, link: &Link, vertex: Option<u32>) -> Value {
        let (ptr, ty) = self.link_ptr(link, StorageClass::Input, vertex);
        let loaded = self.m.load(ty, ptr);
        let width = if matches!(link.kind, LinkKind::ArrayElement(_) | LinkKind::MaskArray) {
            1
        } else {
            link.width
        };
        let v = Value {
            id: loaded,
            scalar: link.scalar,
            n: width,
        };
        let v = match link.kind {
            LinkKind::Plain | LinkKind::ArrayElement(_) | LinkKind::MaskArray => v,
            LinkKind::FragCoord => {
                let f = self.ty(Scalar::F32, 1);
                let w = self.m.composite_extract(f, loaded, &[3]);
                let one = self.splat_bits(Scalar::F32, 1, 1f32.to_bits());
                let rcp = self.m.f_div(f, one, w);
                let v4 = self.ty(Scalar::F32, 4);
                let id = self.m.composite_insert(v4, rcp, loaded, &[3]);
                Value { id, ..v }
            }
            LinkKind::Bool => {
                let u = self.ty(Scalar::U32, 1);
                let all = self.u32_const(!0);
                let zero = self.u32_const(0);
                let id = self.m.select(u, loaded, all, zero);
                Value {
                    id,
                    scalar: Scalar::U32,
                    n: 1,
                }
            }
            LinkKind::MinusBase(base) => {
                let i = self.ty(Scalar::I32, 1);
                let b = self.m.load(i, base);
                let id = self.m.i_sub(i, loaded, b);
                Value { id, ..v }
            }
        };
        self.bitcast(v, Scalar::U32)
    }

    /// Copies every input link into the input file (each vertex for geometry shaders).
    pub(crate) fn copy_inputs(&mut self) {
        let Some(file) = self.io.inputs else { return };
        let links = std::mem::take(&mut self.io.input_links);
        let vertices: Vec<Option<u32>> = if self.io.vertices > 0 {
            (0..self.io.vertices).map(Some).collect()
        } else {
            vec![None]
        };
        let u = self.ty(Scalar::U32, 1);
        let ptr_u = self.m.type_pointer(StorageClass::Private, u);
        for link in &links {
            let Home::Register(register) = link.home else {
                continue;
            };
            for &vertex in &vertices {
                let words = self.read_link(link, vertex);
                if link.first == 0 && link.mask == 0xf && words.n == 4 {
                    // The whole register at once.
                    let uvec4 = self.ty(Scalar::U32, 4);
                    let ptr_v = self.m.type_pointer(StorageClass::Private, uvec4);
                    let mut idx = Vec::with_capacity(2);
                    if let Some(v) = vertex {
                        idx.push(self.u32_const(v));
                    }
                    idx.push(self.u32_const(register));
                    let p = self.m.access_chain(ptr_v, file, &idx);
                    self.m.store(p, words.id);
                    continue;
                }
                for c in 0..4u8 {
                    if link.mask & (1 << c) == 0 || c < link.first {
                        continue;
                    }
                    let k = c - link.first;
                    if k >= words.n {
                        continue;
                    }
                    let word = self.extract(words, k);
                    let mut idx = Vec::with_capacity(3);
                    if let Some(v) = vertex {
                        idx.push(self.u32_const(v));
                    }
                    idx.push(self.u32_const(register));
                    idx.push(self.u32_const(u32::from(c)));
                    let p = self.m.access_chain(ptr_u, file, &idx);
                    self.m.store(p, word.id);
                }
            }
        }
        self.io.input_links = links;
    }

    /// Copies the output file to the output links (of `stream` only, when given).
    pub(crate) fn copy_outputs(&mut self, stream: Option<u8>) {
        if let Some(var) = self.io.point_size {
            if stream.map_or(true, |s| s == self.rasterized_stream()) {
                let one = self.splat_bits(Scalar::F32, 1, 1f32.to_bits());
                self.m.store(var, one);
            }
        }
        let links = std::mem::take(&mut self.io.output_links);
        let uvec4 = self.ty(Scalar::U32, 4);
        for link in &links {
            if stream.is_some_and(|s| s != link.stream) {
                continue;
            }
            let vec = match link.home {
                Home::Register(r) => {
                    let Some(file) = self.io.outputs else {
                        continue;
                    };
                    let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                    let idx = self.u32_const(r);
                    let p = self.m.access_chain(ptr_ty, file, &[idx]);
                    self.m.load(uvec4, p)
                }
                Home::Private(var) => self.m.load(uvec4, var),
            };
            let one_value = matches!(link.kind, LinkKind::ArrayElement(_) | LinkKind::MaskArray);
            let width = if one_value { 1 } else { link.width };
            let u = self.ty(Scalar::U32, 1);
            let words = if link.first == 0 && width == 4 {
                Value {
                    id: vec,
                    scalar: Scalar::U32,
                    n: 4,
                }
            } else if width == 1 {
                let c = u32::from(link.first.min(3));
                Value {
                    id: self.m.composite_extract(u, vec, &[c]),
                    scalar: Scalar::U32,
                    n: 1,
                }
            } else {
                let t = self.ty(Scalar::U32, width);
                let sel: Vec<u32> = (0..u32::from(width))
                    .map(|k| (u32::from(link.first) + k).min(3))
                    .collect();
                Value {
                    id: self.m.vector_shuffle(t, vec, vec, &sel),
                    scalar: Scalar::U32,
                    n: width,
                }
            };
            let value = self.bitcast(words, link.scalar);
            let (ptr, _) = self.link_ptr(link, StorageClass::Output, None);
            self.m.store(ptr, value.id);
        }
        self.io.output_links = links;
    }

    /// `v#`, `v[vertex][#]` and the special input registers, as `(uvec4 or u32, width)`.
    pub(crate) fn read_io_register(&mut self, span: u32, reg: &Reg) -> Result<(Id, u8), Error> {
        let uvec4 = self.ty(Scalar::U32, 4);
        match *reg {
            Reg::Input(index) => {
                if self.io.vertices > 0 {
                    return Err(Error::invalid(
                        span,
                        "v# without a vertex index in a geometry shader",
                    ));
                }
                let file = self.input_file(span)?;
                let (idx, ok) = self.bounded_index(span, &index, self.io.input_count)?;
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                let p = self.m.access_chain(ptr_ty, file, &[idx]);
                let v = self.m.load(uvec4, p);
                Ok((self.zero_if_out_of_range(v, ok), 4))
            }
            Reg::Output(_) => {
                // Pixel shaders may read back what they wrote (`movc o0, o0, ...`).
                let p = self.output_ptr(span, reg)?;
                Ok((self.m.load(uvec4, p), 4))
            }
            Reg::VertexInput { vertex, register } => {
                if self.io.vertices == 0 {
                    return Err(Error::invalid(
                        span,
                        "per-vertex input outside a geometry shader",
                    ));
                }
                let file = self.input_file(span)?;
                let (vi, vok) = self.bounded_index(span, &vertex, self.io.vertices)?;
                let (ri, rok) = self.bounded_index(span, &register, self.io.input_count)?;
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                let p = self.m.access_chain(ptr_ty, file, &[vi, ri]);
                let v = self.m.load(uvec4, p);
                let v = self.zero_if_out_of_range(v, vok);
                Ok((self.zero_if_out_of_range(v, rok), 4))
            }
            _ => {
                let link = super::special_input_slot(reg)
                    .and_then(|k| self.io.special_inputs[k])
                    .ok_or_else(|| Error::invalid(span, format!("{reg:?} is not declared")))?;
                Ok((self.read_link(&link, None).id, 1))
            }
        }
    }

    fn input_file(&self, span: u32) -> Result<Id, Error> {
        self.io
            .inputs
            .ok_or_else(|| Error::invalid(span, "input register read without input declarations"))
    }

    /// The `uvec4` pointer an output register write goes to (out-of-range indices write the
    /// spare element).
    pub(crate) fn output_ptr(&mut self, span: u32, reg: &Reg) -> Result<Id, Error> {
        let uvec4 = self.ty(Scalar::U32, 4);
        match *reg {
            Reg::Output(index) => {
                let file = self.io.outputs.ok_or_else(|| {
                    Error::invalid(span, "output written without output declarations")
                })?;
                let count = self.io.output_count;
                let idx = match index.constant() {
                    Some(i) => self.u32_const(i.min(count)),
                    None => {
                        let raw = self.index_value(span, &index)?;
                        let u = self.ty(Scalar::U32, 1);
                        let last = self.u32_const(count);
                        self.glsl(u, GlslStd450Op::UMin, &[raw, last])
                    }
                };
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                Ok(self.m.access_chain(ptr_ty, file, &[idx]))
            }
            _ => super::special_output_slot(reg)
                .and_then(|k| self.io.special_outputs[k])
                .ok_or_else(|| Error::invalid(span, format!("{reg:?} is not declared"))),
        }
    }
}
