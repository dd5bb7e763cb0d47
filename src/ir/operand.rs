//! Operands: registers with resolved declarations, swizzles, write masks and modifiers.

use super::id::{CbId, FunctionId, IndexableId, ResourceId, SamplerId, TgsmId};

/// A register file of a relative index's register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RelFile {
    /// `r#`
    #[default]
    Temp,
    /// `x#[element]`; [`Rel::element`] is the element.
    IndexableTemp,
    /// `v#`
    Input,
}

/// The register part of a relative index: `r1.x` in `x0[r1.x + 2]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rel {
    /// Register file.
    pub file: RelFile,
    /// Register number (`r#`, `v#`) or position in [`Module::indexable_temps`] (`x#`), below
    /// [`Rel::REGISTER_LIMIT`]: D3D's limits (4096 temps, 32 inputs) keep it far below.
    ///
    /// [`Module::indexable_temps`]: super::Module::indexable_temps
    pub register: u16,
    /// Element of an indexable temp (immediate), below [`Rel::ELEMENT_LIMIT`]: D3D's 4096
    /// indexable-temp registers keep it there.
    pub element: u16,
    /// The component read (0 = x).
    pub component: u8,
}

impl Rel {
    /// The register numbers an [`Index`] can hold: 2^15.
    pub const REGISTER_LIMIT: u32 = 1 << REGISTER_BITS;
    /// The elements an [`Index`] can hold: 2^12, D3D's limit.
    pub const ELEMENT_LIMIT: u32 = 1 << ELEMENT_BITS;
}

/// Bits of [`Index`]'s packed word: file (2, 0 = no register part), component (2),
/// `nonuniform` (1), element (12), register (15).
const FILE_SHIFT: u32 = 0;
const COMPONENT_SHIFT: u32 = 2;
const NONUNIFORM_BIT: u32 = 1 << 4;
const ELEMENT_SHIFT: u32 = 5;
const ELEMENT_BITS: u32 = 12;
const REGISTER_SHIFT: u32 = ELEMENT_SHIFT + ELEMENT_BITS;
const REGISTER_BITS: u32 = 32 - REGISTER_SHIFT;

/// An index: an immediate, optionally plus a register component, and whether it may differ
/// between the invocations of a wave.
///
/// Eight bytes, moved as one machine word: the register part and the flag are packed into
/// one 32-bit word beside the immediate (see [`Index::rel`]), which keeps every register
/// reference, and with them every [`Inst`](super::Inst), small.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(C, align(8))]
pub struct Index {
    /// The immediate part.
    pub imm: u32,
    /// The register part and the flag, packed (0: none, uniform).
    packed: u32,
}

impl Index {
    /// A constant index.
    pub const fn imm(imm: u32) -> Index {
        Index { imm, packed: 0 }
    }

    /// `imm` plus the register part `rel`; `None` when `rel`'s register or element is past
    /// [`Rel::REGISTER_LIMIT`] or [`Rel::ELEMENT_LIMIT`].
    pub fn relative(imm: u32, rel: Rel) -> Option<Index> {
        let mut index = Index::imm(imm);
        index.set_rel(Some(rel)).then_some(index)
    }

    /// The register part, if any.
    #[inline]
    pub fn rel(&self) -> Option<Rel> {
        let file = match (self.packed >> FILE_SHIFT) & 3 {
            0 => return None,
            1 => RelFile::Temp,
            2 => RelFile::IndexableTemp,
            _ => RelFile::Input,
        };
        Some(Rel {
            file,
            register: (self.packed >> REGISTER_SHIFT) as u16,
            element: ((self.packed >> ELEMENT_SHIFT) & (Rel::ELEMENT_LIMIT - 1)) as u16,
            component: ((self.packed >> COMPONENT_SHIFT) & 3) as u8,
        })
    }

    /// Whether there is a register part.
    #[inline]
    pub fn is_relative(&self) -> bool {
        (self.packed >> FILE_SHIFT) & 3 != 0
    }

    /// Sets (or, with `None`, removes) the register part; `false`, and nothing changed, when
    /// the register or element is past [`Rel::REGISTER_LIMIT`] or [`Rel::ELEMENT_LIMIT`].
    pub fn set_rel(&mut self, rel: Option<Rel>) -> bool {
        let keep = self.packed & NONUNIFORM_BIT;
        let Some(rel) = rel else {
            self.packed = keep;
            return true;
        };
        if u32::from(rel.register) >= Rel::REGISTER_LIMIT
            || u32::from(rel.element) >= Rel::ELEMENT_LIMIT
        {
            return false;
        }
        let file = match rel.file {
            RelFile::Temp => 1,
            RelFile::IndexableTemp => 2,
            RelFile::Input => 3,
        };
        self.packed = keep
            | file << FILE_SHIFT
            | u32::from(rel.component & 3) << COMPONENT_SHIFT
            | u32::from(rel.element) << ELEMENT_SHIFT
            | u32::from(rel.register) << REGISTER_SHIFT;
        true
    }

