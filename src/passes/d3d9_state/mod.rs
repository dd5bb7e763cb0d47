//! The fixed-function state of Direct3D 9 applied to the shader ([`apply_d3d9_state`]): what
//! D3D9 does around a vertex or pixel shader and Vulkan leaves to it (`docs/d3d9.md`,
//! "Pipeline state parameters").
//!
//! Contract: with [`D3d9State::default`] the module is unchanged. Otherwise the entry point's
//! body moves into a new function that the entry point calls between a prologue and an
//! epilogue: every `ret` of the shader, conditional or not, returns to the epilogue, which
//! therefore runs at every return. Pixel shaders: point sprites in the prologue
//! (`point`); fog (`fog`) then the alpha test (`alpha_test`) in the epilogue. Vertex
//! shaders: user clip planes (`clip_planes`) and the point size (`point`) in the
//! epilogue. Each value of the state becomes an [`ir::Parameter`](crate::ir::Parameter)
//! (immediates too, as `Immediate` parameters); the new work uses temps past `dcl_temps`.
//! Flat shading is not a pass: the pipeline adds the `COLOR` locations to the stage linking's
//! flat locations.

mod alpha_test;
mod clip_planes;
mod fog;
mod point;

use crate::d3d9_state::{D3d9State, StateBits, StateValue};
use crate::ir::{
    Dst, Function, FunctionId, Inst, IoDecl, Module, Op, Reg, SignatureElement, Src, Stage,
    SystemValue, MAX_IO_REGISTERS,
};

use super::Error;

/// Applies `state` to `module` (see the module documentation). The sampler fields, the bump
/// environment and software vertex processing are not this pass's: the Direct3D 9 lowering
/// reads them.
pub fn apply_d3d9_state(module: &mut Module, state: &D3d9State) -> Result<(), Error> {
    let mut b = Builder::new(module);
    match b.module.stage {
        Stage::Pixel => {
            point::sprites(&mut b, state)?;
            fog::fog(&mut b, &state.fog)?;
            alpha_test::alpha_test(&mut b, &state.alpha_test)?;
        }
        Stage::Vertex => {
            clip_planes::clip_planes(&mut b, &state.clip_planes)?;
            point::point_size(&mut b, state.point_size.as_ref())?;
        }
        _ => {}
    }
    b.finish()
}

/// The new code of a module: its prologue and epilogue, its temps and parameters.
pub(super) struct Builder<'a> {
    pub(super) module: &'a mut Module,
    prologue: Vec<Inst>,
    epilogue: Vec<Inst>,
    /// Write to the prologue (else the epilogue).
    in_prologue: bool,
    span: u32,
}

