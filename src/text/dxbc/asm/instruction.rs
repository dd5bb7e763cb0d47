//! One instruction or declaration line → tokens through [`ProgramBuilder`], following the slots
//! of the opcode table; declarations in their own layouts (the inverse of the disassembler's
//! `write_declaration`).

use super::cursor::Cursor;
use super::error::Result;
use super::mnemonic::{parse_mnemonic, return_types, Mnemonic};
use super::operand::{finish_ext, parse_operand, Context, Role};
use crate::front::dxbc::names::{self, NameTable};
use crate::front::dxbc::opcodes::{Class, Opcode, Slot};
use crate::front::dxbc::operand::{Index, IndexRepr, Operand, RegisterType};
use crate::front::dxbc::program::ShaderVersion;
use crate::text::dxbc::disasm::Dialect;
use crate::text::dxbc::encode::ProgramBuilder;

/// Assembles the instruction on `c` (one logical line) into `b`.
pub(super) fn assemble_instruction(
    c: &mut Cursor<'_>,
    b: &mut ProgramBuilder,
    version: ShaderVersion,
    dialect: Dialect,
) -> Result<()> {
    let (opcode, m) = parse_mnemonic(c)?;
    let sm51 = version.is_sm51();
    if opcode.class() == Class::Declaration {
        return declaration(c, b, opcode, m, sm51, dialect);
    }
    if let Some(word) = m.words.first() {
        return Err(c.error(format!("unknown suffix '_{word}' on {}", opcode.name())));
    }
    if !m.groups.is_empty() {
        return Err(c.error(format!("unexpected '(...)' after {}", opcode.name())));
    }
    b.op(opcode, m.token_bits >> 11);
    for e in &m.ext {
        b.ext(*e);
    }
    for p in &m.padding {
        b.padding(*p);
    }

    if opcode == Opcode::InterfaceCall {
        // `fcall fp0[array][function]`: the last index is the function-index dword.
        let mut op = parse_operand(
            c,
            Context {
                role: Role::Src,
                sm51,
                untyped: false,
            },
        )?;
        if op.index_count == 0 {
            return Err(c.error("expected fp#[array][function]"));
        }
        op.index_count -= 1;
        let function = op.indices[op.index_count as usize].imm as u32;
        op.indices[op.index_count as usize] = Index::default();
        b.imm(function).src(op);
        return c.expect_end();
    }
    let mut first = true;
    for slot in opcode.slots() {
        let role = match slot {
            Slot::Dst => Role::Dst,
            Slot::Src => Role::Src,
            _ => continue,
        };
        if !first {
            c.expect(',')?;
        }
        first = false;
        let untyped = role == Role::Src && prints_untyped(opcode);
        let op = parse_operand(
            c,
            Context {
                role,
                sm51,
                untyped,
            },
        )?;
        if opcode == Opcode::SamplePos && op.ty == RegisterType::Resource && m.padding.is_empty() {
            // fxc writes samplepos of a texture with one zero dword after its operands.
            b.padding(0);
        }
        if role == Role::Dst {
            b.dst(op);
        } else {
            b.src(op);
        }
    }
    c.expect_end()
}

/// Sources the disassembler prints untyped (see `disasm::instruction::operand_style`).
fn prints_untyped(op: Opcode) -> bool {
    op.num_type() == crate::front::dxbc::opcodes::NumType::Untyped
        && match op.class() {
            Class::Texture | Class::Pixel => false,
            Class::Memory => matches!(
                op,
                Opcode::StoreRaw | Opcode::StoreStructured | Opcode::StoreUavTyped
            ),
            _ => true,
        }
}

fn lookup(c: &Cursor<'_>, table: NameTable, word: &str, what: &str) -> Result<u32> {
    names::reverse(table, word).ok_or_else(|| c.error(format!("unknown {what} '{word}'")))
}

/// A declared register, SM5.1 ranges (`T0[1:*]`) included.
fn decl_operand(c: &mut Cursor<'_>, sm51: bool) -> Result<Operand> {
    let ctx = Context {
        role: Role::Decl,
        sm51,
        untyped: false,
    };
    // `T0[lower:upper]` is a 3-D operand [range id][lower][upper].
    let save = c.clone();
    if sm51 {
        if let Some(ident) = c.ident() {
            if c.peek_raw() == Some('[') {
                let rest = c.rest();
                if let Some(close) = rest.find(']') {
                    if let Some((lo, hi)) = rest[1..close].split_once(':') {
                        let parse = |s: &str| crate::front::dxbc::literal::parse_uint(s.trim());
                        let lower =
                            parse(lo).ok_or_else(|| c.error("invalid range lower bound"))?;
                        let upper = if hi.trim() == "*" {
                            u32::MAX
                        } else {
                            parse(hi).ok_or_else(|| c.error("invalid range upper bound"))?
                        };
                        // The range id as a 1-D operand, then the bounds.
                        let mut reg = Cursor::new(ident, c.line(), c.column_of(save.pos()));
                        let mut op = parse_operand(&mut reg, ctx)?;
                        for _ in 0..=close {
                            c.expect_any()?;
                        }
                        op.indices[1] = imm_index(lower);
                        op.indices[2] = imm_index(upper);
                        op.index_count = 3;
                        finish_ext(&mut op);
                        return Ok(op);
                    }
                }
            }
        }
        *c = save;
    }
    parse_operand(c, ctx)
}

