//! The level-9 part of a `4_0_level_9_x` DXBC container: where its `c#` and `s#` registers come
//! from ([`Level9Layout`], built from the container's `Aon9` tables by the caller).
//!
//! Contract: a level-9 program reads the resources its container's Shader Model 4 program
//! declares, so that one binding layout serves both parts (`docs/d3d9.md`, "Level-9 parts"):
//! - a float constant `c#` inside a constant mapping (`count` registers of `cb{buffer}` from
//!   `first_register`, landing at `c{target}`) reads `cb{buffer}[first_register + # − target]`
//!   directly (a `def` still wins for direct reads); a component the table marks `uint` is
//!   converted to float as the feature-level-9 runtime converts it;
//! - a relative read `c[a0.x + n]` reads the buffer of the mapping that holds `c{n}`, at the
//!   same offset plus the address (HLSL arrays live in one mapping; an address that leaves it
//!   is undefined in HLSL); when no mapping holds `c{n}` but `def` defines it, the run of
//!   consecutively defined registers around `c{n}`, copied into the module's immediate
//!   constant buffer (a literal array of the HLSL: D3D9 loads `def` values into the constant
//!   file, where relative addressing reads them, and no runtime fills a level-9 part's `c#`
//!   past its mappings); else, when all mappings are one affine map of one buffer (fxc folds
//!   array offsets into the base), that map;
//! - a runtime constant (the vertex-shader position offset, D3D's half-pixel correction) reads
//!   0: Vulkan's pixel centres need none; a `c#` no table names reads 0 too;
//! - sampler `s#` samples texture `t{resource}` with sampler state `s{sampler}` of its
//!   sampler mapping (itself when it has none).
//!
//! Nothing here knows the DXBC container: the layout is plain numbers.

use crate::error::Error;
use crate::front::d3d9::program::Relative;
use crate::ir::{self, Index, Op, Reg};

use super::operand::{inst, temp, temp_d};
use super::{Defined, Lowering};
use crate::front::d3d9::program::RegisterType;

/// Where a level-9 program's constants and samplers come from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Level9Layout {
    /// Constant-buffer ranges copied into `c#`, in table order.
    pub constants: Vec<ConstantRange>,
    /// `c#` registers the runtime fills itself (they read 0 here).
    pub runtime_constants: Vec<u32>,
    /// Sampler sources, by D3D9 sampler.
    pub samplers: Vec<SamplerSource>,
}

/// `count` 16-byte registers of `cb{buffer}` from `first_register` are `c{target}` onwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstantRange {
    /// The constant-buffer slot (`cb#`, register space 0).
    pub buffer: u32,
    /// The first register of the buffer.
    pub first_register: u32,
    /// How many registers.
    pub count: u32,
    /// The first `c#`.
    pub target: u32,
    /// Components (bit 0 = x) the runtime converts from `uint` to float.
    pub uint_components: u8,
}

impl Level9Layout {
    /// The range that reads `c{num}` when every constant row maps one buffer with the same
    /// offset (`first_register − target`) and the same conversions, extended to `c{num}`.
    fn affine(&self, num: u32) -> Option<ConstantRange> {
        let first = *self.constants.first()?;
        let delta = i64::from(first.first_register) - i64::from(first.target);
        let same = self.constants.iter().all(|r| {
            r.buffer == first.buffer
                && i64::from(r.first_register) - i64::from(r.target) == delta
                && r.uint_components == first.uint_components
        });
        let register = u32::try_from(i64::from(num) + delta).ok()?;
        same.then_some(ConstantRange {
            first_register: register,
            count: 1,
            target: num,
            ..first
        })
    }
}

impl ConstantRange {
    /// Whether `c{num}` lies in this range.
    fn holds(&self, num: u32) -> bool {
        num >= self.target && num - self.target < self.count
    }
}

/// D3D9 sampler `s{target}` is texture `t{resource}` sampled with `s{sampler}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerSource {
    /// The D3D9 sampler.
    pub target: u32,
    /// The shader-resource view slot.
    pub resource: u32,
    /// The sampler-state slot.
    pub sampler: u32,
}

