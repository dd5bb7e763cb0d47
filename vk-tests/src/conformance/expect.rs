//! `[[expect]]` tables: what must hold after the dispatch or draw, and the comparisons.
//!
//! Three kinds: buffer contents (case buffers, UAV counters, stream-output buffers `so0`..`so3`;
//! values at fixed offsets, or unordered records, see [`super::records`]), texels of images
//! (render targets, depth, stencil, textures), and transform feedback primitive counts.

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use super::case::BufferSpec;
use super::draw::DrawSpec;
use super::records::{record_check, RecordCheck, RecordKeys};
use super::textures::TextureSpec;
use super::value::{
    format_bits, format_expected, matches, parse_list, Element, Pattern, ScalarType, Tolerance,
};
use crate::format::{ChannelValue, ShaderType};

#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExpectToml {
    buffer: Option<String>,
    target: Option<toml::Value>,
    texture: Option<String>,
    stream: Option<u32>,
    primitives_written: Option<u64>,
    primitives_needed: Option<u64>,
    #[serde(rename = "type")]
    ty: Option<ScalarType>,
    offset: Option<u64>,
    values: Option<Vec<toml::Value>>,
    one_of: Option<Vec<Vec<toml::Value>>>,
    ulp: Option<u64>,
    abs: Option<f64>,
    counter: Option<u32>,
    count_offset: Option<u64>,
    record: Option<usize>,
    types: Option<Vec<ScalarType>>,
    distinct: Option<bool>,
    records: Option<Vec<Vec<toml::Value>>>,
    record_count: Option<u64>,
    pixel: Option<Vec<u32>>,
    all: Option<Vec<toml::Value>>,
    pixels: Option<Vec<Vec<toml::Value>>>,
    rect: Option<[u32; 4]>,
    layer: Option<u32>,
    mip: Option<u32>,
    sample: Option<u32>,
}

/// A buffer an expectation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferRef {
    /// `Case::buffers[i]`.
    Case(usize),
    /// The stream-output buffer at this slot (`so<slot>`).
    StreamOut(u32),
}

/// What a buffer expectation checks.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// Consecutive elements from byte `offset`.
    Values {
        /// Byte offset of the first element.
        offset: u64,
        /// The expected elements.
        elements: Vec<Element>,
        /// Tolerance for float elements.
        tolerance: Tolerance,
    },
    /// The final value of the buffer's UAV counter.
    Counter(u32),
    /// Records appended in any order, with a record count.
    Records(RecordCheck),
}

/// An image an expectation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageRef {
    /// The render target at this slot.
    Target(u32),
    /// The depth aspect of the depth target.
    Depth,
    /// The stencil aspect of the depth target.
    Stencil,
    /// `Case::textures[i]`.
    Texture(usize),
}

/// Texels that must hold given values.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageCheck {
    /// The image.
    pub image: ImageRef,
    /// What messages call it (`target 0`, `depth`, a texture's name).
    pub name: String,
    /// Mip level.
    pub mip: u32,
    /// Array layer (for 3-D textures: the slice).
    pub layer: u32,
    /// One sample (`None`: every sample must hold the values).
    pub sample: Option<u32>,
    /// `[x, y, width, height]`.
    pub rect: [u32; 4],
    /// Per-channel values: one list for every pixel of `rect`, or one list per pixel (row-major).
    pub values: Vec<Vec<Element>>,
    /// Tolerance for float channels.
    pub tolerance: Tolerance,
}

/// One expectation.
#[derive(Clone, Debug, PartialEq)]
pub enum Expectation {
    /// Buffer contents or a UAV counter.
    Buffer {
        /// The buffer.
        buffer: BufferRef,
        /// The check.
        check: Check,
    },
    /// Texels of an image.
    Image(ImageCheck),
    /// Transform feedback primitive counts of a stream (`VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT`).
    Primitives {
        /// The stream.
        stream: u32,
        /// Primitives written to the buffers.
        written: Option<u64>,
        /// Primitives that would have been written with enough room.
        needed: Option<u64>,
    },
    /// `one_of`: at least one of these (each a buffer `values` or an image `pixel` check) holds.
    /// For results D3D leaves order-dependent or implementation-defined.
    OneOf(Vec<Expectation>),
}

/// What expectations can refer to.
pub(super) struct Targets<'a> {
    pub(super) buffers: &'a [BufferSpec],
    pub(super) draw: Option<&'a DrawSpec>,
    pub(super) textures: &'a [TextureSpec],
}

