//! Unit tests of the constant-table parser on hand-built tables (layout from the D3DX9
//! `D3DXSHADER_CONSTANTTABLE` structures: 28-byte header, 20-byte constant entries, 16-byte type
//! entries, 8-byte member entries, offsets relative to the header).

use super::*;

/// Where the table's data starts in the (imaginary) input: errors add 4 for the fourcc.
const BASE: u32 = 0x100;
/// Absolute offset of table-relative position `p`.
const fn abs(p: u32) -> u32 {
    BASE + 4 + p
}

fn put16(t: &mut [u8], at: usize, v: u16) {
    t[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
fn put32(t: &mut [u8], at: usize, v: u32) {
    t[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn push_str(t: &mut Vec<u8>, s: &str) -> u32 {
    let at = t.len() as u32;
    t.extend_from_slice(s.as_bytes());
    t.push(0);
    while t.len() % 4 != 0 {
        t.push(0xab);
    }
    at
}
/// A type entry at `at`.
#[allow(clippy::too_many_arguments)]
fn put_type(
    t: &mut [u8],
    at: usize,
    class: u16,
    ty: u16,
    rows: u16,
    cols: u16,
    el: u16,
    m: u16,
    mo: u32,
) {
    for (i, v) in [class, ty, rows, cols, el, m].into_iter().enumerate() {
        put16(t, at + 2 * i, v);
    }
    put32(t, at + 12, mo);
}

/// Positions in the table built by [`good`].
const CONST0: usize = 28;
const CONST1: usize = 48;
const TYPE0: usize = 68;
const TYPE1: usize = 84;
const MEMBERS: usize = 100;
const TYPE_M1: usize = 116;
const DEFAULT0: usize = 132;
const FIXED: usize = 148;

/// A vs_3_0 table: `float4 Bcoeff` in c0 with default (1, 2, 3, 4), and
/// `struct { float4 a; float4x4 b; } s` in c1–c5; the creator string comes last.
fn good_table() -> Vec<u8> {
    let mut t = vec![0u8; FIXED];
    let n0 = push_str(&mut t, "Bcoeff");
    let n1 = push_str(&mut t, "s");
    let ma = push_str(&mut t, "a");
    let mb = push_str(&mut t, "b");
    let target = push_str(&mut t, "vs_3_0");
    let creator = push_str(&mut t, "Microsoft (R) HLSL Shader Compiler 10.1");
    for (i, v) in [28, creator, 0xFFFE_0300, 2, CONST0 as u32, 0x100, target]
        .into_iter()
        .enumerate()
    {
        put32(&mut t, 4 * i, v);
    }
    put32(&mut t, CONST0, n0);
    put16(&mut t, CONST0 + 4, 2);
    put16(&mut t, CONST0 + 6, 0);
    put16(&mut t, CONST0 + 8, 1);
    put32(&mut t, CONST0 + 12, TYPE0 as u32);
    put32(&mut t, CONST0 + 16, DEFAULT0 as u32);
    put32(&mut t, CONST1, n1);
    put16(&mut t, CONST1 + 4, 2);
    put16(&mut t, CONST1 + 6, 1);
    put16(&mut t, CONST1 + 8, 5);
    put32(&mut t, CONST1 + 12, TYPE1 as u32);
    put_type(&mut t, TYPE0, 1, 3, 1, 4, 1, 0, 0);
    put_type(&mut t, TYPE1, 5, 0, 1, 20, 1, 2, MEMBERS as u32);
    put32(&mut t, MEMBERS, ma);
    put32(&mut t, MEMBERS + 4, TYPE0 as u32);
    put32(&mut t, MEMBERS + 8, mb);
    put32(&mut t, MEMBERS + 12, TYPE_M1 as u32);
    put_type(&mut t, TYPE_M1, 3, 3, 4, 4, 1, 0, 0);
    for (i, v) in [1.0f32, 2.0, 3.0, 4.0].into_iter().enumerate() {
        put32(&mut t, DEFAULT0 + 4 * i, v.to_bits());
    }
    t
}

fn with_fourcc(t: &[u8]) -> Vec<u8> {
    let mut d = CTAB_FOURCC.to_vec();
    d.extend_from_slice(t);
    d
}

fn message(t: &[u8]) -> String {
    match parse(&with_fourcc(t), BASE) {
        Ok(table) => panic!("parsed: {table:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parses_a_hand_built_table() {
    let data = with_fourcc(&good_table());
    let table = parse(&data, BASE).unwrap();
    assert_eq!(table.creator, "Microsoft (R) HLSL Shader Compiler 10.1");
    assert_eq!(table.target, "vs_3_0");
    assert_eq!(table.version, 0xFFFE_0300);
    assert_eq!(table.flags, 0x100);
    assert_eq!(table.constants.len(), 2);
    let c0 = &table.constants[0];
    assert_eq!(
        (
            c0.name,
            c0.register_set,
            c0.register_index,
            c0.register_count
        ),
        ("Bcoeff", RegisterSet::Float4, 0, 1)
    );
    assert_eq!(
        (
            c0.ty.class,
            c0.ty.ty,
            c0.ty.rows,
            c0.ty.columns,
            c0.ty.elements
        ),
        (ParameterClass::Vector, ParameterType::Float, 1, 4, 1)
    );
    let dv = c0.default_value.unwrap();
    assert_eq!(dv.offset, abs(DEFAULT0 as u32));
    assert_eq!(dv.data.len(), 16);
    assert_eq!(dv.data[4..8], 2.0f32.to_le_bytes());
    let c1 = &table.constants[1];
    assert_eq!(
        (
            c1.name,
            c1.register_index,
            c1.register_count,
            c1.default_value
        ),
        ("s", 1, 5, None)
    );
    assert_eq!(c1.ty.class, ParameterClass::Struct);
    let names: Vec<_> = c1.ty.members.iter().map(|m| m.name).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(c1.ty.members[1].ty.class, ParameterClass::MatrixColumns);
    assert_eq!(
        (c1.ty.members[1].ty.rows, c1.ty.members[1].ty.columns),
        (4, 4)
    );
}

#[test]
fn default_value_sizes_follow_the_register_layout() {
    let ty = |class, rows, columns, elements| TypeInfo {
        class,
        ty: ParameterType::Float,
        rows,
        columns,
        elements,
        members: Vec::new(),
    };
    // One 16-byte register per scalar/vector, per column (column-major), per row (row-major).
    assert_eq!(
        DefaultValue::len_for(&ty(ParameterClass::Scalar, 1, 1, 1), RegisterSet::Float4),
        16
    );
    assert_eq!(
        DefaultValue::len_for(
            &ty(ParameterClass::MatrixColumns, 4, 3, 2),
            RegisterSet::Float4
        ),
        96
    );
    assert_eq!(
        DefaultValue::len_for(
            &ty(ParameterClass::MatrixRows, 4, 3, 1),
            RegisterSet::Float4
        ),
        64
    );
    // Booleans: one 32-bit value per component.
    assert_eq!(
        DefaultValue::len_for(&ty(ParameterClass::Vector, 1, 3, 2), RegisterSet::Bool),
        24
    );
}

#[test]
fn rejects_a_comment_that_is_not_ctab() {
    let e = parse(b"TEXT\0\0\0\0", BASE).unwrap_err();
    assert_eq!(
        e.to_string(),
        "at 0x100 (CTAB): comment does not start with the CTAB fourcc (found [54, 45, 58, 54])"
    );
    assert_eq!(
        parse(b"CT", BASE).unwrap_err().to_string(),
        "at 0x100 (CTAB): comment does not start with the CTAB fourcc (found [43, 54])"
    );
}

#[test]
fn rejects_a_truncated_header() {
    let t = good_table();
    assert_eq!(
        message(&t[..10]),
        "at 0x104 (CTAB): header needs 28 bytes but only 10 remain in the table"
    );
}

#[test]
fn rejects_a_wrong_header_size() {
    let mut t = good_table();
    put32(&mut t, 0, 32);
    assert_eq!(message(&t), "at 0x104 (CTAB): header size 32 is not 28");
}

#[test]
fn rejects_an_offset_past_the_end() {
    let mut t = good_table();
    let size = t.len();
    put32(&mut t, 4, 0x1000);
    assert_eq!(message(&t), format!("at 0x108 (CTAB): creator string offset 0x1000 is past the end of the table ({size} bytes)"));
}

#[test]
fn rejects_a_string_without_nul() {
    let t = good_table();
    // The creator string is last: cut its NUL and padding off.
    let creator = u32::from_le_bytes(t[4..8].try_into().unwrap());
    let cut = &t[..creator as usize + 10];
    assert_eq!(
        message(cut),
        format!(
            "at {:#x} (CTAB): creator string is not NUL-terminated before the end of the table",
            abs(creator)
        )
    );
}

#[test]
fn rejects_a_string_that_is_not_utf8() {
    let mut t = good_table();
    let n0 = u32::from_le_bytes(t[CONST0..CONST0 + 4].try_into().unwrap()) as usize;
    t[n0] = 0xff;
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): constant name is not valid UTF-8",
            abs(n0 as u32)
        )
    );
}

#[test]
fn rejects_a_constant_count_that_would_need_unbounded_allocation() {
    let mut t = good_table();
    let size = t.len() as u32;
    put32(&mut t, 12, 0x1000_0000);
    assert_eq!(
        message(&t),
        format!("at {:#x} (CTAB): constant info array needs 5368709120 bytes but only {} remain in the table", abs(28), size - 28)
    );
}

#[test]
fn rejects_an_invalid_register_set() {
    let mut t = good_table();
    put16(&mut t, CONST1 + 4, 7);
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): invalid register set 7",
            abs(CONST1 as u32 + 4)
        )
    );
}

