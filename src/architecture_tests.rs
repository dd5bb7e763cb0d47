//! The layering rules of `docs/architecture.md`, checked by scanning the source: each layer's
//! folder may not name certain other layers (through a `crate::` path, a `use crate::{…}` group,
//! or a chain of `super::` that climbs out of the folder), and no source file is over 1,000
//! lines. A broken rule fails with the file, the line and the rule.
//!
//! Every mention counts, in code, tests and docs alike: a `crate::back` in a front-end doc link
//! is a dependency a reader follows too. `src/bin/` is the command-line tool over the public API
//! and is not checked.

use std::path::{Path, PathBuf};

/// One rule: files under `folder` (relative to `src/`) may not name a crate-level module in
/// `forbidden`; with `only` set, they may name no crate-level module but those.
struct Rule {
    folder: &'static str,
    forbidden: &'static [&'static str],
    only: Option<&'static [&'static str]>,
}

const RULES: &[Rule] = &[
    Rule {
        folder: "front",
        forbidden: &["back", "passes"],
        only: None,
    },
    Rule {
        folder: "back",
        forbidden: &["front", "text"],
        only: None,
    },
    Rule {
        folder: "ir",
        forbidden: &[
            "front", "back", "text", "bindings", "passes", "spv", "pipeline", "error",
        ],
        only: None,
    },
    Rule {
        folder: "spv",
        forbidden: &[],
        only: Some(&["spv"]),
    },
    Rule {
        folder: "text",
        forbidden: &["back"],
        only: None,
    },
];

/// The longest a source file may be, in lines.
const MAX_LINES: usize = 1000;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file under `src/` (`front/dxbc/mod.rs` → `["front", "dxbc"]`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" {
            parts.push(stem.to_owned());
        }
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
    &s[..end]
}

/// The first segments named by what follows a `crate::` or a climbing `super::` chain: one
/// identifier, or each top-level item of a `{…}` group (which may go on past this line, so the
/// group is read from `rest`, the rest of the file).
fn first_segments(rest: &str) -> Vec<String> {
    let Some(group) = rest.strip_prefix('{') else {
        let name = ident(rest);
        return if name.is_empty() {
            Vec::new()
        } else {
            vec![name.to_owned()]
        };
    };
    let mut names = Vec::new();
    let mut depth = 0;
    let mut at_item_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item_start = true,
            c if c.is_whitespace() => {}
            _ => {
                if at_item_start && depth == 0 {
                    let name = ident(&group[i..]);
                    if !name.is_empty() {
                        names.push(name.to_owned());
                    }
                }
                at_item_start = false;
            }
        }
    }
    names
}

/// A crate-level module named on a line.
struct Mention {
    line: usize,
    name: String,
}

/// Every crate-level module `text` names: `crate::x`, `crate::{x, y}`, and `super::` chains
/// that climb to the crate root from `module` (inline `mod name {` blocks count as a level).
fn mentions(text: &str, module: &[String]) -> Vec<Mention> {
    let mut out = Vec::new();
    // Inline modules open at some brace depth; `super` inside one climbs it first.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut offset = 0;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let code = trimmed.strip_prefix("pub ").unwrap_or(trimmed);
        let opens_module = code.starts_with("mod ") && code.trim_end().ends_with('{');
        let mut at = 0;
        while let Some(found) = line[at..].find("crate::").map(|i| at + i) {
            at = found + "crate::".len();
            // `dxbc2spv::crate::` is not a thing; skip `$crate::` of macros and `foocrate::`.
            if found > 0 && line[..found].ends_with(|c: char| is_ident(c) || c == '$') {
                continue;
            }
            for name in first_segments(&text[offset + at..]) {
                out.push(Mention { line: n + 1, name });
            }
        }
        at = 0;
        while let Some(found) = line[at..].find("super::").map(|i| at + i) {
            if found > 0 && line[..found].ends_with(|c: char| is_ident(c) || c == ':') {
                at = found + "super::".len();
                continue;
            }
            let mut climbs = 0usize;
            let mut rest = &line[found..];
            while let Some(r) = rest.strip_prefix("super::") {
                climbs += 1;
                rest = r;
            }
            at = line.len() - rest.len();
            // Climb the inline modules first, then the file's own path.
            let up = climbs.saturating_sub(inline.len());
            if up > 0 && up >= module.len() {
                for name in first_segments(&text[offset + at..]) {
                    out.push(Mention { line: n + 1, name });
                }
            }
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if inline.last() == Some(&depth) {
                        inline.pop();
                    }
                }
                _ => {}
            }
        }
        if opens_module {
            inline.push(depth.saturating_sub(1));
        }
        offset += line.len() + 1;
    }
    out
}

/// Every broken rule under `src/`, as `path:line: message`.
fn broken_rules() -> Vec<String> {
    let src = repo().join("src");
    let mut problems = Vec::new();
    for path in rust_files(&src) {
        let Ok(relative) = path.strip_prefix(&src) else {
            continue;
        };
        let Some(top) = relative.iter().next().and_then(|s| s.to_str()) else {
            continue;
        };
        let Some(rule) = RULES.iter().find(|r| r.folder == top) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            problems.push(format!("src/{}: unreadable", relative.display()));
            continue;
        };
        let module = module_path(relative);
        for m in mentions(&text, &module) {
            let name = m.name.as_str();
            let banned = rule.forbidden.contains(&name)
                || rule.only.is_some_and(|only| !only.contains(&name));
            if banned {
                let allowed = match rule.only {
                    Some(only) => format!("may name only crate::{}", only.join(", crate::")),
                    None => format!("may not name crate::{}", rule.forbidden.join(", crate::")),
                };
                problems.push(format!(
                    "src/{}:{}: names crate::{name}; src/{}/ {allowed}",
                    relative.display(),
                    m.line,
                    rule.folder
                ));
            }
        }
    }
    problems
}

#[test]
fn layers_import_only_what_the_architecture_allows() {
    let problems = broken_rules();
    assert!(
        problems.is_empty(),
        "{} import rule(s) broken (docs/architecture.md, \"Import rules\"):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn no_source_file_is_over_1000_lines() {
    let mut problems = Vec::new();
    for dir in ["src", "vk-tests/src"] {
        for path in rust_files(&repo().join(dir)) {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let lines = text.lines().count();
            if lines > MAX_LINES {
                let shown = path.strip_prefix(repo()).unwrap_or(&path);
                problems.push(format!("{}: {lines} lines", shown.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "files over {MAX_LINES} lines (split them):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_scanner_finds_paths_groups_and_climbing_supers() {
    let text = "use crate::ir::Module;\nuse crate::{\n    back::x,\n    ir,\n};\n\
                mod tests {\n    use super::super::super::front::y;\n    use super::z;\n}\n\
                // [`crate::spv::Id`]\n$crate::nothing\n";
    let module = vec!["ir".to_owned(), "print".to_owned()];
    let found: Vec<(usize, String)> = mentions(text, &module)
        .into_iter()
        .map(|m| (m.line, m.name))
        .collect();
    let expect = |v: &[(usize, &str)]| -> Vec<(usize, String)> {
        v.iter().map(|(l, n)| (*l, n.to_string())).collect()
    };
    assert_eq!(
        found,
        expect(&[(1, "ir"), (2, "back"), (2, "ir"), (7, "front"), (10, "spv")])
    );
    assert_eq!(
        module_path(Path::new("front/dxbc/mod.rs")),
        ["front", "dxbc"]
    );
    assert_eq!(module_path(Path::new("ir/print.rs")), ["ir", "print"]);
}
