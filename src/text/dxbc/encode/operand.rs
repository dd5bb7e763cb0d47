//! Operands back into tokens: the operand token rebuilt from the typed fields, the extended
//! operand token, then immediates or indices (with their relative registers).
//!
//! Also small constructors ([`reg`], [`imm32`], [`imm64`], [`relative`]) and the
//! [`OperandBuild`] methods that tests, fuzz seeds and the samples use to describe operands.

use super::token::{modifier_token, put, OperandFields, MODIFIER_FIELDS};
use super::{EncodeError, Result};
use crate::front::dxbc::operand::{
    Components, Index, IndexRepr, Modifier, Operand, RegisterType, RelativeRegister,
};
use crate::front::dxbc::token::ExtOperandToken;

/// Appends the tokens of `op`: operand token, extended operand token (the stored
/// [`Operand::ext`] when non-zero, its modifier fields taken from the typed fields; a fresh
/// modifier token when only the typed fields are set), then the immediate values or the indices.
/// [`Operand::token`] and [`Operand::offset`] are ignored. On error `out` is left as it was.
pub fn encode_operand(op: &Operand, out: &mut Vec<u32>) -> Result<()> {
    let start = out.len();
    let result = encode_operand_tokens(op, out);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

fn encode_operand_tokens(op: &Operand, out: &mut Vec<u32>) -> Result<()> {
    let ext = extension(op)?;
    let (num_components, selection_mode, selection) = components(op.components)?;
    let is_immediate = matches!(op.ty, RegisterType::Immediate32 | RegisterType::Immediate64);
    if is_immediate && op.index_count != 0 {
        return Err(EncodeError::Unencodable("immediate operand with indices"));
    }
    let indices = op
        .indices
        .get(..op.index_count as usize)
        .ok_or(EncodeError::FieldOverflow {
            what: "index dimension",
            value: u64::from(op.index_count),
            bits: 2,
        })?;
    let mut fields = OperandFields {
        num_components,
        selection_mode,
        selection,
        register_type: register_type(op.ty)?,
        index_dimension: indices.len() as u32,
        extended: ext.is_some(),
        ..OperandFields::default()
    };
    for (repr, index) in fields.index_representation.iter_mut().zip(indices) {
        *repr = index_repr(index.repr);
    }
    out.push(fields.pack()?);
    out.extend(ext);
    if is_immediate {
        out.extend_from_slice(&op.imm[..op.imm_count()]);
        return Ok(());
    }
    for index in indices {
        encode_index(index, out)?;
    }
    Ok(())
}

/// The extended operand token to write, if any.
fn extension(op: &Operand) -> Result<Option<u32>> {
    let modifier = match op.modifier {
        Modifier::None => 0,
        Modifier::Neg => 1,
        Modifier::Abs => 2,
        Modifier::AbsNeg => 3,
    };
    let typed_set = modifier != 0 || op.min_precision != 0 || op.nonuniform;
    let fresh = modifier_token(modifier, u32::from(op.min_precision), op.nonuniform)?;
    check_single_extension(op.ext)?;
    Ok(match (op.ext.0, typed_set) {
        (0, false) => None,
        (0, true) => Some(fresh),
        // A modifier token: keep its other bits, take the fields from the typed values.
        (stored, _) if op.ext.kind() == 1 => Some((stored & !MODIFIER_FIELDS) | fresh),
        (stored, false) => Some(stored),
        (_, true) => {
            return Err(EncodeError::Unencodable(
                "operand modifiers together with a non-modifier extended operand token",
            ))
        }
    })
}

/// The decoder keeps only the first extended operand token; a chained one cannot be rebuilt.
fn check_single_extension(ext: ExtOperandToken) -> Result<()> {
    if ext.extended() {
        return Err(EncodeError::Unencodable(
            "chained extended operand tokens (only the first is stored)",
        ));
    }
    Ok(())
}

/// (component count, selection mode, selection bits) of a component selection.
fn components(c: Components) -> Result<(u32, u32, u32)> {
    let comp = |v: u8| put(u32::from(v), 0, 2, "component");
    Ok(match c {
        Components::Zero => (0, 0, 0),
        Components::One => (1, 0, 0),
        Components::Mask(m) => (2, 0, put(u32::from(m), 0, 4, "write mask")?),
        Components::Swizzle(s) => {
            let mut sel = 0;
            for (i, &v) in s.iter().enumerate() {
                sel |= comp(v)? << (2 * i);
            }
            (2, 1, sel)
        }
        Components::Select1(v) => (2, 2, comp(v)?),
        Components::N => (3, 0, 0),
    })
}

/// The register type field.
fn register_type(ty: RegisterType) -> Result<u32> {
    if ty == RegisterType::Invalid {
        return Err(EncodeError::Unencodable("operand without a register type"));
    }
    Ok(ty as u32)
}

/// The index representation field.
fn index_repr(repr: IndexRepr) -> u32 {
    match repr {
        IndexRepr::Imm32 => 0,
        IndexRepr::Imm64 => 1,
        IndexRepr::Relative => 2,
        IndexRepr::Imm32Relative => 3,
        IndexRepr::Imm64Relative => 4,
    }
}

fn encode_index(index: &Index, out: &mut Vec<u32>) -> Result<()> {
    let imm32 = || {
        u32::try_from(index.imm).map_err(|_| EncodeError::FieldOverflow {
            what: "32-bit index",
            value: index.imm,
            bits: 32,
        })
    };
    let imm64 = [(index.imm >> 32) as u32, index.imm as u32];
    match index.repr {
        IndexRepr::Imm32 => out.push(imm32()?),
        IndexRepr::Imm64 => out.extend_from_slice(&imm64),
        IndexRepr::Relative => {}
        IndexRepr::Imm32Relative => out.push(imm32()?),
        IndexRepr::Imm64Relative => out.extend_from_slice(&imm64),
    }
    let relative = matches!(
        index.repr,
        IndexRepr::Relative | IndexRepr::Imm32Relative | IndexRepr::Imm64Relative
    );
    match (relative, &index.rel) {
        (true, Some(rel)) => encode_relative(rel, out),
        (true, None) => Err(EncodeError::Unencodable(
            "relative index without a register",
        )),
        (false, Some(_)) => Err(EncodeError::Unencodable(
            "register on an immediate-only index",
        )),
        (false, None) => Ok(()),
    }
}

/// The register of a relative index: a select-1 operand with immediate indices only.
fn encode_relative(rel: &RelativeRegister, out: &mut Vec<u32>) -> Result<()> {
    check_single_extension(rel.ext)?;
    let indices =
        rel.indices
            .get(..rel.index_count as usize)
            .ok_or(EncodeError::FieldOverflow {
                what: "relative register index dimension",
                value: u64::from(rel.index_count),
                bits: 1,
            })?;
    let fields = OperandFields {
        num_components: 2,
        selection_mode: 2,
        selection: put(u32::from(rel.component), 0, 2, "component")?,
        register_type: register_type(rel.ty)?,
        index_dimension: indices.len() as u32,
        extended: rel.ext.0 != 0,
        ..OperandFields::default()
    };
    out.push(fields.pack()?);
    if rel.ext.0 != 0 {
        out.push(rel.ext.0);
    }
    out.extend_from_slice(indices);
    Ok(())
}

/// A register operand with immediate indices and no component selection; chain
/// [`OperandBuild`] methods to select components or add modifiers: `reg(Temp, &[0]).mask(0xf)`.
/// More than three indices are ignored.
pub fn reg(ty: RegisterType, indices: &[u32]) -> Operand {
    let mut op = Operand {
        ty,
        ..Operand::default()
    };
    for (slot, &value) in op.indices.iter_mut().zip(indices) {
        *slot = Index {
            repr: IndexRepr::Imm32,
            imm: u64::from(value),
            rel: None,
        };
        op.index_count += 1;
    }
    op
}

/// A four-component 32-bit immediate `l(x, y, z, w)`.
pub fn imm32(values: [u32; 4]) -> Operand {
    Operand {
        ty: RegisterType::Immediate32,
        components: Components::Swizzle([0, 1, 2, 3]),
        imm: values,
        ..Operand::default()
    }
}

/// A 64-bit immediate `d(a, b)`: two doubles, stored as (lo, hi) dword pairs.
pub fn imm64(values: [f64; 2]) -> Operand {
    let [a, b] = values.map(f64::to_bits);
    Operand {
        ty: RegisterType::Immediate64,
        components: Components::Swizzle([0, 1, 2, 3]),
        imm: [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32],
        ..Operand::default()
    }
}

/// The register part of a relative index (`r1.x` in `x0[r1.x + 2]`).
pub fn relative(ty: RegisterType, indices: &[u32], component: u8) -> RelativeRegister {
    let mut rel = RelativeRegister {
        ty,
        component,
        ..RelativeRegister::default()
    };
    for (slot, &value) in rel.indices.iter_mut().zip(indices) {
        *slot = value;
        rel.index_count += 1;
    }
    rel
}

/// Builder-style methods on [`Operand`] for describing operands in tests and samples.
pub trait OperandBuild: Sized {
    /// Destination write mask (bit 0 = x).
    fn mask(self, mask: u8) -> Self;
    /// Source swizzle: the source component for x, y, z, w.
    fn swizzle(self, swizzle: [u8; 4]) -> Self;
    /// One component, replicated (`.x` in select-1 mode).
    fn select(self, component: u8) -> Self;
    /// A scalar operand (one component, no selection); also a one-value immediate `l(v)`.
    fn scalar(self) -> Self;
    /// A source modifier.
    fn modifier(self, modifier: Modifier) -> Self;
    /// SM5.1 `nonuniform` on the operand's indices.
    fn nonuniform(self) -> Self;
    /// Makes index `i` relative: `[rel + imm]`, or `[rel]` when `imm` is `None`.
    fn relative_index(self, i: usize, imm: Option<u32>, rel: RelativeRegister) -> Self;
}

impl OperandBuild for Operand {
    fn mask(mut self, mask: u8) -> Self {
        self.components = Components::Mask(mask);
        self
    }
    fn swizzle(mut self, swizzle: [u8; 4]) -> Self {
        self.components = Components::Swizzle(swizzle);
        self
    }
    fn select(mut self, component: u8) -> Self {
        self.components = Components::Select1(component);
        self
    }
    fn scalar(mut self) -> Self {
        self.components = Components::One;
        self
    }
    fn modifier(mut self, modifier: Modifier) -> Self {
        self.modifier = modifier;
        self
    }
    fn nonuniform(mut self) -> Self {
        self.nonuniform = true;
        self
    }
    fn relative_index(mut self, i: usize, imm: Option<u32>, rel: RelativeRegister) -> Self {
        if let Some(index) = self.indices.get_mut(i) {
            *index = Index {
                repr: if imm.is_some() {
                    IndexRepr::Imm32Relative
                } else {
                    IndexRepr::Relative
                },
                imm: u64::from(imm.unwrap_or(0)),
                rel: Some(rel),
            };
            self.index_count = self.index_count.max(i as u8 + 1);
        }
        self
    }
}
