//! Per-sample access to multisampled images, which transfers cannot reach: small compute
//! shaders, written here in SPIR-V assembly and assembled with `spirv-as` when first needed,
//! fetch every sample into a buffer ([`read_samples`]) or write every sample from one
//! ([`write_samples`]).
//!
//! Values travel as four 32-bit words per sample: the bits of the `vec4`, `uvec4` or `ivec4` the
//! shader fetches (for a depth or stencil aspect, the value is in the first word). The buffer
//! order is layer, row, column, sample: word `(((layer * height + y) * width + x) * samples + s)
//! * 4 + channel`.

use std::io::Write;

use anyhow::{bail, Context, Result};
use ash::vk;

use crate::buffer::Buffer;
use crate::compute::{run_compute_with, ComputeJob, DescriptorKind};
use crate::descriptors::{Binding, Resource};
use crate::format::ShaderType;
use crate::gpu::Gpu;
use crate::image::Image;
use crate::spirv_val::spawn_piped;

/// What both shaders share, from the memory model to `%base`, the index of the first of the
/// four words of sample `%s` of layer `%layer` at `(%x, %y)` in the buffer. `%T` is the image's
/// sampled type; `SAMPLED` is 1 (sampled image, read) or 2 (storage image, write);
/// `IMAGE_DECORATIONS` stands for the image's further decorations.
const COMMON: &str = r#"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %groups
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %groups BuiltIn NumWorkgroups
               OpDecorate %img DescriptorSet 0
               OpDecorate %img Binding 0
IMAGE_DECORATIONS
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 1
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %block 0 Offset 0
               OpDecorate %block Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
      %uvec3 = OpTypeVector %uint 3
      %ivec3 = OpTypeVector %int 3
      %uvec4 = OpTypeVector %uint 4
         %v4 = OpTypeVector %T 4
      %p_in3 = OpTypePointer Input %uvec3
        %gid = OpVariable %p_in3 Input
     %groups = OpVariable %p_in3 Input
    %imgtype = OpTypeImage %T 2D 0 1 1 SAMPLED Unknown
      %p_img = OpTypePointer UniformConstant %imgtype
        %img = OpVariable %p_img UniformConstant
        %arr = OpTypeRuntimeArray %uint
      %block = OpTypeStruct %arr
      %p_buf = OpTypePointer StorageBuffer %block
        %buf = OpVariable %p_buf StorageBuffer
     %p_word = OpTypePointer StorageBuffer %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_3 = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %uvec3 %gid
          %n = OpLoad %uvec3 %groups
          %x = OpCompositeExtract %uint %g 0
          %y = OpCompositeExtract %uint %g 1
          %z = OpCompositeExtract %uint %g 2
          %w = OpCompositeExtract %uint %n 0
          %h = OpCompositeExtract %uint %n 1
          %i = OpLoad %imgtype %img
         %ns = OpImageQuerySamples %int %i
        %nsu = OpBitcast %uint %ns
          %s = OpUMod %uint %z %nsu
      %layer = OpUDiv %uint %z %nsu
         %r0 = OpIMul %uint %layer %h
         %r1 = OpIAdd %uint %r0 %y
         %r2 = OpIMul %uint %r1 %w
         %r3 = OpIAdd %uint %r2 %x
         %r4 = OpIMul %uint %r3 %nsu
         %r5 = OpIAdd %uint %r4 %s
       %base = OpIMul %uint %r5 %uint_4
       %xyzu = OpCompositeConstruct %uvec3 %x %y %layer
      %coord = OpBitcast %ivec3 %xyzu
         %si = OpBitcast %int %s
"#;

/// Fetches sample `gid.z % samples` of layer `gid.z / samples` at `(gid.x, gid.y)` into the
/// output buffer (capabilities, then the body after [`COMMON`]).
const READ: [&str; 2] = [
    r#"
               OpCapability Shader
               OpCapability ImageQuery"#,
    r#"
          %v = OpImageFetch %v4 %i %coord Sample %si
         %vu = CONVERT
         %c0 = OpCompositeExtract %uint %vu 0
         %c1 = OpCompositeExtract %uint %vu 1
         %c2 = OpCompositeExtract %uint %vu 2
         %c3 = OpCompositeExtract %uint %vu 3
         %a0 = OpAccessChain %p_word %buf %uint_0 %base
               OpStore %a0 %c0
         %i1 = OpIAdd %uint %base %uint_1
         %a1 = OpAccessChain %p_word %buf %uint_0 %i1
               OpStore %a1 %c1
         %i2 = OpIAdd %uint %base %uint_2
         %a2 = OpAccessChain %p_word %buf %uint_0 %i2
               OpStore %a2 %c2
         %i3 = OpIAdd %uint %base %uint_3
         %a3 = OpAccessChain %p_word %buf %uint_0 %i3
               OpStore %a3 %c3
               OpReturn
               OpFunctionEnd
"#,
];

