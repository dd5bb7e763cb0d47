//! Where a case's shader comes from, and how it becomes SPIR-V.
//!
//! - `spirv_asm` (SPIR-V assembly text, assembled by `spirv-as`) and `spirv` (a binary module)
//!   are used as they are: the runner's own self-tests use them.
//! - `asm` / `asm_file` (fxc-syntax assembly) are assembled to DXBC by `dxbc2spv`'s assembler,
//!   then go the same way as `dxbc` files: through a [`DxbcTranslator`].
//!
//! The translator is the plug-in point for `dxbc2spv`'s DXBC → SPIR-V translation: anything that
//! implements [`DxbcTranslator`] (a closure `Fn(&DxbcInput) -> Result<CompiledShader>` does).
//! Until the translation exists, [`default_translator`] returns [`NotImplemented`], which fails
//! every DXBC case with a clear message.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;

use super::textures::TextureDim;
use crate::compute::DescriptorKind;
use crate::features::DeviceFeatures;
use dxbc2spv::bindings::{Count, TableBindings};

/// A shader stage a case can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Vertex shader (`vs`).
    Vertex,
    /// Hull shader (`hs`): Vulkan's tessellation control shader.
    Hull,
    /// Domain shader (`ds`): Vulkan's tessellation evaluation shader.
    Domain,
    /// Geometry shader (`gs`).
    Geometry,
    /// Pixel shader (`ps`).
    Pixel,
    /// Compute shader (`cs`).
    Compute,
}

impl Stage {
    /// The graphics stages, in pipeline order.
    pub const GRAPHICS: [Stage; 5] = [
        Stage::Vertex,
        Stage::Hull,
        Stage::Domain,
        Stage::Geometry,
        Stage::Pixel,
    ];

    /// The case-file name: `vs`, `hs`, `ds`, `gs`, `ps`, `cs`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vs",
            Stage::Hull => "hs",
            Stage::Domain => "ds",
            Stage::Geometry => "gs",
            Stage::Pixel => "ps",
            Stage::Compute => "cs",
        }
    }

    /// The stage named `name`.
    pub fn from_name(name: &str) -> Option<Stage> {
        Stage::GRAPHICS
            .into_iter()
            .chain([Stage::Compute])
            .find(|s| s.name() == name)
    }

    /// The Vulkan stage flag.
    pub fn vk(self) -> vk::ShaderStageFlags {
        match self {
            Stage::Vertex => vk::ShaderStageFlags::VERTEX,
            Stage::Hull => vk::ShaderStageFlags::TESSELLATION_CONTROL,
            Stage::Domain => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
            Stage::Geometry => vk::ShaderStageFlags::GEOMETRY,
            Stage::Pixel => vk::ShaderStageFlags::FRAGMENT,
            Stage::Compute => vk::ShaderStageFlags::COMPUTE,
        }
    }

    /// The descriptor set of the stage's D3D11-style default binding map: D3D11 binds
    /// resources per stage, so each graphics stage gets its own set (vs 0, ps 1, gs 2, hs 3,
    /// ds 4; compute 0).
    pub fn d3d11_set(self) -> u32 {
        match self {
            Stage::Vertex | Stage::Compute => 0,
            Stage::Pixel => 1,
            Stage::Geometry => 2,
            Stage::Hull => 3,
            Stage::Domain => 4,
        }
    }

    /// True for the stages before the rasterizer (vs, hs, ds, gs), whose storage writes need
    /// `vertexPipelineStoresAndAtomics`.
    pub fn is_pre_rasterization(self) -> bool {
        matches!(
            self,
            Stage::Vertex | Stage::Hull | Stage::Domain | Stage::Geometry
        )
    }

    /// The SPIR-V execution model of the stage's entry point.
    pub fn execution_model(self) -> u32 {
        match self {
            Stage::Vertex => 0,
            Stage::Hull => 1,
            Stage::Domain => 2,
            Stage::Geometry => 3,
            Stage::Pixel => 4,
            Stage::Compute => 5,
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The class of a D3D shader register that names a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegisterClass {
    /// `t#`: shader resource view (read-only).
    Srv,
    /// `u#`: unordered access view (read-write).
    Uav,
    /// `cb#`: constant buffer.
    Cbv,
    /// `s#`: sampler.
    Sampler,
}

impl RegisterClass {
    /// The register prefix: `t`, `u` or `cb`.
    pub fn prefix(self) -> &'static str {
        match self {
            RegisterClass::Srv => "t",
            RegisterClass::Uav => "u",
            RegisterClass::Cbv => "cb",
            RegisterClass::Sampler => "s",
        }
    }
}

/// A D3D register with its space (SM 5.1; 0 before), e.g. `u0` or `t3:space1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Register {
    /// `t`, `u`, `cb` or `s`.
    pub class: RegisterClass,
    /// The register number (the lower bound of an SM 5.1 range).
    pub index: u32,
    /// The register space.
    pub space: u32,
}

