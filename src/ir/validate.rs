//! The IR validator: checks everything the back end relies on, so that emission can index
//! declarations and close constructs without checking again. Tests run it after every pass;
//! the pipeline runs it once before emission.
//!
//! Contract: [`validate`] returns the first problem found, at the DXBC offset of the
//! instruction (or function) that has it, and runs in time linear in the module: besides
//! balanced control flow and operand ranges it checks that calls form no cycle and nest at most
//! [`MAX_CALL_DEPTH`] deep.

use super::binding::ResourceKind;
use super::id::FunctionId;
use super::module::Module;
use super::op::{Inst, Op};
use super::operand::{Index, Reg, Rel, RelFile};

/// An IR invariant that does not hold, at the DXBC offset of the instruction that breaks it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at 0x{offset:x}: {message}")]
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

impl Construct {
    /// The opening and the closing instruction.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Construct::If { .. } => ("if", "endif"),
            Construct::Loop => ("loop", "endloop"),
            Construct::Switch => ("switch", "endswitch"),
        }
    }
}

/// Deepest chain of nested subroutine calls from an entry point (function 0 or a hull-shader
/// phase): `D3D11_COMMONSHADER_SUBROUTINE_NESTING_LIMIT`.
pub const MAX_CALL_DEPTH: u32 = 32;

/// Checks `module`; returns the first problem found.
pub fn validate(module: &Module) -> Result<(), ValidationError> {
    let fail = |offset: u32, message: String| Err(ValidationError { offset, message });
    if module.functions.is_empty() {
        return fail(0, "module has no entry function".into());
    }
    let mut is_phase = vec![false; module.functions.len()];
    for p in &module.hull_phases {
        if let Some(slot) = is_phase.get_mut(p.function.index()) {
            *slot = true;
        }
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
        if (i == 0 || is_phase[i]) != f.label.is_none() {
            return fail(
                f.span,
                format!("function #{i}: only function 0 and hull-shader phases are unlabelled"),
            );
        }
    }
    if end as usize != module.insts.len() {
        return fail(0, "instructions outside every function".into());
    }
    check_views(module)?;
    check_no_recursion(module)?;
    check_call_depth(module, &is_phase)?;
    // Each open construct with the offset of the instruction that opened it.
    let mut stack: Vec<(Construct, u32)> = Vec::new();
    for fi in module.function_ids() {
        stack.clear();
        let body = module.body(fi);
        for (k, inst) in body.iter().enumerate() {
            check_operands(module, inst)?;
            let at = inst.span;
            match inst.op {
                Op::If => stack.push((Construct::If { seen_else: false }, at)),
                Op::Else => match stack.last_mut() {
                    Some((Construct::If { seen_else }, _)) if !*seen_else => *seen_else = true,
                    _ => return fail(at, "else without a matching if".into()),
                },
                Op::EndIf => match stack.pop() {
                    Some((Construct::If { .. }, _)) => {}
                    _ => return fail(at, "endif without a matching if".into()),
                },
                Op::Loop => stack.push((Construct::Loop, at)),
                Op::EndLoop => match stack.pop() {
                    Some((Construct::Loop, _)) => {}
                    _ => return fail(at, "endloop without a matching loop".into()),
                },
                Op::Switch => {
                    match inst.payload.switch() {
                        Some(id) if id.index() < module.switches.len() => {}
                        Some(id) => return fail(at, format!("switch table {id} does not exist")),
                        None => return fail(at, "switch without a case table".into()),
                    }
                    if !matches!(body.get(k + 1).map(|n| n.op), Some(Op::Case | Op::Default)) {
                        return fail(at, "switch not followed by case or default".into());
                    }
                    stack.push((Construct::Switch, at));
                }
                Op::Case | Op::Default if !matches!(stack.last(), Some((Construct::Switch, _))) => {
                    return fail(at, format!("{} outside a switch", inst.op.name()));
                }
                Op::EndSwitch => match stack.pop() {
                    Some((Construct::Switch, _)) => {}
                    _ => return fail(at, "endswitch without a matching switch".into()),
                },
                Op::Break | Op::Breakc
                    if !stack
                        .iter()
                        .any(|(c, _)| matches!(c, Construct::Loop | Construct::Switch)) =>
                {
                    return fail(at, "break outside a loop or switch".into());
                }
                Op::Continue | Op::Continuec
                    if !stack.iter().any(|(c, _)| *c == Construct::Loop) =>
                {
                    return fail(at, "continue outside a loop".into());
                }
                _ => {}
            }
        }
        // The innermost construct left open is reported at its opening instruction.
        if let Some(&(construct, at)) = stack.last() {
            let (open, close) = construct.names();
            return fail(
                at,
                format!("{open} without a matching {close} (function #{fi} ends first)"),
            );
        }
    }
    Ok(())
}

