//! Shrinking a generated program that mismatches to a small reproducer, by delta debugging over
//! the lines of its fxc-syntax text.
//!
//! Contract: [`shrink`] removes lines from a program while a caller's predicate (`still_fails`:
//! the candidate is valid and Defined per the oracle, and the device still disagrees) holds for
//! the result, and returns the smallest text it reached within `max_tries` predicate calls. It
//! keeps the program's shape valid by construction:
//!
//! - declarations, `sync*` barriers, `ret`, a `break` that ends a `switch` case, and every
//!   instruction writing a protected register (the `Defined` profile's addresses, loop
//!   counters and zero: `r9`, `r10`) are never removed;
//! - the profile's guards stay: the NaN canonicalisation (`ne` of a value with itself and the
//!   `movc` of `0x7fc00000` it selects) is kept, and the `add x, x, r10.w` after a `min`/`max`
//!   is removed only with the instruction before it;
//! - control flow stays balanced: an `if`, `loop` or `switch` is removed whole (from its opener
//!   to its closer), or an `if` is replaced by its `then` or `else` body;
//! - everything else is removed in chunks (halving from half the removable lines down to one),
//!   as in delta debugging, repeated until a pass removes nothing.
//!
//! Whether a removal keeps the program Defined (no read of an unwritten register, no race, no
//! endless loop) is the predicate's judgement, not the shrinker's.

/// What [`shrink`] reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shrunk {
    /// The smallest failing text found (the input when nothing could be removed).
    pub text: String,
    /// Predicate calls made.
    pub tries: usize,
    /// Lines removed.
    pub removed: usize,
}

/// Registers the shrinker never stops writing (see the module documentation).
const PROTECTED: [&str; 2] = ["r9", "r10"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Never removed.
    Fixed,
    /// `if_*`, `loop`, `switch`.
    Open,
    /// `else`, `case`, `default`.
    Middle,
    /// `endif`, `endloop`, `endswitch`.
    Close,
    /// Removed only with the line before it.
    Guard,
    /// Removable on its own.
    Plain,
}

