//! The options from C: [`dxbc2spv_options`] and the option blocks chained to it through
//! `next`, converted to the Rust [`Options`].
//!
//! Contract: every field of the Rust `Options` is reachable (the test
//! `every_rust_option_is_reachable_from_c` pins the list, so a new Rust option fails it until it
//! is added here and in the header); each value is checked (an unknown enumeration value, an
//! unknown flag bit, an unknown block `stype`, two blocks of one kind, a chain longer than
//! [`DXBC2SPV_MAX_CHAIN`]) and a wrong one is an error that names the field, never a silent default.
//! The structures' layouts never change; new options come as new block types.

use std::ffi::{c_char, c_int, c_void, CStr};

use translator::bindings::{Bindings, D3d11Bindings, SpacesBindings};
use translator::ir::{TessOutputPrimitive, TessPartitioning};
use translator::{
    DomainModes, FloatControls, HullSchedule, OptionFlags, Options, RovInterlock, StreamOutput,
    StreamOutputEntry, Target,
};

use crate::bindings::{self, dxbc2spv_binding_target, CallbackMap};
use crate::{slice, Failure};

/// `stype` of [`dxbc2spv_options`].
pub const DXBC2SPV_STRUCTURE_TYPE_OPTIONS: u32 = 1;
/// `stype` of `dxbc2spv_binding_table`.
pub const DXBC2SPV_STRUCTURE_TYPE_BINDING_TABLE: u32 = 2;
/// `stype` of `dxbc2spv_binding_callback`.
pub const DXBC2SPV_STRUCTURE_TYPE_BINDING_CALLBACK: u32 = 3;
/// `stype` of `dxbc2spv_root_signature`.
pub const DXBC2SPV_STRUCTURE_TYPE_ROOT_SIGNATURE: u32 = 4;
/// `stype` of [`dxbc2spv_stream_output`].
pub const DXBC2SPV_STRUCTURE_TYPE_STREAM_OUTPUT: u32 = 5;
/// `stype` of [`dxbc2spv_domain_modes`].
pub const DXBC2SPV_STRUCTURE_TYPE_DOMAIN_MODES: u32 = 6;
/// `stype` of [`dxbc2spv_class_linkage`].
pub const DXBC2SPV_STRUCTURE_TYPE_CLASS_LINKAGE: u32 = 7;
/// `stype` of [`dxbc2spv_message_callback`].
pub const DXBC2SPV_STRUCTURE_TYPE_MESSAGE_CALLBACK: u32 = 8;

/// The most blocks a `next` chain may hold (a longer one is taken for a loop).
pub const DXBC2SPV_MAX_CHAIN: usize = 64;

/// Vulkan 1.0: SPIR-V 1.0.
pub const DXBC2SPV_TARGET_VULKAN_1_0: u32 = 0;
/// Vulkan 1.1: SPIR-V 1.3 (the default).
pub const DXBC2SPV_TARGET_VULKAN_1_1: u32 = 1;
/// Vulkan 1.2: SPIR-V 1.5.
pub const DXBC2SPV_TARGET_VULKAN_1_2: u32 = 2;
/// Vulkan 1.3: SPIR-V 1.6.
pub const DXBC2SPV_TARGET_VULKAN_1_3: u32 = 3;

/// Check the container checksum as the D3D runtime does (default on).
pub const DXBC2SPV_FLAG_VERIFY_CHECKSUM: u32 = 1 << 0;
/// Emit `OpName`s for registers and resources (default off).
pub const DXBC2SPV_FLAG_DEBUG_NAMES: u32 = 1 << 1;
/// `discard` as `OpDemoteToHelperInvocation` (D3D semantics; default on); off: `OpKill`.
pub const DXBC2SPV_FLAG_DEMOTE_TO_HELPER: u32 = 1 << 2;
/// The device has `shaderResourceResidency`: sparse feedback reports real residency.
pub const DXBC2SPV_FLAG_SPARSE_RESIDENCY: u32 = 1 << 3;
/// The device has `shaderTessellationAndGeometryPointSize`: point-emitting geometry shaders
/// write `PointSize = 1` (default on).
pub const DXBC2SPV_FLAG_GEOMETRY_POINT_SIZE: u32 = 1 << 4;
/// Translate the level-9 part (`Aon9`) of a `4_0_level_9_x` container instead of its Shader
/// Model 4 program (default off; no effect on D3D9 streams; API version 5).
pub const DXBC2SPV_FLAG_LEVEL9: u32 = 1 << 5;

