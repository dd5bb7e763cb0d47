//! Where each resource of a case is bound: from the translator's reflection of every stage (a
//! resource the shader uses must be in the case, explicit placements must have been honoured,
//! descriptor types and texture dimensions must agree), or from the case's `set`/`binding` keys
//! for SPIR-V sources. Placements that several stages share are merged.

use anyhow::{bail, Result};
use ash::vk;

use super::case::{visible, Case};
use super::shader::{BindingTarget, CompiledShader, RegisterClass, ShaderBinding, Stage};
use crate::compute::DescriptorKind;

/// A resource of the case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResRef {
    /// `Case::buffers[i]`.
    Buffer(usize),
    /// The UAV counter of `Case::buffers[i]`.
    Counter(usize),
    /// `Case::textures[i]`.
    Texture(usize),
    /// `Case::samplers[i]`.
    Sampler(usize),
}

/// Where one resource is bound, and for which stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The resource.
    pub res: ResRef,
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// Descriptor type.
    pub kind: DescriptorKind,
    /// Texel buffer view format.
    pub texel_format: Option<vk::Format>,
    /// Stages that use it.
    pub stages: vk::ShaderStageFlags,
}

/// `res` at (`set`, `binding`) as `kind`, seen by `stage`; the error `missing()` when it is a
/// texel buffer without a view format.
fn placement(
    res: ResRef,
    (set, binding): (u32, u32),
    kind: DescriptorKind,
    texel_format: Option<vk::Format>,
    stage: Stage,
    missing: impl FnOnce() -> String,
) -> Result<Placement> {
    if kind.is_texel() && texel_format.is_none() {
        bail!("{}", missing());
    }
    Ok(Placement {
        res,
        set,
        binding,
        kind,
        texel_format,
        stages: stage.vk(),
    })
}

fn name(case: &Case, res: ResRef) -> String {
    match res {
        ResRef::Buffer(i) => case.buffers[i].name.clone(),
        ResRef::Counter(i) => format!("the counter of {}", case.buffers[i].name),
        ResRef::Texture(i) => case.textures[i].name.clone(),
        ResRef::Sampler(i) => case.samplers[i].name.clone(),
    }
}

/// The case resource `stage` sees at `target`.
fn find(case: &Case, target: BindingTarget, stage: Stage) -> Option<ResRef> {
    match target {
        BindingTarget::Counter(r) => case
            .buffers
            .iter()
            .position(|b| b.register == r && b.counter.is_some() && visible(&b.stages, stage))
            .map(ResRef::Counter),
        BindingTarget::Resource(r) => case
            .buffers
            .iter()
            .position(|b| b.register == r && visible(&b.stages, stage))
            .map(ResRef::Buffer)
            .or_else(|| {
                case.textures
                    .iter()
                    .position(|t| t.register == r && visible(&t.stages, stage))
                    .map(ResRef::Texture)
            })
            .or_else(|| {
                case.samplers
                    .iter()
                    .position(|t| t.register == r && visible(&t.stages, stage))
                    .map(ResRef::Sampler)
            }),
    }
}

/// The explicit placement the case gives `res`.
fn asked(case: &Case, res: ResRef) -> Option<(u32, u32)> {
    match res {
        ResRef::Buffer(i) => case.buffers[i].placement,
        ResRef::Counter(i) => case.buffers[i].counter.and_then(|c| c.placement),
        ResRef::Texture(i) => case.textures[i].placement,
        ResRef::Sampler(i) => case.samplers[i].placement,
    }
}

/// The descriptor type `res` gets without reflection.
fn default_kind(case: &Case, res: ResRef) -> DescriptorKind {
    match res {
        ResRef::Buffer(i) => {
            let b = &case.buffers[i];
            b.descriptor.unwrap_or_else(|| b.default_descriptor())
        }
        ResRef::Counter(_) => DescriptorKind::StorageBuffer,
        ResRef::Texture(i) if case.textures[i].register.class == RegisterClass::Uav => {
            DescriptorKind::StorageImage
        }
        ResRef::Texture(_) => DescriptorKind::SampledImage,
        ResRef::Sampler(_) => DescriptorKind::Sampler,
    }
}

