//! `dxbc2spv reflect` for Direct3D 9 token streams (recognised by the version token whatever the
//! file's extension): constants (`def`/`defi`/`defb`, and the named constants of the `CTAB`
//! constant table, or why it does not parse: the runtime ignores comments), samplers
//! and their texture types, `dcl` inputs and outputs, registers read and written per file, and
//! the features a runtime must know of; and what the translation with the default parameters
//! binds and links (`reflect_d3d9_bound`: `b0`/`b1`/`b2`, `t#`/`s#`, inputs and outputs by
//! usage and location, or why it does not translate); as text or one JSON object per input (the
//! schema is in `docs/cli.md`). Vulkan bindings (`--bindings`) do not apply to D3D9 streams.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use anyhow::Result;
use dxbc2spv::front::d3d9::ctab::{self, ConstantTable};
use dxbc2spv::front::d3d9::decode;
use dxbc2spv::front::d3d9::program::RegisterType;
use dxbc2spv::front::d3d9::reflect::{register_name, IoDeclaration, Reflection};
use dxbc2spv::text::d3d9::ctab_header::type_name;
use serde::Serialize;

use super::info_d3d9::{fourcc_text, is_d3d9_file};
use super::json;
use super::reflect_d3d9_bound::{self as bound, TranslationJson};
use super::Console;
use crate::inputs;

/// Prints `reflect` for `path` when it is a D3D9 token stream and says whether it was one (then
/// the caller moves on to the next input); `printed` counts the records printed so far.
pub fn handled(
    path: &Path,
    json: bool,
    printed: &mut usize,
    console: &mut Console<'_>,
) -> io::Result<bool> {
    if !is_d3d9_file(path) {
        return Ok(false);
    }
    let name = path.display().to_string();
    let rendered = inputs::read(path).and_then(|bytes| -> Result<String> {
        let program = decode(&bytes, 0)?;
        let r = Reflection::of(&program);
        let (named, ctab_error) = match ctab::of_program(&program) {
            Some(Ok(table)) => (named_constants(&table), None),
            Some(Err(e)) => (Vec::new(), Some(e.to_string())),
            None => (Vec::new(), None),
        };
        let translation = bound::of(&bytes);
        Ok(if json {
            let mut record = to_json(&name, &r);
            record.named_constants = named;
            record.constant_table_error = ctab_error;
            match translation {
                Ok(t) => record.translation = Some(t),
                Err(e) => record.translation_error = Some(e),
            }
            json::line(&record)?
        } else {
            let separator = if *printed > 0 { "\n" } else { "" };
            let mut s = text(&name, &r, &named, ctab_error.as_deref());
            // Writing to a String cannot fail.
            let _ = bound::write_text(&mut s, &translation);
            format!("{separator}{s}")
        })
    });
    match rendered {
        Ok(text) => {
            console.out().write_all(text.as_bytes())?;
            *printed += 1;
            console.succeeded();
        }
        Err(e) => console.failed(path, &e)?,
    }
    Ok(true)
}

/// `.xyzw` letters of a write mask.
fn mask(m: u8) -> String {
    (0..4)
        .filter(|i| m & (1 << i) != 0)
        .map(|i| ['x', 'y', 'z', 'w'][i])
        .collect()
}

/// `t1.xy`, `vFace` (a full mask prints no letters).
fn io_register(io: &IoDeclaration) -> String {
    let mut s = register_name(io.register, io.num);
    if io.mask != 0 && io.mask != 0xf {
        let _ = write!(s, ".{}", mask(io.mask));
    }
    s
}

fn io_text(io: &IoDeclaration) -> String {
    let mut s = io_register(io);
    if let Some(usage) = io.usage {
        let _ = write!(s, "  {usage}{}", io.usage_index);
    }
    if io.centroid {
        s.push_str("  centroid");
    }
    if io.partial_precision {
        s.push_str("  pp");
    }
    s
}

