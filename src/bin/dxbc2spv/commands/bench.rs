//! `bench`: translation speed, in one process and one thread, warm, of DXBC containers and
//! Direct3D 9 token streams (each grouped by stage; D3D9 streams as `d3d9 vs`/`d3d9 ps`).
//!
//! Every input is read once, translated once to warm up (and to pick its bindings: the default,
//! `Bindings::Auto`, or, when that cannot bind the shader (an embedded root signature that
//! leaves a range out), a table of its own ranges as a D3D12 runtime would build from
//! reflection), then translated `--rounds` times; a file's time
//! is the mean of its rounds. The warm-up's peak heap use is measured too (the CLI's counting
//! allocator). Per-stage lines (with the stage's mean words), with `--opcodes` one line per
//! SPIR-V opcode (its words per shader, counted over each module's instructions, header
//! excluded), a `memory:` line, then the summary
//! `bench: <files> files, <ok> ok, mean_us <x> per shader, median_us <y>, words_mean <z>`
//! over the files that translate. `--per-file` prints `<mean_us> <words> <path>` for each input
//! first.

use std::collections::BTreeMap;
use std::io;
use std::time::Instant;

use dxbc2spv::bindings::{Bindings, TableBindings};
use dxbc2spv::front::dxbc::container::{Container, ParseOptions};
use dxbc2spv::front::dxbc::lower;
use dxbc2spv::front::dxbc::Stage;
use dxbc2spv::text::dxbc::disasm::shader_program;
use dxbc2spv::{release_thread_buffers, translate, Error, OptionFlags, Options, Translation};

use super::stage::{d3d9_version, stage_of};
use super::Console;
use crate::alloc::peak_during;
use crate::args::BenchArgs;
use crate::inputs::{self, Found};

/// One input's result.
struct Measured {
    stage: &'static str,
    /// Mean microseconds per translation, when it translates.
    mean_us: Option<f64>,
    words: usize,
    /// Peak heap bytes in use during one translation (the warm-up).
    peak_bytes: usize,
    /// Words per opcode of the module (with `--opcodes`).
    opcodes: BTreeMap<u16, usize>,
}

/// Words per opcode of a SPIR-V module (its 5-word header skipped); an instruction whose word
/// count is 0 or runs past the end stops the count (the translator's modules have none).
fn words_by_opcode(spirv: &[u32]) -> BTreeMap<u16, usize> {
    let mut out = BTreeMap::new();
    let mut at = 5;
    while let Some(&word) = spirv.get(at) {
        let count = (word >> 16) as usize;
        if count == 0 || at + count > spirv.len() {
            break;
        }
        *out.entry(word as u16).or_default() += count;
        at += count;
    }
    out
}

/// `OpName` of opcode `op` (`Op<number>` when the `spirv` crate does not know it).
fn opcode_name(op: u16) -> String {
    spirv::Op::from_u32(u32::from(op)).map_or_else(|| format!("Op{op}"), |o| format!("Op{o:?}"))
}

/// Runs `bench`.
pub fn run(args: &BenchArgs, console: &mut Console<'_>) -> io::Result<()> {
    let rounds = args.rounds.max(1);
    let mut results = Vec::new();
    for item in inputs::expand(&args.inputs.paths) {
        let input = match item {
            Found::File(input) => input,
            Found::Failed(path, e) => {
                console.failed(&path, &e)?;
                continue;
            }
        };
        let bytes = match inputs::read(&input.path) {
            Ok(b) => b,
            Err(e) => {
                console.failed(&input.path, &e)?;
                continue;
            }
        };
        console.succeeded();
        let measured = measure(&bytes, rounds, args);
        if args.per_file {
            let time = measured
                .mean_us
                .map_or_else(|| "-".to_owned(), |us| format!("{us:.2}"));
            writeln!(
                console.out(),
                "{time} {} {}",
                measured.words,
                input.path.display()
            )?;
        }
        results.push(measured);
    }
    let mut by_stage: BTreeMap<&str, Vec<&Measured>> = BTreeMap::new();
    for m in &results {
        by_stage.entry(m.stage).or_default().push(m);
    }
    for (stage, ms) in &by_stage {
        let times: Vec<f64> = ms.iter().filter_map(|m| m.mean_us).collect();
        let (mean, median) = stats(&times);
        let words: usize = ms
            .iter()
            .filter(|m| m.mean_us.is_some())
            .map(|m| m.words)
            .sum();
        writeln!(
            console.out(),
            "{stage}: {} files, {} ok, mean_us {mean:.1}, median_us {median:.1}, words_mean {:.0}",
            ms.len(),
            times.len(),
            words as f64 / times.len().max(1) as f64
        )?;
    }
    if args.opcodes {
        let mut total: BTreeMap<u16, usize> = BTreeMap::new();
        for m in results.iter().filter(|m| m.mean_us.is_some()) {
            for (&op, &w) in &m.opcodes {
                *total.entry(op).or_default() += w;
            }
        }
        let ok = results
            .iter()
            .filter(|m| m.mean_us.is_some())
            .count()
            .max(1) as f64;
        let all: usize = total.values().sum();
        let mut rows: Vec<(u16, usize)> = total.into_iter().collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (op, w) in rows {
            writeln!(
                console.out(),
                "opcode {} words_mean {:.1} share {:.1}%",
                opcode_name(op),
                w as f64 / ok,
                100.0 * w as f64 / all.max(1) as f64
            )?;
        }
    }
    let times: Vec<f64> = results.iter().filter_map(|m| m.mean_us).collect();
    let words: Vec<usize> = results
        .iter()
        .filter(|m| m.mean_us.is_some())
        .map(|m| m.words)
        .collect();
    let (mean, median) = stats(&times);
    let words_mean = if words.is_empty() {
        0.0
    } else {
        words.iter().sum::<usize>() as f64 / words.len() as f64
    };
    let peaks: Vec<usize> = results
        .iter()
        .filter(|m| m.mean_us.is_some())
        .map(|m| m.peak_bytes)
        .collect();
    let peak_mean = peaks.iter().sum::<usize>() as f64 / peaks.len().max(1) as f64;
    let peak_max = peaks.iter().copied().max().unwrap_or(0);
    writeln!(
        console.out(),
        "memory: peak_kib_mean {:.0}, peak_kib_max {} per translation",
        peak_mean / 1024.0,
        peak_max / 1024
    )?;
    writeln!(
        console.out(),
        "bench: {} files, {} ok, mean_us {mean:.1} per shader, median_us {median:.1}, words_mean \
         {words_mean:.0}",
        results.len(),
        times.len()
    )
}

