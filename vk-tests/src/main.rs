//! `vk-tests`: the conformance runner's command line.
//!
//! ```text
//! cargo run -p vk-tests -- run fixtures/conformance [--device NAME]
//! cargo run -p vk-tests -- features [--device NAME]
//! cargo run --release -p vk-tests -- differential --seed S --count N [--no-shrink] [--device NAME]
//! ```

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use vk_tests::conformance::{default_translator, discover, Runner};
use vk_tests::features::{feature_kind, known_features, FeatureKind};
use vk_tests::watchdog::Watchdog;
use vk_tests::Gpu;

const USAGE: &str = "\
usage: vk-tests run PATH... [--device NAME]
       vk-tests features [--device NAME]
       vk-tests differential --seed S --count N [--no-shrink] [--device NAME]

run       runs the conformance cases at each PATH (a case file, or a folder searched
          recursively for *.toml), one line per case, then `N passed, N failed`;
          exits 1 when a case failed
features  prints the device and the features and properties cases may require
differential
          generates N compute programs (seeds S, S+1, ...), runs each on the CPU
          reference interpreter and, as a conformance case with its results as the
          expected values, on the device; shrinks each mismatching program to a small
          reproducer (<seed>-shrunk.toml, unless --no-shrink); prints counts per
          instruction family; last line `differential: N programs, M mismatches`;
          exits 1 when a program mismatched

--device NAME  the first Vulkan device whose name contains NAME (case-insensitive);
               default: $DXBC2SPV_VK_DEVICE, else a discrete, integrated or virtual GPU,
               else lavapipe";

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vk-tests: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> anyhow::Result<ExitCode> {
    let mut args = std::env::args().skip(1);
    let mut command = None;
    let mut paths = Vec::new();
    let mut device = None;
    let (mut seed, mut count) = (None, None);
    let mut shrink = true;
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            println!("{USAGE}");
            return Ok(ExitCode::SUCCESS);
        } else if arg == "--device" {
            device = Some(
                args.next()
                    .ok_or_else(|| anyhow::anyhow!("--device needs a NAME\n{USAGE}"))?,
            );
        } else if let Some(name) = arg.strip_prefix("--device=") {
            device = Some(name.to_owned());
        } else if arg == "--no-shrink" {
            shrink = false;
        } else if arg == "--seed" || arg == "--count" {
            let value: u64 = args
                .next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| anyhow::anyhow!("{arg} needs a number\n{USAGE}"))?;
            if arg == "--seed" {
                seed = Some(value);
            } else {
                count = Some(value);
            }
        } else if arg.starts_with('-') {
            anyhow::bail!("unknown option {arg}\n{USAGE}");
        } else if command.is_none() {
            command = Some(arg);
        } else {
            paths.push(PathBuf::from(arg));
        }
    }

    match command.as_deref() {
        Some("run") => {
            if paths.is_empty() {
                anyhow::bail!("run needs a case file or folder\n{USAGE}");
            }
            run(&paths, device)
        }
        Some("features") => {
            if !paths.is_empty() {
                anyhow::bail!("features takes no paths\n{USAGE}");
            }
            features(device.as_deref())
        }
        Some("differential") => {
            let (Some(seed), Some(count)) = (seed, count) else {
                anyhow::bail!("differential needs --seed S and --count N\n{USAGE}");
            };
            differential(seed, count, device, shrink)
        }
        Some(other) => anyhow::bail!("unknown command {other:?}\n{USAGE}"),
        None => anyhow::bail!("no command\n{USAGE}"),
    }
}

fn open(device: Option<&str>) -> anyhow::Result<Gpu> {
    Gpu::new(device)
        .map_err(|e| e.context("no Vulkan device (run .ci/setup.sh as root to install lavapipe)"))
}

fn run(paths: &[PathBuf], device: Option<String>) -> anyhow::Result<ExitCode> {
    let mut files = Vec::new();
    for path in paths {
        let found = discover(path)?;
        if found.is_empty() {
            anyhow::bail!("no case files (*.toml) under {}", path.display());
        }
        files.extend(found);
    }
    let gpu = open(device.as_deref())?;
    println!("device: {}", gpu.info());
    let mut runner =
        Runner::new(gpu, device, default_translator()).with_watchdog(Watchdog::from_env());
    let summary = runner.run_all(&files, |report| {
        println!("{report}");
        let _ = std::io::stdout().flush();
    });
    println!("{summary}");
    Ok(if summary.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn features(device: Option<&str>) -> anyhow::Result<ExitCode> {
    let gpu = open(device)?;
    println!("device: {}", gpu.info());
    println!("(enabled: on for every case; opt-in: available to cases that require it;");
    println!(" present: a property the device has; -: missing, cases requiring it are skipped)");
    let enabled: Vec<&str> = gpu.enabled_features().collect();
    for name in known_features() {
        let state = if enabled.contains(&name) {
            "enabled"
        } else if !gpu.features().supports(name) {
            "-"
        } else if feature_kind(name) == Some(FeatureKind::Property) {
            "present"
        } else {
            "opt-in"
        };
        println!("{state:<8} {name}");
    }
    Ok(ExitCode::SUCCESS)
}

fn differential(
    seed: u64,
    count: u64,
    device: Option<String>,
    shrink: bool,
) -> anyhow::Result<ExitCode> {
    use vk_tests::oracle::campaign::{Campaign, SeedOutcome};
    let dir = std::env::temp_dir().join("dxbc2spv-differential");
    let gpu = open(device.as_deref())?;
    println!("device: {}", gpu.info());
    println!("cases: {}", dir.display());
    let denormals_kept = !gpu.features().supports("shaderDenormFlushToZeroFloat32");
    let runner = Runner::new(gpu, device, default_translator()).with_watchdog(Watchdog::from_env());
    let mut campaign = Campaign::new(runner, &dir, denormals_kept);
    if !shrink {
        campaign.shrink_tries = 0;
    }
    for s in seed..seed.saturating_add(count) {
        match campaign.run_seed(s) {
            SeedOutcome::Skipped(_) | SeedOutcome::Agreed => {}
            SeedOutcome::Error(e) => println!("ERROR seed {s}: {e}"),
            SeedOutcome::Driver { case, deviations } => {
                let names: Vec<&str> = deviations.iter().map(|d| d.name).collect();
                println!(
                    "DRIVER seed {s} ({}): known driver deviation {}",
                    case.display(),
                    names.join(" + ")
                );
            }
            SeedOutcome::Mismatch { case, why, shrunk } => {
                println!("MISMATCH seed {s} ({}): {why}", case.display());
                if let Some(p) = shrunk {
                    println!("  shrunk: {}", p.display());
                }
            }
        }
        let _ = std::io::stdout().flush();
    }
    println!("{}", campaign.stats.summary());
    Ok(if campaign.stats.mismatches > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
