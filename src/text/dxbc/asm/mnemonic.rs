//! Mnemonics: `sample_l_aoffimmi_indexable(1,0,0)(texture2d)(float,float,float,float)` →
//! opcode, control bits and extended opcode tokens, derived from the opcode table and the name
//! tables (the inverse of the disassembler's `write_mnemonic`).

use super::cursor::Cursor;
use super::error::Result;
use crate::front::dxbc::names::{self, COMPONENTS};
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::token::{ext_opcode, ExtOpcodeToken};

/// The opcode whose fxc name is `name`.
pub(super) fn opcode_by_name(name: &str) -> Option<Opcode> {
    Opcode::ALL.iter().copied().find(|op| op.name() == name)
}

/// A parsed mnemonic.
#[derive(Clone, Debug, Default)]
pub(super) struct Mnemonic<'a> {
    /// Opcode-token bits 11–23 (as stored, not shifted).
    pub token_bits: u32,
    /// Extended opcode tokens in the order fxc writes them.
    pub ext: Vec<ExtOpcodeToken>,
    /// Suffix words not consumed by the generic rules (declaration dimensions, flags…).
    pub words: Vec<&'a str>,
    /// Parenthesised groups not consumed (a return-type list or sample count of a declaration).
    pub groups: Vec<Vec<&'a str>>,
    /// Dwords after the operands (`[padding(0x...)]` of lossless listings).
    pub padding: Vec<u32>,
}

/// Splits `word` into the longest opcode-name prefix and the remaining `_`-separated suffixes.
pub(super) fn split_mnemonic(word: &str) -> Option<(Opcode, Vec<&str>)> {
    let parts: Vec<&str> = word.split('_').collect();
    for n in (1..=parts.len()).rev() {
        let len = parts[..n].iter().map(|p| p.len()).sum::<usize>() + n - 1;
        if let Some(op) = opcode_by_name(&word[..len]) {
            return Some((op, parts[n..].to_vec()));
        }
    }
    None
}

/// Reads the parenthesised groups that follow a mnemonic (`(1,0,0)`, `(texture2d)`,
/// `(structured_buffer, stride=16)`, `(float,float,float,float)`), items trimmed.
fn parse_groups<'a>(c: &mut Cursor<'a>, groups: &mut Vec<Vec<&'a str>>) -> Result<()> {
    while c.peek_raw() == Some('(') {
        let rest = c.rest();
        let close = rest
            .find(')')
            .ok_or_else(|| c.error("unclosed '(' in the mnemonic"))?;
        let inner = &rest[1..close];
        groups.push(inner.split(',').map(str::trim).collect());
        for _ in 0..=close {
            c.expect_any()?;
        }
    }
    Ok(())
}