    /// SM5.1 `nonuniform`: the index may differ between invocations of a wave.
    #[inline]
    pub fn nonuniform(&self) -> bool {
        self.packed & NONUNIFORM_BIT != 0
    }

    /// Sets [`Index::nonuniform`].
    pub fn set_nonuniform(&mut self, nonuniform: bool) {
        self.packed = self.packed & !NONUNIFORM_BIT | if nonuniform { NONUNIFORM_BIT } else { 0 };
    }

    /// The constant value, when there is no register part.
    #[inline]
    pub fn constant(&self) -> Option<u32> {
        (!self.is_relative()).then_some(self.imm)
    }
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("imm", &self.imm)
            .field("rel", &self.rel())
            .field("nonuniform", &self.nonuniform())
            .finish()
    }
}

/// What an operand names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reg {
    /// `null`: results are discarded.
    #[default]
    Null,
    /// `r#`
    Temp(u32),
    /// `x#[index]`: `array` is the position in [`Module::indexable_temps`].
    ///
    /// [`Module::indexable_temps`]: super::Module::indexable_temps
    IndexableTemp {
        /// Which array.
        array: IndexableId,
        /// Element.
        index: Index,
    },
    /// `v#` (1-D inputs).
    Input(Index),
    /// `v[vertex][register]`: per-vertex inputs of geometry shaders.
    VertexInput {
        /// The vertex of the input primitive.
        vertex: Index,
        /// The register.
        register: Index,
    },
    /// `vocp[vertex][register]`: the output control points of a hull shader, read by its fork
    /// and join phases.
    OutputControlPoint {
        /// The output control point.
        vertex: Index,
        /// The register.
        register: Index,
    },
    /// Patch constants: `o#` written by a hull shader's fork and join phases, `vpc#` read by
    /// its join phases and by domain shaders.
    PatchConstant(Index),
    /// `vOutputControlPointID`: the control point a hull shader's control-point phase computes.
    OutputControlPointId,
    /// `vForkInstanceID`: the instance of a hull shader's fork phase.
    ForkInstanceId,
    /// `vJoinInstanceID`: the instance of a hull shader's join phase.
    JoinInstanceId,
    /// `vDomain`: the domain location of a domain shader (`SV_DomainLocation`).
    DomainLocation,
    /// `vPrim`: the primitive id (geometry, hull and domain shaders).
    PrimitiveId,
    /// `vGSInstanceID`: the geometry-shader instance.
    GsInstanceId,
    /// `vCoverage`: the pixel's input coverage mask.
    InputCoverage,
    /// `vInnerCoverage`: whether the pixel is fully covered by the primitive (conservative
    /// rasterization).
    InnerCoverage,
    /// `oDepth` / `oDepthGE` / `oDepthLE`.
    OutputDepth(DepthOutput),
    /// `oMask`: the pixel's output coverage mask.
    OutputCoverage,
    /// `oStencilRef`.
    OutputStencilRef,
    /// `rasterizer`: the render target's sample count, for `sampleinfo`/`samplepos`.
    Rasterizer,
    /// `o#`
    Output(Index),
    /// `cb#[slot]` (SM5.1: `CB#[element][slot]`).
    ConstantBuffer {
        /// Position in [`Module::cbuffers`](super::Module::cbuffers).
        decl: CbId,
        /// Descriptor in the declared range, relative to its first register.
        element: Index,
        /// The 16-byte vector.
        slot: Index,
    },
    /// `icb[index]`
    ImmediateConstantBuffer(Index),
    /// `l(a, b, c, d)`: four 32-bit immediates (a scalar immediate is replicated).
    Imm32([u32; 4]),
    /// `d(a, b)`: two 64-bit immediates.
    Imm64([u64; 2]),
    /// `vThreadID`
    ThreadId,
    /// `vThreadGroupID`
    ThreadGroupId,
    /// `vThreadIDInGroup`
    ThreadIdInGroup,
    /// `vThreadIDInGroupFlattened`
    ThreadIdInGroupFlattened,
    /// `t#` (SM5.1 `T#[element]`).
    Resource {
        /// Position in [`Module::resources`](super::Module::resources).
        decl: ResourceId,
        /// Descriptor in the declared range, relative to its first register.
        element: Index,
    },
    /// `u#` (SM5.1 `U#[element]`).
    Uav {
        /// Position in [`Module::resources`](super::Module::resources).
        decl: ResourceId,
        /// Descriptor in the declared range, relative to its first register.
        element: Index,
    },
    /// `s#` (SM5.1 `S#[element]`).
    Sampler {
        /// Position in [`Module::samplers`](super::Module::samplers).
        decl: SamplerId,
        /// Descriptor in the declared range, relative to its first register.
        element: Index,
    },
    /// `g#`: position in [`Module::tgsm`](super::Module::tgsm).
    Tgsm(TgsmId),
    /// `l#` of `call`: position in [`Module::functions`](super::Module::functions).
    Function(FunctionId),
    /// A value the runtime provides: position in
    /// [`Module::parameters`](super::Module::parameters) (read only).
    Parameter(u32),
}