fn tolerance(ulp: Option<u64>, abs: Option<f64>) -> Result<Tolerance> {
    let abs = abs.unwrap_or(0.0);
    if !(abs >= 0.0 && abs.is_finite()) {
        bail!("abs must be a finite number ≥ 0");
    }
    Ok(Tolerance {
        ulp: ulp.unwrap_or(0),
        abs,
    })
}

pub(super) fn expectation(mut e: ExpectToml, t: &Targets<'_>) -> Result<Expectation> {
    if let Some(alternatives) = e.one_of.take() {
        if e.values.is_some() {
            bail!("give values or one_of, not both");
        }
        if alternatives.len() < 2 {
            bail!("one_of lists the accepted value lists: give at least two");
        }
        let values_check = e.buffer.is_some() || e.pixel.is_some();
        if !values_check || e.counter.is_some() || record_keys(&e)?.any() {
            bail!("one_of replaces values: it goes with a buffer's values or an image's pixel");
        }
        return alternatives
            .into_iter()
            .enumerate()
            .map(|(i, values)| {
                let mut alt = e.clone();
                alt.values = Some(values);
                expectation(alt, t).with_context(|| format!("one_of[{i}]"))
            })
            .collect::<Result<Vec<_>>>()
            .map(Expectation::OneOf);
    }
    let kinds = [
        e.buffer.is_some(),
        e.target.is_some(),
        e.texture.is_some(),
        e.stream.is_some(),
    ];
    match kinds.iter().filter(|&&k| k).count() {
        1 => {}
        0 => bail!("say what to check: buffer, target, texture or stream"),
        _ => bail!("give only one of buffer, target, texture and stream"),
    }
    let image_keys = e.pixel.is_some()
        || e.all.is_some()
        || e.pixels.is_some()
        || e.rect.is_some()
        || e.layer.is_some()
        || e.mip.is_some()
        || e.sample.is_some();
    if e.buffer.is_none() && record_keys(&e)?.any() {
        bail!("count_offset, record, types, distinct, records and record_count apply to buffers");
    }
    if let Some(stream) = e.stream {
        if image_keys || e.values.is_some() || e.counter.is_some() || e.ty.is_some() {
            bail!("a stream expectation takes primitives_written and primitives_needed only");
        }
        if e.primitives_written.is_none() && e.primitives_needed.is_none() {
            bail!("give primitives_written and/or primitives_needed");
        }
        if stream >= 4 || t.draw.is_none_or(|d| d.so_buffers.is_empty()) {
            bail!(
                "stream {stream}: primitive counts need [[so_buffer]] tables and a stream 0 to 3"
            );
        }
        return Ok(Expectation::Primitives {
            stream,
            written: e.primitives_written,
            needed: e.primitives_needed,
        });
    }
    if e.primitives_written.is_some() || e.primitives_needed.is_some() {
        bail!("primitives_written and primitives_needed go with stream");
    }
    if let Some(name) = e.buffer.clone() {
        if image_keys {
            bail!("pixel, all, pixels, rect, layer, mip and sample apply to images");
        }
        return buffer_expectation(&name, e, t);
    }
    image_expectation(e, t)
}

/// The record-expectation keys of `e` (see [`super::records`]).
fn record_keys(e: &ExpectToml) -> Result<RecordKeys<'_>> {
    Ok(RecordKeys {
        count_offset: e.count_offset,
        offset: e.offset,
        record: e.record,
        ty: e.ty,
        types: e.types.as_deref(),
        distinct: e.distinct,
        records: e.records.as_deref(),
        record_count: e.record_count,
        tolerance: tolerance(e.ulp, e.abs)?,
    })
}

