//! Tests of the `RTS0` parser: hand-built chunks of each version and parameter type, malformed
//! input, every root signature in the corpus, and seeded mutations of them.

use super::*;
use crate::front::dxbc::container::{Container, FourCc, ParseOptions};
use crate::test_support;

/// Base offset of the hand-built chunks (as if after a one-chunk container's headers).
const BASE: u32 = 0x2c;

/// vkd3d's `descriptor_table_rootsig` (version 1.0): one table of a CBV range (b1, space 7),
/// eight SRVs from t16 and an unbounded UAV range from u3 at descriptor 44.
#[rustfmt::skip]
const VKD3D_TABLE_1_0: [u32; 26] = [
    1, 1, 0x18, 0, 0x68, 0, // header: version 1.0, 1 parameter at 0x18, no samplers
    0, 0, 0x24, // parameter: table, all stages
    3, 0x2c, // table: 3 ranges
    2, 1, 1, 7, u32::MAX, // CBV
    0, 8, 0x10, 0, u32::MAX, // SRV
    1, u32::MAX, 3, 0, 0x2c, // UAV, unbounded
];

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Serializes `rs` in the order D3D12's serializer uses: header, parameter entries, each
/// parameter's payload (a table's header, then its ranges), static samplers; an empty list's
/// offset is where it would have started. Stored offsets in `rs` are ignored.
fn serialize(rs: &RootSignature) -> Vec<u8> {
    let v = rs.version;
    let mut out = vec![0u32; 6];
    out[0] = v.raw();
    out[1] = rs.parameters.len() as u32;
    out[2] = 24;
    out[5] = rs.flags.0;
    let entries = out.len();
    out.resize(entries + 3 * rs.parameters.len(), 0);
    for (i, p) in rs.parameters.iter().enumerate() {
        let e = entries + 3 * i;
        out[e] = p.kind.raw();
        out[e + 1] = p.visibility.raw();
        out[e + 2] = 4 * out.len() as u32;
        match &p.kind {
            ParameterKind::DescriptorTable(t) => {
                out.push(t.ranges.len() as u32);
                out.push(4 * out.len() as u32 + 4);
                for r in &t.ranges {
                    out.extend([r.range_type.raw(), r.count, r.base_register, r.space]);
                    if v.has_descriptor_flags() {
                        out.push(r.flags.unwrap_or_default().0);
                    }
                    out.push(r.table_offset);
                }
            }
            ParameterKind::Constants(c) => out.extend([c.register, c.space, c.count]),
            ParameterKind::Cbv(d) | ParameterKind::Srv(d) | ParameterKind::Uav(d) => {
                out.extend([d.register, d.space]);
                if v.has_descriptor_flags() {
                    out.push(d.flags.unwrap_or_default().0);
                }
            }
        }
    }
    out[3] = rs.static_samplers.len() as u32;
    out[4] = 4 * out.len() as u32;
    for s in &rs.static_samplers {
        out.extend([
            s.filter.0,
            s.address_u.raw(),
            s.address_v.raw(),
            s.address_w.raw(),
            s.mip_lod_bias.to_bits(),
            s.max_anisotropy,
            s.comparison_func.raw(),
            s.border_color.raw(),
            s.min_lod.to_bits(),
            s.max_lod.to_bits(),
            s.register,
            s.space,
            s.visibility.raw(),
        ]);
        if v == Version::V1_2 {
            out.push(s.flags.unwrap_or_default().0);
        }
    }
    words(&out)
}

fn parse(bytes: &[u8]) -> Result<RootSignature> {
    RootSignature::parse_bytes(bytes, BASE)
}

fn range(range_type: RangeType, count: u32, base: u32, space: u32) -> DescriptorRange {
    DescriptorRange {
        offset: 0,
        range_type,
        count,
        base_register: base,
        space,
        flags: None,
        table_offset: DescriptorRange::APPEND,
    }
}

fn param(visibility: ShaderVisibility, kind: ParameterKind) -> RootParameter {
    RootParameter {
        offset: 0,
        visibility,
        kind,
    }
}

fn descriptor(register: u32, space: u32, flags: Option<u32>) -> RootDescriptor {
    RootDescriptor {
        offset: 0,
        register,
        space,
        flags: flags.map(RootDescriptorFlags),
    }
}