/// One reflected binding checked against the case.
fn reflected(case: &Case, stage: Stage, b: &ShaderBinding) -> Result<Placement> {
    let &ShaderBinding {
        target,
        set,
        binding,
        kind,
        texel_format,
        dimension,
    } = b;
    let Some(res) = find(case, target, stage) else {
        bail!(
            "the {stage} shader uses {target} (set {set}, binding {binding}, {kind}), but the \
             case declares no such resource for {stage}"
        );
    };
    if let Some(p) = asked(case, res).filter(|&p| p != (set, binding)) {
        bail!(
            "the case places {} at set {}, binding {}; the translator put it at set {set}, \
             binding {binding}",
            name(case, res),
            p.0,
            p.1
        );
    }
    let mut texel_format = texel_format;
    match res {
        ResRef::Buffer(i) => {
            let spec = &case.buffers[i];
            if !kind.is_buffer() {
                bail!("the {stage} shader declares {target} as a {kind}; the case gives a buffer");
            }
            if let Some(d) = spec.descriptor.filter(|&d| d != kind) {
                bail!("the case binds {target} as {d}; the {stage} shader declares {kind}");
            }
            texel_format = texel_format.or(spec.texel_format.map(|f| f.vk));
        }
        ResRef::Texture(i) => {
            let spec = &case.textures[i];
            let want = default_kind(case, res);
            if kind != want {
                bail!(
                    "the {stage} shader declares {target} as a {kind}; the case gives a {} \
                     texture ({want})",
                    spec.dim.name()
                );
            }
            if let Some(d) = dimension.filter(|&d| d != spec.dim) {
                bail!(
                    "the {stage} shader declares {target} as {}; the case gives {}",
                    d.name(),
                    spec.dim.name()
                );
            }
        }
        ResRef::Sampler(_) if kind != DescriptorKind::Sampler => {
            bail!("the {stage} shader declares {target} as a {kind}; the case gives a sampler")
        }
        ResRef::Counter(_) | ResRef::Sampler(_) => {}
    }
    placement(res, (set, binding), kind, texel_format, stage, || {
        format!("{target} is a {kind} and neither the case nor the shader gives a format")
    })
}

/// Placements of the resources `stage` sees, from the case's keys (SPIR-V sources).
fn explicit(case: &Case, stage: Stage, out: &mut Vec<Placement>) -> Result<()> {
    let mut push = |res: ResRef| -> Result<()> {
        let Some((set, binding)) = asked(case, res) else {
            bail!(
                "{} has no set/binding, and a SPIR-V source has no reflection to place it",
                name(case, res)
            );
        };
        let kind = default_kind(case, res);
        let texel_format = match res {
            ResRef::Buffer(i) => case.buffers[i].texel_format.map(|f| f.vk),
            _ => None,
        };
        out.push(placement(
            res,
            (set, binding),
            kind,
            texel_format,
            stage,
            || format!("{} is bound as {kind} and needs a format", name(case, res)),
        )?);
        Ok(())
    };
    for (i, b) in case.buffers.iter().enumerate() {
        if visible(&b.stages, stage) {
            push(ResRef::Buffer(i))?;
            if b.counter.is_some() {
                push(ResRef::Counter(i))?;
            }
        }
    }
    for (i, t) in case.textures.iter().enumerate() {
        if visible(&t.stages, stage) {
            push(ResRef::Texture(i))?;
        }
    }
    for (i, t) in case.samplers.iter().enumerate() {
        if visible(&t.stages, stage) {
            push(ResRef::Sampler(i))?;
        }
    }
    Ok(())
}

/// Every placement of the case for its compiled `shaders`, merged across stages.
pub fn placements(case: &Case, shaders: &[(Stage, &CompiledShader)]) -> Result<Vec<Placement>> {
    let mut all = Vec::new();
    for &(stage, shader) in shaders {
        match &shader.bindings {
            Some(bindings) => {
                for b in bindings {
                    all.push(reflected(case, stage, b)?);
                }
            }
            None => explicit(case, stage, &mut all)?,
        }
    }
    let mut merged: Vec<Placement> = Vec::new();
    for p in all {
        match merged
            .iter_mut()
            .find(|m| (m.set, m.binding) == (p.set, p.binding))
        {
            Some(m) if m.res == p.res && m.kind == p.kind && m.texel_format == p.texel_format => {
                m.stages |= p.stages;
            }
            Some(m) => bail!(
                "set {}, binding {} holds {} ({}) for one stage and {} ({}) for another",
                p.set,
                p.binding,
                name(case, m.res),
                m.kind,
                name(case, p.res),
                p.kind
            ),
            None => merged.push(p),
        }
    }
    // One resource at two places is fine (stages with their own sets).
    Ok(merged)
}
