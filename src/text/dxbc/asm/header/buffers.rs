//! The `Buffer Definitions` blocks of fxc's comment header.
//!
//! Contract: [`parse_buffers`] reads the section's lines into [`BufferDef`] blocks (`cbuffer`,
//! `tbuffer`, `interfaces`, `Resource bind info for`) with their variables: declarations with
//! their `// Offset: Size:` comments, struct blocks with their members (offsets absolute, as fxc
//! prints them) and `= 0x...` default values. Types are read by [`super::types`]. A malformed line
//! is an [`crate::text::dxbc::asm::AsmError`] at its field.

use super::types::{parse_type, MemberDef, TypeDef};
use super::{fields, number, Field, Line};
use crate::front::dxbc::rdef::BufferKind;
use crate::text::dxbc::asm::error::Result;

/// One `Buffer Definitions` block.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferDef {
    /// 1-based line of its first line.
    pub line: u32,
    /// `cbuffer`, `tbuffer`, `interfaces` or `Resource bind info for`.
    pub kind: BufferKind,
    /// Name.
    pub name: String,
    /// Variables, in listing order.
    pub variables: Vec<VariableDef>,
}

/// A variable of a buffer block.
#[derive(Clone, Debug, PartialEq)]
pub struct VariableDef {
    /// 1-based line of its declaration (the closing line for structs).
    pub line: u32,
    /// Name.
    pub name: String,
    /// Type.
    pub ty: TypeDef,
    /// Byte offset in the buffer.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// False when fxc printed `[unused]`.
    pub used: bool,
    /// The default value (`= 0x...` words), as little-endian bytes.
    pub default_value: Option<Vec<u8>>,
}

/// The `Buffer Definitions` blocks.
pub(super) fn parse_buffers(lines: &[Line<'_>]) -> Result<Vec<BufferDef>> {
    let mut p = BufferParser { lines, at: 0 };
    let mut out = Vec::new();
    while let Some(line) = p.next_nonblank() {
        let t = line.text.trim();
        let (kind, name) = if let Some(n) = t.strip_prefix("Resource bind info for ") {
            (BufferKind::ResourceBindInfo, n)
        } else if let Some(n) = t.strip_prefix("cbuffer ") {
            (BufferKind::CBuffer, n)
        } else if let Some(n) = t.strip_prefix("tbuffer ") {
            (BufferKind::TBuffer, n)
        } else if let Some(n) = t.strip_prefix("interfaces ") {
            (BufferKind::InterfacePointers, n)
        } else {
            return Err(line.error(
                line.column,
                format!("expected cbuffer, tbuffer, interfaces or 'Resource bind info for', found '{t}'"),
            ));
        };
        p.expect_open(&line)?;
        let mut variables = Vec::new();
        loop {
            let Some(entry) = p.next_nonblank() else {
                return Err(line.error(line.column, format!("buffer '{name}' has no closing '}}'")));
            };
            let t = entry.text.trim();
            if t == "}" {
                break;
            }
            if let Some(value) = t.strip_prefix('=') {
                let Some(last) = variables.last_mut() else {
                    return Err(entry.error(entry.column, "default value before any variable"));
                };
                let last: &mut VariableDef = last;
                last.default_value = Some(default_value(&entry, value)?);
                continue;
            }
            let decl = p.declaration(entry)?;
            let Some(size) = decl.size else {
                return Err(entry.error(entry.end(), "expected 'Size:' in a variable's comment"));
            };
            variables.push(VariableDef {
                line: decl.line,
                name: decl.name,
                ty: decl.ty,
                offset: decl.offset,
                size,
                used: decl.used,
                default_value: None,
            });
        }
        out.push(BufferDef {
            line: line.number,
            kind,
            name: name.to_string(),
            variables,
        });
    }
    Ok(out)
}

/// A declaration line (or struct block) of a buffer: `float4 a[2]; // Offset: 16 Size: 32`.
struct Declaration {
    line: u32,
    name: String,
    ty: TypeDef,
    offset: u32,
    size: Option<u32>,
    used: bool,
}

/// A cursor over a buffer section's lines.
struct BufferParser<'l, 't> {
    lines: &'l [Line<'t>],
    at: usize,
}

