//! A CPU reference interpreter of D3D10–12 compute-shader semantics: the oracle that
//! translated shaders are compared against.
//!
//! It executes decoded DXBC instructions (the crate's decoder, `dxbc2spv::front::dxbc`) by the
//! rules of the D3D11.3 functional specification — never through the translator's lowering, IR
//! or back end — over `r#` registers, `x#` arrays, thread-group shared memory, raw, structured
//! and typed buffers and UAVs (with D3D's out-of-bounds rules), constant buffers and the
//! immediate constant buffer, with structured control flow, subroutines, atomics and UAV
//! counters. Thread groups run one after another in a fixed order; inside a group the threads
//! run in lock-step from barrier to barrier.
//!
//! Contract: [`check_case`] runs a conformance case's compute dispatches (and `[[step]]`s) and
//! compares the buffers with the case's expectations using the runner's own comparison. It
//! answers [`Verdict::Unsupported`] with a reason for anything it does not model (textures,
//! graphics stages, interfaces, doubles, …) instead of producing a value it cannot vouch for.
//!
//! - [`program`]: declarations and control-flow tables.
//! - [`exec`]: threads, operands, control flow, dispatch order and barriers.
//! - [`ops`]: the instructions' effects.
//! - [`alu`]: 32-bit arithmetic rules; [`doubles`]: the double-precision instructions.
//! - [`memory`]: buffers, TGSM and out-of-bounds rules; [`texture`]: texel fetches (`ld`).
//! - [`differential`]: generated programs as cases whose expected values come from the oracle.

pub mod alu;
pub mod campaign;
pub mod deviations;
pub mod differential;
pub mod doubles;
pub mod exec;
pub mod memory;
pub mod ops;
pub mod program;
pub mod shrink;
pub mod texture;

use std::collections::HashMap;
use std::fmt;

use crate::conformance::case::{BufferKind, Work};
use crate::conformance::expect::{compare_buffer, BufferRef, Check, Expectation};
use crate::conformance::shader::{RegisterClass, ShaderSource, Stage};
use crate::conformance::Case;

use exec::Machine;
use memory::Resource;
use program::{Class, Program};

/// Why the interpreter stopped without a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A feature the interpreter does not model, named.
    Unsupported(String),
    /// The program or case is malformed.
    Invalid(String),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Unsupported(what) => write!(f, "unsupported: {what}"),
            Fault::Invalid(what) => write!(f, "invalid: {what}"),
        }
    }
}

impl std::error::Error for Fault {}

/// What the interpreter says about one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every expectation holds on the interpreter's results (for a case with `expect_failure`:
    /// at least one fails, as it must).
    Agree,
    /// The case needs something the interpreter does not model.
    Unsupported(String),
    /// Some expectations do not hold: the messages, as the runner words them.
    Disagree(Vec<String>),
}

/// Assembles (or reads) the case's DXBC shader.
fn case_dxbc(case: &Case) -> Result<Vec<u8>, Fault> {
    let [shader] = case.shaders.as_slice() else {
        return Err(Fault::Unsupported("several shaders".into()));
    };
    if shader.stage != Stage::Compute {
        return Err(Fault::Unsupported(format!("stage {}", shader.stage)));
    }
    let text = match &shader.source {
        ShaderSource::Asm { text, .. } => text.clone(),
        ShaderSource::AsmFile(path) => {
            std::fs::read_to_string(path).map_err(|e| Fault::Invalid(e.to_string()))?
        }
        ShaderSource::Dxbc(path) => {
            return std::fs::read(path).map_err(|e| Fault::Invalid(e.to_string()))
        }
        ShaderSource::SpirvAsm(_) | ShaderSource::Spirv(_) => {
            return Err(Fault::Unsupported("SPIR-V source (no DXBC)".into()))
        }
        ShaderSource::Tokens { .. } => {
            return Err(Fault::Unsupported("Direct3D 9 tokens (no DXBC)".into()))
        }
    };
    dxbc2spv::text::dxbc::asm::assemble(&text)
        .map_err(|e| Fault::Invalid(format!("fxc assembly: {}", e.message)))
}

/// Runs a compute case on the interpreter and compares its expectations.
pub fn check_case(case: &Case) -> Verdict {
    match run_case(case) {
        Ok(failures) => {
            if case.expect_failure {
                let wanted = case.failure_contains.as_deref();
                let ok = !failures.is_empty()
                    && wanted.is_none_or(|w| failures.iter().any(|f| f.contains(w)));
                if ok {
                    Verdict::Agree
                } else {
                    Verdict::Disagree(vec!["expected a mismatch, found none".into()])
                }
            } else if failures.is_empty() {
                Verdict::Agree
            } else {
                Verdict::Disagree(failures)
            }
        }
        Err(Fault::Unsupported(why)) => Verdict::Unsupported(why),
        Err(f @ Fault::Invalid(_)) => Verdict::Disagree(vec![f.to_string()]),
    }
}

