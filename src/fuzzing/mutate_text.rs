//! The token-aware mutator of the `assemble` fuzz target and its smoke test: edits fxc-syntax
//! listings the way a careless or hostile author would, so that most mutants still reach the
//! assembler's later stages (operands, declarations, header tables) instead of failing at the
//! first character.
//!
//! Contract: [`mutate_text`] applies one random edit to `text` (it stays valid UTF-8): delete,
//! duplicate or swap lines; replace a token with one from elsewhere in the text or from a list
//! of interesting spellings (huge and negative numbers, register kinds, masks, swizzles,
//! brackets, opcode names); change digits inside a token; or cut the text short. It never
//! panics, whatever `text` holds, and the result is at most twice as long plus a small constant.

use super::Rng;

/// Spellings that reach corner cases: numbers at the edges, every register kind, masks,
/// swizzles, separators, modifiers, and words from declarations.
const INTERESTING: &[&str] = &[
    "0",
    "1",
    "-1",
    "4294967295",
    "2147483648",
    "-2147483648",
    "65535",
    "4096",
    "4097",
    "1e38",
    "-0.0",
    "nan",
    "inf",
    "0x7fffffff",
    "r0",
    "r4095",
    "r4096",
    "x0[4096]",
    "v[3][0]",
    "o0",
    "cb0[4096]",
    "cb14[0]",
    "icb[0]",
    "t0",
    "t127",
    "u0",
    "u64",
    "s0",
    "s16",
    "g0",
    "vicp[0][0]",
    "vocp[0][0]",
    "vpc0",
    "vThreadID",
    "vPrim",
    "oDepth",
    ".x",
    ".xyzw",
    ".wzyx",
    ".xxxx",
    "[",
    "]",
    "(",
    ")",
    ",",
    "+",
    "-",
    "|",
    "_sat",
    "_z",
    "_nz",
    "l(1.0, 2.0, 3.0, 4.0)",
    "d(1.0, 2.0)",
    "dcl_temps",
    "dcl_indexableTemp",
    "dcl_immediateConstantBuffer",
    "{",
    "}",
    "if_nz",
    "else",
    "endif",
    "loop",
    "endloop",
    "break",
    "switch",
    "case",
    "default",
    "endswitch",
    "ret",
    "call",
    "label",
    "hs_fork_phase",
    "dcl_thread_group",
    "space=4294967295",
    "[0:*]",
    "[4294967295:0]",
    "//",
    "// Name Index Mask Register SysValue Format Used",
    "cs_5_1",
    "ps_4_0",
    "hs_5_0",
];

/// Applies one random edit to `text`.
pub fn mutate_text(rng: &mut Rng, text: &mut String) {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let i = rng.below(lines.len());
    match rng.below(8) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let line = lines[rng.below(lines.len())].clone();
            lines.insert(i, line);
        }
        2 => {
            let j = rng.below(lines.len());
            lines.swap(i, j);
        }
        3 | 4 => {
            let donor = if rng.percent(50) {
                rng.pick(INTERESTING).to_owned()
            } else {
                let other = &lines[rng.below(lines.len())];
                let tokens = tokens(other);
                if tokens.is_empty() {
                    rng.pick(INTERESTING).to_owned()
                } else {
                    let (s, e) = tokens[rng.below(tokens.len())];
                    other[s..e].to_owned()
                }
            };
            replace_token(rng, &mut lines[i], &donor);
        }
        5 => change_digits(rng, &mut lines[i]),
        6 => {
            let word = rng.pick(INTERESTING);
            let line = &mut lines[i];
            let at = char_boundary(line, rng.below(line.len() + 1));
            line.insert_str(at, word);
        }
        _ => lines.truncate(i + 1),
    }
    let mut out = lines.join("\n");
    out.push('\n');
    *text = out;
}

/// Byte ranges of the identifier-like and numeric tokens of `line`.
fn tokens(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        let part = c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, line.len()));
    }
    out
}

fn replace_token(rng: &mut Rng, line: &mut String, donor: &str) {
    let tokens = tokens(line);
    if tokens.is_empty() {
        line.push_str(donor);
        return;
    }
    let (s, e) = tokens[rng.below(tokens.len())];
    line.replace_range(s..e, donor);
}

/// Replaces the digits of one numeric run with a random number (small, near a limit, or huge).
fn change_digits(rng: &mut Rng, line: &mut String) {
    let digits: Vec<usize> = line
        .char_indices()
        .filter(|(_, c)| c.is_ascii_digit())
        .map(|(i, _)| i)
        .collect();
    if digits.is_empty() {
        return;
    }
    let start = digits[rng.below(digits.len())];
    let end = line[start..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(line.len(), |n| start + n);
    let value = match rng.below(4) {
        0 => u64::from(rng.next_u32() % 40),
        1 => rng.pick(&[
            31, 32, 33, 63, 64, 65, 127, 128, 1023, 1024, 4095, 4096, 65536,
        ]),
        2 => u64::from(rng.next_u32()),
        _ => rng.next_u64(),
    };
    line.replace_range(start..end, &value.to_string());
}

fn char_boundary(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}
