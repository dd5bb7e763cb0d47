//! How a shader uses each resource it declares ([`BoundResource::usage`](crate::BoundResource)):
//! read, written, used atomically — what a runtime needs for hazard tracking and barriers.
//!
//! Contract (from the IR's instructions, per declared range, whatever descriptor of the range
//! an instruction names):
//! - **read**: a load (`ld*`, `ld_raw`, `ld_structured`, `ld_uav_typed` and their `_s`
//!   forms), a sample or a gather reads its resource and its sampler; any operand of a
//!   constant buffer reads it; an atomic that returns the previous value (`imm_atomic_*`)
//!   reads its UAV; `imm_atomic_alloc`/`_consume` read (and write, atomically) the UAV's
//!   counter. Queries (`resinfo`, `bufinfo`, `sampleinfo`, `samplepos`) and `lod` read no
//!   memory and do not count.
//! - **written**: a store (`store_*`) or any atomic on a UAV; the counter by
//!   `imm_atomic_alloc`/`_consume`.
//! - **atomic**: any atomic operation on a UAV (or its counter).

use crate::ir::{self, AtomicOp, Family, Op, OpKind, Reg, Role};

bitflags::bitflags! {
    /// How a shader uses a resource (see the module docs for the rules).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct ResourceUsage: u32 {
        /// The shader reads it.
        const READ = 1 << 0;
        /// The shader writes it.
        const WRITTEN = 1 << 1;
        /// The shader uses it atomically.
        const ATOMIC = 1 << 2;
    }
}

/// The usage of each declaration of `module`: `(constant buffers, resources, counters of the
/// resources, samplers)`, indexed as the module's declaration lists.
pub(crate) struct Usages {
    pub(crate) cbuffers: Vec<ResourceUsage>,
    pub(crate) resources: Vec<ResourceUsage>,
    pub(crate) counters: Vec<ResourceUsage>,
    pub(crate) samplers: Vec<ResourceUsage>,
}

/// The usage of every declaration of `module` (one pass over its instructions).
pub(crate) fn usages(module: &ir::Module) -> Usages {
    let mut u = Usages {
        cbuffers: vec![ResourceUsage::empty(); module.cbuffers.len()],
        resources: vec![ResourceUsage::empty(); module.resources.len()],
        counters: vec![ResourceUsage::empty(); module.resources.len()],
        samplers: vec![ResourceUsage::empty(); module.samplers.len()],
    };
    let mark = |list: &mut Vec<ResourceUsage>, index: usize, bits: ResourceUsage| {
        if let Some(slot) = list.get_mut(index) {
            *slot |= bits;
        }
    };
    for inst in &module.insts {
        for src in inst.src() {
            if let Reg::ConstantBuffer { decl, .. } = src.reg {
                mark(&mut u.cbuffers, decl.index(), ResourceUsage::READ);
            }
        }
        let family = inst.op.family();
        if !matches!(
            family,
            Family::Buffer
                | Family::TextureLoad
                | Family::Sample
                | Family::Gather
                | Family::Sparse
                | Family::Atomic
        ) {
            // No other family names a resource, a sampler or a UAV destination.
            continue;
        }
        let reads = family != Family::Atomic && inst.op != Op::Bufinfo;
        let atomic = family == Family::Atomic;
        let counter = matches!(
            inst.op.kind(),
            OpKind::Atomic(AtomicOp::ImmAtomicAlloc | AtomicOp::ImmAtomicConsume)
        );
        // The resource operand of a load, sample, gather or returning atomic (a source).
        if let Some(src) = inst
            .op
            .source(Role::Resource)
            .and_then(|k| inst.src().get(k))
        {
            if let Reg::Resource { decl, .. } | Reg::Uav { decl, .. } = src.reg {
                let i = decl.index();
                if counter {
                    let all = ResourceUsage::all();
                    mark(&mut u.counters, i, all);
                } else if atomic {
                    let all = ResourceUsage::all();
                    mark(&mut u.resources, i, all);
                } else if reads {
                    mark(&mut u.resources, i, ResourceUsage::READ);
                }
            }
        }
        if reads {
            if let Some(src) = inst
                .op
                .source(Role::Sampler)
                .and_then(|k| inst.src().get(k))
            {
                if let Reg::Sampler { decl, .. } = src.reg {
                    mark(&mut u.samplers, decl.index(), ResourceUsage::READ);
                }
            }
        }
        // Stores and atomics without a returned value name the UAV as their destination.
        for dst in inst.dst() {
            if let Reg::Uav { decl, .. } = dst.reg {
                let bits = if atomic {
                    ResourceUsage::WRITTEN | ResourceUsage::ATOMIC
                } else {
                    ResourceUsage::WRITTEN
                };
                mark(&mut u.resources, decl.index(), bits);
            }
        }
    }
    u
}