#[test]
fn rejects_an_invalid_class_and_type() {
    let mut t = good_table();
    put16(&mut t, TYPE0, 9);
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): invalid parameter class 9",
            abs(TYPE0 as u32)
        )
    );
    let mut t = good_table();
    put16(&mut t, TYPE_M1 + 2, 20);
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): invalid parameter type 20",
            abs(TYPE_M1 as u32 + 2)
        )
    );
}

#[test]
fn rejects_members_on_a_vector_and_a_struct_without_members() {
    let mut t = good_table();
    put16(&mut t, TYPE0 + 10, 2);
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): Vector type with 2 struct members",
            abs(TYPE0 as u32 + 10)
        )
    );
    let mut t = good_table();
    put16(&mut t, TYPE1 + 10, 0);
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): Struct type with 0 struct members",
            abs(TYPE1 as u32 + 10)
        )
    );
}

#[test]
fn rejects_a_member_array_past_the_end() {
    let mut t = good_table();
    let size = t.len() as u32;
    put16(&mut t, TYPE1 + 10, 0xffff);
    assert_eq!(
        message(&t),
        format!("at {:#x} (CTAB): struct member info array needs 524280 bytes but only {} remain in the table", abs(MEMBERS as u32), size - MEMBERS as u32)
    );
}

