//! Random programs from the opcode table, for the assembler's property tests and the
//! `translate_generated` fuzz target.
//!
//! Contract: [`generate`] and [`generate_program`] build one encodable program of a given
//! version from a seeded [`Rng`]: every opcode the stage and model allow ([`Opcode::ALL`],
//! [`Opcode::slots`], [`Opcode::class`], refined into operand kinds by `kinds`), operands of the
//! right kinds (`operands`, `values`), balanced structured control flow and subroutines
//! (`instructions`), declarations of resources, stage inputs and outputs and hull-shader phases
//! (`decls`, `stages`, `hull`), recorded in a registry (`registry`). The same seed gives the
//! same program. Three [`Profile`]s:
//!
//! - [`Profile::Encodable`] (the assembler's property tests): valid token streams that need not
//!   be valid shaders: operands name any register, declared or not, and declarations carry any
//!   value the encoding holds (interfaces, NaN tess factors, empty immediate constant buffers).
//! - [`Profile::Translatable`] (the fuzz target): programs that also follow the shader model's
//!   semantic rules the translator checks. Operands name only declared registers, inside
//!   constant buffers and ranges, and the current phase's inputs, outputs and system registers;
//!   instructions use only resources of a compatible kind (`targets`) and are drawn only when
//!   the program declared what they need; declarations are unique and within D3D's limits;
//!   stage-specific instructions and registers appear only in their stages; no class linkage,
//!   `abort` or `debug_break`, no recursion. What the translator still refuses in such a
//!   program is a limitation of the translator or a bug.
//! - [`Profile::Defined`] (differential runs): compute programs whose result D3D defines —
//!   registers written before read, bounded loops, no races, no NaN payload or ULP-tolerant
//!   instruction reaching memory, every computed register stored ([`defined`]).
//!
//! [`generate_container`] wraps a program of a random version (translatable nine times out of
//! ten) in a container whose signatures and `RDEF` are derived from its declarations.

mod decls;
pub mod defined;
mod hull;
mod instructions;
mod kinds;
mod operands;
mod registry;
mod stages;
mod targets;
mod values;

use self::registry::{IndexableTemp, Io, Registry};
use super::Rng;
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::program::{ShaderVersion, Stage};
use crate::text::dxbc::encode::ProgramBuilder;

/// What the generated programs satisfy besides being encodable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Any program the encoder can write, declared or not (assembler round trips).
    Encodable,
    /// Programs that follow the shader model's rules the translator checks (translation).
    Translatable,
    /// Compute programs whose result D3D defines, every computed register stored to a UAV
    /// (differential runs against a reference interpreter; always `cs_5_0`, see [`defined`]).
    Defined,
}

/// Hull-shader phases (`Main` for every other stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Main,
    ControlPoint,
    Fork,
    Join,
}

/// Registers every generated program declares, so that instructions can use them.
const TEMPS: u32 = 16;
/// Inputs and outputs the encodable profile names.
const INPUTS: u32 = 8;

/// Generates one random program.
struct Gen<'a> {
    rng: &'a mut Rng,
    v: ShaderVersion,
    profile: Profile,
    /// Any 32-bit pattern as immediates (else only values every dialect prints exactly).
    lossless: bool,
    phase: Phase,
    /// Declared indexable temps of the current phase.
    xs: Vec<IndexableTemp>,
    /// Subroutines `l0`… after the main body.
    subroutines: u32,
    /// The subroutine being generated (`None`: the main body or a phase).
    current_label: Option<u32>,
    /// Declared interfaces: (fp id, array size, table length).
    interfaces: Vec<(u32, u32, u32)>,
    /// The resources declared.
    declared: Registry,
    /// The inputs, outputs and system registers of the current phase.
    io: Io,
    /// Double-precision instructions may appear (the global flags enable them).
    doubles: bool,
    /// Operands may carry a minimum precision (the global flags enable it).
    min_precision: bool,
    /// Opcode hits, indexed by number.
    coverage: &'a mut [u32],
}

