//! The ps_1_x model's lowering, checked against D3D9's documented rules: each expected
//! listing is written from the instruction's reference formula (temps: `r0`.. are the `r#`,
//! then the eight ps_1_1–1_3 `t#`, then the per-instruction scratch temps).

use crate::ir;
use crate::text::d3d9::asm;

/// The instruction lines of the lowered listing `text` (declarations left out), without their
/// byte offsets.
fn lowered(text: &str) -> Vec<String> {
    let program = asm::parse(text).expect("assembles");
    let (module, _) = super::lower(&program, Vec::new()).expect("lowers");
    ir::print(&module)
        .lines()
        .filter_map(|l| l.split_once(":   ").map(|(_, i)| i.to_owned()))
        .collect()
}

/// The error message of lowering `text`.
fn refused(text: &str) -> String {
    let program = asm::parse(text).expect("assembles");
    match super::lower(&program, Vec::new()) {
        Ok(_) => panic!("lowered: {text}"),
        Err(e) => e.to_string(),
    }
}

const ONE: &str = "l(0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000)";
const ZERO: &str = "l(0x00000000, 0x00000000, 0x00000000, 0x00000000)";

fn check(text: &str, expected: &[&str]) {
    let expected: Vec<String> = expected
        .iter()
        .map(|l| l.replace("ONE", ONE).replace("ZERO", ZERO))
        .collect();
    assert_eq!(lowered(text), expected, "{text}");
}