fn sampler(register: u32, flags: Option<u32>) -> StaticSampler {
    StaticSampler {
        offset: 0,
        filter: Filter(0x55),
        address_u: AddressMode::Wrap,
        address_v: AddressMode::Clamp,
        address_w: AddressMode::Border,
        mip_lod_bias: -0.5,
        max_anisotropy: 16,
        comparison_func: ComparisonFunc::LessEqual,
        border_color: BorderColor::OpaqueWhite,
        min_lod: 1.0,
        max_lod: f32::MAX,
        register,
        space: 2,
        visibility: ShaderVisibility::Pixel,
        flags: flags.map(SamplerFlags),
    }
}

/// A root signature of every parameter type, ranges of every type, and two samplers.
fn sample(version: Version) -> RootSignature {
    let flagged = version.has_descriptor_flags();
    let mut ranges = vec![
        range(RangeType::Srv, 2, 0, 0),
        range(RangeType::Uav, DescriptorRange::UNBOUNDED, 1, 3),
        range(RangeType::Cbv, 1, 4, 0),
    ];
    ranges[2].table_offset = 10;
    if flagged {
        for (r, f) in ranges.iter_mut().zip([0x1, 0x10002, 0x8]) {
            r.flags = Some(DescriptorRangeFlags(f));
        }
    }
    let mut samplers = vec![range(RangeType::Sampler, 4, 0, 1)];
    if flagged {
        samplers[0].flags = Some(DescriptorRangeFlags(0));
    }
    let root_flags = flagged.then_some(0x4);
    RootSignature {
        version,
        flags: RootSignatureFlags(0x41),
        parameters: vec![
            param(
                ShaderVisibility::Pixel,
                ParameterKind::DescriptorTable(DescriptorTable { offset: 0, ranges }),
            ),
            param(
                ShaderVisibility::All,
                ParameterKind::Constants(RootConstants {
                    offset: 0,
                    register: 0,
                    space: 0,
                    count: 4,
                }),
            ),
            param(
                ShaderVisibility::Vertex,
                ParameterKind::Cbv(descriptor(1, 0, root_flags)),
            ),
            param(
                ShaderVisibility::All,
                ParameterKind::Srv(descriptor(5, 1, root_flags)),
            ),
            param(
                ShaderVisibility::Unknown(9),
                ParameterKind::Uav(descriptor(2, 0, root_flags)),
            ),
            param(
                ShaderVisibility::Pixel,
                ParameterKind::DescriptorTable(DescriptorTable {
                    offset: 0,
                    ranges: samplers,
                }),
            ),
        ],
        static_samplers: vec![
            sampler(0, (version == Version::V1_2).then_some(0x1)),
            sampler(7, (version == Version::V1_2).then_some(0)),
        ],
    }
}

/// `rs` with every stored offset set to 0, to compare with a hand-built description.
fn without_offsets(mut rs: RootSignature) -> RootSignature {
    for p in &mut rs.parameters {
        p.offset = 0;
        match &mut p.kind {
            ParameterKind::DescriptorTable(t) => {
                t.offset = 0;
                for r in &mut t.ranges {
                    r.offset = 0;
                }
            }
            ParameterKind::Constants(c) => c.offset = 0,
            ParameterKind::Cbv(d) | ParameterKind::Srv(d) | ParameterKind::Uav(d) => d.offset = 0,
        }
    }
    for s in &mut rs.static_samplers {
        s.offset = 0;
    }
    rs
}

#[test]
fn rts0_parses_vkd3d_version_1_0_table() {
    let bytes = words(&VKD3D_TABLE_1_0);
    let rs = parse(&bytes).unwrap();
    assert_eq!(rs.version, Version::V1_0);
    assert_eq!(rs.flags, RootSignatureFlags(0));
    assert!(rs.static_samplers.is_empty());
    let [p] = &rs.parameters[..] else {
        panic!("{rs:?}");
    };
    assert_eq!(p.offset, BASE + 0x18);
    assert_eq!(p.visibility, ShaderVisibility::All);
    let ParameterKind::DescriptorTable(t) = &p.kind else {
        panic!("{p:?}");
    };
    assert_eq!(t.offset, BASE + 0x24);
    let r = &t.ranges;
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].offset, BASE + 0x2c);
    assert_eq!(r[0].range_type, RangeType::Cbv);
    assert_eq!((r[0].count, r[0].base_register, r[0].space), (1, 1, 7));
    assert!(r[0].is_append() && !r[0].is_unbounded());
    assert_eq!(r[0].flags, None);
    assert_eq!(r[1].range_type, RangeType::Srv);
    assert_eq!((r[1].count, r[1].base_register), (8, 16));
    assert_eq!(r[2].range_type, RangeType::Uav);
    assert!(r[2].is_unbounded() && !r[2].is_append());
    assert_eq!((r[2].base_register, r[2].table_offset), (3, 44));
    assert_eq!(r[2].offset, BASE + 0x2c + 40);
    assert_eq!(rs.range_count(), 3);
    assert_eq!(serialize(&rs), bytes);
}

