//! Option blocks for the pipeline state and the class instances bound at `*SetShader` time.
//!
//! Contract: [`dxbc2spv_pipeline_state`] is the Rust [`PipelineState`] field for field
//! ([`dxbc2spv_pipeline_state_init`] writes its defaults, the Rust defaults);
//! [`dxbc2spv_class_instances`] is [`ClassLinkage::bound`]'s list. Conversion rejects values
//! the Rust type cannot hold with an error naming the field.

use std::ffi::{c_int, c_void};

use translator::bindings::{ClassInstance, ClassLinkage};
use translator::{PipelineState, SpecValue, TargetComponent, TargetSwizzle};

use crate::{slice, Failure, DXBC2SPV_ERROR_INVALID_ARGUMENT, DXBC2SPV_OK};

/// `stype` of [`dxbc2spv_pipeline_state`].
pub const DXBC2SPV_STRUCTURE_TYPE_PIPELINE_STATE: u32 = 9;
/// `stype` of [`dxbc2spv_class_instances`].
pub const DXBC2SPV_STRUCTURE_TYPE_CLASS_INSTANCES: u32 = 10;

/// Render-target swizzle component: the shader's `x` (red).
pub const DXBC2SPV_COMPONENT_X: u8 = 0;
/// Render-target swizzle component: the shader's `y` (green).
pub const DXBC2SPV_COMPONENT_Y: u8 = 1;
/// Render-target swizzle component: the shader's `z` (blue).
pub const DXBC2SPV_COMPONENT_Z: u8 = 2;
/// Render-target swizzle component: the shader's `w` (alpha).
pub const DXBC2SPV_COMPONENT_W: u8 = 3;
/// Render-target swizzle component: constant 0.
pub const DXBC2SPV_COMPONENT_ZERO: u8 = 4;
/// Render-target swizzle component: constant 1.
pub const DXBC2SPV_COMPONENT_ONE: u8 = 5;

/// A value fixed at translation time, or a specialization constant.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct dxbc2spv_spec_u32 {
    /// 0: `value` is fixed (`OpConstant`); 1: an `OpSpecConstant` with `SpecId spec_id` and
    /// default `value`.
    pub is_spec: u32,
    /// The `SpecId` when `is_spec` is 1.
    pub spec_id: u32,
    /// The value (or the specialization constant's default).
    pub value: u32,
}

/// A float fixed at translation time, or a specialization constant.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct dxbc2spv_spec_f32 {
    /// 0: `value` is fixed; 1: a specialization constant with `SpecId spec_id`.
    pub is_spec: u32,
    /// The `SpecId` when `is_spec` is 1.
    pub spec_id: u32,
    /// The value (or the specialization constant's default).
    pub value: f32,
}

/// The pipeline state a translation depends on (`docs/runtime.md`, "Pipeline-state keys").
/// Set it up with [`dxbc2spv_pipeline_state_init`] (the defaults change nothing).
#[repr(C)]
pub struct dxbc2spv_pipeline_state {
    /// [`DXBC2SPV_STRUCTURE_TYPE_PIPELINE_STATE`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// Pixel shaders: per `SV_Target` index, component `c` written to the target is component
    /// `target_swizzles[n][c]` (`DXBC2SPV_COMPONENT_*`) of what the shader wrote.
    pub target_swizzles: [[u8; 4]; 8],
    /// Pixel shaders: bit `n`: `SV_Target<n>` is not written (no view bound). Bits 0–7.
    pub dropped_targets: u32,
    /// Pixel shaders: 1: dual-source blending (`o0`, `o1` as sources 0 and 1); 0: off.
    pub dual_source_blending: u32,
    /// The rasterizer's sample count (`sampleinfo`/`samplepos` on `rasterizer`).
    pub sample_count: dxbc2spv_spec_u32,
    /// Pixel shaders: 1: run at sample frequency, every interpolated input per sample.
    pub force_sample_rate: u32,
    /// Bit `n` (of `t0`–`t127`, space 0): a single-sampled view is bound where the shader
    /// declares a multisampled texture. Word 0 holds bits 0–63, word 1 bits 64–127.
    pub single_sampled_srvs: [u64; 2],
    /// Hull shaders: 1: `max_tess_factor` further limits the tessellation factors.
    pub has_max_tess_factor: u32,
    /// The limit, when `has_max_tess_factor` is 1.
    pub max_tess_factor: dxbc2spv_spec_f32,
}