/// The translation and its peak heap bytes, from no kept buffers: `translate` reuses a
/// thread's buffers, which would hide what a translation needs.
fn fresh_translation(bytes: &[u8], options: &Options) -> (Result<Translation, Error>, usize) {
    release_thread_buffers();
    peak_during(|| translate(bytes, options))
}

/// Warm-up (picking the bindings, measuring the peak memory), then `rounds` timed translations
/// (of the level-9 part with `--level9`, with `--float-emulation`).
fn measure(bytes: &[u8], rounds: u32, args: &BenchArgs) -> Measured {
    let stage = stage_prefix(bytes);
    let mut options = Options::default()
        .with_flag(OptionFlags::VERIFY_CHECKSUM, false)
        .with_flag(OptionFlags::LEVEL9, args.level9)
        .with_float_emulation(args.float_emulation.option())
        .with_rov_interlock(dxbc2spv::RovInterlock::Pixel);
    let (first, mut peak_bytes) = fresh_translation(bytes, &options);
    let first = match first {
        Err(Error::Binding { .. }) => own_ranges(bytes).and_then(|bindings| {
            options.bindings = bindings;
            let (t, peak) = fresh_translation(bytes, &options);
            peak_bytes = peak;
            t.ok()
        }),
        other => other.ok(),
    };
    // Untimed, on this thread: the timed rounds find its buffers, as a runtime's translating
    // thread does after its first shader.
    let first = first.filter(|_| translate(bytes, &options).is_ok());
    let Some(first) = first else {
        return Measured {
            stage,
            mean_us: None,
            words: 0,
            peak_bytes: 0,
            opcodes: BTreeMap::new(),
        };
    };
    let start = Instant::now();
    for _ in 0..rounds {
        // The result is used (its length), so the work cannot be optimised away.
        if translate(bytes, &options).map_or(0, |t| t.spirv.len()) == 0 {
            return Measured {
                stage,
                mean_us: None,
                words: 0,
                peak_bytes: 0,
                opcodes: BTreeMap::new(),
            };
        }
    }
    let mean_us = start.elapsed().as_secs_f64() * 1e6 / f64::from(rounds);
    Measured {
        stage,
        mean_us: Some(mean_us),
        words: first.spirv.len(),
        peak_bytes,
        opcodes: if args.opcodes {
            words_by_opcode(&first.spirv)
        } else {
            BTreeMap::new()
        },
    }
}

/// The program's stage prefix (`cs`, `ps`, ...; `d3d9 vs` and `d3d9 ps` for Direct3D 9 token
/// streams, so the two formats are measured apart), `??` when it cannot be read.
fn stage_prefix(bytes: &[u8]) -> &'static str {
    match d3d9_version(bytes) {
        Some(v) if v.is_pixel() => "d3d9 ps",
        Some(_) => "d3d9 vs",
        None => stage_of(bytes).map_or("??", Stage::prefix),
    }
}

/// One binding per declared range (counters too), as a D3D12 runtime builds from reflection.
fn own_ranges(bytes: &[u8]) -> Option<Bindings> {
    let opts = ParseOptions {
        verify_checksum: false,
    };
    let container = Container::parse(bytes, &opts).ok()?;
    let module = lower::lower(&shader_program(&container).ok()?).ok()?;
    let ranges = module.register_ranges();
    TableBindings::one_binding_per_range(0, ranges)
        .ok()
        .map(Bindings::Table)
}

/// Mean and median of `values` (0 for none).
fn stats(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let median = if sorted.len() % 2 == 0 {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    };
    (mean, median)
}

#[cfg(test)]
mod tests {
    #[test]
    fn words_are_counted_by_opcode_after_the_header() {
        // Header, OpCapability Shader (2 words), OpMemoryModel (3), OpCapability (2).
        let module = [
            0x0723_0203,
            0x0001_0300,
            0,
            10,
            0,
            0x0002_0011,
            1,
            0x0003_000e,
            0,
            1,
        ];
        let mut module = module.to_vec();
        module.extend([0x0002_0011, 1]);
        let counts = super::words_by_opcode(&module);
        assert_eq!(counts.get(&17), Some(&4));
        assert_eq!(counts.get(&14), Some(&3));
        assert_eq!(counts.len(), 2);
        assert_eq!(super::opcode_name(17), "OpCapability");
        // A truncated instruction stops the count.
        module.push(0x0005_0011);
        assert_eq!(super::words_by_opcode(&module).get(&17), Some(&4));
    }

    #[test]
    fn stats_are_mean_and_median() {
        assert_eq!(super::stats(&[]), (0.0, 0.0));
        assert_eq!(super::stats(&[3.0, 1.0, 2.0]), (2.0, 2.0));
        assert_eq!(super::stats(&[4.0, 1.0, 2.0, 3.0]), (2.5, 2.5));
    }
}
