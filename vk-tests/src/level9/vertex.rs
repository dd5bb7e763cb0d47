//! The vertex-shader half of the two-part differential check: both parts of a
//! `4_0_level_9_x` vertex shader run one point-list draw over the same vertices and constants
//! with the rasterizer off, and transform feedback captures what each writes.
//!
//! Contract of [`check`]:
//! - vertex inputs pair by register: fxc declares the level-9 part's `v{r}` as
//!   `dcl_texcoord{r}` for the SM4 input `v{r}`, and both modules read `v{r}` at location `r`;
//!   each register's attribute holds, per component, a value in [0.1, 1.0] where the SM4
//!   signature declares it and the input-assembler default (0, 0, 0, 1) elsewhere (a format
//!   of exactly the declared components); an input the SM4 module reads as integers (bone
//!   indices: a `UINT` format such as `R8G8B8A8_UINT`) holds integers in 0–3, which a
//!   feature-level-9 runtime hands the level-9 part as floats of the same value (D3D9 has
//!   no integer vertex data: `D3DDECLTYPE_UBYTE4` reads as float), so that part gets them
//!   as floats;
//! - outputs pair as pixel-shader inputs do (the `k`-th SM4 output register other than
//!   `SV_Position` is the level-9 `oT{k}`, location `k`, a `.zw` pair stored reversed:
//!   [`super::level9_swizzle`]); the position is the `Position` built-in of both;
//! - the capture: the harness adds `Xfb` decorations to the modules' output variables
//!   (position, then each paired output, 16 bytes each, one buffer; a variable of fewer
//!   components at its `Component`), and compares the position's four components and each
//!   SM4 output element's components within [`super::TOLERANCE`]; a module whose outputs are
//!   not 32-bit float scalars or vectors gives [`Verdict::Skipped`].

use anyhow::{Context, Result};
use ash::vk;
use dxbc2spv::{Semantic, Translation};

use super::{close, level9_swizzle, Made, Verdict};
use crate::buffer::Buffer;
use crate::gpu::Gpu;
use crate::graphics::{
    d3d_viewport, run_graphics, DrawCall, GraphicsJob, Raster, StageModule, VertexAttribute,
    VertexBuffer, XfbBuffer, DEFAULT_TIMEOUT,
};

/// Vertices drawn (points).
const VERTICES: u32 = 8;

/// One captured output: SM4 location, level-9 location, and for each SM4 component the
/// level-9 component holding it (`None`: not part of an element).
struct OutputPair {
    sm4: u32,
    level9: u32,
    components: [Option<usize>; 4],
}

/// Checks the vertex shader whose parts translated to `sm4` and `l9`.
pub(super) fn check(gpu: &Gpu, sm4: &Translation, l9: &Translation) -> Result<Verdict> {
    if let Some(s) = l9.info.inputs.iter().find(|s| {
        !s.name.eq_ignore_ascii_case("TEXCOORD")
            || !sm4.info.inputs.iter().any(|x| x.register == s.index)
            || s.register != s.index
    }) {
        return Ok(Verdict::Skipped(format!(
            "a level-9 vertex input ({} {}) not `dcl_texcoord{{r}} v{{r}}` of an SM4 input",
            s.name, s.index
        )));
    }
    let outputs = match pair_outputs(&sm4.info.outputs, &l9.info.outputs) {
        Ok(o) => o,
        Err(cause) => return Ok(Verdict::Skipped(cause)),
    };
    let made = match Made::new(gpu, sm4)? {
        Ok(m) => m,
        Err(cause) => return Ok(Verdict::Skipped(cause)),
    };
    let sm4_locations: Vec<u32> = outputs.iter().map(|o| o.sm4).collect();
    let l9_locations: Vec<u32> = outputs.iter().map(|o| o.level9).collect();
    let (a, b) = match (
        with_capture(&sm4.spirv, &sm4_locations),
        with_capture(&l9.spirv, &l9_locations),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(cause), _) | (_, Err(cause)) => return Ok(Verdict::Skipped(cause)),
    };
    let inputs = vertex_inputs(&sm4.info.inputs, &integer_inputs(&sm4.spirv));
    let x = draw(gpu, &made, &a, &inputs, outputs.len(), true).context("the SM4 part's draw")?;
    let y =
        draw(gpu, &made, &b, &inputs, outputs.len(), false).context("the level-9 part's draw")?;
    Ok(compare(&outputs, &x, &y))
}