#[test]
fn texcoord_clamps_the_coordinates_and_sets_w_to_one() {
    check(
        "ps_1_1\ntexcoord t0\nmov r0, t0\n",
        &[
            "mov_sat r9.xyz, v[0].xyzw",
            "mov r9.w, ONE",
            "mov r1.xyzw, r9.xyzw",
            "mov r0.xyzw, r1.xyzw",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn tex_samples_the_stage_of_its_register_at_its_coordinates() {
    // tex t2: sampler 2 at TEXCOORD2 into t2 (temp 1 + 2).
    check(
        "ps_1_1\ntex t2\nmov r0, t2\n",
        &[
            "sample r9.xyzw, v[2].xyzw, t#0.xyzw, s#0.xyzw",
            "mov r3.xyzw, r9.xyzw",
            "mov r0.xyzw, r3.xyzw",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn texreg2_reads_alpha_red_green_blue_and_rgb() {
    check(
        "ps_1_2\ntex t0\ntexreg2ar t1, t0\ntexreg2gb t2, t0\ntexreg2rgb t3, t0\nmov r0, t3\n",
        &[
            "sample r9.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "mov r1.xyzw, r9.xyzw",
            // (t0.a, t0.r) at stage 1; (t0.g, t0.b) at stage 2; t0.rgb at stage 3.
            "sample r9.xyzw, r1.wxxx, t#1.xyzw, s#1.xyzw",
            "mov r2.xyzw, r9.xyzw",
            "sample r9.xyzw, r1.yzzz, t#2.xyzw, s#2.xyzw",
            "mov r3.xyzw, r9.xyzw",
            "sample r9.xyzw, r1.xyzz, t#3.xyzw, s#3.xyzw",
            "mov r4.xyzw, r9.xyzw",
            "mov r0.xyzw, r4.xyzw",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn texbeml_perturbs_by_the_bump_matrix_and_scales_by_the_luminance() {
    // u' = u + M00 du + M10 dv, v' = v + M01 du + M11 dv with (M00, M01, M10, M11) = 0 (the
    // default state); t1 = sample × (t0.b × scale + offset), scale = offset = 0.
    check(
        "ps_1_1\ntex t0\ntexbeml t1, t0\nmov r0, t1\n",
        &[
            "sample r9.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "mov r1.xyzw, r9.xyzw",
            "mov r9.xyzw, v[1].xyzw",
            "mad_legacy r9.xy, r1.xxxx, ZERO, r9.xyzw",
            "mad_legacy r9.xy, r1.yyyy, ZERO, r9.xyzw",
            "sample r10.xyzw, r9.xyzw, t#1.xyzw, s#1.xyzw",
            "mad_legacy r11.xyzw, r1.zzzz, ZERO, ZERO",
            "mul_legacy r10.xyzw, r10.xyzw, r11.xyzw",
            "mov r2.xyzw, r10.xyzw",
            "mov r0.xyzw, r2.xyzw",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn texm3x2depth_writes_z_over_w_and_one_when_w_is_zero() {
    check(
        "ps_1_3\ntex t0\ntexm3x2pad t1, t0\ntexm3x2depth t2, t0\nmov r0, t2\n",
        &[
            "sample r9.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "mov r1.xyzw, r9.xyzw",
            // z = TEXCOORD1 · t0.rgb
            "dp3_legacy r9.xyzw, v[1].xyzw, r1.xyzw",
            "mov r2.xyzw, r9.xyzw",
            // w = TEXCOORD2 · t0.rgb; depth = w == 0 ? 1 : z / w
            "mov r9.xyzw, r2.xxxx",
            "dp3_legacy r9.y, v[2].xyzw, r1.xyzw",
            "div r10.xyzw, r9.xxxx, r9.yyyy",
            "eq r9.z, r9.yyyy, ZERO",
            "movc r10.xyzw, r9.zzzz, ONE, r10.xyzw",
            "mov_sat oDepth.x, r10.xxxx",
            "mov r3.xyzw, r10.xyzw",
            "mov r0.xyzw, r3.xyzw",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn texm3x3vspec_reflects_the_eye_vector_from_the_coordinates_w() {
    check(
        "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3vspec t3, t0\nmov r0, t3\n",
        &[
            "sample r9.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "mov r1.xyzw, r9.xyzw",
            "dp3_legacy r9.xyzw, v[1].xyzw, r1.xyzw",
            "mov r2.xyzw, r9.xyzw",
            "dp3_legacy r9.xyzw, v[2].xyzw, r1.xyzw",
            "mov r3.xyzw, r9.xyzw",
            // N = (pad 1, pad 2, TEXCOORD3 · t0.rgb)
            "mov r9.x, r2.xxxx",
            "mov r9.y, r3.xxxx",
            "dp3_legacy r9.z, v[3].xyzw, r1.xyzw",
            "mov r9.w, ONE",
            // E = (TEXCOORD1.w, TEXCOORD2.w, TEXCOORD3.w)
            "mov r10.x, v[1].wwww",
            "mov r10.y, v[2].wwww",
            "mov r10.z, v[3].wwww",
            // R = 2 (N·E) / (N·N) N − E
            "dp3_legacy r11.x, r9.xyzw, r10.xyzw",
            "dp3_legacy r11.y, r9.xyzw, r9.xyzw",
            "div r11.x, r11.xxxx, r11.yyyy",
            "add r11.x, r11.xxxx, r11.xxxx",
            "mad_legacy r11.xyz, r11.xxxx, r9.xyzw, -r10.xyzw",
            "sample r12.xyzw, r11.xyzw, t#1.xyzw, s#1.xyzw",
            "mov r4.xyzw, r12.xyzw",
            "mov r0.xyzw, r4.xyzw",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn texm3x3spec_reads_the_eye_vector_from_the_clamped_constant() {
    let lines = lowered(
        "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3spec t3, t0, c0\nmov r0, t3\n",
    );
    let clamp = [
        "max r10.xyzw, cb#0[0].xyzw, l(0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000)",
        "min r10.xyzw, r10.xyzw, l(0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000)",
    ];
    assert!(lines.windows(2).any(|w| w == clamp), "{lines:#?}");
    assert!(lines.contains(&"dp3_legacy r11.x, r9.xyzw, r10.xyzw".to_owned()));
    assert!(lines.contains(&"mad_legacy r11.xyz, r11.xxxx, r9.xyzw, -r10.xyzw".to_owned()));
}

#[test]
fn texdp3tex_samples_at_the_dot_product_and_texdp3_replicates_it() {
    check(
        "ps_1_3\ntex t0\ntexdp3tex t1, t0\ntexdp3 t2, t0\nmov r0, t2\n",
        &[
            "sample r9.xyzw, v[0].xyzw, t#0.xyzw, s#0.xyzw",
            "mov r1.xyzw, r9.xyzw",
            "mov r9.xyzw, ZERO",
            "dp3_legacy r9.x, v[1].xyzw, r1.xyzw",
            "sample r10.xyzw, r9.xyzw, t#1.xyzw, s#1.xyzw",
            "mov r2.xyzw, r10.xyzw",
            "dp3_legacy r9.xyzw, v[2].xyzw, r1.xyzw",
            "mov r3.xyzw, r9.xyzw",
            "mov r0.xyzw, r3.xyzw",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn ps_1_4_texcrd_texld_bem_and_texdepth() {
    // t# are texture coordinates (no temps): scratch starts after r0–r5.
    check(
        "ps_1_4\ntexcrd r0.xyz, t0\ntexld r1, t1\ntexld r2, t2_dz\nbem r3.xy, r0, r1\n\
         phase\ntexld r3, r3\ntexdepth r5\nmov r0, r3\n",
        &[
            // texcrd: no clamping.
            "mov r0.xyz, v[0].xyzw",
            // texld r1, t1: stage 1 (the destination's number).
            "sample r6.xyzw, v[1].xyzw, t#0.xyzw, s#0.xyzw",
            "mov r1.xyzw, r6.xyzw",
            // _dz: x, y divided by z.
            "mov r6.xyzw, v[2].xyzw",
            "div r6.xy, v[2].xyzw, v[2].zzzz",
            "sample r7.xyzw, r6.xyzw, t#1.xyzw, s#1.xyzw",
            "mov r2.xyzw, r7.xyzw",
            // bem: r0.xy + stage 3's matrix × r1.xy.
            "mad_legacy r6.xy, r1.xxxx, ZERO, r0.xyzw",
            "mad_legacy r6.xy, r1.yyyy, ZERO, r6.xyzw",
            "mov r3.xy, r6.xyzw",
            // Phase 2: a dependent read of stage 3 at r3.
            "sample r6.xyzw, r3.xyzw, t#2.xyzw, s#2.xyzw",
            "mov r3.xyzw, r6.xyzw",
            // texdepth: r5.r / r5.g, 1 when r5.g = 0.
            "div r6.x, r5.xxxx, r5.yyyy",
            "eq r6.y, r5.yyyy, ZERO",
            "movc r6.x, r6.yyyy, ONE, r6.xxxx",
            "mov_sat oDepth.x, r6.xxxx",
            "mov r0.xyzw, r3.xyzw",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn coissued_instructions_read_before_either_writes() {
    // The second reads r0.r as it was before the first wrote r0.rgb.
    check(
        "ps_1_1\nadd r0.rgb, r0, v0\n+add r0.a, r0.r, v0.a\n",
        &[
            "mov r1.xyzw, r0.xyzw",
            "add r0.xyz, r0.xyzw, v[8].xyzw",
            "add r0.w, r1.xxxx, v[8].wwww",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
    // No copy when the second does not read what the first writes (`v#` is input 8 + #).
    check(
        "ps_1_1\nadd r0.rgb, v1, v0\n+add r0.a, v1.a, v0.a\n",
        &[
            "add r0.xyz, v[9].xyzw, v[8].xyzw",
            "add r0.w, v[9].wwww, v[8].wwww",
            "mov o[0].xyzw, r0.xyzw",
            "ret",
        ],
    );
}

#[test]
fn texm3x3diff_and_a_pad_less_matrix_are_refused() {
    assert!(refused("ps_1_1\ntex t0\ntexm3x3diff t1, t0\nmov r0, t1\n").contains("texm3x3diff"));
    assert!(refused("ps_1_1\ntex t0\ntexm3x2tex t0, t0\nmov r0, t0\n").contains("pad before it"));
}

/// Every ps_1_x stream of the corpus and every ps_1_x fixture: (name, stream bytes).
fn ps1_streams() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let fixtures = crate::test_support::fixtures_dir().join("d3d9");
    let mut names: Vec<_> = std::fs::read_dir(&fixtures)
        .expect("fixtures/d3d9")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "asm")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("ps_1_"))
        })
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).expect("read fixture");
        let bytes = asm::assemble_bytes(&text).expect("assembles");
        out.push((path.display().to_string(), bytes));
    }
    if let Some(dir) = crate::test_support::corpus_d3d9_dir() {
        let text = std::fs::read_to_string(dir.join("index.tsv")).expect("index.tsv");
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
        let col = |n: &str| header.iter().position(|h| *h == n).expect("column");
        let (file, stage, version) = (col("file"), col("stage"), col("version"));
        for row in lines.map(|l| l.split('\t').collect::<Vec<_>>()) {
            if row[stage] == "ps" && row[version].starts_with("1_") {
                let bytes = std::fs::read(dir.join(row[file])).expect("corpus stream");
                out.push((row[file].to_owned(), bytes));
            }
        }
    }
    out
}

#[test]
fn every_ps_1_x_stream_lowers_and_translates_to_valid_spirv() {
    use crate::spv::tests::tools;
    let options = crate::Options::default();
    let (mut valid, mut legacy) = (0, 0);
    let mut failures = Vec::new();
    for (name, bytes) in ps1_streams() {
        let program = match crate::front::d3d9::decode(&bytes, 0) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}: decode: {e}"));
                continue;
            }
        };
        if program
            .instructions
            .iter()
            .any(|i| i.opcode == crate::front::d3d9::opcodes::Opcode::Texm3x3diff)
        {
            // Reserved; refused by name (`texm3x3diff_and_a_pad_less_matrix_are_refused`).
            continue;
        }
        if let Err(e) = super::lower(&program, Vec::new()) {
            failures.push(format!("{name}: lower: {e}"));
            continue;
        }
        match crate::translate(&bytes, &options) {
            Ok(t) => match tools::is_valid(&t.spirv, "vulkan1.1") {
                Some(false) => failures.push(format!("{name}: spirv-val rejects it")),
                _ => valid += 1,
            },
            // The legacy float operations are refused by the back end until it emits them.
            Err(e) if e.to_string().contains("the D3D9 operation") => legacy += 1,
            Err(e) => failures.push(format!("{name}: translate: {e}")),
        }
    }
    eprintln!(
        "ps_1_x: {valid} translated (spirv-val when installed), {legacy} wait for the legacy ops"
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