/// Writes sample `gid.z % samples` of layer `gid.z / samples` at `(gid.x, gid.y)` from the input
/// buffer (a storage image without format, so any color format works); capabilities, then the
/// body after [`COMMON`].
const WRITE: [&str; 2] = [
    r#"
               OpCapability Shader
               OpCapability ImageQuery
               OpCapability StorageImageMultisample
               OpCapability StorageImageWriteWithoutFormat"#,
    r#"
         %a0 = OpAccessChain %p_word %buf %uint_0 %base
         %c0 = OpLoad %uint %a0
         %i1 = OpIAdd %uint %base %uint_1
         %a1 = OpAccessChain %p_word %buf %uint_0 %i1
         %c1 = OpLoad %uint %a1
         %i2 = OpIAdd %uint %base %uint_2
         %a2 = OpAccessChain %p_word %buf %uint_0 %i2
         %c2 = OpLoad %uint %a2
         %i3 = OpIAdd %uint %base %uint_3
         %a3 = OpAccessChain %p_word %buf %uint_0 %i3
         %c3 = OpLoad %uint %a3
         %vu = OpCompositeConstruct %uvec4 %c0 %c1 %c2 %c3
          %v = CONVERT
               OpImageWrite %i %coord %v Sample %si
               OpReturn
               OpFunctionEnd
"#,
];

/// The text of the read (`read`) or write shader for sampled type `ty`; `CONVERT` becomes the
/// conversion of the fetched `%v` to `uvec4` bits (read) or of the loaded `%vu` to `%v4` (write).
fn specialize(ty: ShaderType, read: bool) -> String {
    let t = match ty {
        ShaderType::Float => "%float",
        ShaderType::Uint => "%uint",
        ShaderType::Sint => "%int",
    };
    let convert = match (ty, read) {
        (ShaderType::Uint, true) => "OpCopyObject %uvec4 %v",
        (ShaderType::Uint, false) => "OpCopyObject %uvec4 %vu",
        (_, true) => "OpBitcast %uvec4 %v",
        (_, false) => "OpBitcast %v4 %vu",
    };
    let ([caps, body], sampled, decorations) = if read {
        (READ, "1", "")
    } else {
        (WRITE, "2", "               OpDecorate %img NonReadable")
    };
    let common = COMMON
        .replace("SAMPLED", sampled)
        .replace("IMAGE_DECORATIONS\n", &format!("{decorations}\n"));
    let text = format!("{caps}{common}{body}")
        .replace("%T", t)
        .replace("CONVERT", convert);
    if ty == ShaderType::Uint {
        // `%v4` would repeat `%uvec4`, which SPIR-V forbids.
        text.replace("         %v4 = OpTypeVector %uint 4\n", "")
            .replace("%v4", "%uvec4")
    } else {
        text
    }
}

