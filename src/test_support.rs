//! Helpers shared by the in-crate test suites: locating the real-shader corpus and fixtures.
//!
//! The corpus lives outside the repository at `../shared/corpus` (or `$DXBC2SPV_CORPUS`). Tests that
//! use it print a clear line when it is absent; with `CI=true` its absence is a failure.

use std::path::{Path, PathBuf};

/// Checks every `<dir>/<name>.<out_ext>` against what `build` makes of
/// `<dir>/src/<name>.<src_ext>` for each of `names` (with `BLESS=1`, writes it instead): the
/// fixture inputs that are built from text. Each source needs an entry in `cases`. Returns the
/// problems.
pub fn rebuilt_from_sources<V>(
    dir: &Path,
    names: &[String],
    (src_ext, out_ext): (&str, &str),
    cases: &std::collections::BTreeMap<String, V>,
    build: impl Fn(&str) -> Result<Vec<u8>, String>,
) -> Vec<String> {
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let mut problems = Vec::new();
    for name in names {
        let source_path = dir.join("src").join(format!("{name}.{src_ext}"));
        let source = std::fs::read_to_string(&source_path).expect("source");
        if !cases.contains_key(name) {
            problems.push(format!("{name}: source without an entry in expected.toml"));
        }
        let bytes = match build(&source) {
            Ok(b) => b,
            Err(e) => {
                problems.push(format!("{}: {e}", source_path.display()));
                continue;
            }
        };
        let path = dir.join(format!("{name}.{out_ext}"));
        if bless {
            std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        } else if std::fs::read(&path).ok() != Some(bytes) {
            problems.push(format!("{name}.{out_ext} differs from its source"));
        }
    }
    problems
}

/// The corpus folder, if present. Prints why when it is absent, and panics under `CI=true`.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("DXBC2SPV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("index.tsv").is_file() {
        return Some(dir);
    }
    let msg = format!(
        "corpus absent: {} has no index.tsv; corpus tests did not run",
        dir.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg} (CI=true requires it)");
    }
    eprintln!("{msg}");
    None
}

/// The Direct3D 9 corpus folder (`../shared/corpus-d3d9` or `$DXBC2SPV_CORPUS_D3D9`), if
/// present. Prints why when it is absent, and panics under `CI=true`.
#[allow(dead_code)]
pub fn corpus_d3d9_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("DXBC2SPV_CORPUS_D3D9")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-d3d9"));
    if dir.join("index.tsv").is_file() {
        return Some(dir);
    }
    let msg = format!(
        "D3D9 corpus absent: {} has no index.tsv; D3D9 corpus tests did not run",
        dir.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg} (CI=true requires it)");
    }
    eprintln!("{msg}");
    None
}

/// Every `.dxbc` file in the corpus (sorted), or an empty list when the corpus is absent.
pub fn corpus_blobs() -> Vec<PathBuf> {
    let Some(dir) = corpus_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    collect(&dir, &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "dxbc") {
            out.push(path);
        }
    }
}

#[allow(dead_code)]
/// True for corpus files under `_other/` (containers that are not SM4/5 programs).
pub fn is_other(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "_other")
}

#[allow(dead_code)]
/// The repository's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every `_other/*.bin` container in the corpus (sorted): DXIL, effects, root-signature blobs.
pub fn other_blobs() -> Vec<PathBuf> {
    let Some(dir) = corpus_dir() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir.join("_other")) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    out.sort();
    out
}

/// True when `index.tsv` marks the blob's stored checksum as wrong (`checksum` = `bad`).
pub fn has_bad_checksum(path: &Path) -> bool {
    bad_checksum_files().iter().any(|p| p == path)
}

/// The corpus blobs whose stored checksum `index.tsv` marks as `bad` (read once, then cached).
pub fn bad_checksum_files() -> &'static [PathBuf] {
    static CACHE: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    CACHE.get_or_init(read_bad_checksum_files)
}

