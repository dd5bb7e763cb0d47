//! Differential testing: random compute programs from the crate's generator
//! (`dxbc2spv::fuzzing::generate`, the `Defined` profile), interpreted by the oracle, written as
//! conformance cases whose expected values are the oracle's UAV contents, for the runner to
//! translate and run on the Vulkan device (`vk-tests differential --seed S --count N`).
//!
//! Contract: [`generate_case`] turns one seed into either a case file (the program's fxc-syntax
//! text inline, every declared raw, structured and typed buffer and constant buffer filled with
//! seeded contents, one `[[expect]]` per UAV giving every word bit-exactly) or a skip reason: a
//! program the oracle cannot run (a feature it does not model, an endless loop) or whose result
//! depends on what it never wrote or on the order of its threads is skipped, never guessed. The
//! same seed gives the same case; [`case_of_text`] does the same for any program text (a
//! shrunk one, see `super::shrink`).
//!
//! The `Defined` profile makes the comparison bit-exact without tolerances: its programs read
//! only written registers, have bounded loops and no races, canonicalise every float result
//! that may be a NaN before its bits are stored or read as an integer (so a NaN compares as
//! the one canonical NaN, `0x7fc00000`), and use no instruction D3D gives a ULP tolerance or
//! lets implementations fuse or reorder (`mad`, `dp*`, `div`, `rcp`, `rsq`, `sqrt`, `exp`,
//! `log`, `sincos` are never generated). Float32 denormals follow the oracle's rule (float
//! arithmetic flushes its inputs and results; moves, loads and stores keep bits), which the
//! translated program must match exactly. Cases require
//! `shaderSignedZeroInfNanPreserveFloat32` (D3D keeps infinities, NaNs and signed zeros).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use dxbc2spv::fuzzing::generate::defined;
use dxbc2spv::fuzzing::Rng;

use super::deviations::Deviation;
use super::program::{Class, DeclKind, Program};
use super::{machine, Fault};
use crate::conformance::Case;

/// Instructions per generated program (about).
pub const BUDGET: u32 = 40;

/// Instructions one thread may run in a generated program before it is skipped as endless.
const STEPS: u64 = 100_000;

/// What one seed gave.
#[derive(Debug)]
pub enum Generated {
    /// A case file ready for the runner.
    Case(PathBuf),
    /// No case: why.
    Skip(String),
}

fn word(rng: &mut Rng) -> u32 {
    match rng.below(6) {
        0 => rng.below32(16),
        1 => rng.next_u32(),
        2 => rng.pick(&[1.0f32, -2.5, 0.5, 100.0, -0.0, 3.0e9]).to_bits(),
        3 => rng.below32(64) * 4,
        4 => u32::MAX - rng.below32(4),
        _ => 0,
    }
}

fn words_toml(rng: &mut Rng, n: usize) -> String {
    let v: Vec<String> = (0..n).map(|_| format!("{:#010x}", word(rng))).collect();
    format!("[{}]", v.join(", "))
}

fn skip(why: impl Into<String>) -> Result<Generated, Fault> {
    Ok(Generated::Skip(why.into()))
}

/// One UAV's contents after the oracle's run.
#[derive(Clone)]
struct Contents {
    name: String,
    words: Vec<u32>,
    counter: Option<u32>,
}

/// What unwritten temps and TGSM hold in the second of the oracle's two runs.
const UNWRITTEN: u32 = 0x5a5a_5a5a;

/// Runs the case's program on the oracle and returns the UAVs named in `uavs`; `perturbed`:
/// with unwritten state [`UNWRITTEN`] and the threads in reverse order.
fn run(
    prog: &Program,
    case: &Case,
    uavs: &[String],
    groups: u32,
    perturbed: bool,
) -> Result<Vec<Contents>, Fault> {
    let mut m = machine(prog, case)?;
    m.step_limit = STEPS;
    if perturbed {
        m.unwritten = UNWRITTEN;
        m.reverse = true;
    }
    m.dispatch([groups, 1, 1])?;
    let mut out = Vec::new();
    for (i, b) in case.buffers.iter().enumerate() {
        if !uavs.contains(&b.name) {
            continue;
        }
        let Some(r) = m.resources.get(i) else {
            continue;
        };
        out.push(Contents {
            name: b.name.clone(),
            words: r
                .bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            counter: r.counter,
        });
    }
    Ok(out)
}

/// The text of the program generated for `seed` (fxc syntax).
pub fn program_text(seed: u64) -> String {
    defined::program_text(&mut Rng::new(seed), BUDGET)
}

