//! The case file format (TOML, one case per file) and its checks. See `docs/conformance.md`.
//!
//! Everything a case gets wrong (unknown keys, bad values, expectations outside a buffer or
//! image, unknown feature names) is found here, before anything runs. A case is a compute case
//! (`dispatch` and one `[shader]`) or a graphics case (`[draw]` and `[[shader]]` tables with a
//! `stage`); the graphics tables are in [`super::draw`], textures and samplers in
//! [`super::textures`], expectations in [`super::expect`].

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::draw::{
    draw_spec, DepthToml, DrawSpec, DrawToml, FramebufferToml, GraphicsTables, InputToml,
    RasterizerToml, RenderTargetToml, SoBufferToml, StreamOutputToml, VertexBufferToml,
    ViewportToml,
};
use super::expect::{expectation, ExpectToml, Expectation, Targets};
use super::linkage::{linkage, ClassInstanceToml, CustomMapToml, Linkage};
use super::shader::{
    BindingTarget, Register, RegisterClass, RequestedBinding, ShaderSource, Stage,
};
use super::stages::{check_stages, check_tessellation};
use super::steps::{steps, Step, StepToml};
use super::table::{binding_table, check_table, register_in_space, BindingTable, BindingToml};
use super::textures::{
    parse_stages, placement, sampler_spec, texture_spec, SamplerSpec, SamplerToml, TextureSpec,
    TextureToml,
};
use super::value::{parse_list, Element, ScalarType};
use crate::compute::DescriptorKind;
use crate::features::feature_kind;
pub use crate::format::{TexelFormat, TEXEL_FORMATS};

/// Target environments a case may name (`spirv-as`/`spirv-val` spelling).
pub const TARGET_ENVS: &[&str] = &[
    "vulkan1.0",
    "vulkan1.1",
    "vulkan1.1spv1.4",
    "vulkan1.2",
    "vulkan1.3",
];

/// The default `target_env`.
pub const DEFAULT_TARGET_ENV: &str = "vulkan1.1";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseToml {
    description: Option<String>,
    #[serde(default)]
    requires: Vec<String>,
    #[serde(default)]
    expect_failure: bool,
    failure_contains: Option<String>,
    driver_bug: Option<DriverBug>,
    target_env: Option<String>,
    dispatch: Option<[u32; 3]>,
    draw: Option<DrawToml>,
    shader: Option<ShaderList>,
    #[serde(default)]
    buffer: Vec<BufferToml>,
    #[serde(default)]
    texture: Vec<TextureToml>,
    #[serde(default)]
    sampler: Vec<SamplerToml>,
    #[serde(default)]
    binding: Vec<BindingToml>,
    framebuffer: Option<FramebufferToml>,
    #[serde(default)]
    vertex_buffer: Vec<VertexBufferToml>,
    #[serde(default)]
    input: Vec<InputToml>,
    #[serde(default)]
    render_target: Vec<RenderTargetToml>,
    depth: Option<DepthToml>,
    rasterizer: Option<RasterizerToml>,
    #[serde(default)]
    viewport: Vec<ViewportToml>,
    #[serde(default)]
    stream_output: Vec<StreamOutputToml>,
    #[serde(default)]
    so_buffer: Vec<SoBufferToml>,
    #[serde(default)]
    expect: Vec<ExpectToml>,
    #[serde(default)]
    step: Vec<StepToml>,
    pipeline_state: Option<super::pipeline_state::PipelineStateToml>,
    #[serde(default)]
    specialization: Vec<super::pipeline_state::SpecializationToml>,
    linking: Option<std::collections::BTreeMap<String, linking::StageLinkingToml>>,
    workarounds: Option<linking::WorkaroundsToml>,
    descriptors: Option<descriptors::DescriptorsToml>,
    push_constants: Option<super::push::PushConstantsToml>,
    #[serde(default)]
    root_constants: Vec<super::push::RootConstantsToml>,
    #[serde(default)]
    class_instance: Vec<ClassInstanceToml>,
    custom_map: Option<CustomMapToml>,
    #[serde(default)]
    root_descriptor: Vec<super::address::RootDescriptorToml>,
    #[serde(default)]
    constants: Vec<super::d3d9::ConstantsToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShaderToml {
    stage: Option<String>,
    asm: Option<toml::Spanned<String>>,
    asm_file: Option<String>,
    dxbc: Option<String>,
    spirv_asm: Option<String>,
    spirv: Option<String>,
    tokens: Option<Vec<toml::Value>>,
    entry_point: Option<String>,
}

/// `[shader]` (one table) or `[[shader]]` (a list of tables).
enum ShaderList {
    One(ShaderToml),
    Many(Vec<ShaderToml>),
}

impl<'de> Deserialize<'de> for ShaderList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ShaderList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a [shader] table or [[shader]] tables")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<ShaderList, A::Error> {
                ShaderToml::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ShaderList::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                seq: A,
            ) -> std::result::Result<ShaderList, A::Error> {
                Vec::<ShaderToml>::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(ShaderList::Many)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BufferToml {
    register: String,
    space: Option<u32>,
    name: Option<String>,
    stages: Option<Vec<String>>,
    kind: Option<String>,
    stride: Option<u32>,
    format: Option<String>,
    set: Option<u32>,
    binding: Option<u32>,
    descriptor: Option<String>,
    #[serde(rename = "type")]
    ty: Option<ScalarType>,
    #[serde(default)]
    data: Vec<toml::Value>,
    fill: Option<toml::Value>,
    size: Option<u64>,
    counter: Option<u32>,
    counter_set: Option<u32>,
    counter_binding: Option<u32>,
    view_offset: Option<u64>,
    view_size: Option<u64>,
    data_offset: Option<u64>,
}

/// What D3D sees in a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// `ByteAddressBuffer` / `RWByteAddressBuffer`.
    Raw,
    /// `StructuredBuffer<T>` with this stride in bytes.
    Structured {
        /// Bytes per structure (a multiple of 4).
        stride: u32,
    },
    /// `Buffer<T>` / `RWBuffer<T>` with this format.
    Typed(TexelFormat),
    /// A constant buffer (`cb#`).
    Constant,
}