/// The instance bound to one interface slot.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct dxbc2spv_class_instance {
    /// 0: no instance is bound to this slot; 1: the fields below hold it.
    pub present: u32,
    /// The function table (`ft#`) of the instance's class.
    pub table: u32,
    /// The constant buffer (`cb#`) with the instance's data.
    pub constant_buffer: u32,
    /// Where the data starts in that buffer, in 16-byte vectors (`BaseConstantBufferOffset`).
    pub constant_offset: u32,
    /// The first texture register (`BaseTexture`).
    pub base_texture: u32,
    /// The first sampler register (`BaseSampler`).
    pub base_sampler: u32,
}

/// The class instances bound at `*SetShader` time, one per interface slot: calls go straight
/// to each instance's bodies (no class-linkage block). Without this block: run-time dispatch.
#[repr(C)]
pub struct dxbc2spv_class_instances {
    /// [`DXBC2SPV_STRUCTURE_TYPE_CLASS_INSTANCES`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// Entry `s` for interface slot `s` (may be NULL when the count is 0).
    pub instances: *const dxbc2spv_class_instance,
    /// Entries in `instances`.
    pub instance_count: usize,
}

const COMPONENTS: [TargetComponent; 6] = [
    TargetComponent::X,
    TargetComponent::Y,
    TargetComponent::Z,
    TargetComponent::W,
    TargetComponent::Zero,
    TargetComponent::One,
];

fn component_code(c: TargetComponent) -> u8 {
    COMPONENTS
        .iter()
        .position(|&k| k == c)
        .and_then(|p| u8::try_from(p).ok())
        .unwrap_or(DXBC2SPV_COMPONENT_X)
}

fn flag(field: &str, v: u32) -> Result<bool, Failure> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(Failure::invalid_argument(format!(
            "options: {field} = {v} is not 0 or 1"
        ))),
    }
}

fn spec_u32(field: &str, s: &dxbc2spv_spec_u32) -> Result<SpecValue<u32>, Failure> {
    Ok(if flag(&format!("{field}.is_spec"), s.is_spec)? {
        SpecValue::Spec {
            id: s.spec_id,
            default: s.value,
        }
    } else {
        SpecValue::Fixed(s.value)
    })
}

fn spec_f32(field: &str, s: &dxbc2spv_spec_f32) -> Result<SpecValue<f32>, Failure> {
    Ok(if flag(&format!("{field}.is_spec"), s.is_spec)? {
        SpecValue::Spec {
            id: s.spec_id,
            default: s.value,
        }
    } else {
        SpecValue::Fixed(s.value)
    })
}