/// `shaderSignedZeroInfNanPreserveFloat32`.
pub const DXBC2SPV_FLOAT_PRESERVE_INF_NAN_F32: u32 = 1 << 0;
/// `shaderSignedZeroInfNanPreserveFloat64`.
pub const DXBC2SPV_FLOAT_PRESERVE_INF_NAN_F64: u32 = 1 << 1;
/// `shaderDenormFlushToZeroFloat32`.
pub const DXBC2SPV_FLOAT_FLUSH_DENORM_F32: u32 = 1 << 2;
/// `shaderDenormPreserveFloat64`.
pub const DXBC2SPV_FLOAT_PRESERVE_DENORM_F64: u32 = 1 << 3;

/// The embedded root signature, else set = register space (the default).
pub const DXBC2SPV_BINDINGS_AUTO: u32 = 0;
/// The fixed D3D11 layout in set `bindings_set` (space 0, single registers).
pub const DXBC2SPV_BINDINGS_D3D11: u32 = 1;
/// Set = `bindings_set` + register space, the D3D11 layout inside.
pub const DXBC2SPV_BINDINGS_SPACES: u32 = 2;

/// Patch-constant phases on invocation 0, once per patch (the default).
pub const DXBC2SPV_HULL_SCHEDULE_SERIAL: u32 = 0;
/// Patch-constant phase instances spread over the invocations.
pub const DXBC2SPV_HULL_SCHEDULE_PARALLEL: u32 = 1;

/// No interlock: a shader with a rasterizer-ordered view fails (the default).
pub const DXBC2SPV_ROV_INTERLOCK_OFF: u32 = 0;
/// `fragmentShaderPixelInterlock`.
pub const DXBC2SPV_ROV_INTERLOCK_PIXEL: u32 = 1;
/// `fragmentShaderPixelInterlock` and `fragmentShaderSampleInterlock`.
pub const DXBC2SPV_ROV_INTERLOCK_PIXEL_AND_SAMPLE: u32 = 2;

/// `D3D11_TESSELLATOR_PARTITIONING_INTEGER` (the D3D values are used).
pub const DXBC2SPV_PARTITIONING_INTEGER: u32 = 1;
/// `D3D11_TESSELLATOR_PARTITIONING_POW2`.
pub const DXBC2SPV_PARTITIONING_POW2: u32 = 2;
/// `D3D11_TESSELLATOR_PARTITIONING_FRACTIONAL_ODD`.
pub const DXBC2SPV_PARTITIONING_FRACTIONAL_ODD: u32 = 3;
/// `D3D11_TESSELLATOR_PARTITIONING_FRACTIONAL_EVEN`.
pub const DXBC2SPV_PARTITIONING_FRACTIONAL_EVEN: u32 = 4;
/// `D3D11_TESSELLATOR_OUTPUT_POINT` (the D3D values are used).
pub const DXBC2SPV_OUTPUT_PRIMITIVE_POINT: u32 = 1;
/// `D3D11_TESSELLATOR_OUTPUT_LINE`.
pub const DXBC2SPV_OUTPUT_PRIMITIVE_LINE: u32 = 2;
/// `D3D11_TESSELLATOR_OUTPUT_TRIANGLE_CW`.
pub const DXBC2SPV_OUTPUT_PRIMITIVE_TRIANGLE_CW: u32 = 3;
/// `D3D11_TESSELLATOR_OUTPUT_TRIANGLE_CCW`.
pub const DXBC2SPV_OUTPUT_PRIMITIVE_TRIANGLE_CCW: u32 = 4;

/// A fatal error (the translation failed; the same text is in `out->error`).
pub const DXBC2SPV_SEVERITY_ERROR: u32 = 0;
/// Something the translation did that the runtime may want to know (a feature emulated, a
/// range clamped); the translation succeeded.
pub const DXBC2SPV_SEVERITY_WARNING: u32 = 1;
/// Information.
pub const DXBC2SPV_SEVERITY_INFO: u32 = 2;

/// The two fields every chained block starts with; walk or build chains through it.
#[repr(C)]
pub struct dxbc2spv_chain {
    /// The block's `DXBC2SPV_STRUCTURE_TYPE_*`.
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
}

