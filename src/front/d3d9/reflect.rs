//! Reflection of a decoded Direct3D 9 program: what it declares and uses, for `dxbc2spv info`
//! and `reflect` and for runtimes that must supply the state a D3D9 shader depends on.
//!
//! Contract: [`Reflection::of`] reads a [`Program`] only (no validation, no IR): the version,
//! the `def`/`defi`/`defb` constants, the samplers (declared by `dcl` with their texture type, or
//! used without one: ps_1_x texture instructions sample the stage of their destination, SM2+
//! samplers read undeclared have no type), the `dcl` inputs and outputs with usage, index and
//! mask, the registers read and written per register file, and whether relative addressing,
//! predicates, `texkill` and `dsx`/`dsy` appear. The constant table a compiler leaves in a `CTAB`
//! comment is located here ([`Reflection::constant_table`]); naming its constants is the CTAB
//! parser's job.

use super::opcodes::{Class, Opcode};
use super::program::{
    Dst, Instruction, Payload, Program, RegisterType, Src, Stage, Version, USAGE_NAMES,
};

/// What a D3D9 program declares and uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Reflection {
    /// The version token's meaning.
    pub version: Version,
    /// Number of instructions (comments and the end token excluded).
    pub instructions: usize,
    /// `def c#` constants, in stream order.
    pub float_constants: Vec<FloatConstant>,
    /// `defi i#` constants, in stream order.
    pub int_constants: Vec<IntConstant>,
    /// `defb b#` constants, in stream order.
    pub bool_constants: Vec<BoolConstant>,
    /// Samplers, by register number.
    pub samplers: Vec<Sampler>,
    /// Inputs declared by `dcl` (`v#`, ps_2_x `t#`, `vPos`, `vFace`), in stream order.
    pub inputs: Vec<IoDeclaration>,
    /// Outputs declared by `dcl` (vs_3_0 `o#`), in stream order.
    pub outputs: Vec<IoDeclaration>,
    /// Registers read and written, per register file (ordered by register type number).
    pub registers: Vec<RegisterUse>,
    /// Whether any parameter is relatively addressed (`c#[a0.x]`, `v#[aL]`).
    pub relative_addressing: bool,
    /// Whether predicates appear (`setp`, predicated instructions, `p0` operands).
    pub predicates: bool,
    /// Whether `texkill` appears.
    pub texkill: bool,
    /// Whether `dsx` or `dsy` appears.
    pub derivatives: bool,
    /// The `CTAB` comment block, where the compiler left one. Its constants (names, register
    /// sets, types) are parsed by the CTAB parser; until a reflection field carries them, this
    /// says where the block is.
    pub constant_table: Option<ConstantTableBlock>,
    /// The FOURCC of every comment block, in stream order (`CTAB`, `DBUG`, `FXLC`…; `None` for a
    /// block too short to have one).
    pub comments: Vec<Option<[u8; 4]>>,
}

/// Where a `CTAB` comment block lies in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstantTableBlock {
    /// Byte offset of the comment token.
    pub offset: u32,
    /// Size of the comment's data (the `CTAB` FOURCC included), in bytes.
    pub size: u32,
}

/// A `def c#, x, y, z, w` constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatConstant {
    /// The register number.
    pub register: u32,
    /// The four values, as the stream holds their bits.
    pub bits: [u32; 4],
}

impl FloatConstant {
    /// The four values.
    pub fn values(&self) -> [f32; 4] {
        self.bits.map(f32::from_bits)
    }
}

/// A `defi i#, x, y, z, w` constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntConstant {
    /// The register number.
    pub register: u32,
    /// The four values.
    pub values: [i32; 4],
}

/// A `defb b#, value` constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoolConstant {
    /// The register number.
    pub register: u32,
    /// The value (any non-zero dword is true).
    pub value: bool,
}

/// A sampler's texture type, from its `dcl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureType {
    /// `dcl_2d`.
    Tex2d,
    /// `dcl_cube`.
    Cube,
    /// `dcl_volume`.
    Volume,
}

impl TextureType {
    /// fxc's suffix: `2d`, `cube`, `volume`.
    pub const fn name(self) -> &'static str {
        match self {
            TextureType::Tex2d => "2d",
            TextureType::Cube => "cube",
            TextureType::Volume => "volume",
        }
    }

    fn from_raw(raw: u32) -> Option<TextureType> {
        match raw {
            2 => Some(TextureType::Tex2d),
            3 => Some(TextureType::Cube),
            4 => Some(TextureType::Volume),
            _ => None,
        }
    }
}

