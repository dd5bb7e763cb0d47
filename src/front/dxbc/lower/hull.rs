//! Hull- and domain-shader declarations: the phases of a hull shader (`hs_decls`,
//! `hs_control_point_phase`, `hs_fork_phase`, `hs_join_phase`) and the tessellator
//! declarations of both stages (D3D11.0 functional spec §10: hull shader, §11: tessellator,
//! §12: domain shader).
//!
//! Contract:
//! - Each phase becomes a function of its own, in program order; [`ir::Module::hull_phases`]
//!   says which kind each is and how many instances it has. The `hs_decls` section is function
//!   0 until the first phase starts, which then takes function 0 over (an `hs_decls` section
//!   holds no executable instructions). Labels (subroutines) follow the last phase.
//! - Registers are per phase: `dcl_temps` of the phases share one file (the largest count), `x#`
//!   arrays are numbered per phase. `o#` of fork and join phases are patch constants.
//! - Without a control-point phase the hull shader passes its input control points through:
//!   every register of the output signature is declared as input and output, so the back end
//!   copies it (`docs/hull-shaders.md`).
//! - Limits: 32 control points in and out, 128 instances per phase (more than the 32 patch
//!   constant registers × 4 components cannot write distinct outputs), tess factors within
//!   `[1, 64]` for `dcl_hs_max_tessfactor`.

use super::Error;
use super::Lowerer;
use crate::front::dxbc::decl::{Declaration, HullPhase, InstancedPhase};
use crate::front::dxbc::reflect;
use crate::front::dxbc::Instruction;
use crate::ir::{self, PhaseKind, TessDomain, TessOutputPrimitive, TessPartitioning};

/// Most control points of a patch (`D3D11_IA_PATCH_MAX_CONTROL_POINT_COUNT`).
pub const MAX_CONTROL_POINTS: u32 = 32;
/// Most instances of one fork or join phase.
pub const MAX_PHASE_INSTANCES: u32 = 128;

impl Lowerer {
    /// `hs_decls` and the phase starts.
    pub(super) fn phase(&mut self, inst: &Instruction<'_>, phase: HullPhase) -> Result<(), Error> {
        let at = inst.offset;
        if self.module.stage != ir::Stage::Hull {
            return Err(Error::invalid(
                at,
                format!("{} outside a hull shader", inst.opcode.name()),
            ));
        }
        let kind = match phase {
            HullPhase::Declarations => {
                if !self.module.hull_phases.is_empty() {
                    return Err(Error::invalid(at, "hs_decls after a phase"));
                }
                return Ok(());
            }
            HullPhase::ControlPoint => PhaseKind::ControlPoint,
            HullPhase::Fork => PhaseKind::Fork,
            HullPhase::Join => PhaseKind::Join,
        };
        // Labels end the phases (rejected below), so a labelled function exists only when the
        // last one is; checking the last keeps many phases linear.
        if self
            .module
            .functions
            .last()
            .is_some_and(|f| f.label.is_some())
        {
            return Err(Error::invalid(at, "hull-shader phase after a label"));
        }
        let order = |k: PhaseKind| match k {
            PhaseKind::ControlPoint => 0,
            PhaseKind::Fork => 1,
            PhaseKind::Join => 2,
        };
        let name = |k: PhaseKind| match k {
            PhaseKind::ControlPoint => "control-point phase",
            PhaseKind::Fork => "fork phase",
            PhaseKind::Join => "join phase",
        };
        if let Some(last) = self.module.hull_phases.last() {
            if order(last.kind) > order(kind) || kind == PhaseKind::ControlPoint {
                return Err(Error::invalid(
                    at,
                    format!(
                        "{} after a {} (phases run control point, fork, join)",
                        name(kind),
                        name(last.kind)
                    ),
                ));
            }
        }
        let start = super::insts_len(&self.module)?;
        let function = if self.module.hull_phases.is_empty() {
            if start != 0 {
                return Err(Error::invalid(at, "executable instructions in hs_decls"));
            }
            if let Some(f) = self.module.functions.first_mut() {
                f.span = at;
            }
            ir::FunctionId::new(0)
        } else {
            if let Some(current) = self.module.functions.last_mut() {
                current.body.end = start;
            }
            self.module.functions.push(ir::Function {
                label: None,
                body: start..start,
                span: at,
            });
            u32::try_from(self.module.functions.len() - 1)
                .map(ir::FunctionId::new)
                .map_err(|_| Error::invalid(at, "too many functions"))?
        };
        self.module.hull_phases.push(ir::HullPhase {
            kind,
            function,
            instances: 1,
        });
        self.phase = Some(kind);
        self.nesting_depth = 0;
        // `x#` are numbered per phase.
        self.lookup_indexable.clear();
        Ok(())
    }

