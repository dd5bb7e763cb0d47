//! Where each resource of a case is bound: from the translator's reflection of every stage (a
//! resource the shader uses must be in the case, explicit placements must have been honoured,
//! descriptor types and texture dimensions must agree), or for SPIR-V sources from the case's
//! binding table or its `set`/`binding` keys. Placements that several stages share are merged.
//! A register range (SM 5.1) puts each case resource in it at its own array element; the
//! descriptor-set layout follows (arrays sized for the shaders' declarations and the elements
//! written, or the binding table's layout).

use anyhow::{bail, Context, Result};
use ash::vk;
use dxbc2spv::bindings::Count;

use super::case::{visible, Case};
use super::shader::{BindingTarget, CompiledShader, RegisterClass, ShaderBinding, Stage};
use crate::compute::DescriptorKind;
use crate::descriptors::SetLayoutBinding;

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
    /// Array element of the binding (0 for a single descriptor).
    pub element: u32,
    /// Descriptor type.
    pub kind: DescriptorKind,
    /// Texel buffer view format.
    pub texel_format: Option<vk::Format>,
    /// Stages that use it.
    pub stages: vk::ShaderStageFlags,
}

/// Where the case's resources go, and the descriptor-set layout that holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// One descriptor per resource (and stage set it is seen in).
    pub places: Vec<Placement>,
    /// Every binding of every set, with its descriptor count.
    pub layout: Vec<SetLayoutBinding>,
}

