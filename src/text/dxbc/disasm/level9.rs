//! fxc's text of a container's level-9 mapping tables: the sections a `4_0_level_9_x` listing
//! prints between the signatures and the D3D9 program.
//!
//! Contract: [`write_mappings`] prints, for a parsed [`Level9`] part, exactly the lines fxc
//! prints for its non-empty tables, in fxc's order — `Constant buffer to DX9 shader constant
//! mappings:`, `Sampler/Resource to DX9 shader sampler mappings:`, `Runtime generated constant
//! mappings:` — each preceded by its own `//` line and followed by one; [`write_tables`] adds the
//! `// Level9 shader bytecode:` title and its `//` line, after which the caller prints the D3D9
//! program (not printed here). Every line ends with `\n`, without trailing spaces. Values fxc
//! never printed in the listings we have (conversion codes other than float, runtime-constant
//! kinds other than the position offset) are spelled as [`conversion_name`] and
//! [`runtime_description`] document.

use std::fmt::{self, Write};

use crate::front::dxbc::aon9::{Conversion, Level9, RuntimeConstantKind};

/// The title of the D3D9 program section.
pub const BYTECODE_TITLE: &str = "// Level9 shader bytecode:";

/// fxc's three-letter spelling of a component conversion: `FLT` for floats (the only one in
/// fxc's listings); `UINT` for code 3 and the code's number for others (our spellings: fxc's
/// are not known).
pub fn conversion_name(conversion: Conversion) -> String {
    match conversion {
        Conversion::Float => "FLT".to_string(),
        Conversion::UInt => "UINT".to_string(),
        Conversion::Other(code) => code.to_string(),
    }
}

/// fxc's description of a runtime-generated constant: `Vertex Shader position offset` for
/// kind 0; `Unknown runtime constant <kind>` for others (our wording: fxc's is not known).
pub fn runtime_description(kind: RuntimeConstantKind) -> String {
    match kind {
        RuntimeConstantKind::VertexShaderPositionOffset => {
            "Vertex Shader position offset".to_string()
        }
        RuntimeConstantKind::Other(code) => format!("Unknown runtime constant {code}"),
    }
}

/// Writes the mapping sections of `l9` (nothing when every table is empty).
pub fn write_mappings(out: &mut impl Write, l9: &Level9<'_>) -> fmt::Result {
    if !l9.constants.is_empty() {
        section_title(out, "Constant buffer to DX9 shader constant mappings:")?;
        out.write_str(
            "// Target Reg Buffer  Start Reg # of Regs        Data Conversion\n\
             // ---------- ------- --------- --------- ----------------------\n",
        )?;
        for row in &l9.constants {
            let [x, y, z, w] = row.conversion.map(conversion_name);
            writeln!(
                out,
                "// {:<10} {:<7} {:>9} {:>9}  ( {x}, {y}, {z}, {w})",
                format!("c{}", row.target),
                format!("cb{}", row.buffer),
                row.first_register,
                row.count,
            )?;
        }
        out.write_str("//\n")?;
    }
    if !l9.samplers.is_empty() {
        section_title(out, "Sampler/Resource to DX9 shader sampler mappings:")?;
        out.write_str(
            "// Target Sampler Source Sampler  Source Resource\n\
             // -------------- --------------- ----------------\n",
        )?;
        for row in &l9.samplers {
            writeln!(
                out,
                "// {:<14} {:<15} t{}",
                format!("s{}", row.target_sampler),
                format!("s{}", row.source_sampler),
                row.source_resource,
            )?;
        }
        out.write_str("//\n")?;
    }
    if !l9.runtime_constants.is_empty() {
        section_title(out, "Runtime generated constant mappings:")?;
        out.write_str(
            "// Target Reg                               Constant Description\n\
             // ---------- --------------------------------------------------\n",
        )?;
        for row in &l9.runtime_constants {
            writeln!(
                out,
                "// {:<10} {:>50}",
                format!("c{}", row.target),
                runtime_description(row.kind),
            )?;
        }
        out.write_str("//\n")?;
    }
    Ok(())
}

/// Writes the mapping sections of `l9` and the `// Level9 shader bytecode:` title, ready for
/// the D3D9 program's listing.
pub fn write_tables(out: &mut impl Write, l9: &Level9<'_>) -> fmt::Result {
    write_mappings(out, l9)?;
    writeln!(out, "//\n{BYTECODE_TITLE}\n//")
}

/// [`write_tables`] into a new string.
pub fn tables(l9: &Level9<'_>) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_tables(&mut s, l9);
    s
}

fn section_title(out: &mut impl Write, title: &str) -> fmt::Result {
    writeln!(out, "//\n// {title}\n//")
}

#[cfg(test)]
#[path = "level9_tests.rs"]
mod tests;
