//! The assembler: fxc-syntax Direct3D 9 text (what fxc's listings print) → [`Program`] →
//! tokens.
//!
//! Contract: reads a version line (`vs_1_1` … `ps_3_0`, `vs_2_x`, `ps_2_sw`, also `vs.1.1`),
//! then one instruction per line: an optional co-issue `+`, an optional predicate `(p0)` /
//! `(!p0.x)`, the mnemonic with its `_` suffixes, and its operands in the order of the opcode
//! table's layout for the version (`dcl` usages and sampler types come from the mnemonic,
//! `def*` literals follow the register). Comments (`//`, `;`, `/* */`), preprocessor lines
//! (`#line`) and blank lines are skipped. The program has no comment blocks; its instruction
//! tokens are those fxc wrote for the same text. Every error is an [`AsmError`] with the line
//! and column it was found at; nothing panics on any input.

mod cursor;
mod mnemonic;
mod operand;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod tests;

use std::fmt;

use cursor::{Cursor, Line};

use super::encode::{encode, instruction_dwords};
use crate::front::d3d9::opcodes::Slot;
use crate::front::d3d9::program::{
    DclToken, Instruction, Payload, Program, Src, Stage, Version, MAX_SOURCES,
};

/// An error in D3D9 assembly text, with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column (in characters).
    pub column: u32,
    /// What is wrong, e.g. `unknown register 'q3'`.
    pub message: String,
}

