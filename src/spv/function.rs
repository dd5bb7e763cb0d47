//! Functions and blocks: the function being defined starts in two small word vectors (header
//! with OpFunction, parameters and the entry label; the entry block's OpVariables), which the
//! first instruction of its body moves into the definitions section; the body is then written
//! there directly, so a function's code is never copied. An OpVariable that comes later is
//! inserted after the others (rare: the entry function declares its registers first).
//! Block structure is tracked so that every instruction lands in an open block and every block
//! ends with one terminator.

use spirv::{FunctionControl, LoopControl, Op, SelectionControl, StorageClass};

use super::words::Words;
use super::{Error, Id, Module};

/// Where the current function's instruction stream stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Block {
    /// Before the first label, or after a terminator.
    #[default]
    Closed,
    /// Inside a block.
    Open,
    /// Right after a merge instruction (the Op), which must be followed by a branch.
    Merge(Op),
}

/// What an opcode does to the block structure.
enum Class {
    /// Has its own method and may not go through the generic emitters.
    Reserved(&'static str),
    /// OpSelectionMerge or OpLoopMerge.
    Merge,
    /// Ends a block.
    Terminator,
    /// Any other instruction in a block.
    Plain,
}

fn classify(op: Op) -> Class {
    match op {
        Op::Label => Class::Reserved("label"),
        Op::Function => Class::Reserved("begin_function"),
        Op::FunctionParameter => Class::Reserved("begin_function"),
        Op::FunctionEnd => Class::Reserved("end_function"),
        Op::Variable => Class::Reserved("variable or global_variable"),
        Op::SelectionMerge | Op::LoopMerge => Class::Merge,
        Op::Branch
        | Op::BranchConditional
        | Op::Switch
        | Op::Return
        | Op::ReturnValue
        | Op::Kill
        | Op::Unreachable
        | Op::TerminateInvocation => Class::Terminator,
        _ => Class::Plain,
    }
}

/// The function being defined.
#[derive(Clone, Debug, Default)]
pub(super) struct FunctionState {
    function: Option<Id>,
    returns_void: bool,
    labels: u32,
    block: Block,
    params: Vec<Id>,
    header: Words,
    variables: Words,
    /// Once the body has started: where in the definitions section the entry block's
    /// variables end (a later variable goes there).
    variables_end: Option<usize>,
}

impl FunctionState {
    /// Empty, with room for a typical header and entry-block variables.
    pub(super) fn new() -> FunctionState {
        FunctionState {
            header: Words::with_capacity(32),
            variables: Words::with_capacity(64),
            ..FunctionState::default()
        }
    }

    pub(super) fn clear(&mut self) {
        self.function = None;
        self.returns_void = false;
        self.labels = 0;
        self.block = Block::Closed;
        self.params.clear();
        self.header.clear();
        self.variables.clear();
        self.variables_end = None;
    }

    /// The function being defined, if any.
    pub(super) fn open_function(&self) -> Option<Id> {
        self.function
    }
}

impl Module {
    /// Begins the definition of a function of type `fn_ty` (from [`Module::type_function`]),
    /// declaring its parameters (see [`Module::function_params`]). Returns the function's id.
    pub fn begin_function(&mut self, fn_ty: Id, control: FunctionControl) -> Id {
        let id = self.alloc_id();
        self.begin_function_with_id(id, fn_ty, control);
        id
    }

    /// [`Module::begin_function`] with an id allocated earlier (for calls or entry points
    /// written before the definition).
    pub fn begin_function_with_id(&mut self, function: Id, fn_ty: Id, control: FunctionControl) {
        if self.func.function.is_some() {
            return self.fail(Error::NestedFunction { function });
        }
        let Some((ret, first, count)) = self.function_signature(fn_ty) else {
            return;
        };
        self.func.clear();
        self.block_serial = self.block_serial.wrapping_add(1);
        self.func.function = Some(function);
        self.func.returns_void = self.types.is_void(ret);
        let ops = [ret.word(), function.word(), control.bits(), fn_ty.word()];
        self.func.header.inst(Op::Function, ops);
        for i in first..first + count {
            let Some(ty) = self.types.param_type(i) else {
                continue;
            };
            let param = self.alloc_id();
            self.func
                .header
                .inst(Op::FunctionParameter, [ty.word(), param.word()]);
            self.func.params.push(param);
        }
    }

