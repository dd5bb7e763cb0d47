//! `collect_switch_cases`: fills the [`SwitchTable`] of every `switch`.
//!
//! Contract: the cases of a switch are numbered into blocks in program order, from 0. A run of
//! `case`/`default` labels with no instruction between them shares one block (`case 1: case 2:
//! default:` is one block); any other instruction at that switch's level, a nested construct
//! included, ends the run. Each table gets its `(value, block)` pairs in program order, the
//! block of `default` and the block count. Nested switches are handled with a stack. A label
//! outside a switch, an `endswitch` without a switch, a switch left open at the end of its
//! function, a case value that is not an immediate, a value given twice or a second `default`
//! is [`Error::Invalid`] at the offending instruction. A switch with more than
//! [`MAX_SWITCH_CASES`] case values is [`Error::Unsupported`] at the first case past the limit:
//! one SPIR-V `OpSwitch` cannot hold it.

use super::Error;
use crate::ir::{Module, Op, Reg, SwitchId, SwitchTable};

/// Most `case` values of one switch: an `OpSwitch` takes 3 words plus 2 per case, and a SPIR-V
/// instruction has at most 65,535 words. D3D sets no limit of its own.
pub const MAX_SWITCH_CASES: usize = (65_535 - 3) / 2;

/// A switch being scanned.
struct Open {
    /// Its table's position in [`Module::switches`].
    table: SwitchId,
    /// Blocks numbered so far.
    blocks: u32,
    /// The last instruction was a label of this switch (the next label joins its block).
    in_label_run: bool,
    /// Byte offset of the `switch`.
    span: u32,
    /// `(value, offset)` of each `case`, to find a value given twice when the switch closes.
    seen: Vec<(u32, u32)>,
}

/// Fails at the second `case` of a value given twice (sorting keeps this `O(n log n)`).
fn check_unique(seen: &mut [(u32, u32)]) -> Result<(), Error> {
    seen.sort_unstable();
    match seen.windows(2).find(|w| w[0].0 == w[1].0) {
        Some(w) => Err(Error::invalid(
            w[1].1,
            format!("case {} appears twice in a switch", w[0].0 as i32),
        )),
        None => Ok(()),
    }
}

