//! Hand-written headers: tables parsed with their values and lines, chunks built from them and
//! printed back, signatures derived from declarations when a listing has no tables, and the
//! committed samples round-tripped through the header.

use super::{program_words, PS_HEADER, SIGNATURES};
use crate::front::dxbc::container::{Container, FourCc, ParseOptions};
use crate::front::dxbc::rdef::BufferKind;
use crate::front::dxbc::signature::{ComponentType, MinPrecision, Signature, SystemValue};
use crate::text::dxbc::asm::chunks::build_chunks;
use crate::text::dxbc::asm::header::{parse_header, BindingLayout, HeaderTables};
use crate::text::dxbc::disasm::header::Header;

#[test]
fn parses_signatures() {
    let h = parse_header(PS_HEADER).unwrap();
    assert_eq!(
        h.generator.as_deref(),
        Some("Microsoft (R) HLSL Shader Compiler 10.1")
    );
    let line_of = |s: &str| PS_HEADER.lines().position(|l| l.starts_with(s)).unwrap() as u32 + 1;
    assert_eq!(h.version_line, Some(line_of("ps_5_0")));
    let inputs = &h.inputs.as_ref().unwrap().elements;
    assert_eq!(inputs.len(), 3);
    assert_eq!(
        (inputs[0].name.as_str(), inputs[0].mask, inputs[0].used),
        ("TEXCOORD", 3, 3)
    );
    assert_eq!((inputs[1].mask, inputs[1].used), (12, 0));
    assert_eq!(inputs[1].min_precision, MinPrecision::Float16);
    assert_eq!(inputs[1].component_type, ComponentType::Float32);
    assert_eq!(inputs[2].system_value, SystemValue::Position);
    assert_eq!(inputs[2].line, line_of("// SV_Position"));
    let outputs = &h.outputs.as_ref().unwrap().elements;
    assert_eq!(outputs[0].system_value, SystemValue::Target);
    assert_eq!(outputs[0].used, 0b0101);
    assert_eq!(
        (outputs[1].register, outputs[1].mask, outputs[1].used),
        (None, 1, 1)
    );
    assert!(h.patch_constants.is_none());
}

#[test]
fn parses_buffers_and_bindings() {
    let h = parse_header(PS_HEADER).unwrap();
    assert_eq!(h.buffers.len(), 1);
    let cb = &h.buffers[0];
    assert_eq!((cb.kind, cb.name.as_str()), (BufferKind::CBuffer, "cb"));
    let [a, s, m] = &cb.variables[..] else {
        panic!("three variables expected: {:?}", cb.variables);
    };
    assert_eq!((a.offset, a.size, a.used), (0, 16, true));
    assert_eq!(a.default_value.as_ref().map(Vec::len), Some(16));
    assert_eq!((a.ty.class, a.ty.base, a.ty.columns), (1, 3, 4));
    assert_eq!((s.offset, s.size, s.used), (16, 48, false));
    assert_eq!((s.ty.class, s.ty.elements), (5, 2));
    assert_eq!(s.ty.name.as_deref(), Some("S"));
    assert_eq!(s.ty.members[1].offset, 20);
    assert_eq!(s.ty.members[1].ty.name.as_deref(), Some("uint2"));
    assert_eq!(s.ty.members[0].ty.name.as_deref(), Some("float"));
    assert_eq!((m.ty.class, m.ty.rows, m.ty.columns), (2, 3, 4));
    assert_eq!(h.binding_layout, Some(BindingLayout::HlslBind));
    let b: Vec<_> = h
        .bindings
        .iter()
        .map(|b| (b.name.as_str(), b.input_type, b.bind_point, b.comparison))
        .collect();
    assert_eq!(
        b,
        [
            ("smp", 3, 0, true),
            ("tex", 2, 1, false),
            ("buf", 11, 2, false),
            ("cb", 0, 2, false)
        ]
    );
    assert_eq!((h.bindings[1].return_type, h.bindings[1].dimension), (5, 4));
    assert_eq!(h.bindings[1].components, 4);
}