/// How to translate. Set up with [`dxbc2spv_options_init`] (the defaults), change fields,
/// chain further blocks through `next`.
#[repr(C)]
pub struct dxbc2spv_options {
    /// [`DXBC2SPV_STRUCTURE_TYPE_OPTIONS`].
    pub stype: u32,
    /// The first further block (binding table or callback, root signature, stream output,
    /// domain modes, class linkage, message callback), or NULL.
    pub next: *const c_void,
    /// `DXBC2SPV_TARGET_VULKAN_*`: the Vulkan version, which decides the SPIR-V version.
    pub target: u32,
    /// `DXBC2SPV_FLAG_*` bits.
    pub flags: u32,
    /// `DXBC2SPV_FLOAT_*` bits: the float execution modes the device supports.
    pub float_controls: u32,
    /// `DXBC2SPV_BINDINGS_*`; a chained binding table, callback or root signature replaces it.
    pub bindings: u32,
    /// The set of `DXBC2SPV_BINDINGS_D3D11`, the set of space 0 for `_SPACES`.
    pub bindings_set: u32,
    /// `DXBC2SPV_HULL_SCHEDULE_*`.
    pub hull_schedule: u32,
    /// `DXBC2SPV_ROV_INTERLOCK_*`.
    pub rov_interlock: u32,
}

/// One `D3D11_SO_DECLARATION_ENTRY`.
#[repr(C)]
pub struct dxbc2spv_stream_output_entry {
    /// The stream (0–3).
    pub stream: u32,
    /// Output semantic (UTF-8, case-insensitive); NULL: a gap of `component_count` components.
    pub semantic_name: *const c_char,
    /// Semantic index.
    pub semantic_index: u32,
    /// First component written (0–3).
    pub start_component: u32,
    /// Components written (1–4).
    pub component_count: u32,
    /// Buffer (0–3).
    pub output_slot: u32,
}

/// Stream output (transform feedback) of the last stage before the rasterizer.
#[repr(C)]
pub struct dxbc2spv_stream_output {
    /// [`DXBC2SPV_STRUCTURE_TYPE_STREAM_OUTPUT`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// The entries, in declaration order.
    pub entries: *const dxbc2spv_stream_output_entry,
    /// Entries in `entries`.
    pub entry_count: usize,
    /// Byte stride of each buffer (0: the packed size of its entries).
    pub strides: [u32; 4],
    /// The stream sent to the rasterizer; negative: none (`D3D11_SO_NO_RASTERIZED_STREAM`).
    pub rasterized_stream: i32,
}

/// Domain shaders: the hull shader's partitioning and output primitive, declared in the
/// domain shader too.
#[repr(C)]
pub struct dxbc2spv_domain_modes {
    /// [`DXBC2SPV_STRUCTURE_TYPE_DOMAIN_MODES`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// `DXBC2SPV_PARTITIONING_*`.
    pub partitioning: u32,
    /// `DXBC2SPV_OUTPUT_PRIMITIVE_*`.
    pub output_primitive: u32,
}

/// SM5 class linkage: where the block of function-table indices and `this` data is bound
/// (default without this block: set 0, binding 14).
#[repr(C)]
pub struct dxbc2spv_class_linkage {
    /// [`DXBC2SPV_STRUCTURE_TYPE_CLASS_LINKAGE`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// Where the block is bound.
    pub block: dxbc2spv_binding_target,
}

/// One diagnostic.
#[repr(C)]
pub struct dxbc2spv_message {
    /// `DXBC2SPV_SEVERITY_*`.
    pub severity: u32,
    /// For errors, the status the function returns; 0 otherwise.
    pub status: c_int,
    /// 1 when `offset` holds the byte offset in the input the message is about.
    pub has_offset: u32,
    /// The byte offset in the input.
    pub offset: u32,
    /// The instruction or structure at `offset` (fxc's mnemonic, `SHEX`, ...), or NULL.
    pub instruction: *const c_char,
    /// The message, UTF-8 (for errors, the text of `out->error`; for warnings the same form,
    /// `at 0x<offset> (<instruction>): <message>`).
    pub text: *const c_char,
    /// Warnings and information: the `DXBC2SPV_WARNING_*` kind (stable numbers); 0 for errors
    /// (API version 3; a program built against an older header does not read it).
    pub kind: u32,
}

/// Receives a message; the pointers in it are valid only during the call.
pub type dxbc2spv_message_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, message: *const dxbc2spv_message)>;

