//! Misuse that would produce invalid SPIR-V is reported by `finish` as a typed error.

use spirv::{
    Decoration, ExecutionMode, FunctionControl, LoopControl, Op, SelectionControl, StorageClass,
};

use crate::spv::{Error, Module, Version, MAX_INSTRUCTION_WORDS};

/// A module with an open void function and an open entry block.
fn in_block() -> Module {
    let mut m = Module::new(Version::V1_3);
    let void = m.type_void();
    let fn_ty = m.type_function(void, &[]);
    m.begin_function(fn_ty, FunctionControl::NONE);
    m.new_block();
    m
}

fn error_of(m: Module) -> Error {
    match m.finish() {
        Ok(_) => panic!("finish accepted a misused module"),
        Err(e) => e,
    }
}

#[test]
fn instructions_outside_a_function_or_block() {
    let mut m = Module::new(Version::V1_3);
    let u = m.type_u32();
    let c = m.constant_u32(1);
    m.i_add(u, c, c);
    assert_eq!(error_of(m), Error::NotInFunction { op: Op::IAdd });

    let mut m = in_block();
    m.ret();
    let u = m.type_u32();
    let c = m.constant_u32(1);
    m.i_add(u, c, c); // after the terminator
    assert_eq!(error_of(m), Error::NotInBlock { op: Op::IAdd });
}

#[test]
fn block_structure_is_checked() {
    let mut m = in_block();
    let next = m.alloc_id();
    m.label(next);
    assert_eq!(error_of(m), Error::UnterminatedBlock { label: next });

    let mut m = in_block();
    let function = m.alloc_id();
    let void = m.type_void();
    let fn_ty = m.type_function(void, &[]);
    m.begin_function_with_id(function, fn_ty, FunctionControl::NONE);
    assert_eq!(error_of(m), Error::NestedFunction { function });

    let mut m = in_block();
    m.end_function();
    assert!(matches!(
        error_of(m),
        Error::IncompleteFunction {
            what: "with an unterminated block",
            ..
        }
    ));

    let mut m = Module::new(Version::V1_3);
    let void = m.type_void();
    let fn_ty = m.type_function(void, &[]);
    let f = m.begin_function(fn_ty, FunctionControl::NONE);
    m.end_function();
    assert_eq!(
        error_of(m),
        Error::IncompleteFunction {
            function: f,
            what: "without blocks"
        }
    );

    let mut m = in_block();
    m.ret();
    assert!(matches!(error_of(m), Error::UnfinishedFunction { .. }));

    let mut m = Module::new(Version::V1_3);
    m.end_function();
    assert_eq!(error_of(m), Error::NoOpenFunction);
}

#[test]
fn merge_instructions_must_precede_their_branch() {
    let mut m = in_block();
    let [merge, other] = [m.alloc_id(), m.alloc_id()];
    m.selection_merge(merge, SelectionControl::NONE);
    let u = m.type_u32();
    let c = m.constant_u32(1);
    m.i_add(u, c, c);
    let e = Error::MisplacedMerge {
        merge: Op::SelectionMerge,
        next: Op::IAdd,
    };
    assert_eq!(error_of(m), e);

    let mut m = in_block();
    m.selection_merge(merge, SelectionControl::NONE);
    m.branch(other);
    let e = Error::MisplacedMerge {
        merge: Op::SelectionMerge,
        next: Op::Branch,
    };
    assert_eq!(error_of(m), e);

    let mut m = in_block();
    let sel = m.constant_u32(0);
    m.loop_merge(merge, other, LoopControl::NONE);
    m.switch(sel, other, &[]);
    let e = Error::MisplacedMerge {
        merge: Op::LoopMerge,
        next: Op::Switch,
    };
    assert_eq!(error_of(m), e);
}

#[test]
fn returns_must_match_the_function_type() {
    let mut m = in_block();
    let c = m.constant_u32(1);
    m.ret_value(c);
    assert!(matches!(
        error_of(m),
        Error::ReturnMismatch {
            op: Op::ReturnValue,
            ..
        }
    ));

    let mut m = Module::new(Version::V1_3);
    let u = m.type_u32();
    let fn_ty = m.type_function(u, &[]);
    m.begin_function(fn_ty, FunctionControl::NONE);
    m.new_block();
    m.ret();
    assert!(matches!(
        error_of(m),
        Error::ReturnMismatch { op: Op::Return, .. }
    ));

    let mut m = Module::new(Version::V1_3);
    let u = m.type_u32();
    m.begin_function(u, FunctionControl::NONE);
    assert_eq!(error_of(m), Error::UnknownFunctionType { id: u });
}

#[test]
fn shared_types_cannot_be_decorated() {
    let mut m = Module::new(Version::V1_3);
    let u = m.type_u32();
    let rta = m.type_runtime_array(u);
    m.decorate(rta, Decoration::ArrayStride, &[4]);
    let e = Error::DecoratedSharedType {
        target: rta,
        decoration: Decoration::ArrayStride,
    };
    assert_eq!(error_of(m), e);
}

