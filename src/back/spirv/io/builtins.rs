//! System values of `_siv`/`_sgv` declarations → Vulkan built-ins.
//!
//! | D3D | stage | Vulkan |
//! |---|---|---|
//! | `position` | VS/GS out, GS in | `Position` |
//! | `position` | PS in | `FragCoord` (w → 1/w) |
//! | `clip_distance`, `cull_distance` | any | `ClipDistance[n]`, `CullDistance[n]`: one element per component, in (register, component) order |
//! | `rendertarget_array_index` | VS/GS out, PS in | `Layer` |
//! | `viewport_array_index` | VS/GS out, PS in | `ViewportIndex` |
//! | `vertex_id`, `instance_id` | VS in | `VertexIndex − BaseVertex`, `InstanceIndex − BaseInstance` |
//! | `primitive_id` | GS out, PS in; `vPrim` in GS | `PrimitiveId` |
//! | `is_front_face` | PS in | `FrontFacing` (`~0`/`0`) |
//! | `sample_index` | PS in | `SampleId` |
//! | `vGSInstanceID` | GS | `InvocationId` |
//! | `vCoverage` / `oMask` | PS | `SampleMask[0]` in / out |
//! | `vInnerCoverage` | PS | `FullyCoveredEXT` |
//! | `oDepth`, `oDepthGE`, `oDepthLE` | PS | `FragDepth` + `DepthReplacing` (+ `DepthGreater`/`DepthLess`) |
//! | `oStencilRef` | PS | `FragStencilRefEXT` |

use spirv::{BuiltIn, Capability, Decoration, StorageClass};

use super::{Home, Link, LinkKind};
use crate::back::spirv::context::{Emitter, Scalar};
use crate::back::spirv::Error;
use crate::ir::{self, DepthOutput, Reg, Stage};
use crate::spv::{Id, Version};

use ir::SystemValue as Sv;

/// The (register, component) slots of clip or cull distances, in array order: from the
/// signature when it has them, else from the declarations.
fn distance_slots(decls: &[ir::IoDecl], sig: &[ir::SignatureElement], sv: Sv) -> Vec<(u32, u8)> {
    let mut slots: Vec<(u32, u8)> = Vec::new();
    let mut add = |register: u32, mask: u8| {
        for c in 0..4u8 {
            if mask & (1 << c) != 0 && !slots.contains(&(register, c)) {
                slots.push((register, c));
            }
        }
    };
    let from_sig: Vec<_> = sig
        .iter()
        .filter(|e| e.system_value == sv && e.register < ir::MAX_IO_REGISTERS)
        .collect();
    if from_sig.is_empty() {
        for d in decls.iter().filter(|d| d.system_value == sv) {
            add(d.register, d.mask);
        }
    } else {
        for e in from_sig {
            add(e.register, e.mask);
        }
    }
    slots.sort_unstable();
    slots
}