fn imm_index(value: u32) -> Index {
    Index {
        repr: IndexRepr::Imm32,
        imm: u64::from(value),
        rel: None,
    }
}

/// `, space=N` of SM5.1 declarations.
fn space(c: &mut Cursor<'_>, b: &mut ProgramBuilder, sm51: bool) -> Result<()> {
    if sm51 {
        c.expect(',')?;
        if !c.eat_str("space") {
            return Err(c.error("expected 'space=N'"));
        }
        c.expect('=')?;
        let n = c.uint()?;
        b.space(n);
    }
    Ok(())
}

fn declaration(
    c: &mut Cursor<'_>,
    b: &mut ProgramBuilder,
    opcode: Opcode,
    m: Mnemonic<'_>,
    sm51: bool,
    dialect: Dialect,
) -> Result<()> {
    let mut bits = m.token_bits;
    let words = m.words.clone();
    let take_flags = |allowed: &[(&str, u32)], bits: &mut u32, c: &Cursor<'_>| -> Result<()> {
        for w in &words {
            match allowed.iter().find(|(n, _)| n == w) {
                Some((_, bit)) => *bits |= 1 << bit,
                None => {
                    if names::reverse(names::RESOURCE_DIMENSIONS, w).is_none() {
                        return Err(c.error(format!("unknown suffix '_{w}' on {}", opcode.name())));
                    }
                }
            }
        }
        Ok(())
    };
    let dimension = |c: &Cursor<'_>| -> Result<u32> {
        let joined = m
            .words
            .iter()
            .copied()
            .find(|w| names::reverse(names::RESOURCE_DIMENSIONS, w).is_some());
        let w = joined.ok_or_else(|| c.error("expected a resource dimension"))?;
        lookup(c, names::RESOURCE_DIMENSIONS, w, "resource dimension")
    };
    match opcode {
        Opcode::DclResource | Opcode::DclUavTyped => {
            let dim = dimension(c)?;
            bits |= dim << 11;
            take_flags(&[("glc", 16), ("rov", 17)], &mut bits, c)?;
            let mut groups = m.groups.iter();
            if matches!(dim, 4 | 9) {
                if let Some(g) = m.groups.first().filter(|g| g.len() == 1) {
                    let count = crate::front::dxbc::literal::parse_uint(g[0])
                        .ok_or_else(|| c.error("invalid sample count"))?;
                    bits |= (count & 0x7f) << 16;
                    groups.next();
                }
            }
            // The return types follow the mnemonic after a space: `dcl_resource_texture2d (float,...)`.
            let ret = parse_return_group(c)?;
            b.op(opcode, bits >> 11);
            let op = decl_operand(c, sm51)?;
            b.dst(op).return_type(ret);
            space(c, b, sm51)?;
        }
        Opcode::DclUavRaw
        | Opcode::DclUavStructured
        | Opcode::DclResourceRaw
        | Opcode::DclResourceStructured => {
            take_flags(&[("glc", 16), ("rov", 17), ("opc", 23)], &mut bits, c)?;
            b.op(opcode, bits >> 11);
            let op = decl_operand(c, sm51)?;
            b.dst(op);
            if matches!(
                opcode,
                Opcode::DclUavStructured | Opcode::DclResourceStructured
            ) {
                c.expect(',')?;
                let stride = c.uint()?;
                b.imm(stride);
            }
            space(c, b, sm51)?;
        }
        Opcode::DclConstantBuffer => {
            let mut op = decl_operand(c, sm51)?;
            let mut size = None;
            if sm51 {
                c.expect('[')?;
                size = Some(c.uint()?);
                c.expect(']')?;
            } else if op.index_count == 2 {
                // `CB0[4]` / `cb0[4]`: [slot][size in vec4s].
            } else {
                return Err(c.error("expected cb#[size]"));
            }
            c.expect(',')?;
            let access = c.ident().unwrap_or("");
            match access {
                "immediateIndexed" => {}
                "dynamicIndexed" => bits |= 1 << 11,
                other => return Err(c.error(format!("unknown access pattern '{other}'"))),
            }
            op.components = crate::front::dxbc::operand::Components::Swizzle([0, 1, 2, 3]);
            b.op(opcode, bits >> 11).src(op);
            if let Some(size) = size {
                b.cb_size(size);
            }
            space(c, b, sm51)?;
        }
        Opcode::DclSampler => {
            let op = decl_operand(c, sm51)?;
            c.expect(',')?;
            let mode = c.ident().unwrap_or("");
            bits |= lookup(c, names::SAMPLER_MODES, mode, "sampler mode")? << 11;
            b.op(opcode, bits >> 11).dst(op);
            space(c, b, sm51)?;
        }
        Opcode::DclInputPs | Opcode::DclInputPsSiv | Opcode::DclInputPsSgv => {
            let mut mode = 0;
            let mut words: Vec<&str> = Vec::new();
            loop {
                let save = c.clone();
                match c.ident() {
                    Some(w @ ("constant" | "linear" | "centroid" | "noperspective" | "sample")) => {
                        words.push(w)
                    }
                    _ => {
                        *c = save;
                        break;
                    }
                }
            }
            if !words.is_empty() {
                let joined = words.join(" ");
                mode = lookup(c, names::INTERPOLATION_MODES, &joined, "interpolation mode")?;
            } else if opcode == Opcode::DclInputPsSgv && !dialect.sgv_interpolation() {
                // Releases before fxc 10 leave out the `constant` they store for these.
                mode = 1;
            }
            bits |= mode << 11;
            let op = decl_operand(c, sm51)?;
            b.op(opcode, bits >> 11).dst(op);
            if opcode != Opcode::DclInputPs {
                system_value(c, b)?;
            }
        }
        Opcode::DclInput
        | Opcode::DclInputSgv
        | Opcode::DclInputSiv
        | Opcode::DclOutput
        | Opcode::DclOutputSgv
        | Opcode::DclOutputSiv
        | Opcode::DclStream => {
            let op = decl_operand(c, sm51)?;
            b.op(opcode, bits >> 11).dst(op);
            if matches!(
                opcode,
                Opcode::DclInputSgv
                    | Opcode::DclInputSiv
                    | Opcode::DclOutputSgv
                    | Opcode::DclOutputSiv
            ) {
                system_value(c, b)?;
            }
        }
        Opcode::DclIndexRange => {
            let op = decl_operand(c, sm51)?;
            let count = c.uint()?;
            b.op(opcode, bits >> 11).dst(op).imm(count);
        }
        Opcode::DclTemps
        | Opcode::DclMaxOutputVertexCount
        | Opcode::DclGsInstanceCount
        | Opcode::DclHsForkPhaseInstanceCount
        | Opcode::DclHsJoinPhaseInstanceCount => {
            let n = c.uint()?;
            b.op(opcode, bits >> 11).imm(n);
        }
        Opcode::DclIndexableTemp => {
            let reg = c.ident().ok_or_else(|| c.error("expected x#"))?;
            let n = reg
                .strip_prefix('x')
                .and_then(crate::front::dxbc::literal::parse_uint)
                .ok_or_else(|| c.error(format!("expected x#, found '{reg}'")))?;
            c.expect('[')?;
            let size = c.uint()?;
            c.expect(']')?;
            c.expect(',')?;
            let comps = c.uint()?;
            b.op(opcode, bits >> 11).imm(n).imm(size).imm(comps);
        }
        Opcode::DclThreadGroup => {
            let x = c.uint()?;
            c.expect(',')?;
            let y = c.uint()?;
            c.expect(',')?;
            let z = c.uint()?;
            b.op(opcode, bits >> 11).imm(x).imm(y).imm(z);
        }
        Opcode::DclTgsmRaw | Opcode::DclTgsmStructured => {
            let op = decl_operand(c, sm51)?;
            c.expect(',')?;
            let a = c.uint()?;
            b.op(opcode, bits >> 11).dst(op).imm(a);
            if opcode == Opcode::DclTgsmStructured {
                c.expect(',')?;
                let n = c.uint()?;
                b.imm(n);
            }
        }
        Opcode::DclGlobalFlags => {
            while let Some(flag) = c.ident() {
                bits |= 1 << lookup(c, names::GLOBAL_FLAGS, flag, "global flag")?;
                if !c.eat('|') {
                    break;
                }
            }
            b.op(opcode, bits >> 11);
        }
        Opcode::DclInputPrimitive => {
            let w = c.ident().unwrap_or("");
            let p = match w
                .strip_prefix("patch")
                .and_then(crate::front::dxbc::literal::parse_uint)
            {
                Some(n) if (1..=32).contains(&n) => n + 7,
                _ => lookup(c, names::INPUT_PRIMITIVES, w, "input primitive")?,
            };
            b.op(opcode, (bits >> 11) | p);
        }
        Opcode::DclOutputTopology => {
            let w = c.ident().unwrap_or("");
            let t = lookup(c, names::OUTPUT_TOPOLOGIES, w, "output topology")?;
            b.op(opcode, (bits >> 11) | t);
        }
        Opcode::DclInputControlPointCount | Opcode::DclOutputControlPointCount => {
            let n = c.uint()?;
            if n > 63 {
                return Err(c.error(format!("control point count {n} is larger than 63")));
            }
            b.op(opcode, (bits >> 11) | n);
        }
        Opcode::DclTessDomain | Opcode::DclTessPartitioning | Opcode::DclTessOutputPrimitive => {
            let table = match opcode {
                Opcode::DclTessDomain => names::TESS_DOMAINS,
                Opcode::DclTessPartitioning => names::TESS_PARTITIONINGS,
                _ => names::TESS_OUTPUT_PRIMITIVES,
            };
            let w = c.ident().unwrap_or("");
            let v = lookup(c, table, w, "tessellator mode")?;
            b.op(opcode, (bits >> 11) | v);
        }
        Opcode::DclHsMaxTessFactor => {
            if !(c.eat_str("l") && c.eat('(')) {
                return Err(c.error("expected l(<float>)"));
            }
            let text = c.number_text().ok_or_else(|| c.error("expected a float"))?;
            let v = crate::front::dxbc::literal::parse_dword(text)
                .ok_or_else(|| c.error("invalid float"))?;
            c.expect(')')?;
            b.op(opcode, bits >> 11).imm(v);
        }
        Opcode::DclFunctionBody => {
            let id = prefixed_number(c, "fb")?;
            b.op(opcode, bits >> 11).imm(id);
        }
        Opcode::DclFunctionTable => {
            let id = prefixed_number(c, "ft")?;
            c.expect('=')?;
            let list = id_list(c, "fb")?;
            b.op(opcode, bits >> 11)
                .imm(id)
                .imm(list.len() as u32)
                .list(&list);
        }
        Opcode::DclInterface => {
            if m.words.first() == Some(&"dynamicindexed") {
                bits |= 1 << 11;
            }
            let id = prefixed_number(c, "fp")?;
            c.expect('[')?;
            let array = c.uint()?;
            c.expect(']')?;
            c.expect('[')?;
            let table_len = c.uint()?;
            c.expect(']')?;
            c.expect('=')?;
            let list = id_list(c, "ft")?;
            b.op(opcode, bits >> 11)
                .imm(id)
                .imm(table_len)
                .imm((array << 16) | list.len() as u32)
                .list(&list);
        }
        Opcode::HsDecls
        | Opcode::HsControlPointPhase
        | Opcode::HsForkPhase
        | Opcode::HsJoinPhase => {
            b.op(opcode, bits >> 11);
        }
        _ => return Err(c.error(format!("unsupported declaration {}", opcode.name()))),
    }
    c.expect_end()
}