/// A sampler the program declares or samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    /// The sampler (texture stage) number.
    pub register: u32,
    /// The texture type its `dcl` gives; `None` when it has no `dcl` (ps_1_x, or an undeclared
    /// SM2+ sampler): the runtime must supply it.
    pub texture_type: Option<TextureType>,
    /// Whether an instruction samples it.
    pub used: bool,
}

/// An input or output declared by `dcl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDeclaration {
    /// The register file.
    pub register: RegisterType,
    /// The register number.
    pub num: u32,
    /// The write mask of the `dcl` (bit 0 = x).
    pub mask: u8,
    /// The usage name (`position`, `texcoord`…): the `dcl`'s in vertex shaders and ps_3_0; before
    /// ps_3_0 the register implies it (`v#` color, `t#` texcoord); `None` for `vPos`/`vFace`.
    pub usage: Option<&'static str>,
    /// The usage index (before ps_3_0: the register number).
    pub usage_index: u32,
    /// `_centroid`.
    pub centroid: bool,
    /// `_pp`.
    pub partial_precision: bool,
}

/// The registers of one file that instructions read and write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterUse {
    /// The register file.
    pub file: RegisterType,
    /// Register numbers read, ascending (a relatively addressed operand counts its base).
    pub read: Vec<u32>,
    /// Register numbers written, ascending.
    pub written: Vec<u32>,
    /// Whether an operand of this file is relatively addressed.
    pub relative: bool,
}

impl Reflection {
    /// Reflects `program`.
    pub fn of(program: &Program<'_>) -> Reflection {
        let version = program.version;
        let mut r = Reflection {
            version,
            instructions: program.instructions.len(),
            float_constants: Vec::new(),
            int_constants: Vec::new(),
            bool_constants: Vec::new(),
            samplers: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            registers: Vec::new(),
            relative_addressing: false,
            predicates: false,
            texkill: false,
            derivatives: false,
            constant_table: program.comment(b"CTAB").map(|c| ConstantTableBlock {
                offset: c.offset,
                size: u32::try_from(c.data.len()).unwrap_or(u32::MAX),
            }),
            comments: program.comments.iter().map(|c| c.fourcc()).collect(),
        };
        for inst in &program.instructions {
            r.instruction(version, inst);
        }
        r.samplers.sort_by_key(|s| s.register);
        r.registers.sort_by_key(|u| u.file.raw());
        for used in &mut r.registers {
            used.read.sort_unstable();
            used.read.dedup();
            used.written.sort_unstable();
            used.written.dedup();
        }
        r
    }

    fn instruction(&mut self, version: Version, inst: &Instruction) {
        match inst.opcode {
            Opcode::Texkill => self.texkill = true,
            Opcode::Dsx | Opcode::Dsy => self.derivatives = true,
            Opcode::Setp | Opcode::Breakp => self.predicates = true,
            _ => {}
        }
        self.predicates |= inst.predicated;
        match (inst.opcode, inst.payload, inst.dst) {
            (Opcode::Def, Payload::Float4(bits), Some(dst)) => {
                self.float_constants.push(FloatConstant {
                    register: dst.num,
                    bits,
                });
                return;
            }
            (Opcode::Defi, Payload::Int4(values), Some(dst)) => {
                self.int_constants.push(IntConstant {
                    register: dst.num,
                    values,
                });
                return;
            }
            (Opcode::Defb, Payload::Bool(value), Some(dst)) => {
                self.bool_constants.push(BoolConstant {
                    register: dst.num,
                    value: value != 0,
                });
                return;
            }
            (Opcode::Dcl, Payload::Dcl(token), Some(dst)) => {
                self.declaration(version, token, &dst);
                return;
            }
            _ => {}
        }
        if let Some(dst) = inst.dst {
            self.write(&dst);
            // ps_1_x texture instructions sample the stage their destination names.
            if version.is_pixel() && version.major == 1 && samples_destination_stage(inst) {
                self.sampler(dst.num).used = true;
            }
        }
        for src in inst.sources().iter().chain(inst.predicate.as_ref()) {
            self.read(src);
            if src.reg == RegisterType::Sampler {
                self.sampler(src.num).used = true;
            }
        }
    }

    fn declaration(&mut self, version: Version, token: super::program::DclToken, dst: &Dst) {
        if dst.reg == RegisterType::Sampler {
            self.sampler(dst.num).texture_type = TextureType::from_raw(token.texture_type());
            return;
        }
        let (usage, usage_index) = match dst.reg {
            RegisterType::Misc => (None, 0),
            RegisterType::Input if version.is_pixel() && version.major < 3 => {
                (Some("color"), dst.num)
            }
            RegisterType::Texture => (Some("texcoord"), dst.num),
            _ => (
                usize::try_from(token.usage())
                    .ok()
                    .and_then(|u| USAGE_NAMES.get(u).copied()),
                token.usage_index(),
            ),
        };
        let io = IoDeclaration {
            register: dst.reg,
            num: dst.num,
            mask: dst.mask,
            usage,
            usage_index,
            centroid: dst.centroid,
            partial_precision: dst.partial_precision,
        };
        match dst.reg {
            RegisterType::Output
            | RegisterType::RastOut
            | RegisterType::AttrOut
            | RegisterType::TexCrdOut
            | RegisterType::ColorOut
            | RegisterType::DepthOut => self.outputs.push(io),
            _ => self.inputs.push(io),
        }
    }