/// Every [`ResourceDecl::view_of`](super::ResourceDecl::view_of) names an earlier typed
/// declaration of the same range that is no view itself, and is typed too.
fn check_views(module: &Module) -> Result<(), ValidationError> {
    for (i, r) in module.resources.iter().enumerate() {
        let Some(of) = r.view_of else { continue };
        let typed = |d: &super::ResourceDecl| matches!(d.shape, super::ResourceShape::Typed { .. });
        let ok = of.index() < i
            && module
                .resources
                .get(of.index())
                .is_some_and(|o| o.view_of.is_none() && o.range == r.range && typed(o))
            && typed(r);
        if !ok {
            return Err(ValidationError {
                offset: r.span,
                message: format!(
                    "resource #{i} is a view of #{of}, which is not an earlier typed declaration \
                     of the same range"
                ),
            });
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
    if let Some(d) = inst
        .dst()
        .iter()
        .find(|d| matches!(d.reg, Reg::Parameter(_)))
    {
        return Err(ValidationError {
            offset: inst.span,
            message: format!(
                "{} written (parameters are read only)",
                super::register_name(&d.reg)
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
            message,
        })?;
    }
    Ok(())
}

fn check_rel(module: &Module, rel: &Rel) -> Result<(), String> {
    match rel.file {
        RelFile::Temp if u32::from(rel.register) >= module.temps => {
            Err(format!("r{} past dcl_temps {}", rel.register, module.temps))
        }
        RelFile::IndexableTemp => match module.indexable_temps.get(rel.register as usize) {
            None => Err(format!("indexable temp #{} is not declared", rel.register)),
            Some(x) if u32::from(rel.element) >= x.len => Err(format!(
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
    match (&index.rel(), len) {
        (Some(rel), _) => check_rel(module, rel),
        (None, Some(len)) if index.imm >= len => Err(format!(
            "{what} index {} past its {len} element{}",
            index.imm,
            if len == 1 { "" } else { "s" }
        )),
        _ => Ok(()),
    }
}

fn check_reg(module: &Module, reg: &Reg) -> Result<(), String> {
    match reg {
        Reg::Temp(n) if *n >= module.temps => Err(format!("r{n} past dcl_temps {}", module.temps)),
        Reg::IndexableTemp { array, index } => match module.indexable_temps.get(array.index()) {
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
        } => match module.cbuffers.get(decl.index()) {
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
            match module.resources.get(decl.index()) {
                Some(r) if r.range.kind == kind => {
                    check_index(module, element, r.range.count.bounded(), "resource range")
                }
                Some(_) => Err(format!("resource #{decl} is not a {kind:?}")),
                None => Err(format!("resource #{decl} is not declared")),
            }
        }
        Reg::Sampler { decl, element } => match module.samplers.get(decl.index()) {
            Some(s) => check_index(module, element, s.range.count.bounded(), "sampler range"),
            None => Err(format!("sampler #{decl} is not declared")),
        },
        Reg::Tgsm(n) if n.index() >= module.tgsm.len() => {
            Err(format!("shared memory #{n} is not declared"))
        }
        Reg::Function(n) if n.index() == 0 || n.index() >= module.functions.len() => {
            Err(format!("call target function #{n} does not exist"))
        }
        Reg::Parameter(n) => match module.parameters.get(*n as usize) {
            None => Err(format!("parameter #{n} is not declared")),
            Some(p) if p.count == 0 || p.count > 4 => Err(format!(
                "parameter #{n} has {} components (1 to 4)",
                p.count
            )),
            Some(_) => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Subroutine calls must form no cycle: Vulkan forbids recursion (SPIR-V "Universal
/// Validation Rules": static function call graph is acyclic).
fn check_no_recursion(module: &Module) -> Result<(), ValidationError> {
    let n = module.functions.len();
    let callees = |f: usize| {
        module
            .body(FunctionId::new(f as u32))
            .iter()
            .filter_map(|inst| {
                inst.src().iter().find_map(|s| match s.reg {
                    Reg::Function(g) if matches!(inst.op, Op::Call | Op::Callc) => {
                        Some((g.index(), inst.span))
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

/// Calls nest at most [`MAX_CALL_DEPTH`] deep from each entry point (function 0 and the hull
/// phases, the unlabelled functions). Needs an acyclic call graph ([`check_no_recursion`]).
/// Reports the call that is one level too deep on the longest chain.
fn check_call_depth(module: &Module, is_phase: &[bool]) -> Result<(), ValidationError> {
    let n = module.functions.len();
    let calls: Vec<Vec<(usize, u32)>> = (0..n)
        .map(|f| {
            module
                .body(FunctionId::new(f as u32))
                .iter()
                .filter(|inst| matches!(inst.op, Op::Call | Op::Callc))
                .filter_map(|inst| {
                    inst.src().iter().find_map(|s| match s.reg {
                        Reg::Function(g) if g.index() < n => Some((g.index(), inst.span)),
                        _ => None,
                    })
                })
                .collect()
        })
        .collect();
    // height[f]: calls nested inside a call of f, on its longest chain (post-order, iterative);
    // deepest[f]: the call of f that starts that chain.
    let mut height = vec![0u32; n];
    let mut deepest: Vec<Option<(usize, u32)>> = vec![None; n];
    let mut state = vec![0u8; n]; // 0 not seen, 1 expanded, 2 done
    for root in 0..n {
        let mut stack = vec![root];
        while let Some(&f) = stack.last() {
            match state[f] {
                0 => {
                    state[f] = 1;
                    stack.extend(calls[f].iter().map(|&(g, _)| g).filter(|&g| state[g] == 0));
                }
                1 => {
                    stack.pop();
                    state[f] = 2;
                    for &(g, span) in &calls[f] {
                        let h = height[g].saturating_add(1);
                        if deepest[f].is_none() || h > height[f] {
                            height[f] = h;
                            deepest[f] = Some((g, span));
                        }
                    }
                }
                _ => {
                    stack.pop();
                }
            }
        }
    }
    for (root, &phase) in is_phase.iter().enumerate() {
        if (root != 0 && !phase) || height[root] <= MAX_CALL_DEPTH {
            continue;
        }
        let (mut f, mut depth) = (root, 0u32);
        while let Some((g, span)) = deepest[f] {
            depth += 1;
            if depth > MAX_CALL_DEPTH {
                return Err(ValidationError {
                    offset: span,
                    message: format!(
                        "{} nested subroutine calls exceeds the limit {MAX_CALL_DEPTH}",
                        height[root]
                    ),
                });
            }
            f = g;
        }
    }
    Ok(())
}