#[test]
fn builds_chunks_that_print_back() {
    let h = parse_header(PS_HEADER).unwrap();
    // ps_5_0, length 3, ret.
    let program = [0x50, 3, 0x0100_003e];
    let chunks = build_chunks(&h, &program).unwrap();
    let codes: Vec<FourCc> = chunks.iter().map(|c| c.0).collect();
    // min16f in a signature: the 32-byte layouts.
    assert_eq!(codes, [FourCc::RDEF, FourCc::ISG1, FourCc::OSG1]);
    let mut all: Vec<(FourCc, &[u8])> = chunks.iter().map(|(c, d)| (*c, &d[..])).collect();
    let shex = crate::text::dxbc::encode::words_to_bytes(&program);
    all.push((FourCc::SHEX, &shex));
    let bytes = crate::text::dxbc::encode::write_container(&all).unwrap();
    let container = Container::parse(&bytes, &ParseOptions::default()).unwrap();
    let header = Header::new(&container).unwrap();
    let printed = header.to_string();
    let expected_lines: Vec<&str> = PS_HEADER
        .lines()
        .take_while(|l| *l != "ps_5_0")
        .filter(|l| !l.contains("= 0x"))
        .collect();
    let ours: Vec<&str> = printed
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.contains("= 0x"))
        .collect();
    assert_eq!(ours, expected_lines);
    let outputs = container.output_signature().unwrap().unwrap();
    assert_eq!(outputs.elements[0].system_value, SystemValue::Undefined);
    assert_eq!(outputs.elements[0].rw_mask, 0b1010);
    assert_eq!(outputs.elements[1].rw_mask, 0b1110);
    let rdef = container.resource_definitions().unwrap().unwrap();
    assert_eq!(rdef.constant_buffers[0].size, 112);
    assert_eq!(rdef.constant_buffers[0].variables[1].ty.columns, 3);
    assert_eq!(
        rdef.constant_buffers[0].variables[1].ty.members[1].offset,
        4
    );
}

#[test]
fn parses_streams_slots_and_sm51_bindings() {
    let text = "\
// Generated by Microsoft (R) HLSL Shader Compiler 9.29.952.3111
//
// Resource Bindings:
//
// Name                                 Type  Format         Dim Slot Elements
// ------------------------------ ---------- ------- ----------- ---- --------
// tex                               texture   uint2          2d    3        2
//
// Output signature:
//
// Name                 Index   Mask Register SysValue Format   Used
// -------------------- ----- ------ -------- -------- ------ ------
// m1:POSITION              0   xyzw        0      POS  float   xyzw
// m0:TEXCOORD              0   xy          1     NONE   uint   xy
//
gs_5_0
";
    let h = parse_header(text).unwrap();
    assert_eq!(h.binding_layout, Some(BindingLayout::Slot));
    assert_eq!(
        (
            h.bindings[0].bind_point,
            h.bindings[0].bind_count,
            h.bindings[0].components
        ),
        (3, 2, 2)
    );
    let out = &h.outputs.as_ref().unwrap().elements;
    assert_eq!((out[0].stream, out[0].name.as_str()), (1, "POSITION"));
    assert_eq!(out[1].component_type, ComponentType::Uint32);

    let text = "\
// Resource Bindings:
//
// Name                                 Type  Format         Dim      ID      HLSL Bind  Count
// ------------------------------ ---------- ------- ----------- ------- -------------- ------
// tex                               texture  float4          2d      T2      t0,space2 unbounded
// u                                     UAV    uint         buf      U0             u1      1
//
";
    let h = parse_header(text).unwrap();
    assert_eq!(h.binding_layout, Some(BindingLayout::WithId));
    let t = &h.bindings[0];
    assert_eq!(
        (t.id, t.space, t.bind_point, t.bind_count),
        (Some(2), 2, 0, 0)
    );
    assert_eq!((h.bindings[1].input_type, h.bindings[1].dimension), (4, 1));
}

