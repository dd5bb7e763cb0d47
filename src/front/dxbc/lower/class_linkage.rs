//! SM5 class linkage (`dcl_function_body`, `dcl_function_table`, `dcl_interface`, `fcall`,
//! `this[]`, `label fb#`) → ordinary IR: a constant buffer, switches and calls.
//!
//! D3D11 binds a class instance to each interface slot at `SetShader` time; the instance's
//! class picks the function table (`ft#`) and supplies the `this` data. By default the
//! translation reads both at run time from the class-linkage block ([`ir::ClassLinkage`]), one
//! of the module's constant buffers laid out as `uvec4[2 × slots]`: `this[s]` is element `s`,
//! the table index of slot `s` is `.x` of element `slots + s`. With the instances bound at
//! translation time ([`ClassLinkage::bound`]) there is no block: see the last items.
//!
//! Contract:
//! - `dcl_function_table ft# = {fb#, ...}` and `dcl_interface fp#[array][sites] = {ft#, ...}`
//!   are recorded; the first `dcl_interface` appends the block to `cbuffers`, each one grows it
//!   to the slot count (`fp#` + array length, at most [`MAX_INTERFACE_SLOTS`]). A table named
//!   by an interface but never declared, a table of another length than the interface's call
//!   sites or a table or interface declared twice is [`Error::Invalid`].
//! - `fcall fp#[i][site]` becomes `switch` on the slot's table index, one `case ft#` per table
//!   the interface lists (each once), each calling body `site` of that table; a slot bound to
//!   no listed table calls nothing, and an interface listing no table lowers to nothing. A
//!   relative array index (`dcl_interface_dynamicindexed`) indexes the block with the same
//!   register. `label fb#` starts a function like `label l#`;
//!   the calls are resolved when lowering finishes, and a body never defined is
//!   [`Error::Invalid`] at the `fcall`.
//! - `this[s]` reads element `s` of the block; without `dcl_interface` it is invalid.
//! - Bound instances: each `dcl_interface` checks the instances of its slots (a table the
//!   interface does not list is [`Error::Invalid`] naming `Options::class_linkage`, as is, once
//!   the program is read, an instance for a slot no interface declares). `fcall fp#[i][site]`
//!   calls body `site` of the bound instance's table directly, and nothing when the slot has no
//!   instance; with a relative `i` it is a `switch` on the index register over the slots that
//!   have instances. `this[s]` is the immediate [`ClassInstance::this_data`] of slot `s`
//!   (zeros without an instance); a relative `this[]` index is [`Error::Unsupported`].

use std::collections::BTreeMap;

use super::{insts_len, CallFixup, Error, LabelKind, Lowerer};
use crate::bindings::{ClassInstance, ClassLinkage};
use crate::front::dxbc::operand::{Components, Operand, RegisterType};
use crate::front::dxbc::Instruction;
use crate::ir::binding::{RegisterRange, ResourceKind};
use crate::ir::{self, Located, Op};

/// Most interface slots a shader may declare (`D3D11_SHADER_MAX_INTERFACES`).
pub const MAX_INTERFACE_SLOTS: u32 = 253;

/// The D3D11 constant-buffer register the block is reported as: `b14`, one past the 14 API
/// slots (`D3D11_COMMONSHADER_CONSTANT_BUFFER_API_SLOT_COUNT`), so no declared buffer has it.
pub const CLASS_LINKAGE_REGISTER: u32 = 14;

/// One `dcl_interface`.
#[derive(Clone, Debug)]
pub(super) struct Interface {
    /// Slots of its array (`fp#[array]`).
    array_length: u32,
    /// Call sites: the length of each of its tables.
    sites: u32,
    /// The tables it may be bound to, each once, in declaration order.
    tables: Vec<u32>,
}

/// What the class-linkage declarations recorded.
#[derive(Clone, Debug, Default)]
pub(super) struct ClassLinkageState {
    /// `ft#` → its function bodies (`fb#`), by call site.
    tables: BTreeMap<u32, Vec<u32>>,
    /// `fp#` → the interface.
    interfaces: BTreeMap<u32, Interface>,
    /// The instances bound per slot, when the caller gave them ([`ClassLinkage::bound`]).
    pub(super) bound: Option<Vec<Option<ClassInstance>>>,
    /// Bound instances: the slot count of the interfaces declared so far (`None` before the
    /// first `dcl_interface`).
    bound_slots: Option<u32>,
    /// Bound instances: temp components of known value (`dynamic_register.rs`).
    pub(super) constants: super::dynamic_register::KnownConstants,
}

