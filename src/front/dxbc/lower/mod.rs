//! DXBC → IR: declarations become [`ir::Module`] tables, executable instructions become
//! [`ir::Inst`]s with resolved operands.
//!
//! Contract:
//! - [`lower`] reads a decoded [`Program`] once, in order, and returns a module whose operands
//!   name declarations by their position in the module's tables (`cbuffers`, `resources`,
//!   `samplers`, `tgsm`, `indexable_temps`, `functions`), never by DXBC register number.
//! - Every error carries the byte offset of the DXBC instruction that caused it: an operand
//!   naming an undeclared register, a malformed declaration or a count past the D3D11 limits is
//!   [`Error::Invalid`]; a valid construct this translator cannot translate (shader
//!   libraries) is [`Error::Unsupported`] naming the feature.
//! - Lowering checks what needs the declarations (registers exist, ranges contain the indexed
//!   register); structural rules (balanced control flow, register numbers below `dcl_temps`,
//!   operand counts) are left to [`ir::validate`], which reports the same offsets.
//! - Class linkage (`dcl_interface`, `fcall`, `this[]`) becomes a constant buffer, switches
//!   and calls (`class_linkage.rs`).
//! - Switch case tables are left empty (one per `switch`, named by its [`ir::Payload`]); the
//!   `collect_switch_cases` pass fills them. Bindings and UAV counters are passes too.
//! - Nothing here panics or allocates in proportion to a count read from the input: counts are
//!   checked against the limits below before anything is sized by them. Flow control nests at
//!   most [`MAX_NESTING_DEPTH`] deep, so later stages may keep a stack per open block. Errors
//!   about the program as a whole (a missing `dcl_thread_group`) point at its version token.
//!
//! Layout: `decl.rs` (declarations), `io.rs` (stage inputs and outputs), `hull.rs` (hull-shader
//! phases, tessellator declarations), `class_linkage.rs` (interfaces), `dynamic_register.rs`
//! (SM5.0 `t[r0.x]`-style operands), `operand.rs` (operand resolution), `instruction.rs`
//! (executable instructions and their controls), `control_flow.rs` (labels, calls, switches).

mod class_linkage;
#[cfg(test)]
mod class_linkage_bound_tests;
#[cfg(test)]
mod class_linkage_tests;
pub use class_linkage::{CLASS_LINKAGE_REGISTER, MAX_INTERFACE_SLOTS};
mod control_flow;
mod decl;
mod dynamic_register;
mod error;
mod hull;
pub use hull::{MAX_CONTROL_POINTS, MAX_PHASE_INSTANCES};
mod instruction;
mod io;
pub use io::{check_signature, MAX_IO_REGISTERS, MAX_SIGNATURE_ELEMENTS};
mod operand;
pub mod stream_output;

use std::collections::BTreeMap;

use crate::bindings::ClassLinkage;
use crate::front::dxbc::opcodes::Opcode;
use crate::front::dxbc::program::{ShaderVersion, Stage as DxbcStage};
use crate::front::dxbc::signature::Signature;
use crate::front::dxbc::{Instruction, Program};
use crate::ir;
pub use error::Error;

/// Most `r#` registers a program may declare (`D3D11_COMMONSHADER_TEMP_REGISTER_COUNT`).
pub const MAX_TEMPS: u32 = 4096;
/// Most elements all `x#` arrays of a program may have together (the same 4096 registers).
pub const MAX_INDEXABLE_ELEMENTS: u64 = 4096;
/// Most 16-byte vectors of the immediate constant buffer
/// (`D3D11_REQ_IMMEDIATE_CONSTANT_BUFFER_ELEMENT_COUNT`).
pub const MAX_ICB_VEC4S: usize = 4096;
/// Deepest nesting of `if`, `loop` and `switch` blocks in one function
/// (`D3D11_COMMONSHADER_FLOWCONTROL_NESTING_LIMIT`).
pub const MAX_NESTING_DEPTH: u32 = 64;
/// Most bytes of thread-group shared memory, all `g#` together (D3D11: 32 KiB).
pub const MAX_TGSM_BYTES: u64 = 32 * 1024;
/// Most threads in a thread group (D3D11 `cs_5_0`).
pub const MAX_THREADS_PER_GROUP: u64 = 1024;

/// The signatures of a shader's container, decoded.
#[derive(Clone, Copy, Debug, Default)]
pub struct Signatures<'s, 'a> {
    /// `ISGN`/`ISG1`, when the container has one.
    pub input: Option<&'s Signature<'a>>,
    /// `OSGN`/`OSG5`/`OSG1`, when the container has one.
    pub output: Option<&'s Signature<'a>>,
    /// `PCSG`/`PSG1` (hull and domain shaders), when the container has one.
    pub patch_constant: Option<&'s Signature<'a>>,
}