/// Fills `module.switches` from the `switch`/`case`/`default`/`endswitch` instructions.
pub fn collect_switch_cases(module: &mut Module) -> Result<(), Error> {
    let Module {
        functions,
        insts,
        switches,
        ..
    } = module;
    let mut stack: Vec<Open> = Vec::new();
    for function in functions.iter() {
        stack.clear();
        let body = insts
            .get(function.body.start as usize..function.body.end as usize)
            .ok_or_else(|| Error::internal(function.span, "function outside the instructions"))?;
        for inst in body {
            let at = inst.span;
            match inst.op {
                Op::Switch => {
                    if let Some(outer) = stack.last_mut() {
                        outer.in_label_run = false;
                    }
                    let Some(table) = inst.payload.switch() else {
                        return Err(Error::invalid(at, "switch without a case table"));
                    };
                    let Some(t) = switches.get_mut(table.index()) else {
                        return Err(Error::invalid(
                            at,
                            format!("switch table {table} does not exist"),
                        ));
                    };
                    *t = SwitchTable::default();
                    stack.push(Open {
                        table,
                        blocks: 0,
                        in_label_run: false,
                        span: at,
                        seen: Vec::new(),
                    });
                }
                Op::Case | Op::Default => {
                    let Some(open) = stack.last_mut() else {
                        return Err(Error::invalid(
                            at,
                            format!("{} outside a switch", inst.op.name()),
                        ));
                    };
                    if !open.in_label_run {
                        open.blocks += 1;
                        open.in_label_run = true;
                    }
                    let block = open.blocks - 1;
                    let Some(table) = switches.get_mut(open.table.index()) else {
                        return Err(Error::invalid(at, "switch table does not exist"));
                    };
                    if inst.op == Op::Default {
                        if table.default.replace(block).is_some() {
                            return Err(Error::invalid(at, "second default in a switch"));
                        }
                    } else {
                        let value = match inst.src().first().map(|s| s.reg) {
                            Some(Reg::Imm32(v)) => v[0],
                            _ => return Err(Error::invalid(at, "case value is not an immediate")),
                        };
                        if table.cases.len() == MAX_SWITCH_CASES {
                            return Err(Error::unsupported(
                                at,
                                format!(
                                    "{} cases in one switch exceeds the limit {MAX_SWITCH_CASES} \
                                     of a SPIR-V OpSwitch",
                                    MAX_SWITCH_CASES + 1
                                ),
                            ));
                        }
                        table.cases.push((value, block));
                        open.seen.push((value, at));
                    }
                }
                Op::EndSwitch => {
                    let Some(mut open) = stack.pop() else {
                        return Err(Error::invalid(at, "endswitch without a matching switch"));
                    };
                    check_unique(&mut open.seen)?;
                    if let Some(table) = switches.get_mut(open.table.index()) {
                        table.blocks = open.blocks;
                    }
                    if let Some(outer) = stack.last_mut() {
                        outer.in_label_run = false;
                    }
                }
                _ => {
                    if let Some(open) = stack.last_mut() {
                        open.in_label_run = false;
                    }
                }
            }
        }
        if let Some(open) = stack.last() {
            return Err(Error::invalid(open.span, "switch without endswitch"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::test_util::lowered;

    fn tables(text: &str) -> Vec<SwitchTable> {
        let mut m = lowered(text);
        collect_switch_cases(&mut m).expect("collects");
        m.switches
    }

    #[test]
    fn shared_labels_share_a_block_and_blocks_count_in_order() {
        let t = tables(
            "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n\
             switch r0.x\n\
             case l(3)\ncase l(4)\nmov r0.y, l(1)\nbreak\n\
             case l(-1)\ndefault\nmov r0.y, l(2)\nbreak\n\
             case l(7)\nbreak\n\
             endswitch\nret\n",
        );
        assert_eq!(
            t,
            vec![SwitchTable {
                cases: vec![(3, 0), (4, 0), (u32::MAX, 1), (7, 2)],
                default: Some(1),
                blocks: 3,
            }]
        );
    }

    #[test]
    fn nested_switches_get_their_own_tables() {
        let t = tables(
            "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n\
             switch r0.x\n\
             case l(0)\n\
               switch r0.y\ncase l(10)\ncase l(11)\nbreak\ndefault\nbreak\nendswitch\n\
             case l(1)\nbreak\n\
             default\nbreak\n\
             endswitch\nret\n",
        );
        assert_eq!(t.len(), 2);
        // The inner switch ends the outer block: `case l(1)` opens block 1 (fall-through
        // from block 0 into it is D3D's business, the numbering only follows labels).
        assert_eq!(t[0].cases, vec![(0, 0), (1, 1)]);
        assert_eq!((t[0].default, t[0].blocks), (Some(2), 3));
        assert_eq!(t[1].cases, vec![(10, 0), (11, 0)]);
        assert_eq!((t[1].default, t[1].blocks), (Some(1), 2));
    }

    #[test]
    fn duplicate_values_and_defaults_are_invalid() {
        let mut m = lowered(
            "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n\
             switch r0.x\ncase l(1)\nbreak\ncase l(1)\nbreak\nendswitch\nret\n",
        );
        let second_case = m.insts[3].span;
        let e = collect_switch_cases(&mut m).unwrap_err();
        assert!(matches!(e, Error::Invalid { .. }), "{e}");
        assert!(e.to_string().contains("case 1 appears twice"), "{e}");
        assert_eq!(e.offset(), Some(second_case));
        let mut m = lowered(
            "cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n\
             switch r0.x\ndefault\nbreak\ndefault\nbreak\nendswitch\nret\n",
        );
        let e = collect_switch_cases(&mut m).unwrap_err();
        assert!(e.to_string().contains("second default"), "{e}");
    }

    #[test]
    fn labels_outside_a_switch_are_invalid_with_their_offset() {
        let mut m = lowered("cs_5_0\ndcl_thread_group 1, 1, 1\ncase l(1)\nret\n");
        let case_at = m.insts[0].span;
        let e = collect_switch_cases(&mut m).unwrap_err();
        assert_eq!(e.offset(), Some(case_at));
        let mut m =
            lowered("cs_5_0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nswitch r0.x\ncase l(1)\nret\n");
        let e = collect_switch_cases(&mut m).unwrap_err();
        assert_eq!(e.offset(), Some(m.insts[0].span));
    }
}
