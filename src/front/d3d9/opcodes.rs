//! THE Direct3D 9 opcode table: the single definition of every instruction of vs/ps 1.0–3.0.
//!
//! Each row gives the opcode number (`D3DSHADER_INSTRUCTION_OPCODE_TYPE`), the enum variant,
//! fxc's base mnemonic, the instruction family, and its forms: for which stages and version
//! ranges the instruction exists, and the operand layout that follows the instruction token in
//! each. Rows are keyed by number, never by position. The decoder (SM1.x streams carry no length
//! field, so the layout gives the operand count), the disassembler, the assembler and the
//! lowering all derive from this table; adding an instruction is one row here.
//!
//! Versions are keys `major << 8 | minor` ([`crate::front::d3d9::program::Version::key`]):
//! `0x0101` is 1.1, `0x0201` is 2.x, `0x02ff`/`0x03ff` the software-vertex-processing profiles.

/// One slot of an instruction's operand layout, in token order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A destination parameter (with its relative-address token where the version has one).
    Dst,
    /// A source parameter (with its relative-address token where the version has one).
    Src,
    /// The `dcl` token (usage and usage index, or a sampler's texture type).
    Dcl,
    /// Four 32-bit float literals (`def`).
    Float4,
    /// Four 32-bit signed integer literals (`defi`).
    Int4,
    /// One boolean literal dword (`defb`).
    Bool,
}

/// Which shader stages a form applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stages {
    /// Vertex shaders only.
    Vs,
    /// Pixel shaders only.
    Ps,
    /// Both stages.
    Both,
}

impl Stages {
    /// Whether the form applies to a vertex (`pixel == false`) or pixel shader.
    #[inline]
    pub const fn includes(self, pixel: bool) -> bool {
        match self {
            Stages::Vs => !pixel,
            Stages::Ps => pixel,
            Stages::Both => true,
        }
    }
}

/// One form of an instruction: where it exists and its operand layout there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// The stages of the form.
    pub stages: Stages,
    /// Lowest version key (inclusive).
    pub min: u16,
    /// Highest version key (inclusive).
    pub max: u16,
    /// Operand layout after the instruction token.
    pub slots: &'static [Slot],
}

impl Form {
    /// Whether the form applies to this stage and version key.
    #[inline]
    pub const fn applies(&self, pixel: bool, version: u16) -> bool {
        self.stages.includes(pixel) && version >= self.min && version <= self.max
    }
}

/// Broad instruction families, used by the lowering and the disassembler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Arithmetic, comparisons, macros (`m4x4`), moves.
    Alu,
    /// Structured control flow, subroutines and predicates (`setp`).
    ControlFlow,
    /// Declarations and constant definitions (`dcl`, `def*`).
    Declaration,
    /// Texture sampling and the ps_1_x texture-address instructions.
    Texture,
    /// Pixel-only operations that are not texture reads (`texkill`, `dsx`, `dsy`, `phase`).
    Pixel,
    /// `nop`.
    Nop,
}

/// Highest version key of any profile (`3_sw`).
pub const MAX_VERSION: u16 = 0x03ff;

// Version range shorthands for the table.
const V10: u16 = 0x0100;
const V12: u16 = 0x0102;
const V13: u16 = 0x0103;
const V14: u16 = 0x0104;
const V20: u16 = 0x0200;
const V21: u16 = 0x0201;
const V2SW: u16 = 0x02ff;
const V30: u16 = 0x0300;
const VMAX: u16 = MAX_VERSION;

macro_rules! define_opcodes {
    ($( $num:literal $variant:ident $name:literal $class:ident
        [ $( ($st:ident, $lo:ident, $hi:ident, [$($slot:ident),*]) ),+ ]; )*) => {
        /// Every Direct3D 9 instruction opcode, numbered as in the token stream.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant = $num,
            )*
        }

        impl Opcode {
            /// Every opcode, in numeric order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The opcode with this number, if it is defined.
            pub fn from_u16(value: u16) -> Option<Opcode> {
                match value {
                    $($num => Some(Opcode::$variant),)*
                    _ => None,
                }
            }

            /// fxc's base mnemonic (version- and control-dependent spellings such as `tex`,
            /// `texldp` or `if_gt` come from [`Opcode::spelling`]).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $name,)*
                }
            }

            /// The instruction family.
            #[inline]
            pub const fn class(self) -> Class {
                match self {
                    $(Opcode::$variant => Class::$class,)*
                }
            }

            /// Every form of the instruction (where it exists, and its operand layout there).
            #[inline]
            pub const fn forms(self) -> &'static [Form] {
                match self {
                    $(Opcode::$variant => &[$(Form {
                        stages: Stages::$st,
                        min: $lo,
                        max: $hi,
                        slots: &[$(Slot::$slot),*],
                    }),+],)*
                }
            }
        }
    };
}

