//! What a program has declared, so that the translatable profile names only declared registers
//! and uses each resource only with the instructions its kind allows.
//!
//! Contract: [`Registry`] holds the declarations of the whole program (constant buffers,
//! samplers, shader resource views, UAVs, shared memory, the immediate constant buffer,
//! geometry-shader streams) and hands out register ranges that never overlap within a register
//! type and space; [`Io`] holds what the current phase declared of the stage's inputs, outputs
//! and system registers (a hull shader starts a new one at each phase). The declaration code
//! fills both in every profile; only the translatable profile reads them back to pick operands.

use crate::front::dxbc::operand::RegisterType as R;
use crate::front::dxbc::reflect::{ResourceDimension as Dim, ReturnType};

/// A declared binding as operands name it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Binding {
    /// The operand's first index: the register (SM4–5.0) or the range id (SM5.1).
    pub id: u32,
    /// First register of the range (SM4–5.0: the register itself).
    pub lower: u32,
    /// Registers in the range; `None`: unbounded (SM5.1).
    pub count: Option<u32>,
}

/// What a shader resource view or UAV holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// A typed buffer or texture (`dcl_resource`, `dcl_uav_typed`).
    Typed {
        /// Its dimension.
        dim: Dim,
        /// The return type of all four components.
        ret: ReturnType,
    },
    /// A raw buffer.
    Raw,
    /// A structured buffer.
    Structured {
        /// Bytes per structure (a multiple of 4).
        stride: u32,
        /// A UAV with a hidden counter (`imm_atomic_alloc`/`consume`).
        counter: bool,
    },
}

impl Shape {
    /// The dimension of a typed view.
    pub fn dim(self) -> Option<Dim> {
        match self {
            Shape::Typed { dim, .. } => Some(dim),
            _ => None,
        }
    }

    /// Bytes per structure of a structured view.
    pub fn stride(self) -> Option<u32> {
        match self {
            Shape::Structured { stride, .. } => Some(stride),
            _ => None,
        }
    }

    /// A typed view returning floats (comparisons may sample it).
    pub fn returns_float(self) -> bool {
        matches!(
            self,
            Shape::Typed {
                ret: ReturnType::Float | ReturnType::Unorm | ReturnType::Snorm,
                ..
            }
        )
    }

    /// A typed view returning 32-bit integers (typed atomics may work on it).
    pub fn returns_int(self) -> bool {
        matches!(
            self,
            Shape::Typed {
                ret: ReturnType::Uint | ReturnType::Sint,
                ..
            }
        )
    }
}

/// A declared `t#` or `u#`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Resource {
    /// Where it is bound.
    pub binding: Binding,
    /// What it holds.
    pub shape: Shape,
}

/// A declared `cb#`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cbuffer {
    /// Where it is bound.
    pub binding: Binding,
    /// Its size in 16-byte vectors.
    pub vectors: u32,
}

/// A declared `s#`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sampler {
    /// Where it is bound.
    pub binding: Binding,
    /// Declared `mode_comparison` (for the `_c` instructions).
    pub comparison: bool,
}

/// A declared `g#`.
#[derive(Clone, Copy, Debug)]
pub(super) struct SharedMemory {
    /// Its register.
    pub register: u32,
    /// Bytes per structure; `None` for raw memory.
    pub stride: Option<u32>,
}

/// A declared `x#` of the current phase.
#[derive(Clone, Copy, Debug)]
pub(super) struct IndexableTemp {
    /// Its register.
    pub register: u32,
    /// Its elements.
    pub size: u32,
    /// Components of each element (1–4).
    pub components: u8,
}

/// The resources a program declared.
#[derive(Clone, Debug, Default)]
pub(super) struct Registry {
    /// Constant buffers.
    pub cbuffers: Vec<Cbuffer>,
    /// Samplers.
    pub samplers: Vec<Sampler>,
    /// Shader resource views.
    pub srvs: Vec<Resource>,
    /// Unordered access views.
    pub uavs: Vec<Resource>,
    /// Thread-group shared memory.
    pub shared: Vec<SharedMemory>,
    /// Bytes of shared memory declared.
    pub shared_bytes: u32,
    /// Rows of the immediate constant buffer (0: none).
    pub icb_rows: u32,
    /// Geometry-shader streams declared with `dcl_stream`.
    pub streams: Vec<u32>,
    /// Next free register per register type and space; `u32::MAX` once an unbounded range
    /// took the rest of the space.
    next_free: Vec<(R, u32, u32)>,
}

impl Registry {
    /// Reserves `count` registers of type `ty` in `space` (`None`: every register left),
    /// starting `gap` registers past the last reservation there; the first register, or `None`
    /// when an unbounded range already took the space.
    pub fn reserve(&mut self, ty: R, space: u32, gap: u32, count: Option<u32>) -> Option<u32> {
        let i = match self
            .next_free
            .iter()
            .position(|&(t, s, _)| t == ty && s == space)
        {
            Some(i) => i,
            None => {
                self.next_free.push((ty, space, 0));
                self.next_free.len() - 1
            }
        };
        let next = self.next_free[i].2;
        if next == u32::MAX {
            return None;
        }
        let lower = next + gap;
        self.next_free[i].2 = count.map_or(u32::MAX, |n| lower + n);
        Some(lower)
    }

    /// The resources of one kind: `u#` when `uav`, else `t#`.
    pub fn views(&self, uav: bool) -> &[Resource] {
        if uav {
            &self.uavs
        } else {
            &self.srvs
        }
    }
}

/// One declared `v#`/`o#`-style register.
#[derive(Clone, Copy, Debug)]
pub(super) struct IoRegister {
    /// Its number.
    pub register: u32,
    /// The declared components.
    pub mask: u8,
    /// A pixel-shader input interpolated without a system value (what `eval_*` may read).
    pub interpolated: bool,
}

/// What the current phase declared of the stage's inputs, outputs and system registers.
#[derive(Clone, Debug, Default)]
pub(super) struct Io {
    /// `v#`, or `v[vertex][#]` when `vertices > 0`.
    pub inputs: Vec<IoRegister>,
    /// Vertices of the per-vertex inputs (geometry shaders, control-point phases); 0: none.
    pub vertices: u32,
    /// Inputs declared with `dcl_indexrange` (first, count): they may be indexed relatively.
    pub input_range: Option<(u32, u32)>,
    /// Points of the input patch and the `vicp[point][#]` registers declared.
    pub input_points: (u32, Vec<u32>),
    /// Points of the output patch and the `vocp[point][#]` registers declared.
    pub output_points: (u32, Vec<u32>),
    /// `vpc#` registers declared.
    pub patch_constants: Vec<u32>,
    /// `o#` registers declared (patch constants in fork and join phases).
    pub outputs: Vec<IoRegister>,
    /// Outputs declared with `dcl_indexrange` (first, count).
    pub output_range: Option<(u32, u32)>,
    /// Scalar system registers declared (`vPrim`, `vForkInstanceID`, ...).
    pub scalars: Vec<R>,
    /// Vector system registers declared, with their component count (`vThreadID`: 3).
    pub vectors: Vec<(R, u8)>,
    /// Register-less pixel-shader outputs declared (`oDepth`, `oMask`, ...).
    pub special_outputs: Vec<R>,
}