fn mnemonic(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

fn operands(line: &str) -> Vec<&str> {
    let rest = line.trim().split_once(' ').map_or("", |(_, r)| r);
    // Immediates hold commas inside `l(...)`: split at top level only.
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0usize);
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(rest[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !rest.trim().is_empty() {
        out.push(rest[start..].trim());
    }
    out
}

/// The kind of each line, given the constructs open at it.
fn kinds(lines: &[String]) -> Vec<Kind> {
    let mut open: Vec<&str> = Vec::new();
    lines
        .iter()
        .map(|line| {
            let op = mnemonic(line);
            let ops = operands(line);
            let writes_protected = ops.first().is_some_and(|d| {
                let reg = d.trim_start_matches('-').split('.').next().unwrap_or("");
                PROTECTED.contains(&reg)
            });
            if op.starts_with("if_") || op == "loop" || op == "switch" {
                open.push(if op == "switch" { "switch" } else { op });
                Kind::Open
            } else if ["endif", "endloop", "endswitch"].contains(&op) {
                open.pop();
                Kind::Close
            } else if ["else", "case", "default"].contains(&op) {
                Kind::Middle
            } else if op.is_empty()
                || op.starts_with("cs_")
                || op.starts_with("dcl_")
                || op.starts_with("sync")
                || op == "ret"
                || (op == "break" && open.last() == Some(&"switch"))
                || writes_protected
                || (op == "ne" && ops.len() == 3 && ops.get(1) == ops.get(2))
                || (op == "movc" && line.contains("l(0x7fc00000"))
            {
                Kind::Fixed
            } else if op == "add" && ops.get(2).is_some_and(|s| s.starts_with("r10.w")) {
                Kind::Guard
            } else {
                Kind::Plain
            }
        })
        .collect()
}

/// The removable units outside control-flow headers: a plain line with the guards after it.
fn plain_units(kinds: &[Kind]) -> Vec<Vec<usize>> {
    let mut units = Vec::new();
    for (i, k) in kinds.iter().enumerate() {
        if *k != Kind::Plain {
            continue;
        }
        let mut unit = vec![i];
        let mut j = i + 1;
        while kinds.get(j) == Some(&Kind::Guard) {
            unit.push(j);
            j += 1;
        }
        units.push(unit);
    }
    units
}

/// One construct: the lines of its opener, its middles (`else`, `case`, `default`) and closer.
struct Construct {
    open: usize,
    middles: Vec<usize>,
    close: usize,
}

/// Every balanced construct, outermost (earliest opener) first.
fn constructs(kinds: &[Kind]) -> Vec<Construct> {
    let (mut stack, mut out): (Vec<Construct>, Vec<Construct>) = (Vec::new(), Vec::new());
    for (i, k) in kinds.iter().enumerate() {
        match k {
            Kind::Open => stack.push(Construct {
                open: i,
                middles: Vec::new(),
                close: i,
            }),
            Kind::Middle => {
                if let Some(c) = stack.last_mut() {
                    c.middles.push(i);
                }
            }
            Kind::Close => {
                if let Some(mut c) = stack.pop() {
                    c.close = i;
                    out.push(c);
                }
            }
            _ => {}
        }
    }
    out.sort_by_key(|c| c.open);
    out
}

struct Shrinker<'f> {
    lines: Vec<String>,
    tries: usize,
    max_tries: usize,
    still_fails: &'f mut dyn FnMut(&str) -> bool,
}

impl Shrinker<'_> {
    /// Tries the program without the lines `drop`; keeps it if it still fails.
    fn try_without(&mut self, drop: &[usize]) -> bool {
        if drop.is_empty() || self.tries >= self.max_tries {
            return false;
        }
        self.tries += 1;
        let kept: Vec<String> = self
            .lines
            .iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(i))
            .map(|(_, l)| l.clone())
            .collect();
        if (self.still_fails)(&join(&kept)) {
            self.lines = kept;
            true
        } else {
            false
        }
    }

    /// Removes whole constructs, or an `if`'s header and one branch; true if any went.
    fn constructs_pass(&mut self) -> bool {
        let mut progress = false;
        let mut k = 0;
        loop {
            let kinds = kinds(&self.lines);
            let all = constructs(&kinds);
            let Some(c) = all.get(k) else {
                return progress;
            };
            let whole: Vec<usize> = (c.open..=c.close).collect();
            let mut options = vec![whole];
            if self
                .lines
                .get(c.open)
                .is_some_and(|l| mnemonic(l).starts_with("if_"))
            {
                match c.middles.first() {
                    Some(&e) => {
                        // Keep the `then` body; keep the `else` body.
                        options.push(
                            std::iter::once(c.open)
                                .chain(e..=c.close)
                                .collect::<Vec<_>>(),
                        );
                        options.push((c.open..=e).chain([c.close]).collect());
                    }
                    None => options.push(vec![c.open, c.close]),
                }
            }
            if options.iter().any(|o| self.try_without(o)) {
                progress = true;
            } else {
                k += 1;
            }
        }
    }

    /// Delta debugging over the plain units; true if any went.
    fn plain_pass(&mut self) -> bool {
        let mut progress = false;
        let mut chunk = (plain_units(&kinds(&self.lines)).len() / 2).max(1);
        loop {
            let mut i = 0;
            loop {
                let units = plain_units(&kinds(&self.lines));
                if i >= units.len() {
                    break;
                }
                let drop: Vec<usize> = units[i..(i + chunk).min(units.len())]
                    .iter()
                    .flatten()
                    .copied()
                    .collect();
                if self.try_without(&drop) {
                    progress = true;
                } else {
                    i += chunk;
                }
            }
            if chunk == 1 {
                return progress;
            }
            chunk /= 2;
        }
    }
}