    fn function_signature(&mut self, fn_ty: Id) -> Option<(Id, usize, usize)> {
        let sig = self.types.function(fn_ty);
        if sig.is_none() {
            self.fail(Error::UnknownFunctionType { id: fn_ty });
        }
        sig
    }

    /// The parameters of the function being defined (empty outside a function).
    pub fn function_params(&self) -> &[Id] {
        &self.func.params
    }

    /// A function declaration (OpFunction, its parameters, OpFunctionEnd, no body), for
    /// modules with the Linkage capability.
    pub fn declare_function(&mut self, fn_ty: Id, control: FunctionControl) -> Id {
        let function = self.alloc_id();
        let Some((ret, first, count)) = self.function_signature(fn_ty) else {
            return function;
        };
        let ops = [ret.word(), function.word(), control.bits(), fn_ty.word()];
        self.function_declarations.inst(Op::Function, ops);
        for i in first..first + count {
            let Some(ty) = self.types.param_type(i) else {
                continue;
            };
            let param = self.alloc_id();
            self.function_declarations
                .inst(Op::FunctionParameter, [ty.word(), param.word()]);
        }
        self.function_declarations.inst(Op::FunctionEnd, []);
        function
    }

    /// Ends the function being defined and appends it to the definitions section. Its last
    /// block must be terminated.
    pub fn end_function(&mut self) {
        let Some(function) = self.func.function else {
            return self.fail(Error::NoOpenFunction);
        };
        if self.func.labels == 0 {
            let what = "without blocks";
            self.fail(Error::IncompleteFunction { function, what });
        } else if self.func.block != Block::Closed {
            let what = "with an unterminated block";
            self.fail(Error::IncompleteFunction { function, what });
        }
        self.body_words().inst(Op::FunctionEnd, []);
        self.func.clear();
    }

    /// Starts the block `label` (allocated earlier with [`Module::alloc_id`], as branches to it
    /// usually come first). The first label of a function starts its entry block.
    pub fn label(&mut self, label: Id) {
        if self.func.function.is_none() {
            return self.fail(Error::NotInFunction { op: Op::Label });
        }
        if self.func.block != Block::Closed {
            return self.fail(Error::UnterminatedBlock { label });
        }
        let w = if self.func.labels == 0 {
            &mut self.func.header
        } else {
            self.body_words()
        };
        w.inst(Op::Label, [label.word()]);
        self.block_serial = self.block_serial.wrapping_add(1);
        self.func.labels += 1;
        self.func.block = Block::Open;
    }

    /// A number that changes at every label, function start and function call: values a
    /// caller remembers from memory (a register it loaded or stored) stay valid while it is
    /// unchanged, as they were computed in the same block with no other code run in between.
    pub fn block_serial(&self) -> u32 {
        self.block_serial
    }

    /// True while a block is open: a label was placed and no terminator followed yet.
    pub fn in_block(&self) -> bool {
        self.func.block != Block::Closed
    }

    /// Allocates a label and starts its block.
    pub fn new_block(&mut self) -> Id {
        let label = self.alloc_id();
        self.label(label);
        label
    }

