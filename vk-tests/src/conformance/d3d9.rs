//! Direct3D 9 shaders in cases: their sources and their constant sets.
//!
//! - A `[[shader]]` whose `asm` text starts with a D3D9 version line (`vs_1_1` … `ps_3_0`,
//!   told by `dxbc2spv::text::d3d9::asm::is_d3d9_text`) is assembled to D3D9 tokens instead of
//!   DXBC; `tokens = ["0xffff0200", …]` gives the token stream itself. Both go to the
//!   translator, which recognises D3D9 streams by their version token.
//! - `[[constants]]` tables hold a stage's float, integer and boolean constant sets, bound as
//!   the translator's fixed layout: `cb0` the floats (`c#` = the 16-byte vector #), `cb1` the
//!   integers (`i#` = the ivec4 #), `cb2` the booleans (`b#` = bit `# mod 32` of the dword at
//!   byte `4 · (# / 32)`). Every D3D9 stage gets these three buffers (zero where the case gives
//!   nothing), named `<stage>_c`, `<stage>_i`, `<stage>_b`, unless the case lists its own
//!   `[[buffer]]` at that register for the stage.
//!
//! See `docs/conformance.md`, "Direct3D 9 cases".

use std::collections::BTreeMap;

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use super::case::{visible, BufferKind, BufferSpec, CaseShader};
use super::shader::{Register, RegisterClass, ShaderSource, Stage};
use super::value::{Element, ScalarType};

/// Float constant registers every D3D9 stage's `cb0` holds at least: the 256 of a hardware
/// vertex shader (more than any pixel shader's 224), so that a shader that declares the whole
/// set reads inside the buffer.
pub const FLOAT_REGISTERS: usize = 256;
/// Integer constant registers (`i0`–`i15`).
pub const INT_REGISTERS: usize = 16;
/// Boolean constants (`b0`–`b15`; one dword holds 32).
pub const BOOL_REGISTERS: usize = 16;

/// `[[constants]]`: one stage's constant sets.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConstantsToml {
    /// `vs` or `ps`.
    stage: String,
    /// `{ c0 = [1.0, 2.0, 3.0, 4.0], c7 = ["inf", 0, "nan", "0x3f800000"] }`.
    #[serde(default)]
    float: BTreeMap<String, Vec<toml::Value>>,
    /// `{ i0 = [3, 0, 1, 0] }`.
    #[serde(default)]
    int: BTreeMap<String, Vec<toml::Value>>,
    /// `{ b0 = true, b5 = false }`.
    #[serde(default)]
    bool: BTreeMap<String, bool>,
}

/// Whether `source` is a Direct3D 9 shader (assembly text with a D3D9 version line, or
/// tokens).
pub fn is_d3d9(source: &ShaderSource) -> bool {
    match source {
        ShaderSource::Tokens { .. } => true,
        ShaderSource::Asm { text, .. } => dxbc2spv::text::d3d9::asm::is_d3d9_text(text),
        ShaderSource::AsmFile(path) => std::fs::read_to_string(path)
            .is_ok_and(|text| dxbc2spv::text::d3d9::asm::is_d3d9_text(&text)),
        _ => false,
    }
}

/// The token stream of `tokens = [...]`: each element a `u32` (an integer or `"0x…"`).
pub(super) fn tokens(values: &[toml::Value]) -> Result<Vec<u32>> {
    if values.is_empty() {
        bail!("tokens is empty");
    }
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let e = Element::parse(v, ScalarType::U32).with_context(|| format!("tokens[{i}]"))?;
            let bytes = e.to_bytes().with_context(|| format!("tokens[{i}]"))?;
            match bytes.as_slice() {
                [a, b, c, d] if e.ty == ScalarType::U32 => Ok(u32::from_le_bytes([*a, *b, *c, *d])),
                _ => bail!("tokens[{i}]: a token is a u32"),
            }
        })
        .collect()
}

