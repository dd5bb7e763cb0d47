//! IR → IR passes, one per file, run in the order written in [`run`].
//!
//! Each pass is a plain function over [`Module`]. Passes run before [`crate::ir::validate`] in
//! the pipeline, so none may assume a well-formed module: malformed input (a `case` outside a
//! switch, a counter on the wrong kind of resource) is an [`Error`] carrying the DXBC offset,
//! never a panic.
//!
//! Order and contracts:
//! 1. [`collect_switch_cases()`]: fills each `switch`'s [`SwitchTable`](crate::ir::SwitchTable)
//!    (case values → blocks, the default block, the block count). Needs only `lower`'s output.
//! 2. [`find_uav_counters()`]: sets [`ResourceDecl::counter`](crate::ir::ResourceDecl::counter)
//!    on every UAV that `imm_atomic_alloc`/`imm_atomic_consume` use.
//! 3. [`assign_bindings()`]: asks the binding map for every declared range, and for the counter
//!    range of every UAV with a counter; must run after `find_uav_counters`. Then
//!    [`assign_class_linkage()`] binds the class-linkage block where the caller says.
//! 4. [`schedule_hull_phases()`]: maps a hull shader's phases onto the tessellation-control
//!    invocations under the requested [`HullSchedule`] (the steps the back end emits).
//! 5. [`apply_d3d9_state()`]: Direct3D 9's fixed-function state around vertex and pixel
//!    shaders (alpha test, fog, clip planes, point size and sprites), only when the caller's
//!    [`D3d9State`] is not the default.

pub mod assign_bindings;
pub mod collect_switch_cases;
pub mod d3d9_state;
mod error;
pub mod find_uav_counters;
pub mod schedule_hull_phases;

use crate::bindings::{Bindings, ClassLinkage};
use crate::d3d9_state::D3d9State;
use crate::ir::{HullSchedule, Module};

pub use assign_bindings::{assign_bindings, assign_class_linkage};
pub use collect_switch_cases::collect_switch_cases;
pub use d3d9_state::apply_d3d9_state;
pub use error::Error;
pub use find_uav_counters::find_uav_counters;
pub use schedule_hull_phases::schedule_hull_phases;

/// Runs every pass, in order.
pub fn run(
    module: &mut Module,
    bindings: &Bindings,
    class_linkage: &ClassLinkage,
    hull_schedule: HullSchedule,
    d3d9: &D3d9State,
) -> Result<(), Error> {
    collect_switch_cases(module)?;
    find_uav_counters(module)?;
    assign_bindings(module, bindings)?;
    assign_class_linkage(module, class_linkage)?;
    schedule_hull_phases(module, hull_schedule)?;
    if *d3d9 != D3d9State::default() {
        apply_d3d9_state(module, d3d9)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Shared by the passes' unit tests: lower an fxc-syntax listing without running passes.

    use crate::front::dxbc::container::{Container, ParseOptions};
    use crate::ir::Module;
    use crate::text::dxbc::disasm::shader_program;

    /// Assembles, decodes and lowers `text` (no passes).
    pub fn lowered(text: &str) -> Module {
        let bytes = crate::text::dxbc::asm::assemble(text).expect("assembles");
        let container = Container::parse(&bytes, &ParseOptions::default()).expect("container");
        let program = shader_program(&container).expect("program");
        crate::front::dxbc::lower::lower(&program).expect("lowers")
    }
}