impl Emitter<'_> {
    /// The clip or cull distance array of one side, with one link per component.
    fn distances(&mut self, storage: StorageClass, sv: Sv) -> Vec<Link> {
        let ir = self.ir;
        let (decls, sig) = if storage == StorageClass::Input {
            (&ir.inputs, &ir.input_signature)
        } else {
            (&ir.outputs, &ir.output_signature)
        };
        if !decls.iter().any(|d| d.system_value == sv) {
            return Vec::new();
        }
        let slots = distance_slots(decls, sig, sv);
        if slots.is_empty() {
            return Vec::new();
        }
        let (builtin, cap) = if sv == Sv::ClipDistance {
            (BuiltIn::ClipDistance, Capability::ClipDistance)
        } else {
            (BuiltIn::CullDistance, Capability::CullDistance)
        };
        self.m.capability(cap);
        let f = self.ty(Scalar::F32, 1);
        let ty = self.m.type_array_len(f, slots.len() as u32);
        let var = self.builtin_var(storage, ty, builtin);
        slots
            .iter()
            .enumerate()
            .map(|(n, &(register, c))| {
                link(
                    var,
                    register,
                    c,
                    1 << c,
                    Scalar::F32,
                    1,
                    LinkKind::ArrayElement(n as u32),
                )
            })
            .collect()
    }

    /// Declares the built-in inputs behind `v#` system values.
    pub(super) fn declare_input_builtins(&mut self, stage: Stage) -> Result<(), Error> {
        let ir = self.ir;
        let mut links = Vec::new();
        let mut seen = Vec::new();
        for d in &ir.inputs {
            let sv = d.system_value;
            if sv == Sv::None || seen.contains(&(sv, d.register)) {
                continue;
            }
            seen.push((sv, d.register));
            let (r, mask) = (d.register, d.mask);
            let link = match (stage, sv) {
                // Vertex-shader inputs come from the input assembler: no distances there.
                (
                    Stage::Pixel | Stage::Geometry | Stage::Hull | Stage::Domain,
                    Sv::ClipDistance | Sv::CullDistance,
                ) => {
                    if !seen.iter().any(|&(s, r2)| s == sv && r2 != r) {
                        links.extend(self.distances(StorageClass::Input, sv));
                    }
                    continue;
                }
                (Stage::Vertex, Sv::VertexId | Sv::InstanceId) => {
                    let (index, base) = if sv == Sv::VertexId {
                        (BuiltIn::VertexIndex, BuiltIn::BaseVertex)
                    } else {
                        (BuiltIn::InstanceIndex, BuiltIn::BaseInstance)
                    };
                    self.draw_parameters();
                    let i = self.ty(Scalar::I32, 1);
                    let var = self.builtin_var(StorageClass::Input, i, index);
                    let base = self.builtin_var(StorageClass::Input, i, base);
                    link(var, r, 0, mask, Scalar::I32, 1, LinkKind::MinusBase(base))
                }
                (Stage::Geometry | Stage::Hull | Stage::Domain, Sv::Position) => {
                    let v4 = self.ty(Scalar::F32, 4);
                    let var = self.builtin_var(StorageClass::Input, v4, BuiltIn::Position);
                    link(var, r, 0, mask, Scalar::F32, 4, LinkKind::Plain)
                }
                (Stage::Pixel, Sv::Position) => {
                    let v4 = self.ty(Scalar::F32, 4);
                    let var = self.builtin_var(StorageClass::Input, v4, BuiltIn::FragCoord);
                    link(var, r, 0, mask, Scalar::F32, 4, LinkKind::FragCoord)
                }
                (Stage::Pixel, Sv::IsFrontFace) => {
                    let b = self.ty(Scalar::Bool, 1);
                    let var = self.builtin_var(StorageClass::Input, b, BuiltIn::FrontFacing);
                    link(var, r, first(mask), mask, Scalar::Bool, 1, LinkKind::Bool)
                }
                (Stage::Pixel, Sv::SampleIndex) => {
                    self.m.capability(Capability::SampleRateShading);
                    self.int_input(r, mask, BuiltIn::SampleId)
                }
                (Stage::Pixel, Sv::PrimitiveId) => {
                    self.m.capability(Capability::Geometry);
                    self.int_input(r, mask, BuiltIn::PrimitiveId)
                }
                (Stage::Pixel, Sv::RenderTargetArrayIndex) => {
                    self.m.capability(Capability::Geometry);
                    self.int_input(r, mask, BuiltIn::Layer)
                }
                (Stage::Pixel, Sv::ViewportArrayIndex) => {
                    self.m.capability(Capability::MultiViewport);
                    self.int_input(r, mask, BuiltIn::ViewportIndex)
                }
                _ => {
                    return Err(Error::unsupported(
                        d.span,
                        format!("system value {sv} as a {} input", stage.prefix()),
                    ))
                }
            };
            links.push(link);
        }
        self.io.input_links.extend(links);
        Ok(())
    }

    /// A flat integer built-in input carried by component `first(mask)`.
    fn int_input(&mut self, register: u32, mask: u8, builtin: BuiltIn) -> Link {
        let i = self.ty(Scalar::I32, 1);
        let var = self.builtin_var(StorageClass::Input, i, builtin);
        if self.ir.stage == Stage::Pixel {
            self.m.decorate(var, Decoration::Flat, &[]);
        }
        link(
            var,
            register,
            first(mask),
            mask,
            Scalar::I32,
            1,
            LinkKind::Plain,
        )
    }

    /// `BaseVertex`/`BaseInstance` need `DrawParameters` (SPIR-V 1.3 core).
    fn draw_parameters(&mut self) {
        self.m.capability(Capability::DrawParameters);
        self.extension_before(Version::V1_3, "SPV_KHR_shader_draw_parameters");
    }

    /// Declares the built-in outputs behind `o#` system values.
    pub(super) fn declare_output_builtins(&mut self, stage: Stage) -> Result<(), Error> {
        let ir = self.ir;
        let mut links = Vec::new();
        let mut seen = Vec::new();
        for d in &ir.outputs {
            let sv = d.system_value;
            if sv == Sv::None
                || seen.contains(&sv) && !matches!(sv, Sv::ClipDistance | Sv::CullDistance)
            {
                continue;
            }
            let first_of_kind = !seen.contains(&sv);
            seen.push(sv);
            let (r, mask) = (d.register, d.mask);
            let i = self.ty(Scalar::I32, 1);
            let mut link = match (stage, sv) {
                (Stage::Vertex | Stage::Geometry | Stage::Hull | Stage::Domain, Sv::Position) => {
                    let v4 = self.ty(Scalar::F32, 4);
                    let var = self.builtin_var(StorageClass::Output, v4, BuiltIn::Position);
                    if self.options.linking.invariant_position || self.ir.invariant_position {
                        self.m.decorate(var, Decoration::Invariant, &[]);
                    }
                    link(var, r, 0, mask, Scalar::F32, 4, LinkKind::Plain)
                }
                (
                    Stage::Vertex | Stage::Geometry | Stage::Hull | Stage::Domain,
                    Sv::ClipDistance | Sv::CullDistance,
                ) => {
                    if first_of_kind {
                        let mut ls = self.distances(StorageClass::Output, sv);
                        for l in &mut ls {
                            l.stream = d.stream;
                        }
                        links.extend(ls);
                    }
                    continue;
                }
                (Stage::Vertex | Stage::Geometry | Stage::Domain, Sv::RenderTargetArrayIndex) => {
                    self.layer_capability(stage, Capability::ShaderLayer);
                    let var = self.builtin_var(StorageClass::Output, i, BuiltIn::Layer);
                    link(var, r, first(mask), mask, Scalar::I32, 1, LinkKind::Plain)
                }
                (Stage::Vertex | Stage::Geometry | Stage::Domain, Sv::ViewportArrayIndex) => {
                    self.layer_capability(stage, Capability::ShaderViewportIndex);
                    let var = self.builtin_var(StorageClass::Output, i, BuiltIn::ViewportIndex);
                    link(var, r, first(mask), mask, Scalar::I32, 1, LinkKind::Plain)
                }
                (Stage::Geometry, Sv::PrimitiveId) => {
                    let var = self.builtin_var(StorageClass::Output, i, BuiltIn::PrimitiveId);
                    link(var, r, first(mask), mask, Scalar::I32, 1, LinkKind::Plain)
                }
                _ => {
                    return Err(Error::unsupported(
                        d.span,
                        format!("system value {sv} as a {} output", stage.prefix()),
                    ))
                }
            };
            link.stream = d.stream;
            links.push(link);
        }
        self.io.output_links.extend(links);
        Ok(())
    }

    /// `Layer`/`ViewportIndex` outputs: `Geometry`/`MultiViewport` in geometry shaders; in vertex
    /// shaders `ShaderLayer`/`ShaderViewportIndex` (SPIR-V 1.5) or
    /// `SPV_EXT_shader_viewport_index_layer`.
    fn layer_capability(&mut self, stage: Stage, core: Capability) {
        if stage == Stage::Geometry {
            if core == Capability::ShaderViewportIndex {
                self.m.capability(Capability::MultiViewport);
            }
            return;
        }
        if self.m.version() >= Version::V1_5 {
            self.m.capability(core);
        } else {
            self.m.extension("SPV_EXT_shader_viewport_index_layer");
            self.m.capability(Capability::ShaderViewportIndexLayerEXT);
        }
    }

    /// Declares the special registers the program uses (`vPrim`, `vGSInstanceID`, `vCoverage`,
    /// `vInnerCoverage`, `oDepth*`, `oMask`, `oStencilRef`).
    pub(super) fn declare_special_registers(&mut self, stage: Stage) -> Result<(), Error> {
        let ir = self.ir;
        let mut inputs = [None::<u32>; 4];
        let mut outputs = [None::<(u32, Reg)>; 3];
        for inst in &ir.insts {
            for s in inst.src() {
                if let Some(k) = super::special_input_slot(&s.reg) {
                    inputs[k].get_or_insert(inst.span);
                }
            }
            for d in inst.dst() {
                if let Some(k) = super::special_output_slot(&d.reg) {
                    outputs[k].get_or_insert((inst.span, d.reg));
                }
            }
        }
        self.io.depth = match outputs[0] {
            Some((_, Reg::OutputDepth(mode))) => Some(mode),
            _ => None,
        };
        let i = self.ty(Scalar::I32, 1);
        for (k, at) in inputs.iter().enumerate() {
            let Some(at) = *at else { continue };
            let link = match (k, stage) {
                (0, Stage::Geometry | Stage::Hull | Stage::Domain) => {
                    if stage == Stage::Geometry {
                        self.m.capability(Capability::Geometry);
                    }
                    let var = self.m.global_variable(StorageClass::Input, i, None);
                    self.m.decorate_builtin(var, BuiltIn::PrimitiveId);
                    special(var, Scalar::I32, LinkKind::Plain)
                }
                (1, Stage::Geometry) => {
                    let var = self.m.global_variable(StorageClass::Input, i, None);
                    self.m.decorate_builtin(var, BuiltIn::InvocationId);
                    special(var, Scalar::I32, LinkKind::Plain)
                }
                (2, Stage::Pixel) => {
                    let arr = self.m.type_array_len(i, 1);
                    let var = self.m.global_variable(StorageClass::Input, arr, None);
                    self.m.decorate_builtin(var, BuiltIn::SampleMask);
                    self.m.decorate(var, Decoration::Flat, &[]);
                    special(var, Scalar::I32, LinkKind::MaskArray)
                }
                (3, Stage::Pixel) => {
                    self.m.extension("SPV_EXT_fragment_fully_covered");
                    self.m.capability(Capability::FragmentFullyCoveredEXT);
                    let b = self.ty(Scalar::Bool, 1);
                    let var = self.m.global_variable(StorageClass::Input, b, None);
                    self.m.decorate_builtin(var, BuiltIn::FullyCoveredEXT);
                    special(var, Scalar::Bool, LinkKind::Bool)
                }
                _ => {
                    return Err(Error::invalid(
                        at,
                        format!("special input register {k} in a {} shader", stage.prefix()),
                    ))
                }
            };
            self.io.special_inputs[k] = Some(link);
        }
        self.declare_tessellation_inputs(stage);
        let uvec4 = self.ty(Scalar::U32, 4);
        for (k, used) in outputs.iter().enumerate() {
            let Some((at, reg)) = *used else { continue };
            if stage != Stage::Pixel {
                return Err(Error::invalid(
                    at,
                    "pixel-shader output register outside a pixel shader",
                ));
            }
            let null = self.m.constant_null(uvec4);
            let home = self
                .m
                .global_variable(StorageClass::Private, uvec4, Some(null));
            let (var, scalar, kind) = match reg {
                Reg::OutputDepth(_) => {
                    let f = self.ty(Scalar::F32, 1);
                    let var = self.m.global_variable(StorageClass::Output, f, None);
                    self.m.decorate_builtin(var, BuiltIn::FragDepth);
                    (var, Scalar::F32, LinkKind::Plain)
                }
                Reg::OutputCoverage => {
                    let arr = self.m.type_array_len(i, 1);
                    let var = self.m.global_variable(StorageClass::Output, arr, None);
                    self.m.decorate_builtin(var, BuiltIn::SampleMask);
                    (var, Scalar::I32, LinkKind::MaskArray)
                }
                _ => {
                    self.m.extension("SPV_EXT_shader_stencil_export");
                    self.m.capability(Capability::StencilExportEXT);
                    let var = self.m.global_variable(StorageClass::Output, i, None);
                    self.m.decorate_builtin(var, BuiltIn::FragStencilRefEXT);
                    (var, Scalar::I32, LinkKind::Plain)
                }
            };
            self.io.special_outputs[k] = Some(home);
            self.io.output_links.push(Link {
                var,
                home: super::Home::Private(home),
                first: 0,
                mask: 1,
                scalar,
                width: 1,
                kind,
                stream: 0,
            });
        }
        Ok(())
    }

    /// The tessellation stages' own inputs: `InvocationId` (hull shaders), the instance id of
    /// fork and join phases (a Private `u32` the schedule sets), `TessCoord` (`vDomain`).
    fn declare_tessellation_inputs(&mut self, stage: Stage) {
        let reads = |r: fn(&Reg) -> bool| {
            self.ir
                .insts
                .iter()
                .any(|i| i.src().iter().any(|s| r(&s.reg)))
        };
        let phase_instance = reads(|r| matches!(r, Reg::ForkInstanceId | Reg::JoinInstanceId));
        let domain = reads(|r| matches!(r, Reg::DomainLocation));
        let u = self.ty(Scalar::U32, 1);
        if stage == Stage::Hull {
            let i = self.ty(Scalar::I32, 1);
            let var = self.m.global_variable(StorageClass::Input, i, None);
            self.m.decorate_builtin(var, BuiltIn::InvocationId);
            self.m.name(var, "vOutputControlPointID");
            self.io.invocation = Some(var);
            if phase_instance {
                let zero = self.u32_const(0);
                let var = self.m.global_variable(StorageClass::Private, u, Some(zero));
                self.m.name(var, "vInstanceID");
                self.io.phase_instance = Some(var);
            }
        }
        if stage == Stage::Domain && domain {
            let v3 = self.ty(Scalar::F32, 3);
            let var = self.m.global_variable(StorageClass::Input, v3, None);
            self.m.decorate_builtin(var, BuiltIn::TessCoord);
            self.m.name(var, "vDomain");
            self.io.tess_coord = Some(var);
        }
    }

    /// The depth output mode the program writes, if any (known once the special registers
    /// are declared).
    pub(crate) fn depth_output(&self) -> Option<DepthOutput> {
        self.io.depth
    }
}

/// A link carried by `register`.
pub(super) fn link(
    var: Id,
    register: u32,
    first: u8,
    mask: u8,
    scalar: Scalar,
    width: u8,
    kind: LinkKind,
) -> Link {
    Link {
        var,
        home: Home::Register(register),
        first,
        mask,
        scalar,
        width,
        kind,
        stream: 0,
    }
}

/// A special input link (not in a register file).
fn special(var: Id, scalar: Scalar, kind: LinkKind) -> Link {
    Link {
        var,
        home: Home::Register(u32::MAX),
        first: 0,
        mask: 1,
        scalar,
        width: 1,
        kind,
        stream: 0,
    }
}

/// The lowest component of a mask.
fn first(mask: u8) -> u8 {
    (mask.trailing_zeros() as u8).min(3)
}
