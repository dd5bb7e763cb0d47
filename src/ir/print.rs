//! The IR's text form: declarations, then each function's instructions, fxc-like, one per line
//! with the DXBC byte offset. Stable, for snapshots and `--ir` debugging output.

use std::fmt::Write;

use super::module::{Module, ResourceShape};
use super::op::{Inst, Op, Test};
use super::operand::{DepthOutput, Dst, Index, Modifier, Reg, Rel, RelFile, Src};

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// Writes `module` as text.
pub fn print(module: &Module) -> String {
    let mut s = String::new();
    let stage = module.stage.prefix();
    let _ = writeln!(s, "{stage}_{}_{}", module.model.0, module.model.1);
    if module.temps > 0 {
        let _ = writeln!(s, "temps {}", module.temps);
    }
    for (i, x) in module.indexable_temps.iter().enumerate() {
        let _ = writeln!(
            s,
            "indexable #{i} x{}[{}], {}",
            x.register, x.len, x.components
        );
    }
    if !module.icb.is_empty() {
        let _ = writeln!(s, "icb {} elements", module.icb.len() / 4);
    }
    for (i, cb) in module.cbuffers.iter().enumerate() {
        let _ = writeln!(
            s,
            "cbuffer #{i} cb{} b{} space{} count {} size {}{}",
            cb.id,
            cb.range.first,
            cb.range.space,
            cb.range.count,
            cb.size,
            if cb.dynamic { " dynamic" } else { "" }
        );
    }
    for (i, r) in module.resources.iter().enumerate() {
        let letter = r.range.kind.register_letter();
        let shape = match r.shape {
            ResourceShape::Raw => "raw".to_owned(),
            ResourceShape::Structured { stride } => format!("structured stride {stride}"),
            ResourceShape::Typed { dim, ret, .. } => format!(
                "typed {dim:?} ({},{},{},{})",
                ret[0].name(),
                ret[1].name(),
                ret[2].name(),
                ret[3].name()
            ),
        };
        let _ = writeln!(
            s,
            "resource #{i} {letter}{} space{} count {} {shape}{}{}{}{}",
            r.range.first,
            r.range.space,
            r.range.count,
            if r.coherent { " glc" } else { "" },
            if r.rasterizer_ordered { " rov" } else { "" },
            if r.counter { " counter" } else { "" },
            r.view_of
                .map(|of| format!(" view of #{}", of.index()))
                .unwrap_or_default()
        );
    }
    for (i, smp) in module.samplers.iter().enumerate() {
        let _ = writeln!(
            s,
            "sampler #{i} s{} space{}",
            smp.range.first, smp.range.space
        );
    }
    for (i, g) in module.tgsm.iter().enumerate() {
        let _ = writeln!(
            s,
            "tgsm #{i} g{} words {} stride {}",
            g.register, g.words, g.stride
        );
    }
    for (i, p) in module.parameters.iter().enumerate() {
        let source = match p.source {
            super::ParameterSource::Immediate(v) => format!(
                "immediate 0x{:08x}, 0x{:08x}, 0x{:08x}, 0x{:08x}",
                v[0], v[1], v[2], v[3]
            ),
            super::ParameterSource::Spec { first_id, .. } => format!("spec id {first_id}"),
            super::ParameterSource::Push { offset } => format!("push offset {offset}"),
        };
        let _ = writeln!(
            s,
            "parameter #{i} {} {:?}x{} {source}",
            p.name, p.component_type, p.count
        );
    }
    if module.thread_group != [0; 3] {
        let [x, y, z] = module.thread_group;
        let _ = writeln!(s, "thread_group {x}, {y}, {z}");
    }
    for (i, f) in module.functions.iter().enumerate() {
        let phase = module.hull_phases.iter().find(|p| p.function.index() == i);
        match (f.label, phase) {
            (None, Some(p)) => {
                let kind = match p.kind {
                    super::PhaseKind::ControlPoint => "hs_control_point_phase",
                    super::PhaseKind::Fork => "hs_fork_phase",
                    super::PhaseKind::Join => "hs_join_phase",
                };
                let _ = writeln!(s, "function #{i} {kind} x{}", p.instances);
            }
            (None, None) => {
                let _ = writeln!(s, "function #{i} main");
            }
            (Some(l), _) => {
                let _ = writeln!(s, "function #{i} label l{l}");
            }
        }
        let mut depth = 1usize;
        for inst in module.body(super::FunctionId::new(i as u32)) {
            if matches!(inst.op, Op::Else | Op::EndIf | Op::EndLoop | Op::EndSwitch) {
                depth = depth.saturating_sub(1);
            }
            let indent = if matches!(inst.op, Op::Case | Op::Default) {
                depth.saturating_sub(1)
            } else {
                depth
            };
            let _ = write!(s, "{:04x}: {:width$}", inst.span, "", width = indent * 2);
            write_inst(&mut s, inst);
            s.push('\n');
            if matches!(inst.op, Op::If | Op::Else | Op::Loop | Op::Switch) {
                depth += 1;
            }
        }
    }
    if !module.hull_steps.is_empty() {
        s.push_str("hull entry point\n");
        write_hull_steps(&mut s, &module.hull_steps, 1);
    }
    s
}

