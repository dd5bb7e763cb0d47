//! `dxbc2spv reflect`: what a program declares (resources and their registers, I/O per phase,
//! stage state, signatures), as text or JSON Lines.

use std::fmt::Write as _;
use std::io;

use anyhow::Result;
use dxbc2spv::front::dxbc::names::COMPONENTS;
use dxbc2spv::front::dxbc::reflect::{
    Geometry, IndexRange, IndexableTemp, IoDeclaration, Phase, Reflection, Resource, ResourceKind,
    SignatureElement, Stream, Tessellation, Tgsm, TgsmKind, UavFlags,
};
use dxbc2spv::front::dxbc::{Container, ParseOptions};

use super::json::push_string as json_str;
use super::Console;
use crate::args::ReflectArgs;
use crate::inputs::{self, Found};

/// Reflects every input; see `docs/cli.md`.
pub fn run(args: &ReflectArgs, console: &mut Console<'_>) -> io::Result<()> {
    let options = ParseOptions {
        verify_checksum: !args.no_checksum,
    };
    let mut printed = 0usize;
    for item in inputs::expand(&args.inputs.paths) {
        let input = match item {
            Found::File(input) => input,
            Found::Failed(path, e) => {
                console.failed(&path, &e)?;
                continue;
            }
        };
        let reflection = inputs::read(&input.path).and_then(|bytes| -> Result<Reflection> {
            let container = Container::parse(&bytes, &options)?;
            Ok(Reflection::from_container(&container)?)
        });
        let r = match reflection {
            Ok(r) => r,
            Err(e) => {
                console.failed(&input.path, &e)?;
                continue;
            }
        };
        let path = input.path.display().to_string();
        let text = if args.json {
            let mut s = String::new();
            json(&mut s, &to_json(&path, &r));
            s.push('\n');
            s
        } else {
            let separator = if printed > 0 { "\n" } else { "" };
            format!("{separator}{}", text(&path, &r))
        };
        console.out().write_all(text.as_bytes())?;
        printed += 1;
        console.succeeded();
    }
    Ok(())
}

/// `.xyzw` letters of a mask (empty for 0).
fn mask(m: u8) -> String {
    (0..4)
        .filter(|i| m & (1 << i) != 0)
        .map(|i| COMPONENTS[i])
        .collect()
}

/// `v0.xy`, `v[3][0].xyzw`, `vThreadID.xy`, `oDepth`.
fn io_register(io: &IoDeclaration) -> String {
    let mut s = io.register_type.prefix().to_string();
    match (io.array_size, io.register) {
        (Some(size), Some(reg)) => {
            let _ = write!(s, "[{size}][{reg}]");
        }
        (None, Some(reg)) => {
            let _ = write!(s, "{reg}");
        }
        _ => {}
    }
    if io.mask != 0 {
        let _ = write!(s, ".{}", mask(io.mask));
    }
    s
}

fn io_text(io: &IoDeclaration) -> String {
    let mut s = String::new();
    if let Some(mode) = io.interpolation {
        let _ = write!(s, "{mode} ");
    }
    s.push_str(&io_register(io));
    if let Some(sv) = io.system_value {
        let _ = write!(s, ", {sv}");
    }
    if let Some(stream) = io.stream {
        let _ = write!(s, " (stream {stream})");
    }
    s
}

fn resource_register(r: &Reflection, res: &Resource) -> String {
    res.range.display(res.class(), r.version.is_sm51())
}

/// `n noun`, with an `s` unless `n` is 1.
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn text(path: &str, r: &Reflection) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_text(&mut s, path, r);
    s
}