/// `text` (D3D9 assembly) as token bytes; errors give the line in the case file, whose text
/// starts at `first_line`.
pub fn assemble(text: &str, origin: &std::path::Path, first_line: usize) -> Result<Vec<u8>> {
    dxbc2spv::text::d3d9::asm::assemble_bytes(text).map_err(|e| {
        anyhow!(
            "{}:{}:{}: D3D9 assembly: {}",
            origin.display(),
            first_line + e.line as usize - 1,
            e.column,
            e.message
        )
    })
}

/// The register number of `name` with prefix `prefix` (`c12` → 12), below `limit`.
fn register_number(name: &str, prefix: char, limit: usize) -> Result<usize> {
    let n = name
        .strip_prefix(prefix)
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<usize>().ok())
        .ok_or_else(|| anyhow!("bad register {name:?}: expected {prefix}#"))?;
    if n >= limit {
        bail!("{name}: the runner binds {prefix}0–{prefix}{}", limit - 1);
    }
    Ok(n)
}

/// Four elements of `ty` from `values`, as bytes.
fn vector(values: &[toml::Value], ty: ScalarType) -> Result<Vec<u8>> {
    if values.len() != 4 {
        bail!("a constant register holds 4 values, not {}", values.len());
    }
    let mut out = Vec::with_capacity(16);
    for v in values {
        let e = Element::parse(v, ty)?;
        if e.ty.size() != 4 {
            bail!("a constant component is 32 bits");
        }
        out.extend(e.to_bytes()?);
    }
    Ok(out)
}

/// The three constant buffers of one stage.
struct StageConstants {
    float: Vec<u8>,
    int: Vec<u8>,
    bool: Vec<u8>,
}

impl StageConstants {
    fn new() -> StageConstants {
        StageConstants {
            float: vec![0; FLOAT_REGISTERS * 16],
            int: vec![0; INT_REGISTERS * 16],
            // One dword holds 32 booleans; constant buffers come in 16-byte registers.
            bool: vec![0; 16],
        }
    }

    fn add(&mut self, t: ConstantsToml) -> Result<()> {
        for (name, values) in &t.float {
            let n = register_number(name, 'c', 8192)?;
            let bytes = vector(values, ScalarType::F32).with_context(|| name.clone())?;
            if self.float.len() < (n + 1) * 16 {
                self.float.resize((n + 1) * 16, 0);
            }
            self.float[n * 16..n * 16 + 16].copy_from_slice(&bytes);
        }
        for (name, values) in &t.int {
            let n = register_number(name, 'i', 2048)?;
            let bytes = vector(values, ScalarType::I32).with_context(|| name.clone())?;
            if self.int.len() < (n + 1) * 16 {
                self.int.resize((n + 1) * 16, 0);
            }
            self.int[n * 16..n * 16 + 16].copy_from_slice(&bytes);
        }
        for (name, &value) in &t.bool {
            let n = register_number(name, 'b', 2048)?;
            let byte = 4 * (n / 32) + (n % 32) / 8;
            let bit = 1u8 << (n % 8);
            if self.bool.len() <= byte {
                self.bool.resize((byte / 16 + 1) * 16, 0);
            }
            if value {
                self.bool[byte] |= bit;
            } else {
                self.bool[byte] &= !bit;
            }
        }
        Ok(())
    }
}

