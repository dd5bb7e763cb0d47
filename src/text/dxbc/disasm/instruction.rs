//! One instruction in fxc's syntax: mnemonic with suffixes (`_sat`, `_nz`, `_aoffimmi(...)`,
//! `_indexable(...)`, `[precise(...)]`), then operands; declarations in their own layouts.

use std::fmt::Write;

use super::operand::{
    prefix, write_components, write_float, write_operand, write_register, write_untyped, Style,
};
use super::Flavor;
use crate::front::dxbc::instruction::Instruction;
use crate::front::dxbc::names::{self, NameTable, COMPONENTS};
use crate::front::dxbc::opcodes::{Class, NumType, Opcode};
use crate::front::dxbc::operand::Operand;
use crate::front::dxbc::program::ShaderVersion;
use crate::front::dxbc::token::{ext_opcode, ExtOpcodeToken};

/// Writes `name` from `table`, or the raw number when the value is not in it.
fn write_name(out: &mut String, table: NameTable, value: u32) {
    match names::lookup(table, value) {
        Some(name) => out.push_str(name),
        None => {
            let _ = write!(out, "unknown({value})");
        }
    }
}

/// `(float,float,float,float)` from a packed return-type token.
fn write_return_types(out: &mut String, packed: u32) {
    out.push('(');
    for i in 0..4 {
        if i > 0 {
            out.push(',');
        }
        write_name(out, names::RETURN_TYPES, (packed >> (4 * i)) & 0xf);
    }
    out.push(')');
}

/// Writes one instruction (without a trailing newline).
pub(super) fn write_instruction(
    out: &mut String,
    inst: &Instruction<'_>,
    version: ShaderVersion,
    dialect: Flavor,
) {
    let style = Style {
        num: inst.opcode.num_type(),
        sm51: version.is_sm51(),
        dialect,
        spaced: false,
    };
    if inst.opcode.class() == Class::Declaration {
        write_declaration(out, inst, style);
        return;
    }
    if inst.opcode == Opcode::CustomData {
        write_custom_data(out, inst, dialect);
        return;
    }
    write_mnemonic(out, inst, dialect);
    let operands = inst.operands();
    let inst_precision = operands.first().map_or(0, |o| o.min_precision);
    let shows_conversion = inst.opcode.class() == Class::Alu && !is_conversion(inst.opcode);
    let dst_count = inst
        .opcode
        .slots()
        .iter()
        .filter(|s| matches!(s, crate::front::dxbc::opcodes::Slot::Dst))
        .count();
    let mut first = true;
    if inst.opcode == Opcode::InterfaceCall {
        // `fcall fp0[array][function]`: the function index dword follows the interface operand.
        if let Some(op) = operands.first() {
            out.push(' ');
            write_register(out, op, style.sm51);
            let _ = write!(out, "[{}]", inst.imms().first().copied().unwrap_or(0));
        }
        return;
    }
    for (i, op) in operands.iter().enumerate() {
        out.push_str(if first { " " } else { ", " });
        first = false;
        let is_dst = i < dst_count;
        let precision = (!is_dst && shows_conversion).then_some(inst_precision);
        write_operand(
            out,
            op,
            operand_style(inst.opcode, is_dst, style),
            precision,
        );
    }
}

/// Conversions between number types: fxc shows no precision conversion on their sources.
fn is_conversion(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Itof
            | Opcode::Utof
            | Opcode::Ftoi
            | Opcode::Ftou
            | Opcode::F16tof32
            | Opcode::F32tof16
            | Opcode::Ftod
            | Opcode::Dtof
            | Opcode::Dtoi
            | Opcode::Dtou
            | Opcode::Itod
            | Opcode::Utod
    )
}

/// How fxc types the immediates of a source of `op`: addresses of loads and texture fetches are
/// integers (`l(0, 0, 0, 0)`), stores and moves stay untyped (`l(0,0,0,0)`).
fn operand_style(op: Opcode, is_dst: bool, style: Style) -> Style {
    if is_dst || style.num != NumType::Untyped {
        return style;
    }
    let int = Style {
        num: NumType::Int,
        ..style
    };
    match op.class() {
        Class::Texture | Class::Pixel => int,
        Class::Memory => match op {
            Opcode::StoreRaw | Opcode::StoreStructured | Opcode::StoreUavTyped => style,
            _ => int,
        },
        _ => style,
    }
}