    /// The tessellator declarations and the phase instance counts.
    pub(super) fn tessellation_declaration(
        &mut self,
        inst: &Instruction<'_>,
        declaration: &Declaration<'_>,
    ) -> Result<(), Error> {
        let at = inst.offset;
        let stage = self.module.stage;
        let hull_only = !matches!(
            declaration,
            Declaration::TessDomain(_) | Declaration::InputControlPoints(_)
        );
        let allowed = match stage {
            ir::Stage::Hull => true,
            ir::Stage::Domain => !hull_only,
            _ => false,
        };
        if !allowed {
            return Err(Error::invalid(
                at,
                format!("{} in a {} shader", inst.opcode.name(), stage.prefix()),
            ));
        }
        let t = &mut self.module.tessellation;
        match *declaration {
            Declaration::TessDomain(domain) => {
                t.domain = Some(match domain {
                    reflect::TessDomain::Isoline => TessDomain::Isoline,
                    reflect::TessDomain::Triangle => TessDomain::Triangle,
                    reflect::TessDomain::Quad => TessDomain::Quad,
                    other => {
                        return Err(Error::invalid(
                            at,
                            format!("tessellator domain {}", other.raw()),
                        ))
                    }
                })
            }
            Declaration::TessPartitioning(partitioning) => {
                t.partitioning = Some(match partitioning {
                    reflect::TessPartitioning::Integer => TessPartitioning::Integer,
                    reflect::TessPartitioning::Pow2 => TessPartitioning::Pow2,
                    reflect::TessPartitioning::FractionalOdd => TessPartitioning::FractionalOdd,
                    reflect::TessPartitioning::FractionalEven => TessPartitioning::FractionalEven,
                    other => {
                        return Err(Error::invalid(
                            at,
                            format!("tessellator partitioning {}", other.raw()),
                        ))
                    }
                })
            }
            Declaration::TessOutputPrimitive(primitive) => {
                t.output_primitive = Some(match primitive {
                    reflect::TessOutputPrimitive::Point => TessOutputPrimitive::Point,
                    reflect::TessOutputPrimitive::Line => TessOutputPrimitive::Line,
                    reflect::TessOutputPrimitive::TriangleCw => TessOutputPrimitive::TriangleCw,
                    reflect::TessOutputPrimitive::TriangleCcw => TessOutputPrimitive::TriangleCcw,
                    other => {
                        return Err(Error::invalid(
                            at,
                            format!("tessellator output primitive {}", other.raw()),
                        ))
                    }
                })
            }
            Declaration::InputControlPoints(n) | Declaration::OutputControlPoints(n) => {
                let input = matches!(declaration, Declaration::InputControlPoints(_));
                // A patch has 1 to 32 control points, a hull shader outputs 0 to 32 (so a
                // domain shader may read 0).
                let hull_input = input && stage == ir::Stage::Hull;
                if n > MAX_CONTROL_POINTS {
                    return Err(Error::invalid(
                        at,
                        format!("{n} control points exceeds the limit {MAX_CONTROL_POINTS}"),
                    ));
                }
                if hull_input && n == 0 {
                    return Err(Error::invalid(
                        at,
                        "a hull shader's input patch needs a control point",
                    ));
                }
                if input {
                    t.input_control_points = n;
                } else {
                    t.output_control_points = n;
                }
            }
            Declaration::MaxTessFactor(f) => {
                if !(1.0..=64.0).contains(&f) {
                    return Err(Error::invalid(
                        at,
                        format!("dcl_hs_max_tessfactor {f} is not in [1, 64]"),
                    ));
                }
                t.max_tess_factor = Some(f);
            }
            Declaration::PhaseInstanceCount { phase, count: n } => {
                let want = match phase {
                    InstancedPhase::Fork => PhaseKind::Fork,
                    InstancedPhase::Join => PhaseKind::Join,
                };
                let phase = self
                    .module
                    .hull_phases
                    .last_mut()
                    .filter(|p| p.kind == want)
                    .ok_or_else(|| {
                        Error::invalid(at, format!("{} outside its phase", inst.opcode.name()))
                    })?;
                if n == 0 || n > MAX_PHASE_INSTANCES {
                    return Err(Error::invalid(
                        at,
                        format!("{n} phase instances is not in 1..={MAX_PHASE_INSTANCES}"),
                    ));
                }
                phase.instances = n;
            }
            _ => {
                return Err(Error::invalid(
                    at,
                    format!("{} is not a tessellation declaration", inst.opcode.name()),
                ))
            }
        }
        Ok(())
    }

