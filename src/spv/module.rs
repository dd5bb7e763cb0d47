//! [`Module`]: ids, the logical-layout sections, module-level instructions and `finish`.

use std::num::NonZeroU32;

use spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, MemoryModel,
    Op, SourceLanguage, StorageClass,
};

use super::constants::ConstantCache;
use super::function::FunctionState;
use super::types::TypeCache;
use super::words::Words;
use super::{Error, Id, Version, MAX_ID_BOUND};

/// A SPIR-V module under construction. See the [module docs](super) for the contract.
///
/// Sections are separate word vectors, concatenated in logical-layout order by
/// [`Module::finish`]: capabilities, extensions, ext-inst imports, memory model, entry points,
/// execution modes, debug (sources, then names), annotations, types/constants/global variables,
/// function declarations, function definitions.
///
/// ```
/// use dxbc2spv::spv::{Module, Version};
/// use spirv::{Capability, ExecutionModel, FunctionControl};
///
/// let mut m = Module::new(Version::V1_3);
/// m.capability(Capability::Shader);
/// let void = m.type_void();
/// let main_ty = m.type_function(void, &[]);
/// let main = m.begin_function(main_ty, FunctionControl::NONE);
/// m.entry_point(ExecutionModel::GLCompute, main, "main", &[]);
/// m.local_size(main, 8, 8, 1);
/// m.new_block();
/// m.ret();
/// m.end_function();
/// let words = m.finish().expect("no misuse");
/// // magic, version 1.3, generator 0, bound (ids 1..=4 used), schema 0
/// assert_eq!(words[..5], [0x0723_0203, 0x0001_0300, 0, 5, 0]);
/// ```
#[derive(Clone, Debug)]
pub struct Module {
    pub(super) version: Version,
    next_id: u32,
    /// Changes whenever code may start to run from elsewhere (a label, a new function, a
    /// call): see [`Module::block_serial`].
    pub(super) block_serial: u32,
    error: Option<Error>,
    emit_names: bool,
    capabilities: Vec<Capability>,
    extension_names: Vec<Box<str>>,
    extensions: Words,
    ext_inst_names: Vec<(Box<str>, Id)>,
    ext_inst_imports: Words,
    addressing_model: AddressingModel,
    memory_model: MemoryModel,
    entry_points: Words,
    execution_modes: Words,
    debug_sources: Words,
    debug_names: Words,
    annotations: Words,
    /// Types, constants, global variables and OpUndef, in definition order.
    pub(super) globals: Words,
    pub(super) function_declarations: Words,
    pub(super) function_definitions: Words,
    pub(super) types: TypeCache,
    pub(super) constants: ConstantCache,
    global_variables: Vec<(Id, StorageClass)>,
    pub(super) func: FunctionState,
}

impl Module {
    /// An empty module of SPIR-V `version`, with the Logical addressing model and the GLSL450
    /// memory model, writing debug names.
    ///
    /// The sections start with room for a typical shader (a few KiB in all), so that building
    /// one allocates about once per section instead of at every doubling; [`Module::clear`]
    /// reuses everything.
    pub fn new(version: Version) -> Module {
        Module::with_code_capacity(version, 2048)
    }

    /// A module whose code sections start with room for about `words` words of function code
    /// (the function being defined and the definitions section), so that a translation of a
    /// known size grows them once at most.
    pub fn with_code_capacity(version: Version, words: usize) -> Module {
        Module {
            version,
            next_id: 1,
            block_serial: 0,
            error: None,
            emit_names: true,
            capabilities: Vec::with_capacity(8),
            extension_names: Vec::new(),
            extensions: Words::default(),
            ext_inst_names: Vec::new(),
            ext_inst_imports: Words::default(),
            addressing_model: AddressingModel::Logical,
            memory_model: MemoryModel::GLSL450,
            entry_points: Words::with_capacity(32),
            execution_modes: Words::with_capacity(16),
            debug_sources: Words::default(),
            debug_names: Words::with_capacity(256),
            annotations: Words::with_capacity(256),
            globals: Words::with_capacity(512),
            function_declarations: Words::default(),
            function_definitions: Words::with_capacity(words),
            types: TypeCache::with_capacity(32),
            constants: ConstantCache::with_capacity(32),
            global_variables: Vec::with_capacity(16),
            func: FunctionState::new(),
        }
    }