/// A UAV's hidden counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterSpec {
    /// Initial value.
    pub initial: u32,
    /// Explicit (set, binding).
    pub placement: Option<(u32, u32)>,
}

/// One buffer of a case.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    /// The name expectations and messages use (the register unless `name` is given).
    pub name: String,
    /// The D3D register.
    pub register: Register,
    /// The stages that see it (`None`: every stage that uses the register).
    pub stages: Option<Vec<Stage>>,
    /// Raw, structured, typed or constant.
    pub kind: BufferKind,
    /// Explicit (set, binding).
    pub placement: Option<(u32, u32)>,
    /// Explicit descriptor type (otherwise the translator's, or the default for the kind).
    pub descriptor: Option<DescriptorKind>,
    /// View format when bound as a texel buffer (typed buffers: their format).
    pub texel_format: Option<TexelFormat>,
    /// Initial contents; its length is the buffer size.
    pub contents: Vec<u8>,
    /// The UAV counter, when the buffer has one.
    pub counter: Option<CounterSpec>,
    /// The part of the buffer the descriptor sees: (byte offset, size in bytes); `None`: the
    /// whole buffer. The offset must suit the device's alignment limit of the descriptor type.
    pub view: Option<(u64, u64)>,
}

impl BufferSpec {
    /// The descriptor type used when neither the case nor the translator names one.
    pub fn default_descriptor(&self) -> DescriptorKind {
        match (self.kind, self.register.class) {
            (BufferKind::Constant, _) => DescriptorKind::UniformBuffer,
            (BufferKind::Typed(_), RegisterClass::Srv) => DescriptorKind::UniformTexelBuffer,
            (BufferKind::Typed(_), _) => DescriptorKind::StorageTexelBuffer,
            _ => DescriptorKind::StorageBuffer,
        }
    }
}

/// One shader of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseShader {
    /// Its stage.
    pub stage: Stage,
    /// Where it comes from.
    pub source: ShaderSource,
    /// Entry point name for SPIR-V sources (default `main`).
    pub entry_point: Option<String>,
}

