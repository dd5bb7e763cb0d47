//! Tests of batch `translate` (a directory or several files): the per-stage summary, the modules
//! written, failures reported while the others go on, and outputs that do not depend on the
//! number of threads.

use std::fs;
use std::path::Path;

use dxbc2spv::text::dxbc::asm::assemble;

use super::{path_str, run, usage_error_code, TempDir, GARBAGE};
use crate::commands::Status;

/// The committed samples whose translation with the default options succeeds (not
/// `ps51_spaces_icb`, whose unbounded range the default D3D11 layout cannot bind).
const SAMPLES: [&str; 5] = [
    "cs50_structured_tgsm",
    "gs40_triangle_loop",
    "hs50_tri_factors",
    "ps50_sample_cbuffer",
    "vs40_passthrough",
];

/// A container assembled from `text`.
fn assembled(text: &str) -> Vec<u8> {
    assemble(text).unwrap_or_else(|e| panic!("{}:{}: {}", e.line, e.column, e.message))
}

/// `in/`: the five samples, a file that is not a container (`broken/bad.dxbc`), a compute
/// shader using `abort` and a function-linking library (both unsupported, under
/// `unsupported/`), and a text file that is not an input.
fn batch_inputs(tmp: &TempDir) -> String {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples");
    for name in SAMPLES {
        let bytes = fs::read(samples.join(format!("{name}.dxbc"))).expect("read a sample");
        tmp.file(&format!("in/{name}.dxbc"), &bytes);
    }
    tmp.file("in/broken/bad.dxbc", GARBAGE);
    let linkage = "cs_5_0\ndcl_thread_group 1, 1, 1\nabort\nret\n";
    tmp.file("in/unsupported/linkage.dxbc", &assembled(linkage));
    tmp.file("in/unsupported/library.dxbc", &assembled("lib_5_0\nret\n"));
    tmp.file("in/notes.txt", b"not an input");
    path_str(&tmp.path("in"))
}

#[test]
fn translate_batch_prints_a_summary_per_stage_and_writes_the_modules() {
    let tmp = TempDir::new("batch-summary");
    let input = batch_inputs(&tmp);
    let out = path_str(&tmp.path("out"));
    let r = run(&["translate", &input, "--out-dir", &out]);

    // 8 files: 5 samples (one per stage but cs), 2 unsupported (cs, lib), 1 not a container.
    assert_eq!(r.status, Status::InputsFailed, "stderr: {}", r.stderr);
    let table = "\
stage       files       ok  unsupported   failed
vs              1        1            0        0
hs              1        1            0        0
gs              1        1            0        0
ps              1        1            0        0
cs              2        1            1        0
lib             1        0            1        0
unknown         1        0            0        1
total           8        5            2        1
";
    assert!(r.stdout.starts_with(table), "{}", r.stdout);
    let last = r.stdout[table.len()..].trim_end();
    // The eight inputs hold under 5000 bytes: 0.00 MB.
    assert!(
        last.starts_with("translate: 8 files (0.00 MB) in ")
            && last.contains(" s: ")
            && last.ends_with(" MB/s")
            && !last.contains('\n'),
        "{last}"
    );
    // Only the failures are reported, one line each, then the failure count.
    let errors: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(errors.len(), 4, "{}", r.stderr);
    for (file, message) in [
        (
            "broken/bad.dxbc",
            ": at 0x0 (container header): not a DXBC container",
        ),
        (
            "unsupported/linkage.dxbc",
            ": at 0x6c (abort): unsupported: abort",
        ),
        (
            "unsupported/library.dxbc",
            ": at 0x2c (SHEX): unsupported: shader libraries",
        ),
    ] {
        let prefix = format!("{}{message}", path_str(&tmp.path("in").join(file)));
        assert!(
            errors.iter().any(|l| l.starts_with(&prefix)),
            "no line starting {prefix:?} in\n{}",
            r.stderr
        );
    }
    assert_eq!(errors[3], "dxbc2spv: 3 of 8 inputs failed");
    for name in SAMPLES {
        let module = fs::read(tmp.path(&format!("out/{name}.spv"))).expect(name);
        assert_eq!(&module[..4], &0x0723_0203u32.to_le_bytes(), "{name}");
    }
    for missing in ["broken", "unsupported", "notes.spv"] {
        assert!(!tmp.path("out").join(missing).exists(), "{missing}");
    }
}