impl Lowering<'_, '_> {
    /// The IR register `c{num}` (relative through `rel`) reads in a level-9 part: a constant
    /// buffer of the SM4 program, or 0.
    pub(super) fn level9_constant(
        &mut self,
        layout: &Level9Layout,
        num: u32,
        rel: Option<&Relative>,
        span: u32,
    ) -> Result<Reg, Error> {
        let held = layout.constants.iter().find(|r| r.holds(num)).copied();
        if let (None, Some(rel)) = (held, rel) {
            if let Some(element) = self.level9_defined_run(num) {
                return Ok(Reg::ImmediateConstantBuffer(self.index(
                    element,
                    Some(rel),
                    span,
                )?));
            }
        }
        // A relative read whose base lies outside every row (fxc folds an array offset into
        // the base): exact when the rows are one affine map of one buffer.
        let held = held.or_else(|| rel.and(layout.affine(num)));
        let Some(range) = held else {
            if rel.is_some() {
                return Err(Error::unsupported(
                    span,
                    format!(
                        "a relative read from c{num} in a level-9 part, outside its \
                         constant-buffer mapping"
                    ),
                ));
            }
            // A runtime constant (the position offset, 0 on Vulkan) or a register no table
            // fills.
            return Ok(Reg::Imm32([0; 4]));
        };
        let decl = self.level9_buffer(range.buffer, span);
        let slot = range.first_register + (num - range.target);
        let reg = Reg::ConstantBuffer {
            decl,
            element: Index::imm(0),
            slot: self.index(slot, rel, span)?,
        };
        if range.uint_components == 0 {
            return Ok(reg);
        }
        let t = self.temps.scratch();
        self.push(inst(Op::Mov, span, &[temp_d(t, 0xf)], &[ir::Src::new(reg)]));
        self.push(inst(
            Op::Utof,
            span,
            &[temp_d(t, range.uint_components & 0xf)],
            &[temp(t)],
        ));
        Ok(Reg::Temp(t))
    }

    /// For a relative read based at `c{num}` when `def` defines it: the immediate constant
    /// buffer element of `c{num}` in a copy of the run of consecutively defined registers
    /// around it (an equal run already there is reused).
    fn level9_defined_run(&mut self, num: u32) -> Option<u32> {
        let value = |n: u32| match self.defined(RegisterType::Const, n) {
            Some(Defined::Float(v)) => Some(v),
            _ => None,
        };
        value(num)?;
        let mut first = num;
        while first.checked_sub(1).and_then(value).is_some() {
            first -= 1;
        }
        let mut words = Vec::new();
        let mut n = first;
        while let Some(v) = value(n) {
            words.extend_from_slice(&v);
            match n.checked_add(1) {
                Some(next) => n = next,
                None => break,
            }
        }
        let icb = &mut self.module.icb;
        let at = (0..icb.len() / 4).find(|&e| {
            icb.get(e * 4..)
                .is_some_and(|tail| tail.starts_with(&words))
        });
        let at = match at {
            Some(e) => e,
            None => {
                let e = icb.len() / 4;
                icb.extend_from_slice(&words);
                e
            }
        };
        u32::try_from(at).ok()?.checked_add(num - first)
    }

    /// The declaration of `cb{buffer}` (space 0), sized to cover every mapping of it.
    fn level9_buffer(&mut self, buffer: u32, span: u32) -> ir::CbId {
        if let Some(i) = self.module.cbuffers.iter().position(|c| c.id == buffer) {
            return ir::CbId::new(i as u32);
        }
        let size = self.level9.map_or(0, |l| {
            l.constants
                .iter()
                .filter(|r| r.buffer == buffer)
                .map(|r| r.first_register.saturating_add(r.count))
                .max()
                .unwrap_or(0)
        });
        let id = ir::CbId::new(self.module.cbuffers.len() as u32);
        self.module.cbuffers.push(ir::CbDecl {
            range: ir::binding::RegisterRange::single(
                ir::binding::ResourceKind::ConstantBuffer,
                0,
                buffer,
            ),
            id: buffer,
            size: size.max(1),
            dynamic: true,
            binding: None,
            span,
        });
        id
    }

    /// The (texture, sampler-state) slots D3D9 sampler `s{num}` stands for.
    pub(super) fn sampler_source(&self, num: u32) -> (u32, u32) {
        self.level9
            .and_then(|l| l.samplers.iter().find(|s| s.target == num))
            .map_or((num, num), |s| (s.resource, s.sampler))
    }
}
