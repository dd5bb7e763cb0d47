//! Reflection tests on hand-assembled token streams.

use super::*;
use crate::front::d3d9::decode;

fn reflect(words: &[u32]) -> Reflection {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    Reflection::of(&decode(&bytes, 0).expect("decodes"))
}

fn used(r: &Reflection, file: RegisterType) -> (Vec<u32>, Vec<u32>, bool) {
    let u = r.registers.iter().find(|u| u.file == file).expect("file");
    (u.read.clone(), u.written.clone(), u.relative)
}

#[test]
fn ps_2_0_defs_samplers_inputs_and_texkill() {
    let r = reflect(&[
        0xffff_0200,
        0x0004_fffe, // comment: CTAB and 3 dwords
        0x4241_5443,
        0x1c,
        0,
        0,
        0x0500_0051, // def c3, 1, 0.5, 0, -2
        0xa00f_0003,
        0x3f80_0000,
        0x3f00_0000,
        0,
        0xc000_0000,
        0x0200_001f, // dcl_centroid t1.xy
        0x8000_0000,
        0xb043_0001,
        0x0200_001f, // dcl v0
        0x8000_0000,
        0x900f_0000,
        0x0200_001f, // dcl_cube s2
        0x9800_0000,
        0xa00f_0802,
        0x0300_0042, // texld r0, t1, s2
        0x800f_0000,
        0xb0e4_0001,
        0xa0e4_0802,
        0x0300_0042, // texld r1, t1, s5 (no dcl)
        0x800f_0001,
        0xb0e4_0001,
        0xa0e4_0805,
        0x0100_0041, // texkill r0
        0x800f_0000,
        0x0300_0002, // add oC0, r0, v0
        0x800f_0800,
        0x80e4_0000,
        0x90e4_0000,
        0x0000_ffff,
    ]);
    assert_eq!(r.version.profile(), "ps_2_0");
    assert_eq!(r.instructions, 8);
    assert_eq!(r.float_constants.len(), 1);
    assert_eq!(r.float_constants[0].register, 3);
    assert_eq!(r.float_constants[0].values(), [1.0, 0.5, 0.0, -2.0]);
    assert_eq!(
        r.samplers,
        vec![
            Sampler {
                register: 2,
                texture_type: Some(TextureType::Cube),
                used: true
            },
            Sampler {
                register: 5,
                texture_type: None,
                used: true
            },
        ]
    );
    // Before ps_3_0, t# are texture coordinates and v# colours, whatever the dcl token says.
    assert_eq!(r.inputs.len(), 2);
    let t1 = r.inputs[0];
    assert_eq!(
        (t1.register, t1.num, t1.mask),
        (RegisterType::Texture, 1, 0x3)
    );
    assert_eq!(
        (t1.usage, t1.usage_index, t1.centroid),
        (Some("texcoord"), 1, true)
    );
    assert_eq!(
        (r.inputs[1].usage, r.inputs[1].usage_index),
        (Some("color"), 0)
    );
    assert!(r.outputs.is_empty());
    assert!(r.texkill && !r.derivatives && !r.predicates && !r.relative_addressing);
    assert_eq!(used(&r, RegisterType::Temp), (vec![0], vec![0, 1], false));
    assert_eq!(used(&r, RegisterType::ColorOut), (vec![], vec![0], false));
    assert_eq!(used(&r, RegisterType::Texture), (vec![1], vec![], false));
    // Defined constants are not reads; dcl is not a write.
    assert!(r.registers.iter().all(|u| u.file != RegisterType::Const));
    assert_eq!(
        r.constant_table,
        Some(ConstantTableBlock {
            offset: 4,
            size: 16
        })
    );
    assert_eq!(r.comments, vec![Some(*b"CTAB")]);
}

#[test]
fn vs_3_0_outputs_int_bool_defs_loops_and_predicates() {
    let r = reflect(&[
        0xfffe_0300,
        0x0500_0030, // defi i0, 4, 0, 1, 0
        0xf00f_0000,
        4,
        0,
        1,
        0,
        0x0200_002f, // defb b1, true
        0xe00f_0801,
        1,
        0x0200_001f, // dcl_normal v1
        0x8000_0003,
        0x900f_0001,
        0x0200_001f, // dcl_texcoord2 o3.xy
        0x8002_0005,
        0xe003_0003,
        0x0200_001b, // loop aL, i0
        0xf0e4_0800,
        0xf0e4_0000,
        0x0400_0002, // add r0, v1, c4[aL]
        0x800f_0000,
        0x90e4_0001,
        0xa0e4_2004,
        0xf0e4_0800,
        0x0000_001d, // endloop
        0x1300_0001, // (p0.x) mov o3.xy, r0
        0xe003_0003,
        0xb000_1000,
        0x80e4_0000,
        0x0000_ffff,
    ]);
    assert_eq!(
        r.int_constants,
        vec![IntConstant {
            register: 0,
            values: [4, 0, 1, 0]
        }]
    );
    assert_eq!(
        r.bool_constants,
        vec![BoolConstant {
            register: 1,
            value: true
        }]
    );
    assert_eq!(r.inputs.len(), 1);
    assert_eq!(
        (r.inputs[0].usage, r.inputs[0].usage_index),
        (Some("normal"), 0)
    );
    assert_eq!(r.outputs.len(), 1);
    let o3 = r.outputs[0];
    assert_eq!(
        (o3.register, o3.num, o3.mask),
        (RegisterType::Output, 3, 0x3)
    );
    assert_eq!((o3.usage, o3.usage_index), (Some("texcoord"), 2));
    assert!(r.relative_addressing && r.predicates && !r.texkill);
    assert_eq!(used(&r, RegisterType::Const), (vec![4], vec![], true));
    assert_eq!(used(&r, RegisterType::Loop), (vec![0], vec![], false));
    assert_eq!(used(&r, RegisterType::ConstInt), (vec![0], vec![], false));
    assert_eq!(used(&r, RegisterType::Predicate), (vec![0], vec![], false));
    assert!(r.samplers.is_empty() && r.constant_table.is_none());
}

