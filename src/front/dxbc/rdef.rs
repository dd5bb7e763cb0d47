//! Resource definitions (`RDEF`): constant buffers, their variables and types, resource bindings.
//!
//! Contract: [`ResourceDefinitions::parse`] reads an `RDEF` chunk, borrowing every string from it.
//! The SM5 extension header (`RD11`, or its SM5.1 variant `13 13 44 25`) is recognised by its tag
//! at offset 28, not by the target version, and its declared entry sizes are the strides used for
//! constant buffers, variables, types and bindings (each at least the SM4 size); without it the
//! SM4 sizes apply. All offsets are relative to the chunk start and are bounds-checked; counts are
//! checked against the chunk size before allocating. Types form a tree that is copied per use:
//! its depth is limited to [`MAX_TYPE_DEPTH`] and the number of type nodes per chunk to
//! [`MAX_TYPE_NODES`], so cyclic or exponentially shared type graphs are errors, not hangs.
//! Layout: `docs/dxbc-format.md`, "Container and chunks".

use super::container::Chunk;
use super::error::{DecodeErrorKind, Result};
use super::reader::Reader;

/// Deepest nesting of struct members accepted.
pub const MAX_TYPE_DEPTH: u32 = 64;
/// Most type nodes (types and member types, counted per use) accepted in one chunk.
pub const MAX_TYPE_NODES: u32 = 1 << 16;

/// The SM5 `RD11` tag.
const RD11: [u8; 4] = *b"RD11";
/// The SM5.1 variant of the tag (`RD11` with 40-byte bindings carrying space and range ID).
const RD11_51: [u8; 4] = [0x13, 0x13, 0x44, 0x25];

/// A parsed `RDEF` chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceDefinitions<'a> {
    /// Constant buffers, texture buffers, interface pointers and structured-buffer layouts.
    pub constant_buffers: Vec<ConstantBuffer<'a>>,
    /// Resource bindings (what fxc's "Resource Bindings" table lists), in chunk order.
    pub bindings: Vec<ResourceBinding<'a>>,
    /// The compilation target recorded by the compiler.
    pub target: Target,
    /// Compile flags (`D3DCOMPILE_*`).
    pub flags: u32,
    /// The compiler's name and version, e.g. `Microsoft (R) HLSL Shader Compiler 10.1`.
    pub creator: &'a str,
    /// The SM5 extension header, when present.
    pub rd11: Option<Rd11Header>,
}

/// The compilation target stored in the `RDEF` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// Shader model major version.
    pub major: u8,
    /// Shader model minor version.
    pub minor: u8,
    /// Program type: `0xFFFF` pixel, `0xFFFE` vertex, `0x4753` geometry, `0x4853` hull,
    /// `0x4453` domain, `0x4353` compute, `0x4C46` function library.
    pub program_type: u16,
}

/// The SM5 extension of the `RDEF` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rd11Header {
    /// `RD11`, or `13 13 44 25` for SM5.1.
    pub tag: [u8; 4],
    /// Size of the whole `RDEF` header (60).
    pub header_size: u32,
    /// Bytes per constant-buffer entry (24).
    pub constant_buffer_size: u32,
    /// Bytes per binding entry (32; 40 in SM5.1, adding space and range ID).
    pub binding_size: u32,
    /// Bytes per variable entry (40).
    pub variable_size: u32,
    /// Bytes per type entry (36).
    pub type_size: u32,
    /// Bytes per struct-member entry (12).
    pub member_size: u32,
    /// Number of interface slots (dynamic linkage).
    pub interface_slot_count: u32,
}

/// What a constant-buffer entry describes (`D3D_CBUFFER_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// A `cbuffer`.
    CBuffer,
    /// A `tbuffer`.
    TBuffer,
    /// The `$ThisPointer` interface-pointer buffer.
    InterfacePointers,
    /// The element layout of a structured buffer (`Resource bind info for ...`).
    ResourceBindInfo,
    /// A value this crate does not know.
    Unknown(u32),
}

/// A constant buffer (or tbuffer, interface-pointer buffer, structured-buffer layout).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantBuffer<'a> {
    /// Name.
    pub name: &'a str,
    /// Variables, in chunk order.
    pub variables: Vec<Variable<'a>>,
    /// Size in bytes.
    pub size: u32,
    /// `D3D_SHADER_CBUFFER_FLAGS` (1 = user packed).
    pub flags: u32,
    /// What the entry describes.
    pub kind: BufferKind,
}

