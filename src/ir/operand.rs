//! Operands: registers with resolved declarations, swizzles, write masks and modifiers.

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
    /// Register number (`r#`, `v#`) or position in [`Module::indexable_temps`] (`x#`): D3D's
    /// limits (4096 temps, 32 inputs) keep it far below 2^16, and a 16-bit field keeps the
    /// operands, and with them every [`Inst`](super::Inst), small.
    ///
    /// [`Module::indexable_temps`]: super::Module::indexable_temps
    pub register: u16,
    /// Element of an indexable temp (immediate; below 4096 in D3D).
    pub element: u16,
    /// The component read (0 = x).
    pub component: u8,
}

/// An index: an immediate, optionally plus a register component.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Index {
    /// The immediate part.
    pub imm: u32,
    /// The register part, if any.
    pub rel: Option<Rel>,
    /// SM5.1 `nonuniform`: the index may differ between invocations of a wave.
    pub nonuniform: bool,
}

impl Index {
    /// A constant index.
    pub const fn imm(imm: u32) -> Index {
        Index {
            imm,
            rel: None,
            nonuniform: false,
        }
    }

    /// The constant value, when there is no register part.
    pub fn constant(&self) -> Option<u32> {
        match self.rel {
            None => Some(self.imm),
            Some(_) => None,
        }
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
        array: u32,
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
        decl: u32,
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
        decl: u32,
        /// Descriptor in the declared range, relative to its first register.
        element: Index,
    },
    /// `u#` (SM5.1 `U#[element]`).
    Uav {
        /// Position in [`Module::resources`](super::Module::resources).
        decl: u32,
        /// Descriptor in the declared range, relative to its first register.
        element: Index,
    },
    /// `s#` (SM5.1 `S#[element]`).
    Sampler {
        /// Position in [`Module::samplers`](super::Module::samplers).
        decl: u32,
        /// Descriptor in the declared range, relative to its first register.
        element: Index,
    },
    /// `g#`: position in [`Module::tgsm`](super::Module::tgsm).
    Tgsm(u32),
    /// `l#` of `call`: position in [`Module::functions`](super::Module::functions).
    Function(u32),
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
