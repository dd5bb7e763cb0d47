//! Runs every case under `fixtures/conformance/` on the Vulkan device (as
//! `cargo run -p vk-tests -- run fixtures/conformance` does), and checks the command line end to
//! end: its report lines, summary and exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use dxbc2spv::HullSchedule;
use vk_tests::conformance::{
    default_translator, discover, CompiledShader, DxbcInput, Outcome, Runner,
};
use vk_tests::gpu_or_skip;
use vk_tests::watchdog::Watchdog;

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/conformance")
}

#[test]
fn every_conformance_case_passes() {
    let files = discover(&conformance_dir()).unwrap_or_else(|e| panic!("{e:#}"));
    assert!(!files.is_empty(), "no cases under fixtures/conformance");
    let gpu = match gpu_or_skip() {
        Ok(Some(gpu)) => gpu,
        Ok(None) => return, // skip printed by gpu_or_skip
        Err(e) => panic!("{e:#}"),
    };
    eprintln!("device: {}", gpu.info());
    let mut runner =
        Runner::new(gpu, None, default_translator()).with_watchdog(Watchdog::from_env());
    let mut failed = Vec::new();
    let mut expected_failures = Vec::new();
    let summary = runner.run_all(&files, |report| {
        eprintln!("{report}");
        match &report.outcome {
            Outcome::Fail(_) => failed.push(report.to_string()),
            Outcome::Pass { note: Some(_) } => expected_failures.push(report.name.clone()),
            _ => {}
        }
    });
    eprintln!("{summary}");
    assert!(
        failed.is_empty(),
        "{summary}; failures:\n{}",
        failed.join("\n")
    );
    // The runner's failure detection was exercised: its deliberately wrong cases failed the
    // way their files say.
    for name in [
        "runner/expect_failure",
        "runner/ulp_exceeded",
        "runner/gfx_expect_failure",
        "runner/tess_expect_failure",
    ] {
        assert!(
            expected_failures.iter().any(|n| n == name),
            "{name} did not fail as expected (expected failures: {expected_failures:?})"
        );
    }
}

/// A scratch folder below the target directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn cli(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vk-tests"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running vk-tests: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("$ vk-tests {}\n{stdout}{stderr}", args.join(" "));
    (out.status.code().unwrap_or(-1), stdout)
}