/// The steps of a hull shader's entry point, one per line, invocation-0 blocks indented.
fn write_hull_steps(s: &mut String, steps: &[super::HullStep], depth: usize) {
    use super::HullStep as H;
    for step in steps {
        let _ = write!(s, "{:width$}", "", width = depth * 2);
        match step {
            H::ControlPoint(f) => {
                let _ = writeln!(s, "call function #{f}");
            }
            H::Phase {
                function,
                instances,
                from_invocation,
                step,
            } => {
                let first = if *from_invocation { "invocation" } else { "0" };
                let _ = writeln!(
                    s,
                    "for instance = {first}; instance < {instances}; instance += {step}: call \
                     function #{function}"
                );
            }
            H::FirstInvocation(inner) => {
                s.push_str("if invocation == 0:\n");
                write_hull_steps(s, inner, depth + 1);
            }
            other => {
                let _ = writeln!(s, "{other:?}");
            }
        }
    }
}

fn write_inst(s: &mut String, inst: &Inst) {
    s.push_str(inst.op.name());
    let conditional = matches!(
        inst.op,
        Op::If | Op::Breakc | Op::Continuec | Op::Retc | Op::Callc | Op::Discard
    );
    if conditional {
        s.push_str(match inst.flags.test {
            Test::Zero => "_z",
            Test::NonZero => "_nz",
        });
    }
    if inst.flags.saturate {
        s.push_str("_sat");
    }
    if inst.op == Op::Sync {
        for (bit, name) in [(1, "_g"), (2, "_ug"), (3, "_uglobal"), (0, "_t")] {
            if inst.flags.sync & (1 << bit) != 0 {
                s.push_str(name);
            }
        }
    }
    if inst.flags.precise != 0 {
        s.push_str(" [precise");
        write_mask(s, inst.flags.precise);
        s.push(']');
    }
    let mut first = true;
    for d in inst.dst() {
        s.push_str(if first { " " } else { ", " });
        first = false;
        write_dst(s, d);
    }
    for src in inst.src() {
        s.push_str(if first { " " } else { ", " });
        first = false;
        write_src(s, src);
    }
    if let Some(table) = inst.payload.switch() {
        let _ = write!(s, " (table {table})");
    }
}

fn write_mask(s: &mut String, mask: u8) {
    s.push('.');
    for (i, c) in XYZW.iter().enumerate() {
        if mask & (1 << i) != 0 {
            s.push(*c);
        }
    }
}

fn write_dst(s: &mut String, d: &Dst) {
    write_reg(s, &d.reg);
    if !matches!(d.reg, Reg::Null) {
        write_mask(s, d.mask);
    }
}

fn write_src(s: &mut String, src: &Src) {
    let (pre, post) = match src.modifier {
        Modifier::None => ("", ""),
        Modifier::Neg => ("-", ""),
        Modifier::Abs => ("|", "|"),
        Modifier::AbsNeg => ("-|", "|"),
    };
    s.push_str(pre);
    write_reg(s, &src.reg);
    // An immediate prints its swizzle only when the swizzle changes the value it reads (the
    // lowering reswizzles them, e.g. `l(a, b, c, d).yyww`); function ids have none.
    let swizzled = match src.reg {
        Reg::Imm32(v) => src.swizzle.map(|c| v[usize::from(c & 3)]) != v,
        Reg::Imm64(_) => false,
        Reg::Function(_) => false,
        _ => true,
    };
    if swizzled {
        s.push('.');
        for c in src.swizzle {
            s.push(XYZW[(c & 3) as usize]);
        }
    }
    s.push_str(post);
}