/// Diagnostics: every message of a translation (errors, warnings, information) goes to
/// `callback`, on the translating thread, instead of being printed.
#[repr(C)]
pub struct dxbc2spv_message_callback {
    /// [`DXBC2SPV_STRUCTURE_TYPE_MESSAGE_CALLBACK`].
    pub stype: u32,
    /// The next block, or NULL.
    pub next: *const c_void,
    /// The callback (NULL: no messages).
    pub callback: dxbc2spv_message_fn,
    /// Passed to `callback`.
    pub user_data: *mut c_void,
}

/// Sets `options` to the defaults: [`DXBC2SPV_STRUCTURE_TYPE_OPTIONS`], no chain, Vulkan 1.1,
/// checksum verified, `discard` as demote, geometry point size, automatic bindings, serial
/// hull phases, no ROV interlock. Returns [`crate::DXBC2SPV_OK`], or
/// [`crate::DXBC2SPV_ERROR_INVALID_ARGUMENT`] for NULL.
///
/// # Safety
/// `options` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn dxbc2spv_options_init(options: *mut dxbc2spv_options) -> c_int {
    crate::guard(|| {
        // SAFETY: the caller's contract.
        let Some(options) = (unsafe { options.as_mut() }) else {
            return crate::DXBC2SPV_ERROR_INVALID_ARGUMENT;
        };
        let defaults = Options::default();
        *options = dxbc2spv_options {
            stype: DXBC2SPV_STRUCTURE_TYPE_OPTIONS,
            next: std::ptr::null(),
            target: target_code(defaults.target),
            flags: defaults.flags.bits(),
            float_controls: 0,
            bindings: DXBC2SPV_BINDINGS_AUTO,
            bindings_set: 0,
            hull_schedule: DXBC2SPV_HULL_SCHEDULE_SERIAL,
            rov_interlock: DXBC2SPV_ROV_INTERLOCK_OFF,
        };
        crate::DXBC2SPV_OK
    })
}

/// Where messages go.
#[derive(Clone, Copy)]
pub(crate) struct MessageSink {
    pub(crate) callback: unsafe extern "C" fn(*mut c_void, *const dxbc2spv_message),
    pub(crate) user_data: *mut c_void,
}

impl MessageSink {
    /// Delivers a failure as an error message.
    pub(crate) fn error(&self, failure: &Failure) {
        let text = crate::c_string(&failure.message);
        let instruction = failure.instruction.map(crate::c_string);
        let message = dxbc2spv_message {
            severity: DXBC2SPV_SEVERITY_ERROR,
            status: failure.code,
            has_offset: u32::from(failure.offset.is_some()),
            offset: failure.offset.unwrap_or(0),
            instruction: instruction
                .as_ref()
                .map_or(std::ptr::null(), |s| s.as_ptr()),
            text: text.as_ptr(),
            kind: 0,
        };
        // SAFETY: the caller gave a callback that accepts its own user data and a message
        // valid for the call.
        unsafe { (self.callback)(self.user_data, &message) };
    }
}

/// The Rust options and what of the C chain they cannot hold.
pub(crate) struct Converted {
    /// The options (with [`Bindings::Auto`] standing for a callback's map).
    pub(crate) options: Options,
    /// The caller's binding callback, resolved per shader (`bindings::resolve`).
    pub(crate) callback: Option<CallbackMap>,
    /// The message callback.
    pub(crate) messages: Option<MessageSink>,
}

fn target_code(target: Target) -> u32 {
    match target {
        Target::Vulkan1_0 => DXBC2SPV_TARGET_VULKAN_1_0,
        Target::Vulkan1_1 => DXBC2SPV_TARGET_VULKAN_1_1,
        Target::Vulkan1_2 => DXBC2SPV_TARGET_VULKAN_1_2,
        _ => DXBC2SPV_TARGET_VULKAN_1_3,
    }
}

fn bad(field: &str, value: u32) -> Failure {
    Failure::invalid_argument(format!("options: {field} = {value} is not a known value"))
}

