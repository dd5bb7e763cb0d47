//! Encoder tests: corpus round trips (every instruction, program, signature and container
//! re-encodes to its original bytes), unit tests of the encoder's checks, and the committed
//! samples under `fixtures/samples/` (see `fixtures/README.md`).

use std::collections::BTreeMap;
use std::path::Path;

use crate::front::dxbc::container::{Container, FourCc, ParseOptions};
use crate::front::dxbc::program::Program;
use crate::front::dxbc::signature::{Layout, Signature};
use crate::test_support;
use crate::text::dxbc::encode::{self, EncodeError};

const LAX: ParseOptions = ParseOptions {
    verify_checksum: false,
};

/// Failures grouped by kind: count and the first example.
#[derive(Default)]
struct Failures(BTreeMap<String, (usize, String)>);

impl Failures {
    fn add(&mut self, kind: String, example: impl FnOnce() -> String) {
        let entry = self.0.entry(kind).or_insert_with(|| (0, example()));
        entry.0 += 1;
    }

    fn assert_empty(&self, what: &str) {
        let lines: Vec<String> = self
            .0
            .iter()
            .map(|(k, (n, e))| format!("  {k}: {n} (e.g. {e})"))
            .collect();
        assert!(lines.is_empty(), "{what} mismatches:\n{}", lines.join("\n"));
    }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// How often the irregular encodings occur in the corpus (printed, to show what is covered).
#[derive(Debug, Default)]
struct Coverage {
    extended_opcode: usize,
    extended_operand: usize,
    relative_index: usize,
    relative_with_ext: usize,
    imm64_index: usize,
    custom_data: usize,
    long_form: usize,
    padding: usize,
    sm51_space: usize,
}

impl Coverage {
    fn count(&mut self, inst: &crate::front::dxbc::Instruction<'_>) {
        use crate::front::dxbc::operand::IndexRepr;
        self.extended_opcode += usize::from(!inst.extended().is_empty());
        self.custom_data += usize::from(inst.opcode == crate::front::dxbc::Opcode::CustomData);
        self.long_form += usize::from(
            inst.token.extended()
                && matches!(
                    inst.opcode,
                    crate::front::dxbc::Opcode::DclFunctionBody
                        | crate::front::dxbc::Opcode::DclFunctionTable
                        | crate::front::dxbc::Opcode::DclInterface
                        | crate::front::dxbc::Opcode::InterfaceCall
                ),
        );
        self.padding += usize::from(!inst.padding.is_empty());
        self.sm51_space += usize::from(inst.space.is_some());
        for op in inst.operands() {
            self.extended_operand += usize::from(op.ext.0 != 0);
            for index in op.indices() {
                self.relative_index += usize::from(index.rel.is_some());
                self.relative_with_ext += usize::from(index.rel.is_some_and(|r| r.ext.0 != 0));
                self.imm64_index += usize::from(matches!(
                    index.repr,
                    IndexRepr::Imm64 | IndexRepr::Imm64Relative
                ));
            }
        }
    }
}

#[test]
fn corpus_instructions_re_encode_exactly() {
    let blobs = test_support::corpus_blobs();
    let (mut programs, mut instructions) = (0usize, 0usize);
    let mut seen = Coverage::default();
    let mut failures = Failures::default();
    for path in &blobs {
        let bytes = read(path);
        let Ok(container) = Container::parse(&bytes, &LAX) else {
            continue;
        };
        let Some(chunk) = container.shader_chunk() else {
            continue;
        };
        let Ok(program) = Program::parse(chunk.data, chunk.offset) else {
            continue;
        };
        let mut decoded = Vec::new();
        for inst in program.instructions() {
            let Ok(inst) = inst else { break };
            let start = (inst.offset - chunk.offset) as usize;
            let original = &chunk.data[start..start + inst.length as usize * 4];
            let mut words = Vec::new();
            match encode::encode_instruction(&inst, &mut words) {
                Ok(()) if encode::words_to_bytes(&words) == original => {}
                Ok(()) => failures.add(format!("{} differs", inst.opcode.name()), || {
                    format!(
                        "{} at {:#x}: {:08x?} vs {:02x?}",
                        path.display(),
                        inst.offset,
                        words,
                        original
                    )
                }),
                Err(e) => failures.add(format!("{}: {e}", inst.opcode.name()), || {
                    format!("{} at {:#x}", path.display(), inst.offset)
                }),
            }
            instructions += 1;
            seen.count(&inst);
            decoded.push(inst);
        }
        if decoded.len() != program.instructions().count() {
            continue;
        }
        let length = program.body().len() + 8;
        match encode::encode_program(program.version, &decoded) {
            Ok(words) if encode::words_to_bytes(&words) == chunk.data[..length] => programs += 1,
            Ok(_) => failures.add("program differs".into(), || path.display().to_string()),
            Err(e) => failures.add(format!("program: {e}"), || path.display().to_string()),
        }
    }
    eprintln!(
        "encode corpus: {instructions} instructions, {programs} whole programs re-encoded \
         ({} blobs); forms covered: {seen:?}",
        blobs.len()
    );
    failures.assert_empty("instruction re-encoding");
}

#[test]
fn corpus_signatures_and_containers_re_encode_exactly() {
    let blobs = test_support::corpus_blobs();
    let (mut containers, mut signatures, mut zero_padded) = (0usize, 0usize, 0usize);
    let mut failures = Failures::default();
    for path in &blobs {
        let bytes = read(path);
        let Ok(container) = Container::parse(&bytes, &LAX) else {
            continue;
        };
        for chunk in &container.chunks {
            if Layout::of(chunk.fourcc).is_none() {
                continue;
            }
            let Ok(sig) = Signature::parse(chunk) else {
                continue;
            };
            match encode::write_signature(&sig) {
                Ok(out) if out == chunk.data => signatures += 1,
                Ok(out) if differs_only_in_padding(&out, chunk.data) => zero_padded += 1,
                Ok(out) => failures.add(format!("{} differs", chunk.fourcc), || {
                    format!("{}: {:02x?} vs {:02x?}", path.display(), out, chunk.data)
                }),
                Err(e) => failures.add(format!("{}: {e}", chunk.fourcc), || {
                    path.display().to_string()
                }),
            }
        }
        if test_support::has_bad_checksum(path) {
            continue;
        }
        let chunks: Vec<(FourCc, &[u8])> = container
            .chunks
            .iter()
            .map(|c| (c.fourcc, c.data))
            .collect();
        match encode::write_container(&chunks) {
            Ok(out) if out == bytes => containers += 1,
            Ok(out) => failures.add("container differs".into(), || {
                let at = out.iter().zip(&bytes).position(|(a, b)| a != b);
                format!(
                    "{}: first difference at {at:?}, lengths {} vs {}",
                    path.display(),
                    out.len(),
                    bytes.len()
                )
            }),
            Err(e) => failures.add(format!("container: {e}"), || path.display().to_string()),
        }
    }
    eprintln!(
        "encode corpus: {signatures} signature chunks, {containers} containers re-encoded \
         ({} blobs); {zero_padded} signatures from non-fxc tools pad with zeros",
        blobs.len()
    );
    failures.assert_empty("signature/container re-encoding");
}

/// True when `ours` (padded with fxc's `0xab`) and `theirs` differ only in the pad bytes after
/// the last string, which other tools fill with zeros.
fn differs_only_in_padding(ours: &[u8], theirs: &[u8]) -> bool {
    let end = ours.iter().rposition(|&b| b != 0xab).map_or(0, |i| i + 1);
    ours.len() == theirs.len()
        && ours[..end] == theirs[..end]
        && theirs[end..].iter().all(|&b| b == 0)
}

/// Every sample decodes cleanly: strict container parse, signatures, every instruction, a
/// re-encoding equal to the bytes, and a disassembly without unknown values. Returns the listing.
fn check_sample(name: &str, bytes: &[u8]) -> String {
    use crate::text::dxbc::disasm::{self, Options};
    let container = Container::parse(bytes, &ParseOptions::default())
        .unwrap_or_else(|e| panic!("{name}: container: {e}"));
    for sig in [
        container.input_signature(),
        container.output_signature(),
        container.patch_constant_signature(),
    ]
    .into_iter()
    .flatten()
    {
        sig.unwrap_or_else(|e| panic!("{name}: signature: {e}"));
    }
    let program = disasm::shader_program(&container).unwrap_or_else(|e| panic!("{name}: {e}"));
    let decoded: Vec<_> = program
        .instructions()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let words = encode::encode_program(program.version, &decoded)
        .unwrap_or_else(|e| panic!("{name}: re-encode: {e}"));
    let chunk = container.shader_chunk().map(|c| c.data);
    assert_eq!(
        Some(encode::words_to_bytes(&words).as_slice()),
        chunk,
        "{name}: re-encoding"
    );
    let options = Options {
        header: false,
        ..Options::default()
    };
    let mut listing = String::new();
    disasm::header::write_header(&mut listing, &container)
        .unwrap_or_else(|e| panic!("{name}: header: {e}"));
    listing += &disasm::disassemble(bytes, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        !listing.contains("unknown"),
        "{name}: unknown values in\n{listing}"
    );
    listing
}

/// The committed samples equal what their Rust descriptions build today; `BLESS=1` rewrites them
/// (the `.dxbc` and its `.asm` listing, printed by our disassembler).
#[test]
fn fixtures_are_up_to_date() {
    let dir = test_support::fixtures_dir().join("samples");
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for sample in crate::text::dxbc::encode::samples::all() {
        let listing = check_sample(sample.name, &sample.bytes);
        for (ext, content) in [
            ("dxbc", sample.bytes.clone()),
            ("asm", listing.into_bytes()),
        ] {
            let path = dir.join(format!("{}.{ext}", sample.name));
            if bless {
                std::fs::create_dir_all(&dir).expect("create fixtures/samples");
                std::fs::write(&path, &content)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            } else if std::fs::read(&path).ok().as_deref() != Some(content.as_slice()) {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale or missing samples (run with BLESS=1 to rewrite):\n{}",
        stale.join("\n")
    );
}

#[test]
fn committed_samples_are_ours() {
    // Every file in fixtures/samples/ is produced by a description in `encode::samples`.
    let dir = test_support::fixtures_dir().join("samples");
    let names: Vec<String> = crate::text::dxbc::encode::samples::all()
        .iter()
        .flat_map(|s| [format!("{}.dxbc", s.name), format!("{}.asm", s.name)])
        .collect();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        assert!(
            names.contains(&file),
            "{file} in fixtures/samples has no description"
        );
    }
}

mod forms {
    //! Encodings the corpus never uses, built with the [`ProgramBuilder`], decoded, checked and
    //! re-encoded; and the encoder's refusals.

    use super::EncodeError;
    use crate::front::dxbc::operand::{Index, IndexRepr, Modifier, Operand, RegisterType as R};
    use crate::front::dxbc::program::{Program, ShaderVersion, Stage};
    use crate::front::dxbc::token::ExtOperandToken;
    use crate::front::dxbc::{Instruction, Opcode};
    use crate::text::dxbc::encode::token::{self, controls, modifier_token};
    use crate::text::dxbc::encode::{
        encode_operand, encode_program, imm32, reg, relative, words_to_bytes, OperandBuild,
        ProgramBuilder,
    };

    const SM50: ShaderVersion = ShaderVersion {
        stage: Stage::Compute,
        major: 5,
        minor: 0,
    };

    /// Decodes `words` and checks that they re-encode to themselves.
    fn decode_and_re_encode(words: &[u32], check: impl FnOnce(&[Instruction<'_>])) {
        let bytes = words_to_bytes(words);
        let program = Program::parse(&bytes, 0).expect("program");
        let decoded: Vec<_> = program
            .instructions()
            .collect::<Result<_, _>>()
            .expect("instructions");
        check(&decoded);
        let again = encode_program(program.version, &decoded).expect("re-encode");
        assert_eq!(again, words);
    }

    #[test]
    fn rare_operand_forms() {
        let min16i = ExtOperandToken(modifier_token(0, 4, false).expect("token"));
        let mut rel = relative(R::IndexableTemp, &[1, 2], 3);
        rel.ext = min16i;
        let mut imm64 = reg(R::Temp, &[0]).mask(0x1);
        imm64.indices[0] = Index {
            repr: IndexRepr::Imm64,
            imm: 0x1_0000_0002,
            rel: None,
        };
        let mut imm64_rel = reg(R::Temp, &[0]).select(2);
        imm64_rel.indices[0] = Index {
            repr: IndexRepr::Imm64Relative,
            imm: 7 << 32 | 9,
            rel: Some(rel),
        };
        let mut other_ext = reg(R::Temp, &[1]).swizzle([3, 2, 1, 0]);
        other_ext.ext = ExtOperandToken(0x40); // kind 0 with a stray bit: kept as stored
        let mut b = ProgramBuilder::new(SM50);
        b.op(Opcode::Mov, 0).dst(imm64).src(imm64_rel);
        b.op(Opcode::Mov, 0)
            .dst(reg(R::Temp, &[2]).mask(0xf))
            .src(other_ext);
        b.op(Opcode::Mov, controls::precise(0xf) | controls::SATURATE)
            .dst(reg(R::Temp, &[3]).mask(0xf))
            .src(
                reg(R::Input, &[0])
                    .swizzle([0, 1, 2, 3])
                    .modifier(Modifier::AbsNeg),
            );
        let words = b.finish().expect("build");
        decode_and_re_encode(&words, |insts| {
            let [dst, src] = insts[0].operands() else {
                panic!("two operands")
            };
            assert_eq!(dst.indices[0].imm, 0x1_0000_0002);
            let rel = src.indices[0].rel.expect("relative");
            assert_eq!(
                (rel.ty, rel.indices, rel.component),
                (R::IndexableTemp, [1, 2], 3)
            );
            assert_eq!(rel.ext, min16i);
            assert_eq!(insts[1].operands()[1].ext, ExtOperandToken(0x40));
            let op = insts[2].operands()[1];
            assert_eq!(op.modifier, Modifier::AbsNeg);
            assert!(insts[2].token.saturate());
            assert_eq!(insts[2].token.precise_mask(), 0xf);
        });
    }

    #[test]
    fn rare_instruction_forms() {
        let long_list: Vec<u32> = (0..130).collect();
        let mut b = ProgramBuilder::new(SM50);
        b.op(Opcode::DclFunctionBody, 0).imm(5);
        b.op(Opcode::DclFunctionTable, 0)
            .long_form()
            .imm(1)
            .imm(2)
            .list(&[5]);
        b.op(Opcode::DclFunctionTable, 0)
            .imm(2)
            .imm(130)
            .list(&long_list);
        b.op(Opcode::Ld, 0)
            .ext(token::sample_offsets(-8, 7, 0).expect("offsets"))
            .ext(token::resource_dimension(3, 0).expect("dim"))
            .ext(token::resource_return_type(0x5555).expect("rt"))
            .dst(reg(R::Temp, &[0]).mask(0xf))
            .src(imm32([1, 2, 3, 4]))
            .src(reg(R::Resource, &[0]).swizzle([0, 1, 2, 3]))
            .padding(0);
        b.custom_data(3, &[1, 2, 3, 4]);
        b.custom_data(0x1f_ffff, &[]);
        let words = b.finish().expect("build");
        decode_and_re_encode(&words, |insts| {
            assert_eq!(insts.len(), 6);
            assert!(insts[1].token.extended() && insts[1].length == 5);
            assert_eq!(insts[2].data().len(), 130);
            assert!(insts[2].token.extended() && insts[2].length == 134);
            assert_eq!(insts[3].extended().len(), 3);
            assert_eq!(insts[3].texel_offsets(), Some([-8, 7, 0]));
            assert_eq!(insts[3].padding, &[0, 0, 0, 0]);
            assert_eq!((insts[4].custom_class, insts[4].data().len()), (3, 4));
            assert_eq!(insts[5].custom_class, 0x1f_ffff);
        });
    }

    #[test]
    fn sm51_slots_follow_the_version() {
        let sm51 = ShaderVersion { minor: 1, ..SM50 };
        let sampler = reg(R::Sampler, &[0, 0, 0]).swizzle([0, 1, 2, 3]);
        let mut b = ProgramBuilder::new(sm51);
        b.op(Opcode::DclSampler, 0).dst(sampler).space(3);
        decode_and_re_encode(&b.finish().expect("build"), |insts| {
            assert_eq!(insts[0].space, Some(3));
        });
        let mut b = ProgramBuilder::new(sm51);
        b.op(Opcode::DclSampler, 0).dst(sampler);
        assert!(matches!(
            b.finish(),
            Err(EncodeError::Missing {
                what: "register space",
                ..
            })
        ));
        let mut b = ProgramBuilder::new(SM50);
        b.op(Opcode::DclSampler, 0)
            .dst(reg(R::Sampler, &[0]))
            .space(0);
        assert!(matches!(
            b.finish(),
            Err(EncodeError::Unused {
                what: "register space",
                ..
            })
        ));
    }

    fn build_err(f: impl FnOnce(&mut ProgramBuilder)) -> EncodeError {
        let mut b = ProgramBuilder::new(SM50);
        f(&mut b);
        b.finish().expect_err("should not encode")
    }

    #[test]
    fn refusals() {
        let r0 = || reg(R::Temp, &[0]);
        let err = build_err(|b| {
            b.op(Opcode::Mov, 0)
                .dst(r0().mask(0x1f))
                .src(r0().select(0));
        });
        assert!(matches!(
            err,
            EncodeError::FieldOverflow {
                what: "write mask",
                ..
            }
        ));
        let err = build_err(|b| {
            b.op(Opcode::Mov, 0).dst(r0().mask(1));
        });
        assert!(matches!(
            err,
            EncodeError::Missing {
                what: "operand",
                ..
            }
        ));
        let err = build_err(|b| {
            b.op(Opcode::Mov, 0).dst(r0().mask(1)).src(r0()).src(r0());
        });
        assert!(matches!(
            err,
            EncodeError::Unused {
                what: "operand",
                ..
            }
        ));
        let err = build_err(|b| {
            b.op(Opcode::Mov, 0).src(r0()).src(r0());
        });
        assert!(matches!(err, EncodeError::SlotMismatch { index: 0, .. }));
        let err = build_err(|b| {
            b.op(Opcode::DclOutputSiv, 0)
                .dst(reg(R::Output, &[0]).mask(1));
        });
        assert!(matches!(
            err,
            EncodeError::Missing {
                what: "system value name",
                ..
            }
        ));
        let err = build_err(|b| {
            b.op(Opcode::Ret, 0).imm(1);
        });
        assert!(matches!(
            err,
            EncodeError::Unused {
                what: "immediate",
                ..
            }
        ));
        let err = build_err(|b| {
            b.op(Opcode::Ret, 0).list(&[1]);
        });
        assert!(matches!(err, EncodeError::Unused { what: "list", .. }));
        let err = build_err(|b| {
            b.imm(1);
        });
        assert!(matches!(err, EncodeError::Unencodable(_)));
        let err = build_err(|b| {
            b.op(Opcode::Nop, 1 << 13);
        });
        assert!(matches!(
            err,
            EncodeError::FieldOverflow {
                what: "opcode controls",
                ..
            }
        ));
        // 128 dwords do not fit a fixed-length opcode token.
        let err = build_err(|b| {
            b.op(Opcode::Nop, 0);
            for _ in 0..127 {
                b.padding(0);
            }
        });
        assert!(matches!(
            err,
            EncodeError::FieldOverflow {
                what: "instruction length",
                ..
            }
        ));
        let err = build_err(|b| {
            b.op(Opcode::Mov, 0).long_form();
        });
        assert!(matches!(
            err,
            EncodeError::Unused {
                what: "long form",
                ..
            }
        ));
        assert!(token::sample_offsets(8, 0, 0).is_err());
        assert!(token::return_types([16, 0, 0, 0]).is_err());
    }

    #[test]
    fn operand_refusals() {
        let encode = |op: Operand| encode_operand(&op, &mut Vec::new());
        assert!(encode(Operand::default()).is_err(), "invalid register type");
        let mut op = reg(R::Temp, &[0]);
        op.indices[0].repr = IndexRepr::Relative;
        assert!(encode(op).is_err(), "relative index without a register");
        let mut op = reg(R::Temp, &[0]);
        op.indices[0].imm = 1 << 32;
        assert!(encode(op).is_err(), "32-bit index overflow");
        let mut op = reg(R::Temp, &[0]);
        op.ext = ExtOperandToken(1 << 31 | 1);
        assert!(encode(op).is_err(), "chained extended operand tokens");
        let mut op = reg(R::Temp, &[0]).modifier(Modifier::Neg);
        op.ext = ExtOperandToken(2);
        assert!(encode(op).is_err(), "modifier on a non-modifier extension");
        let mut op = imm32([0; 4]);
        op.index_count = 1;
        assert!(encode(op).is_err(), "immediate with indices");
        // A bad relative register (component 4) fails after the operand token was written.
        let mut out = vec![7];
        let bad = reg(R::Temp, &[0]).relative_index(0, None, relative(R::Temp, &[0], 4));
        assert!(encode_operand(&bad, &mut out).is_err());
        assert_eq!(out, [7], "nothing written on error");
        let mut b = ProgramBuilder::new(SM50);
        b.op(Opcode::Mov, 0).dst(bad).src(bad);
        b.op(Opcode::Ret, 0);
        assert!(b.finish().is_err());
    }
}

#[test]
fn containers_and_signatures_parse_back() {
    use crate::front::dxbc::signature::{ComponentType, Element, MinPrecision, SystemValue};
    let element = |name, semantic_index, register| Element {
        stream: 1,
        name,
        semantic_index,
        system_value: SystemValue::Undefined,
        component_type: ComponentType::Float32,
        register,
        mask: 0xf,
        rw_mask: 0x3,
        min_precision: MinPrecision::Float16,
    };
    let elements = vec![
        element("A", 0, 0),
        element("TEXCOORD", 0, 1),
        element("A", 1, 2),
    ];
    let sig = Signature {
        fourcc: FourCc::OSG1,
        elements,
    };
    let osg1 = encode::write_signature(&sig).expect("signature");
    // Names are shared: 8 + 3 * 32 bytes of elements, then "A\0TEXCOORD\0" padded with 0xab.
    assert_eq!(osg1.len(), 8 + 96 + 12);
    assert_eq!(&osg1[104..], b"A\0TEXCOORD\0\xab");
    let basic = Signature {
        fourcc: FourCc::ISGN,
        elements: sig.elements.clone(),
    };
    assert!(
        encode::write_signature(&basic).is_err(),
        "stream in a 24-byte layout"
    );
    let not_sig = Signature {
        fourcc: FourCc::STAT,
        elements: Vec::new(),
    };
    assert!(encode::write_signature(&not_sig).is_err());

    let bytes = encode::write_container(&[(FourCc::OSG1, &osg1), (FourCc(*b"ABCD"), &[1, 2, 3])])
        .expect("container");
    let c = Container::parse(&bytes, &ParseOptions::default()).expect("checksum and layout");
    assert_eq!(c.chunks.len(), 2);
    assert_eq!(c.chunks[1].data, &[1, 2, 3]);
    let parsed = c.output_signature().expect("OSG1").expect("parses");
    assert_eq!(parsed, sig);
}

#[test]
fn samples_use_the_forms_they_describe() {
    // The listing does not show `nonuniform` (the disassembler does not print it yet): check
    // the decoded operand instead.
    let sample = crate::text::dxbc::encode::samples::all()
        .into_iter()
        .find(|s| s.name == "ps51_spaces_icb")
        .expect("sample");
    let container = Container::parse(&sample.bytes, &ParseOptions::default()).expect("container");
    let program = crate::text::dxbc::disasm::shader_program(&container).expect("program");
    let sample_inst = program
        .instructions()
        .flatten()
        .find(|i| i.opcode == crate::front::dxbc::Opcode::Sample)
        .expect("sample instruction");
    assert!(sample_inst.operands()[2].nonuniform);
    assert_eq!(program.version.minor, 1);
}