fn write_index(s: &mut String, i: &Index) {
    s.push('[');
    if let Some(Rel {
        file,
        register,
        element,
        component,
    }) = i.rel()
    {
        match file {
            RelFile::Temp => {
                let _ = write!(s, "r{register}");
            }
            RelFile::IndexableTemp => {
                let _ = write!(s, "x#{register}[{element}]");
            }
            RelFile::Input => {
                let _ = write!(s, "v{register}");
            }
        }
        let _ = write!(s, ".{} + ", XYZW[(component & 3) as usize]);
    }
    let _ = write!(s, "{}", i.imm);
    if i.nonuniform() {
        s.push_str(" nonuniform");
    }
    s.push(']');
}

/// A register as the IR listing writes it (`r3`, `x#0[2]`, `v[1][0]`, `t#2[0]`...), for error
/// messages.
pub fn register_name(r: &Reg) -> String {
    let mut s = String::new();
    write_reg(&mut s, r);
    s
}

fn write_reg(s: &mut String, r: &Reg) {
    match r {
        Reg::Null => s.push_str("null"),
        Reg::Temp(n) => {
            let _ = write!(s, "r{n}");
        }
        Reg::IndexableTemp { array, index } => {
            let _ = write!(s, "x#{array}");
            write_index(s, index);
        }
        Reg::Input(i) => {
            s.push('v');
            write_index(s, i);
        }
        Reg::Output(i) => {
            s.push('o');
            write_index(s, i);
        }
        Reg::VertexInput { vertex, register } => {
            s.push('v');
            write_index(s, vertex);
            write_index(s, register);
        }
        Reg::OutputControlPoint { vertex, register } => {
            s.push_str("vocp");
            write_index(s, vertex);
            write_index(s, register);
        }
        Reg::PatchConstant(i) => {
            s.push_str("vpc");
            write_index(s, i);
        }
        Reg::OutputControlPointId => s.push_str("vOutputControlPointID"),
        Reg::ForkInstanceId => s.push_str("vForkInstanceID"),
        Reg::JoinInstanceId => s.push_str("vJoinInstanceID"),
        Reg::DomainLocation => s.push_str("vDomain"),
        Reg::PrimitiveId => s.push_str("vPrim"),
        Reg::GsInstanceId => s.push_str("vGSInstanceID"),
        Reg::InputCoverage => s.push_str("vCoverage"),
        Reg::InnerCoverage => s.push_str("vInnerCoverage"),
        Reg::OutputDepth(DepthOutput::Any) => s.push_str("oDepth"),
        Reg::OutputDepth(DepthOutput::GreaterEqual) => s.push_str("oDepthGE"),
        Reg::OutputDepth(DepthOutput::LessEqual) => s.push_str("oDepthLE"),
        Reg::OutputCoverage => s.push_str("oMask"),
        Reg::OutputStencilRef => s.push_str("oStencilRef"),
        Reg::Rasterizer => s.push_str("rasterizer"),
        Reg::ConstantBuffer {
            decl,
            element,
            slot,
        } => {
            let _ = write!(s, "cb#{decl}");
            if *element != Index::imm(0) {
                write_index(s, element);
            }
            write_index(s, slot);
        }
        Reg::ImmediateConstantBuffer(i) => {
            s.push_str("icb");
            write_index(s, i);
        }
        Reg::Imm32(v) => {
            let _ = write!(
                s,
                "l(0x{:08x}, 0x{:08x}, 0x{:08x}, 0x{:08x})",
                v[0], v[1], v[2], v[3]
            );
        }
        Reg::Imm64(v) => {
            let _ = write!(s, "d(0x{:016x}, 0x{:016x})", v[0], v[1]);
        }
        Reg::ThreadId => s.push_str("vThreadID"),
        Reg::ThreadGroupId => s.push_str("vThreadGroupID"),
        Reg::ThreadIdInGroup => s.push_str("vThreadIDInGroup"),
        Reg::ThreadIdInGroupFlattened => s.push_str("vThreadIDInGroupFlattened"),
        Reg::Resource { decl, element } => {
            let _ = write!(s, "t#{decl}");
            if *element != Index::imm(0) {
                write_index(s, element);
            }
        }
        Reg::Uav { decl, element } => {
            let _ = write!(s, "u#{decl}");
            if *element != Index::imm(0) {
                write_index(s, element);
            }
        }
        Reg::Sampler { decl, element } => {
            let _ = write!(s, "s#{decl}");
            if *element != Index::imm(0) {
                write_index(s, element);
            }
        }
        Reg::Tgsm(n) => {
            let _ = write!(s, "g#{n}");
        }
        Reg::Function(n) => {
            let _ = write!(s, "function #{n}");
        }
        Reg::Parameter(n) => {
            let _ = write!(s, "param#{n}");
        }
    }
}
