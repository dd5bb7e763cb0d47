//! The caller's stream-output request as the D3D runtime declares it (the
//! `D3D11_SO_DECLARATION_ENTRY` list, buffer strides, rasterized stream), before a front end
//! resolves it against the shader's output signature into [`crate::ir::StreamOutput`].
//!
//! Contract: plain data, independent of any front end or back end; the facade re-exports
//! [`StreamOutputRequest`] as `dxbc2spv::StreamOutput` and [`StreamOutputRequestEntry`] as
//! `dxbc2spv::StreamOutputEntry`.

/// Stream output as the D3D runtime declares it (`D3D11_SO_DECLARATION_ENTRY` list, buffer
/// strides, rasterized stream): which output components are written to which transform-feedback
/// buffer. Byte offsets follow D3D: within one buffer, entries are packed in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamOutputRequest {
    /// The entries, in declaration order.
    pub entries: Vec<StreamOutputRequestEntry>,
    /// Byte stride of each of the four buffers (0: the packed size of its entries).
    pub strides: [u32; 4],
    /// The stream sent to the rasterizer (`None`: `D3D11_SO_NO_RASTERIZED_STREAM`).
    pub rasterized_stream: Option<u32>,
}

/// One `D3D11_SO_DECLARATION_ENTRY`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamOutputRequestEntry {
    /// The stream (0–3).
    pub stream: u32,
    /// Output semantic (`SV_Position`, `TEXCOORD`, case-insensitive); `None` is a gap of
    /// `component_count` components that only advances the offset.
    pub semantic_name: Option<String>,
    /// Semantic index.
    pub semantic_index: u32,
    /// First component written (0–3).
    pub start_component: u8,
    /// Components written (1–4).
    pub component_count: u8,
    /// Buffer (0–3).
    pub output_slot: u8,
}
