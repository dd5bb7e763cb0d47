//! Which declared resources an instruction may work on in the translatable profile: the
//! pairings of instructions and resource kinds that the shader model allows and the translator
//! checks (`sample*` on textures with a sampler of the matching mode, `gather4*` on 2-D and
//! cube textures, `ld_raw` on raw buffers, typed atomics on integer UAVs, counters on
//! structured UAVs that have one, ...).
//!
//! Contract: [`Gen::feasible`] says whether the program declared what an instruction needs
//! (a compatible resource and sampler, a stream, an interpolated input), so that the body
//! generator only draws instructions it can complete; [`Gen::plan`] then picks the resource and
//! sampler the instruction's operands name. In the encodable profile every instruction is
//! feasible and the plan is empty: operands name any register.

use super::registry::{Resource, Shape};
use super::{Gen, Profile};
use crate::front::dxbc::opcodes::{Class, Opcode};
use crate::front::dxbc::program::Stage;
use crate::front::dxbc::reflect::ResourceDimension as Dim;

use Opcode as O;

/// A resource an instruction works on: an index into the registry's lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// `t#`.
    Srv(usize),
    /// `u#`.
    Uav(usize),
    /// `g#`.
    Shared(usize),
    /// The `rasterizer` register of `sampleinfo`/`samplepos`.
    Rasterizer,
}

/// The resource and sampler one instruction names (translatable profile).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Plan {
    /// Its resource operand.
    pub target: Option<Target>,
    /// Its sampler operand (index into the registry's samplers).
    pub sampler: Option<usize>,
}

/// What an instruction's resource operand must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    /// Nothing (no resource operand).
    Nothing,
    /// A texture SRV and a sampler: `sample*`, `gather4*`, `lod`.
    Sampled {
        gather: bool,
        comparison: bool,
        programmable_offset: bool,
    },
    /// A typed SRV that is neither multisampled nor a cube: `ld`.
    Load,
    /// A multisampled SRV: `ldms`.
    LoadMultisampled,
    /// A multisampled SRV or the rasterizer: `sampleinfo`, `samplepos`.
    SampleCount,
    /// A typed texture SRV or UAV (no buffer): `resinfo`.
    Dimensions,
    /// A raw, structured or typed-buffer SRV or UAV: `bufinfo`.
    BufferSize,
    /// Raw memory: SRV (loads), UAV, or (compute) `g#`.
    Raw { store: bool, shared: bool },
    /// Structured memory: SRV (loads), UAV, or (compute) `g#`.
    Structured { store: bool, shared: bool },
    /// A typed UAV.
    TypedUav,
    /// A raw, structured or integer typed UAV, or `g#`.
    Atomic,
    /// A structured UAV with a counter.
    Counter,
}

fn need(op: Opcode) -> Need {
    let sampled = |gather, comparison, programmable_offset| Need::Sampled {
        gather,
        comparison,
        programmable_offset,
    };
    match op {
        O::Sample
        | O::SampleB
        | O::SampleL
        | O::SampleD
        | O::Lod
        | O::SampleLS
        | O::SampleClS
        | O::SampleBClS
        | O::SampleDClS => sampled(false, false, false),
        O::SampleC | O::SampleCLz | O::SampleCLzS | O::SampleCClS => sampled(false, true, false),
        O::Gather4 | O::Gather4S => sampled(true, false, false),
        O::Gather4C | O::Gather4CS => sampled(true, true, false),
        O::Gather4Po | O::Gather4PoS => sampled(true, false, true),
        O::Gather4PoC | O::Gather4PoCS => sampled(true, true, true),
        O::Ld | O::LdS => Need::Load,
        O::LdMs | O::LdMsS => Need::LoadMultisampled,
        O::SampleInfo | O::SamplePos => Need::SampleCount,
        O::Resinfo => Need::Dimensions,
        O::Bufinfo => Need::BufferSize,
        O::LdRaw => Need::Raw {
            store: false,
            shared: true,
        },
        O::LdRawS => Need::Raw {
            store: false,
            shared: false,
        },
        O::StoreRaw => Need::Raw {
            store: true,
            shared: true,
        },
        O::LdStructured => Need::Structured {
            store: false,
            shared: true,
        },
        O::LdStructuredS => Need::Structured {
            store: false,
            shared: false,
        },
        O::StoreStructured => Need::Structured {
            store: true,
            shared: true,
        },
        O::LdUavTyped | O::LdUavTypedS | O::StoreUavTyped => Need::TypedUav,
        O::ImmAtomicAlloc | O::ImmAtomicConsume => Need::Counter,
        _ if op.class() == Class::Atomic => Need::Atomic,
        _ => Need::Nothing,
    }
}

fn texture(dim: Option<Dim>) -> bool {
    matches!(
        dim,
        Some(
            Dim::Texture1D
                | Dim::Texture1DArray
                | Dim::Texture2D
                | Dim::Texture2DArray
                | Dim::Texture3D
                | Dim::TextureCube
                | Dim::TextureCubeArray
        )
    )
}

