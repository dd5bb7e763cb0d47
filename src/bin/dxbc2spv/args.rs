//! The command line: subcommands and their options (clap derive). No behaviour lives here.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use dxbc2spv::text::dxbc::disasm::Dialect;

/// Direct3D shader bytecode (DXBC, Shader Model 4.0-5.1) to Vulkan SPIR-V translator.
#[derive(Debug, Parser)]
#[command(name = "dxbc2spv", version, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The command line with `translate` inserted when the first argument is not a subcommand or an
/// option but a path (`dxbc2spv shader.dxbc -o shader.spv`).
pub fn with_default_command(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    let mut args: Vec<_> = args.into_iter().collect();
    if let Some(first) = args.get(1) {
        let text = first.to_string_lossy();
        let is_command = [
            "translate",
            "disasm",
            "info",
            "asm",
            "reflect",
            "bench",
            "spirv-dis",
            "help",
        ]
        .contains(&text.as_ref());
        if !is_command && !text.starts_with('-') {
            args.insert(1, "translate".into());
        }
    }
    args
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Translate DXBC containers to SPIR-V (the default when the first argument is a file).
    Translate(Box<TranslateArgs>),
    /// Disassemble DXBC containers into fxc-syntax listings.
    Disasm(DisasmArgs),
    /// Describe DXBC containers: checksum, chunks, program, signatures, reflection, features.
    Info(InfoArgs),
    /// Assemble fxc-syntax listings into DXBC containers.
    Asm(AsmArgs),
    /// Reflect DXBC programs from their declarations: resources, registers, I/O, stage state.
    Reflect(ReflectArgs),
    /// Time translation: every input `--rounds` times in one process and thread, warm.
    Bench(BenchArgs),
    /// Disassemble SPIR-V modules into SPIR-V text (in-process; no spirv-tools needed).
    SpirvDis(SpirvDisArgs),
}

/// Options of `spirv-dis`.
#[derive(Debug, Args)]
pub struct SpirvDisArgs {
    /// SPIR-V modules; a directory is searched recursively for `*.spv` files.
    #[arg(value_name = "FILE", required = true)]
    pub paths: Vec<PathBuf>,
    /// The text to write (one input only). Default: stdout.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        conflicts_with = "out_dir"
    )]
    pub output: Option<PathBuf>,
    /// Write `DIR/<name>.spvasm` per input (created if missing) instead of printing to stdout.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Options of `bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Timed translations of each input (after one untimed warm-up).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub rounds: u32,
    /// Also print one line per input: `<mean_us> <words> <path>` (`-` for the time when it
    /// does not translate), to find the slow ones.
    #[arg(long)]
    pub per_file: bool,
    /// Translate each `4_0_level_9_x` container's level-9 part instead of its SM4 program (as
    /// `translate --level9`), to compare the two programs compiled from the same HLSL.
    #[arg(long)]
    pub level9: bool,
    /// Direct3D 9 float rules, as `translate --float-emulation`.
    #[arg(long, value_enum, default_value_t = FloatEmulationArg::Strict)]
    pub float_emulation: FloatEmulationArg,
    /// Also print the modules' words by SPIR-V opcode: `opcode <name> words_mean <x> share
    /// <p>%` per opcode (mean words per translated shader), largest first.
    #[arg(long)]
    pub opcodes: bool,
}

/// Where D3D registers go in Vulkan (`translate`, `reflect`).
#[derive(Debug, Args)]
pub struct BindingArgs {
    /// Where D3D registers go in Vulkan: `auto` (the container's root signature when it embeds
    /// one, else `spaces`), `d3d11` (space 0, single registers), `spaces` (set = register
    /// space, the D3D11 layout inside), or a binding table file (TOML, or JSON for `*.json`;
    /// `docs/bindings.md`).
    #[arg(long, value_name = "auto|d3d11|spaces|FILE", default_value = "auto")]
    pub bindings: String,
    /// Bind every input by this root signature: a DXBC container with an `RTS0` chunk, or a
    /// serialized root signature.
    #[arg(long, value_name = "FILE")]
    pub root_signature: Option<PathBuf>,
}