/// The Rust form of a pipeline-state block.
pub(crate) fn pipeline_state(b: &dxbc2spv_pipeline_state) -> Result<PipelineState, Failure> {
    let mut swizzles = [[TargetComponent::X; 4]; 8];
    for (n, (out, codes)) in swizzles.iter_mut().zip(&b.target_swizzles).enumerate() {
        for (c, (o, &code)) in out.iter_mut().zip(codes).enumerate() {
            *o = *COMPONENTS.get(usize::from(code)).ok_or_else(|| {
                Failure::invalid_argument(format!(
                    "options: pipeline_state.target_swizzles[{n}][{c}] = {code} is not a \
                     DXBC2SPV_COMPONENT_* value"
                ))
            })?;
        }
    }
    let dropped_targets = u8::try_from(b.dropped_targets).map_err(|_| {
        Failure::invalid_argument(format!(
            "options: pipeline_state.dropped_targets = {:#x} has bits past 7",
            b.dropped_targets
        ))
    })?;
    let max_tess_factor = if flag("pipeline_state.has_max_tess_factor", b.has_max_tess_factor)? {
        Some(spec_f32(
            "pipeline_state.max_tess_factor",
            &b.max_tess_factor,
        )?)
    } else {
        None
    };
    let [low, high] = b.single_sampled_srvs;
    Ok(PipelineState {
        target_swizzles: swizzles.map(|s: TargetSwizzle| s),
        dropped_targets,
        dual_source_blending: flag(
            "pipeline_state.dual_source_blending",
            b.dual_source_blending,
        )?,
        sample_count: spec_u32("pipeline_state.sample_count", &b.sample_count)?,
        force_sample_rate: flag("pipeline_state.force_sample_rate", b.force_sample_rate)?,
        single_sampled_srvs: u128::from(low) | (u128::from(high) << 64),
        max_tess_factor,
    })
}

/// The instances of a class-instances block, set on `linkage` (its block binding is kept).
///
/// # Safety
/// `b.instances` holds `b.instance_count` entries.
pub(crate) unsafe fn class_instances(
    b: &dxbc2spv_class_instances,
    linkage: &mut ClassLinkage,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    let entries = match unsafe { slice(b.instances, b.instance_count) } {
        Some(e) => e,
        None if b.instance_count == 0 => &[],
        None => {
            return Err(Failure::invalid_argument(
                "options: class_instances.instances is NULL",
            ))
        }
    };
    let mut out = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let present = flag(
            &format!("class_instances.instances[{i}].present"),
            e.present,
        )?;
        out.push(present.then_some(ClassInstance {
            table: e.table,
            constant_buffer: e.constant_buffer,
            constant_offset: e.constant_offset,
            base_texture: e.base_texture,
            base_sampler: e.base_sampler,
        }));
    }
    linkage.instances = Some(out);
    Ok(())
}

