//! What the runner reads from a SPIR-V module before running it: the execution model of its
//! entry point (to check it against the case's stage), the device features its capabilities
//! need, and whether it declares writable storage (storage buffers, storage images or storage
//! texel buffers without `NonWritable`), which needs `vertexPipelineStoresAndAtomics` in the
//! stages before the rasterizer and `fragmentStoresAndAtomics` in pixel shaders, and which arrays
//! of descriptors it indexes with a non-constant index (`OpAccessChain` into the variable), which
//! needs the `shader*ArrayDynamicIndexing` feature of the descriptor type. A case whose module
//! needs a feature the device lacks is skipped, not failed.

use std::collections::{HashMap, HashSet};

use anyhow::{bail, Result};

use super::shader::Stage;

const OP_CAPABILITY: u32 = 17;
const OP_TYPE_SAMPLER: u32 = 26;
const OP_TYPE_SAMPLED_IMAGE: u32 = 27;
const OP_CONSTANT: u32 = 43;
const OP_CONSTANT_NULL: u32 = 46;
const OP_SPEC_CONSTANT: u32 = 50;
const OP_SPEC_CONSTANT_OP: u32 = 52;
const OP_ACCESS_CHAIN: u32 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
const OP_ENTRY_POINT: u32 = 15;
const OP_TYPE_IMAGE: u32 = 25;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;

const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_NON_WRITABLE: u32 = 24;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_UNIFORM: u32 = 2;
const STORAGE_STORAGE_BUFFER: u32 = 12;

const DIM_BUFFER: u32 = 5;

/// SPIR-V capabilities and the device features they need (Vulkan names, see
/// [`crate::features`]).
const CAPABILITY_FEATURES: &[(u32, &[&str])] = &[
    (2, &["geometryShader"]),                                    // Geometry
    (3, &["tessellationShader"]),                                // Tessellation
    (23, &["shaderTessellationAndGeometryPointSize"]),           // TessellationPointSize
    (24, &["shaderTessellationAndGeometryPointSize"]),           // GeometryPointSize
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
    // Descriptor indexing: arrays of uniform buffers, sampled images, storage buffers and
    // storage images (28-31) and of uniform and storage texel buffers (5304, 5305) indexed
    // dynamically, runtime arrays (5302), non-uniform indices (5306-5309, 5311, 5312).
    (28, &["shaderUniformBufferArrayDynamicIndexing"]),
    (29, &["shaderSampledImageArrayDynamicIndexing"]),
    (30, &["shaderStorageBufferArrayDynamicIndexing"]),
    (31, &["shaderStorageImageArrayDynamicIndexing"]),
    (5302, &["runtimeDescriptorArray"]),
    (5304, &["shaderUniformTexelBufferArrayDynamicIndexing"]),
    (5305, &["shaderStorageTexelBufferArrayDynamicIndexing"]),
    (5306, &["shaderUniformBufferArrayNonUniformIndexing"]),
    (5307, &["shaderSampledImageArrayNonUniformIndexing"]),
    (5308, &["shaderStorageBufferArrayNonUniformIndexing"]),
    (5309, &["shaderStorageImageArrayNonUniformIndexing"]),
    (5311, &["shaderUniformTexelBufferArrayNonUniformIndexing"]),
    (5312, &["shaderStorageTexelBufferArrayNonUniformIndexing"]),
];

/// The facts [`scan`] finds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleFacts {
    /// Every entry point: (execution model, name).
    pub entry_points: Vec<(u32, String)>,
    /// Every declared capability.
    pub capabilities: Vec<u32>,
    /// The module declares a storage buffer, storage image or storage texel buffer that is not
    /// `NonWritable` (a UAV): it may store or run atomics there.
    pub writable_storage: bool,
    /// The dynamic-indexing features of the descriptor arrays the module indexes with a
    /// non-constant index (`shaderSampledImageArrayDynamicIndexing`, …).
    pub dynamic_indexing: Vec<&'static str>,
}