    fn sampler(&mut self, register: u32) -> &mut Sampler {
        let at = match self.samplers.iter().position(|s| s.register == register) {
            Some(at) => at,
            None => {
                self.samplers.push(Sampler {
                    register,
                    texture_type: None,
                    used: false,
                });
                self.samplers.len() - 1
            }
        };
        &mut self.samplers[at]
    }

    fn file(&mut self, file: RegisterType) -> &mut RegisterUse {
        let at = match self.registers.iter().position(|u| u.file == file) {
            Some(at) => at,
            None => {
                self.registers.push(RegisterUse {
                    file,
                    read: Vec::new(),
                    written: Vec::new(),
                    relative: false,
                });
                self.registers.len() - 1
            }
        };
        &mut self.registers[at]
    }

    fn write(&mut self, dst: &Dst) {
        if let Some(rel) = dst.relative {
            self.relative_addressing = true;
            self.file(rel.reg).read.push(rel.num);
        }
        self.predicates |= dst.reg == RegisterType::Predicate;
        let used = self.file(dst.reg);
        used.written.push(dst.num);
        used.relative |= dst.relative.is_some();
    }

    fn read(&mut self, src: &Src) {
        if src.reg == RegisterType::Label {
            return;
        }
        if let Some(rel) = src.relative {
            self.relative_addressing = true;
            self.file(rel.reg).read.push(rel.num);
        }
        self.predicates |= src.reg == RegisterType::Predicate;
        let used = self.file(src.reg);
        used.read.push(src.num);
        used.relative |= src.relative.is_some();
    }
}

/// Whether a ps_1_x instruction samples the texture stage of its destination register.
fn samples_destination_stage(inst: &Instruction) -> bool {
    inst.opcode.class() == Class::Texture
        && !matches!(
            inst.opcode,
            Opcode::Texcoord
                | Opcode::Texm3x2pad
                | Opcode::Texm3x3pad
                | Opcode::Texm3x3
                | Opcode::Texdp3
                | Opcode::Texdepth
                | Opcode::Texm3x2depth
                | Opcode::Bem
        )
}

/// fxc's name of a register: `r3`, `c2050` (high banks), `oPos`, `vFace`, `a0`, `aL`, `p0`.
pub fn register_name(file: RegisterType, num: u32) -> String {
    let fixed = match (file, num) {
        (RegisterType::RastOut, 0) => "oPos",
        (RegisterType::RastOut, 1) => "oFog",
        (RegisterType::RastOut, 2) => "oPts",
        (RegisterType::Misc, 0) => "vPos",
        (RegisterType::Misc, 1) => "vFace",
        (RegisterType::DepthOut, 0) => "oDepth",
        (RegisterType::Loop, 0) => "aL",
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.to_string();
    }
    let (prefix, base) = match file {
        RegisterType::Temp => ("r", 0),
        RegisterType::Input => ("v", 0),
        RegisterType::Const => ("c", 0),
        RegisterType::Const2 => ("c", 2048),
        RegisterType::Const3 => ("c", 4096),
        RegisterType::Const4 => ("c", 6144),
        RegisterType::Address => ("a", 0),
        RegisterType::Texture => ("t", 0),
        RegisterType::RastOut => ("oRast", 0),
        RegisterType::AttrOut => ("oD", 0),
        RegisterType::TexCrdOut => ("oT", 0),
        RegisterType::Output => ("o", 0),
        RegisterType::ConstInt => ("i", 0),
        RegisterType::ColorOut => ("oC", 0),
        RegisterType::DepthOut => ("oDepth", 0),
        RegisterType::Sampler => ("s", 0),
        RegisterType::ConstBool => ("b", 0),
        RegisterType::Loop => ("aL", 0),
        RegisterType::TempFloat16 => ("half", 0),
        RegisterType::Misc => ("misc", 0),
        RegisterType::Label => ("l", 0),
        RegisterType::Predicate => ("p", 0),
    };
    format!("{prefix}{}", base + num)
}

/// The stage's short name: `vs` or `ps`.
pub const fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vs",
        Stage::Pixel => "ps",
    }
}

#[cfg(test)]
#[path = "reflect_tests.rs"]
mod tests;
