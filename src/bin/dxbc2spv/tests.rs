//! Tests of the command line: argument parsing through clap, then the commands run in-process
//! with stdout and stderr captured. Inputs are containers built here (always available) and, when
//! present, blobs of the real-shader corpus at `../shared/corpus` (or `$DXBC2SPV_CORPUS`).

use std::fs;
use std::path::{Path, PathBuf};

use clap::Parser;
use dxbc2spv::front::dxbc::FourCc;
use dxbc2spv::text::dxbc::disasm::Dialect;
use dxbc2spv::text::dxbc::encode::write_container;

use crate::args::{Cli, Command};
use crate::commands::{self, Status};

/// What one run of the tool produced.
struct Run {
    status: Status,
    stdout: String,
    stderr: String,
}

/// Runs `dxbc2spv ARGS...` in-process; panics on a usage error.
fn run(args: &[&str]) -> Run {
    let argv = std::iter::once("dxbc2spv")
        .chain(args.iter().copied())
        .map(std::ffi::OsString::from);
    let cli = Cli::try_parse_from(crate::args::with_default_command(argv))
        .unwrap_or_else(|e| panic!("usage error for {args:?}: {e}"));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = commands::run(&cli.command, &mut out, &mut err, false).expect("writing to a Vec");
    Run {
        status,
        stdout: String::from_utf8(out).expect("UTF-8 stdout"),
        stderr: String::from_utf8(err).expect("UTF-8 stderr"),
    }
}

/// The exit code clap gives `dxbc2spv ARGS...`, which must be a usage error.
fn usage_error_code(args: &[&str]) -> i32 {
    match Cli::try_parse_from(std::iter::once("dxbc2spv").chain(args.iter().copied())) {
        Ok(cli) => panic!("{args:?} parsed: {cli:?}"),
        Err(e) => e.exit_code(),
    }
}

/// A fresh, empty directory under the system's temp dir, removed when dropped. Each one is
/// unique within the process (a counter), so tests running in parallel never share one even
/// when they pick the same name.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let serial = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "dxbc2spv-cli-{}-{serial}-{name}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create temp dir");
        Self(dir)
    }

    /// Writes `bytes` to `relative` (creating folders) and returns the path as a string.
    fn file(&self, relative: &str, bytes: &[u8]) -> String {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().expect("parent")).expect("create folders");
        fs::write(&path, bytes).expect("write input");
        path_str(&path)
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.0.join(relative)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn path_str(path: &Path) -> String {
    path.to_str().expect("UTF-8 temp path").to_string()
}

/// A container holding `chunks`, with a correct size and checksum (the library's own writer).
fn container(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let chunks: Vec<(FourCc, &[u8])> = chunks.iter().map(|(f, d)| (FourCc(**f), *d)).collect();
    write_container(&chunks).expect("container")
}

/// `ps_5_0` whose only instruction is `ret`, plus an 8-byte `STAT` chunk.
fn ps_ret() -> Vec<u8> {
    let program: Vec<u8> = [0x50u32, 3, 0x0100_003e]
        .iter()
        .flat_map(|d| d.to_le_bytes())
        .collect();
    container(&[(b"SHEX", &program), (b"STAT", &[0; 8])])
}

const GARBAGE: &[u8] = b"this is not a DXBC container at all";

/// The corpus folder, when present; says so when absent, and fails under `CI=true`.
fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("DXBC2SPV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("index.tsv").is_file() {
        return Some(dir);
    }
    let msg = format!(
        "corpus absent: {} has no index.tsv; the CLI corpus tests did not run",
        dir.display()
    );
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "{msg} (CI=true requires it)"
    );
    eprintln!("{msg}");
    None
}

/// A corpus blob with a good checksum, an `RDEF` chunk and a program, from `index.tsv`:
/// its path, its version line (`vs_4_0`) and its instruction count.
fn corpus_blob() -> Option<(String, String, String)> {
    let dir = corpus_dir()?;
    let index = fs::read_to_string(dir.join("index.tsv")).expect("read index.tsv");
    let mut lines = index.lines();
    let header: Vec<&str> = lines.next().expect("index header").split('\t').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("index.tsv has no {name} column"))
    };
    let (file, stage, model, chunks, sum, count) = (
        column("file"),
        column("stage"),
        column("model"),
        column("chunks"),
        column("checksum"),
        column("instructions"),
    );
    let row = lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|r| {
            r[sum] == "ok"
                && r[stage] != "lib"
                && r[chunks].split(',').any(|c| c == "RDEF")
                && !r[file].starts_with("_other/")
        })
        .expect("a usable corpus blob");
    Some((
        path_str(&dir.join(row[file])),
        format!("{}_{}", row[stage], row[model]),
        row[count].to_string(),
    ))
}