fn read_bad_checksum_files() -> Vec<PathBuf> {
    let Some(dir) = corpus_dir() else {
        return Vec::new();
    };
    let Ok(index) = std::fs::read_to_string(dir.join("index.tsv")) else {
        return Vec::new();
    };
    let mut lines = index.lines();
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let Some(col) = header.split('\t').position(|c| c == "checksum") else {
        return Vec::new();
    };
    lines
        .filter(|l| l.split('\t').nth(col) == Some("bad"))
        .filter_map(|l| l.split('\t').next())
        .map(|f| dir.join(f))
        .collect()
}

/// fxc's listing beside a corpus blob (`<name>.asm` next to `<name>.dxbc`), if there is one.
pub fn asm_listing(blob: &Path) -> Option<String> {
    let bytes = std::fs::read(blob.with_extension("asm")).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A DXBC container holding `chunks` in order, with a correct size and checksum.
pub fn build_container(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"DXBC");
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    let mut offset = 32 + 4 * chunks.len();
    for (_, data) in chunks {
        out.extend_from_slice(&(offset as u32).to_le_bytes());
        offset += 8 + data.len();
    }
    for (fourcc, data) in chunks {
        out.extend_from_slice(*fourcc);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
    }
    let len = out.len() as u32;
    out[24..28].copy_from_slice(&len.to_le_bytes());
    let sum = crate::front::dxbc::checksum::compute(&out);
    out[4..20].copy_from_slice(&sum);
    out
}

// Hand-built chunks for unit tests of the container, RDEF and header code.

/// A little-endian byte builder with back-patching, for hand-built chunks.
#[derive(Default)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    /// The current length: the offset of the next byte.
    pub fn pos(&self) -> u32 {
        self.0.len() as u32
    }
    /// Appends a u16.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Appends a u32.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Overwrites the u32 at `at`.
    pub fn patch(&mut self, at: u32, v: u32) {
        self.0[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
    }
    /// Appends a nul-terminated string; returns its offset.
    pub fn str(&mut self, s: &str) -> u32 {
        let at = self.pos();
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        at
    }
}

/// An SM5 `RDEF`: `cbuffer cb { float4 a = 1.0f.xxxx; struct S { float x; uint2 y; } s[2]; }`
/// with `s` unused, bound at cb2, and a `Texture2D<float4> tex` at t1.
pub fn sample_rdef() -> Vec<u8> {
    let mut b = Bytes::default();
    b.u32(1).u32(60).u32(2).u32(0); // cbuffers at 60, bindings patched below
    b.0.extend_from_slice(&[0, 5]);
    b.u16(0xffff).u32(0).u32(0); // creator patched below
    b.0.extend_from_slice(b"RD11");
    for v in [60, 24, 32, 40, 36, 12, 0] {
        b.u32(v);
    }
    // Constant buffer (24 bytes at 60).
    b.u32(0).u32(2).u32(84).u32(96).u32(0).u32(0);
    // Variables (40 bytes each at 84 and 124).
    for (offset, size, flags) in [(0, 16, 2), (16, 48, 0)] {
        b.u32(0).u32(offset).u32(size).u32(flags).u32(0).u32(0);
        b.u32(u32::MAX).u32(0).u32(u32::MAX).u32(0);
    }
    // Types (36 bytes each): float4 at 164, S at 200, float at 236, uint2 at 272.
    let types = [
        (1u16, 3u16, 4u16, 0u16, 0u16),
        (5, 0, 3, 2, 2),
        (0, 3, 1, 0, 0),
        (1, 19, 2, 0, 0),
    ];
    for (class, base, columns, elements, members) in types {
        for v in [class, base, 1, columns, elements, members] {
            b.u16(v);
        }
        for _ in 0..6 {
            b.u32(0);
        }
    }
    // Members of S (12 bytes each at 308).
    b.u32(0).u32(236).u32(0);
    b.u32(0).u32(272).u32(4);
    // Bindings (32 bytes each at 332).
    let bindings = b.pos();
    // name, input type, return type, dimension, samples, bind point, bind count, flags
    for v in [0, 0, 0, 0, 0, 2, 1, 0, 0, 2, 5, 4, u32::MAX, 1, 1, 12] {
        b.u32(v);
    }
    b.patch(12, bindings);
    // Default value of `a`.
    let default = b.pos();
    for _ in 0..4 {
        b.u32(0x3f80_0000);
    }
    b.patch(84 + 20, default);
    for (at, s) in [
        (60, "cb"),
        (84, "a"),
        (124, "s"),
        (308, "x"),
        (320, "y"),
        (bindings, "cb"),
        (bindings + 32, "tex"),
    ] {
        let name = b.str(s);
        b.patch(at, name);
    }
    for (at, s) in [(164, "float4"), (200, "S"), (236, "float"), (272, "uint2")] {
        let name = b.str(s);
        b.patch(at + 32, name);
    }
    for (var, ty) in [(84, 164), (124, 200)] {
        b.patch(var + 16, ty);
    }
    b.patch(200 + 12, 308);
    let creator = b.str("Microsoft (R) HLSL Shader Compiler 10.1");
    b.patch(24, creator);
    b.0
}