/// Assembles SPIR-V text with `spirv-as --target-env vulkan1.1` (text on stdin).
pub fn assemble(text: &str) -> Result<Vec<u32>> {
    let child = spawn_piped("spirv-as", &["--target-env", "vulkan1.1", "-o", "-", "-"]);
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "spirv-as not found on PATH ({e}); run .ci/setup.sh (as root) to install spirv-tools"
        ),
        Err(e) => return Err(e).context("could not start spirv-as"),
    };
    {
        let mut stdin = child.stdin.take().context("spirv-as stdin is not piped")?;
        stdin
            .write_all(text.as_bytes())
            .context("writing to spirv-as")?;
    }
    let out = child.wait_with_output().context("waiting for spirv-as")?;
    if !out.status.success() {
        bail!(
            "spirv-as rejected an internal shader ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    if out.stdout.len() % 4 != 0 {
        bail!("spirv-as wrote {} bytes, not whole words", out.stdout.len());
    }
    Ok(out
        .stdout
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Words of sample data for every sample of `image`: four per sample.
fn sample_words(image: &Image<'_>) -> u64 {
    let desc = image.desc();
    u64::from(desc.width)
        * u64::from(desc.height)
        * u64::from(desc.layers)
        * u64::from(desc.samples)
        * 4
}

/// Runs the read (`read`) or write shader for sampled type `ty` over every sample of `image`,
/// with `view` bound at binding 0 as `kind` and `buffer` at binding 1.
fn run_sample_shader(
    gpu: &Gpu,
    image: &Image<'_>,
    view: vk::ImageView,
    kind: DescriptorKind,
    buffer: &Buffer<'_>,
    ty: ShaderType,
    read: bool,
) -> Result<()> {
    let spirv = assemble(&specialize(ty, read))?;
    let bindings = [
        Binding {
            set: 0,
            binding: 0,
            element: 0,
            kind,
            stages: vk::ShaderStageFlags::COMPUTE,
            resource: Resource::Image(view),
        },
        Binding {
            set: 0,
            binding: 1,
            element: 0,
            kind: DescriptorKind::StorageBuffer,
            stages: vk::ShaderStageFlags::COMPUTE,
            resource: Resource::Buffer {
                buffer,
                texel_format: None,
                view: None,
            },
        },
    ];
    let desc = image.desc();
    let job = ComputeJob::new(
        &spirv,
        [desc.width, desc.height, desc.layers * desc.samples],
    );
    let what = if read { "reading" } else { "writing" };
    run_compute_with(gpu, &job, &bindings)
        .with_context(|| format!("{what} the samples of {}", image.name()))
}

/// Every sample of `image` (all layers; one aspect: color, depth or stencil), as four words per
/// sample in the order of the module documentation. `ty` is how the aspect is fetched: float
/// for float, unorm and snorm colors and for depth; uint for stencil.
pub fn read_samples(
    gpu: &Gpu,
    image: &Image<'_>,
    aspect: vk::ImageAspectFlags,
    ty: ShaderType,
) -> Result<Vec<u32>> {
    let words = sample_words(image);
    let out = Buffer::new(gpu, words * 4, &format!("{} samples", image.name()))?;
    let range = vk::ImageSubresourceRange {
        aspect_mask: aspect,
        ..image.range(aspect)
    };
    let view = image.view(vk::ImageViewType::TYPE_2D_ARRAY, range)?;
    let kind = DescriptorKind::SampledImage;
    run_sample_shader(gpu, image, view.handle(), kind, &out, ty, true)?;
    out.read_u32s()
}

/// Writes every sample of the color image `image` (created with `STORAGE` usage) from `words`
/// (four per sample, the bits of what the shader writes as `ty`, in the order of the module
/// documentation). Needs `shaderStorageImageMultisample` and
/// `shaderStorageImageWriteWithoutFormat`.
pub fn write_samples(gpu: &Gpu, image: &Image<'_>, ty: ShaderType, words: &[u32]) -> Result<()> {
    let expected = sample_words(image);
    if words.len() as u64 != expected {
        bail!(
            "{}: {} words of sample data, expected {expected}",
            image.name(),
            words.len()
        );
    }
    let input = Buffer::from_u32s(gpu, words, &format!("{} samples", image.name()))?;
    let view = image.view(
        vk::ImageViewType::TYPE_2D_ARRAY,
        image.range(vk::ImageAspectFlags::COLOR),
    )?;
    let kind = DescriptorKind::StorageImage;
    run_sample_shader(gpu, image, view.handle(), kind, &input, ty, false)
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    #[test]
    fn shaders_assemble_and_validate() {
        if Command::new("spirv-as").arg("--version").output().is_err() {
            eprintln!("skipped: spirv-as not installed");
            return;
        }
        for ty in [ShaderType::Float, ShaderType::Uint, ShaderType::Sint] {
            for read in [true, false] {
                let words = assemble(&specialize(ty, read))
                    .unwrap_or_else(|e| panic!("{ty:?} {read}: {e:#}"));
                crate::spirv_val::validate(&words, "vulkan1.1")
                    .unwrap_or_else(|e| panic!("{ty:?} {read}: {e:#}"));
            }
        }
    }
}
