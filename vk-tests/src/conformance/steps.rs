//! `[[step]]` tables: several dispatches or draws of one case, in order, on the same resources.
//!
//! Each step may write new contents into buffers before it runs (`[[step.write]]`: fresh
//! constant-buffer values, say), change the dispatch size or the draw call, and check
//! expectations right after it (`[[step.expect]]`). Buffers, textures, UAV counters and render
//! targets persist from step to step: nothing is reset between steps, and the draws after the
//! first keep the targets' contents instead of clearing them. The case's top-level `[[expect]]`
//! blocks are checked after the last step. A case without steps runs its dispatch or draw once.

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

use super::case::BufferSpec;
use super::expect::{expectation, ExpectToml, Expectation, Targets};
use super::value::{parse_list, ScalarType};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StepToml {
    dispatch: Option<[u32; 3]>,
    vertex_count: Option<u32>,
    instance_count: Option<u32>,
    first_vertex: Option<u32>,
    first_instance: Option<u32>,
    #[serde(default)]
    write: Vec<WriteToml>,
    #[serde(default)]
    expect: Vec<ExpectToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteToml {
    buffer: String,
    offset: Option<u64>,
    #[serde(rename = "type")]
    ty: Option<ScalarType>,
    data: Vec<toml::Value>,
}

impl StepToml {
    /// True when the step has `[[step.expect]]` blocks.
    pub(super) fn has_expectations(&self) -> bool {
        !self.expect.is_empty()
    }
}

/// Bytes written into a case buffer before a step runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferWrite {
    /// `Case::buffers[buffer]`.
    pub buffer: usize,
    /// Byte offset in the buffer.
    pub offset: u64,
    /// What is written there.
    pub bytes: Vec<u8>,
}

/// Changes a step makes to the case's draw call (graphics cases); `None` keeps the case's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawChange {
    /// Vertices (or indices).
    pub vertex_count: Option<u32>,
    /// Instances.
    pub instance_count: Option<u32>,
    /// First vertex (or index).
    pub first_vertex: Option<u32>,
    /// First instance.
    pub first_instance: Option<u32>,
}

/// One dispatch or draw of a case with several.
#[derive(Clone, Debug)]
pub struct Step {
    /// Workgroup counts (compute cases); `None`: the case's `dispatch`.
    pub dispatch: Option<[u32; 3]>,
    /// Changes to the draw call (graphics cases).
    pub draw: DrawChange,
    /// Buffer writes before the step runs, in file order.
    pub writes: Vec<BufferWrite>,
    /// Checked right after the step.
    pub expectations: Vec<Expectation>,
}

/// Checks the `[[step]]` tables of a compute (`graphics` false) or graphics case.
pub(super) fn steps(raw: Vec<StepToml>, graphics: bool, t: &Targets<'_>) -> Result<Vec<Step>> {
    raw.into_iter()
        .enumerate()
        .map(|(i, s)| step(s, graphics, t).with_context(|| format!("step {}", i + 1)))
        .collect()
}

fn step(s: StepToml, graphics: bool, t: &Targets<'_>) -> Result<Step> {
    let draw = DrawChange {
        vertex_count: s.vertex_count,
        instance_count: s.instance_count,
        first_vertex: s.first_vertex,
        first_instance: s.first_instance,
    };
    if graphics && s.dispatch.is_some() {
        bail!("dispatch belongs to compute cases; a graphics step changes the draw call");
    }
    if !graphics && draw != DrawChange::default() {
        bail!("vertex_count, instance_count, first_vertex and first_instance belong to draws");
    }
    if let Some(d) = s.dispatch.filter(|d| d.contains(&0)) {
        bail!("dispatch {d:?}: every count must be at least 1");
    }
    if draw.vertex_count == Some(0) || draw.instance_count == Some(0) {
        bail!("vertex_count and instance_count must be at least 1");
    }
    let writes = s
        .write
        .into_iter()
        .enumerate()
        .map(|(i, w)| buffer_write(w, t.buffers).with_context(|| format!("write {}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    let expectations = s
        .expect
        .into_iter()
        .enumerate()
        .map(|(i, e)| expectation(e, t).with_context(|| format!("expect block {}", i + 1)))
        .collect::<Result<Vec<_>>>()?;
    Ok(Step {
        dispatch: s.dispatch,
        draw,
        writes,
        expectations,
    })
}

fn buffer_write(w: WriteToml, buffers: &[BufferSpec]) -> Result<BufferWrite> {
    let index = buffers
        .iter()
        .position(|b| b.name == w.buffer || b.register.to_string() == w.buffer)
        .ok_or_else(|| anyhow!("no buffer named {:?}", w.buffer))?;
    let mut bytes = Vec::new();
    for e in parse_list(&w.data, w.ty.unwrap_or(ScalarType::U32)).context("data")? {
        bytes.extend(e.to_bytes()?);
    }
    if bytes.is_empty() {
        bail!("data is empty");
    }
    let offset = w.offset.unwrap_or(0);
    let size = buffers[index].contents.len() as u64;
    if !offset.is_multiple_of(4) || offset + bytes.len() as u64 > size {
        bail!(
            "bytes {offset}..{} are not 4-byte aligned inside the {size}-byte buffer {}",
            offset + bytes.len() as u64,
            w.buffer
        );
    }
    Ok(BufferWrite {
        buffer: index,
        offset,
        bytes,
    })
}