define_opcodes! {
    0x00 Nop "nop" Nop [(Both, V10, VMAX, [])];
    0x01 Mov "mov" Alu [(Both, V10, VMAX, [Dst, Src])];
    0x02 Add "add" Alu [(Both, V10, VMAX, [Dst, Src, Src])];
    0x03 Sub "sub" Alu [(Both, V10, VMAX, [Dst, Src, Src])];
    0x04 Mad "mad" Alu [(Both, V10, VMAX, [Dst, Src, Src, Src])];
    0x05 Mul "mul" Alu [(Both, V10, VMAX, [Dst, Src, Src])];
    0x06 Rcp "rcp" Alu [(Vs, V10, VMAX, [Dst, Src]), (Ps, V20, VMAX, [Dst, Src])];
    0x07 Rsq "rsq" Alu [(Vs, V10, VMAX, [Dst, Src]), (Ps, V20, VMAX, [Dst, Src])];
    0x08 Dp3 "dp3" Alu [(Both, V10, VMAX, [Dst, Src, Src])];
    0x09 Dp4 "dp4" Alu [(Vs, V10, VMAX, [Dst, Src, Src]), (Ps, V12, VMAX, [Dst, Src, Src])];
    0x0a Min "min" Alu [(Vs, V10, VMAX, [Dst, Src, Src]), (Ps, V20, VMAX, [Dst, Src, Src])];
    0x0b Max "max" Alu [(Vs, V10, VMAX, [Dst, Src, Src]), (Ps, V20, VMAX, [Dst, Src, Src])];
    0x0c Slt "slt" Alu [(Vs, V10, VMAX, [Dst, Src, Src])];
    0x0d Sge "sge" Alu [(Vs, V10, VMAX, [Dst, Src, Src])];
    0x0e Exp "exp" Alu [(Vs, V10, VMAX, [Dst, Src]), (Ps, V20, VMAX, [Dst, Src])];
    0x0f Log "log" Alu [(Vs, V10, VMAX, [Dst, Src]), (Ps, V20, VMAX, [Dst, Src])];
    0x10 Lit "lit" Alu [(Vs, V10, VMAX, [Dst, Src])];
    0x11 Dst "dst" Alu [(Vs, V10, VMAX, [Dst, Src, Src])];
    0x12 Lrp "lrp" Alu [(Vs, V20, VMAX, [Dst, Src, Src, Src]), (Ps, V10, VMAX, [Dst, Src, Src, Src])];
    0x13 Frc "frc" Alu [(Vs, V10, VMAX, [Dst, Src]), (Ps, V20, VMAX, [Dst, Src])];
    0x14 M4x4 "m4x4" Alu [(Vs, V10, VMAX, [Dst, Src, Src]), (Ps, V20, VMAX, [Dst, Src, Src])];
    0x15 M4x3 "m4x3" Alu [(Vs, V10, VMAX, [Dst, Src, Src]), (Ps, V20, VMAX, [Dst, Src, Src])];
    0x16 M3x4 "m3x4" Alu [(Vs, V10, VMAX, [Dst, Src, Src]), (Ps, V20, VMAX, [Dst, Src, Src])];
    0x17 M3x3 "m3x3" Alu [(Vs, V10, VMAX, [Dst, Src, Src]), (Ps, V20, VMAX, [Dst, Src, Src])];
    0x18 M3x2 "m3x2" Alu [(Vs, V10, VMAX, [Dst, Src, Src]), (Ps, V20, VMAX, [Dst, Src, Src])];
    0x19 Call "call" ControlFlow [(Vs, V20, VMAX, [Src]), (Ps, V21, VMAX, [Src])];
    0x1a Callnz "callnz" ControlFlow [(Vs, V20, VMAX, [Src, Src]), (Ps, V21, VMAX, [Src, Src])];
    0x1b Loop "loop" ControlFlow [(Vs, V20, VMAX, [Src, Src]), (Ps, V30, VMAX, [Src, Src])];
    0x1c Ret "ret" ControlFlow [(Vs, V20, VMAX, []), (Ps, V21, VMAX, [])];
    0x1d Endloop "endloop" ControlFlow [(Vs, V20, VMAX, []), (Ps, V30, VMAX, [])];
    0x1e Label "label" ControlFlow [(Vs, V20, VMAX, [Src]), (Ps, V21, VMAX, [Src])];
    0x1f Dcl "dcl" Declaration [(Vs, V10, VMAX, [Dcl, Dst]), (Ps, V20, VMAX, [Dcl, Dst])];
    0x20 Pow "pow" Alu [(Both, V20, VMAX, [Dst, Src, Src])];
    0x21 Crs "crs" Alu [(Both, V20, VMAX, [Dst, Src, Src])];
    0x22 Sgn "sgn" Alu [(Both, V20, VMAX, [Dst, Src, Src, Src])];
    0x23 Abs "abs" Alu [(Both, V20, VMAX, [Dst, Src])];
    0x24 Nrm "nrm" Alu [(Both, V20, VMAX, [Dst, Src])];
    0x25 Sincos "sincos" Alu [
        (Both, V20, V2SW, [Dst, Src, Src, Src]),
        (Both, V30, VMAX, [Dst, Src])
    ];
    0x26 Rep "rep" ControlFlow [(Vs, V20, VMAX, [Src]), (Ps, V21, VMAX, [Src])];
    0x27 Endrep "endrep" ControlFlow [(Vs, V20, VMAX, []), (Ps, V21, VMAX, [])];
    0x28 If "if" ControlFlow [(Vs, V20, VMAX, [Src]), (Ps, V21, VMAX, [Src])];
    0x29 Ifc "if" ControlFlow [(Both, V21, VMAX, [Src, Src])];
    0x2a Else "else" ControlFlow [(Vs, V20, VMAX, []), (Ps, V21, VMAX, [])];
    0x2b Endif "endif" ControlFlow [(Vs, V20, VMAX, []), (Ps, V21, VMAX, [])];
    0x2c Break "break" ControlFlow [(Both, V21, VMAX, [])];
    0x2d Breakc "break" ControlFlow [(Both, V21, VMAX, [Src, Src])];
    0x2e Mova "mova" Alu [(Vs, V20, VMAX, [Dst, Src])];
    0x2f Defb "defb" Declaration [(Vs, V20, VMAX, [Dst, Bool]), (Ps, V21, VMAX, [Dst, Bool])];
    0x30 Defi "defi" Declaration [(Vs, V20, VMAX, [Dst, Int4]), (Ps, V21, VMAX, [Dst, Int4])];
    0x40 Texcoord "texcoord" Texture [(Ps, V10, V13, [Dst]), (Ps, V14, V14, [Dst, Src])];
    0x41 Texkill "texkill" Pixel [(Ps, V10, VMAX, [Dst])];
    0x42 Tex "texld" Texture [
        (Ps, V10, V13, [Dst]),
        (Ps, V14, V14, [Dst, Src]),
        (Ps, V20, VMAX, [Dst, Src, Src]),
        (Vs, V30, VMAX, [Dst, Src, Src])
    ];
    0x43 Texbem "texbem" Texture [(Ps, V10, V13, [Dst, Src])];
    0x44 Texbeml "texbeml" Texture [(Ps, V10, V13, [Dst, Src])];
    0x45 Texreg2ar "texreg2ar" Texture [(Ps, V10, V13, [Dst, Src])];
    0x46 Texreg2gb "texreg2gb" Texture [(Ps, V10, V13, [Dst, Src])];
    0x47 Texm3x2pad "texm3x2pad" Texture [(Ps, V10, V13, [Dst, Src])];
    0x48 Texm3x2tex "texm3x2tex" Texture [(Ps, V10, V13, [Dst, Src])];
    0x49 Texm3x3pad "texm3x3pad" Texture [(Ps, V10, V13, [Dst, Src])];
    0x4a Texm3x3tex "texm3x3tex" Texture [(Ps, V10, V13, [Dst, Src])];
    0x4b Texm3x3diff "texm3x3diff" Texture [(Ps, V10, V13, [Dst, Src])];
    0x4c Texm3x3spec "texm3x3spec" Texture [(Ps, V10, V13, [Dst, Src, Src])];
    0x4d Texm3x3vspec "texm3x3vspec" Texture [(Ps, V10, V13, [Dst, Src])];
    0x4e Expp "expp" Alu [(Vs, V10, VMAX, [Dst, Src])];
    0x4f Logp "logp" Alu [(Vs, V10, VMAX, [Dst, Src])];
    0x50 Cnd "cnd" Alu [(Ps, V10, V14, [Dst, Src, Src, Src])];
    0x51 Def "def" Declaration [(Both, V10, VMAX, [Dst, Float4])];
    0x52 Texreg2rgb "texreg2rgb" Texture [(Ps, V12, V13, [Dst, Src])];
    0x53 Texdp3tex "texdp3tex" Texture [(Ps, V12, V13, [Dst, Src])];
    0x54 Texm3x2depth "texm3x2depth" Texture [(Ps, V13, V13, [Dst, Src])];
    0x55 Texdp3 "texdp3" Texture [(Ps, V12, V13, [Dst, Src])];
    0x56 Texm3x3 "texm3x3" Texture [(Ps, V12, V13, [Dst, Src])];
    0x57 Texdepth "texdepth" Texture [(Ps, V14, V14, [Dst])];
    0x58 Cmp "cmp" Alu [(Ps, V12, VMAX, [Dst, Src, Src, Src])];
    0x59 Bem "bem" Texture [(Ps, V14, V14, [Dst, Src, Src])];
    0x5a Dp2add "dp2add" Alu [(Ps, V20, VMAX, [Dst, Src, Src, Src])];
    0x5b Dsx "dsx" Pixel [(Ps, V21, VMAX, [Dst, Src])];
    0x5c Dsy "dsy" Pixel [(Ps, V21, VMAX, [Dst, Src])];
    0x5d Texldd "texldd" Texture [(Ps, V21, VMAX, [Dst, Src, Src, Src, Src])];
    0x5e Setp "setp" ControlFlow [(Both, V21, VMAX, [Dst, Src, Src])];
    0x5f Texldl "texldl" Texture [(Both, V30, VMAX, [Dst, Src, Src])];
    0x60 Breakp "breakp" ControlFlow [(Both, V21, VMAX, [Src])];
    0xfffd Phase "phase" Pixel [(Ps, V14, V14, [])];
}