/// Writes the defaults (the Rust [`PipelineState::default`]: nothing changes) to `state`,
/// with `stype` set and `next` NULL. Returns `DXBC2SPV_ERROR_INVALID_ARGUMENT` for NULL.
///
/// # Safety
/// `state` is NULL or points to a writable `dxbc2spv_pipeline_state`.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_pipeline_state_init(
    state: *mut dxbc2spv_pipeline_state,
) -> c_int {
    if state.is_null() {
        return DXBC2SPV_ERROR_INVALID_ARGUMENT;
    }
    let d = PipelineState::default();
    let spec_u32 = |s: SpecValue<u32>| match s {
        SpecValue::Fixed(value) => dxbc2spv_spec_u32 {
            is_spec: 0,
            spec_id: 0,
            value,
        },
        SpecValue::Spec { id, default } => dxbc2spv_spec_u32 {
            is_spec: 1,
            spec_id: id,
            value: default,
        },
    };
    let max = match d.max_tess_factor {
        None => dxbc2spv_spec_f32::default(),
        Some(SpecValue::Fixed(value)) => dxbc2spv_spec_f32 {
            is_spec: 0,
            spec_id: 0,
            value,
        },
        Some(SpecValue::Spec { id, default }) => dxbc2spv_spec_f32 {
            is_spec: 1,
            spec_id: id,
            value: default,
        },
    };
    let block = dxbc2spv_pipeline_state {
        stype: DXBC2SPV_STRUCTURE_TYPE_PIPELINE_STATE,
        next: std::ptr::null(),
        target_swizzles: d.target_swizzles.map(|s| s.map(component_code)),
        dropped_targets: u32::from(d.dropped_targets),
        dual_source_blending: u32::from(d.dual_source_blending),
        sample_count: spec_u32(d.sample_count),
        force_sample_rate: u32::from(d.force_sample_rate),
        // Truncation intended: the low and high 64 bits.
        single_sampled_srvs: [
            d.single_sampled_srvs as u64,
            (d.single_sampled_srvs >> 64) as u64,
        ],
        has_max_tess_factor: u32::from(d.max_tess_factor.is_some()),
        max_tess_factor: max,
    };
    // SAFETY: checked non-NULL; writable by the caller's contract.
    unsafe { state.write(block) };
    DXBC2SPV_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> dxbc2spv_pipeline_state {
        let mut b = std::mem::MaybeUninit::<dxbc2spv_pipeline_state>::uninit();
        // SAFETY: writable.
        assert_eq!(unsafe { dxbc2spv_pipeline_state_init(b.as_mut_ptr()) }, 0);
        // SAFETY: initialised.
        unsafe { b.assume_init() }
    }

    /// The init function's block converts to the Rust defaults; each field reaches its Rust
    /// field; bad values name the field.
    #[test]
    fn pipeline_state_block_is_the_rust_state() {
        let b = defaults();
        assert_eq!(pipeline_state(&b).ok(), Some(PipelineState::default()));
        let mut b = defaults();
        b.target_swizzles[2] = [
            DXBC2SPV_COMPONENT_Z,
            DXBC2SPV_COMPONENT_Y,
            DXBC2SPV_COMPONENT_X,
            DXBC2SPV_COMPONENT_W,
        ];
        b.dropped_targets = 0b1000_0001;
        b.sample_count = dxbc2spv_spec_u32 {
            is_spec: 0,
            spec_id: 0,
            value: 4,
        };
        b.single_sampled_srvs = [1, 1];
        b.has_max_tess_factor = 1;
        b.max_tess_factor.value = 16.0;
        let s = pipeline_state(&b).map_err(|f| f.message).expect("converts");
        use TargetComponent::{W, X, Y, Z};
        assert_eq!(s.target_swizzles[2], [Z, Y, X, W]);
        assert_eq!(s.dropped_targets, 0x81);
        assert_eq!(s.sample_count, SpecValue::Fixed(4));
        assert_eq!(s.single_sampled_srvs, 1 | (1 << 64));
        assert_eq!(s.max_tess_factor, Some(SpecValue::Fixed(16.0)));
        b.target_swizzles[7][3] = 6;
        let e = pipeline_state(&b).err().map(|f| f.message);
        assert!(
            e.as_deref()
                .is_some_and(|e| e.starts_with("options: pipeline_state.target_swizzles[7][3] = 6")),
            "{e:?}"
        );
        let mut b = defaults();
        b.dropped_targets = 0x100;
        let e = pipeline_state(&b).err().map(|f| f.message);
        assert_eq!(
            e.as_deref(),
            Some("options: pipeline_state.dropped_targets = 0x100 has bits past 7")
        );
    }

    /// Instances become `ClassLinkage::bound`'s list, absent slots `None`.
    #[test]
    fn class_instances_block_is_the_bound_list() {
        let entries = [
            dxbc2spv_class_instance {
                present: 1,
                table: 3,
                constant_buffer: 1,
                constant_offset: 2,
                base_texture: 4,
                base_sampler: 5,
            },
            dxbc2spv_class_instance::default(),
        ];
        let b = dxbc2spv_class_instances {
            stype: DXBC2SPV_STRUCTURE_TYPE_CLASS_INSTANCES,
            next: std::ptr::null(),
            instances: entries.as_ptr(),
            instance_count: 2,
        };
        let mut linkage = ClassLinkage::default();
        // SAFETY: the array holds its count.
        unsafe { class_instances(&b, &mut linkage) }
            .map_err(|f| f.message)
            .expect("converts");
        let first = ClassInstance {
            table: 3,
            constant_buffer: 1,
            constant_offset: 2,
            base_texture: 4,
            base_sampler: 5,
        };
        assert_eq!(linkage.instances, Some(vec![Some(first), None]));
        assert_eq!(linkage.block, ClassLinkage::default().block);
    }
}