/// Options of `translate`.
#[derive(Debug, Args)]
pub struct TranslateArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// The module to write (one input only). Default: `<input>.spv` beside each input.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        conflicts_with = "out_dir"
    )]
    pub output: Option<PathBuf>,
    /// Write `DIR/<name>.spv` per input (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Check each module with `spirv-val --target-env <TARGET>` (spirv-tools must be installed);
    /// a rejected module fails its input.
    #[arg(long)]
    pub validate: bool,
    /// Also write `<output>.spvasm`, the module as SPIR-V text (disassembled in-process, as by
    /// `dxbc2spv spirv-dis`; no spirv-tools needed).
    #[arg(long)]
    pub spirv_asm: bool,
    /// The Vulkan version to write for: vulkan1.0 (SPIR-V 1.0), vulkan1.1 (1.3), vulkan1.2
    /// (1.5), vulkan1.3 (1.6).
    #[arg(long, value_name = "TARGET", default_value = "vulkan1.1")]
    pub target: String,
    /// Do not verify the container checksum.
    #[arg(long)]
    pub no_checksum: bool,
    #[command(flatten)]
    pub binding: BindingArgs,
    /// Name registers and resources in the SPIR-V (`OpName`).
    #[arg(long)]
    pub debug_names: bool,
    /// Which invocations run a hull shader's fork and join phases: `serial` (invocation 0, once
    /// per patch) or `parallel` (instances spread over the invocations).
    #[arg(long, value_enum, default_value_t = HullScheduleArg::Serial)]
    pub hull_schedule: HullScheduleArg,
    /// How pixel shaders keep their rasterizer-ordered views (`_rov` UAVs) ordered: `pixel`
    /// (an ordered fragment-shader interlock per pixel, `VK_EXT_fragment_shader_interlock`'s
    /// `fragmentShaderPixelInterlock`), `pixel-and-sample` (per sample in shaders that run per
    /// sample; the device also has `fragmentShaderSampleInterlock`) or `off` (such shaders fail
    /// as unsupported).
    #[arg(long, value_enum, default_value_t = RovInterlockArg::Pixel)]
    pub rov_interlock: RovInterlockArg,
    /// Direct3D 9 shaders: `strict` (D3D9's legacy multiply `0 × x = 0` exactly) or `fast`
    /// (the IEEE multiply, `rcp`/`rsq`/`exp` clamped to ±FLT_MAX) (`docs/d3d9.md`).
    #[arg(long, value_enum, default_value_t = FloatEmulationArg::Strict)]
    pub float_emulation: FloatEmulationArg,
    #[command(flatten)]
    pub pipeline_state: crate::state_args::PipelineStateArgs,
    #[command(flatten)]
    pub linking: LinkingArgs,
    // -- Class linkage (SM5 interfaces) --
    /// Bind a class instance to an SM5 interface slot (repeat per slot):
    /// `SLOT=TABLE[,CB,OFFSET,TEXTURE,SAMPLER]`, the instance's function table (`ft#`) and its
    /// `this` data (constant buffer, offset in vectors, first texture, first sampler; 0 when
    /// left out), or `SLOT=none`. Calls then go straight to the bound bodies; without any,
    /// interfaces dispatch at run time through the class-linkage block (set 0, binding 14).
    #[arg(
        long = "class-instance",
        value_name = "SLOT=TABLE[,CB,OFFSET,TEXTURE,SAMPLER]",
        value_parser = crate::class_instance::parse
    )]
    pub class_instances: Vec<(u32, Option<dxbc2spv::bindings::ClassInstance>)>,
    /// Batch runs (a directory or several files): files translated at once, one per thread.
    /// Default: one per core (or `RAYON_NUM_THREADS`); 1 translates in input order.
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<NonZeroUsize>,
    /// Batch runs: also print a line for each file that translates, not only the failures.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Translate a `4_0_level_9_x` container's level-9 part (its Direct3D 9 program, reading
    /// the SM4 program's constant buffers and textures) instead of its SM4 program; a container
    /// without one fails. D3D9 streams translate as without it.
    #[arg(long)]
    pub level9: bool,
}