fn buffer_expectation(name: &str, e: ExpectToml, t: &Targets<'_>) -> Result<Expectation> {
    let so_slot = name
        .strip_prefix("so")
        .and_then(|d| d.parse::<u32>().ok())
        .filter(|_| t.buffers.iter().all(|b| b.name != name));
    let (buffer, size, has_counter) = match so_slot {
        Some(slot) => {
            let b = t
                .draw
                .and_then(|d| d.so_buffers.iter().find(|b| b.slot == slot))
                .ok_or_else(|| anyhow!("no [[so_buffer]] at slot {slot}"))?;
            (BufferRef::StreamOut(slot), b.contents.len() as u64, false)
        }
        None => {
            let index = t
                .buffers
                .iter()
                .position(|b| b.name == name || b.register.to_string() == name)
                .ok_or_else(|| anyhow!("no buffer named {name:?}"))?;
            let b = &t.buffers[index];
            (
                BufferRef::Case(index),
                b.contents.len() as u64,
                b.counter.is_some(),
            )
        }
    };
    let keys = record_keys(&e)?;
    if keys.wanted() {
        if e.values.is_some() || e.counter.is_some() {
            bail!("give one of values, counter, records or record_count");
        }
        let check = Check::Records(record_check(keys, size)?);
        return Ok(Expectation::Buffer { buffer, check });
    }
    if keys.any() {
        bail!("count_offset, record, types and distinct go with records or record_count");
    }
    let check = match (e.values, e.counter) {
        (Some(_), Some(_)) | (None, None) => {
            bail!("give one of values, counter, records or record_count")
        }
        (None, Some(n)) => {
            if !has_counter {
                bail!("the buffer has no counter");
            }
            if e.ty.is_some() || e.offset.is_some() || e.ulp.is_some() || e.abs.is_some() {
                bail!("type, offset, ulp and abs do not apply to a counter");
            }
            Check::Counter(n)
        }
        (Some(values), None) => {
            let ty = e.ty.unwrap_or(ScalarType::U32);
            let elements = parse_list(&values, ty).context("values")?;
            if elements.is_empty() {
                bail!("values is empty");
            }
            let offset = e.offset.unwrap_or(0);
            if !offset.is_multiple_of(4) {
                bail!("offset {offset} is not a multiple of 4");
            }
            let len: u64 = elements.iter().map(|el| el.ty.size() as u64).sum();
            if offset + len > size {
                bail!(
                    "bytes {offset}..{} are outside the {size}-byte buffer",
                    offset + len
                );
            }
            let tolerance = tolerance(e.ulp, e.abs)?;
            if !tolerance.is_exact() && !elements.iter().any(|el| el.ty.is_float()) {
                bail!("ulp/abs apply to f32/f64 values, and there are none");
            }
            Check::Values {
                offset,
                elements,
                tolerance,
            }
        }
    };
    Ok(Expectation::Buffer { buffer, check })
}

/// The image an image expectation names, with its size at mip 0, layers, samples, channels and
/// the default element type of its values.
struct ImageFacts {
    image: ImageRef,
    name: String,
    size: [u32; 3],
    layers: u32,
    mips: u32,
    samples: u32,
    channels: usize,
    ty: ScalarType,
}

fn image_facts(e: &ExpectToml, t: &Targets<'_>) -> Result<ImageFacts> {
    let element_type = |s: ShaderType| match s {
        ShaderType::Float => ScalarType::F32,
        ShaderType::Uint => ScalarType::U32,
        ShaderType::Sint => ScalarType::I32,
    };
    if let Some(name) = &e.texture {
        let index = t
            .textures
            .iter()
            .position(|x| x.name == *name || x.register.to_string() == *name)
            .ok_or_else(|| anyhow!("no texture named {name:?}"))?;
        let x = &t.textures[index];
        return Ok(ImageFacts {
            image: ImageRef::Texture(index),
            name: x.name.clone(),
            size: [x.width, x.height, x.depth],
            layers: x.layers.max(x.depth),
            mips: x.mips,
            samples: x.samples,
            channels: x.format.channels(),
            ty: element_type(x.format.shader_type()),
        });
    }
    let d = t
        .draw
        .ok_or_else(|| anyhow!("target expectations need a [draw]"))?;
    let target = e.target.as_ref().ok_or_else(|| anyhow!("no target"))?;
    let (image, name, channels, ty) = match target {
        toml::Value::Integer(n) => {
            let slot = u32::try_from(*n).map_err(|_| anyhow!("bad target {n}"))?;
            let spec = d
                .target(slot)
                .ok_or_else(|| anyhow!("no [[render_target]] at slot {slot}"))?;
            (
                ImageRef::Target(slot),
                format!("target {slot}"),
                spec.format.channels(),
                element_type(spec.format.shader_type()),
            )
        }
        toml::Value::String(s) if s == "depth" || s == "stencil" => {
            let depth = d
                .depth
                .ok_or_else(|| anyhow!("target = {s:?} needs [depth]"))?;
            if s == "stencil" {
                if !depth.format.stencil {
                    bail!("{} has no stencil", depth.format.name);
                }
                (ImageRef::Stencil, "stencil".to_owned(), 1, ScalarType::U32)
            } else {
                (ImageRef::Depth, "depth".to_owned(), 1, ScalarType::F32)
            }
        }
        other => bail!("target is a render target slot, \"depth\" or \"stencil\", not {other:?}"),
    };
    Ok(ImageFacts {
        image,
        name,
        size: [d.width, d.height, 1],
        layers: d.layers,
        mips: 1,
        samples: d.samples,
        channels,
        ty,
    })
}