/// The comment token's opcode (`0xFFFE`): a block of data dwords, not an instruction.
pub const COMMENT: u16 = 0xfffe;
/// The end token's opcode (`0xFFFF`; the whole token is `0x0000FFFF`).
pub const END: u16 = 0xffff;

/// The comparison an instruction's controls encode (`if_gt`, `break_ne`, `setp_le`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `gt` (1).
    Gt = 1,
    /// `eq` (2).
    Eq = 2,
    /// `ge` (3).
    Ge = 3,
    /// `lt` (4).
    Lt = 4,
    /// `ne` (5).
    Ne = 5,
    /// `le` (6).
    Le = 6,
}

impl Comparison {
    /// The comparison with this control value.
    pub const fn from_controls(controls: u8) -> Option<Comparison> {
        Some(match controls {
            1 => Comparison::Gt,
            2 => Comparison::Eq,
            3 => Comparison::Ge,
            4 => Comparison::Lt,
            5 => Comparison::Ne,
            6 => Comparison::Le,
            _ => return None,
        })
    }

    /// fxc's suffix without the underscore (`gt`).
    pub const fn suffix(self) -> &'static str {
        match self {
            Comparison::Gt => "gt",
            Comparison::Eq => "eq",
            Comparison::Ge => "ge",
            Comparison::Lt => "lt",
            Comparison::Ne => "ne",
            Comparison::Le => "le",
        }
    }

    /// Every comparison, by control value.
    pub const ALL: [Comparison; 6] = [
        Comparison::Gt,
        Comparison::Eq,
        Comparison::Ge,
        Comparison::Lt,
        Comparison::Ne,
        Comparison::Le,
    ];
}