    /// Checks what a hull or domain shader needs once the program is read, and declares the
    /// pass-through registers of a hull shader without a control-point phase.
    pub(super) fn finish_tessellation(&mut self) -> Result<(), Error> {
        let at = self.module.functions.first().map_or(0, |f| f.span);
        let stage = self.module.stage;
        let t = self.module.tessellation;
        if t.domain.is_none() {
            return Err(Error::invalid(
                self.program_at,
                "dcl_tessellator_domain is missing",
            ));
        }
        if stage != ir::Stage::Hull {
            return Ok(());
        }
        if t.input_control_points == 0 {
            return Err(Error::invalid(
                self.program_at,
                "dcl_input_control_point_count is missing",
            ));
        }
        if t.partitioning.is_none() || t.output_primitive.is_none() {
            return Err(Error::invalid(
                self.program_at,
                "hull shader without its tessellator partitioning or output primitive",
            ));
        }
        let has_cp_phase = self
            .module
            .hull_phases
            .iter()
            .any(|p| p.kind == PhaseKind::ControlPoint);
        if !has_cp_phase && t.output_control_points > 0 {
            // Pass-through: every output-signature register is copied from the input control
            // point of the same number (D3D: the output patch is the input patch).
            let elements: Vec<ir::SignatureElement> = self.module.output_signature.clone();
            for e in elements {
                if e.register >= ir::MAX_IO_REGISTERS {
                    continue;
                }
                let system_value = pass_through_system_value(e.system_value);
                let decl = ir::IoDecl {
                    register: e.register,
                    mask: e.mask,
                    system_value,
                    interpolation: ir::Interpolation::Undefined,
                    stream: 0,
                    span: at,
                };
                self.module.outputs.push(decl);
                let input_sv = self
                    .module
                    .input_signature
                    .iter()
                    .find(|i| i.register == e.register && i.mask & e.mask != 0)
                    .map_or(ir::SystemValue::None, |i| {
                        pass_through_system_value(i.system_value)
                    });
                self.module.inputs.push(ir::IoDecl {
                    system_value: input_sv,
                    ..decl
                });
            }
        }
        Ok(())
    }

    /// The system value of a control-point register declared without one: the signature's
    /// position, clip or cull distance (the stage before wrote them to built-ins), else none.
    pub(super) fn control_point_system_value(
        &self,
        register: u32,
        mask: u8,
        output: bool,
    ) -> ir::SystemValue {
        let sig = if output {
            &self.module.output_signature
        } else {
            &self.module.input_signature
        };
        sig.iter()
            .find(|e| e.register == register && e.mask & mask != 0)
            .map_or(ir::SystemValue::None, |e| {
                pass_through_system_value(e.system_value)
            })
    }
}

/// Signature system values that control points carry in built-ins (position, clip and cull
/// distance); every other value is user data.
fn pass_through_system_value(system_value: ir::SystemValue) -> ir::SystemValue {
    use ir::SystemValue as S;
    match system_value {
        S::Position | S::ClipDistance | S::CullDistance => system_value,
        _ => S::None,
    }
}
