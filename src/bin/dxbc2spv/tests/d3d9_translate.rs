//! `translate`, `reflect` and `bench` on Direct3D 9 token streams: recognised by the version
//! token whatever the extension (and found in directories by extension or by that token),
//! translated with the default parameters to modules `spirv-val` accepts, reflected with the
//! translation's bindings and locations.

use std::fs;

use dxbc2spv::text::d3d9::asm::assemble_bytes;

use super::{path_str, run, TempDir};
use crate::commands::Status;

/// vs_2_0 without legacy float operations: position and one texture coordinate passed on.
const VS: &str = "vs_2_0\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0.xy, v1\n";

/// ps_2_0 sampling s0 at t0 and adding the float constant c1.
const PS: &str = "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nadd r0, r0, c1\nmov oC0, r0\n";

fn stream(text: &str) -> Vec<u8> {
    assemble_bytes(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

/// A stream under an extension no command searches for is still translated when named, and
/// the module passes `spirv-val` (`--validate`).
#[test]
fn translate_takes_a_d3d9_stream_whatever_its_extension() {
    let tmp = TempDir::new("d3d9-translate");
    let input = tmp.file("shader.bin", &stream(PS));
    let out = tmp.path("shader.spv");
    let r = run(&["translate", &input, "-o", &path_str(&out), "--validate"]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    assert!(r.stdout.contains("spirv-val ok"), "{}", r.stdout);
    let words = fs::read(&out).expect("module written");
    assert_eq!(words.get(..4), Some(&[0x03, 0x02, 0x23, 0x07][..]), "magic");
}

/// A directory: `.vso`/`.pso`/`.d3d9` files, and a file of any other name that starts with a
/// D3D9 version token, are translated; other files are left alone; the per-stage summary
/// counts the vertex and pixel shaders.
#[test]
fn translate_finds_d3d9_streams_in_directories() {
    let tmp = TempDir::new("d3d9-translate-dir");
    tmp.file("in/a.vso", &stream(VS));
    tmp.file("in/b.pso", &stream(PS));
    tmp.file("in/sub/c.d3d9", &stream(PS));
    tmp.file("in/sub/d.shader", &stream(VS));
    tmp.file("in/notes.txt", b"not a shader");
    // Starts like a version token but too short to hold one: not picked up.
    tmp.file("in/short.dat", &[0xff, 0xff]);
    let (input, out) = (path_str(&tmp.path("in")), path_str(&tmp.path("out")));
    let r = run(&["translate", &input, "--out-dir", &out, "--validate"]);
    assert_eq!(r.status, Status::Success, "{}\n{}", r.stdout, r.stderr);
    for written in ["a.spv", "b.spv", "sub/c.spv", "sub/d.spv"] {
        assert!(tmp.path("out").join(written).is_file(), "{written}");
    }
    assert!(!tmp.path("out/notes.spv").exists());
    assert!(!tmp.path("out/short.spv").exists());
    // The summary's rows: stage, files, ok, unsupported, failed.
    let row = |stage: &str| -> Vec<String> {
        let line = r
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(stage));
        line.unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(row("vs"), ["vs", "2", "2", "0", "0"], "{}", r.stdout);
    assert_eq!(row("ps"), ["ps", "2", "2", "0", "0"], "{}", r.stdout);
}

/// An empty directory names what was searched for, D3D9 streams included.
#[test]
fn translate_says_what_an_empty_directory_lacked() {
    let tmp = TempDir::new("d3d9-translate-empty");
    tmp.file("in/notes.txt", b"text");
    let r = run(&["translate", &path_str(&tmp.path("in"))]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr
            .contains(".pso files (nor any Direct3D 9 token stream) found"),
        "{}",
        r.stderr
    );
}

/// A stream the decoder refuses fails with its byte offset; the run goes on.
#[test]
fn translate_reports_a_bad_d3d9_stream_with_its_offset() {
    let tmp = TempDir::new("d3d9-translate-bad");
    let mut cut = stream(PS);
    cut.truncate(cut.len() - 4); // no end token
    let bad = tmp.file("in/cut.pso", &cut);
    tmp.file("in/good.pso", &stream(PS));
    let r = run(&["translate", &path_str(&tmp.path("in"))]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(r.stderr.contains(&format!("{bad}: at 0x")), "{}", r.stderr);
    assert!(r.stderr.contains("1 of 2 inputs failed"), "{}", r.stderr);
}

/// `reflect` prints the translation's bindings (the float constants as `b0`, the texture and
/// sampler of `s0`) and locations (TEXCOORD0 at location 0, D3D9's fixed rule) beside what the
/// stream declares.
#[test]
fn reflect_shows_the_translation_of_a_d3d9_stream() {
    let tmp = TempDir::new("d3d9-reflect-bound");
    let ps = tmp.file("ps.pso", &stream(PS));
    let r = run(&["reflect", &ps]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    let text = &r.stdout;
    let section = text
        .split("  translation (default parameters):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no translation section: {text}"));
    let line = |prefix: &str| {
        section
            .lines()
            .find(|l| l.trim_start().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} line: {section}"))
            .to_owned()
    };
    assert!(line("b0 ").contains("constant_buffer"), "{section}");
    assert!(line("b0 ").contains("uniform_buffer"), "{section}");
    assert!(line("s0 ").contains("sampler"), "{section}");
    assert!(line("t0 ").contains("sampled_image"), "{section}");
    assert!(line("TEXCOORD0").contains("location 0"), "{section}");
    // oC0: render target 0, no usage.
    assert!(line("- ").contains("location 0"), "{section}");

    let vs = tmp.file("vs.vso", &stream(VS));
    let r = run(&["reflect", "--json", &vs]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).expect("one JSON line");
    let t = &v["translation"];
    assert_eq!(t["bindings"].as_array().map(Vec::len), Some(0), "{v}");
    // VS inputs: location = the v# register.
    assert_eq!(t["inputs"][0]["usage"], "POSITION", "{v}");
    assert_eq!(t["inputs"][0]["location"], 0, "{v}");
    assert_eq!(t["inputs"][1]["usage"], "TEXCOORD", "{v}");
    assert_eq!(t["inputs"][1]["location"], 1, "{v}");
    // oT0 is TEXCOORD0, location 0; the SM1/2 colour outputs COLOR0/1 are at 16/17 (written
    // with their defaults when the shader does not); oPos is the position built-in.
    let outputs = t["outputs"].as_array().expect("outputs");
    let output = |usage: &str, index: u32| {
        outputs
            .iter()
            .find(|o| o["usage"] == usage && o["usage_index"] == index)
            .unwrap_or_else(|| panic!("no {usage}{index}: {v}"))
    };
    assert_eq!(output("TEXCOORD", 0)["location"], 0, "{v}");
    assert_eq!(output("COLOR", 0)["location"], 16, "{v}");
    assert_eq!(output("COLOR", 1)["location"], 17, "{v}");
    assert_eq!(output("POSITION", 0)["built_in"], "Position", "{v}");
    assert!(output("POSITION", 0)["location"].is_null(), "{v}");
    assert!(v["translation_error"].is_null(), "{v}");
}

/// A stream the translation refuses still reflects, with the reason.
#[test]
fn reflect_gives_the_reason_a_d3d9_stream_does_not_translate() {
    let tmp = TempDir::new("d3d9-reflect-refused");
    // A call to a label the stream never defines.
    let ps = tmp.file("call.pso", &stream("ps_2_0\ncall l3\nmov oC0, c0\nret\n"));
    let r = run(&["reflect", "--json", &ps]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).expect("one JSON line");
    assert!(v["translation"].is_null(), "{v}");
    assert!(
        v["translation_error"]
            .as_str()
            .is_some_and(|e| e.contains("l3")),
        "{v}"
    );
    let r = run(&["reflect", &ps]);
    assert!(
        r.stdout
            .contains("  translation: does not translate: at 0x"),
        "{}",
        r.stdout
    );
}

/// `bench` measures D3D9 streams too, grouped as D3D9 vertex and pixel shaders.
#[test]
fn bench_measures_d3d9_streams() {
    let tmp = TempDir::new("d3d9-bench");
    tmp.file("in/a.vso", &stream(VS));
    tmp.file("in/b.pso", &stream(PS));
    let r = run(&["bench", &path_str(&tmp.path("in")), "--rounds", "2"]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    assert!(r.stdout.contains("d3d9 vs: 1 files, 1 ok"), "{}", r.stdout);
    assert!(r.stdout.contains("d3d9 ps: 1 files, 1 ok"), "{}", r.stdout);
    let last = r.stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("bench: 2 files, 2 ok, mean_us "), "{last}");
}