fn multisampled(dim: Option<Dim>) -> bool {
    matches!(dim, Some(Dim::Texture2DMs | Dim::Texture2DMsArray))
}

fn cube(dim: Option<Dim>) -> bool {
    matches!(dim, Some(Dim::TextureCube | Dim::TextureCubeArray))
}

/// Whether a resource of `shape` (`uav`: a `u#`) serves `need`.
fn serves(need: Need, shape: Shape, uav: bool) -> bool {
    let dim = shape.dim();
    match need {
        Need::Nothing => false,
        Need::Sampled {
            gather,
            comparison,
            programmable_offset,
        } => {
            !uav && texture(dim)
                && (!gather
                    || matches!(
                        dim,
                        Some(
                            Dim::Texture2D
                                | Dim::Texture2DArray
                                | Dim::TextureCube
                                | Dim::TextureCubeArray
                        )
                    ))
                && (!comparison || (shape.returns_float() && dim != Some(Dim::Texture3D)))
                && !(programmable_offset && cube(dim))
        }
        Need::Load => !uav && dim.is_some() && !multisampled(dim) && !cube(dim),
        Need::LoadMultisampled | Need::SampleCount => !uav && multisampled(dim),
        Need::Dimensions => dim.is_some_and(|d| d != Dim::Buffer),
        Need::BufferSize => matches!(dim, None | Some(Dim::Buffer)),
        Need::Raw { store, .. } => shape == Shape::Raw && (uav || !store),
        Need::Structured { store, .. } => {
            matches!(shape, Shape::Structured { .. }) && (uav || !store)
        }
        Need::TypedUav => uav && dim.is_some(),
        Need::Atomic => uav && (dim.is_none() || shape.returns_int()),
        Need::Counter => uav && matches!(shape, Shape::Structured { counter: true, .. }),
    }
}

impl Gen<'_> {
    /// The resources `op` may work on.
    fn targets(&self, op: Opcode) -> Vec<Target> {
        let need = need(op);
        let views = |uav: bool, make: fn(usize) -> Target| {
            let list: &[Resource] = self.declared.views(uav);
            list.iter()
                .enumerate()
                .filter(move |(_, r)| serves(need, r.shape, uav))
                .map(move |(i, _)| make(i))
        };
        let mut out: Vec<Target> = views(false, Target::Srv)
            .chain(views(true, Target::Uav))
            .collect();
        // The `g#` that serve: `Some(None)` any, `Some(Some(structured))` those of one layout.
        let shared = match need {
            Need::Raw { shared: true, .. } => Some(Some(false)),
            Need::Structured { shared: true, .. } => Some(Some(true)),
            Need::Atomic => Some(None),
            _ => None,
        };
        if let (Some(layout), Stage::Compute) = (shared, self.v.stage) {
            out.extend(
                self.declared
                    .shared
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| layout.map_or(true, |s| g.stride.is_some() == s))
                    .map(|(i, _)| Target::Shared(i)),
            );
        }
        if need == Need::SampleCount && self.v.stage == Stage::Pixel {
            out.push(Target::Rasterizer);
        }
        out
    }

    /// The samplers `op` may use (`None`: it takes no sampler).
    fn compatible_samplers(&self, op: Opcode) -> Option<Vec<usize>> {
        let Need::Sampled { comparison, .. } = need(op) else {
            return None;
        };
        Some(
            self.declared
                .samplers
                .iter()
                .enumerate()
                .filter(|(_, s)| s.comparison == comparison)
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// Whether the program declared what `op` needs (always, in the encodable profile).
    pub(super) fn feasible(&self, op: Opcode) -> bool {
        if self.profile == Profile::Encodable {
            return true;
        }
        let streams = !self.declared.streams.is_empty();
        match op {
            O::Emit | O::Cut | O::EmitThenCut if streams => return false,
            O::EmitStream | O::CutStream | O::EmitThenCutStream if !streams => return false,
            O::Sync if self.v.stage != Stage::Compute && self.declared.uavs.is_empty() => {
                return false
            }
            O::EvalCentroid | O::EvalSampleIndex | O::EvalSnapped
                if !self.io.inputs.iter().any(|r| r.interpolated) =>
            {
                return false
            }
            _ => {}
        }
        if need(op) == Need::Nothing {
            return true;
        }
        !self.targets(op).is_empty() && self.compatible_samplers(op).map_or(true, |s| !s.is_empty())
    }

    /// The resource and sampler `op` names (empty in the encodable profile); call only for a
    /// [`Gen::feasible`] instruction.
    pub(super) fn plan(&mut self, op: Opcode) -> Plan {
        if self.profile == Profile::Encodable || need(op) == Need::Nothing {
            return Plan::default();
        }
        let targets = self.targets(op);
        let target = (!targets.is_empty()).then(|| self.rng.pick(&targets));
        let sampler = match self.compatible_samplers(op) {
            Some(list) if !list.is_empty() => Some(self.rng.pick(&list)),
            _ => None,
        };
        Plan { target, sampler }
    }
}