/// `data` in the order `op`'s swizzle (or selected component) reads it.
pub(super) fn read_order(op: &Operand, data: [u32; 4]) -> [u32; 4] {
    let swizzle = match op.components {
        Components::Swizzle(s) => s,
        Components::Select1(c) => [c; 4],
        _ => [0, 1, 2, 3],
    };
    swizzle.map(|c| data[usize::from(c & 3)])
}

/// An error in the caller's class instances: at `at`, named as the option.
fn option_error(at: u32, what: String) -> Error {
    let mut located = Located::new(at, what);
    located.instruction = Some("Options::class_linkage");
    Error::Invalid(Box::new(located))
}

impl Lowerer {
    /// Takes the caller's class instances, when `linkage` binds them.
    pub(super) fn bind_class_instances(&mut self, linkage: &ClassLinkage) {
        self.class_linkage.bound = linkage.instances.clone();
    }

    /// The instance bound to `slot` (bound instances only).
    pub(super) fn bound_instance(&self, slot: u32) -> Option<ClassInstance> {
        let bound = self.class_linkage.bound.as_ref()?;
        bound.get(usize::try_from(slot).ok()?).copied().flatten()
    }

    /// Bound instances: each instance's slot belongs to a declared interface.
    pub(super) fn check_class_instances(&self) -> Result<(), Error> {
        let Some(bound) = &self.class_linkage.bound else {
            return Ok(());
        };
        let slots = self.class_linkage.bound_slots.unwrap_or(0);
        for (slot, instance) in bound.iter().enumerate() {
            let Some(instance) = instance else { continue };
            let Ok(slot) = u32::try_from(slot) else { break };
            let covered = self
                .class_linkage
                .interfaces
                .iter()
                .any(|(&id, i)| slot >= id && slot - id < i.array_length);
            if slot >= slots || !covered {
                return Err(option_error(
                    self.program_at,
                    format!(
                        "class instance of ft{} bound to interface slot {slot}, which the shader \
                         does not declare (it has {slots} slots)",
                        instance.table
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `dcl_function_table ft# = {fb#, ...}`.
    pub(super) fn function_table(
        &mut self,
        inst: &Instruction<'_>,
        id: u32,
        bodies: impl Iterator<Item = u32>,
    ) -> Result<(), Error> {
        let bodies = bodies.collect();
        if self.class_linkage.tables.insert(id, bodies).is_some() {
            return Err(Error::invalid(
                inst.offset,
                format!("ft{id} is declared twice"),
            ));
        }
        Ok(())
    }

    /// `dcl_interface fp#[array][sites] = {ft#, ...}`.
    pub(super) fn interface(
        &mut self,
        inst: &Instruction<'_>,
        id: u32,
        array_length: u32,
        sites: u32,
        function_tables: impl Iterator<Item = u32>,
    ) -> Result<(), Error> {
        let at = inst.offset;
        let end = id
            .checked_add(array_length)
            .filter(|&end| end <= MAX_INTERFACE_SLOTS)
            .ok_or_else(|| {
                Error::invalid(
                    at,
                    format!(
                        "fp{id}[{array_length}] ends past the {MAX_INTERFACE_SLOTS} interface \
                         slots of a shader"
                    ),
                )
            })?;
        let mut tables: Vec<u32> = Vec::new();
        for table in function_tables {
            let Some(bodies) = self.class_linkage.tables.get(&table) else {
                return Err(Error::invalid(
                    at,
                    format!("fp{id} names ft{table}, which is not declared"),
                ));
            };
            if bodies.len() != sites as usize {
                return Err(Error::invalid(
                    at,
                    format!(
                        "fp{id} has {sites} call sites but ft{table} has {} bodies",
                        bodies.len()
                    ),
                ));
            }
            if !tables.contains(&table) {
                tables.push(table);
            }
        }
        for slot in id..end {
            let Some(instance) = self.bound_instance(slot) else {
                continue;
            };
            if !tables.contains(&instance.table) {
                let listed: Vec<String> = tables.iter().map(|t| format!("ft{t}")).collect();
                return Err(option_error(
                    at,
                    format!(
                        "class instance bound to interface slot {slot} has table ft{}, which \
                         fp{id} does not list ({})",
                        instance.table,
                        listed.join(", ")
                    ),
                ));
            }
        }
        let interface = Interface {
            array_length,
            sites,
            tables,
        };
        if self
            .class_linkage
            .interfaces
            .insert(id, interface)
            .is_some()
        {
            return Err(Error::invalid(at, format!("fp{id} is declared twice")));
        }
        if self.class_linkage.bound.is_some() {
            let slots = self.class_linkage.bound_slots.unwrap_or(0).max(end);
            self.class_linkage.bound_slots = Some(slots);
            return Ok(());
        }
        self.grow_class_linkage_block(end, at)
    }

    /// Appends the class-linkage block on the first interface and sizes it for `slots`.
    fn grow_class_linkage_block(&mut self, slots: u32, at: u32) -> Result<(), Error> {
        let linkage = match self.module.class_linkage {
            Some(linkage) => linkage,
            None => {
                let position = u32::try_from(self.module.cbuffers.len())
                    .map_err(|_| Error::invalid(at, "too many declarations"))?;
                self.module.cbuffers.push(ir::CbDecl {
                    range: RegisterRange::single(
                        ResourceKind::ConstantBuffer,
                        0,
                        CLASS_LINKAGE_REGISTER,
                    ),
                    id: CLASS_LINKAGE_REGISTER,
                    size: 0,
                    dynamic: true,
                    binding: None,
                    span: at,
                });
                ir::ClassLinkage {
                    cbuffer: ir::CbId::new(position),
                    slots: 0,
                }
            }
        };
        let slots = slots.max(linkage.slots);
        if let Some(cb) = self.module.cbuffers.get_mut(linkage.cbuffer.index()) {
            cb.size = slots * 2;
        }
        self.module.class_linkage = Some(ir::ClassLinkage { slots, ..linkage });
        Ok(())
    }

    /// The class-linkage block, which `this[]` and `fcall` need.
    fn class_linkage_block(&self, at: u32, what: &str) -> Result<ir::ClassLinkage, Error> {
        self.module
            .class_linkage
            .ok_or_else(|| Error::invalid(at, format!("{what} without dcl_interface")))
    }

    /// `this[s]`: element `s` of the class-linkage block, or the bound instance's data.
    /// Bound instances: the instance's data as an immediate, swizzled as `op` reads it (the
    /// IR's immediates carry their values in read order).
    pub(super) fn this_pointer(
        &self,
        op: &Operand,
        slot: ir::Index,
        at: u32,
    ) -> Result<ir::Reg, Error> {
        if self.class_linkage.bound.is_some() {
            if self.class_linkage.bound_slots.is_none() {
                return Err(Error::invalid(at, "this[] without dcl_interface"));
            }
            if slot.is_relative() {
                return Err(Error::unsupported(
                    at,
                    "a dynamically indexed this[] with bound class instances",
                ));
            }
            let data = self.bound_instance(slot.imm).map(|i| i.this_data());
            let data = data.unwrap_or_default();
            return Ok(ir::Reg::Imm32(read_order(op, data)));
        }
        let linkage = self.class_linkage_block(at, "this[]")?;
        Ok(ir::Reg::ConstantBuffer {
            decl: linkage.cbuffer,
            element: ir::Index::imm(0),
            slot,
        })
    }

    /// `fcall fp#[i][site]`: a switch on the slot's table index, calling the body of each
    /// table the interface lists.
    pub(super) fn interface_call(&mut self, inst: &Instruction<'_>) -> Result<(), Error> {
        let at = inst.offset;
        let op = inst
            .operands()
            .first()
            .ok_or_else(|| Error::invalid(at, "fcall without an operand"))?;
        let site = inst
            .imms()
            .first()
            .copied()
            .ok_or_else(|| Error::invalid(at, "fcall without a call site"))?;
        let (id, element) = self.interface_operand(op, at)?;
        if self.class_linkage.bound.is_some() {
            return self.bound_interface_call(op, id, element, site, at);
        }
        let linkage = self.class_linkage_block(at, "fcall")?;
        let interface = self
            .class_linkage
            .interfaces
            .get(&id)
            .ok_or_else(|| Error::invalid(at, format!("fp{id} is not declared")))?;
        if site >= interface.sites {
            return Err(Error::invalid(
                at,
                format!(
                    "fcall of call site {site} of fp{id}, which has {}",
                    interface.sites
                ),
            ));
        }
        // The table index of slot `id + i` is `.x` of element `slots + id + i`.
        let mut selector = element;
        selector.imm = element.imm.wrapping_add(id).wrapping_add(linkage.slots);
        let mut calls = Vec::with_capacity(interface.tables.len());
        for &table in &interface.tables {
            let body = self
                .class_linkage
                .tables
                .get(&table)
                .and_then(|bodies| bodies.get(site as usize))
                .copied()
                .ok_or_else(|| {
                    Error::invalid(at, format!("ft{table} has no body for call site {site}"))
                })?;
            calls.push((table, body));
        }
        if calls.is_empty() {
            // No table can be bound to the slot: nothing to call.
            return Ok(());
        }
        let selector = ir::Src {
            swizzle: [0; 4],
            ..ir::Src::new(ir::Reg::ConstantBuffer {
                decl: linkage.cbuffer,
                element: ir::Index::imm(0),
                slot: selector,
            })
        };
        self.switch_of_calls(selector, calls, at)
    }

    /// `switch` on `selector` with one `case value: call fb#; break` per `(value, body)`.
    fn switch_of_calls(
        &mut self,
        selector: ir::Src,
        calls: Vec<(u32, u32)>,
        at: u32,
    ) -> Result<(), Error> {
        self.track_nesting(Op::Switch, at)?;
        let mut switch = ir::Inst::new(Op::Switch, at);
        switch.push_src(selector);
        switch.payload = ir::Payload::Switch(self.new_switch_table()?);
        self.module.insts.push(switch);
        for (value, body) in calls {
            let mut case = ir::Inst::new(Op::Case, at);
            case.push_src(ir::Src::new(ir::Reg::Imm32([value; 4])));
            self.module.insts.push(case);
            self.call_body(body, at)?;
            self.module.insts.push(ir::Inst::new(Op::Break, at));
        }
        self.module.insts.push(ir::Inst::new(Op::EndSwitch, at));
        self.track_nesting(Op::EndSwitch, at)
    }

    /// A call of function body `fb#`, resolved when lowering finishes.
    fn call_body(&mut self, body: u32, at: u32) -> Result<(), Error> {
        let position = insts_len(&self.module)? as usize;
        let mut call = ir::Inst::new(Op::Call, at);
        call.push_src(ir::Src::new(ir::Reg::Function(ir::FunctionId::new(0))));
        self.module.insts.push(call);
        self.call_fixups.push(CallFixup {
            inst: position,
            src: 0,
            label: body,
            kind: LabelKind::FunctionBody,
            offset: at,
        });
        Ok(())
    }

    /// `fcall fp#[i][site]` with bound instances: a direct call of body `site` of the table of
    /// the instance at slot `fp# + i` (nothing without one); a relative `i` switches on its
    /// register over the slots of the interface that have instances.
    fn bound_interface_call(
        &mut self,
        op: &Operand,
        id: u32,
        element: ir::Index,
        site: u32,
        at: u32,
    ) -> Result<(), Error> {
        let interface = self
            .class_linkage
            .interfaces
            .get(&id)
            .ok_or_else(|| Error::invalid(at, format!("fp{id} is not declared")))?;
        let (array_length, sites) = (interface.array_length, interface.sites);
        if site >= sites {
            return Err(Error::invalid(
                at,
                format!("fcall of call site {site} of fp{id}, which has {sites}"),
            ));
        }
        let body_of = |this: &Self, slot: u32| -> Result<Option<u32>, Error> {
            let Some(instance) = this.bound_instance(slot) else {
                return Ok(None);
            };
            let table = instance.table;
            let body = this
                .class_linkage
                .tables
                .get(&table)
                .and_then(|bodies| bodies.get(site as usize))
                .copied()
                .ok_or_else(|| {
                    Error::invalid(at, format!("ft{table} has no body for call site {site}"))
                })?;
            Ok(Some(body))
        };
        if !element.is_relative() {
            if element.imm >= array_length {
                return Err(Error::invalid(
                    at,
                    format!(
                        "fcall of fp{id}[{}], which has {array_length} slots",
                        element.imm
                    ),
                ));
            }
            return match body_of(self, id + element.imm)? {
                Some(body) => self.call_body(body, at),
                // No instance bound to the slot (D3D: NULL): nothing to call.
                None => Ok(()),
            };
        }
        // fp#[r + imm]: the register's value k selects slot fp# + imm + k.
        let rel = op
            .indices()
            .get(1)
            .and_then(|i| i.rel.as_ref())
            .ok_or_else(|| Error::invalid(at, "relative fp# index without a register"))?;
        let selector = super::dynamic_register::selector(rel, at)?;
        let mut calls = Vec::new();
        for k in 0..array_length {
            if let Some(body) = body_of(self, id + k)? {
                calls.push((k.wrapping_sub(element.imm), body));
            }
        }
        if calls.is_empty() {
            return Ok(());
        }
        self.switch_of_calls(selector, calls, at)
    }

    /// The interface and array element (an index into the slots from `fp#`) of `fcall`'s
    /// `fp#[i]` operand (the call site is the dword after it).
    fn interface_operand(&self, op: &Operand, at: u32) -> Result<(u32, ir::Index), Error> {
        if op.ty != RegisterType::Interface {
            return Err(Error::invalid(
                at,
                format!("{} operand where fcall needs fp#", op.ty.prefix()),
            ));
        }
        let [id, element] = op.indices() else {
            return Err(Error::invalid(at, "fp operand without two indices"));
        };
        if id.rel.is_some() {
            return Err(Error::invalid(at, "relative fp# number"));
        }
        let id = u32::try_from(id.imm).map_err(|_| Error::invalid(at, "fp# over 32 bits"))?;
        Ok((id, self.index(element, at)?))
    }
}