/// Lowers a decoded shader program to the IR (no signatures: every component reads as float).
pub fn lower(program: &Program<'_>) -> Result<ir::Module, Error> {
    lower_with_signatures(program, Signatures::default())
}

/// Lowers a decoded shader program and its container's signatures to the IR.
///
/// Function libraries are [`Error::Unsupported`] at the program's version token.
pub fn lower_with_signatures(
    program: &Program<'_>,
    signatures: Signatures<'_, '_>,
) -> Result<ir::Module, Error> {
    lower_reusing(program, signatures, &ClassLinkage::default(), Vec::new())
}

/// The IR stage of a DXBC program type; `None` for shader libraries, which have no stage.
pub fn ir_stage(stage: DxbcStage) -> Option<ir::Stage> {
    Some(match stage {
        DxbcStage::Compute => ir::Stage::Compute,
        DxbcStage::Pixel => ir::Stage::Pixel,
        DxbcStage::Vertex => ir::Stage::Vertex,
        DxbcStage::Geometry => ir::Stage::Geometry,
        DxbcStage::Hull => ir::Stage::Hull,
        DxbcStage::Domain => ir::Stage::Domain,
        DxbcStage::Library => return None,
    })
}

/// [`lower_with_signatures`], building the module's instructions in `insts` (emptied first):
/// the arena of an earlier module, so that translating many shaders reuses one allocation.
/// `class_linkage` with bound instances resolves interface calls and `this[]` while lowering.
pub fn lower_reusing(
    program: &Program<'_>,
    signatures: Signatures<'_, '_>,
    class_linkage: &ClassLinkage,
    mut insts: Vec<ir::Inst>,
) -> Result<ir::Module, Error> {
    let at = program.body_offset();
    let Some(stage) = ir_stage(program.version.stage) else {
        let version_at = at.saturating_sub(8);
        return Err(Error::unsupported(version_at, "shader libraries (lib_*)"));
    };
    // Most instructions lower to one IR instruction: size the arena once. Those that lower to
    // one take two dwords at least, which bounds the reservation by the input.
    let mut instructions = program.instructions();
    let most = program.body().len() / 8;
    let capacity = instructions.count_by_length().min(most) + 8;
    insts.clear();
    if insts.capacity() < capacity {
        // Not `reserve`: that would copy the old allocation, none of it in use.
        insts = Vec::with_capacity(capacity);
    }
    let mut lowerer = Lowerer::new(program.version, stage, at);
    lowerer.module.insts = insts;
    lowerer.bind_class_instances(class_linkage);
    if let Some(sig) = signatures.input {
        lowerer.module.input_signature = io::signature(sig);
    }
    if let Some(sig) = signatures.output {
        lowerer.module.output_signature = io::signature(sig);
    }
    if let Some(sig) = signatures.patch_constant {
        lowerer.module.patch_constant_signature = io::signature(sig);
    }
    let mut inst = Instruction::empty();
    while let Some(decoded) = instructions.next_into(&mut inst) {
        decoded?;
        lowerer.instruction(&inst)?;
    }
    lowerer.finish()
}

/// The two namespaces of `label`: `l#` (subroutines of `call`) and `fb#` (function bodies of
/// class linkage, called by `fcall`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LabelKind {
    /// `l#`.
    Label,
    /// `fb#`.
    FunctionBody,
}

/// A `call`/`callc` (or a call `fcall` lowers to) whose label is resolved once every label is
/// known.
#[derive(Clone, Copy, Debug)]
struct CallFixup {
    /// Position of the call in [`ir::Module::insts`].
    inst: usize,
    /// Which source names the label.
    src: usize,
    /// The DXBC label number.
    label: u32,
    /// Which namespace `label` is in.
    kind: LabelKind,
    /// Byte offset of the call.
    offset: u32,
}