#[test]
fn rejects_a_default_value_past_the_end() {
    let mut t = good_table();
    let size = t.len() as u32;
    put32(&mut t, CONST0 + 16, size - 4);
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): default value needs 16 bytes but only 4 remain in the table",
            abs(size - 4)
        )
    );
}

#[test]
fn rejects_a_type_entry_cut_by_the_end() {
    let mut t = good_table();
    let size = t.len() as u32;
    put32(&mut t, CONST0 + 12, size - 8);
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): type info needs 16 bytes but only 8 remain in the table",
            abs(size - 8)
        )
    );
}

#[test]
fn rejects_a_struct_that_contains_itself() {
    let mut t = good_table();
    // Member `b` of the struct is the struct itself: a cycle; the first entry past depth 32 is
    // member `a` of the 32nd copy.
    put32(&mut t, MEMBERS + 12, TYPE1 as u32);
    assert_eq!(
        message(&t),
        format!(
            "at {:#x} (CTAB): struct members nested deeper than 32 levels",
            abs(TYPE0 as u32)
        )
    );
}

#[test]
fn rejects_types_that_expand_exponentially() {
    let mut t = good_table();
    let name_a = u32::from_le_bytes(t[MEMBERS..MEMBERS + 4].try_into().unwrap());
    // 20 struct types (16-byte entry + two 8-byte members), each member being the next level:
    // 2^21 entries once expanded, while the nesting (20) stays under the depth limit.
    let first = t.len();
    let levels = 20;
    t.resize(first + levels * 32, 0);
    for k in 0..levels {
        let at = first + k * 32;
        let next = if k + 1 == levels { TYPE0 } else { at + 32 };
        put_type(&mut t, at, 5, 0, 1, 4, 1, 2, (at + 16) as u32);
        for m in [at + 16, at + 24] {
            put32(&mut t, m, name_a);
            put32(&mut t, m + 4, next as u32);
        }
    }
    put32(&mut t, CONST1 + 12, first as u32);
    let e = parse(&with_fourcc(&t), BASE).unwrap_err();
    assert_eq!(e.kind, CtabErrorKind::TooManyTypes { limit: 65536 });
    assert!(
        e.to_string()
            .ends_with("(CTAB): types expand to more than 65536 entries"),
        "{e}"
    );
    // With one member per level the same chain is accepted.
    for k in 0..levels {
        put16(&mut t, first + k * 32 + 10, 1);
    }
    assert!(parse(&with_fourcc(&t), BASE).is_ok());
}

#[test]
fn never_panics_on_truncated_or_mutated_tables() {
    let good = with_fourcc(&good_table());
    let end = BASE + good.len() as u32;
    let check = |data: &[u8]| {
        if let Err(e) = parse(data, BASE) {
            assert!((BASE..=end).contains(&e.offset), "{e} outside the input");
        }
    };
    for len in 0..good.len() {
        check(&good[..len]);
    }
    for at in 0..good.len() {
        for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
            let mut data = good.clone();
            data[at] = value;
            check(&data);
        }
    }
}