/// The Rust options of a C options chain (NULL: the defaults).
///
/// # Safety
/// `options` is NULL or a valid chain: every `next` is NULL or a block whose `stype` says its
/// type, every array pointer holds its count of elements, every string is nul-terminated.
pub(crate) unsafe fn convert(options: *const dxbc2spv_options) -> Result<Converted, Failure> {
    let mut converted = Converted {
        options: Options::default(),
        callback: None,
        messages: None,
    };
    // SAFETY: the caller's contract.
    let Some(c) = (unsafe { options.as_ref() }) else {
        return Ok(converted);
    };
    if c.stype != DXBC2SPV_STRUCTURE_TYPE_OPTIONS {
        return Err(Failure::invalid_argument(format!(
            "options: stype = {} is not DXBC2SPV_STRUCTURE_TYPE_OPTIONS ({})",
            c.stype, DXBC2SPV_STRUCTURE_TYPE_OPTIONS
        )));
    }
    let o = &mut converted.options;
    o.target = match c.target {
        DXBC2SPV_TARGET_VULKAN_1_0 => Target::Vulkan1_0,
        DXBC2SPV_TARGET_VULKAN_1_1 => Target::Vulkan1_1,
        DXBC2SPV_TARGET_VULKAN_1_2 => Target::Vulkan1_2,
        DXBC2SPV_TARGET_VULKAN_1_3 => Target::Vulkan1_3,
        v => return Err(bad("target", v)),
    };
    o.flags = OptionFlags::from_bits(c.flags).ok_or_else(|| {
        Failure::invalid_argument(format!(
            "options: flags = {:#x} has unknown bits {:#x}",
            c.flags,
            c.flags & !OptionFlags::all().bits()
        ))
    })?;
    let all_float = DXBC2SPV_FLOAT_PRESERVE_INF_NAN_F32
        | DXBC2SPV_FLOAT_PRESERVE_INF_NAN_F64
        | DXBC2SPV_FLOAT_FLUSH_DENORM_F32
        | DXBC2SPV_FLOAT_PRESERVE_DENORM_F64;
    if c.float_controls & !all_float != 0 {
        return Err(Failure::invalid_argument(format!(
            "options: float_controls = {:#x} has unknown bits {:#x}",
            c.float_controls,
            c.float_controls & !all_float
        )));
    }
    let float = |bit| c.float_controls & bit != 0;
    o.float_controls = FloatControls {
        preserve_inf_nan_f32: float(DXBC2SPV_FLOAT_PRESERVE_INF_NAN_F32),
        preserve_inf_nan_f64: float(DXBC2SPV_FLOAT_PRESERVE_INF_NAN_F64),
        flush_denorm_f32: float(DXBC2SPV_FLOAT_FLUSH_DENORM_F32),
        preserve_denorm_f64: float(DXBC2SPV_FLOAT_PRESERVE_DENORM_F64),
    };
    o.bindings = match c.bindings {
        DXBC2SPV_BINDINGS_AUTO => Bindings::Auto,
        DXBC2SPV_BINDINGS_D3D11 => Bindings::D3d11(D3d11Bindings::with_set(c.bindings_set)),
        DXBC2SPV_BINDINGS_SPACES => Bindings::Spaces(SpacesBindings {
            first_set: c.bindings_set,
        }),
        v => return Err(bad("bindings", v)),
    };
    o.hull_schedule = match c.hull_schedule {
        DXBC2SPV_HULL_SCHEDULE_SERIAL => HullSchedule::Serial,
        DXBC2SPV_HULL_SCHEDULE_PARALLEL => HullSchedule::Parallel,
        v => return Err(bad("hull_schedule", v)),
    };
    o.rov_interlock = match c.rov_interlock {
        DXBC2SPV_ROV_INTERLOCK_OFF => RovInterlock::Off,
        DXBC2SPV_ROV_INTERLOCK_PIXEL => RovInterlock::Pixel,
        DXBC2SPV_ROV_INTERLOCK_PIXEL_AND_SAMPLE => RovInterlock::PixelAndSample,
        v => return Err(bad("rov_interlock", v)),
    };
    // SAFETY: the caller's contract.
    unsafe { convert_chain(c.next, &mut converted) }?;
    Ok(converted)
}

