//! The IR validator: checks everything the back end relies on, so that emission can index
//! declarations and close constructs without checking again. Tests run it after every pass;
//! the pipeline runs it once before emission.

use crate::bindings::ResourceKind;

use super::module::Module;
use super::op::{Inst, Op};
use super::operand::{Index, Reg, Rel, RelFile};

/// An IR invariant that does not hold, at the DXBC offset of the instruction that breaks it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at 0x{offset:x}")]
pub struct ValidationError {
    /// Byte offset of the DXBC instruction.
    pub offset: u32,
    /// What is wrong.
    pub message: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Construct {
    If { seen_else: bool },
    Loop,
    Switch,
}

/// Checks `module`; returns the first problem found.
pub fn validate(module: &Module) -> Result<(), ValidationError> {
    let fail = |offset: u32, message: String| Err(ValidationError { offset, message });
    if module.functions.is_empty() {
        return fail(0, "module has no entry function".into());
    }
    let mut end = 0u32;
    for (i, f) in module.functions.iter().enumerate() {
        if f.body.start != end || f.body.end < f.body.start {
            return fail(
                f.span,
                format!("function #{i} does not follow the previous one"),
            );
        }
        end = f.body.end;
        // Function 0 and the hull-shader phases are unlabelled; subroutines are labelled.
        let phase = module.hull_phases.iter().any(|p| p.function as usize == i);
        if (i == 0 || phase) != f.label.is_none() {
            return fail(
                f.span,
                format!("function #{i}: only function 0 and hull-shader phases are unlabelled"),
            );
        }
    }
    if end as usize != module.insts.len() {
        return fail(0, "instructions outside every function".into());
    }
    check_no_recursion(module)?;
    let mut stack: Vec<Construct> = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        stack.clear();
        let body = module.body(fi);
        for (k, inst) in body.iter().enumerate() {
            check_operands(module, inst)?;
            let at = inst.span;
            match inst.op {
                Op::If => stack.push(Construct::If { seen_else: false }),
                Op::Else => match stack.last_mut() {
                    Some(Construct::If { seen_else }) if !*seen_else => *seen_else = true,
                    _ => return fail(at, "else without a matching if".into()),
                },
                Op::EndIf => match stack.pop() {
                    Some(Construct::If { .. }) => {}
                    _ => return fail(at, "endif without a matching if".into()),
                },
                Op::Loop => stack.push(Construct::Loop),
                Op::EndLoop => match stack.pop() {
                    Some(Construct::Loop) => {}
                    _ => return fail(at, "endloop without a matching loop".into()),
                },
                Op::Switch => {
                    if inst.aux as usize >= module.switches.len() {
                        return fail(at, format!("switch table {} does not exist", inst.aux));
                    }
                    if !matches!(body.get(k + 1).map(|n| n.op), Some(Op::Case | Op::Default)) {
                        return fail(at, "switch not followed by case or default".into());
                    }
                    stack.push(Construct::Switch);
                }
                Op::Case | Op::Default if stack.last() != Some(&Construct::Switch) => {
                    return fail(at, format!("{} outside a switch", inst.op.name()));
                }
                Op::EndSwitch => match stack.pop() {
                    Some(Construct::Switch) => {}
                    _ => return fail(at, "endswitch without a matching switch".into()),
                },
                Op::Break | Op::Breakc
                    if !stack
                        .iter()
                        .any(|c| matches!(c, Construct::Loop | Construct::Switch)) =>
                {
                    return fail(at, "break outside a loop or switch".into());
                }
                Op::Continue | Op::Continuec if !stack.contains(&Construct::Loop) => {
                    return fail(at, "continue outside a loop".into());
                }
                _ => {}
            }
        }
        if !stack.is_empty() {
            return fail(
                f.span,
                format!("function #{fi} ends inside an open construct"),
            );
        }
    }
    Ok(())
}

fn check_operands(module: &Module, inst: &Inst) -> Result<(), ValidationError> {
    let (dsts, srcs) = inst.op.arity();
    if inst.dst().len() != dsts || inst.src().len() != srcs {
        return Err(ValidationError {
            offset: inst.span,
            message: format!(
                "{} has {} destinations and {} sources, expected {dsts} and {srcs}",
                inst.op.name(),
                inst.dst().len(),
                inst.src().len()
            ),
        });
    }
    let regs = inst
        .dst()
        .iter()
        .map(|d| &d.reg)
        .chain(inst.src().iter().map(|s| &s.reg));
    for reg in regs {
        check_reg(module, reg).map_err(|message| ValidationError {
            offset: inst.span,
            message: format!("{}: {message}", inst.op.name()),
        })?;
    }
    Ok(())
}