/// The output pairs, or why they do not pair.
fn pair_outputs(sm4: &[Semantic], l9: &[Semantic]) -> Result<Vec<OutputPair>, String> {
    let (a, registers) = super::user_registers(sm4, "output")?;
    let mut pairs = Vec::new();
    for (&register, k) in registers.iter().zip(0u32..) {
        let elements: Vec<&Semantic> = a
            .iter()
            .copied()
            .filter(|s| s.register == register)
            .collect();
        if !l9
            .iter()
            .any(|s| s.register == k && s.name.eq_ignore_ascii_case("TEXCOORD"))
        {
            return Err("an SM4 output with no level-9 oT# to pair".into());
        }
        let reversed = level9_swizzle(&elements)? == ".xywz";
        let mask = elements.iter().fold(0u8, |m, s| m | s.mask);
        let mut components = [None; 4];
        for (c, slot) in components.iter_mut().enumerate() {
            if mask & (1 << c) != 0 {
                *slot = Some(match c {
                    2 if reversed => 3,
                    3 if reversed => 2,
                    _ => c,
                });
            }
        }
        pairs.push(OutputPair {
            sm4: register,
            level9: k,
            components,
        });
    }
    Ok(pairs)
}

/// One vertex input register's data.
struct Input {
    location: u32,
    /// Integers (given as integer-valued floats) the SM4 part reads as `UINT` data.
    integer: bool,
    /// Per vertex.
    values: Vec<[f32; 4]>,
}

/// Each vertex input register's data: per vertex, the declared components in [0.1, 1.0]
/// (integers in 0–3 for the registers in `integers`) and the defaults (0, 0, 0, 1)
/// elsewhere.
fn vertex_inputs(sm4: &[Semantic], integers: &[u32]) -> Vec<Input> {
    let mut registers: Vec<u32> = sm4.iter().map(|s| s.register).collect();
    registers.sort_unstable();
    registers.dedup();
    registers
        .iter()
        .map(|&r| {
            let mask = sm4
                .iter()
                .filter(|s| s.register == r)
                .fold(0u8, |m, s| m | s.mask);
            let integer = integers.contains(&r);
            let values = (0..VERTICES)
                .map(|v| {
                    let mut out = [0.0, 0.0, 0.0, 1.0];
                    for (c, slot) in out.iter_mut().enumerate() {
                        if mask & (1 << c) != 0 {
                            let n = (v * 5 + r * 3 + c as u32 * 7) % 10;
                            *slot = match integer {
                                true => (n % 4) as f32,
                                false => 0.1 + 0.1 * n as f32,
                            };
                        }
                    }
                    out
                })
                .collect();
            Input {
                location: r,
                integer,
                values,
            }
        })
        .collect()
}

/// The locations of the input variables of `spirv` whose components are integers.
fn integer_inputs(spirv: &[u32]) -> Vec<u32> {
    let body = spirv.get(5..).unwrap_or_default();
    let (mut ints, mut vectors, mut pointers, mut vars, mut located) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut at = 0;
    while let Some(&first) = body.get(at) {
        let count = (first >> 16) as usize;
        let Some(i) = body.get(at..at + count.max(1)) else {
            break;
        };
        match (first & 0xffff, count) {
            (op::TYPE_INT, 4) => ints.push(i[1]),
            (op::TYPE_VECTOR, 4) => vectors.push((i[1], i[2])),
            (op::TYPE_POINTER, 4) if i[2] == op::STORAGE_INPUT => pointers.push((i[1], i[3])),
            (op::VARIABLE, n) if n >= 4 && i[3] == op::STORAGE_INPUT => vars.push((i[2], i[1])),
            (op::DECORATE, 4) if i[2] == op::DECORATION_LOCATION => located.push((i[1], i[3])),
            _ => {}
        }
        at += count.max(1);
    }
    let is_int = |t: u32| {
        ints.contains(&t)
            || vectors
                .iter()
                .any(|(v, component)| *v == t && ints.contains(component))
    };
    located
        .iter()
        .filter(|(var, _)| {
            vars.iter()
                .find(|(v, _)| v == var)
                .and_then(|(_, ptr)| pointers.iter().find(|(p, _)| p == ptr))
                .is_some_and(|(_, pointee)| is_int(*pointee))
        })
        .map(|(_, location)| *location)
        .collect()
}

