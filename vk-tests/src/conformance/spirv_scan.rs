//! What the runner reads from a SPIR-V module before running it: the execution model of its
//! entry point (to check it against the case's stage) and the device features its capabilities
//! need (a case whose module needs a feature the device lacks is skipped, not failed).

use anyhow::{bail, Result};

use super::shader::Stage;

const OP_CAPABILITY: u32 = 17;
const OP_ENTRY_POINT: u32 = 15;

/// SPIR-V capabilities and the device features they need (Vulkan names, see
/// [`crate::features`]).
const CAPABILITY_FEATURES: &[(u32, &[&str])] = &[
    (2, &["geometryShader"]),                                    // Geometry
    (3, &["tessellationShader"]),                                // Tessellation
    (9, &["shaderFloat16"]),                                     // Float16
    (10, &["shaderFloat64"]),                                    // Float64
    (11, &["shaderInt64"]),                                      // Int64
    (22, &["shaderInt16"]),                                      // Int16
    (25, &["shaderImageGatherExtended"]),                        // ImageGatherExtended
    (27, &["shaderStorageImageMultisample"]),                    // StorageImageMultisample
    (32, &["shaderClipDistance"]),                               // ClipDistance
    (33, &["shaderCullDistance"]),                               // CullDistance
    (34, &["imageCubeArray"]),                                   // ImageCubeArray
    (35, &["sampleRateShading"]),                                // SampleRateShading
    (39, &["shaderInt8"]),                                       // Int8
    (41, &["shaderResourceResidency"]),                          // SparseResidency
    (42, &["shaderResourceMinLod"]),                             // MinLod
    (45, &["imageCubeArray"]),                                   // SampledCubeArray
    (49, &["shaderStorageImageExtendedFormats"]),                // StorageImageExtendedFormats
    (53, &["transformFeedback"]),                                // TransformFeedback
    (54, &["geometryStreams"]),                                  // GeometryStreams
    (55, &["shaderStorageImageReadWithoutFormat"]),              // StorageImageReadWithoutFormat
    (56, &["shaderStorageImageWriteWithoutFormat"]),             // StorageImageWriteWithoutFormat
    (57, &["multiViewport"]),                                    // MultiViewport
    (69, &["shaderOutputLayer"]),                                // ShaderLayer
    (70, &["shaderOutputViewportIndex"]),                        // ShaderViewportIndex
    (4427, &["shaderDrawParameters"]),                           // DrawParameters
    (5013, &["shaderStencilExport"]),                            // StencilExportEXT
    (5254, &["shaderOutputLayer", "shaderOutputViewportIndex"]), // ShaderViewportIndexLayerEXT
    (5345, &["vulkanMemoryModel"]),                              // VulkanMemoryModel
    (5379, &["shaderDemoteToHelperInvocation"]),                 // DemoteToHelperInvocation
];

/// The facts [`scan`] finds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleFacts {
    /// Every entry point: (execution model, name).
    pub entry_points: Vec<(u32, String)>,
    /// Every declared capability.
    pub capabilities: Vec<u32>,
}

impl ModuleFacts {
    /// The device features the module's capabilities need.
    pub fn required_features(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = CAPABILITY_FEATURES
            .iter()
            .filter(|(c, _)| self.capabilities.contains(c))
            .flat_map(|(_, f)| f.iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Checks that entry point `name` exists and is a `stage` shader.
    pub fn check_stage(&self, name: &str, stage: Stage) -> Result<()> {
        let model = stage.execution_model();
        match self.entry_points.iter().find(|(_, n)| n == name) {
            Some((m, _)) if *m == model => Ok(()),
            Some((m, _)) => bail!(
                "entry point {name:?} has execution model {} ({}), but the case runs it as {stage}",
                m,
                model_name(*m)
            ),
            None => bail!(
                "the module has no entry point {name:?} (it has {})",
                self.entry_points
                    .iter()
                    .map(|(m, n)| format!("{n:?} ({})", model_name(*m)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

fn model_name(model: u32) -> &'static str {
    match model {
        0 => "Vertex",
        1 => "TessellationControl",
        2 => "TessellationEvaluation",
        3 => "Geometry",
        4 => "Fragment",
        5 => "GLCompute",
        _ => "other",
    }
}

/// Reads the entry points and capabilities of a module (whose header `spirv-val` has checked
/// or will check; malformed instructions end the scan).
pub fn scan(words: &[u32]) -> ModuleFacts {
    let mut facts = ModuleFacts::default();
    let mut at = 5;
    while at < words.len() {
        let word = words[at];
        let count = (word >> 16) as usize;
        let opcode = word & 0xffff;
        if count == 0 || at + count > words.len() {
            break;
        }
        let operands = &words[at + 1..at + count];
        match opcode {
            OP_CAPABILITY if !operands.is_empty() => facts.capabilities.push(operands[0]),
            OP_ENTRY_POINT if operands.len() >= 3 => {
                facts
                    .entry_points
                    .push((operands[0], literal_string(&operands[2..])));
            }
            _ => {}
        }
        at += count;
    }
    facts
}

/// A nul-terminated literal string packed in words.
fn literal_string(words: &[u32]) -> String {
    let mut bytes = Vec::new();
    'outer: for w in words {
        for b in w.to_le_bytes() {
            if b == 0 {
                break 'outer;
            }
            bytes.push(b);
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_entry_points_and_capabilities() {
        // Header, OpCapability Shader, OpCapability Geometry, OpEntryPoint Geometry %1 "main".
        let words = [
            0x0723_0203,
            0x0001_0300,
            0,
            10,
            0,
            (2 << 16) | OP_CAPABILITY,
            1,
            (2 << 16) | OP_CAPABILITY,
            2,
            (5 << 16) | OP_ENTRY_POINT,
            3,
            1,
            u32::from_le_bytes(*b"main"),
            0,
        ];
        let facts = scan(&words);
        assert_eq!(facts.capabilities, [1, 2]);
        assert_eq!(facts.entry_points, [(3, "main".to_owned())]);
        assert_eq!(facts.required_features(), ["geometryShader"]);
        assert!(facts.check_stage("main", Stage::Geometry).is_ok());
        let e = format!("{:#}", facts.check_stage("main", Stage::Pixel).unwrap_err());
        assert!(e.contains("runs it as ps"), "{e}");
        assert!(facts.check_stage("other", Stage::Geometry).is_err());
    }
}
