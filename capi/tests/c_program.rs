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

/// The `INFO`/`RES` lines the C program prints, from the Rust API.
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
    lines
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

    // Shared library.
    let shared = work.join("api_test_shared");
    run(Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-I"])
        .arg(&include)
        .arg(&source)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-ldxbc2spv", "-lpthread", "-o"])
        .arg(&shared));
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
    let stdout = run(cmd.arg(&work).args(&samples));
    println!("{stdout}");
    assert!(stdout.contains("0 failures"), "{stdout}");
    assert!(stdout.contains("bad input: at 0x"), "{stdout}");

    // The reflection equals the Rust API's.
    let printed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("INFO ") || l.starts_with("RES "))
        .collect();
    let expected: Vec<String> = samples.iter().flat_map(|p| rust_reflection(p)).collect();
    assert_eq!(printed, expected);
    // Per-resource usage, from D3D's rules for the samples' instructions: the compute sample
    // writes its UAV u0 (`store_structured u0`) without atomics (KNOWN | WRITTEN); the pixel
    // sample's constant buffer, texture and sampler are never written (KNOWN).
    for line in [
        "RUSAGE cs50_structured_tgsm.dxbc 0 0x80000001",
        "RUSAGE ps50_sample_cbuffer.dxbc 0 0x80000000",
        "RUSAGE ps50_sample_cbuffer.dxbc 1 0x80000000",
        "RUSAGE ps50_sample_cbuffer.dxbc 2 0x80000000",
    ] {
        assert!(stdout.lines().any(|l| l == line), "{line} in\n{stdout}");
    }

    // Every module is valid SPIR-V for Vulkan 1.1 (the default target).
    if have("spirv-val") {
        for p in &samples {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            run(Command::new("spirv-val")
                .args(["--target-env", "vulkan1.1"])
                .arg(work.join(format!("{name}.spv"))));
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
    let stdout = run(Command::new(&static_exe).arg(&work).args(&samples));
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
    std::fs::copy(
        lib.join("libdxbc2spv.so"),
        prefix.join("lib/libdxbc2spv.so"),
    )
    .expect("copy");
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
