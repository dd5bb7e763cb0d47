//! Translation speed over a fixed set of the repository's own shaders, to catch regressions
//! (criterion; run with `cargo bench --bench translate`, see `docs/cli.md`).
//!
//! Contract: the set is every `fixtures/samples/*.dxbc` and every `fixtures/in/*.asm`
//! (assembled here, outside the timing), in sorted order, named `samples/<stem>` and
//! `asm/<stem>`. Each shader is translated with the default `Options` (checksum verified); a
//! shader whose SM5.1 ranges the default D3D11 layout cannot bind gets one binding per declared
//! range instead, as a D3D12 runtime builds from reflection (as `dxbc2spv bench` does). Three
//! groups time nested prefixes of the pipeline, so a regression can be placed by stage:
//!
//! - `decode`: container (checksum included), signatures and every instruction decoded;
//! - `to_ir`: `translate_to_ir` (decode, lowering, passes, IR validation);
//! - `translate`: `translate` (all of it, SPIR-V emission included).
//!
//! Setup panics name the fixture: the set is part of the repository, so a fixture that stops
//! assembling or translating is a bug to fix, not a shader to skip.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use dxbc2spv::bindings::{Bindings, TableBindings};
use dxbc2spv::front::dxbc::container::{Container, ParseOptions};
use dxbc2spv::text::dxbc::asm::assemble;
use dxbc2spv::text::dxbc::disasm::shader_program;
use dxbc2spv::{translate, translate_to_ir, Error, Options};

/// One shader of the set, ready to translate.
struct Fixture {
    /// `samples/<stem>` or `asm/<stem>`.
    name: String,
    /// The DXBC container.
    bytes: Vec<u8>,
    /// The default options, with bindings of the shader's own ranges where needed.
    options: Options,
}

/// The files ending in `.extension` in the repository folder `folder`, sorted.
fn files(folder: &str, extension: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    paths.sort();
    paths
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .unwrap_or_else(|| panic!("{} has no file name", path.display()))
        .to_string_lossy()
        .into_owned()
}

/// The set: the samples, then the assembled listings.
fn fixtures() -> Vec<Fixture> {
    let mut set = Vec::new();
    for path in files("fixtures/samples", "dxbc") {
        let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        set.push(fixture(format!("samples/{}", stem(&path)), bytes));
    }
    for path in files("fixtures/in", "asm") {
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let bytes = assemble(&text).unwrap_or_else(|e| {
            panic!("{}:{}:{}: {}", path.display(), e.line, e.column, e.message)
        });
        set.push(fixture(format!("asm/{}", stem(&path)), bytes));
    }
    assert!(!set.is_empty(), "no fixtures found");
    set
}

/// `bytes` with the options it translates under; panics when it does not translate.
fn fixture(name: String, bytes: Vec<u8>) -> Fixture {
    let mut options = Options::default();
    match translate(&bytes, &options) {
        Ok(_) => {}
        Err(Error::Binding { .. }) => {
            options.bindings = own_ranges(&bytes);
            if let Err(e) = translate(&bytes, &options) {
                panic!("{name} does not translate with its own ranges bound: {e}");
            }
        }
        Err(e) => panic!("{name} does not translate: {e}"),
    }
    Fixture {
        name,
        bytes,
        options,
    }
}

/// One binding per range the shader declares (counters too), in set 0.
fn own_ranges(bytes: &[u8]) -> Bindings {
    let container = Container::parse(bytes, &ParseOptions::default()).expect("container parses");
    let program = shader_program(&container).expect("program parses");
    let module = dxbc2spv::front::dxbc::lower::lower(&program).expect("program lowers");
    let table = TableBindings::one_binding_per_range(0, module.register_ranges());
    Bindings::Table(table.expect("ranges bind"))
}

/// The decoding work `translate` starts with: the container, its signatures and every
/// instruction. Returns a count so the work cannot be optimised away.
fn decode(bytes: &[u8]) -> usize {
    let Ok(container) = Container::parse(bytes, &ParseOptions::default()) else {
        return 0;
    };
    let signatures = [
        container.input_signature().map(|s| s.is_ok()),
        container.output_signature().map(|s| s.is_ok()),
        container.patch_constant_signature().map(|s| s.is_ok()),
    ];
    let Ok(program) = shader_program(&container) else {
        return 0;
    };
    let decoded = program.instructions().filter(Result::is_ok).count();
    decoded + signatures.iter().flatten().filter(|ok| **ok).count()
}

fn benchmarks(c: &mut Criterion) {
    let set = fixtures();
    let mut group = c.benchmark_group("decode");
    for f in &set {
        group.bench_function(&f.name, |b| b.iter(|| decode(black_box(&f.bytes))));
    }
    group.finish();
    let mut group = c.benchmark_group("to_ir");
    for f in &set {
        group.bench_function(&f.name, |b| {
            b.iter(|| translate_to_ir(black_box(&f.bytes), &f.options).is_ok())
        });
    }
    group.finish();
    let mut group = c.benchmark_group("translate");
    for f in &set {
        group.bench_function(&f.name, |b| {
            b.iter(|| translate(black_box(&f.bytes), &f.options).map_or(0, |t| t.spirv.len()))
        });
    }
    group.finish();
}

criterion_group!(benches, benchmarks);
criterion_main!(benches);
