//! `schedule_hull_phases`: maps a hull shader's phases onto the invocations of one
//! tessellation-control entry point ([`Module::hull_steps`]; `docs/hull-shaders.md`).
//!
//! Contract: every invocation (one per output control point) runs the control-point phase, or
//! the pass-through D3D defines without one, and writes its own output control point (none when
//! the hull shader outputs 0 points). A barrier follows when a fork or join phase reads `vocp`,
//! which is then loaded from the outputs. The fork phases, then the join phases, run under the
//! requested [`HullSchedule`]:
//! - `Serial`: invocation 0 runs every instance of every phase, then writes the patch constants
//!   and the tessellation levels: patch-constant code runs once per patch, as in D3D.
//! - `Parallel`: instance `k` runs on invocation `k mod N` (`N` output points, at least 1) and
//!   each invocation publishes what it wrote after every phase; before the first join phase a
//!   barrier, after which every invocation reloads the patch constants (joins read `vpc#`); a
//!   last barrier, then invocation 0 reloads them and writes the tessellation levels.
//!
//! Other stages are left alone.

use super::Error;
use crate::ir::{HullSchedule, HullStep, Module, PhaseKind, Reg, Stage};

/// Fills [`Module::hull_steps`] of a hull shader.
pub fn schedule_hull_phases(module: &mut Module, schedule: HullSchedule) -> Result<(), Error> {
    if module.stage != Stage::Hull {
        return Ok(());
    }
    let mut steps = Vec::new();
    match module
        .hull_phases
        .iter()
        .find(|p| p.kind == PhaseKind::ControlPoint)
    {
        Some(cp) => steps.push(HullStep::ControlPoint(cp.function)),
        None => steps.push(HullStep::PassThrough),
    }
    if module.tessellation.output_control_points > 0 {
        steps.push(HullStep::WriteControlPoint);
    }
    let reads_vocp = module.insts.iter().any(|inst| {
        inst.src()
            .iter()
            .any(|s| matches!(s.reg, Reg::OutputControlPoint { .. }))
    });
    let mut patch = Vec::new();
    if reads_vocp {
        steps.push(HullStep::Barrier);
        patch.push(HullStep::LoadOutputPoints);
    }
    let phases: Vec<_> = module
        .hull_phases
        .iter()
        .filter(|p| p.kind != PhaseKind::ControlPoint)
        .copied()
        .collect();
    match schedule {
        HullSchedule::Serial => {
            for p in &phases {
                patch.push(HullStep::Phase {
                    function: p.function,
                    instances: p.instances,
                    from_invocation: false,
                    step: 1,
                });
            }
            patch.push(HullStep::WritePatchConstants);
            patch.push(HullStep::WriteTessLevels);
            steps.push(HullStep::FirstInvocation(patch));
        }
        HullSchedule::Parallel => {
            steps.append(&mut patch);
            let invocations = module.tessellation.output_control_points.max(1);
            let mut joined = false;
            for p in &phases {
                if p.kind == PhaseKind::Join && !joined {
                    joined = true;
                    steps.push(HullStep::Barrier);
                    steps.push(HullStep::ReloadPatchConstants);
                }
                steps.push(HullStep::Phase {
                    function: p.function,
                    instances: p.instances,
                    from_invocation: true,
                    step: invocations,
                });
                steps.push(HullStep::PublishPatchConstants);
            }
            steps.push(HullStep::Barrier);
            steps.push(HullStep::FirstInvocation(vec![
                HullStep::ReloadPatchConstants,
                HullStep::WriteTessLevels,
            ]));
        }
    }
    module.hull_steps = steps;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::test_util::lowered;

    /// Two output points; a fork phase with 3 instances reading `vocp`, a join phase.
    const HS: &str = "hs_5_0\nhs_decls\ndcl_input_control_point_count 2\n\
        dcl_output_control_point_count 2\ndcl_tessellator_domain domain_isoline\n\
        dcl_tessellator_partitioning partitioning_integer\n\
        dcl_tessellator_output_primitive output_line\n\
        hs_control_point_phase\ndcl_output o0.x\nmov o0.x, l(1.0)\nret\n\
        hs_fork_phase\ndcl_hs_fork_phase_instance_count 3\ndcl_input vocp[2][0].x\n\
        dcl_output o1.x\nmov o1.x, vocp[1][0].x\nret\n\
        hs_join_phase\ndcl_output_siv o0.x, finalLineDetailTessFactor\n\
        dcl_output_siv o2.x, finalLineDensityTessFactor\nmov o0.x, vpc1.x\nmov o2.x, l(1.0)\nret\n";

    fn phase(function: u32, instances: u32, parallel: bool) -> HullStep {
        HullStep::Phase {
            function: crate::ir::FunctionId::new(function),
            instances,
            from_invocation: parallel,
            step: if parallel { 2 } else { 1 },
        }
    }

    #[test]
    fn serial_runs_every_phase_instance_on_invocation_zero() {
        let mut m = lowered(HS);
        schedule_hull_phases(&mut m, HullSchedule::Serial).expect("schedules");
        assert_eq!(
            m.hull_steps,
            [
                HullStep::ControlPoint(crate::ir::FunctionId::new(0)),
                HullStep::WriteControlPoint,
                HullStep::Barrier,
                HullStep::FirstInvocation(vec![
                    HullStep::LoadOutputPoints,
                    phase(1, 3, false),
                    phase(2, 1, false),
                    HullStep::WritePatchConstants,
                    HullStep::WriteTessLevels,
                ]),
            ]
        );
    }

    #[test]
    fn parallel_spreads_instances_with_barriers_between_forks_and_joins() {
        let mut m = lowered(HS);
        schedule_hull_phases(&mut m, HullSchedule::Parallel).expect("schedules");
        assert_eq!(
            m.hull_steps,
            [
                HullStep::ControlPoint(crate::ir::FunctionId::new(0)),
                HullStep::WriteControlPoint,
                HullStep::Barrier,
                HullStep::LoadOutputPoints,
                phase(1, 3, true),
                HullStep::PublishPatchConstants,
                HullStep::Barrier,
                HullStep::ReloadPatchConstants,
                phase(2, 1, true),
                HullStep::PublishPatchConstants,
                HullStep::Barrier,
                HullStep::FirstInvocation(vec![
                    HullStep::ReloadPatchConstants,
                    HullStep::WriteTessLevels
                ]),
            ]
        );
    }

    /// Without a control-point phase and with 0 output points: the pass-through writes no
    /// control point, and nothing reads `vocp`, so no barrier.
    #[test]
    fn pass_through_without_points_and_other_stages_untouched() {
        let mut m = lowered(
            "hs_5_0\nhs_decls\ndcl_input_control_point_count 1\n\
             dcl_output_control_point_count 0\ndcl_tessellator_domain domain_quad\n\
             dcl_tessellator_partitioning partitioning_integer\n\
             dcl_tessellator_output_primitive output_point\n\
             hs_fork_phase\ndcl_output_siv o0.x, finalQuadUeq0EdgeTessFactor\n\
             mov o0.x, l(1.0)\nret\n",
        );
        schedule_hull_phases(&mut m, HullSchedule::Serial).expect("schedules");
        assert_eq!(m.hull_steps[0], HullStep::PassThrough);
        assert!(!m.hull_steps.contains(&HullStep::WriteControlPoint));
        assert!(!m.hull_steps.contains(&HullStep::Barrier));
        let mut cs = lowered("cs_5_0\ndcl_thread_group 1, 1, 1\nret\n");
        schedule_hull_phases(&mut cs, HullSchedule::Parallel).expect("no-op");
        assert!(cs.hull_steps.is_empty());
    }
}