impl Register {
    /// Parses `u0`, `t12`, `cb3`, `s1`, optionally followed by a space: `u0:space1`,
    /// `u0, space1`.
    pub fn parse(text: &str) -> Result<Register> {
        let err = || {
            anyhow!(
                "bad register {text:?}: expected t#, u#, cb# or s#, optionally with a space \
                 (`u0, space1`)"
            )
        };
        let t = text.trim();
        let (reg, space) = match t.find([':', ',', ' ']) {
            Some(i) => (&t[..i], Some(t[i + 1..].trim())),
            None => (t, None),
        };
        let space = match space {
            None => 0,
            Some(s) => s
                .strip_prefix("space")
                .and_then(|n| n.parse().ok())
                .ok_or_else(err)?,
        };
        let (class, digits) = if let Some(d) = reg.strip_prefix("cb") {
            (RegisterClass::Cbv, d)
        } else if let Some(d) = reg.strip_prefix('t') {
            (RegisterClass::Srv, d)
        } else if let Some(d) = reg.strip_prefix('u') {
            (RegisterClass::Uav, d)
        } else if let Some(d) = reg.strip_prefix('s') {
            (RegisterClass::Sampler, d)
        } else {
            return Err(err());
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let index = digits.parse().map_err(|_| err())?;
        Ok(Register {
            class,
            index,
            space,
        })
    }
}

impl fmt::Display for Register {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.prefix(), self.index)?;
        if self.space != 0 {
            write!(f, ":space{}", self.space)?;
        }
        Ok(())
    }
}

/// What a binding of the shader holds: a buffer, or the hidden counter of a UAV.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingTarget {
    /// The buffer declared at this register.
    Resource(Register),
    /// The UAV counter of the buffer at this register (`imm_atomic_alloc/consume`): one `u32`.
    Counter(Register),
}

impl fmt::Display for BindingTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindingTarget::Resource(r) => write!(f, "{r}"),
            BindingTarget::Counter(r) => write!(f, "the counter of {r}"),
        }
    }
}

/// A (set, binding) a case asks for explicitly; the translator should place the resource there
/// (a user-supplied binding map) and report it in [`CompiledShader::bindings`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestedBinding {
    /// The resource or counter.
    pub target: BindingTarget,
    /// Descriptor set.
    pub set: u32,
    /// Binding in the set.
    pub binding: u32,
}

/// One binding of a compiled shader, from the translator's reflection: a register range (one
/// register before SM 5.1) and where its first register is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderBinding {
    /// What the shader expects there: the range's first register (or its counter).
    pub target: BindingTarget,
    /// Registers in the range (`Bounded(1)` for one register).
    pub count: Count,
    /// Descriptor set.
    pub set: u32,
    /// Binding in the set.
    pub binding: u32,
    /// The array element of the range's first register (0 for a single descriptor).
    pub array_offset: u32,
    /// The size of the descriptor array the shader declares at (set, binding) (`Bounded(1)`
    /// for a single descriptor, `Unbounded` for a runtime array).
    pub descriptor_count: Count,
    /// The descriptor type the shader declares.
    pub kind: DescriptorKind,
    /// The view format, for texel kinds whose format the case does not give (e.g. a raw
    /// buffer read through an `R32_UINT` texel buffer).
    pub texel_format: Option<vk::Format>,
    /// For textures: the dimension the shader declares, when the reflection says (`None` too
    /// where the shader has views of several dimensions at the binding).
    pub dimension: Option<TextureDim>,
}

/// A shader ready to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledShader {
    /// The SPIR-V module.
    pub spirv: Vec<u32>,
    /// Name of the entry point.
    pub entry_point: String,
    /// Reflection: where each D3D resource was bound. `None` for SPIR-V sources, whose
    /// bindings come from the case's `set`/`binding` keys.
    pub bindings: Option<Vec<ShaderBinding>>,
}