impl<'t> BufferParser<'_, 't> {
    fn next_nonblank(&mut self) -> Option<Line<'t>> {
        while let Some(line) = self.lines.get(self.at).copied() {
            self.at += 1;
            if !line.text.trim().is_empty() {
                return Some(line);
            }
        }
        None
    }

    fn expect_open(&mut self, after: &Line<'_>) -> Result<()> {
        match self.next_nonblank() {
            Some(l) if l.text.trim() == "{" => Ok(()),
            Some(l) => Err(l.error(
                l.column + (l.text.len() - l.text.trim_start().len()) as u32,
                format!("expected '{{', found '{}'", l.text.trim()),
            )),
            None => Err(after.error(after.end(), "expected '{', found end of section")),
        }
    }

    /// One declaration starting at `line`: a plain one, or a struct up to its closing line.
    fn declaration(&mut self, line: Line<'t>) -> Result<Declaration> {
        let t = line.text.trim();
        if t == "struct" || t.starts_with("struct ") {
            return self.struct_block(line);
        }
        let (decl, comment) = split_comment(&line)?;
        let fields = fields(decl.text, decl.column);
        let Some((last, type_fields)) = fields.split_last() else {
            return Err(line.error(line.column, "expected a declaration"));
        };
        let (name, elements) = name_and_elements(&line, *last)?;
        if type_fields.is_empty() {
            return Err(line.error(last.column, format!("expected a type before '{name}'")));
        }
        let mut ty = parse_type(&line, type_fields)?;
        ty.elements = elements;
        let (offset, size, used) = offset_comment(&line, comment)?;
        Ok(Declaration {
            line: line.number,
            name,
            ty,
            offset,
            size,
            used,
        })
    }

    /// `struct [Name] { members } name[N]; // Offset: ...`
    fn struct_block(&mut self, head: Line<'t>) -> Result<Declaration> {
        let struct_name = head.text.trim()["struct".len()..].trim();
        self.expect_open(&head)?;
        let mut members = Vec::new();
        loop {
            let Some(line) = self.next_nonblank() else {
                return Err(head.error(head.column, "struct has no closing '}'"));
            };
            let t = line.text.trim();
            if let Some(rest) = t.strip_prefix('}') {
                if rest.trim().is_empty() {
                    return Err(
                        line.error(line.end(), "expected the struct's variable name after '}'")
                    );
                }
                let (decl, comment) = split_comment(&line)?;
                let close = decl.text.trim_start();
                let skip = decl.text.len() - close.len() + 1;
                let after = &decl.text[skip..];
                let column = decl.column + decl.text[..skip].chars().count() as u32;
                let fields = fields(after, column);
                let [field] = fields[..] else {
                    return Err(line.error(column, "expected one variable name after '}'"));
                };
                let (name, elements) = name_and_elements(&line, field)?;
                let (offset, size, used) = offset_comment(&line, comment)?;
                return Ok(Declaration {
                    line: line.number,
                    name,
                    ty: TypeDef {
                        class: 5,
                        base: 0,
                        rows: 1,
                        columns: 0,
                        elements,
                        name: (!struct_name.is_empty()).then(|| struct_name.to_string()),
                        members,
                    },
                    offset,
                    size,
                    used,
                });
            }
            let d = self.declaration(line)?;
            members.push(MemberDef {
                name: d.name,
                offset: d.offset,
                ty: d.ty,
            });
        }
    }
}

/// Splits a declaration line at its `//` comment: (declaration, comment), both with columns.
fn split_comment<'t>(line: &Line<'t>) -> Result<(Line<'t>, Line<'t>)> {
    let Some(i) = line.text.find("//") else {
        return Err(line.error(
            line.end(),
            "expected '// Offset: ...' after the declaration",
        ));
    };
    let decl = Line {
        text: &line.text[..i],
        ..*line
    };
    let comment = Line {
        number: line.number,
        column: line.column + line.text[..i + 2].chars().count() as u32,
        text: &line.text[i + 2..],
    };
    Ok((decl, comment))
}

/// `name[N];` → (name, N), or (name, 0) without brackets.
fn name_and_elements(line: &Line<'_>, f: Field<'_>) -> Result<(String, u16)> {
    let Some(text) = f.text.strip_suffix(';') else {
        return Err(line.error(
            f.column + f.text.chars().count() as u32,
            format!("expected ';' after '{}'", f.text),
        ));
    };
    let Some(open) = text.find('[') else {
        return Ok((text.to_string(), 0));
    };
    let count = text[open..]
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            line.error(
                f.column + open as u32,
                format!("expected an array size like [4], found '{}'", &text[open..]),
            )
        })?;
    Ok((text[..open].to_string(), count))
}

/// `Offset: N [Size: N] [[unused]]` → (offset, size, used).
fn offset_comment(line: &Line<'_>, comment: Line<'_>) -> Result<(u32, Option<u32>, bool)> {
    let f = comment.fields();
    let mut offset = None;
    let mut size = None;
    let mut used = true;
    let mut i = 0;
    while i < f.len() {
        match f[i].text {
            "Offset:" | "Size:" => {
                let Some(v) = f.get(i + 1) else {
                    return Err(line.error(
                        comment.end(),
                        format!("expected a number after '{}'", f[i].text),
                    ));
                };
                let n = number(line, *v, "a number")?;
                if f[i].text == "Offset:" {
                    offset = Some(n);
                } else {
                    size = Some(n);
                }
                i += 2;
            }
            "[unused]" => {
                used = false;
                i += 1;
            }
            other => {
                return Err(line.error(f[i].column, format!("expected 'Offset:', found '{other}'")));
            }
        }
    }
    let offset = offset.ok_or_else(|| line.error(comment.column, "expected 'Offset:'"))?;
    Ok((offset, size, used))
}

/// `//      = 0x3f800000 0x00000000 ` → the words as little-endian bytes.
fn default_value(line: &Line<'_>, words: &str) -> Result<Vec<u8>> {
    let start = line.column + (line.text.len() - words.len()) as u32;
    let mut out = Vec::new();
    for f in fields(words, start) {
        let v = f
            .text
            .strip_prefix("0x")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| {
                line.error(f.column, format!("expected a hex word, found '{}'", f.text))
            })?;
        out.extend_from_slice(&v.to_le_bytes());
    }
    Ok(out)
}
