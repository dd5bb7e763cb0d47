//! `fixtures/malformed/`: crafted bad inputs and the exact message each must fail with (see
//! `fixtures/malformed/README.md` for the format).
//!
//! Contract checked here:
//! - every `<name>.dxbc` in the folder has an entry in `expected.toml`, and every entry a file;
//! - every `src/<name>.asm` rebuilds (our assembler, then the `// @` directives) to exactly the
//!   committed `<name>.dxbc` (`BLESS=1` rewrites the `.dxbc` files instead of comparing);
//! - every `[translate]` entry fails [`crate::translate`] with default options, every
//!   `[translate_d3d11]` entry with the D3D11 binding layout (`Bindings::D3d11`), and every
//!   `[disassemble]` entry fails [`crate::text::dxbc::disasm::disassemble`] (comment header on), with
//!   exactly the expected `Display` text, which starts `at 0x<offset>` inside the file;
//! - the folder holds at least 50 cases.
//!
//! Directives (comment lines of the source, applied in this order after assembling): `@patch AT
//! VALUE` writes a little-endian dword; `@truncate AT` cuts the bytes; `@fix-size` rewrites the
//! container's total size to the length; the checksum is then recomputed unless
//! `@keep-checksum`. `AT` (and `VALUE`) is a number (decimal or `0x` hex), or an anchor plus or
//! minus a number: `program` (the program chunk's version token), `body` (its first
//! instruction), `end` (the length), `table` (the chunk table, 32) or a chunk code (`ISGN`,
//! `RDEF`, ...: the chunk's data, after its 8-byte header), as found in the container before
//! patching.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::front::dxbc::container::{Container, ParseOptions};
use crate::test_support::fixtures_dir;

/// Which API a case goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Api {
    /// `translate` with `Options::default()`.
    Translate,
    /// `translate` with the D3D11 binding layout (space 0, single registers).
    TranslateD3d11,
    /// `disasm::disassemble` with `disasm::Options::default()` (comment header included).
    Disassemble,
}

/// One manifest entry.
#[derive(Clone, Debug)]
struct Case {
    api: Api,
    expected: String,
}

fn dir() -> PathBuf {
    fixtures_dir().join("malformed")
}

/// Reads a TOML basic string (`"..."` with `\\` and `\"` escapes) at the start of `text`.
fn basic_string(text: &str) -> Result<String, String> {
    let mut chars = text
        .strip_prefix('"')
        .ok_or("value is not a \"string\"")?
        .chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let rest: String = chars.collect();
                let rest = rest.trim();
                if rest.is_empty() || rest.starts_with('#') {
                    return Ok(out);
                }
                return Err(format!("text after the string: {rest}"));
            }
            '\\' => match chars.next() {
                Some(e @ ('\\' | '"')) => out.push(e),
                other => return Err(format!("unsupported escape \\{other:?}")),
            },
            c => out.push(c),
        }
    }
    Err("unterminated string".into())
}

/// Parses `expected.toml`: `[translate]` and `[disassemble]` tables of `name = "message"`.
fn manifest(text: &str) -> Result<BTreeMap<String, Case>, String> {
    let mut api = None;
    let mut cases = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        let fail = |e: String| format!("expected.toml line {}: {e}", n + 1);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line {
            "[translate]" => api = Some(Api::Translate),
            "[translate_d3d11]" => api = Some(Api::TranslateD3d11),
            "[disassemble]" => api = Some(Api::Disassemble),
            _ => {
                let (name, value) = line
                    .split_once('=')
                    .ok_or_else(|| fail("expected name = \"message\"".into()))?;
                let api = api.ok_or_else(|| fail("entry before [translate]".into()))?;
                let name = name.trim().to_string();
                let expected = basic_string(value.trim()).map_err(fail)?;
                if cases.insert(name.clone(), Case { api, expected }).is_some() {
                    return Err(fail(format!("{name} is listed twice")));
                }
            }
        }
    }
    Ok(cases)
}