#[test]
fn skips_unknown_sections_and_level9_code() {
    let text = "\
//
// Generated by Microsoft (R) D3D Shader Disassembler
//
// Note: shader requires additional functionality:
//       Minimum-precision data types
//
// Input signature:
//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
// no Input
//
// Level9 shader bytecode:
//
    ps_2_0
    mov oC0, c0
// Pixel Shader runs at sample frequency
//
ps_4_0
";
    let h = parse_header(text).unwrap();
    assert_eq!(h.feature_flags, 0x10);
    assert_eq!(h.inputs.as_ref().map(|t| t.elements.len()), Some(0));
    assert!(h.outputs.is_none());
    assert!(!h.has_reflection());
    assert_eq!(h.version_line, Some(19));
}

// ---------------------------------------------------------------------------------------------
// Signatures derived from declarations.

#[test]
fn derives_signatures_from_declarations() {
    use crate::front::dxbc::opcodes::Opcode;
    use crate::front::dxbc::operand::RegisterType as R;
    use crate::front::dxbc::program::{ShaderVersion, Stage};
    use crate::text::dxbc::encode::{reg, OperandBuild, ProgramBuilder};
    let version = ShaderVersion {
        stage: Stage::Pixel,
        major: 4,
        minor: 0,
    };
    let mut b = ProgramBuilder::new(version);
    b.op(Opcode::DclInputPsSiv, 4)
        .dst(reg(R::Input, &[1]).mask(0xf))
        .name(1);
    b.op(Opcode::DclInputPs, 2)
        .dst(reg(R::Input, &[0]).mask(0x3));
    b.op(Opcode::DclInputPs, 2)
        .dst(reg(R::Input, &[0]).mask(0xc));
    b.op(Opcode::DclOutput, 0)
        .dst(reg(R::Output, &[0]).mask(0xf));
    b.op(Opcode::DclOutput, 0).dst(reg(R::OutputDepth, &[]));
    b.op(Opcode::Ret, 0);
    let words = b.finish().unwrap();
    let chunks = build_chunks(&HeaderTables::default(), &words).unwrap();
    let codes: Vec<FourCc> = chunks.iter().map(|c| c.0).collect();
    assert_eq!(codes, [FourCc::ISGN, FourCc::OSGN]);
    let sig = |i: usize| {
        let (fourcc, data) = &chunks[i];
        let chunk = crate::front::dxbc::container::Chunk {
            fourcc: *fourcc,
            offset: 0,
            data,
        };
        Signature::parse(&chunk)
            .unwrap()
            .elements
            .iter()
            .map(|e| {
                (
                    e.name.to_string(),
                    e.semantic_index,
                    e.system_value.raw(),
                    e.register,
                    e.mask,
                    e.rw_mask,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        sig(0),
        [
            ("TEXCOORD".to_string(), 0, 0, 0, 3, 3),
            ("TEXCOORD".to_string(), 32, 0, 0, 12, 12),
            ("SV_Position".to_string(), 0, 1, 1, 15, 15),
        ]
    );
    assert_eq!(
        sig(1),
        [
            ("SV_Target".to_string(), 0, 0, 0, 15, 0),
            ("SV_Depth".to_string(), 0, 0, u32::MAX, 1, 14),
        ]
    );
}

/// Our own samples: printing their header and parsing it back rebuilds their signatures.
#[test]
fn samples_round_trip_through_the_header() {
    for sample in crate::text::dxbc::encode::samples::all() {
        let container = Container::parse(&sample.bytes, &ParseOptions::default()).unwrap();
        let text = Header::new(&container).unwrap().to_string();
        let header = parse_header(&text).unwrap();
        let words = program_words(&container).unwrap();
        let chunks = build_chunks(&header, &words).unwrap();
        for chunk in container
            .chunks
            .iter()
            .filter(|c| SIGNATURES.contains(&c.fourcc))
        {
            let ours = chunks.iter().find(|(c, _)| *c == chunk.fourcc);
            assert_eq!(
                ours.map(|(_, d)| &d[..]),
                Some(chunk.data),
                "{}: {}",
                sample.name,
                chunk.fourcc
            );
        }
    }
}
