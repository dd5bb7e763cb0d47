//! The DXBC front end's entry for the pipeline ([`crate::front::FrontEnd`]): container →
//! program and signatures → IR, with the caller's stream output resolved.
//!
//! Contract: [`Dxbc::decode`](crate::front::FrontEnd::decode) parses the container (verifying
//! the checksum when asked), finds the program chunk ([`shader_program`]) and decodes and
//! checks the `ISGN`/`OSGN`/`PCSG` signatures (and their variants); everything it keeps
//! borrows the input bytes. [`Dxbc::lower`](crate::front::FrontEnd::lower) lowers the program
//! with those signatures into the caller's arena and resolves a stream-output request: a
//! request for a stage other than vertex, domain or geometry is invalid at the version token,
//! and an entry the output signature cannot satisfy is named `Options::stream_output` (the
//! caller's declaration is at fault, not a byte of the input). [`Bindings::Auto`] resolves to
//! the `RTS0` chunk's root signature when the container has one. Offsets are named by
//! [`locate`](super::locate) from the parsed container, without parsing it again.

use std::borrow::Cow;

use crate::bindings::{Bindings, ClassLinkage};
use crate::error::Error;
use crate::front::dxbc::container::{Container, FourCc, ParseOptions};
use crate::front::dxbc::error::{DecodeError, DecodeErrorKind};
use crate::front::dxbc::locate;
use crate::front::dxbc::lower;
use crate::front::dxbc::program::Program;
use crate::front::dxbc::signature::Signature;
use crate::front::FrontEnd;
use crate::ir::{self, Stage};

/// The program of a container's SHDR/SHEX chunk.
pub fn shader_program<'a>(container: &Container<'a>) -> Result<Program<'a>, DecodeError> {
    let Some(chunk) = container.shader_chunk() else {
        let kind = if container.is_dxil() {
            DecodeErrorKind::Dxil
        } else {
            DecodeErrorKind::MissingChunk("SHDR or SHEX")
        };
        return Err(DecodeError::new(0, kind).with_context("container"));
    };
    let name = chunk.fourcc.known_name().unwrap_or("program");
    Program::parse(chunk.data, chunk.offset).map_err(|e| e.with_context(name))
}

/// A decoded DXBC container: the parsed chunks, the program and the checked signatures, all
/// borrowing the input bytes.
#[derive(Debug)]
pub struct Dxbc<'a> {
    container: Container<'a>,
    program: Program<'a>,
    input: Option<Signature<'a>>,
    output: Option<Signature<'a>>,
    patch_constant: Option<Signature<'a>>,
}

impl<'a> FrontEnd<'a> for Dxbc<'a> {
    fn decode(bytes: &'a [u8], verify_checksum: bool) -> Result<Self, Error> {
        let container = Container::parse(bytes, &ParseOptions { verify_checksum })?;
        let program = shader_program(&container)?;
        let input = container.input_signature().transpose()?;
        let output = container.output_signature().transpose()?;
        let patch_constant = container.patch_constant_signature().transpose()?;
        // The same chunk lookups as the accessors above, for the offsets.
        let signatures: [(_, &[FourCc]); 3] = [
            (&input, &[FourCc::ISGN, FourCc::ISG1]),
            (&output, &[FourCc::OSGN, FourCc::OSG5, FourCc::OSG1]),
            (&patch_constant, &[FourCc::PCSG, FourCc::PSG1]),
        ];
        for (signature, codes) in signatures {
            if let (Some(signature), Some(chunk)) = (signature, container.chunk_any(codes)) {
                lower::check_signature(signature, chunk.offset)?;
            }
        }
        Ok(Dxbc {
            container,
            program,
            input,
            output,
            patch_constant,
        })
    }

    fn lower(
        &self,
        stream_output: Option<&ir::StreamOutputRequest>,
        class_linkage: &ClassLinkage,
        d3d9_state: &crate::d3d9_state::D3d9State,
        arena: Vec<ir::Inst>,
    ) -> Result<ir::Module, Error> {
        d3d9_state.refuse_lowering_fields(
            self.program.body_offset().saturating_sub(8),
            "a DXBC shader",
            "it describes Direct3D 9 samplers, texture stages and constant sets",
        )?;
        let signatures = lower::Signatures {
            input: self.input.as_ref(),
            output: self.output.as_ref(),
            patch_constant: self.patch_constant.as_ref(),
        };
        let mut module = lower::lower_reusing(&self.program, signatures, class_linkage, arena)?;
        if let Some(so) = stream_output {
            if !matches!(
                module.stage,
                Stage::Vertex | Stage::Domain | Stage::Geometry
            ) {
                // At the version token, which names the stage.
                return Err(Error::invalid(
                    self.program.body_offset().saturating_sub(8),
                    "stream output is for vertex, domain and geometry shaders",
                ));
            }
            // The caller's declaration is at fault, not a byte of the input.
            let resolved = lower::stream_output::resolve(so, self.output.as_ref())
                .map_err(|e| Error::from(e).with_instruction("Options::stream_output"))?;
            module.stream_output = Some(resolved);
        }
        Ok(module)
    }

    fn semantics(&self) -> crate::front::Semantics {
        let list = |sig: &Option<Signature<'a>>| -> Vec<crate::front::Semantic> {
            sig.iter()
                .flat_map(|s| s.elements.iter())
                .map(|e| crate::front::Semantic {
                    name: e.name.to_owned(),
                    index: e.semantic_index,
                    register: e.register,
                    mask: e.mask,
                    stream: e.stream,
                })
                .collect()
        };
        crate::front::Semantics {
            inputs: list(&self.input),
            outputs: list(&self.output),
        }
    }

    fn bindings<'b>(
        &self,
        bindings: &'b Bindings,
        stage: Stage,
    ) -> Result<Cow<'b, Bindings>, Error> {
        let chunk = match bindings {
            Bindings::Auto => self.container.chunk(&FourCc::RTS0.0),
            _ => None,
        };
        let embedded = match chunk {
            Some(chunk) => Some((
                crate::front::dxbc::rts0::RootSignature::parse(chunk)?,
                chunk.offset,
            )),
            None => None,
        };
        bindings
            .resolve(stage, embedded.as_ref().map(|(rs, _)| rs))
            .map_err(|e| match embedded {
                // The embedded root signature is at fault: at its chunk.
                Some((_, offset)) => Error::binding(offset, e).with_instruction("RTS0"),
                None => Error::binding(0, e).with_instruction("Options::bindings"),
            })
    }

    fn name_at(&self, offset: u32) -> Option<&'static str> {
        locate::name_in(&self.container, Some(&self.program), offset)
    }

    fn name_in_bytes(bytes: &[u8], offset: u32) -> Option<&'static str> {
        locate::name_at(bytes, offset)
    }
}
