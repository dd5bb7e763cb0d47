//! Patch constants: the registers a hull shader's fork and join phases write and a domain
//! shader reads (`vpc#`), and the tessellation levels.
//!
//! Contract (`docs/hull-shaders.md`):
//! - Both stages keep patch constants in a Private register file `uvec4[n + 1]` (the spare
//!   element takes out-of-range writes). The hull shader's fork and join phases write it (`o#`)
//!   and join phases read it (`vpc#`); a domain shader copies its inputs into it at entry.
//! - Every patch-constant register a stage declares, tess factors included, is one `Patch`
//!   variable spanning the register's signature elements (their common type, `uint` when they
//!   differ), so that a domain shader reads exactly what the hull shader wrote. Its `Location`
//!   is [`LAST_PATCH_LOCATION`] − register: per-vertex variables sit at their register, from
//!   0 up, and the two kinds never share a location; a register pair that would collide is
//!   [`Error::Unsupported`].
//! - The tess factors a declaration names also go, clamped, to `TessLevelOuter`/
//!   `TessLevelInner`, mapped by system value: quad and triangle edges and insides 1:1 (D3D's
//!   and Vulkan's domains agree with Vulkan's default upper-left origin), isolines by meaning
//!   (density → `TessLevelOuter[0]`, detail → `TessLevelOuter[1]`). The clamp is NaN-safe,
//!   `NClamp(x, 0, min(dcl_hs_maxtessfactor, 64))`, so a NaN edge culls the patch as in D3D;
//!   `PipelineState::max_tess_factor` lowers the upper bound further (to its value clamped to
//!   1..=64; a specialization constant is combined with `NMax`/`NMin` in the code).
//!   Pow2 partitioning is integer partitioning to the tessellator (D3D's reference tessellator
//!   treats them alike; the rounding to powers of two is the shader's own code).

use spirv::{BuiltIn, Capability, Decoration, GlslStd450Op, StorageClass};

use super::{scalar_of, Link, LinkKind};
use crate::back::spirv::context::{Emitter, Scalar};
use crate::back::spirv::{Error, SpecValue};
use crate::ir::{self, Stage};
use crate::spv::Id;

/// The highest location a patch constant takes (register 0): 30 locations of four components
/// fit Vulkan's smallest `maxTessellationControlPerPatchOutputComponents` (120).
pub const LAST_PATCH_LOCATION: u32 = 29;

/// Patch-constant state of a hull or domain shader.
#[derive(Clone, Debug, Default)]
pub(crate) struct PatchIo {
    /// Private `uvec4[count + 1]`.
    pub(super) file: Option<Id>,
    /// Registers in the file.
    pub(super) count: u32,
    /// Hull shaders with the parallel schedule: Private `u32[count + 1]`, the components each
    /// register was written since the last publication (bit 0 = x).
    pub(super) written: Option<Id>,
    /// The `Patch` variables (Output in hull shaders, Input in domain shaders).
    pub(super) links: Vec<Link>,
    /// Hull shaders: `TessLevelOuter` (`float[4]`) and `TessLevelInner` (`float[2]`).
    pub(super) levels: Option<(Id, Id)>,
}

/// Where a declared tess factor goes: `(outer?, element)`.
pub(crate) fn tess_level(system_value: ir::SystemValue) -> Option<(bool, u32)> {
    use ir::SystemValue as S;
    Some(match system_value {
        S::QuadUEq0EdgeTessFactor => (true, 0),
        S::QuadVEq0EdgeTessFactor => (true, 1),
        S::QuadUEq1EdgeTessFactor => (true, 2),
        S::QuadVEq1EdgeTessFactor => (true, 3),
        S::QuadUInsideTessFactor => (false, 0),
        S::QuadVInsideTessFactor => (false, 1),
        S::TriUEq0EdgeTessFactor => (true, 0),
        S::TriVEq0EdgeTessFactor => (true, 1),
        S::TriWEq0EdgeTessFactor => (true, 2),
        S::TriInsideTessFactor => (false, 0),
        // Subdivisions of each line.
        S::LineDetailTessFactor => (true, 1),
        // Number of lines.
        S::LineDensityTessFactor => (true, 0),
        _ => return None,
    })
}

