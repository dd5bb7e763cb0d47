//! The [`Profile::Defined`](super::Profile::Defined) generator: compute programs whose result
//! D3D defines, for differential runs against a reference interpreter.
//!
//! Contract: [`program`] writes one `cs_5_0` program (fxc-syntax text, assembled by the crate's
//! assembler) from a seeded [`Rng`], with a fixed interface ([`GROUPS`] groups of 1–8 threads;
//! `cb0` of 4 vectors, raw `t0` of 256 bytes, structured `t1` of stride 16, raw `u0` of
//! [`OUTPUT_BYTES`]) and these guarantees:
//!
//! - every temp component is written before it is read (initialised components are tracked
//!   through `if`/`else`, `loop` and `switch`: after a construct only what every path wrote);
//! - loops are bounded: each counts a constant trip count (1–4) in a counter it increments
//!   before its body, so data-dependent `breakc`/`continuec` cannot make it endless;
//! - no data races: each thread writes only its own `u0` slot; thread-group shared memory is
//!   written (at the thread's own slot) and read (a neighbour's slot) only at the top level,
//!   each access between two `sync_g_t`;
//! - no value D3D leaves open reaches memory or an integer instruction: a float result that may
//!   be a NaN (whose payload D3D does not fix) is canonicalised (`ne` + `movc` to `0x7fc00000`)
//!   before an integer instruction reads its bits and before it is stored; a loop body
//!   canonicalises, before `endloop` and before a `continuec`, what it made possibly-NaN, so
//!   that a later iteration reads its registers as the first did;
//! - no `_sat` (the sign of a saturated `-0` is open: `max(-0, +0)`), and each `min`/`max`
//!   result is followed by `add x, x, r10.w` (`r10.w` is 0, read past the end of `t0`): the
//!   sign of `min(-0, +0)` is open, and `x + 0` is `x` except that `-0` becomes `+0`;
//! - no instruction D3D lets implementations compute differently: no `mad`/`dp*` (may fuse or
//!   reorder), `div`, `rcp`, `rsq`, `sqrt`, `exp`, `log`, `sincos` (ULP tolerances), no
//!   `f32tof16` (D3D's text asks round-toward-zero, hardware rounds to nearest even, and a
//!   NaN's half payload is open), no `refactoringAllowed` flag;
//! - loads read whole components inside a buffer and structure, or wholly past the end;
//! - at the end every value register `r0`–`r7` stores its initialised components (canonical)
//!   to `u0` at `vThreadID.x * 128 + register * 16`, packed from `.x`.

use std::fmt::Write as _;

use super::super::Rng;
use crate::text::dxbc::asm::assemble_program;

/// Thread groups a [`Profile::Defined`](super::Profile::Defined) program is dispatched with
/// (along x).
pub const GROUPS: u32 = 2;
/// Bytes of the raw output UAV `u0`: 128 bytes per thread, at most 8 threads per group.
pub const OUTPUT_BYTES: u32 = 128 * 8 * GROUPS;

/// Value registers `r0`–`r7`; `r8` is scratch, `r9` holds addresses, `r10` loop counters
/// (`.x`, `.y`) and a zero (`.w`).
const VALUES: usize = 8;
const SCRATCH: &str = "r8";
const COMPONENTS: [char; 4] = ['x', 'y', 'z', 'w'];

/// Per-register masks of what the current path has written and what may hold a non-canonical
/// NaN.
#[derive(Clone, Copy, Default)]
struct State {
    init: [u8; VALUES],
    float: [u8; VALUES],
}

struct Gen<'a> {
    rng: &'a mut Rng,
    out: String,
    s: State,
    /// Instructions left to draw.
    budget: u32,
    loops: u32,
    depth: u32,
    /// Every component marked possibly-NaN since the innermost loop began (a `breakc` or
    /// `continuec` leaves the body from the middle, with any of them).
    seen_float: [u8; VALUES],
}

fn mask_text(mask: u8) -> String {
    COMPONENTS
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, c)| *c)
        .collect()
}

fn comps(mask: u8) -> Vec<usize> {
    (0..4).filter(|i| mask & (1 << i) != 0).collect()
}