fn write_text(s: &mut String, path: &str, r: &Reflection) -> std::fmt::Result {
    writeln!(s, "{path}")?;
    writeln!(s, "  program: {}", r.version)?;
    let flags: Vec<&str> = r.global_flags.names().collect();
    if !flags.is_empty() {
        writeln!(s, "  global flags: {}", flags.join(" | "))?;
    }
    if let Some([x, y, z]) = r.thread_group_size {
        writeln!(s, "  thread group: {x} x {y} x {z}")?;
    }
    writeln!(s, "  resources: {}", r.resources.len())?;
    for res in &r.resources {
        let mut register = resource_register(r, res);
        if res.range.space != 0 {
            let _ = write!(register, ", space={}", res.range.space);
        }
        write!(s, "    {register:<22} {}", res.kind)?;
        match &res.name {
            Some(name) => writeln!(s, "  \"{name}\"")?,
            None => writeln!(s)?,
        }
    }
    for g in &r.tgsm {
        match g.kind {
            TgsmKind::Raw { bytes } => writeln!(s, "  tgsm g{}: raw, {bytes} bytes", g.register)?,
            TgsmKind::Structured { stride, count } => writeln!(
                s,
                "  tgsm g{}: structured, {count} x {stride} bytes",
                g.register
            )?,
        }
    }
    if let Some(icb) = r.immediate_constant_buffer {
        writeln!(s, "  immediate constant buffer: {} vec4s", icb.vec4s())?;
    }
    for phase in &r.phases {
        write_phase(s, phase)?;
    }
    if let Some(g) = &r.geometry {
        let mut parts = Vec::new();
        if let Some(p) = g.input_primitive {
            parts.push(format!("input {p}"));
        }
        if let Some(t) = g.output_topology {
            parts.push(format!("output {t}"));
        }
        if let Some(n) = g.max_output_vertices {
            parts.push(format!("max {n} vertices"));
        }
        if let Some(n) = g.instance_count {
            parts.push(count(n as usize, "instance"));
        }
        for st in &g.streams {
            let topology = st
                .output_topology
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            parts.push(format!("stream m{}{topology}", st.index));
        }
        writeln!(s, "  geometry: {}", parts.join(", "))?;
    }
    if let Some(t) = &r.tessellation {
        let mut parts: Vec<String> = Vec::new();
        parts.extend(t.domain.map(|d| d.to_string()));
        parts.extend(t.partitioning.map(|p| p.to_string()));
        parts.extend(t.output_primitive.map(|p| p.to_string()));
        if let Some(n) = t.input_control_points {
            parts.push(format!("{n} input control points"));
        }
        if let Some(n) = t.output_control_points {
            parts.push(format!("{n} output control points"));
        }
        if let Some(f) = t.max_tess_factor {
            parts.push(format!("max tess factor {f}"));
        }
        writeln!(s, "  tessellation: {}", parts.join(", "))?;
    }
    let l = &r.linkage;
    if l.function_bodies > 0 || !l.function_tables.is_empty() || !l.interfaces.is_empty() {
        writeln!(
            s,
            "  linkage: {} function bodies, {}, {}",
            l.function_bodies,
            count(l.function_tables.len(), "function table"),
            count(l.interfaces.len(), "interface")
        )?;
    }
    for (kind, sig) in [
        ("input", &r.signatures.input),
        ("output", &r.signatures.output),
        ("patch-constant", &r.signatures.patch_constant),
    ] {
        let Some(sig) = sig else { continue };
        writeln!(s, "  {kind} signature: {}", count(sig.len(), "element"))?;
        for e in sig {
            write!(s, "    {}{}: ", e.semantic_name, e.semantic_index)?;
            match e.register {
                Some(reg) => write!(s, "register {reg}.{}", mask(e.mask))?,
                None => write!(s, "no register")?,
            }
            write!(s, ", {}", e.component_type.fxc_name().unwrap_or("?"))?;
            match e.system_value.fxc_name() {
                Some("NONE") => {}
                Some(sv) => write!(s, ", {sv}")?,
                None => write!(s, ", system value {}", e.system_value.raw())?,
            }
            if e.stream != 0 {
                write!(s, ", stream {}", e.stream)?;
            }
            writeln!(s)?;
        }
    }
    Ok(())
}

fn write_phase(s: &mut String, phase: &Phase) -> std::fmt::Result {
    write!(
        s,
        "  phase {}: {}",
        phase.kind.name(),
        count(phase.temps as usize, "temp")
    )?;
    if let Some(n) = phase.instance_count {
        write!(s, ", {}", count(n as usize, "instance"))?;
    }
    for x in &phase.indexable_temps {
        write!(
            s,
            ", x{}[{}] ({} components)",
            x.register, x.size, x.components
        )?;
    }
    writeln!(s)?;
    for io in &phase.inputs {
        writeln!(s, "    input {}", io_text(io))?;
    }
    for io in &phase.outputs {
        writeln!(s, "    output {}", io_text(io))?;
    }
    for ir in &phase.index_ranges {
        writeln!(
            s,
            "    index range {}{}.{} {}",
            ir.register_type.prefix(),
            ir.register,
            mask(ir.mask),
            ir.count
        )?;
    }
    Ok(())
}

/// A JSON value.
enum J {
    Null,
    Bool(bool),
    Num(u64),
    Float(f32),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
}