fn join(lines: &[String]) -> String {
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// Shrinks `text` while `still_fails` holds, calling it at most `max_tries` times (see the
/// module documentation). `still_fails` is never called with `text` itself.
pub fn shrink(text: &str, max_tries: usize, still_fails: &mut dyn FnMut(&str) -> bool) -> Shrunk {
    let lines: Vec<String> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let before = lines.len();
    let mut s = Shrinker {
        lines,
        tries: 0,
        max_tries,
        still_fails,
    };
    loop {
        let a = s.constructs_pass();
        let b = s.plain_pass();
        if !(a || b) || s.tries >= s.max_tries {
            break;
        }
    }
    Shrunk {
        removed: before - s.lines.len(),
        text: join(&s.lines),
        tries: s.tries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "\
cs_5_0
dcl_uav_raw u0
dcl_temps 11
dcl_thread_group 2, 1, 1
ishl r9.x, vThreadID.x, l(7)
mov r0.x, l(1)
mov r1.x, l(2)
min r2.x, r0.x, r1.x
add r2.x, r2.x, r10.wwww
if_nz r0.x
  iadd r3.x, r0.x, l(5)
  loop
    breakc_nz r0.x
    iadd r4.x, r0.x, r1.x
  endloop
else
  udiv r5.x, null, r0.x, r1.x
endif
ne r8.x, r2.x, r2.x
movc r2.x, r8.x, l(0x7fc00000, 0x7fc00000, 0x7fc00000, 0x7fc00000), r2.x
and r8.x, r1.x, l(3)
switch r8.x
case l(0)
  xor r6.x, r0.x, r1.x
  break
default
  break
endswitch
store_raw u0.x, r9.x, r2.x
ret
";

    /// Openers and closers pair up, and `else` sits inside an `if`.
    fn balanced(text: &str) -> bool {
        let mut stack = Vec::new();
        for line in text.lines() {
            match mnemonic(line) {
                op if op.starts_with("if_") => stack.push("if"),
                "loop" => stack.push("loop"),
                "switch" => stack.push("switch"),
                "else" if stack.last() != Some(&"if") => return false,
                "endif" if stack.pop() != Some("if") => return false,
                "endloop" if stack.pop() != Some("loop") => return false,
                "endswitch" if stack.pop() != Some("switch") => return false,
                _ => {}
            }
        }
        stack.is_empty()
    }

    fn shrink_while(needle: &[&str]) -> Shrunk {
        let mut calls = 0;
        let shrunk = shrink(PROGRAM, 500, &mut |t: &str| {
            calls += 1;
            assert!(balanced(t), "unbalanced candidate:\n{t}");
            assert!(t.contains("ret\n") && t.contains("dcl_temps 11"), "{t}");
            needle.iter().all(|n| t.contains(n))
        });
        assert_eq!(calls, shrunk.tries);
        shrunk
    }

    #[test]
    fn keeps_only_what_the_failure_needs_and_the_fixed_lines() {
        let s = shrink_while(&["xor r6.x"]);
        // Everything but the declarations, protected writes, guards, the switch (whose case
        // holds the line) and the line itself is gone.
        let expected = "\
cs_5_0
dcl_uav_raw u0
dcl_temps 11
dcl_thread_group 2, 1, 1
ishl r9.x, vThreadID.x, l(7)
ne r8.x, r2.x, r2.x
movc r2.x, r8.x, l(0x7fc00000, 0x7fc00000, 0x7fc00000, 0x7fc00000), r2.x
switch r8.x
case l(0)
  xor r6.x, r0.x, r1.x
  break
default
  break
endswitch
ret
";
        assert_eq!(s.text, expected);
        assert_eq!(
            s.removed,
            PROGRAM.lines().count() - expected.lines().count()
        );
    }

    #[test]
    fn unwraps_an_if_and_keeps_its_else_body() {
        let s = shrink_while(&["udiv r5.x"]);
        assert!(
            !s.text.contains("if_nz") && !s.text.contains("else"),
            "{}",
            s.text
        );
        assert!(
            s.text.contains("udiv r5.x") && !s.text.contains("loop"),
            "{}",
            s.text
        );
    }

    #[test]
    fn a_min_goes_with_its_guard_and_the_guard_never_alone() {
        let s = shrink_while(&["add r2.x"]);
        assert!(s.text.contains("min r2.x"), "{}", s.text);
        let s = shrink_while(&["mov r1.x"]);
        assert!(
            !s.text.contains("add r2.x") && !s.text.contains("min"),
            "{}",
            s.text
        );
    }

    #[test]
    fn stops_at_the_try_budget_and_returns_the_input_when_nothing_goes() {
        let s = shrink(PROGRAM, 3, &mut |_: &str| false);
        assert_eq!(s.tries, 3);
        assert_eq!(s.removed, 0);
        assert_eq!(s.text, PROGRAM);
    }

    #[test]
    fn operands_split_at_top_level_commas() {
        assert_eq!(
            operands("movc r2.x, r8.x, l(1, 2, 3, 4), r2.x"),
            ["r2.x", "r8.x", "l(1, 2, 3, 4)", "r2.x"]
        );
        assert_eq!(operands("ret"), Vec::<&str>::new());
    }
}