impl Gen<'_> {
    fn sm51(&self) -> bool {
        self.v.is_sm51()
    }

    fn op(&mut self, b: &mut ProgramBuilder, op: Opcode, controls: u32) {
        self.coverage[op as usize] += 1;
        b.op(op, controls);
    }
}

/// One random program of `v` in the encodable profile ([`generate_program`]).
pub fn generate(
    rng: &mut Rng,
    v: ShaderVersion,
    lossless: bool,
    budget: u32,
    coverage: &mut [u32],
) -> Vec<u32> {
    generate_program(rng, v, Profile::Encodable, lossless, budget, coverage)
}

/// One random program of `v` in `profile`, about `budget` instructions long: the program
/// chunk's dwords (version and length tokens first); [`Profile::Defined`] ignores `v` and
/// `lossless` and writes `cs_5_0`. `lossless`: immediates take any 32-bit
/// pattern (else only values every disassembler dialect prints exactly). `coverage[opcode]`
/// counts the opcodes written, indexed by opcode number (give it 256 entries).
pub fn generate_program(
    rng: &mut Rng,
    v: ShaderVersion,
    profile: Profile,
    lossless: bool,
    budget: u32,
    coverage: &mut [u32],
) -> Vec<u32> {
    if profile == Profile::Defined {
        return defined::program(rng, budget, coverage);
    }
    let translatable = profile == Profile::Translatable;
    let doubles = !translatable || (v.major >= 5 && rng.chance(50));
    let min_precision = !translatable || rng.chance(20);
    let mut g = Gen {
        rng,
        v,
        profile,
        lossless,
        phase: Phase::Main,
        xs: Vec::new(),
        subroutines: 0,
        current_label: None,
        interfaces: Vec::new(),
        declared: Registry::default(),
        io: Io::default(),
        doubles,
        min_precision,
        coverage,
    };
    let mut b = ProgramBuilder::new(v);
    if v.stage == Stage::Hull {
        g.hull(&mut b, budget);
    } else {
        g.resource_decls(&mut b);
        g.stage_decls(&mut b);
        g.temp_decls(&mut b);
        g.subroutines = if g.rng.chance(30) {
            g.rng.range(1, 3)
        } else {
            0
        };
        g.body(&mut b, budget);
        g.subroutines(&mut b, budget / 8);
    }
    b.finish()
        .unwrap_or_else(|e| panic!("{v}: the generator built an unencodable program: {e}"))
}

/// Every stage at every model it exists in (hull and domain shaders from 5.0), stage by stage.
pub fn versions() -> Vec<ShaderVersion> {
    let stages = [
        Stage::Vertex,
        Stage::Pixel,
        Stage::Geometry,
        Stage::Hull,
        Stage::Domain,
        Stage::Compute,
    ];
    let mut out = Vec::new();
    for stage in stages {
        for (major, minor) in [(4, 0), (4, 1), (5, 0), (5, 1)] {
            if major == 4 && matches!(stage, Stage::Hull | Stage::Domain) {
                continue;
            }
            out.push(ShaderVersion {
                stage,
                major,
                minor,
            });
        }
    }
    out
}

/// A container around one random program: the version picked by `rng` among every stage and
/// model (hull and domain shaders from 5.0), the profile translatable nine times out of ten,
/// about `budget` instructions, signatures and `RDEF` derived from the declarations
/// ([`crate::text::dxbc::asm::container_of_program`]). `None` only when the container cannot be
/// written (a generator bug the caller reports).
pub fn generate_container(rng: &mut Rng, budget: u32) -> Option<Vec<u8>> {
    let versions = versions();
    let v = rng.pick(&versions);
    let mut coverage = [0u32; 256];
    let lossless = rng.percent(50);
    let profile = if rng.percent(90) {
        Profile::Translatable
    } else {
        Profile::Encodable
    };
    let words = generate_program(rng, v, profile, lossless, budget, &mut coverage);
    crate::text::dxbc::asm::container_of_program(&words).ok()
}
