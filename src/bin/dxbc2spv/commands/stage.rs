//! The shader stage of an input, for grouping results by stage (`bench`, batch `translate`).
//!
//! Contract: the stage is read from the program's version token only; nothing else is verified
//! (not the checksum, not the instructions), so any container whose `SHDR`/`SHEX` chunk starts
//! with a valid version token has a stage, and so does any Direct3D 9 token stream (vertex or
//! pixel, by its version token). Bytes that are neither have none.

use dxbc2spv::front::d3d9::Version as D3d9Version;
use dxbc2spv::front::dxbc::container::{Container, ParseOptions};
use dxbc2spv::front::dxbc::Stage;
use dxbc2spv::text::dxbc::disasm::shader_program;

/// The stage of the container or D3D9 token stream `bytes`, or `None` when its program cannot
/// be found or its version token cannot be read.
pub fn stage_of(bytes: &[u8]) -> Option<Stage> {
    if let Some(version) = d3d9_version(bytes) {
        return Some(if version.is_pixel() {
            Stage::Pixel
        } else {
            Stage::Vertex
        });
    }
    let options = ParseOptions {
        verify_checksum: false,
    };
    let container = Container::parse(bytes, &options).ok()?;
    shader_program(&container)
        .ok()
        .map(|program| program.version.stage)
}

/// The version of the D3D9 token stream `bytes` (its first dword), if it starts with one.
pub fn d3d9_version(bytes: &[u8]) -> Option<D3d9Version> {
    let head: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    D3d9Version::from_token(u32::from_le_bytes(head))
}