/// Parses the mnemonic at the cursor: word, groups, `[precise(...)]`, trailing `_uint`.
pub(super) fn parse_mnemonic<'a>(c: &mut Cursor<'a>) -> Result<(Opcode, Mnemonic<'a>)> {
    let pos = c.pos();
    let word = c.ident().ok_or_else(|| {
        c.error(format!(
            "expected an instruction, found {}",
            c.describe_next()
        ))
    })?;
    let (opcode, suffixes) = split_mnemonic(word)
        .ok_or_else(|| c.error_at(pos, format!("unknown instruction '{word}'")))?;
    let mut m = Mnemonic::default();
    let mut groups = Vec::new();
    parse_groups(c, &mut groups)?;
    // `[padding(...)]` (lossless listings) and `[precise(...)]`, in either order.
    let mut save = c.clone();
    if c.eat_str("[padding(") {
        parse_padding(c, &mut m)?;
        parse_groups(c, &mut groups)?;
        save = c.clone();
    }
    if c.eat_str("[precise") {
        let mask = if c.eat('(') {
            let letters = c.ident().unwrap_or("");
            let mut mask = 0;
            for ch in letters.chars() {
                let i = COMPONENTS
                    .iter()
                    .position(|&x| x == ch)
                    .ok_or_else(|| c.error(format!("invalid precise component '{ch}'")))?;
                mask |= 1 << i;
            }
            c.expect(')')?;
            mask
        } else {
            0xf
        };
        c.expect(']')?;
        m.token_bits |= mask << 19;
        parse_groups(c, &mut groups)?;
        save = c.clone();
        if m.padding.is_empty() && c.eat_str("[padding(") {
            parse_padding(c, &mut m)?;
            parse_groups(c, &mut groups)?;
        } else {
            *c = save;
        }
    } else {
        *c = save;
    }
    let mut suffixes = suffixes;
    // resinfo_indexable(...)(...)_uint: the return-type suffix follows the groups.
    if c.peek_raw() == Some('_') {
        let extra = c.ident().unwrap_or("");
        suffixes.extend(extra.split('_').filter(|s| !s.is_empty()));
    }
    let mut offsets = None;
    let mut dim = None;
    let mut ret = None;
    for suffix in suffixes {
        match suffix {
            "sat" => m.token_bits |= 1 << 13,
            "nz" if is_conditional(opcode) => m.token_bits |= 1 << 18,
            "z" if is_conditional(opcode) => {}
            "aoffimmi" | "indexable" => {}
            "uint" if opcode == Opcode::Resinfo => m.token_bits |= 2 << 11,
            "rcpFloat" if opcode == Opcode::Resinfo => m.token_bits |= 1 << 11,
            "uint" if opcode == Opcode::SampleInfo => m.token_bits |= 1 << 11,
            flag if opcode == Opcode::Sync => {
                let bit = names::reverse(names::SYNC_FLAGS, flag)
                    .ok_or_else(|| c.error_at(pos, format!("unknown sync flag '{flag}'")))?;
                m.token_bits |= 1 << (11 + bit);
            }
            other => m.words.push(other),
        }
    }
    for group in groups {
        let first = group.first().copied().unwrap_or("");
        let is_number = |s: &str| crate::front::dxbc::literal::parse_uint(s).is_some();
        if group.len() == 3 && group.iter().all(|s| is_number(s)) && is_instruction(opcode) {
            let v: Vec<i32> = group
                .iter()
                .map(|s| crate::front::dxbc::literal::parse_uint(s).unwrap_or(0) as i32)
                .collect();
            let mut token = ext_opcode::SAMPLE_CONTROLS;
            for (i, o) in v.iter().enumerate() {
                if !(-8..=7).contains(o) {
                    return Err(c.error_at(pos, format!("texel offset {o} is outside -8..7")));
                }
                token |= ((*o as u32) & 0xf) << (9 + 4 * i);
            }
            offsets = Some(ExtOpcodeToken(token));
        } else if let Some(d) =
            names::reverse(names::RESOURCE_DIMENSIONS, first).filter(|_| is_instruction(opcode))
        {
            let mut token = ext_opcode::RESOURCE_DIM | (d << 6);
            if let Some(stride) = group.get(1) {
                let value = stride
                    .strip_prefix("stride=")
                    .and_then(crate::front::dxbc::literal::parse_uint)
                    .ok_or_else(|| {
                        c.error_at(pos, format!("expected 'stride=N', found '{stride}'"))
                    })?;
                token |= (value & 0xfff) << 11;
            }
            dim = Some(ExtOpcodeToken(token));
        } else if group.len() == 4 && is_instruction(opcode) {
            ret = Some(ExtOpcodeToken(
                ext_opcode::RESOURCE_RETURN_TYPE | (return_types(c, pos, &group)? << 6),
            ));
        } else {
            m.groups.push(group);
        }
    }
    m.ext.extend([offsets, dim, ret].into_iter().flatten());
    Ok((opcode, m))
}

/// The dwords of `[padding(0x..., ...)]`, after its opening `[padding(`.
fn parse_padding(c: &mut Cursor<'_>, m: &mut Mnemonic<'_>) -> Result<()> {
    loop {
        m.padding.push(c.uint()?);
        if !c.eat(',') {
            break;
        }
    }
    c.expect(')')?;
    c.expect(']')
}

/// Packs `(float,float,float,float)` into four 4-bit return types.
pub(super) fn return_types(c: &Cursor<'_>, pos: usize, group: &[&str]) -> Result<u32> {
    let mut packed = 0;
    for (i, name) in group.iter().enumerate() {
        let t = names::reverse(names::RETURN_TYPES, name)
            .ok_or_else(|| c.error_at(pos, format!("unknown return type '{name}'")))?;
        packed |= t << (4 * i);
    }
    Ok(packed)
}

fn is_conditional(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Breakc
            | Opcode::Continuec
            | Opcode::If
            | Opcode::Retc
            | Opcode::Discard
            | Opcode::Callc
    )
}

fn is_instruction(op: Opcode) -> bool {
    op.class() != crate::front::dxbc::opcodes::Class::Declaration
}