/// `texld`'s controls: plain, projected (`texldp`) or biased (`texldb`).
pub const TEXLD_PROJECT: u8 = 1;
/// `texld`'s controls for `texldb`.
pub const TEXLD_BIAS: u8 = 2;

impl Opcode {
    /// The form of the instruction for this stage and version key, if it exists there.
    #[inline]
    pub fn form(self, pixel: bool, version: u16) -> Option<&'static Form> {
        self.forms().iter().find(|f| f.applies(pixel, version))
    }

    /// The operand layout for this stage and version: the form's, or, where the instruction
    /// does not exist there, its nearest form's (streams outside their profile's limits still
    /// decode; validation is the lowering's).
    pub fn layout(self, pixel: bool, version: u16) -> &'static [Slot] {
        if let Some(form) = self.form(pixel, version) {
            return form.slots;
        }
        let forms = self.forms();
        let distance = |f: &Form| -> u32 {
            let stage = if f.stages.includes(pixel) {
                0
            } else {
                0x1_0000
            };
            let gap = if version < f.min {
                f.min - version
            } else {
                version.saturating_sub(f.max)
            };
            stage + u32::from(gap)
        };
        forms
            .iter()
            .min_by_key(|f| distance(f))
            .map_or(&[], |f| f.slots)
    }

    /// Whether the instruction takes a comparison in its controls (`ifc`, `breakc`, `setp`).
    #[inline]
    pub const fn has_comparison(self) -> bool {
        matches!(self, Opcode::Ifc | Opcode::Breakc | Opcode::Setp)
    }

    /// fxc's spelling of the instruction for this stage, version and controls: `tex` before
    /// ps_1_4, `texld`/`texldp`/`texldb`, `texcrd` in ps_1_4, comparison suffixes (`if_gt`,
    /// `break_ne`, `setp_le`). `None` when the controls are not a valid comparison.
    pub fn spelling(self, pixel: bool, version: u16, controls: u8) -> Option<Spelling> {
        let base = match self {
            Opcode::Tex if pixel && version < V14 => "tex",
            Opcode::Tex => match controls {
                TEXLD_PROJECT => "texldp",
                TEXLD_BIAS => "texldb",
                _ => "texld",
            },
            Opcode::Texcoord if pixel && version == V14 => "texcrd",
            _ => self.name(),
        };
        let comparison = if self.has_comparison() {
            Some(Comparison::from_controls(controls)?)
        } else {
            None
        };
        Some(Spelling { base, comparison })
    }
}