    /// Empties the module for a new one of `version`, keeping every allocation (so translating
    /// many shaders with one `Module` allocates only when a shader is larger than all before).
    pub fn clear(&mut self, version: Version) {
        self.version = version;
        self.next_id = 1;
        self.error = None;
        self.capabilities.clear();
        self.extension_names.clear();
        self.extensions.clear();
        self.ext_inst_names.clear();
        self.ext_inst_imports.clear();
        self.addressing_model = AddressingModel::Logical;
        self.memory_model = MemoryModel::GLSL450;
        self.entry_points.clear();
        self.execution_modes.clear();
        self.debug_sources.clear();
        self.debug_names.clear();
        self.annotations.clear();
        self.globals.clear();
        self.function_declarations.clear();
        self.function_definitions.clear();
        self.types.clear();
        self.constants.clear();
        self.global_variables.clear();
        self.func.clear();
        self.block_serial = self.block_serial.wrapping_add(1);
    }

    /// Makes room for at least `words` more words of function code (see
    /// [`Module::with_code_capacity`]).
    pub fn reserve_code(&mut self, words: usize) {
        let code = &mut self.function_definitions.0;
        if code.is_empty() && code.capacity() < words {
            // Not `reserve`: that would copy the old allocation, all of it unused.
            *code = Vec::with_capacity(words);
        } else {
            code.reserve(words);
        }
    }

    /// The word sections after the capabilities, in the module's logical order (spec §2.4),
    /// the memory model written between the imports and the entry points.
    fn sections(&self) -> [&Words; 10] {
        [
            &self.extensions,
            &self.ext_inst_imports,
            &self.entry_points,
            &self.execution_modes,
            &self.debug_sources,
            &self.debug_names,
            &self.annotations,
            &self.globals,
            &self.function_declarations,
            &self.function_definitions,
        ]
    }

    /// The bytes the module's sections and caches hold allocated, used or not: what keeping
    /// it for reuse costs.
    pub fn allocated_bytes(&self) -> usize {
        let words: usize = self.sections().iter().map(|s| s.0.capacity()).sum();
        words * 4 + self.types.allocated_bytes() + self.constants.allocated_bytes()
    }

    /// The module's SPIR-V version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// Whether [`Module::name`] and [`Module::member_name`] write anything (default: yes).
    pub fn set_emit_names(&mut self, emit: bool) {
        self.emit_names = emit;
    }

    /// Whether `OpName`/`OpMemberName` are written (see [`Module::set_emit_names`]).
    pub fn emit_names(&self) -> bool {
        self.emit_names
    }

    /// The first misuse recorded so far, if any (the error [`Module::finish`] will return).
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// Records `e` unless an earlier error is recorded.
    #[cold]
    pub(super) fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Records the error of `r`, if any.
    #[inline]
    pub(super) fn check(&mut self, r: Result<(), Error>) {
        if let Err(e) = r {
            self.fail(e);
        }
    }

    /// A fresh id, e.g. for a label or a merge block referenced before it is defined.
    #[inline]
    pub fn alloc_id(&mut self) -> Id {
        let id = self.next_id;
        if id >= MAX_ID_BOUND {
            self.fail(Error::IdBoundExceeded);
        } else {
            self.next_id += 1;
        }
        Id(NonZeroU32::new(id).unwrap_or(NonZeroU32::MIN))
    }

    /// The id bound: one more than the largest id allocated.
    pub fn bound(&self) -> u32 {
        self.next_id
    }

    /// Declares `cap` (once, however often it is asked for).
    pub fn capability(&mut self, cap: Capability) {
        if !self.capabilities.contains(&cap) {
            self.capabilities.push(cap);
        }
    }

    /// Whether `cap` has been declared.
    pub fn has_capability(&self, cap: Capability) -> bool {
        self.capabilities.contains(&cap)
    }