    /// A Function-storage OpVariable of `pointee`, placed at the start of the entry block
    /// whichever block is current (SPIR-V requires function variables there).
    pub fn variable(&mut self, pointee: Id, initializer: Option<Id>) -> Id {
        let ptr = self.type_pointer(StorageClass::Function, pointee);
        let id = self.alloc_id();
        if self.func.function.is_none() {
            self.fail(Error::NotInFunction { op: Op::Variable });
            return id;
        }
        let sc = StorageClass::Function as u32;
        let words = [
            (5 << 16) | Op::Variable as u32,
            ptr.word(),
            id.word(),
            sc,
            initializer.map_or(0, Id::word),
        ];
        let words = if initializer.is_some() {
            &words[..]
        } else {
            &[(4 << 16) | Op::Variable as u32, ptr.word(), id.word(), sc][..]
        };
        match self.func.variables_end {
            None => self.func.variables.extend(words),
            Some(end) => {
                // The body has started: insert after the entry block's other variables.
                let defs = &mut self.function_definitions.0;
                defs.splice(end..end, words.iter().copied());
                self.func.variables_end = Some(end + words.len());
            }
        }
        id
    }

    /// The words the function's body goes to: the definitions section, after moving the header
    /// and the entry block's variables there the first time.
    #[inline]
    fn body_words(&mut self) -> &mut Words {
        if self.func.variables_end.is_none() {
            let defs = &mut self.function_definitions;
            defs.extend(&self.func.header.0);
            defs.extend(&self.func.variables.0);
            self.func.variables_end = Some(defs.len());
            self.func.header.clear();
            self.func.variables.clear();
        }
        &mut self.function_definitions
    }

    /// The open block's words, for an ordinary instruction `op`; `None` (and an error recorded)
    /// when no block is open or a merge instruction is waiting for its branch.
    #[inline]
    pub(super) fn body(&mut self, op: Op) -> Option<&mut Words> {
        match self.func.block {
            Block::Open => Some(self.body_words()),
            _ => {
                self.misplaced(op);
                None
            }
        }
    }

    /// The open block's words for a merge instruction, which must be followed by a branch.
    pub(super) fn merge_body(&mut self, op: Op) -> Option<&mut Words> {
        match self.func.block {
            Block::Open => {
                self.func.block = Block::Merge(op);
                Some(self.body_words())
            }
            _ => {
                self.misplaced(op);
                None
            }
        }
    }

    /// The open block's words for the terminator `op`, which closes the block.
    #[inline]
    pub(super) fn terminator_body(&mut self, op: Op) -> Option<&mut Words> {
        let allowed = match self.func.block {
            Block::Open => true,
            Block::Merge(Op::SelectionMerge) => {
                matches!(op, Op::BranchConditional | Op::Switch)
            }
            Block::Merge(_) => matches!(op, Op::Branch | Op::BranchConditional),
            Block::Closed => false,
        };
        if !allowed {
            self.misplaced(op);
            return None;
        }
        let returns = match op {
            Op::Return => Some(true),
            Op::ReturnValue => Some(false),
            _ => None,
        };
        if returns.is_some_and(|void| void != self.func.returns_void) {
            // A block is open, so a function is.
            if let Some(function) = self.func.function {
                self.fail(Error::ReturnMismatch { op, function });
            }
            return None;
        }
        self.func.block = Block::Closed;
        Some(self.body_words())
    }

    #[cold]
    fn misplaced(&mut self, op: Op) {
        let e = match self.func.block {
            _ if self.func.function.is_none() => Error::NotInFunction { op },
            Block::Merge(merge) => Error::MisplacedMerge { merge, next: op },
            _ => Error::NotInBlock { op },
        };
        self.fail(e);
    }

    /// The words for `op` emitted through a generic emitter, by its class.
    fn generic_body(&mut self, op: Op) -> Option<&mut Words> {
        match classify(op) {
            Class::Reserved(method) => {
                self.fail(Error::ReservedOp { op, method });
                None
            }
            Class::Merge => self.merge_body(op),
            Class::Terminator => self.terminator_body(op),
            Class::Plain => self.body(op),
        }
    }

    /// Any instruction in the current block, operands as raw words: `op [result_type]
    /// [result] operands...`. Merge instructions and terminators update the block structure as
    /// their own methods do; OpLabel, OpFunction*, OpVariable must use their methods.
    pub fn inst(&mut self, op: Op, result_type: Option<Id>, result: Option<Id>, operands: &[u32]) {
        let Some(w) = self.generic_body(op) else {
            return;
        };
        let r = w.instruction(op, result_type, result, operands);
        self.check(r);
    }

