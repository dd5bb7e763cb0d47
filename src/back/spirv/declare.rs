//! Declarations of the register files the instructions read and write: `r#`, `x#`, `icb`,
//! constant buffers and the compute built-ins.

use spirv::{BuiltIn, Decoration, StorageClass};

use super::context::{CbufferVar, Emitter, Scalar, Var};
use super::descriptors::binding_of;
use crate::back::spirv::Error;
use crate::ir::{self, Reg};
use crate::spv::Id;

/// Where the register files live: the `r#` and `x#` variables, the immediate constant buffer
/// and the compute built-ins. Written here, once, before the functions are emitted (the
/// Function-storage registers at the start of the entry function); read by the register
/// paths.
#[derive(Debug, Default)]
pub(super) struct Registers {
    /// `r#` variables (`uvec4`).
    temps: Vec<Var>,
    /// `x#` arrays (`uvec4[len + 1]`: the extra element absorbs out-of-range writes).
    indexable: Vec<Var>,
    /// The immediate constant buffer (`uvec4[n]`, Private, initialised).
    icb: Option<Var>,
    /// Compute built-ins: GlobalInvocationId, WorkgroupId, LocalInvocationId (uvec3),
    /// LocalInvocationIndex (u32).
    builtins: [Option<Id>; 4],
}

impl Registers {
    /// None declared; `temps` (empty) is the buffer the `r#` variables go into.
    pub(super) fn reusing(temps: Vec<Var>) -> Registers {
        Registers {
            temps,
            ..Registers::default()
        }
    }

    /// The buffer of the `r#` variables, for the next emission to reuse.
    pub(super) fn into_temps(self) -> Vec<Var> {
        self.temps
    }

    /// The variable of `r<n>`.
    #[inline]
    pub(super) fn temp(&self, n: u32) -> Option<Var> {
        self.temps.get(n as usize).copied()
    }

    /// The variable of indexable temp `array`.
    pub(super) fn indexable(&self, array: ir::IndexableId) -> Option<Var> {
        self.indexable.get(array.index()).copied()
    }

    /// The immediate constant buffer's variable.
    pub(super) fn icb(&self) -> Option<Var> {
        self.icb
    }

    /// The variable of compute built-in `k` (in the order of [`Registers::builtins`]).
    pub(super) fn builtin(&self, k: usize) -> Option<Id> {
        self.builtins.get(k).copied().flatten()
    }
}

