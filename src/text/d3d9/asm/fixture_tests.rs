//! The hand-written D3D9 fixtures (`fixtures/d3d9/*.asm`, fxc syntax, written for these tests)
//! assemble, every instruction exists in the fixture's profile, the streams round-trip through
//! the decoder and the encoder, and together they use every opcode of the table.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::parse;
use crate::front::d3d9::decode;
use crate::front::d3d9::opcodes::Opcode;
use crate::text::d3d9::encode::encode_bytes;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/d3d9");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/d3d9")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "asm"))
        .collect();
    out.sort();
    out
}

#[test]
fn fixtures_assemble_and_round_trip_through_decode_and_encode() {
    let files = fixtures();
    assert!(files.len() >= 7, "{} fixtures", files.len());
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let text = std::fs::read_to_string(path).expect("read fixture");
        let program = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let profile = program.version.profile();
        assert!(name.starts_with(&profile), "{name} is not {profile}");
        let (pixel, key) = (program.version.is_pixel(), program.version.key());
        for inst in &program.instructions {
            assert!(
                inst.opcode.form(pixel, key).is_some(),
                "{name}: {} does not exist in {profile}",
                inst.opcode.name()
            );
        }
        let bytes = encode_bytes(&program).expect("encodes");
        let decoded = decode(&bytes, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(decoded, program, "{name}: decode(encode(x)) != x");
        assert_eq!(encode_bytes(&decoded).expect("encodes"), bytes, "{name}");
    }
}

#[test]
fn fixtures_cover_every_opcode_and_profile() {
    let mut used = BTreeSet::new();
    let mut profiles = BTreeSet::new();
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).expect("read fixture");
        let program = parse(&text).expect("assembles");
        profiles.insert(program.version.profile());
        used.extend(program.instructions.iter().map(|i| i.opcode));
    }
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .filter(|op| !used.contains(*op))
        .map(|op| op.name())
        .collect();
    assert!(missing.is_empty(), "no fixture uses {missing:?}");
    for p in [
        "vs_1_1", "ps_1_1", "ps_1_4", "vs_2_0", "ps_2_0", "vs_3_0", "ps_3_0",
    ] {
        assert!(profiles.contains(p), "no {p} fixture");
    }
}