#[test]
fn a_spec_id_is_given_to_one_constant_only() {
    let mut m = Module::new(Version::V1_3);
    let (a, b, c) = (m.alloc_id(), m.alloc_id(), m.alloc_id());
    m.decorate(a, Decoration::SpecId, &[7]);
    // Another id and other decorations with the same literal are fine.
    m.decorate(b, Decoration::SpecId, &[8]);
    m.decorate(c, Decoration::Location, &[7]);
    m.decorate(c, Decoration::SpecId, &[7]);
    let e = Error::DuplicateSpecId {
        spec_id: 7,
        first: a,
        second: c,
    };
    assert_eq!(error_of(m), e);
}

#[test]
fn generic_emitters_refuse_reserved_ops() {
    let mut m = in_block();
    let u = m.type_u32();
    m.emit(Op::Variable, u, &[]);
    let e = Error::ReservedOp {
        op: Op::Variable,
        method: "variable or global_variable",
    };
    assert_eq!(error_of(m), e);

    let mut m = in_block();
    m.inst(Op::Label, None, None, &[]);
    assert!(matches!(
        error_of(m),
        Error::ReservedOp { op: Op::Label, .. }
    ));
}

#[test]
fn generic_emitters_track_blocks() {
    let mut m = in_block();
    let merge = m.alloc_id();
    let t = m.constant_bool(true);
    m.inst(Op::SelectionMerge, None, None, &[merge.word(), 0]);
    m.inst(
        Op::BranchConditional,
        None,
        None,
        &[t.word(), merge.word(), merge.word()],
    );
    m.label(merge);
    m.inst(Op::Return, None, None, &[]);
    m.end_function();
    assert!(m.finish().is_ok());
}

#[test]
fn bad_operands_are_reported() {
    let mut m = Module::new(Version::V1_3);
    m.type_int(7, false);
    assert!(matches!(
        error_of(m),
        Error::InvalidOperand {
            op: Op::TypeInt,
            ..
        }
    ));

    let mut m = Module::new(Version::V1_3);
    let f = m.type_f32();
    m.type_vector(f, 5);
    assert!(matches!(
        error_of(m),
        Error::InvalidOperand {
            op: Op::TypeVector,
            ..
        }
    ));

    let mut m = Module::new(Version::V1_3);
    let f = m.type_f32();
    m.global_variable(StorageClass::Function, f, None);
    assert!(matches!(
        error_of(m),
        Error::InvalidOperand {
            op: Op::Variable,
            ..
        }
    ));

    let mut m = Module::new(Version::V1_3);
    let u = m.type_u32();
    let v = m.constant_u32(1);
    m.constant_splat(u, v, 1);
    assert!(matches!(
        error_of(m),
        Error::InvalidOperand {
            op: Op::ConstantComposite,
            ..
        }
    ));
}

#[test]
fn strings_with_nul_are_refused() {
    let mut m = Module::new(Version::V1_3);
    let id = m.alloc_id();
    m.name(id, "a\0b");
    assert_eq!(
        error_of(m),
        Error::NulInString {
            op: Op::Name,
            position: 1
        }
    );
}

#[test]
fn overlong_instructions_are_refused() {
    let mut m = in_block();
    let sel = m.constant_u32(0);
    let target = m.alloc_id();
    let cases: Vec<(u32, _)> = (0..MAX_INSTRUCTION_WORDS as u32 / 2)
        .map(|i| (i, target))
        .collect();
    m.switch(sel, target, &cases);
    let e = Error::InstructionTooLong {
        op: Op::Switch,
        words: 3 + 2 * cases.len(),
    };
    assert_eq!(error_of(m), e);
}

#[test]
fn version_dependent_instructions_are_checked() {
    let mut m = Module::new(Version::V1_1);
    let void = m.type_void();
    let fn_ty = m.type_function(void, &[]);
    let f = m.begin_function(fn_ty, FunctionControl::NONE);
    m.new_block();
    m.ret();
    m.end_function();
    let one = m.constant_u32(1);
    m.execution_mode_id(f, ExecutionMode::LocalSizeId, &[one, one, one]);
    let e = Error::VersionTooLow {
        op: Op::ExecutionModeId,
        needed: Version::V1_2,
        version: Version::V1_1,
    };
    assert_eq!(error_of(m), e);
}

#[test]
fn the_first_error_is_kept() {
    let mut m = Module::new(Version::V1_3);
    m.end_function();
    let id = m.alloc_id();
    m.name(id, "\0");
    assert_eq!(m.error(), Some(&Error::NoOpenFunction));
    assert_eq!(error_of(m), Error::NoOpenFunction);
}