    /// Declares the extension `name` (once).
    pub fn extension(&mut self, name: &str) {
        if self.extension_names.iter().any(|n| &**n == name) {
            return;
        }
        let start = self.extensions.begin(Op::Extension);
        let r = self.extensions.string(Op::Extension, name);
        if r.is_err() {
            self.extensions.cancel(start);
            return self.check(r);
        }
        let r = self.extensions.end(start);
        self.check(r);
        self.extension_names.push(name.into());
    }

    /// The id of the extended instruction set `name` (imported once).
    pub fn ext_inst_import(&mut self, name: &str) -> Id {
        if let Some((_, id)) = self.ext_inst_names.iter().find(|(n, _)| &**n == name) {
            return *id;
        }
        let id = self.alloc_id();
        let start = self.ext_inst_imports.begin(Op::ExtInstImport);
        self.ext_inst_imports.push(id.word());
        let r = self.ext_inst_imports.string(Op::ExtInstImport, name);
        if r.is_err() {
            self.ext_inst_imports.cancel(start);
            self.check(r);
            return id;
        }
        let r = self.ext_inst_imports.end(start);
        self.check(r);
        self.ext_inst_names.push((name.into(), id));
        id
    }

    /// The id of the `GLSL.std.450` extended instruction set.
    pub fn glsl_std_450(&mut self) -> Id {
        self.ext_inst_import("GLSL.std.450")
    }

    /// Sets the OpMemoryModel operands (default: Logical, GLSL450).
    pub fn memory_model(&mut self, addressing: AddressingModel, memory: MemoryModel) {
        self.addressing_model = addressing;
        self.memory_model = memory;
    }

    /// OpEntryPoint for `function`, named `name`, with its interface variables.
    ///
    /// Before SPIR-V 1.4 the interface lists the Input and Output variables the entry point
    /// uses; from 1.4 on every global variable it uses; [`Module::interface_variables`] gives
    /// the module's.
    pub fn entry_point(
        &mut self,
        model: ExecutionModel,
        function: Id,
        name: &str,
        interface: &[Id],
    ) {
        let w = &mut self.entry_points;
        let start = w.begin(Op::EntryPoint);
        w.extend(&[model as u32, function.word()]);
        if let Err(e) = w.string(Op::EntryPoint, name) {
            w.cancel(start);
            return self.fail(e);
        }
        w.ids(interface);
        let r = w.end(start);
        self.check(r);
    }