fn image_expectation(e: ExpectToml, t: &Targets<'_>) -> Result<Expectation> {
    let f = image_facts(&e, t)?;
    if e.counter.is_some() || e.offset.is_some() {
        bail!("counter and offset apply to buffers");
    }
    let mip = e.mip.unwrap_or(0);
    if mip >= f.mips {
        bail!("mip {mip}: {} has {} mip levels", f.name, f.mips);
    }
    let [w, h, d] = f.size.map(|s| (s >> mip).max(1));
    let mut layer = e.layer.unwrap_or(0);
    let mut rect = e.rect.unwrap_or([0, 0, w, h]);
    let ty = e.ty.unwrap_or(f.ty);
    if ty.size() != 4 {
        bail!("texel channels are 32-bit values: type is f32, u32 or i32");
    }
    let parse = |v: &[toml::Value]| -> Result<Vec<Element>> {
        let el = parse_list(v, ty)?;
        if el.len() != f.channels {
            bail!("{} values for {} channels", el.len(), f.channels);
        }
        if el.iter().any(|x| x.ty.size() != 4) {
            bail!("texel channels are 32-bit values");
        }
        Ok(el)
    };
    let values = match (&e.pixel, &e.values, &e.all, &e.pixels) {
        (Some(p), Some(v), None, None) => {
            if e.rect.is_some() {
                bail!("pixel and rect exclude each other");
            }
            match p.as_slice() {
                [x, y] => rect = [*x, *y, 1, 1],
                [x, y, z] if d > 1 => {
                    rect = [*x, *y, 1, 1];
                    if e.layer.is_some() {
                        bail!("a 3-D pixel [x, y, z] has its slice; drop layer");
                    }
                    layer = *z;
                }
                _ => bail!("pixel is [x, y] ([x, y, z] for 3-D textures)"),
            }
            vec![parse(v).context("values")?]
        }
        (None, None, Some(all), None) => vec![parse(all).context("all")?],
        (None, None, None, Some(rows)) => {
            let n = u64::from(rect[2]) * u64::from(rect[3]);
            if rows.len() as u64 != n {
                bail!(
                    "pixels lists {} pixels; the {}x{} rectangle has {n}",
                    rows.len(),
                    rect[2],
                    rect[3]
                );
            }
            rows.iter()
                .enumerate()
                .map(|(i, r)| parse(r).with_context(|| format!("pixels[{i}]")))
                .collect::<Result<_>>()?
        }
        _ => bail!("give pixel with values, or all, or pixels"),
    };
    let layers = if d > 1 { d } else { f.layers };
    if layer >= layers {
        bail!("layer {layer}: {} has {layers}", f.name);
    }
    let [x, y, rw, rh] = rect;
    if rw == 0
        || rh == 0
        || u64::from(x) + u64::from(rw) > u64::from(w)
        || u64::from(y) + u64::from(rh) > u64::from(h)
    {
        bail!(
            "pixels {x},{y} to {},{} are outside the {w}x{h} image",
            u64::from(x) + u64::from(rw),
            u64::from(y) + u64::from(rh)
        );
    }
    if let Some(s) = e.sample {
        if s >= f.samples {
            bail!("sample {s}: {} has {} samples", f.name, f.samples);
        }
    }
    let tolerance = tolerance(e.ulp, e.abs)?;
    if !tolerance.is_exact() && !values.iter().flatten().any(|el| el.ty.is_float()) {
        bail!("ulp/abs apply to f32 values, and there are none");
    }
    Ok(Expectation::Image(ImageCheck {
        image: f.image,
        name: f.name,
        mip,
        layer,
        sample: e.sample,
        rect,
        values,
        tolerance,
    }))
}

