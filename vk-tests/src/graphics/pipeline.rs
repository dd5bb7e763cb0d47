//! The graphics pipeline of a [`GraphicsJob`]: shader modules, descriptor sets and pipeline
//! layout, and the pipeline for dynamic rendering.

use std::ffi::CString;

use anyhow::{Context, Result};
use ash::vk;

use super::GraphicsJob;
use crate::descriptors::{self, Descriptors};
use crate::gpu::Gpu;

/// The pipeline objects; handles start null and `Drop` destroys the non-null ones.
pub struct Pipeline<'g> {
    gpu: &'g Gpu,
    modules: Vec<vk::ShaderModule>,
    pub(super) descriptors: Descriptors,
    pub(super) layout: vk::PipelineLayout,
    pub(super) pipeline: vk::Pipeline,
}

impl<'g> Pipeline<'g> {
    /// Creates everything `job` draws with.
    pub fn new(gpu: &'g Gpu, job: &GraphicsJob<'_, '_>) -> Result<Pipeline<'g>> {
        let mut this = Pipeline {
            gpu,
            modules: Vec::new(),
            descriptors: Descriptors::default(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
        };
        let layout = job
            .layout
            .clone()
            .unwrap_or_else(|| descriptors::implied_layout(&job.bindings));
        this.descriptors.build(gpu, &layout, &job.bindings)?;
        this.create(job)?;
        Ok(this)
    }

    fn create(&mut self, job: &GraphicsJob<'_, '_>) -> Result<()> {
        let device = self.gpu.device();
        let names = job
            .stages
            .iter()
            .map(|s| CString::new(s.entry_point).context("entry point name contains a NUL"))
            .collect::<Result<Vec<_>>>()?;
        // SAFETY (whole block): create infos are valid and outlive their calls; handles belong
        // to this device.
        unsafe {
            for s in &job.stages {
                let info = vk::ShaderModuleCreateInfo::default().code(s.spirv);
                let module = device
                    .create_shader_module(&info, None)
                    .with_context(|| format!("vkCreateShaderModule failed ({:?})", s.stage))?;
                self.modules.push(module);
            }
            let ranges = crate::compute::push_ranges(
                &job.push_constants,
                vk::ShaderStageFlags::ALL_GRAPHICS,
            );
            let info = vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&self.descriptors.layouts)
                .push_constant_ranges(&ranges);
            self.layout = device
                .create_pipeline_layout(&info, None)
                .context("vkCreatePipelineLayout failed")?;
        }
        // Specialization constant 0: the rasterizer's sample count, which translated shaders
        // read for `sampleinfo`/`samplepos` on `rasterizer` (dxbc2spv's
        // RASTERIZER_SAMPLES_SPEC_ID); modules without it ignore the entry.
        // The case's own constants follow (one of id 0 replaces the sample count).
        let mut values = vec![(0, job.samples)];
        for &(id, bits) in &job.specializations {
            values.retain(|&(i, _)| i != id);
            values.push((id, bits));
        }
        let data: Vec<u8> = values.iter().flat_map(|&(_, v)| v.to_le_bytes()).collect();
        let spec_entries: Vec<_> = values
            .iter()
            .enumerate()
            .map(|(k, &(id, _))| {
                vk::SpecializationMapEntry::default()
                    .constant_id(id)
                    .offset(4 * k as u32)
                    .size(4)
            })
            .collect();
        let specialization = vk::SpecializationInfo::default()
            .map_entries(&spec_entries)
            .data(&data);
        let stages: Vec<_> = job
            .stages
            .iter()
            .zip(&self.modules)
            .zip(&names)
            .map(|((s, &module), name)| {
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(s.stage)
                    .module(module)
                    .name(name)
                    .specialization_info(&specialization)
            })
            .collect();

        let vertex_bindings: Vec<_> = job
            .vertex_buffers
            .iter()
            .map(|vb| {
                vk::VertexInputBindingDescription::default()
                    .binding(vb.slot)
                    .stride(vb.stride)
                    .input_rate(if vb.per_instance {
                        vk::VertexInputRate::INSTANCE
                    } else {
                        vk::VertexInputRate::VERTEX
                    })
            })
            .collect();
        let attributes: Vec<_> = job
            .attributes
            .iter()
            .map(|a| {
                vk::VertexInputAttributeDescription::default()
                    .location(a.location)
                    .binding(a.slot)
                    .format(a.format)
                    .offset(a.offset)
            })
            .collect();
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&vertex_bindings)
            .vertex_attribute_descriptions(&attributes);
        let input_assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(job.topology);
        // The default domain origin (upper-left) is D3D's.
        let tessellation = vk::PipelineTessellationStateCreateInfo::default()
            .patch_control_points(job.patch_control_points.unwrap_or(0));
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&job.viewports)
            .scissors(&job.scissors);

