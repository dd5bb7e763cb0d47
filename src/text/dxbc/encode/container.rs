//! Containers and signature chunks back into bytes.
//!
//! [`write_container`] writes the 32-byte header, the chunk-offset table and the chunks back to
//! back (8-byte chunk header, then the payload), then stores the total size and the checksum, as
//! fxc does. [`write_signature`] writes a signature chunk in the element layout its code selects
//! (see [`crate::front::dxbc::signature`]): count, offset of the first element (8), the elements, then
//! the string table (each distinct name once, in first-use order, nul-terminated), padded to a
//! dword with `0xab` bytes as fxc pads.

use super::{length_dword, EncodeError, Result};
use crate::front::dxbc::checksum;
use crate::front::dxbc::container::{FourCc, HEADER_SIZE};
use crate::front::dxbc::signature::{Layout, Signature};

/// The byte fxc pads string tables with.
const STRING_PAD: u8 = 0xab;

/// A whole container holding `chunks` in order, with its size and checksum filled in.
pub fn write_container(chunks: &[(FourCc, &[u8])]) -> Result<Vec<u8>> {
    let total: usize = HEADER_SIZE
        + chunks
            .iter()
            .map(|(_, data)| 4 + 8 + data.len())
            .sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&FourCc::DXBC.0);
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&length_dword(total, "container size")?.to_le_bytes());
    out.extend_from_slice(&length_dword(chunks.len(), "chunk count")?.to_le_bytes());
    let mut offset = HEADER_SIZE + 4 * chunks.len();
    for (_, data) in chunks {
        out.extend_from_slice(&length_dword(offset, "chunk offset")?.to_le_bytes());
        offset += 8 + data.len();
    }
    for (fourcc, data) in chunks {
        out.extend_from_slice(&fourcc.0);
        out.extend_from_slice(&length_dword(data.len(), "chunk size")?.to_le_bytes());
        out.extend_from_slice(data);
    }
    let sum = checksum::compute(&out);
    out[4..20].copy_from_slice(&sum);
    Ok(out)
}

/// A signature chunk's payload for `sig`, in the layout of `sig.fourcc` (`ISGN`, `OSG5`,
/// `ISG1`, ...). Fields the layout has no room for (stream, minimum precision) must be zero.
pub fn write_signature(sig: &Signature<'_>) -> Result<Vec<u8>> {
    let layout = Layout::of(sig.fourcc).ok_or(EncodeError::Unencodable(
        "signature with a non-signature chunk code",
    ))?;
    let strings_start = 8 + sig.elements.len() * layout.element_size();
    let mut strings: Vec<u8> = Vec::new();
    let mut names: Vec<(&str, usize)> = Vec::new();
    let mut out = Vec::with_capacity(strings_start + 16 * sig.elements.len());
    let push = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    push(&mut out, length_dword(sig.elements.len(), "element count")?);
    push(&mut out, 8);
    for e in &sig.elements {
        let name_offset = match names.iter().find(|(n, _)| *n == e.name) {
            Some(&(_, offset)) => offset,
            None => {
                let offset = strings_start + strings.len();
                names.push((e.name, offset));
                strings.extend_from_slice(e.name.as_bytes());
                strings.push(0);
                offset
            }
        };
        match layout {
            Layout::Basic if e.stream != 0 => {
                return Err(EncodeError::Unencodable(
                    "stream index in a signature layout without streams",
                ))
            }
            Layout::Basic => {}
            Layout::Stream | Layout::Full => push(&mut out, e.stream),
        }
        push(
            &mut out,
            length_dword(name_offset, "signature name offset")?,
        );
        push(&mut out, e.semantic_index);
        push(&mut out, e.system_value.raw());
        push(&mut out, e.component_type.raw());
        push(&mut out, e.register);
        out.extend_from_slice(&[e.mask, e.rw_mask, 0, 0]);
        let min_precision = e.min_precision.raw();
        match layout {
            Layout::Full => push(&mut out, min_precision),
            Layout::Basic | Layout::Stream if min_precision != 0 => {
                return Err(EncodeError::Unencodable(
                    "minimum precision in a signature layout without it",
                ))
            }
            Layout::Basic | Layout::Stream => {}
        }
    }
    out.extend_from_slice(&strings);
    while out.len() % 4 != 0 {
        out.push(STRING_PAD);
    }
    Ok(out)
}