fn write_mnemonic(out: &mut String, inst: &Instruction<'_>, dialect: Flavor) {
    let op = inst.opcode;
    let token = inst.token;
    out.push_str(op.name());
    match op {
        Opcode::Breakc
        | Opcode::Continuec
        | Opcode::If
        | Opcode::Retc
        | Opcode::Discard
        | Opcode::Callc => {
            out.push_str(if token.test_nonzero() { "_nz" } else { "_z" });
        }
        Opcode::Sync => {
            let flags = token.sync_flags();
            for (bit, name) in names::SYNC_FLAGS {
                if flags & (1 << bit) != 0 {
                    out.push('_');
                    out.push_str(name);
                }
            }
        }
        _ => {}
    }
    let offsets = inst.extension(ext_opcode::SAMPLE_CONTROLS);
    let dim = inst.extension(ext_opcode::RESOURCE_DIM);
    let ret = inst.extension(ext_opcode::RESOURCE_RETURN_TYPE);
    if offsets.is_some() && dialect.aoffimmi_suffix() {
        out.push_str("_aoffimmi");
    }
    if dim.is_some() {
        out.push_str("_indexable");
    }
    let resinfo_suffix = match op {
        Opcode::Resinfo => names::lookup(names::RESINFO_RETURN_TYPES, token.return_type()),
        Opcode::SampleInfo if token.return_type() == 1 => Some("_uint"),
        _ => None,
    };
    if dim.is_none() {
        if let Some(suffix) = resinfo_suffix {
            out.push_str(suffix);
        }
    }
    if token.saturate() {
        out.push_str("_sat");
    }
    let precise = token.precise_mask();
    if precise != 0 {
        out.push_str(" [precise");
        if precise != 0xf {
            out.push('(');
            for (i, c) in COMPONENTS.iter().enumerate() {
                if precise & (1 << i) != 0 {
                    out.push(*c);
                }
            }
            out.push(')');
        }
        out.push(']');
    }
    if dialect.lossless && !inst.padding.is_empty() && !fxc_pads(inst) {
        out.push_str(" [padding(");
        for (i, c) in inst.padding.chunks_exact(4).enumerate() {
            let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let _ = write!(out, "{}0x{v:08x}", if i == 0 { "" } else { "," });
        }
        out.push_str(")]");
    }
    if let Some(e) = offsets {
        let _ = write!(out, "({},{},{})", e.offset(0), e.offset(1), e.offset(2));
    }
    if let Some(e) = dim {
        write_dimension_ext(out, e);
    }
    if let Some(e) = ret {
        write_return_types(out, e.return_types());
    }
    if dim.is_some() {
        if let Some(suffix) = resinfo_suffix {
            out.push_str(suffix);
        }
    }
}

/// fxc writes `samplepos` of a texture (not of the rasterizer) with one zero dword after its
/// operands; the assembler does the same, so only other padding needs spelling out.
pub(crate) fn fxc_pads(inst: &Instruction<'_>) -> bool {
    inst.opcode == Opcode::SamplePos
        && inst.padding == [0, 0, 0, 0]
        && inst
            .operands()
            .get(1)
            .is_some_and(|o| o.ty == crate::front::dxbc::operand::RegisterType::Resource)
}

fn write_dimension_ext(out: &mut String, e: ExtOpcodeToken) {
    out.push('(');
    write_name(out, names::RESOURCE_DIMENSIONS, e.resource_dimension());
    if e.resource_dimension() == 12 {
        let _ = write!(out, ", stride={}", e.structure_stride());
    }
    out.push(')');
}

fn write_custom_data(out: &mut String, inst: &Instruction<'_>, dialect: Flavor) {
    if inst.custom_class == 3 {
        out.push_str("dcl_immediateConstantBuffer {");
        let values: Vec<u32> = inst.data().collect();
        let rows = values.chunks(4);
        let count = rows.len();
        for (i, row) in rows.enumerate() {
            if i > 0 {
                out.push_str("\n                             ");
            }
            out.push_str(" {");
            for (j, v) in row.iter().enumerate() {
                out.push_str(if j == 0 { " " } else { ", " });
                write_untyped(out, *v, dialect);
            }
            out.push('}');
            if i + 1 < count {
                out.push(',');
            }
        }
        out.push_str(" }");
    } else {
        // Comments, debug info and opaque blocks: fxc prints nothing; we print the dwords so
        // that the listing reassembles.
        let _ = write!(out, "customdata class={} {{", inst.custom_class);
        for (i, v) in inst.data().enumerate() {
            let _ = write!(out, "{}0x{v:08x}", if i == 0 { " " } else { ", " });
        }
        out.push_str(" }");
    }
}

/// Writes a declared operand: SM5.1 ranges print `T0[lower:upper]`.
fn write_decl_operand(out: &mut String, op: &Operand, style: Style, with_components: bool) {
    if style.sm51 && op.index_count == 3 && is_range_type(op) {
        let idx = op.indices();
        out.push_str(prefix(op.ty, true));
        let upper = idx[2].imm;
        if upper == 0xffff_ffff {
            let _ = write!(out, "{}[{}:*]", idx[0].imm, idx[1].imm);
        } else {
            let _ = write!(out, "{}[{}:{}]", idx[0].imm, idx[1].imm, upper);
        }
    } else {
        write_register(out, op, style.sm51);
    }
    if with_components {
        write_components(out, op.components);
        if op.min_precision != 0 {
            let _ = write!(
                out,
                " {{{}}}",
                names::lookup(names::MIN_PRECISIONS, op.min_precision as u32).unwrap_or("?")
            );
        }
    }
}

