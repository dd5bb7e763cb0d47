//! [`ProgramBuilder`]: programs described instruction by instruction, encoded through the same
//! slot walk as decoded instructions (dxbc-spirv's `dxbc::Builder` idea). Tests, fuzz seeds and
//! the committed samples use it.
//!
//! ```
//! use dxbc2spv::text::dxbc::encode::{reg, OperandBuild, ProgramBuilder};
//! use dxbc2spv::front::dxbc::{Opcode, RegisterType, ShaderVersion, Stage};
//!
//! let version = ShaderVersion { stage: Stage::Vertex, major: 4, minor: 0 };
//! let mut b = ProgramBuilder::new(version);
//! b.op(Opcode::Mov, 0)
//!     .dst(reg(RegisterType::Output, &[0]).mask(0xf))
//!     .src(reg(RegisterType::Input, &[0]).swizzle([0, 1, 2, 3]));
//! b.op(Opcode::Ret, 0);
//! let words = b.finish().unwrap();
//! assert_eq!(words.len(), 2 + 5 + 1);
//! ```

use super::instruction::{encode_parts, is_variable_length, Parts};
use super::{check_sm51_slots, encode_version, length_dword, EncodeError, Result};
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::opcodes::{Opcode, Slot};
use crate::front::dxbc::operand::Operand;
use crate::front::dxbc::program::ShaderVersion;
use crate::front::dxbc::token::ExtOpcodeToken;

/// The instruction being described; encoded when the next one starts or at [`finish`].
///
/// [`finish`]: ProgramBuilder::finish
#[derive(Clone, Debug)]
struct Pending {
    opcode: Opcode,
    controls: u32,
    long_form: bool,
    ext: Vec<ExtOpcodeToken>,
    operands: Vec<Operand>,
    /// For each operand: given with [`ProgramBuilder::dst`] (true) or `src` (false).
    is_dst: Vec<bool>,
    imms: Vec<u32>,
    return_type: Option<u32>,
    name: Option<u32>,
    cb_size: Option<u32>,
    space: Option<u32>,
    custom_class: u32,
    data: Vec<u8>,
    padding: Vec<u8>,
}

/// Builds a program chunk's dwords from instruction descriptions.
///
/// Each [`op`](Self::op) starts an instruction; the following calls fill its slots in the order
/// of [`Opcode::slots`]. Errors are collected: the first one is returned by
/// [`finish`](Self::finish), so descriptions read as straight-line code.
#[derive(Clone, Debug)]
pub struct ProgramBuilder {
    version: ShaderVersion,
    words: Vec<u32>,
    pending: Option<Pending>,
    error: Option<EncodeError>,
}

impl ProgramBuilder {
    /// An empty program of `version`.
    pub fn new(version: ShaderVersion) -> Self {
        Self {
            version,
            words: Vec::new(),
            pending: None,
            error: None,
        }
    }

    /// Starts an instruction with `controls` = opcode token bits 11–23 shifted down (see
    /// [`token::controls`](super::token::controls)).
    pub fn op(&mut self, opcode: Opcode, controls: u32) -> &mut Self {
        self.flush();
        self.pending = Some(Pending {
            opcode,
            controls,
            long_form: false,
            ext: Vec::new(),
            operands: Vec::new(),
            is_dst: Vec::new(),
            imms: Vec::new(),
            return_type: None,
            name: None,
            cb_size: None,
            space: None,
            custom_class: 0,
            data: Vec::new(),
            padding: Vec::new(),
        });
        self
    }

    /// Appends an extended opcode token (the chain bit is set by the encoder).
    pub fn ext(&mut self, token: ExtOpcodeToken) -> &mut Self {
        self.with(|p| p.ext.push(token))
    }

    /// Fills the next operand slot, which must be a `Dst` slot.
    pub fn dst(&mut self, op: Operand) -> &mut Self {
        self.with(|p| {
            p.operands.push(op);
            p.is_dst.push(true);
        })
    }

    /// Fills the next operand slot, which must be a `Src` slot.
    pub fn src(&mut self, op: Operand) -> &mut Self {
        self.with(|p| {
            p.operands.push(op);
            p.is_dst.push(false);
        })
    }

    /// Fills the next `Imm` slot.
    pub fn imm(&mut self, value: u32) -> &mut Self {
        self.with(|p| p.imms.push(value))
    }

    /// Fills the next `Float` slot.
    pub fn float(&mut self, value: f32) -> &mut Self {
        self.imm(value.to_bits())
    }