fn names(file: RegisterType, nums: &[u32]) -> Vec<String> {
    nums.iter().map(|&n| register_name(file, n)).collect()
}

/// The constant table's constants: name, first register (`c4`, `s0`), count, HLSL type.
fn named_constants(table: &ConstantTable<'_>) -> Vec<NamedJson> {
    table
        .constants
        .iter()
        .map(|c| {
            let mut ty = type_name(&c.ty);
            if c.ty.elements > 1 {
                let _ = write!(ty, "[{}]", c.ty.elements);
            }
            NamedJson {
                name: c.name.to_string(),
                register: format!("{}{}", c.register_set.prefix(), c.register_index),
                count: c.register_count,
                ty,
            }
        })
        .collect()
}

fn text(path: &str, r: &Reflection, named: &[NamedJson], ctab_error: Option<&str>) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_text(&mut s, path, r, named, ctab_error);
    s
}

fn write_text(
    s: &mut String,
    path: &str,
    r: &Reflection,
    named: &[NamedJson],
    ctab_error: Option<&str>,
) -> std::fmt::Result {
    writeln!(s, "{path}")?;
    writeln!(
        s,
        "  program: {} (Direct3D 9), {} instruction{}",
        r.version.profile(),
        r.instructions,
        if r.instructions == 1 { "" } else { "s" }
    )?;
    let defs = r.float_constants.len() + r.int_constants.len() + r.bool_constants.len();
    writeln!(s, "  constants (def): {defs}")?;
    for c in &r.float_constants {
        let [x, y, z, w] = c.values();
        writeln!(s, "    c{} = ({x}, {y}, {z}, {w})", c.register)?;
    }
    for c in &r.int_constants {
        let [x, y, z, w] = c.values;
        writeln!(s, "    i{} = ({x}, {y}, {z}, {w})", c.register)?;
    }
    for c in &r.bool_constants {
        writeln!(s, "    b{} = {}", c.register, c.value)?;
    }
    match r.constant_table {
        Some(t) => writeln!(
            s,
            "  constant table: CTAB at {:#06x}, {} bytes",
            t.offset, t.size
        )?,
        None => writeln!(s, "  constant table: none")?,
    }
    if let Some(e) = ctab_error {
        writeln!(s, "    does not parse: {e}")?;
    }
    for c in named {
        writeln!(s, "    {:<6} {} x{}  {}", c.register, c.name, c.count, c.ty)?;
    }
    writeln!(s, "  samplers: {}", r.samplers.len())?;
    for smp in &r.samplers {
        let kind = smp
            .texture_type
            .map_or("(no dcl: type from the runtime)", |t| t.name());
        let unused = if smp.used { "" } else { "  (not sampled)" };
        writeln!(s, "    s{}  {kind}{unused}", smp.register)?;
    }
    for (title, list) in [("inputs", &r.inputs), ("outputs", &r.outputs)] {
        writeln!(s, "  {title} (dcl): {}", list.len())?;
        for io in list {
            writeln!(s, "    {}", io_text(io))?;
        }
    }
    writeln!(s, "  registers:")?;
    for u in &r.registers {
        let relative = if u.relative { "  (relative)" } else { "" };
        writeln!(
            s,
            "    read [{}]  written [{}]{relative}",
            names(u.file, &u.read).join(", "),
            names(u.file, &u.written).join(", ")
        )?;
    }
    let uses: Vec<&str> = [
        (r.relative_addressing, "relative addressing"),
        (r.predicates, "predicates"),
        (r.texkill, "texkill"),
        (r.derivatives, "dsx/dsy"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect();
    if uses.is_empty() {
        writeln!(s, "  uses: -")?;
    } else {
        writeln!(s, "  uses: {}", uses.join(", "))?;
    }
    Ok(())
}

/// `reflect --json` for a D3D9 token stream.
#[derive(Serialize)]
struct ReflectD3d9Json<'a> {
    path: &'a str,
    format: &'static str,
    version: String,
    instructions: usize,
    float_constants: Vec<FloatJson>,
    int_constants: Vec<IntJson>,
    bool_constants: Vec<BoolJson>,
    /// Where the CTAB block is.
    constant_table: Option<TableJson>,
    /// The CTAB block's constants.
    named_constants: Vec<NamedJson>,
    /// Why the CTAB block does not parse, when it does not.
    constant_table_error: Option<String>,
    samplers: Vec<SamplerJson>,
    inputs: Vec<IoJson>,
    outputs: Vec<IoJson>,
    registers: Vec<RegistersJson>,
    relative_addressing: bool,
    predicates: bool,
    texkill: bool,
    derivatives: bool,
    comments: Vec<String>,
    /// What the translation with the default parameters binds and links.
    translation: Option<TranslationJson>,
    /// Why the stream does not translate, when it does not.
    translation_error: Option<String>,
}

#[derive(Serialize)]
struct FloatJson {
    register: u32,
    values: [f32; 4],
}

#[derive(Serialize)]
struct IntJson {
    register: u32,
    values: [i32; 4],
}

#[derive(Serialize)]
struct BoolJson {
    register: u32,
    value: bool,
}

/// One constant of the CTAB constant table.
#[derive(Serialize)]
struct NamedJson {
    name: String,
    register: String,
    count: u16,
    #[serde(rename = "type")]
    ty: String,
}

#[derive(Serialize)]
struct TableJson {
    offset: u32,
    size: u32,
}

#[derive(Serialize)]
struct SamplerJson {
    register: u32,
    texture_type: Option<&'static str>,
    used: bool,
}

#[derive(Serialize)]
struct IoJson {
    register: String,
    mask: String,
    usage: Option<&'static str>,
    usage_index: u32,
    centroid: bool,
    partial_precision: bool,
}

#[derive(Serialize)]
struct RegistersJson {
    read: Vec<String>,
    written: Vec<String>,
    relative: bool,
}

fn io_json(io: &IoDeclaration) -> IoJson {
    IoJson {
        register: register_name(io.register, io.num),
        mask: mask(io.mask),
        usage: io.usage,
        usage_index: io.usage_index,
        centroid: io.centroid,
        partial_precision: io.partial_precision,
    }
}

fn to_json<'a>(path: &'a str, r: &Reflection) -> ReflectD3d9Json<'a> {
    ReflectD3d9Json {
        path,
        format: "d3d9",
        version: r.version.profile(),
        instructions: r.instructions,
        float_constants: r
            .float_constants
            .iter()
            .map(|c| FloatJson {
                register: c.register,
                values: c.values(),
            })
            .collect(),
        int_constants: r
            .int_constants
            .iter()
            .map(|c| IntJson {
                register: c.register,
                values: c.values,
            })
            .collect(),
        bool_constants: r
            .bool_constants
            .iter()
            .map(|c| BoolJson {
                register: c.register,
                value: c.value,
            })
            .collect(),
        constant_table: r.constant_table.map(|t| TableJson {
            offset: t.offset,
            size: t.size,
        }),
        named_constants: Vec::new(),
        constant_table_error: None,
        samplers: r
            .samplers
            .iter()
            .map(|s| SamplerJson {
                register: s.register,
                texture_type: s.texture_type.map(|t| t.name()),
                used: s.used,
            })
            .collect(),
        inputs: r.inputs.iter().map(io_json).collect(),
        outputs: r.outputs.iter().map(io_json).collect(),
        registers: r
            .registers
            .iter()
            .map(|u| RegistersJson {
                read: names(u.file, &u.read),
                written: names(u.file, &u.written),
                relative: u.relative,
            })
            .collect(),
        relative_addressing: r.relative_addressing,
        predicates: r.predicates,
        texkill: r.texkill,
        derivatives: r.derivatives,
        comments: r.comments.iter().map(|&f| fourcc_text(f)).collect(),
        translation: None,
        translation_error: None,
    }
}
