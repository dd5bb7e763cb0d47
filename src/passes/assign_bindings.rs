//! `assign_bindings`: asks the runtime's [`BindingMap`] where every declared range goes.
//!
//! Contract: every constant buffer, SRV, UAV and sampler declaration gets
//! [`binding`](crate::ir::ResourceDecl::binding) from [`BindingMap::map`] of its register
//! range; every UAV with a counter (see `find_uav_counters`, which must run first) also gets
//! `counter_binding` from its [`RegisterRange::counter`](crate::ir::binding::RegisterRange::counter)
//! range. A range the map cannot place is [`Error::Binding`] at the declaration's offset.

use super::Error;
use crate::ir::binding::BindingMap;
use crate::ir::Module;

/// Sets the binding of every declaration (and UAV counter) from `map`.
pub fn assign_bindings<M: BindingMap + ?Sized>(module: &mut Module, map: &M) -> Result<(), Error> {
    let fail = |offset: u32| move |source| Error::binding(offset, source);
    for cb in &mut module.cbuffers {
        cb.binding = Some(map.map(&cb.range).map_err(fail(cb.span))?);
    }
    for r in &mut module.resources {
        r.binding = Some(map.map(&r.range).map_err(fail(r.span))?);
        if r.counter {
            r.counter_binding = Some(map.map(&r.range.counter()).map_err(fail(r.span))?);
        }
    }
    for s in &mut module.samplers {
        s.binding = Some(map.map(&s.range).map_err(fail(s.span))?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::{
        BindingError, BindingTarget, Bindings, RegisterRange, ResourceKind, TableBindings,
    };
    use crate::passes::test_util::lowered;

    const SHADER: &str = "cs_5_0\n\
        dcl_constantbuffer cb1[2], immediateIndexed\n\
        dcl_resource_raw t3\n\
        dcl_uav_structured u2, 4\n\
        dcl_sampler s0, mode_default\n\
        dcl_temps 1\ndcl_thread_group 1, 1, 1\n\
        imm_atomic_alloc r0.x, u2\nret\n";

    #[test]
    fn every_declaration_and_counter_gets_a_binding() {
        let mut m = lowered(SHADER);
        crate::passes::find_uav_counters(&mut m).expect("counters");
        assign_bindings(&mut m, &Bindings::default()).expect("binds");
        assert!(m.cbuffers[0].binding.is_some());
        assert!(m.samplers[0].binding.is_some());
        assert!(m.resources.iter().all(|r| r.binding.is_some()));
        let uav = &m.resources[1];
        assert!(uav.counter);
        let (Some(BindingTarget::Descriptor(b)), Some(BindingTarget::Descriptor(c))) =
            (uav.binding, uav.counter_binding)
        else {
            panic!("descriptors expected: {uav:?}");
        };
        assert_ne!((b.set, b.binding), (c.set, c.binding));
        assert!(m.resources[0].counter_binding.is_none());
    }

    #[test]
    fn an_unmapped_range_is_a_binding_error_at_its_declaration() {
        let mut m = lowered(SHADER);
        let empty =
            Bindings::Table(TableBindings::new(Vec::new(), Vec::new()).expect("empty table"));
        let e = assign_bindings(&mut m, &empty).unwrap_err();
        match e {
            Error::Binding(e) => {
                assert_eq!(e.offset, m.cbuffers[0].span);
                assert_eq!(
                    e.what,
                    BindingError::Unmapped {
                        range: RegisterRange::single(ResourceKind::ConstantBuffer, 0, 1)
                    }
                );
            }
            other => panic!("{other}"),
        }
    }
}