fn number(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|_| format!("not a number: {text}"))
}

/// Resolves an `AT` operand against the unpatched container.
fn position(at: &str, anchors: &BTreeMap<String, u64>) -> Result<usize, String> {
    let (anchor, sign, delta) = match at.find(['+', '-']) {
        Some(i) => (&at[..i], &at[i..=i], number(&at[i + 1..])?),
        None => (at, "+", 0),
    };
    let base = match anchors.get(anchor) {
        Some(&b) => b,
        None if !anchor.is_empty() && anchor.bytes().all(|b| b.is_ascii_digit()) => number(anchor)?,
        None if anchor.starts_with("0x") => number(anchor)?,
        None => return Err(format!("unknown anchor {anchor}")),
    };
    let value = if sign == "+" {
        base.checked_add(delta)
    } else {
        base.checked_sub(delta)
    };
    value
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(|| format!("{at} is out of range"))
}

/// The anchors of an assembled container.
fn anchors(bytes: &[u8]) -> Result<BTreeMap<String, u64>, String> {
    let c = Container::parse(bytes, &ParseOptions::default()).map_err(|e| e.to_string())?;
    let mut out = BTreeMap::new();
    out.insert("end".to_string(), bytes.len() as u64);
    out.insert("table".to_string(), 32);
    for chunk in &c.chunks {
        out.entry(chunk.fourcc.to_string())
            .or_insert(u64::from(chunk.offset));
    }
    if let Some(program) = c.shader_chunk() {
        out.insert("program".into(), u64::from(program.offset));
        out.insert("body".into(), u64::from(program.offset) + 8);
    }
    Ok(out)
}

/// Assembles a case's source and applies its directives.
fn build(source: &str) -> Result<Vec<u8>, String> {
    let mut bytes = crate::text::dxbc::asm::assemble(source).map_err(|e| e.to_string())?;
    let anchors = anchors(&bytes)?;
    let (mut fix_size, mut keep_checksum) = (false, false);
    for line in source.lines() {
        let Some(directive) = line.trim().strip_prefix("// @") else {
            continue;
        };
        let words: Vec<&str> = directive.split_whitespace().collect();
        match words.as_slice() {
            ["patch", at, value] => {
                let at = position(at, &anchors)?;
                let value = u32::try_from(position(value, &anchors)?).map_err(|e| e.to_string())?;
                bytes
                    .get_mut(at..at + 4)
                    .ok_or_else(|| format!("@patch {at} is past the end"))?
                    .copy_from_slice(&value.to_le_bytes());
            }
            ["truncate", at] => bytes.truncate(position(at, &anchors)?),
            ["fix-size"] => fix_size = true,
            ["keep-checksum"] => keep_checksum = true,
            _ => return Err(format!("unknown directive: {line}")),
        }
    }
    if fix_size && bytes.len() >= 28 {
        let len = bytes.len() as u32;
        bytes[24..28].copy_from_slice(&len.to_le_bytes());
    }
    if !keep_checksum && bytes.len() >= 20 {
        let sum = crate::front::dxbc::checksum::compute(&bytes);
        bytes[4..20].copy_from_slice(&sum);
    }
    Ok(bytes)
}

/// The `Display` text of the error `case` must fail with, or why it did not fail.
/// The options of a `translate` case.
fn options(api: Api) -> crate::Options {
    let options = crate::Options::default();
    match api {
        Api::TranslateD3d11 => options.with_bindings(crate::bindings::Bindings::D3d11(
            crate::bindings::D3d11Bindings::default(),
        )),
        _ => options,
    }
}

fn run(bytes: &[u8], api: Api) -> Result<String, String> {
    match api {
        Api::Translate | Api::TranslateD3d11 => match crate::translate(bytes, &options(api)) {
            Ok(_) => Err("translated".into()),
            Err(e) => {
                let offset = e.offset().ok_or("error without an offset")?;
                if offset as usize > bytes.len() {
                    return Err(format!("offset past the end: {e}"));
                }
                Ok(e.to_string())
            }
        },
        Api::Disassemble => {
            match crate::text::dxbc::disasm::disassemble(bytes, &Default::default()) {
                Ok(_) => Err("disassembled".into()),
                Err(e) => Ok(e.to_string()),
            }
        }
    }
}

