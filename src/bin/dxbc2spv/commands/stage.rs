//! The shader stage of a container, for grouping results by stage (`bench`, batch `translate`).
//!
//! Contract: the stage is read from the program's version token only; nothing else is verified
//! (not the checksum, not the instructions), so any container whose `SHDR`/`SHEX` chunk starts
//! with a valid version token has a stage. Bytes that are not such a container have none.

use dxbc2spv::front::dxbc::container::{Container, ParseOptions};
use dxbc2spv::front::dxbc::Stage;
use dxbc2spv::text::dxbc::disasm::shader_program;

/// The stage of the container `bytes`, or `None` when its program cannot be found or its version
/// token cannot be read.
pub fn stage_of(bytes: &[u8]) -> Option<Stage> {
    let options = ParseOptions {
        verify_checksum: false,
    };
    let container = Container::parse(bytes, &options).ok()?;
    shader_program(&container)
        .ok()
        .map(|program| program.version.stage)
}