/// The translation state: the module being built and the lookup tables from DXBC register
/// numbers (or SM5.1 range ids) to positions in the module's declaration tables.
struct Lowerer {
    version: ShaderVersion,
    module: ir::Module,
    lookup_cbuffer: BTreeMap<u32, u32>,
    lookup_srv: BTreeMap<u32, u32>,
    lookup_uav: BTreeMap<u32, u32>,
    lookup_sampler: BTreeMap<u32, u32>,
    lookup_tgsm: BTreeMap<u32, u32>,
    lookup_indexable: BTreeMap<u32, u32>,
    /// Label number → function position.
    lookup_label: BTreeMap<u32, u32>,
    /// Function-body (`fb#`) number → function position.
    lookup_body: BTreeMap<u32, u32>,
    /// Function tables and interfaces (class linkage).
    class_linkage: class_linkage::ClassLinkageState,
    /// The register a dynamic SM5.0 register number stands for while one case of its switch
    /// is lowered (`dynamic_register.rs`).
    register_override: dynamic_register::RegisterOverride,
    call_fixups: Vec<CallFixup>,
    indexable_elements: u64,
    tgsm_bytes: u64,
    /// Offset of the `dcl_thread_group`, once seen.
    thread_group_at: Option<u32>,
    /// The stream of the last `dcl_stream` (geometry shaders).
    stream: u8,
    /// The hull-shader phase being read (`None` in `hs_decls` and other stages).
    phase: Option<ir::PhaseKind>,
    /// `if`/`loop`/`switch` blocks open in the current function (balance is checked by
    /// [`ir::validate`]; this only enforces [`MAX_NESTING_DEPTH`]).
    nesting_depth: u32,
    /// Byte offset of the program's version token: where errors about the program as a whole
    /// (a declaration it lacks) point.
    program_at: u32,
}

impl Lowerer {
    fn new(version: ShaderVersion, stage: ir::Stage, body_offset: u32) -> Lowerer {
        let module = ir::Module {
            model: (version.major, version.minor),
            program_span: body_offset.saturating_sub(8),
            functions: vec![ir::Function {
                label: None,
                body: 0..0,
                span: body_offset,
            }],
            ..ir::Module::new(stage)
        };
        Lowerer {
            version,
            module,
            lookup_cbuffer: BTreeMap::new(),
            lookup_srv: BTreeMap::new(),
            lookup_uav: BTreeMap::new(),
            lookup_sampler: BTreeMap::new(),
            lookup_tgsm: BTreeMap::new(),
            lookup_indexable: BTreeMap::new(),
            lookup_label: BTreeMap::new(),
            lookup_body: BTreeMap::new(),
            class_linkage: Default::default(),
            register_override: Default::default(),
            call_fixups: Vec::new(),
            indexable_elements: 0,
            tgsm_bytes: 0,
            thread_group_at: None,
            stream: 0,
            phase: None,
            nesting_depth: 0,
            program_at: body_offset.saturating_sub(8),
        }
    }

    /// Lowers one instruction of any kind.
    fn instruction(&mut self, inst: &Instruction<'_>) -> Result<(), Error> {
        let lowered = match inst.opcode {
            Opcode::CustomData => self.custom_data(inst),
            Opcode::Nop => Ok(()),
            Opcode::Label => self.label(inst),
            _ if decl::is_declaration(inst.opcode) => self.declare(inst),
            _ => self.executable(inst),
        };
        self.track_constants(inst);
        lowered
    }

    /// Closes the last function, resolves call targets and checks what needs the whole program.
    fn finish(mut self) -> Result<ir::Module, Error> {
        self.check_class_instances()?;
        let end = insts_len(&self.module)?;
        if let Some(last) = self.module.functions.last_mut() {
            last.body.end = end;
        }
        for fixup in std::mem::take(&mut self.call_fixups) {
            let (lookup, prefix) = match fixup.kind {
                LabelKind::Label => (&self.lookup_label, "label l"),
                LabelKind::FunctionBody => (&self.lookup_body, "function body fb"),
            };
            let target = lookup.get(&fixup.label).copied().ok_or_else(|| {
                Error::invalid(
                    fixup.offset,
                    format!("call to {prefix}{}, which is not defined", fixup.label),
                )
            })?;
            let src = self
                .module
                .insts
                .get_mut(fixup.inst)
                .and_then(|i| i.src_mut().get_mut(fixup.src));
            if let Some(src) = src {
                src.reg = ir::Reg::Function(ir::FunctionId::new(target));
            }
        }
        if matches!(self.module.stage, ir::Stage::Hull | ir::Stage::Domain) {
            self.finish_tessellation()?;
        }
        if self.module.stage == ir::Stage::Compute && self.thread_group_at.is_none() {
            return Err(Error::invalid(
                self.program_at,
                "compute shader without dcl_thread_group",
            ));
        }
        Ok(self.module)
    }
}

/// The instruction count as a `u32` (function ranges are `u32`).
fn insts_len(module: &ir::Module) -> Result<u32, Error> {
    u32::try_from(module.insts.len()).map_err(|_| Error::invalid(0, "too many instructions"))
}