/// Stage linking and workaround switches of `translate` (`docs/runtime.md`, "Stage linking
/// and workarounds").
#[derive(Clone, Debug, Args)]
pub struct LinkingArgs {
    /// The previous stage's DXBC: inputs its output signature does not write read 0, as in D3D
    /// (not declared as interface variables).
    #[arg(long, value_name = "FILE")]
    pub previous_stage: Option<PathBuf>,
    /// With `--previous-stage`: inputs take the location of the previous stage's output with
    /// the same semantic (name and index) instead of their register number.
    #[arg(long, requires = "previous_stage")]
    pub remap_by_semantic: bool,
    /// Declare the pixel-shader inputs at this location `Flat` (repeatable).
    #[arg(long, value_name = "LOCATION")]
    pub flat_location: Vec<u32>,
    /// Geometry shaders: the primitive the draw feeds, declared instead of
    /// `dcl_inputprimitive`.
    #[arg(long, value_enum, value_name = "PRIMITIVE")]
    pub gs_input_primitive: Option<PrimitiveArg>,
    /// Zero thread-group shared memory (`g#`) before the shader runs: `initializer` (Vulkan 1.3
    /// or `VK_KHR_zero_initialize_workgroup_memory`) or `stores` (any Vulkan).
    #[arg(long, value_enum, value_name = "HOW")]
    pub zero_workgroup_memory: Option<ZeroWorkgroupArg>,
    /// Compute shaders: a barrier after every `g#` write (`tgsm`), or after every `g#` and UAV
    /// write (`tgsm-and-uav`).
    #[arg(long, value_enum, value_name = "WHICH")]
    pub forced_barriers: Option<ForcedBarriersArg>,
    /// Decorate the `Position` output `Invariant`.
    #[arg(long)]
    pub invariant_position: bool,
}

/// `--gs-input-primitive` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PrimitiveArg {
    /// Points.
    Point,
    /// Lines.
    Line,
    /// Triangles.
    Triangle,
    /// Lines with adjacency.
    LineAdj,
    /// Triangles with adjacency.
    TriangleAdj,
}

/// `--zero-workgroup-memory` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ZeroWorkgroupArg {
    /// `OpConstantNull` initializers.
    Initializer,
    /// Stores at the start of the shader.
    Stores,
}

/// `--forced-barriers` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ForcedBarriersArg {
    /// After `g#` writes.
    Tgsm,
    /// After `g#` and UAV writes.
    TgsmAndUav,
}

impl LinkingArgs {
    /// The library's options; the previous stage's output semantics are `previous`.
    pub fn options(
        &self,
        previous: Option<Vec<dxbc2spv::Semantic>>,
    ) -> (dxbc2spv::StageLinking, dxbc2spv::Workarounds) {
        use dxbc2spv::ir::InputPrimitive as P;
        let linking = dxbc2spv::StageLinking {
            previous_outputs: previous,
            remap_by_semantic: self.remap_by_semantic,
            flat_locations: self
                .flat_location
                .iter()
                .fold(0, |m, &l| m | 1u32.checked_shl(l).unwrap_or(0)),
            input_types: Vec::new(),
            geometry_input: self.gs_input_primitive.map(|p| match p {
                PrimitiveArg::Point => P::Point,
                PrimitiveArg::Line => P::Line,
                PrimitiveArg::Triangle => P::Triangle,
                PrimitiveArg::LineAdj => P::LineAdj,
                PrimitiveArg::TriangleAdj => P::TriangleAdj,
            }),
        };
        let workarounds = dxbc2spv::Workarounds {
            workgroup_zero_init: match self.zero_workgroup_memory {
                None => dxbc2spv::WorkgroupZeroInit::Off,
                Some(ZeroWorkgroupArg::Initializer) => dxbc2spv::WorkgroupZeroInit::Initializer,
                Some(ZeroWorkgroupArg::Stores) => dxbc2spv::WorkgroupZeroInit::Stores,
            },
            forced_barriers: match self.forced_barriers {
                None => dxbc2spv::ForcedBarriers::Off,
                Some(ForcedBarriersArg::Tgsm) => dxbc2spv::ForcedBarriers::Tgsm,
                Some(ForcedBarriersArg::TgsmAndUav) => dxbc2spv::ForcedBarriers::TgsmAndUav,
            },
            invariant_position: self.invariant_position,
        };
        (linking, workarounds)
    }
}

/// `--hull-schedule` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HullScheduleArg {
    /// Invocation 0 runs every fork and join instance.
    Serial,
    /// Instance k runs on invocation k mod N.
    Parallel,
}

/// `--rov-interlock` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RovInterlockArg {
    /// No interlock: a shader with a rasterizer-ordered view fails.
    Off,
    /// `PixelInterlockOrderedEXT`.
    Pixel,
    /// `SampleInterlockOrderedEXT` in per-sample shaders, else `PixelInterlockOrderedEXT`.
    PixelAndSample,
}

impl RovInterlockArg {
    /// The library's option.
    pub fn option(self) -> dxbc2spv::RovInterlock {
        match self {
            RovInterlockArg::Off => dxbc2spv::RovInterlock::Off,
            RovInterlockArg::Pixel => dxbc2spv::RovInterlock::Pixel,
            RovInterlockArg::PixelAndSample => dxbc2spv::RovInterlock::PixelAndSample,
        }
    }
}