fn files(dir: &Path, ext: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(ext).map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

fn read_manifest() -> BTreeMap<String, Case> {
    let path = dir().join("expected.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    manifest(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn malformed_inputs_are_rebuilt_from_their_sources() {
    let names = files(&dir().join("src"), ".asm");
    let problems = crate::test_support::rebuilt_from_sources(
        &dir(),
        &names,
        ("asm", "dxbc"),
        &read_manifest(),
        build,
    );
    assert!(
        problems.is_empty(),
        "run with BLESS=1 to rewrite the inputs:\n{}",
        problems.join("\n")
    );
}

#[test]
fn malformed_inputs_fail_with_their_messages() {
    let cases = read_manifest();
    let on_disk = files(&dir(), ".dxbc");
    let mut problems = Vec::new();
    for name in &on_disk {
        if !cases.contains_key(name) {
            problems.push(format!("{name}.dxbc is not in expected.toml"));
        }
    }
    for (name, case) in &cases {
        let path = dir().join(format!("{name}.dxbc"));
        let Ok(bytes) = std::fs::read(&path) else {
            problems.push(format!("{name}: no {name}.dxbc"));
            continue;
        };
        match run(&bytes, case.api) {
            Ok(got) if got == case.expected => {}
            Ok(got) => problems.push(format!(
                "{name}:\n  expected: {}\n  got:      {got}",
                case.expected
            )),
            Err(why) => problems.push(format!("{name}: {why}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(cases.len() >= 50, "only {} cases", cases.len());
}

#[test]
fn manifest_and_directive_syntax() {
    let m = manifest(
        "# comment\n[translate]\na = \"at 0x0: \\\"q\\\" \\\\\" # note\n[disassemble]\nb = \"x\"\n",
    )
    .expect("parses");
    assert_eq!(m["a"].expected, "at 0x0: \"q\" \\");
    assert_eq!(m["a"].api, Api::Translate);
    assert_eq!(m["b"].api, Api::Disassemble);
    assert!(manifest("a = \"x\"\n").is_err(), "entry outside a table");
    assert!(manifest("[translate]\na = \"x\n").is_err(), "unterminated");
    assert!(
        manifest("[translate]\na = \"x\"\na = \"y\"\n").is_err(),
        "twice"
    );

    let anchors: BTreeMap<String, u64> = [("body".to_string(), 60), ("end".to_string(), 100)]
        .into_iter()
        .collect();
    assert_eq!(position("body+8", &anchors), Ok(68));
    assert_eq!(position("end-0x4", &anchors), Ok(96));
    assert_eq!(position("24", &anchors), Ok(24));
    assert_eq!(position("0x1c", &anchors), Ok(28));
    assert!(position("body-100", &anchors).is_err());
    assert!(position("nowhere", &anchors).is_err());

    let text =
        "// @patch body 0x12345678\n// @keep-checksum\ncs_5_0\ndcl_thread_group 1, 1, 1\nret\n";
    let plain = crate::text::dxbc::asm::assemble(text).expect("assembles");
    let patched = build(text).expect("builds");
    let body = anchors_of(&plain, "body");
    assert_eq!(&patched[body..body + 4], &[0x78, 0x56, 0x34, 0x12]);
    assert_eq!(patched[4..20], plain[4..20], "checksum kept");
    let recomputed = build(&text.replace("// @keep-checksum\n", "")).expect("builds");
    assert_ne!(recomputed[4..20], plain[4..20], "checksum recomputed");
    assert!(build("// @frobnicate\ncs_5_0\nret\n").is_err());
}

fn anchors_of(bytes: &[u8], name: &str) -> usize {
    anchors(bytes).expect("anchors")[name] as usize
}