impl<'a> Builder<'a> {
    fn new(module: &'a mut Module) -> Builder<'a> {
        let span = module.program_span;
        Builder {
            module,
            prologue: Vec::new(),
            epilogue: Vec::new(),
            in_prologue: false,
            span,
        }
    }

    /// Further instructions go to the prologue (`true`) or the epilogue.
    pub(super) fn write_prologue(&mut self, on: bool) {
        self.in_prologue = on;
    }

    /// A new temp register `r#`.
    pub(super) fn temp(&mut self) -> u32 {
        let t = self.module.temps;
        self.module.temps += 1;
        t
    }

    /// Appends `op dsts, srcs` (saturated with `sat`).
    pub(super) fn emit(&mut self, op: Op, dst: Option<Dst>, srcs: &[Src], sat: bool) {
        let mut inst = Inst::new(op, self.span);
        inst.flags.saturate = sat;
        if let Some(d) = dst {
            inst.push_dst(d);
        }
        for &s in srcs {
            inst.push_src(s);
        }
        if self.in_prologue {
            self.prologue.push(inst);
        } else {
            self.epilogue.push(inst);
        }
    }

    /// The last instruction added (to set its flags).
    pub(super) fn last_mut(&mut self) -> Option<&mut Inst> {
        if self.in_prologue {
            self.prologue.last_mut()
        } else {
            self.epilogue.last_mut()
        }
    }

    /// A new parameter for `value`, read as a source (swizzle `xyzw`).
    pub(super) fn param<T: StateBits>(
        &mut self,
        name: &'static str,
        value: StateValue<T>,
    ) -> Result<Src, Error> {
        let parameter = value.parameter(name).map_err(caller)?;
        let n = self.module.parameters.len() as u32;
        self.module.parameters.push(parameter);
        Ok(Src::new(Reg::Parameter(n)))
    }

    /// Moves the entry point's body into a new function called between the prologue and the
    /// epilogue (nothing when both are empty).
    fn finish(self) -> Result<(), Error> {
        if self.prologue.is_empty() && self.epilogue.is_empty() {
            return Ok(());
        }
        let module = self.module;
        let Some(entry) = module.functions.first().cloned() else {
            return Err(Error::internal(self.span, "module without an entry point"));
        };
        let label = module
            .functions
            .iter()
            .filter_map(|f| f.label)
            .max()
            .map_or(0, |l| l.saturating_add(1));
        let shader = FunctionId::new(module.functions.len() as u32);
        module.functions.push(Function {
            label: Some(label),
            body: entry.body.clone(),
            span: entry.span,
        });
        // The arena in function order: the new entry point, the subroutines, the shader.
        let old = std::mem::take(&mut module.insts);
        let mut insts =
            Vec::with_capacity(old.len() + self.prologue.len() + self.epilogue.len() + 2);
        insts.extend(self.prologue);
        let mut call = Inst::new(Op::Call, self.span);
        call.push_src(Src::new(Reg::Function(shader)));
        insts.push(call);
        insts.extend(self.epilogue);
        insts.push(Inst::new(Op::Ret, self.span));
        let mut start = 0;
        for (i, f) in module.functions.iter_mut().enumerate() {
            if i > 0 {
                let body = old
                    .get(f.body.start as usize..f.body.end as usize)
                    .ok_or_else(|| Error::internal(f.span, "function body past the arena"))?;
                insts.extend_from_slice(body);
            }
            let end = insts.len() as u32;
            f.body = start..end;
            start = end;
        }
        module.insts = insts;
        Ok(())
    }
}

/// An error in the caller's state.
pub(super) fn caller(message: String) -> Error {
    Error::invalid(0, format!("Options::d3d9_state: {message}"))
}

/// A destination `r#` or `o#` with `mask`.
pub(super) fn dst(reg: Reg, mask: u8) -> Option<Dst> {
    Some(Dst { reg, mask })
}

/// Component `c` of register `reg`, replicated.
pub(super) fn rc(reg: Reg, c: u8) -> Src {
    swz(reg, [c; 4])
}

/// `reg` read through `swizzle`.
pub(super) fn swz(reg: Reg, swizzle: [u8; 4]) -> Src {
    Src {
        swizzle,
        ..Src::new(reg)
    }
}

/// Component `c` of `src` replicated.
pub(super) fn comp(src: Src, c: u8) -> Src {
    Src {
        swizzle: [c; 4],
        ..src
    }
}

/// `src` negated.
pub(super) fn neg(src: Src) -> Src {
    Src {
        modifier: crate::ir::Modifier::Neg,
        ..src
    }
}

/// A float immediate, replicated.
pub(super) fn imm_f(v: f32) -> Src {
    Src::new(Reg::Imm32([v.to_bits(); 4]))
}

/// An integer immediate, replicated.
pub(super) fn imm_u(v: u32) -> Src {
    Src::new(Reg::Imm32([v; 4]))
}

/// The first register of `decls` and `signature` that neither uses, from 0.
pub(super) fn free_register(decls: &[IoDecl], signature: &[SignatureElement]) -> Option<u32> {
    (0..MAX_IO_REGISTERS).find(|&r| {
        !decls.iter().any(|d| d.register == r) && !signature.iter().any(|e| e.register == r)
    })
}

/// A declaration of `register` (mask, system value) at the program's offset.
pub(super) fn io_decl(module: &Module, register: u32, mask: u8, sv: SystemValue) -> IoDecl {
    IoDecl {
        register,
        mask,
        system_value: sv,
        interpolation: Default::default(),
        stream: 0,
        span: module.program_span,
    }
}

#[cfg(test)]
mod tests;