#[cfg(test)]
mod tests {
    use super::ResourceUsage as U;
    use crate::bindings::ResourceKind as K;
    use crate::{translate, Options};

    /// (kind, register, usage) of each resource of a translation of `asm`.
    fn usage(asm: &str) -> Vec<(K, u32, U)> {
        let bytes = crate::text::dxbc::asm::assemble(asm).expect("assembles");
        let t = translate(&bytes, &Options::default()).expect("translates");
        t.info
            .resources
            .iter()
            .map(|r| (r.kind, r.register, r.usage))
            .collect()
    }

    /// A sample reads its texture and sampler, a constant-buffer operand its buffer; `resinfo`
    /// reads nothing, so `t1` (only queried) is unused.
    #[test]
    fn samples_and_constants_read_queries_do_not() {
        let got = usage(
            "ps_5_0\n\
             dcl_constantbuffer CB0[1], immediateIndexed\n\
             dcl_sampler s0, mode_default\n\
             dcl_resource_texture2d (float,float,float,float) t0\n\
             dcl_resource_texture2d (float,float,float,float) t1\n\
             dcl_input_ps linear v0.xy\n\
             dcl_output o0.xyzw\n\
             dcl_temps 2\n\
             sample r0.xyzw, v0.xyxx, t0.xyzw, s0\n\
             resinfo_uint r1.xyzw, l(0), t1.xyzw\n\
             add r0.xyzw, r0.xyzw, cb0[0].xyzw\n\
             add o0.xyzw, r0.xyzw, r1.xyzw\n\
             ret\n",
        );
        assert_eq!(
            got,
            [
                (K::ConstantBuffer, 0, U::READ),
                (K::ShaderResource, 0, U::READ),
                (K::ShaderResource, 1, U::empty()),
                (K::Sampler, 0, U::READ),
            ]
        );
    }

    /// A store writes; a load reads; an atomic without a return writes atomically; one with
    /// a return also reads; `imm_atomic_alloc` reads and writes the counter atomically, not
    /// the UAV.
    #[test]
    fn stores_loads_and_atomics() {
        let got = usage(
            "cs_5_0\n\
             dcl_uav_raw u0\n\
             dcl_uav_raw u1\n\
             dcl_uav_raw u2\n\
             dcl_uav_raw u3\n\
             dcl_uav_structured u4, 4\n\
             dcl_temps 1\n\
             dcl_thread_group 1, 1, 1\n\
             store_raw u0.x, l(0), l(1)\n\
             ld_raw r0.x, l(0), u1.xxxx\n\
             atomic_iadd u2, l(0), l(1)\n\
             imm_atomic_iadd r0.y, u3, l(0), l(1)\n\
             imm_atomic_alloc r0.z, u4\n\
             ret\n",
        );
        let all = U::all();
        assert_eq!(
            got,
            [
                (K::UnorderedAccess, 0, U::WRITTEN),
                (K::UnorderedAccess, 1, U::READ),
                (K::UnorderedAccess, 2, U::WRITTEN | U::ATOMIC),
                (K::UnorderedAccess, 3, all),
                (K::UnorderedAccess, 4, U::empty()),
                (K::UavCounter, 4, all),
            ]
        );
    }
}