/// Applies each block of the chain starting at `next`.
///
/// # Safety
/// As [`convert`].
unsafe fn convert_chain(mut next: *const c_void, converted: &mut Converted) -> Result<(), Failure> {
    let mut seen: Vec<u32> = Vec::new();
    let mut bindings_block = false;
    let mut position = 1;
    while !next.is_null() {
        if position > DXBC2SPV_MAX_CHAIN {
            return Err(Failure::invalid_argument(format!(
                "options: the next chain holds more than {DXBC2SPV_MAX_CHAIN} blocks (a loop?)"
            )));
        }
        // SAFETY: every block starts with the `dxbc2spv_chain` fields.
        let header = unsafe { &*next.cast::<dxbc2spv_chain>() };
        let stype = header.stype;
        if seen.contains(&stype) {
            return Err(Failure::invalid_argument(format!(
                "options: block {position} of the next chain repeats stype {stype}"
            )));
        }
        seen.push(stype);
        let is_bindings = matches!(
            stype,
            DXBC2SPV_STRUCTURE_TYPE_BINDING_TABLE
                | DXBC2SPV_STRUCTURE_TYPE_BINDING_CALLBACK
                | DXBC2SPV_STRUCTURE_TYPE_ROOT_SIGNATURE
        );
        if is_bindings && std::mem::replace(&mut bindings_block, true) {
            return Err(Failure::invalid_argument(format!(
                "options: block {position} of the next chain is a second binding map \
                 (table, callback and root signature exclude each other)"
            )));
        }
        let o = &mut converted.options;
        // SAFETY (each arm): `stype` says which structure `next` points to.
        match stype {
            DXBC2SPV_STRUCTURE_TYPE_BINDING_TABLE => {
                let block = unsafe { &*next.cast::<bindings::dxbc2spv_binding_table>() };
                o.bindings = unsafe { bindings::table(block) }?;
            }
            DXBC2SPV_STRUCTURE_TYPE_BINDING_CALLBACK => {
                let block = unsafe { &*next.cast::<bindings::dxbc2spv_binding_callback>() };
                converted.callback = Some(bindings::callback(block)?);
            }
            DXBC2SPV_STRUCTURE_TYPE_ROOT_SIGNATURE => {
                let block = unsafe { &*next.cast::<bindings::dxbc2spv_root_signature>() };
                o.bindings = unsafe { bindings::root_signature(block) }?;
            }
            DXBC2SPV_STRUCTURE_TYPE_STREAM_OUTPUT => {
                let block = unsafe { &*next.cast::<dxbc2spv_stream_output>() };
                o.stream_output = Some(unsafe { stream_output(block) }?);
            }
            DXBC2SPV_STRUCTURE_TYPE_DOMAIN_MODES => {
                let block = unsafe { &*next.cast::<dxbc2spv_domain_modes>() };
                o.domain_modes = Some(domain_modes(block)?);
            }
            DXBC2SPV_STRUCTURE_TYPE_CLASS_LINKAGE => {
                let block = unsafe { &*next.cast::<dxbc2spv_class_linkage>() };
                o.class_linkage.block = bindings::target(&block.block, "class_linkage.block")?;
            }
            crate::state::DXBC2SPV_STRUCTURE_TYPE_PIPELINE_STATE => {
                let block = unsafe { &*next.cast::<crate::state::dxbc2spv_pipeline_state>() };
                o.pipeline_state = crate::state::pipeline_state(block)?;
            }
            crate::state::DXBC2SPV_STRUCTURE_TYPE_CLASS_INSTANCES => {
                let block = unsafe { &*next.cast::<crate::state::dxbc2spv_class_instances>() };
                unsafe { crate::state::class_instances(block, &mut o.class_linkage) }?;
            }
            crate::buffers::DXBC2SPV_STRUCTURE_TYPE_BUFFER_DESCRIPTORS => {
                let block = unsafe { &*next.cast::<crate::buffers::dxbc2spv_buffer_descriptors>() };
                unsafe { crate::buffers::apply(block, o) }?;
            }
            crate::linking::DXBC2SPV_STRUCTURE_TYPE_STAGE_LINKING => {
                let block = unsafe { &*next.cast::<crate::linking::dxbc2spv_stage_linking>() };
                unsafe { crate::linking::apply(block, o) }?;
            }
            crate::d3d9::DXBC2SPV_STRUCTURE_TYPE_D3D9_OPTIONS => {
                let block = unsafe { &*next.cast::<crate::d3d9::dxbc2spv_d3d9_options>() };
                crate::d3d9::apply(block, o)?;
            }
            crate::d3d9_state::DXBC2SPV_STRUCTURE_TYPE_D3D9_STATE => {
                let block = unsafe { &*next.cast::<crate::d3d9_state::dxbc2spv_d3d9_state>() };
                crate::d3d9_state::apply(block, o)?;
            }
            DXBC2SPV_STRUCTURE_TYPE_MESSAGE_CALLBACK => {
                let block = unsafe { &*next.cast::<dxbc2spv_message_callback>() };
                converted.messages = block.callback.map(|callback| MessageSink {
                    callback,
                    user_data: block.user_data,
                });
            }
            other => {
                return Err(Failure::invalid_argument(format!(
                    "options: block {position} of the next chain has unknown stype {other} \
                     (this library knows 1..={}; \
                     API version {})",
                    crate::d3d9_state::DXBC2SPV_STRUCTURE_TYPE_D3D9_STATE,
                    crate::DXBC2SPV_API_VERSION
                )))
            }
        }
        next = header.next;
        position += 1;
    }
    Ok(())
}