/// An interesting float for immediates.
const FLOATS: [f32; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.5,
    -3.75,
    100.0,
    1.0e30,
    -1.0e-30,
    16777216.0,
    0.49999997,
    f32::INFINITY,
    -2147483648.0,
];

impl Gen<'_> {
    fn line(&mut self, text: &str) {
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn imm(&mut self, float: bool) -> String {
        let v: Vec<String> = (0..4)
            .map(|_| {
                if float && self.rng.chance(80) {
                    let f = self.rng.pick(&FLOATS);
                    format!("0x{:08x}", f.to_bits())
                } else {
                    let w = match self.rng.below32(5) {
                        0 => self.rng.next_u32(),
                        1 => u32::MAX - self.rng.below32(4),
                        2 => 0x8000_0000 | self.rng.below32(3),
                        _ => self.rng.below32(40),
                    };
                    format!("0x{w:08x}")
                }
            })
            .collect();
        format!("l({})", v.join(", "))
    }

    /// Canonicalises every component that may be a NaN now but was not in `entry` (the state
    /// at a loop's start), so that the loop's next iteration starts as the first did.
    fn canonical_as_at_entry(&mut self, entry: &State) {
        for reg in 0..VALUES {
            let new = self.s.float[reg] & !entry.float[reg];
            self.canonicalise(reg, new);
        }
    }

    /// Rewrites the possibly-NaN components `mask` of `r{reg}` to the canonical NaN.
    fn canonicalise(&mut self, reg: usize, mask: u8) {
        let mask = mask & self.s.float[reg];
        if mask == 0 {
            return;
        }
        let m = mask_text(mask);
        let sw = full_swizzle(mask, |c| COMPONENTS[c]);
        self.line(&format!("ne {SCRATCH}.{m}, r{reg}.{sw}, r{reg}.{sw}"));
        self.line(&format!(
            "movc r{reg}.{m}, {SCRATCH}.{sw}, l(0x7fc00000, 0x7fc00000, 0x7fc00000, 0x7fc00000), r{reg}.{sw}"
        ));
        self.s.float[reg] &= !mask;
    }

    /// A source for an instruction writing `dst` (a component mask): an initialised register
    /// (only canonical components when `int`), a `cb0` vector or an immediate, with float
    /// modifiers when `float`. Also says whether it may carry a NaN payload.
    fn src(&mut self, dst: u8, float: bool, int: bool) -> (String, bool) {
        let regs: Vec<usize> = (0..VALUES).filter(|&r| self.s.init[r] != 0).collect();
        let pick = self.rng.below32(10);
        if pick < 7 && !regs.is_empty() {
            let reg = self.rng.pick(&regs);
            if int && self.rng.chance(50) {
                self.canonicalise(reg, self.s.init[reg]);
            }
            let allowed = if int {
                self.s.init[reg] & !self.s.float[reg]
            } else {
                self.s.init[reg]
            };
            if allowed != 0 {
                let choices = comps(allowed);
                let mut picked = [0usize; 4];
                for c in comps(dst) {
                    picked[c] = self.rng.pick(&choices);
                }
                let nan = comps(dst)
                    .iter()
                    .any(|&c| self.s.float[reg] & (1 << picked[c]) != 0);
                let sw = full_swizzle(dst, |c| COMPONENTS[picked[c]]);
                return (self.modify(format!("r{reg}.{sw}"), float), nan);
            }
        }
        if pick < 8 && int && self.rng.chance(50) {
            return ("r9.yyyy".to_owned(), false);
        }
        if pick < 9 {
            let k = self.rng.below32(4);
            let sw: String = (0..4).map(|_| COMPONENTS[self.rng.below(4)]).collect();
            return (self.modify(format!("cb0[{k}].{sw}"), float), false);
        }
        (self.imm(float), false)
    }

    fn modify(&mut self, operand: String, float: bool) -> String {
        if !float {
            return operand;
        }
        match self.rng.below32(8) {
            0 => format!("-{operand}"),
            1 => format!("|{operand}|"),
            2 => format!("-|{operand}|"),
            _ => operand,
        }
    }

    fn dst(&mut self) -> (usize, u8) {
        let reg = self.rng.below(VALUES);
        let mask = if self.rng.chance(40) {
            1 << self.rng.below32(4)
        } else {
            self.rng.range(1, 15) as u8
        };
        (reg, mask)
    }

    fn wrote(&mut self, reg: usize, mask: u8, nan: bool) {
        self.s.init[reg] |= mask;
        if nan {
            self.s.float[reg] |= mask;
            self.seen_float[reg] |= mask;
        } else {
            self.s.float[reg] &= !mask;
        }
    }

    /// One ALU instruction: `ops` are (mnemonic, sources).
    fn alu(&mut self) {
        // (mnemonic, sources, sources are floats, result may be NaN)
        const FLOAT: &[(&str, u32, bool)] = &[
            ("add", 2, true),
            ("mul", 2, true),
            ("min", 2, true),
            ("max", 2, true),
            ("round_ne", 1, true),
            ("round_ni", 1, true),
            ("round_pi", 1, true),
            ("round_z", 1, true),
            ("frc", 1, true),
            ("eq", 2, false),
            ("ne", 2, false),
            ("lt", 2, false),
            ("ge", 2, false),
            ("ftoi", 1, false),
            ("ftou", 1, false),
        ];
        const INT: &[(&str, u32, bool)] = &[
            ("iadd", 2, false),
            ("ishl", 2, false),
            ("ishr", 2, false),
            ("ushr", 2, false),
            ("and", 2, false),
            ("or", 2, false),
            ("xor", 2, false),
            ("imin", 2, false),
            ("imax", 2, false),
            ("umin", 2, false),
            ("umax", 2, false),
            ("ieq", 2, false),
            ("ine", 2, false),
            ("ilt", 2, false),
            ("ige", 2, false),
            ("ult", 2, false),
            ("uge", 2, false),
            ("not", 1, false),
            ("ineg", 1, false),
            ("bfrev", 1, false),
            ("countbits", 1, false),
            ("firstbit_hi", 1, false),
            ("firstbit_lo", 1, false),
            ("firstbit_shi", 1, false),
            ("imad", 3, false),
            ("umad", 3, false),
            ("ubfe", 3, false),
            ("ibfe", 3, false),
            ("bfi", 4, false),
            ("itof", 1, false),
            ("utof", 1, false),
            ("f16tof32", 1, true),
        ];
        const TWO: &[&str] = &["imul", "umul", "udiv", "uaddc", "usubb"];
        let (reg, mask) = self.dst();
        let m = mask_text(mask);
        match self.rng.below32(10) {
            0..=3 => {
                let (name, n, nan) = self.rng.pick(FLOAT);
                let srcs: Vec<String> = (0..n).map(|_| self.src(mask, true, false).0).collect();
                self.line(&format!("{name} r{reg}.{m}, {}", srcs.join(", ")));
                if name == "min" || name == "max" {
                    // D3D leaves the sign of min(-0, +0) open: x + 0 keeps every other value
                    // and turns -0 into +0. The zero is `r10.w`, loaded past the end of
                    // `t0` (lavapipe folds `x + l(0)` into `x`, keeping -0).
                    let sw = full_swizzle(mask, |c| COMPONENTS[c]);
                    self.line(&format!("add r{reg}.{m}, r{reg}.{sw}, r10.wwww"));
                }
                self.wrote(reg, mask, nan);
            }
            4..=7 => {
                let (name, n, nan) = self.rng.pick(INT);
                let srcs: Vec<String> = (0..n).map(|_| self.src(mask, false, true).0).collect();
                self.line(&format!("{name} r{reg}.{m}, {}", srcs.join(", ")));
                self.wrote(reg, mask, nan);
            }
            8 => {
                let name = self.rng.pick(TWO);
                let srcs: Vec<String> = (0..2).map(|_| self.src(mask, false, true).0).collect();
                let (other, _) = self.dst();
                let first = self.rng.chance(50);
                let (d0, d1) = if other == reg || self.rng.chance(30) {
                    if first {
                        (format!("r{reg}.{m}"), "null".to_owned())
                    } else {
                        ("null".to_owned(), format!("r{reg}.{m}"))
                    }
                } else {
                    (format!("r{reg}.{m}"), format!("r{other}.{m}"))
                };
                self.line(&format!("{name} {d0}, {d1}, {}", srcs.join(", ")));
                if d0 != "null" {
                    self.wrote(reg, mask, false);
                }
                if d1.starts_with(&format!("r{other}")) {
                    self.wrote(other, mask, false);
                } else if d1 != "null" {
                    self.wrote(reg, mask, false);
                }
            }
            _ => {
                // Bit moves keep a NaN payload as it is.
                let (c, _) = self.src(mask, false, false);
                let (a, na) = self.src(mask, false, false);
                if self.rng.chance(40) {
                    self.line(&format!("mov r{reg}.{m}, {a}"));
                    self.wrote(reg, mask, na);
                } else {
                    let (b, nb) = self.src(mask, false, false);
                    self.line(&format!("movc r{reg}.{m}, {c}, {a}, {b}"));
                    self.wrote(reg, mask, na || nb);
                }
            }
        }
    }

    /// A raw or structured load, each component either wholly inside the buffer (and the
    /// structure) or the whole access past the end: whether a component past a structure's
    /// stride reads 0 or the next structure is left open here.
    fn load(&mut self) {
        let (reg, mask) = self.dst();
        let m = mask_text(mask);
        let top = comps(mask).last().copied().unwrap_or(0) as u32;
        if self.rng.chance(50) {
            // Raw: the thread's 16 bytes, a fixed offset, or past the end (reads 0).
            let addr = match self.rng.below32(3) {
                0 => "r9.w".to_owned(),
                1 => format!("l({})", self.rng.below32(64 - top) * 4),
                _ => format!("l({})", 256 + self.rng.below32(8) * 4),
            };
            self.line(&format!("ld_raw r{reg}.{m}, {addr}, t0.xyzw"));
        } else {
            let index = if self.rng.chance(50) {
                "r9.y".to_owned()
            } else {
                // Elements 8 and 9 are past the end (read 0).
                format!("l({})", self.rng.below32(10))
            };
            let offset = self.rng.below32(4 - top) * 4;
            self.line(&format!(
                "ld_structured r{reg}.{m}, {index}, l({offset}), t1.xyzw"
            ));
        }
        self.wrote(reg, mask, false);
    }

    /// Thread-group shared memory: store at the thread's slot, read the neighbour's.
    fn tgsm(&mut self) {
        let regs: Vec<usize> = (0..VALUES).filter(|&r| self.s.init[r] != 0).collect();
        if regs.is_empty() {
            return;
        }
        let src = self.rng.pick(&regs);
        self.canonicalise(src, self.s.init[src]);
        let choices = comps(self.s.init[src]);
        let mut picked = [0usize; 4];
        for p in &mut picked {
            *p = self.rng.pick(&choices);
        }
        let sw = full_swizzle(15, |c| COMPONENTS[picked[c]]);
        self.line("sync_g_t");
        self.line(&format!("store_raw g0.xyzw, r9.w, r{src}.{sw}"));
        self.line("sync_g_t");
        let (reg, mask) = self.dst();
        self.line(&format!("ld_raw r{reg}.{}, r9.z, g0.xyzw", mask_text(mask)));
        self.wrote(reg, mask, false);
    }

    fn block(&mut self, n: u32) {
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            match self.rng.below32(20) {
                0 | 1 if self.depth < 3 => self.branch(),
                2 if self.depth < 3 && self.loops < 2 => self.looped(),
                3 if self.depth < 3 => self.switch(),
                4 | 5 => self.load(),
                6 if self.depth == 0 => self.tgsm(),
                _ => self.alu(),
            }
        }
    }

    /// A condition component: any initialised component (a NaN's bits are never zero).
    fn condition(&mut self) -> String {
        let regs: Vec<usize> = (0..VALUES).filter(|&r| self.s.init[r] != 0).collect();
        if regs.is_empty() || self.rng.chance(20) {
            return "r9.y".to_owned();
        }
        let reg = self.rng.pick(&regs);
        let c = self.rng.pick(&comps(self.s.init[reg]));
        format!("r{reg}.{}", COMPONENTS[c])
    }

    fn nested(&mut self) -> State {
        let before = self.s;
        self.depth += 1;
        let n = self.rng.range(1, 4);
        self.block(n);
        self.depth -= 1;
        std::mem::replace(&mut self.s, before)
    }

    fn branch(&mut self) {
        let cond = self.condition();
        let z = if self.rng.chance(50) { "z" } else { "nz" };
        self.line(&format!("if_{z} {cond}"));
        let before = self.s;
        let then = self.nested();
        let other = if self.rng.chance(50) {
            self.line("else");
            self.nested()
        } else {
            before
        };
        self.line("endif");
        for r in 0..VALUES {
            self.s.init[r] = before.init[r] | (then.init[r] & other.init[r]);
            self.s.float[r] = then.float[r] | other.float[r];
        }
    }

    fn looped(&mut self) {
        let counter = format!("r10.{}", COMPONENTS[self.loops as usize]);
        self.loops += 1;
        let trips = self.rng.range(1, 4);
        self.line(&format!("mov {counter}, l(0)"));
        self.line("loop");
        self.line(&format!("uge {SCRATCH}.x, {counter}, l({trips})"));
        self.line(&format!("breakc_nz {SCRATCH}.x"));
        self.line(&format!("iadd {counter}, {counter}, l(1)"));
        let before = self.s;
        let outer_seen = std::mem::take(&mut self.seen_float);
        self.depth += 1;
        let n = self.rng.range(1, 4);
        self.block(n);
        if self.rng.chance(30) {
            let cond = self.condition();
            let kind = self
                .rng
                .pick(&["breakc_nz", "breakc_z", "continuec_nz", "continuec_z"]);
            if kind.starts_with("continuec") {
                self.canonical_as_at_entry(&before);
            }
            self.line(&format!("{kind} {cond}"));
            let n = self.rng.range(1, 2);
            self.block(n);
        }
        // The next iteration reads what this one wrote as the body was drawn for the first:
        // no component may be a NaN there that was not one at the loop's entry.
        self.canonical_as_at_entry(&before);
        self.depth -= 1;
        self.line("endloop");
        self.loops -= 1;
        let body = std::mem::replace(&mut self.s, before);
        for (r, outer) in outer_seen.iter().enumerate() {
            self.s.float[r] |= body.float[r] | self.seen_float[r];
            self.seen_float[r] |= outer;
        }
    }

    fn switch(&mut self) {
        // The selector's bits matter (`and`): a canonical component.
        let cond = self.condition();
        if let Some(reg) = cond
            .strip_prefix('r')
            .and_then(|r| r.split('.').next())
            .and_then(|r| r.parse::<usize>().ok())
            .filter(|&r| r < VALUES)
        {
            self.canonicalise(reg, self.s.init[reg]);
        }
        self.line(&format!("and {SCRATCH}.x, {cond}, l(3)"));
        self.line(&format!("switch {SCRATCH}.x"));
        let before = self.s;
        let mut float = before.float;
        let mut labels: Vec<u32> = vec![0, 1, 2, 3];
        while !labels.is_empty() {
            let take = self.rng.range(1, labels.len() as u32) as usize;
            for l in labels.drain(..take) {
                self.line(&format!("case l({l})"));
            }
            if labels.is_empty() && self.rng.chance(50) {
                self.line("default");
            }
            let s = self.nested();
            for (f, case) in float.iter_mut().zip(s.float) {
                *f |= case;
            }
            self.line("break");
        }
        self.line("endswitch");
        self.s.float = float;
    }

    fn epilogue(&mut self) {
        for reg in 0..VALUES {
            let init = self.s.init[reg];
            if init == 0 {
                continue;
            }
            self.canonicalise(reg, init);
            let picked = comps(init);
            let sw = full_swizzle(15, |c| COMPONENTS[*picked.get(c).unwrap_or(&picked[0])]);
            let m = mask_text(((1u16 << picked.len()) - 1) as u8);
            self.line(&format!("iadd {SCRATCH}.x, r9.x, l({})", reg * 16));
            self.line(&format!("store_raw u0.{m}, {SCRATCH}.x, r{reg}.{sw}"));
        }
        self.line("ret");
    }
}