/// What a case runs.
#[derive(Clone, Debug)]
pub enum Work {
    /// A compute dispatch with these workgroup counts.
    Dispatch([u32; 3]),
    /// A draw.
    Draw(Box<DrawSpec>),
}

/// A parsed and checked case.
#[derive(Clone, Debug)]
pub struct Case {
    /// The case file.
    pub path: PathBuf,
    /// What it tests.
    pub description: Option<String>,
    /// Device features and properties it needs (Vulkan names).
    pub requires: Vec<String>,
    /// The case passes only when an expectation fails (a self-test of the runner).
    pub expect_failure: bool,
    /// With `expect_failure`: text the failure message must contain.
    pub failure_contains: Option<String>,
    /// A driver bug that makes the case fail on some device (reported as a skip there).
    pub driver_bug: Option<DriverBug>,
    /// SPIR-V target environment for `spirv-as`, `spirv-val` and the translator.
    pub target_env: String,
    /// The shaders: one compute shader, or the graphics stages in pipeline order.
    pub shaders: Vec<CaseShader>,
    /// The dispatch or draw.
    pub work: Work,
    /// Buffers, in file order.
    pub buffers: Vec<BufferSpec>,
    /// Textures, in file order.
    pub textures: Vec<TextureSpec>,
    /// Samplers, in file order.
    pub samplers: Vec<SamplerSpec>,
    /// The binding table (`[[binding]]` rows), shared by every stage; `None` without rows.
    pub table: Option<BindingTable>,
    /// Expectations, in file order, checked after the last dispatch or draw.
    pub expectations: Vec<Expectation>,
    /// Several dispatches or draws in order (`[[step]]`); empty: the work runs once.
    pub steps: Vec<Step>,
    /// The translator's pipeline state (`[pipeline_state]`); `None`: the default.
    pub pipeline_state: Option<dxbc2spv::PipelineState>,
    /// Specialization constants the pipeline sets (`[[specialization]]`).
    pub specializations: Vec<super::pipeline_state::Specialization>,
    /// `[linking.<stage>]` and `[workarounds]`: translator options.
    pub linking: linking::CaseLinking,
    /// Descriptor-type choices for the translator (`[descriptors]`).
    pub descriptors: descriptors::CaseDescriptors,
    /// The words pushed before the work (`[push_constants]`, `push.rs`); empty: none.
    pub push_constants: Vec<u32>,
    /// Bound class instances and a custom binding map (`[[class_instance]]`, `[custom_map]`).
    pub linkage: Linkage,
    /// Root descriptors as device addresses (`[[root_descriptor]]`, `address.rs`).
    pub root_descriptors: super::address::Addresses,
}

/// `driver_bug = { device = "llvmpipe", reason = "...", failure_contains = "..." }`: a bug of
/// one driver that makes the case fail there (with evidence in the case's comments). On a device
/// whose name contains `device` (ignoring case) a failure whose message contains
/// `failure_contains` is reported as a skip naming the bug; any other failure still fails, and
/// every other device runs the case as usual.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct DriverBug {
    /// Part of the device name (`llvmpipe`).
    pub device: String,
    /// What the driver gets wrong.
    pub reason: String,
    /// Text the failure must contain to count as the bug.
    pub failure_contains: String,
}

/// Who sees a resource: `stages` (`None`: every stage) includes `stage`.
pub fn visible(stages: &Option<Vec<Stage>>, stage: Stage) -> bool {
    stages.as_ref().is_none_or(|s| s.contains(&stage))
}