/// # Safety
/// `block.entries` holds `block.entry_count` entries with valid strings.
unsafe fn stream_output(block: &dxbc2spv_stream_output) -> Result<StreamOutput, Failure> {
    // SAFETY: the caller's contract.
    let entries = unsafe { slice(block.entries, block.entry_count) }
        .ok_or_else(|| Failure::invalid_argument("options: stream_output.entries is NULL"))?;
    let mut out = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let small = |field: &str, v: u32, max: u32| {
            u8::try_from(v)
                .ok()
                .filter(|&v| u32::from(v) <= max)
                .ok_or_else(|| {
                    Failure::invalid_argument(format!(
                        "options: stream_output.entries[{i}].{field} = {v} exceeds {max}"
                    ))
                })
        };
        let semantic_name = if e.semantic_name.is_null() {
            None
        } else {
            // SAFETY: a nul-terminated string (the caller's contract).
            let name = unsafe { CStr::from_ptr(e.semantic_name) };
            Some(
                name.to_str()
                    .map_err(|_| {
                        Failure::invalid_argument(format!(
                            "options: stream_output.entries[{i}].semantic_name is not UTF-8"
                        ))
                    })?
                    .to_string(),
            )
        };
        // A field added to the Rust type later keeps its default here.
        #[allow(clippy::needless_update)]
        out.push(StreamOutputEntry {
            stream: e.stream,
            semantic_name,
            semantic_index: e.semantic_index,
            start_component: small("start_component", e.start_component, 3)?,
            component_count: small("component_count", e.component_count, 4)?,
            output_slot: small("output_slot", e.output_slot, 3)?,
            ..StreamOutputEntry::default()
        });
    }
    #[allow(clippy::needless_update)]
    Ok(StreamOutput {
        entries: out,
        strides: block.strides,
        rasterized_stream: u32::try_from(block.rasterized_stream).ok(),
        ..StreamOutput::default()
    })
}

