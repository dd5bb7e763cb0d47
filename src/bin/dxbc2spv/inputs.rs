//! Turning the paths on the command line into input files, and input files into output paths.
//!
//! A path naming a file is taken as is, whatever its extension. A directory is searched
//! recursively, in sorted order, for files with the command's extensions (`.dxbc`/`.cso`/`.d3d9`/
//! `.vso`/`.pso` for commands reading shaders, `.asm` for `asm`; any case); a search that takes
//! `.d3d9` files also takes any other file whose first dword is a Direct3D 9 version token
//! (a token stream saved under another name). Symbolic links to files are followed, symbolic
//! links to directories are not (no cycles).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

/// File extensions picked up when a directory is searched for shaders (`translate`, `bench`,
/// `disasm`, `info`, `reflect`): containers and Direct3D 9 token streams (told apart by their
/// first dword, not by the extension). Files with other extensions are taken too when they
/// start with a D3D9 version token ([`D3D9_EXTENSION`]).
pub const READ_EXTENSIONS: &[&str] = &["dxbc", "cso", "d3d9", "vso", "pso"];

/// The extension whose presence in a search's list makes it take any file that starts with a
/// Direct3D 9 version token.
const D3D9_EXTENSION: &str = "d3d9";

/// File extensions picked up when a directory is searched for assembly listings.
pub const ASM_EXTENSIONS: &[&str] = &["asm"];

/// One input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The path, as named or as found under a named directory.
    pub path: PathBuf,
    /// For a file found in a directory: its path relative to that directory.
    pub relative: Option<PathBuf>,
}

/// What one command-line path expanded to, in order: files, or a path that could not be used.
#[derive(Debug)]
pub enum Found {
    /// An input file.
    File(Input),
    /// A directory that could not be read, or held no input files.
    Failed(PathBuf, anyhow::Error),
}

/// Expands the command-line paths into shader files (containers and D3D9 token streams) and
/// failures, in command-line order.
pub fn expand(paths: &[PathBuf]) -> Vec<Found> {
    expand_with(paths, READ_EXTENSIONS)
}

/// Expands the command-line paths, searching directories for files with `extensions`.
pub fn expand_with(paths: &[PathBuf], extensions: &[&str]) -> Vec<Found> {
    let mut found = Vec::new();
    for path in paths {
        if !path.is_dir() {
            found.push(Found::File(Input {
                path: path.clone(),
                relative: None,
            }));
            continue;
        }
        let before = found.len();
        walk(path, path, extensions, &mut found);
        if found.len() == before {
            let names: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
            let names = match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
                _ => names.concat(),
            };
            let also = if extensions.contains(&D3D9_EXTENSION) {
                " (nor any Direct3D 9 token stream)"
            } else {
                ""
            };
            let err = anyhow!("no {names} files{also} found in this directory");
            found.push(Found::Failed(path.clone(), err));
        }
    }
    found
}

/// The bytes of an input file.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).context("cannot read")
}

/// Writes `bytes` to `path`, creating its parent directories.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// True when exactly one file was named, so its output needs no label.
pub fn is_single_file(found: &[Found]) -> bool {
    matches!(found, [Found::File(Input { relative: None, .. })])
}

fn walk(root: &Path, dir: &Path, extensions: &[&str], found: &mut Vec<Found>) {
    let entries = match read_sorted(dir) {
        Ok(entries) => entries,
        Err(err) => {
            found.push(Found::Failed(dir.to_path_buf(), err));
            return;
        }
    };
    for (path, is_dir) in entries {
        if is_dir {
            walk(root, &path, extensions, found);
        } else if has_extension(&path, extensions)
            || (extensions.contains(&D3D9_EXTENSION) && starts_with_d3d9_version(&path))
        {
            let relative = path.strip_prefix(root).ok().map(Path::to_path_buf);
            found.push(Found::File(Input { path, relative }));
        }
    }
}

/// The entries of `dir` sorted by path, each with whether it is a directory to descend into.
fn read_sorted(dir: &Path) -> Result<Vec<(PathBuf, bool)>> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).context("cannot read directory")? {
        let entry = entry.context("cannot read directory")?;
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        entries.push((entry.path(), is_dir));
    }
    entries.sort();
    Ok(entries)
}

/// Whether the file at `path` starts with a Direct3D 9 version token (only its first four bytes
/// are read; an unreadable file does not).
pub fn starts_with_d3d9_version(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && dxbc2spv::front::d3d9::is_token_stream(&head)
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// Output paths under one directory: `DIR/<stem>.<ext>` for a named file, the file's relative
/// path with its extension replaced for a file found in a directory. Refuses to hand out the
/// same path twice.
pub struct OutputPaths<'a> {
    dir: &'a Path,
    extension: &'a str,
    claimed: HashMap<PathBuf, PathBuf>,
}

impl<'a> OutputPaths<'a> {
    /// Output paths under `dir` with `extension`.
    pub fn new(dir: &'a Path, extension: &'a str) -> Self {
        Self {
            dir,
            extension,
            claimed: HashMap::new(),
        }
    }

    /// The output path for `input`, or an error when an earlier input already has it.
    pub fn claim(&mut self, input: &Input) -> Result<PathBuf> {
        let out = match &input.relative {
            Some(relative) => self.dir.join(relative).with_extension(self.extension),
            None => {
                let stem = input
                    .path
                    .file_stem()
                    .ok_or_else(|| anyhow!("has no file name to derive an output name from"))?;
                let mut name = stem.to_os_string();
                name.push(".");
                name.push(self.extension);
                self.dir.join(name)
            }
        };
        if let Some(earlier) = self.claimed.get(&out) {
            return Err(anyhow!(
                "output {} is already written for {}",
                out.display(),
                earlier.display()
            ));
        }
        self.claimed.insert(out.clone(), input.path.clone());
        Ok(out)
    }
}

/// Where a command writes one output per input: `-o OUT` (one input file only), `--out-dir DIR`,
/// or beside each input with the output extension.
pub enum Destinations<'a> {
    /// `-o OUT`.
    One(PathBuf),
    /// `--out-dir DIR`.
    Dir(OutputPaths<'a>),
    /// Beside each input: the input's path with this extension.
    Beside(&'a str),
}

impl<'a> Destinations<'a> {
    /// The destinations for `found`; `-o` with anything but one named file is an error, given
    /// as the path to report it on and the message.
    pub fn new(
        output: Option<&Path>,
        out_dir: Option<&'a Path>,
        extension: &'a str,
        found: &[Found],
    ) -> std::result::Result<Self, (PathBuf, anyhow::Error)> {
        match (output, out_dir) {
            (Some(path), _) if !is_single_file(found) => Err((
                path.to_path_buf(),
                anyhow!("-o takes exactly one input file; use --out-dir"),
            )),
            (Some(path), _) => Ok(Self::One(path.to_path_buf())),
            (None, Some(dir)) => Ok(Self::Dir(OutputPaths::new(dir, extension))),
            (None, None) => Ok(Self::Beside(extension)),
        }
    }

    /// The output path for `input` (an error when an earlier input already has it).
    pub fn claim(&mut self, input: &Input) -> Result<PathBuf> {
        match self {
            Self::One(path) => Ok(path.clone()),
            Self::Dir(outputs) => outputs.claim(input),
            Self::Beside(extension) => Ok(input.path.with_extension(extension)),
        }
    }
}