    /// The global variables an entry point of this module's version lists in its interface if
    /// it uses them all: Input and Output variables before SPIR-V 1.4, every global variable
    /// from 1.4 on. In declaration order.
    pub fn interface_variables(&self) -> impl Iterator<Item = Id> + '_ {
        let all = self.version >= Version::V1_4;
        self.global_variables
            .iter()
            .filter(move |(_, sc)| all || matches!(sc, StorageClass::Input | StorageClass::Output))
            .map(|(id, _)| *id)
    }

    /// OpExecutionMode with literal operands.
    pub fn execution_mode(&mut self, function: Id, mode: ExecutionMode, literals: &[u32]) {
        let w = &mut self.execution_modes;
        let start = w.begin(Op::ExecutionMode);
        w.extend(&[function.word(), mode as u32]);
        w.extend(literals);
        let r = w.end(start);
        self.check(r);
    }

    /// OpExecutionModeId (SPIR-V 1.2+) with id operands, e.g. `LocalSizeId`.
    pub fn execution_mode_id(&mut self, function: Id, mode: ExecutionMode, ids: &[Id]) {
        if self.version < Version::V1_2 {
            let (needed, version) = (Version::V1_2, self.version);
            let op = Op::ExecutionModeId;
            return self.fail(Error::VersionTooLow {
                op,
                needed,
                version,
            });
        }
        let w = &mut self.execution_modes;
        let start = w.begin(Op::ExecutionModeId);
        w.extend(&[function.word(), mode as u32]);
        w.ids(ids);
        let r = w.end(start);
        self.check(r);
    }

    /// `OpExecutionMode LocalSize x y z` for a compute entry point.
    pub fn local_size(&mut self, function: Id, x: u32, y: u32, z: u32) {
        self.execution_mode(function, ExecutionMode::LocalSize, &[x, y, z]);
    }

    /// OpSource.
    pub fn source(&mut self, language: SourceLanguage, version: u32) {
        self.debug_sources
            .inst(Op::Source, [language as u32, version]);
    }

    /// OpName (nothing when names are off, see [`Module::set_emit_names`]).
    pub fn name(&mut self, target: Id, name: &str) {
        if !self.emit_names {
            return;
        }
        let w = &mut self.debug_names;
        let start = w.begin(Op::Name);
        w.push(target.word());
        self.finish_string(start, Op::Name, name);
    }

    /// OpMemberName (nothing when names are off).
    pub fn member_name(&mut self, ty: Id, member: u32, name: &str) {
        if !self.emit_names {
            return;
        }
        let w = &mut self.debug_names;
        let start = w.begin(Op::MemberName);
        w.extend(&[ty.word(), member]);
        self.finish_string(start, Op::MemberName, name);
    }

    fn finish_string(&mut self, start: usize, op: Op, s: &str) {
        let w = &mut self.debug_names;
        let r = w.string(op, s).and_then(|()| w.end(start));
        if r.is_err() {
            w.cancel(start);
        }
        self.check(r);
    }

    /// OpDecorate with literal operands. A cached type cannot be decorated
    /// ([`Error::DecoratedSharedType`]), and a `SpecId` already given to another
    /// specialization constant cannot be given again ([`Error::DuplicateSpecId`]): the pipeline
    /// would specialize both with one value.
    pub fn decorate(&mut self, target: Id, decoration: Decoration, literals: &[u32]) {
        if self.types.is_shared(target) {
            return self.fail(Error::DecoratedSharedType { target, decoration });
        }
        if let (Decoration::SpecId, &[spec_id]) = (decoration, literals) {
            if let Some(first) = self.spec_id_holder(spec_id) {
                return self.fail(Error::DuplicateSpecId {
                    spec_id,
                    first,
                    second: target,
                });
            }
        }
        let w = &mut self.annotations;
        let start = w.begin(Op::Decorate);
        w.extend(&[target.word(), decoration as u32]);
        w.extend(literals);
        let r = w.end(start);
        self.check(r);
    }

    /// The constant already decorated `SpecId spec_id`, if any (a scan of the annotations:
    /// modules hold a handful of specialization constants).
    fn spec_id_holder(&self, spec_id: u32) -> Option<Id> {
        let words = &self.annotations.0;
        let mut at = 0;
        while let Some(&first) = words.get(at) {
            let len = (first >> 16) as usize;
            if first & 0xffff == Op::Decorate as u32
                && words.get(at + 2) == Some(&(Decoration::SpecId as u32))
                && words.get(at + 3) == Some(&spec_id)
            {
                return words.get(at + 1).and_then(|&w| NonZeroU32::new(w)).map(Id);
            }
            at += len.max(1);
        }
        None
    }

    /// OpDecorateId (SPIR-V 1.2+) with id operands.
    pub fn decorate_id(&mut self, target: Id, decoration: Decoration, ids: &[Id]) {
        if self.version < Version::V1_2 {
            let (needed, version) = (Version::V1_2, self.version);
            let op = Op::DecorateId;
            return self.fail(Error::VersionTooLow {
                op,
                needed,
                version,
            });
        }
        if self.types.is_shared(target) {
            return self.fail(Error::DecoratedSharedType { target, decoration });
        }
        let w = &mut self.annotations;
        let start = w.begin(Op::DecorateId);
        w.extend(&[target.word(), decoration as u32]);
        w.ids(ids);
        let r = w.end(start);
        self.check(r);
    }

    /// OpMemberDecorate with literal operands.
    pub fn member_decorate(&mut self, ty: Id, member: u32, decoration: Decoration, lits: &[u32]) {
        if self.types.is_shared(ty) {
            return self.fail(Error::DecoratedSharedType {
                target: ty,
                decoration,
            });
        }
        let w = &mut self.annotations;
        let start = w.begin(Op::MemberDecorate);
        w.extend(&[ty.word(), member, decoration as u32]);
        w.extend(lits);
        let r = w.end(start);
        self.check(r);
    }

    /// `DescriptorSet set` and `Binding binding` on a resource variable.
    pub fn decorate_binding(&mut self, variable: Id, set: u32, binding: u32) {
        self.decorate(variable, Decoration::DescriptorSet, &[set]);
        self.decorate(variable, Decoration::Binding, &[binding]);
    }

    /// `BuiltIn builtin`.
    pub fn decorate_builtin(&mut self, target: Id, builtin: BuiltIn) {
        self.decorate(target, Decoration::BuiltIn, &[builtin as u32]);
    }

    /// `Location location`.
    pub fn decorate_location(&mut self, target: Id, location: u32) {
        self.decorate(target, Decoration::Location, &[location]);
    }

    /// `ArrayStride stride` (on an array made by a `*_unique` constructor).
    pub fn decorate_array_stride(&mut self, array: Id, stride: u32) {
        self.decorate(array, Decoration::ArrayStride, &[stride]);
    }

    /// `Offset offset` on a struct member.
    pub fn member_offset(&mut self, ty: Id, member: u32, offset: u32) {
        self.member_decorate(ty, member, Decoration::Offset, &[offset]);
    }

    /// A global OpVariable of `storage` pointing to `pointee`, with an optional initializer; its
    /// pointer type comes from the cache, so it always matches `storage`. The Function storage
    /// class is refused (use [`Module::variable`]).
    pub fn global_variable(
        &mut self,
        storage: StorageClass,
        pointee: Id,
        initializer: Option<Id>,
    ) -> Id {
        let ptr = self.type_pointer(storage, pointee);
        let id = self.alloc_id();
        if storage == StorageClass::Function {
            let what = "a global variable cannot be in the Function storage class";
            self.fail(Error::InvalidOperand {
                op: Op::Variable,
                what,
            });
            return id;
        }
        match initializer {
            None => {
                let ops = [ptr.word(), id.word(), storage as u32];
                self.globals.inst(Op::Variable, ops);
            }
            Some(init) => {
                let ops = [ptr.word(), id.word(), storage as u32, init.word()];
                self.globals.inst(Op::Variable, ops);
            }
        }
        self.global_variables.push((id, storage));
        id
    }

    /// An instruction written as is into the types/constants/global-variables section (e.g.
    /// OpSpecConstant or OpConstantSampler); no cache sees it.
    pub fn global_inst(
        &mut self,
        op: Op,
        result_type: Option<Id>,
        result: Option<Id>,
        operands: &[u32],
    ) {
        let r = self.globals.instruction(op, result_type, result, operands);
        self.check(r);
    }

    /// The module's words: header and sections in logical-layout order. Fails with the first
    /// recorded misuse, or if a function is still open.
    pub fn finish(self) -> Result<Vec<u32>, Error> {
        let mut out = Vec::new();
        self.write_into(&mut out)?;
        Ok(out)
    }

    /// Like [`Module::finish`], but appends to `out` and leaves the module as it is (so that it
    /// can be [cleared](Module::clear) and reused).
    pub fn write_into(&self, out: &mut Vec<u32>) -> Result<(), Error> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Some(function) = self.func.open_function() {
            return Err(Error::UnfinishedFunction { function });
        }
        let sections = self.sections();
        let body: usize = sections.iter().map(|s| s.len()).sum();
        out.reserve(5 + 2 * self.capabilities.len() + 3 + body);
        out.extend_from_slice(&[spirv::MAGIC_NUMBER, self.version.word(), 0, self.next_id, 0]);
        for &cap in &self.capabilities {
            out.extend_from_slice(&[(2 << 16) | Op::Capability as u32, cap as u32]);
        }
        let [extensions, imports, rest @ ..] = sections;
        out.extend_from_slice(&extensions.0);
        out.extend_from_slice(&imports.0);
        out.extend_from_slice(&[
            (3 << 16) | Op::MemoryModel as u32,
            self.addressing_model as u32,
            self.memory_model as u32,
        ]);
        for s in rest {
            out.extend_from_slice(&s.0);
        }
        Ok(())
    }
}