/// Builds the case for `seed` in `dir` (`<seed>.toml`, holding the program's text): see
/// [`case_of_text`].
pub fn generate_case(seed: u64, dir: &Path, denormals_kept: bool) -> Result<Generated, Fault> {
    let text = program_text(seed);
    let description = format!("differential seed {seed}: expected values from the oracle");
    case_of_text(
        &text,
        seed,
        &seed.to_string(),
        &description,
        dir,
        denormals_kept,
        &[],
    )
}

/// Writes the case `<name>.toml` in `dir` for the program `text` (fxc syntax, inline as the
/// case's `[shader] asm`) with buffer contents drawn from `seed`, and the oracle's results as
/// its expected values. `denormals_kept`: the device cannot flush float32 denormals (no
/// `shaderDenormFlushToZeroFloat32`), so a UAV whose contents differ when the oracle keeps
/// denormals accepts either result (`one_of`); otherwise only D3D's flushed result.
///
/// A program whose result D3D leaves open is skipped: the oracle runs it twice, once with
/// unwritten temps, `x#` and TGSM holding 0 and its threads and groups in order, once with them
/// holding another word and the order reversed; results that differ mean it reads something
/// it never wrote or races.
///
/// With `deviations`, the case checks whether the device's result is the oracle's but for
/// the words their models (all at once) change, which hold `"*"` (skipped when the models
/// change no word).
pub fn case_of_text(
    text: &str,
    seed: u64,
    name: &str,
    description: &str,
    dir: &Path,
    denormals_kept: bool,
    deviations: &[&Deviation],
) -> Result<Generated, Fault> {
    let dxbc = dxbc2spv::text::dxbc::asm::assemble(text)
        .map_err(|e| Fault::Invalid(format!("assembling: {e}")))?;
    let prog = match Program::new(&dxbc) {
        Ok(p) => p,
        Err(Fault::Unsupported(why)) => return skip(why),
        Err(e) => return Err(e),
    };
    let mut data = Rng::new(seed ^ 0x9e37_79b9_7f4a_7c15);
    let groups = defined::GROUPS;
    let mut toml = format!(
        "description = \"{description}\"\n\
         requires = [\"shaderSignedZeroInfNanPreserveFloat32\"]\n\
         dispatch = [{groups}, 1, 1]\n\n[shader]\nasm = \"\"\"\n{text}\"\"\"\n"
    );
    let mut uavs = Vec::new();
    for d in &prog.resources {
        let prefix = match d.class {
            Class::Srv => "t",
            Class::Uav => "u",
            Class::Cb => "cb",
        };
        let (kind, extra, n) = match d.kind {
            DeclKind::Raw if d.class == Class::Uav => (
                "raw",
                String::new(),
                (defined::OUTPUT_BYTES / 4).max(64) as usize,
            ),
            DeclKind::Raw => ("raw", String::new(), 64),
            DeclKind::Structured(stride) if stride > 0 && stride % 4 == 0 => (
                "structured",
                format!("stride = {stride}\n"),
                stride as usize / 4 * 8,
            ),
            DeclKind::TypedBuffer => {
                let format = match d.return_type & 0xf {
                    3 => "r32g32b32a32_sint",
                    4 => "r32g32b32a32_uint",
                    5 => "r32g32b32a32_float",
                    _ => return skip("typed buffer of a normalized type"),
                };
                ("typed", format!("format = \"{format}\"\n"), 64)
            }
            DeclKind::Constant => ("constant", String::new(), d.cb_vec4s.max(1) as usize * 4),
            DeclKind::Structured(_) => return skip("structured stride"),
            // Bound (zero texels) so that the program can run; a program that uses it is
            // skipped when the oracle reaches the use.
            DeclKind::Texture => {
                let Some(dimension) = texture_toml(d.dimension) else {
                    return skip("multisampled texture");
                };
                let format = match d.return_type & 0xf {
                    3 => "r32g32b32a32_sint",
                    4 => "r32g32b32a32_uint",
                    _ => "r32g32b32a32_float",
                };
                let _ = write!(
                    toml,
                    "\n[[texture]]\nregister = \"{prefix}{}\"\nformat = \"{format}\"\n{dimension}",
                    d.id
                );
                continue;
            }
        };
        let register = format!("{prefix}{}", d.id);
        if d.class == Class::Uav {
            uavs.push(register.clone());
        }
        let counter = if d.has_counter { "counter = 0\n" } else { "" };
        let _ = write!(
            toml,
            "\n[[buffer]]\nregister = \"{register}\"\nkind = \"{kind}\"\n{extra}{counter}data = {}\n",
            words_toml(&mut data, n)
        );
    }
    for s in &prog.samplers {
        let _ = write!(toml, "\n[[sampler]]\nregister = \"s{s}\"\n");
    }
    let Some(first) = uavs.first() else {
        return skip("no UAV");
    };
    let probe = format!("{toml}\n[[expect]]\nbuffer = \"{first}\"\nvalues = [\"*\"]\n");
    let path = dir.join(format!("{name}.toml"));
    let case = Case::parse(&probe, &path).map_err(|e| Fault::Invalid(format!("{e:#}")))?;
    let flushed = match run(&prog, &case, &uavs, groups, false) {
        Ok(r) => r,
        Err(Fault::Unsupported(why)) => return skip(why),
        Err(e) => return Err(e),
    };
    match run(&prog, &case, &uavs, groups, true) {
        Ok(other)
            if other
                .iter()
                .map(|c| &c.words)
                .eq(flushed.iter().map(|c| &c.words)) => {}
        Ok(_) => return skip("reads an unwritten register or TGSM, or races"),
        Err(Fault::Unsupported(why)) => return skip(why),
        Err(e) => return Err(e),
    }
    let kept = if denormals_kept {
        super::alu::keep_denormals(|| run(&prog, &case, &uavs, groups, false))?
    } else {
        flushed.clone()
    };
    // Under a deviation's model: the words it changes accept anything.
    let loose = |ours: &[Contents], keep: bool| -> Result<Vec<Vec<bool>>, Fault> {
        if deviations.is_empty() {
            return Ok(ours.iter().map(|c| vec![false; c.words.len()]).collect());
        }
        let theirs = modelled(deviations, &mut || {
            if keep {
                super::alu::keep_denormals(|| run(&prog, &case, &uavs, groups, false))
            } else {
                run(&prog, &case, &uavs, groups, false)
            }
        })?;
        Ok(ours
            .iter()
            .zip(&theirs)
            .map(|(a, b)| a.words.iter().zip(&b.words).map(|(x, y)| x != y).collect())
            .collect())
    };
    let loose_flushed = loose(&flushed, false)?;
    let loose_kept = if denormals_kept {
        loose(&kept, true)?
    } else {
        loose_flushed.clone()
    };
    if !deviations.is_empty()
        && !loose_flushed
            .iter()
            .chain(&loose_kept)
            .flatten()
            .any(|&l| l)
    {
        return skip("the deviation does not change the result");
    }
    let none = Vec::new();
    for (i, (a, b)) in flushed.iter().zip(&kept).enumerate() {
        let list = |w: &[u32], any: &[bool]| {
            let v: Vec<String> = w
                .iter()
                .enumerate()
                .map(|(k, x)| {
                    if any.get(k).copied().unwrap_or(false) {
                        "\"*\"".to_owned()
                    } else {
                        format!("{x:#010x}")
                    }
                })
                .collect();
            format!("[{}]", v.join(", "))
        };
        let la = loose_flushed.get(i).unwrap_or(&none);
        let lb = loose_kept.get(i).unwrap_or(&none);
        if a.words == b.words && la == lb {
            let _ = write!(
                toml,
                "\n[[expect]]\nbuffer = \"{}\"\nvalues = {}\n",
                a.name,
                list(&a.words, la)
            );
        } else {
            let _ = write!(
                toml,
                "\n# D3D flushes float32 denormals; this device cannot, so the result with \
                 denormals kept is accepted too.\n[[expect]]\nbuffer = \"{}\"\none_of = [{}, {}]\n",
                a.name,
                list(&a.words, la),
                list(&b.words, lb)
            );
        }
        if let Some(n) = a.counter {
            let _ = write!(
                toml,
                "\n[[expect]]\nbuffer = \"{}\"\ncounter = {n}\n",
                a.name
            );
        }
    }
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, toml))
        .map_err(|e| Fault::Invalid(e.to_string()))?;
    Ok(Generated::Case(path))
}

/// `f` run under every model of `deviations` at once.
fn modelled<T>(deviations: &[&Deviation], f: &mut dyn FnMut() -> T) -> T {
    match deviations.split_first() {
        None => f(),
        Some((d, rest)) => d.model(|| modelled(rest, f)),
    }
}

/// The `[[texture]]` keys of a declaration's resource dimension (4 × 4 texels, 2 slices or
/// layers, cubes square); `None` for multisampled ones.
fn texture_toml(dimension: u32) -> Option<&'static str> {
    Some(match dimension {
        2 => "dimension = \"1d\"\nwidth = 4\n",
        3 => "dimension = \"2d\"\nwidth = 4\nheight = 4\n",
        5 => "dimension = \"3d\"\nwidth = 4\nheight = 4\ndepth = 2\n",
        6 => "dimension = \"cube\"\nwidth = 4\nheight = 4\n",
        7 => "dimension = \"1d_array\"\nwidth = 4\narray_layers = 2\n",
        8 => "dimension = \"2d_array\"\nwidth = 4\nheight = 4\narray_layers = 2\n",
        10 => "dimension = \"cube_array\"\nwidth = 4\nheight = 4\narray_layers = 12\n",
        _ => return None,
    })
}
