//! The level-9 part of a `4_0_level_9_x` DXBC container as a front end ([`Level9Part`]): the
//! `Aon9` chunk's Direct3D 9 program, lowered by the D3D9 front end with its constants and
//! samplers read from the container's Shader Model 4 resources.
//!
//! Contract: [`FrontEnd::decode`] parses the container (checksum as asked), its `Aon9` chunk and
//! the D3D9 program inside, and turns the chunk's tables into a
//! [`Level9Layout`] (`docs/d3d9.md`, "Level-9 parts"); a container without the chunk is invalid
//! input here. Every error carries an offset into the container. Conversion codes and
//! runtime-constant kinds this translator does not know are `Unsupported`, naming the code.

use crate::bindings::ClassLinkage;
use crate::error::Error;
use crate::front::d3d9::lower::{ConstantRange, Level9Layout, SamplerSource};
use crate::front::d3d9::{self, D3d9};
use crate::front::dxbc::aon9::{Conversion, Level9, RuntimeConstantKind};
use crate::front::dxbc::{Container, ParseOptions};
use crate::front::{FrontEnd, Semantics};
use crate::ir;

/// The level-9 part of a DXBC container, decoded.
pub struct Level9Part<'a> {
    /// The D3D9 front end over the part's program.
    program: D3d9<'a>,
    /// Where its constants and samplers come from.
    layout: Level9Layout,
}

impl<'a> Level9Part<'a> {
    /// The constant and sampler sources of the part.
    pub fn layout(&self) -> &Level9Layout {
        &self.layout
    }
}

/// The layout the tables of `part` describe.
pub fn layout_of(part: &Level9<'_>) -> Result<Level9Layout, Error> {
    let mut constants = Vec::with_capacity(part.constants.len());
    for row in &part.constants {
        let mut uint_components = 0u8;
        for (c, conversion) in row.conversion.iter().enumerate() {
            match conversion {
                Conversion::Float => {}
                Conversion::UInt => uint_components |= 1 << c,
                Conversion::Other(code) => {
                    return Err(Error::unsupported(
                        part.offset,
                        format!("the level-9 constant conversion code {code}"),
                    ))
                }
            }
        }
        constants.push(ConstantRange {
            buffer: row.buffer.into(),
            first_register: row.first_register.into(),
            count: row.count.into(),
            target: row.target.into(),
            uint_components,
        });
    }
    let mut runtime_constants = Vec::with_capacity(part.runtime_constants.len());
    for row in &part.runtime_constants {
        match row.kind {
            RuntimeConstantKind::VertexShaderPositionOffset => {
                runtime_constants.push(row.target.into());
            }
            RuntimeConstantKind::Other(code) => {
                return Err(Error::unsupported(
                    part.offset,
                    format!("the level-9 runtime constant kind {code}"),
                ))
            }
        }
    }
    let samplers = part
        .samplers
        .iter()
        .map(|s| SamplerSource {
            target: s.target_sampler.into(),
            resource: s.source_resource.into(),
            sampler: s.source_sampler.into(),
        })
        .collect();
    Ok(Level9Layout {
        constants,
        runtime_constants,
        samplers,
    })
}

impl<'a> FrontEnd<'a> for Level9Part<'a> {
    fn decode(bytes: &'a [u8], verify_checksum: bool) -> Result<Self, Error> {
        let container = Container::parse(bytes, &ParseOptions { verify_checksum })?;
        let part = container.level9().ok_or_else(|| {
            Error::invalid(
                0,
                "the container has no level-9 part (Aon9 chunk) to translate",
            )
        })??;
        let layout = layout_of(&part)?;
        let program = d3d9::decode(part.program, part.program_offset)?;
        Ok(Level9Part {
            program: D3d9::from_program(program),
            layout,
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
            self.program.program().base_offset,
            "the level-9 part of a DXBC container",
            "its samplers and constants are the SM4 program's; Direct3D 11 has no such state",
        )?;
        self.program.lower_with(
            stream_output,
            class_linkage,
            Some(&self.layout),
            d3d9_state,
            arena,
        )
    }

    fn semantics(&self) -> Semantics {
        self.program.semantics()
    }

    fn name_at(&self, offset: u32) -> Option<&'static str> {
        self.program
            .name_at(offset)
            .or_else(|| (offset < self.program.program().base_offset).then_some("Aon9"))
    }

    fn name_in_bytes(bytes: &[u8], offset: u32) -> Option<&'static str> {
        let container = Container::parse(bytes, &ParseOptions::default()).ok()?;
        let part = container.level9()?.ok()?;
        let program = d3d9::decode(part.program, part.program_offset).ok();
        program
            .and_then(|p| D3d9::from_program(p).name_at(offset))
            .or(Some("Aon9"))
    }
}

#[cfg(test)]
#[path = "level9_tests.rs"]
mod tests;
