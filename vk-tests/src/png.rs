//! A minimal PNG writer (8-bit RGBA, uncompressed deflate blocks) for pictures of failed draws:
//! test images are tiny, so compression does not matter and no dependency is needed.

use std::path::Path;

use anyhow::{bail, Context, Result};

/// Writes `rgba` (`width * height * 4` bytes, rows top to bottom) as a PNG file at `path`.
pub fn write_rgba(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<()> {
    std::fs::write(path, encode_rgba(width, height, rgba)?)
        .with_context(|| format!("writing {}", path.display()))
}

/// The PNG file for `rgba` (`width * height * 4` bytes, rows top to bottom).
pub fn encode_rgba(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>> {
    let row = width as usize * 4;
    if width == 0 || height == 0 || rgba.len() != row * height as usize {
        bail!("{} bytes are not a {width}x{height} RGBA image", rgba.len());
    }
    // Each row starts with filter type 0 (none).
    let mut raw = Vec::with_capacity((row + 1) * height as usize);
    for r in rgba.chunks_exact(row) {
        raw.push(0);
        raw.extend_from_slice(r);
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    // Bit depth 8, color type 6 (RGBA), compression 0, filter 0, no interlace.
    ihdr.extend([8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    chunk(&mut out, b"IEND", &[]);
    Ok(out)
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend((data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend(kind);
    out.extend(data);
    let crc = crc32(&out[start..]);
    out.extend(crc.to_be_bytes());
}

/// A zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let mut blocks = data.chunks(0xffff).peekable();
    if blocks.peek().is_none() {
        out.extend([1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = block.len() as u16;
        out.extend(len.to_le_bytes());
        out.extend((!len).to_le_bytes());
        out.extend(block);
    }
    out.extend(adler32(data).to_be_bytes());
    out
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &d in data {
        a = (a + u32::from(d)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &d in data {
        crc ^= u32::from(d);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums() {
        assert_eq!(crc32(b"IEND"), 0xae42_6082);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    #[test]
    fn encodes_a_pixel() {
        let png = encode_rgba(1, 1, &[255, 0, 0, 255]).unwrap_or_else(|e| panic!("{e}"));
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR"));
        assert!(png.ends_with(&[0xae, 0x42, 0x60, 0x82]));
        assert!(encode_rgba(2, 1, &[0; 4]).is_err());
    }
}
