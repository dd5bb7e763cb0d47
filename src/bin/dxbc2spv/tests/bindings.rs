//! Tests of `translate --bindings` and `--root-signature`: the default (`auto`), the named
//! layouts, binding table files (TOML and JSON, and a bad one), and root signature files.

use std::fs;

use super::{path_str, ps51_sample, run, TempDir};
use crate::commands::Status;

/// The `Binding` decorations of a SPIR-V module, in order (`OpDecorate %id Binding n`).
fn bindings_of(spv: &[u8]) -> Vec<u32> {
    let words: Vec<u32> = spv
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut out = Vec::new();
    let mut i = 5;
    while let Some(&first) = words.get(i) {
        let (count, opcode) = ((first >> 16) as usize, first & 0xffff);
        // OpDecorate (71) with decoration Binding (33).
        if opcode == 71 && count == 4 && words.get(i + 2) == Some(&33) {
            out.extend(words.get(i + 3));
        }
        i += count.max(1);
    }
    out
}

/// `cs_5_0` writing `u0` and `u1`, assembled into `tmp`.
fn cs_two_uavs(tmp: &TempDir) -> String {
    let asm = tmp.file(
        "cs.asm",
        b"cs_5_0\ndcl_uav_raw u0\ndcl_uav_raw u1\ndcl_thread_group 1, 1, 1\n\
          store_raw u0.x, l(0), l(7)\nstore_raw u1.x, l(0), l(8)\nret\n",
    );
    let dxbc = path_str(&tmp.path("cs.dxbc"));
    assert_eq!(run(&["asm", &asm, "-o", &dxbc]).status, Status::Success);
    dxbc
}

