//! Moving words between the interface variables and the register files: copy-in at entry,
//! copy-out at exit and `emit`, and the register accesses the instructions make.

use spirv::{GlslStd450Op, StorageClass};

use super::{Home, Link, LinkKind};
use crate::back::spirv::context::{Emitter, Scalar, Value};
use crate::back::spirv::values::LoadKey;
use crate::back::spirv::Error;
use crate::ir::Reg;
use crate::spv::Id;

impl Emitter<'_> {
    /// Pointer to an element of an interface variable: `[vertex]` for per-vertex (arrayed)
    /// variables, then `[element]` for array built-ins; the variable itself when neither
    /// applies.
    fn link_ptr(&mut self, link: &Link, storage: StorageClass, vertex: Option<Id>) -> (Id, Id) {
        let comp_ty = self.ty(link.scalar, 1);
        let value_ty = if matches!(link.kind, LinkKind::ArrayElement(_) | LinkKind::MaskArray) {
            comp_ty
        } else {
            self.ty(link.scalar, link.width)
        };
        let element = match link.kind {
            LinkKind::ArrayElement(n) => Some(self.u32_const(n)),
            LinkKind::MaskArray => Some(self.u32_const(0)),
            _ => None,
        };
        let (idx, len) = match (vertex, element) {
            (None, None) => return (link.var, value_ty),
            (Some(v), Some(e)) => ([v, e], 2),
            (Some(one), None) | (None, Some(one)) => ([one, one], 1),
        };
        let ptr_ty = self.m.type_pointer(storage, value_ty);
        (self.m.access_chain(ptr_ty, link.var, &idx[..len]), value_ty)
    }

    /// Reads an input link's value as `u32` words, one per variable component.
    pub(crate) fn read_link(&mut self, link: &Link, vertex: Option<u32>) -> Value {
        let vertex = vertex.map(|v| self.u32_const(v));
        self.read_link_from(link, StorageClass::Input, vertex)
    }

    /// Reads a link's value (an input, or an output a hull shader reads back) as `u32` words.
    pub(crate) fn read_link_from(
        &mut self,
        link: &Link,
        storage: StorageClass,
        vertex: Option<Id>,
    ) -> Value {
        let (ptr, ty) = self.link_ptr(link, storage, vertex);
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

    /// Copies every input link into the input file (each vertex for geometry, hull and domain
    /// shaders; a geometry shader whose input primitive the caller rewrote reads the draw's
    /// vertices through [`super::geometry_vertex_map`]).
    pub(crate) fn copy_inputs(&mut self) {
        let Some(file) = self.io.inputs else { return };
        let links = std::mem::take(&mut self.io.input_links);
        let vertices = self.io.vertices;
        let declared = self.ir.geometry.input_primitive;
        match (self.options.linking.geometry_input, declared) {
            (Some(draw), Some(shader)) if self.ir.stage == crate::ir::Stage::Geometry => {
                let pairs = super::geometry_vertex_map(shader, draw);
                self.copy_links_mapped(&links, file, StorageClass::Input, true, &pairs);
            }
            _ => self.copy_links_into(&links, file, StorageClass::Input, vertices),
        }
        self.io.input_links = links;
    }

    /// Copies the register components `links` carry into a Private register file
    /// (`uvec4[n]`, or `uvec4[vertices][n]` when `vertices > 0`, reading each vertex of the
    /// arrayed variables).
    pub(crate) fn copy_links_into(
        &mut self,
        links: &[Link],
        file: Id,
        storage: StorageClass,
        vertices: u32,
    ) {
        let pairs: Vec<(u32, u32)> = (0..vertices).map(|v| (v, v)).collect();
        self.copy_links_mapped(links, file, storage, vertices > 0, &pairs);
    }

    /// [`Emitter::copy_links_into`] with `(file vertex, variable vertex)` pairs when the
    /// variables are `arrayed`.
    fn copy_links_mapped(
        &mut self,
        links: &[Link],
        file: Id,
        storage: StorageClass,
        arrayed: bool,
        pairs: &[(u32, u32)],
    ) {
        // `None`: the variables are not arrayed (one pass, no vertex index).
        let single = [None];
        let all: Vec<Option<(u32, u32)>> = if arrayed {
            pairs.iter().copied().map(Some).collect()
        } else {
            single.to_vec()
        };
        let u = self.ty(Scalar::U32, 1);
        let ptr_u = self.m.type_pointer(StorageClass::Private, u);
        for link in links {
            let Home::Register(register) = link.home else {
                continue;
            };
            for &pair in &all {
                let source = pair.map(|(_, s)| self.u32_const(s));
                let vertex_id = pair.map(|(d, _)| self.u32_const(d));
                let words = self.read_link_from(link, storage, source);
                if link.first == 0 && link.mask == 0xf && words.n == 4 {
                    // The whole register at once.
                    let uvec4 = self.ty(Scalar::U32, 4);
                    let ptr_v = self.m.type_pointer(StorageClass::Private, uvec4);
                    let reg = self.u32_const(register);
                    let p = match vertex_id {
                        Some(v) => self.m.access_chain(ptr_v, file, &[v, reg]),
                        None => self.m.access_chain(ptr_v, file, &[reg]),
                    };
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
                    let reg = self.u32_const(register);
                    let comp = self.u32_const(u32::from(c));
                    let p = match vertex_id {
                        Some(v) => self.m.access_chain(ptr_u, file, &[v, reg, comp]),
                        None => self.m.access_chain(ptr_u, file, &[reg, comp]),
                    };
                    self.m.store(p, word.id);
                }
            }
        }
    }

    /// Copies the output file to the output links (of `stream` only, when given); a hull
    /// shader writes its own control point (`vertex` = the invocation id).
    pub(crate) fn copy_outputs(&mut self, stream: Option<u8>, vertex: Option<Id>) {
        if let Some(var) = self.io.point_size {
            if stream.map_or(true, |s| s == self.rasterized_stream()) {
                let one = self.splat_bits(Scalar::F32, 1, 1f32.to_bits());
                self.m.store(var, one);
            }
        }
        let links = std::mem::take(&mut self.io.output_links);
        let file = self.io.outputs;
        for link in &links {
            if stream.is_some_and(|s| s != link.stream) {
                continue;
            }
            self.copy_link_out(link, file, vertex);
        }
        self.io.output_links = links;
    }

    /// Stores the register components a link carries (from `file`, or its own Private home)
    /// to its Output variable (element `vertex` of an arrayed one).
    pub(crate) fn copy_link_out(&mut self, link: &Link, file: Option<Id>, vertex: Option<Id>) {
        let uvec4 = self.ty(Scalar::U32, 4);
        let vec = match link.home {
            Home::Register(r) => {
                let Some(file) = file else {
                    return;
                };
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                let idx = self.u32_const(r);
                let p = self.m.access_chain(ptr_ty, file, &[idx]);
                let vec = self.m.load(uvec4, p);
                self.swizzle_target(r, vec, link.scalar)
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
        let (ptr, _) = self.link_ptr(link, StorageClass::Output, vertex);
        self.m.store(ptr, value.id);
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
                // Inputs change only where a pass writes one (`output_ptr` forgets them then):
                // the same register at a constant index read again in a block is one load.
                let key = (!index.is_relative()).then_some(LoadKey::Input(index.imm));
                if let Some(id) = key.and_then(|k| self.remembered_load(k)) {
                    return Ok((id, 4));
                }
                let (idx, ok) = self.bounded_index(span, &index, self.io.input_count)?;
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                let p = self.m.access_chain(ptr_ty, file, &[idx]);
                let v = self.m.load(uvec4, p);
                let v = self.zero_if_out_of_range(v, ok);
                if let Some(k) = key {
                    self.remember_load(k, v);
                }
                Ok((v, 4))
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
            Reg::OutputControlPoint { vertex, register } => {
                let file = self.io.output_points.ok_or_else(|| {
                    Error::invalid(span, "vocp read outside a fork or join phase")
                })?;
                // D3D bounds: the hull shader's output control points (not the input patch's).
                let points = self.ir.tessellation.output_control_points;
                let (vi, vok) = self.bounded_index(span, &vertex, points.max(1))?;
                let vok = if points == 0 {
                    Some(self.m.constant_bool(false))
                } else {
                    vok
                };
                let (ri, rok) = self.bounded_index(span, &register, self.io.output_count.max(1))?;
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                let p = self.m.access_chain(ptr_ty, file, &[vi, ri]);
                let v = self.m.load(uvec4, p);
                let v = self.zero_if_out_of_range(v, vok);
                Ok((self.zero_if_out_of_range(v, rok), 4))
            }
            Reg::PatchConstant(index) => {
                let file = self.io.patch.file.ok_or_else(|| {
                    Error::invalid(span, "patch constant read without patch constants")
                })?;
                let (idx, ok) = self.bounded_index(span, &index, self.io.patch.count)?;
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                let p = self.m.access_chain(ptr_ty, file, &[idx]);
                let v = self.m.load(uvec4, p);
                Ok((self.zero_if_out_of_range(v, ok), 4))
            }
            Reg::OutputControlPointId => {
                let var = self.io.invocation.ok_or_else(|| {
                    Error::invalid(span, "vOutputControlPointID outside a hull shader")
                })?;
                let i = self.ty(Scalar::I32, 1);
                let u = self.ty(Scalar::U32, 1);
                let v = self.m.load(i, var);
                Ok((self.m.bitcast(u, v), 1))
            }
            Reg::ForkInstanceId | Reg::JoinInstanceId => {
                let var = self.io.phase_instance.ok_or_else(|| {
                    Error::invalid(span, "phase instance id outside a hull shader")
                })?;
                let u = self.ty(Scalar::U32, 1);
                Ok((self.m.load(u, var), 1))
            }
            Reg::DomainLocation => {
                let var = self
                    .io
                    .tess_coord
                    .ok_or_else(|| Error::invalid(span, "vDomain outside a domain shader"))?;
                let v3 = self.ty(Scalar::F32, 3);
                let u3 = self.ty(Scalar::U32, 3);
                let v = self.m.load(v3, var);
                Ok((self.m.bitcast(u3, v), 3))
            }
            _ => {
                let link = super::special_input_slot(reg)
                    .and_then(|k| self.io.special_inputs[k])
                    .ok_or_else(|| {
                        Error::invalid(
                            span,
                            format!("{} is not declared", crate::ir::register_name(reg)),
                        )
                    })?;
                Ok((self.read_link(&link, None).id, 1))
            }
        }
    }

    /// An index clamped to `spare`, the spare element past a file's `spare` registers.
    fn clamped_index(
        &mut self,
        span: u32,
        index: &crate::ir::Index,
        spare: u32,
    ) -> Result<Id, Error> {
        Ok(match index.constant() {
            Some(i) => self.u32_const(i.min(spare)),
            None => {
                let raw = self.index_value(span, index)?;
                let u = self.ty(Scalar::U32, 1);
                let last = self.u32_const(spare);
                self.glsl(u, GlslStd450Op::UMin, &[raw, last])
            }
        })
    }

    /// Parallel hull schedule: records the components a patch-constant write touched, so the
    /// invocation publishes exactly those.
    pub(crate) fn mark_patch_written(
        &mut self,
        span: u32,
        reg: &Reg,
        mask: u8,
    ) -> Result<(), Error> {
        let (Reg::PatchConstant(index), Some(written)) = (*reg, self.io.patch.written) else {
            return Ok(());
        };
        let idx = self.clamped_index(span, &index, self.io.patch.count)?;
        let u = self.ty(Scalar::U32, 1);
        let ptr = self.m.type_pointer(StorageClass::Private, u);
        let p = self.m.access_chain(ptr, written, &[idx]);
        let old = self.m.load(u, p);
        let bits = self.u32_const(u32::from(mask));
        let new = self.m.bitwise_or(u, old, bits);
        self.m.store(p, new);
        Ok(())
    }

    fn input_file(&self, span: u32) -> Result<Id, Error> {
        self.io
            .inputs
            .ok_or_else(|| Error::invalid(span, "input register read without input declarations"))
    }

    /// The `uvec4` pointer an output register write goes to (out-of-range indices write the
    /// spare element), or an input register's at a constant index (one-dimensional inputs).
    pub(crate) fn output_ptr(&mut self, span: u32, reg: &Reg) -> Result<Id, Error> {
        let uvec4 = self.ty(Scalar::U32, 4);
        match *reg {
            Reg::Output(index) => {
                let file = self.io.outputs.ok_or_else(|| {
                    Error::invalid(span, "output written without output declarations")
                })?;
                let count = self.io.output_count;
                let idx = self.clamped_index(span, &index, count)?;
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                Ok(self.m.access_chain(ptr_ty, file, &[idx]))
            }
            // Passes may rewrite an input before the shader runs (point sprites): the input
            // file's element, at a constant index.
            Reg::Input(index) if !index.is_relative() && self.io.vertices == 0 => {
                let file = self.input_file(span)?;
                self.forget_input_loads();
                let count = self.io.input_count;
                let idx = self.clamped_index(span, &index, count)?;
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                Ok(self.m.access_chain(ptr_ty, file, &[idx]))
            }
            Reg::PatchConstant(index) => {
                if self.ir.stage != crate::ir::Stage::Hull {
                    return Err(Error::invalid(
                        span,
                        "patch constant written outside a hull shader",
                    ));
                }
                let file = self.io.patch.file.ok_or_else(|| {
                    Error::invalid(span, "patch constant written without patch constants")
                })?;
                let count = self.io.patch.count;
                let idx = self.clamped_index(span, &index, count)?;
                let ptr_ty = self.m.type_pointer(StorageClass::Private, uvec4);
                Ok(self.m.access_chain(ptr_ty, file, &[idx]))
            }
            _ => super::special_output_slot(reg)
                .and_then(|k| self.io.special_outputs[k])
                .ok_or_else(|| {
                    Error::invalid(
                        span,
                        format!("{} is not declared", crate::ir::register_name(reg)),
                    )
                }),
        }
    }

    /// Without a control-point phase: output point `i` is input point `i` (zeros past the
    /// input patch), register by register.
    pub(crate) fn pass_through(&mut self, invocation: Id) {
        let (Some(inputs), Some(outputs)) = (self.io.inputs, self.io.outputs) else {
            return;
        };
        let uvec4 = self.ty(Scalar::U32, 4);
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let ptr = self.m.type_pointer(StorageClass::Private, uvec4);
        let points = self.io.vertices;
        let limit = self.u32_const(points);
        let in_range = self.m.u_less_than(b, invocation, limit);
        let last = self.u32_const(points.saturating_sub(1));
        let vertex = self.glsl(u, spirv::GlslStd450Op::UMin, &[invocation, last]);
        let mut registers: Vec<u32> = self.ir.outputs.iter().map(|d| d.register).collect();
        registers.sort_unstable();
        registers.dedup();
        for r in registers {
            if r >= self.io.input_count || r >= self.io.output_count {
                continue;
            }
            let rc = self.u32_const(r);
            let src = self.m.access_chain(ptr, inputs, &[vertex, rc]);
            let v = self.m.load(uvec4, src);
            let v = self.zero_if_out_of_range(v, Some(in_range));
            let dst = self.m.access_chain(ptr, outputs, &[rc]);
            self.m.store(dst, v);
        }
    }

    /// Copies every output control point from the outputs into the Private `vocp` file.
    pub(crate) fn copy_output_points(&mut self) {
        let Some(file) = self.io.output_points else {
            return;
        };
        let links = std::mem::take(&mut self.io.output_links);
        let vertices = self.io.output_vertices;
        self.copy_links_into(&links, file, StorageClass::Output, vertices);
        self.io.output_links = links;
    }
}
