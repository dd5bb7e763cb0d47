//! `find_uav_counters`: marks the UAVs whose hidden counter the program uses.
//!
//! Contract: every UAV named by `imm_atomic_alloc` or `imm_atomic_consume` gets
//! [`ResourceDecl::counter`](crate::ir::ResourceDecl::counter) set; no other is touched (a
//! declaration's `_opc` flag alone does not need a counter binding). D3D allows counters only
//! on structured UAVs: a counter on a raw or typed UAV, on an SRV or on anything else is
//! [`Error::Invalid`] at the instruction.

use super::Error;
use crate::ir::binding::ResourceKind;
use crate::ir::{Module, Op, Reg, ResourceShape};

/// Sets the `counter` flag of the UAVs `imm_atomic_alloc`/`imm_atomic_consume` use.
pub fn find_uav_counters(module: &mut Module) -> Result<(), Error> {
    let Module {
        insts, resources, ..
    } = module;
    for inst in insts.iter() {
        if !matches!(inst.op, Op::ImmAtomicAlloc | Op::ImmAtomicConsume) {
            continue;
        }
        let at = inst.span;
        let name = inst.op.name();
        let decl = match inst.src().first().map(|s| s.reg) {
            Some(Reg::Uav { decl, .. }) => decl,
            Some(Reg::Resource { .. }) => {
                return Err(Error::invalid(
                    at,
                    format!(
                        "{name} on a shader resource view (only structured UAVs have counters)"
                    ),
                ))
            }
            _ => return Err(Error::invalid(at, format!("{name} without a UAV"))),
        };
        let Some(uav) = resources.get_mut(decl.index()) else {
            return Err(Error::invalid(
                at,
                format!("resource #{decl} is not declared"),
            ));
        };
        if uav.range.kind != ResourceKind::UnorderedAccess {
            return Err(Error::invalid(at, format!("resource #{decl} is not a UAV")));
        }
        match uav.shape {
            ResourceShape::Structured { .. } => uav.counter = true,
            ResourceShape::Raw | ResourceShape::Typed { .. } => {
                return Err(Error::invalid(
                    at,
                    format!("{name} on a raw or typed UAV (only structured UAVs have counters)"),
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::test_util::lowered;

    #[test]
    fn alloc_and_consume_mark_their_uavs() {
        let mut m = lowered(
            "cs_5_0\ndcl_uav_structured u0, 4\ndcl_uav_structured u1, 8\n\
             dcl_uav_structured u2, 4\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n\
             imm_atomic_alloc r0.x, u0\nimm_atomic_consume r0.x, u2\nret\n",
        );
        find_uav_counters(&mut m).expect("finds");
        let flags: Vec<bool> = m.resources.iter().map(|r| r.counter).collect();
        assert_eq!(flags, [true, false, true]);
    }

    #[test]
    fn counters_on_raw_uavs_are_invalid_at_the_instruction() {
        let mut m = lowered(
            "cs_5_0\ndcl_uav_raw u0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n\
             mov r0.x, l(0)\nimm_atomic_alloc r0.x, u0\nret\n",
        );
        let at = m.insts[1].span;
        let e = find_uav_counters(&mut m).unwrap_err();
        assert!(matches!(e, Error::Invalid { .. }), "{e}");
        assert_eq!(e.offset(), Some(at));
    }
}