#[test]
fn rts0_round_trips_every_parameter_type_in_each_version() {
    for version in [Version::V1_0, Version::V1_1, Version::V1_2] {
        let rs = sample(version);
        let bytes = serialize(&rs);
        let parsed = parse(&bytes).unwrap_or_else(|e| panic!("{version}: {e}"));
        assert_eq!(without_offsets(parsed.clone()), rs, "{version}");
        assert_eq!(serialize(&parsed), bytes);
        // Offsets are absolute and point at what they describe.
        assert_eq!(parsed.parameters[0].offset, BASE + 24);
        assert_eq!(parsed.parameters[1].offset, BASE + 36);
        let ParameterKind::Constants(c) = parsed.parameters[1].kind else {
            panic!();
        };
        let at = (c.offset - BASE) as usize;
        assert_eq!(bytes[at..at + 12], words(&[0, 0, 4])[..]);
        let s = &parsed.static_samplers[1];
        let at = (s.offset - BASE) as usize + 40;
        assert_eq!(bytes[at..at + 4], 7u32.to_le_bytes());
    }
}

#[test]
fn rts0_version_sizes_and_names() {
    assert_eq!(Version::from_raw(2), Some(Version::V1_1));
    assert_eq!(Version::from_raw(0), None);
    assert_eq!(Version::V1_2.to_string(), "1.2");
    assert_eq!(
        (Version::V1_0.range_size(), Version::V1_1.range_size()),
        (20, 24)
    );
    assert_eq!(Version::V1_0.root_descriptor_size(), 8);
    assert_eq!(
        (
            Version::V1_1.static_sampler_size(),
            Version::V1_2.static_sampler_size()
        ),
        (52, 56)
    );
    assert_eq!(ShaderVisibility::from_raw(5).short_name(), Some("ps"));
    assert_eq!(ShaderVisibility::from_raw(8), ShaderVisibility::Unknown(8));
    assert_eq!(RangeType::from_raw(3).register_letter(), Some('s'));
    assert_eq!(AddressMode::from_raw(5).d3d12_name(), Some("MIRROR_ONCE"));
    let flags = RootSignatureFlags(0x1001);
    assert_eq!(
        flags.names().collect::<Vec<_>>(),
        ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]
    );
    assert_eq!(flags.unknown_bits(), 0x1000);
    assert!(DescriptorRangeFlags(0x10001).contains(0x10000));
}

#[test]
fn rts0_filter_names() {
    for (raw, name) in [
        (0x00, "MIN_MAG_MIP_POINT"),
        (0x01, "MIN_MAG_POINT_MIP_LINEAR"),
        (0x04, "MIN_POINT_MAG_LINEAR_MIP_POINT"),
        (0x05, "MIN_POINT_MAG_MIP_LINEAR"),
        (0x10, "MIN_LINEAR_MAG_MIP_POINT"),
        (0x11, "MIN_LINEAR_MAG_POINT_MIP_LINEAR"),
        (0x14, "MIN_MAG_LINEAR_MIP_POINT"),
        (0x15, "MIN_MAG_MIP_LINEAR"),
        (0x54, "MIN_MAG_ANISOTROPIC_MIP_POINT"),
        (0x55, "ANISOTROPIC"),
        (0x95, "COMPARISON_MIN_MAG_MIP_LINEAR"),
        (0xd5, "COMPARISON_ANISOTROPIC"),
        (0x100, "MINIMUM_MIN_MAG_MIP_POINT"),
        (0x1d5, "MAXIMUM_ANISOTROPIC"),
    ] {
        assert_eq!(Filter(raw).d3d12_name().as_deref(), Some(name), "{raw:#x}");
    }
    for raw in [0x2, 0x8, 0x40, 0x41, 0x200, 0x1_0000] {
        assert_eq!(Filter(raw).d3d12_name(), None, "{raw:#x}");
    }
    let f = Filter(0x95);
    assert!(f.min_linear() && f.mag_linear() && f.mip_linear() && !f.anisotropic());
    assert_eq!(f.reduction(), 1);
}

