//! The case file format (TOML, one case per file) and its checks. See `docs/conformance.md`.
//!
//! Everything a case gets wrong (unknown keys, bad values, expectations outside a buffer,
//! unknown feature names) is found here, before anything runs.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use serde::Deserialize;

use super::shader::{BindingTarget, Register, RegisterClass, RequestedBinding, ShaderSource};
use super::value::{parse_list, Element, ScalarType, Tolerance};
use crate::compute::DescriptorKind;
use crate::features::feature_kind;

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
    target_env: Option<String>,
    dispatch: [u32; 3],
    shader: ShaderToml,
    #[serde(default)]
    buffer: Vec<BufferToml>,
    #[serde(default)]
    expect: Vec<ExpectToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShaderToml {
    asm: Option<toml::Spanned<String>>,
    asm_file: Option<String>,
    dxbc: Option<String>,
    spirv_asm: Option<String>,
    spirv: Option<String>,
    entry_point: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BufferToml {
    register: String,
    name: Option<String>,
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectToml {
    buffer: String,
    #[serde(rename = "type")]
    ty: Option<ScalarType>,
    offset: Option<u64>,
    values: Option<Vec<toml::Value>>,
    ulp: Option<u64>,
    abs: Option<f64>,
    counter: Option<u32>,
}

/// A texel format of typed buffers, by its DXGI name (lower case, no `DXGI_FORMAT_` prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelFormat {
    /// E.g. `r32_uint`.
    pub name: &'static str,
    /// The Vulkan format.
    pub vk: vk::Format,
    /// Bytes per texel.
    pub size: u32,
}

macro_rules! formats {
    ($($name:literal $vk:ident $size:literal,)*) => {
        /// Texel formats a typed buffer may have.
        pub const TEXEL_FORMATS: &[TexelFormat] = &[
            $(TexelFormat { name: $name, vk: vk::Format::$vk, size: $size },)*
        ];
    };
}

formats! {
    "r32g32b32a32_float" R32G32B32A32_SFLOAT 16,
    "r32g32b32a32_uint" R32G32B32A32_UINT 16,
    "r32g32b32a32_sint" R32G32B32A32_SINT 16,
    "r32g32_float" R32G32_SFLOAT 8,
    "r32g32_uint" R32G32_UINT 8,
    "r32g32_sint" R32G32_SINT 8,
    "r32_float" R32_SFLOAT 4,
    "r32_uint" R32_UINT 4,
    "r32_sint" R32_SINT 4,
    "r16g16b16a16_float" R16G16B16A16_SFLOAT 8,
    "r16g16b16a16_unorm" R16G16B16A16_UNORM 8,
    "r16g16b16a16_snorm" R16G16B16A16_SNORM 8,
    "r16g16b16a16_uint" R16G16B16A16_UINT 8,
    "r16g16b16a16_sint" R16G16B16A16_SINT 8,
    "r16g16_float" R16G16_SFLOAT 4,
    "r16g16_unorm" R16G16_UNORM 4,
    "r16g16_snorm" R16G16_SNORM 4,
    "r16g16_uint" R16G16_UINT 4,
    "r16g16_sint" R16G16_SINT 4,
    "r16_float" R16_SFLOAT 2,
    "r16_unorm" R16_UNORM 2,
    "r16_snorm" R16_SNORM 2,
    "r16_uint" R16_UINT 2,
    "r16_sint" R16_SINT 2,
    "r8g8b8a8_unorm" R8G8B8A8_UNORM 4,
    "r8g8b8a8_snorm" R8G8B8A8_SNORM 4,
    "r8g8b8a8_uint" R8G8B8A8_UINT 4,
    "r8g8b8a8_sint" R8G8B8A8_SINT 4,
    "b8g8r8a8_unorm" B8G8R8A8_UNORM 4,
    "r8g8_unorm" R8G8_UNORM 2,
    "r8g8_snorm" R8G8_SNORM 2,
    "r8g8_uint" R8G8_UINT 2,
    "r8g8_sint" R8G8_SINT 2,
    "r8_unorm" R8_UNORM 1,
    "r8_snorm" R8_SNORM 1,
    "r8_uint" R8_UINT 1,
    "r8_sint" R8_SINT 1,
    "r10g10b10a2_unorm" A2B10G10R10_UNORM_PACK32 4,
    "r10g10b10a2_uint" A2B10G10R10_UINT_PACK32 4,
    "r11g11b10_float" B10G11R11_UFLOAT_PACK32 4,
}

impl TexelFormat {
    /// The format named `name`.
    pub fn from_name(name: &str) -> Result<TexelFormat> {
        TEXEL_FORMATS
            .iter()
            .copied()
            .find(|f| f.name == name)
            .ok_or_else(|| {
                anyhow!(
                    "unknown format {name:?}; known: {}",
                    TEXEL_FORMATS
                        .iter()
                        .map(|f| f.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
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

/// What an expectation checks.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// Consecutive elements from byte `offset`.
    Values {
        /// Byte offset of the first element.
        offset: u64,
        /// The expected elements.
        elements: Vec<Element>,
        /// Tolerance for float elements.
        tolerance: Tolerance,
    },
    /// The final value of the buffer's UAV counter.
    Counter(u32),
}

/// One expectation: a buffer and what must hold for it after the dispatch.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// Index into [`Case::buffers`].
    pub buffer: usize,
    /// The check.
    pub check: Check,
}

/// A parsed and checked case.
#[derive(Clone, Debug, PartialEq)]
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
    /// SPIR-V target environment for `spirv-as`, `spirv-val` and the translator.
    pub target_env: String,
    /// The shader.
    pub shader: ShaderSource,
    /// Entry point name for SPIR-V sources.
    pub entry_point: Option<String>,
    /// Workgroup counts.
    pub dispatch: [u32; 3],
    /// Buffers, in file order.
    pub buffers: Vec<BufferSpec>,
    /// Expectations, in file order.
    pub expectations: Vec<Expectation>,
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
        if raw.dispatch.contains(&0) {
            bail!(
                "dispatch {:?}: every count must be at least 1",
                raw.dispatch
            );
        }

        let (shader, entry_point) = shader_source(raw.shader, text, path, dir)?;

        let mut buffers: Vec<BufferSpec> = Vec::new();
        for b in raw.buffer {
            let reg = b.register.clone();
            let spec = buffer_spec(b).with_context(|| format!("buffer {reg}"))?;
            if let Some(other) = buffers
                .iter()
                .find(|o| o.name == spec.name || o.register == spec.register)
            {
                bail!(
                    "buffer {} ({}) repeats the name or register of buffer {} ({})",
                    spec.name,
                    spec.register,
                    other.name,
                    other.register
                );
            }
            buffers.push(spec);
        }
        check_placements(&buffers)?;

        if raw.expect.is_empty() {
            bail!("the case has no [[expect]] blocks");
        }
        let expectations = raw
            .expect
            .into_iter()
            .enumerate()
            .map(|(i, e)| {
                let name = e.buffer.clone();
                expectation(e, &buffers)
                    .with_context(|| format!("expect block {} (buffer {name})", i + 1))
            })
            .collect::<Result<Vec<_>>>()?;

        Ok(Case {
            path: path.to_owned(),
            description: raw.description,
            requires: raw.requires,
            expect_failure: raw.expect_failure,
            failure_contains: raw.failure_contains,
            target_env,
            shader,
            entry_point,
            dispatch: raw.dispatch,
            buffers,
            expectations,
        })
    }

    /// The explicit placements of the case, for the translator.
    pub fn requested_bindings(&self) -> Vec<RequestedBinding> {
        let mut out = Vec::new();
        for b in &self.buffers {
            if let Some((set, binding)) = b.placement {
                out.push(RequestedBinding {
                    target: BindingTarget::Resource(b.register),
                    set,
                    binding,
                });
            }
            if let Some((set, binding)) = b.counter.and_then(|c| c.placement) {
                out.push(RequestedBinding {
                    target: BindingTarget::Counter(b.register),
                    set,
                    binding,
                });
            }
        }
        out
    }
}

fn shader_source(
    s: ShaderToml,
    text: &str,
    path: &Path,
    dir: &Path,
) -> Result<(ShaderSource, Option<String>)> {
    let given = [
        s.asm.is_some(),
        s.asm_file.is_some(),
        s.dxbc.is_some(),
        s.spirv_asm.is_some(),
        s.spirv.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() != 1 {
        bail!("[shader] needs exactly one of asm, asm_file, dxbc, spirv_asm, spirv");
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
    } else {
        unreachable!("exactly one source is set")
    };
    if s.entry_point.is_some() && source.is_dxbc() {
        bail!("[shader] entry_point applies to SPIR-V sources only; the translator names it");
    }
    Ok((source, s.entry_point))
}

fn buffer_spec(b: BufferToml) -> Result<BufferSpec> {
    let register = Register::parse(&b.register)?;
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
    let placement = match (b.set, b.binding) {
        (set, Some(binding)) => Some((set.unwrap_or(0), binding)),
        (Some(_), None) => bail!("set without binding"),
        (None, None) => None,
    };
    let descriptor = b
        .descriptor
        .as_deref()
        .map(|d| {
            DescriptorKind::from_name(d).ok_or_else(|| {
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
    let mut size = b.size.unwrap_or(data.len() as u64);
    if size < data.len() as u64 {
        bail!(
            "size {size} is smaller than the {} bytes of data",
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
    contents[..data.len()].copy_from_slice(&data);

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

    Ok(BufferSpec {
        name: b.name.unwrap_or_else(|| register.to_string()),
        register,
        kind,
        placement,
        descriptor,
        texel_format,
        contents,
        counter,
    })
}

/// No two buffers or counters at the same (set, binding).
fn check_placements(buffers: &[BufferSpec]) -> Result<()> {
    let mut seen: Vec<((u32, u32), String)> = Vec::new();
    for b in buffers {
        let places = [
            b.placement.map(|p| (p, b.name.clone())),
            b.counter
                .and_then(|c| c.placement)
                .map(|p| (p, format!("the counter of {}", b.name))),
        ];
        for (p, what) in places.into_iter().flatten() {
            if let Some((_, other)) = seen.iter().find(|(q, _)| *q == p) {
                bail!(
                    "{what} and {other} are both at set {}, binding {}",
                    p.0,
                    p.1
                );
            }
            seen.push((p, what));
        }
    }
    Ok(())
}

fn expectation(e: ExpectToml, buffers: &[BufferSpec]) -> Result<Expectation> {
    let index = buffers
        .iter()
        .position(|b| b.name == e.buffer || b.register.to_string() == e.buffer)
        .ok_or_else(|| anyhow!("no buffer named {:?}", e.buffer))?;
    let buffer = &buffers[index];
    let check = match (e.values, e.counter) {
        (Some(_), Some(_)) | (None, None) => bail!("give either values or counter"),
        (None, Some(n)) => {
            if buffer.counter.is_none() {
                bail!("the buffer has no counter");
            }
            if e.ty.is_some() || e.offset.is_some() || e.ulp.is_some() || e.abs.is_some() {
                bail!("type, offset, ulp and abs do not apply to a counter");
            }
            Check::Counter(n)
        }
        (Some(values), None) => {
            let ty = e.ty.unwrap_or(ScalarType::U32);
            let elements = parse_list(&values, ty).context("values")?;
            if elements.is_empty() {
                bail!("values is empty");
            }
            let offset = e.offset.unwrap_or(0);
            if !offset.is_multiple_of(4) {
                bail!("offset {offset} is not a multiple of 4");
            }
            let len: u64 = elements.iter().map(|el| el.ty.size() as u64).sum();
            let size = buffer.contents.len() as u64;
            if offset + len > size {
                bail!(
                    "bytes {offset}..{} are outside the {size}-byte buffer",
                    offset + len
                );
            }
            let abs = e.abs.unwrap_or(0.0);
            if !(abs >= 0.0 && abs.is_finite()) {
                bail!("abs must be a finite number ≥ 0");
            }
            let tolerance = Tolerance {
                ulp: e.ulp.unwrap_or(0),
                abs,
            };
            if !tolerance.is_exact() && !elements.iter().any(|el| el.ty.is_float()) {
                bail!("ulp/abs apply to f32/f64 values, and there are none");
            }
            Check::Values {
                offset,
                elements,
                tolerance,
            }
        }
    };
    Ok(Expectation {
        buffer: index,
        check,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::value::Pattern;

    fn parse(text: &str) -> Result<Case> {
        Case::parse(text, Path::new("/cases/compute/x.toml"))
    }

    fn err(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("parsed:\n{text}"),
            Err(e) => format!("{e:#}"),
        }
    }

    const BASE: &str = r#"
dispatch = [1, 1, 1]
[shader]
spirv_asm = "x.spvasm"
[[buffer]]
register = "u0"
kind = "raw"
data = [1, 2, 3, 4]
[[expect]]
buffer = "u0"
values = [1]
"#;

    #[test]
    fn minimal_case() {
        let c = parse(BASE).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(
            c.shader,
            ShaderSource::SpirvAsm(PathBuf::from("/cases/compute/x.spvasm"))
        );
        assert_eq!(c.target_env, "vulkan1.1");
        assert_eq!(c.buffers[0].contents.len(), 16);
        assert_eq!(
            c.buffers[0].default_descriptor(),
            DescriptorKind::StorageBuffer
        );
        assert!(c.requested_bindings().is_empty());
    }

    #[test]
    fn inline_asm_knows_its_line() {
        let text = "dispatch = [1, 1, 1]\n[shader]\nasm = \"\"\"\ncs_5_0\nret\n\"\"\"\n\
                    [[buffer]]\nregister = \"u0\"\nkind = \"raw\"\nsize = 4\n\
                    [[expect]]\nbuffer = \"u0\"\nvalues = [0]\n";
        let c = parse(text).unwrap_or_else(|e| panic!("{e:#}"));
        match c.shader {
            ShaderSource::Asm {
                text, first_line, ..
            } => {
                assert_eq!(text, "cs_5_0\nret\n");
                assert_eq!(first_line, 4);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn contents_fill_and_types() {
        let c = parse(
            r#"
dispatch = [1, 1, 1]
[shader]
dxbc = "a.dxbc"
[[buffer]]
register = "u1, space2"
kind = "structured"
stride = 8
type = "f32"
data = [1.5, "u32:7", -2]
fill = "0xdeadbeef"
size = 24
set = 1
binding = 3
counter = 5
counter_binding = 4
[[buffer]]
register = "cb0"
data = [1]
[[expect]]
buffer = "u1:space2"
type = "f32"
offset = 8
values = ["*", "nan", 1.0]
ulp = 1
[[expect]]
buffer = "u1:space2"
counter = 6
"#,
        )
        .unwrap_or_else(|e| panic!("{e:#}"));
        let b = &c.buffers[0];
        let words: Vec<u32> = b
            .contents
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        assert_eq!(
            words,
            [
                0x3fc0_0000,
                7,
                0xc000_0000,
                0xdead_beef,
                0xdead_beef,
                0xdead_beef
            ]
        );
        assert_eq!(b.placement, Some((1, 3)));
        assert_eq!(
            b.counter,
            Some(CounterSpec {
                initial: 5,
                placement: Some((1, 4))
            })
        );
        assert_eq!(c.buffers[1].contents.len(), 16, "cbuffers round up to 16");
        assert_eq!(c.buffers[1].kind, BufferKind::Constant);
        match &c.expectations[0].check {
            Check::Values {
                offset,
                elements,
                tolerance,
            } => {
                assert_eq!(*offset, 8);
                assert_eq!(elements[1].pattern, Pattern::Nan);
                assert_eq!(tolerance.ulp, 1);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(c.expectations[1].check, Check::Counter(6));
        assert_eq!(c.requested_bindings().len(), 2);
    }

    #[test]
    fn mistakes_are_reported() {
        let cases: &[(&str, &str, &str)] = &[
            ("kind = \"raw\"", "kind = \"rawr\"", "unknown kind"),
            (
                "data = [1, 2, 3, 4]",
                "data = [1, 2, 3, 4]\nbogus = 1",
                "bogus",
            ),
            (
                "values = [1]",
                "values = [1, 2, 3, 4, 5]",
                "outside the 16-byte",
            ),
            ("values = [1]", "values = [1]\nulp = 2", "ulp/abs apply"),
            ("buffer = \"u0\"", "buffer = \"u9\"", "no buffer named"),
            ("[1, 1, 1]", "[1, 0, 1]", "at least 1"),
            ("register = \"u0\"", "register = \"s0\"", "bad register"),
            (
                "spirv_asm = \"x.spvasm\"",
                "spirv_asm = \"x\"\ndxbc = \"y\"",
                "exactly one",
            ),
            (
                "values = [1]",
                "values = [1]\ncounter = 1",
                "either values or counter",
            ),
            ("data = [1, 2, 3, 4]", "data = [1.5]", "must be an integer"),
            (
                "data = [1, 2, 3, 4]",
                "data = [1]\nsize = 6",
                "multiple of 4",
            ),
            ("kind = \"raw\"", "kind = \"structured\"", "needs stride"),
        ];
        for (from, to, want) in cases {
            assert!(BASE.contains(from), "{from}");
            let e = err(&BASE.replacen(from, to, 1));
            assert!(e.contains(want), "{to:?}: wanted {want:?} in {e:?}");
        }
        let e = err(&format!("requires = [\"shaderFloat65\"]\n{BASE}"));
        assert!(e.contains("unknown device feature"), "{e}");
        let e = err(&format!("failure_contains = \"x\"\n{BASE}"));
        assert!(e.contains("expect_failure"), "{e}");
        let e = err(&BASE.replace("[[expect]]\nbuffer = \"u0\"\nvalues = [1]\n", ""));
        assert!(e.contains("no [[expect]]"), "{e}");
    }
}
