//! Stream output (transform feedback): the caller's D3D11 declaration, resolved against the
//! output signature to registers, components and byte offsets.
//!
//! Contract: entries are packed in declaration order within each buffer (D3D11.3 §14.4): an
//! entry's offset is the sum of the component counts of the earlier entries of its buffer,
//! times 4; a gap (no semantic) only advances the offset. `start_component` counts from the
//! signature element's first component. A buffer stride of 0 becomes the packed size of its
//! entries. An entry naming an element the signature lacks, components past the element,
//! a stream or buffer past 3, or a stride smaller than the packed size is [`Error::Invalid`]
//! (offset 0: the error is in the caller's declaration, not the shader; `translate` names it
//! `Options::stream_output`).

use super::Error;
use crate::front::dxbc::signature::Signature;
use crate::{ir, StreamOutput};

fn invalid(message: String) -> Error {
    Error::invalid(0, format!("stream output: {message}"))
}

/// Resolves `so` against the output signature.
pub fn resolve(so: &StreamOutput, sig: Option<&Signature<'_>>) -> Result<ir::StreamOutput, Error> {
    let mut offsets = [0u32; 4];
    let mut entries = Vec::with_capacity(so.entries.len().min(64));
    if so.entries.len() > 64 * 4 {
        return Err(invalid(format!(
            "{} entries (D3D11 allows 64 per stream)",
            so.entries.len()
        )));
    }
    for (n, e) in so.entries.iter().enumerate() {
        if e.stream > 3 || e.output_slot > 3 {
            return Err(invalid(format!(
                "entry {n}: stream {} / buffer {} past 3",
                e.stream, e.output_slot
            )));
        }
        if e.component_count == 0
            || e.start_component > 3
            || e.start_component + e.component_count > 4
        {
            return Err(invalid(format!(
                "entry {n}: components {}..{} are not within 0..4",
                e.start_component,
                u32::from(e.start_component) + u32::from(e.component_count)
            )));
        }
        let buffer = usize::from(e.output_slot);
        let offset = offsets[buffer];
        offsets[buffer] += 4 * u32::from(e.component_count);
        let Some(name) = &e.semantic_name else {
            continue;
        };
        let element = sig
            .and_then(|s| {
                s.elements.iter().find(|el| {
                    el.name.eq_ignore_ascii_case(name)
                        && el.semantic_index == e.semantic_index
                        && el.stream == e.stream
                })
            })
            .ok_or_else(|| {
                invalid(format!(
                    "entry {n}: the output signature has no {name}{} in stream {}",
                    e.semantic_index, e.stream
                ))
            })?;
        let first = (element.mask & 0xf).trailing_zeros() as u8;
        let width = (element.mask & 0xf).count_ones() as u8;
        if e.start_component + e.component_count > width
            || element.register >= crate::ir::MAX_IO_REGISTERS
        {
            return Err(invalid(format!(
                "entry {n}: {name}{} has {width} components, the entry writes {}..{}",
                e.semantic_index,
                e.start_component,
                e.start_component + e.component_count
            )));
        }
        entries.push(ir::StreamOutputEntry {
            stream: e.stream as u8,
            register: element.register,
            first: first + e.start_component,
            count: e.component_count,
            buffer: e.output_slot,
            offset,
        });
    }
    let mut strides = so.strides;
    for (b, stride) in strides.iter_mut().enumerate() {
        if *stride == 0 {
            *stride = offsets[b];
        } else if *stride < offsets[b] {
            return Err(invalid(format!(
                "buffer {b}: stride {stride} is smaller than its {} bytes of entries",
                offsets[b]
            )));
        }
    }
    let rasterized_stream = match so.rasterized_stream {
        None => None,
        Some(s) if s <= 3 => Some(s as u8),
        Some(s) => return Err(invalid(format!("rasterized stream {s} past 3"))),
    };
    Ok(ir::StreamOutput {
        entries,
        strides,
        rasterized_stream,
    })
}