/// A variable in a constant buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable<'a> {
    /// Name.
    pub name: &'a str,
    /// Byte offset in the buffer.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// `D3D_SHADER_VARIABLE_FLAGS`: 1 user packed, 2 used, 4 interface pointer, 8 interface
    /// parameter.
    pub flags: u32,
    /// The variable's type.
    pub ty: Type<'a>,
    /// The default value (`size` bytes), when the compiler recorded one.
    pub default_value: Option<&'a [u8]>,
    /// SM5 only: texture and sampler ranges bound through the variable.
    pub resources: Option<VariableResources>,
}

impl Variable<'_> {
    /// `D3D_SVF_USED`: the shader reads the variable (fxc prints `[unused]` otherwise).
    pub fn is_used(&self) -> bool {
        self.flags & 2 != 0
    }
}

/// SM5 variable fields: resource ranges (`0xffffffff` start = none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariableResources {
    /// First texture slot.
    pub texture_start: u32,
    /// Number of texture slots.
    pub texture_count: u32,
    /// First sampler slot.
    pub sampler_start: u32,
    /// Number of sampler slots.
    pub sampler_count: u32,
}

/// A variable or member type.
#[derive(Clone, Debug, PartialEq)]
pub struct Type<'a> {
    /// `D3D_SHADER_VARIABLE_CLASS`: 0 scalar, 1 vector, 2 row-major matrix, 3 column-major
    /// matrix, 4 object, 5 struct, 6 interface class, 7 interface pointer.
    pub class: u16,
    /// `D3D_SHADER_VARIABLE_TYPE`: 0 void, 1 bool, 2 int, 3 float, 19 uint, 39 double, ...
    pub base: u16,
    /// Rows (1 for scalars and vectors).
    pub rows: u16,
    /// Columns (vector size for vectors).
    pub columns: u16,
    /// Array elements (0 = not an array).
    pub elements: u16,
    /// Struct members, in declaration order.
    pub members: Vec<Member<'a>>,
    /// SM5 only: the type's name (`float4`, `dword`, or a struct's name).
    pub name: Option<&'a str>,
    /// SM5 only: four undocumented words; the first is the offset of the interface type for
    /// interface pointers, all are zero otherwise.
    pub sm5_extra: [u32; 4],
}

/// A struct member.
#[derive(Clone, Debug, PartialEq)]
pub struct Member<'a> {
    /// Name.
    pub name: &'a str,
    /// Byte offset from the start of the struct.
    pub offset: u32,
    /// The member's type.
    pub ty: Type<'a>,
}

/// A resource binding (`D3D11_SHADER_INPUT_BIND_DESC`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceBinding<'a> {
    /// Name.
    pub name: &'a str,
    /// `D3D_SHADER_INPUT_TYPE`: 0 cbuffer, 1 tbuffer, 2 texture, 3 sampler, 4 RW typed UAV,
    /// 5 structured, 6 RW structured, 7 byte address, 8 RW byte address, 9 append, 10 consume,
    /// 11 RW structured with counter.
    pub input_type: u32,
    /// `D3D_RESOURCE_RETURN_TYPE`: 1 unorm, 2 snorm, 3 sint, 4 uint, 5 float, 6 mixed,
    /// 7 double, 8 continued (0 for non-texture bindings).
    pub return_type: u32,
    /// `D3D_SRV_DIMENSION`: 1 buffer, 2 1d, 3 1d array, 4 2d, 5 2d array, 6 2dms, 7 2dms array,
    /// 8 3d, 9 cube, 10 cube array, 11 bufferex.
    pub dimension: u32,
    /// Samples for multisampled textures, or the structure stride for structured buffers;
    /// `0xffffffff` for other textures.
    pub num_samples: u32,
    /// First register.
    pub bind_point: u32,
    /// Number of registers (0 = unbounded in SM5.1).
    pub bind_count: u32,
    /// `D3D_SHADER_INPUT_FLAGS`: 1 user packed, 2 comparison sampler, bits 2-3 component count
    /// minus one, 16 unused (SM5.1).
    pub flags: u32,
    /// SM5.1 only: register space.
    pub space: Option<u32>,
    /// SM5.1 only: range ID (the index used by the program).
    pub id: Option<u32>,
}

impl<'a> ResourceDefinitions<'a> {
    /// Parses an `RDEF` chunk.
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self> {
        Parser {
            chunk: chunk.reader(),
            rd11: None,
            type_nodes: 0,
            default_bytes: 0,
        }
        .parse()
        .map_err(|e| e.with_context("RDEF"))
    }
}