/// A four-letter swizzle whose letter at each component of `mask` is `letter(component)` (the
/// others repeat the first one).
fn full_swizzle(mask: u8, letter: impl Fn(usize) -> char) -> String {
    let cs = comps(mask);
    let first = letter(cs.first().copied().unwrap_or(0));
    (0..4)
        .map(|c| {
            if mask & (1 << c) != 0 {
                letter(c)
            } else {
                first
            }
        })
        .collect()
}

/// The program's text (see the module documentation), about `budget` random instructions.
pub fn program_text(rng: &mut Rng, budget: u32) -> String {
    let threads = rng.range(1, 8);
    let mut g = Gen {
        rng,
        out: String::new(),
        s: State::default(),
        budget,
        loops: 0,
        depth: 0,
        seen_float: [0; VALUES],
    };
    let _ = write!(
        g.out,
        "cs_5_0\n\
         dcl_constantbuffer CB0[4], immediateIndexed\n\
         dcl_resource_raw t0\n\
         dcl_resource_structured t1, 16\n\
         dcl_uav_raw u0\n\
         dcl_input vThreadIDInGroupFlattened\n\
         dcl_input vThreadID.x\n\
         dcl_temps 11\n\
         dcl_tgsm_raw g0, 128\n\
         dcl_thread_group {threads}, 1, 1\n\
         ishl r9.x, vThreadID.x, l(7)\n\
         mov r9.y, vThreadID.x\n\
         ishl r9.w, vThreadIDInGroupFlattened, l(4)\n\
         iadd r9.z, vThreadIDInGroupFlattened, l(1)\n\
         udiv null, r9.z, r9.z, l({threads})\n\
         ishl r9.z, r9.z, l(4)\n\
         ld_raw r10.w, l(1024), t0.xxxx\n\
         ld_raw r0.xyzw, r9.w, t0.xyzw\n"
    );
    g.s.init[0] = 15;
    while g.budget > 0 {
        g.block(1);
    }
    g.epilogue();
    g.out
}

