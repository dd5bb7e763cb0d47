//! Buffers, UAVs and thread-group shared memory as the interpreter sees them, with D3D's
//! out-of-bounds rules (D3D11.3 functional specification, "Out of Bounds Addressing and Data
//! Conversion" of raw, structured and typed buffers).
//!
//! Contract: a read of a 32-bit word outside the bound view returns 0 and a write there is
//! dropped; structured accesses are checked per component against both the structure count and
//! the stride; typed elements are converted through the view's format (stores only for formats
//! with 32-bit channels, otherwise [`Fault::Unsupported`]). TGSM accesses out of range, which D3D
//! leaves undefined, are [`Fault::Unsupported`] rather than a guessed value.

use crate::format::{ShaderType, TexelFormat};

use super::Fault;

/// One bound buffer: the case buffer's bytes and the part of it the shader's view covers.
#[derive(Clone, Debug)]
pub struct Resource {
    /// The whole buffer.
    pub bytes: Vec<u8>,
    /// Byte offset of the view in `bytes`.
    pub view_offset: usize,
    /// Size of the view in bytes.
    pub view_size: usize,
    /// The view format of a typed buffer.
    pub format: Option<TexelFormat>,
    /// The UAV's hidden counter.
    pub counter: Option<u32>,
}

impl Resource {
    /// The 32-bit word at byte `addr` of the view, or 0 out of bounds.
    pub fn word(&self, addr: u64) -> u32 {
        self.locate(addr)
            .and_then(|at| self.bytes.get(at..at + 4))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .unwrap_or(0)
    }

    /// Writes the word at byte `addr` of the view; dropped out of bounds.
    pub fn set_word(&mut self, addr: u64, value: u32) {
        if let Some(at) = self.locate(addr) {
            if let Some(b) = self.bytes.get_mut(at..at + 4) {
                b.copy_from_slice(&value.to_le_bytes());
            }
        }
    }

    /// True when the word at byte `addr` lies inside the view.
    pub fn in_bounds(&self, addr: u64) -> bool {
        self.locate(addr).is_some()
    }

    fn locate(&self, addr: u64) -> Option<usize> {
        let addr = usize::try_from(addr).ok()?;
        if addr.checked_add(4)? > self.view_size {
            return None;
        }
        let at = self.view_offset.checked_add(addr)?;
        (at + 4 <= self.bytes.len()).then_some(at)
    }

    /// Number of elements of a typed view.
    pub fn typed_count(&self) -> u32 {
        match self.format {
            Some(f) if f.size > 0 => (self.view_size / f.size as usize) as u32,
            _ => 0,
        }
    }

    /// Loads typed element `index` as four channels (missing ones 0, alpha 1).
    pub fn typed_load(&self, index: u32) -> Result<[u32; 4], Fault> {
        let f = self
            .format
            .ok_or_else(|| Fault::Unsupported("typed access without a view format".into()))?;
        let one = match f.shader_type() {
            ShaderType::Float => 1.0f32.to_bits(),
            ShaderType::Uint | ShaderType::Sint => 1,
        };
        let mut out = [0, 0, 0, one];
        // Out of range: 0 in the format's channels, the defaults in the missing ones.
        let missing = if f.channels() >= 4 { [0; 4] } else { out };
        if index >= self.typed_count() {
            return Ok(missing);
        }
        let at = self.view_offset + index as usize * f.size as usize;
        let Some(texel) = self.bytes.get(at..at + f.size as usize) else {
            return Ok(missing);
        };
        for (i, c) in f.decode(texel).into_iter().enumerate().take(4) {
            out[i] = c.bits;
        }
        if f.alpha_only() {
            out = [0, 0, 0, out[0]];
        }
        Ok(out)
    }

    /// Stores typed element `index`; dropped out of bounds.
    pub fn typed_store(&mut self, index: u32, value: [u32; 4]) -> Result<(), Fault> {
        let f = self
            .format
            .ok_or_else(|| Fault::Unsupported("typed access without a view format".into()))?;
        let bytes = f
            .encode_32bit(&value)
            .map_err(|_| Fault::Unsupported(format!("typed store to {}", f.name)))?;
        if index >= self.typed_count() {
            return Ok(());
        }
        let at = self.view_offset + index as usize * f.size as usize;
        if let Some(dst) = self.bytes.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(&bytes);
        }
        Ok(())
    }
}

/// One `g#` region of thread-group shared memory.
#[derive(Clone, Debug)]
pub struct Tgsm {
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl Tgsm {
    fn at(&self, addr: u64) -> Result<usize, Fault> {
        usize::try_from(addr)
            .ok()
            .filter(|a| a.checked_add(4).is_some_and(|e| e <= self.bytes.len()))
            .ok_or_else(|| {
                Fault::Unsupported("out-of-bounds TGSM access (undefined in D3D)".into())
            })
    }

    /// The word at byte `addr`.
    pub fn word(&self, addr: u64) -> Result<u32, Fault> {
        let at = self.at(addr)?;
        let b = &self.bytes[at..at + 4];
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Writes the word at byte `addr`.
    pub fn set_word(&mut self, addr: u64, value: u32) -> Result<(), Fault> {
        let at = self.at(addr)?;
        self.bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        Ok(())
    }
}

/// An atomic operation by the suffix of its mnemonic (`iadd`, `umax`, `exch`, `cmp_exch`, …):
/// the new value from the old one, the operand and (for compare-exchange) the comparand.
pub fn atomic_apply(op: &str, old: u32, value: u32, compare: u32) -> Option<u32> {
    Some(match op {
        "iadd" => old.wrapping_add(value),
        "and" => old & value,
        "or" => old | value,
        "xor" => old ^ value,
        "imax" => (old as i32).max(value as i32) as u32,
        "imin" => (old as i32).min(value as i32) as u32,
        "umax" => old.max(value),
        "umin" => old.min(value),
        "exch" => value,
        "cmp_exch" | "cmp_store" => {
            if old == compare {
                value
            } else {
                old
            }
        }
        _ => return None,
    })
}