fn is_range_type(op: &Operand) -> bool {
    use crate::front::dxbc::operand::RegisterType as R;
    matches!(
        op.ty,
        R::ConstantBuffer | R::Resource | R::Sampler | R::UnorderedAccessView
    )
}

fn write_space(out: &mut String, inst: &Instruction<'_>) {
    if let Some(space) = inst.space {
        let _ = write!(out, ", space={space}");
    }
}

fn write_declaration(out: &mut String, inst: &Instruction<'_>, style: Style) {
    let token = inst.token;
    let ops = inst.operands();
    let op0 = ops.first();
    let imm = |i: usize| inst.imms().get(i).copied().unwrap_or(0);
    match inst.opcode {
        Opcode::DclResource => {
            out.push_str("dcl_resource_");
            write_name(out, names::RESOURCE_DIMENSIONS, token.resource_dimension());
            if matches!(token.resource_dimension(), 4 | 9) {
                let _ = write!(out, "({})", token.sample_count());
            }
            out.push(' ');
            write_return_types(out, inst.return_type.unwrap_or(0));
            out.push(' ');
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, false);
            }
            write_space(out, inst);
        }
        Opcode::DclUavTyped => {
            out.push_str("dcl_uav_typed_");
            write_name(out, names::RESOURCE_DIMENSIONS, token.resource_dimension());
            write_uav_flags(out, inst);
            out.push(' ');
            write_return_types(out, inst.return_type.unwrap_or(0));
            out.push(' ');
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, false);
            }
            write_space(out, inst);
        }
        Opcode::DclUavRaw | Opcode::DclUavStructured => {
            out.push_str(inst.opcode.name());
            write_uav_flags(out, inst);
            out.push(' ');
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, false);
            }
            if inst.opcode == Opcode::DclUavStructured {
                let _ = write!(out, ", {}", imm(0));
            }
            write_space(out, inst);
        }
        Opcode::DclResourceRaw | Opcode::DclResourceStructured => {
            out.push_str(inst.opcode.name());
            out.push(' ');
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, false);
            }
            if inst.opcode == Opcode::DclResourceStructured {
                let _ = write!(out, ", {}", imm(0));
            }
            write_space(out, inst);
        }
        Opcode::DclConstantBuffer => {
            out.push_str("dcl_constantbuffer ");
            if let Some(op) = op0 {
                if style.sm51 {
                    write_decl_operand(out, op, style, false);
                    let _ = write!(out, "[{}]", inst.cb_size.unwrap_or(0));
                } else {
                    let upper = style.dialect.upper_case_cb_declaration();
                    out.push_str(if upper { "CB" } else { "cb" });
                    let idx = op.indices();
                    let _ = write!(
                        out,
                        "{}[{}]",
                        idx.first().map_or(0, |i| i.imm),
                        idx.get(1).map_or(0, |i| i.imm)
                    );
                }
            }
            out.push_str(if token.cb_dynamic() {
                ", dynamicIndexed"
            } else {
                ", immediateIndexed"
            });
            write_space(out, inst);
        }
        Opcode::DclSampler => {
            out.push_str("dcl_sampler ");
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, false);
            }
            out.push_str(", ");
            write_name(out, names::SAMPLER_MODES, token.sampler_mode());
            write_space(out, inst);
        }
        Opcode::DclInputPs | Opcode::DclInputPsSiv | Opcode::DclInputPsSgv => {
            out.push_str(inst.opcode.name());
            out.push(' ');
            let legacy_sgv =
                !style.dialect.sgv_interpolation() && inst.opcode == Opcode::DclInputPsSgv;
            if token.interpolation() != 0 && !legacy_sgv {
                write_name(out, names::INTERPOLATION_MODES, token.interpolation());
                out.push(' ');
            }
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, true);
            }
            if let Some(name) = inst.name {
                out.push_str(", ");
                write_name(out, names::SYSTEM_VALUES, name);
            }
        }
        Opcode::DclInput
        | Opcode::DclInputSgv
        | Opcode::DclInputSiv
        | Opcode::DclOutput
        | Opcode::DclOutputSgv
        | Opcode::DclOutputSiv
        | Opcode::DclStream => {
            out.push_str(inst.opcode.name());
            out.push(' ');
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, true);
            }
            if let Some(name) = inst.name {
                out.push_str(", ");
                write_name(out, names::SYSTEM_VALUES, name);
            }
        }
        Opcode::DclIndexRange => {
            out.push_str("dcl_indexrange ");
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, true);
            }
            let _ = write!(out, " {}", imm(0));
        }
        Opcode::DclTemps
        | Opcode::DclMaxOutputVertexCount
        | Opcode::DclGsInstanceCount
        | Opcode::DclHsForkPhaseInstanceCount
        | Opcode::DclHsJoinPhaseInstanceCount => {
            let _ = write!(out, "{} {}", inst.opcode.name(), imm(0));
        }
        Opcode::DclIndexableTemp => {
            let _ = write!(out, "dcl_indexableTemp x{}[{}], {}", imm(0), imm(1), imm(2));
        }
        Opcode::DclThreadGroup => {
            let _ = write!(out, "dcl_thread_group {}, {}, {}", imm(0), imm(1), imm(2));
        }
        Opcode::DclTgsmRaw => {
            out.push_str("dcl_tgsm_raw ");
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, false);
            }
            let _ = write!(out, ", {}", imm(0));
        }
        Opcode::DclTgsmStructured => {
            out.push_str("dcl_tgsm_structured ");
            if let Some(op) = op0 {
                write_decl_operand(out, op, style, false);
            }
            let _ = write!(out, ", {}, {}", imm(0), imm(1));
        }
        Opcode::DclGlobalFlags => {
            out.push_str("dcl_globalFlags ");
            let flags = token.0;
            let mut first = true;
            for (bit, name) in names::GLOBAL_FLAGS {
                if flags & (1 << bit) != 0 {
                    if !first {
                        out.push_str(" | ");
                    }
                    first = false;
                    out.push_str(name);
                }
            }
        }
        Opcode::DclInputPrimitive => {
            out.push_str("dcl_inputprimitive ");
            let p = token.primitive();
            if (8..=39).contains(&p) {
                let _ = write!(out, "patch{}", p - 7);
            } else {
                write_name(out, names::INPUT_PRIMITIVES, p);
            }
        }
        Opcode::DclOutputTopology => {
            out.push_str("dcl_outputtopology ");
            write_name(out, names::OUTPUT_TOPOLOGIES, token.topology());
        }
        Opcode::DclInputControlPointCount | Opcode::DclOutputControlPointCount => {
            let _ = write!(out, "{} {}", inst.opcode.name(), token.primitive());
        }
        Opcode::DclTessDomain => {
            out.push_str("dcl_tessellator_domain ");
            write_name(out, names::TESS_DOMAINS, token.tess_domain());
        }
        Opcode::DclTessPartitioning => {
            out.push_str("dcl_tessellator_partitioning ");
            write_name(out, names::TESS_PARTITIONINGS, token.tess_mode());
        }
        Opcode::DclTessOutputPrimitive => {
            out.push_str("dcl_tessellator_output_primitive ");
            write_name(out, names::TESS_OUTPUT_PRIMITIVES, token.tess_mode());
        }
        Opcode::DclHsMaxTessFactor => {
            out.push_str("dcl_hs_max_tessfactor l(");
            write_float(out, f32::from_bits(imm(0)), style.dialect);
            out.push(')');
        }
        Opcode::DclFunctionBody => {
            let _ = write!(out, "dcl_function_body fb{}", imm(0));
        }
        Opcode::DclFunctionTable => {
            let _ = write!(out, "dcl_function_table ft{} = {{", imm(0));
            write_id_list(out, "fb", inst);
            out.push('}');
        }
        Opcode::DclInterface => {
            let name = if token.interface_indexed() {
                "dcl_interface_dynamicindexed"
            } else {
                "dcl_interface"
            };
            let _ = write!(
                out,
                "{name} fp{}[{}][{}] = {{",
                imm(0),
                imm(2) >> 16,
                imm(1)
            );
            write_id_list(out, "ft", inst);
            out.push('}');
        }
        Opcode::HsDecls
        | Opcode::HsControlPointPhase
        | Opcode::HsForkPhase
        | Opcode::HsJoinPhase => {
            out.push_str(inst.opcode.name());
        }
        _ => {
            out.push_str(inst.opcode.name());
            for (i, op) in ops.iter().enumerate() {
                out.push_str(if i == 0 { " " } else { ", " });
                write_operand(
                    out,
                    op,
                    Style {
                        num: NumType::Untyped,
                        ..style
                    },
                    None,
                );
            }
        }
    }
}

fn write_uav_flags(out: &mut String, inst: &Instruction<'_>) {
    if inst.token.globally_coherent() {
        out.push_str("_glc");
    }
    if inst.token.rasterizer_ordered() {
        out.push_str("_rov");
    }
    if inst.opcode == Opcode::DclUavStructured && inst.token.uav_has_counter() {
        out.push_str("_opc");
    }
}

fn write_id_list(out: &mut String, prefix: &str, inst: &Instruction<'_>) {
    for (i, id) in inst.data().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{prefix}{id}");
    }
}