/// SPIR-V words used by [`with_capture`].
mod op {
    pub const CAPABILITY: u32 = 17;
    pub const ENTRY_POINT: u32 = 15;
    pub const EXECUTION_MODE: u32 = 16;
    pub const TYPE_INT: u32 = 21;
    pub const TYPE_FLOAT: u32 = 22;
    pub const TYPE_VECTOR: u32 = 23;
    pub const TYPE_POINTER: u32 = 32;
    pub const VARIABLE: u32 = 59;
    pub const DECORATE: u32 = 71;
    pub const CAPABILITY_TRANSFORM_FEEDBACK: u32 = 53;
    pub const MODE_XFB: u32 = 11;
    pub const DECORATION_BUILT_IN: u32 = 11;
    pub const DECORATION_LOCATION: u32 = 30;
    pub const DECORATION_COMPONENT: u32 = 31;
    pub const DECORATION_OFFSET: u32 = 35;
    pub const DECORATION_XFB_BUFFER: u32 = 36;
    pub const DECORATION_XFB_STRIDE: u32 = 37;
    pub const BUILT_IN_POSITION: u32 = 0;
    pub const STORAGE_INPUT: u32 = 1;
    pub const STORAGE_OUTPUT: u32 = 3;
}

/// `spirv` with transform feedback capturing the position at offset 0 and the output at
/// `locations[k]` at `16 (k + 1)` (a variable of `n` floats at `Component c` at `16 (k + 1) +
/// 4 c`), or why not.
fn with_capture(spirv: &[u32], locations: &[u32]) -> Result<Vec<u32>, String> {
    let (header, body) = spirv.split_at(5.min(spirv.len()));
    let mut insts: Vec<&[u32]> = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let count = (body[at] >> 16) as usize;
        if count == 0 || at + count > body.len() {
            return Err("a malformed module".into());
        }
        insts.push(&body[at..at + count]);
        at += count;
    }
    let opcode = |i: &[u32]| i[0] & 0xffff;
    // Output variables and their pointee types, vec4 types, decorations.
    let mut floats = Vec::new();
    let mut vectors: Vec<(u32, u32, u32)> = Vec::new();
    let mut component: Vec<(u32, u32)> = Vec::new();
    let mut pointers = Vec::new();
    let mut outputs = Vec::new();
    let mut located: Vec<(u32, u32)> = Vec::new();
    let mut position = None;
    let mut entry = None;
    for i in &insts {
        match (opcode(i), i.len()) {
            (op::ENTRY_POINT, n) if n > 2 => entry = Some(i[2]),
            (op::TYPE_FLOAT, 3) if i[2] == 32 => floats.push(i[1]),
            (op::TYPE_VECTOR, 4) => vectors.push((i[1], i[2], i[3])),
            (op::DECORATE, 4) if i[2] == op::DECORATION_COMPONENT => component.push((i[1], i[3])),
            (op::TYPE_POINTER, 4) if i[2] == op::STORAGE_OUTPUT => pointers.push((i[1], i[3])),
            (op::VARIABLE, n) if n >= 4 && i[3] == op::STORAGE_OUTPUT => outputs.push((i[2], i[1])),
            (op::DECORATE, 4) if i[2] == op::DECORATION_LOCATION => located.push((i[3], i[1])),
            (op::DECORATE, 4)
                if i[2] == op::DECORATION_BUILT_IN && i[3] == op::BUILT_IN_POSITION =>
            {
                position = Some(i[1])
            }
            _ => {}
        }
    }
    // The floats a variable holds (`None`: not one to four 32-bit floats).
    let width = |var: u32| {
        let (_, ptr) = outputs.iter().find(|(v, _)| *v == var)?;
        let (_, pointee) = pointers.iter().find(|(p, _)| p == ptr)?;
        if floats.contains(pointee) {
            return Some(1);
        }
        vectors
            .iter()
            .find(|(v, f, n)| v == pointee && floats.contains(f) && (1..=4).contains(n))
            .map(|(_, _, n)| *n)
    };
    let entry = entry.ok_or("a module without an entry point")?;
    let position = position.ok_or("a vertex module without a position output")?;
    if width(position) != Some(4) {
        return Err("a position that is not a vec4".into());
    }
    // (variable, byte offset).
    let mut captured = vec![(position, 0)];
    for (&l, k) in locations.iter().zip(1u32..) {
        let mut taken = 0u32;
        for &(_, v) in located
            .iter()
            .filter(|(loc, v)| *loc == l && outputs.iter().any(|(o, _)| o == v))
        {
            let first = component
                .iter()
                .find(|(x, _)| *x == v)
                .map_or(0, |(_, c)| *c);
            let n = width(v).ok_or("a captured output that is not 32-bit floats")?;
            let bits = ((1u32 << n) - 1) << first;
            if first + n > 4 || taken & bits != 0 {
                return Err("output variables that overlap or pass component 3".into());
            }
            taken |= bits;
            captured.push((v, 16 * k + 4 * first));
        }
        if taken == 0 {
            return Err("a paired output location without a variable".into());
        }
    }
    let stride = 16 * (1 + locations.len() as u32);
    let mut out = header.to_vec();
    let (mut capability, mut mode, mut decorations) = (false, false, false);
    for i in &insts {
        let code = opcode(i);
        if code == op::DECORATE && !decorations {
            decorations = true;
            for &(v, offset) in &captured {
                out.extend([4 << 16 | op::DECORATE, v, op::DECORATION_XFB_BUFFER, 0]);
                out.extend([4 << 16 | op::DECORATE, v, op::DECORATION_XFB_STRIDE, stride]);
                out.extend([4 << 16 | op::DECORATE, v, op::DECORATION_OFFSET, offset]);
            }
        }
        out.extend_from_slice(i);
        if code == op::CAPABILITY && !capability {
            capability = true;
            out.extend([2 << 16 | op::CAPABILITY, op::CAPABILITY_TRANSFORM_FEEDBACK]);
        }
        if code == op::ENTRY_POINT && !mode {
            mode = true;
            out.extend([3 << 16 | op::EXECUTION_MODE, entry, op::MODE_XFB]);
        }
    }
    if !(capability && mode && decorations) {
        return Err("a module this harness cannot add a capture to".into());
    }
    Ok(out)
}