#[test]
fn ps_1_x_texture_instructions_sample_their_destination_stage() {
    // ps_1_1: tex t0; texbem t1, t0; texcoord t2; mov r0, t1.
    let r = reflect(&[
        0xffff_0101,
        0x0000_0042,
        0xb00f_0000,
        0x0000_0043,
        0xb00f_0001,
        0xb0e4_0000,
        0x0000_0040,
        0xb00f_0002,
        0x0000_0001,
        0x800f_0000,
        0xb0e4_0001,
        0x0000_ffff,
    ]);
    let stages: Vec<(u32, Option<TextureType>)> = r
        .samplers
        .iter()
        .map(|s| (s.register, s.texture_type))
        .collect();
    assert_eq!(
        stages,
        vec![(0, None), (1, None)],
        "texcoord samples nothing"
    );
    assert_eq!(
        used(&r, RegisterType::Texture),
        (vec![0, 1], vec![0, 1, 2], false)
    );
}

#[test]
fn dsx_and_vpos_vface() {
    // ps_3_0: dcl vPos.xy; dcl vFace; dsx r0, vPos.
    let r = reflect(&[
        0xffff_0300,
        0x0200_001f,
        0x8000_0000,
        0x9003_1000,
        0x0200_001f,
        0x8000_0000,
        0x900f_1001,
        0x0200_005b,
        0x800f_0000,
        0x90e4_1000,
        0x0000_ffff,
    ]);
    assert!(r.derivatives);
    let names: Vec<String> = r
        .inputs
        .iter()
        .map(|i| register_name(i.register, i.num))
        .collect();
    assert_eq!(names, ["vPos", "vFace"]);
    assert!(r.inputs.iter().all(|i| i.usage.is_none()));
}

#[test]
fn register_names_follow_fxc() {
    assert_eq!(register_name(RegisterType::RastOut, 1), "oFog");
    assert_eq!(register_name(RegisterType::Const2, 2), "c2050");
    assert_eq!(register_name(RegisterType::TexCrdOut, 7), "oT7");
    assert_eq!(register_name(RegisterType::Address, 0), "a0");
    assert_eq!(register_name(RegisterType::Predicate, 0), "p0");
}

/// Every stream of the D3D9 corpus reflects, and what the reflection says agrees with the
/// corpus index's `opcodes` column (written by the corpus scanner, not by this crate):
/// `texkill`, `dsx`/`dsy`, `setp`/`breakp` and the `def*` instructions appear exactly where the
/// index lists them; a compiled (CTAB-carrying) ps_2_0+ stream declares every sampler it reads.
#[test]
fn corpus_reflections_agree_with_the_index() {
    use crate::front::d3d9::corpus_tests::level9_program;
    let Some(dir) = crate::test_support::corpus_d3d9_dir() else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("index.tsv")).expect("index.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (file, origin, array, opcodes, ctab) = (
        col("file"),
        col("origin"),
        col("array"),
        col("opcodes"),
        col("ctab"),
    );
    let mut problems = Vec::new();
    let mut checked = 0;
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let bytes = std::fs::read(dir.join(f[file])).expect("corpus file");
        let (stream, base) = if f[origin] == "aon9" {
            level9_program(&bytes, f[array]).expect("level-9 program")
        } else {
            (bytes, 0)
        };
        let program = decode(&stream, base).expect("corpus streams decode");
        let r = Reflection::of(&program);
        let ops: Vec<&str> = f[opcodes].split(',').collect();
        let has = |name: &str| ops.contains(&name);
        let expect = [
            ("texkill", r.texkill, has("texkill")),
            ("dsx/dsy", r.derivatives, has("dsx") || has("dsy")),
            ("def", !r.float_constants.is_empty(), has("def")),
            ("defi", !r.int_constants.is_empty(), has("defi")),
            ("defb", !r.bool_constants.is_empty(), has("defb")),
        ];
        for (what, got, listed) in expect {
            if got != listed {
                problems.push(format!(
                    "{}: {what} reflected {got}, index {listed}",
                    f[file]
                ));
            }
        }
        if ops.iter().any(|o| o.starts_with("setp") || *o == "breakp") && !r.predicates {
            problems.push(format!("{}: setp/breakp without predicates", f[file]));
        }
        let compiled = f[ctab] == "y";
        if compiled && r.version.is_pixel() && r.version.major >= 2 {
            for s in r.samplers.iter().filter(|s| s.texture_type.is_none()) {
                problems.push(format!("{}: s{} read without dcl", f[file], s.register));
            }
        }
        assert_eq!(r.instructions, program.instructions.len());
        checked += 1;
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 1000, "{checked} streams");
}