/// The texels of one subresource as read back: `width` × `height` pixels, `samples` per pixel,
/// each a list of channel values, in row-major order with the samples of a pixel together.
pub struct ReadImage {
    /// Width of the subresource.
    pub width: u32,
    /// Samples per pixel.
    pub samples: u32,
    /// `texels[(y * width + x) * samples + s]`.
    pub texels: Vec<Vec<ChannelValue>>,
}

/// Appends a message for every element of `check` that `bytes` does not satisfy; `name` is the
/// buffer's name in messages.
pub fn compare_buffer(name: &str, check: &Check, bytes: &[u8], out: &mut Vec<String>) {
    match check {
        Check::Records(records) => super::records::compare_records(name, records, bytes, out),
        Check::Counter(want) => {
            let got = bytes
                .get(..4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            if got != Some(*want) {
                out.push(format!(
                    "counter of {name} = {} expected {want}",
                    got.map_or("?".to_owned(), |g| g.to_string())
                ));
            }
        }
        Check::Values {
            offset,
            elements,
            tolerance,
        } => {
            let mut at = *offset as usize;
            for &el in elements {
                let size = el.ty.size();
                let Some(bytes) = bytes.get(at..at + size) else {
                    out.push(format!("buffer {name}[{}] is past the end", at / 4));
                    return;
                };
                let mut word = [0u8; 8];
                word[..size].copy_from_slice(bytes);
                let got = u64::from_le_bytes(word);
                if !matches(el, got, *tolerance) {
                    out.push(format!(
                        "buffer {name}[{}] = {} expected {}",
                        at / 4,
                        format_bits(el.ty, got),
                        format_expected(el, *tolerance)
                    ));
                }
                at += size;
            }
        }
    }
}

/// Appends a message for every pixel (and sample) of `check` that `image` does not satisfy.
pub fn compare_image(check: &ImageCheck, image: &ReadImage, out: &mut Vec<String>) {
    let [x0, y0, w, h] = check.rect;
    let samples: Vec<u32> = match check.sample {
        Some(s) => vec![s],
        None => (0..image.samples).collect(),
    };
    for (i, (y, x)) in (y0..y0 + h)
        .flat_map(|y| (x0..x0 + w).map(move |x| (y, x)))
        .enumerate()
    {
        let want = if check.values.len() == 1 {
            &check.values[0]
        } else {
            &check.values[i]
        };
        for &s in &samples {
            let index = ((y as usize * image.width as usize + x as usize) * image.samples as usize)
                + s as usize;
            let Some(got) = image.texels.get(index) else {
                out.push(format!("{} pixel ({x}, {y}) was not read back", check.name));
                return;
            };
            let ok = want
                .iter()
                .zip(got)
                .all(|(&el, c)| matches(el, u64::from(c.bits), check.tolerance));
            if !ok {
                let sample = if image.samples > 1 {
                    format!(" sample {s}")
                } else {
                    String::new()
                };
                let at = if check.layer > 0 || check.mip > 0 {
                    format!(" (layer {}, mip {})", check.layer, check.mip)
                } else {
                    String::new()
                };
                let got: Vec<String> = want
                    .iter()
                    .zip(got)
                    .map(|(el, c)| format_channel(el.ty, c.bits))
                    .collect();
                let want: Vec<String> = want.iter().map(|&el| format_want(el)).collect();
                let tol = check.tolerance.suffix();
                out.push(format!(
                    "{} pixel ({x}, {y}){sample}{at} = [{}] expected [{}]{tol}",
                    check.name,
                    got.join(", "),
                    want.join(", ")
                ));
            }
        }
    }
}

/// An expected channel for messages, spelled like [`format_channel`].
fn format_want(el: Element) -> String {
    match el.pattern {
        Pattern::Bits(bits) => format_channel(el.ty, bits as u32),
        Pattern::Nan => "NaN".to_owned(),
        Pattern::Any => "*".to_owned(),
    }
}

/// One channel for messages: floats by value (with bits), integers in decimal (large unsigned
/// ones, such as sentinels, in hex).
fn format_channel(ty: ScalarType, bits: u32) -> String {
    match ty {
        ScalarType::U32 if bits >= 0x10000 => format!("0x{bits:08x}"),
        ScalarType::U32 => bits.to_string(),
        ScalarType::I32 => (bits as i32).to_string(),
        _ => format_bits(ty, u64::from(bits)),
    }
}
