//! A bounded, zero-copy little-endian reader over DXBC bytes (the wasmparser `BinaryReader` model).
//!
//! Contract: every read is bounds-checked and returns a [`Result`]; errors carry the absolute byte
//! offset (`base + position`). Counts read from the input are checked against the bytes left with
//! [`Reader::check_count`] before anything is allocated for them.

use super::error::{DecodeError, DecodeErrorKind, Result};

/// The longest string (names, creator) accepted in reflection chunks; fxc's are under 100 bytes.
pub const MAX_STRING_LEN: usize = 1024;

/// A cursor over a byte slice whose first byte sits at absolute offset `base`.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    /// The unread tail of `data`: a read checks one length, and the position is derived.
    rest: &'a [u8],
    base: u32,
}

impl<'a> Reader<'a> {
    /// A reader over `data`, whose first byte is at absolute offset `base` in the input.
    pub fn new(data: &'a [u8], base: u32) -> Self {
        Self {
            data,
            rest: data,
            base,
        }
    }

    /// The whole slice this reader covers.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Absolute offset of the next byte to read.
    #[inline]
    pub fn offset(&self) -> u32 {
        self.base.wrapping_add(self.position() as u32)
    }

    /// Absolute offset of the first byte of this reader's slice.
    pub fn base(&self) -> u32 {
        self.base
    }

    /// Position relative to the start of this reader's slice.
    #[inline]
    pub fn position(&self) -> usize {
        self.data.len() - self.rest.len()
    }

    /// Bytes left to read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// An error of `kind` at the current offset.
    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(self.offset(), kind)
    }

    #[cold]
    #[inline(never)]
    fn eof(&self, needed: usize) -> DecodeError {
        self.error(DecodeErrorKind::UnexpectedEof {
            needed: needed as u64,
            available: self.remaining() as u64,
        })
    }

    /// Reads `n` bytes.
    #[inline]
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.rest.len() {
            return Err(self.eof(n));
        }
        let (bytes, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(bytes)
    }

    /// Reads a fixed-size byte array.
    #[inline]
    pub fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let Some((bytes, rest)) = self.rest.split_first_chunk::<N>() else {
            return Err(self.eof(N));
        };
        self.rest = rest;
        Ok(*bytes)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.read_bytes(n).map(|_| ())
    }

    /// Reads one byte.
    pub fn read_u8(&mut self) -> Result<u8> {
        Ok(self.read_array::<1>()?[0])
    }

    /// Reads a little-endian u16.
    pub fn read_u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.read_array()?))
    }

    /// Reads a little-endian u32.
    #[inline]
    pub fn read_u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.read_array()?))
    }

    /// Reads a little-endian f32.
    pub fn read_f32(&mut self) -> Result<f32> {
        Ok(f32::from_bits(self.read_u32()?))
    }

    /// Reads the next u32 without consuming it.
    pub fn peek_u32(&self) -> Result<u32> {
        let mut copy = *self;
        copy.read_u32()
    }

    /// Splits off the next `n` bytes as a reader of their own, and skips them here.
    #[inline]
    pub fn sub_reader(&mut self, n: usize) -> Result<Reader<'a>> {
        let offset = self.offset();
        let bytes = self.read_bytes(n)?;
        Ok(Reader::new(bytes, offset))
    }

    /// A reader over this reader's whole slice, positioned at `pos` (relative to the slice start).
    /// Used for structures that address their parts by offsets from a chunk's start.
    pub fn at(&self, pos: u32) -> Result<Reader<'a>> {
        let pos = pos as usize;
        let Some(rest) = self.data.get(pos..) else {
            return Err(DecodeError::new(
                self.base,
                DecodeErrorKind::LimitExceeded {
                    what: "offset",
                    value: pos as u64,
                    limit: self.data.len() as u64,
                },
            ));
        };
        Ok(Reader {
            data: self.data,
            rest,
            base: self.base,
        })
    }

    /// The nul-terminated UTF-8 string starting at `pos` (relative to the slice start), at most
    /// [`MAX_STRING_LEN`] bytes long, so that many references to one string cost linear time.
    pub fn cstr_at(&self, pos: u32) -> Result<&'a str> {
        let start = self.at(pos)?;
        let rest = start.rest;
        let window = &rest[..rest.len().min(MAX_STRING_LEN + 1)];
        let len = match window.iter().position(|&b| b == 0) {
            Some(len) => len,
            None if rest.len() > MAX_STRING_LEN => {
                return Err(start.error(DecodeErrorKind::LimitExceeded {
                    what: "string length",
                    value: rest.len() as u64,
                    limit: MAX_STRING_LEN as u64,
                }))
            }
            None => return Err(start.error(DecodeErrorKind::InvalidString)),
        };
        std::str::from_utf8(&rest[..len]).map_err(|_| start.error(DecodeErrorKind::InvalidString))
    }

    /// Reads a dword holding an offset into `table` and returns `table` positioned there; an
    /// offset outside `table` is reported at the field that holds it.
    pub fn table_ref(&mut self, table: &Reader<'a>) -> Result<Reader<'a>> {
        let field = self.offset();
        let pos = self.read_u32()?;
        table.at(pos).map_err(|e| e.at(field))
    }

    /// Reads a dword holding the offset of a string in `table` and returns the string; an offset
    /// outside `table` is reported at the field that holds it.
    pub fn string_ref(&mut self, table: &Reader<'a>) -> Result<&'a str> {
        let field = self.offset();
        let pos = self.read_u32()?;
        table.at(pos).map_err(|e| e.at(field))?;
        table.cstr_at(pos)
    }

    /// Checks that `count` items of at least `item_size` bytes each can fit in the bytes left,
    /// before anything is allocated for them.
    pub fn check_count(&self, what: &'static str, count: u32, item_size: usize) -> Result<usize> {
        let needed = (count as u64).saturating_mul(item_size as u64);
        if needed > self.remaining() as u64 {
            return Err(self.error(DecodeErrorKind::LimitExceeded {
                what,
                value: count as u64,
                limit: (self.remaining() / item_size.max(1)) as u64,
            }));
        }
        Ok(count as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_reports_offsets() {
        let bytes = [1, 0, 0, 0, 2, 0, b'h', b'i', 0];
        let mut r = Reader::new(&bytes, 0x100);
        assert_eq!(r.read_u32().unwrap(), 1);
        assert_eq!(r.read_u16().unwrap(), 2);
        assert_eq!(r.offset(), 0x106);
        assert_eq!(r.cstr_at(6).unwrap(), "hi");
        let err = r.read_u32().unwrap_err();
        assert_eq!(err.offset, 0x106);
        assert_eq!(
            err.kind,
            DecodeErrorKind::UnexpectedEof {
                needed: 4,
                available: 3
            }
        );
    }

    #[test]
    fn count_checked_before_allocation() {
        let bytes = [0u8; 8];
        let r = Reader::new(&bytes, 0);
        assert!(r.check_count("elements", 2, 4).is_ok());
        assert!(r.check_count("elements", u32::MAX, 4).is_err());
    }

    #[test]
    fn unterminated_string_is_an_error() {
        let bytes = [b'a', b'b'];
        let r = Reader::new(&bytes, 8);
        assert_eq!(r.cstr_at(0).unwrap_err().offset, 8);
        assert!(r.cstr_at(3).is_err());
    }
}