/// The constant buffers of the case's D3D9 stages: for each stage with a D3D9 shader, `cb0`
/// (floats), `cb1` (integers) and `cb2` (booleans) from its `[[constants]]` tables (zero
/// elsewhere), except where `buffers` already has a buffer at that register for the stage.
pub(super) fn constant_buffers(
    tables: Vec<ConstantsToml>,
    shaders: &[CaseShader],
    buffers: &[BufferSpec],
) -> Result<Vec<BufferSpec>> {
    let d3d9: Vec<Stage> = shaders
        .iter()
        .filter(|s| is_d3d9(&s.source))
        .map(|s| s.stage)
        .collect();
    let mut sets: BTreeMap<Stage, StageConstants> = BTreeMap::new();
    for (i, t) in tables.into_iter().enumerate() {
        let stage = Stage::from_name(&t.stage)
            .filter(|s| matches!(s, Stage::Vertex | Stage::Pixel))
            .ok_or_else(|| anyhow!("[[constants]] {}: stage is \"vs\" or \"ps\"", i + 1))?;
        if !d3d9.contains(&stage) {
            bail!(
                "[[constants]] {}: the case has no Direct3D 9 {stage} shader",
                i + 1
            );
        }
        sets.entry(stage)
            .or_insert_with(StageConstants::new)
            .add(t)
            .with_context(|| format!("[[constants]] {} ({stage})", i + 1))?;
    }
    let mut out = Vec::new();
    for stage in d3d9 {
        let set = sets.remove(&stage).unwrap_or_else(StageConstants::new);
        for (index, suffix, contents) in
            [(0, "c", set.float), (1, "i", set.int), (2, "b", set.bool)]
        {
            let register = Register {
                class: RegisterClass::Cbv,
                index,
                space: 0,
            };
            let taken = buffers
                .iter()
                .any(|b| b.register == register && visible(&b.stages, stage));
            if taken {
                if !contents.iter().all(|&b| b == 0) {
                    bail!(
                        "[[constants]] for {stage} and a [[buffer]] at {register} for {stage}: \
                         give one of them"
                    );
                }
                continue;
            }
            out.push(BufferSpec {
                name: format!("{stage}_{suffix}"),
                register,
                stages: Some(vec![stage]),
                kind: BufferKind::Constant,
                placement: None,
                descriptor: None,
                texel_format: None,
                contents,
                counter: None,
                view: None,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn shader(stage: Stage, text: &str) -> CaseShader {
        CaseShader {
            stage,
            source: ShaderSource::Asm {
                text: text.into(),
                case_file: PathBuf::from("c.toml"),
                first_line: 1,
            },
            entry_point: None,
        }
    }

    fn table(text: &str) -> Vec<ConstantsToml> {
        #[derive(Deserialize)]
        struct T {
            constants: Vec<ConstantsToml>,
        }
        toml::from_str::<T>(text)
            .unwrap_or_else(|e| panic!("{e}"))
            .constants
    }

    #[test]
    fn constants_land_in_the_fixed_layout() {
        let shaders = [
            shader(Stage::Vertex, "vs_2_0\nmov oPos, c0\n"),
            shader(Stage::Pixel, "ps_2_0\nmov oC0, c1\n"),
        ];
        let t = table(
            "[[constants]]\nstage = \"ps\"\nfloat = { c1 = [1.0, 2.0, \"inf\", \"0x7fc00001\"] }\n\
             int = { i2 = [3, -1, 0, 7] }\nbool = { b0 = true, b9 = true, b33 = true }\n",
        );
        let out = constant_buffers(t, &shaders, &[]).unwrap_or_else(|e| panic!("{e:#}"));
        let names: Vec<&str> = out.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["vs_c", "vs_i", "vs_b", "ps_c", "ps_i", "ps_b"]);
        let ps_c = &out[3].contents;
        assert_eq!(ps_c.len(), FLOAT_REGISTERS * 16);
        assert_eq!(&ps_c[16..20], &1.0f32.to_le_bytes());
        assert_eq!(&ps_c[24..28], &f32::INFINITY.to_le_bytes());
        assert_eq!(&ps_c[28..32], &0x7fc0_0001u32.to_le_bytes());
        let ps_i = &out[4].contents;
        assert_eq!(&ps_i[32..36], &3i32.to_le_bytes());
        assert_eq!(&ps_i[36..40], &(-1i32).to_le_bytes());
        // b0 and b9: bits 0 and 9 of dword 0; b33: bit 1 of dword 1.
        let ps_b = &out[5].contents;
        assert_eq!(&ps_b[0..4], &0x201u32.to_le_bytes());
        assert_eq!(&ps_b[4..8], &2u32.to_le_bytes());
        assert!(out[0].contents.iter().all(|&b| b == 0));
        assert_eq!(out[3].stages, Some(vec![Stage::Pixel]));
    }

    #[test]
    fn dxbc_stages_get_no_constants_and_bad_tables_fail() {
        let shaders = [
            shader(Stage::Vertex, "vs_5_0\nret\n"),
            shader(Stage::Pixel, "ps_3_0\nmov oC0, c0\n"),
        ];
        let out = constant_buffers(Vec::new(), &shaders, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.len(), 3);
        let err = |text: &str| {
            format!(
                "{:#}",
                constant_buffers(table(text), &shaders, &[])
                    .err()
                    .unwrap_or_else(|| panic!("{text} accepted"))
            )
        };
        assert!(err("[[constants]]\nstage = \"vs\"\n").contains("no Direct3D 9 vs"));
        assert!(
            err("[[constants]]\nstage = \"ps\"\nfloat = { c0 = [1.0] }\n").contains("4 values")
        );
        assert!(err("[[constants]]\nstage = \"ps\"\nfloat = { r0 = [1,2,3,4] }\n").contains("c#"));
        assert!(err("[[constants]]\nstage = \"gs\"\n").contains("stage"));
    }

    /// D3D9 text reaches the translator as a token stream (the version token first); its
    /// assembly errors name the line in the case file; tokens go through unchanged.
    #[test]
    fn d3d9_sources_reach_the_translator_as_tokens() {
        use super::super::shader::{compile, CompileOptions, CompiledShader, DxbcInput};
        let seen = std::sync::Mutex::new(Vec::new());
        let t = |input: &DxbcInput<'_>| -> anyhow::Result<CompiledShader> {
            if let Ok(mut s) = seen.lock() {
                s.push(input.dxbc.to_vec());
            }
            Ok(CompiledShader {
                spirv: Vec::new(),
                entry_point: "main".into(),
                bindings: Some(Vec::new()),
            })
        };
        let options = CompileOptions::new("vulkan1.1");
        let asm = |text: &str| ShaderSource::Asm {
            text: text.into(),
            case_file: PathBuf::from("c.toml"),
            first_line: 10,
        };
        compile(&asm("ps_2_0\nmov oC0, c0\n"), None, &t, &options)
            .unwrap_or_else(|e| panic!("{e:#}"));
        let words = ShaderSource::Tokens {
            words: vec![0xffff_0200, 0x0000_ffff],
            case_file: PathBuf::from("c.toml"),
        };
        compile(&words, None, &t, &options).unwrap_or_else(|e| panic!("{e:#}"));
        let e = format!(
            "{:#}",
            compile(&asm("vs_2_0\nbogus r0\n"), None, &t, &options)
                .err()
                .unwrap_or_else(|| panic!("bogus assembled"))
        );
        assert!(e.starts_with("c.toml:11:"), "{e}");
        let seen = seen.into_inner().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&seen[0][..4], &0xffff_0200u32.to_le_bytes());
        assert_eq!(&seen[0][seen[0].len() - 4..], &0x0000_ffffu32.to_le_bytes());
        assert_eq!(seen[1], [0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00]);
        assert!(is_d3d9(&asm("vs_1_1\n")) && !is_d3d9(&asm("vs_5_0\nret\n")));
    }

    #[test]
    fn tokens_are_words() {
        let v: Vec<toml::Value> = vec!["0xffff0200".into(), 0xffff.into()];
        assert_eq!(
            tokens(&v).unwrap_or_else(|e| panic!("{e}")),
            [0xffff_0200, 0xffff]
        );
        assert!(tokens(&[]).is_err());
        assert!(tokens(&["f32:1.5".into()]).is_err());
    }
}
