//! The Direct3D 9 front end as the pipeline sees it ([`FrontEnd`]): decode a token stream,
//! lower it ([`super::lower`]), name the instruction at a byte offset.
//!
//! Contract: the bytes are a whole D3D9 token stream (version token to end token); errors
//! carry offsets into them.

use std::cell::RefCell;

use crate::bindings::ClassLinkage;
use crate::d3d9_state::D3d9State;
use crate::error::Error;
use crate::front::{FrontEnd, Semantics};
use crate::ir;

use super::lower::Level9Layout;
use super::program::Program;

/// A decoded Direct3D 9 shader, ready to lower.
pub struct D3d9<'a> {
    program: Program<'a>,
    semantics: RefCell<Semantics>,
}

impl<'a> D3d9<'a> {
    /// The front end for an already decoded program (a level-9 part, for one).
    pub fn from_program(program: Program<'a>) -> D3d9<'a> {
        D3d9 {
            program,
            semantics: RefCell::default(),
        }
    }

    /// The decoded program.
    pub fn program(&self) -> &Program<'a> {
        &self.program
    }

    /// [`FrontEnd::lower`], for the level-9 part of a DXBC container when `level9` gives its
    /// constant and sampler sources. A level-9 part ignores `d3d9_state` (Direct3D 11 has no
    /// such state; its samplers are declared).
    pub fn lower_with(
        &self,
        stream_output: Option<&ir::StreamOutputRequest>,
        _class_linkage: &ClassLinkage,
        level9: Option<&Level9Layout>,
        d3d9_state: &D3d9State,
        arena: Vec<ir::Inst>,
    ) -> Result<ir::Module, Error> {
        if stream_output.is_some() {
            return Err(Error::unsupported(
                self.program.base_offset,
                "stream output of a Direct3D 9 shader",
            ));
        }
        let (module, semantics) = match level9 {
            Some(layout) => super::lower::lower_level9(&self.program, layout, arena)?,
            None => super::lower::lower_with_state(&self.program, d3d9_state, arena)?,
        };
        *self.semantics.borrow_mut() = semantics;
        Ok(module)
    }
}

/// The mnemonic of the instruction of `program` whose tokens hold `offset`.
fn name_in(program: &Program<'_>, offset: u32) -> Option<&'static str> {
    let pixel = program.version.is_pixel();
    let key = program.version.key();
    program
        .instructions
        .iter()
        .find(|i| offset >= i.offset && offset < i.offset + i.dwords.max(1) * 4)
        .map(|i| {
            i.opcode
                .spelling(pixel, key, i.controls)
                .map_or(i.opcode.name(), |s| s.base)
        })
        .or_else(|| (offset == program.base_offset).then_some("version token"))
}

impl<'a> FrontEnd<'a> for D3d9<'a> {
    fn decode(bytes: &'a [u8], _verify_checksum: bool) -> Result<Self, Error> {
        Ok(D3d9::from_program(super::decode(bytes, 0)?))
    }

    fn lower(
        &self,
        stream_output: Option<&ir::StreamOutputRequest>,
        class_linkage: &ClassLinkage,
        d3d9_state: &D3d9State,
        arena: Vec<ir::Inst>,
    ) -> Result<ir::Module, Error> {
        self.lower_with(stream_output, class_linkage, None, d3d9_state, arena)
    }

    fn semantics(&self) -> Semantics {
        self.semantics.borrow().clone()
    }

    fn name_at(&self, offset: u32) -> Option<&'static str> {
        name_in(&self.program, offset)
    }

    fn name_in_bytes(bytes: &[u8], offset: u32) -> Option<&'static str> {
        super::decode(bytes, 0)
            .ok()
            .and_then(|p| name_in(&p, offset))
    }
}