impl Case {
    /// Reads and checks the case file at `path`.
    pub fn load(path: &Path) -> Result<Case> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Case::parse(&text, path)
    }

    /// Parses case text; `path` resolves relative file names and names the case in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Case> {
        let raw: CaseToml = toml::from_str(text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new("."));

        for name in &raw.requires {
            if feature_kind(name).is_none() {
                bail!(
                    "requires: unknown device feature {name:?} (Vulkan spelling, e.g. \
                     shaderFloat64; see vk-tests/src/features.rs)"
                );
            }
        }
        if raw.failure_contains.is_some() && !raw.expect_failure {
            bail!("failure_contains needs expect_failure = true");
        }
        let target_env = raw
            .target_env
            .unwrap_or_else(|| DEFAULT_TARGET_ENV.to_owned());
        if !TARGET_ENVS.contains(&target_env.as_str()) {
            bail!("target_env {target_env:?} is not one of {TARGET_ENVS:?}");
        }

        let graphics = raw.draw.is_some();
        let shaders = match raw.shader {
            None => bail!("the case has no shader ([shader], or [[shader]] tables)"),
            Some(ShaderList::One(s)) => vec![s],
            Some(ShaderList::Many(v)) => v,
        };
        let shaders = shaders
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                shader_source(s, text, path, dir, graphics)
                    .with_context(|| format!("shader {}", i + 1))
            })
            .collect::<Result<Vec<_>>>()?;

        let work = match (raw.dispatch, raw.draw) {
            (Some(_), Some(_)) => {
                bail!("a case has either dispatch (compute) or [draw] (graphics)")
            }
            (None, None) => {
                bail!("the case has neither dispatch (compute) nor [draw] (graphics)")
            }
            (Some(d), None) => {
                let stray = [
                    ("[framebuffer]", raw.framebuffer.is_some()),
                    ("[[vertex_buffer]]", !raw.vertex_buffer.is_empty()),
                    ("[[input]]", !raw.input.is_empty()),
                    ("[[render_target]]", !raw.render_target.is_empty()),
                    ("[depth]", raw.depth.is_some()),
                    ("[rasterizer]", raw.rasterizer.is_some()),
                    ("[[viewport]]", !raw.viewport.is_empty()),
                    ("[[stream_output]]", !raw.stream_output.is_empty()),
                    ("[[so_buffer]]", !raw.so_buffer.is_empty()),
                ];
                if let Some((name, _)) = stray.iter().find(|(_, present)| *present) {
                    bail!("{name} belongs to graphics cases, which have [draw]");
                }
                if d.contains(&0) {
                    bail!("dispatch {d:?}: every count must be at least 1");
                }
                if shaders.len() != 1 || shaders[0].stage != Stage::Compute {
                    bail!("a compute case has one [shader], a compute shader");
                }
                Work::Dispatch(d)
            }
            (None, Some(draw)) => {
                check_stages(&shaders)?;
                let draw = draw_spec(GraphicsTables {
                    draw,
                    framebuffer: raw.framebuffer,
                    vertex_buffers: raw.vertex_buffer,
                    inputs: raw.input,
                    render_targets: raw.render_target,
                    depth: raw.depth,
                    rasterizer: raw.rasterizer,
                    viewports: raw.viewport,
                    stream_output: raw.stream_output,
                    so_buffers: raw.so_buffer,
                })?;
                check_tessellation(&shaders, &draw)?;
                Work::Draw(Box::new(draw))
            }
        };
        let shaders = {
            let mut s = shaders;
            s.sort_by_key(|s| s.stage);
            s
        };

        let mut buffers: Vec<BufferSpec> = Vec::new();
        for b in raw.buffer {
            let reg = b.register.clone();
            buffers.push(buffer_spec(b).with_context(|| format!("buffer {reg}"))?);
        }
        let mut textures = Vec::new();
        for t in raw.texture {
            let reg = t.register.clone();
            textures.push(texture_spec(t).with_context(|| format!("texture {reg}"))?);
        }
        let mut samplers = Vec::new();
        for t in raw.sampler {
            let reg = t.register.clone();
            samplers.push(sampler_spec(t).with_context(|| format!("sampler {reg}"))?);
        }
        let d3d9_constants = super::d3d9::constant_buffers(raw.constants, &shaders, &buffers)?;
        buffers.extend(d3d9_constants);
        check_resources(&buffers, &textures, &samplers)?;
        let push_constants = super::push::push_words(raw.push_constants)?;
        let table = super::push::add_root_constants(
            binding_table(raw.binding)?,
            raw.root_constants,
            &push_constants,
        )?;
        let (table, root_descriptors) = super::address::add_root_descriptors(
            table,
            raw.root_descriptor,
            &push_constants,
            &buffers,
        )?;
        if let Some(t) = &table {
            check_table(t, &buffers, &textures, &samplers)?;
        }
        let case_stages: Vec<Stage> = shaders.iter().map(|s| s.stage).collect();
        let listed = buffers
            .iter()
            .map(|b| (&b.name, &b.stages))
            .chain(textures.iter().map(|t| (&t.name, &t.stages)))
            .chain(samplers.iter().map(|t| (&t.name, &t.stages)));
        for (name, stages) in listed {
            if let Some(s) = stages.iter().flatten().find(|s| !case_stages.contains(s)) {
                bail!("{name}: stages lists {s}, which the case has no shader for");
            }
        }

        if raw.expect.is_empty() && raw.step.iter().all(|s| !s.has_expectations()) {
            bail!("the case has no [[expect]] blocks");
        }
        let draw = match &work {
            Work::Draw(d) => Some(&**d),
            Work::Dispatch(_) => None,
        };
        let targets = Targets {
            buffers: &buffers,
            draw,
            textures: &textures,
        };
        let expectations = raw
            .expect
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                expectation(e, &targets).with_context(|| format!("expect block {}", i + 1))
            })
            .collect::<Result<Vec<_>>>()?;
        let steps = steps(raw.step, draw.is_some(), &targets)?;
        let linking = linking::case_linking(raw.linking, raw.workarounds)?;

        let pipeline_state = raw
            .pipeline_state
            .map(super::pipeline_state::pipeline_state)
            .transpose()
            .context("[pipeline_state]")?;
        let specializations = super::pipeline_state::specializations(raw.specialization)?;
        Ok(Case {
            pipeline_state,
            specializations,
            path: path.to_owned(),
            description: raw.description,
            requires: raw.requires,
            expect_failure: raw.expect_failure,
            driver_bug: raw.driver_bug,
            failure_contains: raw.failure_contains,
            target_env,
            shaders,
            work,
            buffers,
            textures,
            samplers,
            table,
            expectations,
            steps,
            linking,
            descriptors: descriptors::parse(raw.descriptors).context("[descriptors]")?,
            push_constants,
            linkage: linkage(raw.class_instance, raw.custom_map)?,
            root_descriptors,
        })
    }

    /// Every expectation: the steps' and the case's.
    pub fn all_expectations(&self) -> impl Iterator<Item = &Expectation> {
        self.steps
            .iter()
            .flat_map(|s| &s.expectations)
            .chain(&self.expectations)
    }

    /// The draw, for a graphics case.
    pub fn draw(&self) -> Option<&DrawSpec> {
        match &self.work {
            Work::Draw(d) => Some(d),
            Work::Dispatch(_) => None,
        }
    }

    /// The explicit placements of the resources `stage` sees, for the translator.
    pub fn requested_bindings(&self, stage: Stage) -> Vec<RequestedBinding> {
        let mut out = Vec::new();
        let mut push = |target, placement: Option<(u32, u32)>| {
            if let Some((set, binding)) = placement {
                out.push(RequestedBinding {
                    target,
                    set,
                    binding,
                });
            }
        };
        for b in self.buffers.iter().filter(|b| visible(&b.stages, stage)) {
            push(BindingTarget::Resource(b.register), b.placement);
            push(
                BindingTarget::Counter(b.register),
                b.counter.and_then(|c| c.placement),
            );
        }
        for t in self.textures.iter().filter(|t| visible(&t.stages, stage)) {
            push(BindingTarget::Resource(t.register), t.placement);
        }
        for t in self.samplers.iter().filter(|t| visible(&t.stages, stage)) {
            push(BindingTarget::Resource(t.register), t.placement);
        }
        out
    }

    /// Device features the case needs besides `requires` and its modules' capabilities: the
    /// draw state's, the samplers' and textures', a geometry or tessellation shader's.
    pub fn implied_requirements(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if let Some(d) = self.draw() {
            out.extend(d.required_features());
        }
        if self.shaders.iter().any(|s| s.stage == Stage::Geometry) {
            out.push("geometryShader");
        }
        if self
            .shaders
            .iter()
            .any(|s| matches!(s.stage, Stage::Hull | Stage::Domain))
        {
            out.push("tessellationShader");
        }
        for s in &self.samplers {
            out.extend(s.state.required_features());
        }
        if self
            .textures
            .iter()
            .any(|t| t.dim == super::textures::TextureDim::CubeArray)
        {
            out.push("imageCubeArray");
        }
        if self
            .all_expectations()
            .any(|e| matches!(e, Expectation::Primitives { .. }))
        {
            out.push("transformFeedbackQueries");
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

fn shader_source(
    s: ShaderToml,
    text: &str,
    path: &Path,
    dir: &Path,
    graphics: bool,
) -> Result<CaseShader> {
    let stage = match (s.stage.as_deref(), graphics) {
        (None, false) => Stage::Compute,
        (None, true) => {
            bail!("a graphics shader needs stage = \"vs\", \"hs\", \"ds\", \"gs\" or \"ps\"")
        }
        (Some(name), _) => Stage::from_name(name)
            .ok_or_else(|| anyhow!("unknown stage {name:?} (vs, hs, ds, gs, ps, cs)"))?,
    };
    let given = [
        s.asm.is_some(),
        s.asm_file.is_some(),
        s.dxbc.is_some(),
        s.spirv_asm.is_some(),
        s.spirv.is_some(),
        s.tokens.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() != 1 {
        bail!("a shader needs exactly one of asm, asm_file, dxbc, spirv_asm, spirv, tokens");
    }
    let source = if let Some(asm) = s.asm {
        // The span covers the string token, quotes included. A newline right after `"""` or
        // `'''` is not part of the string, so the text starts on the next line.
        let start = asm.span().start;
        let mut first_line = text[..start].matches('\n').count() + 1;
        let token = &text[start..];
        if ["\"\"\"\n", "'''\n", "\"\"\"\r\n", "'''\r\n"]
            .iter()
            .any(|p| token.starts_with(p))
        {
            first_line += 1;
        }
        ShaderSource::Asm {
            text: asm.into_inner(),
            case_file: path.to_owned(),
            first_line,
        }
    } else if let Some(f) = s.asm_file {
        ShaderSource::AsmFile(dir.join(f))
    } else if let Some(f) = s.dxbc {
        ShaderSource::Dxbc(dir.join(f))
    } else if let Some(f) = s.spirv_asm {
        ShaderSource::SpirvAsm(dir.join(f))
    } else if let Some(f) = s.spirv {
        ShaderSource::Spirv(dir.join(f))
    } else if let Some(t) = s.tokens {
        ShaderSource::Tokens {
            words: super::d3d9::tokens(&t).context("tokens")?,
            case_file: path.to_owned(),
        }
    } else {
        unreachable!("exactly one source is set")
    };
    if s.entry_point.is_some() && source.is_dxbc() {
        bail!("entry_point applies to SPIR-V sources only; the translator names it");
    }
    Ok(CaseShader {
        stage,
        source,
        entry_point: s.entry_point,
    })
}

fn buffer_spec(b: BufferToml) -> Result<BufferSpec> {
    let register = register_in_space(&b.register, b.space)?;
    if register.class == RegisterClass::Sampler {
        bail!("an s# register holds a sampler: use a [[sampler]] table");
    }
    let kind = match (b.kind.as_deref(), register.class) {
        (None | Some("constant"), RegisterClass::Cbv) => BufferKind::Constant,
        (Some(k), RegisterClass::Cbv) => bail!("a cb register holds a constant buffer, not {k:?}"),
        (None, _) => bail!("kind is required: raw, structured or typed"),
        (Some("raw"), _) => BufferKind::Raw,
        (Some("structured"), _) => {
            let stride = b
                .stride
                .ok_or_else(|| anyhow!("a structured buffer needs stride"))?;
            if stride == 0 || stride % 4 != 0 {
                bail!("stride {stride} must be a positive multiple of 4");
            }
            BufferKind::Structured { stride }
        }
        (Some("typed"), _) => BufferKind::Typed(TexelFormat::from_name(
            b.format
                .as_deref()
                .ok_or_else(|| anyhow!("a typed buffer needs format"))?,
        )?),
        (Some("constant"), _) => bail!("a constant buffer takes a cb register"),
        (Some(k), _) => bail!("unknown kind {k:?} (raw, structured, typed or constant)"),
    };
    if b.stride.is_some() && !matches!(kind, BufferKind::Structured { .. }) {
        bail!("stride applies to structured buffers only");
    }
    let placement = placement(b.set, b.binding)?;
    let descriptor = b
        .descriptor
        .as_deref()
        .map(|d| {
            DescriptorKind::from_name(d)
                .filter(|k| k.is_buffer())
                .ok_or_else(|| {
                    anyhow!(
                        "unknown descriptor {d:?} (storage_buffer, uniform_buffer, \
                     storage_texel_buffer or uniform_texel_buffer)"
                    )
                })
        })
        .transpose()?;
    let texel_format = match kind {
        BufferKind::Typed(f) => Some(f),
        _ => b
            .format
            .as_deref()
            .map(TexelFormat::from_name)
            .transpose()?,
    };
    if texel_format.is_some()
        && !matches!(kind, BufferKind::Typed(_))
        && !descriptor.is_some_and(DescriptorKind::is_texel)
    {
        bail!("format applies to typed buffers and to buffers bound as texel buffers");
    }

    let ty = b.ty.unwrap_or(ScalarType::U32);
    let mut data = Vec::new();
    for e in parse_list(&b.data, ty).context("data")? {
        data.extend(e.to_bytes()?);
    }
    let fill = match &b.fill {
        Some(v) => Element::parse(v, ty).context("fill")?.to_bytes()?,
        None => vec![0; 4],
    };
    let data_offset = b.data_offset.unwrap_or(0);
    if !data_offset.is_multiple_of(4) {
        bail!("data_offset {data_offset} is not a multiple of 4");
    }
    let data_end = data_offset + data.len() as u64;
    let mut size = b.size.unwrap_or(data_end);
    if size < data_end {
        bail!(
            "size {size} is smaller than the {} bytes of data at byte {data_offset}",
            data.len()
        );
    }
    if kind == BufferKind::Constant {
        // D3D sizes constant buffers in 16-byte registers.
        size = size.div_ceil(16) * 16;
    }
    if size == 0 {
        bail!("the buffer is empty: give data or size");
    }
    if !size.is_multiple_of(4) {
        bail!("size {size} is not a multiple of 4");
    }
    if let BufferKind::Structured { stride } = kind {
        if !size.is_multiple_of(u64::from(stride)) {
            bail!("size {size} is not a multiple of the stride {stride}");
        }
    }
    if let Some(f) = texel_format {
        if !size.is_multiple_of(u64::from(f.size)) {
            bail!(
                "size {size} is not a multiple of the {} texel size {}",
                f.name,
                f.size
            );
        }
    }
    let size = usize::try_from(size).context("size")?;
    let mut contents: Vec<u8> = fill.iter().copied().cycle().take(size).collect();
    // `data_end <= size`, which fits `usize`.
    contents[data_offset as usize..data_end as usize].copy_from_slice(&data);

    let counter = match (b.counter, b.counter_set, b.counter_binding) {
        (None, None, None) => None,
        (None, _, _) => bail!("counter_set/counter_binding without counter"),
        (Some(initial), set, binding) => {
            if register.class != RegisterClass::Uav {
                bail!("only UAVs (u#) have counters");
            }
            let placement = match (set, binding) {
                (set, Some(binding)) => Some((set.or(b.set).unwrap_or(0), binding)),
                (Some(_), None) => bail!("counter_set without counter_binding"),
                (None, None) => None,
            };
            Some(CounterSpec { initial, placement })
        }
    };
    let view = buffer_view(b.view_offset, b.view_size, size as u64, kind, texel_format)?;

    Ok(BufferSpec {
        name: b.name.unwrap_or_else(|| register.to_string()),
        register,
        stages: parse_stages(b.stages)?,
        kind,
        placement,
        descriptor,
        texel_format,
        contents,
        counter,
        view,
    })
}

/// Checks `view_offset`/`view_size` against a buffer of `size` bytes: the view lies inside it,
/// is not empty, and holds whole elements (4-byte words, structures, texels, 16-byte constant
/// registers). Device alignment is checked when the case runs.
fn buffer_view(
    offset: Option<u64>,
    view_size: Option<u64>,
    size: u64,
    kind: BufferKind,
    texel_format: Option<TexelFormat>,
) -> Result<Option<(u64, u64)>> {
    if offset.is_none() && view_size.is_none() {
        return Ok(None);
    }
    let offset = offset.unwrap_or(0);
    if offset >= size {
        bail!("view_offset {offset} is not inside the {size}-byte buffer");
    }
    let view_size = view_size.unwrap_or(size - offset);
    if view_size == 0 || offset + view_size > size {
        bail!(
            "the view (bytes {offset}..{}) is empty or outside the {size}-byte buffer",
            offset + view_size
        );
    }
    let unit = match (kind, texel_format) {
        (BufferKind::Constant, _) => 16,
        (BufferKind::Structured { stride }, _) => u64::from(stride),
        (_, Some(f)) => u64::from(f.size),
        _ => 4,
    };
    if !offset.is_multiple_of(4) || !view_size.is_multiple_of(unit) {
        bail!(
            "view_offset {offset} must be a multiple of 4 and view_size {view_size} a multiple \
             of {unit} (the buffer's element size)"
        );
    }
    Ok(Some((offset, view_size)))
}

/// No two resources with one name, or one register seen by one stage; no two placements at
/// one (set, binding).
fn check_resources(
    buffers: &[BufferSpec],
    textures: &[TextureSpec],
    samplers: &[SamplerSpec],
) -> Result<()> {
    let overlap = |a: &Option<Vec<Stage>>, b: &Option<Vec<Stage>>| match (a, b) {
        (Some(a), Some(b)) => a.iter().any(|s| b.contains(s)),
        _ => true,
    };
    let mut all: Vec<(&str, Register, &Option<Vec<Stage>>)> = Vec::new();
    all.extend(
        buffers
            .iter()
            .map(|b| (b.name.as_str(), b.register, &b.stages)),
    );
    all.extend(
        textures
            .iter()
            .map(|t| (t.name.as_str(), t.register, &t.stages)),
    );
    all.extend(
        samplers
            .iter()
            .map(|t| (t.name.as_str(), t.register, &t.stages)),
    );
    for (i, (name, register, stages)) in all.iter().enumerate() {
        for (other, other_reg, other_stages) in &all[..i] {
            if register == other_reg && overlap(stages, other_stages) {
                bail!(
                    "{name} and {other} are both at {register} for the same stage (give them \
                     disjoint stages = [...])"
                );
            }
            if name == other {
                bail!("two resources are named {name}");
            }
        }
    }
    let mut seen: Vec<((u32, u32), String)> = Vec::new();
    let places = buffers
        .iter()
        .flat_map(|b| {
            [
                b.placement.map(|p| (p, b.name.clone())),
                b.counter
                    .and_then(|c| c.placement)
                    .map(|p| (p, format!("the counter of {}", b.name))),
            ]
        })
        .chain(
            textures
                .iter()
                .map(|t| t.placement.map(|p| (p, t.name.clone()))),
        )
        .chain(
            samplers
                .iter()
                .map(|t| t.placement.map(|p| (p, t.name.clone()))),
        );
    for (p, what) in places.flatten() {
        if let Some((_, other)) = seen.iter().find(|(q, _)| *q == p) {
            bail!(
                "{what} and {other} are both at set {}, binding {}",
                p.0,
                p.1
            );
        }
        seen.push((p, what));
    }
    Ok(())
}

pub mod descriptors;
pub mod linking;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod runtime_tests;
