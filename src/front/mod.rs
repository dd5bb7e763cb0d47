//! Front ends: bytecode in, IR out. Each decodes its bytecode and lowers it into an
//! [`ir::Module`]; none imports the back end.
//!
//! Contract: a front end plugs into the one pipeline of the crate (`pipeline.rs`: front end →
//! IR → passes → `ir::validate` → back end) by implementing [`FrontEnd`]: decode the bytes
//! (keeping what it parsed, borrowed from the bytes), lower them into an IR module built in the
//! caller's arena, and name the instruction or structure at a byte offset so that every error
//! of every stage reads `at 0x<offset> (<name>): ...`.

#[cfg(feature = "d3d9")]
pub mod d3d9;
#[cfg(feature = "dxbc")]
pub mod dxbc;
#[cfg(all(feature = "dxbc", feature = "d3d9"))]
pub mod level9;

use std::borrow::Cow;

use crate::bindings::{Bindings, ClassLinkage};
use crate::d3d9_state::D3d9State;
use crate::error::Error;
use crate::ir;

/// What the pipeline needs of a front end. `'a` is the lifetime of the input bytes: a decoded
/// front end may borrow them (zero-copy).
///
/// The pipeline calls [`FrontEnd::decode`], then [`FrontEnd::lower`], then runs the passes,
/// the validator and the back end; it names an error's instruction with
/// [`FrontEnd::name_at`] once decoding succeeded, and with [`FrontEnd::name_in_bytes`] when
/// decoding itself failed.
pub trait FrontEnd<'a>: Sized {
    /// Decodes `bytes` far enough to lower them, checking what the format lets a decoder check
    /// (container structure, checksums when `verify_checksum` and the format has one, the
    /// signatures the lowering reads).
    fn decode(bytes: &'a [u8], verify_checksum: bool) -> Result<Self, Error>;

    /// Lowers the decoded shader into an IR module whose instructions are built in `arena`
    /// (emptied first, its allocation reused), and resolves the caller's stream-output
    /// request against the shader's outputs. `class_linkage` says how SM5 interfaces are
    /// dispatched (bound instances are resolved while lowering). `d3d9_state` is the Direct3D 9
    /// pipeline state the D3D9 lowering reads (sampler types, bump environment, constant-set
    /// sizes; other front ends ignore it). Passes have not run on the result.
    fn lower(
        &self,
        stream_output: Option<&ir::StreamOutputRequest>,
        class_linkage: &ClassLinkage,
        d3d9_state: &D3d9State,
        arena: Vec<ir::Inst>,
    ) -> Result<ir::Module, Error>;

    /// The map the caller's `bindings` stands for with this shader of `stage`: where the format
    /// embeds bindings (a DXBC root signature), [`Bindings::Auto`] resolves to them
    /// ([`Bindings::resolve`]). By default `bindings` itself ([`Bindings::Auto`] then maps as
    /// the default layout).
    fn bindings<'b>(
        &self,
        bindings: &'b Bindings,
        stage: ir::Stage,
    ) -> Result<Cow<'b, Bindings>, Error> {
        let _ = stage;
        Ok(Cow::Borrowed(bindings))
    }

    /// The semantics of the shader's input and output signatures (stage linking by semantic,
    /// and the reflection a runtime pairs stages with). By default none: the format has no
    /// signatures.
    fn semantics(&self) -> Semantics {
        Semantics::default()
    }

    /// The instruction or structure that holds byte `offset` of the input, from what
    /// [`FrontEnd::decode`] parsed; `None` when nothing holds it. Never panics.
    fn name_at(&self, offset: u32) -> Option<&'static str>;

    /// [`FrontEnd::name_at`] for bytes that did not decode (parsing as far as they allow).
    fn name_in_bytes(bytes: &[u8], offset: u32) -> Option<&'static str>;
}

/// One signature element: a semantic and where it lives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Semantic {
    /// Semantic name as the signature spells it (`TEXCOORD`, `SV_Position`); D3D matches names
    /// case-insensitively.
    pub name: String,
    /// Semantic index (`TEXCOORD1` → 1).
    pub index: u32,
    /// Register (`v#`/`o#`; `u32::MAX` for outputs without one, `oDepth`); for inputs and
    /// outputs other than system values it is the Vulkan `Location` of the variable.
    pub register: u32,
    /// Components of the register (bit 0 = x).
    pub mask: u8,
    /// Geometry-shader output stream.
    pub stream: u32,
}

/// The semantics of a shader's input and output signatures, in signature order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Semantics {
    /// Input signature (`ISGN`/`ISG1`).
    pub inputs: Vec<Semantic>,
    /// Output signature (`OSGN`/`OSG5`/`OSG1`).
    pub outputs: Vec<Semantic>,
}