impl AsmError {
    /// An error at `line`:`column`.
    pub fn new(line: u32, column: u32, message: impl Into<String>) -> Self {
        Self {
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for AsmError {}

/// Whether `text` is D3D9 assembly: its first statement is a D3D9 version line, and no
/// later line starts a shader model 4/5 program (fxc's `4_0_level_9_x` listings print the
/// level-9 program before the DXBC one; they are DXBC text).
pub fn is_d3d9_text(text: &str) -> bool {
    let lines = cursor::lines(text);
    let mut words = lines.iter().filter_map(|line| {
        let mut cur = Cursor::new(line);
        cur.skip_space();
        let word = cur.word();
        (!word.is_empty()).then_some(word)
    });
    let Some(first) = words.next() else {
        return false;
    };
    version(&first).is_some() && !words.any(|w| is_sm4_version(&w))
}

/// Whether a word is an SM4/5 version line (`vs_4_0`, `cs_5_0`, `ps_4_0_level_9_1`).
fn is_sm4_version(word: &str) -> bool {
    let mut parts = word.split('_');
    matches!(
        parts.next(),
        Some("vs" | "ps" | "gs" | "hs" | "ds" | "cs" | "lib")
    ) && matches!(parts.next(), Some("4" | "5" | "6"))
}

/// The version a version-line word names: `vs_1_1`, `ps_2_x`, `vs_3_sw`, `ps.1.4`.
fn version(word: &str) -> Option<Version> {
    let lower = word.to_ascii_lowercase();
    let mut parts = lower.split(['_', '.']);
    let stage = match parts.next()? {
        "vs" => Stage::Vertex,
        "ps" => Stage::Pixel,
        _ => return None,
    };
    let major = parts.next()?.parse::<u8>().ok()?;
    let minor = match parts.next()? {
        "x" if major == 2 => 1,
        "sw" => 0xff,
        m => m.parse::<u8>().ok().filter(|m| *m <= 4)?,
    };
    if parts.next().is_some() {
        return None;
    }
    let v = Version {
        stage,
        major,
        minor,
    };
    v.is_known().then_some(v)
}

/// Assembles `text` to dwords, version token to end token.
pub fn assemble(text: &str) -> Result<Vec<u32>, AsmError> {
    let program = parse(text)?;
    encode(&program).map_err(|e| AsmError::new(1, 1, format!("internal: {e}")))
}

/// Assembles `text` to the little-endian bytes of its token stream.
pub fn assemble_bytes(text: &str) -> Result<Vec<u8>, AsmError> {
    Ok(assemble(text)?
        .into_iter()
        .flat_map(u32::to_le_bytes)
        .collect())
}

/// Parses `text` into a program (offsets are those of the encoded stream).
pub fn parse(text: &str) -> Result<Program<'static>, AsmError> {
    let lines = cursor::lines(text);
    let mut statements = lines
        .iter()
        .filter(|l| l.chars.iter().any(|c| !c.is_whitespace()));
    let Some(first) = statements.next() else {
        return Err(AsmError::new(
            1,
            1,
            "expected a version line (vs_1_1 … ps_3_0), found nothing",
        ));
    };
    let mut cur = Cursor::new(first);
    cur.skip_space();
    let word = cur.word();
    let v = version(&word).ok_or_else(|| {
        cur.error(format!(
            "expected a version line (vs_1_1 … ps_3_0), found '{word}'"
        ))
    })?;
    cur.take_while(|c| !c.is_whitespace());
    if !cur.at_end() {
        return Err(cur.error(format!("unexpected {} after the version", cur.found())));
    }
    let mut program = Program {
        version: v,
        instructions: Vec::new(),
        comments: Vec::new(),
        end_offset: 0,
        base_offset: 0,
    };
    let mut offset = 4u32;
    for line in statements {
        let mut inst = instruction(line, v)?;
        let dwords = instruction_dwords(v, &inst).ok_or_else(|| {
            AsmError::new(line.number, 1, "internal: operands do not fit the layout")
        })?;
        inst.dwords = dwords;
        if v.has_length() {
            inst.length_field = u8::try_from(dwords - 1).unwrap_or(0);
        }
        assign_offsets(&mut inst, v, offset);
        offset = offset.saturating_add(dwords.saturating_mul(4));
        program.instructions.push(inst);
    }
    program.end_offset = offset;
    Ok(program)
}

/// Gives the instruction and its parameters the byte offsets the encoder writes them at.
fn assign_offsets(inst: &mut Instruction, v: Version, offset: u32) {
    inst.offset = offset;
    let mut at = offset + 4;
    let layout = inst.opcode.layout(v.is_pixel(), v.key());
    let mut next = |size: u32| {
        let here = at;
        at += 4 * size;
        here
    };
    fn place(
        offset: &mut u32,
        relative: &mut Option<crate::front::d3d9::program::Relative>,
        next: &mut dyn FnMut(u32) -> u32,
    ) {
        *offset = next(1);
        if let Some(rel) = relative {
            rel.offset = if rel.token { next(1) } else { *offset };
        }
    }
    let predicated = inst.predicated;
    let predicate = |inst: &mut Instruction, next: &mut dyn FnMut(u32) -> u32| {
        if predicated {
            if let Some(p) = inst.predicate.as_mut() {
                place(&mut p.offset, &mut p.relative, next);
            }
        }
    };
    if layout.first() != Some(&Slot::Dst) {
        predicate(inst, &mut next);
    }
    let mut src_index = 0;
    for slot in layout {
        match slot {
            Slot::Dst => {
                if let Some(d) = inst.dst.as_mut() {
                    place(&mut d.offset, &mut d.relative, &mut next);
                }
                predicate(inst, &mut next);
            }
            Slot::Src => {
                if let Some(s) = inst.srcs.get_mut(src_index) {
                    place(&mut s.offset, &mut s.relative, &mut next);
                }
                src_index += 1;
            }
            Slot::Dcl | Slot::Bool => {
                next(1);
            }
            Slot::Float4 | Slot::Int4 => {
                next(4);
            }
        }
    }
}

/// Parses one instruction line.
fn instruction(line: &Line, v: Version) -> Result<Instruction, AsmError> {
    let mut cur = Cursor::new(line);
    let coissue = cur.eat('+');
    let mut predicate = None;
    if cur.eat('(') {
        let p = operand::src(&mut cur, v)?;
        if !cur.eat(')') {
            return Err(cur.error(format!(
                "expected ')' after the predicate, found {}",
                cur.found()
            )));
        }
        predicate = Some(p);
    }
    cur.skip_space();
    let at = cur.pos();
    let word = cur.take_while(|c| c.is_ascii_alphanumeric() || c == '_');
    if word.is_empty() {
        return Err(cur.error(format!("expected an instruction, found {}", cur.found())));
    }
    let m = mnemonic::parse(&word).map_err(|msg| cur.error_at(at, msg))?;
    let Some(opcode) = m.opcode else {
        return Err(cur.error_at(at, format!("unknown instruction '{word}'")));
    };
    if cur.peek().is_some_and(|c| !c.is_whitespace()) {
        return Err(cur.error(format!("unexpected {} after '{word}'", cur.found())));
    }
    let mut inst = Instruction {
        offset: 0,
        opcode,
        controls: m.controls,
        predicated: predicate.is_some(),
        coissue,
        dst: None,
        predicate,
        srcs: [Src::default(); MAX_SOURCES],
        src_count: 0,
        payload: Payload::None,
        dwords: 1,
        length_field: 0,
    };
    let layout = opcode.layout(v.is_pixel(), v.key());
    let wanted = layout
        .iter()
        .map(|s| match s {
            Slot::Dst | Slot::Src | Slot::Bool => 1,
            Slot::Dcl => 0,
            Slot::Float4 | Slot::Int4 => 4,
        })
        .sum::<usize>();
    let has_dst_modifiers = m.saturate || m.partial_precision || m.centroid || m.shift != 0;
    if (has_dst_modifiers && !layout.contains(&Slot::Dst))
        || (m.usage.is_some() || m.texture_type.is_some()) && !layout.contains(&Slot::Dcl)
    {
        return Err(cur.error_at(
            at,
            format!("'{word}': modifiers on an instruction without a destination"),
        ));
    }
    let mut count = 0usize;
    let mut float4 = [0u32; 4];
    let mut int4 = [0i32; 4];
    for slot in layout {
        let repeat = match slot {
            Slot::Float4 | Slot::Int4 => 4,
            Slot::Dcl => 0,
            _ => 1,
        };
        for k in 0..repeat {
            if count > 0 && !cur.eat(',') {
                let message = if cur.at_end() {
                    format!("'{word}' takes {wanted} operands, found {count}")
                } else {
                    format!("expected ',', found {}", cur.found())
                };
                return Err(cur.error(message));
            }
            if count == 0 && cur.at_end() && wanted > 0 {
                return Err(cur.error(format!("'{word}' takes {wanted} operands, found 0")));
            }
            count += 1;
            match slot {
                Slot::Dst => {
                    let mut d = operand::dst(&mut cur, v)?;
                    d.saturate = m.saturate;
                    d.partial_precision = m.partial_precision;
                    d.centroid = m.centroid;
                    d.shift = m.shift;
                    inst.dst = Some(d);
                }
                Slot::Src => {
                    let s = operand::src(&mut cur, v)?;
                    if let Some(slot) = inst.srcs.get_mut(usize::from(inst.src_count)) {
                        *slot = s;
                        inst.src_count += 1;
                    }
                }
                Slot::Float4 => {
                    if let Some(w) = float4.get_mut(k) {
                        *w = operand::float(&mut cur)?;
                    }
                    inst.payload = Payload::Float4(float4);
                }
                Slot::Int4 => {
                    if let Some(w) = int4.get_mut(k) {
                        *w = operand::int(&mut cur)?;
                    }
                    inst.payload = Payload::Int4(int4);
                }
                Slot::Bool => inst.payload = Payload::Bool(operand::boolean(&mut cur)?),
                Slot::Dcl => {}
            }
        }
        if *slot == Slot::Dcl {
            let (usage, index) = m.usage.unwrap_or((0, 0));
            let ttype = m.texture_type.unwrap_or(0);
            inst.payload = Payload::Dcl(DclToken(0x8000_0000 | usage | index << 16 | ttype << 27));
        }
    }
    if !cur.at_end() {
        let message = if cur.peek() == Some(',') {
            format!("'{word}' takes {wanted} operands, found more")
        } else {
            format!("unexpected {} after the operands", cur.found())
        };
        return Err(cur.error(message));
    }
    Ok(inst)
}
