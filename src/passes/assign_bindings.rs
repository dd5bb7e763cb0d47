//! `assign_bindings`: asks the runtime's [`BindingMap`] where every declared range goes.
//!
//! Contract: every constant buffer, SRV, UAV and sampler declaration gets
//! [`binding`](crate::ir::ResourceDecl::binding) from [`BindingMap::map`] of its register
//! range; every UAV with a counter (see `find_uav_counters`, which must run first) also gets
//! `counter_binding` from its [`RegisterRange::counter`](crate::ir::binding::RegisterRange::counter)
//! range. A range the map cannot place is [`Error::Binding`] at the declaration's offset.
//! The class-linkage block ([`Module::class_linkage`]) is not asked of the map:
//! [`assign_class_linkage`] binds it where the caller's [`ClassLinkage`] says, and a descriptor
//! binding the map gave another declaration too is [`Error::Invalid`] naming both.

use super::Error;
use crate::bindings::ClassLinkage;
use crate::ir::binding::{BindingMap, BindingTarget};
use crate::ir::Module;

/// Sets the binding of every declaration (and UAV counter) from `map`.
pub fn assign_bindings<M: BindingMap + ?Sized>(module: &mut Module, map: &M) -> Result<(), Error> {
    let fail = |offset: u32| move |source| Error::binding(offset, source);
    let block = module.class_linkage.map(|c| c.cbuffer.index());
    for (i, cb) in module.cbuffers.iter_mut().enumerate() {
        if Some(i) != block {
            cb.binding = Some(map.map(&cb.range).map_err(fail(cb.span))?);
        }
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

/// Binds the class-linkage block, if the module has one, at `linkage.block`; must run after
/// [`assign_bindings`], whose descriptors it checks for a clash.
pub fn assign_class_linkage(module: &mut Module, linkage: &ClassLinkage) -> Result<(), Error> {
    let Some(class_linkage) = module.class_linkage else {
        return Ok(());
    };
    let target = linkage.block;
    if let BindingTarget::Descriptor(block) = target {
        let declared = module
            .cbuffers
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != class_linkage.cbuffer.index())
            .map(|(_, c)| (c.binding, c.range, c.span))
            .chain(module.resources.iter().flat_map(|r| {
                [
                    (r.binding, r.range, r.span),
                    (r.counter_binding, r.range.counter(), r.span),
                ]
            }))
            .chain(module.samplers.iter().map(|s| (s.binding, s.range, s.span)));
        for (binding, range, span) in declared {
            if let Some(BindingTarget::Descriptor(b)) = binding {
                if (b.set, b.binding) == (block.set, block.binding) {
                    return Err(Error::invalid(
                        span,
                        format!(
                            "{range} is bound at set {} binding {}, where the class-linkage \
                             block is too (choose another with Options::with_class_linkage)",
                            b.set, b.binding
                        ),
                    ));
                }
            }
        }
    }
    let cb = module
        .cbuffers
        .get_mut(class_linkage.cbuffer.index())
        .ok_or_else(|| Error::internal(module.program_span, "class-linkage block missing"))?;
    cb.binding = Some(target);
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
