//! The texture operations of the corpus's graphics shaders, emitted before graphics stages
//! exist: each vertex, geometry and pixel shader is lowered, its stage I/O replaced by
//! temporaries (inputs and outputs read and write `r0`, stage operations become `nop`s or
//! moves), and the result emitted as a compute shader — a pixel shader with pixel LOD rules,
//! retargeted to Fragment — and checked by `spirv-val`. Only the texture, memory and ALU code
//! is exercised; what this cannot translate yet must be a descriptor array.

use std::collections::BTreeMap;

use super::sample::ASSUME_PIXEL;
use super::tests::{as_fragment, options};
use crate::back::spirv::emit;
use crate::error::Error;
use crate::ir::{self, Index, Inst, Op, Reg, RelFile, Stage};
use crate::spv::tests::tools::is_valid;
use crate::spv::Version;
use crate::test_support::{corpus_blobs, dxbc_stage};
use crate::translate_tests::own_bindings;
use crate::{translate_to_ir, Options};

/// `reg` with stage registers replaced by `r0`.
fn strip_reg(reg: Reg) -> Reg {
    let index = |mut i: Index| {
        if let Some(mut rel) = i.rel().filter(|r| r.file == RelFile::Input) {
            rel.file = RelFile::Temp;
            rel.register = 0;
            i.set_rel(Some(rel));
        }
        i
    };
    match reg {
        Reg::Input(_)
        | Reg::VertexInput { .. }
        | Reg::Output(_)
        | Reg::PrimitiveId
        | Reg::GsInstanceId
        | Reg::InputCoverage
        | Reg::InnerCoverage
        | Reg::OutputDepth(_)
        | Reg::OutputCoverage
        | Reg::OutputStencilRef => Reg::Temp(0),
        Reg::IndexableTemp { array, index: i } => Reg::IndexableTemp {
            array,
            index: index(i),
        },
        Reg::ConstantBuffer {
            decl,
            element,
            slot,
        } => Reg::ConstantBuffer {
            decl,
            element,
            slot: index(slot),
        },
        Reg::ImmediateConstantBuffer(i) => Reg::ImmediateConstantBuffer(index(i)),
        other => other,
    }
}

/// `inst` without stage I/O or stage operations.
fn strip(inst: &Inst) -> Inst {
    let op = match inst.op {
        Op::DerivRtx
        | Op::DerivRty
        | Op::DerivRtxCoarse
        | Op::DerivRtxFine
        | Op::DerivRtyCoarse
        | Op::DerivRtyFine => Op::Mov,
        Op::Discard
        | Op::EvalSnapped
        | Op::EvalSampleIndex
        | Op::EvalCentroid
        | Op::Emit
        | Op::Cut
        | Op::EmitThenCut => return Inst::new(Op::Nop, inst.span),
        op => op,
    };
    let mut out = Inst::new(op, inst.span);
    out.flags = inst.flags;
    out.payload = inst.payload;
    for d in inst.dst() {
        let mut d = *d;
        d.reg = strip_reg(d.reg);
        out.push_dst(d);
    }
    for s in inst.src() {
        let mut s = *s;
        s.reg = strip_reg(s.reg);
        out.push_src(s);
    }
    out
}

#[test]
fn corpus_graphics_texture_operations_emit_valid_spirv() {
    let translate = Options::default();
    let mut shaders = 0usize;
    let mut valid = 0usize;
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    let mut not_lowered: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for path in corpus_blobs() {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if !matches!(
            dxbc_stage(&bytes),
            Some(Stage::Vertex | Stage::Geometry | Stage::Pixel)
        ) {
            continue;
        }
        let mut lowered = translate_to_ir(&bytes, &translate);
        if let Err(Error::Binding { .. }) = lowered {
            // Not expressible in the D3D11 layout: bind as a D3D12 runtime would.
            if let Some(bindings) = own_bindings(&bytes) {
                let options = Options {
                    bindings,
                    ..translate.clone()
                };
                lowered = translate_to_ir(&bytes, &options);
            }
        }
        let mut module = match lowered {
            Ok(m) => m,
            Err(e) => {
                let key = match e {
                    Error::Unsupported(e) => format!("lowering: {}", e.what),
                    e => format!(
                        "lowering error: {}",
                        e.to_string().split(" at ").next().unwrap_or("")
                    ),
                };
                *not_lowered.entry(key).or_default() += 1;
                continue;
            }
        };
        let uses_textures = module.insts.iter().any(|i| {
            i.src().iter().any(|s| matches!(s.reg, Reg::Sampler { .. }))
                || matches!(i.op, Op::Ld | Op::LdMs | Op::Resinfo | Op::LdUavTyped)
        });
        if !uses_textures {
            continue;
        }
        shaders += 1;
        let pixel = module.stage == Stage::Pixel;
        module.insts = module.insts.iter().map(strip).collect();
        module.stage = Stage::Compute;
        module.thread_group = [1, 1, 1];
        module.temps = module.temps.max(1);
        module.inputs.clear();
        module.outputs.clear();
        if let Err(e) = ir::validate(&module) {
            failures.push(format!("{}: stripped IR invalid: {e}", path.display()));
            continue;
        }
        ASSUME_PIXEL.with(|a| a.set(pixel));
        let result = emit(&module, &options(Version::V1_3, false));
        ASSUME_PIXEL.with(|a| a.set(false));
        match result {
            Ok(words) => {
                let words = if pixel { as_fragment(&words) } else { words };
                match is_valid(&words, "vulkan1.1") {
                    Some(true) => valid += 1,
                    Some(false) => {
                        failures.push(format!("{}: spirv-val rejected it", path.display()))
                    }
                    None => {}
                }
            }
            Err(crate::back::spirv::Error::Unsupported(e)) => {
                *unsupported.entry(e.what).or_default() += 1;
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "graphics shaders with textures: {shaders}, {valid} valid once stripped of stage I/O, {} unsupported",
        unsupported.values().sum::<usize>()
    );
    for (why, n) in &not_lowered {
        eprintln!("  not lowered: {n} × {why}");
    }
    for (feature, n) in &unsupported {
        eprintln!("  unsupported: {n} × {feature}");
        if !feature.contains("descriptor array") {
            failures.push(format!("unsupported: {feature}"));
        }
    }
    for f in failures.iter().take(20) {
        eprintln!("  FAILED {f}");
    }
    assert!(failures.is_empty(), "{} shaders failed", failures.len());
}
