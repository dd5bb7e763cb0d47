//! The stages of a graphics case: which combinations a case may have (a vertex shader, at most
//! one shader per stage, hull and domain shaders together and only with `patch_list`), and the
//! runs a case makes: a case with a translated hull shader runs once per
//! [`HullSchedule`] (`docs/conformance.md`, "Tessellation cases").

use anyhow::{bail, Result};
use ash::vk;
use dxbc2spv::HullSchedule;

use super::case::{Case, CaseShader};
use super::draw::DrawSpec;
use super::shader::Stage;

/// Every hull-shader schedule, in the order a case runs them: `Serial` first (the plain name).
const BOTH_SCHEDULES: [HullSchedule; 2] = [HullSchedule::Serial, HullSchedule::Parallel];

/// The stages of a graphics case: a vertex shader, at most one of each stage, no compute shader.
pub(super) fn check_stages(shaders: &[CaseShader]) -> Result<()> {
    for (i, s) in shaders.iter().enumerate() {
        if s.stage == Stage::Compute {
            bail!("a graphics case has vs, hs, ds, gs and ps shaders, not cs");
        }
        if shaders[..i].iter().any(|o| o.stage == s.stage) {
            bail!("two {} shaders", s.stage);
        }
    }
    if !shaders.iter().any(|s| s.stage == Stage::Vertex) {
        bail!("a graphics case needs a vertex shader (stage = \"vs\")");
    }
    Ok(())
}

/// Hull and domain shaders come together, and exactly when the draw is a `patch_list`.
pub(super) fn check_tessellation(shaders: &[CaseShader], draw: &DrawSpec) -> Result<()> {
    let has = |stage| shaders.iter().any(|s| s.stage == stage);
    let patches = draw.topology == vk::PrimitiveTopology::PATCH_LIST;
    match (has(Stage::Hull), has(Stage::Domain)) {
        (true, false) => bail!("a hull shader (hs) needs a domain shader (ds)"),
        (false, true) => bail!("a domain shader (ds) needs a hull shader (hs)"),
        (true, true) if !patches => bail!(
            "hull and domain shaders draw patches: [draw] needs topology = \"patch_list\" and \
             control_points"
        ),
        (false, false) if patches => {
            bail!("topology = \"patch_list\" needs a hull (hs) and a domain (ds) shader")
        }
        _ => Ok(()),
    }
}

impl Case {
    /// The hull-shader schedules the case runs with: both (`Serial`, then `Parallel`) when it
    /// has a translated hull shader (`asm`, `asm_file` or `dxbc`), otherwise `Serial` alone.
    pub fn hull_schedules(&self) -> &'static [HullSchedule] {
        let translated_hull = self
            .shaders
            .iter()
            .any(|s| s.stage == Stage::Hull && s.source.is_dxbc());
        if translated_hull {
            &BOTH_SCHEDULES
        } else {
            &BOTH_SCHEDULES[..1]
        }
    }
}