#[test]
fn rts0_empty_lists_may_point_anywhere() {
    // No parameters, no samplers, both offsets out of range: accepted.
    let bytes = words(&[2, 0, 0xdead, 0, 0xbeef, 0x20]);
    let rs = parse(&bytes).unwrap();
    assert!(rs.parameters.is_empty() && rs.static_samplers.is_empty());
    assert_eq!(rs.flags.0, 0x20);
    // An empty table likewise.
    let bytes = words(&[2, 1, 24, 0, 44, 0, 0, 5, 36, 0, 0xffff]);
    let rs = parse(&bytes).unwrap();
    let ParameterKind::DescriptorTable(t) = &rs.parameters[0].kind else {
        panic!();
    };
    assert!(t.ranges.is_empty());
}

#[test]
fn rts0_malformed_input_is_an_error_with_its_offset() {
    let bytes = serialize(&sample(Version::V1_1));
    let end = BASE + bytes.len() as u32;
    // Every truncation fails inside the chunk.
    for len in 0..bytes.len() {
        let e = parse(&bytes[..len]).unwrap_err();
        assert!((BASE..=end).contains(&e.offset), "{len}: {e}");
        assert_eq!(e.context, Some("RTS0"));
    }
    let patched = |word: usize, value: u32| {
        let mut b = bytes.clone();
        b[4 * word..4 * word + 4].copy_from_slice(&value.to_le_bytes());
        parse(&b).unwrap_err()
    };
    // Unknown version, at the version field.
    let e = patched(0, 4);
    assert_eq!(e.offset, BASE);
    assert!(matches!(
        e.kind,
        DecodeErrorKind::InvalidValue {
            what: "root signature version",
            value: 4
        }
    ));
    // Huge counts are refused before allocating, at the count field.
    let e = patched(1, u32::MAX);
    assert_eq!(e.offset, BASE + 4);
    assert!(matches!(e.kind, DecodeErrorKind::LimitExceeded { .. }));
    let e = patched(3, 1000);
    assert_eq!(e.offset, BASE + 12);
    // Offsets outside the chunk, at the offset field.
    assert_eq!(patched(2, 1 << 20).offset, BASE + 8);
    assert_eq!(patched(4, bytes.len() as u32 + 4).offset, BASE + 16);
    assert_eq!(patched(8, 1 << 20).offset, BASE + 32);
    // An unknown parameter type, at its entry.
    let e = patched(6, 5);
    assert_eq!(e.offset, BASE + 24);
    assert!(matches!(
        e.kind,
        DecodeErrorKind::InvalidValue {
            what: "root parameter type",
            ..
        }
    ));
    // A range count larger than the chunk, at the table's count field.
    let table = u32::from_le_bytes(bytes[32..36].try_into().unwrap());
    let e = patched(table as usize / 4, 100_000);
    assert_eq!(e.offset, BASE + table);
    // Not a version-1.0 layout: the ranges of 1.1 no longer line up but stay in bounds, so
    // the mismatch only shows as odd values, never as a panic.
    let mut b = bytes.clone();
    b[0] = 1;
    let _ = parse(&b);
}

#[test]
fn rts0_shared_range_lists_are_bounded() {
    // 50 table parameters all pointing at one table of 40 ranges: 2,000 ranges claimed,
    // far more than the chunk could hold once each.
    let params = 50u32;
    let table = 24 + 12 * params;
    let mut w = vec![2, params, 24, 0, 0, 0];
    for _ in 0..params {
        w.extend([0, 0, table]);
    }
    w.extend([40, table + 8]);
    for i in 0..40 {
        w.extend([0, 1, i, 0, 0, u32::MAX]);
    }
    w[4] = 4 * w.len() as u32;
    let e = parse(&words(&w)).unwrap_err();
    assert!(matches!(
        e.kind,
        DecodeErrorKind::LimitExceeded {
            what: "descriptor ranges in all tables",
            ..
        }
    ));
    assert_eq!(e.offset, BASE + table);
    // Two parameters sharing half of it still fit in the bytes.
    w[1] = 2;
    w[table as usize / 4] = 20;
    assert!(parse(&words(&w)).is_ok());
}