fn n(v: u32) -> J {
    J::Num(v.into())
}

fn arr<T>(items: &[T], f: impl Fn(&T) -> J) -> J {
    J::Arr(items.iter().map(f).collect())
}

fn opt(v: Option<u32>) -> J {
    v.map_or(J::Null, n)
}

fn s(text: impl ToString) -> J {
    J::Str(text.to_string())
}

fn json(out: &mut String, j: &J) {
    match j {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(n) => {
            let _ = write!(out, "{n}");
        }
        // Rust's shortest round-trip form; JSON has no NaN or infinities.
        J::Float(f) if f.is_finite() => {
            let _ = write!(out, "{f:?}");
        }
        J::Float(_) => out.push_str("null"),
        J::Str(text) => json_str(out, text),
        J::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json(out, item);
            }
            out.push(']');
        }
        J::Obj(fields) => {
            out.push('{');
            for (i, (key, value)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_str(out, key);
                out.push(':');
                json(out, value);
            }
            out.push('}');
        }
    }
}

fn to_json(path: &str, r: &Reflection) -> J {
    let v = r.version;
    let l = &r.linkage;
    let name = |x: Option<String>| x.map_or(J::Null, s);
    let tgsm = |g: &Tgsm| {
        let (kind, stride, count) = match g.kind {
            TgsmKind::Raw { .. } => ("raw", None, None),
            TgsmKind::Structured { stride, count } => ("structured", Some(stride), Some(count)),
        };
        J::Obj(vec![
            ("register", n(g.register)),
            ("kind", s(kind)),
            ("bytes", J::Num(g.size_bytes())),
            ("stride", opt(stride)),
            ("count", opt(count)),
        ])
    };
    let geometry = |g: &Geometry| {
        let stream = |st: &Stream| {
            J::Obj(vec![
                ("index", n(st.index)),
                (
                    "output_topology",
                    name(st.output_topology.map(|t| t.to_string())),
                ),
            ])
        };
        J::Obj(vec![
            (
                "input_primitive",
                name(g.input_primitive.map(|p| p.to_string())),
            ),
            (
                "output_topology",
                name(g.output_topology.map(|t| t.to_string())),
            ),
            ("max_output_vertices", opt(g.max_output_vertices)),
            ("instance_count", opt(g.instance_count)),
            ("streams", arr(&g.streams, stream)),
        ])
    };
    let tessellation = |t: &Tessellation| {
        J::Obj(vec![
            ("domain", name(t.domain.map(|d| d.to_string()))),
            ("partitioning", name(t.partitioning.map(|p| p.to_string()))),
            (
                "output_primitive",
                name(t.output_primitive.map(|p| p.to_string())),
            ),
            ("input_control_points", opt(t.input_control_points)),
            ("output_control_points", opt(t.output_control_points)),
            (
                "max_tess_factor",
                t.max_tess_factor.map_or(J::Null, J::Float),
            ),
        ])
    };
    J::Obj(vec![
        ("path", s(path)),
        ("version", s(v)),
        ("stage", s(v.stage.prefix())),
        ("shader_model", s(format!("{}.{}", v.major, v.minor))),
        (
            "global_flags",
            J::Arr(r.global_flags.names().map(s).collect()),
        ),
        (
            "thread_group_size",
            r.thread_group_size.map_or(J::Null, |t| arr(&t, |&x| n(x))),
        ),
        ("resources", arr(&r.resources, |res| resource_json(r, res))),
        ("tgsm", arr(&r.tgsm, tgsm)),
        (
            "immediate_constant_buffer",
            r.immediate_constant_buffer
                .map_or(J::Null, |icb| J::Obj(vec![("dwords", n(icb.dwords))])),
        ),
        ("phases", arr(&r.phases, phase_json)),
        ("geometry", r.geometry.as_ref().map_or(J::Null, geometry)),
        (
            "tessellation",
            r.tessellation.as_ref().map_or(J::Null, tessellation),
        ),
        (
            "linkage",
            J::Obj(vec![
                ("function_bodies", n(l.function_bodies)),
                ("function_tables", J::Num(l.function_tables.len() as u64)),
                ("interfaces", J::Num(l.interfaces.len() as u64)),
            ]),
        ),
        (
            "signatures",
            J::Obj(vec![
                ("input", signature_json(&r.signatures.input)),
                ("output", signature_json(&r.signatures.output)),
                (
                    "patch_constant",
                    signature_json(&r.signatures.patch_constant),
                ),
            ]),
        ),
    ])
}