#[test]
fn disasm_of_one_file_prints_the_listing() {
    let tmp = TempDir::new("one");
    let good = tmp.file("good.dxbc", &ps_ret());
    let r = run(&["disasm", &good]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert!(
        r.stdout.contains("ps_5_0\n") && r.stdout.ends_with("ret\n"),
        "{}",
        r.stdout
    );
    assert_eq!(r.stderr, "");

    let r = run(&["disasm", "--no-header", &good]);
    assert_eq!(r.stdout, "ps_5_0\nret\n");
}

#[test]
fn disasm_of_a_corpus_blob_prints_its_version_line() {
    let Some((blob, version, _)) = corpus_blob() else {
        return;
    };
    let r = run(&["disasm", &blob]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert!(
        r.stdout.lines().any(|l| l == version),
        "no `{version}` line in the listing of {blob}:\n{}",
        r.stdout
    );
}

#[test]
fn disasm_reports_a_bad_input_and_still_writes_the_others() {
    let tmp = TempDir::new("garbage");
    let garbage = tmp.file("garbage.dxbc", GARBAGE);
    let good = tmp.file("good.dxbc", &ps_ret());
    let out = tmp.path("out");
    let mut args = vec!["disasm", &garbage, &good];
    let corpus = corpus_blob();
    if let Some((blob, _, _)) = &corpus {
        args.push(blob);
    }
    let out_arg = path_str(&out);
    args.extend(["--out-dir", &out_arg]);
    let r = run(&args);

    assert_eq!(r.status, Status::InputsFailed);
    assert_eq!(r.status.exit_code(), 1);
    assert_eq!(r.stdout, "");
    let first = r.stderr.lines().next().expect("an error line");
    assert!(
        first.starts_with(&format!(
            "{garbage}: at 0x0 (container header): not a DXBC container"
        )),
        "{}",
        r.stderr
    );
    let total = args.len() - 3;
    assert!(r
        .stderr
        .ends_with(&format!("dxbc2spv: 1 of {total} inputs failed\n")));
    assert!(!out.join("garbage.asm").exists());
    let listing = fs::read_to_string(out.join("good.asm")).expect("good.asm written");
    assert!(listing.contains("ps_5_0\n"), "{listing}");
    if let Some((blob, version, _)) = corpus {
        let stem = Path::new(&blob)
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let listing = fs::read_to_string(out.join(format!("{stem}.asm"))).expect("corpus .asm");
        assert!(listing.lines().any(|l| l == version), "{listing}");
    }
}

#[test]
fn disasm_labels_several_listings_on_stdout() {
    let tmp = TempDir::new("labels");
    let a = tmp.file("a.dxbc", &ps_ret());
    let b = tmp.file("b.cso", &ps_ret());
    let r = run(&["disasm", "--no-header", &a, &b]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert_eq!(
        r.stdout,
        format!("==> {a} <==\nps_5_0\nret\n\n==> {b} <==\nps_5_0\nret\n")
    );
}

#[test]
fn disasm_walks_directories_and_mirrors_them_in_the_out_dir() {
    let tmp = TempDir::new("walk");
    tmp.file("in/a/x.dxbc", &ps_ret());
    tmp.file("in/b/x.DXBC", &ps_ret());
    tmp.file("in/b/c/y.cso", &ps_ret());
    tmp.file("in/notes.txt", b"not an input");
    tmp.file("in/bad.dxbc", GARBAGE);
    let (input, out) = (path_str(&tmp.path("in")), path_str(&tmp.path("out")));
    let r = run(&["disasm", &input, "--out-dir", &out]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr
            .contains("bad.dxbc: at 0x0 (container header): not a DXBC container"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.ends_with("1 of 4 inputs failed\n"), "{}", r.stderr);
    for written in ["a/x.asm", "b/x.asm", "b/c/y.asm"] {
        let text = fs::read_to_string(tmp.path("out").join(written)).expect(written);
        assert!(text.ends_with("ret\n"), "{written}: {text}");
    }
    assert!(!tmp.path("out/notes.asm").exists());

    let empty = tmp.path("empty");
    fs::create_dir_all(&empty).expect("mkdir");
    let r = run(&["disasm", &path_str(&empty)]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.contains(
            "no .dxbc, .cso, .d3d9, .vso or .pso files (nor any Direct3D 9 token stream) \
                 found in this directory"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn disasm_refuses_to_overwrite_an_output_it_wrote() {
    let tmp = TempDir::new("collide");
    let first = tmp.file("one/x.dxbc", &ps_ret());
    let second = tmp.file("two/x.cso", &ps_ret());
    let out = path_str(&tmp.path("out"));
    let r = run(&["disasm", &first, &second, "--out-dir", &out]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.starts_with(&format!("{second}: output ")) && r.stderr.contains(&first),
        "{}",
        r.stderr
    );
}

#[test]
fn disasm_checks_the_checksum_unless_told_not_to() {
    let tmp = TempDir::new("checksum");
    let mut bytes = ps_ret();
    *bytes.last_mut().expect("bytes") ^= 1;
    let bad = tmp.file("bad.dxbc", &bytes);
    let r = run(&["disasm", &bad]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.starts_with(&format!(
            "{bad}: at 0x4 (container header): checksum mismatch"
        )),
        "{}",
        r.stderr
    );
    let r = run(&["disasm", "--no-checksum", &bad]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
}

#[test]
fn missing_input_names_its_path() {
    let tmp = TempDir::new("missing");
    let missing = path_str(&tmp.path("missing.dxbc"));
    for command in ["disasm", "info"] {
        let r = run(&[command, &missing]);
        assert_eq!(r.status, Status::InputsFailed);
        assert!(
            r.stderr.starts_with(&format!("{missing}: cannot read: ")),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn usage_errors_exit_with_2() {
    assert_eq!(usage_error_code(&["disasm"]), 2);
    assert_eq!(
        usage_error_code(&["disasm", "--dialect", "fxc11", "x.dxbc"]),
        2
    );
    assert_eq!(usage_error_code(&["frobnicate"]), 2);
    assert_eq!(usage_error_code(&[]), 2);
    assert_eq!(Status::Success.exit_code(), 0);
    for (name, dialect) in [
        ("auto", None),
        ("fxc10.1", Some(Dialect::Fxc10_1)),
        ("fxc10.0", Some(Dialect::Fxc10_0)),
        ("d3dcompiler47", Some(Dialect::D3dCompiler47)),
        ("fxc9.30", Some(Dialect::Fxc9_30)),
        ("fxc9.29", Some(Dialect::Fxc9_29)),
    ] {
        let cli = Cli::try_parse_from(["dxbc2spv", "disasm", "--dialect", name, "x.dxbc"])
            .expect("parses");
        let Command::Disasm(args) = cli.command else {
            panic!("not disasm");
        };
        assert_eq!(Option::<Dialect>::from(args.dialect), dialect);
    }
}

#[test]
fn info_lists_chunks_and_program() {
    let tmp = TempDir::new("info");
    let good = tmp.file("good.dxbc", &ps_ret());
    let garbage = tmp.file("garbage.dxbc", GARBAGE);
    let r = run(&["info", &garbage, &good]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.starts_with(&format!(
            "{garbage}: at 0x0 (container header): not a DXBC container"
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.starts_with(&format!("{good}\n  size: 76 bytes\n")),
        "{}",
        r.stdout
    );
    for line in [
        "    SHEX  at 0x0028  12 bytes\n",
        "    STAT  at 0x003c  8 bytes\n",
        "  program: ps_5_0 (SHEX), 1 instruction\n",
    ] {
        assert!(r.stdout.contains(line), "no {line:?} in\n{}", r.stdout);
    }
    assert!(r
        .stdout
        .lines()
        .any(|l| l.starts_with("  checksum: ") && l.ends_with(" (ok)")));

    let r = run(&["info", "--json", &good]);
    assert_eq!(r.status, Status::Success);
    assert_eq!(r.stdout.lines().count(), 1);
    for part in [
        "\"checksum_ok\":true",
        "{\"fourcc\":\"SHEX\",\"offset\":40,\"size\":12}",
        "\"program\":{\"chunk\":\"SHEX\",\"version\":\"ps_5_0\",\"instructions\":1}",
        "\"resources\":null",
    ] {
        assert!(r.stdout.contains(part), "no {part} in {}", r.stdout);
    }
}

#[test]
fn info_shows_the_level9_part() {
    let tmp = TempDir::new("info-level9");
    let aon9 = commands::info::tests::aon9();
    let bytes = write_container(&[(FourCc::AON9, &aon9[..])]).expect("container");
    let file = tmp.file("level9.dxbc", &bytes);
    let r = run(&["info", &file]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    let part = "  level 9 (Aon9): vs_2_0, program vs_2_x, 16 bytes at 0x0070\n\
                \x20   c1..c4 <- cb0[0..3] (FLT, FLT, FLT, FLT)\n";
    assert!(r.stdout.contains(part), "{}", r.stdout);
    let r = run(&["info", "--json", &file]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    let part = "\"level9\":[{\"chunk\":\"Aon9\",\"offset\":36,\"version\":\"vs_2_0\"";
    assert!(r.stdout.contains(part), "{}", r.stdout);
}

#[test]
fn info_of_a_corpus_blob_names_its_chunks() {
    let Some((blob, version, instructions)) = corpus_blob() else {
        return;
    };
    let r = run(&["info", &blob]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    for part in [
        "    RDEF  at ".to_string(),
        format!("  program: {version} ("),
        format!("), {instructions} instruction"),
        "  creator: ".to_string(),
    ] {
        assert!(r.stdout.contains(&part), "no {part:?} in\n{}", r.stdout);
    }
}

/// The README's quick-start command, `disasm fixtures/samples`, once the samples exist.
#[test]
fn quick_start_disassembles_the_samples() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples");
    if !samples.is_dir() {
        eprintln!(
            "{} is absent; the quick-start check did not run",
            samples.display()
        );
        return;
    }
    let r = run(&["disasm", &path_str(&samples)]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert!(r.stdout.starts_with("==> "), "{}", r.stdout);
}

/// The README's main command: translate the compute sample and validate it.
#[test]
fn translate_writes_a_valid_module_for_the_compute_sample() {
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/cs50_structured_tgsm.dxbc");
    let tmp = TempDir::new("translate");
    let out = tmp.path("cs.spv");
    let r = run(&[
        "translate",
        &path_str(&sample),
        "-o",
        &path_str(&out),
        "--validate",
    ]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert!(r.stdout.contains("spirv-val ok"), "{}", r.stdout);
    let bytes = std::fs::read(&out).expect("the module was written");
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes(), "SPIR-V magic");
    // `translate` is the default command when the first argument is a file.
    let out2 = tmp.path("cs2.spv");
    let r = run(&[&path_str(&sample), "-o", &path_str(&out2)]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert_eq!(std::fs::read(&out2).expect("written"), bytes);
}

/// `--float-emulation` is parsed; a DXBC shader (no D3D9 float operations) is the same module
/// whichever is chosen.
#[test]
fn float_emulation_leaves_dxbc_modules_unchanged() {
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/cs50_structured_tgsm.dxbc");
    let tmp = TempDir::new("translate-float-emulation");
    let mut modules = Vec::new();
    for mode in ["strict", "fast"] {
        let out = tmp.path(&format!("cs-{mode}.spv"));
        let r = run(&[
            "translate",
            &path_str(&sample),
            "-o",
            &path_str(&out),
            "--float-emulation",
            mode,
        ]);
        assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
        modules.push(std::fs::read(&out).expect("written"));
    }
    assert_eq!(modules[0], modules[1]);
}

#[test]
fn translate_reports_unsupported_features_with_their_offset_and_goes_on() {
    let tmp = TempDir::new("translate-unsupported");
    // Class linkage is not translated (no Vulkan equivalent).
    let ds = tmp.file("ds.asm", b"cs_5_0\ndcl_thread_group 1, 1, 1\nabort\nret\n");
    let ds_dxbc = path_str(&tmp.path("ds.dxbc"));
    assert_eq!(run(&["asm", &ds, "-o", &ds_dxbc]).status, Status::Success);
    let cs = tmp.file(
        "cs.asm",
        b"cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\nstore_raw u0.x, l(0), l(7)\nret\n",
    );
    let cs_dxbc = path_str(&tmp.path("cs.dxbc"));
    assert_eq!(run(&["asm", &cs, "-o", &cs_dxbc]).status, Status::Success);
    let dir = path_str(&tmp.path("out"));
    let r = run(&["translate", &ds_dxbc, &cs_dxbc, "--out-dir", &dir]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr
            .contains("ds.dxbc: at 0x6c (abort): unsupported: abort"),
        "{}",
        r.stderr
    );
    assert!(
        tmp.path("out/cs.spv").is_file(),
        "the good input was still translated"
    );
}

#[test]
fn asm_writes_a_container_that_disassembles_to_the_input() {
    let tmp = TempDir::new("asm");
    let text = "ps_5_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(1.000000,0.500000,0,1.000000)\nret\n";
    let input = tmp.file("tint.asm", text.as_bytes());
    let out = path_str(&tmp.path("tint.dxbc"));
    let r = run(&["asm", &input, "-o", &out]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    let r = run(&["disasm", "--no-header", &out]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    assert_eq!(r.stdout, text);
}

#[test]
fn asm_reports_line_and_column_and_goes_on() {
    let tmp = TempDir::new("asm-errors");
    let bad = tmp.file("bad.asm", b"ps_5_0\nmov r0.x, )\n");
    let good = tmp.file("good.asm", b"cs_5_0\ndcl_thread_group 1, 1, 1\nret\n");
    let out = tmp.path("out");
    let out_arg = path_str(&out);
    let r = run(&["asm", &bad, &good, "--out-dir", &out_arg]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr
            .starts_with(&format!("{bad}:2:11: expected an operand, found ')'")),
        "{}",
        r.stderr
    );
    assert!(out.join("good.dxbc").is_file());
    assert!(!out.join("bad.dxbc").exists());
}

/// A committed sample: `ps_5_1` with an unbounded `T0[0:*]` in space 1 and an immediate
/// constant buffer.
fn ps51_sample() -> String {
    path_str(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/ps51_spaces_icb.dxbc"))
}

#[test]
fn reflect_prints_resources_and_reports_bad_inputs() {
    let tmp = TempDir::new("reflect");
    let garbage = tmp.file("garbage.dxbc", GARBAGE);
    let sample = ps51_sample();
    let r = run(&["reflect", &garbage, &sample]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.starts_with(&format!(
            "{garbage}: at 0x0 (container header): not a DXBC container"
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.ends_with("dxbc2spv: 1 of 2 inputs failed\n"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout
            .starts_with(&format!("{sample}\n  program: ps_5_1\n")),
        "{}",
        r.stdout
    );
    for line in [
        "  resources: 3\n",
        "    CB0[0:0]               constant buffer, 1 vec4, immediate indexed\n",
        "    S0[0:0]                sampler mode_default\n",
        "    T0[0:*], space=1       texture2d (float,float,float,float)\n",
        "  immediate constant buffer: 2 vec4s\n",
        "  phase main: 1 temp\n",
        "    input constant v2.x\n",
        "  output signature: 1 element\n",
        "    SV_Target0: register 0.xyzw, float, TARGET\n",
    ] {
        assert!(r.stdout.contains(line), "no {line:?} in\n{}", r.stdout);
    }
}

#[test]
fn reflect_json_prints_one_object_per_input() {
    let tmp = TempDir::new("reflect-json");
    let good = tmp.file("good.dxbc", &ps_ret());
    let sample = ps51_sample();
    let r = run(&["reflect", "--json", &good, &sample]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    for (line, parts) in [
        (
            lines[0],
            &[
                "\"version\":\"ps_5_0\",\"stage\":\"ps\",\"shader_model\":\"5.0\"",
                "\"resources\":[]",
                "\"phases\":[{\"kind\":\"main\",\"instance_count\":null,\"temps\":0,",
                "\"signatures\":{\"input\":null,\"output\":null,\"patch_constant\":null}}",
            ][..],
        ),
        (
            lines[1],
            &[
                "{\"class\":\"srv\",\"register\":\"T0[0:*]\",\"id\":0,\"space\":1,\
                 \"lower_bound\":0,\"count\":null,\"name\":null,\"kind\":\"typed\",\
                 \"dimension\":\"texture2d\",\"return_types\":[\"float\",\"float\",\"float\",\
                 \"float\"],\"sample_count\":null,\"vulkan\":{\"set\":1,\"binding\":32,\
                 \"array_offset\":0,\"descriptor_count\":null}}",
                "\"immediate_constant_buffer\":{\"dwords\":8}",
                "{\"register_type\":\"v\",\"register\":2,\"array_size\":null,\"mask\":\"x\",\
                 \"system_value\":null,\"interpolation\":\"constant\",\"stream\":null}",
                "{\"semantic\":\"INDEX\",\"index\":0,\"register\":2,\"mask\":\"x\",\
                 \"rw_mask\":\"x\",\"system_value\":\"NONE\",\"component_type\":\"uint\",\
                 \"stream\":0}",
            ][..],
        ),
    ] {
        assert!(line.starts_with("{\"path\":"), "{line}");
        for part in parts {
            assert!(line.contains(part), "no {part} in {line}");
        }
    }
}

#[test]
fn reflect_checks_the_checksum_unless_told_not_to() {
    let tmp = TempDir::new("reflect-checksum");
    let mut bytes = ps_ret();
    bytes[4] ^= 0xff;
    let bad = tmp.file("bad.dxbc", &bytes);
    let r = run(&["reflect", &bad]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(r.stderr.contains("checksum mismatch"), "{}", r.stderr);
    let r = run(&["reflect", "--no-checksum", &bad]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
}

#[test]
fn reflect_of_a_hull_shader_lists_its_phases() {
    let Some(dir) = corpus_dir() else {
        return;
    };
    let blob = path_str(&dir.join("HLSLCrossCompiler/two_fork_phases.o.dxbc"));
    let r = run(&["reflect", &blob]);
    assert_eq!(r.status, Status::Success, "{}", r.stderr);
    for line in [
        "    cb0                    constant buffer, 5 vec4s, immediate indexed  \"$Globals\"\n",
        "  phase fork: 1 temp, 4 instances\n",
        "    output o0.x, finalQuadUeq0EdgeTessFactor\n",
        "    index range o0.x 4\n",
        "  phase fork: 1 temp, 2 instances\n",
        "  tessellation: domain_quad, partitioning_integer, output_triangle_ccw, \
         4 input control points, 4 output control points\n",
        "    SV_InsideTessFactor1: register 5.x, float, QUADINT\n",
    ] {
        assert!(r.stdout.contains(line), "no {line:?} in\n{}", r.stdout);
    }
}

/// `--hull-schedule` picks the schedule: both translate the hull-shader sample to valid modules,
/// and they differ (the parallel one loops over the fork instances).
#[test]
fn translate_takes_the_hull_schedule() {
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/hs50_tri_factors.dxbc");
    let tmp = TempDir::new("translate-hull");
    let mut modules = Vec::new();
    for schedule in ["serial", "parallel"] {
        let out = tmp.path(&format!("{schedule}.spv"));
        let r = run(&[
            "translate",
            &path_str(&sample),
            "-o",
            &path_str(&out),
            "--validate",
            "--hull-schedule",
            schedule,
        ]);
        assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
        modules.push(std::fs::read(&out).expect("written"));
    }
    assert_ne!(modules[0], modules[1]);
    let argv = [
        "dxbc2spv",
        "translate",
        "x.dxbc",
        "--hull-schedule",
        "sideways",
    ];
    assert!(
        Cli::try_parse_from(argv).is_err(),
        "an unknown schedule is a usage error"
    );
}

/// A pixel shader with a rasterizer-ordered view: by default the CLI translates it with pixel
/// interlock (a valid module that declares it); `--rov-interlock off` fails it with an error
/// naming rasterizer-ordered views and the option.
#[test]
fn translate_keeps_rasterizer_ordered_views_ordered() {
    let text = "ps_5_0\ndcl_uav_raw_rov u1\nstore_raw u1.x, l(0), l(1)\nret\n";
    let bytes = dxbc2spv::text::dxbc::asm::assemble(text).expect("assembles");
    let tmp = TempDir::new("translate-rov");
    let input = tmp.file("rov.dxbc", &bytes);
    let out = tmp.path("rov.spv");
    let r = run(&[
        "translate",
        &input,
        "-o",
        &path_str(&out),
        "--validate",
        "--spirv-asm",
    ]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    let asm = fs::read_to_string(tmp.path("rov.spvasm")).expect("the text was written");
    for needle in [
        "OpCapability FragmentShaderPixelInterlockEXT",
        "OpExtension \"SPV_EXT_fragment_shader_interlock\"",
        "PixelInterlockOrderedEXT",
        "OpBeginInvocationInterlockEXT",
        "OpEndInvocationInterlockEXT",
    ] {
        assert!(asm.contains(needle), "missing {needle}:\n{asm}");
    }
    let r = run(&[
        "translate",
        &input,
        "-o",
        &path_str(&out),
        "--rov-interlock",
        "off",
    ]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr
            .contains("unsupported: rasterizer-ordered views (u1)")
            && r.stderr.contains("rov_interlock option"),
        "{}",
        r.stderr
    );
}

mod asm_d3d9;
mod batch;
mod bench;
mod bindings;
mod d3d9_disasm;
mod d3d9_info;
mod d3d9_translate;
mod level9;

/// `translate --spirv-asm` writes `<output>.spvasm` (in-process, no spirv-tools) and
/// `spirv-dis` prints the same text for the module; a file that is not SPIR-V fails with the
/// byte offset, and the other files are still disassembled.
#[test]
fn spirv_dis_prints_what_translate_spirv_asm_wrote() {
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/cs50_structured_tgsm.dxbc");
    let tmp = TempDir::new("spirv-dis");
    let spv = tmp.path("cs.spv");
    let r = run(&[
        "translate",
        &path_str(&sample),
        "-o",
        &path_str(&spv),
        "--spirv-asm",
    ]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    let written = fs::read_to_string(tmp.path("cs.spvasm")).expect("the text was written");
    assert!(written.contains("OpEntryPoint GLCompute"), "{written}");

    let r = run(&["spirv-dis", &path_str(&spv)]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert_eq!(r.stdout, written);

    let out = tmp.path("out/cs.txt");
    let r = run(&["spirv-dis", &path_str(&spv), "-o", &path_str(&out)]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    assert_eq!(fs::read_to_string(&out).expect("written"), written);

    // A DXBC container is not SPIR-V: its first word is not the magic number.
    let truncated = tmp.file("short.spv", &[3, 2, 0x23, 7, 0]);
    let r = run(&["spirv-dis", &path_str(&sample), &truncated, &path_str(&spv)]);
    assert_eq!(r.status, Status::InputsFailed);
    let dxbc_error = format!("{}: not SPIR-V at byte offset 0: ", path_str(&sample));
    assert!(r.stderr.contains(&dxbc_error), "{}", r.stderr);
    let short_error =
        format!("{truncated}: 5 bytes is not a whole number of 32-bit words (at byte offset 4)");
    assert!(r.stderr.contains(&short_error), "{}", r.stderr);
    assert!(r.stderr.contains("2 of 3 inputs failed"), "{}", r.stderr);
    // The good module is still printed, after a `; PATH` line.
    assert!(
        r.stdout.starts_with(&format!("; {}\n", path_str(&spv))),
        "{}",
        r.stdout
    );
    assert!(r.stdout.ends_with(&written), "{}", r.stdout);
}

/// `--previous-stage` links the inputs to the previous stage's outputs: the VS that writes
/// the PS's v1.xy changes nothing (by register; by semantic its SAMPLE_UV0 is not the PS's
/// TEXCOORD0); a stage that writes no o1 (the PS itself, whose only output
/// is o0) leaves v1 undeclared; both modules validate. The workaround switches translate too.
#[test]
fn translate_links_to_the_previous_stage() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples");
    let ps = path_str(&samples.join("ps50_sample_cbuffer.dxbc"));
    let tmp = TempDir::new("translate-linking");
    let translate = |name: &str, extra: &[&str]| -> Vec<u8> {
        let out = tmp.path(&format!("{name}.spv"));
        let mut argv = vec!["translate", &ps, "-o"];
        let out_str = path_str(&out);
        argv.push(&out_str);
        argv.push("--validate");
        argv.extend_from_slice(extra);
        let r = run(&argv);
        assert_eq!(r.status, Status::Success, "{name}: {}", r.stderr);
        std::fs::read(&out).expect("written")
    };
    let plain = translate("plain", &[]);
    let vs = path_str(&samples.join("vs40_passthrough.dxbc"));
    assert_eq!(translate("vs", &["--previous-stage", &vs]), plain);
    // By semantic the PS's TEXCOORD0 finds no output (the VS writes SAMPLE_UV0): v1 reads 0.
    assert_ne!(
        translate(
            "vs-remap",
            &["--previous-stage", &vs, "--remap-by-semantic"]
        ),
        plain
    );
    assert_ne!(translate("self", &["--previous-stage", &ps]), plain);
    assert_ne!(
        translate("flat", &["--flat-location", "1", "--invariant-position"]),
        plain
    );
}

/// `--class-instance SLOT=TABLE[,CB,OFFSET,TEXTURE,SAMPLER]` binds class instances: the call
/// goes to the bound table's body and `this[0].z` (the base texture) picks the texture
/// statically, so only that texture is declared; a table the interface does not list fails
/// naming the option; a malformed value is a usage error.
#[test]
fn translate_binds_class_instances() {
    let text = "ps_5_0\n\
        dcl_function_body fb0\ndcl_function_body fb1\n\
        dcl_function_table ft0 = {fb0}\ndcl_function_table ft1 = {fb1}\n\
        dcl_interface fp0[1][1] = {ft0, ft1}\n\
        dcl_output o0.xyzw\ndcl_temps 1\nfcall fp0[0][0]\nret\n\
        label fb0\nmov o0.xyzw, l(0,0,0,0)\nret\n\
        label fb1\nmov r0.x, this[0].z\n\
        ld_indexable(texture2d)(float,float,float,float) o0.xyzw, l(0,0,0,0), t[r0.x + 0].xyzw\n\
        ret\n";
    let bytes = dxbc2spv::text::dxbc::asm::assemble(text).expect("assembles");
    let tmp = TempDir::new("translate-class-instance");
    let input = tmp.file("ci.dxbc", &bytes);
    let out = tmp.path("ci.spv");
    let r = run(&[
        "translate",
        &input,
        "-o",
        &path_str(&out),
        "--validate",
        "--spirv-asm",
        "--class-instance",
        "0=1,0,0,9,0",
    ]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    let asm = fs::read_to_string(tmp.path("ci.spvasm")).expect("the text was written");
    // t9 of the D3D11 layout inside set 0: binding 32 + 9; no class-linkage block at 14.
    assert!(asm.contains("Binding 41"), "{asm}");
    assert!(!asm.contains("Binding 14"), "{asm}");
    assert!(!asm.contains("OpSwitch"), "{asm}");
    let r = run(&[
        "translate",
        &input,
        "-o",
        &path_str(&out),
        "--class-instance",
        "0=2",
    ]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.contains("(Options::class_linkage)") && r.stderr.contains("ft2"),
        "{}",
        r.stderr
    );
    for bad in ["0", "x=1", "0=1,2", "0=1,2,3,4,y"] {
        let argv = ["dxbc2spv", "translate", "x.dxbc", "--class-instance", bad];
        assert!(Cli::try_parse_from(argv).is_err(), "{bad} is a usage error");
    }
    let r = run(&[
        "translate",
        &input,
        "-o",
        &path_str(&out),
        "--class-instance",
        "0=1",
        "--class-instance",
        "0=none",
    ]);
    assert_eq!(r.status, Status::InputsFailed, "a slot given twice");
    assert!(r.stderr.contains("given twice"), "{}", r.stderr);
}

/// The translation's warnings go to stderr, one line each, `PATH: warning: at 0x.. (mad): ...`;
/// the module is written and the command succeeds.
#[test]
fn translate_prints_warnings_on_stderr() {
    // No `refactoringAllowed`: D3D keeps the float order, the module lets the driver fuse.
    let text = "ps_5_0\ndcl_input_ps linear v0.xyzw\ndcl_output o0.xyzw\n\
                mad o0.xyzw, v0.xyzw, v0.xyzw, v0.xyzw\nret\n";
    let bytes = dxbc2spv::text::dxbc::asm::assemble(text).expect("assembles");
    let tmp = TempDir::new("translate-warnings");
    let input = tmp.file("strict.dxbc", &bytes);
    let r = run(&[
        "translate",
        &input,
        "-o",
        &path_str(&tmp.path("strict.spv")),
    ]);
    assert_eq!(r.status, Status::Success, "stderr: {}", r.stderr);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    assert!(
        lines[0].starts_with(&format!("{input}: warning: at 0x"))
            && lines[0].contains("(mad): the program does not declare refactoringAllowed"),
        "{}",
        r.stderr
    );
}
