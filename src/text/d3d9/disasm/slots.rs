//! fxc's slot summary, `// approximately N instruction slots used (T texture, A arithmetic)`,
//! for the instructions whose slot cost the corpus' fxc listings pin down.
//!
//! Contract: [`slot_summary`] gives the summary only when every instruction of the program has
//! a cost checked against fxc's listings (all 604 in the D3D9 corpus agree); a program with any
//! other instruction (`sincos`, `call`, `loop`, the `m4x4` macros, `texldp`…) gets `None`
//! rather than a guess. Costs: declarations 0; `dp2add`, `endrep` 2; `nrm`, `pow`, `rep`,
//! `if_*`, `break_*` and vs_1_x `frc` 3; `texldl` two texture slots; `texkill` and every other
//! checked instruction one arithmetic slot. The texture/arithmetic split is printed for pixel
//! shaders with at least one texture slot.

use std::fmt::Write;

use crate::front::d3d9::opcodes::Opcode;
use crate::front::d3d9::program::{Program, Version};

/// The slot counts fxc prints under a listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotSummary {
    /// Texture slots.
    pub texture: u32,
    /// Arithmetic (and flow-control) slots.
    pub arithmetic: u32,
    /// Whether fxc prints the split (pixel shaders using texture slots).
    pub split: bool,
}

/// The slot cost of one instruction: (texture, arithmetic), or `None` when unchecked.
fn cost(op: Opcode, controls: u8, version: Version) -> Option<(u32, u32)> {
    Some(match op {
        Opcode::Dcl | Opcode::Def | Opcode::Defi | Opcode::Defb => (0, 0),
        Opcode::Tex if controls == 0 && version.major >= 2 => (1, 0),
        Opcode::Texldl => (2, 0),
        Opcode::Frc if !version.is_pixel() && version.major == 1 => (0, 3),
        Opcode::Nrm | Opcode::Pow | Opcode::Rep | Opcode::Ifc | Opcode::Breakc => (0, 3),
        Opcode::Dp2add | Opcode::Endrep => (0, 2),
        Opcode::Abs
        | Opcode::Add
        | Opcode::Cmp
        | Opcode::Dp3
        | Opcode::Dp4
        | Opcode::Else
        | Opcode::Endif
        | Opcode::Exp
        | Opcode::Frc
        | Opcode::Log
        | Opcode::Lrp
        | Opcode::Mad
        | Opcode::Max
        | Opcode::Min
        | Opcode::Mov
        | Opcode::Mova
        | Opcode::Mul
        | Opcode::Rcp
        | Opcode::Rsq
        | Opcode::Sge
        | Opcode::Slt
        | Opcode::Texkill => (0, 1),
        _ => return None,
    })
}

/// The summary of `program`, when every instruction's cost is known.
pub fn slot_summary(program: &Program<'_>) -> Option<SlotSummary> {
    let (mut texture, mut arithmetic) = (0u32, 0u32);
    for inst in &program.instructions {
        let (t, a) = cost(inst.opcode, inst.controls, program.version)?;
        texture += t;
        arithmetic += a;
    }
    Some(SlotSummary {
        texture,
        arithmetic,
        split: program.version.is_pixel() && texture > 0,
    })
}

/// Appends fxc's summary line (with its line end): `// approximately 1 instruction slot used`.
pub fn write_slot_summary(out: &mut String, summary: &SlotSummary) {
    let total = summary.texture + summary.arithmetic;
    let plural = if total == 1 { "" } else { "s" };
    let _ = write!(
        out,
        "// approximately {total} instruction slot{plural} used"
    );
    if summary.split {
        let _ = write!(
            out,
            " ({} texture, {} arithmetic)",
            summary.texture, summary.arithmetic
        );
    }
    out.push('\n');
}