    /// Fills the `ReturnType` slot (see [`token::return_types`](super::token::return_types)).
    pub fn return_type(&mut self, packed: u32) -> &mut Self {
        self.with(|p| p.return_type = Some(packed))
    }

    /// Fills the `Name` slot (a system value, [`crate::front::dxbc::names::SYSTEM_VALUES`]).
    pub fn name(&mut self, name: u32) -> &mut Self {
        self.with(|p| p.name = Some(name))
    }

    /// Fills the SM5.1 `CbSize` slot.
    pub fn cb_size(&mut self, vec4s: u32) -> &mut Self {
        self.with(|p| p.cb_size = Some(vec4s))
    }

    /// Fills the SM5.1 `Space` slot.
    pub fn space(&mut self, space: u32) -> &mut Self {
        self.with(|p| p.space = Some(space))
    }

    /// Fills the `List` slot.
    pub fn list(&mut self, dwords: &[u32]) -> &mut Self {
        self.with(|p| p.data.extend(dwords.iter().flat_map(|w| w.to_le_bytes())))
    }

    /// For the variable-length interface declarations: store the length in the second dword
    /// even when it fits the opcode token.
    pub fn long_form(&mut self) -> &mut Self {
        self.with(|p| p.long_form = true)
    }

    /// Appends a dword after the last slot (fxc pads a few instructions with a zero).
    pub fn padding(&mut self, dword: u32) -> &mut Self {
        self.with(|p| p.padding.extend(dword.to_le_bytes()))
    }

    /// A complete `customdata` block of `class` (3 = immediate constant buffer) with `payload`.
    pub fn custom_data(&mut self, class: u32, payload: &[u32]) -> &mut Self {
        self.op(Opcode::CustomData, 0);
        self.with(|p| {
            p.custom_class = class;
            p.data.extend(payload.iter().flat_map(|w| w.to_le_bytes()));
        })
    }

    /// Appends a decoded instruction as it is.
    pub fn instruction(&mut self, inst: &Instruction<'_>) -> &mut Self {
        self.flush();
        let result = check_sm51_slots(inst.opcode, inst.space, inst.cb_size, self.version)
            .and_then(|()| encode_parts(&Parts::of(inst), &mut self.words));
        self.record(result);
        self
    }

    /// The program's dwords: version token, length token, then the instructions.
    pub fn finish(&mut self) -> Result<Vec<u32>> {
        self.flush();
        if let Some(error) = self.error.clone() {
            return Err(error);
        }
        let mut out = Vec::with_capacity(self.words.len() + 2);
        out.push(encode_version(self.version)?);
        out.push(length_dword(self.words.len() + 2, "program length")?);
        out.extend_from_slice(&self.words);
        Ok(out)
    }

    fn with(&mut self, f: impl FnOnce(&mut Pending)) -> &mut Self {
        match self.pending.as_mut() {
            Some(p) => f(p),
            None => self.record(Err(EncodeError::Unencodable(
                "slot value given before the first op()",
            ))),
        }
        self
    }

    fn record(&mut self, result: Result<()>) {
        if let (Err(e), None) = (result, &self.error) {
            self.error = Some(e);
        }
    }

    fn flush(&mut self) {
        if let Some(p) = self.pending.take() {
            let result = self.encode_pending(&p);
            self.record(result);
        }
    }

    fn encode_pending(&mut self, p: &Pending) -> Result<()> {
        let name = p.opcode.name();
        let kinds = p
            .opcode
            .slots()
            .iter()
            .filter(|s| matches!(s, Slot::Dst | Slot::Src));
        for (index, (slot, &is_dst)) in kinds.zip(&p.is_dst).enumerate() {
            if (*slot == Slot::Dst) != is_dst {
                let expected = if *slot == Slot::Dst { "dst" } else { "src" };
                return Err(EncodeError::SlotMismatch {
                    opcode: name,
                    index,
                    expected,
                });
            }
        }
        if p.long_form && !is_variable_length(p.opcode) {
            return Err(EncodeError::Unused {
                opcode: name,
                what: "long form",
            });
        }
        check_sm51_slots(p.opcode, p.space, p.cb_size, self.version)?;
        let parts = Parts {
            opcode: p.opcode,
            controls: p.controls,
            long_form: p.long_form,
            ext: &p.ext,
            operands: &p.operands,
            imms: &p.imms,
            return_type: p.return_type,
            name: p.name,
            cb_size: p.cb_size,
            space: p.space,
            custom_class: p.custom_class,
            data: &p.data,
            padding: &p.padding,
        };
        encode_parts(&parts, &mut self.words)
    }
}