#[test]
fn cli_reports_each_case_and_a_summary() {
    match gpu_or_skip() {
        Ok(Some(_)) => {}
        Ok(None) => return,
        Err(e) => panic!("{e:#}"),
    }
    let runner_dir = conformance_dir().join("runner");
    let dir = runner_dir.to_str().expect("UTF-8 path");
    let (code, stdout) = cli(&["run", dir]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("device: "), "{stdout}");
    assert!(
        lines.contains(&"PASS runner/storage_arith"),
        "per-case lines are named below conformance/: {stdout}"
    );
    let n = lines.len() - 2;
    assert_eq!(
        lines.last(),
        Some(&format!("{n} passed, 0 failed").as_str())
    );
    assert_eq!(code, 0);

    // One case file, run on its own.
    let file = runner_dir.join("uniform_read.toml");
    let (code, stdout) = cli(&["run", file.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 0);
    assert!(
        stdout.ends_with("PASS runner/uniform_read\n1 passed, 0 failed\n"),
        "{stdout}"
    );
}

#[test]
fn cli_runs_translated_cases_and_exits_non_zero_on_a_failure() {
    match gpu_or_skip() {
        Ok(Some(_)) => {}
        Ok(None) => return,
        Err(e) => panic!("{e:#}"),
    }
    let scratch = Scratch::new("cli-fail");
    let runner_dir = conformance_dir().join("runner");
    // An fxc-assembly case: assembled, translated by dxbc2spv, run; by hand, thread 0 stores 42
    // at byte 0.
    std::fs::write(
        scratch.0.join("asm_case.toml"),
        r#"dispatch = [1, 1, 1]
[shader]
asm = """
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_thread_group 1, 1, 1
store_raw u0.x, l(0), l(42)
ret
"""
[[buffer]]
register = "u0"
kind = "raw"
size = 4
[[expect]]
buffer = "u0"
values = [42]
"#,
    )
    .expect("write case");
    // A plain wrong expectation (no expect_failure): reported as FAIL with the values.
    let wrong = std::fs::read_to_string(runner_dir.join("uniform_read.toml"))
        .expect("read uniform_read.toml")
        .replace("values = [4321,", "values = [4322,")
        .replace(
            "spirv_asm = \"uniform_read.spvasm\"",
            &format!(
                "spirv_asm = {:?}",
                runner_dir
                    .join("uniform_read.spvasm")
                    .to_str()
                    .expect("UTF-8")
            ),
        );
    std::fs::write(scratch.0.join("wrong.toml"), wrong).expect("write case");

    let (code, stdout) = cli(&["run", scratch.0.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 1, "a failed case makes the exit code non-zero");
    assert!(stdout.contains("PASS asm_case\n"), "{stdout}");
    assert!(
        stdout.contains("FAIL wrong: buffer u0[0] = 0x000010e1 expected 0x000010e2"),
        "{stdout}"
    );
    assert!(stdout.ends_with("1 passed, 1 failed\n"), "{stdout}");
}

#[test]
fn translated_hull_shaders_run_with_both_schedules() {
    let gpu = match gpu_or_skip() {
        Ok(Some(gpu)) => gpu,
        Ok(None) => return,
        Err(e) => panic!("{e:#}"),
    };
    let scratch = Scratch::new("hull-schedules");
    let runner_dir = conformance_dir().join("runner");
    let abs = |name: &str| {
        let path = runner_dir.join(name);
        format!("{:?}", path.to_str().expect("UTF-8 path"))
    };
    // runner/tess_tri_count with its hull shader given as fxc assembly: a translated hull shader.
    let hs_asm =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/samples/hs50_tri_factors.asm");
    let case = std::fs::read_to_string(runner_dir.join("tess_tri_count.toml"))
        .expect("read tess_tri_count.toml")
        .replace(
            "spirv_asm = \"tess_tri.hs.spvasm\"",
            &format!("asm_file = {:?}", hs_asm.to_str().expect("UTF-8 path")),
        )
        .replace(
            "\"gfx_passthrough.vs.spvasm\"",
            &abs("gfx_passthrough.vs.spvasm"),
        )
        .replace(
            "\"tess_tri_count.ds.spvasm\"",
            &abs("tess_tri_count.ds.spvasm"),
        );
    assert!(case.contains("asm_file"), "{case}");
    std::fs::write(scratch.0.join("tri.toml"), case).expect("write case");
    // The "translator" ignores the DXBC and returns the hand-written hull shader of
    // runner/tess_tri_count, noting the schedule it was asked for.
    let text = std::fs::read_to_string(runner_dir.join("tess_tri.hs.spvasm")).expect("read hs");
    let hs = vk_tests::samples::assemble(&text).unwrap_or_else(|e| panic!("{e:#}"));
    let seen = Mutex::new(Vec::new());
    let translator = |input: &DxbcInput<'_>| -> anyhow::Result<CompiledShader> {
        seen.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((input.set, input.hull_schedule));
        Ok(CompiledShader {
            spirv: hs.clone(),
            entry_point: "main".into(),
            bindings: Some(Vec::new()),
        })
    };
    let mut runner = Runner::new(gpu, None, &translator);
    let files = discover(&scratch.0).unwrap_or_else(|e| panic!("{e:#}"));
    let mut lines = Vec::new();
    let summary = runner.run_all(&files, |report| lines.push(report.to_string()));
    assert_eq!(lines, ["PASS tri", "PASS tri [parallel]"]);
    assert_eq!(summary.to_string(), "2 passed, 0 failed");
    // Set 3 is the hull shader's; one translation per run, with the run's schedule.
    assert_eq!(
        seen.into_inner().unwrap_or_else(|e| e.into_inner()),
        [(3, HullSchedule::Serial), (3, HullSchedule::Parallel)]
    );
}

#[test]
fn translated_cases_bind_through_a_binding_table() {
    match gpu_or_skip() {
        Ok(Some(_)) => {}
        Ok(None) => return,
        Err(e) => panic!("{e:#}"),
    }
    let scratch = Scratch::new("binding-table");
    // SM 5.1 registers in spaces, placed by [[binding]] rows (a constant buffer, a raw SRV, two
    // UAVs, one with its counter through a uav_counter row), translated by dxbc2spv. By hand:
    // u0 = [t10:space1 word 1 = 2, cb3:space2 .y = 41, sentinel]; the counter of u4:space3
    // goes from 2 to 3 and hands out slot 2, where 77 is stored.
    let rows = |srv_count: u32| {
        format!(
            "[[binding]]\nkind = \"srv\"\nspace = 1\nfirst = 10\ncount = {srv_count}\nset = 1\n\
             binding = 3\n[[binding]]\nkind = \"uav\"\nfirst = 0\nbinding = 0\n\
             [[binding]]\nkind = \"cbv\"\nspace = 2\nfirst = 3\nbinding = 5\n\
             [[binding]]\nkind = \"uav\"\nspace = 3\nfirst = 4\nset = 1\nbinding = 0\n\
             [[binding]]\nkind = \"uav_counter\"\nspace = 3\nfirst = 4\nset = 1\nbinding = 1\n"
        )
    };
    let case = |srv_decl: &str, srv_count: u32| {
        format!(
            r#"dispatch = [1, 1, 1]
[shader]
asm = """
cs_5_1
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[3:3][1], immediateIndexed, space=2
dcl_resource_raw T0[{srv_decl}], space=1
dcl_uav_raw U0[0:0], space=0
dcl_uav_structured U1[4:4], 4, space=3
dcl_temps 1
dcl_thread_group 1, 1, 1
ld_raw r0.x, l(4), T0[10]
store_raw U0[0].x, l(0), r0.x
mov r0.x, CB0[3][0].y
store_raw U0[0].x, l(4), r0.x
imm_atomic_alloc r0.x, U1[4]
store_structured U1[4].x, r0.x, l(0), l(77)
ret
"""
{rows}
[[buffer]]
register = "t10, space1"
kind = "raw"
data = [1, 2, 3]
[[buffer]]
register = "cb3"
space = 2
data = [40, 41, 42, 43]
[[buffer]]
register = "u4"
space = 3
kind = "structured"
stride = 4
size = 16
counter = 2
[[buffer]]
register = "u0"
kind = "raw"
size = 12
fill = "0xdeadbeef"
[[expect]]
buffer = "u0"
values = [2, 41, 0xdeadbeef]
[[expect]]
buffer = "u4:space3"
values = [0, 0, 77, 0]
[[expect]]
buffer = "u4:space3"
counter = 3
"#,
            rows = rows(srv_count)
        )
    };
    std::fs::write(scratch.0.join("spaces.toml"), case("10:10", 1)).expect("write case");
    // The shader declares t10..t13 space1; the table maps only t10..t11: the translator rejects
    // the table, and the case fails with its message.
    std::fs::write(scratch.0.join("partial.toml"), case("10:13", 2)).expect("write case");
    let (code, stdout) = cli(&["run", scratch.0.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("PASS spaces\n"), "{stdout}");
    assert!(
        stdout.contains("FAIL partial: cs shader: translating ")
            && stdout.contains("partial.toml: dxbc2spv: at 0x")
            && stdout
                .contains("(dcl_resource_raw): binding: t10..t13 space1 is only partly mapped"),
        "{stdout}"
    );
    assert!(stdout.ends_with("1 passed, 1 failed\n"), "{stdout}");
}

#[test]
fn misaligned_buffer_views_and_unmatched_one_of_fail_loudly() {
    let gpu = match gpu_or_skip() {
        Ok(Some(gpu)) => gpu,
        Ok(None) => return,
        Err(e) => panic!("{e:#}"),
    };
    let align = gpu.info().limits.min_storage_buffer_offset_alignment;
    let scratch = Scratch::new("runtime-fail");
    let runtime_dir = conformance_dir().join("runtime");
    // A raw SRV view at byte 4: no device allows storage-buffer offsets that are not a multiple
    // of minStorageBufferOffsetAlignment; the case must fail (not skip) and say why.
    if align > 4 {
        let text = std::fs::read_to_string(runtime_dir.join("view_raw_offset.toml"))
            .expect("read view_raw_offset.toml")
            .replacen(
                "view_offset = 256\nview_size",
                "view_offset = 4\nview_size",
                1,
            );
        std::fs::write(scratch.0.join("misaligned.toml"), text).expect("write case");
    } else {
        eprintln!("minStorageBufferOffsetAlignment is {align}: no misaligned offset to try");
    }
    // An atomic race whose accepted values leave out what every order gives.
    let text = std::fs::read_to_string(runtime_dir.join("one_of_atomic_race.toml"))
        .expect("read one_of_atomic_race.toml")
        .replacen(
            "offset = 8\nvalues = [4]",
            "offset = 8\none_of = [[3], [5]]",
            1,
        );
    std::fs::write(scratch.0.join("race.toml"), text).expect("write case");

    let (code, stdout) = cli(&["run", scratch.0.to_str().expect("UTF-8 path")]);
    assert_eq!(code, 1, "{stdout}");
    if align > 4 {
        assert!(
            stdout.contains(&format!(
                "FAIL misaligned: buffer t0: view_offset 4 is not a multiple of the device's \
                 minStorageBufferOffsetAlignment ({align})"
            )),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains(
            "FAIL race: none of the 2 one_of alternatives holds: buffer u0[2] = 0x00000004 \
             expected 0x00000003 | buffer u0[2] = 0x00000004 expected 0x00000005"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("SKIP"), "{stdout}");
}
