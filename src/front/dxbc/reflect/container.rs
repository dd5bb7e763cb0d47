//! [`Reflection::from_container`]: the program's reflection plus what the container's other
//! chunks add: the signatures, and the resources' names from `RDEF`.

use super::{ReflectError, Reflection, ResourceClass};
use crate::front::dxbc::container::Container;
use crate::front::dxbc::error::{DecodeError, DecodeErrorKind};
use crate::front::dxbc::program::Program;
use crate::front::dxbc::rdef::{ResourceBinding, ResourceDefinitions};
use crate::front::dxbc::signature::{ComponentType, MinPrecision, Signature, SystemValue};

/// `D3D_SIF_UNUSED`: SM5.1 compilers list resources the program never uses with this flag.
pub const BINDING_UNUSED: u32 = 0x10;

/// The container's signatures (each `None` when the container has no such chunk).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signatures {
    /// `ISGN`/`ISG1`.
    pub input: Option<Vec<SignatureElement>>,
    /// `OSGN`/`OSG5`/`OSG1`.
    pub output: Option<Vec<SignatureElement>>,
    /// `PCSG`/`PSG1` (hull and domain shaders).
    pub patch_constant: Option<Vec<SignatureElement>>,
}

/// One signature element, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureElement {
    /// Semantic name (`SV_Position`, `TEXCOORD`).
    pub semantic_name: String,
    /// Semantic index.
    pub semantic_index: u32,
    /// The system value as D3D's reflection reports it (pixel-shader outputs recognised by
    /// name, see [`crate::front::dxbc::signature::Element::effective_system_value`]).
    pub system_value: SystemValue,
    /// Component type.
    pub component_type: ComponentType,
    /// Register; `None` for outputs without one (`oDepth`, `oMask`).
    pub register: Option<u32>,
    /// Components the element occupies (bit 0 = x).
    pub mask: u8,
    /// For inputs: components read. For outputs: components never written.
    pub rw_mask: u8,
    /// Geometry-shader stream (0 where the layout has none).
    pub stream: u32,
    /// Minimum precision.
    pub min_precision: MinPrecision,
}

fn elements(sig: &Signature<'_>) -> Vec<SignatureElement> {
    sig.elements
        .iter()
        .map(|e| SignatureElement {
            semantic_name: e.name.to_string(),
            semantic_index: e.semantic_index,
            system_value: e.effective_system_value(),
            component_type: e.component_type,
            register: (!e.has_no_register()).then_some(e.register),
            mask: e.mask,
            rw_mask: e.rw_mask,
            stream: e.stream,
            min_precision: e.min_precision,
        })
        .collect()
}

/// The register class of an `RDEF` binding's `D3D_SHADER_INPUT_TYPE`, if it is one DXBC declares.
pub fn binding_class(input_type: u32) -> Option<ResourceClass> {
    Some(match input_type {
        0 => ResourceClass::ConstantBuffer,
        1 | 2 | 5 | 7 => ResourceClass::ShaderResource,
        3 => ResourceClass::Sampler,
        4 | 6 | 8..=11 => ResourceClass::UnorderedAccess,
        _ => return None,
    })
}

impl Reflection {
    /// Reflects the container's program, then adds its signatures and, when it has an `RDEF`
    /// chunk, the names of the declared resources.
    pub fn from_container(container: &Container<'_>) -> Result<Reflection, ReflectError> {
        let Some(chunk) = container.shader_chunk() else {
            let kind = if container.is_dxil() {
                DecodeErrorKind::Dxil
            } else {
                DecodeErrorKind::MissingChunk("SHDR or SHEX")
            };
            return Err(DecodeError::new(0, kind).into());
        };
        let program = Program::parse(chunk.data, chunk.offset)?;
        let mut reflection = Reflection::from_program(&program)?;
        let signatures = &mut reflection.signatures;
        signatures.input = container
            .input_signature()
            .transpose()?
            .map(|s| elements(&s));
        signatures.output = container
            .output_signature()
            .transpose()?
            .map(|s| elements(&s));
        signatures.patch_constant = container
            .patch_constant_signature()
            .transpose()?
            .map(|s| elements(&s));
        if let Some(rdef) = container.resource_definitions().transpose()? {
            reflection.name_resources(&rdef);
        }
        Ok(reflection)
    }

    /// Names the declared resources after the `RDEF` bindings that match them: same register
    /// class and, in SM5.1, the same space and range ID; before SM5.1, the declared register
    /// inside the binding's registers (an element `i` of an array binding `a` is named `a[i]`).
    /// Returns the indices of the bindings that matched no declaration (unused resources, and
    /// bindings of types DXBC does not declare).
    pub fn name_resources(&mut self, rdef: &ResourceDefinitions<'_>) -> Vec<usize> {
        let sm51 = self.version.is_sm51();
        let mut unmatched = Vec::new();
        for (index, binding) in rdef.bindings.iter().enumerate() {
            let Some(class) = binding_class(binding.input_type) else {
                unmatched.push(index);
                continue;
            };
            let mut matched = false;
            for resource in self.resources.iter_mut().filter(|r| r.class() == class) {
                if let Some(name) = match_binding(binding, &resource.range, sm51) {
                    matched = true;
                    resource.name.get_or_insert(name);
                }
            }
            if !matched {
                unmatched.push(index);
            }
        }
        unmatched
    }
}

/// The name a declaration with `range` gets from `binding`, if the binding is its own.
fn match_binding(
    binding: &ResourceBinding<'_>,
    range: &super::Range,
    sm51: bool,
) -> Option<String> {
    if let (true, Some(space), Some(id)) = (sm51, binding.space, binding.id) {
        let same =
            space == range.space && id == range.id && binding.bind_point == range.lower_bound;
        return same.then(|| binding.name.to_string());
    }
    if binding.space.unwrap_or(0) != range.space {
        return None;
    }
    let register = range.lower_bound;
    let offset = register.checked_sub(binding.bind_point)?;
    let count = binding.bind_count.max(1);
    if offset >= count {
        return None;
    }
    Some(if count > 1 {
        format!("{}[{offset}]", binding.name)
    } else {
        binding.name.to_string()
    })
}