/// `res` at (`set`, `binding`, `element`) as `kind`, seen by `stage`; the error `missing()`
/// when it is a texel buffer without a view format.
fn placement(
    res: ResRef,
    (set, binding, element): (u32, u32, u32),
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
        element,
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

/// The case resources `stage` sees in the `count` registers from `target`'s, each with its
/// offset in the range (registers are unique per stage, so one resource per register).
fn find_all(case: &Case, target: BindingTarget, count: Count, stage: Stage) -> Vec<(ResRef, u32)> {
    let (first, counter) = match target {
        BindingTarget::Resource(r) => (r, false),
        BindingTarget::Counter(r) => (r, true),
    };
    let offset = |r: super::shader::Register| -> Option<u32> {
        if (r.class, r.space) != (first.class, first.space) || r.index < first.index {
            return None;
        }
        let off = r.index - first.index;
        match count {
            Count::Bounded(n) if off >= n => None,
            _ => Some(off),
        }
    };
    let mut out = Vec::new();
    for (i, b) in case.buffers.iter().enumerate() {
        if let Some(off) = offset(b.register).filter(|_| visible(&b.stages, stage)) {
            match (counter, b.counter.is_some()) {
                (false, _) => out.push((ResRef::Buffer(i), off)),
                (true, true) => out.push((ResRef::Counter(i), off)),
                (true, false) => {}
            }
        }
    }
    if !counter {
        for (i, t) in case.textures.iter().enumerate() {
            if let Some(off) = offset(t.register).filter(|_| visible(&t.stages, stage)) {
                out.push((ResRef::Texture(i), off));
            }
        }
        for (i, t) in case.samplers.iter().enumerate() {
            if let Some(off) = offset(t.register).filter(|_| visible(&t.stages, stage)) {
                out.push((ResRef::Sampler(i), off));
            }
        }
    }
    out
}

/// `target` as text, with the range's last register when it has more than one
/// (`t10..t13:space1`, `t10..:space1` when unbounded).
fn range_name(target: BindingTarget, count: Count) -> String {
    let (r, counter) = match target {
        BindingTarget::Resource(r) => (r, ""),
        BindingTarget::Counter(r) => (r, "the counter of "),
    };
    let last = match count {
        Count::Bounded(1) => return target.to_string(),
        Count::Bounded(n) => (u64::from(r.index) + u64::from(n) - 1).to_string(),
        Count::Unbounded => String::new(),
    };
    let space = if r.space == 0 {
        String::new()
    } else {
        format!(":space{}", r.space)
    };
    format!(
        "{counter}{p}{}..{p}{last}{space}",
        r.index,
        p = r.class.prefix()
    )
}

/// The register (or counter) `res` is bound as.
fn target_of(case: &Case, res: ResRef) -> BindingTarget {
    match res {
        ResRef::Buffer(i) => BindingTarget::Resource(case.buffers[i].register),
        ResRef::Counter(i) => BindingTarget::Counter(case.buffers[i].register),
        ResRef::Texture(i) => BindingTarget::Resource(case.textures[i].register),
        ResRef::Sampler(i) => BindingTarget::Resource(case.samplers[i].register),
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

/// One reflected binding (a register range) checked against the case: a placement for each case
/// resource in the range.
fn reflected(case: &Case, stage: Stage, b: &ShaderBinding, out: &mut Vec<Placement>) -> Result<()> {
    let members = find_all(case, b.target, b.count, stage);
    if members.is_empty() {
        let ShaderBinding {
            set, binding, kind, ..
        } = b;
        bail!(
            "the {stage} shader uses {} (set {set}, binding {binding}, {kind}), but the case \
             declares no such resource for {stage}",
            range_name(b.target, b.count)
        );
    }
    for (res, offset) in members {
        let element = b.array_offset.checked_add(offset).with_context(|| {
            format!("{} is past array element 4294967295", target_of(case, res))
        })?;
        // A bindless heap row's element adds its table base from the push constants.
        let element = match case.table.as_ref().map(|t| t.locate(target_of(case, res))) {
            Some(Some((_, _, e))) if t_is_heap(case, res) => e,
            _ => element,
        };
        out.push(reflected_one(case, stage, b, res, element)?);
    }
    Ok(())
}

/// Case resource `res`, at `element` of the reflected binding `b`, checked against it.
fn reflected_one(
    case: &Case,
    stage: Stage,
    b: &ShaderBinding,
    res: ResRef,
    element: u32,
) -> Result<Placement> {
    let &ShaderBinding {
        set,
        binding,
        kind,
        texel_format,
        dimension,
        ..
    } = b;
    let target = target_of(case, res);
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
    placement(
        res,
        (set, binding, element),
        kind,
        texel_format,
        stage,
        || format!("{target} is a {kind} and neither the case nor the shader gives a format"),
    )
}

/// Placements of the resources `stage` sees, from the case's binding table or its keys (SPIR-V
/// sources).
fn explicit(case: &Case, stage: Stage, out: &mut Vec<Placement>) -> Result<()> {
    let mut push = |res: ResRef| -> Result<()> {
        let at = match &case.table {
            Some(table) => table.locate(target_of(case, res)),
            None => asked(case, res).map(|(set, binding)| (set, binding, 0)),
        };
        let Some(at) = at else {
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
        out.push(placement(res, at, kind, texel_format, stage, || {
            format!("{} is bound as {kind} and needs a format", name(case, res))
        })?);
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

/// Every placement of the case for its compiled `shaders`, merged across stages, and the
/// descriptor-set layout.
pub fn placements(case: &Case, shaders: &[(Stage, &CompiledShader)]) -> Result<Bound> {
    let mut all = Vec::new();
    // (set, binding, descriptor type, declared array size) of every reflected range.
    let mut declared = Vec::new();
    for &(stage, shader) in shaders {
        match &shader.bindings {
            Some(bindings) => {
                for b in bindings {
                    reflected(case, stage, b, &mut all)?;
                    declared.push((b.set, b.binding, b.kind, b.descriptor_count));
                }
            }
            None => explicit(case, stage, &mut all)?,
        }
    }
    let mut merged: Vec<Placement> = Vec::new();
    for p in all {
        let at = |p: &Placement| (p.set, p.binding, p.element);
        match merged.iter_mut().find(|m| at(m) == at(&p)) {
            Some(m) if m.res == p.res && m.kind == p.kind && m.texel_format == p.texel_format => {
                m.stages |= p.stages;
            }
            Some(m) => bail!(
                "set {}, binding {}{} holds {} ({}) for one stage and {} ({}) for another",
                p.set,
                p.binding,
                element_suffix(p.element),
                name(case, m.res),
                m.kind,
                name(case, p.res),
                p.kind
            ),
            None => merged.push(p),
        }
    }
    // One resource at two places is fine (stages with their own sets).
    let layout = match &case.table {
        Some(table) => {
            let kinds: Vec<_> = declared.iter().map(|d| (d.0, d.1, d.2)).collect();
            let stages = shaders
                .iter()
                .fold(vk::ShaderStageFlags::empty(), |f, (s, _)| f | s.vk());
            table.layout(&merged, &kinds, stages)?
        }
        None => implied_layout(&merged, &declared)?,
    };
    Ok(Bound {
        places: merged,
        layout,
    })
}

/// ` element N` for array elements other than 0.
fn element_suffix(element: u32) -> String {
    match element {
        0 => String::new(),
        e => format!(", element {e}"),
    }
}

/// The layout without a binding table: each (set, binding) that holds a placement, seen by the
/// stages that use it, sized for the highest element placed there and the array the shaders
/// declare (one descriptor for every SM 5.0 resource); arrays are partially bound.
fn implied_layout(
    places: &[Placement],
    declared: &[(u32, u32, DescriptorKind, Count)],
) -> Result<Vec<SetLayoutBinding>> {
    let mut out: Vec<SetLayoutBinding> = Vec::new();
    for p in places {
        match out
            .iter_mut()
            .find(|l| (l.set, l.binding) == (p.set, p.binding))
        {
            Some(l) if l.kind != p.kind => bail!(
                "set {}, binding {} holds both {} and {} descriptors",
                p.set,
                p.binding,
                l.kind,
                p.kind
            ),
            Some(l) => {
                l.stages |= p.stages;
                l.count = l.count.max(p.element.saturating_add(1));
            }
            None => out.push(SetLayoutBinding {
                set: p.set,
                binding: p.binding,
                kind: p.kind,
                count: p.element.saturating_add(1),
                stages: p.stages,
                partially_bound: false,
            }),
        }
    }
    for &(set, binding, _, count) in declared {
        if let (Some(l), Count::Bounded(n)) = (
            out.iter_mut()
                .find(|l| (l.set, l.binding) == (set, binding)),
            count,
        ) {
            l.count = l.count.max(n);
        }
    }
    for l in &mut out {
        l.partially_bound = l.count > 1;
    }
    Ok(out)
}

/// True when the case's table puts `res` in a bindless heap (`push.rs`).
fn t_is_heap(case: &Case, res: ResRef) -> bool {
    case.table
        .as_ref()
        .is_some_and(|t| t.is_heap(target_of(case, res)))
}