        let r = &job.raster;
        let mut stream = vk::PipelineRasterizationStateStreamCreateInfoEXT::default()
            .rasterization_stream(r.stream);
        let mut raster = vk::PipelineRasterizationStateCreateInfo::default()
            .depth_clamp_enable(r.depth_clamp)
            .rasterizer_discard_enable(r.discard)
            .polygon_mode(r.polygon_mode)
            .cull_mode(r.cull)
            .front_face(r.front_face)
            .line_width(1.0);
        if r.stream != 0 {
            raster = raster.push_next(&mut stream);
        }

        let sample_mask = [r.sample_mask];
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::from_raw(job.samples))
            .sample_shading_enable(r.min_sample_shading.is_some())
            .min_sample_shading(r.min_sample_shading.unwrap_or(0.0))
            .sample_mask(&sample_mask);

        let slots = job.color_slots();
        let mut formats = vec![vk::Format::UNDEFINED; slots];
        let mut blends = vec![
            vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::RGBA);
            slots
        ];
        for t in &job.color_targets {
            formats[t.location as usize] = t.image.desc().format;
            if let Some(b) = t.blend {
                blends[t.location as usize] = b;
            }
        }
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blends);

        let (depth_format, stencil_format, depth_stencil) = match &job.depth {
            Some(d) => {
                let format = d.image.desc().format;
                let state = vk::PipelineDepthStencilStateCreateInfo::default()
                    .depth_test_enable(d.depth_test)
                    .depth_write_enable(d.depth_write)
                    .depth_compare_op(d.depth_compare)
                    .stencil_test_enable(d.stencil_test)
                    .front(d.front)
                    .back(d.back)
                    .min_depth_bounds(0.0)
                    .max_depth_bounds(1.0);
                let stencil = if d.has_stencil {
                    format
                } else {
                    vk::Format::UNDEFINED
                };
                (format, stencil, state)
            }
            None => (
                vk::Format::UNDEFINED,
                vk::Format::UNDEFINED,
                vk::PipelineDepthStencilStateCreateInfo::default(),
            ),
        };
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&formats)
            .depth_attachment_format(depth_format)
            .stencil_attachment_format(stencil_format);

        let mut info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&input_assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth_stencil)
            .color_blend_state(&blend)
            .layout(self.layout)
            .push_next(&mut rendering);
        if job.patch_control_points.is_some() {
            info = info.tessellation_state(&tessellation);
        }
        // SAFETY: the create info and everything it points to outlive the call.
        let pipelines =
            unsafe { device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
                .map_err(|(_, e)| e)
                .context("vkCreateGraphicsPipelines failed")?;
        self.pipeline = pipelines.first().copied().unwrap_or_default();
        Ok(())
    }
}

impl Drop for Pipeline<'_> {
    fn drop(&mut self) {
        let device = self.gpu.device();
        // SAFETY: the handles belong to this device (or are null); the draw that used them was
        // waited for, or never submitted.
        unsafe {
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.layout, None);
            for &m in &self.modules {
                device.destroy_shader_module(m, None);
            }
        }
        self.descriptors.destroy(device);
    }
}