fn resource_json(r: &Reflection, res: &Resource) -> J {
    let range = res.range;
    let mut fields = vec![
        ("class", s(res.class().name())),
        ("register", s(resource_register(r, res))),
        ("id", n(range.id)),
        ("space", n(range.space)),
        ("lower_bound", n(range.lower_bound)),
        ("count", opt(range.count)),
        ("name", res.name.as_ref().map_or(J::Null, s)),
    ];
    let types = |t: &[_; 4]| arr(t, |x| s(x));
    let uav = |f: &UavFlags| {
        [
            ("globally_coherent", J::Bool(f.globally_coherent)),
            ("rasterizer_ordered", J::Bool(f.rasterizer_ordered)),
            ("counter", J::Bool(f.counter)),
        ]
    };
    match &res.kind {
        ResourceKind::ConstantBuffer {
            size,
            dynamic_indexed,
        } => fields.extend([
            ("kind", s("constant_buffer")),
            ("size_vec4s", n(*size)),
            ("dynamic_indexed", J::Bool(*dynamic_indexed)),
        ]),
        ResourceKind::TypedSrv {
            dimension,
            return_types,
            sample_count,
        } => fields.extend([
            ("kind", s("typed")),
            ("dimension", s(dimension)),
            ("return_types", types(return_types)),
            ("sample_count", opt(*sample_count)),
        ]),
        ResourceKind::RawSrv => fields.push(("kind", s("raw"))),
        ResourceKind::StructuredSrv { stride } => {
            fields.extend([("kind", s("structured")), ("stride", n(*stride))])
        }
        ResourceKind::TypedUav {
            dimension,
            return_types,
            flags,
        } => {
            fields.extend([
                ("kind", s("typed")),
                ("dimension", s(dimension)),
                ("return_types", types(return_types)),
            ]);
            fields.extend(uav(flags));
        }
        ResourceKind::RawUav { flags } => {
            fields.push(("kind", s("raw")));
            fields.extend(uav(flags));
        }
        ResourceKind::StructuredUav { stride, flags } => {
            fields.extend([("kind", s("structured")), ("stride", n(*stride))]);
            fields.extend(uav(flags));
        }
        ResourceKind::Sampler { mode } => {
            fields.extend([("kind", s("sampler")), ("mode", s(mode))]);
        }
    }
    J::Obj(fields)
}

fn io_json(io: &IoDeclaration) -> J {
    J::Obj(vec![
        ("register_type", s(io.register_type.prefix())),
        ("register", opt(io.register)),
        ("array_size", opt(io.array_size)),
        ("mask", s(mask(io.mask))),
        ("system_value", io.system_value.map_or(J::Null, s)),
        ("interpolation", io.interpolation.map_or(J::Null, s)),
        ("stream", opt(io.stream)),
    ])
}

fn phase_json(p: &Phase) -> J {
    let temp = |x: &IndexableTemp| {
        J::Obj(vec![
            ("register", n(x.register)),
            ("size", n(x.size)),
            ("components", n(x.components)),
        ])
    };
    let range = |ir: &IndexRange| {
        J::Obj(vec![
            ("register_type", s(ir.register_type.prefix())),
            ("register", n(ir.register)),
            ("count", n(ir.count)),
            ("mask", s(mask(ir.mask))),
        ])
    };
    J::Obj(vec![
        ("kind", s(p.kind.name())),
        ("instance_count", opt(p.instance_count)),
        ("temps", n(p.temps)),
        ("indexable_temps", arr(&p.indexable_temps, temp)),
        ("inputs", arr(&p.inputs, io_json)),
        ("outputs", arr(&p.outputs, io_json)),
        ("index_ranges", arr(&p.index_ranges, range)),
    ])
}

fn signature_json(sig: &Option<Vec<SignatureElement>>) -> J {
    let Some(sig) = sig else { return J::Null };
    arr(sig, |e| {
        let sv = e.system_value;
        let sv = sv
            .fxc_name()
            .map_or_else(|| sv.raw().to_string(), str::to_string);
        J::Obj(vec![
            ("semantic", s(&e.semantic_name)),
            ("index", n(e.semantic_index)),
            ("register", opt(e.register)),
            ("mask", s(mask(e.mask))),
            ("rw_mask", s(mask(e.rw_mask))),
            ("system_value", s(sv)),
            (
                "component_type",
                s(e.component_type.fxc_name().unwrap_or("unknown")),
            ),
            ("stream", n(e.stream)),
        ])
    })
}
