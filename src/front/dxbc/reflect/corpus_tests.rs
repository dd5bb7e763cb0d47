//! Corpus tests: every real blob reflects, and the `RDEF` bindings of each blob are matched by
//! its declarations.

use std::collections::BTreeMap;
use std::path::Path;

use super::{binding_class, PhaseKind, Reflection, BINDING_UNUSED};
use crate::front::dxbc::container::{Container, ParseOptions};
use crate::front::dxbc::program::Stage;
use crate::test_support;

const LAX: ParseOptions = ParseOptions {
    verify_checksum: false,
};

fn reflect(path: &Path) -> Result<Reflection, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let container = Container::parse(&bytes, &LAX).map_err(|e| e.to_string())?;
    Reflection::from_container(&container).map_err(|e| e.to_string())
}

#[test]
fn every_corpus_blob_reflects() {
    let blobs = test_support::corpus_blobs();
    let mut by_stage: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for path in &blobs {
        match reflect(path) {
            Ok(r) => {
                // The corpus' one function-linking library reflects like any program.
                if r.version.stage == Stage::Library {
                    assert!(
                        path.ends_with("Test_D2DPixelShaderDescriptorGenerator.None_0x444.dxbc")
                    );
                    assert_eq!(r.phases[0].inputs.len(), 1);
                }
                *by_stage.entry(r.version.to_string()).or_default() += 1
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "reflected {} of {} corpus blobs: {by_stage:?}",
        blobs.len() - failures.len(),
        blobs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every `RDEF` binding of a used resource is matched by a declaration, and every declared
/// resource gets a name from `RDEF`, except the `t125` (3Dmigoto's `StereoParams`) that
/// 3Dmigoto's reassembler adds to the programs it rewrites without adding an `RDEF` binding.
#[test]
fn rdef_bindings_are_matched_by_declarations() {
    let mut totals: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut misses = Vec::new();
    for path in test_support::corpus_blobs() {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(container) = Container::parse(&bytes, &LAX) else {
            continue;
        };
        let Some(rdef) = container.resource_definitions() else {
            continue;
        };
        let rdef = rdef.expect("RDEF parses");
        let mut r = Reflection::from_container(&container).expect("reflects");
        let unmatched = r.name_resources(&rdef);
        for (i, b) in rdef.bindings.iter().enumerate() {
            let category = if b.flags & BINDING_UNUSED != 0 {
                "bindings flagged unused"
            } else if binding_class(b.input_type).is_none() {
                "bindings of a type DXBC does not declare"
            } else if unmatched.contains(&i) {
                misses.push(format!(
                    "{}: binding {} (type {}, register {}) matches no declaration",
                    path.display(),
                    b.name,
                    b.input_type,
                    b.bind_point
                ));
                "bindings unmatched"
            } else {
                "bindings matched"
            };
            *totals.entry(category).or_default() += 1;
        }
        for res in &r.resources {
            let register = res.range.display(res.class(), r.version.is_sm51());
            if res.name.is_some() {
                *totals.entry("declarations named").or_default() += 1;
            } else if register == "t125" && path.to_string_lossy().ends_with("_reasm.dxbc") {
                *totals
                    .entry("declarations unnamed (3Dmigoto t125)")
                    .or_default() += 1;
            } else {
                misses.push(format!("{}: {register} has no name", path.display()));
            }
        }
    }
    eprintln!("RDEF matching over the corpus: {totals:?}");
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

/// Loads a corpus blob by its path under the corpus folder; `None` when the corpus is absent.
fn corpus_reflection(relative: &str) -> Option<Reflection> {
    let dir = test_support::corpus_dir()?;
    Some(reflect(&dir.join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}")))
}

/// Values from fxc's listing `CACAOGenerateImportanceMap...asm` (`dcl_thread_group 8, 8, 1`).
#[test]
fn compute_shader_matches_fxc_listing() {
    let Some(r) = corpus_reflection(
        "FidelityFX-CACAO/CACAOGenerateImportanceMap.CSGenerateImportanceMapDXIL.d44b32ea.dxbc",
    ) else {
        return;
    };
    assert_eq!(r.version.to_string(), "cs_5_0");
    assert_eq!(r.thread_group_size, Some([8, 8, 1]));
    let rows: Vec<(String, String, Option<&str>)> = r
        .resources
        .iter()
        .map(|res| {
            (
                res.range.display(res.class(), false),
                res.kind.to_string(),
                res.name.as_deref(),
            )
        })
        .collect();
    let row = |reg: &str, kind: &str, name| (reg.to_string(), kind.to_string(), Some(name));
    assert_eq!(
        rows,
        [
            row(
                "cb0",
                "constant buffer, 14 vec4s, immediate indexed",
                "SSAOConstantsBuffer"
            ),
            row("s0", "sampler mode_default", "g_PointClampSampler"),
            row(
                "t0",
                "texture2darray (float,float,float,float)",
                "g_ImportanceFinalSSAO"
            ),
            row(
                "u0",
                "uav texture2d (float,float,float,float)",
                "g_ImportanceOut"
            ),
        ]
    );
    assert_eq!(r.phases[0].temps, 4);
    assert_eq!(r.phases[0].inputs[0].mask, 0b0011);
}

/// Values from fxc's listing `two_fork_phases.o.asm`: two fork phases of 4 and 2 instances.
#[test]
fn hull_shader_matches_fxc_listing() {
    let Some(r) = corpus_reflection("HLSLCrossCompiler/two_fork_phases.o.dxbc") else {
        return;
    };
    assert_eq!(r.fork_instance_counts(), [4, 2]);
    assert!(r.join_instance_counts().is_empty());
    let t = r.tessellation.expect("tessellation");
    assert_eq!(t.domain, Some(super::TessDomain::Quad));
    assert_eq!(t.partitioning, Some(super::TessPartitioning::Integer));
    assert_eq!(
        t.output_primitive,
        Some(super::TessOutputPrimitive::TriangleCcw)
    );
    assert_eq!(
        (t.input_control_points, t.output_control_points),
        (Some(4), Some(4))
    );
    let forks: Vec<_> = r
        .phases
        .iter()
        .filter(|p| p.kind == PhaseKind::Fork)
        .collect();
    let ranges: Vec<_> = forks
        .iter()
        .map(|p| {
            (
                p.index_ranges[0].register,
                p.index_ranges[0].count,
                p.outputs.len(),
            )
        })
        .collect();
    assert_eq!(ranges, [(0, 4, 4), (4, 2, 2)]);
    assert_eq!(r.resources[0].name.as_deref(), Some("$Globals"));
    let pcsg = r
        .signatures
        .patch_constant
        .as_ref()
        .expect("patch-constant signature");
    assert_eq!(pcsg.len(), 6);
}

/// `vkd3d/d3d12.test_resource_arrays.cs_code`: no listing exists; the HLSL source declares
/// `cb : register(b2, space1)`, `Buffer<uint> t1[2] : register(t2, space2)`,
/// `Buffer<uint> t2[] : register(t4, space2)`, `RWBuffer<uint> u1[2] : register(u1, space3)`,
/// `RWBuffer<uint> u2[] : register(u3, space3)`.
#[test]
fn sm51_unbounded_ranges_match_the_source() {
    let Some(r) = corpus_reflection("vkd3d/d3d12.test_resource_arrays.cs_code.dxbc") else {
        return;
    };
    let ranges: Vec<_> = r
        .resources
        .iter()
        .map(|res| {
            (
                res.class(),
                res.range.id,
                res.range.space,
                res.range.lower_bound,
                res.range.count,
            )
        })
        .collect();
    use super::ResourceClass as C;
    assert_eq!(
        ranges,
        [
            (C::ConstantBuffer, 0, 1, 2, Some(1)),
            (C::ShaderResource, 0, 2, 2, Some(2)),
            (C::ShaderResource, 1, 2, 4, None),
            (C::UnorderedAccess, 0, 3, 1, Some(2)),
            (C::UnorderedAccess, 1, 3, 3, None),
        ]
    );
}

/// SM5.1 names from fxc's listing `SDL/D3D12_Blit.g_BlitFrom2D.asm`.
#[test]
fn sm51_names_match_fxc_listing() {
    let Some(r) = corpus_reflection("SDL/D3D12_Blit.g_BlitFrom2D.dxbc") else {
        return;
    };
    let rows: Vec<_> = r
        .resources
        .iter()
        .map(|res| {
            (
                res.range.display(res.class(), true),
                res.range.space,
                res.name.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("CB0[0:0]".to_string(), 3, Some("SourceRegionBuffer")),
            ("S0[0:0]".to_string(), 2, Some("SourceSampler")),
            ("T0[0:0]".to_string(), 2, Some("SourceTexture2D")),
        ]
    );
}

/// Two streams and dynamic linkage, from fxc's listings `stream.o.asm` and
/// `interface_arrays.o.asm`.
#[test]
fn geometry_streams_and_interfaces_match_fxc_listings() {
    let Some(gs) = corpus_reflection("HLSLCrossCompiler/stream.o.dxbc") else {
        return;
    };
    let g = gs.geometry.expect("geometry");
    assert_eq!(g.input_primitive, Some(super::InputPrimitive::Line));
    assert_eq!(g.max_output_vertices, Some(18));
    let streams: Vec<_> = g.streams.iter().map(|s| s.index).collect();
    assert_eq!(streams, [0, 1]);
    let Some(ps) = corpus_reflection("HLSLCrossCompiler/interface_arrays.o.dxbc") else {
        return;
    };
    let l = &ps.linkage;
    assert_eq!((l.function_bodies, l.function_tables.len()), (8, 8));
    let fps: Vec<_> = l
        .interfaces
        .iter()
        .map(|i| {
            (
                i.id,
                i.array_length,
                i.table_length,
                i.function_tables.clone(),
                i.dynamically_indexed,
            )
        })
        .collect();
    assert_eq!(
        fps,
        [
            (0, 2, 1, vec![0, 1, 2], false),
            (2, 1, 1, vec![3, 4, 5], false),
            (3, 3, 1, vec![6, 7], true),
        ]
    );
}