/// What a translator gets for one case.
#[derive(Clone, Copy, Debug)]
pub struct DxbcInput<'a> {
    /// The DXBC container.
    pub dxbc: &'a [u8],
    /// Where it came from (the `.dxbc` file, the `.asm` file, or the case file for inline
    /// `asm`), for messages.
    pub origin: &'a Path,
    /// Explicit placements the case asks for; resources not listed use the translator's
    /// default mapping.
    pub requested_bindings: &'a [RequestedBinding],
    /// The SPIR-V target environment the result must validate for, e.g. `vulkan1.1`.
    pub target_env: &'a str,
    /// What the device supports (float controls decide execution modes), when known.
    pub features: Option<&'a DeviceFeatures>,
    /// The descriptor set of the D3D11-style default binding map for this shader's stage
    /// ([`Stage::d3d11_set`]).
    pub set: u32,
    /// The case's binding table (`[[binding]]` rows), shared by every stage: when present, the
    /// translator maps registers with it alone (`requested_bindings` is then empty and `set`
    /// unused).
    pub table: Option<&'a TableBindings>,
    /// Stream output, for the last stage before the rasterizer of a case that captures it.
    pub stream_output: Option<&'a dxbc2spv::StreamOutput>,
    /// How a hull shader's fork and join phases are spread over the tessellation-control
    /// invocations (`dxbc2spv::Options::hull_schedule`). A case with a translated hull shader
    /// runs twice, and every shader of a run gets that run's schedule; other cases run once,
    /// with `Serial`.
    pub hull_schedule: dxbc2spv::HullSchedule,
    /// The case's pipeline state (`[pipeline_state]`), for every stage; `None`: the default.
    pub pipeline_state: Option<&'a dxbc2spv::PipelineState>,
    /// The case's Direct3D 9 state (`[d3d9_state]`), for every stage; `None`: the default.
    pub d3d9_state: Option<&'a dxbc2spv::D3d9State>,
    /// Stage linking and workaround options for this shader (`[linking.<stage>]`,
    /// `[workarounds]`); `None`: the defaults.
    pub linking: Option<(&'a dxbc2spv::StageLinking, dxbc2spv::Workarounds)>,
    /// The case's descriptor-type choices (`[descriptors]`), if any.
    pub descriptors: Option<&'a super::case::descriptors::CaseDescriptors>,
    /// Bound class instances and a custom binding map, when the case asks for them.
    pub linkage: Option<&'a super::linkage::Linkage>,
}

/// DXBC → SPIR-V, as the conformance runner sees it.
pub trait DxbcTranslator {
    /// Translates one DXBC container; errors are reported as the case's failure.
    fn translate(&self, input: &DxbcInput<'_>) -> Result<CompiledShader>;
}

impl<F> DxbcTranslator for F
where
    F: Fn(&DxbcInput<'_>) -> Result<CompiledShader>,
{
    fn translate(&self, input: &DxbcInput<'_>) -> Result<CompiledShader> {
        self(input)
    }
}

/// The translator used while `dxbc2spv` has no DXBC → SPIR-V translation: every DXBC case fails
/// with "translation not implemented yet".
#[derive(Clone, Copy, Debug, Default)]
pub struct NotImplemented;

impl DxbcTranslator for NotImplemented {
    fn translate(&self, input: &DxbcInput<'_>) -> Result<CompiledShader> {
        bail!(
            "translation not implemented yet: dxbc2spv has no DXBC → SPIR-V translation to run \
             {} ({} bytes of DXBC)",
            input.origin.display(),
            input.dxbc.len()
        )
    }
}

/// The translator the CLI and `cargo test` use: `dxbc2spv::translate`.
pub fn default_translator() -> &'static dyn DxbcTranslator {
    &super::translator::Dxbc2Spv
}

/// A case's shader, with paths resolved against the case file's folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShaderSource {
    /// fxc-syntax assembly written in the case file (`asm = """…"""`).
    Asm {
        /// The text.
        text: String,
        /// The case file.
        case_file: PathBuf,
        /// 1-based line of the case file where the text's first line is.
        first_line: usize,
    },
    /// fxc-syntax assembly in a file (`asm_file = "x.asm"`).
    AsmFile(PathBuf),
    /// A DXBC container (`dxbc = "x.dxbc"`).
    Dxbc(PathBuf),
    /// SPIR-V assembly text, for `spirv-as` (`spirv_asm = "x.spvasm"`).
    SpirvAsm(PathBuf),
    /// A SPIR-V binary (`spirv = "x.spv"`).
    Spirv(PathBuf),
    /// A Direct3D 9 token stream written as words (`tokens = ["0xffff0200", …]`).
    Tokens {
        /// The tokens.
        words: Vec<u32>,
        /// The case file, for messages.
        case_file: PathBuf,
    },
}

