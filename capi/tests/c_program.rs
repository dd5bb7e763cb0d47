//! The C API from a C program (`tests/c/api_test.c`), built here with the system C compiler
//! against the committed header and the built `libdxbc2spv.so` and `libdxbc2spv.a`: it
//! translates the sample shaders (several threads, the translator object, a binding callback,
//! bad input), under valgrind when installed (leaks and invalid accesses fail the test); its
//! modules pass `spirv-val`; the reflection it prints equals the Rust API's; the header
//! compiles as C++. Without a C compiler the test says so and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use translator::bindings::ResourceKind;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The folder holding a fresh `libdxbc2spv.so` and `.a` (`target/<profile>`): cargo does not
/// build a cdylib/staticlib-only library for its integration tests, so the test builds it
/// (with the cargo that runs the test, into the same target folder, with the test's profile).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let deps = exe.parent().expect("deps folder");
    let profile_dir = deps.parent().expect("profile folder");
    let target = profile_dir.parent().expect("target folder");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let release = profile_dir.ends_with("release");
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--quiet", "-p", "dxbc2spv-capi", "--lib"])
        .arg("--target-dir")
        .arg(target)
        .current_dir(crate_dir());
    // The test profile's own settings, so the translator built for the test is reused.
    cmd.args(["--profile", if release { "release" } else { "test" }]);
    run(&mut cmd);
    assert!(
        profile_dir.join("libdxbc2spv.so").exists() && profile_dir.join("libdxbc2spv.a").exists(),
        "libdxbc2spv.so and .a in {}",
        profile_dir.display()
    );
    profile_dir.to_path_buf()
}

/// The SONAME the build script gives `libdxbc2spv.so`.
fn soname() -> String {
    format!("libdxbc2spv.so.{}", env!("DXBC2SPV_ABI_MAJOR"))
}

/// Lays out `lib`'s shared library in `dir` as `install.sh` does: the file
/// `libdxbc2spv.so.<version>`, and the links `libdxbc2spv.so.<major>` (its SONAME, what programs
/// load) and `libdxbc2spv.so` (what `-ldxbc2spv` finds).
fn install_shared(lib: &Path, dir: &Path) {
    std::fs::create_dir_all(dir).expect("lib folder");
    let file = format!("libdxbc2spv.so.{}", env!("CARGO_PKG_VERSION"));
    std::fs::copy(lib.join("libdxbc2spv.so"), dir.join(&file)).expect("copy");
    for (link, to) in [(soname(), file), ("libdxbc2spv.so".to_string(), soname())] {
        let _ = std::fs::remove_file(dir.join(&link));
        std::os::unix::fs::symlink(&to, dir.join(&link)).expect("symlink");
    }
}

/// The dynamic section of an ELF file, as `readelf -d` prints it.
fn dynamic_section(file: &Path) -> String {
    run(Command::new("readelf").arg("-d").arg(file))
}