/// The sample's unbounded `T0[0:*]` in space 1 needs the default; `d3d11` refuses it.
#[test]
fn translate_binds_register_spaces_by_default_and_d3d11_refuses_them() {
    let tmp = TempDir::new("bindings-default");
    let sample = ps51_sample();
    for how in [None, Some("auto"), Some("spaces")] {
        let out = path_str(&tmp.path("ps.spv"));
        let mut args = vec!["translate", &sample, "-o", &out];
        if let Some(how) = how {
            args.extend(["--bindings", how]);
        }
        let r = run(&args);
        assert_eq!(r.status, Status::Success, "{how:?}: {}", r.stderr);
        // `T0[0:*]` space1 is t0 of set 1: binding 32.
        let spv = fs::read(tmp.path("ps.spv")).expect("written");
        assert!(bindings_of(&spv).contains(&32), "{how:?}");
        fs::remove_file(tmp.path("ps.spv")).expect("remove");
    }
    let out = path_str(&tmp.path("ps.spv"));
    let r = run(&["translate", &sample, "-o", &out, "--bindings", "d3d11"]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(r.stderr.contains("is not mapped"), "{}", r.stderr);
    assert!(!tmp.path("ps.spv").exists());
}

/// A table file maps `u0`; the shader that also uses `u1` fails alone, and nothing is written
/// for it, while the other input is translated.
#[test]
fn translate_takes_a_binding_table_in_toml_or_json() {
    let tmp = TempDir::new("bindings-table");
    let cs = cs_two_uavs(&tmp);
    let one = tmp.file(
        "cs1.asm",
        b"cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\nstore_raw u0.x, l(0), l(7)\nret\n",
    );
    let cs1 = path_str(&tmp.path("cs1.dxbc"));
    assert_eq!(run(&["asm", &one, "-o", &cs1]).status, Status::Success);
    let toml = tmp.file(
        "table.toml",
        b"[[range]]\nkind = \"u\"\nfirst = 0\nset = 2\nbinding = 5\n",
    );
    let json = tmp.file(
        "table.json",
        br#"{"range": [{"kind": "u", "space": 0, "first": 0, "count": 1, "set": 2, "binding": 5}]}"#,
    );
    for table in [&toml, &json] {
        let out = tmp.path("out");
        let _ = fs::remove_dir_all(&out);
        let dir = path_str(&out);
        let r = run(&[
            "translate",
            &cs,
            &cs1,
            "--out-dir",
            &dir,
            "--bindings",
            table,
        ]);
        assert_eq!(r.status, Status::InputsFailed, "{table}");
        assert!(
            r.stderr.contains("cs.dxbc: ") && r.stderr.contains("u1 space0 is not mapped"),
            "{}",
            r.stderr
        );
        assert!(
            !out.join("cs.spv").exists(),
            "nothing written for the failed input"
        );
        let spv = fs::read(out.join("cs1.spv")).expect("the other input was translated");
        assert_eq!(bindings_of(&spv), [5], "{table}");
    }
}

/// A bad table file fails the run before any input, naming the file, the line and the field;
/// nothing is written.
#[test]
fn a_bad_binding_table_names_the_file_the_line_and_the_field() {
    let tmp = TempDir::new("bindings-bad");
    let cs = cs_two_uavs(&tmp);
    let cases: [(&str, &[u8], &[&str]); 4] = [
        (
            "bad.toml",
            b"[[range]]\nkind = \"u\"\nfirst = \"zero\"\nset = 0\nbinding = 0\n",
            &["bad.toml", "line 3", "first"],
        ),
        (
            "missing.toml",
            b"[[range]]\nkind = \"u\"\nfirst = 0\nset = 0\n",
            &["missing.toml", "line 1", "binding"],
        ),
        (
            "kind.json",
            b"{\"range\": [\n  {\"kind\": \"x\", \"first\": 0, \"set\": 0, \"binding\": 0}\n]}",
            &["kind.json", "line 2", "unknown variant `x`"],
        ),
        (
            "overlap.toml",
            b"[[range]]\nkind = \"t\"\nfirst = 0\ncount = 4\nset = 0\nbinding = 0\n\
              [[range]]\nkind = \"t\"\nfirst = 2\nset = 0\nbinding = 1\n",
            &["overlap.toml", "t0..t3 space0 and t2 space0, which overlap"],
        ),
    ];
    for (name, text, expected) in cases {
        let file = tmp.file(name, text);
        let dir = path_str(&tmp.path("out"));
        let r = run(&["translate", &cs, "--out-dir", &dir, "--bindings", &file]);
        assert_eq!(r.status, Status::InputsFailed, "{name}");
        for e in expected {
            assert!(r.stderr.contains(e), "{name}: {e:?} in {}", r.stderr);
        }
        assert!(!tmp.path("out/cs.spv").exists(), "{name}: nothing written");
    }
}

/// A serialized root signature (version 1.0) with one root UAV `u0`, visible to all stages.
fn root_uav_u0() -> Vec<u8> {
    // Header: version 1, 1 parameter at 24, 0 static samplers at 44, flags 0; the parameter:
    // type 4 (UAV), visibility ALL, descriptor at 36: register 0, space 0.
    [1u32, 1, 24, 0, 44, 0, 4, 0, 36, 0, 0]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

/// `--root-signature` binds by the root signature: `u0` is root binding 0 of set 0, `u1` is
/// not in it.
#[test]
fn translate_takes_a_root_signature_file() {
    let tmp = TempDir::new("bindings-rts0");
    let cs = cs_two_uavs(&tmp);
    let one = tmp.file(
        "cs1.asm",
        b"cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\nstore_raw u0.x, l(0), l(7)\nret\n",
    );
    let cs1 = path_str(&tmp.path("cs1.dxbc"));
    assert_eq!(run(&["asm", &one, "-o", &cs1]).status, Status::Success);
    let rs = tmp.file("root.rs", &root_uav_u0());
    let dir = path_str(&tmp.path("out"));
    let r = run(&[
        "translate",
        &cs,
        &cs1,
        "--out-dir",
        &dir,
        "--root-signature",
        &rs,
    ]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(r.stderr.contains("u1 space0 is not mapped"), "{}", r.stderr);
    let spv = fs::read(tmp.path("out/cs1.spv")).expect("written");
    assert_eq!(bindings_of(&spv), [0]);

    let bad = tmp.file("bad.rs", b"not a root signature");
    let r = run(&[
        "translate",
        &cs1,
        "--out-dir",
        &dir,
        "--root-signature",
        &bad,
    ]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(r.stderr.contains("bad.rs: "), "{}", r.stderr);
    let r = run(&[
        "translate",
        &cs1,
        "--out-dir",
        &dir,
        "--root-signature",
        &rs,
        "--bindings",
        "d3d11",
    ]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.contains("leave out --bindings d3d11"),
        "{}",
        r.stderr
    );
}

/// `reflect --json` gives each range the binding `translate` would use: by the default layout
/// (set = space; `b` from 0, `s` from 16, `t` from 32; an unbounded range a runtime array), and
/// under `--bindings d3d11`, which cannot bind space 1, the reason instead.
#[test]
fn reflect_json_shows_the_vulkan_binding_of_each_range() {
    let sample = ps51_sample();
    let vulkan = |extra: &[&str]| {
        let mut args = vec!["reflect", "--json", &sample];
        args.extend(extra);
        let r = run(&args);
        assert_eq!(r.status, Status::Success, "{}", r.stderr);
        r.stdout
    };
    let default = vulkan(&[]);
    for (register, set, binding, count) in [
        ("CB0[0:0]", 0, 0, "1"),
        ("S0[0:0]", 0, 16, "1"),
        ("T0[0:*]", 1, 32, "null"),
    ] {
        let expected = format!("\"register\":\"{register}\",\"id\":0,\"space\":{set},");
        let at = default
            .find(&expected)
            .unwrap_or_else(|| panic!("{register}: {default}"));
        let binding_json = format!(
            "\"vulkan\":{{\"set\":{set},\"binding\":{binding},\"array_offset\":0,\"descriptor_count\":{count}}}"
        );
        let next = default[at..].find("\"vulkan\"").expect("a binding") + at;
        assert!(
            default[next..].starts_with(&binding_json),
            "{register}: {default}"
        );
    }
    assert!(!default.contains("bindings_error"), "{default}");
    let d3d11 = vulkan(&["--bindings", "d3d11"]);
    assert!(!d3d11.contains("\"vulkan\""), "{d3d11}");
    assert!(
        d3d11.contains("\"bindings_error\":\"at ") && d3d11.contains("is not mapped"),
        "{d3d11}"
    );
}