/// Whether a step (or a nested one) publishes patch constants (the parallel schedule), so
/// writes must record their components.
fn publishes(steps: &[ir::HullStep]) -> bool {
    steps.iter().any(|s| match s {
        ir::HullStep::PublishPatchConstants => true,
        ir::HullStep::FirstInvocation(inner) => publishes(inner),
        _ => false,
    })
}

/// One patch variable: register, components (contiguous), component type.
fn patch_elements(
    decls: &[ir::IoDecl],
    sig: &[ir::SignatureElement],
) -> Vec<(u32, u8, ir::ComponentType)> {
    let mut registers: Vec<u32> = decls.iter().map(|d| d.register).collect();
    registers.sort_unstable();
    registers.dedup();
    registers
        .into_iter()
        .map(|r| {
            let from_sig: Vec<_> = sig.iter().filter(|e| e.register == r).collect();
            let (mut mask, ty) = if from_sig.is_empty() {
                let mask = decls
                    .iter()
                    .filter(|d| d.register == r)
                    .fold(0, |m, d| m | d.mask);
                (mask, ir::ComponentType::Float)
            } else {
                let first = from_sig[0].component_type;
                let ty = if from_sig.iter().all(|e| e.component_type == first) {
                    first
                } else {
                    ir::ComponentType::Uint
                };
                (from_sig.iter().fold(0, |m, e| m | e.mask), ty)
            };
            mask &= 0xf;
            if mask == 0 {
                mask = 0xf;
            }
            let lo = mask.trailing_zeros();
            let hi = 7 - mask.leading_zeros();
            let span = (((1u16 << (hi + 1)) - (1u16 << lo)) & 0xf) as u8;
            (r, span, ty)
        })
        .collect()
}