/// The shared library names its SONAME, `libdxbc2spv.so.<ABI major>` (`build.rs`), so that
/// programs record that name and the installed links (`install.sh`) resolve it.
#[test]
fn shared_library_has_its_soname() {
    if !have("readelf") {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "readelf (binutils) not installed: CI=true requires the SONAME check"
        );
        eprintln!("skipped (not passed): readelf (binutils) not installed");
        return;
    }
    let lib = lib_dir();
    let dynamic = dynamic_section(&lib.join("libdxbc2spv.so"));
    let line = format!("Library soname: [{}]", soname());
    assert!(dynamic.contains(&line), "{line} in\n{dynamic}");
    assert_eq!(soname(), "libdxbc2spv.so.0");
    // install.sh reads the same major from build.rs.
    let script = std::fs::read_to_string(crate_dir().join("install.sh")).expect("install.sh");
    assert!(
        script.contains("ln -sf \"libdxbc2spv.so.$version\" \"$prefix/lib/libdxbc2spv.so.$major\"")
    );
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The samples, the one with resources (`ps50_sample_cbuffer`) last (the callback test's).
fn samples() -> Vec<PathBuf> {
    let dir = crate_dir().join("../fixtures/samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/samples")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dxbc"))
        .collect();
    files.sort_by_key(|p| (p.ends_with("ps50_sample_cbuffer.dxbc"), p.clone()));
    assert!(files.len() >= 5, "samples in {}", dir.display());
    files
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The warnings shader the C program's warnings test takes (`tests/c/api_test.c`): no
/// `refactoringAllowed` with a `mad`, a read of `cb0[5]` past the 2 declared vectors, and a
/// `discard`.
const WARNINGS_SHADER: &str = "ps_5_0\n\
    dcl_constantbuffer CB0[2], immediateIndexed\n\
    dcl_input_ps linear v0.xyzw\n\
    dcl_output o0.xyzw\n\
    dcl_temps 1\n\
    mad r0.xyzw, v0.xyzw, cb0[0].xyzw, cb0[5].xyzw\n\
    discard_nz r0.x\n\
    mov o0.xyzw, r0.xyzw\n\
    ret\n";

/// The `INFO`/`RES`/`READ`/`WARN` lines the C program prints, from the Rust API.
fn rust_reflection(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).expect("sample");
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let t = translator::translate(&bytes, &translator::Options::default()).expect("translates");
    let info = &t.info;
    let stage = match info.stage {
        translator::ir::Stage::Pixel => 0,
        translator::ir::Stage::Vertex => 1,
        translator::ir::Stage::Geometry => 2,
        translator::ir::Stage::Hull => 3,
        translator::ir::Stage::Domain => 4,
        translator::ir::Stage::Compute => 5,
    };
    let tess = info.tessellation.unwrap_or_default();
    let d3d = |v: Option<u32>| v.unwrap_or(0);
    let mut lines = vec![format!(
        "INFO {name} stage={stage} wg={},{},{} resources={} tess={},{},{},{},{} entry={}",
        info.workgroup_size[0],
        info.workgroup_size[1],
        info.workgroup_size[2],
        info.resources.len(),
        // D3D11_TESSELLATOR_DOMAIN / _PARTITIONING / _OUTPUT_PRIMITIVE values: the enums'
        // declaration order, from 1.
        d3d(tess.domain.map(|d| d as u32 + 1)),
        d3d(tess.partitioning.map(|p| p as u32 + 1)),
        d3d(tess.output_primitive.map(|p| p as u32 + 1)),
        tess.input_control_points,
        tess.output_control_points,
        info.entry_point,
    )];
    for r in &info.resources {
        let b = r.target.descriptor().expect("a descriptor");
        let kind = ResourceKind::ALL
            .iter()
            .position(|k| *k == r.kind)
            .unwrap_or(9);
        let desc = match r.descriptor {
            translator::back::spirv::DescriptorType::Sampler => 0,
            translator::back::spirv::DescriptorType::SampledImage => 2,
            translator::back::spirv::DescriptorType::StorageImage => 3,
            translator::back::spirv::DescriptorType::UniformTexelBuffer => 4,
            translator::back::spirv::DescriptorType::StorageTexelBuffer => 5,
            translator::back::spirv::DescriptorType::UniformBuffer => 6,
            translator::back::spirv::DescriptorType::StorageBuffer => 7,
        };
        lines.push(format!(
            "RES {name} kind={kind} space={} first={} count={} set={} binding={} desc={desc}",
            r.space,
            r.register,
            r.count.bounded().unwrap_or(u32::MAX),
            b.set,
            b.binding
        ));
    }
    for (i, r) in info.resources.iter().enumerate() {
        let read = u32::from(r.usage.contains(translator::ResourceUsage::READ));
        lines.push(format!("READ {name} {i} {read}"));
    }
    lines.extend(warn_lines(&name, &t));
    lines
}

/// The `WARN` lines the C program prints for a translation's warnings, from the Rust API.
fn warn_lines(name: &str, t: &translator::Translation) -> Vec<String> {
    t.warnings()
        .iter()
        .map(|w| {
            let severity = match w.severity() {
                translator::Severity::Warning => 1,
                _ => 2,
            };
            format!(
                "WARN {name} {} {severity} {} {:#x}",
                w.kind.code(),
                i32::from(w.offset.is_some()),
                w.offset.unwrap_or(0)
            )
        })
        .collect()
}

#[test]
fn c_program_translates_through_the_c_api() {
    if !have("cc") {
        // A skip is not a pass: CI (and `.ci/setup.sh`, which installs cc) must run it.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no C compiler (cc): CI=true requires the C program to run"
        );
        eprintln!("skipped (not passed): no C compiler (cc)");
        return;
    }
    let lib = lib_dir();
    let include = crate_dir().join("include");
    let source = crate_dir().join("tests/c/api_test.c");
    let work = std::env::temp_dir().join(format!("dxbc2spv-capi-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("work folder");
    let samples = samples();
    let warnings_shader = work.join("warnings.dxbc");
    let bytes = translator::text::dxbc::asm::assemble(WARNINGS_SHADER).expect("assembles");
    std::fs::write(&warnings_shader, bytes).expect("writes");

    // Shared library, laid out as installed (the program records and loads the SONAME).
    let shared_lib = work.join("lib");
    install_shared(&lib, &shared_lib);
    let shared = work.join("api_test_shared");
    run(Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-I"])
        .arg(&include)
        .arg(&source)
        .arg("-L")
        .arg(&shared_lib)
        .arg(format!("-Wl,-rpath,{}", shared_lib.display()))
        .args(["-ldxbc2spv", "-lpthread", "-o"])
        .arg(&shared));
    if have("readelf") {
        let needed = format!("Shared library: [{}]", soname());
        let dynamic = dynamic_section(&shared);
        assert!(dynamic.contains(&needed), "{needed} in\n{dynamic}");
    }
    let mut cmd = if have("valgrind") {
        let mut c = Command::new("valgrind");
        c.args([
            "-q",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--error-exitcode=99",
        ])
        .arg(&shared);
        c
    } else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "valgrind not installed: CI=true requires the leak check (`.ci/setup.sh` installs it)"
        );
        eprintln!("valgrind not installed: the C program runs without it");
        Command::new(&shared)
    };
    let stdout = run(cmd.arg(&work).arg(&warnings_shader).args(&samples));
    println!("{stdout}");
    assert!(stdout.contains("0 failures"), "{stdout}");
    assert!(stdout.contains("bad input: at 0x"), "{stdout}");

    // The reflection (READ flags and warnings included) equals the Rust API's, line for line
    // (the C program prints each shader's lines in the order the Rust lines are made).
    let kinds = ["INFO ", "RES ", "READ ", "WARN "];
    let printed: Vec<&str> = stdout
        .lines()
        .filter(|l| kinds.iter().any(|k| l.starts_with(k)))
        .collect();
    let mut expected: Vec<String> = samples.iter().flat_map(|p| rust_reflection(p)).collect();
    // The warnings test's translation: discard as OpKill.
    let bytes = std::fs::read(&warnings_shader).expect("reads");
    let kill =
        translator::Options::default().with_flag(translator::OptionFlags::DEMOTE_TO_HELPER, false);
    let t = translator::translate(&bytes, &kill).expect("translates");
    assert_eq!(t.warnings().len(), 3);
    expected.extend(warn_lines("warnings.dxbc", &t));
    let mut printed_sorted = printed.clone();
    let mut expected_sorted: Vec<&str> = expected.iter().map(String::as_str).collect();
    printed_sorted.sort_unstable();
    expected_sorted.sort_unstable();
    assert_eq!(printed_sorted, expected_sorted);
    assert!(stdout.lines().any(|l| l == "warnings: 3"), "{stdout}");
    assert!(
        stdout.contains("fixups: 1 (u0 at set 0 binding 15)"),
        "{stdout}"
    );
    // Per-resource usage, from D3D's rules for the samples' instructions: the compute sample
    // reads (`ld_structured_indexable ... u0`) and writes (`store_structured u0`) its UAV u0
    // without atomics (KNOWN | READ | WRITTEN); the pixel sample reads its constant buffer
    // (`mad_sat ... cb0[0]`), and samples its texture with its sampler, never writing them
    // (KNOWN | READ).
    for line in [
        "RUSAGE cs50_structured_tgsm.dxbc 0 0x80000005",
        "RUSAGE ps50_sample_cbuffer.dxbc 0 0x80000004",
        "RUSAGE ps50_sample_cbuffer.dxbc 1 0x80000004",
        "RUSAGE ps50_sample_cbuffer.dxbc 2 0x80000004",
    ] {
        assert!(stdout.lines().any(|l| l == line), "{line} in\n{stdout}");
    }

    // Every module is valid SPIR-V for Vulkan 1.1 (the default target).
    if have("spirv-val") {
        let mut modules: Vec<PathBuf> = samples
            .iter()
            .map(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                work.join(format!("{name}.spv"))
            })
            .collect();
        // The buffer-descriptor test's modules (fix-up block, texel buffers).
        for suffix in ["fixup", "texel"] {
            modules.push(work.join(format!("cs50_structured_tgsm.dxbc.{suffix}.spv")));
        }
        for module in modules {
            assert!(module.exists(), "{} written", module.display());
            run(Command::new("spirv-val")
                .args(["--target-env", "vulkan1.1"])
                .arg(module));
        }
    } else {
        eprintln!("spirv-val not installed: modules not validated");
    }

    // Static library.
    let static_exe = work.join("api_test_static");
    run(Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(&include)
        .arg(&source)
        .arg(lib.join("libdxbc2spv.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&static_exe));
    let stdout = run(Command::new(&static_exe)
        .arg(&work)
        .arg(&warnings_shader)
        .args(&samples));
    assert!(stdout.contains("0 failures"), "{stdout}");

    // The header compiles as C++.
    if have("c++") {
        let cpp = work.join("header_check.cpp");
        std::fs::write(
            &cpp,
            "#include \"dxbc2spv.h\"\n\
             int main() { dxbc2spv_options o; return dxbc2spv_options_init(&o); }\n",
        )
        .expect("writes");
        run(Command::new("c++")
            .args([
                "-std=c++11",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-fsyntax-only",
                "-I",
            ])
            .arg(&include)
            .arg(&cpp));
    }
    // The documentation's complete example compiles.
    let doc = std::fs::read_to_string(crate_dir().join("../docs/c-api.md")).expect("docs");
    let example = doc
        .split("## A complete example")
        .nth(1)
        .and_then(|s| s.split("```c\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("docs/c-api.md has a complete example");
    let example_c = work.join("doc_example.c");
    std::fs::write(&example_c, example).expect("writes");
    run(Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-c", "-I"])
        .arg(&include)
        .arg(&example_c)
        .arg("-o")
        .arg(work.join("doc_example.o")));

    if have("pkg-config") {
        pkg_config_install_works(&lib, &work);
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// The layout `install.sh` makes (lib/, include/, lib/pkgconfig/dxbc2spv.pc from
/// `dxbc2spv.pc.in`), and a program built with `pkg-config --cflags --libs dxbc2spv`.
fn pkg_config_install_works(lib: &Path, work: &Path) {
    let prefix = work.join("prefix");
    let pkgconfig = prefix.join("lib/pkgconfig");
    std::fs::create_dir_all(&pkgconfig).expect("prefix");
    std::fs::create_dir_all(prefix.join("include")).expect("prefix");
    install_shared(lib, &prefix.join("lib"));
    std::fs::copy(
        crate_dir().join("include/dxbc2spv.h"),
        prefix.join("include/dxbc2spv.h"),
    )
    .expect("copy");
    let template = std::fs::read_to_string(crate_dir().join("dxbc2spv.pc.in")).expect("template");
    let pc = template
        .replace("@PREFIX@", &prefix.display().to_string())
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"));
    std::fs::write(pkgconfig.join("dxbc2spv.pc"), pc).expect("writes");
    let flags = run(Command::new("pkg-config")
        .env("PKG_CONFIG_PATH", &pkgconfig)
        .args(["--cflags", "--libs", "dxbc2spv"]));
    let source = work.join("pc_check.c");
    std::fs::write(
        &source,
        "#include <dxbc2spv.h>\n#include <stdio.h>\n\
         int main(void) { printf(\"%s\\n\", dxbc2spv_version()); \
         return dxbc2spv_revision() == DXBC2SPV_REVISION ? 0 : 1; }\n",
    )
    .expect("writes");
    let exe = work.join("pc_check");
    run(Command::new("cc")
        .arg(&source)
        .args(flags.split_whitespace())
        .arg(format!("-Wl,-rpath,{}", prefix.join("lib").display()))
        .arg("-o")
        .arg(&exe));
    let version = run(&mut Command::new(&exe));
    assert_eq!(version.trim(), env!("CARGO_PKG_VERSION"));
}