/// `--float-emulation` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FloatEmulationArg {
    /// D3D9's float rules exactly.
    Strict,
    /// The IEEE multiply, infinities from `rcp`/`rsq`/`exp` clamped.
    Fast,
}

impl FloatEmulationArg {
    /// The library's option.
    pub fn option(self) -> dxbc2spv::FloatEmulation {
        match self {
            FloatEmulationArg::Strict => dxbc2spv::FloatEmulation::Strict,
            FloatEmulationArg::Fast => dxbc2spv::FloatEmulation::Fast,
        }
    }
}

/// Options of `asm`.
#[derive(Debug, Args)]
pub struct AsmArgs {
    /// fxc-syntax listings; a directory is searched recursively for `*.asm` files.
    #[arg(value_name = "FILE", required = true)]
    pub paths: Vec<PathBuf>,
    /// The container to write (one input only).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        conflicts_with = "out_dir"
    )]
    pub output: Option<PathBuf>,
    /// Write `DIR/<name>.dxbc` per input (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Input files, shared by every subcommand that reads containers.
#[derive(Debug, Args)]
pub struct Inputs {
    /// DXBC containers; a directory is searched recursively for `*.dxbc` and `*.cso` files.
    #[arg(value_name = "FILE", required = true)]
    pub paths: Vec<PathBuf>,
}

/// Options of `disasm`.
#[derive(Debug, Args)]
pub struct DisasmArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Write `DIR/<name>.asm` per input (created if missing) instead of printing to stdout.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Do not verify the container checksum.
    #[arg(long)]
    pub no_checksum: bool,
    /// Print only the program, without fxc's comment header (signatures, bindings).
    #[arg(long)]
    pub no_header: bool,
    /// Print floats that fxc's `%f` would round as hex bits, so that `asm` gets the same bytes
    /// back.
    #[arg(long)]
    pub lossless: bool,
    /// The fxc release whose spellings to reproduce (`auto`: the one that compiled the blob,
    /// from its RDEF creator string).
    #[arg(long, value_enum, default_value_t = DialectArg::Auto)]
    pub dialect: DialectArg,
    /// Print a `4_0_level_9_x` container's level-9 part (its mapping tables and D3D9 program)
    /// as fxc prints it, instead of the SM4 program.
    #[arg(long)]
    pub level9: bool,
}

/// Options of `info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Print one JSON object per input and line (JSON Lines) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `reflect`.
#[derive(Debug, Args)]
pub struct ReflectArgs {
    #[command(flatten)]
    pub inputs: Inputs,
    /// Print one JSON object per input and line (JSON Lines) instead of text, with the Vulkan
    /// binding each resource gets under `--bindings`.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub binding: BindingArgs,
    /// Do not verify the container checksum.
    #[arg(long)]
    pub no_checksum: bool,
}

/// `--dialect` values, named after the fxc releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// The release named by the blob's RDEF creator string (fxc 10.1 when absent).
    #[value(name = "auto")]
    Auto,
    /// fxc 10.1 / D3DDisassemble of the Windows 10 SDK.
    #[value(name = "fxc10.1")]
    Fxc10_1,
    /// fxc 10.0.10011 (early Windows 10 SDK).
    #[value(name = "fxc10.0")]
    Fxc10_0,
    /// d3dcompiler_47 before the Universal CRT (Windows 8.1 SDK era).
    #[value(name = "d3dcompiler47")]
    D3dCompiler47,
    /// fxc 9.30 and 6.3 (Windows 8 / 8.1 SDK).
    #[value(name = "fxc9.30")]
    Fxc9_30,
    /// fxc 9.29 (DirectX SDK June 2010).
    #[value(name = "fxc9.29")]
    Fxc9_29,
}

impl From<DialectArg> for Option<Dialect> {
    fn from(arg: DialectArg) -> Self {
        Some(match arg {
            DialectArg::Auto => return None,
            DialectArg::Fxc10_1 => Dialect::Fxc10_1,
            DialectArg::Fxc10_0 => Dialect::Fxc10_0,
            DialectArg::D3dCompiler47 => Dialect::D3dCompiler47,
            DialectArg::Fxc9_30 => Dialect::Fxc9_30,
            DialectArg::Fxc9_29 => Dialect::Fxc9_29,
        })
    }
}