impl ShaderSource {
    /// True for the sources that go through a [`DxbcTranslator`].
    pub fn is_dxbc(&self) -> bool {
        matches!(
            self,
            ShaderSource::Asm { .. }
                | ShaderSource::AsmFile(_)
                | ShaderSource::Dxbc(_)
                | ShaderSource::Tokens { .. }
        )
    }
}

/// What [`compile`] passes to the translator besides the container.
#[derive(Clone, Copy, Debug)]
pub struct CompileOptions<'a> {
    /// Explicit placements the case asks for.
    pub requested_bindings: &'a [RequestedBinding],
    /// E.g. `vulkan1.1`.
    pub target_env: &'a str,
    /// The device's features, when known.
    pub features: Option<&'a DeviceFeatures>,
    /// The stage's default descriptor set.
    pub set: u32,
    /// The case's binding table, for every stage.
    pub table: Option<&'a TableBindings>,
    /// Stream output for this stage.
    pub stream_output: Option<&'a dxbc2spv::StreamOutput>,
    /// The hull-shader schedule of this run.
    pub hull_schedule: dxbc2spv::HullSchedule,
    /// The case's pipeline state.
    pub pipeline_state: Option<&'a dxbc2spv::PipelineState>,
    /// The case's Direct3D 9 state.
    pub d3d9_state: Option<&'a dxbc2spv::D3d9State>,
    /// Stage linking and workaround options for this shader.
    pub linking: Option<(&'a dxbc2spv::StageLinking, dxbc2spv::Workarounds)>,
    /// The case's descriptor-type choices (`[descriptors]`), if any.
    pub descriptors: Option<&'a super::case::descriptors::CaseDescriptors>,
    /// The case's linkage options.
    pub linkage: Option<&'a super::linkage::Linkage>,
}

impl<'a> CompileOptions<'a> {
    /// Options for `target_env` with nothing else: no placements, set 0, no binding table, no
    /// stream output, the serial hull-shader schedule.
    pub fn new(target_env: &'a str) -> CompileOptions<'a> {
        CompileOptions {
            requested_bindings: &[],
            target_env,
            features: None,
            set: 0,
            table: None,
            stream_output: None,
            hull_schedule: dxbc2spv::HullSchedule::Serial,
            pipeline_state: None,
            d3d9_state: None,
            linking: None,
            descriptors: None,
            linkage: None,
        }
    }
}

/// Turns a shader source into SPIR-V: assembles or reads SPIR-V sources (entry point
/// `entry_point`, default `main`), or assembles/reads DXBC and hands it to `translator`.
pub fn compile(
    source: &ShaderSource,
    entry_point: Option<&str>,
    translator: &dyn DxbcTranslator,
    options: &CompileOptions<'_>,
) -> Result<CompiledShader> {
    let target_env = options.target_env;
    let spirv = |spirv| CompiledShader {
        spirv,
        entry_point: entry_point.unwrap_or("main").to_owned(),
        bindings: None,
    };
    let (dxbc, origin) = match source {
        ShaderSource::SpirvAsm(path) => return Ok(spirv(spirv_as(path, target_env)?)),
        ShaderSource::Spirv(path) => return Ok(spirv(read_spirv(path)?)),
        ShaderSource::Asm {
            text,
            case_file,
            first_line,
        } if dxbc2spv::text::d3d9::asm::is_d3d9_text(text) => (
            super::d3d9::assemble(text, case_file, *first_line)?,
            case_file,
        ),
        ShaderSource::Asm {
            text,
            case_file,
            first_line,
        } => {
            let dxbc = dxbc2spv::text::dxbc::asm::assemble(text).map_err(|e| {
                anyhow!(
                    "{}:{}:{}: fxc assembly: {}",
                    case_file.display(),
                    first_line + e.line as usize - 1,
                    e.column,
                    e.message
                )
            })?;
            (dxbc, case_file)
        }
        ShaderSource::AsmFile(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            if dxbc2spv::text::d3d9::asm::is_d3d9_text(&text) {
                (super::d3d9::assemble(&text, path, 1)?, path)
            } else {
                let dxbc = dxbc2spv::text::dxbc::asm::assemble(&text)
                    .map_err(|e| anyhow!("{}:{e}: fxc assembly", path.display()))?;
                (dxbc, path)
            }
        }
        ShaderSource::Tokens { words, case_file } => (
            words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            case_file,
        ),
        ShaderSource::Dxbc(path) => {
            let dxbc =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            (dxbc, path)
        }
    };
    translator.translate(&DxbcInput {
        dxbc: &dxbc,
        origin,
        requested_bindings: options.requested_bindings,
        target_env,
        features: options.features,
        set: options.set,
        table: options.table,
        stream_output: options.stream_output,
        hull_schedule: options.hull_schedule,
        pipeline_state: options.pipeline_state,
        d3d9_state: options.d3d9_state,
        linking: options.linking,
        descriptors: options.descriptors,
        linkage: options.linkage,
    })
}

/// Assembles a `.spvasm` file with `spirv-as --target-env <target_env>`.
pub fn spirv_as(path: &Path, target_env: &str) -> Result<Vec<u32>> {
    let out = Command::new("spirv-as")
        .args(["--target-env", target_env, "-o", "-"])
        .arg(path)
        .stdin(Stdio::null())
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "spirv-as not found on PATH ({e}); run .ci/setup.sh (as root) to install spirv-tools"
        ),
        Err(e) => return Err(e).context("could not start spirv-as"),
    };
    if !out.status.success() {
        bail!(
            "spirv-as rejected {} ({}):\n{}{}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    words(&out.stdout).with_context(|| format!("spirv-as output for {}", path.display()))
}

/// Reads a binary SPIR-V module.
fn read_spirv(path: &Path) -> Result<Vec<u32>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    words(&bytes).with_context(|| format!("{} is not a SPIR-V module", path.display()))
}