fn parse_return_group(c: &mut Cursor<'_>) -> Result<u32> {
    c.expect('(')?;
    let pos = c.pos();
    let rest = c.rest();
    let close = rest.find(')').ok_or_else(|| c.error("unclosed '('"))?;
    let group: Vec<&str> = rest[..close].split(',').map(str::trim).collect();
    let packed = return_types(c, pos, &group)?;
    for _ in 0..=close {
        c.expect_any()?;
    }
    Ok(packed)
}

fn system_value(c: &mut Cursor<'_>, b: &mut ProgramBuilder) -> Result<()> {
    c.expect(',')?;
    let w = c.ident().unwrap_or("");
    let v = lookup(c, names::SYSTEM_VALUES, w, "system value")?;
    b.name(v);
    Ok(())
}

fn prefixed_number(c: &mut Cursor<'_>, prefix: &str) -> Result<u32> {
    let w = c.ident().unwrap_or("");
    w.strip_prefix(prefix)
        .and_then(crate::front::dxbc::literal::parse_uint)
        .ok_or_else(|| c.error(format!("expected {prefix}#, found '{w}'")))
}

fn id_list(c: &mut Cursor<'_>, prefix: &str) -> Result<Vec<u32>> {
    c.expect('{')?;
    let mut out = Vec::new();
    if !c.eat('}') {
        loop {
            out.push(prefixed_number(c, prefix)?);
            if c.eat('}') {
                break;
            }
            c.expect(',')?;
        }
    }
    Ok(out)
}
