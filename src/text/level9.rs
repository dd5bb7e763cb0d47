//! The level-9 part of a `4_0_level_9_x` container as fxc lists it: the mapping tables of the
//! DXBC chunk, then the D3D9 program and its slot summary.
//!
//! Contract: [`write_listing`] prints exactly fxc's level-9 section (from the `//` line before
//! the first mapping table through the slot summary), without the `#line` directives and
//! per-instruction debug comments fxc adds for programs compiled with debug information. It
//! joins the two front ends' text tools; neither front end names the other.

use crate::front::d3d9::decode;
use crate::front::dxbc::aon9::Level9;
use crate::text::d3d9::disasm::{self, slot_summary, write_program, write_slot_summary};
use crate::text::dxbc::disasm::level9::write_tables;

/// Appends the level-9 section of a container's listing for its part `l9`: the mapping
/// tables, the `// Level9 shader bytecode:` title, the D3D9 program (decoded at its offset in
/// the container, so errors name container offsets) and the slot summary.
pub fn write_listing(out: &mut String, l9: &Level9<'_>) -> Result<(), disasm::Error> {
    // Writing to a String cannot fail.
    let _ = write_tables(out, l9);
    let program = decode(l9.program, l9.program_offset)?;
    write_program(out, &program)?;
    if let Some(summary) = slot_summary(&program) {
        out.push('\n');
        write_slot_summary(out, &summary);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
