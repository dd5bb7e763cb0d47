//! Tests of the level-9 table text: hand-built parts against fxc's layout, and every fxc
//! listing of the corpus that has a level-9 section.

use super::*;
use crate::front::dxbc::aon9::{ConstantMapping, Level9Kind, RuntimeConstant, SamplerMapping};

fn part() -> Level9<'static> {
    Level9 {
        kind: Level9Kind::Legacy,
        offset: 0x3c,
        payload_size: 0,
        version: 0xFFFE_0200,
        program: &[],
        program_offset: 0,
        constants: vec![],
        unknown_tables: [None, None],
        samplers: vec![],
        runtime_constants: vec![],
    }
}

#[test]
fn empty_tables_print_only_the_bytecode_title() {
    assert_eq!(tables(&part()), "//\n// Level9 shader bytecode:\n//\n");
}

#[test]
fn prints_fxc_columns() {
    let mut l9 = part();
    l9.constants = vec![
        ConstantMapping {
            buffer: 0,
            first_register: 0,
            count: 4,
            target: 1,
            conversion: [Conversion::Float; 4],
        },
        ConstantMapping {
            buffer: 12,
            first_register: 160,
            count: 12,
            target: 100,
            conversion: [Conversion::Float; 4],
        },
    ];
    l9.samplers = vec![SamplerMapping {
        source_resource: 3,
        source_sampler: 1,
        target_sampler: 0,
        reserved: 0,
    }];
    l9.runtime_constants = vec![RuntimeConstant {
        kind: RuntimeConstantKind::VertexShaderPositionOffset,
        target: 0,
    }];
    let expected = "\
//
// Constant buffer to DX9 shader constant mappings:
//
// Target Reg Buffer  Start Reg # of Regs        Data Conversion
// ---------- ------- --------- --------- ----------------------
// c1         cb0             0         4  ( FLT, FLT, FLT, FLT)
// c100       cb12          160        12  ( FLT, FLT, FLT, FLT)
//
//
// Sampler/Resource to DX9 shader sampler mappings:
//
// Target Sampler Source Sampler  Source Resource
// -------------- --------------- ----------------
// s0             s1              t3
//
//
// Runtime generated constant mappings:
//
// Target Reg                               Constant Description
// ---------- --------------------------------------------------
// c0                              Vertex Shader position offset
//
//
// Level9 shader bytecode:
//
";
    assert_eq!(tables(&l9), expected);
}

#[test]
fn spells_unknown_codes_as_documented() {
    assert_eq!(conversion_name(Conversion::UInt), "UINT");
    assert_eq!(conversion_name(Conversion::Other(7)), "7");
    assert_eq!(
        runtime_description(RuntimeConstantKind::Other(2)),
        "Unknown runtime constant 2"
    );
}

#[path = "level9_corpus_tests.rs"]
mod corpus;