    /// A value-producing instruction `op ty %new operands...` whose operands are all ids, in
    /// the current block; returns the new id.
    pub fn emit(&mut self, op: Op, ty: Id, operands: &[Id]) -> Id {
        let id = self.alloc_id();
        if let Some(w) = self.generic_body(op) {
            // The usual one to three operands as one fixed-size write.
            let (t, i) = (ty.word(), id.word());
            match *operands {
                [a] => {
                    w.inst(op, [t, i, a.word()]);
                    return id;
                }
                [a, b] => {
                    w.inst(op, [t, i, a.word(), b.word()]);
                    return id;
                }
                [a, b, c] => {
                    w.inst(op, [t, i, a.word(), b.word(), c.word()]);
                    return id;
                }
                _ => {}
            }
            let start = w.begin(op);
            w.extend(&[ty.word(), id.word()]);
            w.ids(operands);
            let r = w.end(start);
            self.check(r);
        }
        id
    }

    /// OpSelectionMerge; the next instruction must be OpBranchConditional or OpSwitch.
    pub fn selection_merge(&mut self, merge: Id, control: SelectionControl) {
        if let Some(w) = self.merge_body(Op::SelectionMerge) {
            w.inst(Op::SelectionMerge, [merge.word(), control.bits()]);
        }
    }

    /// OpLoopMerge; the next instruction must be OpBranch or OpBranchConditional.
    pub fn loop_merge(&mut self, merge: Id, continue_target: Id, control: LoopControl) {
        if let Some(w) = self.merge_body(Op::LoopMerge) {
            let ops = [merge.word(), continue_target.word(), control.bits()];
            w.inst(Op::LoopMerge, ops);
        }
    }

    /// OpBranch (ends the block).
    pub fn branch(&mut self, target: Id) {
        if let Some(w) = self.terminator_body(Op::Branch) {
            w.inst(Op::Branch, [target.word()]);
        }
    }

    /// OpBranchConditional (ends the block).
    pub fn branch_conditional(&mut self, condition: Id, if_true: Id, if_false: Id) {
        if let Some(w) = self.terminator_body(Op::BranchConditional) {
            let ops = [condition.word(), if_true.word(), if_false.word()];
            w.inst(Op::BranchConditional, ops);
        }
    }

    /// OpSwitch on a 32-bit integer `selector`, with `(literal, label)` cases (ends the block).
    pub fn switch(&mut self, selector: Id, default: Id, cases: &[(u32, Id)]) {
        let Some(w) = self.terminator_body(Op::Switch) else {
            return;
        };
        let start = w.begin(Op::Switch);
        w.extend(&[selector.word(), default.word()]);
        for &(literal, label) in cases {
            w.extend(&[literal, label.word()]);
        }
        let r = w.end(start);
        self.check(r);
    }

    /// OpReturn, in a function returning void (ends the block).
    pub fn ret(&mut self) {
        if let Some(w) = self.terminator_body(Op::Return) {
            w.inst(Op::Return, []);
        }
    }

    /// OpReturnValue, in a function returning a value (ends the block).
    pub fn ret_value(&mut self, value: Id) {
        if let Some(w) = self.terminator_body(Op::ReturnValue) {
            w.inst(Op::ReturnValue, [value.word()]);
        }
    }

    /// OpKill (fragment shaders; ends the block).
    pub fn kill(&mut self) {
        if let Some(w) = self.terminator_body(Op::Kill) {
            w.inst(Op::Kill, []);
        }
    }

    /// OpUnreachable (ends the block).
    pub fn unreachable(&mut self) {
        if let Some(w) = self.terminator_body(Op::Unreachable) {
            w.inst(Op::Unreachable, []);
        }
    }
}