/// The program chunk's dwords of [`program_text`]; `coverage[opcode]` counts the opcodes.
pub fn program(rng: &mut Rng, budget: u32, coverage: &mut [u32]) -> Vec<u32> {
    let text = program_text(rng, budget);
    let (_, words) = assemble_program(&text).unwrap_or_else(|e| {
        panic!("the defined-profile generator wrote a program it cannot assemble: {e}\n{text}")
    });
    let mut i = 2;
    while let Some(&token) = words.get(i) {
        let opcode = (token & 0x7ff) as usize;
        let len = if opcode == 0x35 {
            words.get(i + 1).copied().unwrap_or(0) as usize
        } else {
            ((token >> 24) & 0x7f) as usize
        };
        if let Some(c) = coverage.get_mut(opcode) {
            *c += 1;
        }
        i += len.max(1);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_assemble_and_repeat() {
        for seed in 0..300 {
            let mut cov = [0u32; 256];
            let a = program(&mut Rng::new(seed), 40, &mut cov);
            let b = program(&mut Rng::new(seed), 40, &mut [0u32; 256]);
            assert_eq!(a, b, "seed {seed}");
        }
    }

    #[test]
    fn every_read_register_component_was_written() {
        // The text reads `rN.c` only after a write of `rN` that includes `c` on every path;
        // checked loosely here: the first mention of each value register is a destination.
        for seed in 0..300 {
            let text = program_text(&mut Rng::new(seed), 40);
            for reg in 1..VALUES {
                let name = format!("r{reg}.");
                let Some(line) = text.lines().find(|l| l.contains(&name)) else {
                    continue;
                };
                let (op, rest) = line.split_once(' ').unwrap_or((line, ""));
                let dests = if ["imul", "umul", "udiv", "uaddc", "usubb"].contains(&op) {
                    2
                } else {
                    1
                };
                let ops: Vec<&str> = rest.split(", ").collect();
                assert!(
                    ops.iter().take(dests).any(|o| o.starts_with(&name)),
                    "seed {seed}: r{reg} first appears as a source: {line}\n{text}"
                );
            }
        }
    }
}