/// Parsing state: the chunk, the SM5 strides, and the type-node budget.
struct Parser<'a> {
    chunk: Reader<'a>,
    rd11: Option<Rd11Header>,
    type_nodes: u32,
    /// Default-value bytes referenced so far: bounded by the chunk size, so that variables
    /// sharing one default cannot multiply the work of their consumers.
    default_bytes: u64,
}

impl<'a> Parser<'a> {
    fn parse(mut self) -> Result<ResourceDefinitions<'a>> {
        let mut r = self.chunk;
        let cb_count = r.read_u32()?;
        let cb_offset = r.read_u32()?;
        let binding_count = r.read_u32()?;
        let binding_offset = r.read_u32()?;
        let minor = r.read_u8()?;
        let major = r.read_u8()?;
        let program_type = r.read_u16()?;
        let flags = r.read_u32()?;
        let creator_offset = r.read_u32()?;
        let creator = self.chunk.cstr_at(creator_offset)?;
        if r.remaining() >= 32 {
            let tag = r.peek_u32()?.to_le_bytes();
            if tag == RD11 || tag == RD11_51 {
                self.rd11 = Some(read_rd11(&mut r)?);
                self.stride(|h| h.type_size, 36, &r)?;
            }
        }
        let cb_stride = self.stride(|h| h.constant_buffer_size, 24, &r)?;
        let mut cbs = self.chunk.at(cb_offset)?;
        let cb_count = cbs.check_count("constant buffers", cb_count, cb_stride)?;
        let mut constant_buffers = Vec::with_capacity(cb_count);
        for _ in 0..cb_count {
            let mut e = cbs.sub_reader(cb_stride)?;
            constant_buffers.push(self.constant_buffer(&mut e)?);
        }
        let binding_stride = self.stride(|h| h.binding_size, 32, &r)?;
        let mut bs = self.chunk.at(binding_offset)?;
        let binding_count = bs.check_count("resource bindings", binding_count, binding_stride)?;
        let mut bindings = Vec::with_capacity(binding_count);
        for _ in 0..binding_count {
            let mut e = bs.sub_reader(binding_stride)?;
            bindings.push(self.binding(&mut e, binding_stride >= 40)?);
        }
        Ok(ResourceDefinitions {
            constant_buffers,
            bindings,
            target: Target {
                major,
                minor,
                program_type,
            },
            flags,
            creator,
            rd11: self.rd11,
        })
    }

    /// The entry stride: the `RD11` size when present (at least `minimum`), else `minimum`.
    fn stride(
        &self,
        field: fn(&Rd11Header) -> u32,
        minimum: usize,
        r: &Reader<'_>,
    ) -> Result<usize> {
        let Some(h) = &self.rd11 else {
            return Ok(minimum);
        };
        let size = field(h) as usize;
        if size < minimum || size > 1024 {
            return Err(r.error(DecodeErrorKind::InvalidValue {
                what: "RD11 entry size",
                value: field(h),
            }));
        }
        Ok(size)
    }

    fn constant_buffer(&mut self, e: &mut Reader<'a>) -> Result<ConstantBuffer<'a>> {
        let name = e.string_ref(&self.chunk)?;
        let var_count = e.read_u32()?;
        let var_offset = e.read_u32()?;
        let size = e.read_u32()?;
        let flags = e.read_u32()?;
        let kind = match e.read_u32()? {
            0 => BufferKind::CBuffer,
            1 => BufferKind::TBuffer,
            2 => BufferKind::InterfacePointers,
            3 => BufferKind::ResourceBindInfo,
            other => BufferKind::Unknown(other),
        };
        let var_stride = self.stride(
            |h| h.variable_size,
            if self.rd11.is_some() { 40 } else { 24 },
            e,
        )?;
        let mut vs = self.chunk.at(var_offset)?;
        let var_count = vs.check_count("variables", var_count, var_stride)?;
        let mut variables = Vec::with_capacity(var_count);
        for _ in 0..var_count {
            let mut v = vs.sub_reader(var_stride)?;
            variables.push(self.variable(&mut v)?);
        }
        Ok(ConstantBuffer {
            name,
            variables,
            size,
            flags,
            kind,
        })
    }

    fn variable(&mut self, v: &mut Reader<'a>) -> Result<Variable<'a>> {
        let name = v.string_ref(&self.chunk)?;
        let offset = v.read_u32()?;
        let size = v.read_u32()?;
        let flags = v.read_u32()?;
        let type_offset = v.read_u32()?;
        let default_offset = v.read_u32()?;
        let resources = if self.rd11.is_some() {
            Some(VariableResources {
                texture_start: v.read_u32()?,
                texture_count: v.read_u32()?,
                sampler_start: v.read_u32()?,
                sampler_count: v.read_u32()?,
            })
        } else {
            None
        };
        let default_value = if default_offset == 0 {
            None
        } else {
            self.default_bytes += u64::from(size);
            if self.default_bytes > self.chunk.data().len() as u64 {
                return Err(v.error(DecodeErrorKind::LimitExceeded {
                    what: "default value bytes",
                    value: self.default_bytes,
                    limit: self.chunk.data().len() as u64,
                }));
            }
            Some(self.chunk.at(default_offset)?.read_bytes(size as usize)?)
        };
        let ty = self.ty(type_offset, 0)?;
        Ok(Variable {
            name,
            offset,
            size,
            flags,
            ty,
            default_value,
            resources,
        })
    }

    fn ty(&mut self, offset: u32, depth: u32) -> Result<Type<'a>> {
        let mut t = self.chunk.at(offset)?;
        if depth >= MAX_TYPE_DEPTH {
            return Err(t.error(DecodeErrorKind::LimitExceeded {
                what: "type nesting depth",
                value: u64::from(depth),
                limit: u64::from(MAX_TYPE_DEPTH),
            }));
        }
        self.type_nodes += 1;
        if self.type_nodes > MAX_TYPE_NODES {
            return Err(t.error(DecodeErrorKind::LimitExceeded {
                what: "type nodes",
                value: u64::from(self.type_nodes),
                limit: u64::from(MAX_TYPE_NODES),
            }));
        }
        let class = t.read_u16()?;
        let base = t.read_u16()?;
        let rows = t.read_u16()?;
        let columns = t.read_u16()?;
        let elements = t.read_u16()?;
        let member_count = t.read_u16()?;
        let member_offset = t.read_u32()?;
        let (sm5_extra, name) = if self.rd11.is_some() {
            let extra = [t.read_u32()?, t.read_u32()?, t.read_u32()?, t.read_u32()?];
            let name_offset = t.read_u32()?;
            let name = if name_offset == 0 {
                None
            } else {
                Some(self.chunk.cstr_at(name_offset)?)
            };
            (extra, name)
        } else {
            ([0; 4], None)
        };
        let mut members = Vec::new();
        if member_count > 0 {
            let mut ms = self.chunk.at(member_offset)?;
            let count = ms.check_count("struct members", u32::from(member_count), 12)?;
            members.reserve(count);
            for _ in 0..count {
                let name = ms.string_ref(&self.chunk)?;
                let type_offset = ms.read_u32()?;
                let offset = ms.read_u32()?;
                let ty = self.ty(type_offset, depth + 1)?;
                members.push(Member { name, offset, ty });
            }
        }
        Ok(Type {
            class,
            base,
            rows,
            columns,
            elements,
            members,
            name,
            sm5_extra,
        })
    }

    fn binding(&self, e: &mut Reader<'a>, sm51: bool) -> Result<ResourceBinding<'a>> {
        let name = e.string_ref(&self.chunk)?;
        let mut binding = ResourceBinding {
            name,
            input_type: e.read_u32()?,
            return_type: e.read_u32()?,
            dimension: e.read_u32()?,
            num_samples: e.read_u32()?,
            bind_point: e.read_u32()?,
            bind_count: e.read_u32()?,
            flags: e.read_u32()?,
            space: None,
            id: None,
        };
        if sm51 {
            binding.space = Some(e.read_u32()?);
            binding.id = Some(e.read_u32()?);
        }
        Ok(binding)
    }
}

fn read_rd11(r: &mut Reader<'_>) -> Result<Rd11Header> {
    Ok(Rd11Header {
        tag: r.read_array()?,
        header_size: r.read_u32()?,
        constant_buffer_size: r.read_u32()?,
        binding_size: r.read_u32()?,
        variable_size: r.read_u32()?,
        type_size: r.read_u32()?,
        member_size: r.read_u32()?,
        interface_slot_count: r.read_u32()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::dxbc::container::FourCc;
    use crate::test_support::{sample_rdef, Bytes};

    fn chunk(data: &[u8]) -> Chunk<'_> {
        Chunk {
            fourcc: FourCc::RDEF,
            offset: 0x100,
            data,
        }
    }

    #[test]
    fn parses_buffers_types_and_bindings() {
        let data = sample_rdef();
        let r = ResourceDefinitions::parse(&chunk(&data)).unwrap();
        assert_eq!(r.creator, "Microsoft (R) HLSL Shader Compiler 10.1");
        assert_eq!(
            (r.target.major, r.target.minor, r.target.program_type),
            (5, 0, 0xffff)
        );
        assert_eq!(r.rd11.unwrap().binding_size, 32);
        let cb = &r.constant_buffers[0];
        assert_eq!((cb.name, cb.size, cb.kind), ("cb", 96, BufferKind::CBuffer));
        let a = &cb.variables[0];
        assert!(a.is_used());
        assert_eq!(a.ty.name, Some("float4"));
        assert_eq!(a.default_value.map(<[u8]>::len), Some(16));
        let s = &cb.variables[1];
        assert!(!s.is_used());
        assert_eq!((s.ty.class, s.ty.elements, s.ty.name), (5, 2, Some("S")));
        let names: Vec<_> =
            s.ty.members
                .iter()
                .map(|m| (m.name, m.offset, m.ty.base))
                .collect();
        assert_eq!(names, [("x", 0, 3), ("y", 4, 19)]);
        assert_eq!(r.bindings.len(), 2);
        assert_eq!((r.bindings[1].name, r.bindings[1].bind_point), ("tex", 1));
        assert_eq!(r.bindings[1].space, None);
    }

    #[test]
    fn truncated_or_corrupt_chunks_are_errors() {
        let data = sample_rdef();
        for len in 0..data.len() {
            let Err(e) = ResourceDefinitions::parse(&chunk(&data[..len])) else {
                // Only truncating the trailing creator string's terminator could succeed.
                panic!("truncation to {len} bytes parsed");
            };
            assert!(e.offset >= 0x100 && e.offset <= 0x100 + data.len() as u32);
        }
        // A huge count is refused before allocating.
        let mut bad = data.clone();
        bad[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            ResourceDefinitions::parse(&chunk(&bad)).unwrap_err().kind,
            DecodeErrorKind::LimitExceeded { .. }
        ));
        // A struct whose member is the struct itself: bounded recursion.
        let mut cyclic = data.clone();
        cyclic[308 + 4..308 + 8].copy_from_slice(&200u32.to_le_bytes());
        assert!(matches!(
            ResourceDefinitions::parse(&chunk(&cyclic))
                .unwrap_err()
                .kind,
            DecodeErrorKind::LimitExceeded {
                what: "type nesting depth",
                ..
            }
        ));
        // An RD11 entry size below the SM4 size.
        let mut small = data.clone();
        small[36..40].copy_from_slice(&8u32.to_le_bytes());
        assert!(ResourceDefinitions::parse(&chunk(&small)).is_err());
    }

    #[test]
    fn exponential_type_sharing_hits_the_node_budget() {
        // Struct S has two members, both of type S' which has two members of type S'' ...:
        // build 40 levels, each pointing twice at the next.
        let mut b = Bytes::default();
        b.u32(1).u32(60).u32(0).u32(0);
        b.0.extend_from_slice(&[0, 5]);
        b.u16(0xffff).u32(0).u32(0);
        b.0.extend_from_slice(b"RD11");
        for v in [60, 24, 32, 40, 36, 12, 0] {
            b.u32(v);
        }
        b.u32(0).u32(1).u32(84).u32(16).u32(0).u32(0);
        b.u32(0).u32(0).u32(16).u32(2).u32(124).u32(0);
        b.u32(u32::MAX).u32(0).u32(u32::MAX).u32(0);
        let levels = 40u32;
        let first = b.pos();
        for level in 0..levels {
            let this = first + level * 60;
            let next = this + 60;
            let members = if level + 1 == levels { 0 } else { 2 };
            b.u16(5).u16(0).u16(1).u16(1).u16(0).u16(members);
            b.u32(this + 36).u32(0).u32(0).u32(0).u32(0).u32(0);
            b.u32(0).u32(next).u32(0);
            b.u32(0).u32(next).u32(0);
        }
        let name = b.str("n");
        b.patch(24, name);
        b.patch(60, name);
        b.patch(84, name);
        for level in 0..levels {
            b.patch(first + level * 60 + 36, name);
            b.patch(first + level * 60 + 48, name);
        }
        let e = ResourceDefinitions::parse(&chunk(&b.0)).unwrap_err();
        assert!(matches!(
            e.kind,
            DecodeErrorKind::LimitExceeded {
                what: "type nodes",
                ..
            }
        ));
    }
}