/// Every `RTS0` in the corpus (shader containers and root-signature-only ones in `_other/`).
fn corpus_chunks() -> Vec<(String, Vec<u8>)> {
    let lax = ParseOptions {
        verify_checksum: false,
    };
    let mut out = Vec::new();
    let blobs = test_support::corpus_blobs();
    for path in blobs.iter().chain(test_support::other_blobs().iter()) {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(c) = Container::parse(&bytes, &lax) else {
            continue;
        };
        for chunk in c.chunks.iter().filter(|c| c.fourcc == FourCc::RTS0) {
            let mut framed = vec![0u8; BASE as usize];
            framed.extend_from_slice(chunk.data);
            out.push((path.display().to_string(), framed));
        }
    }
    out
}

#[test]
fn rts0_every_corpus_root_signature_parses() {
    let chunks = corpus_chunks();
    let mut failures = Vec::new();
    let mut versions = std::collections::BTreeMap::new();
    let mut kinds = std::collections::BTreeMap::new();
    let mut range_types = std::collections::BTreeMap::new();
    let (mut ranges, mut samplers, mut unbounded, mut reserialized) = (0, 0, 0, 0);
    let mut others = 0;
    for (path, framed) in &chunks {
        others += usize::from(path.contains("_other"));
        let data = &framed[BASE as usize..];
        let rs = match parse(data) {
            Ok(rs) => rs,
            Err(e) => {
                failures.push(format!("{path}: {e}"));
                continue;
            }
        };
        *versions.entry(rs.version.to_string()).or_insert(0) += 1;
        for p in &rs.parameters {
            *kinds.entry(p.kind.name()).or_insert(0) += 1;
            if let ParameterKind::DescriptorTable(t) = &p.kind {
                unbounded += t.ranges.iter().filter(|r| r.is_unbounded()).count();
                for r in &t.ranges {
                    let name = r.range_type.d3d12_name().unwrap_or("unknown");
                    *range_types.entry(name).or_insert(0) += 1;
                }
            }
        }
        ranges += rs.range_count();
        samplers += rs.static_samplers.len();
        // fxc and D3D12 lay the parts out in one order; ours reproduces every byte.
        if serialize(&rs) == data {
            reserialized += 1;
        }
    }
    eprintln!(
        "RTS0: {} chunks ({others} in _other), versions {versions:?}, parameters {kinds:?}, \
         {ranges} ranges {range_types:?} ({unbounded} unbounded), {samplers} static samplers, \
         {reserialized} re-serialized byte for byte",
        chunks.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(reserialized, chunks.len());
}

#[test]
fn rts0_mutations_never_panic() {
    let mut seeds: Vec<Vec<u8>> = corpus_chunks()
        .into_iter()
        .map(|(_, framed)| framed[BASE as usize..].to_vec())
        .collect();
    for version in [Version::V1_0, Version::V1_1, Version::V1_2] {
        seeds.push(serialize(&sample(version)));
    }
    seeds.push(words(&VKD3D_TABLE_1_0));
    seeds.sort();
    seeds.dedup();
    let mut state = 0x5eed_0517u32;
    let mut next = move || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        state
    };
    let (mut ok, mut err) = (0, 0);
    for round in 0..6000 {
        let mut b = seeds[round % seeds.len()].clone();
        for _ in 0..1 + next() % 4 {
            let r = next();
            let i = (r >> 8) as usize % b.len().max(1);
            match r % 4 {
                // A small word value (counts, types, offsets) at a dword boundary.
                0 if b.len() >= 4 => {
                    let i = i & !3;
                    let v = next() % 0x100;
                    let at = i.min(b.len() - 4);
                    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
                }
                1 if !b.is_empty() => b[i] = (r >> 24) as u8,
                2 => b.truncate(i),
                _ => b.extend_from_slice(&next().to_le_bytes()),
            }
        }
        match parse(&b) {
            Ok(rs) => {
                ok += 1;
                let end = BASE + b.len() as u32;
                for p in &rs.parameters {
                    assert!(p.offset >= BASE && p.offset + 12 <= end);
                }
                assert!(rs.range_count() <= b.len() / 20);
                for s in &rs.static_samplers {
                    assert!(s.offset >= BASE && s.offset + 52 <= end);
                }
            }
            Err(e) => {
                err += 1;
                assert!(e.offset >= BASE && e.offset <= BASE + b.len() as u32, "{e}");
            }
        }
    }
    assert!(ok > 0 && err > 0, "{ok} parsed, {err} refused");
}