/// One point-list draw of `vs` with the rasterizer off; the captured records (per vertex:
/// the position, then `outputs` vec4s). With `integers`, the integer inputs are `UINT` data.
fn draw(
    gpu: &Gpu,
    made: &Made<'_>,
    vs: &[u32],
    inputs: &[Input],
    outputs: usize,
    integers: bool,
) -> Result<Vec<f32>> {
    let record = 16 * (1 + outputs);
    let mut data = Vec::new();
    for v in 0..VERTICES as usize {
        for input in inputs {
            for c in input.values.get(v).copied().unwrap_or_default() {
                let bits = match integers && input.integer {
                    true => c as u32,
                    false => c.to_bits(),
                };
                data.extend_from_slice(&bits.to_le_bytes());
            }
        }
    }
    if data.is_empty() {
        data.resize(16, 0);
    }
    let stride = 16 * inputs.len().max(1) as u32;
    let vb = Buffer::with_bytes(gpu, &data, "vertices", vk::BufferUsageFlags::VERTEX_BUFFER)?;
    let xfb = Buffer::with_bytes(
        gpu,
        &vec![0u8; record * VERTICES as usize],
        "capture",
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    )?;
    let attributes = inputs
        .iter()
        .zip(0u32..)
        .map(|(input, k)| VertexAttribute {
            location: input.location,
            slot: 0,
            format: match integers && input.integer {
                true => vk::Format::R32G32B32A32_UINT,
                false => vk::Format::R32G32B32A32_SFLOAT,
            },
            offset: 16 * k,
        })
        .collect();
    let job = GraphicsJob {
        stages: vec![StageModule {
            stage: vk::ShaderStageFlags::VERTEX,
            spirv: vs,
            entry_point: dxbc2spv::ENTRY_POINT,
        }],
        topology: vk::PrimitiveTopology::POINT_LIST,
        patch_control_points: None,
        vertex_buffers: vec![VertexBuffer {
            slot: 0,
            buffer: &vb,
            stride,
            per_instance: false,
        }],
        attributes,
        index_buffer: None,
        draw: DrawCall {
            vertex_count: VERTICES,
            instance_count: 1,
            first_vertex: 0,
            first_instance: 0,
            vertex_offset: 0,
        },
        width: 4,
        height: 4,
        layers: 1,
        samples: 1,
        specializations: Vec::new(),
        color_targets: Vec::new(),
        depth: None,
        load_targets: false,
        raster: Raster {
            discard: true,
            ..Raster::default()
        },
        viewports: vec![d3d_viewport(0.0, 0.0, 4.0, 4.0, 0.0, 1.0)],
        scissors: vec![vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent: vk::Extent2D {
                width: 4,
                height: 4,
            },
        }],
        bindings: made.bindings(vk::ShaderStageFlags::VERTEX),
        layout: None,
        xfb: vec![XfbBuffer {
            slot: 0,
            buffer: &xfb,
        }],
        xfb_queries: Vec::new(),
        timeout: DEFAULT_TIMEOUT,
        push_constants: Vec::new(),
    };
    run_graphics(gpu, &job)?;
    Ok(xfb
        .read()?
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// The verdict on two captures.
fn compare(outputs: &[OutputPair], a: &[f32], b: &[f32]) -> Verdict {
    let record = 4 * (1 + outputs.len());
    for v in 0..VERTICES as usize {
        let base = v * record;
        // (what, SM4 index, level-9 index) of each compared component.
        let mut checks: Vec<(String, usize, usize)> = (0..4)
            .map(|c| (format!("position.{}", "xyzw".as_bytes()[c] as char), c, c))
            .collect();
        for (k, o) in outputs.iter().enumerate() {
            for (c, l) in o.components.iter().enumerate() {
                if let Some(l) = l {
                    let name = format!("o{}.{}", o.sm4, "xyzw".as_bytes()[c] as char);
                    checks.push((name, 4 * (k + 1) + c, 4 * (k + 1) + l));
                }
            }
        }
        for (name, i, j) in checks {
            let (p, q) = (a.get(base + i), b.get(base + j));
            match (p, q) {
                (Some(&p), Some(&q)) if close(p, q) => {}
                _ => {
                    return Verdict::Mismatch(format!(
                        "vertex {v} {name}: SM4 {p:?} vs level-9 {q:?}"
                    ))
                }
            }
        }
    }
    Verdict::Match
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(name: &str, index: u32, register: u32, mask: u8) -> Semantic {
        Semantic {
            name: name.into(),
            index,
            register,
            mask,
            stream: 0,
        }
    }

    #[test]
    fn outputs_pair_by_register_with_zw_reversed() {
        // DualTextureEffect's vertex shader: COLOR0 o0, COLOR1 o1, TEXCOORD0 o2.xy,
        // TEXCOORD1 o2.zw, SV_Position o3; level-9: oT0, oT1, oT2 (TEXCOORD1 as `.wz`).
        let sm4 = [
            element("COLOR", 0, 0, 0b1111),
            element("COLOR", 1, 1, 0b1111),
            element("TEXCOORD", 0, 2, 0b0011),
            element("TEXCOORD", 1, 2, 0b1100),
            element("SV_Position", 0, 3, 0b1111),
        ];
        let l9: Vec<Semantic> = (0..3).map(|k| element("TEXCOORD", k, k, 0b1111)).collect();
        let pairs = pair_outputs(&sm4, &l9).expect("pairs");
        let got: Vec<(u32, u32, [Option<usize>; 4])> = pairs
            .iter()
            .map(|p| (p.sm4, p.level9, p.components))
            .collect();
        let all = [Some(0), Some(1), Some(2), Some(3)];
        assert_eq!(
            got,
            [
                (0, 0, all),
                (1, 1, all),
                (2, 2, [Some(0), Some(1), Some(3), Some(2)])
            ]
        );
    }

    #[test]
    fn the_capture_decorates_the_position_and_the_paired_locations() {
        let Ok(spirv) = super::super::vertex_shader(&[(0, ""), (3, "")]) else {
            panic!("the generated vertex shader");
        };
        let out = with_capture(&spirv, &[3]).expect("a capture");
        let decorations: Vec<(u32, u32)> = out[5..]
            .windows(4)
            .filter(|w| w[0] == (4 << 16 | op::DECORATE))
            .filter(|w| w[2] == op::DECORATION_OFFSET || w[2] == op::DECORATION_XFB_STRIDE)
            .map(|w| (w[2], w[3]))
            .collect();
        // Position at 0 and location 3 at 16, both with a 32-byte stride.
        assert_eq!(
            decorations,
            [
                (op::DECORATION_XFB_STRIDE, 32),
                (op::DECORATION_OFFSET, 0),
                (op::DECORATION_XFB_STRIDE, 32),
                (op::DECORATION_OFFSET, 16)
            ]
        );
        assert!(out
            .windows(2)
            .any(|w| w == [2 << 16 | op::CAPABILITY, op::CAPABILITY_TRANSFORM_FEEDBACK]));
        // A location the module does not write cannot be captured.
        assert!(with_capture(&spirv, &[7]).is_err());
    }
}