#[test]
fn translate_batch_writes_the_same_modules_with_one_job_or_several() {
    let tmp = TempDir::new("batch-jobs");
    let input = batch_inputs(&tmp);
    let mut listings = Vec::new();
    for jobs in ["1", "3"] {
        let out = tmp.path(&format!("out{jobs}"));
        let r = run(&[
            "translate",
            &input,
            "--out-dir",
            &path_str(&out),
            "-j",
            jobs,
        ]);
        assert_eq!(r.status, Status::InputsFailed, "stderr: {}", r.stderr);
        let mut modules = Vec::new();
        for entry in fs::read_dir(&out).expect("out dir") {
            let path = entry.expect("entry").path();
            let name = path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            modules.push((name, fs::read(&path).expect("module")));
        }
        modules.sort();
        listings.push(modules);
    }
    let names: Vec<String> = listings[0].iter().map(|(n, _)| n.clone()).collect();
    let expected: Vec<String> = SAMPLES.iter().map(|s| format!("{s}.spv")).collect();
    assert_eq!(names, expected);
    assert!(
        listings[0] == listings[1],
        "the modules differ between -j 1 and -j 3"
    );
}

#[test]
fn translate_batch_verbose_with_one_job_lists_every_module_in_input_order() {
    let tmp = TempDir::new("batch-verbose");
    let input = batch_inputs(&tmp);
    let out = tmp.path("out");
    let r = run(&[
        "translate",
        &input,
        "--out-dir",
        &path_str(&out),
        "--jobs",
        "1",
        "-v",
    ]);
    assert_eq!(r.status, Status::InputsFailed, "stderr: {}", r.stderr);
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .take_while(|l| !l.starts_with("stage "))
        .collect();
    assert_eq!(lines.len(), SAMPLES.len(), "{}", r.stdout);
    for (line, name) in lines.iter().zip(SAMPLES) {
        let from = path_str(&tmp.path("in").join(format!("{name}.dxbc")));
        let to = path_str(&out.join(format!("{name}.spv")));
        assert!(
            line.starts_with(&format!("{from} -> {to} (")) && line.ends_with(" bytes)"),
            "{line}"
        );
    }
}

/// Output names are claimed in input order before any work starts: whatever the threads, the
/// second of two inputs with the same name is the one refused.
#[test]
fn translate_batch_refuses_the_later_of_two_colliding_outputs() {
    let tmp = TempDir::new("batch-collide");
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/vs40_passthrough.dxbc");
    let bytes = fs::read(sample).expect("sample");
    let first = tmp.file("one/x.dxbc", &bytes);
    let second = tmp.file("two/x.dxbc", &bytes);
    let out = path_str(&tmp.path("out"));
    let r = run(&[
        "translate",
        &first,
        &second,
        "--out-dir",
        &out,
        "--jobs",
        "2",
    ]);
    assert_eq!(r.status, Status::InputsFailed);
    assert!(
        r.stderr.starts_with(&format!("{second}: output ")) && r.stderr.contains(&first),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout
            .contains("\nvs              2        1            0        1\n"),
        "{}",
        r.stdout
    );
    assert!(tmp.path("out/x.spv").is_file());
}

#[test]
fn jobs_must_be_a_positive_number() {
    assert_eq!(usage_error_code(&["translate", "--jobs", "0", "x.dxbc"]), 2);
    assert_eq!(
        usage_error_code(&["translate", "--jobs", "many", "x.dxbc"]),
        2
    );
}