fn check_rel(module: &Module, rel: &Rel) -> Result<(), String> {
    match rel.file {
        RelFile::Temp if rel.register >= module.temps => {
            Err(format!("r{} past dcl_temps {}", rel.register, module.temps))
        }
        RelFile::IndexableTemp => match module.indexable_temps.get(rel.register as usize) {
            None => Err(format!("indexable temp #{} is not declared", rel.register)),
            Some(x) if rel.element >= x.len => Err(format!(
                "x{}[{}] past its {} elements",
                x.register, rel.element, x.len
            )),
            Some(_) => Ok(()),
        },
        _ if rel.component > 3 => Err("relative index component past w".into()),
        _ => Ok(()),
    }
}

fn check_index(module: &Module, index: &Index, len: Option<u32>, what: &str) -> Result<(), String> {
    match (&index.rel, len) {
        (Some(rel), _) => check_rel(module, rel),
        (None, Some(len)) if index.imm >= len => Err(format!(
            "{what} index {} past its {len} elements",
            index.imm
        )),
        _ => Ok(()),
    }
}

fn check_reg(module: &Module, reg: &Reg) -> Result<(), String> {
    match reg {
        Reg::Temp(n) if *n >= module.temps => Err(format!("r{n} past dcl_temps {}", module.temps)),
        Reg::IndexableTemp { array, index } => match module.indexable_temps.get(*array as usize) {
            None => Err(format!("indexable temp #{array} is not declared")),
            Some(x) => check_index(module, index, Some(x.len), "indexable temp"),
        },
        Reg::Input(i) | Reg::Output(i) | Reg::PatchConstant(i) => {
            check_index(module, i, None, "io")
        }
        Reg::VertexInput { vertex, register } | Reg::OutputControlPoint { vertex, register } => {
            check_index(module, vertex, None, "control point")?;
            check_index(module, register, None, "io")
        }
        Reg::ConstantBuffer {
            decl,
            element,
            slot,
        } => match module.cbuffers.get(*decl as usize) {
            None => Err(format!("constant buffer #{decl} is not declared")),
            Some(cb) => {
                check_index(
                    module,
                    element,
                    cb.range.count.bounded(),
                    "constant buffer range",
                )?;
                check_index(module, slot, None, "constant buffer")
            }
        },
        Reg::ImmediateConstantBuffer(i) => {
            if module.icb.is_empty() {
                return Err("icb read without an immediate constant buffer".into());
            }
            check_index(module, i, None, "icb")
        }
        Reg::Resource { decl, element } | Reg::Uav { decl, element } => {
            let kind = if matches!(reg, Reg::Resource { .. }) {
                ResourceKind::ShaderResource
            } else {
                ResourceKind::UnorderedAccess
            };
            match module.resources.get(*decl as usize) {
                Some(r) if r.range.kind == kind => {
                    check_index(module, element, r.range.count.bounded(), "resource range")
                }
                Some(_) => Err(format!("resource #{decl} is not a {kind:?}")),
                None => Err(format!("resource #{decl} is not declared")),
            }
        }
        Reg::Sampler { decl, element } => match module.samplers.get(*decl as usize) {
            Some(s) => check_index(module, element, s.range.count.bounded(), "sampler range"),
            None => Err(format!("sampler #{decl} is not declared")),
        },
        Reg::Tgsm(n) if *n as usize >= module.tgsm.len() => {
            Err(format!("shared memory #{n} is not declared"))
        }
        Reg::Function(n) if *n == 0 || *n as usize >= module.functions.len() => {
            Err(format!("call target function #{n} does not exist"))
        }
        _ => Ok(()),
    }
}

/// Subroutine calls must form no cycle: Vulkan forbids recursion (SPIR-V "Universal
/// Validation Rules": static function call graph is acyclic).
fn check_no_recursion(module: &Module) -> Result<(), ValidationError> {
    let n = module.functions.len();
    let callees = |f: usize| {
        module.body(f).iter().filter_map(|inst| {
            inst.src().iter().find_map(|s| match s.reg {
                Reg::Function(g) if matches!(inst.op, Op::Call | Op::Callc) => {
                    Some((g as usize, inst.span))
                }
                _ => None,
            })
        })
    };
    // Iterative DFS with colours: 0 unvisited, 1 on the stack, 2 done.
    let mut colour = vec![0u8; n];
    for root in 0..n {
        if colour[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<(usize, u32)>)> = vec![(root, callees(root).collect())];
        colour[root] = 1;
        while let Some((f, pending)) = stack.last_mut() {
            match pending.pop() {
                Some((g, span)) if g < n => match colour[g] {
                    1 => {
                        return Err(ValidationError {
                            offset: span,
                            message: format!(
                                "recursive call into function #{g} (Vulkan forbids recursion)"
                            ),
                        })
                    }
                    0 => {
                        colour[g] = 1;
                        let next = callees(g).collect();
                        stack.push((g, next));
                    }
                    _ => {}
                },
                Some(_) => {}
                None => {
                    colour[*f] = 2;
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}