fn domain_modes(block: &dxbc2spv_domain_modes) -> Result<DomainModes, Failure> {
    let partitioning = match block.partitioning {
        DXBC2SPV_PARTITIONING_INTEGER => TessPartitioning::Integer,
        DXBC2SPV_PARTITIONING_POW2 => TessPartitioning::Pow2,
        DXBC2SPV_PARTITIONING_FRACTIONAL_ODD => TessPartitioning::FractionalOdd,
        DXBC2SPV_PARTITIONING_FRACTIONAL_EVEN => TessPartitioning::FractionalEven,
        v => return Err(bad("domain_modes.partitioning", v)),
    };
    let output_primitive = match block.output_primitive {
        DXBC2SPV_OUTPUT_PRIMITIVE_POINT => TessOutputPrimitive::Point,
        DXBC2SPV_OUTPUT_PRIMITIVE_LINE => TessOutputPrimitive::Line,
        DXBC2SPV_OUTPUT_PRIMITIVE_TRIANGLE_CW => TessOutputPrimitive::TriangleCw,
        DXBC2SPV_OUTPUT_PRIMITIVE_TRIANGLE_CCW => TessOutputPrimitive::TriangleCcw,
        v => return Err(bad("domain_modes.output_primitive", v)),
    };
    Ok(DomainModes {
        partitioning,
        output_primitive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flag constants are the Rust flags' bits.
    #[test]
    fn flag_constants_are_the_rust_bits() {
        let pairs = [
            (DXBC2SPV_FLAG_VERIFY_CHECKSUM, OptionFlags::VERIFY_CHECKSUM),
            (DXBC2SPV_FLAG_DEBUG_NAMES, OptionFlags::DEBUG_NAMES),
            (
                DXBC2SPV_FLAG_DEMOTE_TO_HELPER,
                OptionFlags::DEMOTE_TO_HELPER,
            ),
            (
                DXBC2SPV_FLAG_SPARSE_RESIDENCY,
                OptionFlags::SPARSE_RESIDENCY,
            ),
            (
                DXBC2SPV_FLAG_GEOMETRY_POINT_SIZE,
                OptionFlags::GEOMETRY_POINT_SIZE,
            ),
            (DXBC2SPV_FLAG_LEVEL9, OptionFlags::LEVEL9),
        ];
        let mut all = OptionFlags::empty();
        for (c, rust) in pairs {
            assert_eq!(c, rust.bits());
            all |= rust;
        }
        assert_eq!(all, OptionFlags::all(), "a Rust flag has no C constant");
    }

    /// Every field of the Rust `Options` is reachable from C. The list is the fields of
    /// `Options`'s `Debug` output (every field, whatever its visibility): a new Rust option
    /// fails this test until it is reachable from C (a field or a chained block) and added here.
    #[test]
    fn every_rust_option_is_reachable_from_c() {
        let debug = format!("{:?}", Options::default());
        let fields = crate::fingerprint::top_level_fields(&debug);
        // Field → how C reaches it.
        let reachable = [
            (
                "bindings",
                "bindings/bindings_set, binding table, callback, root signature",
            ),
            ("target", "target"),
            ("flags", "flags"),
            ("float_controls", "float_controls"),
            ("stream_output", "dxbc2spv_stream_output"),
            ("hull_schedule", "hull_schedule"),
            ("domain_modes", "dxbc2spv_domain_modes"),
            (
                "class_linkage",
                "dxbc2spv_class_linkage, dxbc2spv_class_instances",
            ),
            ("rov_interlock", "rov_interlock"),
            ("pipeline_state", "dxbc2spv_pipeline_state"),
            ("linking", "dxbc2spv_stage_linking"),
            ("workarounds", "dxbc2spv_stage_linking"),
            ("texel_raw_buffers", "dxbc2spv_buffer_descriptors"),
            ("storage_buffer_alignment", "dxbc2spv_buffer_descriptors"),
            ("typed_uav_formats", "dxbc2spv_buffer_descriptors"),
            ("d3d9_state", "dxbc2spv_d3d9_state"),
            ("float_emulation", "dxbc2spv_d3d9_options"),
        ];
        let known: Vec<&str> = reachable.iter().map(|(f, _)| *f).collect();
        assert_eq!(
            fields, known,
            "Options changed: make the new field reachable from C"
        );
    }

    /// NULL options are the defaults; `dxbc2spv_options_init` gives the same.
    #[test]
    fn init_gives_the_defaults() {
        let mut c = std::mem::MaybeUninit::<dxbc2spv_options>::uninit();
        // SAFETY: a writable structure.
        assert_eq!(unsafe { dxbc2spv_options_init(c.as_mut_ptr()) }, 0);
        // SAFETY: initialised above.
        let c = unsafe { c.assume_init() };
        // SAFETY: a valid chain (none).
        let from_c = unsafe { convert(&c) }
            .map_err(|f| f.message)
            .expect("converts");
        assert_eq!(from_c.options, Options::default());
    }

    /// Unknown values are errors naming the field.
    #[test]
    fn unknown_values_are_named() {
        let mut c = std::mem::MaybeUninit::<dxbc2spv_options>::uninit();
        // SAFETY: a writable structure.
        unsafe { dxbc2spv_options_init(c.as_mut_ptr()) };
        // SAFETY: initialised above.
        let mut c = unsafe { c.assume_init() };
        c.target = 9;
        // SAFETY: a valid chain (none).
        let e = unsafe { convert(&c) }.err().map(|f| f.message);
        assert_eq!(
            e.as_deref(),
            Some("options: target = 9 is not a known value")
        );
        c.target = 1;
        let unknown = dxbc2spv_chain {
            stype: 77,
            next: std::ptr::null(),
        };
        c.next = std::ptr::from_ref(&unknown).cast();
        // SAFETY: a valid chain.
        let e = unsafe { convert(&c) }
            .err()
            .map(|f| f.message)
            .unwrap_or_default();
        assert!(
            e.contains("block 1 of the next chain has unknown stype 77"),
            "{e}"
        );
    }
}