/// Runs the case; the mismatch messages of its expectations.
fn run_case(case: &Case) -> Result<Vec<String>, Fault> {
    let Work::Dispatch(dispatch) = case.work else {
        return Err(Fault::Unsupported("graphics case".into()));
    };
    // A binding table (`[[binding]]`) only places D3D registers in Vulkan descriptor arrays;
    // what the shader sees is still each register's buffer.
    if !case.root_descriptors.is_empty() {
        return Err(Fault::Unsupported("root descriptors".into()));
    }
    if let Some(t) = &case.table {
        if t.table.entries().iter().any(|e| e.heap_base.is_some()) {
            return Err(Fault::Unsupported("bindless descriptor heap".into()));
        }
    }
    if case.pipeline_state.is_some()
        || case.d3d9_state.is_some()
        || !case.specializations.is_empty()
    {
        return Err(Fault::Unsupported("pipeline state / specialization".into()));
    }
    if case.descriptors.min_ssbo_alignment.is_some() {
        // The D3D view is then described to the shader by a runtime constant block, not by the
        // case's buffer views.
        return Err(Fault::Unsupported("SSBO alignment fix-up block".into()));
    }
    if case.linking.workarounds.forced_barriers != dxbc2spv::ForcedBarriers::Off {
        // Such cases read other threads' writes without a barrier: a data race D3D leaves
        // undefined, which a translator workaround makes ordered.
        return Err(Fault::Unsupported(
            "forced-barrier workaround (a race D3D leaves undefined)".into(),
        ));
    }
    let dxbc = case_dxbc(case)?;
    let prog = Program::new(&dxbc)?;
    let mut machine = machine(&prog, case)?;
    let mut failures = Vec::new();
    if case.steps.is_empty() {
        machine.dispatch(dispatch)?;
    }
    for step in &case.steps {
        for w in &step.writes {
            let r = machine
                .resources
                .get_mut(w.buffer)
                .ok_or_else(|| Fault::Invalid("step write to a missing buffer".into()))?;
            let at = w.offset as usize;
            if let Some(dst) = r.bytes.get_mut(at..at + w.bytes.len()) {
                dst.copy_from_slice(&w.bytes);
            }
        }
        machine.dispatch(step.dispatch.unwrap_or(dispatch))?;
        for e in &step.expectations {
            check(case, &machine, e, &mut failures)?;
        }
    }
    for e in &case.expectations {
        check(case, &machine, e, &mut failures)?;
    }
    Ok(failures)
}

fn check(
    case: &Case,
    m: &Machine<'_, '_>,
    e: &Expectation,
    out: &mut Vec<String>,
) -> Result<(), Fault> {
    match e {
        Expectation::Buffer {
            buffer: BufferRef::Case(i),
            check,
        } => {
            let (Some(r), Some(spec)) = (m.resources.get(*i), case.buffers.get(*i)) else {
                return Err(Fault::Invalid("expectation on a missing buffer".into()));
            };
            match check {
                Check::Counter(want) => match r.counter {
                    Some(have) if have == *want => {}
                    have => out.push(format!("{} counter = {have:?} expected {want}", spec.name)),
                },
                _ => compare_buffer(&spec.name, check, &r.bytes, out),
            }
        }
        Expectation::OneOf(alternatives) => {
            let mut missed = Vec::new();
            for alt in alternatives {
                let mut failed = Vec::new();
                check(case, m, alt, &mut failed)?;
                if failed.is_empty() {
                    return Ok(());
                }
                missed.extend(failed);
            }
            out.push(format!("none of the one_of alternatives holds: {missed:?}"));
        }
        Expectation::Buffer { .. } => {
            return Err(Fault::Unsupported("stream-output buffer".into()))
        }
        Expectation::Image(_) => return Err(Fault::Unsupported("image expectation".into())),
        Expectation::Primitives { .. } => {
            return Err(Fault::Unsupported("primitive counts".into()))
        }
    }
    Ok(())
}

/// A machine for `prog` with the case's buffers bound (those visible to compute shaders).
pub fn machine<'p, 'a>(prog: &'p Program<'a>, case: &Case) -> Result<Machine<'p, 'a>, Fault> {
    let mut machine = Machine {
        prog,
        resources: Vec::new(),
        bind: HashMap::new(),
        tgsm: HashMap::new(),
        textures: Vec::new(),
        step_limit: exec::STEP_LIMIT,
        unwritten: 0,
        reverse: false,
    };
    for b in &case.buffers {
        let class = match b.register.class {
            RegisterClass::Srv => Class::Srv,
            RegisterClass::Uav => Class::Uav,
            RegisterClass::Cbv => Class::Cb,
            _ => return Err(Fault::Unsupported("buffer in this register class".into())),
        };
        let (view_offset, view_size) = match b.view {
            Some((o, s)) => (o as usize, s as usize),
            None => (0, b.contents.len()),
        };
        let format = match b.kind {
            BufferKind::Typed(f) => Some(f),
            _ => b.texel_format,
        };
        let visible = b
            .stages
            .as_ref()
            .is_none_or(|s| s.contains(&Stage::Compute));
        if visible {
            machine.bind.insert(
                (class, b.register.space, b.register.index),
                machine.resources.len(),
            );
        }
        machine.resources.push(Resource {
            bytes: b.contents.clone(),
            view_offset,
            view_size,
            format,
            counter: b.counter.map(|c| c.initial),
        });
    }
    for tex in &case.textures {
        let class = match tex.register.class {
            RegisterClass::Srv => Class::Srv,
            _ => Class::Uav,
        };
        if tex
            .stages
            .as_ref()
            .is_none_or(|s| s.contains(&Stage::Compute))
        {
            let key = (class, tex.register.space, tex.register.index);
            machine.textures.push((key, tex.clone()));
        }
    }
    // D3D12 root constants: constant buffer b# holding the given push-constant words; reads
    // past them return 0, as beyond any constant buffer.
    if let Some(t) = &case.table {
        for rc in t.table.root_constants() {
            let pc = rc.push_constants;
            let words = case
                .push_constants
                .iter()
                .skip(pc.offset as usize / 4)
                .take(pc.size as usize / 4);
            let bytes: Vec<u8> = words.flat_map(|w| w.to_le_bytes()).collect();
            machine
                .bind
                .insert((Class::Cb, rc.space, rc.register), machine.resources.len());
            machine.resources.push(Resource {
                view_offset: 0,
                view_size: bytes.len(),
                bytes,
                format: None,
                counter: None,
            });
        }
    }
    Ok(machine)
}
