//! Disassembler: a program in fxc's listing syntax, derived from the opcode table.
//!
//! The instruction section matches what Microsoft's fxc/D3DDisassemble prints for the same
//! bytes (checked against the real-shader corpus); [`Dialect`] selects between the spellings of
//! older and newer fxc releases where they differ.

pub mod header;
mod instruction;
pub mod level9;
mod operand;

use std::fmt::Write;

use crate::front::dxbc::container::{Container, ParseOptions};
use crate::front::dxbc::error::Result;
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::program::{Program, ShaderVersion};
/// The program of a container's SHDR/SHEX chunk: the front end's
/// ([`crate::front::dxbc::shader_program`]), which the listing shows.
pub use crate::front::dxbc::shader_program;

/// Which fxc release's spellings to reproduce where releases differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// fxc 10.1 / D3DDisassemble of the Windows 10 SDK.
    #[default]
    Fxc10_1,
    /// fxc 10.0.10011 (early Windows 10 SDK).
    Fxc10_0,
    /// D3DDisassemble of d3dcompiler_47 before the Universal CRT (Windows 8.1 SDK era).
    D3dCompiler47,
    /// fxc 9.30 and 6.3 (Windows 8 / 8.1 SDK).
    Fxc9_30,
    /// fxc 9.29 (DirectX SDK June 2010).
    Fxc9_29,
}

impl Dialect {
    /// The dialect of the fxc release named by an `RDEF` creator string
    /// (`Microsoft (R) HLSL Shader Compiler 9.29.952.3111`); the newest when unknown or absent.
    pub fn from_creator(creator: Option<&str>) -> Dialect {
        let version = creator.and_then(|c| c.strip_prefix("Microsoft (R) HLSL Shader Compiler "));
        let mut parts = version
            .unwrap_or("")
            .split('.')
            .map(|p| p.trim().parse::<u32>().ok());
        match (parts.next().flatten(), parts.next().flatten()) {
            (Some(10), Some(0)) => Dialect::Fxc10_0,
            (Some(9), Some(minor)) if minor < 30 => Dialect::Fxc9_29,
            (Some(major), Some(_)) if major < 10 => Dialect::Fxc9_30,
            _ => Dialect::Fxc10_1,
        }
    }

    /// Every dialect, newest first.
    pub const ALL: [Dialect; 5] = [
        Dialect::Fxc10_1,
        Dialect::Fxc10_0,
        Dialect::D3dCompiler47,
        Dialect::Fxc9_30,
        Dialect::Fxc9_29,
    ];

    /// `dcl_constantbuffer CB0[4]` (upper case) rather than `cb0[4]` in SM4.0–5.0.
    pub(crate) fn upper_case_cb_declaration(self) -> bool {
        matches!(
            self,
            Dialect::Fxc10_1 | Dialect::Fxc10_0 | Dialect::D3dCompiler47
        )
    }

    /// `sample_aoffimmi(...)` rather than `sample(...)` for immediate texel offsets.
    pub(crate) fn aoffimmi_suffix(self) -> bool {
        self != Dialect::Fxc9_29
    }

    /// Interpolation mode printed on `dcl_input_ps_sgv`.
    pub(crate) fn sgv_interpolation(self) -> bool {
        matches!(
            self,
            Dialect::Fxc10_1 | Dialect::Fxc10_0 | Dialect::D3dCompiler47
        )
    }

    /// Floats printed by the Universal CRT (exact digits, ties to even) rather than the older
    /// MSVC runtime (17 significant digits, ties away from zero).
    pub(crate) fn ucrt_floats(self) -> bool {
        matches!(self, Dialect::Fxc10_1 | Dialect::Fxc10_0)
    }
}

/// How to spell a listing: the fxc release to imitate, and whether every value must read back
/// exactly (lossless: floats that `%f` would round are printed as hex bits instead).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flavor {
    /// The fxc release whose spellings to reproduce.
    pub dialect: Dialect,
    /// Print every value so that the assembler gets the same bits back.
    pub lossless: bool,
}

impl From<Dialect> for Flavor {
    fn from(dialect: Dialect) -> Self {
        Flavor {
            dialect,
            lossless: false,
        }
    }
}

impl Flavor {
    pub(crate) fn upper_case_cb_declaration(self) -> bool {
        self.dialect.upper_case_cb_declaration()
    }
    pub(crate) fn aoffimmi_suffix(self) -> bool {
        self.dialect.aoffimmi_suffix()
    }
    pub(crate) fn sgv_interpolation(self) -> bool {
        self.dialect.sgv_interpolation()
    }
    pub(crate) fn ucrt_floats(self) -> bool {
        self.dialect.ucrt_floats()
    }
}

/// Disassembly options.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Which fxc release to imitate; `None` picks the release that compiled the blob, from the
    /// `RDEF` creator string.
    pub dialect: Option<Dialect>,
    /// Verify the container checksum before disassembling.
    pub verify_checksum: bool,
    /// Print fxc's comment header (buffer definitions, resource bindings, signatures).
    pub header: bool,
    /// Print floats that `%f` would round as hex bits, so that reassembly is exact.
    pub lossless: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            dialect: None,
            verify_checksum: true,
            header: true,
            lossless: false,
        }
    }
}

/// Disassembles a whole DXBC container into an fxc-style listing.
pub fn disassemble(bytes: &[u8], options: &Options) -> Result<String> {
    let container = Container::parse(
        bytes,
        &ParseOptions {
            verify_checksum: options.verify_checksum,
        },
    )?;
    let program = shader_program(&container)?;
    let creator = match container.resource_definitions() {
        Some(Ok(rdef)) => Some(rdef.creator),
        _ => None,
    };
    let dialect = options
        .dialect
        .unwrap_or_else(|| Dialect::from_creator(creator));
    let mut out = String::new();
    if options.header {
        let mut header = header::Header::new(&container)?;
        if options.dialect.is_some() {
            header.style = dialect.into();
        }
        // Writing to a String cannot fail.
        let _ = write!(out, "{header}");
    }
    let flavor = Flavor {
        dialect,
        lossless: options.lossless,
    };
    write_program(&mut out, &program, flavor)?;
    Ok(out)
}

/// Writes one instruction in fxc syntax.
pub fn write_instruction(
    out: &mut String,
    inst: &Instruction<'_>,
    version: ShaderVersion,
    flavor: impl Into<Flavor>,
) {
    instruction::write_instruction(out, inst, version, flavor.into());
}

/// Writes the instruction section of a program: the version line, then one line per instruction.
pub fn write_program(
    out: &mut String,
    program: &Program<'_>,
    flavor: impl Into<Flavor>,
) -> Result<()> {
    let flavor = flavor.into();
    out.push_str(&program.version.to_string());
    out.push('\n');
    for inst in program.instructions() {
        let inst = inst?;
        write_instruction(out, &inst, program.version, flavor);
        out.push('\n');
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod corpus_tests;