impl Emitter<'_> {
    /// Declares the patch-constant file, the `Patch` variables and (hull shaders) the
    /// tessellation levels.
    pub(super) fn declare_patch_io(&mut self, stage: Stage) -> Result<(), Error> {
        let ir = self.ir;
        self.m.capability(Capability::Tessellation);
        let count = super::register_count(&ir.patch_constants, &ir.patch_constant_signature);
        let uses_file = ir.insts.iter().any(|i| {
            i.src()
                .iter()
                .any(|s| matches!(s.reg, ir::Reg::PatchConstant(_)))
                || i.dst()
                    .iter()
                    .any(|d| matches!(d.reg, ir::Reg::PatchConstant(_)))
        });
        if count == 0 && !uses_file {
            return self.declare_tess_levels(stage);
        }
        let count = count.max(1);
        let uvec4 = self.ty(Scalar::U32, 4);
        let ty = self.m.type_array_len(uvec4, count + 1);
        let null = self.m.constant_null(ty);
        let file = self
            .m
            .global_variable(StorageClass::Private, ty, Some(null));
        self.m.name(file, "vpc");
        self.io.patch.file = Some(file);
        self.io.patch.count = count;
        if stage == Stage::Hull && publishes(&ir.hull_steps) {
            let u = self.ty(Scalar::U32, 1);
            let ty = self.m.type_array_len(u, count + 1);
            let null = self.m.constant_null(ty);
            let var = self
                .m
                .global_variable(StorageClass::Private, ty, Some(null));
            self.m.name(var, "vpc_written");
            self.io.patch.written = Some(var);
        }
        let storage = if stage == Stage::Hull {
            StorageClass::Output
        } else {
            StorageClass::Input
        };
        // Per-vertex locations, to keep the patch locations apart from.
        let per_vertex: Vec<u32> = if stage == Stage::Hull {
            super::elements::user_elements(&ir.outputs, &ir.output_signature, false)
        } else {
            super::elements::user_elements(&ir.inputs, &ir.input_signature, true)
        }
        .iter()
        .map(|e| e.register)
        .collect();
        for (register, mask, component_type) in
            patch_elements(&ir.patch_constants, &ir.patch_constant_signature)
        {
            let span = ir
                .patch_constants
                .iter()
                .find(|d| d.register == register)
                .map_or(0, |d| d.span);
            let location = LAST_PATCH_LOCATION.checked_sub(register).ok_or_else(|| {
                Error::unsupported(
                    span,
                    format!("patch constant register {register} (past location 0)"),
                )
            })?;
            if per_vertex.contains(&location) {
                return Err(Error::unsupported(
                    span,
                    format!(
                        "patch constant register {register} sharing location {location} with \
                         control-point register {location}"
                    ),
                ));
            }
            let width = mask.count_ones() as u8;
            let first = mask.trailing_zeros() as u8;
            let scalar = scalar_of(component_type);
            let vty = self.ty(scalar, width);
            let var = self.m.global_variable(storage, vty, None);
            self.m.decorate(var, Decoration::Patch, &[]);
            self.m.decorate_location(var, location);
            if first != 0 {
                self.m
                    .decorate(var, Decoration::Component, &[u32::from(first)]);
            }
            self.name_indexed(var, "patch", register);
            let link =
                super::builtins::link(var, register, first, mask, scalar, width, LinkKind::Plain);
            self.io.patch.links.push(link);
        }
        self.declare_tess_levels(stage)
    }

    /// Hull shaders: `TessLevelOuter` and `TessLevelInner`.
    fn declare_tess_levels(&mut self, stage: Stage) -> Result<(), Error> {
        if stage != Stage::Hull {
            return Ok(());
        }
        let f = self.ty(Scalar::F32, 1);
        let outer_ty = self.m.type_array_len(f, 4);
        let inner_ty = self.m.type_array_len(f, 2);
        let outer = self.m.global_variable(StorageClass::Output, outer_ty, None);
        self.m.decorate_builtin(outer, BuiltIn::TessLevelOuter);
        self.m.decorate(outer, Decoration::Patch, &[]);
        let inner = self.m.global_variable(StorageClass::Output, inner_ty, None);
        self.m.decorate_builtin(inner, BuiltIn::TessLevelInner);
        self.m.decorate(inner, Decoration::Patch, &[]);
        self.io.patch.levels = Some((outer, inner));
        Ok(())
    }

    /// Fills the patch-constant file from the `Patch` variables: a domain shader's inputs at
    /// entry (`StorageClass::Input`), or what every hull-shader invocation published
    /// (`StorageClass::Output`).
    pub(crate) fn load_patch_constants(&mut self, storage: StorageClass) {
        let Some(file) = self.io.patch.file else {
            return;
        };
        let links = std::mem::take(&mut self.io.patch.links);
        self.copy_links_into(&links, file, storage, 0);
        self.io.patch.links = links;
    }

    /// Hull shaders: stores the whole patch-constant file to the `Patch` outputs.
    pub(crate) fn write_patch_constants(&mut self) {
        let file = self.io.patch.file;
        let links = std::mem::take(&mut self.io.patch.links);
        for link in &links {
            self.copy_link_out(link, file, None);
        }
        self.io.patch.links = links;
    }

    /// Hull shaders: writes the tess factors of the patch-constant file to the tessellation
    /// levels, clamped. Levels without a tess factor are written 0.
    pub(crate) fn write_tess_levels(&mut self) {
        let Some((outer, inner)) = self.io.patch.levels else {
            return;
        };
        let f = self.ty(Scalar::F32, 1);
        let u = self.ty(Scalar::U32, 1);
        let ptr_f = self.m.type_pointer(StorageClass::Output, f);
        let ptr_u = self.m.type_pointer(StorageClass::Private, u);
        let max = self
            .ir
            .tessellation
            .max_tess_factor
            .unwrap_or(64.0)
            .clamp(1.0, 64.0);
        let zero = self.m.constant_bits32(f, 0f32.to_bits());
        let max_c = match self.options.pipeline_state.max_tess_factor {
            None => self.m.constant_bits32(f, max.to_bits()),
            // A NaN limit leaves D3D's (`min` returns the other operand).
            Some(SpecValue::Fixed(limit)) => {
                let max = max.min(limit.clamp(1.0, 64.0));
                self.m.constant_bits32(f, max.to_bits())
            }
            Some(limit @ SpecValue::Spec { .. }) => {
                let max_c = self.m.constant_bits32(f, max.to_bits());
                let one = self.m.constant_bits32(f, 1f32.to_bits());
                let limit = self.spec_f32(limit, "max_tess_factor");
                let limit = self.glsl(f, GlslStd450Op::NMax, &[limit, one]);
                self.glsl(f, GlslStd450Op::NMin, &[max_c, limit])
            }
        };
        let mut done: Vec<(bool, u32)> = Vec::new();
        let decls: Vec<ir::IoDecl> = self.ir.patch_constants.clone();
        for d in decls {
            let Some(level) = tess_level(d.system_value) else {
                continue;
            };
            if done.contains(&level) {
                continue;
            }
            done.push(level);
            let Some(file) = self.io.patch.file else {
                break;
            };
            let c = (d.mask.trailing_zeros() as u8).min(3);
            let reg = self.u32_const(d.register.min(self.io.patch.count));
            let comp = self.u32_const(u32::from(c));
            let p = self.m.access_chain(ptr_u, file, &[reg, comp]);
            let word = self.m.load(u, p);
            let x = self.m.bitcast(f, word);
            let v = self.glsl(f, GlslStd450Op::NClamp, &[x, zero, max_c]);
            let (var, element) = level;
            let target = if var { outer } else { inner };
            let idx = self.u32_const(element);
            let p = self.m.access_chain(ptr_f, target, &[idx]);
            self.m.store(p, v);
        }
        // Levels the domain does not use are still written (0): Vulkan reads all of them.
        for (is_outer, count) in [(true, 4u32), (false, 2)] {
            for element in 0..count {
                if done.contains(&(is_outer, element)) {
                    continue;
                }
                let target = if is_outer { outer } else { inner };
                let idx = self.u32_const(element);
                let p = self.m.access_chain(ptr_f, target, &[idx]);
                self.m.store(p, zero);
            }
        }
    }

    /// Parallel schedule: stores the patch-constant components this invocation wrote since the
    /// last call to the `Patch` outputs, one component at a time (other invocations write the
    /// other components of the same variables), and clears the record.
    pub(crate) fn publish_patch_constants(&mut self) -> Result<(), Error> {
        let (Some(file), Some(written)) = (self.io.patch.file, self.io.patch.written) else {
            return Ok(());
        };
        let u = self.ty(Scalar::U32, 1);
        let b = self.ty(Scalar::Bool, 1);
        let ptr_u = self.m.type_pointer(StorageClass::Private, u);
        let links = std::mem::take(&mut self.io.patch.links);
        let zero = self.u32_const(0);
        for link in &links {
            let super::Home::Register(r) = link.home else {
                continue;
            };
            let rc = self.u32_const(r);
            let wp = self.m.access_chain(ptr_u, written, &[rc]);
            let bits = self.m.load(u, wp);
            for c in 0..4u8 {
                if link.mask & (1 << c) == 0 || c < link.first {
                    continue;
                }
                let k = c - link.first;
                if k >= link.width {
                    continue;
                }
                let bit = self.u32_const(1 << c);
                let hit = self.m.bitwise_and(u, bits, bit);
                let set = self.m.i_not_equal(b, hit, zero);
                let scalar = link.scalar;
                let var = link.var;
                let width = link.width;
                self.guarded(set, |e| {
                    let cc = e.u32_const(u32::from(c));
                    let p = e.m.access_chain(ptr_u, file, &[rc, cc]);
                    let word = e.m.load(u, p);
                    let ty = e.ty(scalar, 1);
                    let value = e.m.bitcast(ty, word);
                    let out_ptr = e.m.type_pointer(StorageClass::Output, ty);
                    let target = if width == 1 {
                        var
                    } else {
                        let kc = e.u32_const(u32::from(k));
                        e.m.access_chain(out_ptr, var, &[kc])
                    };
                    e.m.store(target, value);
                    Ok(())
                })?;
            }
            self.m.store(wp, zero);
        }
        self.io.patch.links = links;
        Ok(())
    }
}