/// Little-endian bytes of a SPIR-V module as words; checks the size and the magic number.
fn words(bytes: &[u8]) -> Result<Vec<u32>> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        bail!(
            "{} bytes: not a whole number of words, or shorter than a header",
            bytes.len()
        );
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if words[0] != 0x0723_0203 {
        bail!("bad magic number 0x{:08x}", words[0]);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers() {
        let r = |s: &str| Register::parse(s).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(
            r("u0"),
            Register {
                class: RegisterClass::Uav,
                index: 0,
                space: 0
            }
        );
        assert_eq!(r("cb12").class, RegisterClass::Cbv);
        assert_eq!(r("t3, space2").space, 2);
        assert_eq!(r("t3:space2"), r("t3 space2"));
        assert_eq!(r("t3:space2").to_string(), "t3:space2");
        assert_eq!(r("u7").to_string(), "u7");
        assert_eq!(r("s2").class, RegisterClass::Sampler);
        for bad in [
            "",
            "x0",
            "u",
            "v0",
            "u-1",
            "cb",
            "u0:spac1",
            "u0, space",
            "space1",
        ] {
            assert!(Register::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn not_implemented_names_the_source() {
        let input = DxbcInput {
            dxbc: &[0; 8],
            origin: Path::new("x.dxbc"),
            requested_bindings: &[],
            target_env: "vulkan1.1",
            features: None,
            set: 0,
            table: None,
            stream_output: None,
            hull_schedule: dxbc2spv::HullSchedule::Serial,
            pipeline_state: None,
            d3d9_state: None,
            linking: None,
            descriptors: None,
            linkage: None,
        };
        let e = format!("{:#}", NotImplemented.translate(&input).unwrap_err());
        assert!(e.starts_with("translation not implemented yet"), "{e}");
        assert!(e.contains("x.dxbc"), "{e}");
    }

    #[test]
    fn closures_are_translators() {
        let t = |_: &DxbcInput<'_>| -> Result<CompiledShader> {
            Ok(CompiledShader {
                spirv: vec![0x0723_0203],
                entry_point: "main".into(),
                bindings: Some(Vec::new()),
            })
        };
        let src = ShaderSource::Asm {
            text: "cs_5_0\ndcl_thread_group 1, 1, 1\nret\n".into(),
            case_file: PathBuf::from("c.toml"),
            first_line: 3,
        };
        let out = compile(&src, None, &t, &CompileOptions::new("vulkan1.1"))
            .unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(out.spirv, [0x0723_0203]);
    }

    /// The error of compiling the listing `text`, written at line 10 of `c.toml`, with a
    /// translator that implements nothing.
    fn asm_error(text: &str) -> String {
        let src = ShaderSource::Asm {
            text: text.into(),
            case_file: PathBuf::from("c.toml"),
            first_line: 10,
        };
        let options = CompileOptions::new("vulkan1.1");
        format!(
            "{:#}",
            compile(&src, None, &NotImplemented, &options).unwrap_err()
        )
    }

    #[test]
    fn asm_errors_point_into_the_case_file() {
        let e = asm_error("cs_5_0\ndcl_thread_group 1, 1, 1\nbogus r0.x\nret\n");
        assert!(e.starts_with("c.toml:12:"), "{e}");
        // A well-formed listing gets as far as the translator.
        let e = asm_error("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n");
        assert!(e.starts_with("translation not implemented yet"), "{e}");
    }
}

/// The fxc-listing syntax graphics cases use for vertex and pixel shaders (see
/// `docs/conformance.md`, "Graphics cases"): signature tables in the comment header become the
/// `ISGN`/`OSGN` chunks; without them the assembler derives the signatures from the
/// declarations.
#[cfg(test)]
mod signature_tests {
    use dxbc2spv::front::dxbc::container::{Container, ParseOptions};

    /// The vertex shader of the documentation's example.
    const VS: &str = "\
//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// POSITION                 0   xyzw        0     NONE   float   xyzw
// COLOR                    0   xyzw        1     NONE   float   xyzw
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float   xyzw
// COLOR                    0   xyzw        1     NONE   float   xyzw
//
vs_5_0
dcl_input v0.xyzw
dcl_input v1.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v1.xyzw
ret
";

    /// The pixel shader of the documentation's example.
    const PS: &str = "\
//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Position              0   xyzw        0      POS   float
// COLOR                    0   xyzw        1     NONE   float   xyzw
//
//
// Output signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// SV_Target                0   xyzw        0   TARGET   float   xyzw
//
ps_5_0
dcl_input_ps constant v1.xyzw
dcl_output o0.xyzw
mov o0.xyzw, v1.xyzw
ret
";

    /// (name, semantic index, register) of a signature element.
    type Row = (String, u32, u32);

    /// The rows of the input and the output signature.
    fn signatures(text: &str) -> (Vec<Row>, Vec<Row>) {
        let bytes = dxbc2spv::text::dxbc::asm::assemble(text).unwrap_or_else(|e| panic!("{e}"));
        let c =
            Container::parse(&bytes, &ParseOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        let list = |s: Option<
            dxbc2spv::front::dxbc::error::Result<dxbc2spv::front::dxbc::signature::Signature<'_>>,
        >| {
            s.unwrap_or_else(|| panic!("no signature chunk"))
                .unwrap_or_else(|e| panic!("{e}"))
                .elements
                .iter()
                .map(|e| (e.name.to_owned(), e.semantic_index, e.register))
                .collect::<Vec<_>>()
        };
        (list(c.input_signature()), list(c.output_signature()))
    }

    #[test]
    fn listing_tables_become_signatures() {
        let (vs_in, vs_out) = signatures(VS);
        assert_eq!(vs_in, [("POSITION".into(), 0, 0), ("COLOR".into(), 0, 1)]);
        assert_eq!(
            vs_out,
            [("SV_Position".into(), 0, 0), ("COLOR".into(), 0, 1)]
        );
        let (ps_in, ps_out) = signatures(PS);
        assert_eq!(
            ps_in,
            [("SV_Position".into(), 0, 0), ("COLOR".into(), 0, 1)]
        );
        assert_eq!(ps_out, [("SV_Target".into(), 0, 0)]);
    }

    /// `text` without its `//` comment lines.
    fn without_comments(text: &str) -> String {
        text.lines()
            .filter(|l| !l.starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn declarations_alone_give_derived_signatures() {
        let vs = without_comments(VS);
        let (vs_in, vs_out) = signatures(&vs);
        assert_eq!(
            vs_in,
            [("TEXCOORD".into(), 0, 0), ("TEXCOORD".into(), 1, 1)]
        );
        assert_eq!(
            vs_out,
            [("SV_Position".into(), 0, 0), ("TEXCOORD".into(), 1, 1)]
        );
        let ps = without_comments(PS);
        let (ps_in, ps_out) = signatures(&ps);
        assert_eq!(ps_in, [("TEXCOORD".into(), 1, 1)]);
        assert_eq!(ps_out, [("SV_Target".into(), 0, 0)]);
    }
}