impl Emitter<'_> {
    /// Where `r#` and `x#` live: Private when subroutines share them, else Function.
    /// Whether the `r#` variables belong to the one function that uses them (they die when it
    /// returns).
    pub(super) fn temps_are_local(&self) -> bool {
        self.register_storage() == StorageClass::Function
    }

    fn register_storage(&self) -> StorageClass {
        if self.ir.functions.len() > 1 {
            StorageClass::Private
        } else {
            StorageClass::Function
        }
    }

    /// Declares `r#`, `x#`, the icb and constant buffers (Function-storage registers are
    /// created later, in the entry function, by [`Emitter::init_function_registers`]).
    pub fn declare_registers(&mut self) -> Result<(), Error> {
        let uvec4 = self.ty(Scalar::U32, 4);
        if self.register_storage() == StorageClass::Private {
            let null = self.m.constant_null(uvec4);
            for n in 0..self.ir.temps {
                let id = self
                    .m
                    .global_variable(StorageClass::Private, uvec4, Some(null));
                self.name_indexed(id, "r", n);
                self.regs.temps.push(Var {
                    id,
                    storage: StorageClass::Private,
                });
            }
            for x in &self.ir.indexable_temps {
                let ty = self.m.type_array_len(uvec4, x.len.saturating_add(1));
                let null = self.m.constant_null(ty);
                let id = self
                    .m
                    .global_variable(StorageClass::Private, ty, Some(null));
                self.regs.indexable.push(Var {
                    id,
                    storage: StorageClass::Private,
                });
            }
        }
        if !self.ir.icb.is_empty() {
            let mut elements = Vec::with_capacity(self.ir.icb.len() / 4);
            let u = self.ty(Scalar::U32, 1);
            for chunk in self.ir.icb.chunks(4) {
                let mut parts = [self.m.constant_bits32(u, 0); 4];
                for (k, &w) in chunk.iter().enumerate() {
                    parts[k] = self.m.constant_bits32(u, w);
                }
                elements.push(self.m.constant_composite(uvec4, &parts));
            }
            let ty = self.m.type_array_len(uvec4, elements.len() as u32);
            let init = self.m.constant_composite(ty, &elements);
            let id = self
                .m
                .global_variable(StorageClass::Private, ty, Some(init));
            self.m.name(id, "icb");
            self.regs.icb = Some(Var {
                id,
                storage: StorageClass::Private,
            });
        }
        let push = super::push_constants::PushLayout::of(self.ir)?;
        let push_var = self.declare_push_block(&push);
        for (i, cb) in self.ir.cbuffers.iter().enumerate() {
            if let (Some(p), Some(var)) = (push.cbuffer(i), push_var) {
                self.objects.cbuffers.push(CbufferVar {
                    var,
                    block: var,
                    array: None,
                    push: Some(p),
                    address: None,
                });
                continue;
            }
            if matches!(
                cb.binding,
                Some(crate::ir::binding::BindingTarget::PushConstants(_))
            ) {
                // Empty root constants: every read is zero, nothing is declared.
                let zero = self.u32_const(0);
                let p = super::push_constants::PushSlot {
                    member: 0,
                    word: 0,
                    words: 0,
                };
                self.objects.cbuffers.push(CbufferVar {
                    var: zero,
                    block: zero,
                    array: None,
                    push: Some(p),
                    address: None,
                });
                continue;
            }
            if let Some(crate::ir::binding::BindingTarget::DeviceAddress(a)) = cb.binding {
                let block = self.address_block(true, false, false);
                self.objects.cbuffers.push(CbufferVar {
                    var: block,
                    block,
                    array: None,
                    push: None,
                    address: Some(a.offset),
                });
                continue;
            }
            let binding = binding_of(cb.binding, &cb.range, cb.span, "constant buffer")?;
            let len = self.m.constant_u32(cb.size.max(1));
            let array = self.m.type_array_unique(uvec4, len);
            self.m.decorate_array_stride(array, 16);
            let block = self.m.type_struct(&[array]);
            self.m.decorate(block, Decoration::Block, &[]);
            self.m.member_offset(block, 0, 0);
            let ty = self.descriptor_variable_type(block, binding.array);
            let id = self.m.global_variable(StorageClass::Uniform, ty, None);
            self.m.decorate_binding(id, binding.set, binding.binding);
            self.name_indexed(id, "cb", cb.id);
            self.objects.cbuffers.push(CbufferVar {
                var: id,
                block,
                array: binding.array,
                push: None,
                address: None,
            });
        }
        self.objects.push = push_var.map(|var| (var, push));
        self.declare_parameters();
        Ok(())
    }

    /// In the entry function: the Function-storage `r#` and `x#` (zero-initialised).
    pub fn init_function_registers(&mut self) {
        if self.register_storage() != StorageClass::Function {
            return;
        }
        let uvec4 = self.ty(Scalar::U32, 4);
        let null = self.m.constant_null(uvec4);
        for n in 0..self.ir.temps {
            let id = self.m.variable(uvec4, Some(null));
            self.name_indexed(id, "r", n);
            self.regs.temps.push(Var {
                id,
                storage: StorageClass::Function,
            });
        }
        for i in 0..self.ir.indexable_temps.len() {
            let x = self.ir.indexable_temps[i];
            let ty = self.m.type_array_len(uvec4, x.len.saturating_add(1));
            let null = self.m.constant_null(ty);
            let id = self.m.variable(ty, Some(null));
            self.name_indexed(id, "x", x.register);
            self.regs.indexable.push(Var {
                id,
                storage: StorageClass::Function,
            });
        }
    }

    /// Declares the compute built-ins the module reads.
    pub fn declare_builtins(&mut self) -> Result<(), Error> {
        let mut used = [false; 4];
        // Only compute shaders have these registers (lowering checks the stage): skip the scan.
        let insts: &[ir::Inst] = if self.ir.stage == ir::Stage::Compute {
            &self.ir.insts
        } else {
            &[]
        };
        for inst in insts {
            for src in inst.src() {
                match src.reg {
                    Reg::ThreadId => used[0] = true,
                    Reg::ThreadGroupId => used[1] = true,
                    Reg::ThreadIdInGroup => used[2] = true,
                    Reg::ThreadIdInGroupFlattened => used[3] = true,
                    _ => {}
                }
            }
        }
        // Zeroing `g#` by stores splits the words by `LocalInvocationIndex`.
        used[3] |= self.zeroes_workgroup_by_stores();
        let uvec3 = self.ty(Scalar::U32, 3);
        let u = self.ty(Scalar::U32, 1);
        let table = [
            (BuiltIn::GlobalInvocationId, uvec3, "vThreadID"),
            (BuiltIn::WorkgroupId, uvec3, "vThreadGroupID"),
            (BuiltIn::LocalInvocationId, uvec3, "vThreadIDInGroup"),
            (
                BuiltIn::LocalInvocationIndex,
                u,
                "vThreadIDInGroupFlattened",
            ),
        ];
        for (k, (builtin, ty, name)) in table.into_iter().enumerate() {
            if used[k] {
                let id = self.m.global_variable(StorageClass::Input, ty, None);
                self.m.decorate_builtin(id, builtin);
                self.m.name(id, name);
                self.regs.builtins[k] = Some(id);
            }
        }
        Ok(())
    }

    /// Names `id` `prefix{n}` (only when debug names are on).
    pub fn name_indexed(&mut self, id: Id, prefix: &str, n: u32) {
        if self.m.emit_names() {
            self.m.name(id, &format!("{prefix}{n}"));
        }
    }
}