/// Which depth output a pixel shader writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DepthOutput {
    /// `oDepth`: any value.
    #[default]
    Any,
    /// `oDepthGE`: never less than the rasterized depth.
    GreaterEqual,
    /// `oDepthLE`: never greater than the rasterized depth.
    LessEqual,
}

/// A source modifier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// None.
    #[default]
    None,
    /// `-x` (float negate for float operations, integer negate for integer ones).
    Neg,
    /// `|x|`
    Abs,
    /// `-|x|`
    AbsNeg,
}

/// A source operand: a register read through a swizzle, with a modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    /// The register.
    pub reg: Reg,
    /// For each result component, the register component it reads (0 = x). Scalar-only
    /// registers use `[0; 4]`; resource operands use it to reorder loaded data.
    pub swizzle: [u8; 4],
    /// The modifier.
    pub modifier: Modifier,
}

impl Default for Src {
    fn default() -> Src {
        Src {
            reg: Reg::Null,
            swizzle: [0, 1, 2, 3],
            modifier: Modifier::None,
        }
    }
}

impl Src {
    /// A register read with the identity swizzle and no modifier.
    pub fn new(reg: Reg) -> Src {
        Src {
            reg,
            ..Src::default()
        }
    }
}

/// A destination operand: a register and a write mask (bit 0 = x).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dst {
    /// The register (`Null` discards).
    pub reg: Reg,
    /// Components written.
    pub mask: u8,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    #[test]
    fn an_index_keeps_its_register_part_and_flag() {
        let rel = Rel {
            file: RelFile::IndexableTemp,
            register: (Rel::REGISTER_LIMIT - 1) as u16,
            element: (Rel::ELEMENT_LIMIT - 1) as u16,
            component: 3,
        };
        let mut index = Index::relative(7, rel).expect("within the limits");
        assert_eq!(
            (index.imm, index.rel(), index.nonuniform()),
            (7, Some(rel), false)
        );
        index.set_nonuniform(true);
        assert_eq!((index.rel(), index.nonuniform()), (Some(rel), true));
        for file in [RelFile::Temp, RelFile::Input] {
            let other = Rel {
                file,
                register: 0,
                element: 0,
                component: 1,
            };
            assert!(index.set_rel(Some(other)));
            assert_eq!((index.rel(), index.nonuniform()), (Some(other), true));
        }
        assert!(index.set_rel(None));
        assert_eq!(
            (index.rel(), index.constant(), index.nonuniform()),
            (None, Some(7), true)
        );
        index.set_nonuniform(false);
        assert_eq!(index, Index::imm(7));
        // Past the limits nothing changes.
        let register = Rel {
            register: Rel::REGISTER_LIMIT as u16,
            ..rel
        };
        let element = Rel {
            element: Rel::ELEMENT_LIMIT as u16,
            ..rel
        };
        assert_eq!(Index::relative(7, register), None);
        assert_eq!(Index::relative(7, element), None);
        assert!(!index.set_rel(Some(element)));
        assert_eq!(index, Index::imm(7));
    }

    #[test]
    fn operands_stay_small() {
        // One machine word per index; an instruction's operands are most of its size.
        assert_eq!(size_of::<Index>(), 8);
        assert_eq!(size_of::<Reg>(), 24);
        assert_eq!(size_of::<Src>(), 32);
        assert_eq!(size_of::<Dst>(), 32);
    }
}