/// An instruction's spelling: base mnemonic and comparison suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling {
    /// The mnemonic (`texldp`, `if`, `setp`).
    pub base: &'static str,
    /// The comparison suffix, for `ifc`, `breakc` and `setp`.
    pub comparison: Option<Comparison>,
}

impl core::fmt::Display for Spelling {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.base)?;
        if let Some(c) = self.comparison {
            write!(f, "_{}", c.suffix())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_and_are_unique() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_u16(op as u16), Some(op));
        }
        assert_eq!(Opcode::from_u16(0x31), None);
        assert_eq!(Opcode::from_u16(COMMENT), None);
    }

    #[test]
    fn layouts_follow_the_version() {
        assert_eq!(Opcode::Tex.layout(true, 0x0101), &[Slot::Dst]);
        assert_eq!(Opcode::Tex.layout(true, 0x0104), &[Slot::Dst, Slot::Src]);
        assert_eq!(Opcode::Tex.layout(true, 0x0200).len(), 3);
        assert_eq!(Opcode::Sincos.layout(false, 0x0200).len(), 4);
        assert_eq!(Opcode::Sincos.layout(true, 0x0300).len(), 2);
        // Outside its profiles an instruction keeps its nearest layout.
        assert_eq!(Opcode::Slt.layout(true, 0x0200).len(), 3);
        assert!(Opcode::Slt.form(true, 0x0200).is_none());
    }

    #[test]
    fn spellings_depend_on_version_and_controls() {
        let s = |op: Opcode, pixel, v, c| op.spelling(pixel, v, c).map(|s| s.to_string());
        assert_eq!(s(Opcode::Tex, true, 0x0101, 0).as_deref(), Some("tex"));
        assert_eq!(s(Opcode::Tex, true, 0x0200, 1).as_deref(), Some("texldp"));
        assert_eq!(s(Opcode::Tex, true, 0x0200, 2).as_deref(), Some("texldb"));
        assert_eq!(
            s(Opcode::Texcoord, true, 0x0104, 0).as_deref(),
            Some("texcrd")
        );
        assert_eq!(s(Opcode::Ifc, false, 0x0300, 1).as_deref(), Some("if_gt"));
        assert_eq!(s(Opcode::Setp, true, 0x0300, 6).as_deref(), Some("setp_le"));
        assert_eq!(s(Opcode::Breakc, true, 0x0300, 0), None);
    }
}