impl ModuleFacts {
    /// The device features the module's capabilities need.
    pub fn required_features(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = CAPABILITY_FEATURES
            .iter()
            .filter(|(c, _)| self.capabilities.contains(c))
            .flat_map(|(_, f)| f.iter().copied())
            .chain(self.dynamic_indexing.iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The device feature a `stage` shader with writable storage needs (Vulkan: every storage
    /// resource of such a stage is `NonWritable` without it); `None` when it needs none.
    pub fn store_feature(&self, stage: Stage) -> Option<&'static str> {
        if !self.writable_storage {
            return None;
        }
        match stage {
            Stage::Pixel => Some("fragmentStoresAndAtomics"),
            s if s.is_pre_rasterization() => Some("vertexPipelineStoresAndAtomics"),
            _ => None,
        }
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

/// The types and decorations [`scan`] follows to find writable storage.
#[derive(Default)]
struct Types {
    /// (id, decoration) of every `OpDecorate`.
    decorations: HashSet<(u32, u32)>,
    /// Struct id → members decorated `NonWritable`.
    non_writable_members: HashMap<u32, HashSet<u32>>,
    /// Struct id → member count.
    structs: HashMap<u32, usize>,
    /// Array id → element type.
    arrays: HashMap<u32, u32>,
    /// Image id → its `Sampled` operand (2: storage image or storage texel buffer).
    images: HashMap<u32, u32>,
    /// Image ids of dimension `Buffer` (texel buffers).
    buffer_images: HashSet<u32>,
    /// Sampler and sampled-image type ids (arrays of them index like sampled images).
    samplers: HashSet<u32>,
    /// Ids of constants and specialization constants.
    constants: HashSet<u32>,
    /// (base, first index) of every access chain.
    access_chains: Vec<(u32, u32)>,
    /// Pointer id → pointee type.
    pointers: HashMap<u32, u32>,
    /// (pointer type, variable id, storage class) of every `OpVariable`.
    variables: Vec<(u32, u32, u32)>,
}

impl Types {
    /// True when some variable is writable storage.
    fn writable_storage(&self) -> bool {
        self.variables.iter().any(|&(ty, id, class)| {
            if self.decorations.contains(&(id, DECORATION_NON_WRITABLE)) {
                return false;
            }
            let Some(&pointee) = self.pointers.get(&ty) else {
                return false;
            };
            let mut base = pointee;
            while let Some(&element) = self.arrays.get(&base) {
                base = element;
            }
            let writable_block = || {
                let members = self.structs.get(&base).copied().unwrap_or(0);
                let read_only = self.non_writable_members.get(&base).map_or(0, |m| m.len());
                read_only < members
            };
            match class {
                STORAGE_STORAGE_BUFFER => writable_block(),
                STORAGE_UNIFORM => {
                    self.decorations.contains(&(base, DECORATION_BUFFER_BLOCK)) && writable_block()
                }
                STORAGE_UNIFORM_CONSTANT => self.images.get(&base) == Some(&2),
                _ => false,
            }
        })
    }
}

impl Types {
    /// The dynamic-indexing features of the descriptor arrays indexed with a non-constant index.
    fn dynamic_indexing(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for &(base, index) in &self.access_chains {
            if self.constants.contains(&index) {
                continue;
            }
            let Some(&(ty, _, class)) = self.variables.iter().find(|v| v.1 == base) else {
                continue;
            };
            let Some(element) = self
                .pointers
                .get(&ty)
                .and_then(|pointee| self.arrays.get(pointee))
            else {
                continue;
            };
            if let Some(f) = self.descriptor_array_feature(class, *element) {
                out.push(f);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The dynamic-indexing feature of an array of `element` descriptors in storage `class`.
    fn descriptor_array_feature(&self, class: u32, element: u32) -> Option<&'static str> {
        let texel = self.buffer_images.contains(&element);
        Some(match (class, self.images.get(&element)) {
            (STORAGE_UNIFORM_CONSTANT, Some(2)) if texel => {
                "shaderStorageTexelBufferArrayDynamicIndexing"
            }
            (STORAGE_UNIFORM_CONSTANT, Some(2)) => "shaderStorageImageArrayDynamicIndexing",
            (STORAGE_UNIFORM_CONSTANT, Some(_)) if texel => {
                "shaderUniformTexelBufferArrayDynamicIndexing"
            }
            (STORAGE_UNIFORM_CONSTANT, Some(_)) => "shaderSampledImageArrayDynamicIndexing",
            (STORAGE_UNIFORM_CONSTANT, None) if self.samplers.contains(&element) => {
                "shaderSampledImageArrayDynamicIndexing"
            }
            (STORAGE_STORAGE_BUFFER, _) => "shaderStorageBufferArrayDynamicIndexing",
            (STORAGE_UNIFORM, _)
                if self
                    .decorations
                    .contains(&(element, DECORATION_BUFFER_BLOCK)) =>
            {
                "shaderStorageBufferArrayDynamicIndexing"
            }
            (STORAGE_UNIFORM, _) => "shaderUniformBufferArrayDynamicIndexing",
            _ => return None,
        })
    }
}

/// Reads the entry points, capabilities and writable storage of a module (whose header
/// `spirv-val` has checked or will check; malformed instructions end the scan).
pub fn scan(words: &[u32]) -> ModuleFacts {
    let mut facts = ModuleFacts::default();
    let mut types = Types::default();
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
            OP_DECORATE if operands.len() >= 2 => {
                types.decorations.insert((operands[0], operands[1]));
            }
            OP_MEMBER_DECORATE if operands.len() >= 3 && operands[2] == DECORATION_NON_WRITABLE => {
                types
                    .non_writable_members
                    .entry(operands[0])
                    .or_default()
                    .insert(operands[1]);
            }
            OP_TYPE_STRUCT if !operands.is_empty() => {
                types.structs.insert(operands[0], operands.len() - 1);
            }
            OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY if operands.len() >= 2 => {
                types.arrays.insert(operands[0], operands[1]);
            }
            OP_TYPE_IMAGE if operands.len() >= 7 => {
                types.images.insert(operands[0], operands[6]);
                if operands[2] == DIM_BUFFER {
                    types.buffer_images.insert(operands[0]);
                }
            }
            OP_TYPE_SAMPLER | OP_TYPE_SAMPLED_IMAGE if !operands.is_empty() => {
                types.samplers.insert(operands[0]);
            }
            OP_CONSTANT | OP_CONSTANT_NULL | OP_SPEC_CONSTANT | OP_SPEC_CONSTANT_OP
                if operands.len() >= 2 =>
            {
                types.constants.insert(operands[1]);
            }
            OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN if operands.len() >= 4 => {
                types.access_chains.push((operands[2], operands[3]));
            }
            OP_TYPE_POINTER if operands.len() >= 3 => {
                types.pointers.insert(operands[0], operands[2]);
            }
            OP_VARIABLE if operands.len() >= 3 => {
                types
                    .variables
                    .push((operands[0], operands[1], operands[2]));
            }
            _ => {}
        }
        at += count;
    }
    facts.writable_storage = types.writable_storage();
    facts.dynamic_indexing = types.dynamic_indexing();
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

    /// A compute module declaring `decls` (types and variables, after `%uint`, `%float` and
    /// `%void`), with `decorations`; its writable-storage verdict.
    fn writable(decorations: &str, decls: &str) -> Option<bool> {
        if std::process::Command::new("spirv-as")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("skipped: spirv-as not installed");
            return None;
        }
        let text = format!(
            "OpCapability Shader\nOpCapability ImageBuffer\nOpCapability SampledBuffer\n\
             OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
             OpExecutionMode %main LocalSize 1 1 1\n\
             {decorations}\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
             %uint = OpTypeInt 32 0\n%float = OpTypeFloat 32\n{decls}\n\
             %main = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\nOpFunctionEnd\n"
        );
        let words = crate::samples::assemble(&text).unwrap_or_else(|e| panic!("{e:#}\n{text}"));
        Some(scan(&words).writable_storage)
    }

    #[test]
    fn finds_writable_storage() {
        let block = "%rt = OpTypeRuntimeArray %uint\n%s = OpTypeStruct %rt %uint\n\
                     %p = OpTypePointer StorageBuffer %s\n%v = OpVariable %p StorageBuffer";
        let deco = "OpDecorate %rt ArrayStride 4\nOpDecorate %s Block\n\
                    OpMemberDecorate %s 0 Offset 0\nOpMemberDecorate %s 1 Offset 4\n\
                    OpDecorate %v DescriptorSet 0\nOpDecorate %v Binding 0";
        let Some(plain) = writable(deco, block) else {
            return;
        };
        assert!(plain, "a storage buffer");
        let var_ro = format!("{deco}\nOpDecorate %v NonWritable");
        assert_eq!(
            writable(&var_ro, block),
            Some(false),
            "NonWritable variable"
        );
        let one_ro = format!("{deco}\nOpMemberDecorate %s 0 NonWritable");
        assert_eq!(
            writable(&one_ro, block),
            Some(true),
            "one member still writable"
        );
        let all_ro = format!("{one_ro}\nOpMemberDecorate %s 1 NonWritable");
        assert_eq!(
            writable(&all_ro, block),
            Some(false),
            "every member NonWritable"
        );
        // Arrays of blocks.
        let array = block.replace(
            "%p = OpTypePointer StorageBuffer %s",
            "%uint_2 = OpConstant %uint 2\n%a = OpTypeArray %s %uint_2\n\
             %p = OpTypePointer StorageBuffer %a",
        );
        assert_eq!(writable(deco, &array), Some(true), "an array of blocks");
        // A uniform buffer is not storage.
        let ubo = "%s = OpTypeStruct %uint\n%p = OpTypePointer Uniform %s\n\
                   %v = OpVariable %p Uniform";
        let ubo_deco = "OpDecorate %s Block\nOpMemberDecorate %s 0 Offset 0\n\
                        OpDecorate %v DescriptorSet 0\nOpDecorate %v Binding 0";
        assert_eq!(writable(ubo_deco, ubo), Some(false), "a uniform buffer");
        // Storage texel buffers and sampled (uniform) texel buffers.
        let image = |sampled: u32| {
            format!(
                "%i = OpTypeImage %uint Buffer 0 0 0 {sampled} R32ui\n\
                 %p = OpTypePointer UniformConstant %i\n%v = OpVariable %p UniformConstant"
            )
        };
        let image_deco = "OpDecorate %v DescriptorSet 0\nOpDecorate %v Binding 0";
        assert_eq!(
            writable(image_deco, &image(2)),
            Some(true),
            "a storage texel buffer"
        );
        assert_eq!(
            writable(image_deco, &image(1)),
            Some(false),
            "a uniform texel buffer"
        );
        let facts = ModuleFacts {
            writable_storage: true,
            ..ModuleFacts::default()
        };
        assert_eq!(
            facts.store_feature(Stage::Domain),
            Some("vertexPipelineStoresAndAtomics")
        );
        assert_eq!(
            facts.store_feature(Stage::Pixel),
            Some("fragmentStoresAndAtomics")
        );
        assert_eq!(facts.store_feature(Stage::Compute), None);
        assert_eq!(ModuleFacts::default().store_feature(Stage::Hull), None);
    }

    #[test]
    fn finds_dynamically_indexed_descriptor_arrays() {
        if std::process::Command::new("spirv-as")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("skipped: spirv-as not installed");
            return;
        }
        let runner =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/conformance/runner");
        let features = |name: &str| {
            let words = crate::conformance::shader::spirv_as(&runner.join(name), "vulkan1.2")
                .unwrap_or_else(|e| panic!("{e:#}"));
            scan(&words).required_features()
        };
        // Indexed by the workgroup id: dynamically uniform.
        assert_eq!(
            features("sm51_texture_array.spvasm"),
            ["shaderSampledImageArrayDynamicIndexing"]
        );
        assert_eq!(
            features("sm51_cbv_sampler_arrays.spvasm"),
            [
                "shaderSampledImageArrayDynamicIndexing",
                "shaderUniformBufferArrayDynamicIndexing"
            ]
        );
        // Non-uniform: the capabilities say it, and the index is not constant either.
        assert_eq!(
            features("sm51_runtime_array.spvasm"),
            [
                "runtimeDescriptorArray",
                "shaderStorageBufferArrayDynamicIndexing",
                "shaderStorageBufferArrayNonUniformIndexing"
            ]
        );
        // Constant indices need nothing; neither do plain (non-array) resources.
        assert!(features("compute_texture.spvasm").is_empty());
        let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                    OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
                    OpDecorate %rt ArrayStride 4\nOpDecorate %s Block\n\
                    OpMemberDecorate %s 0 Offset 0\nOpDecorate %v DescriptorSet 0\n\
                    OpDecorate %v Binding 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                    %uint = OpTypeInt 32 0\n%uint_0 = OpConstant %uint 0\n\
                    %uint_1 = OpConstant %uint 1\n%uint_2 = OpConstant %uint 2\n\
                    %rt = OpTypeRuntimeArray %uint\n%s = OpTypeStruct %rt\n\
                    %a = OpTypeArray %s %uint_2\n%p = OpTypePointer StorageBuffer %a\n\
                    %pw = OpTypePointer StorageBuffer %uint\n%v = OpVariable %p StorageBuffer\n\
                    %main = OpFunction %void None %fn\n%entry = OpLabel\n\
                    %w = OpAccessChain %pw %v %uint_1 %uint_0 %uint_0\nOpStore %w %uint_2\n\
                    OpReturn\nOpFunctionEnd\n";
        let words = crate::samples::assemble(text).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(scan(&words).required_features().is_empty());
    }
}