/// The name a run of case `name` is reported under: `name` for `Serial`, `name [parallel]` for
/// `Parallel`.
pub fn run_name(name: &str, schedule: HullSchedule) -> String {
    match schedule {
        HullSchedule::Serial => name.to_owned(),
        HullSchedule::Parallel => format!("{name} [parallel]"),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// A tessellation case: vs, hs, ds (sources `hs` and `ds`), a `patch_list` of 3 points.
    fn tess(hs: &str, ds: &str) -> String {
        format!(
            r#"
[draw]
topology = "patch_list"
control_points = 3
vertex_count = 3
[[shader]]
stage = "vs"
spirv_asm = "vs.spvasm"
[[shader]]
stage = "ds"
{ds}
[[shader]]
stage = "hs"
{hs}
[[buffer]]
register = "u0"
kind = "raw"
size = 64
stages = ["ds"]
[[expect]]
buffer = "u0"
count_offset = 0
offset = 16
record = 2
type = "f32"
records = [[0.0, 1.0]]
"#
        )
    }

    fn parse(text: &str) -> Result<Case> {
        Case::parse(text, Path::new("/cases/tessellation/x.toml"))
    }

    fn err(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("parsed:\n{text}"),
            Err(e) => format!("{e:#}"),
        }
    }

    const SPIRV_HS: &str = "spirv_asm = \"hs.spvasm\"";
    const SPIRV_DS: &str = "spirv_asm = \"ds.spvasm\"";

    #[test]
    fn tessellation_case() {
        let c = parse(&tess(SPIRV_HS, SPIRV_DS)).unwrap_or_else(|e| panic!("{e:#}"));
        let stages: Vec<Stage> = c.shaders.iter().map(|s| s.stage).collect();
        assert_eq!(stages, [Stage::Vertex, Stage::Hull, Stage::Domain]);
        let d = c.draw().unwrap_or_else(|| panic!("no draw"));
        assert_eq!(d.topology, vk::PrimitiveTopology::PATCH_LIST);
        assert_eq!(d.control_points, Some(3));
        assert!(c.implied_requirements().contains(&"tessellationShader"));
        assert_eq!(c.buffers[0].stages, Some(vec![Stage::Domain]));
        // Hand-written SPIR-V hull shaders run once.
        assert_eq!(c.hull_schedules(), [HullSchedule::Serial]);
        assert_eq!((Stage::Hull.d3d11_set(), Stage::Domain.d3d11_set()), (3, 4));
        assert_eq!(Stage::from_name("hs"), Some(Stage::Hull));
        assert_eq!(Stage::Domain.execution_model(), 2);
    }

    #[test]
    fn translated_hull_shaders_run_with_both_schedules() {
        let c = parse(&tess("asm_file = \"hs.asm\"", SPIRV_DS)).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(
            c.hull_schedules(),
            [HullSchedule::Serial, HullSchedule::Parallel]
        );
        // A translated domain shader alone does not.
        let c = parse(&tess(SPIRV_HS, "dxbc = \"ds.dxbc\"")).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(c.hull_schedules().len(), 1);
        assert_eq!(run_name("tess/a", HullSchedule::Serial), "tess/a");
        assert_eq!(
            run_name("tess/a", HullSchedule::Parallel),
            "tess/a [parallel]"
        );
    }

    #[test]
    fn tessellation_mistakes_are_reported() {
        let text = tess(SPIRV_HS, SPIRV_DS);
        let no_hs = text.replace(
            "stage = \"hs\"\nspirv_asm = \"hs.spvasm\"",
            "stage = \"gs\"\nspirv_asm = \"gs.spvasm\"",
        );
        assert!(err(&no_hs).contains("needs a hull shader"));
        let no_ds = text.replace(
            "stage = \"ds\"\nspirv_asm = \"ds.spvasm\"",
            "stage = \"gs\"\nspirv_asm = \"gs.spvasm\"",
        );
        let e = err(&no_ds.replace("stages = [\"ds\"]", "stages = [\"hs\"]"));
        assert!(e.contains("needs a domain shader"), "{e}");
        let cases: &[(&str, &str, &str)] = &[
            ("control_points = 3\n", "", "needs control_points"),
            (
                "control_points = 3",
                "control_points = 33",
                "1 to 32 control points",
            ),
            (
                "control_points = 3",
                "control_points = 0",
                "1 to 32 control points",
            ),
            (
                "topology = \"patch_list\"\ncontrol_points = 3",
                "topology = \"point_list\"",
                "needs topology = \"patch_list\"",
            ),
            (
                "topology = \"patch_list\"",
                "topology = \"point_list\"",
                "control_points applies to topology = \"patch_list\"",
            ),
        ];
        for (from, to, want) in cases {
            assert!(text.contains(from), "{from}");
            let e = err(&text.replacen(from, to, 1));
            assert!(e.contains(want), "{to:?}: wanted {want:?} in {e:?}");
        }
        // A patch list without tessellation shaders.
        let plain = text
            .replace(
                "[[shader]]\nstage = \"ds\"\nspirv_asm = \"ds.spvasm\"\n",
                "",
            )
            .replace(
                "[[shader]]\nstage = \"hs\"\nspirv_asm = \"hs.spvasm\"\n",
                "",
            )
            .replace("stages = [\"ds\"]\n", "");
        let e = err(&plain);
        assert!(
            e.contains("needs a hull (hs) and a domain (ds) shader"),
            "{e}"
        );
    }
}