/// A signature chunk: (name, index, system value, component type, register, mask, rw mask).
pub fn signature_chunk(elements: &[(&str, u32, u32, u32, u32, u8, u8)]) -> Vec<u8> {
    let mut b = Bytes::default();
    b.u32(elements.len() as u32).u32(8);
    for &(_, index, sv, ty, reg, mask, rw) in elements {
        b.u32(0).u32(index).u32(sv).u32(ty).u32(reg);
        b.0.extend_from_slice(&[mask, rw, 0, 0]);
    }
    for (i, (name, ..)) in elements.iter().enumerate() {
        let at = b.str(name);
        b.patch(8 + 24 * i as u32, at);
    }
    b.0
}

/// A pixel-shader container: [`sample_rdef`], an input and an output signature (with
/// `SV_Depth`), an `SFI0` with minimum precision, and an 8-byte `SHEX` (`ps_5_0`).
pub fn sample_container() -> Vec<u8> {
    let rdef = sample_rdef();
    let isgn = signature_chunk(&[
        ("TEXCOORD", 0, 0, 3, 0, 0b0011, 0b0011),
        ("SV_Position", 0, 1, 3, 1, 0xf, 0),
    ]);
    let osgn = signature_chunk(&[
        ("SV_Target", 0, 0, 3, 0, 0xf, 0),
        ("SV_Depth", 0, 0, 3, u32::MAX, 1, 0xe),
    ]);
    let sfi0 = 0x10u64.to_le_bytes();
    let shex = [0x50, 0, 0, 0, 2, 0, 0, 0];
    build_container(&[
        (b"RDEF", &rdef),
        (b"ISGN", &isgn),
        (b"OSGN", &osgn),
        (b"SHEX", &shex),
        (b"SFI0", &sfi0),
    ])
}

/// The container the DXBC assembler makes of fxc-syntax `text` (panics when it does not
/// assemble: test inputs are ours). Tests of a layer below the facade get their input through
/// here and the facade's `translate`/`translate_to_ir`, never by naming another layer.
pub fn assemble(text: &str) -> Vec<u8> {
    crate::text::dxbc::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The stage of a DXBC blob's program, as the IR names it; `None` when it does not decode (the
/// checksum is not checked).
pub fn dxbc_stage(bytes: &[u8]) -> Option<crate::ir::Stage> {
    use crate::front::dxbc::{container::Container, ParseOptions};
    let options = ParseOptions {
        verify_checksum: false,
    };
    let container = Container::parse(bytes, &options).ok()?;
    let program = crate::front::dxbc::shader_program(&container).ok()?;
    crate::front::dxbc::lower::ir_stage(program.version.stage)
}
